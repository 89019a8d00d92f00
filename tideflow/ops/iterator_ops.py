"""Iterators over datasets: the iterator resource, its ops and ``tf.data.Iterator``.

An iterator lives in its device's resource manager. ``MakeIterator`` (the initializer) turns a
dataset value into a fresh chain of Python iterators; ``IteratorGetNext`` takes one element
and raises OutOfRangeError at the end. Dropping the resource (re-initialization, session close)
stops the chain's background threads.
"""

import json
import threading
import warnings

from tideflow.framework import errors, func_graph, nest, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar
from tideflow.ops import dataset_kernels
from tideflow.ops import dataset_structure as ds
from tideflow.ops import dataset_values as dv

_END = object()


class IteratorResource:
    """One iterator: the current chain over a dataset value, and what it may produce."""

    def __init__(self, name, output_types, output_shapes, cancelled=None):
        self.name = name
        self.output_types = list(output_types)
        self.output_shapes = [TensorShape(s) for s in output_shapes]
        self._cancelled = cancelled
        self._lock = threading.Lock()
        self._it = None
        self._rt = None
        self._value = None  # the dataset value of the current chain
        self._consumed = 0  # elements taken from it (its saved state, see serialize_state)
        self.one_shot_done = False
        self.one_shot_error = None  # a one-shot iterator's failed initialization, re-raised

    def set_dataset(self, value, skip=0):
        rt = dv.IterRuntime(self._cancelled)
        it = value.iterate(rt)
        for _ in range(skip):
            if next(it, _END) is _END:
                break
        with self._lock:
            old, self._rt, self._it = self._rt, rt, it
            self._value, self._consumed = value, skip
        if old is not None:
            old.close()

    def serialize_state(self):
        """The iterator's position: how many elements it produced from its dataset.

        A departure from TF, which serializes every stage's buffers: restoring replays the
        dataset from its start and skips that many elements, which gives TF's position for
        any pipeline whose order is fixed (no unseeded shuffle, no sloppy interleave).
        """
        with self._lock:
            if self._value is None:
                raise errors.FailedPreconditionError(
                    None, None, "Iterator has not been initialized: nothing to save.")
            return json.dumps({"consumed": self._consumed}).encode()

    def restore_state(self, serialized):
        try:
            consumed = int(json.loads(bytes(serialized).decode())["consumed"])
        except (ValueError, KeyError, TypeError):
            raise errors.InvalidArgumentError(
                None, None, "Could not parse the saved iterator state") from None
        if self._value is None:
            raise errors.FailedPreconditionError(
                None, None, "Restoring an iterator needs it initialized first (run its "
                "initializer, or use a one-shot iterator).")
        self.set_dataset(self._value, consumed)

    def get_next(self, step=None):
        with self._lock:
            it, rt = self._it, self._rt
            if it is None:
                raise errors.FailedPreconditionError(
                    None, None, "GetNext() failed because the iterator has not been "
                    "initialized. Ensure that you have run the initializer operation for this "
                    "iterator before getting the next element.")
            rt.step = step
            try:
                out = next(it)
                self._consumed += 1
                return out
            except StopIteration:
                raise errors.OutOfRangeError(None, None, "End of sequence") from None
            finally:
                rt.step = None

    def close_resource(self):
        with self._lock:
            rt, self._rt, self._it = self._rt, None, None
        if rt is not None:
            rt.close()


def _resource_name(ctx):
    # one counter with the queues', readers' and tables' (TF's ContainerInfo counter is one
    # for every private resource): a queue made after an iterator is "_1_..." as in TF
    from tideflow.ops.queue_ops import resource_name

    return resource_name(ctx)


def _lookup_or_create(ctx):
    op = ctx.op
    container = op._attrs.get("container") or ""
    name = _resource_name(ctx)
    cancelled = getattr(ctx.session, "_cancelled", None)
    return ctx.resource_mgr.lookup_or_create(
        container, name, lambda: IteratorResource(name, op._attrs["output_types"],
                                                  op._attrs["output_shapes"], cancelled))


def _iterator_factory(ctx):
    return lambda: _lookup_or_create(ctx)


_ITERATOR_ATTRS = ["shared_name: string", "container: string",
                   "output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"]

