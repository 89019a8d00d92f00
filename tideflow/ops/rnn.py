"""RNN drivers: ``tf.nn.dynamic_rnn`` (a ``while_loop`` over TensorArrays), ``static_rnn``
(an unrolled Python loop) and ``bidirectional_dynamic_rnn``.

With ``sequence_length``, a sequence's outputs past its length are zeros and its state is
carried through unchanged, so the final state is the state at its last valid step.
"""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    fill_ops,
    gather_ops,
    math_ops,
    pad_ops,
    range_ops,
    reduction_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.reverse_sequence_ops import reverse_sequence
from tideflow.ops.rnn_cell_impl import RNNCell
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop


def _check_cell(cell, name="cell"):
    """TF's assert_like_rnncell: a TypeError naming each missing part."""
    if isinstance(cell, RNNCell):
        return
    # (tideflow's own step adapters, Keras's, are always given their initial state)
    internal = type(cell).__module__.startswith("tideflow.")
    missing = [why for why, ok in (
        ("'output_size' property is missing", hasattr(cell, "output_size")),
        ("'state_size' property is missing", hasattr(cell, "state_size")),
        ("either 'zero_state' or 'get_initial_state' method is required",
         internal or hasattr(cell, "zero_state") or hasattr(cell, "get_initial_state")),
        ("is not callable", callable(cell))) if not ok]
    if missing:
        raise TypeError(f"The argument {name!r} ({cell}) is not an RNNCell: "
                        f"{', '.join(missing)}.")


def _initial_state(cell, batch_size, dtype):
    """TF 1.15: a cell with ``get_initial_state`` (a Keras cell) makes its own, else
    ``zero_state``."""
    if getattr(cell, "get_initial_state", None) is not None:
        return cell.get_initial_state(inputs=None, batch_size=batch_size, dtype=dtype)
    return cell.zero_state(batch_size, dtype)


def _cell_caller(cell):
    """``cell(inputs, state)``; a Keras cell (one with ``get_initial_state`` that is not an
    RNNCell, TF's test) takes and returns its state as a list even when it is one tensor:
    wrapped and unwrapped around the call, as in TF. Any other callable is called as is."""
    if isinstance(cell, RNNCell) or getattr(cell, "get_initial_state", None) is None:
        return cell

    def call(inputs, state):
        output, new_state = cell(inputs, state if nest.is_sequence(state) else [state])
        if isinstance(new_state, list) and len(new_state) == 1:
            new_state = new_state[0]
        return output, new_state
    return call


def _size_list(size):
    return [size] if isinstance(size, int) else TensorShape(size).as_list()


def _transpose_batch_time(x):
    """Swaps the first two dimensions of ``x`` (rank >= 2)."""
    shape = x.get_shape()
    if shape.ndims is None:
        raise ValueError(f"Expected input tensor {x} to have a known rank (at least 2).")
    if shape.ndims < 2:
        raise ValueError(f"Expected input tensor {x} to have rank at least 2, but saw shape: "
                         f"{shape}")
    # TF 1.15's ops: the permutation [1, 0] + range(2, rank), concatenated in the graph
    x_rank = array_ops.rank(x)
    perm = concat_ops.concat(([1, 0], range_ops.range(2, x_rank)), axis=0)
    x_t = array_ops.transpose(x, perm)
    x_t.set_shape(TensorShape([shape[1], shape[0]]).concatenate(shape[2:]))
    return x_t


def _skip_ids_to(next_id):
    """The default graph's op ids skipped to ``next_id``: those of ops TF 1.15 makes here and
    tideflow does not (its TensorArrays, its loop's frames)."""
    ops.get_default_graph()._skip_op_ids(to=next_id)


def _batch_size(flat_input, batch_axis):
    for x in flat_input:
        dim = x.get_shape()[batch_axis].value
        if dim is not None:
            return dim
    return array_ops.shape(flat_input[0])[batch_axis]


def _assert_has_shape(x, shape):
    """An Assert that ``x``'s shape is ``shape`` (a list of ints or scalar tensors), naming
    ``x`` and both shapes as TF's dynamic_rnn does."""
    from tideflow.ops import logging_ops, reduction_ops

    x_shape = array_ops.shape(x)
    packed = concat_ops.stack(shape)
    return logging_ops.Assert(
        reduction_ops.reduce_all(math_ops.equal(x_shape, packed)),
        [f"Expected shape for Tensor {x.name} is ", packed, " but saw shape: ", x_shape])


