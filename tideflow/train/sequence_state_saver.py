"""``tf.contrib.training.SequenceQueueingStateSaver``, ``NextQueuedSequenceBatch`` and
``batch_sequences_with_states``: truncated-BPTT input. Each example's sequences are cut into
``num_unroll``-step segments that wait in a Barrier keyed ``"<i>_of_<n>:<key>"``; segment i+1
becomes ready when the state saved after segment i arrives, so minibatches carry a state
from one segment of an example to the next. The saver takes dense tensors;
``batch_sequences_with_states`` also SparseTensor sequences and context."""

import collections
import numbers

from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.ops import (
    array_ops,
    cast_ops,
    control_flow_ops,
    data_flow_ops,
    fill_ops,
    gather_ops,
    math_ops,
    random_ops,
    range_ops,
    reduction_ops,
    string_ops,
)
from tideflow.ops.barrier_ops import Barrier
from tideflow.summary import summary
from tideflow.train import queue_runner


def _check_multiple_of(value, multiple_of):
    """``value`` after a check that it is a multiple of the Python int ``multiple_of``."""
    assert isinstance(multiple_of, int)
    with ops.control_dependencies([control_flow_ops.Assert(
            math_ops.logical_and(math_ops.equal(math_ops.mod(value, multiple_of), 0),
                                 math_ops.not_equal(value, 0)),
            [string_ops.string_join([
                "Tensor %s should be a multiple of: " % value.name,  # noqa: UP031 - TF's
                string_ops.as_string(multiple_of), ", but saw value: ",
                string_ops.as_string(value), ". Consider setting pad=True."])])]):
        return array_ops.identity(value, name="multiple_of_checked")


def _check_rank(value, expected_rank):
    value = ops.convert_to_tensor(value)
    if value.get_shape().ndims is not None and value.get_shape().ndims != expected_rank:
        raise ValueError(f"Rank of tensor {value.name} should be: {expected_rank}, "
                         f"shape received: {value.get_shape()}")
    value.set_shape(value.get_shape().with_rank(expected_rank))
    return value


def _prepare_sequence_inputs(length, key, sequences, context, states):
    """``(length, key, states, sequences, context)``, the dicts sorted by name and their
    shapes checked (fully defined but the sequences' first dimension)."""
    states = {k: ops.convert_to_tensor(v, name=f"state_{k}") for k, v in states.items()}
    sequences = {k: ops.convert_to_tensor(v) for k, v in sequences.items()}
    context = {k: ops.convert_to_tensor(v) for k, v in context.items()}

    def fully_defined(label, values, ignore_first=False):
        for k, v in values.items():
            if not v.get_shape()[1 if ignore_first else 0:].is_fully_defined():
                raise ValueError(f"Shape for {label} {k} is not fully defined "
                                 f"{'(ignoring first dimension)' if ignore_first else ''}: "
                                 f"{v.get_shape()}")

    fully_defined("state", states)
    fully_defined("context", context)
    fully_defined("sequence", sequences, ignore_first=True)

    def by_name(d):
        return collections.OrderedDict(sorted(d.items()))

    length = _check_rank(length, 0)
    key = _check_rank(key, 0)
    if length.dtype != dtypes.int32:
        raise TypeError(f"length dtype must be int32, but received: {length.dtype}")
    if key.dtype != dtypes.string:
        raise TypeError(f"key dtype must be string, but received: {key.dtype}")
    return length, key, by_name(states), by_name(sequences), by_name(context)


