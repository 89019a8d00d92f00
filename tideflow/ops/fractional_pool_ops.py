"""Fractional max and average pooling: FractionalMaxPool/FractionalAvgPool over random or
pseudo-random regions, and their gradient ops."""

import collections

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
)
from tideflow.ops.array_ops import _invalid, _np, _shape_str

# ------------------------------------------------------------------------------------------
# fractional max / average pooling
# ------------------------------------------------------------------------------------------


def _pooling_sequence(gen, n_in, n_out, pseudo_random):
    """Boundaries ``[0 = c_0 < c_1 < ... < c_out = n_in]`` of the pooling regions."""
    if pseudo_random:
        alpha = n_in / n_out
        u = gen.random()
        seq = np.ceil(alpha * (np.arange(n_out + 1) + u)) - np.ceil(alpha * u)
        seq[-1] = n_in
        return seq.astype(np.int64)
    k = n_in // n_out
    steps = np.full(n_out, k, np.int64)
    extra = n_in - n_out * k
    steps[gen.permutation(n_out)[:extra]] += 1
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


def _frac_regions(seq, overlapping, n_in):
    ends = [min(int(seq[i + 1]) + (1 if overlapping else 0), n_in) for i in range(len(seq) - 1)]
    return [(int(seq[i]), ends[i]) for i in range(len(seq) - 1)]


def _frac_pool(x, rows, cols, overlapping, reduce):
    b, h, w, d = x.shape
    rr = _frac_regions(rows, overlapping, h)
    cc = _frac_regions(cols, overlapping, w)
    out = np.empty((b, len(rr), len(cc), d), x.dtype)
    for i, (r0, r1) in enumerate(rr):
        for j, (c0, c1) in enumerate(cc):
            out[:, i, j] = reduce(x[:, r0:r1, c0:c1].reshape(b, -1, d))
    return out


def _frac_factory(kind):
    from tideflow.ops.random_ops import _generator

    def factory(ctx):
        gen = _generator(ctx)
        attrs = ctx.op._attrs
        ratio = [float(r) for r in attrs["pooling_ratio"]]
        pseudo, overlapping = attrs["pseudo_random"], attrs["overlapping"]
        deterministic = attrs["deterministic"]
        cache = ctx.node_state("fractional_sequences", dict) if deterministic else None
        op_type = "FractionalMaxPool" if kind == "max" else "FractionalAvgPool"
        if not deterministic and (attrs["seed"] or attrs["seed2"]):
            raise _invalid("Both seed and seed2 should be 0 if deterministic is false.")

        def run(value):
            x = _np(value)
            if x.ndim != 4:
                raise _invalid(f"{op_type}: input must be 4-dimensional, got shape "
                               f"{_shape_str(x.shape)}")
            if len(ratio) != 4 or ratio[0] != 1.0 or ratio[3] != 1.0:
                from tideflow.framework import errors

                raise errors.UnimplementedError(
                    None, None, f"{op_type}: Fractional max pooling is not yet supported on the "
                    f"batch nor channel dimension: pooling_ratio must be [1.0, r, c, 1.0], got "
                    f"{ratio}")
            sizes = []
            for k in (1, 2):
                n_out = int(np.floor(x.shape[k] / ratio[k]))
                if n_out <= 0:
                    raise _invalid(f"{op_type}: output size {n_out} of dimension {k} must be "
                                   f"positive (input {x.shape[k]}, ratio {ratio[k]})")
                sizes.append(n_out)
            key = (x.shape[1], x.shape[2])
            if cache is not None and key in cache:
                rows, cols = cache[key]
            else:
                rows = _pooling_sequence(gen, x.shape[1], sizes[0], pseudo)
                cols = _pooling_sequence(gen, x.shape[2], sizes[1], pseudo)
                if cache is not None:
                    cache[key] = (rows, cols)
            if kind == "max":
                out = _frac_pool(x, rows, cols, overlapping, lambda v: v.max(axis=1))
            else:
                out = _frac_pool(x, rows, cols, overlapping,
                                 lambda v: (v.sum(axis=1) / v.shape[1]).astype(x.dtype))
            return out, rows, cols

        return run

    return factory


