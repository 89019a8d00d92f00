"""Op-table rows for the nn ops added while auditing against TF 1.15's kernel tests: MaxPool
and its two gradient ops with the window given as int32 inputs (``MaxPoolV2``,
``MaxPoolGradV2``, ``MaxPoolGradGradV2``, as ``gen_nn_ops.max_pool_v2`` builds them),
``PreventGradient`` and the data-format index maps (``DataFormatDimMap``,
``DataFormatVecPermute``)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tests.ops.table_conv import (
    F,
    arr,
    distinct,
    geometry,
    ref_max_pool,
    ref_max_pool_grad,
    ref_max_pool_grad_grad,
)
from tideflow.framework import ops
from tideflow.ops import data_format_ops  # noqa: F401 - declares the DataFormat* ops


def _v2(op_type, data, ksize, strides, padding):
    window = [tf.constant([1, *ksize, 1]), tf.constant([1, *strides, 1])]
    return ops.apply_op(op_type, list(data) + window, {"padding": padding})._outputs[0]


def _rows():
    rows = []
    x = distinct((2, 5, 6, 3))
    for ksize, strides, padding in (((2, 2), (2, 2), "VALID"), ((3, 3), (2, 2), "SAME"),
                                    ((3, 2), (1, 3), "SAME")):
        tag = f"{padding}_k{ksize[0]}{ksize[1]}_s{strides[0]}{strides[1]}"
        outs = [geometry(n, k, s, 1, padding)[0] for n, k, s in zip((5, 6), ksize, strides)]
        kw = {"ksize": ksize, "strides": strides, "padding": padding}
        win = (ksize, strides, padding)

        def pooled(a, win=win):
            return _v2("MaxPoolV2", [a], *win)

        rows += [
            Case("MaxPoolV2", pooled, [x], lambda a, kw=kw: ref_max_pool(a, **kw),
                 dtypes=F + (tf.int32,), name=f"MaxPoolV2_{tag}"),
            Case("MaxPoolGradV2",
                 lambda a, b, win=win, pooled=pooled: _v2("MaxPoolGradV2", [a, pooled(a), b],
                                                          *win),
                 [x, arr((2, *outs, 3))], lambda a, b, kw=kw: ref_max_pool_grad(a, b, **kw),
                 dtypes=F, name=f"MaxPoolGradV2_{tag}"),
            Case("MaxPoolGradGradV2",
                 lambda a, b, win=win, pooled=pooled: _v2("MaxPoolGradGradV2",
                                                          [a, pooled(a), b], *win),
                 [x, arr((2, 5, 6, 3))], lambda a, b, kw=kw: ref_max_pool_grad_grad(a, b, **kw),
                 dtypes=F, name=f"MaxPoolGradGradV2_{tag}"),
        ]
    return rows


CASES = _rows()


def _prevent_gradient_check():
    # forward: the input unchanged; backward: LookupError naming the op's message
    with tf.Graph().as_default():
        from tideflow.ops import array_ops

        x = tf.constant([1.5, -2.0, 3.0])
        y = array_ops.prevent_gradient(x, message="no second derivative here")
        assert y.op.type == "PreventGradient"
        assert y.get_shape().as_list() == [3]
        with tf.Session() as s:
            assert s.run(y).tolist() == [1.5, -2.0, 3.0]
        try:
            tf.gradients(y * 2.0, x)
        except LookupError as e:
            assert "Gradient explicitly disabled. Reason: b'no second derivative here'" in str(e)
        else:
            raise AssertionError("PreventGradient let a gradient through")


CASES.append(Case("PreventGradient", check=_prevent_gradient_check, grad=False))


def _ref_dim_map(x, src="NHWC", dst="NCHW"):
    return np.array([dst.index(src[v % len(src)]) for v in x.ravel()],
                    x.dtype).reshape(x.shape)


def _ref_vec_permute(x, src="NHWC", dst="NCHW"):
    return x[[src.index(c) for c in dst]]


for _dt in (tf.int32, tf.int64):
    CASES.append(Case(
        "DataFormatDimMap",
        lambda x: ops.apply_op("DataFormatDimMap", [x], {"src_format": "NHWC",
                                                         "dst_format": "HWNC"})._outputs[0],
        [np.array([[-4, -3, -2, -1], [0, 1, 2, 3]])],
        lambda x: _ref_dim_map(x, "NHWC", "HWNC"), dtypes=(_dt,), grad=False,
        name=f"DataFormatDimMap_{_dt.name}"))
    CASES.append(Case(
        "DataFormatVecPermute",
        lambda x: ops.apply_op("DataFormatVecPermute", [x], {})._outputs[0],
        [np.array([[7, 4], [9, 3], [4, 5], [5, 1]])], _ref_vec_permute, dtypes=(_dt,),
        grad=False, name=f"DataFormatVecPermute_{_dt.name}"))
