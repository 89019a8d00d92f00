"""Reading checkpoints from Python: ``tf.train.NewCheckpointReader``, ``list_variables``,
``load_variable``, and ``init_from_checkpoint`` (variables initialized from a checkpoint);
``checkpoints_iterator`` and ``wait_for_new_checkpoint`` are here too, where TF keeps them.
"""

import bisect
import os

from tideflow.framework import dtypes, errors, ops
from tideflow.train import checkpoint_format, checkpoint_management
from tideflow.train.train_extras import checkpoints_iterator, wait_for_new_checkpoint


def _as_str(name):
    return name.decode() if isinstance(name, bytes) else name  # TF takes bytes keys too


class CheckpointReader:
    """Reads the tensors of one checkpoint (``tf.train.NewCheckpointReader``)."""

    def __init__(self, filepattern):
        prefix = os.fspath(filepattern)
        if isinstance(prefix, bytes):
            prefix = prefix.decode()
        # accept the path of the index or of a data file as well as the prefix
        for suffix in (checkpoint_format.INDEX_SUFFIX,):
            if prefix.endswith(suffix) and not checkpoint_format.checkpoint_exists(prefix):
                prefix = prefix[:-len(suffix)]
        if ".data-" in prefix and not checkpoint_format.checkpoint_exists(prefix):
            prefix = prefix[:prefix.rindex(".data-")]
        if os.path.exists(prefix) and not checkpoint_format.checkpoint_exists(prefix):
            # TF reads any other existing path (a directory, the .meta or state file) as a V1
            # table and fails as that reader does
            why = (f"Failed precondition: {prefix}; Is a directory" if os.path.isdir(prefix)
                   else "Data loss: not an sstable (bad magic number)")
            raise errors.DataLossError(
                None, None, f"Unable to open table file {prefix}: {why}: perhaps your file is in "
                "a different file format and you need to use a different restore operator?")
        self._reader = checkpoint_format.Reader(prefix)
        self._prefix = prefix
        self._order = None

    def _names(self):
        if self._order is None:
            self._order = _unordered_map_order(sorted(self._reader.tensors))
        return self._order

    def get_variable_to_shape_map(self):
        """{name: shape as a list of ints}, in TF's order (see ``_unordered_map_order``)."""
        tensors = self._reader.tensors
        return {n: list(tensors[n]["shape"]) for n in self._names()}

    def get_variable_to_dtype_map(self):
        """{name: tf.DType}, in TF's order."""
        tensors = self._reader.tensors
        return {n: dtypes.as_dtype(tensors[n]["dtype"]) for n in self._names()}

    def has_tensor(self, tensor_str):
        return self._reader.has(_as_str(tensor_str))

    def get_tensor(self, tensor_str):
        """The value of ``tensor_str``; NotFoundError when the checkpoint lacks it. A scalar
        comes back as a NumPy scalar (``np.int64(3)``; bytes for a string), as TF's reader."""
        value = self._reader.read(_as_str(tensor_str))
        if getattr(value, "dtype", None) is not None and value.dtype.names:
            value = value.view(value.dtype[0])  # a quantized type's plain integers, as TF's
        return value[()] if getattr(value, "ndim", None) == 0 else value

    def debug_string(self):
        """One line per stored tensor, ``name (DT_FLOAT) [2,3]``, as bytes, in the order of
        TF's bundle index: a tensor saved as slices (a partitioned variable) is listed as its
        slices, each under its binary slice key (TF's ``EncodeTensorNameSlice``), as TF does."""
        lines = []
        for n, e in self._reader.tensors.items():
            dt = dtypes.as_dtype(e["dtype"])
            enum = _DT_NAMES.get(dt.name, "DT_" + dt.name.upper()).encode()
            pieces = ([(n.encode(), e["shape"])] if "slices" not in e else
                      [(_slice_key(n, p["offset"], p["shape"]), p["shape"]) for p in e["slices"]])
            for key, shape in pieces:
                lines.append((key, key + b" (" + enum + b") ["
                              + ",".join(str(d) for d in shape).encode() + b"]\n"))
        return b"".join(line for _, line in sorted(lines))

    def __repr__(self):
        return f"<CheckpointReader {self._prefix}>"


