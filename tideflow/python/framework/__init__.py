"""``tensorflow.python.framework``: the framework modules TF 1.x programs import directly
(``from tensorflow.python.framework import ops, tensor_shape, tensor_util, dtypes``; the
Inception retrain/label_image programs import ``graph_util``, ``graph_io`` and ``importer``;
cifar10_estimator's device setter imports ``device as pydev`` for ``DeviceSpec``)."""

import sys

from tideflow import graph_util
from tideflow.framework import (
    device,
    dtypes,
    errors,
    graph_io,
    importer,
    ops,
    random_seed,
    sparse_tensor,
    tensor_shape,
)
from tideflow.python.framework import tensor_util

for _name, _mod in (("device", device), ("dtypes", dtypes), ("errors", errors),
                    ("graph_io", graph_io), ("graph_util", graph_util), ("importer", importer), ("ops", ops),
                    ("random_seed", random_seed), ("sparse_tensor", sparse_tensor),
                    ("tensor_shape", tensor_shape)):
    sys.modules[__name__ + "." + _name] = _mod

__all__ = ["device", "dtypes", "errors", "graph_io", "graph_util", "importer", "ops",
           "random_seed", "sparse_tensor", "tensor_shape", "tensor_util"]
