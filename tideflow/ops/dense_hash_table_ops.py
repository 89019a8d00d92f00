"""``tf.lookup.experimental.DenseHashTable`` / ``tf.contrib.lookup.MutableDenseHashTable``.

An open-addressing table as TF's ``MutableDenseHashTableV2`` kernel keeps it: a power-of-two
number of buckets, each holding one key (``empty_key`` when free, ``deleted_key`` once
removed) and one value row; a key's first bucket is its hash masked to the bucket count and
collisions probe quadratically (``+1, +2, +3, ...``). The table doubles when an insert would
pass ``max_load_factor``. Hashes are TF's: an integer key is its own hash (as unsigned 64
bits), a string key TF's ``Hash64``, a vector key the ``Hash64Combine`` of its elements, so
``export()`` yields the same bucket arrays as TF (keys ``[num_buckets, key_size]``, values
``[num_buckets, value_size]``), and a checkpoint restores them unchanged.

It shares ``LookupTableFindV2``/``InsertV2``/``RemoveV2``/``SizeV2``/``ExportV2``/``ImportV2``
with the other mutable tables (lookup_ops.py): the resource implements the same interface.
"""

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar
from tideflow.ops import lookup_ops
from tideflow.ops.string_more_ops import hash64

_M64 = (1 << 64) - 1


def _hash_scalar(k):
    if isinstance(k, bytes):
        return hash64(k)
    return int(k) & _M64


def _hash_combine(a, b):
    """TF's Hash64Combine."""
    return (a ^ ((b + 0x9E3779B97F4A7800 + (a << 10) + (a >> 4)) & _M64)) & _M64


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