# -- the order of TF's variable maps ----------------------------------------------------------
# TF's reader fills a C++ std::unordered_map<string, ...> with the bundle's tensor names in index
# (sorted) order and turns it into a dict by iterating it, so a program printing the map sees
# the order of libstdc++'s hash table (TF 1.15's build): std::hash<string> (MurmurHash2-64 of
# the bytes, seed 0xc70f6907), buckets from the prime rehash policy (max load factor 1, growth
# factor 2), each new key first in its bucket, an empty bucket's key first in the whole list.

_MASK64 = (1 << 64) - 1
_MUL = (0xC6A4A793 << 32) + 0x5BD1E995


def _shift_mix(v):
    return v ^ (v >> 47)


def _std_hash(data):
    """libstdc++'s ``std::_Hash_bytes(data, len, 0xc70f6907)`` on a 64-bit machine."""
    n = len(data)
    aligned = n & ~7
    h = 0xC70F6907 ^ ((n * _MUL) & _MASK64)
    for i in range(0, aligned, 8):
        h ^= (_shift_mix((int.from_bytes(data[i:i + 8], "little") * _MUL) & _MASK64)
              * _MUL) & _MASK64
        h = (h * _MUL) & _MASK64
    if n & 7:
        h ^= int.from_bytes(data[aligned:], "little")
        h = (h * _MUL) & _MASK64
    return _shift_mix((_shift_mix(h) * _MUL) & _MASK64)


_FAST_BUCKETS = (2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13)
_PRIMES = (
    17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103, 109, 113,
    127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257, 277, 293, 313, 337, 359,
    383, 409, 439, 467, 503, 541, 577, 619, 661, 709, 761, 823, 887, 953, 1031, 1109, 1193,
    1289, 1381, 1493, 1613, 1741, 1879, 2029, 2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739,
    4027, 4349, 4703, 5087, 5503, 5953, 6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113,
    12011, 12983, 14033, 15173, 16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727,
    33223, 35933, 38873, 42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229,
    92203, 99733, 107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409,
    218971, 236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881,
    520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369)


def _next_bucket_count(n):
    if n < len(_FAST_BUCKETS):
        return _FAST_BUCKETS[n]
    i = bisect.bisect_left(_PRIMES, n)
    return _PRIMES[i] if i < len(_PRIMES) else n  # (past a million names: approximate)


def _unordered_map_order(names):
    """The iteration order of a libstdc++ unordered_map that ``names`` were inserted into, in
    this order (TF's reader: the bundle index's sorted tensor names)."""
    head = object()  # the list's "before begin" node
    nxt = {head: None}
    hashes = {n: _std_hash(n.encode()) for n in names}
    buckets = {}  # bucket -> the node before the bucket's first node
    n_buckets, next_resize = 1, 0
    for count, name in enumerate(names):
        if count + 1 >= next_resize:
            if count + 1 >= n_buckets:  # rehash: the nodes in list order, each to the front
                # of its new bucket, an empty bucket's node to the front of the list
                n_buckets = next_resize = _next_bucket_count(max(count + 2, n_buckets * 2))
                node, nxt[head], buckets, first_bucket = nxt[head], None, {}, 0
                while node is not None:
                    following, b = nxt[node], hashes[node] % n_buckets
                    if b in buckets:
                        before = buckets[b]
                        nxt[node], nxt[before] = nxt[before], node
                    else:
                        nxt[node], nxt[head] = nxt[head], node
                        buckets[b] = head
                        if nxt[node] is not None:
                            buckets[first_bucket] = node
                        first_bucket = b
                    node = following
            else:
                next_resize = n_buckets
        b = hashes[name] % n_buckets
        if b in buckets:
            before = buckets[b]
            nxt[name], nxt[before] = nxt[before], name
        else:
            first = nxt[head]
            nxt[name], nxt[head] = first, name
            if first is not None:
                buckets[hashes[first] % n_buckets] = name
            buckets[b] = head
    order, node = [], nxt[head]
    while node is not None:
        order.append(node)
        node = nxt[node]
    return order


