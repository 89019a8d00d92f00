"""Reading checkpoints from Python: ``tf.train.NewCheckpointReader``, ``list_variables``,
``load_variable``, and ``init_from_checkpoint`` (variables initialized from a checkpoint);
``checkpoints_iterator`` and ``wait_for_new_checkpoint`` are here too, where TF keeps them.
"""

import os

from tideflow.framework import dtypes, ops
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
        self._reader = checkpoint_format.Reader(prefix)
        self._prefix = prefix

    def get_variable_to_shape_map(self):
        """{name: shape as a list of ints}."""
        return {n: list(e["shape"]) for n, e in self._reader.tensors.items()}

    def get_variable_to_dtype_map(self):
        """{name: tf.DType}."""
        return {n: dtypes.as_dtype(e["dtype"]) for n, e in self._reader.tensors.items()}

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