def _state_dtype(dtype, state):
    if dtype is not None:
        return dtypes.as_dtype(dtype)
    flat = nest.flatten(state)
    if not flat:
        raise ValueError("Unable to infer dtype from empty state.")
    if len({s.dtype for s in flat}) != 1:
        raise ValueError("State has tensors of different inferred_dtypes. Unable to infer a "
                         "single representative dtype.")  # (TF's words)
    return flat[0].dtype


def _check_sequence_length(sequence_length):
    sequence_length = cast_ops.cast(sequence_length, dtypes.int32)  # (TF's Cast/x)
    if sequence_length.get_shape().ndims not in (None, 1):
        raise ValueError("sequence_length must be a vector of length batch_size, but saw "
                         f"shape: {sequence_length.get_shape()}")
    return array_ops.identity(sequence_length, name="sequence_length")


def _select(copy, old, new, name=None):
    """Per batch row: ``old`` where ``copy`` (a [batch] bool vector), else ``new``. As TF,
    TensorArrays and scalars (an AttentionWrapperState's ``time``) take the new value."""
    if isinstance(new, TensorArray) or new.get_shape().ndims == 0:
        return new
    return gather_ops.where(copy, old, new, name=name)


def _rnn_step(time, sequence_length, zero_output, state, call_cell):
    """One step with sequence lengths: rows whose sequence has ended get a zero output and
    keep their state (the test made before the cell's ops, as TF makes it)."""
    copy = math_ops.greater_equal(time, sequence_length)
    new_output, new_state = call_cell()
    nest.assert_same_structure(state, new_state)
    output = nest.map_structure(lambda z, o: _select(copy, z, o), zero_output, new_output)
    state = nest.map_structure(lambda s, n: _select(copy, s, n), state, new_state)
    return output, state


def _zero_output(cell, batch_size, dtype):
    def one(size):
        dims = _size_list(size)
        if isinstance(batch_size, ops.Tensor):
            shape = concat_ops.concat([array_ops.expand_dims(batch_size, 0),
                                       ops.convert_to_tensor(dims, dtype=dtypes.int32)], 0)
            static = [None] + dims
        else:
            shape = [batch_size] + dims
            static = shape
        z = fill_ops.zeros(shape, dtype=dtype)
        z.set_shape(static)
        return z
    return nest.map_structure(one, cell.output_size)


def _unstacked(x, time_steps, clear_after_read=None):
    """A TensorArray of ``x``'s rows. With an unknown number of rows their indices are a
    range up to ``time_steps`` (already made), so the loop's ops stay within TF 1.15's count
    whether or not the time dimension is known."""
    ta = TensorArray(dtype=x.dtype, size=time_steps, element_shape=x.get_shape()[1:],
                     clear_after_read=clear_after_read)
    if x.get_shape()[0].value is not None:
        return ta.unstack(x)
    with ops.name_scope(None, "TensorArrayUnstack", [x]):
        return ta.scatter(range_ops.range(time_steps), x)


def dynamic_rnn(cell, inputs, sequence_length=None, initial_state=None, dtype=None,
                parallel_iterations=None, swap_memory=False, time_major=False, scope=None):
    """Runs ``cell`` over the time steps of ``inputs`` ([batch, time, depth], or
    [time, batch, depth] when ``time_major``) in a ``while_loop``; returns
    ``(outputs, final_state)``. Variables live under ``scope`` (default ``"rnn"``)."""
    _check_cell(cell)
    with vs.variable_scope(scope or "rnn") as varscope:
        del varscope
        flat_input = [ops.convert_to_tensor(x) for x in nest.flatten(inputs)]
        for x in flat_input:
            shape = x.get_shape()
            if shape.ndims is not None and shape.ndims < 3:
                if shape.ndims < 2:
                    _transpose_batch_time(x)  # (TF's error for a rank below 2)
                # (TF checks the rank after swapping batch and time)
                seen = shape if time_major else TensorShape([shape[1], shape[0]])
                raise ValueError(f"Shape {seen} must have rank at least 3")
        if not time_major:
            flat_input = [_transpose_batch_time(x) for x in flat_input]
        parallel_iterations = parallel_iterations or 32
        if sequence_length is not None:
            sequence_length = _check_sequence_length(sequence_length)
        batch_size = _batch_size(flat_input, 1)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If there is no initial_state, you must give a dtype.")
            state = _initial_state(cell, batch_size, dtype)
        if sequence_length is not None:  # TF's run-time check of its length
            with ops.control_dependencies([_assert_has_shape(sequence_length, [batch_size])]):
                sequence_length = array_ops.identity(sequence_length, name="CheckSeqLen")
        inputs = nest.pack_sequence_as(inputs, flat_input)
        outputs, final_state = _dynamic_rnn_loop(
            cell, inputs, state, parallel_iterations=parallel_iterations,
            swap_memory=swap_memory, sequence_length=sequence_length, dtype=dtype,
            count_as_tf=True)
        if not time_major:
            outputs = nest.map_structure(_transpose_batch_time, outputs)
        return outputs, final_state