def _num_increasing(n):
    """OrderedCode's WriteNumIncreasing: a length byte, then the big-endian bytes of ``n``."""
    body = n.to_bytes((n.bit_length() + 7) // 8, "big")
    return bytes([len(body)]) + body


_SIGNED_HEADER = {1: (0x80, 0), 2: (0xC0, 0), 3: (0xE0, 0), 4: (0xF0, 0), 5: (0xF8, 0),
                  6: (0xFC, 0), 7: (0xFE, 0), 8: (0xFF, 0), 9: (0xFF, 0x80), 10: (0xFF, 0xC0)}


def _signed_num_increasing(v):
    """OrderedCode's WriteSignedNumIncreasing: 7 bits of the value per byte, the leading bits
    of the first bytes telling the length."""
    x = ~v if v < 0 else v
    n = (x.bit_length() + 7) // 7  # the sign bit plus the value's bits, 7 to a byte
    b = bytearray((v & ((1 << 80) - 1)).to_bytes(10, "big")[10 - n:])
    h0, h1 = _SIGNED_HEADER[n]
    b[0] ^= h0
    if n > 1:
        b[1] ^= h1
    return bytes(b)


def _slice_key(name, offset, shape):
    """The index key TF's bundles keep one slice of tensor ``name`` under."""
    escaped = b"".join(b"\x00\xff" if c == 0 else b"\xff\x00" if c == 0xFF else bytes([c])
                       for c in name.encode())
    key = b"\x00" + escaped + b"\x00\x01" + _num_increasing(len(shape))
    for start, length in zip(offset, shape):
        key += _signed_num_increasing(start) + _signed_num_increasing(length)
    return key


_DT_NAMES = {
    "float32": "DT_FLOAT", "float64": "DT_DOUBLE", "float16": "DT_HALF",
    "bfloat16": "DT_BFLOAT16", "int32": "DT_INT32", "int64": "DT_INT64", "int16": "DT_INT16",
    "int8": "DT_INT8", "uint8": "DT_UINT8", "uint16": "DT_UINT16", "uint32": "DT_UINT32",
    "uint64": "DT_UINT64", "bool": "DT_BOOL", "string": "DT_STRING",
    "complex64": "DT_COMPLEX64", "complex128": "DT_COMPLEX128",
}


def NewCheckpointReader(filepattern):
    """A CheckpointReader of checkpoint prefix ``filepattern`` (NotFoundError if missing)."""
    return CheckpointReader(filepattern)


def _checkpoint_filename(ckpt_dir_or_file):
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of a checkpoint, or of the latest one of a directory."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            f"Couldn't find 'checkpoint' file or checkpoints in given directory "
            f"{ckpt_dir_or_file}"
        )
    return NewCheckpointReader(filename)


def load_variable(ckpt_dir_or_file, name):
    """The value of variable ``name`` (":0" allowed) in a checkpoint."""
    name = name.removesuffix(":0")
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


def list_variables(ckpt_dir_or_file):
    """Sorted ``[(name, shape)]`` of the tensors of a checkpoint."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(n, shapes[n]) for n in sorted(shapes)]


# ------------------------------------------------------------------------------------------
# init_from_checkpoint
# ------------------------------------------------------------------------------------------


def _is_variable(x):
    from tideflow.ops import variables

    return isinstance(x, variables.Variable)


def _store_vars():
    from tideflow.ops import variable_scope

    return variable_scope._get_default_variable_store()._vars


def _partitioned(name, store):
    """The variable stored as ``name`` (never tested for truth: a resource variable's truth
    would read it), else the parts of the partitioned variable of that name, else None."""
    if store.get(name) is not None:
        return store[name]
    parts = []
    i = 0
    while f"{name}/part_{i}" in store:
        parts.append(store[f"{name}/part_{i}"])
        i += 1
    return parts or None


def _set_checkpoint_initializer(variable, ckpt_file, tensor_name, slice_spec="",
                                name="checkpoint_initializer"):
    """Replaces ``variable``'s initializer by a restore of ``tensor_name`` from ``ckpt_file``."""
    from tideflow.ops import checkpoint_ops
    from tideflow.train import saveable as saveable_lib

    base_type = variable.dtype.base_dtype
    g = variable.graph
    with g.as_default(), g.control_dependencies(None):
        with ops.device(variable.device), ops.device("/cpu:0"):  # as TF: on the task's CPU
            restore = checkpoint_ops.restore_v2(ckpt_file, [tensor_name], [slice_spec],
                                                [base_type], name=name)[0]
        # as TF, the restore of the variable's saveable: its Assign's output tensor for a ref
        # variable, the AssignVariableOp of a resource one
        (saveable,) = [s for key, v in saveable_lib.op_list_to_dict([variable]).items()
                       for s in saveable_lib.saveable_objects_for_op(v, key)]
        init = saveable.restore([restore], None)
    restore.set_shape(variable.shape)
    variable._initializer_op = init
    variable._initial_value = restore


