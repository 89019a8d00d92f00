"""Convolution ops: Conv2D, DepthwiseConv2dNative, Conv3D and their backprops, with ``tf.nn``'s
conv2d, conv2d_transpose, depthwise/separable/atrous convolutions, convolution and conv1d.

Kernels live in ``tideflow.kernels.conv`` (channels-last); NCHW runs through transposes.
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.kernels import conv as kconv
from tideflow.ops import array_ops

_FLOATS = "T: {half, bfloat16, float, double}"
_PADDING = "padding: {'SAME', 'VALID', 'EXPLICIT'}"
_EXPLICIT = "explicit_paddings: list(int) = []"
_FORMAT_2D = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"
_FORMAT_3D = "data_format: {'NDHWC', 'NCDHW'} = 'NDHWC'"


def _invalid(msg):
    return errors.InvalidArgumentError(None, None, msg)


def _dims_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


# ------------------------------------------------------------------------------------------
# layouts: (batch, spatial..., channel) in either order; shared with pooling_ops
# ------------------------------------------------------------------------------------------


def channels_first(data_format):
    return data_format.startswith("NC")


def split_dims(values, data_format):
    """(batch, [spatial...], channel) of a per-dimension list in ``data_format``."""
    values = list(values)
    if channels_first(data_format):
        return values[0], values[2:], values[1]
    return values[0], values[1:-1], values[-1]


def join_dims(batch, spatial, channel, data_format):
    if channels_first(data_format):
        return [batch, channel] + list(spatial)
    return [batch] + list(spatial) + [channel]


def to_channels_last(x, data_format):
    return np.moveaxis(x, 1, -1) if channels_first(data_format) else x


def from_channels_last(y, data_format):
    return np.ascontiguousarray(np.moveaxis(y, -1, 1)) if channels_first(data_format) else y


def shape_to_channels_last(shape, data_format):
    b, sp, c = split_dims(shape, data_format)
    return (b, *sp, c)


def spatial_attr(values, data_format, what):
    """The spatial part of a strides/dilations attr, whose batch and depth entries must be 1."""
    b, sp, c = split_dims(values, data_format)
    if b != 1 or c != 1:
        raise _invalid(
            f"Current implementation does not yet support {what} in the batch and depth "
            "dimensions."
        )
    if any(v < 1 for v in sp):
        raise _invalid(f"{what.capitalize()} must be positive: {_dims_str(values)}")
    return tuple(sp)


def _explicit_pads(explicit, data_format, nd):
    if len(explicit) != 2 * nd:
        raise _invalid(f"explicit_paddings attribute must contain {2 * nd} values, but got: "
                       f"{len(explicit)}")
    pairs = [tuple(explicit[i:i + 2]) for i in range(0, 2 * nd, 2)]
    b, sp, c = split_dims(pairs, data_format)
    if b != (0, 0) or c != (0, 0):
        raise _invalid("Nonzero explicit padding in the batch or depth dimensions is not "
                       "supported")
    if any(v < 0 for p in sp for v in p):
        raise _invalid(f"All explicit_paddings must be nonnegative: {_dims_str(explicit)}")
    return sp


def _params(nd, strides, dilations, padding, explicit, data_format):
    s = spatial_attr(strides, data_format, "strides")
    d = spatial_attr(dilations, data_format, "dilations")
    pads = _explicit_pads(explicit, data_format, nd) if padding == "EXPLICIT" else None
    return s, d, pads


def _attr_check(nd):
    """The attr checks of TF's conv kernel constructors, run when a plan binds the kernel."""
    def check(attrs):
        _params(nd, attrs["strides"], attrs["dilations"], attrs["padding"],
                attrs.get("explicit_paddings", ()), attrs["data_format"])

    return check


# ------------------------------------------------------------------------------------------
# shape functions
# ------------------------------------------------------------------------------------------


def out_dim(in_size, k, stride, dilation, padding, pads=None):
    """One output dimension as TF's shape functions compute it (None when unknown)."""
    if stride is not None and stride < 1:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if in_size is None:
        return None
    if padding == "SAME":
        return (in_size + stride - 1) // stride
    if k is None:
        return None
    eff = (k - 1) * dilation + 1
    total = in_size + (sum(pads) if pads else 0)
    if total < eff:
        raise ValueError(f"Negative dimension size caused by subtracting {eff} from {total}")
    return (total - eff + stride) // stride


def dims_of(shape, rank):
    """``shape`` checked to be rank ``rank``, as a list of ints and Nones."""
    if shape.ndims is None:
        return [None] * rank
    if shape.ndims != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.ndims}")
    return [d.value for d in shape.dims]


def check_attr_len(op, attr, nd, label):
    n = len(op._attrs[attr])
    if n != nd:
        raise ValueError(f"{op._type} requires the {label} attribute to contain {nd} values, "
                         f"but got: {n}")


