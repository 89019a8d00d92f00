"""More of TF 1.x's ``tf.contrib.framework``: the tensor checks (``assert_scalar``,
``assert_scalar_int``, ``with_shape``, ``with_same_shape``, ``reduce_sum_n``,
``remove_squeezable_dimensions``), global-step and model-variable helpers, name-scope helpers,
``get_placeholders``, ``smart_cond``/``smart_constant_value``, and the names TF 1.x's
contrib.framework re-exports from core (``is_tensor``, ``deprecated``, ``py_func``, ...).
"""

import numpy as np

from tideflow.framework import dtypes, ops, tensor_shape
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.ops.check_ops import assert_scalar
from tideflow.train import checkpoint_utils as _checkpoint_utils


def _tf():
    import tideflow

    return tideflow


def assert_scalar_int(tensor, name=None):
    """``tensor`` after checking statically that it is an integer scalar."""
    with ops.name_scope(name, "assert_scalar_int", [tensor]) as scope:
        tensor = ops.convert_to_tensor(tensor)
        if not tensor.dtype.base_dtype.is_integer:
            raise ValueError(f"Expected integer type for {tensor.name}, received type: "
                             f"{tensor.dtype}.")
        return assert_scalar(tensor, name=scope)


def reduce_sum_n(tensors, name=None):
    """The sum of all the elements of all ``tensors`` (a scalar)."""
    tf = _tf()
    if not tensors:
        raise ValueError("No tensors provided.")
    with ops.name_scope(name, "reduce_sum_n", tensors) as scope:
        tensors = [tf.reduce_sum(t, name=f"{t.op.name}/sum") for t in tensors]
        if len(tensors) == 1:
            return tensors[0]
        return tf.add_n(tensors, name=scope)


def remove_squeezable_dimensions(predictions, labels, name=None):
    """Drops a trailing size-1 dimension of ``predictions`` or ``labels`` when their ranks
    differ by one (statically, else at run time); returns ``(predictions, labels)``."""
    tf = _tf()
    with ops.name_scope(name, "remove_squeezable_dimensions", [predictions, labels]):
        predictions = ops.convert_to_tensor(predictions)
        labels = ops.convert_to_tensor(labels)
        p_shape, l_shape = predictions.get_shape(), labels.get_shape()
        p_rank, l_rank = p_shape.ndims, l_shape.ndims
        if p_rank is not None and l_rank is not None:
            if p_rank - l_rank == 1 and p_shape[-1].value in (1, None):
                predictions = tf.squeeze(predictions, [-1])
            elif l_rank - p_rank == 1 and l_shape[-1].value in (1, None):
                labels = tf.squeeze(labels, [-1])
            return predictions, labels
        diff = tf.rank(predictions) - tf.rank(labels)
        if p_rank is None or p_shape[-1].value in (1, None):
            predictions = tf.cond(tf.equal(diff, 1), lambda: tf.squeeze(predictions, [-1]),
                                  lambda: predictions)
        if l_rank is None or l_shape[-1].value in (1, None):
            labels = tf.cond(tf.equal(diff, -1), lambda: tf.squeeze(labels, [-1]),
                             lambda: labels)
        return predictions, labels


def _assert_shape_op(expected_shape, tensor):
    """TF 1.15's ops: the rank and each dimension (-1 matching any) compared, both always
    (a rank mismatch fails in the dimensions' Equal, as TF's)."""
    tf = _tf()
    with ops.name_scope("assert_shape", values=[tensor]) as scope:
        actual = tf.shape(tensor, out_type=dtypes.int32, name="actual")
        if (isinstance(expected_shape, tensor_shape.TensorShape)
                and not expected_shape.is_fully_defined()):
            # as TF 1.15: a partly known TensorShape is checked as a list, unknown (and, as
            # TF's test reads it, 0) dimensions as -1
            expected_shape = [d if d else -1 for d in expected_shape.as_list()]
        with ops.name_scope("is_shape", values=[tensor]) as is_shape_scope:
            size = tf.size(expected_shape)
            with ops.name_scope("is_rank", values=[tensor]) as is_rank_scope:
                expected_rank = ops.convert_to_tensor(size, name="expected")
                is_rank = tf.equal(expected_rank, tf.rank(tensor, name="actual"),
                                   name=is_rank_scope)
            with ops.name_scope("shape_tensor_equal", values=[expected_shape, actual]) as sc:
                same = tf.reduce_all(tf.logical_or(tf.equal(expected_shape, -1),
                                                   tf.equal(expected_shape, actual, "equal"),
                                                   name="exclude_partial_shape"), name=sc)
            is_shape = tf.logical_and(is_rank, same, name=is_shape_scope)
        return tf.Assert(is_shape, [f"Wrong shape for {tensor.name} [expected] [actual].",
                                    expected_shape, actual], name=scope)