def _frac_shape(op):
    x = op._inputs[0]._shape
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"{op.type}: input must be 4-D, got shape {_shape_str(x)}")
    ratio = op._attrs["pooling_ratio"]
    if len(ratio) != 4:
        raise ValueError(f"{op.type}: pooling_ratio field must specify 4 dimensions, got "
                         f"{list(ratio)}")
    for r in ratio:
        if r < 1:
            raise ValueError(f"{op.type}: pooling_ratio cannot be smaller than 1, got: {r}")
    dims = x.as_list() if x.ndims is not None else [None] * 4
    out = [None if d is None else int(np.floor(d / r)) for d, r in zip(dims, ratio)]
    return [TensorShape(out), TensorShape([None if out[1] is None else out[1] + 1]),
            TensorShape([None if out[2] is None else out[2] + 1])]


def _frac_max_grad_kernel(orig_input, orig_output, out_backprop, row_pooling_sequence,
                          col_pooling_sequence, *, overlapping):
    x = _np(orig_input)
    g = _np(out_backprop)
    rows, cols = _np(row_pooling_sequence), _np(col_pooling_sequence)
    b, h, w, d = x.shape
    out = np.zeros(x.shape, np.float64)
    for i, (r0, r1) in enumerate(_frac_regions(rows, overlapping, h)):
        for j, (c0, c1) in enumerate(_frac_regions(cols, overlapping, w)):
            win = x[:, r0:r1, c0:c1].reshape(b, -1, d)
            arg = win.argmax(axis=1)  # the first maximum in row-major order
            ry, rx = np.divmod(arg, c1 - c0)
            bi, ci = np.meshgrid(np.arange(b), np.arange(d), indexing="ij")
            np.add.at(out, (bi, r0 + ry, c0 + rx, ci), g[:, i, j])
    return out.astype(x.dtype)


def _frac_avg_grad_kernel(orig_input_tensor_shape, out_backprop, row_pooling_sequence,
                          col_pooling_sequence, *, overlapping):
    shape = [int(v) for v in _np(orig_input_tensor_shape)]
    g = _np(out_backprop)
    rows, cols = _np(row_pooling_sequence), _np(col_pooling_sequence)
    out = np.zeros(shape, np.float64)
    for i, (r0, r1) in enumerate(_frac_regions(rows, overlapping, shape[1])):
        for j, (c0, c1) in enumerate(_frac_regions(cols, overlapping, shape[2])):
            n = (r1 - r0) * (c1 - c0)
            out[:, r0:r1, c0:c1] += g[:, i, j][:, None, None, :] / n
    return out.astype(g.dtype)


def _frac_max_grad(op, grad, _, __):
    from tideflow.ops.gradients import dense

    x = op._inputs[0]
    out, rows, cols = op._outputs
    return [ops.apply_op("FractionalMaxPoolGrad", [x, out, dense(grad), rows, cols],
                         {"overlapping": op._attrs["overlapping"]})._outputs[0]]


def _frac_avg_grad(op, grad, _, __):
    from tideflow.ops.gradients import dense

    x = op._inputs[0]
    _, rows, cols = op._outputs
    shape = array_ops.shape(x, out_type=dtypes.int64)
    return [ops.apply_op("FractionalAvgPoolGrad", [shape, dense(grad), rows, cols],
                         {"overlapping": op._attrs["overlapping"]})._outputs[0]]


_FRAC_ATTRS = ["pooling_ratio: list(float) >= 4", "pseudo_random: bool = false",
               "overlapping: bool = false", "deterministic: bool = false", "seed: int = 0",
               "seed2: int = 0", "T: {float, double, int32, int64}"]
op_registry.declare(
    "FractionalMaxPool", inputs=["value: T"],
    outputs=["output: T", "row_pooling_sequence: int64", "col_pooling_sequence: int64"],
    attrs=_FRAC_ATTRS, shape=_frac_shape, kernel_factory=_frac_factory("max"),
    grad=_frac_max_grad, stateful=True, is_random=True)
op_registry.declare(
    "FractionalAvgPool", inputs=["value: T"],
    outputs=["output: T", "row_pooling_sequence: int64", "col_pooling_sequence: int64"],
    attrs=_FRAC_ATTRS, shape=_frac_shape, kernel_factory=_frac_factory("avg"),
    grad=_frac_avg_grad, stateful=True, is_random=True)