def _set_variable_or_list_initializer(var, ckpt_file, tensor_name, ckpt_shape=None):
    """One variable restores the whole tensor; the parts of a partitioned one each their slice."""
    if not isinstance(var, (list, tuple)):
        _set_checkpoint_initializer(var, ckpt_file, tensor_name)
        return
    slice_name = None
    for v in var:
        info = v._get_save_slice_info()
        if info is None:
            raise ValueError(f"Variable {v.name} is not a part of a partitioned variable (it has "
                             "no save_slice_info)")
        if slice_name is None:
            slice_name = info.full_name
        elif slice_name != info.full_name:
            raise ValueError(
                f"Slices must all be from the same tensor: {slice_name} != {info.full_name}")
        if ckpt_shape is not None and list(info.full_shape) != list(ckpt_shape):
            raise ValueError(
                f"Shape of partitioned variable {info.full_name} ({info.full_shape}) doesn't "
                f"match with shape of tensor {tensor_name} ({list(ckpt_shape)}) from checkpoint "
                "reader."
            )
        _set_checkpoint_initializer(v, ckpt_file, tensor_name, info.spec)


def _as_parts(x):
    """The parts of a PartitionedVariable (or x itself)."""
    if hasattr(x, "_get_variable_list") and not _is_variable(x):
        return list(x._get_variable_list())
    return x


def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Makes the initializers of the mapped variables load values from a checkpoint.

    assignment_map: {checkpoint name or scope ('scope/'): variable, variable name, or scope}.
    """
    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    reader = load_checkpoint(ckpt_dir_or_file)
    shapes = reader.get_variable_to_shape_map()
    store = _store_vars()
    for ckpt_name, current in sorted(assignment_map.items(), key=lambda kv: kv[0]):
        current = _as_parts(current)
        var = None
        if _is_variable(current) or (isinstance(current, list)
                                     and all(_is_variable(v) for v in current)):
            var = current
        else:
            var = _partitioned(current, store)
        if var is not None:
            if ckpt_name not in shapes:
                raise ValueError(
                    f"Tensor {ckpt_name} is not found in {ckpt_dir_or_file} checkpoint {shapes}"
                )
            if _is_variable(var) and not var.get_shape().is_compatible_with(shapes[ckpt_name]):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with shape "
                    f"of tensor {ckpt_name} ({shapes[ckpt_name]}) from checkpoint reader."
                )
            _set_variable_or_list_initializer(var, ckpt_file, ckpt_name, shapes[ckpt_name])
            continue
        scopes = current[:current.rindex("/")] if "/" in current else ""
        if not ckpt_name.endswith("/"):
            raise ValueError(
                f"Assignment map with scope only name {scopes} should map to scope only "
                f"{ckpt_name}. Should be 'scope/': 'other_scope/'."
            )
        scope_vars = set()
        for var_name in store:
            if not scopes or var_name.startswith(scopes + "/"):
                if "/part_" in var_name:
                    var_name = var_name[:var_name.index("/part_")]
                scope_vars.add(var_name)
        for var_name in sorted(scope_vars):
            full = var_name[len(scopes):]
            if current != "/":
                full = full[1:]
            if ckpt_name != "/":
                full = ckpt_name + full
            full = full.rstrip("/")
            if full not in shapes:
                raise ValueError(
                    f"Tensor {full} ({var_name[len(scopes) + 1:]} in {ckpt_name}) is not found "
                    f"in {ckpt_dir_or_file} checkpoint"
                )
            var = _partitioned(var_name, store)
            _set_variable_or_list_initializer(var, ckpt_file, full, shapes[full])


__all__ = ["CheckpointReader", "NewCheckpointReader", "checkpoints_iterator",
           "init_from_checkpoint", "list_variables", "load_checkpoint", "load_variable",
           "wait_for_new_checkpoint"]
