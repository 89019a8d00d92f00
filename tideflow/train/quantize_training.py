"""``tf.train.do_quantize_training_on_graphdef``: TF 1.x's first quantized-training rewrite.

Every input of a MatMul or Conv2D outside ``gradients/`` is read through a
``QuantizeAndDequantizeV2`` of ``num_bits``, one per producing node (``<node>/...``). Its
range is given for activations with a known one (Relu6 [0, 6], Sigmoid [0, 1], Tanh [-1, 1]),
else kept in two scalar variables (``<node>/Min/Variable``, ``<node>/Max/Variable``) that the
first run sets to the input's min and max and later runs move by an exponential moving average
(decay 0.999). The variables join the graph's SaveV2 and restore ops, when it has a Saver's.
The nodes are added as TF 1.15's rewriter adds them, so the GraphDef reads as its result.
"""

import numpy as np

from tideflow.framework import dtypes, errors, ops

_REWRITTEN = ("MatMul", "Conv2D")
_EMA_DECAY = 0.999
_ALLOWED_UNKNOWN_INPUTS = 2


def _find_type(op):
    """``(known, signed_input, range_given, min, max)`` for the tensor ``op`` makes."""
    t = op.type
    if t in ("Const", "Variable", "VariableV2"):
        return True, True, False, 0.0, 0.0
    if t == "Relu":
        return True, False, False, 0.0, 0.0
    if t == "Relu6":
        return True, False, True, 0.0, 6.0
    if t == "Sigmoid":
        return True, False, True, 0.0, 1.0
    if t == "Tanh":
        return True, True, True, -1.0, 1.0
    if t in ("Reshape", "ConcatV2", "Identity", "MaxPool", "AvgPool", "MaxPool3D",
             "AvgPool3D"):
        # (the source's type decides; TF counts this op as known either way)
        first = op.inputs[0].op if op.inputs else None
        return (True, *_find_type(first)[1:]) if first is not None else (
            True, False, False, 0.0, 0.0)
    return False, True, False, 0.0, 0.0


def _scalar(value, name, dtype=dtypes.float32):
    from tideflow.ops import constant_op

    return constant_op.constant(np.asarray(value, dtype.as_numpy_dtype), name=name)


def _apply(op_type, inputs, name, attrs=None):
    op = ops.apply_op(op_type, inputs, attrs or {}, name=name)
    # TF's rewriter builds nodes in C++, which adds no colocation with the variables read
    op._attrs.pop("_class", None)
    return op


def _ema_variable(name, decay, init_val, added):
    """A scalar variable set to ``init_val`` on its first run, moved by an EMA of it after;
    returns the Assign's output."""
    var = _apply("VariableV2", [], f"{name}/Variable",
                 {"shape": [], "dtype": dtypes.float32}).outputs[0]
    added.append(var)
    is_init = _apply("IsVariableInitialized", [var], f"{name}/IsInitialized").outputs[0]
    switch = _apply("Switch", [init_val, is_init], f"{name}/Switch").outputs
    one = _scalar(1.0, f"{name}/EMA/OneConst")
    complement = _apply("Sub", [one, decay], f"{name}/EMA/DecayComplement").outputs[0]
    diff = _apply("Sub", [var, switch[1]], f"{name}/EMA/ValueDiff").outputs[0]
    update = _apply("Mul", [diff, complement], f"{name}/EMA/UpdateValue").outputs[0]
    ema = _apply("Sub", [var, update], f"{name}/EMA/EMAValue").outputs[0]
    merged = _apply("Merge", [[switch[0], ema]], f"{name}/Merge").outputs[0]
    return _apply("Assign", [var, merged], f"{name}/AssignValue").outputs[0]


def _quantize_op(src, num_bits, signed, range_given, lo, hi, added):
    prefix = src.op.name
    if range_given:
        input_min = _scalar(lo, f"{prefix}/InputMin")
        input_max = _scalar(hi, f"{prefix}/InputMax")
    else:
        decay = _scalar(_EMA_DECAY, f"{prefix}/Decay")
        start = _scalar(0, f"{prefix}/ReductionAxes/RangeStart", dtypes.int32)
        delta = _scalar(1, f"{prefix}/ReductionAxes/RangeDelta", dtypes.int32)
        rank = _apply("Rank", [src], f"{prefix}/ReductionAxes/InputRank").outputs[0]
        axes = _apply("Range", [start, rank, delta],
                      f"{prefix}/ReductionAxes/ReductionAxes").outputs[0]
        lo_t = _apply("Min", [src, axes], f"{prefix}/Min").outputs[0]
        hi_t = _apply("Max", [src, axes], f"{prefix}/Max").outputs[0]
        input_min = _ema_variable(f"{prefix}/Min", decay, lo_t, added)
        input_max = _ema_variable(f"{prefix}/Max", decay, hi_t, added)
    return _apply("QuantizeAndDequantizeV2", [src, input_min, input_max],
                  f"{prefix}/QuantizeAndDequantizeV2",
                  {"signed_input": signed, "num_bits": num_bits,
                   "range_given": True}).outputs[0]


