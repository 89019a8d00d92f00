"""GraphDef -> TFLite flatbuffer: the conversion ``TFLiteConverter.convert()`` runs.

The graph (frozen: no variables) is imported into a fresh tideflow graph with the inputs'
shapes fixed, so that every tensor has a static shape. Tensors that do not depend on an input
are constant-folded (evaluated once in a session, ``Shape`` of a fully known shape included).
The remaining ops are lowered one by one to TFLite builtins, with the rewrites TF's TOCO
converter makes for common graphs: Identity ops disappear; MatMul becomes FULLY_CONNECTED with
its weights transposed to [out, in]; Conv2D filters go from HWIO to OHWI, depthwise ones to
[1, H, W, C * M]; a following BiasAdd / Add of a [C] constant becomes the op's bias and a
following Relu / Relu6 its fused activation (also for ADD, SUB, MUL and DIV); ExpandDims and
Squeeze become RESHAPE, and a Reshape whose only consumers are FULLY_CONNECTED ops (which
flatten their input anyway) is dropped. Tensors are named after the TF tensors (fused ones after
the last TF op they stand for) and sorted by name, as TOCO does; a fused op's bias tensor is
``<op name>_bias``. Anything else raises :class:`ConverterError` listing the unsupported TF ops,
or, with ``allow_custom_ops``, becomes a CUSTOM op of that name.
"""

import numpy as np

from tideflow.lite import schema
from tideflow.lite.model import Model, OperatorInfo, TensorInfo, write_model


class ConverterError(Exception):
    """Raised when an error occurs during model conversion."""


_SUPPORT_NOTE = (
    "We are continually in the process of adding support to TensorFlow Lite for more ops. "
    "It would be helpful if you could inform us of how this conversion went by opening a "
    "github issue at https://github.com/tensorflow/tensorflow/issues/new?template="
    "40-tflite-op-request.md\n and pasting the following:\n\n"
)

_PASSTHROUGH = {"Identity", "StopGradient", "Snapshot", "PreventGradient", "CheckNumerics",
                "IdentityN", "EnsureShape", "PlaceholderWithDefault"}
_STATEFUL = {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt",
             "Multinomial", "RandomShuffle", "RandomGamma", "RandomPoisson", "RandomPoissonV2",
             "Placeholder", "VariableV2", "Variable", "VarHandleOp", "ReadVariableOp",
             "QueueDequeue", "QueueDequeueV2", "IteratorGetNext", "PyFunc", "PyFuncStateless",
             "EagerPyFunc"}

_UNARY = {"Relu": "RELU", "Relu6": "RELU6", "Tanh": "TANH", "Sigmoid": "LOGISTIC",
          "Exp": "EXP", "Log": "LOG", "Sqrt": "SQRT", "Rsqrt": "RSQRT", "Neg": "NEG",
          "Square": "SQUARE", "Abs": "ABS", "Sin": "SIN", "Cos": "COS", "Floor": "FLOOR",
          "Ceil": "CEIL", "Round": "ROUND", "Elu": "ELU", "LogicalNot": "LOGICAL_NOT",
          "ZerosLike": "ZEROS_LIKE"}
_BINARY = {"Maximum": "MAXIMUM", "Minimum": "MINIMUM", "Pow": "POW",
           "SquaredDifference": "SQUARED_DIFFERENCE", "FloorDiv": "FLOOR_DIV",
           "FloorMod": "FLOOR_MOD", "Less": "LESS", "LessEqual": "LESS_EQUAL",
           "Greater": "GREATER", "GreaterEqual": "GREATER_EQUAL", "Equal": "EQUAL",
           "NotEqual": "NOT_EQUAL", "LogicalAnd": "LOGICAL_AND", "LogicalOr": "LOGICAL_OR"}
_ARITH = {"Add": ("ADD", "AddOptions"), "AddV2": ("ADD", "AddOptions"),
          "BiasAdd": ("ADD", "AddOptions"), "Sub": ("SUB", "SubOptions"),
          "Mul": ("MUL", "MulOptions"), "RealDiv": ("DIV", "DivOptions"),
          "Div": ("DIV", "DivOptions")}
_OPTIONS_FOR = {"MAXIMUM": "MaximumMinimumOptions", "MINIMUM": "MaximumMinimumOptions",
                "POW": "PowOptions", "SQUARED_DIFFERENCE": "SquaredDifferenceOptions",
                "FLOOR_DIV": "FloorDivOptions", "FLOOR_MOD": "FloorModOptions",
                "LESS": "LessOptions", "LESS_EQUAL": "LessEqualOptions",
                "GREATER": "GreaterOptions", "GREATER_EQUAL": "GreaterEqualOptions",
                "EQUAL": "EqualOptions", "NOT_EQUAL": "NotEqualOptions",
                "LOGICAL_AND": "LogicalAndOptions", "LOGICAL_OR": "LogicalOrOptions",
                "LOGICAL_NOT": "LogicalNotOptions", "EXP": "ExpOptions", "NEG": "NegOptions",
                "SQUARE": "SquareOptions", "ABS": "AbsOptions", "COS": "CosOptions",
                "ZEROS_LIKE": "ZerosLikeOptions"}
_REDUCERS = {"Mean": "MEAN", "Sum": "SUM", "Max": "REDUCE_MAX", "Min": "REDUCE_MIN",
             "Prod": "REDUCE_PROD", "Any": "REDUCE_ANY"}
_BATCH_NORMS = {"FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3"}
_ACTIVATIONS = {"Relu": schema.ACT_RELU, "Relu6": schema.ACT_RELU6}


