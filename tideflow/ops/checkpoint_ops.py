"""Checkpoint I/O ops: SaveV2, RestoreV2, MergeV2Checkpoints, sharded file names, and the legacy
Save/SaveSlices/Restore/RestoreSlice names (all write the one tideflow checkpoint format).

The kernels read and write through ``tideflow.train.checkpoint_format`` (imported on first run,
so declaring these ops costs nothing).
"""

import collections
import contextlib
import os
import threading

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape

# ------------------------------------------------------------------------------------------
# helpers
# ------------------------------------------------------------------------------------------


def _fmt():
    from tideflow.train import checkpoint_format

    return checkpoint_format


def _text(x):
    if isinstance(x, np.ndarray):
        x = x.reshape(-1)[0] if x.size == 1 else x.item()
    if isinstance(x, (bytes, np.bytes_)):
        return bytes(x).decode("utf-8")
    return str(x)


def _texts(x, what):
    arr = np.asarray(x, dtype=object)
    if arr.ndim > 1:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a vector, got shape "
                                          f"{list(arr.shape)}")
    return [_text(v) for v in arr.reshape(-1)]


def _check_sizes(names, slices, n, what="tensors"):
    if len(names) != n or len(slices) != n:
        raise errors.InvalidArgumentError(
            None, None, f"Expected tensor_names and shape_and_slices to have {n} elements "
            f"(one per {what}), got {len(names)} and {len(slices)}",
        )


def parse_slice_spec(spec):
    """``"10 20 0,5:-"`` -> (full shape [10, 20], box [(0, 5), (0, 20)]); (None, None) for
    ``""`` (the whole tensor)."""
    return _fmt().parse_slice_spec(spec)


_READERS = collections.OrderedDict()
_READERS_LOCK = threading.Lock()


def open_reader(prefix):
    """A (cached) reader of checkpoint ``prefix``; NotFoundError naming it when missing."""
    cf = _fmt()
    try:
        st = os.stat(cf.index_filename(prefix))
    except OSError:
        raise cf.not_found(prefix) from None
    key = (prefix, st.st_ino, st.st_mtime_ns, st.st_size)
    with _READERS_LOCK:
        r = _READERS.get(key)
        if r is not None:
            _READERS.move_to_end(key)
            return r
    r = cf.Reader(prefix)
    with _READERS_LOCK:
        _READERS[key] = r
        while len(_READERS) > 8:
            _READERS.popitem(last=False)
    return r


def _tf_type(name):
    """TF's DataTypeString, which its runtime messages use (float, double, half)."""
    return dtypes.type_string(name)


def _check_request(reader, name, spec, dtype):
    """The box of tensor ``name`` that ``spec`` asks for (None: all of it), after checking the
    dtype and the full shape against the checkpoint."""
    stored = reader.entry(name)
    if stored["dtype"] != dtype.name:
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {name}; expected dtype {_tf_type(dtype.name)} does not "
            f"equal original dtype {_tf_type(stored['dtype'])}",
        )
    full, box = parse_slice_spec(spec)
    if full is not None and list(full) != list(stored["shape"]):
        raise errors.InvalidArgumentError(
            None, None, f"tensor_name = {name}; shape in shape_and_slice spec "
            f"[{','.join(map(str, full))}] does not match the shape stored in checkpoint: "
            f"[{','.join(map(str, stored['shape']))}]",
        )
    return box


def _restore_one(reader, name, spec, dtype):
    return reader.read_many([(name, _check_request(reader, name, spec, dtype), None)])[0]


def _save(prefix, names, specs, tensors, tensor_dtypes):
    _fmt().save(prefix, names, tensors, tensor_dtypes, specs=specs)


# ------------------------------------------------------------------------------------------
# SaveV2 / RestoreV2 / MergeV2Checkpoints
# ------------------------------------------------------------------------------------------


def _save_v2_kernel(prefix, tensor_names, shape_and_slices, tensors, *, dtypes):
    names = _texts(tensor_names, "tensor_names")
    specs = _texts(shape_and_slices, "shape_and_slices")
    _check_sizes(names, specs, len(tensors))
    _save(_text(prefix), names, specs, tensors, dtypes)


