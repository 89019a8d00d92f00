"""``tf.TensorSpec`` and the graph-mode decorators ``tf.function`` and
``tf.nondifferentiable_batch_function``.

In TF 1.x graph mode a ``tf.function`` call adds one PartitionedCall op running the traced
function; tideflow builds the function's ops inline in the calling graph instead (under a
name scope named after it), which computes the same values and gradients. With
``autograph=True`` (the default) the function is converted once by ``tf.autograph`` (Python
control flow on tensors becomes ``tf.cond``/``tf.while_loop``) before its first call.
"""

import functools
import re

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape, as_shape


class TypeSpec:
    """Base of the specs describing values (tideflow has only TensorSpec)."""


class TensorSpec(TypeSpec):
    """The shape, dtype and optional name of a Tensor."""

    __slots__ = ("_dtype", "_name", "_shape")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = as_shape(shape) if not isinstance(shape, TensorShape) else shape
        self._dtype = dtypes.as_dtype(dtype)
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        if not isinstance(tensor, ops.Tensor):
            raise ValueError(  # noqa: TRY004 - as TF
                f"`tensor` should be a tf.Tensor, but got type {type(tensor)}.")
        return cls(tensor.get_shape(), tensor.dtype, name or tensor.op.name)

    @classmethod
    def from_spec(cls, spec, name=None):
        return cls(spec.shape, spec.dtype, name or spec.name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    def is_compatible_with(self, spec_or_tensor):
        other_dtype = getattr(spec_or_tensor, "dtype", None)
        other_shape = spec_or_tensor.get_shape() if isinstance(spec_or_tensor, ops.Tensor) \
            else getattr(spec_or_tensor, "shape", None)
        if other_dtype is None or other_shape is None:
            return False
        return (self._dtype.is_compatible_with(other_dtype) and
                self._shape.is_compatible_with(other_shape))

    def __eq__(self, other):
        if type(other) is not type(self):
            return False
        a, b = self._shape, other._shape
        same_shape = a.ndims == b.ndims and (a.ndims is None or a.as_list() == b.as_list())
        return same_shape and self._dtype == other._dtype and self._name == other._name

    def __hash__(self):
        return hash((self._dtype, self._name, self._shape.ndims))

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"


def function(func=None, input_signature=None, autograph=True, experimental_autograph_options=None,
             experimental_relax_shapes=False, experimental_compile=None, **kwargs):
    """``tf.function`` in graph mode: calls build ``func``'s ops inline (see the module
    docstring), converted by AutoGraph unless ``autograph=False``; ``input_signature`` is
    checked against the arguments."""
    if func is None:
        return functools.partial(function, input_signature=input_signature, autograph=autograph,
                                 experimental_autograph_options=experimental_autograph_options)
    converted = []  # the AutoGraph version, made on the first call

    def target():
        if not converted:
            fn = func
            if autograph:
                from tideflow.autograph import conversion

                fn = conversion.maybe_convert(func)
            converted.append(fn)
        return converted[0]

    @functools.wraps(func)
    def wrapped(*args, **kw):
        if input_signature is not None:
            if len(args) != len(input_signature):
                raise TypeError(f"{func.__name__}: expected {len(input_signature)} arguments "
                                f"by its input_signature, got {len(args)}")
            args = tuple(_conform(func, a, spec) for a, spec in zip(args, input_signature))
        fn = target()
        graph = ops.get_default_graph()
        start = len(graph._ops)
        with ops.name_scope(_scope_name(func)):
            try:
                out = fn(*args, **kw)
            except Exception as e:
                if not autograph:
                    raise
                from tideflow.autograph import errors

                # as TF 1.15's AutoGraph: "in converted code:" and the frames from func down
                err = errors.converted_code_error(e, func)
                if err is None:
                    raise
                raise err from None
            return _with_side_effects(out, graph._ops[start:]) if autograph else out

    wrapped.python_function = func
    wrapped.input_signature = input_signature
    wrapped.get_concrete_function = functools.partial(_concrete, wrapped, input_signature)
    return wrapped


def _conform(func, arg, spec):
    """``arg`` as tensors matching ``spec``, an input-signature entry (a TensorSpec, or a
    nested list, tuple or dict of them: each leaf of ``arg`` is checked against its spec)."""
    from tideflow.framework import nest

    def one(a, s):
        t = ops.convert_to_tensor(a, dtype=s.dtype)
        if not s.is_compatible_with(t):
            raise ValueError(f"{func.__name__}: argument {t} is not compatible with {s}")
        return t

    if isinstance(spec, TensorSpec):
        return one(arg, spec)
    try:
        leaves = nest.flatten_up_to(spec, arg, check_types=False)
    except (ValueError, TypeError) as e:
        raise ValueError(f"{func.__name__}: argument {arg!r} does not match the structure of "
                         f"its input_signature entry {spec!r}: {e}") from None
    return nest.pack_sequence_as(spec, [one(a, s) for a, s in zip(leaves, nest.flatten(spec))])


def _scope_name(func):
    """The name scope a call builds its ops under: the function's name made a valid root
    scope name (``_helper`` and ``<lambda>`` are not)."""
    name = re.sub(r"[^A-Za-z0-9_.\\/-]", "_", getattr(func, "__name__", "function"))
    return name.lstrip("_/-\\") or "function"


class ConcreteFunction:
    """One trace of a ``tf.function`` for given argument specs: its output structure, shapes
    and dtypes are known without running; calling it calls the function on new arguments.

    The trace is built in the calling graph (placeholders stand for TensorSpec arguments),
    as every call of a tideflow ``tf.function`` is; nothing runs it unless it is fetched."""

    def __init__(self, fn, specs, inputs, outputs):
        self._fn = fn
        self.python_function = getattr(fn, "python_function", fn)
        self.name = getattr(self.python_function, "__name__", "function")
        self.structured_input_signature = (tuple(specs), {})
        self.inputs = inputs
        self.structured_outputs = outputs
        self.graph = ops.get_default_graph()

    def __call__(self, *args, **kwargs):
        return self._fn(*args, **kwargs)

    @property
    def outputs(self):
        from tideflow.framework import nest

        return [x for x in nest.flatten(self.structured_outputs) if isinstance(x, ops.Tensor)]

    @property
    def output_shapes(self):
        from tideflow.framework import nest

        return nest.map_structure(lambda t: t.shape if isinstance(t, ops.Tensor) else None,
                                  self.structured_outputs)

    @property
    def output_dtypes(self):
        from tideflow.framework import nest

        return nest.map_structure(lambda t: t.dtype if isinstance(t, ops.Tensor) else None,
                                  self.structured_outputs)

    def __repr__(self):
        return f"<ConcreteFunction {self.name}>"


def _concrete(fn, input_signature, *args, **kwargs):
    """``get_concrete_function``: the function traced for ``args`` (TensorSpecs, tensors or
    values; the input signature's specs when none are given)."""
    from tideflow.ops.constant_op import placeholder

    if not args and not kwargs and input_signature is not None:
        args = tuple(input_signature)
    specs, inputs = [], []

    def stand_in(a):
        if isinstance(a, TensorSpec):
            t = placeholder(a.dtype, a.shape, name=a.name)
            specs.append(a)
            inputs.append(t)
            return t
        if isinstance(a, ops.Tensor):
            specs.append(TensorSpec.from_tensor(a))
            inputs.append(a)
        else:
            specs.append(a)
        return a

    with ops.name_scope("get_concrete_function"):
        traced = [stand_in(a) for a in args]
        kw = {k: stand_in(v) for k, v in kwargs.items()}
        outputs = fn(*traced, **kw)
    return ConcreteFunction(fn, specs, inputs, outputs)


# ops run for their effect alone (state updates, prints, asserts, Python calls); TF's
# tf.function runs those it made (automatic control dependencies), which here means the
# outputs depend on them. Variable initializers, resource creation and random draws are not
# among them.
_EFFECT_OPS = frozenset({
    "PrintV2", "Print", "Assert", "PyFunc", "EagerPyFunc", "WriteFile", "CountUpTo", "Stage",
    "MapStage", "OrderedMapStage", "AccumulatorApplyGradient", "SparseAccumulatorApplyGradient",
    "AccumulatorSetGlobalStep", "StridedSliceAssign",
})
_EFFECT_PREFIXES = ("Assign", "Scatter", "Apply", "SparseApply", "ResourceApply",
                    "ResourceSparseApply", "ResourceScatter", "QueueEnqueue",
                    "LookupTableInsert", "LookupTableRemove", "LookupTableImport")
_FUNCTION_ATTRS = {"If": ("then_branch", "else_branch"), "While": ("cond", "body")}


def _has_effect(op, depth=0):
    """An op updating state, printing or asserting, or a cond or loop running one."""
    t = op.type
    if t in _EFFECT_OPS or t.startswith(_EFFECT_PREFIXES):
        return True
    if t not in _FUNCTION_ATTRS or depth > 8:
        return False
    from tideflow.framework import func_graph

    for attr in _FUNCTION_ATTRS[t]:
        try:
            fg = func_graph.lookup_function(op.graph, op.get_attr(attr))
        except (ValueError, KeyError):
            continue
        if any(_has_effect(o, depth + 1) for o in fg.get_operations()):
            return True
    return False


def _initializers(graph):
    """The ops initializing the graph's variables and tables (run once, never per step)."""
    out = set()
    for key in ("variables", "local_variables"):
        for v in graph.get_collection(key):
            init = getattr(v, "initializer", None)
            if init is not None:
                out.add(id(init))
    out.update(id(op) for op in graph.get_collection("table_initializer"))
    return out


def _with_side_effects(out, new_ops):
    """``out`` made to depend on the ops among ``new_ops`` run for their effect (a converted
    ``print`` or ``assert``, a loop printing) that ``out`` does not already depend on."""
    effects = [op for op in new_ops if _has_effect(op)]
    if effects:
        skip = _initializers(effects[0].graph)
        effects = [op for op in effects if id(op) not in skip]
    if not effects or out is None:
        return out
    from tideflow.framework import nest
    from tideflow.ops import array_ops

    made = set(map(id, new_ops))
    needed, stack = set(), [x.op if isinstance(x, ops.Tensor) else x for x in nest.flatten(out)
                            if isinstance(x, (ops.Tensor, ops.Operation))]
    while stack:
        op = stack.pop()
        if id(op) in needed or id(op) not in made:
            continue
        needed.add(id(op))
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    sinks = [op for op in effects if id(op) not in needed]
    if not sinks:
        return out

    def depend(x):
        if isinstance(x, ops.Tensor):
            with ops.control_dependencies(sinks):
                return array_ops.identity(x)
        return x

    return nest.map_structure(depend, out)


def nondifferentiable_batch_function(num_batch_threads, max_batch_size, batch_timeout_micros,
                                     allowed_batch_sizes=None, max_enqueued_batches=10,
                                     autograph=True, enable_large_batch_splitting=True):
    """Decorator for functions whose concurrent calls TF batches together; each call here
    runs the function on its own inputs (the same results), and the outputs carry no
    gradient."""
    from tideflow.framework import nest
    from tideflow.ops.array_ops import stop_gradient

    def decorator(fn):
        @functools.wraps(fn)
        def decorated(*args):
            out = fn(*args)
            return nest.map_structure(lambda t: stop_gradient(t) if isinstance(
                t, ops.Tensor) else t, out)

        return decorated

    return decorator


class SparseTensorSpec(TypeSpec):
    """The dense shape and dtype of a SparseTensor."""

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = as_shape(shape) if not isinstance(shape, TensorShape) else shape
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.get_shape(), value.dtype)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def is_compatible_with(self, other):
        return (hasattr(other, "dtype") and self._dtype.is_compatible_with(other.dtype) and
                self._shape.is_compatible_with(
                    other.get_shape() if hasattr(other, "get_shape") else other.shape))

    def __eq__(self, other):
        return (type(other) is type(self) and self._dtype == other._dtype and
                repr(self._shape) == repr(other._shape))

    def __hash__(self):
        return hash((self._dtype, repr(self._shape)))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