op_registry.declare(
    "FractionalMaxPoolGrad",
    inputs=["orig_input: T", "orig_output: T", "out_backprop: T", "row_pooling_sequence: int64",
            "col_pooling_sequence: int64"],
    outputs=["output: T"], attrs=["overlapping: bool = false",
                                  "T: {float, double, int32, int64}"],
    shape=lambda op: [op._inputs[0]._shape], kernel=_frac_max_grad_kernel)
op_registry.declare(
    "FractionalAvgPoolGrad",
    inputs=["orig_input_tensor_shape: int64", "out_backprop: T", "row_pooling_sequence: int64",
            "col_pooling_sequence: int64"],
    outputs=["output: T"], attrs=["overlapping: bool = false",
                                  "T: {float, double, int32, int64}"],
    shape=lambda op: [_shape_from_input(op._inputs[0])], kernel=_frac_avg_grad_kernel,
    differentiable=False)


def _shape_from_input(t):
    v = ops.constant_value(t)
    return TensorShape([None] * 4) if v is None else TensorShape([int(d) for d in v])


def _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, deterministic, seed,
                seed2, name):
    from tideflow.framework import random_seed

    ratio = [float(r) for r in np.broadcast_to(pooling_ratio, (4,))] if np.ndim(
        pooling_ratio) == 0 else [float(r) for r in pooling_ratio]
    if len(ratio) == 2:
        ratio = [1.0] + ratio + [1.0]
    if seed == 0 and seed2 == 0 and deterministic:
        # TF 1.x's wrapper passes the seeds as given; a deterministic op without seeds takes
        # the graph's here (TF draws fresh ones), so a seeded program repeats its sequences
        s1, s2 = random_seed.get_seed(None)
        seed, seed2 = (0, 0) if s1 is None else (s1, s2)
    attrs = {"pooling_ratio": ratio, "pseudo_random": pseudo_random,
             "overlapping": overlapping, "deterministic": deterministic, "seed": seed,
             "seed2": seed2}
    op = ops.apply_op(op_type, [value], attrs, name=name)
    return _FRACTIONAL_TUPLES[op_type](*op._outputs)  # TF's generated namedtuple


_FRACTIONAL_TUPLES = {
    t: collections.namedtuple(t, ["output", "row_pooling_sequence", "col_pooling_sequence"])
    for t in ("FractionalMaxPool", "FractionalAvgPool")}


def fractional_max_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0, name=None):
    """Max pooling over randomly sized regions shrinking height and width by
    ``pooling_ratio`` (e.g. ``[1.0, 1.44, 1.73, 1.0]``); returns ``(output,
    row_pooling_sequence, col_pooling_sequence)``."""
    return _fractional("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping,
                       deterministic, seed, seed2, name)


def fractional_avg_pool(value, pooling_ratio, pseudo_random=False, overlapping=False,
                        deterministic=False, seed=0, seed2=0, name=None):
    """Average pooling over fractional regions, as :func:`fractional_max_pool`."""
    return _fractional("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping,
                       deterministic, seed, seed2, name)




def _fractional_v2(op_type, value, pooling_ratio, pseudo_random, overlapping, seed, name):
    # TF 2's form: seed 0 draws fresh regions each run; another seed fixes them (deterministic,
    # the op seeds derived from it and the graph seed)
    if seed == 0:
        return _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, False, 0,
                           0, name)
    from tideflow.framework import random_seed

    seed1, seed2 = random_seed.get_seed(seed)
    return _fractional(op_type, value, pooling_ratio, pseudo_random, overlapping, True, seed1,
                       seed2, name)


def fractional_max_pool_v2(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                           name=None):
    """TF 2's ``tf.nn.fractional_max_pool`` (``tensorflow.python.ops.nn_ops``): a nonzero
    ``seed`` makes the pooling regions deterministic."""
    return _fractional_v2("FractionalMaxPool", value, pooling_ratio, pseudo_random, overlapping,
                          seed, name)


def fractional_avg_pool_v2(value, pooling_ratio, pseudo_random=False, overlapping=False, seed=0,
                           name=None):
    """TF 2's ``tf.nn.fractional_avg_pool``, as :func:`fractional_max_pool_v2`."""
    return _fractional_v2("FractionalAvgPool", value, pooling_ratio, pseudo_random, overlapping,
                          seed, name)
