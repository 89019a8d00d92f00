"""``tf.contrib.nccl`` and ``tf.contrib.all_reduce``: collective reductions across the tensors
of several devices, built from ordinary ops placed on those devices (the partitioner moves the
pieces between them). On CPU devices, and without NCCL, they are plain reductions that run
anywhere tideflow runs; the ring, recursive halving-doubling and shuffle builders keep TF's
chunking and data flow, so their results agree with a direct reduction up to summation order.
Unlike TF, whose NCCL reductions other than sum have no gradient, every result here is
differentiable through the ops it is built from."""

import types

from tideflow.framework import device as device_lib
from tideflow.framework import ops

# ------------------------------------------------------------------------------------------
# nccl
# ------------------------------------------------------------------------------------------


def _check_device(tensor, expected=None):
    if not device_lib.canonical_name(tensor.device):
        raise ValueError(f"Device assignment required for nccl collective ops (tensor "
                         f"{tensor.name} has none)")
    if expected and expected != tensor.device:
        raise ValueError(f"Expected device {expected}, got {tensor.device}")


def _all_reduce(reduction, tensors):
    from tideflow.ops import array_ops, math_ops, reduction_ops

    if not tensors:
        raise ValueError("Must pass >0 tensors to all reduce operations")
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    for t in tensors:
        _check_device(t)
    out = []
    for t in tensors:
        with ops.device(t.device):
            if reduction == "sum":
                out.append(math_ops.add_n(tensors))
            else:
                fn = {"prod": reduction_ops.reduce_prod, "min": reduction_ops.reduce_min,
                      "max": reduction_ops.reduce_max}[reduction]
                out.append(fn(array_ops.stack(tensors), 0))
    return out


def all_sum(tensors):
    """One tensor per input, each on its input's device, holding the sum of all inputs."""
    return _all_reduce("sum", tensors)


def all_prod(tensors):
    """As :func:`all_sum`, with the elementwise product."""
    return _all_reduce("prod", tensors)


def all_min(tensors):
    """As :func:`all_sum`, with the elementwise minimum."""
    return _all_reduce("min", tensors)


def all_max(tensors):
    """As :func:`all_sum`, with the elementwise maximum."""
    return _all_reduce("max", tensors)


def reduce_sum(tensors):
    """The sum of ``tensors`` on the current device, which must hold one of them."""
    from tideflow.ops import math_ops

    if not tensors:
        raise ValueError("Must pass >0 tensors to reduce operations")
    tensors = [ops.convert_to_tensor(t) for t in tensors]
    for t in tensors:
        _check_device(t)
    result = math_ops.add_n(tensors)
    if not any(t.device == result.device for t in tensors):
        raise ValueError("One input tensor must be assigned to current device")
    return result


def broadcast(tensor):
    """``tensor`` as a value other devices read (each reader's device receives a copy)."""
    from tideflow.ops import array_ops

    tensor = ops.convert_to_tensor(tensor)
    _check_device(tensor)
    with ops.device(tensor.device):
        return array_ops.identity(tensor)


nccl = types.ModuleType("tideflow.contrib.nccl", "``tf.contrib.nccl``: all_sum, all_prod, "
                        "all_min, all_max, reduce_sum, broadcast (plain reductions per device).")
for _name in ("all_max", "all_min", "all_prod", "all_sum", "broadcast", "reduce_sum"):
    setattr(nccl, _name, globals()[_name])
nccl.__all__ = ["all_max", "all_min", "all_prod", "all_sum", "broadcast", "reduce_sum"]

# ------------------------------------------------------------------------------------------
# all_reduce
# ------------------------------------------------------------------------------------------


def _flatten_tensors(tensors):
    """The tensors reshaped to vectors, and their common (fully known) shape."""
    from tideflow.ops import array_ops

    if not tensors:
        raise ValueError("tensors cannot be empty")
    shape = tensors[0].get_shape()
    for t in tensors:
        if not t.get_shape().is_fully_defined():
            raise ValueError(f"Tensors must have statically known shape ({t.name}: "
                             f"{t.get_shape()}).")
        if t.get_shape() != shape:
            raise ValueError(f"tensors must have same shape ({t.name}: {t.get_shape()} vs "
                             f"{shape})")
    if shape.ndims != 1:
        reshaped = []
        for t in tensors:
            with ops.colocate_with(t):
                reshaped.append(array_ops.reshape(t, [-1]))
        tensors = reshaped
    return tensors, shape