def _merge(a, b):
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def _conv_shape(nd, depthwise=False):
    def shape_fn(op):
        fmt = op._attrs["data_format"]
        x = dims_of(op._inputs[0]._shape, nd)
        w = dims_of(op._inputs[1]._shape, nd)
        check_attr_len(op, "strides", nd, "stride")
        check_attr_len(op, "dilations", nd, "dilation")
        batch, spatial, chans = split_dims(x, fmt)
        grouped = False
        if not depthwise and chans is not None and w[-2] is not None and chans != w[-2]:
            # an input depth that is a multiple of the filter's is a grouped Conv2D: TF 1.15's
            # shape function accepts it (its CPU kernel then refuses it, as tideflow's does)
            if nd != 4 or not w[-2] or chans % w[-2]:
                raise ValueError(f"Depth of input ({chans}) "
                                 + ("does not match" if w[-2] and chans % w[-2] == 0
                                    else "is not a multiple of")
                                 + f" input depth of filter ({w[-2]})")
            groups = chans // w[-2]
            if w[-1] is not None and w[-1] % groups:
                raise ValueError(f"Depth of output ({w[-1]}) is not a multiple of the number "
                                 f"of groups ({groups})")
            grouped = True
        if not grouped:
            chans = _merge(chans, w[-2])
        _, strides, _ = split_dims(op._attrs["strides"], fmt)
        _, dil, _ = split_dims(op._attrs["dilations"], fmt)
        padding = op._attrs["padding"]
        explicit = op._attrs.get("explicit_paddings", [])
        pads = [None] * (nd - 2)
        if padding == "EXPLICIT":
            if len(explicit) != 2 * nd:
                raise ValueError(f"explicit_paddings attribute must contain {2 * nd} values, "
                                 f"but got: {len(explicit)}")
            pb, pads, pc = split_dims([explicit[i:i + 2] for i in range(0, 2 * nd, 2)], fmt)
            if list(pb) != [0, 0] or list(pc) != [0, 0]:
                raise ValueError("Nonzero explicit padding in the batch or depth dimensions is "
                                 "not supported")
            if any(v < 0 for v in explicit):
                raise ValueError(f"All explicit padding values must be nonnegative, got "
                                 f"{list(explicit)}")
        elif explicit:
            raise ValueError("explicit_paddings must be empty unless padding is EXPLICIT")
        outs = [out_dim(n, k, s, d, padding, p)
                for n, k, s, d, p in zip(spatial, w[:-2], strides, dil, pads)]
        if depthwise:
            out_c = None if chans is None or w[-1] is None else chans * w[-1]
        else:
            out_c = w[-1]
        return [TensorShape(join_dims(batch, outs, out_c, fmt))]

    return shape_fn


def _sizes_shape(index, nd):
    """Output shape read from a sizes input (input_sizes / filter_sizes / orig_input_shape),
    as a partial shape: TF 1.15's shape functions take nothing else (Conv2DBackpropInput's
    batch is not out_backprop's, as in TF 2.x, and the two are not compared)."""
    def shape_fn(op):
        sizes = op._inputs[index]
        s = array_ops.constant_value_as_shape(sizes)
        if s.ndims is None and sizes.get_shape().ndims == 1:
            # (TF's first pass, without the value: as many unknown dims as the vector holds)
            s = unknown_shape(ndims=sizes.get_shape()[0].value)
        if s.ndims is None:
            return [unknown_shape(ndims=nd)]
        if s.ndims != nd:
            raise ValueError(f"Shape must be rank {nd} but is rank {s.ndims}")
        return [s]

    return shape_fn


# ------------------------------------------------------------------------------------------
# kernels
# ------------------------------------------------------------------------------------------


def _sizes(t, nd, label, what):
    v = np.asarray(t)
    if v.ndim != 1 or v.size != nd:
        raise _invalid(f"{label}: {what} input must be 1-dim with {nd} elements, not "
                       f"{_dims_str(v.shape)}")
    return tuple(int(d) for d in v)


def _check_rank(x, nd, what):
    if np.ndim(x) != nd:
        raise _invalid(f"{what} must be {nd}-dimensional: {_dims_str(np.shape(x))}")


_CPU_KERNEL_LABELS = {
    "Conv2DBackpropInput": "Conv2DCustomBackpropInput",
    "Conv2DBackpropFilter": "Conv2DCustomBackpropFilter",
    "Conv3DBackpropInput": "Conv3DBackpropInputOp",
    "Conv3DBackpropFilter": "Conv3DBackpropFilterOp",
    "DepthwiseConv2dNativeBackpropInput": "DepthwiseConv2DBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter": "DepthwiseConv2DBackpropFilter",
}


def _check_backprop(label, in_shape, f_shape, dy_shape, strides, dilations, padding, pads,
                    depthwise=False):
    """TF's consistency checks of a backprop's three shapes (all channels-last)."""
    if in_shape[-1] != f_shape[-2]:
        raise _invalid(f"{label}: input and filter must have the same depth: {in_shape[-1]} vs "
                       f"{f_shape[-2]}")
    # the later checks are TF 1.15's CPU kernels', which name themselves
    label = _CPU_KERNEL_LABELS.get(label, label)
    if in_shape[0] != dy_shape[0]:
        detail = "" if depthwise else (f"input batch: {in_shape[0]}outbackprop batch: "
                                       f"{dy_shape[0]} batch_dim: 0")
        raise _invalid(f"{label}: input and out_backprop must have the same batch size{detail}")
    out_c = f_shape[-1] * (f_shape[-2] if depthwise else 1)
    if dy_shape[-1] != out_c:
        raise _invalid(f"{label}: filter and out_backprop must have the same out_depth")
    nsp = len(in_shape) - 2
    for i in range(nsp):
        o, _, _ = kconv.output_size(in_shape[1 + i], f_shape[i], strides[i], dilations[i],
                                    padding, None if pads is None else pads[i])
        if o != dy_shape[1 + i] and depthwise:
            raise _invalid(f"{label}: Number of {('rows', 'cols')[i]} of out_backprop doesn't "
                           f"match computed: actual = {dy_shape[1 + i]}, computed = {o}")
        if o != dy_shape[1 + i]:
            raise _invalid(
                f"{label}: Size of out_backprop doesn't match computed: actual = "
                f"{dy_shape[1 + i]}, computed = {o} spatial_dim: {i + 1} input: "
                f"{in_shape[1 + i]} filter: {f_shape[i]} output: {dy_shape[1 + i]} stride: "
                f"{strides[i]} dilation: {dilations[i]}"
            )


