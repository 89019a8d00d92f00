"""Op-table rows for tf.contrib.reduce_slice_ops (ReduceSliceSum/Prod/Max/Min): the
reductions of the slices [start, end) of ``data`` along an axis, one per row of ``indices``,
an empty slice giving the reduction's identity. TF 1.15 declares no gradient for them."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import reduce_slice_ops as rs

_DATA = np.arange(1, 19, dtype=np.float64).reshape(6, 3) / 4 - 1
_BOUNDS = np.array([[0, 2], [1, 4], [3, 3], [2, 6]], np.int32)


def _ref(kind):
    reduce = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}[kind]

    def ref(data, bounds):
        rows = []
        for start, end in bounds:
            part = data[start:end]
            if len(part):
                rows.append(reduce(part, axis=0))
            elif kind in ("sum", "prod"):
                rows.append(np.full(data.shape[1], 0 if kind == "sum" else 1, data.dtype))
            elif data.dtype.kind == "f":  # (TF 1.15: -inf and inf for floats)
                rows.append(np.full(data.shape[1], -np.inf if kind == "max" else np.inf))
            else:  # (the integer type's lowest and highest)
                lim = np.iinfo(data.dtype)
                rows.append(np.full(data.shape[1], lim.min if kind == "max" else lim.max))
        return np.stack(rows).astype(data.dtype)

    return ref


CASES = [
    Case(f"ReduceSlice{kind.capitalize()}",
         fn=lambda d, b, kind=kind: getattr(rs, f"reduce_slice_{kind}")(d, b, 0),
         inputs=[_DATA, _BOUNDS], ref=_ref(kind), dtypes=(tf.float32, tf.float64, tf.int32),
         fixed=(1,), grad=False)
    for kind in ("sum", "prod", "max", "min")
]