class DenseHashTableResource(lookup_ops.MutableHashTableResource):
    """The buckets of one MutableDenseHashTable (keys as Python values, values as rows)."""

    kind = "MutableDenseHashTable"

    def __init__(self, name, key_dtype, value_dtype, value_shape, empty_key, deleted_key,
                 num_buckets, max_load_factor):
        super().__init__(name, key_dtype, value_dtype, value_shape)
        if not 0 < max_load_factor < 1:
            raise errors.InvalidArgumentError(
                None, None, f"max_load_factor must be between 0 and 1, got: {max_load_factor}")
        if len(self.value_shape) > 1:
            raise errors.InvalidArgumentError(
                None, None, "Empty value must be a scalar or a vector, got shape "
                f"{_shape_str(self.value_shape)}")
        empty_key, deleted_key = np.asarray(empty_key), np.asarray(deleted_key)
        if empty_key.ndim > 1:
            raise errors.InvalidArgumentError(
                None, None, "Empty key must be a scalar or a vector, got shape "
                f"{_shape_str(empty_key.shape)}")
        if empty_key.shape != deleted_key.shape:
            raise errors.InvalidArgumentError(
                None, None, "Empty and deleted keys must have same shape, got shapes: "
                f"{_shape_str(empty_key.shape)} and {_shape_str(deleted_key.shape)}")
        self.key_shape = empty_key.shape
        self.key_size = int(np.prod(self.key_shape, dtype=np.int64))
        self.value_size = int(np.prod(self.value_shape, dtype=np.int64))
        self.max_load_factor = max_load_factor
        self.empty_key = self._row_key(empty_key.reshape(-1).tolist())
        self.deleted_key = self._row_key(deleted_key.reshape(-1).tolist())
        if self.empty_key == self.deleted_key:
            raise errors.InvalidArgumentError(None, None,
                                              "Empty and deleted keys cannot be equal")
        self._allocate(num_buckets)

    # -- keys -----------------------------------------------------------------------------------
    def _row_key(self, elems):
        """A key (its ``key_size`` elements) as a hashable Python value."""
        kd = self.key_dtype
        if self.key_size == 1:
            return lookup_ops._key(elems[0], kd)
        return tuple(lookup_ops._key(e, kd) for e in elems)

    def _hash(self, key):
        if self.key_size == 1:
            return _hash_scalar(key)
        h = 0
        for e in key:
            h = _hash_combine(h, _hash_scalar(e))
        return h

    def _key_rows(self, keys, what):
        """The keys of a batch as Python values, after TF's shape check."""
        keys = np.asarray(keys)
        n = 1 if keys.ndim == 0 else keys.shape[0]
        if keys.size != n * self.key_size:
            raise errors.InvalidArgumentError(
                None, None, f"Expected key shape {_shape_str((n, *self.key_shape))} got "
                f"{_shape_str(keys.shape)}")
        flat = keys.reshape(n, self.key_size).tolist()
        return [self._row_key(r) for r in flat]

    def _check_special(self, k):
        if k == self.empty_key:
            raise errors.InvalidArgumentError(
                None, None, "Using the empty_key as a table key is not allowed")
        if k == self.deleted_key:
            raise errors.InvalidArgumentError(
                None, None, "Using the deleted_key as a table key is not allowed")

    # -- buckets --------------------------------------------------------------------------------
    def _allocate(self, num_buckets):
        num_buckets = int(num_buckets)
        if num_buckets < 4 or num_buckets & (num_buckets - 1):
            raise errors.InvalidArgumentError(
                None, None, "Number of buckets must be at least 4 and a power of 2, got: "
                f"{num_buckets}")
        self._keys = [self.empty_key] * num_buckets
        self._vals = self._np_values(np.zeros((num_buckets, self.value_size)) if
                                     self.value_dtype != _dtypes.string else
                                     np.full((num_buckets, self.value_size), b"", object),
                                     num_buckets).reshape(num_buckets, self.value_size)
        self._n = 0

    def _probe(self, k, stop_at_deleted):
        """The bucket holding ``k``, else the first free one (empty, or deleted when
        ``stop_at_deleted``)."""
        keys = self._keys
        nb = len(keys)
        mask = nb - 1
        b = self._hash(k) & mask
        probes = 0
        empty, deleted = self.empty_key, self.deleted_key
        while True:
            cur = keys[b]
            if cur == k or cur == empty or (stop_at_deleted and cur == deleted):
                return b
            probes += 1
            b = (b + probes) & mask
            if probes >= nb:
                raise errors.InternalError(None, None,
                                           "Internal error in MutableDenseHashTable probing")

    def _put(self, k, row):
        b = self._probe(k, True)
        if self._keys[b] != k:
            self._n += 1
            self._keys[b] = k
        self._vals[b] = row

    # -- the table interface ---------------------------------------------------------------------
    def _value_rows(self, keys_shape, n, values, what):
        values = np.asarray(values)
        want = tuple(keys_shape[:len(keys_shape) - len(self.key_shape)]) + self.value_shape
        if values.shape != want:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_str(want)} for value, got "
                f"{_shape_str(values.shape)}")
        return self._np_values(values, n).reshape(n, self.value_size)

    def insert(self, keys, values):
        rows = self._key_rows(keys, "insert")
        vals = self._value_rows(np.shape(keys), len(rows), values, "insert")
        with self._lock:
            pending = self._n + len(rows)
            nb = len(self._keys)
            if pending > nb * self.max_load_factor:
                new = nb
                while pending > new * self.max_load_factor:
                    new <<= 1
                self._rebucket(new)
            for k, row in zip(rows, vals):
                self._check_special(k)
                self._put(k, row)

    def _rebucket(self, num_buckets):
        old = [(k, v) for k, v in zip(self._keys, self._vals)
               if k != self.empty_key and k != self.deleted_key]
        self._allocate(num_buckets)
        for k, v in old:
            self._put(k, v)

    def remove(self, keys):
        rows = self._key_rows(keys, "remove")
        with self._lock:
            for k in rows:
                self._check_special(k)
                b = self._probe(k, False)
                if self._keys[b] == k:
                    self._keys[b] = self.deleted_key
                    self._n -= 1

    def find(self, keys, default):
        keys, default = np.asarray(keys), np.asarray(default)
        rows = self._key_rows(keys, "find")
        if default.shape != self.value_shape:
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_str(self.value_shape)} for default value, "
                f"got {_shape_str(default.shape)}")
        d = default.reshape(self.value_size)
        out_shape = keys.shape[:keys.ndim - len(self.key_shape)] + self.value_shape
        out = []
        with self._lock:
            for k in rows:
                self._check_special(k)
                b = self._probe(k, False)
                out.append(self._vals[b] if self._keys[b] == k else d)
        if not out:
            return self._np_values([], 0).reshape(out_shape)
        return self._np_values(np.stack(out), len(out)).reshape(out_shape)

    def size(self):
        return np.int64(self._n)

    def export(self):
        with self._lock:
            keys, vals = list(self._keys), self._vals.copy()
        nb = len(keys)
        if self.key_dtype == _dtypes.string:
            k_arr = np.empty((nb, self.key_size), object)
            for i, k in enumerate(keys):
                k_arr[i] = k if self.key_size > 1 else [k]
        else:
            k_arr = np.array(keys, self.key_dtype.as_numpy_dtype).reshape(nb, self.key_size)
        return k_arr, vals

    def replace_all(self, keys, values):
        keys, values = np.asarray(keys), np.asarray(values)
        nb = keys.shape[0] if keys.ndim else 1
        if keys.size != nb * self.key_size or values.shape != (nb, self.value_size):
            raise errors.InvalidArgumentError(
                None, None, f"Expected shape {_shape_str((nb, self.value_size))} for value, got "
                f"{_shape_str(values.shape)}")
        rows = [self._row_key(r) for r in keys.reshape(nb, self.key_size).tolist()]
        vals = self._np_values(values, nb).reshape(nb, self.value_size).copy()
        with self._lock:
            self._keys, self._vals = rows, vals
            self._n = sum(1 for k in rows if k != self.empty_key and k != self.deleted_key)


