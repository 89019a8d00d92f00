"""Lookup tables: ``tf.contrib.lookup`` / ``tf.lookup`` hash tables and their initializers.

A ``HashTableV2`` op yields a resource handle to an immutable key->value map in its device's
resource manager. ``InitializeTableV2`` (from key/value tensors) or
``InitializeTableFromTextFileV2`` (from a vocabulary file) fill it once; ``LookupTableFindV2``
maps keys to values (missing keys get the default value) and ``LookupTableSizeV2`` counts the
entries. Initializers join the ``TABLE_INITIALIZERS`` collection, which ``tf.tables_initializer()``
runs. Out-of-vocabulary keys may go to ``num_oov_buckets`` hash buckets (TF's Fingerprint64, in
``string_hash_ops``); the keyed StrongHashSpec (SipHash) is not implemented.
``MutableHashTable`` (``MutableHashTable(OfTensors)V2``) changes at run time through
``LookupTableInsertV2``/``RemoveV2``/``ImportV2`` and is checkpointed through its export;
``MutableDenseHashTable`` (dense_hash_table_ops.py) is its open-addressing sibling.
"""

import contextlib
import threading

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import scalar
from tideflow.ops.cast_ops import cast
from tideflow.ops.queue_ops import resource_name
from tideflow.ops.variables import tables_initializer  # noqa: F401  (TF's lookup_ops defines it)

# ------------------------------------------------------------------------------------------
# the resource
# ------------------------------------------------------------------------------------------


def _key(x, dtype):
    if dtype == _dtypes.string:
        return x if isinstance(x, bytes) else str(x).encode()
    if dtype.is_floating:
        return float(x)
    if dtype == _dtypes.bool:
        return bool(x)
    return int(x)


class HashTableResource:
    """An immutable hash table: filled once by an initializer, then only read."""

    kind = "HashTable"

    def __init__(self, name, key_dtype, value_dtype):
        self.name = name
        self.key_dtype = key_dtype
        self.value_dtype = value_dtype
        self._lock = threading.Lock()
        self._map = None

    def _check_types(self, key_dtype, value_dtype):
        if key_dtype != self.key_dtype or value_dtype != self.value_dtype:
            raise errors.InvalidArgumentError(
                None, None,
                f"Conflicting key/value dtypes {key_dtype.name}->{value_dtype.name} with "
                f"{self.key_dtype.name}->{self.value_dtype.name} for table {self.name}")

    def insert_all(self, keys, values):
        """Fills the table from parallel key and value lists."""
        with self._lock:
            m = {}
            for k, v in zip(keys, values):
                k = _key(k, self.key_dtype)
                old = m.get(k, _MISSING)
                if old is not _MISSING and old != v:
                    raise errors.FailedPreconditionError(
                        None, None,
                        f"HashTable has different value for same key. Key {_show(k)} has "
                        f"{_show(old)} and trying to add value {_show(v)}")
                m[k] = v
            if self._map is not None:
                # as TF 1.14+: running an initializer again is a no-op when it brings as
                # many entries (TF 1.15 compares the sizes only; the first entries stay)
                if len(self._map) != len(m):
                    raise errors.FailedPreconditionError(
                        None, None, "Table was already initialized with different data.")
                return
            self._map = m

    def _table(self):
        m = self._map
        if m is None:
            raise errors.FailedPreconditionError(None, None, "Table not initialized.")
        return m

    def find(self, keys, default):
        m = self._table()
        np_dtype = self.value_dtype.as_numpy_dtype
        keys = np.asarray(keys)
        default = np.asarray(default)
        if default.size != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape [] for default value, got {list(default.shape)}")
        d = default.reshape(()).item()
        kd = self.key_dtype
        out = [m.get(_key(k, kd), d) for k in keys.reshape(-1).tolist()]
        if self.value_dtype == _dtypes.string:
            res = np.empty(len(out), dtype=object)
            res[:] = out
        else:
            res = np.array(out, dtype=np_dtype)
        return res.reshape(keys.shape)

    def size(self):
        m = self._map
        return np.int64(0 if m is None else len(m))

    def export(self):
        """All ``(keys, values)`` as two vectors."""
        items = list(self._table().items())
        out = []
        for vals, dtype in (([k for k, _ in items], self.key_dtype),
                            ([v for _, v in items], self.value_dtype)):
            if dtype == _dtypes.string:
                arr = np.empty(len(vals), dtype=object)
                arr[:] = vals
            else:
                arr = np.array(vals, dtype=dtype.as_numpy_dtype).reshape(len(vals))
            out.append(arr)
        return tuple(out)


_MISSING = object()


def _show(v):
    return v.decode(errors="replace") if isinstance(v, bytes) else v


# the key -> value dtypes TF 1.15 registers hash table kernels for (one set for HashTableV2
# and MutableHashTable(OfTensors)V2; MutableDenseHashTableV2's has int64 -> bool instead of
# int64 -> string)
_KERNEL_DTYPES = {("int32", "int32"), ("int32", "float32"), ("int32", "float64"),
                  ("int64", "int32"), ("int64", "int64"), ("int64", "float32"),
                  ("int64", "float64"), ("string", "int32"), ("string", "int64"),
                  ("string", "float32"), ("string", "float64"), ("string", "bool")}
HASH_KERNEL_DTYPES = _KERNEL_DTYPES | {("int64", "string")}
DENSE_KERNEL_DTYPES = _KERNEL_DTYPES | {("int64", "bool")}


def check_kernel_dtypes(ctx, registered):
    """TF 1.15's error for a table op whose key/value dtypes have no kernel."""
    op = ctx.op
    key, value = op._attrs["key_dtype"], op._attrs["value_dtype"]
    if (key.name, value.name) not in registered:
        enum = {getattr(_dtypes, n): n for n in dir(_dtypes) if n.startswith("DT_")}
        raise errors.InvalidArgumentError(
            None, op, f"No OpKernel was registered to support Op '{op.type}' used by node "
            f"{op.name} with these attrs: [key_dtype={enum[key.as_datatype_enum]}, "
            f"value_dtype={enum[value.as_datatype_enum]}]")


def table_place(ctx):
    """``(container, name)`` of a table op's resource: its node name when it shares by node
    name and has no shared_name (a checkpointed table), else the shared name."""
    attrs = ctx.op._attrs
    container = attrs.get("container") or ""
    if not attrs.get("shared_name") and attrs.get("use_node_name_sharing"):
        return container, ctx.op.name
    return container, resource_name(ctx)


def shared_table(ctx, container, name, creator, cls, what):
    """The table resource ``name`` (made by ``creator`` on first use), checked to be a ``cls``
    with the op's key and value dtypes."""
    op = ctx.op
    t = ctx.resource_mgr.lookup_or_create(container, name, creator)
    if not isinstance(t, cls):
        raise errors.InvalidArgumentError(
            None, op, f"Shared resource '{name}' is not a {what} (Node '{op.name}')")
    t._check_types(op._attrs["key_dtype"], op._attrs["value_dtype"])
    return t


