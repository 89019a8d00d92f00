"""``tensorflow.python.ops``: the generated-op modules TF 1.x programs import directly."""

import sys as _sys

from tideflow.ops import (
    array_ops,
    control_flow_ops,
    init_ops,
    lookup_ops,
    math_ops,
    nn_ops,
    random_ops,
    variable_scope,
)

for _name, _mod in (("array_ops", array_ops), ("control_flow_ops", control_flow_ops),
                    ("init_ops", init_ops), ("lookup_ops", lookup_ops),
                    ("math_ops", math_ops), ("nn_ops", nn_ops),
                    ("random_ops", random_ops), ("variable_scope", variable_scope)):
    _sys.modules[__name__ + "." + _name] = _mod