class NextQueuedSequenceBatch:
    """The segments of a minibatch taken from a ``SequenceQueueingStateSaver``: their
    sequences ``[batch, num_unroll, ...]``, context, keys, lengths and states."""

    def __init__(self, state_saver):
        self._state_saver = state_saver

    total_length = property(lambda self: self._state_saver._received_total_length,
                            doc="The examples' lengths before padding, ``[batch]``.")
    length = property(lambda self: self._state_saver._received_length,
                      doc="The unpadded steps of each segment, ``[batch]``.")
    batch_size = property(lambda self: self._state_saver._received_batch_size,
                          doc="The number of segments, a scalar.")
    insertion_index = property(lambda self: self._state_saver._received_indices,
                               doc="The barrier's insertion index of each segment.")
    key = property(lambda self: self._state_saver._received_keys,
                   doc='The segments\' keys, ``"00001_of_00003:<key>"``.')
    next_key = property(lambda self: self._state_saver._received_next_key,
                        doc='The next segments\' keys (``"STOP:<key>"`` after the last).')
    sequence = property(lambda self: self._state_saver._received_sequence,
                        doc="The index of each segment within its example.")
    sequence_count = property(lambda self: self._state_saver._received_sequence_count,
                              doc="The number of segments of each example.")
    context = property(lambda self: self._state_saver._received_context,
                       doc="The context values, one row per segment.")
    sequences = property(lambda self: self._state_saver._received_sequences,
                         doc="The sequence values, ``[batch, num_unroll, ...]``.")

    def state(self, state_name):
        """The state ``state_name`` of each segment (its initial value for a first one)."""
        return self._state_saver._received_states[state_name]

    def save_state(self, state_name, value, name=None):
        """An op handing ``value`` on to the next segment of each example not finished."""
        saver = self._state_saver
        if state_name not in saver._received_states:
            raise KeyError(f"state was not declared: {state_name}")
        with ops.name_scope(name, "InputQueueingStateSaver_SaveState", values=[value]):
            not_done = array_ops.reshape(
                gather_ops.where_v2(math_ops.logical_not(saver._sequence_is_done)), [-1])
            next_keys = array_ops.gather(saver._received_next_key, not_done)
            value = array_ops.identity(value, name=f"convert_{state_name}")
            expected = saver._received_states[state_name].get_shape()
            if not value.get_shape().is_compatible_with(expected):
                raise ValueError(f"Shape of state {state_name} should be {expected}, got "
                                 f"{value.get_shape()}")
            return saver._barrier.insert_many(
                saver._get_barrier_index("state", state_name), next_keys,
                array_ops.gather(value, not_done), name=f"BarrierInsertState_{state_name}")