def _dynamic_rnn_loop(cell, inputs, initial_state, parallel_iterations, swap_memory,
                      sequence_length=None, dtype=None, count_as_tf=False):
    """The loop of dynamic_rnn. ``count_as_tf``: skip the op ids of the ops TF 1.15 makes
    and tideflow does not (or makes fewer of): its TensorArrays (TensorArrayV3, the unstack's
    range and scatter, the reads' and writes' Enters), its zero output's concatenated shape
    and its stack's range, so each op made inside and after the loop (the cell's variables'
    initializers, a dense layer after the RNN) takes TF's op id, and with a graph seed TF's
    op seed."""
    state = initial_state
    g = ops.get_default_graph()
    start = g._next_id
    flat_input = nest.flatten(inputs)
    flat_output_size = nest.flatten(cell.output_size)
    first = flat_input[0]
    time_steps = array_ops.shape(first)[0]
    static_time = first.get_shape()[0].value
    static_batch = None
    for x in flat_input:
        xs = x.get_shape()
        if xs[2:].ndims is not None and not TensorShape(xs[2:]).is_fully_defined():
            raise ValueError("Input size (depth of inputs) must be accessible via shape "
                             "inference, but saw value None.")
        if static_batch is None:
            static_batch = xs[1].value
        if xs[0].value is not None and static_time is not None and xs[0].value != static_time:
            raise ValueError("Time steps is not the same for all the elements in the input "
                             "in a batch.")
    batch_size = static_batch if static_batch is not None else array_ops.shape(first)[1]
    state_dtype = _state_dtype(dtype, state)
    zero_output = _zero_output(cell, batch_size, state_dtype)
    call = _cell_caller(cell)

    time = ops.convert_to_tensor(0, dtype=dtypes.int32, name="time")
    output_tas = tuple(
        TensorArray(dtype=state_dtype, size=time_steps,
                    element_shape=TensorShape([static_batch] + _size_list(size)))
        for size in flat_output_size)
    input_tas = tuple(_unstacked(x, time_steps) for x in flat_input)

    if sequence_length is None:
        max_sequence_length = time_steps
    else:
        reduction_ops.reduce_min(sequence_length)  # (TF makes it, for its conditionals)
        max_sequence_length = reduction_ops.reduce_max(sequence_length)
    # as TF, the loop stops after the longest sequence: the outputs' later rows stay unwritten
    # (zeros when stacked), the final states are the same
    loop_bound = math_ops.minimum(time_steps, math_ops.maximum(1, max_sequence_length))
    if count_as_tf:
        # TF: time_steps (Shape, strided_slice), the batch size (Shape, strided_slice) when
        # not static, per output its zero output (ExpandDims, Const, concat, zeros: 7 ops, 6
        # with a static batch) and TensorArray, time, per input a TensorArray and its unstack
        # (9 ops), then the loop bound (3)
        n_out, n_in = len(flat_output_size), len(flat_input)
        _skip_ids_to(start + 5 + (0 if static_batch is not None else 5)
                     + n_out * (7 if static_batch is None else 6) + 1 + n_out + 10 * n_in + 3
                     + (4 if sequence_length is not None else 0))

    def cond(time, *_):
        return math_ops.less(time, loop_bound)

    def body(time, output_tas_t, state):
        body_start = g._next_id
        input_t = tuple(ta.read(time) for ta in input_tas)
        for x, t in zip(flat_input, input_t):
            t.set_shape(x.get_shape()[1:])
        input_t = nest.pack_sequence_as(inputs, input_t)
        if count_as_tf:  # TF: per input a TensorArrayReadV3 and the Enters of its handle, flow
            _skip_ids_to(body_start + 3 * len(flat_input))

        def call_cell():
            return call(input_t, state)

        if sequence_length is not None:
            output, new_state = _rnn_step(time, sequence_length, zero_output, state, call_cell)
        else:
            output, new_state = call_cell()
        nest.assert_same_structure(state, new_state)
        flat_out = nest.flatten(output)
        after_cell = g._next_id
        output_tas_t = tuple(ta.write(time, o) for ta, o in zip(output_tas_t, flat_out))
        if count_as_tf:  # TF: per output a TensorArrayWriteV3 and the Enter of its handle
            _skip_ids_to(after_cell + 2 * len(flat_out))
        return time + 1, output_tas_t, new_state

    # as TF 1.15, the loop is also bounded by maximum_iterations=time_steps: its counter is the
    # loop's first variable, so the final states are rnn/while/Exit_3... as TF names them
    _, final_tas, final_state = while_loop(
        cond, body, (time, output_tas, state), parallel_iterations=parallel_iterations,
        maximum_iterations=time_steps, swap_memory=swap_memory)
    outputs = []
    for ta, size in zip(final_tas, flat_output_size):
        before = g._next_id
        out = ta.stack()
        out.set_shape([static_time, static_batch] + _size_list(size))
        outputs.append(out)
        if count_as_tf:  # TF: the stack's size, range and gather, and its static shape's
            # constants (the output size's; the time and batch sizes' when both are known)
            both = static_time is not None and static_batch is not None
            _skip_ids_to(before + 5 + (2 if both else 1))
    outputs = nest.pack_sequence_as(cell.output_size, outputs)
    return outputs, final_state


