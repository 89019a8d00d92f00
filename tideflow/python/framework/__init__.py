"""``tensorflow.python.framework``: the framework modules TF 1.x programs import directly
(``from tensorflow.python.framework import ops, tensor_shape, tensor_util, dtypes``)."""

import sys

from tideflow.framework import dtypes, errors, ops, random_seed, sparse_tensor, tensor_shape
from tideflow.python.framework import tensor_util

for _name, _mod in (("dtypes", dtypes), ("errors", errors), ("ops", ops),
                    ("random_seed", random_seed), ("sparse_tensor", sparse_tensor),
                    ("tensor_shape", tensor_shape)):
    sys.modules[__name__ + "." + _name] = _mod

__all__ = ["dtypes", "errors", "ops", "random_seed", "sparse_tensor", "tensor_shape",
           "tensor_util"]