def _tflite_type(dtype, what):
    np_dtype = np.dtype(dtype.as_numpy_dtype) if dtype.name != "string" else None
    if np_dtype is None:
        return schema.STRING
    code = schema.TENSOR_TYPES.get(np_dtype)
    if code is None:
        raise ConverterError(f"See console for info.\nUnsupported data type {dtype.name} "
                             f"of tensor '{what}' in TFLite.\n")
    return code


class _Tensor:
    __slots__ = ("data", "dtype", "name", "scale", "shape")

    def __init__(self, name, shape, dtype, data=None):
        self.name, self.shape, self.dtype, self.data = name, list(shape), dtype, data
        self.scale = None


# the smallest weights TFLite's post-training weight quantization quantizes
_QUANTIZE_MIN_ELEMENTS = 1024


def _quantize_weights(lowering):
    """Post-training (hybrid) weight quantization as TF 1.15 does it: float32 weights of
    FULLY_CONNECTED / CONV_2D / DEPTHWISE_CONV_2D with at least 1024 elements become int8
    with one symmetric scale (max |w| / 127, zero point 0). FULLY_CONNECTED (version 3) and
    CONV_2D (version 2) run them as hybrid ops; a DEPTHWISE_CONV_2D reads them through a
    DEQUANTIZE op (version 2) into ``<weights>_dequantize``. Returns ({id(op): version},
    [the dequantized tensors, which go after the sorted ones])."""
    from tideflow.lite.python.interpreter import _symmetric_quantize

    versions, late, ops = {}, [], []
    for op in lowering.ops:
        if op[0] in ("FULLY_CONNECTED", "CONV_2D", "DEPTHWISE_CONV_2D") and len(op[1]) > 1:
            key = op[1][1]
            t = lowering.tensors[key]
            if t.scale is None and t.data is not None and np.dtype(t.dtype) == np.float32 \
                    and t.data.size >= _QUANTIZE_MIN_ELEMENTS:
                q, scale = _symmetric_quantize(np.asarray(t.data).reshape(1, -1))
                t.data = q.reshape(t.data.shape).astype(np.int8)
                t.dtype = np.dtype(np.int8)
                t.scale = float(scale[0])
            if t.scale is not None:
                if op[0] == "DEPTHWISE_CONV_2D":
                    dq = key + "_dequantize"
                    if dq not in lowering.tensors:
                        lowering.tensors[dq] = _Tensor(dq, t.shape, np.dtype(np.float32))
                        late.append(dq)
                    deq = ["DEQUANTIZE", [key], [dq], {}, None]
                    versions[id(deq)] = 2
                    ops.append(deq)
                    op[1][1] = dq
                else:
                    versions[id(op)] = 3 if op[0] == "FULLY_CONNECTED" else 2
        ops.append(op)
    lowering.ops = ops
    return versions, late