def _reshape_tensors(tensors, shape):
    from tideflow.ops import array_ops

    out = []
    for t in tensors:
        with ops.colocate_with(t):
            out.append(array_ops.reshape(t, shape))
    return out


def _padded_split(tensor, pieces):
    """``tensor`` (a vector) zero-padded to a multiple of ``pieces`` and split evenly; also
    the padding length."""
    from tideflow.ops import array_ops, pad_ops

    n = tensor.get_shape()[0].value
    pad = (-n) % pieces
    with ops.colocate_with(tensor):
        if pad:
            tensor = pad_ops.pad(tensor, [[0, pad]])
        return array_ops.split(tensor, pieces), pad


def _strip_padding(tensors, pad):
    if not pad:
        return tensors
    out = []
    for t in tensors:
        with ops.colocate_with(t):
            out.append(t[:t.get_shape()[0].value - pad])
    return out


def _concat_on(device, pieces):
    from tideflow.ops import concat_ops

    with ops.device(device):
        return concat_ops.concat(pieces, 0)


def _apply_un_op(un_op, tensors):
    if un_op is None:
        return tensors
    out = []
    for t in tensors:
        with ops.device(t.device):
            out.append(un_op(t))
    return out


def build_ring_all_reduce(input_tensors, num_workers, num_subchunks, gpu_perm, red_op,
                          un_op=None):
    """All-reduce along a ring: each input is split into ``num_subchunks`` times devices
    pieces; in a reduce-scatter pass each piece travels the ring (order ``gpu_perm`` within each
    of ``num_workers`` workers) accumulating with ``red_op`` on each device it reaches, then
    every device gathers the reduced pieces from the devices that completed them. Returns one tensor per input, on its device (``un_op`` applied,
    e.g. dividing by the count to average)."""
    if len(input_tensors) < 2:
        raise ValueError("input_tensors must be length 2 or longer")
    input_tensors = [ops.convert_to_tensor(t) for t in input_tensors]
    flat, shape = _flatten_tensors(input_tensors)
    devices = [t.device for t in flat]
    per_worker = len(gpu_perm)
    if len(flat) != num_workers * per_worker:
        raise ValueError(f"len(input_tensors)={len(flat)} != num_workers={num_workers} * "
                         f"len(gpu_perm)={per_worker}")
    order = [w * per_worker + g for w in range(num_workers) for g in gpu_perm]
    n = len(order)
    chunks_per_dev = num_subchunks
    split = []
    pad = 0
    for t in flat:
        pieces, pad = _padded_split(t, n * chunks_per_dev)
        split.append(pieces)
    # piece (s, c): subchunk s, chunk c; the device at ring position p starts chunk p
    reduced = {}
    for s in range(num_subchunks):
        for c in range(n):
            idx = s * n + c
            pos = c
            acc = split[order[pos]][idx]
            for step in range(1, n):
                pos = (c + step) % n
                with ops.device(devices[order[pos]]):
                    acc = red_op(acc, split[order[pos]][idx])
            reduced[idx] = acc  # complete on the ring position that added last
    pieces = [reduced[idx] for idx in range(n * chunks_per_dev)]
    outputs = [_concat_on(devices[d], pieces) for d in range(len(flat))]
    outputs = _strip_padding(outputs, pad)
    return _apply_un_op(un_op, _reshape_tensors(outputs, shape))