def static_rnn(cell, inputs, initial_state=None, dtype=None, sequence_length=None, scope=None):
    """Runs ``cell`` over the Python list ``inputs`` (each [batch, depth]), unrolled; returns
    ``(outputs, final_state)`` with ``outputs`` a list of the same length."""
    _check_cell(cell)
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    outputs = []
    with vs.variable_scope(scope or "rnn") as varscope:
        flat_first = [ops.convert_to_tensor(x) for x in nest.flatten(inputs[0])]
        for x in flat_first:
            shape = x.get_shape()
            if shape.ndims == 1:
                continue  # [batch] ids, e.g. for an EmbeddingWrapper cell (TF allows rank 1)
            shape.with_rank_at_least(2)  # (a scalar: TF's "must have rank at least 2")
            unknown = [i for i, d in enumerate(shape[1:].as_list() if shape.ndims else [])
                       if d is None]
            if unknown:  # (TF counts the dimensions after the batch's from 0)
                raise ValueError(f"Input size (dimension {unknown[0]} of inputs) must be "
                                 "accessible via shape inference, but saw value None.")
        batch_size = _batch_size(flat_first, 0)
        if initial_state is not None:
            state = initial_state
        else:
            if not dtype:
                raise ValueError("If no initial_state is provided, dtype must be specified")
            state = _initial_state(cell, batch_size, dtype)
        zero_output = None
        call = _cell_caller(cell)
        if sequence_length is not None:
            sequence_length = ops.convert_to_tensor(sequence_length, name="sequence_length")
            if sequence_length.get_shape().ndims not in (None, 1):
                raise ValueError("sequence_length must be a vector of length batch_size")
            start = ops.get_default_graph()._next_id
            zero_output = _zero_output(cell, batch_size, _state_dtype(dtype, state))
            # TF: per output its zero output (8 ops), the lengths' Cast (none for int32), the
            # min and max lengths (4)
            _skip_ids_to(start + 8 * len(nest.flatten(cell.output_size)))
            sequence_length = cast_ops.cast(sequence_length, dtypes.int32)
            ops.get_default_graph()._skip_op_ids(4)
        for time, input_ in enumerate(inputs):
            if time > 0:
                varscope.reuse_variables()

            def call_cell(input_=input_, state=state):
                return call(input_, state)

            if sequence_length is not None:
                output, state = _static_rnn_step(time, sequence_length, zero_output, state,
                                                 call_cell)
            else:
                output, state = call_cell()
            outputs.append(output)
        return outputs, state