def _add_save_and_restore(graph, added):
    """Adds the new variables to the graph's SaveV2 (its name and slice lists, its inputs)
    and a RestoreV2/Assign pair each that its ``restore_all`` runs."""
    from tideflow.framework import tensor_util

    saves = [op for op in graph.get_operations() if op.type == "SaveV2"]
    if not saves:
        return
    if len(saves) > 1:
        raise errors.InvalidArgumentError(None, None, "Input graph has multiple SaveV2 ops.")
    save = saves[0]
    prefix_scope = save.name.rpartition("/")[0]
    try:
        restore_all = graph.get_operation_by_name(f"{prefix_scope}/restore_all")
    except KeyError:
        raise errors.InvalidArgumentError(
            None, None, "graph has SaveOp, but no restore_all NoOp") from None
    prefix_t = save.inputs[0]
    for k, var in enumerate(added):
        # (TF's names: the graph's "<name>/_<n>" counter, then "_qt")
        restore_name = f"{prefix_scope}/RestoreV2/_{2 * k}_qt"
        assign_name = f"{prefix_scope}/Assign/_{2 * k + 1}_qt"
        names = _scalar([var.op.name.encode()], f"{restore_name}/tensor_names",
                        dtypes.string)
        slices = _scalar([b""], f"{restore_name}/shape_and_slices", dtypes.string)
        restored = _apply("RestoreV2", [prefix_t, names, slices], restore_name,
                          {"dtypes": [dtypes.float32]}).outputs[0]
        assign = _apply("Assign", [var, restored], assign_name)
        restore_all._add_control_input(assign)
    for i, extra in ((1, [v.op.name.encode() for v in added]), (2, [b""] * len(added))):
        const = save.inputs[i].op
        old = tensor_util.make_ndarray(const.get_attr("value"))
        value = np.concatenate([old.astype(object), np.array(extra, dtype=object)])
        const._attrs["value"] = value  # (a Const keeps its value as an array)
        const.outputs[0]._shape = ops.TensorShape(value.shape)
    for var in added:
        save._add_input(var)
    save._set_attr("dtypes", [t.dtype.base_dtype for t in save.inputs[3:]])


def do_quantize_training_on_graphdef(input_graph, num_bits):
    """``input_graph`` (a GraphDef) with quantized training inserted (see the module
    docstring); more than two inputs of unknown kind (model inputs) are an
    UnimplementedError, as in TF 1.15."""
    from tideflow.framework import importer
    from tideflow.protos import graph_pb2

    if not isinstance(input_graph, graph_pb2.GraphDef):
        raise TypeError("input_graph must be a graph_pb2.GraphDef proto.")
    if num_bits < 1 or num_bits > 63:
        raise errors.OutOfRangeError(
            None, None, f"num_bits should be in range [1, 63] but is: {num_bits}")
    graph = ops.Graph()
    with graph.as_default():
        importer.import_graph_def(input_graph, name="")
        targets, unknown = [], 0
        for op in graph.get_operations():
            if op.type not in _REWRITTEN or op.name.startswith("gradients"):
                continue
            for index, t in enumerate(op.inputs):
                known, signed, given, lo, hi = _find_type(t.op)
                if not known:
                    unknown += 1
                    if unknown > _ALLOWED_UNKNOWN_INPUTS:
                        raise errors.UnimplementedError(
                            None, None,
                            f"Found an unknown op: {t.op.name} with type: {t.op.type}; "
                            "Unknown ops are considered as model input for now and only "
                            f"{_ALLOWED_UNKNOWN_INPUTS} inputs are supported currently.")
                targets.append((op, index, t, signed, given, lo, hi))
        from tideflow.ops import quantization_ops  # noqa: F401 (declares the ops it adds)

        converted, added = {}, []
        for op, index, t, signed, given, lo, hi in targets:
            q = converted.get(t.op.name)
            if q is None:
                # (as TF: the op's first output is quantized whichever output was read)
                q = converted[t.op.name] = _quantize_op(t.op.outputs[0], num_bits, signed,
                                                        given, lo, hi, added)
            op._update_input(index, q)
        _add_save_and_restore(graph, added)
    out = graph.as_graph_def()
    out.versions.CopyFrom(input_graph.versions)
    saves = [i for i, n in enumerate(out.node) if n.op == "SaveV2"]
    if added and saves:  # TF's rewriter replaces the SaveV2 node: it comes last
        node = out.node[saves[0]]
        moved = type(node)()
        moved.CopyFrom(node)
        del out.node[saves[0]]
        out.node.append(moved)
    return out


__all__ = ["do_quantize_training_on_graphdef"]