def with_shape(expected_shape, tensor):
    """``tensor`` checked against ``expected_shape`` (a list, int32 array or int32 tensor):
    a static mismatch raises ValueError; a partly unknown shape gets a run-time assertion and
    the expected static shape."""
    tf = _tf()
    if isinstance(tensor, SparseTensor):
        raise ValueError("SparseTensor not supported.")  # noqa: TRY004 - TF raises ValueError
    is_tensor = isinstance(expected_shape, ops.Tensor)
    if is_tensor and expected_shape.dtype.base_dtype != dtypes.int32:
        raise ValueError(f"Invalid dtype {expected_shape.dtype} for shape {expected_shape} "
                         f"expected of tensor {tensor.name}.")
    if isinstance(expected_shape, (list, tuple)):
        if not expected_shape:
            expected_shape = np.asarray([], dtype=np.int32)
        else:
            as_np = np.asarray(expected_shape)
            expected_shape = as_np.astype(np.int32) if as_np.dtype == np.int64 else as_np
    if isinstance(expected_shape, np.ndarray):
        if expected_shape.ndim > 1:
            raise ValueError(f"Invalid rank {expected_shape.ndim} for shape {expected_shape} "
                             f"expected of tensor {tensor.name}.")
        if expected_shape.dtype != np.int32:
            raise ValueError(f"Invalid dtype {expected_shape.dtype} for shape "
                             f"{expected_shape} expected of tensor {tensor.name}.")
    actual = tensor.get_shape()
    # a TensorShape (possibly partial, [None, 2]) is checked as it is
    dims = (expected_shape if isinstance(expected_shape, tensor_shape.TensorShape)
            else None if is_tensor else [int(d) for d in expected_shape])
    if not actual.is_fully_defined() or is_tensor:
        with ops.name_scope(f"{tensor.op.name}/"):
            if not is_tensor and len(expected_shape) < 1:
                return tf.reshape(tensor, [])
            with ops.control_dependencies([_assert_shape_op(expected_shape, tensor)]):
                result = tf.identity(tensor)
            if not is_tensor:
                result.set_shape(dims)
            return result
    if not actual.is_compatible_with(dims):
        if len(expected_shape) < 1 and actual.is_compatible_with([1]):
            with ops.name_scope(f"{tensor.op.name}/"):
                return tf.reshape(tensor, [])
        raise ValueError(f"Invalid shape for tensor {tensor.name}, expected "
                         f"{expected_shape}, got {actual}.")
    return tensor


def with_same_shape(expected_tensor, tensor):
    """``with_shape`` against ``expected_tensor``'s shape (static when fully known)."""
    tf = _tf()
    with ops.name_scope(f"{tensor.op.name}/", values=[expected_tensor, tensor]):
        shape = expected_tensor.get_shape()
        expected = shape.as_list() if shape.is_fully_defined() else tf.shape(
            expected_tensor, name="expected_shape")
        return with_shape(expected, tensor)


def add_model_variable(var):
    """Adds ``var`` to the ``MODEL_VARIABLES`` collection (once)."""
    if var not in ops.get_collection(ops.GraphKeys.MODEL_VARIABLES):
        ops.add_to_collection(ops.GraphKeys.MODEL_VARIABLES, var)