class IndexedSlicesSpec(TypeSpec):
    """The dense shape and dtypes of an IndexedSlices."""

    def __init__(self, shape=None, dtype=dtypes.float32, indices_dtype=dtypes.int64,
                 dense_shape_dtype=None, indices_shape=None):
        self._shape = as_shape(shape) if not isinstance(shape, TensorShape) else shape
        self._dtype = dtypes.as_dtype(dtype)
        self._indices_dtype = dtypes.as_dtype(indices_dtype)
        self._dense_shape_dtype = (None if dense_shape_dtype is None
                                   else dtypes.as_dtype(dense_shape_dtype))
        indices_shape = TensorShape([None]) if indices_shape is None else indices_shape
        self._indices_shape = as_shape(indices_shape)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)

    def __eq__(self, other):
        return type(other) is type(self) and repr(self) == repr(other)

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return (f"IndexedSlicesSpec({self._shape!r}, {self._dtype!r}, {self._indices_dtype!r}, "
                f"{self._dense_shape_dtype!r}, {self._indices_shape!r})")


def type_spec_from_value(value):
    """The TypeSpec describing ``value`` (a Tensor, SparseTensor, IndexedSlices, or anything
    convertible to a Tensor)."""
    from tideflow.framework.indexed_slices import IndexedSlices
    from tideflow.framework.sparse_tensor import SparseTensor

    if isinstance(value, SparseTensor):
        return SparseTensorSpec.from_value(value)
    if isinstance(value, IndexedSlices):
        dense = ops.constant_value(value.dense_shape) if value.dense_shape is not None else None
        shape = TensorShape(None) if dense is None else TensorShape(list(dense))
        if dense is None and value.values.get_shape().ndims is not None:
            shape = TensorShape([None]).concatenate(value.values.get_shape()[1:])
        return IndexedSlicesSpec(
            shape, value.values.dtype, value.indices.dtype,
            None if value.dense_shape is None else value.dense_shape.dtype,
            value.indices.get_shape())
    try:
        t = value if isinstance(value, ops.Tensor) else ops.convert_to_tensor(value)
    except (TypeError, ValueError):
        raise TypeError(f"Could not build a TypeSpec for {value!r} of unsupported type "
                        f"{type(value)}.") from None
    return TensorSpec(t.get_shape(), t.dtype)
