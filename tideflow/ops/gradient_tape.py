"""``tf.GradientTape`` in graph mode, on top of ``tf.gradients``.

A tape records the ops created while it is active that read a watched tensor (explicitly
watched tensors, the trainable variables the block reads, and the outputs of recorded ops);
``gradient`` differentiates through those ops only, as TF 1.x does in graph mode: a path that
leaves the recorded ops (an op created before the block, after it, or under ``stop_recording``)
carries no gradient.
"""

import contextlib

from tideflow.framework import nest, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import gradients as gradients_lib
from tideflow.ops.gradients import UnconnectedGradients

_NON_PERSISTENT = ("A non-persistent GradientTape can only be used to compute one set of "
                   "gradients (or jacobians)")


def _is_variable(x):
    from tideflow.ops.variables import Variable

    return isinstance(x, Variable)


class GradientTape:
    """Records operations for differentiation (``with tf.GradientTape() as tape: ...``).

    ``persistent=True`` allows several ``gradient``/``jacobian`` calls;
    ``watch_accessed_variables=False`` watches only what ``watch`` is given.
    """

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._graph = None
        self._intervals = []  # [start_id, end_id] of op ids created while recording
        self._watches = []  # (op id count at the time, tensor or Variable)
        self._recording = False
        self._used = False
        self._cache = None  # (record key, trace)

    # -- recording ----------------------------------------------------------------------------
    def __enter__(self):
        if self._recording:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter "
                             "an already-active tape.")
        self._push()
        return self

    def __exit__(self, typ, value, traceback):
        if self._recording:
            self._pop()
        return False

    def _push(self):
        graph = ops.get_default_graph()
        if self._graph is None:
            self._graph = graph
        elif graph is not self._graph:
            raise ValueError("A GradientTape records the ops of one graph; it was first used "
                             f"with {self._graph!r}, not {graph!r}")
        self._intervals.append([graph._last_id + 1, None])
        self._recording = True

    def _pop(self):
        self._intervals[-1][1] = self._graph._last_id
        self._recording = False

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops created in this context are not recorded."""
        if not self._recording:
            raise ValueError("Tape must be recording.")
        self._pop()
        try:
            yield
        finally:
            self._push()

    def reset(self):
        """Forgets everything recorded so far (keeps recording if inside the block)."""
        recording = self._recording
        self._intervals, self._watches, self._used = [], [], False
        self._cache = None
        if recording:
            self._push()

    def watch(self, tensor):
        """Watches ``tensor`` (a tensor, a variable, or a nested structure of them)."""
        graph = self._graph or ops.get_default_graph()
        for t in nest.flatten(tensor):
            if not (_is_variable(t) or isinstance(t, ops.Tensor)):
                raise ValueError(f"Passed in object of type {type(t)}, not tf.Tensor "
                                 "or tf.Variable")
            if isinstance(t, ops.Tensor) and not (t.dtype.is_floating or t.dtype.is_complex):
                continue  # TF: only floating tensors are watched (a warning)
            self._watches.append((graph._last_id, t))

    def watched_variables(self):
        """The variables this tape watches (accessed in the block, or passed to ``watch``)."""
        return tuple(self._trace()[1])

    # -- what the tape recorded ---------------------------------------------------------------
    def _trace(self):
        """(watched tensors, watched variables, recorded ops) as of now."""
        graph = self._graph
        if graph is None:
            return set(), [], set()
        # the record changes only while recording or watching (a jacobian asks once per row)
        key = (tuple((s, graph._last_id if e is None else e) for s, e in self._intervals),
               len(self._watches), self._watch_accessed_variables)
        cached = self._cache
        if cached is not None and cached[0] == key:
            return cached[1]
        self._cache = (key, self._compute_trace(graph))
        return self._cache[1]

    def _compute_trace(self, graph):
        watched, variables, recorded = set(), [], set()
        var_of = {}
        trainable = set()
        from tideflow.framework.ops import GraphKeys

        for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES):
            trainable.add(id(v))
        for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES,
                    GraphKeys.TRAINABLE_VARIABLES):
            for v in graph.get_collection(key):
                if _is_variable(v):
                    var_of[v._variable] = v
                    var_of[v._snapshot] = v

        def watch_variable(v):
            if all(v is not u for u in variables):
                variables.append(v)
            watched.add(v._variable)
            watched.add(v._snapshot)
            recorded.add(v._snapshot._op)  # the variable's read: its gradient reaches the ref

        watches = sorted(self._watches, key=lambda w: w[0])
        wi = 0
        intervals = [(s, graph._last_id if e is None else e) for s, e in self._intervals]
        for start, end in intervals:
            for op_id in range(start, end + 1):
                while wi < len(watches) and watches[wi][0] < op_id:
                    w = watches[wi][1]
                    if _is_variable(w):
                        watch_variable(w)
                    else:
                        watched.add(w)
                    wi += 1
                op = graph._nodes_by_id.get(op_id)
                if op is None:
                    continue
                hit = False
                for t in op._inputs:
                    v = var_of.get(t)
                    if v is not None and self._watch_accessed_variables and id(v) in trainable:
                        watch_variable(v)
                    if t in watched:
                        hit = True
                if hit:
                    recorded.add(op)
                    watched.update(op._outputs)
        for _, w in watches[wi:]:
            if _is_variable(w):
                watch_variable(w)
            else:
                watched.add(w)
        return watched, variables, recorded

    # -- differentiation ----------------------------------------------------------------------
    def _check_use(self):
        if self._used and not self._persistent:
            raise RuntimeError(_NON_PERSISTENT)
        self._used = True

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """d(sum of ``target``)/d``sources``, structured as ``sources``.

        ``output_gradients`` weighs each target (as ``tf.gradients``' ``grad_ys``).
        """
        try:
            unconnected = UnconnectedGradients(unconnected_gradients)
        except ValueError:
            raise ValueError(f"Unknown value for unconnected_gradients: "
                             f"{unconnected_gradients!r}") from None
        self._check_use()
        flat_sources = nest.flatten(sources)
        flat_targets = nest.flatten(target)
        if output_gradients is not None:
            output_gradients = [None if g is None else ops.convert_to_tensor(g)
                                for g in nest.flatten(output_gradients)]
            if len(output_gradients) != len(flat_targets):
                raise ValueError(f"Passed {len(output_gradients)} output_gradients for "
                                 f"{len(flat_targets)} targets")
        grads = self._gradients(flat_targets, flat_sources, output_gradients, unconnected)
        return nest.pack_sequence_as(sources, grads)

    def _gradients(self, targets, sources, output_gradients, unconnected):
        watched, _, recorded = self._trace()
        targets = [ops.convert_to_tensor(t) for t in targets]
        src = [s._variable if _is_variable(s) else ops.convert_to_tensor(s) for s in sources]
        src_set = set(src)
        # a target the tape did not record (nor watch) carries no gradient
        keep = [i for i, t in enumerate(targets) if t in watched or t in src_set]
        # gradients stop where they would leave the recorded ops
        stop = set()
        for op in recorded:
            for t in op._inputs:
                if t not in watched and t not in src_set:
                    stop.add(t)
        for t in watched:
            if isinstance(t, ops.Tensor) and t._op not in recorded and t not in src_set:
                stop.add(t)
        live = [i for i, s in enumerate(src) if s in watched]
        out = [None] * len(sources)
        if keep and live:
            ys = [targets[i] for i in keep]
            gys = None if output_gradients is None else [output_gradients[i] for i in keep]
            gs = gradients_lib.gradients(
                ys, [sources[i] if _is_variable(sources[i]) else src[i] for i in live], grad_ys=gys,
                stop_gradients=[t for t in stop if t.graph is ys[0].graph])
            for i, g in zip(live, gs):
                out[i] = g
        if unconnected is UnconnectedGradients.ZERO:
            from tideflow.ops import array_ops

            out = [array_ops.zeros_like(s._snapshot if _is_variable(s) else t) if g is None else g
                   for s, t, g in zip(sources, src, out)]
        return out

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """d``target``/d``sources``: for each source, a tensor of shape
        ``target.shape + source.shape``."""
        del parallel_iterations, experimental_use_pfor
        self._check_use()
        from tideflow.ops import array_ops

        y = ops.convert_to_tensor(target)
        flat = nest.flatten(sources)
        n = y.get_shape().num_elements()
        size = array_ops.size(y) if n is None else n
        results = []
        for s in flat:
            x = s._snapshot if _is_variable(s) else ops.convert_to_tensor(s)
            x_arg = s if _is_variable(s) else x

            def row(i, x=x_arg):
                one = array_ops.reshape(_one_hot(i, size, y.dtype), array_ops.shape(y))
                (g,) = self._gradients([y], [x], [one], UnconnectedGradients.ZERO)
                return _dense(g)

            j = _rows(row, size, n, x.dtype)
            shape = array_ops.concat([array_ops.shape(y), array_ops.shape(x)], 0)
            j = array_ops.reshape(j, shape)
            j.set_shape(y.get_shape().concatenate(x.get_shape()))
            results.append(j)
        results = _unconnected(results, flat, y, unconnected_gradients, self)
        return nest.pack_sequence_as(sources, results)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """For ``target`` [b, ...] and ``source`` [b, ...] whose rows do not depend on each
        other's: ``[b, target row shape..., source row shape...]``."""
        del parallel_iterations, experimental_use_pfor
        self._check_use()
        from tideflow.ops import array_ops

        y = ops.convert_to_tensor(target)
        x = source._snapshot if _is_variable(source) else ops.convert_to_tensor(source)
        x_arg = source if _is_variable(source) else x
        ys, xs = y.get_shape(), x.get_shape()
        if ys.ndims is not None and ys.ndims < 1 or xs.ndims is not None and xs.ndims < 1:
            raise ValueError("batch_jacobian needs target and source of rank 1 or more; got "
                             f"{ys} and {xs}")
        if ys.ndims and xs.ndims and not ys.dims[0].is_compatible_with(xs.dims[0]):
            raise ValueError(f"Need first dimension of target shape ({ys}) and source shape "
                             f"({xs}) to match.")
        m = ys[1:].num_elements() if ys.ndims is not None else None
        y_rows = array_ops.reshape(y, array_ops.stack([array_ops.shape(y)[0], -1]))
        size = array_ops.shape(y_rows)[1] if m is None else m

        def row(i):
            one = array_ops.zeros_like(y_rows) + _one_hot(i, size, y.dtype)
            one = array_ops.reshape(one, array_ops.shape(y))
            (g,) = self._gradients([y], [x_arg], [one], UnconnectedGradients.ZERO)
            return array_ops.reshape(_dense(g), array_ops.stack([array_ops.shape(x)[0], -1]))

        j = _rows(row, size, m, x.dtype)  # [m, b, source row size]
        j = array_ops.transpose(j, [1, 0, 2])
        shape = array_ops.concat([array_ops.shape(y), array_ops.shape(x)[1:]], 0)
        j = array_ops.reshape(j, shape)
        j.set_shape(ys.concatenate(xs[1:] if xs.ndims is not None else xs))
        return _unconnected([j], [source], y, unconnected_gradients, self)[0]


def _one_hot(i, size, dtype):
    from tideflow.ops import range_ops

    return range_ops.one_hot(i, size, dtype=dtype.base_dtype)


def _dense(g):
    return gradients_lib.dense(g) if isinstance(g, IndexedSlices) else g


def _rows(row, size, static_size, dtype):
    """``stack([row(i) for i in range(size)])``, unrolled when ``size`` is known statically."""
    from tideflow.ops import array_ops

    if static_size is not None:
        if static_size == 0:
            raise ValueError("jacobian of an empty target is not supported")
        return array_ops.stack([row(i) for i in range(static_size)])
    from tideflow.ops import functional_ops, range_ops

    return functional_ops.map_fn(row, range_ops.range(size), dtype=dtype)


def _unconnected(results, sources, y, unconnected_gradients, tape):
    """TF: a source the target does not depend on gives None (or zeros) in jacobians."""
    if UnconnectedGradients(unconnected_gradients) is UnconnectedGradients.ZERO:
        return results
    watched, _, recorded = tape._trace()
    out = []
    for j, s in zip(results, sources):
        x = s._variable if _is_variable(s) else ops.convert_to_tensor(s)
        connected = x in watched and _reaches(y, x, recorded)
        out.append(j if connected else None)
    return out


def _reaches(y, x, recorded):
    """Whether ``y`` depends on ``x`` through recorded ops."""
    seen, stack = set(), [y]
    while stack:
        t = stack.pop()
        if t is x:
            return True
        op = t._op
        if op in seen or op not in recorded:
            continue
        seen.add(op)
        stack.extend(op._inputs)
    return False
