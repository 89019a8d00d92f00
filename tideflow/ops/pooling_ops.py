"""Pooling ops: MaxPool, AvgPool, MaxPoolWithArgmax, their 3-D forms and gradient ops, with
``tf.nn``'s max_pool, avg_pool, max_pool_with_argmax, pool and the 1-D/2-D/3-D aliases.

MaxPool pads with -inf; AvgPool divides by the number of real (unpadded) elements; gradients
of a max go to the first maximal element of the window in row-major order (TF's CPU rule).
"""

import collections

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.kernels import conv as kconv
from tideflow.ops import array_ops, fill_ops
from tideflow.ops.conv_ops import (
    _strides_and_dilation,
    channels_first,
    check_attr_len,
    dims_of,
    from_channels_last,
    get_sequence,
    join_dims,
    out_dim,
    shape_to_channels_last,
    split_dims,
    to_channels_last,
)

_REAL = "T: realnumbertype"
_POOL_2D = ["ksize: list(int) >= 4", "strides: list(int) >= 4", "padding: {'SAME', 'VALID'}"]
_POOL_3D = ["ksize: list(int) >= 5", "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}"]
_FORMAT_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMAT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"
_ARGMAX = ["Targmax: {int32, int64} = DT_INT64", "include_batch_in_index: bool = false"]


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _window(ksize, strides, data_format):
    """Spatial ksize and strides; pooling over batch or depth is refused as in TF's kernels."""
    kb, ks, kc = split_dims(ksize, data_format)
    sb, ss, sc = split_dims(strides, data_format)
    if kb != 1 or sb != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the batch dimension.")
    if kc != 1 or sc != 1:
        raise errors.UnimplementedError(None, None,
                                        "Non-spatial pooling is not yet supported.")
    if any(v < 1 for v in ks + ss):
        raise _invalid("Sliding window ksize and strides must be positive")
    return tuple(ks), tuple(ss)


def _check_batch_window(attrs):
    """TF's pooling kernel constructors refuse a batch window or stride (checked once per
    plan, when the kernel is bound, so even before an input is fed)."""
    fmt = attrs.get("data_format", "NHWC")
    if split_dims(attrs["ksize"], fmt)[0] != 1 or split_dims(attrs["strides"], fmt)[0] != 1:
        raise errors.UnimplementedError(None, None,
                                        "Pooling is not yet supported on the batch dimension.")


def _check_rank(x, nd, what="input"):
    if np.ndim(x) != nd:
        raise _invalid(f"{what} must be {nd}-dimensional")


def _check_pool_input(x, nd, data_format):
    """TF 1.15's words for a forward pooling input of the wrong rank (its 2-D pooling names
    the rank and the data format's enum: NHWC 0, NCHW 1)."""
    if np.ndim(x) != nd:
        if nd == 4:
            raise _invalid(f"tensor_in_shape must have 2 spatial dimensions. {np.ndim(x)} "
                           f"{int(channels_first(data_format))}")
        raise _invalid(f"tensor_in must be {nd}-dimensional")