def build_recursive_hd_all_reduce(input_tensors, red_op, un_op=None):
    """All-reduce by recursive halving (each round pairs devices ``2^k`` apart, which swap
    halves of what they hold and reduce them) then doubling (the halves are gathered back).
    The number of inputs must be a power of 2."""
    from tideflow.ops import array_ops

    input_tensors = [ops.convert_to_tensor(t) for t in input_tensors]
    flat, shape = _flatten_tensors(input_tensors)
    devices = [t.device for t in flat]
    n = len(flat)
    if n & (n - 1):
        raise ValueError(f"Number of devices must be power of 2, got {n}")
    length = flat[0].get_shape()[0].value
    pad = (-length) % n if n > 1 else 0
    held = []
    for t in flat:
        pieces, _ = _padded_split(t, n)
        held.append(pieces)  # the chunks each device currently holds (all, at first)
    # halving: after round k each device holds n / 2^(k+1) chunks reduced over 2^(k+1) inputs
    span = 1
    owned = [list(range(n)) for _ in range(n)]
    while span < n:
        new_held, new_owned = [None] * n, [None] * n
        for d in range(n):
            partner = d ^ span
            half = len(owned[d]) // 2
            keep = owned[d][:half] if d & span == 0 else owned[d][half:]
            mine = dict(zip(owned[d], held[d]))
            theirs = dict(zip(owned[partner], held[partner]))
            with ops.device(devices[d]):
                new_held[d] = [red_op(mine[c], theirs[c]) for c in keep]
            new_owned[d] = keep
        held, owned = new_held, new_owned
        span *= 2
    # doubling: partners exchange what they hold until every device has every chunk
    span = n // 2
    while span >= 1:
        new_held, new_owned = [None] * n, [None] * n
        for d in range(n):
            partner = d ^ span
            merged = dict(zip(owned[d], held[d]))
            with ops.device(devices[d]):
                for c, v in zip(owned[partner], held[partner]):
                    merged[c] = array_ops.identity(v)
            new_owned[d] = sorted(merged)
            new_held[d] = [merged[c] for c in new_owned[d]]
        held, owned = new_held, new_owned
        span //= 2
    outputs = [_concat_on(devices[d], held[d]) for d in range(n)]
    outputs = _strip_padding(outputs, pad)
    return _apply_un_op(un_op, _reshape_tensors(outputs, shape))


def build_shuffle_all_reduce(input_tensors, gather_devices, red_op, un_op=None):
    """All-reduce by shuffling: each input is split into one piece per gather device; each
    gather device reduces its piece over all inputs (and applies ``un_op``); every input device
    then concatenates the reduced pieces. ``red_op`` is n-ary, as in TF: it takes the list of
    pieces (``tf.add_n``), not a pair."""
    input_tensors = [ops.convert_to_tensor(t) for t in input_tensors]
    flat, shape = _flatten_tensors(input_tensors)
    devices = [t.device for t in flat]
    m = len(gather_devices)
    if m < 1:
        raise ValueError("gather_devices cannot be empty")
    split, pad = [], 0
    for t in flat:
        pieces, pad = _padded_split(t, m)
        split.append(pieces)
    reduced = []
    for g, dev in enumerate(gather_devices):
        with ops.device(dev):
            acc = red_op([pieces[g] for pieces in split])
            if un_op is not None:
                acc = un_op(acc)
            reduced.append(acc)
    outputs = [_concat_on(d, reduced) for d in devices]
    outputs = _strip_padding(outputs, pad)
    return _reshape_tensors(outputs, shape)


def build_nccl_all_reduce(input_tensors, red_op, un_op=None):
    """All-reduce with ``tf.contrib.nccl`` (here: a sum on every device; ``red_op`` must be
    ``tf.add``)."""
    from tideflow.ops import math_ops

    if red_op is not math_ops.add:
        raise ValueError("red_op not supported by NCCL all-reduce: ", red_op)
    return _apply_un_op(un_op, all_sum(input_tensors))


# -- two-level (hybrid) builders: reduce within each task, then across tasks ---------------


def _group_by_task(devices):
    """Indices of ``devices`` grouped by their (job, replica, task), in first-seen order."""
    groups = {}
    for i, name in enumerate(devices):
        spec = device_lib.DeviceSpec.from_string(name)
        if spec.task is None:
            raise AssertionError(f"failed to parse device {name}")
        key = (spec.job or "localhost", spec.replica or 0, spec.task)
        groups.setdefault(key, []).append(i)
    return list(groups.values())


def _reduce_non_singleton(tensors, reduce_fn, un_op):
    """``reduce_fn(tensors)`` for two or more tensors; a single one only gets ``un_op``."""
    if len(tensors) > 1:
        return reduce_fn(tensors)
    if not un_op:
        return tensors
    out = []
    for t in tensors:
        with ops.colocate_with(t):
            out.append(un_op(t))
    return out


def _nccl_hybrid(input_tensors, red_op, upper_level_f):
    """NCCL within each task; ``upper_level_f`` across one value per task; a broadcast back to
    every device of the task. Outputs come task by task, as TF's."""
    from tideflow.ops import array_ops

    flat, shape = _flatten_tensors([ops.convert_to_tensor(t) for t in input_tensors])
    groups = _group_by_task([t.device for t in flat])
    ups = []
    for idx in groups:
        reduced = build_nccl_all_reduce([flat[i] for i in idx], red_op)
        # the other devices' reductions must run too, though only one result is passed up
        with ops.control_dependencies(reduced), ops.device(reduced[0].device):
            ups.append(array_ops.identity(reduced[0]))
    tops = upper_level_f(ups)
    out = []
    for w, idx in enumerate(groups):
        with ops.device(flat[idx[0]].device):
            source = broadcast(array_ops.identity(tops[w]))
        for i in idx:
            with ops.device(flat[i].device):
                out.append(array_ops.identity(source))
    return _reshape_tensors(out, shape) if shape.ndims != 1 else out