def _table_factory(ctx):
    check_kernel_dtypes(ctx, HASH_KERNEL_DTYPES)
    attrs = ctx.op._attrs
    container, name = table_place(ctx)

    def creator():
        return HashTableResource(name, attrs["key_dtype"], attrs["value_dtype"])

    def run():
        return shared_table(ctx, container, name, creator, HashTableResource, "HashTable")

    return run


def _table(handle):
    if not isinstance(handle, HashTableResource):
        raise errors.InvalidArgumentError(
            None, None, f"Expected a lookup table handle, got {type(handle).__name__}")
    return handle


def _check_kv_dtypes(t, key_dtype, value_dtype, what):
    if key_dtype != t.key_dtype or value_dtype != t.value_dtype:
        raise errors.InvalidArgumentError(
            None, None,
            f"{what}: conflicting key/value dtypes {key_dtype.name}->{value_dtype.name} with "
            f"{t.key_dtype.name}->{t.value_dtype.name}")


def _init_kernel(handle, keys, values, *, Tkey, Tval):
    t = _table(handle)
    _check_kv_dtypes(t, Tkey, Tval, "InitializeTable")
    keys, values = np.asarray(keys), np.asarray(values)
    if keys.shape != values.shape:
        raise errors.InvalidArgumentError(
            None, None, f"keys and values should have the same dimension. {list(keys.shape)} "
            f"vs {list(values.shape)}")
    if keys.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"Keys must be a vector, but received shape {list(keys.shape)}")
    if keys.size == 0:
        raise errors.InvalidArgumentError(
            None, None, "keys and values cannot be empty tensors.")
    t.insert_all(keys.tolist(), values.tolist())


WHOLE_LINE = -2
LINE_NUMBER = -1


def _parse_column(text, index, line_no, dtype):
    if index == LINE_NUMBER:
        v = line_no
    elif index == WHOLE_LINE:
        v = text
    else:
        v = text  # already the column
    if dtype == _dtypes.string:
        return v if isinstance(v, bytes) else str(v).encode()
    if isinstance(v, int):
        return v
    try:
        return int(v) if dtype.is_integer else float(v)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Field {v.decode(errors='replace')} in line {line_no} is not a valid "
            f"{dtype.name}.") from None  # TF's words


def _init_from_file_kernel(handle, filename, *, key_index, value_index, vocab_size, delimiter):
    t = _table(handle)
    path = np.asarray(filename).item()
    if isinstance(path, bytes):
        path = path.decode()
    delim = delimiter.encode() if isinstance(delimiter, str) else delimiter
    try:
        with open(path, "rb") as f:
            lines = f.read().split(b"\n")
    except OSError as e:
        raise errors.NotFoundError(None, None, f"{path}; {e.strerror}") from None
    if lines and lines[-1] == b"":
        lines.pop()
    lines = [ln[:-1] if ln.endswith(b"\r") else ln for ln in lines]
    if vocab_size != -1:
        if len(lines) < vocab_size:
            raise errors.InvalidArgumentError(
                None, None, f"Invalid vocab_size in {path}: expected {vocab_size} but got "
                f"{len(lines)}")
        lines = lines[:vocab_size]
    keys, values = [], []
    for i, ln in enumerate(lines):
        cols = ln.split(delim) if delim else list(ln)
        picked = []
        for idx in (key_index, value_index):
            if idx >= 0:
                if idx >= len(cols):
                    raise errors.InvalidArgumentError(
                        None, None, f"Invalid number of columns in {path} line {i} "
                        f"({ln.decode(errors='replace')}) : expected "
                        f"{max(key_index, value_index)} got {len(cols)}")  # TF's words
                picked.append(cols[idx])
            else:
                picked.append(ln)
        keys.append(_parse_column(picked[0], key_index, i, t.key_dtype))
        values.append(_parse_column(picked[1], value_index, i, t.value_dtype))
    t.insert_all(keys, values)


def _find_kernel(handle, keys, default_value, *, Tin, Tout):
    t = _table(handle)
    _check_kv_dtypes(t, Tin, Tout, "LookupTableFind")
    return t.find(keys, default_value)


def _find_shape(op):
    if op.inputs[0].op.type == "MutableDenseHashTableV2":
        from tideflow.ops.dense_hash_table_ops import dense_find_shape

        return dense_find_shape(op)
    return op.inputs[1].get_shape().concatenate(_table_value_shape(op.inputs[0]))


def _size_kernel(handle):
    return _table(handle).size()


op_registry.declare(
    "HashTableV2",
    outputs=["table_handle: resource"],
    attrs=["container: string = ''", "shared_name: string = ''",
           "use_node_name_sharing: bool = false", "key_dtype: type", "value_dtype: type"],
    shape=lambda op: [scalar()],
    kernel_factory=_table_factory,
    differentiable=False,
    stateful=True,
)

def _dims(shape):
    return "[" + ",".join("?" if d.value is None else str(d.value) for d in shape.dims) + "]"


def _init_shape(op):
    """Keys a vector, values of the same shape (TF's InitializeTableShapeV2)."""
    keys, values = op._inputs[1]._shape, op._inputs[2]._shape
    if keys.ndims is not None and keys.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {keys.ndims}")
    try:
        keys.merge_with(values)
    except ValueError:
        if values.ndims is not None and values.ndims != 1:
            raise ValueError(f"Shapes must be equal rank, but are 1 and {values.ndims}") from None
        raise ValueError(f"Dimension 0 in both shapes must be equal, but are {keys[0].value} "
                         f"and {values[0].value}. Shapes are {_dims(keys)} and "
                         f"{_dims(values)}.") from None
    return []


op_registry.declare(
    "InitializeTableV2",
    inputs=["table_handle: resource", "keys: Tkey", "values: Tval"],
    attrs=["Tkey: type", "Tval: type"],
    shape=_init_shape,
    kernel=_init_kernel,
    differentiable=False,
    stateful=True,
)

def _init_from_file_shape(op):
    filename = op._inputs[1]._shape
    if filename.ndims is not None and filename.ndims != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {filename.ndims}")
    return []


op_registry.declare(
    "InitializeTableFromTextFileV2",
    shape=_init_from_file_shape,
    inputs=["table_handle: resource", "filename: string"],
    attrs=["key_index: int >= -2", "value_index: int >= -2", "vocab_size: int >= -1 = -1",
           "delimiter: string = '\t'"],
    kernel=_init_from_file_kernel,
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "LookupTableFindV2",
    inputs=["table_handle: resource", "keys: Tin", "default_value: Tout"],
    outputs=["values: Tout"],
    attrs=["Tin: type", "Tout: type"],
    shape=lambda op: [_find_shape(op)],
    kernel=_find_kernel,
    differentiable=False,
    stateful=True,
)