for _type in ("Iterator", "IteratorV2"):
    op_registry.declare(
        _type,
        outputs=["handle: resource"],
        attrs=_ITERATOR_ATTRS,
        shape=lambda op: [scalar()],
        kernel_factory=_iterator_factory,
        differentiable=False,
        stateful=True,
    )


def _one_shot_factory(ctx):
    make = dataset_kernels.compiled(ctx, "dataset_factory")

    def run():
        res = _lookup_or_create(ctx)
        with res._lock:
            first = not res.one_shot_done
            res.one_shot_done = True
        if first:
            try:
                (value,) = make()
            except errors.OpError as e:
                # as TF: every later use of the iterator fails with the same error; the first
                # (out of the factory function) is marked derived, "[_Derived_]..."
                res.one_shot_error = e
                raise type(e)(e.node_def, e.op, "[_Derived_]" + e.message) from None
            res.set_dataset(value)
        elif res.one_shot_error is not None:
            err = res.one_shot_error
            raise type(err)(err.node_def, err.op, err.message)
        return res

    return run


op_registry.declare(
    "OneShotIterator",
    outputs=["handle: resource"],
    attrs=["dataset_factory: func", "output_types: list(type) >= 1",
           "output_shapes: list(shape) >= 1", "container: string = ''",
           "shared_name: string = ''"],
    shape=lambda op: [scalar()],
    kernel_factory=_one_shot_factory,
    differentiable=False,
    stateful=True,
)


def _check(handle):
    if not isinstance(handle, IteratorResource):
        raise errors.InvalidArgumentError(None, None, f"Expected an iterator handle, got "
                                          f"{type(handle).__name__}")
    return handle


def _make_iterator_kernel(dataset, iterator):
    _check(iterator).set_dataset(dataset)


op_registry.declare(
    "MakeIterator",
    inputs=["dataset: variant", "iterator: resource"],
    kernel=_make_iterator_kernel,
    differentiable=False,
    stateful=True,
)


def _serialize_iterator_kernel(resource_handle):
    import numpy as np

    return np.asarray(_check(resource_handle).serialize_state(), dtype=object)


op_registry.declare(
    "SerializeIterator",
    inputs=["resource_handle: resource"],
    outputs=["serialized: string"],  # TF: a variant; here the position, as a string
    attrs=["external_state_policy: int = 0"],
    newer_attrs=["external_state_policy"],
    shape=lambda op: [scalar()],
    kernel=_serialize_iterator_kernel,
    differentiable=False,
    stateful=True,
)


def _deserialize_iterator_kernel(resource_handle, serialized):
    import numpy as np

    _check(resource_handle).restore_state(np.asarray(serialized).reshape(())[()])


op_registry.declare(
    "DeserializeIterator",
    inputs=["resource_handle: resource", "serialized: string"],
    kernel=_deserialize_iterator_kernel,
    differentiable=False,
    stateful=True,
)


def _get_next_kernel(iterator, *, step):
    return _check(iterator).get_next(step)


def _get_next_shapes(op):
    return list(op._attrs["output_shapes"])


op_registry.declare(
    "IteratorGetNext",
    inputs=["iterator: resource"],
    outputs=["components: output_types"],
    attrs=["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
    shape=_get_next_shapes,
    kernel=_get_next_kernel,
    differentiable=False,
    stateful=True,
)


def _to_string_handle_factory(ctx):
    def run(handle):
        import numpy as np

        h = _check(handle)
        return np.asarray(json.dumps({"name": h.name, "id": id(h)}).encode(), dtype=object)

    return run


op_registry.declare(
    "IteratorToStringHandle",
    inputs=["resource_handle: resource"],
    outputs=["string_handle: string"],
    shape=lambda op: [scalar()],
    kernel_factory=_to_string_handle_factory,
    differentiable=False,
    stateful=True,
)


def _from_string_handle_factory(ctx):
    mgr = ctx.resource_mgr
    want_types = list(ctx.op._attrs["output_types"])
    want_shapes = [TensorShape(x) for x in ctx.op._attrs["output_shapes"]]

    def run(string_handle):
        import numpy as np

        raw = np.asarray(string_handle).reshape(())[()]
        try:
            info = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
            name = info["name"]
        except (ValueError, KeyError, TypeError, AttributeError):
            raise errors.InvalidArgumentError(
                None, None, "Could not parse string_handle as a valid ResourceHandle") from None
        for container in mgr.containers():
            try:
                res = mgr.lookup(container, name)
            except errors.NotFoundError:
                continue
            if id(res) == info.get("id"):
                _check_handle_structure(want_types, want_shapes, res)
                return res
        raise errors.NotFoundError(None, None, f"Resource {name} does not exist.")

    return run


def _shape_str(shape):
    if shape.ndims is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.as_list()) + "]"


