"""The data-format index maps TF's layout optimizer writes into graphs: ``DataFormatDimMap``
(a dimension index of one format in another) and ``DataFormatVecPermute`` (a per-dimension
vector reordered), with ``nn_ops.data_format_dim_map`` and ``data_format_vec_permute``."""

import numpy as np

from tideflow.framework import errors, op_registry, ops


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _unchanged(op):
    return [op._inputs[0]._shape]


def _check_formats(src, dst):
    src, dst = (f.decode() if isinstance(f, bytes) else f for f in (src, dst))
    if len(src) not in (4, 5):
        raise errors.InvalidArgumentError(
            None, None, f"Source format must be of length 4 or 5, received src_format = {src}")
    if len(dst) not in (4, 5):
        raise errors.InvalidArgumentError(
            None, None, f"Destination format must be of length 4 or 5, received dst_format = "
            f"{dst}")
    if sorted(src) != sorted(dst) or len(set(src)) != len(src):
        raise errors.InvalidArgumentError(
            None, None, f"Destination and source format must determine a permutation, got "
            f"{src} and {dst}")
    return src, dst


def _data_format_dim_map(x, *, src_format, dst_format):
    src, dst = _check_formats(src_format, dst_format)
    n = len(src)
    table = np.array([dst.index(c) for c in src], dtype=x.dtype)
    return table[np.mod(x, n)]  # a negative dimension counts from the end, as in TF


def _data_format_vec_permute(x, *, src_format, dst_format):
    src, dst = _check_formats(src_format, dst_format)
    n = len(src)
    if x.ndim not in (1, 2) or (x.ndim == 2 and x.shape[1] != 2):
        raise errors.InvalidArgumentError(
            None, None, f"input must be a vector or 2D tensor, but got shape {_dims(x.shape)}")
    if x.shape[0] == n:
        order = [src.index(c) for c in dst]
    elif x.shape[0] == n - 2:  # the spatial dimensions only
        src_sp = [c for c in src if c not in "NC"]
        order = [src_sp.index(c) for c in dst if c not in "NC"]
    else:
        raise errors.InvalidArgumentError(
            None, None, f"First dimension of input must be of size {n} or {n - 2}, but got "
            f"shape {_dims(x.shape)}")
    return x[order]


_FORMAT_ATTRS = ["T: {int32, int64} = DT_INT32", "src_format: string = 'NHWC'",
                 "dst_format: string = 'NCHW'"]
op_registry.declare("DataFormatDimMap", inputs=["x: T"], outputs=["y: T"], attrs=_FORMAT_ATTRS,
                    shape=_unchanged, kernel=_data_format_dim_map, differentiable=False)
op_registry.declare("DataFormatVecPermute", inputs=["x: T"], outputs=["y: T"],
                    attrs=_FORMAT_ATTRS, shape=_unchanged, kernel=_data_format_vec_permute,
                    differentiable=False)


def data_format_dim_map(x, src_format="NHWC", dst_format="NCHW", name=None):
    """The index in ``dst_format`` of each dimension index ``x`` of ``src_format``."""
    return ops.apply_op("DataFormatDimMap", [x], {"src_format": src_format,
                                                  "dst_format": dst_format}, name=name)._outputs[0]


def data_format_vec_permute(x, src_format="NHWC", dst_format="NCHW", name=None):
    """``x`` (one entry, or one [2] row, per dimension of ``src_format``; or per spatial
    dimension only) reordered as ``dst_format``."""
    return ops.apply_op("DataFormatVecPermute", [x], {"src_format": src_format,
                                                      "dst_format": dst_format},
                        name=name)._outputs[0]