def _static_rnn_step(time, sequence_length, zero_output, state, call_cell):
    """A step of static_rnn with sequence lengths: as ``_rnn_step``, in TF 1.15's op count.
    TF makes the step as two nested conds (the step skipped past the longest sequence, the
    copy-through skipped before the shortest one), a Switch for each tensor a branch uses
    from outside it; tideflow runs the cell and selects, and skips the ids of the rest."""
    g = ops.get_default_graph()
    step_start = g._next_id
    copy = math_ops.less_equal(sequence_length, time)  # TF's (time >= sequence_length)
    # the step's cond scope, taken where TF takes it: the selects are named as its Merges
    # ("rnn/cond_1/Merge:0" the output of step 1, Merge_1... the state), as TF's step results
    with ops.name_scope("cond") as cond_scope:
        pass
    flat_zero = nest.flatten(zero_output)
    # (a state held in variables, a state saver's, is read as the tensor TF's ops convert it
    # to: its Switches are those the cell's reads of it make)
    flat_state = [s if isinstance(s, (ops.Tensor, TensorArray)) else ops.convert_to_tensor(s)
                  for s in nest.flatten(state)]

    def distinct(ts):
        return len({id(t) for t in ts})

    # TF: the max-length test (2), the outer cond's Switch, switch_t, switch_f, pred_id and
    # its true branch's Switches (the zero outputs and the state)
    _skip_ids_to(step_start + 8 + distinct(flat_zero + flat_state))
    n_vars = len(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
    cell_start = g._next_id
    switches = _OuterSwitchIds(g, cell_start, n_vars)
    g._frame_stack.append(switches)
    try:
        new_output, new_state = call_cell()
    finally:
        g._frame_stack.remove(switches)
    cell_end = g._next_id
    nest.assert_same_structure(state, new_state)
    flat_out, flat_new = nest.flatten(new_output), nest.flatten(new_state)
    # the cell's own ops (not its new variables' ones, which TF makes outside the conds)
    prefixes = [v.op.name for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)[n_vars:]]
    made = [op for op in g.get_operations() if op._id >= cell_start and not any(
        op.name == p or op.name.startswith(p + "/") for p in prefixes)]
    made_set = set(made)
    outer = set()  # tensors from outside switched into the outer cond's false branch
    for op in made:
        for t in op.inputs:
            if t.op not in made_set:
                outer.add(t)
    count = len(outer)
    inner = set()  # tensors switched into the inner cond's false branch

    def use(t, from_outside):
        nonlocal count
        if t in inner:
            return
        inner.add(t)
        count += 1
        if from_outside and t not in outer:
            outer.add(t)
            count += 1

    # the min-length test (its y, Greater, the min's Switch), the inner cond's 4 ops and its
    # true branch's Switches, the selects with their Switches, the Merges of both conds
    count += 2 + 1 + 4 + distinct(flat_out + flat_new)
    for old, new in list(zip(flat_zero, flat_out)) + list(zip(flat_state, flat_new)):
        use(copy, True)
        use(old, True)
        use(new, False)
        count += 1
    count += 2 * (len(flat_zero) + len(flat_state))
    with ops.name_scope(cond_scope):
        output = nest.map_structure(lambda z, o: _select(copy, z, o, "Merge"), zero_output,
                                    new_output)
        state = nest.map_structure(lambda s, n: _select(copy, s, n, "Merge"), state, new_state)
    _skip_ids_to(cell_end + count - len(switches.seen))
    pairs = [(old, new, sel) for old, new, sel in zip(
        flat_zero + flat_state, flat_out + flat_new, nest.flatten(output) + nest.flatten(state))
        if sel is not new]
    if pairs and not g.building_function:  # (a function body's gradient counts its own)
        counter = _StepGradIds(pairs, made, outer)
        registry = g.__dict__.setdefault("_tf_grad_ids", {})
        for _, _, sel in pairs:
            registry[sel.op] = counter
    return output, state


class _OuterSwitchIds:
    """While a static_rnn step's cell is built: the id of the Switch TF 1.15 makes right
    after a cell op that reads a tensor from outside the step's cond (the step's input, its
    state, a variable: TF makes variables outside control flow), the first time each is read,
    so a variable the cell makes after such reads (a wrapper's projection, an embedding
    wrapper's cell) takes TF's op id and initial values."""

    def __init__(self, graph, start, n_vars):
        self.graph, self.start, self.n_vars = graph, start, n_vars
        self.seen = set()

    def _add_op(self, op):
        new_vars = ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)[self.n_vars:]
        prefixes = [v.op.name for v in new_vars]

        def inside(t):
            return t.op._id >= self.start and not any(
                t.op.name == p or t.op.name.startswith(p + "/") for p in prefixes)

        for t in op.inputs:
            if t not in self.seen and not inside(t):
                self.seen.add(t)
                self.graph._skip_op_ids(1)


