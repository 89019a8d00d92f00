"""``tensorflow.python.ops.parallel_for``: ``pfor``/``for_loop`` and the Jacobians built on them
(``gradients.jacobian``, ``gradients.batch_jacobian``)."""

from tideflow.python.ops.parallel_for.control_flow_ops import for_loop, pfor  # noqa: F401
from tideflow.python.ops.parallel_for.gradients import batch_jacobian, jacobian  # noqa: F401
