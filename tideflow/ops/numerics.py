"""Numerics checks: ``CheckNumerics`` fails a step on NaN or Inf; ``add_check_numerics_ops``."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.dispatch import add_dispatch_support


def _check_numerics_kernel(tensor, *, message):
    x = np.asarray(tensor)
    if x.dtype.kind != "f" or x.dtype.itemsize < 4:
        x = x.astype(np.float32)  # half and bfloat16
    if not np.isfinite(x).all():
        has_nan = bool(np.isnan(x).any())
        has_inf = bool(np.isinf(x).any())
        what = "Inf and NaN" if has_nan and has_inf else ("Inf" if has_inf else "NaN")
        raise errors.InvalidArgumentError(None, None, f"{message} : Tensor had {what} values")
    return tensor


def _check_numerics_grad(op, grad):
    # TF checks the gradient too, on its way back
    from tideflow.ops.gradients import dense

    return check_numerics(dense(grad), "Not a number (NaN) or infinity (Inf) values detected "
                          f"in gradient. {op._attrs['message']}")


op_registry.declare(
    "CheckNumerics",
    inputs=["tensor: T"],
    outputs=["output: T"],
    attrs=["T: {bfloat16, half, float, double}", "message: string"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel=_check_numerics_kernel,
    grad=_check_numerics_grad,
)


@add_dispatch_support(elementwise=1)
def check_numerics(tensor, message, name=None):
    """``tensor`` unchanged; running it fails with InvalidArgumentError if it has NaN or Inf."""
    return ops.apply_op("CheckNumerics", [tensor], {"message": message}, name=name)._outputs[0]


def verify_tensor_all_finite(t=None, msg=None, name=None, x=None, message=None):
    """``t``, gated on a check that it has no NaN or Inf (``msg`` prefixes the error);
    ``x`` and ``message`` are the newer names of ``t`` and ``msg``."""
    from tideflow.ops import control_flow_ops

    for new_name, new, old_name, old in (("x", x, "t", t), ("message", message, "msg", msg)):
        if old is not None and new is not None:  # TF 1.15's words
            raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'")
    t = t if t is not None else x
    msg = msg if msg is not None else message

    with ops.name_scope(name, "VerifyFinite", [t]):
        t = ops.convert_to_tensor(t, name="t")
        with ops.colocate_with(t):
            verify_input = check_numerics(t, message=msg)
            return control_flow_ops.with_dependencies([verify_input], t)


_CONTROL_FLOW_OPS = frozenset({"If", "StatelessIf", "While", "StatelessWhile", "Case"})


def add_check_numerics_ops():
    """One op checking every half/float/double tensor of the default graph for NaN and Inf.

    The checks are chained by control edges, so they run one at a time in graph order.
    """
    from tideflow.ops import control_flow_ops

    floats = (dtypes.float16, dtypes.float32, dtypes.float64)  # not refs
    check_op = []
    for op in ops.get_default_graph().get_operations():
        # TF 1.15 guards an Assert with data other than int32 and strings in a cond; the
        # Switch it makes there for a float tensor of the data is a float in a cond context
        guarded_float_assert = (op._type == "Assert" and op.name.endswith("AssertGuard/Assert")
                                and any(t.dtype in floats for t in op._inputs[1:]))
        for output in op.outputs + ([None] if guarded_float_assert else []):
            if output is None or output.dtype in floats:
                # tideflow's cond/while_loop are functional ops (If, While) whose bodies TF 1.x
                # would have put in the graph under a control-flow context
                if output is None or op._frame is not None or op._type in _CONTROL_FLOW_OPS:
                    raise ValueError(
                        "`tf.add_check_numerics_ops() is not compatible with TensorFlow control "
                        "flow operations such as `tf.cond()` or `tf.while_loop()`."
                    )
                message = f"{op.name}:{output.value_index}"
                with ops.control_dependencies(check_op):
                    check_op = [check_numerics(output, message=message)]
    return control_flow_ops.group(*check_op)