def assert_or_get_global_step(graph=None, global_step_tensor=None):
    """``global_step_tensor`` after checking it is a valid global step, or the graph's
    global step when None."""
    tf = _tf()
    if global_step_tensor is None:
        return tf.train.get_global_step(graph)
    tf.train.assert_global_step(global_step_tensor)
    return global_step_tensor


def get_name_scope():
    """The current name scope of the default graph ('' at the top)."""
    return ops.get_default_graph().get_name_scope()


def get_placeholders(graph):
    """The outputs of ``graph``'s ``Placeholder`` ops, in creation order."""
    return [op.outputs[0] for op in graph.get_operations() if op.type == "Placeholder"]


def smart_constant_value(pred):
    """``pred``'s value when it is known statically (a bool, 0/1, or a constant tensor),
    else None; TypeError for anything else."""
    from tideflow.ops.layers_base import static_bool

    return static_bool(pred)


def smart_cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` or ``false_fn()`` chosen statically when ``pred`` is known, else
    ``tf.cond``."""
    from tideflow.ops.layers_base import smart_cond as _smart_cond

    if not callable(true_fn):
        raise TypeError(f"`true_fn` must be callable, got {true_fn!r}.")
    if not callable(false_fn):
        raise TypeError(f"`false_fn` must be callable, got {false_fn!r}.")
    return _smart_cond(pred, true_fn, false_fn, name=name)


def get_graph_from_inputs(op_input_list, graph=None):
    """The graph the tensors/operations of ``op_input_list`` belong to (``graph`` if given,
    which they must then belong to), else the default graph; ValueError when they come from
    different graphs."""
    return ops._get_graph_from_inputs(op_input_list, graph)


def _bounded_tensor_spec_class():
    from tideflow.ops.function_ops import TensorSpec

    class BoundedTensorSpec(TensorSpec):
        """A ``TensorSpec`` with ``minimum`` and ``maximum`` bounds (NumPy arrays of the spec's
        dtype, read-only) that broadcast to its shape."""

        __slots__ = ("_maximum", "_minimum")

        def __init__(self, shape, dtype, minimum, maximum, name=None):
            super().__init__(shape, dtype, name)
            if minimum is None or maximum is None:
                raise ValueError(f"minimum and maximum must be provided; but saw '{minimum}' "
                                 f"and '{maximum}'")
            for what, bound in (("minimum", minimum), ("maximum", maximum)):
                try:
                    np.broadcast_shapes(np.shape(bound), tuple(
                        1 if d is None else d for d in (self.shape.as_list() or []))
                        if self.shape.ndims is not None else np.shape(bound))
                except ValueError as e:
                    raise ValueError(f"{what} is not compatible with shape. "
                                     f"Message: {e!r}.") from None
            self._minimum = np.array(minimum, dtype=self.dtype.as_numpy_dtype)
            self._minimum.setflags(write=False)
            self._maximum = np.array(maximum, dtype=self.dtype.as_numpy_dtype)
            self._maximum.setflags(write=False)

        @classmethod
        def from_spec(cls, spec):
            dtype = dtypes.as_dtype(spec.dtype)
            return cls(spec.shape, dtype, getattr(spec, "minimum", dtype.min),
                       getattr(spec, "maximum", dtype.max), spec.name)

        @property
        def minimum(self):
            return self._minimum

        @property
        def maximum(self):
            return self._maximum

        def __eq__(self, other):
            return (super().__eq__(other) and np.allclose(self.minimum, other.minimum)
                    and np.allclose(self.maximum, other.maximum))

        __hash__ = TensorSpec.__hash__

        def __repr__(self):
            return (f"BoundedTensorSpec(shape={self.shape}, dtype={self.dtype!r}, "
                    f"name={self.name!r}, minimum={self.minimum!r}, maximum={self.maximum!r})")

    return BoundedTensorSpec


def _core_aliases():
    """TF 1.x contrib.framework's re-exports of core functions."""
    from tideflow.framework.ops import prepend_name_scope, strip_name_scope
    from tideflow.ops import init_ops
    from tideflow.ops.record_input_ops import RecordInput
    from tideflow.python import _deprecation

    tf = _tf()
    return {
        "assert_same_float_dtype": tf.assert_same_float_dtype,
        "is_numeric_tensor": tf.is_numeric_tensor,
        "is_non_decreasing": tf.is_non_decreasing,
        "is_strictly_increasing": tf.is_strictly_increasing,
        "is_tensor": tf.is_tensor,
        "convert_to_tensor_or_sparse_tensor": tf.convert_to_tensor_or_sparse_tensor,
        "assert_global_step": tf.train.assert_global_step,
        "TensorSpec": tf.TensorSpec,
        "deprecated": _deprecation.deprecated,
        "deprecated_args": _deprecation.deprecated_args,
        "deprecated_arg_values": _deprecation.deprecated_arg_values,
        "prepend_name_scope": prepend_name_scope,
        "strip_name_scope": strip_name_scope,
        "RecordInput": RecordInput,
        "convolutional_delta_orthogonal": init_ops.convolutional_delta_orthogonal,
        "convolutional_orthogonal_1d": init_ops.convolutional_orthogonal_1d,
        "convolutional_orthogonal_2d": init_ops.convolutional_orthogonal_2d,
        "convolutional_orthogonal_3d": init_ops.convolutional_orthogonal_3d,
    }


def py_func(func, args=(), kwargs=None, output_types=None, output_shapes=None, stateful=True,
            name=None):
    """contrib.framework's ``py_func``: ``tf.py_func`` over nested ``args``/``kwargs``, giving
    ``output_types``' structure back (types and shapes may be callables of the arguments)."""
    from tideflow.framework import nest
    from tideflow.ops import script_ops

    kwargs = {} if kwargs is None else kwargs
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"args must be list and not {type(args)}. args: {args}")
    if not isinstance(kwargs, dict):
        raise TypeError(f"kwargs must be dict and not {type(kwargs)}. args: {kwargs}")
    if callable(output_types):
        output_types = output_types(*args, **kwargs)
    if callable(output_shapes):
        output_shapes = output_shapes(*args, **kwargs)
    structure = (args, kwargs)

    def call_flat(*flat_values):
        call_args, call_kwargs = nest.pack_sequence_as(structure, list(flat_values))
        result = func(*call_args, **call_kwargs)
        nest.assert_shallow_structure(output_types, result)
        return nest.flatten(result)

    outputs = script_ops.py_func(call_flat, nest.flatten(structure), nest.flatten(output_types),
                                 stateful=stateful, name=name)
    if output_shapes is not None:
        shapes = nest.flatten(nest.map_structure_up_to(output_types, tensor_shape.as_shape,
                                                       output_shapes))
        for tensor, shape in zip(outputs, shapes):
            tensor.set_shape(shape)
    return nest.pack_sequence_as(output_types, outputs)


# contrib.framework's checkpoint helpers: tf.train's, under TF 1.15's contrib argument names
def init_from_checkpoint(checkpoint_dir, assignment_map):
    return _checkpoint_utils.init_from_checkpoint(checkpoint_dir, assignment_map)


def list_variables(checkpoint_dir):
    return _checkpoint_utils.list_variables(checkpoint_dir)


def load_checkpoint(filepattern):
    return _checkpoint_utils.load_checkpoint(filepattern)


def load_variable(checkpoint_dir, name):
    return _checkpoint_utils.load_variable(checkpoint_dir, name)


def _reachable_backward(seeds, name_to_inputs):
    seen, stack = set(), list(seeds)
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        stack.extend(i for i in name_to_inputs.get(n, ()) if i not in seen)
    return seen


def fuse_op(graph_def, input_nodes, output_nodes, output_dtypes, output_quantized, op_name,
            op_type):
    """A GraphDef with the nodes between ``input_nodes`` and ``output_nodes`` replaced by one
    node ``op_name`` of type ``op_type`` (TF 1.15's contrib.framework.fuse_op): it reads the
    input nodes and carries ``_output_types``/``_output_quantized``; each output node (which
    must have one input) reads its output in turn. The ops the input nodes need come first,
    the nodes that reach neither after the output nodes."""
    import copy

    from tideflow.framework.graph_util_impl import _summary
    from tideflow.protos import graph_pb2, node_def_pb2

    if not isinstance(graph_def, graph_pb2.GraphDef):
        raise TypeError("graph_def must be a graph_pb2.GraphDef proto.")
    if isinstance(input_nodes, str):
        raise TypeError("input_nodes must be a list.")
    if isinstance(output_nodes, str):
        raise TypeError("output_nodes must be a list.")
    name_to_inputs, name_to_node, name_to_seq = _summary(graph_def)
    for d in [*input_nodes, *output_nodes]:
        if d not in name_to_node:
            raise AssertionError(f"{d} is not in graph")
    by_input = _reachable_backward(input_nodes, name_to_inputs)
    by_output = _reachable_backward(output_nodes, name_to_inputs)
    inputs_set, outputs_set = set(input_nodes), set(output_nodes)
    post_output = []
    for node in graph_def.node:
        n = node.name
        if n in by_output:
            if n in by_input or n in outputs_set:
                continue
            # a fused node may read the graph only through the input nodes
            seen, stack = set(), [n]
            while stack:
                cur = stack.pop(0)
                seen.add(cur)
                if cur in by_input and cur not in inputs_set:
                    raise TypeError(f"Node {n} uses input {cur} not in input_nodes.")
                if cur not in inputs_set:
                    stack += [i for i in name_to_inputs[cur] if i not in seen]
        elif n not in by_input:
            post_output.append(n)
    out = graph_pb2.GraphDef()
    for n in sorted(by_input, key=lambda x: name_to_seq[x]):
        out.node.append(copy.deepcopy(name_to_node[n]))
    fused = node_def_pb2.NodeDef(name=op_name, op=op_type, input=list(input_nodes))
    fused.attr["_output_types"].list.type[:] = [
        dtypes.as_dtype(t).as_datatype_enum for t in output_dtypes]
    fused.attr["_output_quantized"].b = output_quantized
    out.node.append(fused)
    for index, n in enumerate(output_nodes):
        if len(name_to_node[n].input) != 1:
            raise AssertionError(f"output node {n} must have one input")
        node = copy.deepcopy(name_to_node[n])
        del node.input[:]
        node.input.append(op_name if index == 0 else f"{op_name}:{index}")
        out.node.append(node)
    for n in post_output:
        out.node.append(copy.deepcopy(name_to_node[n]))
    out.library.CopyFrom(graph_def.library)
    out.versions.CopyFrom(graph_def.versions)
    return out


def smart_case(pred_fn_pairs, default=None, exclusive=False, name="smart_case"):
    """``tf.case`` over predicates that may be Python bools or constant tensors (decided while
    building where they are known)."""
    from tideflow.python.framework.smart_cond import smart_case as _smart_case

    return _smart_case(pred_fn_pairs, default=default, exclusive=exclusive, name=name)


FUNCTIONS = ("add_model_variable", "assert_or_get_global_step", "assert_scalar",
             "assert_scalar_int", "get_graph_from_inputs", "get_name_scope", "get_placeholders",
             "reduce_sum_n",
             "remove_squeezable_dimensions", "smart_cond", "smart_constant_value", "with_shape",
             "with_same_shape", "init_from_checkpoint", "list_variables", "load_checkpoint",
             "load_variable", "py_func", "fuse_op", "smart_case")


def install(framework):
    """Adds these names to the ``tf.contrib.framework`` namespace module."""
    names = {n: globals()[n] for n in FUNCTIONS}
    names["BoundedTensorSpec"] = _bounded_tensor_spec_class()
    for key, value in _core_aliases().items():
        if not hasattr(framework, key):
            names[key] = value
    for key, value in names.items():
        setattr(framework, key, value)
    return sorted(names)