op_registry.declare(
    "LookupTableSizeV2",
    inputs=["table_handle: resource"],
    outputs=["size: int64"],
    shape=lambda op: [scalar()],
    kernel=_size_kernel,
    differentiable=False,
    stateful=True,
)

# ------------------------------------------------------------------------------------------
# mutable tables: MutableHashTable(OfTensors)V2 with insert, remove, export and import
# ------------------------------------------------------------------------------------------


class MutableHashTableResource(HashTableResource):
    """A hash table that ``LookupTableInsertV2``/``RemoveV2``/``ImportV2`` change at run time;
    each value has ``value_shape`` (a scalar for ``MutableHashTableV2``)."""

    kind = "MutableHashTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape=()):
        super().__init__(name, key_dtype, value_dtype)
        self.value_shape = tuple(value_shape)
        self._map = {}

    def _np_values(self, values, n):
        if self.value_dtype == _dtypes.string:
            out = np.empty((n,) + self.value_shape, dtype=object)
            if n:
                out[...] = np.asarray(values, dtype=object).reshape(out.shape)
            return out
        return np.asarray(values, dtype=self.value_dtype.as_numpy_dtype).reshape(
            (n,) + self.value_shape)

    def _check_values(self, keys, values):
        want = keys.shape + self.value_shape
        if values.shape != want:
            def dims(shape):  # TensorShape::DebugString
                return "[" + ",".join(map(str, shape)) + "]"
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {dims(want)} for value, got {dims(values.shape)}")

    def _entry(self, v):
        """One stored value: a row of a tensor-valued table, else a Python scalar (a string
        table's rows are already bytes)."""
        if self.value_shape:
            return v.copy()
        return v.item() if isinstance(v, np.generic) else v

    def insert(self, keys, values):
        keys, values = np.asarray(keys), np.asarray(values)
        self._check_values(keys, values)
        flat_v = values.reshape((keys.size,) + self.value_shape)
        with self._lock:
            for k, v in zip(keys.reshape(-1).tolist(), flat_v):
                self._map[_key(k, self.key_dtype)] = self._entry(v)

    def remove(self, keys):
        with self._lock:
            for k in np.asarray(keys).reshape(-1).tolist():
                self._map.pop(_key(k, self.key_dtype), None)

    def replace_all(self, keys, values):
        keys, values = np.asarray(keys), np.asarray(values)
        self._check_values(keys, values)
        flat_v = values.reshape((keys.size,) + self.value_shape)
        m = {_key(k, self.key_dtype): self._entry(v)
             for k, v in zip(keys.reshape(-1).tolist(), flat_v)}
        with self._lock:
            self._map = m

    def export(self):
        with self._lock:
            items = list(self._map.items())
        keys = [k for k, _ in items]
        if self.key_dtype == _dtypes.string:
            k_arr = np.empty(len(keys), dtype=object)
            k_arr[:] = keys
        else:
            k_arr = np.array(keys, dtype=self.key_dtype.as_numpy_dtype).reshape(len(keys))
        return k_arr, self._np_values([v for _, v in items], len(items))

    def find(self, keys, default):
        keys, default = np.asarray(keys), np.asarray(default)
        if default.shape != self.value_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {list(self.value_shape)} for default value, got "
                f"{list(default.shape)}")
        with self._lock:
            m = dict(self._map)
        flat = keys.reshape(-1).tolist()
        kd = self.key_dtype
        if not self.value_shape:
            d = default.item()
            return self._np_values([m.get(_key(k, kd), d) for k in flat],
                                   len(flat)).reshape(keys.shape)
        rows = [m.get(_key(k, kd), default) for k in flat]
        return self._np_values(rows, len(flat)).reshape(keys.shape + self.value_shape)


def _mutable_table_factory(ctx):
    check_kernel_dtypes(ctx, HASH_KERNEL_DTYPES)
    attrs = ctx.op._attrs
    container, name = table_place(ctx)
    value_shape = tuple(attrs["value_shape"].as_list()) if "value_shape" in attrs else ()

    def creator():
        return MutableHashTableResource(name, attrs["key_dtype"], attrs["value_dtype"],
                                        value_shape)

    def run():
        return shared_table(ctx, container, name, creator, MutableHashTableResource,
                            "MutableHashTable")

    return run


def _mutable(handle, what):
    if not isinstance(handle, MutableHashTableResource):
        raise errors.InvalidArgumentError(
            None, None, f"{what} needs a mutable lookup table, got "
            f"{getattr(handle, 'kind', type(handle).__name__)}")
    return handle


def _insert_kernel(handle, keys, values, *, Tin, Tout):
    t = _mutable(handle, "LookupTableInsert")
    _check_kv_dtypes(t, Tin, Tout, "LookupTableInsert")
    t.insert(keys, values)


def _remove_kernel(handle, keys, *, Tin):
    t = _mutable(handle, "LookupTableRemove")
    if Tin != t.key_dtype:
        raise errors.InvalidArgumentError(
            None, None, f"LookupTableRemove: key dtype {Tin.name} is not the table's "
            f"{t.key_dtype.name}")
    t.remove(keys)


def _export_kernel(handle, *, Tkeys, Tvalues):
    if isinstance(handle, HashTableResource) and not isinstance(handle, MutableHashTableResource):
        _check_kv_dtypes(handle, Tkeys, Tvalues, "LookupTableExport")
        return handle.export()
    t = _mutable(handle, "LookupTableExport")
    _check_kv_dtypes(t, Tkeys, Tvalues, "LookupTableExport")
    return t.export()


def _import_kernel(handle, keys, values, *, Tin, Tout):
    if isinstance(handle, HashTableResource) and not isinstance(handle, MutableHashTableResource):
        # TF 2.x's KeyValueTensorInitializer fills a HashTable with LookupTableImportV2 (a
        # SavedModel or MetaGraph TF 2.x writes for tf.lookup.StaticHashTable): as TF, an
        # initializable table takes the import as its initialization (TF 1.15's
        # KeyValueTensorInitializer runs it too).
        keys, values = np.asarray(keys), np.asarray(values)
        if keys.shape != values.shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {list(keys.shape)} for value, got "
                f"{list(values.shape)}")
        return _init_kernel(handle, keys, values, Tkey=Tin, Tval=Tout)
    t = _mutable(handle, "LookupTableImport")
    _check_kv_dtypes(t, Tin, Tout, "LookupTableImport")
    t.replace_all(keys, values)


def _table_value_shape(handle):
    """The value shape a table handle's op declares (a scalar for the other tables)."""
    if handle.op.type in ("MutableHashTableOfTensorsV2", "MutableDenseHashTableV2"):
        return handle.op._attrs["value_shape"]
    return scalar()