def _check_handle_structure(want_types, want_shapes, res):
    """TF's checks (and messages) of a handle's iterator against the types and shapes the
    IteratorFromStringHandle op was made for."""
    from tideflow.framework.importer import _type_string

    have_types = list(res.output_types)
    if want_types:
        if len(want_types) != len(have_types):
            raise errors.InvalidArgumentError(
                None, None, f"Number of components does not match: expected "
                f"{len(want_types)} types but got {len(have_types)}.")
        for i, (want, have) in enumerate(zip(want_types, have_types)):
            if want != have:
                raise errors.InvalidArgumentError(
                    None, None, f"Data type mismatch at component {i}: expected "
                    f"{_type_string(want)} but got {_type_string(have)}.")
    if want_shapes:
        have_shapes = list(res.output_shapes)
        if len(want_shapes) != len(have_shapes):
            raise errors.InvalidArgumentError(
                None, None, f"Number of components does not match: expected "
                f"{len(want_shapes)} shapes but got {len(have_shapes)}.")
        for i, (want, have) in enumerate(zip(want_shapes, have_shapes)):
            if not want.is_compatible_with(have):
                raise errors.InvalidArgumentError(
                    None, None, f"Incompatible shapes at component {i}: expected "
                    f"{_shape_str(want)} but got {_shape_str(have)}.")


op_registry.declare(
    "IteratorFromStringHandleV2",
    inputs=["string_handle: string"],
    outputs=["resource_handle: resource"],
    attrs=["output_types: list(type) >= 0 = []", "output_shapes: list(shape) >= 0 = []"],
    shape=lambda op: [scalar()],
    kernel_factory=_from_string_handle_factory,
    differentiable=False,
    stateful=True,
)


def _single_element_kernel(dataset):
    rt = dv.IterRuntime()
    try:
        it = dataset.iterate(rt)
        try:
            elem = next(it)
        except StopIteration:
            raise errors.InvalidArgumentError(None, None, "Dataset was empty.") from None
        try:
            next(it)
        except StopIteration:
            return elem
        raise errors.InvalidArgumentError(None, None, "Dataset had more than one element.")
    finally:
        rt.close()


