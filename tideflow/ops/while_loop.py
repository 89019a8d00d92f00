"""Loops (paper §4.4): the functional ``While`` op and ``tf.while_loop``.

The loop's condition and body are function bodies (framework/func_graph.py) taking every loop
variable followed by the tensors they capture (loop invariants, carried through unchanged).
The executor inlines a While into its plan's generated code as a Python ``while`` loop
(runtime/executor.py); the kernel here runs the bodies as sub-plans when it is not inlined.
"""

import time

from tideflow.framework import dtypes, errors, func_graph, nest, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tideflow.ops import cond as cond_lib

# ------------------------------------------------------------------------------------------
# the While op
# ------------------------------------------------------------------------------------------


def _while_shape(op):
    shapes = op._attrs.get("output_shapes") or ()
    return list(shapes) if shapes else None


def step_checker(op, step):
    """``check()`` raising CancelledError / DeadlineExceededError for the running step."""
    if step is None:
        return None
    cancelled = step.cancelled.is_set
    deadline = step.deadline

    def check():
        if cancelled():
            raise errors.CancelledError(None, op, "Step was cancelled (the session was closed)")
        if deadline is not None and time.monotonic() > deadline:
            raise errors.DeadlineExceededError(None, op, "Timed out waiting for the loop to end "
                                               "(RunOptions.timeout_in_ms)")

    return check


def _while_kernel(ctx):
    from tideflow.runtime import functions

    op = ctx.op
    graph = op._graph
    cond_fn = functions.compile_function(func_graph.lookup_function(graph, op._attrs["cond"]),
                                         ctx)
    body_fn = functions.compile_function(func_graph.lookup_function(graph, op._attrs["body"]),
                                         ctx)

    def run(inputs, *, step=None):
        values = inputs
        check = step_checker(op, step)
        while True:
            c = cond_fn(*values, step=step)[0]
            if not c:
                return values
            values = body_fn(*values, step=step)
            if check is not None:
                check()

    return run


_WHILE = op_registry.declare(
    "While",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: list(type) >= 0", "cond: func", "body: func", "output_shapes: list(shape) = []",
           "parallel_iterations: int = 10"],
    shape=_while_shape,
    kernel_factory=_while_kernel,
    stateful=True,
)
_WHILE.kernel_wants_step = True  # cancellation and deadlines are checked every iteration


# ------------------------------------------------------------------------------------------
# tf.while_loop
# ------------------------------------------------------------------------------------------


def _shape_str(shape):
    return str(shape) if shape.ndims is not None else "<unknown>"


def shape_less_equal(shape, invariant):
    """Whether ``shape`` is at least as specific as ``invariant`` and agrees with it."""
    if invariant.ndims is None:
        return True
    if shape.ndims != invariant.ndims:
        return False
    for a, b in zip(shape.dims, invariant.dims):
        if b.value is not None and a.value != b.value:
            return False
    return True