def _export_shape(op):
    from tideflow.framework.tensor_shape import TensorShape

    # as TF 1.15 (a dense table's too, though its kernel returns [buckets, key size] arrays)
    return [TensorShape([None]), TensorShape([None]).concatenate(_table_value_shape(
        op.inputs[0]))]


_MUTABLE_ATTRS = ["container: string = ''", "shared_name: string = ''",
                  "use_node_name_sharing: bool = false", "key_dtype: type", "value_dtype: type"]
op_registry.declare(
    "MutableHashTableV2", outputs=["table_handle: resource"], attrs=_MUTABLE_ATTRS,
    shape=lambda op: [scalar()], kernel_factory=_mutable_table_factory, differentiable=False,
    stateful=True)
op_registry.declare(
    "MutableHashTableOfTensorsV2", outputs=["table_handle: resource"],
    attrs=[*_MUTABLE_ATTRS, "value_shape: shape = []"], shape=lambda op: [scalar()],
    kernel_factory=_mutable_table_factory, differentiable=False, stateful=True)
op_registry.declare(
    "LookupTableInsertV2", inputs=["table_handle: resource", "keys: Tin", "values: Tout"],
    attrs=["Tin: type", "Tout: type"], kernel=_insert_kernel, differentiable=False,
    stateful=True)
op_registry.declare(
    "LookupTableRemoveV2", inputs=["table_handle: resource", "keys: Tin"], attrs=["Tin: type"],
    kernel=_remove_kernel, differentiable=False, stateful=True)
op_registry.declare(
    "LookupTableExportV2", inputs=["table_handle: resource"],
    outputs=["keys: Tkeys", "values: Tvalues"], attrs=["Tkeys: type", "Tvalues: type"],
    shape=_export_shape, kernel=_export_kernel, differentiable=False, stateful=True)
op_registry.declare(
    "LookupTableImportV2", inputs=["table_handle: resource", "keys: Tin", "values: Tout"],
    attrs=["Tin: type", "Tout: type"], kernel=_import_kernel, differentiable=False,
    stateful=True, shape=lambda op: _init_shape(op) if op._inputs[0].op.type == "HashTableV2"
    else [])


# ------------------------------------------------------------------------------------------
# Python classes
# ------------------------------------------------------------------------------------------


class TextFileIndex:
    """Special column indices for text-file initializers."""

    WHOLE_LINE = WHOLE_LINE
    LINE_NUMBER = LINE_NUMBER


class LookupInterface:
    """What every lookup table has: key/value dtypes, a name, ``size`` and ``lookup``."""

    def __init__(self, key_dtype, value_dtype, name):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)
        self._name = name

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    @property
    def name(self):
        return self._name

    def check_table_dtypes(self, key_dtype, value_dtype):
        """Raises TypeError unless the given dtypes are the table's."""
        if key_dtype.base_dtype != self.key_dtype:
            raise TypeError(f"Invalid key dtype, expected {self.key_dtype} but got {key_dtype}.")
        if value_dtype.base_dtype != self.value_dtype:
            raise TypeError(
                f"Invalid value dtype, expected {self.value_dtype} but got {value_dtype}.")


class InitializableLookupTableBase(LookupInterface):
    """A table filled once by an initializer, whose op joins ``TABLE_INITIALIZERS``."""

    def __init__(self, table_ref, default_value, initializer):
        super().__init__(initializer.key_dtype, initializer.value_dtype,
                         table_ref.op.name.split("/")[-1])
        self._table_ref = table_ref
        self._default_value = ops.convert_to_tensor(default_value, dtype=self._value_dtype)
        self._default_value.get_shape().merge_with(scalar())
        self._initializer = initializer
        self._init = initializer.initialize(self)

    @property
    def table_ref(self):
        return self._table_ref

    @property
    def resource_handle(self):
        return self._table_ref

    @property
    def default_value(self):
        return self._default_value

    @property
    def init(self):
        return self._init

    @property
    def initializer(self):
        return self._init

    def size(self, name=None):
        """An int64 scalar: the number of entries."""
        # as TF 1.15: the op is named by its type inside the "<table>_Size" scope
        with ops.name_scope(name, f"{self._name}_Size", [self._table_ref]):
            return ops.apply_op("LookupTableSizeV2", [self._table_ref]).outputs[0]

    def export(self, name=None):
        """``(keys, values)`` tensors of all entries (TF 1.15's ``StaticHashTable.export``)."""
        with ops.name_scope(name, f"{self._name}_Export", [self._table_ref]):
            out = ops.apply_op("LookupTableExportV2", [self._table_ref],
                               {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype}).outputs
        return out[0], out[1]

    def lookup(self, keys, name=None):
        """Looks ``keys`` (Tensor or SparseTensor) up; missing keys map to the default value."""
        key_tensor = keys.values if isinstance(keys, SparseTensor) else keys
        if not isinstance(key_tensor, ops.Tensor):
            key_tensor = ops.convert_to_tensor(key_tensor, dtype=self._key_dtype)
        if key_tensor.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{key_tensor.dtype}.")
        with ops.name_scope(name, f"{self._name}_Lookup",
                            [self._table_ref, key_tensor, self._default_value]):
            values = ops.apply_op("LookupTableFindV2",
                                  [self._table_ref, key_tensor, self._default_value]).outputs[0]
        values.set_shape(key_tensor.get_shape())
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, values, keys.dense_shape)
        return values


class HashTable(InitializableLookupTableBase):
    """``tf.contrib.lookup.HashTable``: an immutable table filled by ``initializer``."""

    def __init__(self, initializer, default_value, shared_name=None, name=None):
        # as TF 1.15: the default value first, the table op under "hash_table", then its
        # initializer's ops in the scope the table is made in
        with _lifted():
            default_value = ops.convert_to_tensor(default_value,
                                                  dtype=initializer.value_dtype)
            # the resource in the outermost graph, as TF 1.15's _create_resource
            with ops.init_scope(), ops.name_scope(name, "hash_table", []) as scope:
                table_ref = ops.apply_op("HashTableV2", [], {
                    "shared_name": shared_name or "",
                    "container": ops.get_default_graph()._container or "",
                    "key_dtype": initializer.key_dtype, "value_dtype": initializer.value_dtype,
                }, name=scope).outputs[0]
            super().__init__(table_ref, default_value, initializer)
        self._value_shape = self._default_value.get_shape()

    def export(self, name=None):
        """``(keys, values)`` of all entries; as TF 1.15's contrib table, the op takes the
        ``<table>_Export`` scope's name."""
        with ops.name_scope(name, f"{self._name}_Export", [self._table_ref]) as scope:
            out = ops.apply_op("LookupTableExportV2", [self._table_ref],
                               {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype},
                               name=scope).outputs
        return out[0], out[1]