class _StepGradIds:
    """How many more ops TF 1.15's gradient of one static_rnn step with sequence lengths
    makes than tideflow's (counted once per gradient walk, at the first of the step's selects
    it meets). TF's step is two nested conds; its gradient adds, per Merge that gets a
    gradient, a Switch (the outer's and the inner's); per Switch of a tensor into a branch
    whose gradient flows, the zeros of its other side (Switch, Identity, Shape, Const, Fill)
    and a Merge; an AddN wherever a Switch or tensor gets two or more partial gradients where
    tideflow's has fewer (or more); and a copy of the axis of each of the cell's concats (TF
    duplicates a constant axis made in another control-flow context). Gated (GATE_OP), each
    Merge's gradient Switch has its tuple (a NoOp and two Identities)."""

    def __init__(self, pairs, made, outer):
        self.pairs, self.made, self.outer = pairs, made, outer
        self.walk = None

    def __call__(self, between, gate):
        if self.walk is between:
            return 0
        self.walk = between
        made = [op for op in self.made if op in between]

        def grad(t):
            return t.op in between

        live = [(o, n, s) for o, n, s in self.pairs if grad(s)]
        # (gated, as minimize's GATE_OP: each of those Switches' two gradients in a tuple)
        n = (8 if gate else 2) * len(live)
        # uses of each tensor by the cell's ops with a gradient (input slots)
        cell_uses = {}
        for op in made:
            for t in op.inputs:
                cell_uses[t] = cell_uses.get(t, 0) + 1
            if op.type == "ConcatV2" and len(op.inputs) > 2:
                axis = op.inputs[-1].op
                if axis.type == "Const" and axis in self.made:
                    n += 1
        sel_ops = {s.op for _, _, s in self.pairs}

        def other_uses(t):  # consumers with a gradient outside this step
            return sum(1 for c in t.consumers() if c in between and c not in sel_ops
                       and c not in self.made for u in c.inputs if u is t)

        def addn(k):
            return 1 if k >= 2 else 0

        olds, news = {}, {}
        for o, nw, s in live:
            olds.setdefault(o, []).append(s)
            news.setdefault(nw, []).append(s)
        for o, users in olds.items():
            if not grad(o):
                continue
            k = cell_uses.get(o, 0)
            n += 6 + addn(len(users))  # the outer cond's true branch passes it through
            n += 6 + addn(len(users))  # the inner cond's false branch selects from it
            # its Switch into the outer cond's false branch (the cell's and the select's);
            # out of the cond it has the two Merges' partials
            n += 6 + addn(k + 1)
            rest = other_uses(o)
            n += addn(2 + rest) - addn(k + len(users) + rest)
        for w, users in news.items():
            if not grad(w):
                continue
            k = cell_uses.get(w, 0)
            # its Switches into the inner cond's true branch and false branch (the select)
            n += 2 * (6 + addn(len(users)))
            rest = other_uses(w)
            n += addn(2 + k + rest) - addn(len(users) + k + rest)
        for t in self.outer:
            if t in olds or not grad(t):
                continue
            k = cell_uses.get(t, 0)
            if k:
                # its Switch into the outer cond's false branch: the cell's partials summed
                # there, one out of the cond
                rest = other_uses(t)
                n += 6 + addn(k) + addn(1 + rest) - addn(k + rest)
                n += _sparse_merge_ids(t, made) if k == 1 else 0
        return n


def _sparse_merge_ids(t, made):
    """The ops TF 1.15's cond gradient adds where a tensor gathered from once in the step (an
    embedding wrapper's table) gets its gradient as IndexedSlices: the untaken side's zeros
    made IndexedSlices (a Shape, its first dimension, a range: 8 ops, and a Cast of those
    int32 rows beside int64 ids), and Merges of the indices and the dense shape."""
    reader = next(op for op in made if any(u is t for u in op.inputs))
    if reader.type not in ("Gather", "GatherV2", "ResourceGather") or reader.inputs[0] is not t:
        return 0
    return 10 + (1 if reader.inputs[1].dtype.base_dtype == dtypes.int64 else 0)


