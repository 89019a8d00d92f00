"""Symbolic differentiation (paper §4.1): ``tf.gradients`` walks the graph backwards from ys.

Each op's gradient function (declared with the op, or registered with ``tf.RegisterGradient``)
maps the gradients of its outputs to gradients of its inputs; partial gradients of a tensor
used several times are summed; sparse gradients travel as ``IndexedSlices``.
"""

import collections
import enum
import threading

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices


class AggregationMethod:
    """How tf.gradients sums partial gradients: AddN, pairwise AddNs, or AccumulateNV2."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients(enum.Enum):
    """What tf.gradients returns for an x that ys do not depend on: None, or zeros."""

    NONE = "none"
    ZERO = "zero"


class RegisterGradient:
    """Decorator: ``@tf.RegisterGradient("OpType")`` registers ``f(op, *grads)``."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        op_registry.register_gradient(self._op_type, f)
        return f


def NotDifferentiable(op_type):
    """Declares that ops of type ``op_type`` have no gradient (their inputs get None)."""
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    op_registry.register_gradient(op_type, None)


NoGradient = NotDifferentiable


# whether the gradient being built gates each op's input gradients (minimize's GATE_OP):
# an If's gradient builds its branches' gradients the same way
_GATE = threading.local()


def gating_active():
    """True while a gradient function runs for a gated ``tf.gradients`` (GATE_OP)."""
    return getattr(_GATE, "active", False)


class seed_identities_off:
    """Within: the next ``tf.gradients`` call makes no ``grad_ys_<i>`` Identity of its given
    grad_ys (a control-flow gradient's inner walk over a branch or body, which TF's gradient
    does within its own walk)."""

    def __enter__(self):
        self._outer, _GATE.no_seed = getattr(_GATE, "no_seed", False), True

    def __exit__(self, *a):
        _GATE.no_seed = self._outer
        return False


def defer_op_ids(n):
    """Ids TF 1.15's gradients() takes after its walk (a loop's PostProcessing): the current
    call skips them once it has built every gradient."""
    post = getattr(_GATE, "post_ids", None)
    if post is not None:
        post[0] += n


def between_active():
    """The ops between the xs and ys of the ``tf.gradients`` whose gradient function runs
    (None outside one): a control-flow gradient differentiates only the inputs among them."""
    return getattr(_GATE, "between", None)


def _differentiable(dtype):
    d = dtype.base_dtype
    return d.is_floating or d.is_complex or d == dtypes.resource or d == dtypes.variant


def _as_list(x):
    if x is None:
        return []
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_tensor(x, as_ref=False):
    if isinstance(x, (ops.Tensor, IndexedSlices)):
        return x
    return ops.convert_to_tensor(x, as_ref=as_ref)


def _check_no_loop_var_path(body, ys, xs):
    """TF 1.x's gradients in a while loop's body stop at a loop variable's Switch when its
    initial value depends on an x (even past a stop_gradient): ValueError naming that x."""
    inits = {id(ph): init for ph, init in getattr(body, "_tf_loop_inits", ())}
    if not inits:
        return
    reached, seen = [], set()
    stack = [t._op for t in ys if getattr(t, "_op", None) is not None]
    while stack:  # the loop variables ys read in this body, through any op
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op._inputs:
            if id(t) in inits:
                reached.append(inits[id(t)])
            elif t.graph is body:
                stack.append(t._op)
    x_ops = {id(x._op) for x in xs}
    queue, seen = collections.deque(t._op for t in reached), set()
    while queue:  # TF's search from the Switch back to the first x
        op = queue.popleft()
        if id(op) in seen:
            continue
        seen.add(id(op))
        if id(op) in x_ops:
            raise ValueError(
                f"Cannot compute gradient inside while loop with respect to op '{op.name}'. "
                "We do not support taking the gradient wrt or through the initial value of a "
                "loop variable. Gradients can be computed through loop invariants or wrt the "
                "input parameters to the loop body.")
        queue.extend(t._op for t in op._inputs)


def _is_ref_variable(x):
    from tideflow.ops.variables import Variable

    return isinstance(x, Variable) and hasattr(x, "_ref")