def _bind(run, nd, n_inputs=2):
    """A kernel with keyword-only attrs (Conv3D has no explicit_paddings attr)."""
    if nd == 4 and n_inputs == 2:
        def kernel(a, b, *, strides, padding, data_format, dilations, explicit_paddings):
            return run(a, b, strides, padding, data_format, dilations, explicit_paddings)
    elif nd == 4:
        def kernel(a, b, c, *, strides, padding, data_format, dilations, explicit_paddings):
            return run(a, b, c, strides, padding, data_format, dilations, explicit_paddings)
    elif n_inputs == 2:
        def kernel(a, b, *, strides, padding, data_format, dilations):
            return run(a, b, strides, padding, data_format, dilations, ())
    else:
        def kernel(a, b, c, *, strides, padding, data_format, dilations):
            return run(a, b, c, strides, padding, data_format, dilations, ())
    return kernel


class SpectrumShare:
    """What a convolution's input gradient hands on to its filter gradient within a step,
    when a plan runs both (runtime/graph_passes.py): (out_backprop, the channels-last input
    and filter shapes, dy's spectrum). It is taken only by a filter gradient that reads the
    very same out_backprop array with the same shapes (an identity check, so concurrent steps
    of one plan at worst recompute) and dropped as it is taken."""

    __slots__ = ("dy",)

    def __init__(self):
        self.dy = None


def _forward_kernel(nd, depthwise=False):
    fn = kconv.depthwise if depthwise else kconv.conv
    label = "DepthwiseConv2dNative" if depthwise else f"Conv{nd - 2}D"

    def run(input, filter, strides, padding, data_format, dilations, explicit_paddings):
        # TF 1.15's kernels' words: its 2-D kernels show the input's shape without a colon,
        # Conv3D shows neither shape
        for what, t in (("input", input), ("filter", filter)):
            if np.ndim(t) != nd:
                shown = "" if nd == 5 else ("" if what == "input" else ": ") + _dims_str(
                    np.shape(t))
                raise _invalid(f"{what} must be {nd}-dimensional{shown}")
        s, d, pads = _params(nd, strides, dilations, padding, explicit_paddings, data_format)
        x = to_channels_last(input, data_format)
        if x.shape[-1] != filter.shape[-2]:
            divisible = filter.shape[-2] and x.shape[-1] % filter.shape[-2] == 0
            if nd == 4 and not depthwise and divisible:
                raise errors.UnimplementedError(
                    None, None, "The Conv2D op currently does not support grouped convolutions "
                    "on the CPU. A grouped convolution was attempted to be run because the "
                    f"input depth of {x.shape[-1]} does not match the filter input depth of "
                    f"{filter.shape[-2]}")
            if depthwise or divisible:
                raise _invalid(f"{'' if depthwise else label + ': '}input and filter must have "
                               f"the same depth: {x.shape[-1]} vs {filter.shape[-2]}")
            raise _invalid(f"{'input' if nd == 4 else 'Input'} depth must be evenly divisible "
                           f"by filter depth: {x.shape[-1]} vs {filter.shape[-2]}")
        return from_channels_last(fn(x, filter, s, d, padding, pads), data_format)

    return _bind(run, nd)


def _backprop_input_kernel(nd, depthwise=False, share=None):
    fn = kconv.depthwise_backprop_input if depthwise else kconv.conv_backprop_input
    label = ("DepthwiseConv2dNativeBackpropInput" if depthwise
             else f"Conv{nd - 2}DBackpropInput")

    def run(input_sizes, filter, out_backprop, strides, padding, data_format, dilations,
            explicit_paddings):
        sizes = _sizes(input_sizes, nd, label, "input_sizes")
        _check_rank(filter, nd, "filter")
        _check_rank(out_backprop, nd, "out_backprop")
        s, d, pads = _params(nd, strides, dilations, padding, explicit_paddings, data_format)
        in_shape = shape_to_channels_last(sizes, data_format)
        dy = to_channels_last(out_backprop, data_format)
        _check_backprop(label, in_shape, filter.shape, dy.shape, s, d, padding, pads, depthwise)
        if share is None:
            return from_channels_last(fn(in_shape, filter, dy, s, d, padding, pads), data_format)
        keep = {}
        dx = fn(in_shape, filter, dy, s, d, padding, pads, keep=keep)
        share.dy = (out_backprop, in_shape, filter.shape, keep["ys"]) if keep else None
        return from_channels_last(dx, data_format)

    return _bind(run, nd, 3)


