"""SDCA: ``SdcaOptimizer``/``SdcaOptimizerV2`` (one pass of stochastic dual coordinate ascent
over a batch, TF's kernel), ``SdcaFprint`` (TF's 128-bit FarmHash fingerprint of strings, as
the SDCA linear optimizer uses for its example ids) and ``sdca_shrink_l1`` (the L1 shrink step).

``fingerprint128`` is FarmHash's Fingerprint128 (farmhashcc: CityHash128), written in Python
over 64-bit words; its values are checked against TensorFlow's ``sdca_fprint``.
"""

import math

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.string_hash_ops import (
    _K0,
    _K1,
    _M,
    _chunk64,
    _f64,
    _h16,
    _len0to16,
    _rot,
    _smix,
    _weak32,
)


def _murmur(s, off, n, lo, hi):
    a, b, c, d = lo, hi, 0, 0
    l = n - 16
    if l <= 0:
        a = (_smix((a * _K1) & _M) * _K1) & _M
        c = (b * _K1 + _len0to16(s[off : off + n], n)) & _M
        d = _smix((a + (_f64(s, off) if n >= 8 else c)) & _M)
    else:
        c = _h16((_f64(s, off + n - 8) + _K1) & _M, a)
        d = _h16((b + n) & _M, (c + _f64(s, off + n - 16)) & _M)
        a = (a + d) & _M
        i = off
        while True:
            a ^= (_smix((_f64(s, i) * _K1) & _M) * _K1) & _M
            a = (a * _K1) & _M
            b ^= a
            c ^= (_smix((_f64(s, i + 8) * _K1) & _M) * _K1) & _M
            c = (c * _K1) & _M
            d ^= c
            i += 16
            l -= 16
            if l <= 0:
                break
    a = _h16(a, c)
    b = _h16(d, b)
    return a ^ b, _h16(b, a)


def _city128_seed(s, off, n, lo, hi):
    if n < 128:
        return _murmur(s, off, n, lo, hi)
    x, y, z = lo, hi, (n * _K1) & _M
    v0 = (_rot(y ^ _K1, 49) * _K1 + _f64(s, off)) & _M
    v1 = (_rot(v0, 42) * _K1 + _f64(s, off + 8)) & _M
    w0 = (_rot((y + z) & _M, 35) * _K1 + x) & _M
    w1 = (_rot((x + _f64(s, off + 88)) & _M, 53) * _K1) & _M
    i = off
    while True:
        for _ in range(2):
            x, y, z, v0, v1, w0, w1 = _chunk64(s, i, x, y, z, v0, v1, w0, w1)
            i += 64
        n -= 128
        if n < 128:
            break
    x = (x + _rot((v0 + z) & _M, 49) * _K0) & _M
    y = (y * _K0 + _rot(w1, 37)) & _M
    z = (z * _K0 + _rot(w0, 27)) & _M
    w0 = (w0 * 9) & _M
    v0 = (v0 * _K0) & _M
    done = 0
    while done < n:
        done += 32
        y = (_rot((x + y) & _M, 42) * _K0 + v1) & _M
        w0 = (w0 + _f64(s, i + n - done + 16)) & _M
        x = (x * _K0 + w0) & _M
        z = (z + w1 + _f64(s, i + n - done)) & _M
        w1 = (w1 + v0) & _M
        v0, v1 = _weak32(s, i + n - done, (v0 + z) & _M, v1)
        v0 = (v0 * _K0) & _M
    x = _h16(x, v0)
    y = _h16((y + z) & _M, w0)
    return (_h16((x + v1) & _M, w1) + y) & _M, _h16((x + w1) & _M, (y + v1) & _M)


def fingerprint128(s):
    """FarmHash Fingerprint128 of the bytes ``s``: ``(low 64 bits, high 64 bits)``."""
    n = len(s)
    if n >= 16:
        return _city128_seed(s, 16, n - 16, _f64(s, 0), (_f64(s, 8) + _K0) & _M)
    return _city128_seed(s, 0, n, _K0, _K1)


def _fprint_kernel(input):
    x = np.asarray(input, dtype=object)
    if x.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"SdcaFprint: input must be a vector, got shape {list(x.shape)}"
        )
    out = np.empty((x.shape[0], 2), np.uint64)
    for i, v in enumerate(x.tolist()):
        out[i] = fingerprint128(v if isinstance(v, bytes) else str(v).encode())
    return out.view(np.int64)