class StaticHashTable(HashTable):
    """``tf.lookup.StaticHashTable``: TF 1.15's signature has no ``shared_name`` (a third
    positional argument is the name)."""

    def __init__(self, initializer, default_value, name=None):
        # a text-file table shares by its file and columns, as TF 1.15's StaticHashTable (two
        # tables read from one vocabulary are one resource; contrib's HashTable shares none)
        super().__init__(initializer, default_value,
                         shared_name=getattr(initializer, "_shared_name", None), name=name)

    export = InitializableLookupTableBase.export  # "<table>_Export/LookupTableExportV2"


class StaticHashTableV1(StaticHashTable):
    """TF 1.15's graph-mode ``tf.lookup.StaticHashTable`` (and the index tables' class)."""


class MutableHashTable(LookupInterface):
    """``tf.contrib.lookup.MutableHashTable``: a table changed at run time by ``insert`` and
    ``remove``; values are scalars or, with a non-scalar ``default_value``, tensors of its
    shape. With ``checkpoint`` a Saver saves and restores its contents (``<name>-keys`` and
    ``<name>-values``), as TF's."""

    # TF 1.15's positional order (name fourth); older contrib versions' shared_name comes last
    def __init__(self, key_dtype, value_dtype, default_value, name="MutableHashTable",
                 checkpoint=True, shared_name=None):
        self._default_value = ops.convert_to_tensor(default_value, dtype=value_dtype)
        self._value_shape = self._default_value.get_shape()
        self._checkpoint = checkpoint
        self._saveable_name = name
        attrs = {"shared_name": shared_name or "",
                 "use_node_name_sharing": bool(checkpoint and shared_name is None),
                 "container": ops.get_default_graph()._container or "",
                 "key_dtype": _dtypes.as_dtype(key_dtype),
                 "value_dtype": _dtypes.as_dtype(value_dtype)}
        if self._value_shape.ndims == 0:
            op_type = "MutableHashTableV2"
        else:
            op_type = "MutableHashTableOfTensorsV2"
            attrs["value_shape"] = self._value_shape
        self._table_ref = ops.apply_op(op_type, [], attrs, name=name).outputs[0]
        super().__init__(key_dtype, value_dtype, self._table_ref.op.name.split("/")[-1])
        if checkpoint:
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS, _mutable_saveable(self, name))

    @property
    def resource_handle(self):
        return self._table_ref

    def _gather_saveables_for_checkpoint(self):
        """TF's trackable hook: the table's keys and values as one saveable, so a Saver given
        the table itself in its var_list saves it (``<name>-keys``, ``<name>-values``)."""
        return {"table": lambda name=None: _mutable_saveable(self, name or self._saveable_name)}

    @property
    def table_ref(self):
        return self._table_ref

    @property
    def default_value(self):
        return self._default_value

    def size(self, name=None):
        """An int64 scalar: the number of entries."""
        # as TF 1.15, each op is named by its type inside its scope
        with ops.name_scope(name, f"{self.name}_Size", [self._table_ref]), \
                ops.colocate_with(self._table_ref):
            return ops.apply_op("LookupTableSizeV2", [self._table_ref]).outputs[0]

    def lookup(self, keys, name=None):
        """The values of ``keys`` (default_value for missing keys): keys' shape + the value
        shape."""
        with ops.name_scope(name, f"{self.name}_lookup_table_find",
                            [self._table_ref, keys, self._default_value]):
            keys = ops.convert_to_tensor(keys, dtype=self._key_dtype, name="keys")
            with ops.colocate_with(self._table_ref):
                return ops.apply_op("LookupTableFindV2",
                                    [self._table_ref, keys, self._default_value]).outputs[0]

    def insert(self, keys, values, name=None):
        """An op that sets ``keys`` to ``values`` (shape: keys' shape + the value shape)."""
        with ops.name_scope(name, f"{self.name}_lookup_table_insert",
                            [self._table_ref, keys, values]):
            keys = ops.convert_to_tensor(keys, self._key_dtype, name="keys")
            values = ops.convert_to_tensor(values, self._value_dtype, name="values")
            with ops.colocate_with(self._table_ref):
                return ops.apply_op("LookupTableInsertV2", [self._table_ref, keys, values])

    def remove(self, keys, name=None):
        """An op that removes ``keys`` (absent keys are ignored)."""
        if isinstance(keys, ops.Tensor) and keys.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{keys.dtype}.")
        with ops.name_scope(name, f"{self.name}_lookup_table_remove",
                            [self._table_ref, keys, self._default_value]):
            keys = ops.convert_to_tensor(keys, self._key_dtype, name="keys")
            return ops.apply_op("LookupTableRemoveV2", [self._table_ref, keys])

    def export(self, name=None):
        """``(keys, values)`` tensors of all entries."""
        with ops.name_scope(name, f"{self.name}_lookup_table_export_values",
                            [self._table_ref]), ops.colocate_with(self._table_ref):
            out = ops.apply_op("LookupTableExportV2", [self._table_ref],
                               {"Tkeys": self._key_dtype, "Tvalues": self._value_dtype}).outputs
        return out[0], out[1]


def _mutable_saveable(table, name):
    from tideflow.train.saveable import SaveableObject, SaveSpec

    class _Saveable(SaveableObject):
        def __init__(self):
            keys, values = table.export()
            super().__init__(table, [SaveSpec(keys, "", name + "-keys"),
                                     SaveSpec(values, "", name + "-values")], name)

        def restore(self, restored_tensors, restored_shapes):
            del restored_shapes
            with ops.name_scope(None, f"{table.name}_table_restore"), \
                    ops.colocate_with(table.resource_handle):
                return ops.apply_op("LookupTableImportV2",
                                    [table.resource_handle, restored_tensors[0],
                                     restored_tensors[1]])

    return _Saveable()


def _lifted():
    """``init_scope`` while a control-flow body (a ``tf.while_loop`` body, a ``tf.cond`` branch)
    is being built, else nothing: as TF 1.15, a table made there, its initializer and its keys
    and values live in the outer graph, so ``tables_initializer`` fills it once. (In a tf.data
    function they stay in the function, which fills the table each time it runs.)"""
    g = ops.get_default_graph()
    return ops.init_scope() if getattr(g, "control_flow_body", False) else \
        contextlib.nullcontext()


def _add_initializer(init_op):
    """Files ``init_op`` in ``TABLE_INITIALIZERS``; not from a function graph of its own (a
    tf.data function), whose collections TF 1.15 copies from the outer graph."""
    g = ops.get_default_graph()
    if getattr(g, "_root", None) is not None and not getattr(g, "control_flow_body", False):
        return
    ops.add_to_collection(ops.GraphKeys.TABLE_INITIALIZERS, init_op)


