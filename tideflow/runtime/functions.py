"""Function bodies (``FuncGraph``) compiled into sub-plans, for If/While and dataset kernels.

A body runs every stateful op it holds (as TF's functions do), not only those its outputs
need; random ops run when their values are used.
"""

from tideflow.runtime.executor import Plan, function_targets


def compile_function(fg, ctx, outputs=None):
    """A callable ``f(*values, step=None) -> list of output values`` running ``fg``.

    ``values`` follow ``fg.args``: the inputs, then the captured values, then extra args. The
    plan is built once, on the device and with the session state of the kernel's ``ctx``.
    ``outputs``: the outputs computed (all of ``fg``'s by default).
    """
    session = ctx.session
    optimize = getattr(session, "_optimize", True) if session is not None else True
    outputs = list(fg.outputs) if outputs is None else outputs
    plan = Plan(fg, outputs, fg.args, function_targets(fg), ctx.device,
                ctx.session_state, session, optimize=optimize, raw=True)
    run = plan.run

    def call(*values, step=None):
        return run(values, step)

    call.plan = plan
    return call


def reduced_flow_kernel(op, flow, ctx):
    """The kernel of a While or If run as a sub-plan (not inlined) for the outputs and inputs
    ``flow`` = (outputs, inputs) names (executor.flow_inputs_needed): a loop carrying only
    the loop variables those need, or branches computing only those outputs (None for the
    others, which no op of the step reads)."""
    from tideflow.framework import func_graph
    from tideflow.ops.cond import _truth
    from tideflow.ops.while_loop import step_checker

    outs, keep = flow
    graph = op._graph
    if op._type == "If":
        wanted = sorted(outs)
        n = len(op._outputs)
        fns = [compile_function(fg, ctx, [fg.outputs[j] for j in wanted])
               for fg in (func_graph.lookup_function(graph, op._attrs["then_branch"]),
                          func_graph.lookup_function(graph, op._attrs["else_branch"]))]

        def run_if(cond, inputs, *, step=None):
            got = (fns[0] if _truth(cond) else fns[1])(*inputs, step=step)
            values = [None] * n
            for j, v in zip(wanted, got):
                values[j] = v
            return values

        return run_if
    body = func_graph.lookup_function(graph, op._attrs["body"])
    cond_fn = compile_function(func_graph.lookup_function(graph, op._attrs["cond"]), ctx)
    body_fn = compile_function(body, ctx, [body.outputs[j] for j in keep])

    def run_while(inputs, *, step=None):
        values = list(inputs)
        check = step_checker(op, step)
        while cond_fn(*values, step=step)[0]:
            for j, v in zip(keep, body_fn(*values, step=step)):
                values[j] = v
            if check is not None:
                check()
        return values

    return run_while