def _fprint_shape(op):
    s = op.inputs[0].get_shape()
    if s.ndims not in (None, 1):
        raise ValueError(f"SdcaFprint: input must be a vector, got shape {s}")
    return [TensorShape([None if s.ndims is None else s[0].value, 2])]


op_registry.declare(
    "SdcaFprint",
    inputs=["input: string"],
    outputs=["output: int64"],
    shape=_fprint_shape,
    kernel=_fprint_kernel,
    differentiable=False,
)


def sdca_fprint(input, name=None):
    """The 128-bit fingerprints of a vector of strings, as int64 ``[N, 2]`` (low, high)."""
    input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
    return ops.apply_op("SdcaFprint", [input], name=name).outputs[0]


def sdca_shrink_l1(weights, l1, l2, name=None):
    """Shrinks each weight variable in place: ``w = sign(w) max(|w| - l1 / l2, 0)``; returns
    the grouped update op."""
    from tideflow.ops import control_flow_ops, math_ops, state_ops, unary_ops

    if l2 == 0:
        raise ValueError("sdca_shrink_l1: l2 must be nonzero (the shrinkage is l1 / l2)")
    shrinkage = np.float32(l1) / np.float32(l2)
    with ops.name_scope(name, "SdcaShrinkL1", list(weights)):
        updates = []
        for w in weights:
            if w.dtype.base_dtype != dtypes.float32:
                raise TypeError(
                    f"sdca_shrink_l1: weights must be float32, got {w.dtype.name} for {w.name}"
                )
            value = w.value() if hasattr(w, "value") else w
            new = unary_ops.sign(value) * math_ops.maximum(
                unary_ops.abs(value) - shrinkage, np.float32(0.0)
            )
            updates.append(state_ops.assign(w, new))
        return control_flow_ops.group(*updates)


# --- the dual coordinate ascent step ----------------------------------------------------
# Each loss gives the dual variable's closed-form (or Newton) maximizer given the example's
# margin ``wx`` and its norm ``||x||^2 / l2``, the primal loss and the conjugate ("dual")
# loss; the label of the classification losses is -1/+1 (fed as 0/1).


def _logistic_dual(nlp, y, w, dual, wx, norm):
    x = 0.0
    for _ in range(10):  # Newton on the tanh-reparametrized dual, as TF's kernel
        t = math.tanh(x)
        num = -2 * y * x - wx - nlp * norm * w * (0.5 * (1 + t) / y - dual)
        den = -2 * y - nlp * norm * w * (1 - t * t) * 0.5 / y
        x = x - num / den
    return 0.5 * (1 + math.tanh(x)) / y


def _logistic_primal(wx, y, w):
    ywx = y * wx
    if ywx > 0:
        return np.log1p(np.exp(-ywx)) * w
    return (np.log1p(np.exp(ywx)) - ywx) * w


def _logistic_conj(dual, y, w):
    ay = dual * y
    log_ay = np.log(ay) if ay > 0 else 0.0
    rest = 1 - ay
    log_rest = np.log(rest) if rest > 0 else 0.0
    return (ay * log_ay + rest * log_rest) * w


def _logistic_slope(wx, y, w):
    if y * wx > 0:
        e = np.exp(-y * wx)
        return -e / (1 + e) * y * w
    return -1 / (1 + np.exp(y * wx)) * y * w


def _squared_dual(nlp, y, w, dual, wx, norm):
    return dual + (y - dual - wx) / (1 + nlp * norm * w)


def _hinge_dual(nlp, y, w, dual, wx, norm, gamma=0.0):
    with np.errstate(divide="ignore", invalid="ignore"):
        cand = dual + (y - wx - gamma * dual) / (nlp * w * norm + gamma)
    if y * cand < 0:
        return 0.0
    if y * cand > 1.0:
        return y
    return cand


def _hinge_primal(wx, y, w):
    return max(0.0, 1 - y * wx) * w


def _hinge_conj(dual, y, w, gamma=0.0):
    ya = dual * y
    if ya < 0 or ya > 1.0:
        return np.finfo(np.float64).max
    return (-ya + 0.5 * gamma * dual * dual) * w