class _Flat:
    """Loop variables flattened to tensors; TensorArrays travel as their list tensor, composite
    tensors (SparseTensor, IndexedSlices, RaggedTensor) as their component tensors."""

    def __init__(self, structure):
        from tideflow.ops import tensor_array

        self.structure = structure
        self.leaves = nest.flatten(structure)
        self.tensors = []
        self.kinds = []  # per leaf: None (a tensor or TensorArray) or the composite's kind
        for x in self.leaves:
            if isinstance(x, tensor_array.TensorArray):
                self.kinds.append(None)
                self.tensors.append(x._list)
                continue
            kind = cond_lib._composite_kind(x)
            self.kinds.append(kind)
            if kind is not None:
                self.tensors.extend(cond_lib.composite_components(x))
            else:
                self.tensors.append(ops.convert_to_tensor(x))

    def pack(self, tensors, structure=None):
        from tideflow.ops import tensor_array

        leaves = []
        # TensorArrays come back as the body returned them (with the element shape it wrote)
        templates = self.leaves if structure is None else [
            b if isinstance(b, tensor_array.TensorArray) else a
            for a, b in zip(self.leaves, nest.flatten(structure))]
        tensors = iter(tensors)
        for leaf, kind in zip(templates, self.kinds):
            if isinstance(leaf, tensor_array.TensorArray):
                leaves.append(leaf._with_list(next(tensors)))
            elif kind is not None:
                leaves.append(cond_lib.rebuild_composite(
                    kind, [next(tensors) for _ in range(kind[1])]))
            else:
                leaves.append(next(tensors))
        return nest.pack_sequence_as(self.structure if structure is None else structure, leaves)

    def default_invariants(self):
        """TF's default shape invariants: a tensor keeps its shape; a SparseTensor keeps its
        rank only (entries may come and go), a RaggedTensor its number of rows."""
        out = []
        tensors = iter(self.tensors)
        for kind in self.kinds:
            if kind is None:
                out.append(next(tensors)._shape)
                continue
            parts = [next(tensors) for _ in range(kind[1])]
            if kind[0] == "SparseTensor":
                rank = parts[2]._shape.dims[0].value if parts[2]._shape.ndims == 1 else None
                out += [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
            elif kind[0] == "RaggedTensor":
                values = parts[0]._shape
                out.append(TensorShape([None]).concatenate(values[1:]) if values.ndims
                           else values)
                out.append(parts[1]._shape)
                out += [TensorShape([None])] * (len(parts) - 2)
            else:
                out += [t._shape for t in parts]
        return out

    def invariants(self, leaf_invariants):
        """Per-tensor invariants from one invariant (a TensorShape or TensorSpec) per leaf;
        a composite's invariant is the shape of the dense tensor it stands for."""
        out = []
        tensors = iter(self.tensors)
        for kind, inv in zip(self.kinds, leaf_invariants):
            inv = as_shape(getattr(inv, "shape", inv))
            if kind is None:
                next(tensors)
                out.append(inv)
                continue
            parts = [next(tensors) for _ in range(kind[1])]
            rank = inv.ndims
            if kind[0] == "SparseTensor":
                out += [TensorShape([None, rank]), TensorShape([None]), TensorShape([rank])]
            elif kind[0] == "IndexedSlices":
                rows = inv.dims[0].value if rank else None
                out += [inv, TensorShape([rows])]
                if len(parts) == 3:
                    out.append(TensorShape([rank]))
            else:
                ragged_rank = len(parts) - 1
                rows = inv.dims[0].value if rank else None
                inner = inv[ragged_rank + 1:] if rank else unknown_shape()
                out.append(TensorShape([None]).concatenate(inner) if rank else unknown_shape())
                out.append(TensorShape([None if rows is None else rows + 1]))
                out += [TensorShape([None])] * (ragged_rank - 1)
        return out


def _check_body_result(got, result, wrapped, return_same_structure, counter, counted):
    """The body's result, checked against the loop variables it got as TF's loop checks it
    (``nest.assert_same_structure``: sequence types count below the top level); returns it
    with one result per loop variable."""
    if wrapped:
        # TF 1.x runs a bounded loop as `lambda i, lv: (i + 1, body(*lv))` (`body(lv)` for a
        # lone variable), so the types count from the top: a list of loop variables needs a
        # list back, and a lone variable its value, not a 1-tuple
        lone = len(got) == 1 and not return_same_structure
        nest.assert_same_structure([counter, got[0] if lone else got], [counted, result])
        return [result] if lone else result
    if not nest.is_sequence(result):
        result = [result]
    # (TF compares the two as lists at the top: a tuple back for a list of variables is fine)
    nest.assert_same_structure(list(got), list(result))
    return result


def _check_composite_result(got, result):
    """TF 1.15's check of the body's result with composites expanded (nest's words): a
    composite loop variable the body returns as a tensor, as another kind of composite, or as
    a SparseTensor of other values' dtype."""
    from tideflow.ops.function_ops import SparseTensorSpec

    if not nest.is_sequence(result):
        return
    pairs = list(zip(nest.flatten(list(got)), nest.flatten(list(result))))
    for a, b in pairs:
        ka, kb = cond_lib._composite_kind(a), cond_lib._composite_kind(b)
        if "TensorArray" in (ka and ka[0], kb and kb[0]) or (ka is None and kb is None):
            continue
        cls = ValueError
        if ka is None or kb is None:
            seq, other = (a, b) if ka else (b, a)
            detail = (f'Substructure "{nest._describe(seq)}" is a sequence, while substructure '
                      f'"{nest._describe(other)}" is not')
        elif ka[0] != kb[0]:
            cls = TypeError
            detail = ("The two namedtuples don't have the same sequence type. First structure "
                      f"{nest._describe(a)} has type {ka[0]}, while second structure "
                      f"{nest._describe(b)} has type {kb[0]}")
        elif ka[0] == "SparseTensor" and a.dtype.base_dtype != b.dtype.base_dtype:
            specs = [SparseTensorSpec.from_value(a), SparseTensorSpec.from_value(b)]
            detail = ("Incompatible CompositeTensor TypeSpecs: "
                      f"{nest._describe(specs[0])} vs. {nest._describe(specs[1])}")
        else:
            continue
        first, second = list(got), list(result)
        raise cls(
            "The two structures don't have the same nested structure.\n\n"
            f"First structure: {nest._describe(first)}\n\nSecond structure: "
            f"{nest._describe(second)}\n\nMore specifically: {detail}\n"
            f"Entire first structure:\n{nest.map_structure(lambda _: nest._DOT, first)}\n"
            f"Entire second structure:\n{nest.map_structure(lambda _: nest._DOT, second)}")


def _flatten_result(flat, result, name):
    from tideflow.ops import tensor_array

    try:
        nest.assert_same_structure(flat.structure, result, check_types=False)
    except (ValueError, TypeError) as e:
        detail = str(e)
        if "don't have the same nested structure" not in detail:
            detail = f"The two structures don't have the same nested structure. {detail}"
        # TF 1.x's text is nest's (the body's result against the loop variables)
        raise ValueError(f"{detail}\n(the body of {name} must return the structure of its "
                         f"loop variables)") from None
    out = []
    for leaf, kind, x in zip(flat.leaves, flat.kinds, nest.flatten(result)):
        if isinstance(x, tensor_array.TensorArray):
            out.append(x._list)
        elif isinstance(leaf, tensor_array.TensorArray):
            raise TypeError(f"The body of {name} must return a TensorArray where the loop "
                            f"variable is one, got {x!r}")
        elif kind is not None:
            got = cond_lib._composite_kind(x)
            if got != kind:
                raise TypeError(f"The body of {name} must return a {kind[0]} where the loop "
                                f"variable is one, got {x!r}")
            out.extend(cond_lib.composite_components(x))
        else:
            out.append(ops.convert_to_tensor(x))
    return out


def _defer_type_error(graph, scope, k, want, got):
    """TF 1.15 builds a loop whose body changes a variable's type (its Merge's second input is
    only wired afterwards): the graph fails as a whole at the session's next run, whatever it
    fetches (Session.run raises the first such error the graph records)."""
    if getattr(graph, "_deferred_run_error", None) is None:
        sfx = f"_{k}" if k else ""
        graph._deferred_run_error = errors.InvalidArgumentError(
            None, None,
            f"Input 1 of node {scope}Merge{sfx} was passed {dtypes.type_string(got.base_dtype)} "
            f"from {scope}NextIteration{sfx}:0 incompatible with expected "
            f"{dtypes.type_string(want.base_dtype)}.")


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False, *, _v2=False):
    """Repeats ``body`` while ``cond`` is true; returns the final loop variables.

    ``loop_vars`` is a Tensor or a nested structure (tuples, lists, dicts, namedtuples,
    TensorArrays); ``cond(*loop_vars)`` and ``body(*loop_vars)`` take it unpacked. A loop
    variable's shape must stay the same across iterations unless ``shape_invariants`` allows
    it to change. With ``maximum_iterations`` the loop stops after that many iterations.
    ``_v2``: check the body's result as TF's while_v2 does (no ``maximum_iterations`` wrapper).
    """
    del swap_memory
    if not callable(cond):
        raise TypeError("cond must be callable.")
    if not callable(body):
        raise TypeError("body must be callable.")
    if parallel_iterations < 1:
        raise TypeError("parallel_iterations must be a positive integer.")
    if isinstance(loop_vars, ops.Tensor):
        bool(loop_vars)  # TF 1.x tests "not loop_vars": a Tensor's truth value raises
    packed = not isinstance(loop_vars, (list, tuple))
    structure = (loop_vars,) if packed else loop_vars
    with ops.name_scope(name, "while", [t for t in nest.flatten(loop_vars)
                                        if isinstance(t, ops.Tensor)]) as scope:
        # (TF 1.15 checks inside the scope: "while" is taken)
        if loop_vars is None or (isinstance(loop_vars, (list, tuple, dict)) and not loop_vars):
            raise ValueError("No loop variables provided")
        flat = _Flat(structure)
        tensors = flat.tensors
        max_iter = counter = None
        if maximum_iterations is not None:  # (TF 1.15 makes the counter first)
            max_iter = ops.convert_to_tensor(maximum_iterations, name="maximum_iterations")
            if max_iter.get_shape().ndims not in (None, 0):
                raise ValueError("maximum_iterations must be a scalar, saw shape: "
                                 f"{max_iter.get_shape()}")
            from tideflow.ops import constant_op

            counter = constant_op.constant(0, dtype=max_iter.dtype.base_dtype,
                                           name="iteration_counter")
            if packed and isinstance(loop_vars, dict) and len(loop_vars) == 1:
                loop_vars[0]  # TF packs loop_vars[0] with the counter: a KeyError for a dict
        if shape_invariants is not None:
            inv_struct = (shape_invariants,) if packed else shape_invariants
            # TF 1.15's nest check, sequence types included: a tuple of loop variables with a
            # list of invariants is a TypeError, an invariant given as a list of dims (a
            # sequence where the loop variable is a leaf) a ValueError
            if counter is None:
                nest.assert_same_structure(structure, inv_struct)
            else:  # against (counter, the lone loop variable or all of them), as TF's
                lone = not packed and len(structure) == 1 and not return_same_structure
                nest.assert_same_structure(
                    (counter, structure[0] if lone else structure),
                    (TensorShape([]), shape_invariants))
                if lone:
                    inv_struct = [shape_invariants]
            invariants = flat.invariants(nest.flatten(inv_struct))
        else:
            invariants = flat.default_invariants()
        for t, inv in zip(tensors, invariants):
            if not shape_less_equal(t._shape, inv):
                # (a new TensorArray's flow is its TF op's second output: 'TensorArray:1')
                shown = (f"{t.op.name}:1" if t.op.type == "TensorListReserve"
                         and "_tensor_array" in t.op._attrs else t.name)
                raise ValueError(
                    f"The shape invariant specified for {shown} is not compatible with the "
                    f"initial shape of the loop variable. It enters the loop with shape "
                    f"{_shape_str(t._shape)}, but the specified shape invariant is "
                    f"{_shape_str(inv)}."
                )
        n_user = len(tensors)
        if counter is not None:
            tensors = [counter, *tensors]
            invariants = [counter._shape, *invariants]
        specs = [(t._dtype.base_dtype, inv) for t, inv in zip(tensors, invariants)]
        # the loop variables as TF 1.x's cond sees them (its Merge ops: 'while/Merge_1:0')
        # and as its body does (the Identity after each Switch: 'while/Identity_1:0')
        n_all = n_user + (max_iter is not None)
        graph = ops.get_default_graph()
        base = (scope.rstrip("/") or "while").replace("/", "_")
        start = 1 if max_iter is not None else 0
        # TF 1.x builds a loop in the graph itself: an Enter and a Merge per loop variable,
        # the cond's ops, LoopCond, a Switch and an Identity per variable, the body's ops,
        # a NextIteration and an Exit per variable (an Enter per outside tensor they use).
        # The ids those ops would take are skipped where TF makes them, so the ops traced in
        # the bodies and every op made after the loop get TF's op count (the op seed of a
        # random op without one, tf.set_random_seed's rule); see _ids_after_loop.
        n_vars = len(tensors)
        from tideflow.ops import tensor_array

        # (op ids TensorArray ops owe are paid from the frame's)
        first = graph._next_id - tensor_array.pay_owed_ids(graph, 2 * n_vars)
        ids = {}
        frame = (id(graph), scope)  # cond and body are one frame in TF (one Enter per tensor)

        def cond_fn(*args):
            ops.get_default_graph()._tf_frame = frame
            ops.get_default_graph().capture_name = "Enter"
            graph._skip_op_ids(to=first + 2 * n_vars)  # past TF's Enter and Merge ops
            below = None
            if max_iter is not None:  # TF's lambda tests the counter first
                from tideflow.ops import math_ops

                below = math_ops.less(args[0], max_iter)
            c = cond(*flat.pack(args[start:]))
            c = ops.convert_to_tensor(c)
            # TF 1.x's LoopCond op checks the condition
            if c.dtype.base_dtype != dtypes.bool:
                raise TypeError(f"Input 'input' of 'LoopCond' Op has type "
                                f"{c.dtype.base_dtype.name} that does not match expected type "
                                f"of bool.")
            if c.get_shape().ndims not in (None, 0):
                dims = ",".join("?" if d is None else str(d) for d in c.get_shape().as_list())
                raise ValueError(f"Shape must be rank 0 but is rank {c.get_shape().ndims} for "
                                 f"'{scope}LoopCond' (op: 'LoopCond') with input shapes: "
                                 f"[{dims}].")
            if max_iter is not None:
                from tideflow.ops import math_ops

                c = math_ops.logical_and(below, c)
            ids["cond_end"] = graph._next_id
            return c

        def body_fn(*args):
            # past TF's LoopCond, Switch and Identity ops
            graph._skip_op_ids(to=ids.get("cond_end", graph._next_id) + 1 + 2 * n_vars)
            ops.get_default_graph()._tf_frame = frame
            ops.get_default_graph().capture_name = "Enter"
            ops.get_default_graph().while_loop_body = True  # (for the loops nested in it)
            counted = args[0] + 1 if max_iter is not None else None  # TF's lambda: first
            got = flat.pack(args[start:])
            # (what tf.gradients in the body checks: gradients/_check_no_loop_var_path)
            ops.get_default_graph()._tf_loop_inits = list(zip(args, tensors))
            result = body(*got)
            if not packed:
                result = _check_body_result(got, result, max_iter is not None and not _v2,
                                            return_same_structure, args[0], counted)
            if packed or (len(structure) == 1 and not isinstance(result, (list, tuple))):
                result = [result]  # as TF: a lone body result is taken as a list
            _check_composite_result(got, result)
            outs = _flatten_result(flat, result, "while_loop")
            body_fn.structure = result
            if max_iter is not None:
                outs = [counted, *outs]
            return outs

        cond_fg = func_graph.trace(cond_fn, specs, func_graph.unique_function_name(
            graph, base + "_cond"), arg_names=["Merge"] * n_all, control_flow=True)
        body_fg = func_graph.trace(body_fn, specs, func_graph.unique_function_name(
            graph, base + "_body"), arg_names=["Identity"] * n_all, control_flow=True)
        cond_fg.while_loop_body = body_fg.while_loop_body = True
        # as TF, the shapes are checked first (a body changing both is the shape's ValueError)
        for t, inv, out in zip(tensors, invariants, body_fg.outputs):
            if not shape_less_equal(out._shape, inv):
                raise ValueError(
                    # (TF names the shape of the tensor entering, whatever the invariant)
                    f"Input tensor '{t.name}' enters the loop with shape {_shape_str(t._shape)}, "
                    f"but has shape {_shape_str(out._shape)} after one iteration. To allow the "
                    "shape to vary across iterations, use the `shape_invariants` argument of "
                    "tf.while_loop to specify a less-specific shape."
                )
        for k, (t, out) in enumerate(zip(tensors, body_fg.outputs)):
            if out._dtype.base_dtype != t._dtype.base_dtype:
                if _v2:
                    raise TypeError(
                        f"Loop variable {t.name} enters the loop with type "
                        f"{t._dtype.base_dtype.name}, but has type {out._dtype.base_dtype.name} "
                        "after one iteration."
                    )
                _defer_type_error(graph, scope, k, t._dtype, out._dtype)
        op = build_while(tensors, invariants, cond_fg, body_fg, parallel_iterations, scope,
                         ids_at_op=_ids_after_loop(graph, cond_fg, body_fg, n_vars))
        from tideflow.ops.cond import _named_outputs

        if back_prop:
            outs = _named_outputs(op._outputs[:start + n_user], "Exit")[start:]
        else:  # the Exit ops stop gradients themselves (TF's count: no op more)
            from tideflow.ops import array_ops

            outs = [array_ops.stop_gradient(t, name=f"Exit_{i}" if i else "Exit")
                    for i, t in enumerate(op._outputs[:start + n_user])][start:]
        result = flat.pack(outs, _result_structure(structure, body_fn.structure))
        if packed or (len(outs) == 1 and not return_same_structure):
            return result[0]
        if max_iter is not None and len(structure) == 1 and not return_same_structure and \
                not _v2:
            return result[0]  # TF returns the lone loop variable it packed with the counter
        return result