def _between(ys, xs, stop_ops, bridge=None):
    """Ops on a path from some x to some y (not crossing stop ops). With ``bridge`` (capture
    placeholder op -> the enclosing tensor it stands for), paths run through captures."""
    extra = {}  # enclosing tensor -> the capture placeholder ops standing for it
    for ph_op, src in (bridge or {}).items():
        extra.setdefault(src, []).append(ph_op)
    reached = set()
    stack = [x._op for x in xs]
    while stack:
        op = stack.pop()
        if op in reached:
            continue
        reached.add(op)
        for t in op._outputs:
            if t.__dict__.get("_loop_accumulator"):  # a while loop's saved forward values
                continue
            if not _differentiable(t._dtype):
                continue  # as TF: paths run through float, complex, resource, variant only
            for c in (*t._consumers, *extra.get(t, ())):
                if c not in reached:
                    stack.append(c)
    between = set()
    stack = [y._op for y in ys]
    while stack:
        op = stack.pop()
        if op in between or op not in reached:
            continue
        between.add(op)
        if op in stop_ops:
            continue
        for t in _inputs(op, bridge):
            stack.append(t._op)
    return between


def _inputs(op, bridge):
    if bridge:
        src = bridge.get(op)
        if src is not None:
            return (src,)
    return op._inputs


def _capture_bridge(graph):
    """Capture placeholder op -> captured tensor, for ``graph`` and every body enclosing it:
    the edges by which a gradient taken in a loop body reaches, as in TF 1.x (whose bodies
    are part of the graph), the enclosing graphs' ops its inputs were computed by."""
    bridge = {}
    g = graph
    while getattr(g, "building_function", False):
        for src, ph in g.captures:
            bridge[ph._op] = src
        g = g.outer_graph
    return bridge


def _gradient_fn(op):
    # the override was recorded on the op when it was created (gradient_override_map binds
    # then, as TF): a map active only while differentiating changes nothing
    name = op._attrs.get("_gradient_op_type") or op._type
    if isinstance(name, bytes):
        name = name.decode()
    if op_registry.has_gradient_entry(name):
        return op_registry.gradient_function(name), True
    return None, False


# ops whose gradient functions take None for outputs without a gradient (rather than zeros):
# control flow, whose extra outputs (exposed intermediates, accumulators) never get one
_NONE_GRADS_OK = frozenset({"If", "While", "StatelessIf", "StatelessWhile"})


def _aggregate(grads, name, colocate_op=None, method=None, op=None):
    """Sums the partial gradients of one tensor (dense AddN, or concatenated IndexedSlices).
    With ``colocate_op`` (``colocate_gradients_with_ops``), dense partials are summed as TF
    does: per device next to the first partial there, then across devices next to the op.
    ``method`` (an AggregationMethod) picks TF's ops for dense partials of ``op``'s output:
    EXPERIMENTAL_TREE adds them pairwise under ``<op>_gradient_sum``, EXPERIMENTAL_ACCUMULATE_N
    makes one AccumulateNV2 of more than two partials of a fully known shape (else as TREE)."""
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    from tideflow.ops import array_ops, math_ops

    if isinstance(grads[0], ops.Tensor) and grads[0].dtype.base_dtype == dtypes.variant:
        from tideflow.ops import list_ops  # gradients of TensorLists (TensorArray, loops)

        return list_ops.add_n(grads, name=name)

    if all(isinstance(g, ops.Tensor) for g in grads):
        if method == AggregationMethod.EXPERIMENTAL_ACCUMULATE_N and len(grads) > 2:
            shape = grads[0].get_shape()
            for g in grads[1:]:
                shape = shape.merge_with(g.get_shape())
            if shape.is_fully_defined():
                from tideflow.ops import extra_array_ops

                return extra_array_ops.accumulate_n(grads)
        if method in (AggregationMethod.EXPERIMENTAL_TREE,
                      AggregationMethod.EXPERIMENTAL_ACCUMULATE_N) and op is not None:
            with ops.name_scope(op.name + "_gradient_sum"):
                total = grads[0]
                for g in grads[1:]:
                    total = math_ops.add_n([total, g])
                return total
        if name is None:  # as TF's _MultiDeviceAddN (whatever colocate_gradients_with_ops)
            return _multi_device_add_n(grads, colocate_op)
        return math_ops.add_n(grads, name=name)
    if all(isinstance(g, IndexedSlices) for g in grads):
        indices = [g.indices for g in grads]
        if len({i.dtype.base_dtype for i in indices}) > 1:  # int32 and int64 ids: as TF, int64
            from tideflow.ops import cast_ops

            indices = [cast_ops.cast(i, dtypes.int64) for i in indices]
        return IndexedSlices(
            array_ops.concat([g.values for g in grads], 0),
            array_ops.concat(indices, 0),
            grads[0].dense_shape,
        )
    # (TF's aggregate_indexed_slices_gradients: AddN itself densifies the IndexedSlices,
    # "AddN/inputs_1")
    return math_ops.add_n(grads, name=name)