def _smooth_hinge_primal(wx, y, w):
    ywx = y * wx
    if ywx >= 1:
        return 0.0
    if ywx <= 0:
        return (0.5 - ywx) * w
    return (1 - ywx) * (1 - ywx) * w * 0.5


def _poisson_dual(nlp, y, w, dual, wx, norm):
    # Newton on x with exp(x) = y - dual, started there (at 0 when y <= dual), as TF's kernel
    rest = y - dual
    x = np.log(rest) if rest > 0 else 0.0
    for _ in range(10):
        ex = np.exp(x)
        num = x - wx - nlp * norm * w * (y - dual - ex)
        den = 1 + nlp * norm * w * ex
        x = x - num / den
    return y - np.exp(x)


def _poisson_primal(wx, y, w):
    return (np.exp(wx) - wx * y) * w


def _poisson_conj(dual, y, w):
    rest = y - dual
    if rest == 0.0:
        return 0.0
    if rest < 0.0:
        return np.finfo(np.float64).max
    return rest * (np.log(rest) - 1) * w


class _Loss:
    def __init__(self, dual, primal, conj, slope, smoothness, binary):
        self.dual, self.primal, self.conj = dual, primal, conj
        self.slope, self.smoothness, self.binary = slope, smoothness, binary


_LOSSES = {
    "logistic_loss": _Loss(_logistic_dual, _logistic_primal, _logistic_conj, _logistic_slope,
                           4.0, True),
    "squared_loss": _Loss(_squared_dual, lambda wx, y, w: (wx - y) * (wx - y) * w * 0.5,
                          lambda d, y, w: d * (0.5 * d - y) * w,
                          lambda wx, y, w: (wx - y) * w, 1.0, False),
    "hinge_loss": _Loss(_hinge_dual, _hinge_primal, _hinge_conj,
                        lambda wx, y, w: -y * w if y * wx < 1 else 0.0, 0.0, True),
    "smooth_hinge_loss": _Loss(
        lambda *a: _hinge_dual(*a, gamma=1.0), _smooth_hinge_primal,
        lambda d, y, w: _hinge_conj(d, y, w, gamma=1.0),
        lambda wx, y, w: 0.0 if y * wx >= 1 else (-y if y * wx <= 0 else wx - y), 1.0, True),
    "poisson_loss": _Loss(_poisson_dual, _poisson_primal, _poisson_conj,
                          lambda wx, y, w: (np.exp(wx) - y) * w, 1.0, False),
}


def _shrink(w, shrinkage):
    if shrinkage <= 0:
        return w
    return np.sign(w) * np.maximum(np.abs(w) - shrinkage, 0.0)