def _dense_table_factory(ctx):
    lookup_ops.check_kernel_dtypes(ctx, lookup_ops.DENSE_KERNEL_DTYPES)
    attrs = ctx.op._attrs
    container, name = lookup_ops.table_place(ctx)
    value_shape = tuple(attrs["value_shape"].as_list())

    def run(empty_key, deleted_key):
        def creator():
            return DenseHashTableResource(
                name, attrs["key_dtype"], attrs["value_dtype"], value_shape, empty_key,
                deleted_key, attrs["initial_num_buckets"], attrs["max_load_factor"])

        return lookup_ops.shared_table(ctx, container, name, creator, DenseHashTableResource,
                                       "MutableDenseHashTable")

    return run


op_registry.declare(
    "MutableDenseHashTableV2", inputs=["empty_key: key_dtype", "deleted_key: key_dtype"],
    outputs=["table_handle: resource"],
    attrs=[*lookup_ops._MUTABLE_ATTRS, "value_shape: shape = []",
           "initial_num_buckets: int = 131072", "max_load_factor: float = 0.8"],
    shape=lambda op: [scalar()], kernel_factory=_dense_table_factory, differentiable=False,
    stateful=True)


class DenseHashTable(lookup_ops.MutableHashTable):
    """``tf.lookup.experimental.DenseHashTable(key_dtype, value_dtype, default_value,
    empty_key, deleted_key, initial_num_buckets=None, name="MutableDenseHashTable",
    checkpoint=True)``: a mutable table with TF's dense bucket layout. ``empty_key`` and
    ``deleted_key`` mark free buckets and may never be used as keys; a vector ``empty_key``
    makes vector keys, a vector ``default_value`` vector values. With ``checkpoint`` a Saver
    saves the buckets (``<name>-keys``, ``<name>-values``) and restores them."""

    def __init__(self, key_dtype, value_dtype, default_value, empty_key, deleted_key,
                 initial_num_buckets=None, name="MutableDenseHashTable", checkpoint=True,
                 shared_name=None):
        key_dtype = _dtypes.as_dtype(key_dtype)
        value_dtype = _dtypes.as_dtype(value_dtype)
        self._default_value = ops.convert_to_tensor(default_value, dtype=value_dtype,
                                                    name="default_value")
        self._value_shape = self._default_value.get_shape()
        self._checkpoint = checkpoint
        self._saveable_name = name
        empty_key = ops.convert_to_tensor(empty_key, dtype=key_dtype, name="empty_key")
        deleted_key = ops.convert_to_tensor(deleted_key, dtype=key_dtype, name="deleted_key")
        self._empty_key, self._deleted_key = empty_key, deleted_key
        attrs = {"shared_name": shared_name or "",
                 "use_node_name_sharing": bool(checkpoint and shared_name is None),
                 "container": ops.get_default_graph()._container or "",
                 "key_dtype": key_dtype, "value_dtype": value_dtype,
                 "value_shape": self._value_shape}
        if initial_num_buckets is not None:
            attrs["initial_num_buckets"] = int(initial_num_buckets)
        self._table_ref = ops.apply_op("MutableDenseHashTableV2", [empty_key, deleted_key],
                                       attrs, name=name).outputs[0]
        lookup_ops.LookupInterface.__init__(self, key_dtype, value_dtype,
                                            self._table_ref.op.name.split("/")[-1])
        if checkpoint:
            ops.add_to_collection(ops.GraphKeys.SAVEABLE_OBJECTS,
                                  lookup_ops._mutable_saveable(self, name))

    @property
    def key_shape(self):
        return self._empty_key.get_shape()

    def insert_or_assign(self, keys, values, name=None):
        """TF 1.15's DenseHashTable name of ``insert``."""
        return self.insert(keys, values, name=name)

    def erase(self, keys, name=None):
        """TF 1.15's DenseHashTable name of ``remove``."""
        return self.remove(keys, name=name)


MutableDenseHashTable = DenseHashTable  # tf.contrib.lookup's name, as TF 1.15


def dense_find_shape(op):
    """LookupTableFindV2's output shape on a dense table: the keys' batch dims + the value
    shape."""
    table = op.inputs[0].op
    keys = op.inputs[1].get_shape()
    key_shape = table.inputs[0].get_shape()
    value_shape = table._attrs["value_shape"]
    if keys.ndims is None or key_shape.ndims is None:
        return TensorShape(None)
    return keys[:keys.ndims - key_shape.ndims].concatenate(value_shape)