class TableInitializerBase:
    """Base of the table initializers: the key and value dtypes they produce."""

    def __init__(self, key_dtype, value_dtype):
        self._key_dtype = _dtypes.as_dtype(key_dtype)
        self._value_dtype = _dtypes.as_dtype(value_dtype)

    @property
    def key_dtype(self):
        return self._key_dtype

    @property
    def value_dtype(self):
        return self._value_dtype

    def initialize(self, table):
        raise NotImplementedError


class KeyValueTensorInitializer(TableInitializerBase):
    """Fills a table from a keys tensor and a values tensor of the same length."""

    def __init__(self, keys, values, key_dtype=None, value_dtype=None, name=None):
        # as TF 1.15: the keys and values where the initializer is made; its op under a scope
        # ``name`` opened where the table initializes
        with _lifted():
            self._keys = ops.convert_to_tensor(keys, dtype=key_dtype, name="keys")
            self._values = ops.convert_to_tensor(values, dtype=value_dtype, name="values")
        self._name = name or "key_value_init"
        super().__init__(self._keys.dtype.base_dtype, self._values.dtype.base_dtype)

    def initialize(self, table):
        table.check_table_dtypes(self._keys.dtype, self._values.dtype)
        with ops.name_scope(self._name, values=[table.table_ref, self._keys, self._values]):
            # TF 1.15 fills the table by importing the entries (LookupTableImportV2)
            init_op = ops.apply_op("LookupTableImportV2",
                                   [table.table_ref, self._keys, self._values])
        _add_initializer(init_op)
        return init_op


class TextFileInitializer(TableInitializerBase):
    """Fills a table from a text file: each line gives one entry, the key and value taken
    from a column (split by ``delimiter``), the whole line, or the line number."""

    def __init__(self, filename, key_dtype, key_index, value_dtype, value_index,
                 vocab_size=None, delimiter="\t", name=None):
        key_dtype = _dtypes.as_dtype(key_dtype)
        value_dtype = _dtypes.as_dtype(value_dtype)
        if key_index < -2:
            raise ValueError(f"Invalid key index {key_index}.")
        if key_index == LINE_NUMBER and key_dtype != _dtypes.int64:
            raise ValueError(f"Signature mismatch. Keys must be dtype {_dtypes.int64}, got "
                             f"{key_dtype}.")
        if key_index == WHOLE_LINE and not (key_dtype.is_integer or key_dtype == _dtypes.string):
            raise ValueError(f"Signature mismatch. Keys must be integer or string, got "
                             f"{key_dtype}.")
        if value_index < -2:
            raise ValueError(f"Invalid value index {value_index}.")
        if value_index == LINE_NUMBER and value_dtype != _dtypes.int64:
            raise ValueError(f"Signature mismatch. Values must be dtype {_dtypes.int64}, got "
                             f"{value_dtype}.")
        if value_index == WHOLE_LINE and value_dtype != _dtypes.string:
            raise ValueError(f"Signature mismatch. Values must be dtype {_dtypes.string}, got "
                             f"{value_dtype}.")
        if vocab_size is not None and vocab_size <= 0:
            raise ValueError(f"Invalid vocab_size {vocab_size}.")
        if isinstance(filename, (str, bytes)) and not filename:
            raise ValueError(f"Filename required for {name}.")
        # as TF 1.15 (its TrackableAsset): the path becomes an "asset_path" constant in the
        # outermost graph
        self._filename_arg = filename
        if not isinstance(filename, ops.Tensor):
            with ops.init_scope():
                filename = ops.convert_to_tensor(filename, _dtypes.string, name="asset_path")
        self._filename = filename
        self._key_index = key_index
        self._value_index = value_index
        self._vocab_size = vocab_size
        self._delimiter = delimiter
        self._name = name
        super().__init__(key_dtype, value_dtype)

    @property
    def _shared_name(self):
        """``hash_table_<file>[_<vocab_size>]_<key_index>_<value_index>``: TF 1.15's
        shared name of a table this initializer fills."""
        filename = self._filename_arg
        if isinstance(filename, ops.Tensor):
            filename = filename.name
        elif isinstance(filename, bytes):
            filename = filename.decode("utf-8", "replace")
        size = f"_{self._vocab_size}" if self._vocab_size else ""
        return f"hash_table_{filename}{size}_{self._key_index}_{self._value_index}"

    def initialize(self, table):
        table.check_table_dtypes(self.key_dtype, self.value_dtype)
        with ops.name_scope(self._name, "text_file_init", [table.table_ref]):
            filename = ops.convert_to_tensor(self._filename, _dtypes.string,
                                             name="asset_filepath")
            init_op = ops.apply_op(
                "InitializeTableFromTextFileV2", [table.table_ref, filename],
                {"key_index": self._key_index, "value_index": self._value_index,
                 "vocab_size": -1 if self._vocab_size is None else self._vocab_size,
                 "delimiter": self._delimiter})
        _add_initializer(init_op)
        if filename.op.type == "Const":
            # a constant vocabulary path is an asset: SavedModel copies the file along
            ops.add_to_collection(ops.GraphKeys.ASSET_FILEPATHS, filename)
        return init_op


class TextFileStringTableInitializer(TextFileInitializer):
    """A text-file initializer of an int64 -> string table (line number -> whole line)."""

    def __init__(self, filename, key_column_index=LINE_NUMBER, value_column_index=WHOLE_LINE,
                 vocab_size=None, delimiter="\t", name="text_file_string_table_init"):
        super().__init__(filename, _dtypes.int64, key_column_index, _dtypes.string,
                         value_column_index, vocab_size=vocab_size, delimiter=delimiter,
                         name=name)


class TextFileIdTableInitializer(TextFileInitializer):
    """A text-file initializer of a string (or integer) -> int64 id table (whole line ->
    line number)."""

    def __init__(self, filename, key_column_index=WHOLE_LINE, value_column_index=LINE_NUMBER,
                 vocab_size=None, delimiter="\t", name="text_file_id_table_init",
                 key_dtype=_dtypes.string):
        super().__init__(filename, key_dtype, key_column_index, _dtypes.int64,
                         value_column_index, vocab_size=vocab_size, delimiter=delimiter,
                         name=name)


class HasherSpec:
    """Names a string hash function for out-of-vocabulary buckets."""

    def __init__(self, hasher, key):
        self.hasher = hasher
        self.key = key


FastHashSpec = HasherSpec("fasthash", None)


class StrongHashSpec(HasherSpec):
    """A keyed (SipHash) hasher spec."""

    def __init__(self, key):
        if len(key) != 2:
            raise ValueError(f"key must have size 2, got {len(key)}.")
        if not all(isinstance(k, (int, np.integer)) for k in key):
            raise TypeError(f"Invalid key {key}. Must be unsigned integer values.")
        super().__init__("stronghash", key)