def _reverse(x, seq_lengths, seq_axis, batch_axis):
    """Reverses the first ``seq_lengths[b]`` steps of every row ``b`` along ``seq_axis``
    (the whole axis when ``seq_lengths`` is None)."""
    if seq_lengths is None:
        return pad_ops.reverse(x, [seq_axis])
    return reverse_sequence(x, seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis)


def bidirectional_dynamic_rnn(cell_fw, cell_bw, inputs, sequence_length=None,
                              initial_state_fw=None, initial_state_bw=None, dtype=None,
                              parallel_iterations=None, swap_memory=False, time_major=False,
                              scope=None):
    """A forward ``dynamic_rnn`` and one over the time-reversed inputs (each sequence
    reversed within its length); returns ``((output_fw, output_bw), (state_fw, state_bw))``
    with ``output_bw`` reversed back to input order. Scopes ``bidirectional_rnn/fw`` and
    ``bidirectional_rnn/bw``."""
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = dynamic_rnn(
                cell_fw, inputs, sequence_length=sequence_length,
                initial_state=initial_state_fw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=fw_scope)
        time_axis, batch_axis = (0, 1) if time_major else (1, 0)

        def rev(x):  # (TF's: the lengths as given, converted by each ReverseSequence)
            return _reverse(ops.convert_to_tensor(x), sequence_length, time_axis, batch_axis)

        with vs.variable_scope("bw") as bw_scope:
            inputs_reversed = nest.map_structure(rev, inputs)
            tmp, state_bw = dynamic_rnn(
                cell_bw, inputs_reversed, sequence_length=sequence_length,
                initial_state=initial_state_bw, dtype=dtype,
                parallel_iterations=parallel_iterations, swap_memory=swap_memory,
                time_major=time_major, scope=bw_scope)
    output_bw = nest.map_structure(rev, tmp)
    return (output_fw, output_bw), (state_fw, state_bw)


def _reverse_list(inputs, lengths):
    """The list of time steps ``inputs`` reversed within each row's length."""
    if lengths is None:
        return list(reversed(inputs))
    flat_steps = [nest.flatten(x) for x in inputs]
    columns = []
    for k in range(len(flat_steps[0])):
        stacked = concat_ops.stack([ops.convert_to_tensor(step[k]) for step in flat_steps])
        rev = reverse_sequence(stacked, lengths, seq_axis=0, batch_axis=1)
        columns.append(concat_ops.unstack(rev, num=len(inputs)))
    return [nest.pack_sequence_as(inputs[t], [col[t] for col in columns])
            for t in range(len(inputs))]


def static_bidirectional_rnn(cell_fw, cell_bw, inputs, initial_state_fw=None,
                             initial_state_bw=None, dtype=None, sequence_length=None,
                             scope=None):
    """``static_rnn`` forward and over the reversed list of ``inputs``; returns
    ``(outputs, state_fw, state_bw)`` with each output the depth-concatenation of the forward
    and the (re-reversed) backward output at that step."""
    _check_cell(cell_fw, "cell_fw")
    _check_cell(cell_bw, "cell_bw")
    if not nest.is_sequence(inputs):
        raise TypeError("inputs must be a sequence")
    if not inputs:
        raise ValueError("inputs must not be empty")
    with vs.variable_scope(scope or "bidirectional_rnn"):
        with vs.variable_scope("fw") as fw_scope:
            output_fw, state_fw = static_rnn(cell_fw, inputs, initial_state_fw, dtype,
                                             sequence_length, scope=fw_scope)
        lengths = sequence_length  # (TF's: as given, converted by each ReverseSequence)
        with vs.variable_scope("bw") as bw_scope:
            tmp, state_bw = static_rnn(cell_bw, _reverse_list(inputs, lengths),
                                       initial_state_bw, dtype, sequence_length,
                                       scope=bw_scope)
    output_bw = _reverse_list(tmp, lengths)
    outputs = [nest.map_structure(lambda f, b: concat_ops.concat([f, b], 1), fw, bw)
               for fw, bw in zip(output_fw, output_bw)]
    return outputs, state_fw, state_bw


__all__ = ["bidirectional_dynamic_rnn", "dynamic_rnn", "static_bidirectional_rnn", "static_rnn"]