def _sdca_factory(ctx):
    attrs = ctx.op._attrs
    loss = _LOSSES[attrs["loss_type"].decode() if isinstance(attrs["loss_type"], bytes)
                   else attrs["loss_type"]]
    adaptive = bool(attrs.get("adaptive", attrs.get("adaptative", False)))
    l1, l2 = float(attrs["l1"]), float(attrs["l2"])
    nlp = int(attrs["num_loss_partitions"])
    inner = int(attrs["num_inner_iterations"])
    n_sparse = int(attrs["num_sparse_features"])
    name = ctx.op.name
    # TF draws each step's visiting order from a fresh random device (and shards it over
    # threads); here one seeded generator per plan keeps runs reproducible
    rng = np.random.RandomState(0)

    def fail(msg):
        raise errors.InvalidArgumentError(ctx.op.node_def if hasattr(ctx.op, "node_def")
                                          else None, ctx.op, f"{msg}\n\t [[node {name}]]")

    def run(sp_ex, sp_feat, sp_vals, dense, ex_weights, ex_labels, sp_idx, sp_w, dense_w,
            state):
        ex_weights = np.asarray(ex_weights, np.float32).reshape(-1)
        ex_labels = np.asarray(ex_labels, np.float32).reshape(-1)
        n = ex_weights.shape[0]
        if ex_labels.shape[0] != n:
            fail(f"Expected {n} example labels but got {ex_labels.shape[0]}")
        state = np.array(state, np.float32)
        if state.ndim != 2:
            fail(f"example_state_data must be rank 2 but is rank {state.ndim}")
        if state.shape != (n, 4):
            fail(f"Expected shape [{n},4] for example_state_data, got "
                 f"[{','.join(map(str, state.shape))}]")
        dense = [np.asarray(d, np.float32) for d in dense]
        for i, d in enumerate(dense):
            if d.ndim != 2:
                fail(f"Dense features at index {i} must be rank 2 but is rank {d.ndim}")
            if d.shape[1] > np.size(dense_w[i]):
                fail(f"More dense features than we have parameters for: {d.shape[1]}")
        shrinkage = l1 / l2
        dense_nom = [np.asarray(w, np.float32).reshape(-1) for w in dense_w]
        dense_delta = [np.zeros_like(w) for w in dense_nom]
        sparse_nom = [np.asarray(w, np.float32).reshape(-1) for w in sp_w]
        sparse_delta = [np.zeros_like(w) for w in sparse_nom]
        # each example's sparse features per group: positions into the group's unique ids
        groups, flat = [], []
        norms = np.zeros(n, np.float64)
        for j in range(n_sparse):
            ex = np.asarray(sp_ex[j], np.int64).reshape(-1)
            feat = np.asarray(sp_feat[j], np.int64).reshape(-1)
            if ex.shape != feat.shape:
                fail(f"Found mismatched example_indices and feature_indices [{ex}] vs "
                     f"[{feat}]")
            vals = (np.asarray(sp_vals[j], np.float32).reshape(-1) if j < len(sp_vals)
                    else np.ones(feat.shape, np.float32))
            ids = np.asarray(sp_idx[j], np.int64).reshape(-1)
            where = {int(v): k for k, v in enumerate(ids)}
            per = [([], []) for _ in range(n)]
            for e, f, v in zip(ex.tolist(), feat.tolist(), vals.tolist()):
                if f not in where:
                    fail(f"Found sparse feature indices out of valid range: {f}")
                if 0 <= e < n:
                    per[e][0].append(where[f])
                    per[e][1].append(v)
            for e in range(n):
                pos, v = per[e]
                if len(set(pos)) != len(pos):
                    fail("Duplicate index in sparse vector.")
                per[e] = (np.asarray(pos, np.int64), np.asarray(v, np.float64))
                norms[e] += float(np.sum(per[e][1] ** 2))
            groups.append(per)
            keep = (ex >= 0) & (ex < n)
            flat.append((ex[keep], np.asarray([where[f] for f in feat[keep].tolist()],
                                              np.int64), vals[keep].astype(np.float64)))
        for d in dense:
            norms += np.sum(d.astype(np.float64) ** 2, axis=1)

        labels = ex_labels.astype(np.float64)
        if loss.binary:
            for v in labels:
                if v not in (0.0, 1.0):
                    fail("Only labels of 0.0 or 1.0 are supported right now. Found example "
                         f"with label: {v:g}")
            labels = np.where(labels == 0.0, -1.0, 1.0)
        elif loss is _LOSSES["poisson_loss"]:
            for v in labels:
                if v < 0.0:
                    fail("Only non-negative labels can be used with the Poisson log loss. "
                         f"Found example with label: {v:g}")

        def margins(e):
            wx = prev = 0.0
            for j, per in enumerate(groups):
                pos, v = per[e]
                if pos.size:
                    nom = sparse_nom[j][pos].astype(np.float64)
                    cur = nom + sparse_delta[j][pos].astype(np.float64) * nlp
                    prev += float(np.dot(v, _shrink(nom, shrinkage)))
                    wx += float(np.dot(v, _shrink(cur, shrinkage)))
            for j, d in enumerate(dense):
                row = d[e]
                k = row.shape[0]
                nom = dense_nom[j][:k]
                cur = (nom + dense_delta[j][:k] * np.float32(nlp)).astype(np.float32)
                prev += float(np.dot(row, _shrink(nom, np.float32(shrinkage))))
                wx += float(np.dot(row, _shrink(cur, np.float32(shrinkage))))
            return wx, prev

        def order():
            if not adaptive:
                return rng.permutation(n)
            # visit examples in proportion to how far their duals are from optimal (their
            # probability divided by 10 each time one is drawn), then the unseen ones by
            # decreasing probability
            wx = np.zeros(n, np.float64)
            for (ex, pos, vals), nom, delta in zip(flat, sparse_nom, sparse_delta):
                cur = _shrink(nom.astype(np.float64) + delta.astype(np.float64) * nlp,
                              shrinkage)
                wx += np.bincount(ex, weights=vals * cur[pos], minlength=n)
            for d, nom, delta in zip(dense, dense_nom, dense_delta):
                k = d.shape[1]
                cur = (nom[:k] + delta[:k] * np.float32(nlp)).astype(np.float32)
                wx += d.astype(np.float64) @ _shrink(cur, np.float32(shrinkage))
            p = np.empty(n)
            for e in range(n):
                kappa = state[e, 0] + loss.slope(wx[e], labels[e], 1.0)
                p[e] = ex_weights[e] * np.sqrt(norms[e] + l2 * loss.smoothness) * abs(kappa)
            if not np.any(p > 0):
                return rng.permutation(n)
            cdf = np.cumsum(p / p.sum())
            counts = np.zeros(n, np.int64)
            picked, retries = [], 0
            while len(picked) < n and retries < n:
                e = min(int(np.searchsorted(cdf, rng.uniform(), side="right")), n - 1)
                if rng.uniform() > 0.1 ** counts[e]:
                    retries += 1
                    continue
                counts[e] += 1
                picked.append(e)
            unseen = sorted(np.flatnonzero(counts == 0).tolist(), key=lambda e: -p[e])
            return np.asarray(picked + unseen[:n - len(picked)], np.int64)

        for _ in range(inner):
            for e in order():
                e = int(e)
                w = float(ex_weights[e])
                dual = float(state[e, 0])
                wx, prev = margins(e)
                new = loss.dual(nlp, labels[e], w, dual, wx, norms[e] / l2)
                step = (new - dual) * w / l2
                for j, per in enumerate(groups):
                    pos, v = per[e]
                    if pos.size:
                        sparse_delta[j][pos] += (v * step).astype(np.float32)
                for j, d in enumerate(dense):
                    row = d[e]
                    dense_delta[j][:row.shape[0]] += (row * np.float32(step)).astype(
                        np.float32)
                state[e] = (new, loss.primal(prev, labels[e], w), loss.conj(dual, labels[e], w),
                            w)
        out_sparse = [d.reshape(np.shape(w)) for d, w in zip(sparse_delta, sp_w)]
        out_dense = [d.reshape(np.shape(w)) for d, w in zip(dense_delta, dense_w)]
        return [state, *out_sparse, *out_dense]

    return run


