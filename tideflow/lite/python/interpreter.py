"""``tf.lite.Interpreter``: runs a TFLite model (float32 builtin ops) with numpy kernels.

The model is parsed by :mod:`tideflow.lite.model`, so files from tideflow's converter and from
TF's (TOCO) load alike. Convolutions and pooling run through tideflow's own kernels
(:mod:`tideflow.kernels.conv`), the rest through numpy in the tensor's dtype.
"""

import os

import numpy as np

from tideflow.kernels import conv as kconv
from tideflow.lite import schema
from tideflow.lite.model import read_model

# the TfLiteType names TF's interpreter reports for a numpy dtype
_TYPE_NAMES = {np.dtype(np.float32): "FLOAT32", np.dtype(np.int32): "INT32",
               np.dtype(np.uint8): "UINT8", np.dtype(np.int64): "INT64",
               np.dtype(np.bool_): "BOOL", np.dtype(np.int16): "INT16",
               np.dtype(np.complex64): "COMPLEX64", np.dtype(np.int8): "INT8",
               np.dtype(np.float16): "FLOAT16"}


def _type_name(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind in "SUO":
        return "STRING"
    return _TYPE_NAMES.get(dtype, "NOTYPE")


def _activation(x, code):
    if code == schema.ACT_NONE:
        return x
    if code == schema.ACT_RELU:
        return np.maximum(x, 0, dtype=x.dtype)
    if code == schema.ACT_RELU6:
        return np.clip(x, 0, 6).astype(x.dtype, copy=False)
    if code == schema.ACT_RELU_N1_TO_1:
        return np.clip(x, -1, 1).astype(x.dtype, copy=False)
    if code == schema.ACT_TANH:
        return np.tanh(x)
    if code == schema.ACT_SIGN_BIT:
        return np.signbit(x).astype(x.dtype)
    raise RuntimeError(f"Unsupported fused activation function {code}")


def _padding(code):
    return "SAME" if code == schema.SAME else "VALID"


# ------------------------------------------------------------------------------------------
# kernels: fn(interp, op, inputs) -> list of outputs (numpy arrays)
# ------------------------------------------------------------------------------------------


def _bias_act(out, op, ins):
    if len(ins) > 2 and ins[2] is not None:
        out = out + ins[2].astype(out.dtype, copy=False)
    return _activation(out, op.options.get("fused_activation_function", 0))


def _symmetric_quantize(x):
    """TFLite's SymmetricQuantizeFloats of each row of ``x`` [rows, n] (float32): int8
    values (as float64) and each row's scaling factor (float32)."""
    x = x.astype(np.float32, copy=False)
    rng = np.abs(x).max(axis=1) if x.size else np.zeros(x.shape[0], np.float32)
    scale = np.where(rng == 0, np.float32(1), rng / np.float32(127)).astype(np.float32)
    inv = np.where(rng == 0, np.float32(0), np.float32(127) / np.where(rng == 0, 1, rng))
    v = (x * inv.astype(np.float32)[:, None]).astype(np.float64)
    q = np.clip(np.trunc(v + np.copysign(0.5, v)), -127, 127)  # round half away from zero
    return q, scale


def _weights(w, op):
    """(integer weights as float64, per-tensor scale) of hybrid-quantized weights, else
    (w, None)."""
    if w.dtype.kind not in "iu":
        return w, None
    q = getattr(op, "_weights_quant", None)
    scale, zero = q if q is not None else (1.0, 0)
    return w.astype(np.float64) - zero, np.float32(scale)


def _conv_2d(op, ins):
    x, w = ins[0], ins[1]
    o = op.options
    w, w_scale = _weights(w, op)
    filt = np.transpose(w, (1, 2, 3, 0))  # OHWI -> HWIO
    strides = (o["stride_h"], o["stride_w"])
    dil = (o.get("dilation_h_factor", 1), o.get("dilation_w_factor", 1))
    if w_scale is None:
        out = kconv.conv(x, filt, strides, dil, _padding(o["padding"]))
        return [_bias_act(out, op, ins)]
    # hybrid: each image quantized to int8, integer products, scaled back to float32
    q, scale = _symmetric_quantize(x.reshape(x.shape[0], -1))
    acc = kconv.conv(q.reshape(x.shape), filt, strides, dil, _padding(o["padding"]))
    factor = (scale * w_scale).astype(np.float32)
    out = acc.astype(np.float32) * factor.reshape((-1,) + (1,) * (acc.ndim - 1))
    return [_bias_act(out, op, ins)]


def _depthwise_conv_2d(op, ins):
    x, w = ins[0], ins[1]
    o = op.options
    chans = x.shape[-1]
    mult = w.shape[-1] // chans
    filt = w.reshape(w.shape[1], w.shape[2], chans, mult)
    out = kconv.depthwise(x, filt, (o["stride_h"], o["stride_w"]),
                          (o.get("dilation_h_factor", 1), o.get("dilation_w_factor", 1)),
                          _padding(o["padding"]))
    return [_bias_act(out, op, ins)]


def _fully_connected(op, ins):
    x, w = ins[0], ins[1]
    x2 = x.reshape(-1, w.shape[1])
    w, w_scale = _weights(w, op)
    if w_scale is None:
        return [_bias_act(np.matmul(x2, w.T), op, ins)]
    # hybrid: each row quantized to int8, integer dot products, scaled back to float32
    q, scale = _symmetric_quantize(x2)
    acc = np.matmul(q, w.T).astype(np.float32)
    out = np.zeros(acc.shape, np.float32)
    if len(ins) > 2 and ins[2] is not None:
        out += ins[2].astype(np.float32)
    out += acc * (scale * w_scale).astype(np.float32)[:, None]
    return [_activation(out, op.options.get("fused_activation_function", 0))]


def _dequantize(interp):
    def fn(op, ins):
        t = interp._model.tensors[op.inputs[0]]
        x = ins[0]
        if x.dtype.kind == "f":
            return [x.astype(np.float32)]
        scale = np.asarray(t.scale or [1.0], np.float32)
        zero = np.asarray(t.zero_point or [0], np.float64)
        return [((x.astype(np.float64) - zero) * scale).astype(np.float32)]
    return fn


def _pool(kind):
    def fn(op, ins):
        o = op.options
        k = (o["filter_height"], o["filter_width"])
        s = (o["stride_h"], o["stride_w"])
        pool = kconv.max_pool if kind == "max" else kconv.avg_pool
        out = pool(ins[0], k, s, _padding(o["padding"]))
        return [_activation(out, o.get("fused_activation_function", 0))]
    return fn


def _binary(f):
    def fn(op, ins):
        a, b = ins[0], ins[1]
        out = np.asarray(f(a, b)).astype(np.result_type(a.dtype, b.dtype), copy=False)
        return [_activation(out, op.options.get("fused_activation_function", 0))]
    return fn


def _unary(f):
    def fn(op, ins):
        return [np.asarray(f(ins[0])).astype(ins[0].dtype, copy=False)]
    return fn


def _softmax(op, ins):
    x = ins[0] * np.asarray(op.options.get("beta", 1.0), ins[0].dtype)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return [e / e.sum(axis=-1, keepdims=True)]


def _log_softmax(op, ins):
    x = ins[0]
    m = x - x.max(axis=-1, keepdims=True)
    return [m - np.log(np.exp(m).sum(axis=-1, keepdims=True))]


def _reshape(op, ins):
    if len(ins) > 1 and ins[1] is not None:
        shape = ins[1].astype(np.int64).reshape(-1).tolist()
    else:
        shape = op.options.get("new_shape", [])
    return [ins[0].reshape(shape)]


def _squeeze(op, ins):
    dims = op.options.get("squeeze_dims") or None
    return [np.squeeze(ins[0], axis=None if dims is None else tuple(dims))]


def _reduce(f):
    def fn(op, ins):
        axes = tuple(int(a) for a in np.asarray(ins[1]).reshape(-1))
        axes = tuple(a % ins[0].ndim for a in axes) if ins[0].ndim else ()
        out = f(ins[0], axis=axes, keepdims=bool(op.options.get("keep_dims", False)))
        return [np.asarray(out).astype(ins[0].dtype, copy=False)]
    return fn


def _concatenation(op, ins):
    out = np.concatenate(ins, axis=op.options.get("axis", 0))
    return [_activation(out, op.options.get("fused_activation_function", 0))]


def _pad(op, ins):
    value = ins[2].reshape(()) if len(ins) > 2 and ins[2] is not None else 0
    return [np.pad(ins[0], ins[1].astype(np.int64).tolist(), constant_values=value)]


def _mirror_pad(op, ins):
    mode = "reflect" if op.options.get("mode", 0) == 0 else "symmetric"
    return [np.pad(ins[0], ins[1].astype(np.int64).tolist(), mode=mode)]


def _strided_slice(op, ins):
    o = op.options
    x, begin, end, strides = ins[0], ins[1].tolist(), ins[2].tolist(), ins[3].tolist()
    index = []
    ellipsis = o.get("ellipsis_mask", 0)
    new_axis = o.get("new_axis_mask", 0)
    shrink = o.get("shrink_axis_mask", 0)
    begin_mask, end_mask = o.get("begin_mask", 0), o.get("end_mask", 0)
    for i in range(len(begin)):
        bit = 1 << i
        if ellipsis & bit:
            index.append(Ellipsis)
        elif new_axis & bit:
            index.append(np.newaxis)
        elif shrink & bit:
            index.append(int(begin[i]))
        else:
            index.append(slice(None if begin_mask & bit else int(begin[i]),
                               None if end_mask & bit else int(end[i]), int(strides[i])))
    return [np.array(x[tuple(index)])]


def _gather(op, ins):
    axis = op.options.get("axis", 0)
    return [np.take(ins[0], ins[1].astype(np.int64), axis=axis)]


def _gather_nd(op, ins):
    idx = ins[1].astype(np.int64)
    return [ins[0][tuple(np.moveaxis(idx, -1, 0))]]


def _arg(f):
    def fn(op, ins):
        axis = int(np.asarray(ins[1]).reshape(-1)[0])
        out_type = schema.NUMPY_TYPES[op.options.get("output_type", schema.INT64)]
        return [f(ins[0], axis=axis).astype(out_type)]
    return fn


def _cast(interp):
    def fn(op, ins):
        return [ins[0].astype(interp._dtype(op.outputs[0]))]
    return fn


def _pack(op, ins):
    return [np.stack(ins, axis=op.options.get("axis", 0))]


def _unpack(op, ins):
    axis = op.options.get("axis", 0)
    return [np.take(ins[0], i, axis=axis) for i in range(ins[0].shape[axis])]


def _split(op, ins):
    axis = int(np.asarray(ins[0]).reshape(()))
    return list(np.split(ins[1], op.options["num_splits"], axis=axis))


def _split_v(op, ins):
    sizes = ins[1].astype(np.int64).tolist()
    axis = int(np.asarray(ins[2]).reshape(()))
    if -1 in sizes:
        sizes[sizes.index(-1)] = ins[0].shape[axis] - (sum(sizes) + 1)
    return list(np.split(ins[0], np.cumsum(sizes)[:-1], axis=axis))


def _leaky_relu(op, ins):
    x = ins[0]
    return [np.where(x >= 0, x, x * np.asarray(op.options.get("alpha", 0.0), x.dtype))]


def _slice(op, ins):
    begin = ins[1].astype(np.int64).tolist()
    size = ins[2].astype(np.int64).tolist()
    index = tuple(slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return [np.array(ins[0][index])]


def _expand_dims(op, ins):
    return [np.expand_dims(ins[0], int(np.asarray(ins[1]).reshape(-1)[0]))]


def _fill(op, ins):
    return [np.full(ins[0].astype(np.int64).tolist(), ins[1].reshape(()))]


def _shape(interp):
    def fn(op, ins):
        return [np.asarray(ins[0].shape, interp._dtype(op.outputs[0]))]
    return fn


def _resize_nearest(op, ins):
    x = ins[0]
    h, w = ins[1].tolist()
    align = op.options.get("align_corners", False)
    def idx(n_in, n_out):
        if align and n_out > 1:
            scale = (n_in - 1) / (n_out - 1)
            return np.minimum(np.round(np.arange(n_out) * scale).astype(int), n_in - 1)
        return np.minimum(np.floor(np.arange(n_out) * (n_in / n_out)).astype(int), n_in - 1)
    return [x[:, idx(x.shape[1], h)][:, :, idx(x.shape[2], w)]]


def _resize_bilinear(op, ins):
    """TF 1.x's bilinear resize (corner-aligned or not; no half-pixel centers), in float32."""
    x = ins[0]
    h, w = (int(v) for v in ins[1].reshape(-1))
    align = op.options.get("align_corners", False)

    def axis(n_in, n_out):
        scale = np.float32((n_in - 1) / (n_out - 1) if align and n_out > 1 else n_in / n_out)
        pos = np.arange(n_out, dtype=np.float32) * scale
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, n_in - 1)
        return lo, hi, (pos - lo).astype(np.float32)

    y0, y1, fy = axis(x.shape[1], h)
    x0, x1, fx = axis(x.shape[2], w)
    top = x[:, y0][:, :, x0] + (x[:, y0][:, :, x1] - x[:, y0][:, :, x0]) * fx[:, None]
    bottom = x[:, y1][:, :, x0] + (x[:, y1][:, :, x1] - x[:, y1][:, :, x0]) * fx[:, None]
    return [(top + (bottom - top) * fy[:, None, None]).astype(x.dtype)]


def _transpose_conv(op, ins):
    sizes, w, x = ins[0], ins[1], ins[2]
    o = op.options
    filt = np.transpose(w, (1, 2, 0, 3))  # [O, H, W, I] -> [H, W, O, I]
    out = kconv.conv_backprop_input([int(d) for d in sizes.reshape(-1)], filt, x,
                                    (o["stride_h"], o["stride_w"]), (1, 1),
                                    _padding(o["padding"]))
    return [out.astype(x.dtype, copy=False)]


def _space_to_batch(op, ins):
    x = ins[0]
    block = [int(b) for b in ins[1].reshape(-1)]
    pads = ins[2].astype(np.int64).reshape(-1, 2).tolist()
    m = len(block)
    x = np.pad(x, [(0, 0)] + pads + [(0, 0)] * (x.ndim - 1 - m))
    n = x.shape[0]
    shape = [n]
    for d, b in enumerate(block):
        shape += [x.shape[1 + d] // b, b]
    rest = list(x.shape[1 + m:])
    x = x.reshape(shape + rest)
    # [N, h1, b1, h2, b2, ..., rest] -> [b1, b2, ..., N, h1, h2, ..., rest]
    perm = [2 + 2 * d for d in range(m)] + [0] + [1 + 2 * d for d in range(m)] + \
        list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    x = x.transpose(perm)
    return [x.reshape([n * int(np.prod(block))] + [shape[1 + 2 * d] for d in range(m)] + rest)]


def _batch_to_space(op, ins):
    x = ins[0]
    block = [int(b) for b in ins[1].reshape(-1)]
    crops = ins[2].astype(np.int64).reshape(-1, 2).tolist()
    m = len(block)
    n = x.shape[0] // int(np.prod(block))
    spatial = list(x.shape[1:1 + m])
    rest = list(x.shape[1 + m:])
    x = x.reshape(block + [n] + spatial + rest)
    # [b1, ..., N, h1, ..., rest] -> [N, h1, b1, h2, b2, ..., rest]
    perm = [m]
    for d in range(m):
        perm += [m + 1 + d, d]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = x.transpose(perm).reshape([n] + [h * b for h, b in zip(spatial, block)] + rest)
    index = tuple([slice(None)] + [slice(c0, x.shape[1 + d] - c1)
                                   for d, (c0, c1) in enumerate(crops)])
    return [np.array(x[index])]


def _lrn(op, ins):
    x = ins[0]
    o = op.options
    r = o.get("radius", 0)
    sq = np.pad(x * x, [(0, 0)] * (x.ndim - 1) + [(r, r)])
    total = np.zeros_like(x)
    for i in range(2 * r + 1):
        total += sq[..., i:i + x.shape[-1]]
    denom = np.power(np.float32(o.get("bias", 0.0)) + np.float32(o.get("alpha", 0.0)) * total,
                     np.float32(o.get("beta", 0.0)))
    return [(x / denom).astype(x.dtype)]


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


_KERNELS = {
    "CONV_2D": _conv_2d,
    "DEPTHWISE_CONV_2D": _depthwise_conv_2d,
    "FULLY_CONNECTED": _fully_connected,
    "MAX_POOL_2D": _pool("max"),
    "AVERAGE_POOL_2D": _pool("avg"),
    "ADD": _binary(np.add),
    "SUB": _binary(np.subtract),
    "MUL": _binary(np.multiply),
    "DIV": _binary(lambda a, b: a / b if a.dtype.kind == "f" else a // b),
    "FLOOR_DIV": _binary(np.floor_divide),
    "FLOOR_MOD": _binary(np.mod),
    "POW": _binary(np.power),
    "SQUARED_DIFFERENCE": _binary(lambda a, b: (a - b) * (a - b)),
    "MAXIMUM": _binary(np.maximum),
    "MINIMUM": _binary(np.minimum),
    "LESS": lambda op, ins: [ins[0] < ins[1]],
    "LESS_EQUAL": lambda op, ins: [ins[0] <= ins[1]],
    "GREATER": lambda op, ins: [ins[0] > ins[1]],
    "GREATER_EQUAL": lambda op, ins: [ins[0] >= ins[1]],
    "EQUAL": lambda op, ins: [ins[0] == ins[1]],
    "NOT_EQUAL": lambda op, ins: [ins[0] != ins[1]],
    "LOGICAL_AND": lambda op, ins: [np.logical_and(ins[0], ins[1])],
    "LOGICAL_OR": lambda op, ins: [np.logical_or(ins[0], ins[1])],
    "LOGICAL_NOT": lambda op, ins: [np.logical_not(ins[0])],
    "SELECT": lambda op, ins: [np.where(ins[0] if ins[0].ndim == ins[1].ndim else
                                        ins[0].reshape((-1,) + (1,) * (ins[1].ndim - 1)),
                                        ins[1], ins[2])],
    "RESHAPE": _reshape,
    "SQUEEZE": _squeeze,
    "EXPAND_DIMS": _expand_dims,
    "SOFTMAX": _softmax,
    "LOG_SOFTMAX": _log_softmax,
    "LOGISTIC": _unary(_sigmoid),
    "TANH": _unary(np.tanh),
    "RELU": _unary(lambda x: np.maximum(x, 0)),
    "RELU6": _unary(lambda x: np.clip(x, 0, 6)),
    "RELU_N1_TO_1": _unary(lambda x: np.clip(x, -1, 1)),
    "LEAKY_RELU": _leaky_relu,
    "ELU": _unary(lambda x: np.where(x > 0, x, np.expm1(x))),
    "EXP": _unary(np.exp),
    "LOG": _unary(np.log),
    "SQRT": _unary(np.sqrt),
    "RSQRT": _unary(lambda x: 1 / np.sqrt(x)),
    "SQUARE": _unary(np.square),
    "NEG": _unary(np.negative),
    "ABS": _unary(np.abs),
    "SIN": _unary(np.sin),
    "COS": _unary(np.cos),
    "FLOOR": _unary(np.floor),
    "CEIL": _unary(np.ceil),
    "ROUND": _unary(lambda x: np.round(x)),
    "ZEROS_LIKE": _unary(np.zeros_like),
    "MEAN": _reduce(np.mean),
    "SUM": _reduce(np.sum),
    "REDUCE_MAX": _reduce(np.max),
    "REDUCE_MIN": _reduce(np.min),
    "REDUCE_PROD": _reduce(np.prod),
    "REDUCE_ANY": _reduce(np.any),
    "CONCATENATION": _concatenation,
    "PAD": _pad,
    "PADV2": _pad,
    "MIRROR_PAD": _mirror_pad,
    "TRANSPOSE": lambda op, ins: [np.transpose(ins[0], ins[1].astype(np.int64).tolist())],
    "STRIDED_SLICE": _strided_slice,
    "SLICE": _slice,
    "GATHER": _gather,
    "GATHER_ND": _gather_nd,
    "ARG_MAX": _arg(np.argmax),
    "ARG_MIN": _arg(np.argmin),
    "PACK": _pack,
    "UNPACK": _unpack,
    "SPLIT": _split,
    "SPLIT_V": _split_v,
    "TILE": lambda op, ins: [np.tile(ins[0], ins[1].astype(np.int64).tolist())],
    "FILL": _fill,
    "RANGE": lambda op, ins: [np.arange(ins[0].reshape(()), ins[1].reshape(()),
                                        ins[2].reshape(())).astype(ins[0].dtype)],
    "REVERSE_V2": lambda op, ins: [np.flip(ins[0], tuple(ins[1].astype(np.int64).tolist()))],
    "ADD_N": lambda op, ins: [np.sum(np.stack(ins), axis=0).astype(ins[0].dtype)],
    "RESIZE_NEAREST_NEIGHBOR": _resize_nearest,
    "RESIZE_BILINEAR": _resize_bilinear,
    "SPACE_TO_BATCH_ND": _space_to_batch,
    "BATCH_TO_SPACE_ND": _batch_to_space,
    "LOCAL_RESPONSE_NORMALIZATION": _lrn,
    "TRANSPOSE_CONV": _transpose_conv,
    "CAST": None,  # (these need the interpreter's tensors: invoke() binds them)
    "SHAPE": None,
    "DEQUANTIZE": None,
    "L2_NORMALIZATION": lambda op, ins: [_activation(
        ins[0] / np.sqrt(np.maximum((ins[0] * ins[0]).sum(-1, keepdims=True),
                                    np.float32(1e-6))), op.options.get(
            "fused_activation_function", 0))],
}


# ops whose kernels here compute in float only (a quantized activation would need TFLite's
# fixed-point kernels)
_FLOAT_ONLY = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "ADD", "SUB", "MUL", "DIV",
               "AVERAGE_POOL_2D", "MAX_POOL_2D", "SOFTMAX", "LOG_SOFTMAX", "LOGISTIC", "TANH",
               "CONCATENATION", "MEAN", "SUM", "RELU", "RELU6", "L2_NORMALIZATION",
               "RESIZE_BILINEAR", "MAXIMUM", "MINIMUM", "SQUARED_DIFFERENCE"}


class Interpreter:
    """Interpreter interface for TensorFlow Lite models (``tf.lite.Interpreter``).

    Args:
      model_path: path of the ``.tflite`` file.
      model_content: the model's bytes.
      experimental_delegates: accepted and ignored (no delegate runs here).
    """

    def __init__(self, model_path=None, model_content=None, experimental_delegates=None):
        if model_path and not model_content:
            try:
                with open(os.fspath(model_path), "rb") as f:
                    data = f.read()
            except OSError:
                raise ValueError(f"Could not open '{model_path}'.") from None
        elif model_content and not model_path:
            data = bytes(model_content)
        elif not model_path and not model_content:
            raise ValueError("`model_path` or `model_content` must be specified.")
        else:
            raise ValueError("Can't both provide `model_path` and `model_content`")
        if len(data) >= 8 and data[4:8] != schema.FILE_IDENTIFIER.encode():
            ident = data[4:8].decode("latin-1")
            raise ValueError(f"Model provided has model identifier '{ident}', should be "
                             f"'{schema.FILE_IDENTIFIER}'\n")
        self._model = read_model(data)
        m = self._model
        for op in m.operators:
            if op.op not in _KERNELS:
                name = op.custom_code if op.op == "CUSTOM" else op.op
                raise ValueError(f"Didn't find op for builtin opcode '{name}' version "
                                 f"'{op.version}'\nRegistration failed.\n")
        self._shapes = [list(t.shape) for t in m.tensors]
        self._values = [None] * len(m.tensors)
        self._const = {}
        for i, t in enumerate(m.tensors):
            data = m.buffers[t.buffer] if t.buffer < len(m.buffers) else b""
            if data:
                arr = np.frombuffer(data, self._dtype(i)).reshape(t.shape)
                self._const[i] = arr
        for op in m.operators:
            if op.op in _FLOAT_ONLY and op.inputs and op.inputs[0] >= 0:
                t = m.tensors[op.inputs[0]]
                if t.type in (schema.UINT8, schema.INT8, schema.INT16) and t.scale:
                    raise ValueError(
                        f"tideflow's Interpreter runs float32 models: input '{t.name}' of "
                        f"{op.op} is a quantized {schema.TENSOR_TYPE_NAMES[t.type]} tensor "
                        "(quantized kernels are not implemented)")
            if op.op in ("CONV_2D", "FULLY_CONNECTED") and len(op.inputs) > 1:
                t = m.tensors[op.inputs[1]]
                if t.scale:
                    op._weights_quant = (t.scale[0], t.zero_point[0] if t.zero_point else 0)
        self._ready = False
        self._delegates = experimental_delegates

    # -- helpers -------------------------------------------------------------------------

    def _dtype(self, index):
        return np.dtype(schema.NUMPY_TYPES[self._model.tensors[index].type])

    def _check_index(self, index):
        n = len(self._model.tensors)
        if not 0 <= int(index) < n:
            raise ValueError(f"Invalid tensor index {index} exceeds max tensor index {n - 1}")
        return int(index)

    def _get_tensor_details(self, tensor_index):
        tensor_index = self._check_index(tensor_index)
        t = self._model.tensors[tensor_index]
        scale = float(t.scale[0]) if t.scale else 0.0
        zero = int(t.zero_point[0]) if t.zero_point else 0
        return {
            "name": t.name,
            "index": tensor_index,
            "shape": np.array(self._shapes[tensor_index], np.int32),
            "dtype": schema.NUMPY_TYPES[t.type],
            "quantization": (scale, zero),
        }

    # -- the public interface --------------------------------------------------------------

    def allocate_tensors(self):
        for i in range(len(self._values)):
            if i in self._const:
                self._values[i] = self._const[i]
        for i in self._model.inputs:
            shape = self._shapes[i]
            cur = self._values[i]
            if cur is None or list(cur.shape) != shape:
                self._values[i] = np.zeros(shape, self._dtype(i))
        self._ready = True

    def get_input_details(self):
        return [self._get_tensor_details(i) for i in self._model.inputs]

    def get_output_details(self):
        return [self._get_tensor_details(i) for i in self._model.outputs]

    def get_tensor_details(self):
        return [self._get_tensor_details(i) for i in range(len(self._model.tensors))]

    def set_tensor(self, tensor_index, value):
        tensor_index = self._check_index(tensor_index)
        value = np.asarray(value)
        expected = self._dtype(tensor_index)
        name = self._model.tensors[tensor_index].name
        if value.dtype != expected:
            raise ValueError(f"Cannot set tensor: Got tensor of type {_type_name(value.dtype)} "
                             f"but expected type {_type_name(expected)} for input "
                             f"{tensor_index}, name: {name} ")
        shape = self._shapes[tensor_index]
        if value.ndim != len(shape):
            raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {value.ndim} but "
                             f"expected {len(shape)} for input {tensor_index}.")
        for d, (got, want) in enumerate(zip(value.shape, shape)):
            if got != want:
                raise ValueError(f"Cannot set tensor: Dimension mismatch. Got {got} but "
                                 f"expected {want} for dimension {d} of input "
                                 f"{tensor_index}.")
        if not self._ready:
            raise ValueError("Tensor data is null. Run allocate_tensors() first")
        self._values[tensor_index] = np.array(value, expected)

    def resize_tensor_input(self, input_index, tensor_size):
        input_index = self._check_index(input_index)
        self._shapes[input_index] = [int(d) for d in np.asarray(tensor_size).reshape(-1)]
        self._ready = False

    def get_tensor(self, tensor_index):
        tensor_index = self._check_index(tensor_index)
        value = self._values[tensor_index]
        if value is None:
            raise ValueError("Tensor data is null.")
        return np.array(value)

    def tensor(self, tensor_index):
        tensor_index = self._check_index(tensor_index)
        return lambda: self._values[tensor_index]

    def invoke(self):
        if not self._ready:
            raise RuntimeError("Invoke called on model that is not ready.")
        values = self._values
        for op in self._model.operators:
            ins = [None if i < 0 else values[i] for i in op.inputs]
            if op.op == "CAST":
                outs = _cast(self)(op, ins)
            elif op.op == "DEQUANTIZE":
                outs = _dequantize(self)(op, ins)
            elif op.op == "SHAPE":
                outs = _shape(self)(op, ins)
            else:
                outs = _KERNELS[op.op](op, ins)
            for j, out in zip(op.outputs, outs):
                out = np.asarray(out)
                want = self._dtype(j)
                if out.dtype != want:
                    out = out.astype(want)
                values[j] = out
                self._shapes[j] = list(out.shape)

    def reset_all_variables(self):
        for i, t in enumerate(self._model.tensors):
            if t.is_variable:
                self._values[i] = np.zeros(self._shapes[i], self._dtype(i))
