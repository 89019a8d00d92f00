"""Function bodies (``FuncGraph``) compiled into sub-plans, for If/While and dataset kernels.

A body runs every stateful op it holds (as TF's functions do), not only those its outputs
need; random ops run when their values are used.
"""

from tideflow.runtime.executor import Plan, function_targets


def compile_function(fg, ctx):
    """A callable ``f(*values, step=None) -> list of output values`` running ``fg``.

    ``values`` follow ``fg.args``: the inputs, then the captured values, then extra args. The
    plan is built once, on the device and with the session state of the kernel's ``ctx``.
    """
    session = ctx.session
    optimize = getattr(session, "_optimize", True) if session is not None else True
    plan = Plan(fg, list(fg.outputs), fg.args, function_targets(fg), ctx.device,
                ctx.session_state, session, optimize=optimize, raw=True)
    run = plan.run

    def call(*values, step=None):
        return run(values, step)

    call.plan = plan
    return call
