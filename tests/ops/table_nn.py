"""Op-table rows for the nn ops: activations and their gradient ops, softmax, bias add,
cross entropies, L2 loss, top-k, LRN, fused batch norm, partition/stitch, candidate sampling."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow import nn  # noqa: F401 - registers the nn ops
from tideflow.framework import ops as _ops

F = (tf.float16, tf.bfloat16, tf.float32, tf.float64)
F_TF = (tf.float32, tf.float64)
REAL = F + (tf.int32, tf.int64)

SELU_SCALE = 1.0507009873554804934193349852946
SELU_ALPHA = 1.6732632423543772848170429916717

# inputs away from the kinks at 0 and 6, so finite differences see one linear piece
X = np.array([[-2.5, -0.75, 0.5, 1.25], [3.0, -1.5, 6.5, 0.25], [-0.3, 2.2, -4.0, 7.5]])
G = np.array([[0.5, -1.0, 2.0, 0.75], [-0.25, 1.5, -2.0, 1.0], [3.0, -0.5, 0.25, -1.25]])
LOGITS = np.array([[1.0, 2.0, 0.5, -1.0], [0.3, -0.2, 2.5, 1.1], [-1.5, 0.0, 0.7, 0.2]])
PROBS = np.array([[0.1, 0.6, 0.2, 0.1], [0.25, 0.25, 0.4, 0.1], [0.0, 0.5, 0.5, 0.0]])


def _apply(op_type, attrs=None):
    def fn(*inputs):
        outs = _ops.apply_op(op_type, list(inputs), attrs)._outputs
        return outs[0] if len(outs) == 1 else list(outs)

    return fn


def _f64(fn):
    def ref(*xs):
        return fn(*[x.astype(np.float64) if x.dtype.kind in "fV" else x for x in xs])

    return ref


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _log_softmax(x):
    s = x - x.max(-1, keepdims=True)
    return s - np.log(np.exp(s).sum(-1, keepdims=True))


CASES = []

# -- activations and their gradient ops -------------------------------------------------------
for _op, _ref, _types in [
    ("Relu", lambda x: np.maximum(x, 0), REAL),
    ("Relu6", lambda x: np.clip(x, 0, 6), REAL),
    ("Elu", lambda x: np.where(x < 0, np.expm1(x), x), F),
    ("Selu", lambda x: SELU_SCALE * np.where(x < 0, SELU_ALPHA * np.expm1(x), x), F),
    ("Softplus", lambda x: np.log1p(np.exp(x)), F),
    ("Softsign", lambda x: x / (1 + np.abs(x)), F),
]:
    _floats = tuple(d for d in _types if d.is_floating)
    CASES.append(Case(_op, _apply(_op), [X], _f64(_ref), dtypes=_floats))
    if len(_floats) < len(_types):
        CASES.append(Case(_op, _apply(_op), [np.array([[-3, 0, 2], [7, 5, -1]])],
                          lambda x, _r=_ref: _r(x).astype(x.dtype), dtypes=(tf.int32, tf.int64),
                          grad=False, name=f"{_op}_int"))

CASES += [
    Case("LeakyRelu", _apply("LeakyRelu"), [X], _f64(lambda x: np.where(x > 0, x, float(np.float32(0.2)) * x)),
         dtypes=F),
    Case("LeakyRelu", _apply("LeakyRelu", {"alpha": 0.05}), [X],
         _f64(lambda x: np.where(x > 0, x, float(np.float32(0.05)) * x)), dtypes=F_TF, name="LeakyRelu_alpha"),
]

_Y_ELU = np.where(X < 0, np.expm1(X), X)
_Y_SELU = SELU_SCALE * np.where(X < 0, SELU_ALPHA * np.expm1(X), X)
for _op, _second, _ref, _types, _grad in [
    ("ReluGrad", X, lambda g, f: g * (f > 0), REAL, True),
    ("Relu6Grad", X, lambda g, f: g * ((f > 0) & (f < 6)), REAL, True),
    ("EluGrad", _Y_ELU, lambda g, y: np.where(y < 0, g * (y + 1), g), F, True),
    ("SeluGrad", _Y_SELU,
     lambda g, y: np.where(y < 0, g * (y + SELU_SCALE * SELU_ALPHA), g * SELU_SCALE), F, True),
    ("SoftplusGrad", X, lambda g, f: g * _sigmoid(f), F, True),
    ("SoftsignGrad", X, lambda g, f: g / (1 + np.abs(f)) ** 2, F, False),
]:
    _floats = tuple(d for d in _types if d.is_floating)
    CASES.append(Case(_op, _apply(_op), [G, _second], _f64(_ref), dtypes=_floats, grad=_grad))
CASES += [
    Case(("ReluGrad", "Relu6Grad"), lambda g, f: [_apply("ReluGrad")(g, f),
                                                  _apply("Relu6Grad")(g, f)],
         [np.array([[1, -2, 3], [4, 5, -6]]), np.array([[-1, 2, 7], [3, 0, 6]])],
         lambda g, f: [g * (f > 0), g * ((f > 0) & (f < 6))], dtypes=(tf.int32, tf.int64),
         grad=False, name="ReluGrad_int"),
    Case("LeakyReluGrad", _apply("LeakyReluGrad", {"alpha": 0.3}), [G, X],
         _f64(lambda g, f: np.where(f > 0, g, float(np.float32(0.3)) * g)), dtypes=F),
]

# -- softmax ----------------------------------------------------------------------------------
_L3 = LOGITS.reshape(3, 2, 2)
CASES += [
    Case("Softmax", _apply("Softmax"), [LOGITS], _f64(_softmax), dtypes=F),
    Case("Softmax", _apply("Softmax"), [_L3], _f64(_softmax), dtypes=F_TF, name="Softmax_3d"),
    Case("LogSoftmax", _apply("LogSoftmax"), [LOGITS], _f64(_log_softmax), dtypes=F),
    Case("LogSoftmax", _apply("LogSoftmax"), [np.array([0.5, -1.0, 2.0])], _f64(_log_softmax),
         dtypes=F_TF, name="LogSoftmax_1d"),
]

# -- bias add ---------------------------------------------------------------------------------
_V4 = np.arange(24, dtype=np.float64).reshape(2, 3, 2, 2) / 7 - 1
_B2 = np.array([0.5, -1.5])
_B3 = np.array([1.0, -2.0, 0.25])
CASES += [
    Case("BiasAdd", _apply("BiasAdd"), [X, np.array([0.5, -1.0, 2.0, 0.25])],
         lambda v, b: v + b, dtypes=F),
    Case("BiasAdd", _apply("BiasAdd"), [np.array([[1, 2, 3], [4, 5, 6]]), np.array([1, -1, 2])],
         lambda v, b: v + b, dtypes=(tf.int32, tf.int64), grad=False, name="BiasAdd_int"),
    Case("BiasAdd", _apply("BiasAdd"), [_V4, _B2], lambda v, b: v + b, dtypes=F_TF,
         name="BiasAdd_NHWC"),
    Case("BiasAdd", _apply("BiasAdd", {"data_format": "NCHW"}), [_V4, _B3],
         lambda v, b: v + b.reshape(3, 1, 1), dtypes=F_TF, name="BiasAdd_NCHW"),
    Case("BiasAddV1", _apply("BiasAddV1"), [_V4, _B2], lambda v, b: v + b, dtypes=F_TF),
    Case("BiasAddGrad", _apply("BiasAddGrad"), [_V4], _f64(lambda g: g.sum((0, 1, 2))),
         dtypes=F),
    Case("BiasAddGrad", _apply("BiasAddGrad", {"data_format": "NCHW"}), [_V4],
         _f64(lambda g: g.sum((0, 2, 3))), dtypes=F_TF, name="BiasAddGrad_NCHW"),
    Case("BiasAddGrad", _apply("BiasAddGrad"), [np.array([[1, 2], [3, 4], [5, 6]])],
         lambda g: g.sum(0), dtypes=(tf.int32,), grad=False, name="BiasAddGrad_int"),
]


# -- cross entropies, L2 loss -----------------------------------------------------------------
def _xent_ref(f, labels):
    ls = _log_softmax(f)
    return [-(labels * ls).sum(1), np.exp(ls) - labels]


def _sparse_xent_ref(f, labels):
    ls = _log_softmax(f.astype(np.float64))
    onehot = np.eye(f.shape[1])[labels]
    return [-(onehot * ls).sum(1), np.exp(ls) - onehot]


def _xent_loss(logits, labels):
    return _apply("SoftmaxCrossEntropyWithLogits")(logits, labels)[0]


# TF 1.15's gradient for the labels takes no part of the backprop output's gradient (its
# second derivative in the labels is 0, where the true one is -grad_grad): the labels are
# checked through the loss alone, the logits through both outputs
CASES += [
    Case("SoftmaxCrossEntropyWithLogits", _apply("SoftmaxCrossEntropyWithLogits"),
         [LOGITS, PROBS], _f64(_xent_ref), dtypes=F, grad_inputs=(0,)),
    Case("SoftmaxCrossEntropyWithLogits", _xent_loss, [LOGITS, PROBS],
         _f64(lambda f, lab: _xent_ref(f, lab)[0]), dtypes=F,
         name="SoftmaxCrossEntropyWithLogits_loss"),
    Case("SoftmaxCrossEntropyWithLogits", _apply("SoftmaxCrossEntropyWithLogits"),
         [LOGITS, PROBS[1:2]], _f64(lambda f, lab: _xent_ref(f, np.broadcast_to(lab, f.shape))),
         dtypes=F_TF, name="SoftmaxCrossEntropyWithLogits_broadcast", grad=False),
    # (no gradient check: TF 1.15's gradient of the labels has the logits' shape, so
    # tf.gradients refuses the broadcast op with its "Incompatible shapes" ValueError, measured)
    Case("SparseSoftmaxCrossEntropyWithLogits", _apply("SparseSoftmaxCrossEntropyWithLogits"),
         [LOGITS, np.array([1, 2, 0], np.int64)], _sparse_xent_ref, dtypes=F, fixed=(1,)),
    Case("SparseSoftmaxCrossEntropyWithLogits", _apply("SparseSoftmaxCrossEntropyWithLogits"),
         [LOGITS, np.array([3, 0, 2], np.int32)], _sparse_xent_ref, dtypes=F_TF, fixed=(1,),
         name="SparseSoftmaxCrossEntropyWithLogits_int32"),
    Case("L2Loss", _apply("L2Loss"), [X], _f64(lambda t: np.sum(t * t) / 2), dtypes=F),
]


# -- top k ------------------------------------------------------------------------------------
def _top_k_ref(x, k):
    idx = np.argsort(-x.astype(np.float64), axis=-1, kind="stable")[..., :int(k)]
    return [np.take_along_axis(x, idx, -1), idx.astype(np.int32)]


_TIES = np.array([[3.0, 1.0, 3.0, 2.0, 1.0], [0.5, 0.5, 0.5, -1.0, 4.0]])
_DISTINCT = np.array([[[0.3, -1.2, 2.5, 0.9], [1.1, 0.2, -0.4, 3.3]],
                      [[-2.0, 1.7, 0.6, 0.8], [2.2, -0.9, 1.4, 0.1]]])
CASES += [
    Case("TopKV2", _apply("TopKV2"), [_DISTINCT, np.array(2, np.int32)], _top_k_ref,
         dtypes=REAL, fixed=(1,)),
    Case("TopKV2", _apply("TopKV2"), [_TIES, np.array(3, np.int32)], _top_k_ref,
         dtypes=(tf.float32, tf.int32), fixed=(1,), grad=False, name="TopKV2_ties"),
    Case("TopKV2", _apply("TopKV2"), [np.array([[7, 250, 3, 250]]), np.array(2, np.int32)],
         _top_k_ref, dtypes=(tf.uint8, tf.int16), fixed=(1,), grad=False,
         name="TopKV2_small_ints"),
    Case("TopK", _apply("TopK", {"k": 3}), [_DISTINCT], lambda x: _top_k_ref(x, 3),
         dtypes=F_TF),
]


def _in_top_k_ref(p, t, k):
    target = p[np.arange(len(t)), np.clip(t, 0, p.shape[1] - 1)]
    ok = (t >= 0) & (t < p.shape[1]) & np.isfinite(target)
    return ok & ((p > target[:, None]).sum(1) < int(k))


_PRED = np.array([[0.1, 0.3, 0.3, 0.2], [0.9, 0.05, 0.03, 0.02], [0.2, np.nan, 0.3, 0.1],
                  [0.4, 0.1, 0.4, 0.4]], np.float32)
_TARGETS = np.array([2, 3, 1, 3])
CASES += [
    Case("InTopKV2", _apply("InTopKV2"), [_PRED, _TARGETS, np.array(2)], _in_top_k_ref,
         dtypes=(tf.int32, tf.int64), fixed=(0,), grad=False),
    Case("InTopK", _apply("InTopK", {"k": 1}), [_PRED, _TARGETS],
         lambda p, t: _in_top_k_ref(p, t, 1), dtypes=(tf.int32, tf.int64), fixed=(0,),
         grad=False),
]


# -- LRN --------------------------------------------------------------------------------------
def _lrn_ref(x, r=2, bias=1.5, alpha=0.3, beta=0.75):
    x = x.astype(np.float64)
    depth = x.shape[-1]
    s = np.zeros_like(x)
    for d in range(depth):
        s[..., d] = (x[..., max(0, d - r):d + r + 1] ** 2).sum(-1)
    return x / (bias + alpha * s) ** beta


def _lrn_grad_ref(g, x, y, r=2, bias=1.5, alpha=0.3, beta=0.75):
    # the exact Jacobian-vector product, element by element
    g, x = g.astype(np.float64), x.astype(np.float64)
    depth = x.shape[-1]
    s = np.zeros_like(x)
    for d in range(depth):
        s[..., d] = (x[..., max(0, d - r):d + r + 1] ** 2).sum(-1)
    n = bias + alpha * s
    out = g * n ** -beta
    for i in range(depth):
        for j in range(max(0, i - r), min(depth, i + r + 1)):
            out[..., j] -= (2 * alpha * beta * g[..., i] * x[..., i] * x[..., j]
                            * n[..., i] ** (-beta - 1))
    return out


_LRN_ATTRS = {"depth_radius": 2, "bias": 1.5, "alpha": 0.3, "beta": 0.75}
_IMG = np.sin(np.arange(2 * 2 * 3 * 6, dtype=np.float64)).reshape(2, 2, 3, 6)
_IMG_G = np.cos(np.arange(2 * 2 * 3 * 6, dtype=np.float64)).reshape(2, 2, 3, 6)
CASES += [
    # float types only (no double), so the float64 gradient check runs in tests/ops/test_nn.py
    Case("LRN", _apply("LRN", _LRN_ATTRS), [_IMG], _lrn_ref,
         dtypes=(tf.float16, tf.bfloat16, tf.float32), grad=False),
    Case("LRN", _apply("LRN"), [_IMG], lambda x: _lrn_ref(x, 5, 1.0, 1.0, 0.5),
         dtypes=(tf.float32,), grad=False, name="LRN_defaults"),
    Case("LRNGrad", _apply("LRNGrad", _LRN_ATTRS), [_IMG_G, _IMG, _lrn_ref(_IMG)],
         _lrn_grad_ref, dtypes=(tf.float16, tf.float32), grad=False),
]


# -- fused batch norm -------------------------------------------------------------------------
def _bn_axes(x, fmt):
    c = 1 if fmt.startswith("NC") else x.ndim - 1
    return c, tuple(i for i in range(x.ndim) if i != c)


def _col(v, x, c):
    shape = [1] * x.ndim
    shape[c] = -1
    return v.reshape(shape)


def _bn_ref(fmt, training, eps, v3=False):
    def ref(x, scale, offset, mean, var):
        xd = x.astype(np.float64)
        c, axes = _bn_axes(xd, fmt)
        if training:
            mean = xd.mean(axes)
            var = xd.var(axes)
            n = xd.size // xd.shape[c]
            running_var = var * n / (n - 1)
        else:
            running_var = var
        y = (xd - _col(mean, xd, c)) / np.sqrt(_col(var, xd, c) + eps) * _col(scale, xd, c) \
            + _col(offset, xd, c)
        out = [y, mean, running_var, mean, var]
        return out + [np.zeros([])] if v3 else out  # TF 1.15: a scalar 0

    return ref


def _bn_grad_ref(fmt, training, eps):
    def ref(dy, x, scale, mean, var):
        dy, x = dy.astype(np.float64), x.astype(np.float64)
        c, axes = _bn_axes(x, fmt)
        inv = 1 / np.sqrt(var + eps)
        xhat = (x - _col(mean, x, c)) * _col(inv, x, c)
        d_offset = dy.sum(axes)
        d_scale = (dy * xhat).sum(axes)
        k = _col(scale * inv, x, c)
        if training:
            n = x.size // x.shape[c]
            dx = k * (dy - _col(d_offset / n, x, c) - xhat * _col(d_scale / n, x, c))
        else:
            dx = k * dy
        # unused reserve spaces: [0] in training, [C] outside it (TF 1.15's shape function)
        rest = np.zeros([0] if training else [scale.shape[0]])
        return [dx, d_scale, d_offset, rest, rest]

    return ref


_BX = np.cos(np.arange(2 * 3 * 2 * 3, dtype=np.float64) * 0.7).reshape(2, 3, 2, 3) * 2 + 0.5
_BY = np.sin(np.arange(2 * 3 * 2 * 3, dtype=np.float64) * 1.3).reshape(2, 3, 2, 3)
_SCALE = np.array([1.5, 0.5, -1.0])
_OFFSET = np.array([0.1, -0.2, 0.3])
_MEAN = np.array([0.4, 0.2, -0.1])
_VAR = np.array([1.2, 0.8, 2.0])
_EMPTY = np.zeros([0])
_BN_TOL = {"rtol": 1e-4, "atol": 1e-4}
for _op, _types, _v3 in [("FusedBatchNorm", (tf.float32,), False),
                         ("FusedBatchNormV2", (tf.float16, tf.bfloat16, tf.float32), False),
                         ("FusedBatchNormV3", (tf.float16, tf.float32), True)]:
    _fixed = (1, 2, 3, 4) if _op != "FusedBatchNorm" else ()
    _f32 = np.float32
    for _fmt, _x, _c in [("NHWC", _BX, None), ("NCHW", _BX, None)]:
        _tol = _BN_TOL if _types == (tf.float32,) or _op == "FusedBatchNorm" else {}
        CASES.append(Case(
            _op, _apply(_op, {"epsilon": 0.001, "data_format": _fmt}),
            [_x, _SCALE.astype(_f32), _OFFSET.astype(_f32), _EMPTY.astype(_f32),
             _EMPTY.astype(_f32)],
            _bn_ref(_fmt, True, 0.001, _v3), dtypes=_types, fixed=_fixed, grad=False,
            name=f"{_op}_train_{_fmt}", **(_tol or {"rtol": 3e-2, "atol": 3e-2})))
        CASES.append(Case(
            _op, _apply(_op, {"epsilon": 0.01, "data_format": _fmt, "is_training": False}),
            [_x, _SCALE.astype(_f32), _OFFSET.astype(_f32), _MEAN.astype(_f32),
             _VAR.astype(_f32)],
            _bn_ref(_fmt, False, 0.01, _v3), dtypes=_types, fixed=_fixed, grad=False,
            name=f"{_op}_infer_{_fmt}", **(_tol or {"rtol": 3e-2, "atol": 3e-2})))

for _op, _types in [("FusedBatchNormGrad", (tf.float32,)),
                    ("FusedBatchNormGradV2", (tf.float16, tf.float32)),
                    ("FusedBatchNormGradV3", (tf.float32,))]:
    for _fmt in ("NHWC", "NCHW"):
        for _training in (True, False):
            _extra = [np.zeros([0], np.float32)] if _op.endswith("V3") else []
            _fixed = (2, 3, 4, 5) if _op != "FusedBatchNormGrad" else ()
            _ref = _bn_grad_ref(_fmt, _training, 0.001)
            CASES.append(Case(
                _op, _apply(_op, {"epsilon": 0.001, "data_format": _fmt,
                                  "is_training": _training}),
                [_BY, _BX, _SCALE.astype(np.float32), _MEAN.astype(np.float32),
                 _VAR.astype(np.float32)] + _extra,
                lambda *a, _r=_ref: _r(*a[:5]), dtypes=_types, fixed=_fixed, grad=False,
                name=f"{_op}_{_fmt}_{'train' if _training else 'infer'}",
                rtol=3e-2 if tf.float16 in _types else 1e-4,
                atol=3e-2 if tf.float16 in _types else 1e-4))


# -- DynamicPartition, DynamicStitch ----------------------------------------------------------
def _partition_ref(n):
    def ref(data, parts):
        flat = data.reshape((parts.size,) + data.shape[parts.ndim:])
        return [flat[parts.reshape(-1) == i] for i in range(n)]

    return ref


def _stitch_ref(*args):
    n = len(args) // 2
    idx, data = args[:n], args[n:]
    size = max(int(i.max()) + 1 for i in idx)
    out = np.zeros((size,) + data[0].shape[idx[0].ndim:], data[0].dtype)
    for i, d in zip(idx, data):
        out[i.reshape(-1)] = d.reshape((i.size,) + out.shape[1:])
    return out


_PDATA = np.arange(24, dtype=np.float64).reshape(2, 3, 4) / 5
_PARTS = np.array([[2, 0, 2], [1, 2, 0]], np.int32)
CASES += [
    Case("DynamicPartition", _apply("DynamicPartition", {"num_partitions": 4}),
         [_PDATA, _PARTS], _partition_ref(4), dtypes=F_TF + (tf.int32,), fixed=(1,),
         grad_inputs=[0]),
    Case("DynamicPartition", _apply("DynamicPartition", {"num_partitions": 2}),
         [np.array([b"a", b"b", b"c"], dtype=object), np.array([1, 0, 1], np.int32)],
         _partition_ref(2), dtypes=(tf.string,), fixed=(0, 1), grad=False,
         name="DynamicPartition_string"),
]
_SIDX = [np.array([0, 4, 2], np.int32), np.array([[1, 5], [3, 6]], np.int32)]
_SDATA = [np.arange(6, dtype=np.float64).reshape(3, 2), np.arange(8, dtype=np.float64)
          .reshape(2, 2, 2) + 10]
for _op in ("DynamicStitch", "ParallelDynamicStitch"):
    CASES.append(Case(
        _op, lambda i0, i1, d0, d1, _o=_op: _ops.apply_op(_o, [[i0, i1], [d0, d1]])._outputs[0],
        _SIDX + _SDATA, _stitch_ref, dtypes=F_TF + (tf.int32,), fixed=(0, 1),
        grad_inputs=[2, 3]))


# -- candidate sampling -----------------------------------------------------------------------
def _accidental_ref(true_classes, sampled):
    rows, cols = [], []
    for i in range(true_classes.shape[0]):
        for t in true_classes[i]:
            for j in np.nonzero(sampled == t)[0]:
                rows.append(i)
                cols.append(j)
    return [np.array(rows, np.int32), np.array(cols, np.int64),
            np.full(len(rows), -np.finfo(np.float32).max, np.float32)]


CASES.append(Case(
    "ComputeAccidentalHits", _apply("ComputeAccidentalHits", {"num_true": 2}),
    [np.array([[1, 4], [0, 2], [7, 7]], np.int64), np.array([4, 7, 0, 5, 1], np.int64)],
    _accidental_ref, dtypes=(tf.int64,), fixed=(0, 1), grad=False))


def _sampler_check(op_type, prob):
    def check():
        true = np.array([[0, 3], [5, 9], [1, 2]], np.int64)
        for unique in (True, False):
            runs = []
            for _ in range(2):
                with tf.Graph().as_default():
                    t = tf.constant(true)
                    out = _ops.apply_op(op_type, [t], {
                        "num_true": 2, "num_sampled": 6, "unique": unique, "range_max": 20,
                        "seed": 7, "seed2": 3})._outputs
                    assert [o.get_shape().as_list() for o in out] == [[6], [3, 2], [6]]
                    assert [o.dtype for o in out] == [tf.int64, tf.float32, tf.float32]
                    with tf.Session() as s:
                        runs.append((s.run(out), s.run(out)))
            (a, a2), (b, _) = runs
            for x, y in zip(a, b):  # the same seeds give the same samples
                np.testing.assert_array_equal(x, y)
            assert not np.array_equal(a[0], a2[0])  # and the sequence advances across runs
            sampled, true_ec, sampled_ec = a
            assert sampled.min() >= 0 and sampled.max() < 20
            if unique:
                assert len(set(sampled.tolist())) == 6
                assert np.all(true_ec <= 1) and np.all(sampled_ec <= 1)
            else:
                np.testing.assert_allclose(true_ec, 6 * prob(true, 20), rtol=1e-6)
                np.testing.assert_allclose(sampled_ec, 6 * prob(sampled, 20), rtol=1e-6)
            assert np.all(true_ec > 0) and np.all(sampled_ec > 0)

    return check


CASES += [
    Case("UniformCandidateSampler",
         check=_sampler_check("UniformCandidateSampler", lambda v, n: np.full(v.shape, 1 / n))),
    Case("LogUniformCandidateSampler",
         check=_sampler_check("LogUniformCandidateSampler",
                              lambda v, n: np.log((v + 2) / (v + 1)) / np.log(n + 1))),
]