class _Lowering:
    def __init__(self, graph, input_tensors, output_tensors, values, const_ops,
                 allow_custom_ops):
        self.const_ops = const_ops
        self.ops_to_lower = []
        self._shapes = None
        self.graph = graph
        self.inputs = input_tensors
        self.outputs = output_tensors
        self.values = values  # tf tensor name -> constant numpy value
        self.allow_custom_ops = allow_custom_ops
        self.tensors = {}  # key -> _Tensor
        self.alias = {}  # tf tensor name -> key
        self.ops = []  # [op, inputs(keys), outputs(keys), options, options_name]
        self.absorbed = set()  # tf op names folded into an earlier TFLite op
        self.unsupported = []
        self.custom = []
        self.consumers = {}
        for op in graph.get_operations():
            for t in op.inputs:
                self.consumers.setdefault(t.name, []).append(op)
        self.output_names = {t.name for t in output_tensors}

    # -- tensors ---------------------------------------------------------------------------

    @staticmethod
    def _display(tf_name):
        return tf_name.removesuffix(":0")

    def tensor_of(self, t):
        """The key of the TFLite tensor that holds TF tensor ``t``."""
        if t.name in self.alias:
            return self.alias[t.name]
        if t.name in self.values:
            return self.const(self.const_name(t), self.values[t.name])
        raise ConverterError(f"See console for info.\nArray {t.name} is used before being "
                             "produced by any op.\n")

    def const_name(self, t):
        """The name of constant ``t``: its source's, through any Identity ops (as TOCO, which
        removes them first)."""
        while t.op.type in _PASSTHROUGH and t.op.inputs and \
                t.op.inputs[0].op.name in self.const_ops:
            t = t.op.inputs[0]
        return self._display(t.name)

    def const(self, name, value, dtype=None):
        value = np.asarray(value)
        if dtype is not None:
            value = value.astype(dtype)
        key = name
        if key in self.tensors:
            existing = self.tensors[key]
            if existing.data is not None and existing.data.shape == value.shape and \
                    existing.data.dtype == value.dtype and np.array_equal(existing.data, value):
                return key
            i = 1
            while f"{name}_{i}" in self.tensors:
                i += 1
            key = f"{name}_{i}"
        if value.dtype == np.float64:
            value = value.astype(np.float32)
        self.tensors[key] = _Tensor(key, value.shape, value.dtype, value)
        return key

    def produce(self, t, name=None):
        """A new TFLite tensor for TF tensor ``t`` (named as ``name`` when given)."""
        key = name or self._display(t.name)
        self.tensors[key] = _Tensor(key, self.shape_of(t), np.dtype(t.dtype.as_numpy_dtype)
                                    if t.dtype.name != "string" else np.dtype(object))
        self.alias[t.name] = key
        return key

    def shape_of(self, t):
        shape = t.shape
        if shape.dims is not None and shape.is_fully_defined():
            return [int(d) for d in shape.as_list()]
        # the inputs' shapes are fixed: a shape the graph does not state statically is the
        # one the tensor takes when the graph runs (on zeros)
        runtime = self._runtime_shapes().get(t.name)
        if runtime is None:
            raise ConverterError(f"See console for info.\nCheck failed: the shape of array "
                                 f"{t.name} could not be resolved ({shape}).\n")
        return list(runtime)

    def _runtime_shapes(self):
        if self._shapes is None:
            from tideflow.runtime.session import Session

            self._shapes = {}
            fetch = [o for op in self.ops_to_lower for o in op.outputs]
            feed = {t: np.zeros(self.shape_of(t), t.dtype.as_numpy_dtype) for t in self.inputs}
            try:
                with Session(graph=self.graph) as sess:
                    values = sess.run(fetch, feed_dict=feed)
            except Exception:  # noqa: BLE001 - (then the shapes stay unresolved)
                return self._shapes
            self._shapes = {t.name: np.shape(v) for t, v in zip(fetch, values)}
        return self._shapes

    def emit(self, op, inputs, outputs, options=None, options_name=None):
        self.ops.append([op, list(inputs), list(outputs), dict(options or {}), options_name])
        return self.ops[-1]

    # -- fusion ----------------------------------------------------------------------------

    def _sole_consumer(self, t):
        if t.name in self.output_names:
            return None
        users = self.consumers.get(t.name, [])
        if len(users) != 1:
            return None
        return users[0]

    def fuse_bias(self, out, bias_key, channels):
        """Absorbs a following BiasAdd / Add of a [channels] constant into ``bias_key``."""
        user = self._sole_consumer(out)
        if user is None or user.type not in ("BiasAdd", "Add", "AddV2"):
            return out
        other = [t for t in user.inputs if t.name != out.name]
        if len(other) != 1 or other[0].name not in self.values:
            return out
        value = np.asarray(self.values[other[0].name])
        if value.size != channels or (value.ndim and value.shape[-1] != channels):
            return out
        bias = self.tensors[bias_key]
        bias.data = (bias.data + value.reshape(-1).astype(bias.data.dtype)).astype(
            bias.data.dtype)
        self.absorbed.add(user.name)
        return user.outputs[0]

    def batch_norm_factors(self, op):
        """(mul, add) of an inference FusedBatchNorm whose parameters are constants, else
        None: y = x * mul + add."""
        if op.type not in _BATCH_NORMS or op.get_attr("is_training"):
            return None
        fmt = op.get_attr("data_format")
        if (fmt.decode() if isinstance(fmt, bytes) else fmt) != "NHWC":
            return None
        if not all(t.name in self.values for t in op.inputs[1:5]):
            return None
        scale, offset, mean, var = (np.asarray(self.values[t.name], np.float64)
                                    for t in op.inputs[1:5])
        mul = scale / np.sqrt(var + float(op.get_attr("epsilon")))
        return mul, offset - mean * mul

    def fuse_batch_norm(self, out, w_key, bias_key, axis):
        """Folds a following inference batch norm into the weights and bias of the op."""
        user = self._sole_consumer(out)
        if user is None or user.inputs[0].name != out.name:
            return out
        factors = self.batch_norm_factors(user)
        if factors is None:
            return out
        mul, add = factors
        w = self.tensors[w_key]
        if any(w_key in o[1] for o in self.ops):  # (weights another op reads stay as they are)
            return out
        shape = [1] * w.data.ndim
        shape[axis] = -1
        w.data = (w.data * mul.reshape(shape)).astype(w.data.dtype)
        b = self.tensors[bias_key]
        b.data = (b.data * mul + add).astype(b.data.dtype)
        self.absorbed.add(user.name)
        return user.outputs[0]

    def fuse_activation(self, out):
        user = self._sole_consumer(out)
        if user is None or user.type not in _ACTIVATIONS:
            return out, schema.ACT_NONE
        self.absorbed.add(user.name)
        return user.outputs[0], _ACTIVATIONS[user.type]

    # -- ops -------------------------------------------------------------------------------

    def lower(self, op):
        kind = op.type
        out = op.outputs[0] if op.outputs else None
        if kind in _PASSTHROUGH:
            for i, o in enumerate(op.outputs):
                self.alias[o.name] = self.tensor_of(op.inputs[min(i, len(op.inputs) - 1)])
            return
        if kind == "MatMul":
            return self.fully_connected(op)
        if kind in ("Conv2D", "DepthwiseConv2dNative"):
            return self.conv(op)
        if kind in ("MaxPool", "AvgPool"):
            return self.pool(op)
        if kind in _ARITH:
            name, opt = _ARITH[kind]
            a, b = (self.tensor_of(t) for t in op.inputs[:2])
            end, act = self.fuse_activation(out)
            key = self.produce(end)
            self.emit(name, [a, b], [key], {"fused_activation_function": act}, opt)
            return
        if kind in _UNARY:
            name = _UNARY[kind]
            self.emit(name, [self.tensor_of(op.inputs[0])], [self.produce(out)], {},
                      _OPTIONS_FOR.get(name))
            return
        if kind in _BATCH_NORMS:
            factors = self.batch_norm_factors(op)
            if factors is None:
                return self.unsupported_op(op)
            mul, add = factors
            dt = np.dtype(out.dtype.as_numpy_dtype)
            scaled = op.name + "_mul"
            self.tensors[scaled] = _Tensor(scaled, self.shape_of(out), dt)
            self.emit("MUL", [self.tensor_of(op.inputs[0]),
                              self.const(op.name + "_mul_factor", mul.astype(dt))],
                      [scaled], {"fused_activation_function": 0}, "MulOptions")
            end, act = self.fuse_activation(out)
            self.emit("ADD", [scaled, self.const(op.name + "_add_term", add.astype(dt))],
                      [self.produce(end)], {"fused_activation_function": act}, "AddOptions")
            return
        if kind == "LeakyRelu":
            self.emit("LEAKY_RELU", [self.tensor_of(op.inputs[0])], [self.produce(out)],
                      {"alpha": float(op.get_attr("alpha"))}, "LeakyReluOptions")
            return
        if kind in _BINARY:
            name = _BINARY[kind]
            self.emit(name, [self.tensor_of(t) for t in op.inputs[:2]], [self.produce(out)],
                      {}, _OPTIONS_FOR.get(name))
            return
        if kind in ("Softmax", "LogSoftmax"):
            if kind == "Softmax":
                self.emit("SOFTMAX", [self.tensor_of(op.inputs[0])], [self.produce(out)],
                          {"beta": 1.0}, "SoftmaxOptions")
            else:
                self.emit("LOG_SOFTMAX", [self.tensor_of(op.inputs[0])], [self.produce(out)],
                          {}, "LogSoftmaxOptions")
            return
        if kind in ("Reshape", "ExpandDims", "Squeeze"):
            shape = self.shape_of(out)
            shape_key = self.const(
                self.const_name(op.inputs[1]) if kind != "Squeeze" else op.name + "_shape",
                np.asarray(shape, np.int32))
            self.emit("RESHAPE", [self.tensor_of(op.inputs[0]), shape_key], [self.produce(out)],
                      {"new_shape": shape}, "ReshapeOptions")
            return
        if kind in _REDUCERS:
            x = self.tensor_of(op.inputs[0])
            axes = np.asarray(self.const_value(op.inputs[1]), np.int32)  # (its own shape, as TOCO)
            axes_key = self.const(self.const_name(op.inputs[1]), axes)
            self.emit(_REDUCERS[kind], [x, axes_key], [self.produce(out)],
                      {"keep_dims": bool(op.get_attr("keep_dims"))}, "ReducerOptions")
            return
        if kind in ("ConcatV2", "Concat"):
            parts = op.inputs[:-1] if kind == "ConcatV2" else op.inputs[1:]
            axis_t = op.inputs[-1] if kind == "ConcatV2" else op.inputs[0]
            axis = int(np.asarray(self.const_value(axis_t)).reshape(()))
            if axis < 0:
                axis += len(self.shape_of(out))
            # (no fused activation: TF 1.15's CONCATENATION kernel refuses one)
            self.emit("CONCATENATION", [self.tensor_of(t) for t in parts], [self.produce(out)],
                      {"axis": axis, "fused_activation_function": 0}, "ConcatenationOptions")
            return
        if kind in ("Pad", "PadV2", "MirrorPad"):
            ins = [self.tensor_of(op.inputs[0]),
                   self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))]
            if kind == "PadV2":
                ins.append(self.tensor_of(op.inputs[2]))
                self.emit("PADV2", ins, [self.produce(out)], {}, "PadV2Options")
            elif kind == "MirrorPad":
                mode = op.get_attr("mode")
                mode = mode.decode() if isinstance(mode, bytes) else mode
                self.emit("MIRROR_PAD", ins, [self.produce(out)],
                          {"mode": 0 if mode.upper() == "REFLECT" else 1}, "MirrorPadOptions")
            else:
                self.emit("PAD", ins, [self.produce(out)], {}, "PadOptions")
            return
        if kind == "Transpose":
            perm = self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))
            self.emit("TRANSPOSE", [self.tensor_of(op.inputs[0]), perm], [self.produce(out)],
                      {}, "TransposeOptions")
            return
        if kind == "StridedSlice":
            opts = {k: int(op.get_attr(k)) for k in ("begin_mask", "end_mask", "ellipsis_mask",
                                                      "new_axis_mask", "shrink_axis_mask")}
            specs = [np.asarray(self.const_value(t)).astype(np.int32).reshape(-1)
                     for t in op.inputs[1:4]]
            names = [self.const_name(t) for t in op.inputs[1:4]]
            new_axes = opts["new_axis_mask"]
            if new_axes and not opts["ellipsis_mask"]:
                # TFLite's STRIDED_SLICE has no new_axis_mask: slice without the new axes,
                # then RESHAPE them in
                keep = [i for i in range(len(specs[0])) if not new_axes >> i & 1]

                def squeeze_mask(mask):
                    return sum(1 << j for j, i in enumerate(keep) if mask >> i & 1)

                specs = [v[keep] for v in specs]
                names = [n + "_no_new_axis" for n in names]
                opts = {"begin_mask": squeeze_mask(opts["begin_mask"]),
                        "end_mask": squeeze_mask(opts["end_mask"]), "ellipsis_mask": 0,
                        "new_axis_mask": 0,
                        "shrink_axis_mask": squeeze_mask(opts["shrink_axis_mask"])}
                # the dimensions the spec leaves out are taken whole
                rank = len(self.shape_of(op.inputs[0]))
                for i in range(len(keep), rank):
                    specs = [np.append(specs[0], 0), np.append(specs[1], 0),
                             np.append(specs[2], 1)]
                    opts["begin_mask"] |= 1 << i
                    opts["end_mask"] |= 1 << i
                specs = [v.astype(np.int32) for v in specs]
                shape = self.shape_of(out)
                sliced = op.name + "_sliced"
                self.tensors[sliced] = _Tensor(
                    sliced, [d for i, d in enumerate(shape) if i not in self._new_axis_dims(
                        op, new_axes)], np.dtype(out.dtype.as_numpy_dtype))
                ins = [self.tensor_of(op.inputs[0])] + [self.const(n, v)
                                                        for n, v in zip(names, specs)]
                self.emit("STRIDED_SLICE", ins, [sliced], opts, "StridedSliceOptions")
                shape_key = self.const(op.name + "_shape", np.asarray(shape, np.int32))
                self.emit("RESHAPE", [sliced, shape_key], [self.produce(out)],
                          {"new_shape": shape}, "ReshapeOptions")
                return
            ins = [self.tensor_of(op.inputs[0])] + [self.const(n, v)
                                                    for n, v in zip(names, specs)]
            self.emit("STRIDED_SLICE", ins, [self.produce(out)], opts, "StridedSliceOptions")
            return
        if kind == "Slice":
            ins = [self.tensor_of(op.inputs[0])] + [
                self.const(self.const_name(t),
                           np.asarray(self.const_value(t)).astype(np.int32))
                for t in op.inputs[1:3]]
            self.emit("SLICE", ins, [self.produce(out)], {}, "SliceOptions")
            return
        if kind in ("GatherV2", "Gather"):
            axis = 0 if kind == "Gather" else int(
                np.asarray(self.const_value(op.inputs[2])).reshape(()))
            if axis < 0:
                axis += len(op.inputs[0].shape)
            self.emit("GATHER", [self.tensor_of(op.inputs[0]), self.tensor_of(op.inputs[1])],
                      [self.produce(out)], {"axis": axis}, "GatherOptions")
            return
        if kind == "GatherNd":
            self.emit("GATHER_ND", [self.tensor_of(t) for t in op.inputs[:2]],
                      [self.produce(out)], {}, "GatherNdOptions")
            return
        if kind in ("ArgMax", "ArgMin"):
            axis = self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))
            name = "ARG_MAX" if kind == "ArgMax" else "ARG_MIN"
            self.emit(name, [self.tensor_of(op.inputs[0]), axis], [self.produce(out)],
                      {"output_type": _tflite_type(out.dtype, out.name)},
                      "ArgMaxOptions" if kind == "ArgMax" else "ArgMinOptions")
            return
        if kind == "Cast":
            self.emit("CAST", [self.tensor_of(op.inputs[0])], [self.produce(out)],
                      {"in_data_type": _tflite_type(op.inputs[0].dtype, op.inputs[0].name),
                       "out_data_type": _tflite_type(out.dtype, out.name)}, "CastOptions")
            return
        if kind == "Pack":
            axis = int(op.get_attr("axis"))
            if axis < 0:
                axis += len(self.shape_of(out))
            self.emit("PACK", [self.tensor_of(t) for t in op.inputs], [self.produce(out)],
                      {"values_count": len(op.inputs), "axis": axis}, "PackOptions")
            return
        if kind == "Unpack":
            axis = int(op.get_attr("axis"))
            if axis < 0:
                axis += len(op.inputs[0].shape)
            self.emit("UNPACK", [self.tensor_of(op.inputs[0])],
                      [self.produce(o) for o in op.outputs],
                      {"num": len(op.outputs), "axis": axis}, "UnpackOptions")
            return
        if kind in ("Split", "SplitV"):
            if kind == "Split":
                ins = [self.const(self.const_name(op.inputs[0]), np.asarray(
                    self.const_value(op.inputs[0])).astype(np.int32)),
                    self.tensor_of(op.inputs[1])]
            else:
                ins = [self.tensor_of(op.inputs[0])] + [
                    self.const(self.const_name(t),
                               np.asarray(self.const_value(t)).astype(np.int32))
                    for t in op.inputs[1:3]]
            name = "SPLIT" if kind == "Split" else "SPLIT_V"
            self.emit(name, ins, [self.produce(o) for o in op.outputs],
                      {"num_splits": len(op.outputs)},
                      "SplitOptions" if kind == "Split" else "SplitVOptions")
            return
        if kind == "Tile":
            mult = self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))
            self.emit("TILE", [self.tensor_of(op.inputs[0]), mult], [self.produce(out)], {},
                      "TileOptions")
            return
        if kind == "AddN":
            self.emit("ADD_N", [self.tensor_of(t) for t in op.inputs], [self.produce(out)], {},
                      "AddNOptions")
            return
        if kind in ("Select", "SelectV2"):
            self.emit("SELECT", [self.tensor_of(t) for t in op.inputs], [self.produce(out)], {},
                      "SelectOptions")
            return
        if kind in ("SpaceToBatchND", "BatchToSpaceND"):
            ins = [self.tensor_of(op.inputs[0])] + [
                self.const(self.const_name(t), np.asarray(self.const_value(t)).astype(np.int32))
                for t in op.inputs[1:3]]
            name = "SPACE_TO_BATCH_ND" if kind == "SpaceToBatchND" else "BATCH_TO_SPACE_ND"
            self.emit(name, ins, [self.produce(out)], {},
                      "SpaceToBatchNDOptions" if kind == "SpaceToBatchND"
                      else "BatchToSpaceNDOptions")
            return
        if kind == "LRN":
            self.emit("LOCAL_RESPONSE_NORMALIZATION", [self.tensor_of(op.inputs[0])],
                      [self.produce(out)],
                      {"radius": int(op.get_attr("depth_radius")),
                       "bias": float(op.get_attr("bias")), "alpha": float(op.get_attr("alpha")),
                       "beta": float(op.get_attr("beta"))}, "LocalResponseNormalizationOptions")
            return
        if kind == "ResizeBilinear":
            if op.get_attr("half_pixel_centers"):
                raise ConverterError(f"See console for info.\nCheck failed: ResizeBilinear "
                                     f"{op.name} with half_pixel_centers is not supported.\n")
            size = self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))
            self.emit("RESIZE_BILINEAR", [self.tensor_of(op.inputs[0]), size],
                      [self.produce(out)],
                      {"align_corners": bool(op.get_attr("align_corners"))},
                      "ResizeBilinearOptions")
            return
        if kind == "Conv2DBackpropInput":
            self._nhwc(op)
            sizes, f, dy = op.inputs
            w = np.asarray(self.const_value(f))  # [H, W, out channels, in channels]
            strides = op.get_attr("strides")
            if list(op.get_attr("dilations")) != [1, 1, 1, 1]:
                raise ConverterError(f"See console for info.\nCheck failed: "
                                     f"Conv2DBackpropInput {op.name} with dilations is not "
                                     "supported.\n")
            w_key = self.const(self.const_name(f) + "_transposed",
                               np.ascontiguousarray(np.transpose(w, (2, 0, 1, 3))))
            sizes_key = self.const(self.const_name(sizes),
                                   np.asarray(self.const_value(sizes)).astype(np.int32))
            self.emit("TRANSPOSE_CONV", [sizes_key, w_key, self.tensor_of(dy)],
                      [self.produce(out)],
                      {"padding": self._padding(op), "stride_w": int(strides[2]),
                       "stride_h": int(strides[1])}, "TransposeConvOptions")
            return
        if kind == "ResizeNearestNeighbor":
            size = self.const(self.const_name(op.inputs[1]),
                              np.asarray(self.const_value(op.inputs[1])).astype(np.int32))
            self.emit("RESIZE_NEAREST_NEIGHBOR", [self.tensor_of(op.inputs[0]), size],
                      [self.produce(out)],
                      {"align_corners": bool(op.get_attr("align_corners"))},
                      "ResizeNearestNeighborOptions")
            return
        self.unsupported_op(op)

    @staticmethod
    def _new_axis_dims(op, new_axes):
        """The output dimensions a strided slice's new_axis_mask adds (no ellipsis)."""
        shrink = int(op.get_attr("shrink_axis_mask"))
        dims, d = set(), 0
        n = int(op.inputs[1].shape[0])
        for i in range(n):
            if new_axes >> i & 1:
                dims.add(d)
                d += 1
            elif not shrink >> i & 1:
                d += 1
        return dims

    def unsupported_op(self, op):
        self.unsupported.append(op.type)
        if self.allow_custom_ops:
            outs = []
            for o in op.outputs:
                try:
                    outs.append(self.produce(o))
                except ConverterError:
                    key = self._display(o.name)
                    self.tensors[key] = _Tensor(key, [], np.dtype(np.float32))
                    self.alias[o.name] = key
                    outs.append(key)
            ins = []
            for t in op.inputs:
                try:
                    ins.append(self.tensor_of(t))
                except ConverterError:
                    ins.append(None)
            custom = self.emit("CUSTOM", [i for i in ins if i is not None], outs, {}, None)
            custom.append(op.type)  # (the custom code)
        else:
            for o in op.outputs:  # keeps lowering, to list every unsupported op
                key = self._display(o.name)
                self.tensors.setdefault(key, _Tensor(key, [], np.dtype(np.float32)))
                self.alias[o.name] = key

    def const_value(self, t):
        if t.name not in self.values:
            raise ConverterError(f"See console for info.\nCheck failed: the {t.op.type} "
                                 f"input {t.name} of op {t.op.name} must be constant.\n")
        return self.values[t.name]

    def fully_connected(self, op):
        a, b = op.inputs
        if op.get_attr("transpose_a"):
            raise ConverterError(f"See console for info.\nCheck failed: MatMul {op.name} "
                                 "with transpose_a is not supported.\n")
        x = self.tensor_of(a)
        if b.name in self.values:
            w = np.asarray(self.values[b.name])
            if op.get_attr("transpose_b"):
                w_key = self.const(self.const_name(b), w)
            else:
                w_key = self.const(self.const_name(b) + "/transpose", np.ascontiguousarray(w.T))
        else:
            bk = self.tensor_of(b)
            if op.get_attr("transpose_b"):
                w_key = bk
            else:
                w_key = self.const_name(b) + "/transpose"
                shape = list(reversed(self.shape_of(b)))
                self.tensors[w_key] = _Tensor(w_key, shape, np.dtype(b.dtype.as_numpy_dtype))
                perm = self.const(w_key + "/perm", np.array([1, 0], np.int32))
                self.emit("TRANSPOSE", [bk, perm], [w_key], {}, "TransposeOptions")
        out_dim = self.tensors[w_key].shape[0]
        bias = self.const(op.name + "_bias", np.zeros([out_dim], np.dtype(
            op.outputs[0].dtype.as_numpy_dtype)))
        end = self.fuse_bias(op.outputs[0], bias, out_dim)
        if w_key in self.tensors and self.tensors[w_key].data is not None:
            end = self.fuse_batch_norm(end, w_key, bias, 0)
        end, act = self.fuse_activation(end)
        self.emit("FULLY_CONNECTED", [x, w_key, bias], [self.produce(end)],
                  {"fused_activation_function": act, "weights_format": 0},
                  "FullyConnectedOptions")

    def _nhwc(self, op):
        fmt = op.get_attr("data_format")
        fmt = fmt.decode() if isinstance(fmt, bytes) else fmt
        if fmt != "NHWC":
            raise ConverterError(f"See console for info.\nCheck failed: {op.type} {op.name} "
                                 f"has data_format {fmt}; TFLite supports only NHWC.\n")

    @staticmethod
    def _padding(op):
        p = op.get_attr("padding")
        p = p.decode() if isinstance(p, bytes) else p
        if p not in ("SAME", "VALID"):
            raise ConverterError(f"See console for info.\nCheck failed: {op.type} {op.name} "
                                 f"has padding {p}; TFLite supports SAME and VALID.\n")
        return schema.SAME if p == "SAME" else schema.VALID

    def conv(self, op):
        self._nhwc(op)
        x, f = op.inputs
        w = np.asarray(self.const_value(f))
        strides = op.get_attr("strides")
        try:
            dil = op.get_attr("dilations")
        except (ValueError, KeyError):
            dil = [1, 1, 1, 1]
        xk = self.tensor_of(x)
        # as TOCO: a conv over one input channel (equal strides, no dilation, weights used
        # only here) is a depthwise conv with the output channels as its multiplier
        depthwise = op.type != "Conv2D" or (
            w.shape[2] == 1 and strides[1] == strides[2] and list(dil) == [1, 1, 1, 1]
            and len(self.consumers.get(f.name, [])) == 1)
        if not depthwise:
            w_key = self.const(self.const_name(f), np.ascontiguousarray(
                np.transpose(w, (3, 0, 1, 2))))
            channels = w.shape[3]
        else:
            channels = w.shape[2] * w.shape[3]
            w_key = self.const(self.const_name(f), np.ascontiguousarray(
                w.reshape(1, w.shape[0], w.shape[1], channels)))
        bias = self.const(op.name + "_bias", np.zeros([channels], w.dtype))
        end = self.fuse_bias(op.outputs[0], bias, channels)
        end = self.fuse_batch_norm(end, w_key, bias, 3 if depthwise else 0)
        end, act = self.fuse_activation(end)
        opts = {"padding": self._padding(op), "stride_w": int(strides[2]),
                "stride_h": int(strides[1]), "fused_activation_function": act,
                "dilation_w_factor": int(dil[2]), "dilation_h_factor": int(dil[1])}
        if not depthwise:
            self.emit("CONV_2D", [xk, w_key, bias], [self.produce(end)], opts, "Conv2DOptions")
        else:
            opts["depth_multiplier"] = int(w.shape[3])
            self.emit("DEPTHWISE_CONV_2D", [xk, w_key, bias], [self.produce(end)], opts,
                      "DepthwiseConv2DOptions")

    def pool(self, op):
        self._nhwc(op)
        k = op.get_attr("ksize")
        s = op.get_attr("strides")
        end, act = self.fuse_activation(op.outputs[0])
        self.emit("MAX_POOL_2D" if op.type == "MaxPool" else "AVERAGE_POOL_2D",
                  [self.tensor_of(op.inputs[0])], [self.produce(end)],
                  {"padding": self._padding(op), "stride_w": int(s[2]), "stride_h": int(s[1]),
                   "filter_width": int(k[2]), "filter_height": int(k[1]),
                   "fused_activation_function": act}, "Pool2DOptions")

    # -- clean-ups -------------------------------------------------------------------------

    def drop_reshapes_into_fc(self, model_outputs):
        users = {}
        for op in self.ops:
            for i, k in enumerate(op[1]):
                users.setdefault(k, []).append((op, i))
        keep = []
        for op in self.ops:
            if op[0] == "RESHAPE" and op[2][0] not in model_outputs:
                uses = users.get(op[2][0], [])
                if uses and all(u[0][0] == "FULLY_CONNECTED" and u[1] == 0 for u in uses):
                    for u, i in uses:
                        u[1][i] = op[1][0]
                    continue
            keep.append(op)
        self.ops = keep