def _sizes(t, nd):
    v = np.asarray(t)
    if v.ndim != 1 or v.size != nd:
        raise _invalid(f"orig_input_shape must be 1-dimensional and {nd} elements")
    return tuple(int(d) for d in v)


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _depth_max_pool(x, ksize, strides, data_format):
    """MaxPool across channels only (TF's depthwise max pooling on CPU): non-overlapping
    windows of ``k`` channels, padding ignored."""
    _, ks, kc = split_dims(ksize, data_format)
    _, ss, sc = split_dims(strides, data_format)
    if any(v != 1 for v in ks):
        raise errors.UnimplementedError(None, None, "MaxPooling supports exactly one of "
                                        "pooling across depth or pooling across width/height.")
    if x.shape[-1] % kc:
        raise errors.UnimplementedError(None, None, "Depthwise max pooling requires the depth "
                                        "window to evenly divide the input depth.")
    if sc != kc or any(v != 1 for v in ss):
        raise errors.UnimplementedError(None, None, "Depthwise max pooling requires the depth "
                                        "window to equal the depth stride.")
    if channels_first(data_format):
        raise errors.UnimplementedError(None, None, "Depthwise max pooling is currently only "
                                        "implemented for CPU devices.")
    return x.reshape(x.shape[:-1] + (x.shape[-1] // kc, kc)).max(axis=-1)


def _max_pool_floor(dtype, nd):
    """Where TF's CPU max pooling starts a window: MaxPool at the type's lowest finite value
    (so a window of -inf gives -3.4028235e+38 there), MaxPool3D (an Eigen reduction) at -inf;
    both pass NaNs over."""
    return dtypes.as_dtype(dtype).min if nd == 4 else -np.inf


def _pool_kernel(fn, nd):
    is_max = fn is kconv.max_pool

    def kernel(input, *, ksize, strides, padding, data_format):
        _check_pool_input(input, nd, data_format)
        if is_max and nd == 4 and len(ksize) == 4 and split_dims(ksize, data_format)[2] != 1 \
                and split_dims(ksize, data_format)[0] == split_dims(strides, data_format)[0] == 1:
            return _depth_max_pool(input, ksize, strides, data_format)
        k, s = _window(ksize, strides, data_format)
        x = to_channels_last(input, data_format)
        if is_max:
            out = fn(x, k, s, padding, floor=_max_pool_floor(x.dtype, nd))
        else:
            out = fn(x, k, s, padding)
        return from_channels_last(out, data_format)

    return kernel


def _window_args(ksize, strides, nd):
    """MaxPoolV2's ksize and strides inputs as the attr lists of MaxPool."""
    ksize, strides = np.asarray(ksize), np.asarray(strides)
    for what, v in (("ksize", ksize), ("stride", strides)):
        if v.shape != (nd,):
            raise _invalid(f"Sliding window {what} field must specify {nd} dimensions")
    return [int(v) for v in ksize], [int(v) for v in strides]


def _v2_kernel(kernel, n_data, nd=4):
    """A MaxPool*V2 kernel: ``kernel`` with ksize and strides taken from two int32 inputs."""

    def v2(*args, padding, data_format):
        ksize, strides = _window_args(args[n_data], args[n_data + 1], nd)
        return kernel(*args[:n_data], ksize=ksize, strides=strides, padding=padding,
                      data_format=data_format)

    return v2


def _max_pool_grad_kernel(fn, nd, at_max=False):
    """A MaxPool*Grad (or GradGrad) kernel over ``fn``; ``at_max``: the plan knows that
    ``orig_output`` is the MaxPool of ``orig_input`` (see kconv.max_pool_grad_at)."""

    def kernel(orig_input, orig_output, grad, *, ksize, strides, padding, data_format):
        _check_rank(orig_input, nd, "orig_input")
        _check_rank(grad, nd, "grad")
        k, s = _window(ksize, strides, data_format)
        x = to_channels_last(orig_input, data_format)
        g = to_channels_last(grad, data_format)
        if fn is kconv.max_pool_grad:
            outs, _ = kconv.geometry(x.shape[1:-1], k, s, (1,) * len(k), padding)
            want = (x.shape[0],) + outs + (x.shape[-1],)
            if g.shape != want:
                raise _invalid(f"Expected grad shape to be {list(want)}, but got "
                               f"{list(g.shape)}")
            if at_max:
                p = to_channels_last(orig_output, data_format)
                return from_channels_last(kconv.max_pool_grad_at(x, p, g, k, s, padding),
                                          data_format)
            if nd == 5 and x.dtype == np.float32:
                # TF 1.15's CPU MaxPool3DGrad: every element near the max (its half and
                # bfloat16 kernels route to the first max, as this one's default)
                p = to_channels_last(orig_output, data_format)
                return from_channels_last(kconv.max_pool_grad_near(x, p, g, k, s, padding),
                                          data_format)
        elif g.shape != x.shape:
            raise _invalid(f"grad must have the shape of orig_input: {list(g.shape)} vs "
                           f"{list(x.shape)}")
        return from_channels_last(fn(x, g, k, s, padding), data_format)

    return kernel


def _avg_pool_grad_kernel(nd):
    def kernel(orig_input_shape, grad, *, ksize, strides, padding, data_format):
        sizes = shape_to_channels_last(_sizes(orig_input_shape, nd), data_format)
        _check_rank(grad, nd, "grad")
        k, s = _window(ksize, strides, data_format)
        g = to_channels_last(grad, data_format)
        outs, _ = kconv.geometry(sizes[1:-1], k, s, (1,) * len(k), padding)
        want = (sizes[0],) + outs + (sizes[-1],)
        if g.shape != want:
            raise _invalid(f"Expected grad shape to be {list(want)}, but got {list(g.shape)}")
        return from_channels_last(kconv.avg_pool_grad(sizes, g, k, s, padding), data_format)

    return kernel


def _max_pool_with_argmax_kernel(input, *, ksize, strides, padding, Targmax,
                                 include_batch_in_index):
    _check_pool_input(input, 4, "NHWC")
    k, s = _window(ksize, strides, "NHWC")
    return kconv.max_pool_with_argmax(input, k, s, padding, include_batch_in_index,
                                      Targmax.as_numpy_dtype)


def _argmax_shapes(input, grad, argmax, ksize, strides, padding, expect_pooled_grad):
    _check_rank(input, 4)
    k, s = _window(ksize, strides, "NHWC")
    outs, _ = kconv.geometry(input.shape[1:-1], k, s, (1, 1), padding)
    pooled = (input.shape[0],) + outs + (input.shape[-1],)
    if argmax.shape != pooled:
        raise _invalid(f"Expected argmax shape to be {list(pooled)}, but got "
                       f"{list(argmax.shape)}")
    want = pooled if expect_pooled_grad else input.shape
    if grad.shape != want:
        raise _invalid(f"Expected grad shape to be {list(want)}, but got {list(grad.shape)}")


def _max_pool_grad_with_argmax_kernel(input, grad, argmax, *, ksize, strides, padding,
                                      include_batch_in_index):
    _argmax_shapes(input, grad, argmax, ksize, strides, padding, True)
    return kconv.max_pool_grad_with_argmax(input.shape, grad, argmax, include_batch_in_index)


def _max_pool_grad_grad_with_argmax_kernel(input, grad, argmax, *, ksize, strides, padding,
                                           include_batch_in_index):
    _argmax_shapes(input, grad, argmax, ksize, strides, padding, False)
    return kconv.max_pool_grad_grad_with_argmax(grad, argmax, include_batch_in_index)


# ------------------------------------------------------------------------------------------
# shape functions
# ------------------------------------------------------------------------------------------


def _pool_shape(nd, index=0, fmt_attr=True, window_inputs=None):
    def shape_fn(op):
        fmt = op._attrs["data_format"] if fmt_attr else "NHWC"
        x = dims_of(op._inputs[index]._shape, nd)
        if window_inputs is None:
            check_attr_len(op, "strides", nd, "stride")
            check_attr_len(op, "ksize", nd, "ksize")
            ksize, strides = op._attrs["ksize"], op._attrs["strides"]
        else:  # MaxPool*V2: the window is an input, known here only when constant
            for i in window_inputs:
                op._inputs[i]._shape.with_rank(1).merge_with(TensorShape([nd]))
            ksize, strides = (ops.constant_value(op._inputs[i]) for i in window_inputs)
            if ksize is None or strides is None:
                return [TensorShape(None)] * len(op._outputs)
            ksize, strides = [int(v) for v in ksize], [int(v) for v in strides]
        batch, spatial, chans = split_dims(x, fmt)
        _, ks, kc = split_dims(ksize, fmt)
        _, ss, _ = split_dims(strides, fmt)
        padding = op._attrs["padding"]
        outs = [out_dim(n, k, s, 1, padding) for n, k, s in zip(spatial, ks, ss)]
        if chans is not None and kc > 1:
            chans = chans // kc
        shape = TensorShape(join_dims(batch, outs, chans, fmt))
        return [shape] * len(op._outputs)

    return shape_fn


def _like_input(index, nd):
    def shape_fn(op):
        return [TensorShape(dims_of(op._inputs[index]._shape, nd))]

    return shape_fn


def _sizes_shape(nd):
    def shape_fn(op):
        s = array_ops.constant_value_as_shape(op._inputs[0])
        return [s.with_rank(nd) if s.ndims is not None else TensorShape([None] * nd)]

    return shape_fn


# ------------------------------------------------------------------------------------------
# gradients (graph code)
# ------------------------------------------------------------------------------------------


def _pool_attrs(op):
    return {k: op._attrs[k] for k in ("ksize", "strides", "padding", "data_format",
                                      "include_batch_in_index", "Targmax") if k in op._attrs}


def _apply(op_type, inputs, attrs, name=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def _zeros_of(t):
    return fill_ops.zeros(array_ops.shape(t), dtype=t.dtype)


# the pooling gradients return a bare tensor, as TF's do (callers of a registered gradient
# function, such as SHAP's DeepExplainer, split or index what it returns)
def _max_pool_grad_fn(grad_op):
    def grad(op, g):
        return _apply(grad_op, [op.inputs[0], op.outputs[0], g], _pool_attrs(op))

    return grad


def _max_pool_v2_grad(op, g):
    x, ksize, strides = op.inputs
    return [_apply("MaxPoolGradV2", [x, op.outputs[0], g, ksize, strides], _pool_attrs(op)),
            None, None]


def _second_order_v2_fn(other):
    def grad(op, g):
        x, y, _, ksize, strides = op.inputs
        return [_zeros_of(x), _zeros_of(y),
                _apply(other, [x, y, g, ksize, strides], _pool_attrs(op)), None, None]

    return grad


def _avg_pool_grad_fn(grad_op):
    def grad(op, g):
        return _apply(grad_op, [array_ops.shape(op.inputs[0]), g], _pool_attrs(op))

    return grad


def _second_order_fn(other):
    """MaxPoolGrad <-> MaxPoolGradGrad: linear in ``grad``, locally constant in the rest."""
    def grad(op, g):
        x, y, _ = op.inputs
        return [_zeros_of(x), _zeros_of(y), _apply(other, [x, y, g], _pool_attrs(op))]

    return grad


def _avg_pool_grad_grad_fn(forward):
    def grad(op, g):
        # TF 1.15's: a StopGradient of the (integer) input shape first, then the pooling
        from tideflow.ops.array_ops import stop_gradient

        return [stop_gradient(op.inputs[0]), _apply(forward, [g], _pool_attrs(op))]

    return grad


def _max_pool_with_argmax_grad(op, g, unused_argmax_grad=None):
    x = op.inputs[0]
    attrs = _pool_attrs(op)
    return _apply("MaxPoolGradWithArgmax", [x, g, op.outputs[1]], attrs)


def _argmax_second_order_fn(other):
    def grad(op, g):
        x, _, argmax = op.inputs
        return [_zeros_of(x), _apply(other, [x, g, argmax], _pool_attrs(op)), None]

    return grad


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------

# (TF 1.15's op def lists qint8 too, for its GPU's int8 kernel; exported meta graphs'
# stripped_op_list carry it. Its NCHW_VECT_C data format is not taken: no kernel here has it)
_MAXPOOL_T = ("T: {half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, "
              "qint8} = DT_FLOAT")

for _nd, _sfx, _pool, _fmt, _max_t, _grad_t, _in_t in (
    (4, "", _POOL_2D, _FORMAT_2D, _MAXPOOL_T, "T: realnumbertype = DT_FLOAT", None),
    (5, "3D", _POOL_3D, _FORMAT_3D, "T: {half, bfloat16, float}",
     "T: {half, bfloat16, float} = DT_FLOAT", "TInput: {half, bfloat16, float} = DT_FLOAT"),
):
    op_registry.declare(
        f"MaxPool{_sfx}",
        inputs=["input: T"],
        outputs=["output: T"],
        # (TF 1.15's attr order: MaxPool3D's T comes last)
        attrs=([_max_t] + _pool + [_fmt]) if _nd == 4 else (_pool + [_fmt, _max_t]),
        shape=_pool_shape(_nd),
        kernel=_pool_kernel(kconv.max_pool, _nd),
        grad=_max_pool_grad_fn(f"MaxPool{_sfx}Grad"),
        check_attrs=_check_batch_window,
    )
    op_registry.declare(
        f"AvgPool{_sfx}",
        inputs=[("value" if _nd == 4 else "input") + ": T"],
        outputs=["output: T"],
        attrs=_pool + [_fmt, "T: {half, bfloat16, float, double}"],
        shape=_pool_shape(_nd),
        kernel=_pool_kernel(kconv.avg_pool, _nd),
        grad=_avg_pool_grad_fn(f"AvgPool{_sfx}Grad"),
        check_attrs=_check_batch_window,
    )
    _orig = "TInput" if _in_t else "T"
    op_registry.declare(
        f"MaxPool{_sfx}Grad",
        inputs=[f"orig_input: {_orig}", f"orig_output: {_orig}", "grad: T"],
        outputs=["output: T"],
        attrs=_pool + [_fmt, _grad_t] + ([_in_t] if _in_t else []),
        shape=_like_input(0, _nd),
        kernel=_max_pool_grad_kernel(kconv.max_pool_grad, _nd),
        grad=_second_order_fn(f"MaxPool{_sfx}GradGrad"),
        check_attrs=_check_batch_window,
    )
    op_registry.declare(
        f"MaxPool{_sfx}GradGrad",
        inputs=["orig_input: T", "orig_output: T", "grad: T"],
        outputs=["output: T"],
        attrs=_pool + [_fmt, _REAL],
        shape=_pool_shape(_nd),
        kernel=_max_pool_grad_kernel(kconv.max_pool_grad_grad, _nd),
        grad=_second_order_fn(f"MaxPool{_sfx}Grad"),
        check_attrs=_check_batch_window,
    )
    op_registry.declare(
        f"AvgPool{_sfx}Grad",
        inputs=["orig_input_shape: int32", "grad: T"],
        outputs=["output: T"],
        attrs=_pool + [_fmt, "T: {half, bfloat16, float, double}"],
        shape=_sizes_shape(_nd),
        kernel=_avg_pool_grad_kernel(_nd),
        grad=_avg_pool_grad_grad_fn(f"AvgPool{_sfx}"),
        check_attrs=_check_batch_window,
    )

# MaxPoolGrad's kernel when the plan knows its orig_output is the MaxPool of its orig_input
# (runtime/graph_passes.py)
max_pool_grad_at_max = _max_pool_grad_kernel(kconv.max_pool_grad, 4, at_max=True)

# MaxPool and its gradients with the window given as int32 inputs (TF's *V2 ops)
_V2_WINDOW = ["ksize: int32", "strides: int32"]
_V2_ATTRS = [_POOL_2D[2], _FORMAT_2D]
op_registry.declare(
    "MaxPoolV2",
    inputs=["input: T"] + _V2_WINDOW,
    outputs=["output: T"],
    attrs=[_MAXPOOL_T] + _V2_ATTRS,
    shape=_pool_shape(4, window_inputs=(1, 2)),
    kernel=_v2_kernel(_pool_kernel(kconv.max_pool, 4), 1),
    grad=_max_pool_v2_grad,
)
op_registry.declare(
    "MaxPoolGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T"] + _V2_WINDOW,
    outputs=["output: T"],
    attrs=_V2_ATTRS + ["T: realnumbertype = DT_FLOAT"],
    shape=_like_input(0, 4),
    kernel=_v2_kernel(_max_pool_grad_kernel(kconv.max_pool_grad, 4), 3),
    grad=_second_order_v2_fn("MaxPoolGradGradV2"),
)
op_registry.declare(
    "MaxPoolGradGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T"] + _V2_WINDOW,
    outputs=["output: T"],
    attrs=_V2_ATTRS + [_REAL],
    shape=_pool_shape(4, window_inputs=(3, 4)),
    kernel=_v2_kernel(_max_pool_grad_kernel(kconv.max_pool_grad_grad, 4), 3),
    grad=_second_order_v2_fn("MaxPoolGradV2"),
)

op_registry.declare(
    "MaxPoolWithArgmax",
    inputs=["input: T"],
    outputs=["output: T", "argmax: Targmax"],
    attrs=_POOL_2D[:2] + _ARGMAX + [_POOL_2D[2], _REAL],
    shape=_pool_shape(4, fmt_attr=False),
    kernel=_max_pool_with_argmax_kernel,
    grad=_max_pool_with_argmax_grad,
    check_attrs=_check_batch_window,
)
op_registry.declare(
    "MaxPoolGradWithArgmax",
    inputs=["input: T", "grad: T", "argmax: Targmax"],
    outputs=["output: T"],
    attrs=_POOL_2D + _ARGMAX + [_REAL],
    shape=_like_input(0, 4),
    kernel=_max_pool_grad_with_argmax_kernel,  # (no gradient defined, as TF 1.15)
    check_attrs=_check_batch_window,
)
op_registry.declare(
    "MaxPoolGradGradWithArgmax",
    inputs=["input: T", "grad: T", "argmax: Targmax"],
    outputs=["output: T"],
    attrs=_POOL_2D + _ARGMAX + [_REAL],
    shape=_pool_shape(4, fmt_attr=False),
    kernel=_max_pool_grad_grad_with_argmax_kernel,
    grad=_argmax_second_order_fn("MaxPoolGradWithArgmax"),
    check_attrs=_check_batch_window,
)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _alias(a, b, name_a, name_b):
    if a is not None and b is not None:
        raise ValueError(f"Arguments '{name_a}' and '{name_b}' cannot both be specified.")
    return a if a is not None else b


def _pool(op_type, value, ksize, strides, padding, data_format, name, nd=4):
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    if isinstance(padding, bytes):
        padding = padding.decode()
    attrs = {
        "ksize": get_sequence(ksize, nd - 2, nd, data_format, "ksize"),
        "strides": get_sequence(strides, nd - 2, nd, data_format, "strides"),
        "padding": padding,
        "data_format": data_format,
    }
    return _apply(op_type, [value], attrs, name)


def _one_d(value, ksize, strides):
    """Rank-3 input whose ksize/strides fit a 1-D pool (a 4-long ksize means the 2-D op, whose
    shape check then says 'Shape must be rank 4 but is rank 3', as TF's max_pool does)."""
    return value.get_shape().ndims == 3 and all(
        isinstance(v, (int, np.integer)) or v is None or len(v) != 4 for v in (ksize, strides))


def _rank(value):
    return ops.convert_to_tensor(value).get_shape().ndims


def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Max pooling over 2-D windows of a 4-D tensor (1-D and 3-D inputs go to those pools)."""
    value = ops.convert_to_tensor(_alias(value, input, "value", "input"))
    r = value.get_shape().ndims
    if _one_d(value, ksize, strides):
        return max_pool1d(value, ksize, strides, padding, "NCW" if data_format.startswith("NC")
                          else "NWC", name)
    if r == 5:
        return max_pool3d(value, ksize, strides, padding, "NCDHW" if data_format.startswith("NC")
                          else "NDHWC", name)
    return _pool("MaxPool", value, ksize, strides, padding, data_format, name)


def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):
    """Average pooling over 2-D windows (the mean of the window's real, unpadded elements)."""
    value = ops.convert_to_tensor(_alias(value, input, "value", "input"))
    r = value.get_shape().ndims
    if _one_d(value, ksize, strides):
        return avg_pool1d(value, ksize, strides, padding, "NCW" if data_format.startswith("NC")
                          else "NWC", name)
    if r == 5:
        return avg_pool3d(value, ksize, strides, padding, "NCDHW" if data_format.startswith("NC")
                          else "NDHWC", name)
    return _pool("AvgPool", value, ksize, strides, padding, data_format, name)


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Max pooling over 2-D windows of a 4-D tensor."""
    return _pool("MaxPool", input, ksize, strides, padding, data_format, name)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):
    """Average pooling over 2-D windows of a 4-D tensor."""
    return _pool("AvgPool", input, ksize, strides, padding, data_format, name)


def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Max pooling over 3-D windows of a 5-D tensor."""
    return _pool3d("MaxPool3D", input, ksize, strides, padding, data_format, name)


def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):
    """Average pooling over 3-D windows of a 5-D tensor."""
    return _pool3d("AvgPool3D", input, ksize, strides, padding, data_format, name)


def _pool3d(op_type, input, ksize, strides, padding, data_format, name):
    # TF 1.15 enters the op's name scope before it checks ksize and strides, so a refused
    # call still takes the name
    with ops.name_scope(name, op_type, [input]) as scope:
        return _pool(op_type, input, ksize, strides, padding, data_format or "NDHWC", scope,
                     nd=5)


def _pool1d(op_type, input, ksize, strides, padding, data_format, name, default):
    if data_format not in ("NWC", "NCW", "NHWC", "NCHW"):
        raise ValueError('data_format must be "NWC" or "NCW".')
    first = data_format.startswith("NC")
    fmt1 = "NCW" if first else "NWC"
    with ops.name_scope(name, default, [input]) as scope:
        axis = 2 if first else 1
        ks = [1] + get_sequence(ksize, 1, 3, fmt1, "ksize")
        st = [1] + get_sequence(strides, 1, 3, fmt1, "strides")
        x = array_ops.expand_dims(input, axis)
        out = _pool(op_type, x, ks, st, padding, "NCHW" if first else "NHWC", scope)
        return array_ops.squeeze(out, [axis])


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Max pooling over 1-D windows of a 3-D tensor."""
    return _pool1d("MaxPool", input, ksize, strides, padding, data_format, name, "MaxPool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):
    """Average pooling over 1-D windows of a 3-D tensor."""
    return _pool1d("AvgPool", input, ksize, strides, padding, data_format, name, "AvgPool1D")


MaxPoolWithArgmaxOutput = collections.namedtuple("MaxPoolWithArgmax", ["output", "argmax"])


def max_pool_with_argmax(input, ksize, strides, padding, data_format="NHWC", Targmax=None,
                         name=None, output_dtype=None, include_batch_in_index=False):
    """(output, argmax): max pooling and the flattened index of each maximum.

    argmax is ``(y * width + x) * channels + c``, plus ``b * height * width * channels``
    when ``include_batch_in_index``; ties pick the first maximum in row-major window order.
    """
    if data_format != "NHWC":
        raise ValueError("Data formats other than 'NHWC' are not yet supported")
    targmax = _alias(Targmax, output_dtype, "Targmax", "output_dtype") or dtypes.int64
    attrs = {
        "ksize": get_sequence(ksize, 2, 4, "NHWC", "ksize"),
        "strides": get_sequence(strides, 2, 4, "NHWC", "strides"),
        "padding": padding,
        "Targmax": dtypes.as_dtype(targmax),
        "include_batch_in_index": bool(include_batch_in_index),
    }
    op = ops.apply_op("MaxPoolWithArgmax", [input], attrs, name=name)
    return MaxPoolWithArgmaxOutput(*op._outputs)


def _dilated_valid_pool(input, window_shape, pooling_type, rate, name, channels_first=False):
    """VALID pooling with holes: the max or mean over the window's dilated taps, each tap a
    shifted slice of the input (stride 1)."""
    import itertools

    from tideflow.ops import array_ops, concat_ops, reduction_ops

    with ops.name_scope(name, pooling_type.lower() + "_pool", [input]):
        x = ops.convert_to_tensor(input, name="input")
        taps = []
        for ks in itertools.product(*(range(w) for w in window_shape)):
            index = [slice(None)] * (2 if channels_first else 1)
            for k, w, r in zip(ks, window_shape, rate):
                end = (w - 1 - k) * r
                index.append(slice(k * r, -end if end else None))
            taps.append(x[tuple(index) + ((slice(None),) if not channels_first else ())])
        stacked = concat_ops.stack(taps, axis=0)
        reduce = reduction_ops.reduce_max if pooling_type == "MAX" else reduction_ops.reduce_mean
        return array_ops.identity(reduce(stacked, 0))


def pool(input, window_shape, pooling_type, padding, dilation_rate=None, strides=None,
         name=None, data_format=None, dilations=None):
    """N-D max or average pooling (N = 1, 2, 3); a dilation_rate above 1 needs VALID padding
    and stride 1, as in TF."""
    dilation_rate = _alias(dilation_rate, dilations, "dilation_rate", "dilations")
    # TF 1.15's checks in its order, inside the op's name scope (a refused call takes it)
    with ops.name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        window_shape = [int(v) for v in window_shape]
        nsp = len(window_shape)
        if nsp not in (1, 2, 3):
            raise ValueError("It is required that 1 <= num_spatial_dims <= 3.")
        input.get_shape().with_rank(nsp + 2)
        strides, rate = _strides_and_dilation(strides, dilation_rate, nsp, broadcast=False)
        if padding == "SAME" and max(rate) > 1:
            raise ValueError("pooling with SAME padding is not implemented for dilation_rate "
                             "> 1")
        if any(s > w for s, w in zip(strides, window_shape)):
            raise ValueError("strides > window_shape not supported due to inconsistency "
                             "between CPU and GPU implementations")
        if pooling_type not in ("MAX", "AVG"):
            raise ValueError(f"{nsp}-D {pooling_type} pooling is not supported.")
        first = data_format is not None and data_format.startswith("NC")
        if max(rate) > 1 and first:
            return _dilated_valid_pool(input, window_shape, pooling_type, rate, scope, first)
        if max(rate) > 1:
            # TF 1.15's: the pool (named by the scope) of the space-to-batch input, then back
            from tideflow.ops.nn_extra_ops import with_space_to_batch

            def op(converted, _, pad):
                if nsp == 1:
                    fn = max_pool2d if pooling_type == "MAX" else avg_pool2d
                    out = fn(array_ops.expand_dims(converted, 1), [1, window_shape[0]],
                             [1, strides[0]], pad, "NHWC", scope)
                    return array_ops.squeeze(out, [1])
                fn = {("MAX", 2): max_pool2d, ("AVG", 2): avg_pool2d, ("MAX", 3): max_pool3d,
                      ("AVG", 3): avg_pool3d}[pooling_type, nsp]
                return fn(converted, window_shape, strides, pad, "NHWC" if nsp == 2 else
                          "NDHWC", scope)

            return with_space_to_batch(input, rate, padding, op, filter_shape=window_shape,
                                       _tf_constants=True)
        # TF 1.15's with_space_to_batch converts the (unit) rate first: one Const
        from tideflow.ops import constant_op

        constant_op.constant(np.asarray(rate, np.int32), name="dilation_rate")
        if nsp == 1:
            fn = max_pool1d if pooling_type == "MAX" else avg_pool1d
            return fn(input, window_shape, strides, padding, "NCW" if first else "NWC", scope)
        if nsp == 2:
            fn = max_pool2d if pooling_type == "MAX" else avg_pool2d
            return fn(input, window_shape, strides, padding, "NCHW" if first else "NHWC", scope)
        fn = max_pool3d if pooling_type == "MAX" else avg_pool3d
        return fn(input, window_shape, strides, padding, "NCDHW" if first else "NDHWC", scope)