def _check_oov(num_oov_buckets):
    if num_oov_buckets < 0:
        raise ValueError(f"num_oov_buckets must be greater or equal than 0, got "
                         f"{num_oov_buckets}.")  # TF 1.15's words


def _check_table_keys(table, key_dtype):
    """TF 1.15's TypeErrors for a table under an oov-bucket table (``key_dtype``: the lookup
    keys' dtype)."""
    if table.key_dtype not in (_dtypes.int64, _dtypes.string):
        raise TypeError(f"Invalid key dtype, expected one of {(_dtypes.int64, _dtypes.string)}, "
                        f"but got {key_dtype}.")
    if table.key_dtype.is_integer != key_dtype.is_integer:
        raise TypeError(f"Invalid key dtype, expected "
                        f"{'integer' if key_dtype.is_integer else 'non-integer'} but got "
                        f"{table.key_dtype}.")
    if table.value_dtype != _dtypes.int64:
        raise TypeError(f"Invalid value dtype, expected {_dtypes.int64} but got "
                        f"{table.value_dtype}.")


def _hash_buckets(strings, num_buckets, hasher_spec):
    """The bucket of each string under ``hasher_spec`` (FastHashSpec: Fingerprint64;
    StrongHashSpec: keyed SipHash); another hasher is TF's ValueError."""
    from tideflow.ops.string_hash_ops import string_to_hash_bucket_fast
    from tideflow.ops.string_more_ops import string_to_hash_bucket_strong

    if hasher_spec.hasher == "fasthash":
        return string_to_hash_bucket_fast(strings, num_buckets, name="hash_bucket")
    if hasher_spec.hasher == "stronghash":
        return string_to_hash_bucket_strong(strings, num_buckets, hasher_spec.key,
                                            name="hash_bucket")
    raise ValueError(f"Unknown hasher {hasher_spec.hasher}")


class IdTableWithHashBuckets(LookupInterface):
    """Ids from ``table`` (may be None), and for keys it lacks one of ``num_oov_buckets``
    buckets after the vocabulary: ``table.size() + Fingerprint64(key) % num_oov_buckets``
    (integer keys are hashed as their decimal strings, as TF does)."""

    def __init__(self, table, num_oov_buckets, hasher_spec=FastHashSpec, name=None,
                 key_dtype=None):
        # TF 1.15's checks, in its order
        if table is not None:
            key_dtype = table.key_dtype if key_dtype is None else _dtypes.as_dtype(key_dtype)
            _check_table_keys(table, key_dtype)
        else:
            if num_oov_buckets <= 0:
                raise ValueError("oov_buckets must be > 0 if no table is supplied.")
            key_dtype = _dtypes.string if key_dtype is None else _dtypes.as_dtype(key_dtype)
        if not (key_dtype.is_integer or key_dtype == _dtypes.string):
            raise TypeError(f"Invalid key_dtype, expected integer or string, got {key_dtype}.")
        if not isinstance(hasher_spec, HasherSpec):
            raise TypeError(f"hasher_spec must be of type HasherSpec, got {hasher_spec}")
        self._table = table
        self._num_oov_buckets = num_oov_buckets
        self._hasher_spec = hasher_spec
        super().__init__(key_dtype, _dtypes.int64,
                         name or (table.name if table is not None else "hash_bucket"))

    @property
    def init(self):
        """The table's initializer; a no-op when there is only hashing (no table)."""
        if self._table is not None:
            return self._table.init
        from tideflow.ops.control_flow_ops import no_op

        with ops.name_scope(None, "init"):
            return no_op()

    initializer = init

    @property
    def table_ref(self):
        return self._table.table_ref if self._table is not None else None

    @property
    def resource_handle(self):
        return self.table_ref

    def size(self, name=None):
        """The vocabulary size plus the number of oov buckets."""
        # as TF 1.15: "<table>_Size/add", whose left side is a Const 0 without a table
        with ops.name_scope(name, f"{self._name}_Size"):
            if self._table is None:
                tsize = ops.convert_to_tensor(0, dtype=_dtypes.int64)
            else:
                tsize = self._table.size()
            return tsize + self._num_oov_buckets

    def lookup(self, keys, name=None):
        """Ids of ``keys`` (Tensor or SparseTensor); unknown keys go to their hash bucket."""
        from tideflow.ops.gather_ops import where_v2
        from tideflow.ops.math_ops import add, not_equal
        from tideflow.ops.string_ops import as_string

        values = keys.values if isinstance(keys, SparseTensor) else ops.convert_to_tensor(keys)
        if values.dtype.base_dtype != self._key_dtype:
            raise TypeError(f"Signature mismatch. Keys must be dtype {self._key_dtype}, got "
                            f"{values.dtype}.")
        if self._table is not None and self._table.key_dtype == _dtypes.int64:
            values = cast(values, _dtypes.int64)  # as TF: int32 keys of an int64 table
        with ops.name_scope(name, f"{self._name}_Lookup", [values]):
            strings = as_string(values) if values.dtype.base_dtype.is_integer else values
            if self._num_oov_buckets:
                buckets = _hash_buckets(strings, self._num_oov_buckets, self._hasher_spec)
            if self._table is None:
                ids = buckets
            else:
                ids = self._table.lookup(values)
                if self._num_oov_buckets:
                    buckets = add(buckets, self._table.size())
                    ids = where_v2(not_equal(ids, self._table.default_value), ids, buckets)
        ids.set_shape(values.get_shape())
        if isinstance(keys, SparseTensor):
            return SparseTensor(keys.indices, ids, keys.dense_shape)
        return ids


def _int_keys(dtype):
    dtype = _dtypes.as_dtype(dtype)
    if not (dtype == _dtypes.string or dtype.is_integer):
        raise TypeError("Only integer and string keys are supported.")  # TF 1.15's words
    return dtype


class StaticVocabularyTable(IdTableWithHashBuckets):
    """``tf.lookup.StaticVocabularyTable``: a key -> int64 id table from ``initializer`` whose
    unknown keys go to one of ``num_oov_buckets`` hash buckets after the vocabulary."""

    def __init__(self, initializer, num_oov_buckets, lookup_key_dtype=None, name=None):
        if num_oov_buckets <= 0:
            raise ValueError("oov_buckets must be > 0.")
        if initializer is None:  # ids from hash buckets only
            super().__init__(None, num_oov_buckets, key_dtype=lookup_key_dtype, name=name)
            return
        key_dtype = _dtypes.as_dtype(lookup_key_dtype or initializer.key_dtype)
        _check_table_keys(initializer, key_dtype)
        # as TF 1.15: the table where the StaticVocabularyTable is made, named "hash_table"
        table = StaticHashTableV1(initializer, -1)
        super().__init__(table, num_oov_buckets, key_dtype=key_dtype,
                         name=name.rstrip("/") if name else None)