class SequenceQueueingStateSaver:
    """Splits each input example's sequences into ``num_unroll``-step segments (run
    ``prefetch_op`` once per example) and serves minibatches of ``batch_size`` segments
    (``next_batch``), each example's segments in order, its state saved between them."""

    def __init__(self, batch_size, num_unroll, input_length, input_key, input_sequences,
                 input_context, initial_states, capacity=None, allow_small_batch=False,
                 name=None):
        if capacity is not None and isinstance(batch_size, ops.Tensor):
            with ops.control_dependencies([check_ops_assert_capacity(capacity, batch_size)]):
                input_key = array_ops.identity(input_key)
        elif capacity is not None and capacity < batch_size:
            raise ValueError(f"capacity {capacity} needs to be >= batch_size {batch_size}")
        # counts the examples inside, so that no more than ``capacity`` wait at once
        self._capacity_queue = data_flow_ops.FIFOQueue(
            capacity=-1 if capacity is None else capacity, dtypes=[dtypes.int32], shapes=[[]])
        if not isinstance(initial_states, dict):
            raise TypeError("initial_states must be a dictionary")
        if not initial_states:
            raise ValueError("initial_states may not be empty: at least one state variable is "
                             "required to properly enqueue split sequences to run in separate "
                             "iterations")
        for k in initial_states:
            if not isinstance(k, str):
                raise TypeError(f"state name must be a string: {k}")
            if ":" in k:
                raise ValueError(f"state name may not have a colon: '{k}'")
        op_vars = [input_length, input_key, *input_sequences.values(),
                   *input_context.values()]
        with ops.name_scope(name, "InputQueueingStateSaver", op_vars) as scope:
            self._batch_size = batch_size
            self._num_unroll = num_unroll
            self._name = scope
            (self._length, self._key, self._sorted_states, self._sorted_sequences,
             self._sorted_context) = _prepare_sequence_inputs(
                input_length, input_key, input_sequences, input_context, initial_states)
            first = next(iter(self._sorted_sequences.values()))
            self._padded_length = _check_multiple_of(
                array_ops.identity(array_ops.shape(first)[0], name="padded_length"),
                num_unroll)
            self._uninitialized_states = self._sorted_states
            self._store_index_maps(self._sorted_sequences, self._sorted_context,
                                   self._sorted_states)
            with ops.control_dependencies([control_flow_ops.Assert(
                    math_ops.less_equal(self._length, self._padded_length),
                    ["Input length should be <= than length from sequences:", self._length,
                     " vs. ", self._padded_length])]):
                self._length = array_ops.identity(self._length)
            self._create_barrier()
            self._scope = scope
        self._allow_small_batch = allow_small_batch
        self._prefetch_op = None
        self._next_batch = None

    name = property(lambda self: self._name)
    barrier = property(lambda self: self._barrier)
    batch_size = property(lambda self: self._batch_size)
    num_unroll = property(lambda self: self._num_unroll)

    @property
    def prefetch_op(self):
        """The op that splits one input example into the barrier."""
        if not self._prefetch_op:
            with ops.name_scope(None), ops.name_scope(self._scope):
                self._create_prefetch_op()
        return self._prefetch_op

    @property
    def next_batch(self):
        """The ``NextQueuedSequenceBatch`` of the next ready segments."""
        if not self._prefetch_op:
            with ops.name_scope(None), ops.name_scope(self._scope):
                self._create_prefetch_op()
        if not self._next_batch:
            with ops.name_scope(None), ops.name_scope(self._scope):
                self._prepare_barrier_reads()
        return self._next_batch

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the barrier and the capacity queue."""
        with ops.name_scope(name, "SQSSClose", [self._prefetch_op]) as scope:
            barrier_close = self._barrier.close(cancel_pending_enqueues, "BarrierClose")
            fifo_close = self._capacity_queue.close(cancel_pending_enqueues, "FIFOClose")
            return control_flow_ops.group(barrier_close, fifo_close, name=scope)

    def _store_index_maps(self, sequences, context, states):
        names = (["__length", "__total_length", "__next_key", "__sequence",
                  "__sequence_count"] + [f"__sequence__{k}" for k in sequences]
                 + [f"__context__{k}" for k in context] + [f"__state__{k}" for k in states])
        self._name_to_index = {n: i for i, n in enumerate(names)}
        self._index_to_name = names

    def _get_barrier_index(self, index_type, name):
        key = f"__{index_type}__{name}"
        if key not in self._name_to_index:
            raise KeyError(f"Requested a name not in the value type {index_type}: {name}")
        return self._name_to_index[key]

    def _create_barrier(self):
        types = ([dtypes.int32, dtypes.int32, dtypes.string, dtypes.int32, dtypes.int32]
                 + [v.dtype for v in self._sorted_sequences.values()]
                 + [v.dtype for v in self._sorted_context.values()]
                 + [v.dtype for v in self._sorted_states.values()])
        shapes = ([(), (), (), (), ()]
                  + [[self._num_unroll] + v.get_shape().as_list()[1:]
                     for v in self._sorted_sequences.values()]
                  + [v.get_shape().as_list() for v in self._sorted_context.values()]
                  + [v.get_shape().as_list() for v in self._sorted_states.values()])
        self._barrier = Barrier(types=types, shapes=shapes)

    def _create_prefetch_op(self):
        index = self._name_to_index
        count = math_ops.floordiv(self._padded_length, self._num_unroll)
        ones = array_ops.ones(array_ops.expand_dims(count, 0), dtype=dtypes.int32)
        sequence = range_ops.range(count)
        lengths = math_ops.minimum(self._num_unroll, math_ops.maximum(
            0, self._length - self._num_unroll * sequence))
        current_keys = string_ops.string_join(
            [string_ops.as_string(sequence, width=5, fill="0"), "_of_",
             string_ops.as_string(count, width=5, fill="0"), ":", self._key],
            name="StringJoinCurrentKeys")
        next_keys = array_ops.concat(
            [array_ops.slice(current_keys, [1], [-1]),
             array_ops.expand_dims(string_ops.string_join(["STOP:", self._key],
                                                          name="StringJoinStop"), 0)],
            0, name="concat_next_keys")
        segments = collections.OrderedDict(
            (k, array_ops.reshape(
                v, array_ops.concat([array_ops.expand_dims(count, 0), [self._num_unroll],
                                     v.get_shape().as_list()[1:]], 0,
                                    name=f"concat_sequences_{k}"),
                name=f"reshape_sequences_{k}"))
            for k, v in self._sorted_sequences.items())
        contexts = collections.OrderedDict(
            (k, array_ops.tile(array_ops.expand_dims(v, 0), array_ops.concat(
                [array_ops.expand_dims(count, 0), [1] * v.get_shape().ndims], 0,
                name=f"concat_context_{k}"), name=f"tile_context_{k}"))
            for k, v in self._sorted_context.items())
        insert = self._barrier.insert_many
        insert_sequence = insert(index["__sequence"], current_keys, sequence,
                                 name="BarrierInsertSequence")
        inserts = [
            insert(index["__sequence_count"], current_keys, count * ones,
                   name="BarrierInsertSequenceCount"),
            insert(index["__next_key"], current_keys, next_keys, name="BarrierInsertNextKey"),
            insert(index["__length"], current_keys, lengths, name="BarrierInsertLength"),
            insert(index["__total_length"], current_keys, self._length * ones,
                   name="BarrierInsertTotalLength")]
        token = self._capacity_queue.enqueue((21051976,))  # (its value is ignored)
        # the segments' first component in first, so that the barrier orders them by example
        with ops.control_dependencies([insert_sequence, token]):
            initial = [insert(self._get_barrier_index("state", k),
                              array_ops.stack([current_keys[0]]), array_ops.stack([v]),
                              name=f"BarrierInitialInsertState_{k}")
                       for k, v in self._uninitialized_states.items()]
        contexts_in = [insert(self._get_barrier_index("context", k), current_keys, v,
                              name=f"BarrierInsertContext_{k}") for k, v in contexts.items()]
        sequences_in = [insert(self._get_barrier_index("sequence", k), current_keys, v,
                               name=f"BarrierInsertSequences_{k}")
                        for k, v in segments.items()]
        self._prefetch_op = control_flow_ops.group(
            token, insert_sequence, *inserts, *initial, *contexts_in, *sequences_in,
            name="StateSaverPrefetchGroup")

    def _prepare_barrier_reads(self):
        index = self._name_to_index
        indices, keys, values = self._barrier.take_many(
            self._batch_size, self._allow_small_batch, name="BarrierTakeMany")
        self._received_indices = indices
        self._received_keys = keys
        self._received_sequence = values[index["__sequence"]]
        self._received_sequence_count = values[index["__sequence_count"]]
        self._received_next_key = values[index["__next_key"]]
        self._received_length = values[index["__length"]]
        self._received_total_length = values[index["__total_length"]]
        self._received_context = collections.OrderedDict(
            (k, values[self._get_barrier_index("context", k)]) for k in self._sorted_context)
        self._received_sequences = collections.OrderedDict(
            (k, values[self._get_barrier_index("sequence", k)])
            for k in self._sorted_sequences)
        self._received_batch_size = array_ops.squeeze(array_ops.shape(self._received_length))
        self._sequence_is_done = (self._received_sequence + 1
                                  >= self._received_sequence_count)
        finished = reduction_ops.reduce_sum(cast_ops.cast(self._sequence_is_done,
                                                          dtypes.int32))
        # a finished example frees its place
        dequeue = self._capacity_queue.dequeue_many(finished)
        with ops.control_dependencies([dequeue]):
            self._received_states = collections.OrderedDict(
                (k, array_ops.identity(values[self._get_barrier_index("state", k)]))
                for k in self._sorted_states)
        self._next_batch = NextQueuedSequenceBatch(self)


def check_ops_assert_capacity(capacity, batch_size):
    return control_flow_ops.Assert(math_ops.greater_equal(capacity, batch_size),
                                   ["capacity needs to be >= batch_size."])


def _padding(sequences, num_unroll):
    """``(length, sequences padded to a multiple of num_unroll)`` (zeros, or empty strings
    for string sequences)."""
    if not isinstance(num_unroll, numbers.Integral):
        raise ValueError(f"Unsupported num_unroll expected int, got: {num_unroll}")  # noqa: TRY004 - as TF
    if not isinstance(sequences, dict):
        raise TypeError(f"Unsupported sequences expected dict, got: {sequences}")
    for key in sequences:
        if not isinstance(key, str):
            raise TypeError(f"Unsupported sequences key expected string, got: {key}")
    if not sequences:
        return 0, {}
    values = collections.OrderedDict(
        (k, v if _is_sparse(v) else ops.convert_to_tensor(v))
        for k, v in sorted(sequences.items()))
    lengths = [array_ops.shape(v)[0] for v in values.values() if isinstance(v, ops.Tensor)]
    if lengths:
        length = lengths[0]
        checks = [control_flow_ops.Assert(math_ops.equal(other, length), [
            string_ops.string_join(["All sequence lengths must match, but received lengths: ",
                                    string_ops.as_string(array_ops.stack(lengths))])])
                  for other in lengths]
        length = control_flow_ops.with_dependencies(checks, length)
    else:  # only SparseTensors: the longest
        length = reduction_ops.reduce_max(cast_ops.cast(
            array_ops.stack([v.dense_shape[0] for v in values.values()]), dtypes.int32))
    unroll = ops.convert_to_tensor(num_unroll)
    padded_length = length + math_ops.mod(unroll - math_ops.mod(length, unroll), unroll)
    padded = {}
    for key, value in values.items():
        if _is_sparse(value):
            shape = array_ops.concat([[cast_ops.cast(padded_length, dtypes.int64)],
                                      value.dense_shape[1:]], 0)
            padded[key] = sparse_tensor.SparseTensor(value.indices, value.values, shape)
            continue
        paddings = array_ops.concat([[padded_length - array_ops.shape(value)[0]],
                                     array_ops.shape(value)[1:]], 0)
        dummy = ops.convert_to_tensor("" if value.dtype == dtypes.string else 0,
                                      dtype=value.dtype)
        padded[key] = array_ops.concat([value, fill_ops.fill(paddings, dummy)], 0)
    return length, padded


_SPARSE_CONTEXT_PREFIX_KEY = "_context_in_seq_"


def _is_sparse(value):
    return isinstance(value, (sparse_tensor.SparseTensor, sparse_tensor.SparseTensorValue))


def _move_sparse_tensor_out_context(input_context, input_sequences, num_unroll):
    """Moves each SparseTensor of ``input_context`` into ``input_sequences`` (under a
    prefixed key), repeated at the first step of every segment."""
    value_length = ops.convert_to_tensor(1)
    if input_sequences:
        first = next(iter(input_sequences.values()))
        value_length = first.dense_shape[0] if _is_sparse(first) else \
            array_ops.shape(first)[0]
    value_length = cast_ops.cast(value_length, dtypes.int64)

    def repeated(sp):
        n = cast_ops.cast(math_ops.floordiv(value_length, num_unroll), dtypes.int32)
        values = array_ops.tile(sp.values, array_ops.expand_dims(n, 0))
        shape = array_ops.concat([array_ops.expand_dims(value_length, 0), sp.dense_shape], 0)
        tiled_indices = array_ops.tile(array_ops.expand_dims(sp.indices, 0),
                                       array_ops.stack([n, 1, 1]))
        dim0 = array_ops.shape(sp.indices)[0]
        dim1 = array_ops.shape(sp.indices)[1]
        starts = range_ops.range(0, value_length, num_unroll, dtype=dtypes.int64)
        starts = array_ops.tile(array_ops.expand_dims(array_ops.expand_dims(starts, 1), 2),
                                [1, dim0, 1])
        indices = array_ops.reshape(array_ops.concat([starts, tiled_indices], 2),
                                    [dim0 * n, dim1 + 1])
        return sparse_tensor.SparseTensor(indices, values, shape)

    for key in sorted(k for k, v in input_context.items() if _is_sparse(v)):
        input_sequences[_SPARSE_CONTEXT_PREFIX_KEY + key] = repeated(input_context.pop(key))


def _move_sparse_tensor_in_context(context, sequences):
    """The moved context SparseTensors back into ``context``, ``[batch, ...]``."""
    from tideflow.ops import sparse_ops

    for key in sorted(k for k in sequences if k.startswith(_SPARSE_CONTEXT_PREFIX_KEY)):
        sp = sequences.pop(key)
        sp = sparse_tensor.SparseTensor(sp.indices, sp.values, array_ops.concat(
            [[sp.dense_shape[0]], [1], sp.dense_shape[2:]], 0))
        context[key[len(_SPARSE_CONTEXT_PREFIX_KEY):]] = sparse_ops.sparse_reshape(
            sp, array_ops.concat([[sp.dense_shape[0]], sp.dense_shape[2:]], 0))


def _deconstruct_sparse_tensor_seq(input_sequence, shared_name=None):
    """``(sequences with each SparseTensor replaced by its rows' int64 handles in a
    SparseTensorsMap, the replaced keys, the maps' ops)``."""
    from tideflow.ops import sparse_map_ops

    keys = [k for k in sorted(input_sequence) if _is_sparse(input_sequence[k])]
    if not keys:
        return input_sequence, [], []
    transformed = dict(input_sequence)
    map_ops = []
    for key in keys:
        handles = sparse_map_ops.add_many_sparse_to_tensors_map(input_sequence[key],
                                                                shared_name=shared_name)
        transformed[key] = handles
        map_ops.append(handles.op)
    return transformed, keys, map_ops


def _reconstruct_sparse_tensor_seq(sequence, sparse_tensor_keys, map_ops, batch_size,
                                   num_unroll):
    """Each handles entry of ``sequence`` (``[batch, num_unroll]``) back to its
    SparseTensor, ``[batch, num_unroll, ...]``."""
    from tideflow.ops import sparse_map_ops

    if not sparse_tensor_keys:
        return
    unroll = ops.convert_to_tensor(num_unroll, dtype=dtypes.int64, name="num_unroll_int64")
    for key, map_op in zip(sparse_tensor_keys, map_ops, strict=True):
        sp = sparse_map_ops.take_many_sparse_from_tensors_map(
            map_op, array_ops.reshape(sequence[key], [-1]), rank=None)
        first = sp.indices[:, 0]
        indices = array_ops.concat([
            array_ops.expand_dims(math_ops.floordiv(first, unroll), 1),
            array_ops.expand_dims(math_ops.mod(first, unroll), 1), sp.indices[:, 1:]], axis=1)
        shape = array_ops.concat([[cast_ops.cast(batch_size, dtypes.int64)], [unroll],
                                  sp.dense_shape[1:]], axis=0)
        sequence[key] = sparse_tensor.SparseTensor(indices, sp.values, shape)


def batch_sequences_with_states(input_key, input_sequences, input_context, input_length,
                                initial_states, num_unroll, batch_size, num_threads=3,
                                capacity=1000, allow_small_batch=True, pad=True,
                                make_keys_unique=False, make_keys_unique_seed=None,
                                name=None):
    """A ``SequenceQueueingStateSaver`` fed by ``num_threads`` queue-runner threads (added
    to ``QUEUE_RUNNERS``): its ``next_batch``. With ``pad``, the sequences are padded to a
    multiple of ``num_unroll`` (``input_length`` defaulting to their length); without, their
    length must be one already. SparseTensor sequences travel as handles into a
    SparseTensorsMap, and SparseTensor context as a sequence set at each segment's start."""
    input_sequences = dict(input_sequences)
    input_context = dict(input_context)
    tensor_list = [v for v in (*input_sequences.values(), *input_context.values())
                   if not _is_sparse(v)]
    with ops.name_scope(name, "batch_sequences_with_states", tensor_list):
        if pad:
            length, input_sequences = _padding(input_sequences, num_unroll)
            input_length = input_length if input_length is not None else length
        elif input_sequences:
            checked = {}
            for key, value in input_sequences.items():
                sparse = _is_sparse(value)
                value_length = value.dense_shape[0] if sparse else \
                    array_ops.shape(ops.convert_to_tensor(value))[0]
                kind = "SparseTensor" if sparse else "Tensor"
                with ops.control_dependencies([control_flow_ops.Assert(
                        math_ops.logical_and(
                            math_ops.equal(math_ops.mod(value_length, num_unroll), 0),
                            math_ops.not_equal(value_length, 0)),
                        [string_ops.string_join([
                            f"{kind} {key} first dimension should be a multiple of: ",
                            string_ops.as_string(num_unroll), ", but saw value: ",
                            string_ops.as_string(value_length),
                            ". Consider setting pad=True."])])]):
                    if sparse:
                        checked[key] = sparse_tensor.SparseTensor(*(
                            array_ops.identity(t, name="multiple_of_checked")
                            for t in (value.indices, value.values, value.dense_shape)))
                    else:
                        checked[key] = array_ops.identity(value, name="multiple_of_checked")
            input_sequences = checked
        _move_sparse_tensor_out_context(input_context, input_sequences, num_unroll)
        input_sequences, sparse_keys, map_ops = _deconstruct_sparse_tensor_seq(
            input_sequences)
        if make_keys_unique:
            input_key = string_ops.string_join([input_key, string_ops.as_string(
                random_ops.random_uniform((), minval=0, maxval=100000000, dtype=dtypes.int32,
                                          seed=make_keys_unique_seed))])
        saver = SequenceQueueingStateSaver(
            batch_size, num_unroll, input_length=input_length, input_key=input_key,
            input_sequences=input_sequences, input_context=input_context,
            initial_states=initial_states, capacity=capacity,
            allow_small_batch=allow_small_batch)
        barrier = saver.barrier
        summary.scalar(f"queue/{barrier.name}/ready_segment_batches_",
                       cast_ops.cast(barrier.ready_size(), dtypes.float32))
        from tideflow.framework import errors

        runner = queue_runner.QueueRunner(
            saver, [saver.prefetch_op] * num_threads,
            queue_closed_exception_types=(errors.OutOfRangeError, errors.CancelledError))
        queue_runner.add_queue_runner(runner)
        batch = saver.next_batch
        _reconstruct_sparse_tensor_seq(batch.sequences, sparse_keys, map_ops, batch_size,
                                       num_unroll)
        _move_sparse_tensor_in_context(batch.context, batch.sequences)
        return batch


__all__ = ["NextQueuedSequenceBatch", "SequenceQueueingStateSaver",
           "batch_sequences_with_states"]
