"""``tf.wrap_function`` (TF 1.15): a Python function traced once into a graph of its own for
a signature of TensorSpecs, then called on tensors (each call adds the traced ops to the
calling graph, their outputs under one IdentityN named as TF's call op, ``PartitionedCall``),
and ``tf.TensorArraySpec``. As in TF, variables the function makes are lifted into the
enclosing graph, and tensors of that graph it reads are captured (read by each call)."""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape, as_shape
from tideflow.ops.function_ops import TypeSpec


class WrappedFunction:
    """A traced function: ``graph`` (its own), ``inputs`` (placeholders, one per signature
    entry), ``outputs`` and ``structured_outputs``; ``prune(feeds, fetches)`` gives the
    function computing other tensors of its graph from others."""

    def __init__(self, graph, inputs, structured_outputs, name, captures=()):
        self.graph = graph
        self.inputs = list(inputs)
        self.structured_outputs = structured_outputs
        self.name = name
        self._captures = list(captures)  # (enclosing tensor, placeholder standing for it)

    @property
    def outputs(self):
        return [x for x in nest.flatten(self.structured_outputs) if isinstance(x, ops.Tensor)]

    @property
    def structured_input_signature(self):
        from tideflow.ops.function_ops import TensorSpec

        return (tuple(TensorSpec(t.get_shape(), t.dtype, t.op.name) for t in self.inputs), {})

    def prune(self, feeds, fetches, name=None, input_signature=None):
        """The function of ``feeds`` (tensors of this graph, or their names) computing
        ``fetches`` (a structure of tensors or names)."""
        del input_signature

        def lookup(x):
            return self.graph.as_graph_element(x) if isinstance(x, str) else x

        feeds = [lookup(t) for t in nest.flatten(feeds)]
        fetches = nest.map_structure(lookup, fetches)
        for t in [*feeds, *nest.flatten(fetches)]:
            if isinstance(t, (ops.Tensor, ops.Operation)) and t.graph is not self.graph:
                raise ValueError(f"Can only prune function whose feeds and fetches are from "
                                 f"this graph ({self.graph}). {t} is not.")
        return WrappedFunction(self.graph, feeds, fetches, name or self.name, self._captures)

    def __call__(self, *args):
        from tideflow.framework import graph_util_impl, importer
        from tideflow.ops import array_ops

        if len(args) != len(self.inputs):
            raise TypeError(f"{self.name}: expected {len(self.inputs)} arguments, got "
                            f"{len(args)}")
        args = [ops.convert_to_tensor(a, dtype=t.dtype) for a, t in zip(args, self.inputs)]
        for a, t in zip(args, self.inputs):
            if not t.get_shape().is_compatible_with(a.get_shape()):
                raise ValueError(f"{self.name}: argument {a} is not compatible with the shape "
                                 f"{t.get_shape()} of {t.name}")
        flat = nest.flatten(self.structured_outputs)
        elements = [x for x in flat if isinstance(x, (ops.Tensor, ops.Operation))]
        if not elements:
            return self.structured_outputs
        graph_def = graph_util_impl.extract_sub_graph(
            self.graph.as_graph_def(), sorted({x.name.split(":")[0] for x in elements}))
        present = {n.name for n in graph_def.node}
        input_map = {t.name: a for t, a in zip(self.inputs, args) if t.op.name in present}
        input_map.update({ph.name: outer for outer, ph in self._captures
                          if ph.op.name in present})
        with ops.name_scope(None):
            imported = importer.import_graph_def(
                graph_def, input_map=input_map, return_elements=[x.name for x in elements],
                name=ops.get_default_graph().unique_name(self.name, mark_as_used=False))
        tensors = [x for x in imported if isinstance(x, ops.Tensor)]
        results = iter(array_ops.identity_n(tensors, name="PartitionedCall") if tensors else [])
        by_position = [next(results) if isinstance(x, ops.Tensor) else x for x in imported]
        it = iter(by_position)
        return nest.pack_sequence_as(
            self.structured_outputs,
            [next(it) if isinstance(x, (ops.Tensor, ops.Operation)) else x for x in flat])

    def __repr__(self):
        return f"<WrappedFunction {self.name}>"


def wrap_function(fn, signature, name=None):
    """``fn`` traced for ``signature`` (a list of TensorSpecs) into a graph of its own; the
    result is called on tensors of the enclosing graph (see the module docstring)."""
    from tideflow.framework.func_graph import FuncGraph
    from tideflow.ops import variables
    from tideflow.ops.constant_op import placeholder

    # a function graph with names and collections of its own; variables made inside go to
    # the enclosing graph (init_scope), tensors of it are captured
    graph = FuncGraph("wrapped_function", ops.get_default_graph())
    graph.use_private_collections()
    graph._counts_own_ops = True
    graph._names_in_use = {}
    graph._name_stack = ""
    def resource_variables(next_creator, **kwargs):  # (a function's variables are, in TF)
        kwargs["use_resource"] = True
        return next_creator(**kwargs)

    with graph.as_default(), variables.variable_creator_scope(resource_variables):
        inputs = [placeholder(s.dtype, s.shape, name=s.name or "placeholder")
                  for s in nest.flatten(signature)]
        args = nest.pack_sequence_as(signature, inputs) if signature is not None else []
        out = fn(*args)
        out = nest.map_structure(
            lambda x: x if x is None or isinstance(x, (ops.Operation, ops.Tensor))
            else ops.convert_to_tensor(x), out)
    return WrappedFunction(graph, inputs, out,
                           name or getattr(fn, "__name__", "wrapped_function"),
                           graph.captures)


class TensorArraySpec(TypeSpec):
    """The element shape, dtype, ``dynamic_size`` and ``infer_shape`` of a TensorArray."""

    __slots__ = ("_dtype", "_dynamic_size", "_element_shape", "_infer_shape")

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = (element_shape if isinstance(element_shape, TensorShape)
                               else as_shape(element_shape))
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = dynamic_size
        self._infer_shape = infer_shape

    @property
    def value_type(self):
        from tideflow.ops.tensor_array import TensorArray

        return TensorArray

    def _key(self):
        shape = self._element_shape
        dims = None if shape.ndims is None else tuple(shape.as_list())
        return dims, self._dtype, self._dynamic_size, self._infer_shape

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self._key())

    def is_compatible_with(self, other):
        if not isinstance(other, TypeSpec):
            other = TensorArraySpec.from_value(other)
        return (type(other) is type(self)
                and self._dtype.is_compatible_with(other._dtype)
                and self._element_shape.is_compatible_with(other._element_shape)
                and self._dynamic_size == other._dynamic_size
                and self._infer_shape == other._infer_shape)

    def most_specific_compatible_type(self, other):
        if not self.is_compatible_with(other):
            raise ValueError("Types are not compatible")
        return TensorArraySpec(
            self._element_shape.most_specific_compatible_shape(other._element_shape),
            self._dtype, self._dynamic_size, self._infer_shape)

    @staticmethod
    def from_value(value):
        from tideflow.ops.tensor_array import TensorArray

        if not isinstance(value, TensorArray):
            raise ValueError(  # noqa: TRY004 - as TF
                f"Expected value to be a TensorArray, but saw: {type(value)}")
        return TensorArraySpec(value.element_shape, value.dtype, value._dynamic_size,
                               value._infer_shape)

    def __repr__(self):
        return (f"TensorArraySpec({self._element_shape!r}, {self._dtype!r}, "
                f"{self._dynamic_size!r}, {self._infer_shape!r})")


__all__ = ["TensorArraySpec", "WrappedFunction", "wrap_function"]