def _result_structure(structure, body_result):
    # As TF's BuildLoop: the outputs take the structure the body returned (a tuple where the
    # loop variables were a list, and the TensorArrays with the element shapes it wrote).
    try:
        nest.assert_same_structure(structure, body_result, check_types=False)
        return body_result
    except (ValueError, TypeError):
        return structure


def _ids_after_loop(graph, cond_fg, body_fg, n_vars):
    """The id the While op should take so that, with its ``n_vars`` Exit identities, the ops
    made after the loop number as after TF 1.x's loop: its body's end (an outside tensor both
    bodies use has one Enter in TF, one capture in each body here), then a NextIteration and
    an Exit per variable."""
    shared = len([t for t, _ in body_fg.captures if t in cond_fg._capture_map])
    return graph._next_id - shared + 2 * n_vars - (n_vars + 1)


def build_while(tensors, invariants, cond_fg, body_fg, parallel_iterations, name,
                ids_at_op=None):
    """Creates the While op for traced ``cond_fg``/``body_fg``; returns it.

    Captured tensors join the loop variables (carried through unchanged by the body).
    ``ids_at_op``: the op id it takes (TF 1.x's op count, see while_loop) where that keeps
    every id unique in each graph.
    """
    graph = ops.get_default_graph()
    with graph.aside_ids():  # (TF makes no op for them: see Graph.aside_ids)
        captured = cond_lib.unify_captures([cond_fg, body_fg])
    body_fg.outputs = body_fg.outputs + [ph for _, ph in body_fg.captures]
    func_graph.add_function(graph, cond_fg)
    func_graph.add_function(graph, body_fg)
    inputs = list(tensors) + captured
    shapes = list(invariants) + [t._shape for t in captured]
    if ids_at_op is not None:
        # the captures just unified took ids TF's loop does not have; the While op may take
        # an id below the counter's when the op and its Exit identities then take the counter
        # past every id the bodies hold (no later op of a body can meet one of them again)
        last = next((op._id for op in reversed(graph._ops) if op._id < graph.ASIDE_IDS), 0)
        if ids_at_op > last and graph._next_id <= ids_at_op + len(tensors) + 1:
            graph._next_id = ids_at_op
    op = ops.apply_op(
        "While", [inputs],
        {"T": [t._dtype.base_dtype for t in inputs], "cond": cond_fg.name,
         "body": body_fg.name, "output_shapes": shapes,
         "parallel_iterations": parallel_iterations},
        name=name,
    )
    cond_lib.add_control_captures(op, [cond_fg, body_fg])
    return op