def _sdca_shape(op):
    a = op._attrs
    ns, nd = int(a["num_sparse_features"]), int(a["num_dense_features"])
    nv = int(a["num_sparse_features_with_values"])
    start = 2 * ns + nv + nd + 2
    sparse_w = op.inputs[start + ns:start + 2 * ns]
    dense_w = op.inputs[start + 2 * ns:start + 2 * ns + nd]
    state = op.inputs[-1].get_shape()
    return ([state] + [t.get_shape() for t in sparse_w] + [t.get_shape() for t in dense_w])


_LOSS_ATTR = ("loss_type: {'logistic_loss', 'squared_loss', 'hinge_loss', 'smooth_hinge_loss', "
              "'poisson_loss'}")

for _name, _adapt in (("SdcaOptimizer", "adaptative"), ("SdcaOptimizerV2", "adaptive")):
    op_registry.declare(
        _name,
        inputs=["sparse_example_indices: num_sparse_features * int64",
                "sparse_feature_indices: num_sparse_features * int64",
                "sparse_feature_values: num_sparse_features_with_values * float",
                "dense_features: num_dense_features * float", "example_weights: float",
                "example_labels: float", "sparse_indices: num_sparse_features * int64",
                "sparse_weights: num_sparse_features * float",
                "dense_weights: num_dense_features * float", "example_state_data: float"],
        outputs=["out_example_state_data: float",
                 "out_delta_sparse_weights: num_sparse_features * float",
                 "out_delta_dense_weights: num_dense_features * float"],
        attrs=[_LOSS_ATTR, f"{_adapt}: bool = false",
               "num_sparse_features: int >= 0", "num_sparse_features_with_values: int >= 0",
               "num_dense_features: int >= 0", "l1: float", "l2: float",
               "num_loss_partitions: int >= 1", "num_inner_iterations: int >= 1"],
        shape=_sdca_shape,
        kernel_factory=_sdca_factory,
        differentiable=False,
    )