op_registry.declare(
    "DatasetToSingleElement",
    inputs=["dataset: variant"],
    outputs=["components: output_types"],
    attrs=["output_types: list(type) >= 1", "output_shapes: list(shape) >= 1"],
    shape=_get_next_shapes,
    kernel=_single_element_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# one-shot iterators: the dataset is rebuilt inside a function, capturing values by value
# ------------------------------------------------------------------------------------------

# TF copies a PlaceholderWithDefault (and its default) into the function
_PLACEHOLDERS = ("Placeholder", "PlaceholderV2")
# where TF's OpDef says stateful (what it refuses to copy) but tideflow's declaration does not,
# and the other way round (tideflow keeps these from CSE and constant folding)
_STATEFUL_IN_TF = frozenset({"CheckNumerics", "GuaranteeConst", "DeepCopy"})
_STATELESS_IN_TF = frozenset({"MatchingFiles", "ReadFile", "ExtractGlimpse", "FakeParam",
                              "FractionalAvgPool", "FractionalMaxPool", "Merge", "Switch"})


def _stateful_in_tf(op):
    if op.type in _STATEFUL_IN_TF:
        return True
    if op.type in _STATELESS_IN_TF:
        return False
    op_def = op_registry.lookup(op.type)
    return op_def is not None and op_def.is_stateful


class _OwnNames:
    """A one-shot factory function's names: its own, as TF's function's (the constants it
    copies leave "Const_1" free in the graph), unique among the graph's too. (Its dataset
    ops take the names reserved in the graph when the datasets were made.)"""

    def __init__(self, shared):
        self.shared, self.own = shared, {}

    def get(self, key, default=None):
        return max(self.own.get(key, 0), self.shared.get(key, 0)) or default

    def __contains__(self, key):
        return key in self.own or key in self.shared

    def __setitem__(self, key, value):
        self.own[key] = value

    def __len__(self):
        return len(self.own) + len(self.shared)

    def pop(self, key, default=None):
        return self.own.pop(key, default)


class _ByValueGraph(func_graph.FuncGraph):
    """A function body that copies the ops it captures (TF's ``capture_by_value``)."""

    def __init__(self, name, outer_graph=None):
        super().__init__(name, outer_graph)
        self._copies = {}
        self._names_in_use = _OwnNames(self._names_in_use)

    def capture(self, tensor, name=None):
        if tensor._op._graph is self:
            return tensor
        got = self._copies.get(tensor)
        if got is not None:
            return got
        op = tensor._op
        if op.type in _PLACEHOLDERS:
            raise ValueError(f"Cannot capture a placeholder (name:{op.name}, type:{op.type}) "
                             "by value.")
        if _stateful_in_tf(op) or any(
                t._dtype._is_ref_dtype or t._dtype.base_dtype.name == "resource"
                for t in op._outputs):
            raise ValueError(f"Cannot capture a stateful node (name:{op.name}, type:{op.type}) "
                             "by value.")
        inputs = [self.capture(t) for t in op._inputs]
        with ops.Graph.control_dependencies(self, None):
            new = ops.apply_op(op.type, inputs, dict(op._attrs),
                               name=op.name.rsplit("/", 1)[-1], graph=self, _flat=True)
        for a, b in zip(op._outputs, new._outputs):
            b.set_shape(a._shape)
            self._copies[a] = b
        return self._copies[tensor]


def one_shot_iterator(dataset, name=None):
    graph = ops.get_default_graph()
    fname = func_graph.unique_function_name(graph, "_make_dataset")
    first_id, n_ops = graph._next_id, len(graph._ops)
    # the dataset ops without an id reserved in this graph (a dataset made elsewhere)
    unreserved = _dataset_op_count(dataset, graph=graph)
    fg = _ByValueGraph(fname, graph)
    try:
        with fg.as_default():
            out = dataset._as_variant_tensor()
            fg.structured_outputs = [out]
            fg.outputs = [out]
    except ValueError as err:
        if "Cannot capture a stateful node" not in str(err):
            raise
        raise ValueError(
            "Failed to create a one-shot iterator for a dataset. "
            "`Dataset.make_one_shot_iterator()` does not support datasets that capture "
            "stateful objects, such as a `Variable` or `LookupTable`. In these cases, use "
            f"`Dataset.make_initializable_iterator()`. (Original error: {err})") from None
    func_graph.add_function(graph, fg, tf_function=True)
    # TF 1.15 made the dataset's ops in the graph with the datasets (the factory function
    # copies them): their ids are taken here, the function's own given back
    func_graph.give_back_ids(graph, first_id, n_ops, extra=unreserved)
    specs = dataset._specs
    # TF's op names: OneShotIterator; IteratorV2 and MakeIterator; make_initializer
    op = ops.apply_op("OneShotIterator", [], {
        "dataset_factory": fname, **ds.wire_attrs(specs)}, name=name or "OneShotIterator")
    return Iterator(op._outputs[0], None, specs)


def _dataset_op_count(dataset, seen=None, graph=None):
    """The number of dataset ops in ``dataset``'s chain (one per dataset made by an op); with
    ``graph``, of those without an id reserved in it."""
    seen = set() if seen is None else seen
    if id(dataset) in seen:
        return 0
    seen.add(id(dataset))
    own = 1 if hasattr(dataset, "_op_type") else 0
    if own and graph is not None and dataset._reserved_in(graph):
        own = 0
    inputs = getattr(dataset, "_input_datasets", None)
    inner = inputs() if callable(inputs) else []
    if not inner and getattr(dataset, "_input", None) is not None:
        inner = [dataset._input]
    return own + sum(_dataset_op_count(d, seen, graph) for d in inner)


def initializable_iterator(dataset, shared_name=None, name=None):
    specs = dataset._specs
    variant = dataset._as_variant_tensor()
    # TF 1.15 applies the dataset's default options here: an optimizations Const, an
    # OptimizeDataset and a ModelDataset (pass-through here): their ids are skipped
    g = ops.get_default_graph()
    g._skip_op_ids(3)
    handle = ops.apply_op("IteratorV2", [], {
        "shared_name": shared_name or "", "container": "", **ds.wire_attrs(specs)},
        name=name or "IteratorV2")._outputs[0]
    init = ops.apply_op("MakeIterator", [variant, handle], name="MakeIterator")
    return Iterator(handle, init, specs)


# ------------------------------------------------------------------------------------------
# tf.data.Iterator
# ------------------------------------------------------------------------------------------


def _fmt(x):
    return repr(x)


GLOBAL_ITERATORS = "iterators"

# TF warns when one iterator's get_next() is called this often: a get_next() inside the
# training loop adds ops to the graph at every step
GET_NEXT_CALL_WARNING_THRESHOLD = 32
GET_NEXT_CALL_WARNING_MESSAGE = (
    "An unusually high number of `Iterator.get_next()` calls was detected. This often "
    "indicates that `Iterator.get_next()` is being called inside a training loop, which will "
    "cause gradual slowdown and eventual resource exhaustion. If this is the case, restructure "
    "your code to call `next_element = iterator.get_next()` once outside the loop, and use "
    "`next_element` as the input to some computation that is invoked inside the loop.")


class Iterator(ds.Structured):
    """``tf.data.Iterator``: elements of a dataset, one ``get_next()`` per step."""

    def __init__(self, iterator_resource, initializer, specs):
        self._iterator_resource = iterator_resource
        self._initializer = initializer
        self._specs = specs
        self._get_next_call_count = 0
        # TF's GLOBAL_ITERATORS collection (CheckpointInputPipelineHook saves what it holds)
        ops.add_to_collection(GLOBAL_ITERATORS, iterator_resource)
        # made with the iterator, as TF does: string_handle() then adds no op
        self._string_handle = ops.apply_op("IteratorToStringHandle", [iterator_resource],
                                           name="IteratorToStringHandle")._outputs[0]

    @property
    def element_spec(self):
        """The element structure as a nest of ``tf.TensorSpec`` (TF 1.15's, as a dataset's)."""
        from tideflow.ops.dataset_more import get_structure

        return get_structure(self)

    @staticmethod
    def from_structure(output_types, output_shapes=None, shared_name=None,
                       output_classes=None):
        """A reinitializable iterator for datasets of this structure (``make_initializer``)."""
        specs = ds.specs_from(output_types, output_shapes, output_classes)
        handle = ops.apply_op("IteratorV2", [], {
            "shared_name": shared_name or "", "container": "", **ds.wire_attrs(specs)},
            name="IteratorV2")._outputs[0]
        return Iterator(handle, None, specs)

    @staticmethod
    def from_string_handle(string_handle, output_types, output_shapes=None,
                           output_classes=None):
        """An iterator that runs whichever iterator the fed ``string_handle`` names."""
        specs = ds.specs_from(output_types, output_shapes, output_classes)
        string_handle = ops.convert_to_tensor(string_handle, dtype="string")
        handle = ops.apply_op("IteratorFromStringHandleV2", [string_handle],
                              ds.wire_attrs(specs), name="IteratorFromStringHandleV2")._outputs[0]
        return Iterator(handle, None, specs)

    @property
    def initializer(self):
        if self._initializer is None:
            raise ValueError("Iterator does not have an initializer.")
        return self._initializer

    def make_initializer(self, dataset, name=None):
        """The op that (re)starts this iterator on ``dataset`` (same structure)."""
        with ops.name_scope(name, "make_initializer") as scope:
            mine, theirs = self._specs, dataset._specs
            # as TF: a different nesting is nest's ValueError (TypeError for another sequence
            # type) before any dtype/class/shape comparison
            nest.assert_same_structure(self.output_types, dataset.output_types)
            nest.assert_same_structure(self.output_shapes, dataset.output_shapes)
            # TF 1.15's order: classes, then types, then shapes
            if ds.flatten(self.output_classes) != ds.flatten(dataset.output_classes):
                raise TypeError(f"Expected output classes {_fmt(self.output_classes)} but got "
                                f"dataset with output class "
                                f"{_fmt(dataset.output_classes)}.")
            try:
                ds.assert_same_structure(mine, theirs)
            except (TypeError, ValueError) as e:
                raise TypeError(f"Expected output types {_fmt(self.output_types)} but got "
                                f"dataset with output types {_fmt(dataset.output_types)}.") from e
            if ds.flatten(self.output_types) != ds.flatten(dataset.output_types):
                raise TypeError(f"Expected output types {_fmt(self.output_types)} but got "
                                f"dataset with output types {_fmt(dataset.output_types)}.")
            for a, b in zip(ds.flatten(self.output_shapes), ds.flatten(dataset.output_shapes)):
                if not a.is_compatible_with(b):
                    raise TypeError(f"Expected output shapes compatible with "
                                    f"{_fmt(self.output_shapes)} but got dataset with output "
                                    f"shapes {_fmt(dataset.output_shapes)}.")
            from tideflow.ops.dataset_ops import unoptimized_variant

            return ops.apply_op("MakeIterator", [unoptimized_variant(dataset),
                                                 self._iterator_resource], name=scope)

    def get_next(self, name=None):
        """The next element: a nest of Tensors (SparseTensors) with the static shapes."""
        self._get_next_call_count += 1
        if self._get_next_call_count > GET_NEXT_CALL_WARNING_THRESHOLD:
            warnings.warn(GET_NEXT_CALL_WARNING_MESSAGE)
        return ds.apply_structured("IteratorGetNext", [self._iterator_resource], self._specs,
                                   name or "IteratorGetNext")

    def string_handle(self, name=None):
        """A scalar string naming this iterator, to feed ``from_string_handle`` iterators.
        Without ``name`` the same tensor is returned on every call (one op, as in TF)."""
        if name is None:
            return self._string_handle
        return ops.apply_op("IteratorToStringHandle", [self._iterator_resource],
                            name=name)._outputs[0]


def get_single_element(dataset):
    """``tf.data.experimental.get_single_element``: the only element of ``dataset``."""
    from tideflow.ops.dataset_ops import Dataset

    if not isinstance(dataset, Dataset):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    from tideflow.ops.dataset_ops import unoptimized_variant

    return ds.apply_structured("DatasetToSingleElement", [unoptimized_variant(dataset)],
                               dataset._specs, "DatasetToSingleElement")



# ------------------------------------------------------------------------------------------
# tf.compat.v1.data functions
# ------------------------------------------------------------------------------------------


def make_one_shot_iterator(dataset):
    """``tf.compat.v1.data.make_one_shot_iterator(dataset)``."""
    return one_shot_iterator(dataset)


def make_initializable_iterator(dataset, shared_name=None):
    """``tf.compat.v1.data.make_initializable_iterator(dataset, shared_name)``."""
    return initializable_iterator(dataset, shared_name)


def get_output_types(dataset_or_iterator):
    return dataset_or_iterator.output_types


def get_output_shapes(dataset_or_iterator):
    return dataset_or_iterator.output_shapes


def get_output_classes(dataset_or_iterator):
    return dataset_or_iterator.output_classes


def make_saveable_from_iterator(iterator, external_state_policy=None):
    """``tf.data.experimental.make_saveable_from_iterator``: a SaveableObject that a Saver
    saves (add it to the SAVEABLE_OBJECTS collection) and restores the iterator's position."""
    del external_state_policy
    return saveable_for_resource(iterator._iterator_resource)


def saveable_for_resource(resource):
    """The SaveableObject of the iterator whose resource handle is ``resource``."""
    from tideflow.train.saveable import SaveableObject, SaveSpec

    class _IteratorSaveable(SaveableObject):
        def __init__(self):
            serialized = ops.apply_op("SerializeIterator", [resource],
                                      name="SerializeIterator")._outputs[0]
            super().__init__(resource, [SaveSpec(serialized, "", resource.name + "_STATE",
                                                 device=resource.device)], resource.name)

        def restore(self, restored_tensors, restored_shapes):
            with ops.colocate_with(self.op):
                return ops.apply_op("DeserializeIterator", [self.op, restored_tensors[0]],
                                    name="DeserializeIterator")

    return _IteratorSaveable()