def count_tf_sum(grads):
    """Where a tensor's only partial gradient is one TF 1.x gets as two (the gradient of an
    input both branches of a cond take: a Switch each), skips the ids (and the name) of the
    AddN TF sums them with, so later ops number as TF's."""
    if grads and len(grads) == 1 and getattr(grads[0], "_tf_sum_ids", 0):
        graph = ops.get_default_graph()
        graph._skip_op_ids(grads[0]._tf_sum_ids)
        graph.unique_name("AddN")
        grads[0]._tf_sum_ids = 0  # summed once (a tensor of xs is met again at the end)


def _multi_device_add_n(grads, op):
    """Sums per device, each next to its first partial (so the AddN carries that op's
    colocation attr, as TF's), then across devices next to ``op`` when one is given."""
    from tideflow.ops import math_ops

    by_device = {}
    for g in grads:
        by_device.setdefault(g.device or "", []).append(g)
    summands = []
    for device in sorted(by_device):
        group = by_device[device]
        with group[0]._op._graph.colocate_with(group[0]._op, ignore_existing=True):
            summands.append(group[0] if len(group) == 1 else math_ops.add_n(group))
    if len(summands) == 1:
        return summands[0]
    if op is None:
        return math_ops.add_n(summands)
    with op._graph.colocate_with(op):
        return math_ops.add_n(summands)


# TF warns when it densifies sparse gradients of this many elements or more
_LARGE_SPARSE_NUM_ELEMENTS = 100000000


def _warn_dense(g):
    """TF's warning for an IndexedSlices made dense (its conversion function): one of unknown
    dense shape, or of 100M elements or more, may take a lot of memory."""
    import warnings

    import numpy as np

    if not isinstance(g.dense_shape, ops.Tensor):  # (TF's constant_value returns it as is)
        shape = np.asarray(g.dense_shape)
    else:
        shape = ops.constant_value(g.dense_shape)
    if shape is not None and isinstance(g.dense_shape, ops.Tensor):
        # (TF reads it with tensor_util.constant_value, which makes it unfeedable)
        g.dense_shape.graph.prevent_feeding(g.dense_shape)
    if shape is None:
        warnings.warn("Converting sparse IndexedSlices to a dense Tensor of unknown shape. "
                      "This may consume a large amount of memory.", stacklevel=3)
    else:
        n = int(np.prod(shape))
        if n >= _LARGE_SPARSE_NUM_ELEMENTS:
            warnings.warn(f"Converting sparse IndexedSlices to a dense Tensor with {n} "
                          f"elements. This may consume a large amount of memory.", stacklevel=3)


def dense(g, name=None):
    """An IndexedSlices as a dense Tensor (rows summed where indices repeat)."""
    if not isinstance(g, IndexedSlices):
        return g
    from tideflow.ops import reduction_ops

    if g.dense_shape is None:
        raise ValueError(f"Tensor conversion requested for IndexedSlices without dense_shape: "
                         f"{g}")
    _warn_dense(g)
    # dense_shape[0] is a StridedSlice, as TF builds it (of a list or an array given as the
    # dense shape, its first entry)
    if not isinstance(g.dense_shape, ops.Tensor):
        num_rows = g.dense_shape[0]
    else:
        num_rows = g.dense_shape[0] if g.dense_shape.get_shape().ndims else g.dense_shape
    return reduction_ops.unsorted_segment_sum(g.values, g.indices, num_rows, name=name)