def _sdca_op(op_type, adapt_attr, sparse_example_indices, sparse_feature_indices,
             sparse_feature_values, dense_features, example_weights, example_labels,
             sparse_indices, sparse_weights, dense_weights, example_state_data, loss_type, l1,
             l2, num_loss_partitions, num_inner_iterations, adaptive, name):
    conv = ops.convert_to_tensor
    ins = [[conv(t, dtypes.int64) for t in sparse_example_indices],
           [conv(t, dtypes.int64) for t in sparse_feature_indices],
           [conv(t, dtypes.float32) for t in sparse_feature_values],
           [conv(t, dtypes.float32) for t in dense_features],
           conv(example_weights, dtypes.float32), conv(example_labels, dtypes.float32),
           [conv(t, dtypes.int64) for t in sparse_indices],
           [conv(t, dtypes.float32) for t in sparse_weights],
           [conv(t, dtypes.float32) for t in dense_weights],
           conv(example_state_data, dtypes.float32)]
    if len(ins[1]) != len(ins[0]) or len(ins[6]) != len(ins[0]) or len(ins[7]) != len(ins[0]):
        raise ValueError(f"List argument 'sparse_feature_indices' to '{op_type}' Op with "
                         f"length {len(ins[1])} must match length {len(ins[0])} of argument "
                         "'sparse_example_indices'.")
    if len(ins[8]) != len(ins[3]):
        raise ValueError(f"List argument 'dense_weights' to '{op_type}' Op with length "
                         f"{len(ins[8])} must match length {len(ins[3])} of argument "
                         "'dense_features'.")
    attrs = {"loss_type": loss_type, adapt_attr: bool(adaptive),
             "num_sparse_features": len(ins[0]),
             "num_sparse_features_with_values": len(ins[2]),
             "num_dense_features": len(ins[3]), "l1": float(l1), "l2": float(l2),
             "num_loss_partitions": int(num_loss_partitions),
             "num_inner_iterations": int(num_inner_iterations)}
    op = ops.apply_op(op_type, ins, attrs, name=name)
    ns, nd = len(ins[0]), len(ins[3])
    outs = list(op.outputs)
    return outs[0], outs[1:1 + ns], outs[1 + ns:1 + ns + nd]


def sdca_optimizer(sparse_example_indices, sparse_feature_indices, sparse_feature_values,
                   dense_features, example_weights, example_labels, sparse_indices,
                   sparse_weights, dense_weights, example_state_data, loss_type, l1, l2,
                   num_loss_partitions, num_inner_iterations, adaptative=True, name=None):
    """One pass of stochastic dual coordinate ascent over a batch: ``(new example state
    [n, 4], sparse weight deltas, dense weight deltas)``; the state rows are (dual, primal
    loss, dual loss, example weight)."""
    return _sdca_op("SdcaOptimizer", "adaptative", sparse_example_indices,
                    sparse_feature_indices, sparse_feature_values, dense_features,
                    example_weights, example_labels, sparse_indices, sparse_weights,
                    dense_weights, example_state_data, loss_type, l1, l2, num_loss_partitions,
                    num_inner_iterations, adaptative, name)


def sdca_optimizer_v2(sparse_example_indices, sparse_feature_indices, sparse_feature_values,
                      dense_features, example_weights, example_labels, sparse_indices,
                      sparse_weights, dense_weights, example_state_data, loss_type, l1, l2,
                      num_loss_partitions, num_inner_iterations, adaptive=True, name=None):
    """:func:`sdca_optimizer` under the V2 op (its attr spelled ``adaptive``)."""
    return _sdca_op("SdcaOptimizerV2", "adaptive", sparse_example_indices,
                    sparse_feature_indices, sparse_feature_values, dense_features,
                    example_weights, example_labels, sparse_indices, sparse_weights,
                    dense_weights, example_state_data, loss_type, l1, l2, num_loss_partitions,
                    num_inner_iterations, adaptive, name)


__all__ = ["fingerprint128", "sdca_fprint", "sdca_optimizer", "sdca_optimizer_v2",
           "sdca_shrink_l1"]