op_registry.declare(
    "SaveV2",
    inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string",
            "tensors: dtypes"],
    attrs=["dtypes: list(type) >= 1"],
    shape=lambda op: [],
    kernel=_save_v2_kernel,
    differentiable=False,
    stateful=True,
    doc="Saves tensors in the V2 checkpoint format (one shard: <prefix>.data-00000-of-00001 "
        "and <prefix>.index).",
)


class _RestoreTargets:
    """The variables a RestoreV2 may read its outputs straight into.

    Bound with the RestoreV2 op (registered in the session state); an Assign bound later in the
    same plan, on the same device, whose value is an output of this op that nothing else
    consumes, registers its variable here (``state_ops``). The restore then reads that output
    into the variable's buffer (when its shape and dtype match), or hands it its freshly read
    buffer (an uninitialized variable), so the Assign has nothing left to copy.
    """

    def __init__(self, device, n):
        self.device = device
        self.thread = threading.get_ident()
        self.open = True  # registration ends when the op first runs
        self.slots = [None] * n

    def __call__(self, ctx, tensor, resource, declared, validate, use_lock):
        if (not self.open or ctx.device is not self.device or not ctx.device.is_host
                or threading.get_ident() != self.thread or len(tensor.consumers()) != 1):
            return
        self.slots[tensor._value_index] = (resource, declared, validate, use_lock)

    @staticmethod
    def _fits(buf, shape, np_dtype):
        return (type(buf) is np.ndarray and buf.shape == shape and buf.dtype == np_dtype
                and buf.flags.c_contiguous and buf.flags.writeable)

    def requests(self, reader, names, boxes, tensor_dtypes):
        """The read requests of ``Reader.read_many``, and the outputs to hand to their
        variables afterwards."""
        reqs, installs = [], []
        for i, (name, box, dt) in enumerate(zip(names, boxes, tensor_dtypes)):
            slot = self.slots[i]
            if slot is None or dt == dtypes.string:
                reqs.append((name, box, None))
                continue
            res, declared, validate, use_lock = slot
            shape = tuple(n for _, n in box) if box is not None else tuple(reader.shape(name))
            np_dtype = dt.as_numpy_dtype
            buf = res.buf
            lock = res.lock if use_lock else None
            if self._fits(buf, shape, np_dtype):
                def into(res=res, shape=shape, np_dtype=np_dtype):
                    b = res.buf
                    return b if self._fits(b, shape, np_dtype) else None

                reqs.append((name, box, into, lock))
                continue
            if (buf is None and (declared == shape or not validate)) or (
                    buf is not None and not validate):
                installs.append((i, res, declared, validate, lock))
            reqs.append((name, box, None))
        return reqs, installs

    @staticmethod
    def install(values, installs):
        """Makes the freshly read values the buffers of their (uninitialized) variables."""
        for i, res, declared, validate, lock in installs:
            value = values[i]
            if type(value) is not np.ndarray or not value.flags.owndata:
                continue
            with lock if lock is not None else contextlib.nullcontext():
                buf = res.buf
                if (buf is None and (declared == value.shape or not validate)) or (
                        buf is not None and not validate and buf.shape != value.shape):
                    res.buf = value[...]  # a view: fetches of the variable copy it
                    values[i] = res.buf


def _targets_key(op):
    return ("_write_into", op)  # the key state_ops' Assign looks up for its value's producer


def _restore_v2_factory(ctx):
    tensor_dtypes = ctx.op._attrs["dtypes"]
    targets = _RestoreTargets(ctx.device, len(tensor_dtypes))
    ctx.session_state[_targets_key(ctx.op)] = targets

    def run(prefix, tensor_names, shape_and_slices):
        targets.open = False
        names = _texts(tensor_names, "tensor_names")
        specs = _texts(shape_and_slices, "shape_and_slices")
        _check_sizes(names, specs, len(tensor_dtypes))
        path = _text(prefix)
        try:
            reader = open_reader(path)
        except errors.NotFoundError:
            if path.endswith(_fmt().INDEX_SUFFIX) and os.path.isfile(path) and names:
                # the index file itself given as the prefix: TF falls back to reading it as
                # a V1 checkpoint (it is a table too), which lacks every tensor
                raise errors.NotFoundError(
                    None, None, f'Tensor name "{names[0]}" not found in checkpoint files '
                    f"{path}") from None
            raise
        boxes = [_check_request(reader, n, s, dt)
                 for n, s, dt in zip(names, specs, tensor_dtypes)]
        reqs, installs = targets.requests(reader, names, boxes, tensor_dtypes)
        values = reader.read_many(reqs)
        if installs:
            targets.install(values, installs)
        return values

    return run