class StaticVocabularyTableV1(StaticVocabularyTable):
    """TF 1.15's graph-mode ``tf.lookup.StaticVocabularyTable``."""


def index_table_from_tensor(vocabulary_list=None, num_oov_buckets=0, default_value=-1,
                            hasher_spec=FastHashSpec, dtype=_dtypes.string, name=None,
                            mapping=None):
    """A table mapping each element of the 1-D ``vocabulary_list`` (``tf.contrib.lookup``'s
    ``mapping``) to its int64 position."""
    mapping = vocabulary_list if vocabulary_list is not None else mapping
    if mapping is None:
        raise ValueError("vocabulary_list must be specified.")
    _check_oov(num_oov_buckets)
    dtype = _int_keys(dtype)
    with ops.name_scope(name, "string_to_index", []):
        keys = ops.convert_to_tensor(mapping)
        if keys.dtype.is_integer != dtype.is_integer:
            raise ValueError(f"Expected {'integer' if dtype.is_integer else 'non-integer'}, "
                             f"got {keys.dtype}.")
        if not dtype.is_integer and keys.dtype.base_dtype != dtype:
            raise ValueError(f"Expected {dtype}, got {keys.dtype}.")
        if keys.dtype.is_integer and keys.dtype != _dtypes.int64:
            keys = cast(keys, _dtypes.int64)
        from tideflow.ops.array_ops import size
        from tideflow.ops.range_ops import range as _range

        # TF 1.15's ops: the positions (a Range cast to int64), then under "hash_table" the
        # default value, the table and its "table_init"
        values = cast(_range(size(keys)), _dtypes.int64)
        with ops.name_scope(None, "hash_table"):
            init = KeyValueTensorInitializer(keys, values, keys.dtype.base_dtype,
                                             _dtypes.int64, name="table_init")
            table = StaticHashTableV1(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec,
                                           key_dtype=dtype)
        return table


def index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                          default_value=-1, hasher_spec=FastHashSpec, key_dtype=_dtypes.string,
                          name=None, key_column_index=WHOLE_LINE,
                          value_column_index=LINE_NUMBER, delimiter="\t"):
    """A table mapping each line (or column) of ``vocabulary_file`` to its int64 id."""
    if vocabulary_file is None or (isinstance(vocabulary_file, (str, bytes))
                                   and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    _check_oov(num_oov_buckets)
    if vocab_size is not None and vocab_size < 1:
        shown = vocabulary_file.name if isinstance(vocabulary_file, ops.Tensor) else \
            vocabulary_file
        if isinstance(vocabulary_file, ops.Tensor) and vocabulary_file.op.type == "Const":
            shown = ops.constant_value(vocabulary_file)
            shown = shown.decode() if isinstance(shown, bytes) else shown
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}. "
                         f"vocabulary_file: {shown}")
    key_dtype = _int_keys(key_dtype)
    with ops.name_scope(name, "string_to_index", []):
        table_key_dtype = _dtypes.int64 if key_dtype.is_integer else key_dtype
        with ops.name_scope(None, "hash_table"):  # TF 1.15's scopes
            init = TextFileIdTableInitializer(
                vocabulary_file, vocab_size=vocab_size, key_dtype=table_key_dtype,
                key_column_index=key_column_index, value_column_index=value_column_index,
                delimiter=delimiter, name="table_init")
            table = StaticHashTableV1(init, default_value)
        if num_oov_buckets:
            table = IdTableWithHashBuckets(table, num_oov_buckets, hasher_spec,
                                           key_dtype=key_dtype)
        return table


def index_to_string_table_from_tensor(vocabulary_list=None, default_value="UNK", name=None,
                                      mapping=None):
    """A table mapping int64 positions to the strings of the 1-D ``vocabulary_list``
    (``tf.contrib.lookup``'s ``mapping``)."""
    mapping = vocabulary_list if vocabulary_list is not None else mapping
    if mapping is None:
        raise ValueError("vocabulary_list must be specified.")
    with ops.name_scope(name, "index_to_string", []):
        values = ops.convert_to_tensor(mapping, _dtypes.string)
        from tideflow.ops.array_ops import size
        from tideflow.ops.range_ops import range as _range

        keys = cast(_range(size(values)), _dtypes.int64)
        init = KeyValueTensorInitializer(keys, values, _dtypes.int64, _dtypes.string,
                                         name="table_init")
        return StaticHashTableV1(init, default_value)


def index_to_string_table_from_file(vocabulary_file, vocab_size=None, default_value="UNK",
                                    name=None, key_column_index=LINE_NUMBER,
                                    value_column_index=WHOLE_LINE, delimiter="\t"):
    """A table mapping int64 line numbers to the lines (or a column) of ``vocabulary_file``."""
    if vocabulary_file is None or (isinstance(vocabulary_file, (str, bytes))
                                   and not vocabulary_file):
        raise ValueError("vocabulary_file must be specified and must not be empty.")
    if vocab_size is not None and vocab_size < 1:
        raise ValueError(f"vocab_size must be greater than 0, got {vocab_size}.")
    with ops.name_scope(name, "index_to_string", []):
        init = TextFileStringTableInitializer(
            vocabulary_file, vocab_size=vocab_size, key_column_index=key_column_index,
            value_column_index=value_column_index, delimiter=delimiter, name="table_init")
        return StaticHashTableV1(init, default_value)


def index_to_string(tensor, mapping, default_value="UNK", name=None):
    """Maps int64 ids to strings through a table from ``mapping`` (deprecated in TF)."""
    table = index_to_string_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


def string_to_index(tensor, mapping, default_value=-1, name=None):
    """Maps strings to int64 ids through a table from ``mapping`` (deprecated in TF)."""
    table = index_table_from_tensor(mapping, default_value=default_value, name=name)
    return table.lookup(tensor)


__all__ = [
    "FastHashSpec",
    "HashTable",
    "HasherSpec",
    "IdTableWithHashBuckets",
    "InitializableLookupTableBase",
    "KeyValueTensorInitializer",
    "LookupInterface",
    "MutableDenseHashTable",
    "MutableHashTable",
    "StaticHashTable",
    "StaticVocabularyTable",
    "StrongHashSpec",
    "TableInitializerBase",
    "TextFileIdTableInitializer",
    "TextFileIndex",
    "TextFileInitializer",
    "TextFileStringTableInitializer",
    "index_table_from_file",
    "index_table_from_tensor",
    "index_to_string",
    "index_to_string_table_from_file",
    "index_to_string_table_from_tensor",
    "string_to_index",
]

# the dense table (its module builds on the classes above)
from tideflow.ops.dense_hash_table_ops import (  # noqa: F401
    DenseHashTable,
    MutableDenseHashTable,
)