def _indexed_slices_to_tensor(value, dtype=None, name=None, as_ref=False):
    if dtype is not None and not dtype.is_compatible_with(value.dtype):
        raise ValueError(f"Tensor conversion requested dtype {dtype.name} for IndexedSlices "
                         f"with dtype {value.dtype.name}")
    if as_ref:
        return NotImplemented
    return dense(value, name=name)


ops.register_tensor_conversion_function(IndexedSlices, _indexed_slices_to_tensor, priority=50)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Returns a list aligned with ``xs``: a Tensor, an IndexedSlices (sparse gradients of
    gathers), or where ys does not depend on x, None (or zeros with
    ``unconnected_gradients='zero'``).
    """
    # partials are always summed with AddN; TF's other methods give the same sums
    if aggregation_method not in (None, AggregationMethod.ADD_N,
                                  AggregationMethod.EXPERIMENTAL_TREE,
                                  AggregationMethod.EXPERIMENTAL_ACCUMULATE_N):
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method}.")
    try:
        unconnected = UnconnectedGradients(unconnected_gradients)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {unconnected_gradients!r}")\
            from None
    if any(t is None for t in ([ys, xs] + _as_list(ys) + _as_list(xs))):
        # TF 1.15 opens its name scope, then fails reading a None y's or x's op
        with ops.name_scope(name, "gradients"):
            raise AttributeError("'NoneType' object has no attribute 'op'")
    ys = [_to_tensor(y) for y in _as_list(ys)]
    xs_in = _as_list(xs)
    # a variable's gradient is taken at its ref, as TF 1.x (as_ref=True): every read counts
    # (its read snapshot, read_value(), gathers of the ref)
    xs = [x._ref() if _is_ref_variable(x) else _to_tensor(x) for x in xs_in]
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    stop = {t._ref() if _is_ref_variable(t) else _to_tensor(t) for t in _as_list(stop_gradients)}
    graph = ys[0].graph if ys else ops.get_default_graph()
    default = ops.get_default_graph()
    if ys and not default.building_function:
        for t in ys + xs:  # TF's name_scope(values=ys + xs) check
            if t.graph is not graph:
                raise ValueError(f"{t} must be from the same graph as {ys[0]}.")
    if default.building_function:
        # inside a function body (a control-flow gradient): the gradient ops go to the body,
        # which captures the forward tensors they use (framework/func_graph.py)
        graph = default
    # an x of an enclosing graph (tf.gradients(loss, W) in a loop body, as TF 1.x's loops
    # allow), which the body may reach through x itself and through any tensor it captured (a
    # loss row gathered in a loop from a tensor computed outside it): the walk crosses
    # captures, and the gradient ops of the enclosing ops are built in the body (which
    # captures what they read)
    bridge = None
    if default.building_function and any(default.encloses(x.graph) for x in xs):
        bridge = _capture_bridge(graph)
        _check_no_loop_var_path(default, ys, xs)
    from tideflow.ops import array_ops

    outer_post, _GATE.post_ids = getattr(_GATE, "post_ids", None), [0]
    with graph.as_default(), ops.name_scope(name, "gradients", ys + xs) as scope:
        stop_ops = {t._op for t in stop}
        between = _between(ys, xs, stop_ops, bridge)
        # pending: how many consumers (in between) each op waits for
        pending = collections.Counter()
        for op in between:
            for t in _inputs(op, bridge):
                if t._op in between:
                    pending[t._op] += 1
        grads = collections.defaultdict(list)  # tensor -> partial grads
        # as TF: the given grad_ys converted first (grad_y_<i>), then each y's seed: ones, or
        # an Identity of the given one (grad_ys_<i>)
        seed_identities = not getattr(_GATE, "no_seed", False)
        _GATE.no_seed = False
        grad_ys = [gy if gy is None or isinstance(gy, (ops.Tensor, IndexedSlices))
                   else ops.convert_to_tensor(gy, name=f"grad_y_{i}")
                   for i, gy in enumerate(grad_ys)]
        for i, (y, gy) in enumerate(zip(ys, grad_ys)):
            # as TF's _DefaultGradYs: each seed colocated with its y's op when asked
            with (y._op._graph.colocate_with(y._op) if colocate_gradients_with_ops
                  else _null()):
                if gy is None:  # integer ys are allowed: nothing flows back through them
                    if y.dtype.is_complex:  # TF: a complex y has no obvious seed of ones
                        raise TypeError(f"Gradients of complex tensors must set grad_ys "
                                        f"(y.dtype = tf.{y.dtype.base_dtype.name})")
                    # TF 1.x's names: gradients/Shape, gradients/grad_ys_0 (the one),
                    # gradients/Fill
                    from tideflow.ops import constant_op, fill_ops

                    gy = fill_ops.fill(array_ops.shape(y),
                                       constant_op.constant(1, dtype=y.dtype.base_dtype,
                                                            name=f"grad_ys_{i}"))
                else:
                    _check_grad_y(y, gy)
                    if seed_identities:
                        gy = _seed_identity(gy, i)
            grads[y].append(gy)
        # ops are visited first in, first out from the ys' ops, as TF's queue does, so that the
        # gradient ops are created (and numbered: AddN, AddN_1, ...) in TF's order
        ready = collections.deque(dict.fromkeys(
            y._op for y in ys if y._op in between and pending[y._op] == 0))
        done = set()
        # ops whose TF 1.15 counterpart's gradient makes ops tideflow's does not (an emulated
        # cond's Switches and Merges): each gives the ids to skip for this walk, gated or not
        tf_ids = graph.__dict__.get("_tf_grad_ids")
        while ready:
            op = ready.popleft()
            if op in done:
                continue
            done.add(op)
            if tf_ids and op in tf_ids:
                graph._skip_op_ids(tf_ids[op](between, bool(gate_gradients)))
            colocate_op = op if colocate_gradients_with_ops else None
            out_grads = []
            for t in op._outputs:
                g = grads.get(t)
                count_tf_sum(g)
                out_grads.append(_aggregate(g, None, colocate_op, aggregation_method, op)
                                 if g else None)
                if g:
                    grads[t] = [out_grads[-1]]
            if bridge and op in bridge:  # a capture: its gradient is the captured tensor's
                if out_grads[0] is not None:
                    grads[bridge[op]].append(out_grads[0])
            elif op not in stop_ops and _needs_inputs(op, between, out_grads):
                in_grads = _op_input_grads(op, out_grads, scope, colocate_gradients_with_ops,
                                           gate_gradients, between, stop)
                for t, g in zip(op._inputs, in_grads):
                    if g is not None and _differentiable(t._dtype):
                        grads[t].append(g)
            for t in _inputs(op, bridge):
                if t._op in between:
                    pending[t._op] -= 1
                    if pending[t._op] == 0:
                        ready.append(t._op)
        result = []
        for x in xs:
            g = grads.get(x)
            count_tf_sum(g)
            g = _aggregate(g, None, None, aggregation_method, x.op) if g else None
            result.append(g)
        post, _GATE.post_ids = _GATE.post_ids[0], outer_post
        if post:
            graph._skip_op_ids(post)
    if unconnected is UnconnectedGradients.ZERO:
        # made after the gradients scope closes, as TF 1.x's (zeros_like, zeros_like_1, ...)
        with graph.as_default():
            result = [array_ops.zeros_like(x) if g is None else g for x, g in zip(xs, result)]
    return result


def _seed_identity(gy, i):
    from tideflow.ops import array_ops

    if isinstance(gy, IndexedSlices):
        def ident(t, part):
            return (array_ops.identity(t, name=f"grad_ys_{i}_{part}")
                    if isinstance(t, ops.Tensor) else t)

        return IndexedSlices(indices=ident(gy.indices, "indices"),
                             values=ident(gy.values, "values"),
                             dense_shape=ident(gy.dense_shape, "shape"))
    return array_ops.identity(gy, name=f"grad_ys_{i}")


def _check_grad_y(y, gy):
    """TF's checks of a given grad_y's dtype against its y's."""
    yt, gt = y.dtype.base_dtype, gy.dtype.base_dtype
    if yt.is_floating or yt.is_integer:
        if not (gt.is_floating or gt.is_integer):
            raise TypeError(f"Gradient type {gt.name} generated for real or integer-valued "
                            f"tensor {y} with type {yt.name} must be real or integer")
    elif yt.is_complex:
        if not gt.is_complex:
            raise TypeError(f"Gradient type {gt.name} generated for complex-valued tensor {y} "
                            f"with type {yt.name} must be real")
    elif yt == dtypes.variant:
        if gt != dtypes.variant:
            raise TypeError(f"Gradient type {gt.name} generated for variant tensor {y} with "
                            f"type {yt.name} must be variant")
    elif yt == dtypes.resource:
        if gt == dtypes.resource:
            raise TypeError(f"Input gradient {gy} for resource tensor {y} should not be a "
                            "resource")
    else:
        raise TypeError(f"Tensor {y} with type {yt.name} must be numeric to obtain a default "
                        "gradient")