def _restore_v2_shape(op):
    out = [unknown_shape() for _ in op._attrs["dtypes"]]
    specs = ops.constant_value(op._inputs[2])
    if specs is not None:
        for i, s in enumerate(np.asarray(specs, dtype=object).reshape(-1)[:len(out)]):
            try:
                full, box = parse_slice_spec(_text(s))
            except errors.InvalidArgumentError as e:
                raise ValueError(f"{op.name}: {e.message}") from None
            if full is not None:
                out[i] = TensorShape([n for _, n in box])
    return out


op_registry.declare(
    "RestoreV2",
    inputs=["prefix: string", "tensor_names: string", "shape_and_slices: string"],
    outputs=["tensors: dtypes"],
    attrs=["dtypes: list(type) >= 1"],
    shape=_restore_v2_shape,
    kernel_factory=_restore_v2_factory,
    differentiable=False,
    stateful=True,
)


def _merge_kernel(checkpoint_prefixes, destination_prefix, *, delete_old_dirs):
    prefixes = _texts(checkpoint_prefixes, "checkpoint_prefixes")
    _fmt().merge(prefixes, _text(destination_prefix), delete_old_dirs=delete_old_dirs)


op_registry.declare(
    "MergeV2Checkpoints",
    inputs=["checkpoint_prefixes: string", "destination_prefix: string"],
    attrs=["delete_old_dirs: bool = true"],
    shape=lambda op: [],
    kernel=_merge_kernel,
    differentiable=False,
    stateful=True,
)


def _sharded_filename_kernel(basename, shard, num_shards):
    return np.array(
        f"{_text(basename)}-{int(shard):05d}-of-{int(num_shards):05d}".encode(), dtype=object
    )


def _sharded_filespec_kernel(basename, num_shards):
    return np.array(f"{_text(basename)}-?????-of-{int(num_shards):05d}".encode(), dtype=object)


op_registry.declare(
    "ShardedFilename",
    inputs=["basename: string", "shard: int32", "num_shards: int32"],
    outputs=["filename: string"],
    shape=lambda op: [scalar()],
    kernel=_sharded_filename_kernel,
    differentiable=False,
)
op_registry.declare(
    "ShardedFilespec",
    inputs=["basename: string", "num_shards: int32"],
    outputs=["filename: string"],
    shape=lambda op: [scalar()],
    kernel=_sharded_filespec_kernel,
    differentiable=False,
)

# ------------------------------------------------------------------------------------------
# legacy (V1) names, writing the same format
# ------------------------------------------------------------------------------------------


def _save_legacy_kernel(filename, tensor_names, data, *, T):
    names = _texts(tensor_names, "tensor_names")
    _check_sizes(names, [""] * len(names), len(data))
    _save(_text(filename), names, [""] * len(names), data, T)


def _save_slices_kernel(filename, tensor_names, shapes_and_slices, data, *, T):
    names = _texts(tensor_names, "tensor_names")
    specs = _texts(shapes_and_slices, "shapes_and_slices")
    _check_sizes(names, specs, len(data))
    _save(_text(filename), names, specs, data, T)


op_registry.declare(
    "Save",
    inputs=["filename: string", "tensor_names: string", "data: T"],
    attrs=["T: list(type) >= 1"],
    shape=lambda op: [],
    kernel=_save_legacy_kernel,
    differentiable=False,
    stateful=True,
)
op_registry.declare(
    "SaveSlices",
    inputs=["filename: string", "tensor_names: string", "shapes_and_slices: string",
            "data: T"],
    attrs=["T: list(type) >= 1"],
    shape=lambda op: [],
    kernel=_save_slices_kernel,
    differentiable=False,
    stateful=True,
)


def _restore_legacy_kernel(file_pattern, tensor_name, *, dt):
    return _restore_one(open_reader(_text(file_pattern)), _text(tensor_name), "", dt)


def _restore_slice_kernel(file_pattern, tensor_name, shape_and_slice, *, dt):
    return _restore_one(open_reader(_text(file_pattern)), _text(tensor_name),
                        _text(shape_and_slice), dt)