def build_nccl_then_ring(input_tensors, subdiv, red_op, un_op=None):
    """NCCL within each task, a ring (``subdiv`` subchunks) across tasks."""
    def across(values):
        return build_ring_all_reduce(values, len(values), subdiv, [0], red_op, un_op)
    return _nccl_hybrid(input_tensors, red_op,
                        lambda values: _reduce_non_singleton(values, across, un_op))


def build_nccl_then_recursive_hd(input_tensors, red_op, un_op=None):
    """NCCL within each task, recursive halving-doubling across tasks."""
    return _nccl_hybrid(input_tensors, red_op,
                        lambda values: build_recursive_hd_all_reduce(values, red_op, un_op))


def build_nccl_then_shuffle(input_tensors, gather_devices, nccl_red_op, shuffle_red_op,
                            un_op=None):
    """NCCL within each task, a shuffle (n-ary ``shuffle_red_op``) across tasks."""
    return _nccl_hybrid(
        input_tensors, nccl_red_op,
        lambda values: build_shuffle_all_reduce(values, gather_devices, shuffle_red_op, un_op))


def _shuffle_hybrid(input_tensors, gather_devices, red_op, upper_level_f):
    """A shuffle gather of each task's tensors on that task's gather device (n-ary
    ``red_op``), ``upper_level_f`` across tasks, a scatter back to the task's devices."""
    from tideflow.ops import array_ops

    flat, shape = _flatten_tensors([ops.convert_to_tensor(t) for t in input_tensors])
    groups = _group_by_task([t.device for t in flat])
    if len(gather_devices) != len(groups):
        raise ValueError("For shuffle hybrid, gather_devices must contain one device per "
                         "worker. ")
    ups = []
    for w, idx in enumerate(groups):
        with ops.device(gather_devices[w]):
            ups.append(red_op([flat[i] for i in idx]))
    tops = upper_level_f(ups)
    out = []
    for w, idx in enumerate(groups):
        for i in idx:
            with ops.device(flat[i].device):
                out.append(array_ops.identity(tops[w]))
    return _reshape_tensors(out, shape) if shape.ndims != 1 else out


def build_shuffle_then_ring(input_tensors, gather_devices, subdiv, red_n_op, red_op,
                            un_op=None):
    """A shuffle within each task (n-ary ``red_n_op``), a ring (binary ``red_op``) across."""
    def across(values):
        return build_ring_all_reduce(values, len(values), subdiv, [0], red_op, un_op)
    return _shuffle_hybrid(input_tensors, gather_devices, red_n_op,
                           lambda values: _reduce_non_singleton(values, across, un_op))


def build_shuffle_then_shuffle(input_tensors, first_gather_devices, second_gather_devices,
                               red_op, un_op=None):
    """A shuffle within each task on ``first_gather_devices`` (one per task), then a shuffle
    across tasks on ``second_gather_devices``; ``red_op`` is n-ary."""
    def across(values):
        return build_shuffle_all_reduce(values, second_gather_devices, red_op, un_op)
    return _shuffle_hybrid(input_tensors, first_gather_devices, red_op,
                           lambda values: _reduce_non_singleton(values, across, un_op))


_ALL_REDUCE_NAMES = ["build_nccl_all_reduce", "build_nccl_then_recursive_hd",
                     "build_nccl_then_ring", "build_nccl_then_shuffle",
                     "build_recursive_hd_all_reduce", "build_ring_all_reduce",
                     "build_shuffle_all_reduce", "build_shuffle_then_ring",
                     "build_shuffle_then_shuffle"]
all_reduce = types.ModuleType(
    "tideflow.contrib.all_reduce", "``tf.contrib.all_reduce``: ring, recursive "
    "halving-doubling, shuffle and NCCL all-reduce builders, and their two-level hybrids.")
for _name in _ALL_REDUCE_NAMES:
    setattr(all_reduce, _name, globals()[_name])
all_reduce.__all__ = list(_ALL_REDUCE_NAMES)

__all__ = ["all_reduce", "nccl"]