def _backprop_filter_kernel(nd, depthwise=False, share=None):
    fn = kconv.depthwise_backprop_filter if depthwise else kconv.conv_backprop_filter
    label = ("DepthwiseConv2dNativeBackpropFilter" if depthwise
             else f"Conv{nd - 2}DBackpropFilter")

    def run(input, filter_sizes, out_backprop, strides, padding, data_format, dilations,
            explicit_paddings):
        sizes = _sizes(filter_sizes, nd, label, "filter_sizes")
        _check_rank(input, nd, "input")
        _check_rank(out_backprop, nd, "out_backprop")
        s, d, pads = _params(nd, strides, dilations, padding, explicit_paddings, data_format)
        x = to_channels_last(input, data_format)
        dy = to_channels_last(out_backprop, data_format)
        _check_backprop(label, x.shape, sizes, dy.shape, s, d, padding, pads, depthwise)
        if share is None:
            return fn(x, sizes, dy, s, d, padding, pads)
        kept, share.dy = share.dy, None
        spectrum = kept[3] if kept is not None and kept[0] is out_backprop and (
            kept[1] == x.shape and kept[2] == sizes) else None
        return fn(x, sizes, dy, s, d, padding, pads, dy_spectrum=spectrum)

    return _bind(run, nd, 3)


def sharing_kernels():
    """Conv2DBackpropInput's and Conv2DBackpropFilter's kernels for a plan that runs both for
    one convolution: the filter gradient takes dy's spectrum from the input gradient
    (SpectrumShare)."""
    share = SpectrumShare()
    return _backprop_input_kernel(4, share=share), _backprop_filter_kernel(4, share=share)


# ------------------------------------------------------------------------------------------
# gradients (graph code)
# ------------------------------------------------------------------------------------------

_CONV_ATTRS = ("strides", "padding", "explicit_paddings", "data_format", "dilations",
               "use_cudnn_on_gpu")


def _attrs_of(op):
    return {k: op._attrs[k] for k in _CONV_ATTRS if k in op._attrs}