def _needs_inputs(op, between, out_grads):
    return any(g is not None for g in out_grads) and any(t._op in between for t in op._inputs)


def _op_input_grads(op, out_grads, scope, colocate, gate, between, stop):
    if not any(t._op in between and _differentiable(t._dtype)
               for t in op._inputs):
        return [None] * len(op._inputs)
    fn, found = _gradient_fn(op)
    if not found:
        raise LookupError(
            f"No gradient defined for operation '{op.name}' (op type: {op.type})"
        )
    if fn is None:  # declared not differentiable
        return [None] * len(op._inputs)
    filled = []
    from tideflow.ops import array_ops

    lazy = op._type in _NONE_GRADS_OK
    for t, g in zip(op._outputs, out_grads):
        if g is None and not lazy and _differentiable(t._dtype) and (
                t._dtype.base_dtype != dtypes.variant):
            g = array_ops.zeros_like(t, optimize=False)  # a ZerosLike op, as TF's
        filled.append(g)
    ctx = op._graph.colocate_with(op) if colocate else _null()
    xla = _xla_grad_scope(op, scope) if "_XlaCompile" in op._attrs else _null()
    # (as TF: the gradient's ops stand for op, so an error in one shows op's stack as well)
    with ctx, xla, ops.name_scope(op.name + "_grad"), op._graph._original_op(op):
        outer, _GATE.active = getattr(_GATE, "active", False), gate
        outer_between, _GATE.between = getattr(_GATE, "between", None), between
        try:
            res = fn(op, *filled)
        finally:
            _GATE.active = outer
            _GATE.between = outer_between
        res = _as_list(res) if isinstance(res, (list, tuple)) else [res]
        if len(res) != len(op._inputs):
            raise ValueError(
                f"Num gradients {len(res)} generated for op {op.node_def} "  # (TF prints it)
                f"do not match num inputs {len(op._inputs)}"
            )
        # (an If's gradient gates inside its branches, as TF's cond gradient does op by op; a
        # While's are its one op's outputs: its count has TF's gates, control_flow_grad)
        if gate and op._type not in ("If", "While") and sum(g is not None for g in res) > 1:
            # inside the op's gradient scope, as TF: gradients/MatMul_grad/tuple/...; TF gates
            # every input's gradient (the op count later seeds depend on), but the gate waits
            # only for those of inputs some x depends on, so the others are never computed
            from tideflow.ops import control_flow_ops

            # (IndexedSlices too, as TF's tuple: their values are gated, as the row gradients
            # of a concat of embedding tables or of a partitioned variable's parts)
            dense_idx = [i for i, g in enumerate(res)
                         if isinstance(g, (ops.Tensor, IndexedSlices))]
            if dense_idx:
                # as TF: the tuple is made with no device and no colocation of its own (its
                # group goes where its inputs are; each Identity is colocated with its input)
                with ops.device(None), op._graph.colocate_with(None, ignore_existing=True), \
                        ops.name_scope(None, "tuple"):
                    gate = control_flow_ops.group(
                        *[res[i].op for i in dense_idx if op._inputs[i]._op in between])
                    for i in dense_idx:
                        res[i] = control_flow_ops.with_dependencies([gate], res[i])
    out = []
    for i, (t, g) in enumerate(zip(op._inputs, res)):
        if g is not None and isinstance(g, ops.Tensor) and not _differentiable(t._dtype):
            g = None
        # (as TF, the shape check covers the gradients of inputs no x depends on too, e.g. of
        # a constant operand given an unreduced gradient, before they are dropped)
        if isinstance(g, ops.Tensor) and t._dtype.base_dtype != dtypes.resource:
            # as TF: an input's gradient has (at least) the input's static shape
            try:
                g.set_shape(t.get_shape())
            except ValueError:
                raise ValueError(
                    "Incompatible shapes between op input and calculated input gradient.  "
                    f"Forward operation: {op.name}.  Input index: {i}. Original input "
                    f"shape: {t.get_shape()}.  Calculated input gradient shape: "
                    f"{g.get_shape()}") from None
        out.append(g if t._op in between else None)  # (those no x depends on: dropped)
    return out


