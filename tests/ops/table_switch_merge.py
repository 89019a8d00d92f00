"""Op table rows for TF 1.x's Switch and Merge (``control_flow_ops.switch``/``merge``): the
value routed through the taken branch, its gradient through both ops."""

import numpy as np

from tests.ops.optable import Case
from tideflow.ops.switch_merge_ops import merge, switch


def _routed(x, p):
    false, true = switch(x, p)
    return merge([false * 2.0, true * 3.0])[0]


_X = np.array([[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]])

CASES = [
    Case(("Switch", "Merge"), _routed, [_X, np.array(flag)],
         lambda x, p: x * (3.0 if p else 2.0), fixed=(1,), grad_inputs=[0],
         name=f"Switch+Merge/{flag}")
    for flag in (True, False)
]