def _apply(op_type, inputs, attrs, name=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


def _forward_grad(forward, backprop_input, backprop_filter):
    def grad(op, g):
        attrs = _attrs_of(op)
        x, w = op.inputs
        if forward == "Conv2D":
            s0, s1 = array_ops.shape_n([x, w])
            return [_apply(backprop_input, [s0, w, g], attrs),
                    _apply(backprop_filter, [x, s1, g], attrs)]
        # as TF's Conv3D and DepthwiseConv2dNative gradients: array_ops.shape, a constant
        # when the static shape is known, so the input gradient needs no feed of ``x``; each
        # shape made just before its op (TF 1.15's order)
        gx = _apply(backprop_input, [array_ops.shape(x), w, g], attrs)
        return [gx, _apply(backprop_filter, [x, array_ops.shape(w), g], attrs)]

    grad.__name__ = f"_{forward.lower()}_grad"
    return grad


def _backprop_input_grad(forward, backprop_filter):
    def grad(op, g):
        attrs = _attrs_of(op)
        _, w, dy = op.inputs
        return [None,
                _apply(backprop_filter, [g, array_ops.shape(w), dy], attrs),
                _apply(forward, [g, w], attrs)]

    return grad


def _backprop_filter_grad(forward, backprop_input):
    def grad(op, g):
        attrs = _attrs_of(op)
        x, _, dy = op.inputs
        return [_apply(backprop_input, [array_ops.shape(x), g, dy], attrs),
                None,
                _apply(forward, [x, g], attrs)]

    return grad


# ------------------------------------------------------------------------------------------
# declarations
# ------------------------------------------------------------------------------------------


def _declare_family(forward, backprop_input, backprop_filter, nd, attrs, depthwise=False,
                    sizes_type="int32", newer_attrs=()):
    op_registry.declare(
        forward,
        inputs=["input: T", "filter: T"],
        outputs=["output: T"],
        attrs=attrs,
        shape=_conv_shape(nd, depthwise),
        kernel=_forward_kernel(nd, depthwise),
        grad=_forward_grad(forward, backprop_input, backprop_filter),
        check_attrs=_attr_check(nd),
        newer_attrs=newer_attrs,
    )
    op_registry.declare(
        backprop_input,
        inputs=[f"input_sizes: {sizes_type}", "filter: T", "out_backprop: T"],
        outputs=["output: T"],
        attrs=attrs + (["Tshape: {int32, int64} = DT_INT32"] if sizes_type == "Tshape" else []),
        shape=_sizes_shape(0, nd),
        kernel=_backprop_input_kernel(nd, depthwise),
        grad=_backprop_input_grad(forward, backprop_filter),
        check_attrs=_attr_check(nd),
        newer_attrs=newer_attrs,
    )
    op_registry.declare(
        backprop_filter,
        inputs=["input: T", "filter_sizes: int32", "out_backprop: T"],
        outputs=["output: T"],
        attrs=attrs,
        shape=_sizes_shape(1, nd),
        kernel=_backprop_filter_kernel(nd, depthwise),
        grad=_backprop_filter_grad(forward, backprop_input),
        check_attrs=_attr_check(nd),
        newer_attrs=newer_attrs,
    )


_declare_family(
    "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", 4,
    [_FLOATS, "strides: list(int)", "use_cudnn_on_gpu: bool = true", _PADDING, _EXPLICIT,
     _FORMAT_2D, "dilations: list(int) = [1, 1, 1, 1]"],
)
_declare_family(
    "DepthwiseConv2dNative", "DepthwiseConv2dNativeBackpropInput",
    "DepthwiseConv2dNativeBackpropFilter", 4,
    [_FLOATS, "strides: list(int)", _PADDING, _EXPLICIT, _FORMAT_2D,
     "dilations: list(int) = [1, 1, 1, 1]"],
    depthwise=True,
    newer_attrs=["explicit_paddings"],  # TF 2.1's (TF 1.15's depthwise ops lack it)
)
_declare_family(
    "Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2", 5,
    [_FLOATS, "strides: list(int) >= 5", "padding: {'SAME', 'VALID'}", _FORMAT_3D,
     "dilations: list(int) = [1, 1, 1, 1, 1]"],
    sizes_type="Tshape",
)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _alias(a, b, name_a, name_b):
    if a is not None and b is not None:
        raise ValueError(f"Arguments '{name_a}' and '{name_b}' cannot both be specified.")
    return a if a is not None else b


def get_sequence(value, n, nd, data_format, name):
    """A strides/ksize/dilations value (int, or length 1, n or nd) as a length-nd list."""
    if value is None:
        return [1] * nd
    if isinstance(value, (int, np.integer)):
        value = [int(value)]
    value = [int(v) for v in value]
    if len(value) == nd:
        return value
    if len(value) == 1:
        value = value * n
    if len(value) != n:
        raise ValueError(f"{name} should be of length 1, {n} or {nd} but was {len(value)}")
    return join_dims(1, value, 1, data_format)


def _padding_attrs(padding):
    """(padding, explicit_paddings) from 'SAME'/'VALID' or a list of (before, after) pairs."""
    if isinstance(padding, (list, tuple)):
        flat = []
        for i, pair in enumerate(padding):
            if not isinstance(pair, (list, tuple)):  # TF's error class: ValueError
                msg = ("When padding is a list, each element of padding must be a list/tuple of "
                       f"size 2. Element with index {i} of padding is not a list/tuple")
                raise ValueError(msg)  # noqa: TRY004
            if len(pair) != 2:
                raise ValueError(f"When padding is a list, each element of padding must be a "
                                 f"list/tuple of size 2. Received: {padding}")
            flat.extend(int(v) for v in pair)
        return "EXPLICIT", flat
    if padding in ("EXPLICIT", b"EXPLICIT"):
        raise ValueError('"EXPLICIT" is not a valid value for the padding parameter. To use '
                         "explicit padding, the padding parameter must be a list.")
    if isinstance(padding, bytes):
        padding = padding.decode()
    return padding, []


def _conv_attrs(strides, padding, data_format, dilations, nd=4):
    padding, explicit = _padding_attrs(padding)
    if data_format is None:  # as TF's op wrappers: None is the op's default layout
        data_format = "NDHWC" if nd == 5 else "NHWC"
    if isinstance(data_format, bytes):
        data_format = data_format.decode()
    return {
        "strides": get_sequence(strides, nd - 2, nd, data_format, "strides"),
        "padding": padding,
        "explicit_paddings": explicit,
        "data_format": data_format,
        "dilations": get_sequence(dilations, nd - 2, nd, data_format, "dilations"),
    }


def conv2d(input, filter=None, strides=None, padding=None, use_cudnn_on_gpu=True,
           data_format="NHWC", dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """2-D cross-correlation of a 4-D ``input`` with a [h, w, in, out] ``filter``."""
    filter = _alias(filter, filters, "filter", "filters")
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    attrs["use_cudnn_on_gpu"] = use_cudnn_on_gpu  # (the attr refuses a non-bool, as TF)
    return _apply("Conv2D", [input, filter], attrs, name)


def conv2d_backprop_input(input_sizes, filter=None, out_backprop=None, strides=None,
                          padding=None, use_cudnn_on_gpu=True, data_format="NHWC",
                          dilations=[1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """The gradient of conv2d with respect to its input (of shape ``input_sizes``)."""
    filter = _alias(filter, filters, "filter", "filters")
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    attrs["use_cudnn_on_gpu"] = use_cudnn_on_gpu  # (the attr refuses a non-bool, as TF)
    return _apply("Conv2DBackpropInput", [input_sizes, filter, out_backprop], attrs, name)


def conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                           use_cudnn_on_gpu=True, data_format="NHWC",
                           dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of conv2d with respect to its filter (of shape ``filter_sizes``)."""
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    attrs["use_cudnn_on_gpu"] = use_cudnn_on_gpu  # (the attr refuses a non-bool, as TF)
    return _apply("Conv2DBackpropFilter", [input, filter_sizes, out_backprop], attrs, name)


def _static_channels(t, data_format):
    s = t.get_shape()
    if s.ndims is None:
        return None
    return s.dims[1 if channels_first(data_format) else -1].value


def conv2d_transpose(value=None, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NHWC", name=None, input=None, filters=None, dilations=None):
    """The transpose of conv2d (the gradient of conv2d with respect to its input)."""
    value = _alias(value, input, "value", "input")
    filter = _alias(filter, filters, "filter", "filters")
    with ops.name_scope(name, "conv2d_transpose", [value, filter, output_shape]) as scope:
        data_format = data_format or "NHWC"
        value = ops.convert_to_tensor(value, name="value")
        filter = ops.convert_to_tensor(filter, name="filter")
        # named as the op's input, as TF converts it: conv2d_transpose/input_sizes. As TF
        # 1.15's (conv2d_transpose_v2), nothing is checked here: the op's shape function and
        # attrs, and its kernel for mismatched channels, raise
        shape_t = ops.convert_to_tensor(output_shape, dtype=dtypes.int32, name="input_sizes")
        attrs = _conv_attrs(strides, padding, data_format, dilations)
        return _apply("Conv2DBackpropInput", [shape_t, filter, value], attrs, scope)


def depthwise_conv2d_native(input, filter, strides, padding, data_format="NHWC",
                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """Depthwise 2-D convolution: a [h, w, in, multiplier] filter applied per channel."""
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return _apply("DepthwiseConv2dNative", [input, filter], attrs, name)


def depthwise_conv2d_native_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                           data_format="NHWC", dilations=[1, 1, 1, 1],  # noqa: B006
                                           name=None):
    """The gradient of depthwise_conv2d_native with respect to its input."""
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return _apply("DepthwiseConv2dNativeBackpropInput", [input_sizes, filter, out_backprop],
                  attrs, name)


def depthwise_conv2d_native_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                            data_format="NHWC",
                                            dilations=[1, 1, 1, 1], name=None):  # noqa: B006
    """The gradient of depthwise_conv2d_native with respect to its filter."""
    attrs = _conv_attrs(strides, padding, data_format, dilations)
    return _apply("DepthwiseConv2dNativeBackpropFilter", [input, filter_sizes, out_backprop],
                  attrs, name)


def _strides_and_dilation(strides, dilation_rate, nsp, broadcast=True):
    """TF 1.15's _get_strides_and_dilation_rate checks, in its order and words (``broadcast``:
    one value stands for every axis, as convolution's own conversion lets it)."""
    def seq(v):
        return [int(x) for x in (np.broadcast_to(v, (nsp,)) if broadcast else np.reshape(v, -1))]

    rate = [1] * nsp if dilation_rate is None else seq(dilation_rate)
    if len(rate) != nsp:
        raise ValueError(f"len(dilation_rate)={len(rate)} but should be {nsp}")
    if any(r < 1 for r in rate):
        raise ValueError("all values of dilation_rate must be positive")
    st = [1] * nsp if strides is None else seq(strides)
    if len(st) != nsp:
        raise ValueError(f"len(strides)={len(st)} but should be {nsp}")
    if any(s < 1 for s in st):
        raise ValueError("all values of strides must be positive")
    if any(s > 1 for s in st) and any(r > 1 for r in rate):
        raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
    return st, rate


def depthwise_conv2d(input, filter, strides, padding, rate=None, name=None, data_format=None,
                     dilations=None):
    """Depthwise 2-D convolution with optional atrous ``rate`` (TF's tf.nn.depthwise_conv2d)."""
    rate = _alias(rate, dilations, "rate", "dilations")
    data_format = data_format or "NHWC"
    with ops.name_scope(name, "depthwise", [input, filter]) as scope:
        input = ops.convert_to_tensor(input, name="tensor_in")
        filter = ops.convert_to_tensor(filter, name="filter_in")
        strides = get_sequence(strides, 2, 4, data_format, "strides")
        _, sp, _ = split_dims(strides, data_format)
        if rate is not None and any(int(r) > 1 for r in np.broadcast_to(rate, (2,))) and \
                not data_format.startswith("NC"):
            # TF 1.15's ops: the native op (strided too) runs on the space-to-batch input,
            # the result is <scope>/BatchToSpaceND
            from tideflow.ops import array_ops
            from tideflow.ops.nn_extra_ops import with_space_to_batch

            attrs = _conv_attrs(strides, padding, data_format, [1, 1, 1, 1])

            def op(converted, _, pad):
                return _apply("DepthwiseConv2dNative", [converted, filter],
                              dict(attrs, padding=pad), scope)

            return with_space_to_batch(input, list(np.broadcast_to(rate, (2,))), padding, op,
                                       filter_shape=array_ops.shape(filter),
                                       data_format=data_format, _tf_constants=True)
        _, rate = _strides_and_dilation(sp, rate, 2)
        if all(int(r) == 1 for r in rate):
            # TF 1.15 goes through with_space_to_batch: the filter's shape and the (unit)
            # rate as Consts before the op
            from tideflow.ops import array_ops, constant_op

            array_ops.shape(filter)
            constant_op.constant(np.asarray(rate, np.int32), name="dilation_rate")
        attrs = _conv_attrs(strides, padding, data_format, join_dims(1, rate, 1, data_format))
        return _apply("DepthwiseConv2dNative", [input, filter], attrs, scope)


def separable_conv2d(input, depthwise_filter, pointwise_filter, strides, padding, rate=None,
                     name=None, data_format=None, dilations=None):
    """A depthwise convolution followed by a 1x1 (pointwise) convolution."""
    with ops.name_scope(name, "separable_conv2d",
                        [input, depthwise_filter, pointwise_filter]) as scope:
        input = ops.convert_to_tensor(input, name="tensor_in")
        depthwise_filter = ops.convert_to_tensor(depthwise_filter, name="depthwise_filter")
        pointwise_filter = ops.convert_to_tensor(pointwise_filter, name="pointwise_filter")
        pw = pointwise_filter.get_shape().with_rank(4)
        pw.dims[0].assert_is_compatible_with(1)
        pw.dims[1].assert_is_compatible_with(1)
        depthwise_filter.get_shape().with_rank(4)
        r = _alias(rate, dilations, "rate", "dilations")
        if r is None or all(int(v) == 1 for v in np.broadcast_to(r, (2,))):
            # TF 1.15's ops: the depthwise filter's shape and the unit rate as Consts in this
            # scope, then the depthwise op named 'depthwise'
            from tideflow.ops import array_ops, constant_op

            fmt = data_format or "NHWC"
            st = get_sequence(strides, 2, 4, fmt, "strides")
            array_ops.shape(depthwise_filter)
            constant_op.constant(np.ones(2, np.int32), name="dilation_rate")
            attrs = _conv_attrs(st, padding, fmt, [1, 1, 1, 1])
            dw = _apply("DepthwiseConv2dNative", [input, depthwise_filter], attrs, "depthwise")
        elif not (data_format or "NHWC").startswith("NC"):
            # TF 1.15's ops: with_space_to_batch in this scope around the op 'depthwise'
            from tideflow.ops import array_ops
            from tideflow.ops.nn_extra_ops import with_space_to_batch

            fmt = data_format or "NHWC"
            attrs = _conv_attrs(get_sequence(strides, 2, 4, fmt, "strides"), padding, fmt,
                                [1, 1, 1, 1])

            def op(converted, _, pad):
                return _apply("DepthwiseConv2dNative", [converted, depthwise_filter],
                              dict(attrs, padding=pad), "depthwise")

            dw = with_space_to_batch(input, list(np.broadcast_to(r, (2,))), padding, op,
                                     filter_shape=array_ops.shape(depthwise_filter),
                                     data_format=fmt, _tf_constants=True)
        else:
            dw = depthwise_conv2d(input, depthwise_filter, strides, padding, rate=rate,
                                  name="depthwise", data_format=data_format,
                                  dilations=dilations)
        return conv2d(dw, pointwise_filter, [1, 1, 1, 1], padding="VALID",
                      data_format=data_format or "NHWC", name=scope)


def atrous_conv2d(value, filters, rate, padding, name=None):
    """Atrous (dilated) 2-D convolution with the same ``rate`` along height and width."""
    return convolution(value, filters, padding, dilation_rate=np.broadcast_to(rate, (2,)),
                       name=name)


def atrous_conv2d_transpose(value, filters, output_shape, rate, padding, name=None):
    """The transpose of atrous_conv2d (its gradient with respect to the input)."""
    with ops.name_scope(name, "atrous_conv2d_transpose", [value, filters, output_shape]) as scope:
        value = ops.convert_to_tensor(value, name="value")
        filters = ops.convert_to_tensor(filters, name="filters")
        in_c = _static_channels(value, "NHWC")
        f = filters.get_shape()
        if in_c is not None and f.ndims is not None and f.dims[3].value not in (None, in_c):
            raise ValueError(f"value's input channels does not match filters' input channels, "
                             f"{in_c} != {f.dims[3].value}")
        if rate < 1:
            raise ValueError(f"rate {rate} cannot be less than one")
        if padding not in ("VALID", "SAME"):
            raise ValueError(f"padding must be either VALID or SAME: {padding}")
        shape_t = ops.convert_to_tensor(output_shape, dtype=dtypes.int32, name="output_shape")
        attrs = _conv_attrs(1, padding, "NHWC", rate)
        return _apply("Conv2DBackpropInput", [shape_t, filters, value], attrs, scope)


def conv1d(value=None, filters=None, stride=None, padding=None, use_cudnn_on_gpu=None,
           data_format=None, name=None, input=None, dilations=None):
    """1-D convolution of a [batch, width, in] ``value``: Conv2D on an added height of 1."""
    value = _alias(value, input, "value", "input")
    with ops.name_scope(name, "conv1d", [value, filters]) as scope:
        if data_format is None or data_format in ("NHWC", "NWC"):
            data_format, axis = "NHWC", 1
        elif data_format in ("NCHW", "NCW"):
            data_format, axis = "NCHW", 2
        else:
            raise ValueError('data_format must be "NWC" or "NCW".')
        strides = [1] + get_sequence(stride, 1, 3, data_format.replace("H", ""), "stride")
        dil = [1] + get_sequence(dilations, 1, 3, data_format.replace("H", ""), "dilations")
        value = array_ops.expand_dims(value, axis)
        filters = array_ops.expand_dims(filters, 0)
        attrs = _conv_attrs(strides, padding, data_format, dil)
        attrs["use_cudnn_on_gpu"] = True if use_cudnn_on_gpu is None else bool(use_cudnn_on_gpu)
        result = _apply("Conv2D", [value, filters], attrs, scope)
        return array_ops.squeeze(result, [axis])


def conv3d(input, filter=None, strides=None, padding=None, data_format="NDHWC",
           dilations=[1, 1, 1, 1, 1], name=None, filters=None):  # noqa: B006
    """3-D cross-correlation of a 5-D ``input`` with a [d, h, w, in, out] ``filter``."""
    filter = _alias(filter, filters, "filter", "filters")
    attrs = conv3d_attrs("conv3d", strides, padding, data_format, dilations)
    return _apply("Conv3D", [input, filter], attrs, name)


def conv3d_attrs(wrapper, strides, padding, data_format, dilations):
    """The attrs of a Conv3D-family op as TF 1.15's generated ``wrapper`` takes them: strides
    and dilations as given, five values each, else the op's attr error ("passed list of
    length 3 less than minimum 5")."""
    attrs = {"strides": strides, "padding": padding}
    if data_format is not None:
        attrs["data_format"] = data_format
    if dilations is not None:
        attrs["dilations"] = dilations
    for key in ("strides", "dilations"):
        if key in attrs and not isinstance(attrs[key], (list, tuple)):
            raise TypeError(f"Expected list for '{key}' argument to '{wrapper}' Op, not "
                            f"{attrs[key]!r}.")
    return attrs


def conv3d_transpose(value, filter=None, output_shape=None, strides=None, padding="SAME",
                     data_format="NDHWC", name=None, input=None, filters=None, dilations=None):
    """The transpose of conv3d (its gradient with respect to the input)."""
    value = _alias(value, input, "value", "input")
    filter = _alias(filter, filters, "filter", "filters")
    with ops.name_scope(name, "conv3d_transpose", [value, filter, output_shape]) as scope:
        # as TF 1.15, the sizes go to the op as given: a Python list becomes its
        # "input_sizes" Const, int32 or int64 (attr Tshape)
        attrs = _conv_attrs(strides, padding, data_format, dilations, nd=5)
        del attrs["explicit_paddings"]
        return _apply("Conv3DBackpropInputV2", [output_shape, filter, value], attrs, scope)



def _spatial_rank(filter_shape, input_shape):
    """The number of spatial dimensions (1 to 3) of a convolution, from the filter's rank or
    else the input's; the input must have that rank plus two."""
    if filter_shape.ndims is not None:
        nsp = filter_shape.ndims - 2
    elif input_shape.ndims is not None:
        nsp = input_shape.ndims - 2
    else:
        raise ValueError("rank of input or filter must be known")
    if nsp not in (1, 2, 3):
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {nsp + 2}.")
    input_shape.with_rank(nsp + 2)
    return nsp


def space_to_batch_convolution(input, filter, padding, rate, name=None, _tf_constants=False,
                               _rate_tensor=None):
    """A channels-last convolution dilated by ``rate`` built as TF 1.x's ``convolution`` and
    Keras's Conv layers build it: SpaceToBatchND by the rate, the plain convolution (named
    ``name``), BatchToSpaceND, the graph converters (MMdnn, tf2onnx) look for. None when the
    filter's size, needed for SAME padding, is not known statically."""
    from tideflow.ops.nn_extra_ops import with_space_to_batch

    f = filter.get_shape()
    nsp = len(rate)
    if padding.upper() == "SAME" and not f[:nsp].is_fully_defined():
        return None

    def plain(converted, _, pad):
        if nsp == 1:
            return conv1d(converted, filter, 1, pad, data_format="NWC", name=name)
        attrs = _conv_attrs(1, pad, "NHWC" if nsp == 2 else "NDHWC", 1, nd=nsp + 2)
        if nsp == 3:
            del attrs["explicit_paddings"]
        return _apply("Conv2D" if nsp == 2 else "Conv3D", [converted, filter], attrs, name)

    return with_space_to_batch(input, list(rate), padding.upper(), plain,
                               # TF converts the whole filter's shape ("filter_shape")
                               filter_shape=(f if f.is_fully_defined() else f[:nsp]).as_list(),
                               _tf_constants=_tf_constants,
                               _rate_tensor=_rate_tensor)


def convolution(input, filter=None, padding=None, strides=None, dilation_rate=None, name=None,
                data_format=None, filters=None, dilations=None):
    """N-D convolution (N = 1, 2, 3) with optional strides and atrous dilation."""
    filter = _alias(filter, filters, "filter", "filters")
    dilation_rate = _alias(dilation_rate, dilations, "dilation_rate", "dilations")
    with ops.name_scope(name, "convolution", [input, filter]) as scope:
        input = ops.convert_to_tensor(input, name="input")
        filter = ops.convert_to_tensor(filter, name="filter")
        f = filter.get_shape()
        nsp = _spatial_rank(f, input.get_shape())
        first = data_format is not None and data_format.startswith("NC")
        st, rate = _strides_and_dilation(strides, dilation_rate, nsp)
        in_c = _static_channels(input, "NC" if first else "NHWC")
        f_in = None if f.ndims is None else f.dims[-2].value
        if any(r > 1 for r in rate) and in_c is not None and f_in is not None and in_c != f_in:
            # (TF 1.15 checks on its dilated path only: otherwise the op's shape function says
            # "Depth of input ... is not a multiple of input depth of filter")
            raise ValueError(f"number of input channels does not match corresponding dimension "
                             f"of filter, {in_c} != {f_in}")
        if any(r > 1 for r in rate) and not first:
            out = space_to_batch_convolution(input, filter, padding, rate, scope,
                                             _tf_constants=True)
            if out is not None:
                return out
        if nsp == 1:
            return conv1d(input, filter, st[0], padding, data_format="NCW" if first else "NWC",
                          dilations=rate, name=scope)
        fmt = ("NCHW" if first else "NHWC") if nsp == 2 else ("NCDHW" if first else "NDHWC")
        attrs = _conv_attrs(st, padding, fmt, rate, nd=nsp + 2)
        if nsp == 3:
            del attrs["explicit_paddings"]
        return _apply("Conv2D" if nsp == 2 else "Conv3D", [input, filter], attrs, scope)