def _xla_grad_scope(op, scope):
    """As TF, the gradient ops of an op built in a jit scope carry its ``_XlaCompile`` and
    ``_XlaScope`` (``<scope>_grad_<gradients scope>`` when compiled separately)."""
    try:
        compile_ops = op.get_attr("_XlaCompile")
        separate = op.get_attr("_XlaSeparateCompiledGradients")
        xla_scope = op.get_attr("_XlaScope")
    except ValueError:
        return _null()
    if not compile_ops:
        return _null()
    xla_scope = xla_scope.decode() if isinstance(xla_scope, bytes) else xla_scope
    if separate:
        xla_scope = f"{xla_scope}_grad_{(scope or '').rstrip('/').replace('/', '_')}"
    return op._graph._attr_scope({"_XlaCompile": True, "_XlaScope": xla_scope.encode()})


class _null:
    def __enter__(self):
        return None

    def __exit__(self, *a):
        return False


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """Second derivatives of ``sum(ys)`` with respect to each x (one Hessian per x).

    As TF 1.x (whose ``name`` names nothing): the first gradients once for all xs, then per x a
    while loop over the flattened gradient writing one row per element into a TensorArray, so
    xs of unknown shape work and the ops made (and later random ops' seeds) are TF's."""
    from tideflow.ops import array_ops, constant_op, tensor_array
    from tideflow.ops.while_loop import while_loop

    xs = _as_list(xs)
    kw = {"colocate_gradients_with_ops": colocate_gradients_with_ops,
          "gate_gradients": gate_gradients, "aggregation_method": aggregation_method}
    out = []
    for g, x in zip(gradients(ys, xs, **kw), xs):
        flat = array_ops.reshape(g, [-1])  # a None g fails here, taking TF's op name
        n = array_ops.size(x)

        def body(j, result, flat=flat, x=x):
            gj = gradients(flat[j], x, **kw)[0]
            if gj is None:
                # a first derivative that does not depend on x differentiably (linear in x, or
                # through argmax/int casts): TF's loop writes None into its TensorArray
                raise ValueError("None values not supported.")
            return j + 1, result.write(j, gj)

        _, h = while_loop(lambda j, _, n=n: j < n, body,
                          [constant_op.constant(0, dtypes.int32),
                           tensor_array.TensorArray(x.dtype, n)])
        shape = array_ops.shape(x)
        graph = ops.get_default_graph()
        first = graph._next_id
        rows = h.stack()
        graph._skip_op_ids(to=first + 5)  # TF's stack: the array's size, a range, a gather
        out.append(array_ops.reshape(rows, array_ops.concat((shape, shape), 0)))
    return out