def _fold_constants(graph, input_tensors, output_tensors):
    """{tensor name: value} of every tensor the outputs need that no input reaches."""
    from tideflow.runtime.session import Session

    input_names = {t.op.name for t in input_tensors}
    needed, stack = set(), [t.op for t in output_tensors]
    while stack:
        op = stack.pop()
        if op.name in needed:
            continue
        needed.add(op.name)
        if op.name in input_names:
            continue
        stack.extend(t.op for t in op.inputs)
    ops = [op for op in graph.get_operations() if op.name in needed]
    const_ops = set()
    static = {}
    for op in ops:  # the graph's op order is topological
        if op.name in input_names or op.type in _STATEFUL:
            continue
        if op.type in ("Shape", "Size", "Rank") and op.inputs[0].shape.is_fully_defined():
            shape = op.inputs[0].shape.as_list()
            dt = op.outputs[0].dtype.as_numpy_dtype
            value = {"Shape": np.array(shape, dt), "Size": np.array(np.prod(shape), dt),
                     "Rank": np.array(len(shape), dt)}[op.type]
            static[op.outputs[0].name] = value
            const_ops.add(op.name)
            continue
        if all(t.op.name in const_ops for t in op.inputs) and \
                all(c.name in const_ops or c.type == "NoOp" for c in op.control_inputs):
            const_ops.add(op.name)
    # evaluate the constant tensors some non-constant op (or an output) reads
    fetch = set()
    for op in ops:
        if op.name in const_ops:
            continue
        for t in op.inputs:
            if t.op.name in const_ops and t.name not in static:
                fetch.add(t.name)
    for t in output_tensors:
        if t.op.name in const_ops and t.name not in static:
            fetch.add(t.name)
    values = dict(static)
    if fetch:
        names = sorted(fetch)
        with Session(graph=graph) as sess:
            feed = {graph.get_tensor_by_name(n): v for n, v in static.items()}
            results = sess.run([graph.get_tensor_by_name(n) for n in names], feed_dict=feed)
        values.update(zip(names, results))
    return values, ops, const_ops