op_registry.declare(
    "Restore",
    inputs=["file_pattern: string", "tensor_name: string"],
    outputs=["tensor: dt"],
    attrs=["dt: type", "preferred_shard: int = -1"],
    shape=lambda op: [unknown_shape()],
    kernel=_restore_legacy_kernel,
    differentiable=False,
    stateful=True,
)
op_registry.declare(
    "RestoreSlice",
    inputs=["file_pattern: string", "tensor_name: string", "shape_and_slice: string"],
    outputs=["tensor: dt"],
    attrs=["dt: type", "preferred_shard: int = -1"],
    shape=lambda op: [unknown_shape()],
    kernel=_restore_slice_kernel,
    differentiable=False,
    stateful=True,
)

# ------------------------------------------------------------------------------------------
# Python wrappers (gen_io_ops names)
# ------------------------------------------------------------------------------------------


def _strings(values, name):
    from tideflow.ops import constant_op

    if isinstance(values, ops.Tensor):
        return values
    return constant_op.constant(list(values), dtype=dtypes.string, name=name)


def save_v2(prefix, tensor_names, shape_and_slices, tensors, name=None):
    """Creates a SaveV2 op; returns it."""
    # as TF, the name lists are constants inside the op's scope ("save/SaveV2/tensor_names")
    with ops.name_scope(name, "SaveV2") as scope:
        prefix = ops.convert_to_tensor(prefix, dtypes.string, name="prefix")  # first, as TF
        return ops.apply_op(
            "SaveV2",
            [prefix, _strings(tensor_names, "tensor_names"),
             _strings(shape_and_slices, "shape_and_slices"), list(tensors)],
            name=scope,
        )


def restore_v2(prefix, tensor_names, shape_and_slices, dtypes, name=None):
    """Creates a RestoreV2 op; returns its list of output tensors."""
    from tideflow.framework import dtypes as _dt

    with ops.name_scope(name, "RestoreV2") as scope:
        prefix = ops.convert_to_tensor(prefix, _dt.string, name="prefix")  # first, as TF
        op = ops.apply_op(
            "RestoreV2",
            [prefix, _strings(tensor_names, "tensor_names"),
             _strings(shape_and_slices, "shape_and_slices")],
            {"dtypes": [_dt.as_dtype(d).base_dtype for d in dtypes]},
            name=scope,
        )
    return list(op._outputs)


def merge_v2_checkpoints(checkpoint_prefixes, destination_prefix, delete_old_dirs=True,
                         name=None):
    """Creates a MergeV2Checkpoints op; returns it."""
    with ops.name_scope(name, "MergeV2Checkpoints") as scope:
        if not isinstance(checkpoint_prefixes, ops.Tensor):
            from tideflow.ops import array_ops

            # packed inside the op's scope, as TF's ("save/MergeV2Checkpoints/checkpoint_prefixes")
            checkpoint_prefixes = array_ops.stack(list(checkpoint_prefixes),
                                                  name="checkpoint_prefixes")
        return ops.apply_op("MergeV2Checkpoints", [checkpoint_prefixes, destination_prefix],
                            {"delete_old_dirs": delete_old_dirs}, name=scope)


def sharded_filename(basename, shard, num_shards, name=None):
    return ops.apply_op("ShardedFilename", [basename, shard, num_shards], name=name)._outputs[0]


def sharded_filespec(basename, num_shards, name=None):
    return ops.apply_op("ShardedFilespec", [basename, num_shards], name=name)._outputs[0]


def save(filename, tensor_names, data, name=None):
    """The legacy Save op."""
    return ops.apply_op("Save", [filename, _strings(tensor_names, "tensor_names"), list(data)],
                        name=name)


def save_slices(filename, tensor_names, shapes_and_slices, data, name=None):
    return ops.apply_op(
        "SaveSlices",
        [filename, _strings(tensor_names, "tensor_names"),
         _strings(shapes_and_slices, "shapes_and_slices"), list(data)],
        name=name,
    )


def restore(file_pattern, tensor_name, dt, preferred_shard=-1, name=None):
    return ops.apply_op("Restore", [file_pattern, tensor_name],
                        {"dt": dt, "preferred_shard": preferred_shard}, name=name)._outputs[0]


def restore_slice(file_pattern, tensor_name, shape_and_slice, dt, preferred_shard=-1,
                  name=None):
    return ops.apply_op("RestoreSlice", [file_pattern, tensor_name, shape_and_slice],
                        {"dt": dt, "preferred_shard": preferred_shard}, name=name)._outputs[0]