def convert_graph(graph_def, input_specs, output_names, allow_custom_ops=False,
                  description="TOCO Converted.", quantize_weights=False):
    """TFLite flatbuffer bytes for ``graph_def``.

    ``input_specs``: [(tensor name, shape)] with fully known shapes; ``output_names``: the
    output tensor names.
    """
    from tideflow.framework import importer
    from tideflow.framework import ops as ops_mod
    from tideflow.protos import graph_pb2

    gd = graph_pb2.GraphDef()
    gd.CopyFrom(graph_def)
    by_name = {n.name: n for n in gd.node}
    for name, shape in input_specs:
        node = by_name.get(name.split(":")[0])
        if node is None:
            raise ConverterError(f"See console for info.\nSpecified input array "
                                 f"\"{name.split(':')[0]}\" is not produced by any op in "
                                 "this graph.\n")
        if node.op in ("Placeholder", "PlaceholderWithDefault") and "shape" in node.attr:
            node.attr["shape"].shape.Clear()
            for d in shape:
                node.attr["shape"].shape.dim.add().size = int(d)
    for node in gd.node:
        # a frozen resource variable is a Const: reading it is just passing it on
        if node.op == "ReadVariableOp" and by_name.get(node.input[0].split(":")[0]) is not None \
                and by_name[node.input[0].split(":")[0]].op == "Const":
            node.op = "Identity"
            node.attr["T"].CopyFrom(node.attr["dtype"])
            del node.attr["dtype"]
    graph = ops_mod.Graph()
    with graph.as_default():
        importer.import_graph_def(gd, name="")
    inputs = [graph.get_tensor_by_name(n if ":" in n else n + ":0") for n, _ in input_specs]
    outputs = []
    for n in output_names:
        try:
            outputs.append(graph.get_tensor_by_name(n if ":" in n else n + ":0"))
        except (KeyError, ValueError):
            raise ConverterError(f"See console for info.\nSpecified output array "
                                 f"\"{n.split(':')[0]}\" is not produced by any op in this "
                                 "graph.\n") from None
    for t, (_, shape) in zip(inputs, input_specs):
        if t.op.type not in ("Placeholder", "PlaceholderWithDefault"):
            t.set_shape(shape)
    values, ops, const_ops = _fold_constants(graph, inputs, outputs)
    lowering = _Lowering(graph, inputs, outputs, values, const_ops, allow_custom_ops)
    for t in inputs:
        lowering.produce(t)
    input_ops = {t.op.name for t in inputs}
    lowering.ops_to_lower = [op for op in ops if op.name not in input_ops
                             and op.name not in const_ops and op.outputs]
    for op in ops:
        if op.name in input_ops or op.name in lowering.absorbed:
            continue
        if op.name in const_ops:
            continue
        try:
            lowering.lower(op)
        except ConverterError:
            if not lowering.unsupported or allow_custom_ops:
                raise
            # an op fed by an unsupported one: keep going, to list every unsupported op
            for o in op.outputs:
                key = lowering._display(o.name)
                lowering.tensors.setdefault(key, _Tensor(key, [], np.dtype(np.float32)))
                lowering.alias[o.name] = key
    if lowering.unsupported and not allow_custom_ops:
        builtin = sorted({o[0] for o in lowering.ops})
        raise ConverterError(
            "See console for info.\n" + _SUPPORT_NOTE +
            "Some of the operators in the model are not supported by the standard TensorFlow "
            "Lite runtime. If those are native TensorFlow operators, you might be able to use "
            "the extended runtime by passing --enable_select_tf_ops, or by setting "
            "target_ops=TFLITE_BUILTINS,SELECT_TF_OPS when calling tf.lite.TFLiteConverter(). "
            "Otherwise, if you have a custom implementation for them you can disable this "
            "error with --allow_custom_ops, or by setting allow_custom_ops=True when calling "
            "tf.lite.TFLiteConverter(). Here is a list of builtin operators you are using: "
            f"{', '.join(builtin)}. Here is a list of operators for which you will need custom "
            f"implementations: {', '.join(sorted(set(lowering.unsupported)))}.\n")
    # the outputs: each TF output's tensor, renamed to the output's name where it was passed on
    out_keys = []
    for t in outputs:
        key = lowering.tensor_of(t)
        wanted = lowering._display(t.name)
        if key != wanted and wanted not in lowering.tensors and \
                lowering.tensors[key].data is None and \
                all(lowering.alias[i.name] != key for i in inputs):
            lowering.tensors[wanted] = lowering.tensors.pop(key)
            lowering.tensors[wanted].name = wanted
            for op in lowering.ops:
                op[1] = [wanted if k == key else k for k in op[1]]
                op[2] = [wanted if k == key else k for k in op[2]]
            for name, k in list(lowering.alias.items()):
                if k == key:
                    lowering.alias[name] = wanted
            key = wanted
        out_keys.append(key)
    in_keys = [lowering.alias[t.name] for t in inputs]
    lowering.drop_reshapes_into_fc(set(out_keys))
    versions, late = _quantize_weights(lowering) if quantize_weights else ({}, [])
    # only the tensors the ops (and the model's inputs / outputs) use, sorted by name
    used = set(in_keys) | set(out_keys)
    for op in lowering.ops:
        used.update(op[1])
        used.update(op[2])
    names = sorted(used - set(late)) + late
    index = {k: i for i, k in enumerate(names)}
    tensors, buffers = [], [b""]
    for k in names:
        t = lowering.tensors[k]
        if t.dtype == np.dtype(object):
            code = schema.STRING
        else:
            code = schema.TENSOR_TYPES.get(np.dtype(t.dtype))
            if code is None:
                raise ConverterError(f"See console for info.\nUnsupported data type "
                                     f"{np.dtype(t.dtype).name} of array {k} in TFLite.\n")
        data = b""
        if t.data is not None:
            data = np.ascontiguousarray(np.asarray(t.data).astype(t.dtype)).tobytes()
        if k in late:  # (TF's weight quantizer gives its new tensors the empty buffer 0)
            tensors.append(TensorInfo(k, t.shape, code, 0))
            continue
        buffers.append(data)
        tensors.append(TensorInfo(k, t.shape, code, len(buffers) - 1,
                                  None if t.scale is None else [t.scale],
                                  None if t.scale is None else [0]))
    operators = []
    for op in lowering.ops:
        custom = op[5] if len(op) > 5 else None
        operators.append(OperatorInfo(op[0], [index[k] for k in op[1]],
                                      [index[k] for k in op[2]], op[3], op[4],
                                      version=versions.get(id(op), 1), custom_code=custom))
    model = Model(tensors, operators, [index[k] for k in in_keys],
                  [index[k] for k in out_keys], buffers, description)
    return write_model(model)
