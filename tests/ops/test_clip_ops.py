"""clip_by_norm, clip_by_global_norm, global_norm and clip_by_average_norm against NumPy."""

import numpy as np
import pytest

from tideflow.framework import ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import clip_ops, constant_op
from tideflow.runtime.session import Session


def _run(fetches, feed=None):
    with Session() as s:
        return s.run(fetches, feed)


def test_clip_by_norm():
    x = np.array([[-3.0, 5.0, 0.0], [0.0, 0.0, 0.0]], np.float32)
    with ops.Graph().as_default():
        t = constant_op.constant(x)
        clipped = clip_ops.clip_by_norm(t, 4.0)
        assert clipped.get_shape().as_list() == [2, 3] and clipped.op.name == "clip_by_norm"
        unchanged = clip_ops.clip_by_norm(t, 10.0)
        by_row = clip_ops.clip_by_norm(t, 4.0, axes=[1])
        got = _run([clipped, unchanged, by_row])
    norm = np.sqrt(34.0)
    np.testing.assert_allclose(got[0], x * 4.0 / norm, rtol=1e-6)
    np.testing.assert_allclose(got[1], x, rtol=1e-6)
    # a zero row stays zero (and finite)
    np.testing.assert_allclose(got[2], np.stack([x[0] * 4.0 / norm, x[1]]), rtol=1e-6)


def test_clip_by_norm_indexed_slices():
    with ops.Graph().as_default():
        values = constant_op.constant([[3.0, 4.0]])
        s = IndexedSlices(values, constant_op.constant([1]), constant_op.constant([3, 2]))
        out = clip_ops.clip_by_norm(s, 1.0)
        assert isinstance(out, IndexedSlices) and out.indices is s.indices
        np.testing.assert_allclose(_run(out.values), [[0.6, 0.8]], rtol=1e-6)


def test_global_norm_and_clip_by_global_norm():
    a = np.array([3.0, 4.0], np.float32)
    b = np.array([[12.0]], np.float32)
    with ops.Graph().as_default():
        ta, tb = constant_op.constant(a), constant_op.constant(b)
        sl = IndexedSlices(constant_op.constant([[0.0, 0.0]]), constant_op.constant([0]))
        norm = clip_ops.global_norm([ta, None, tb, sl])
        assert norm.op.name == "global_norm/global_norm"
        clipped, used = clip_ops.clip_by_global_norm([ta, None, tb, sl], 6.5)
        assert clipped[1] is None and isinstance(clipped[3], IndexedSlices)
        assert clipped[3].indices is sl.indices
        loose, _ = clip_ops.clip_by_global_norm([ta, tb], 100.0)
        fixed, fixed_norm = clip_ops.clip_by_global_norm([ta], 1.0, use_norm=constant_op.constant(
            10.0))
        got = _run([norm, clipped[0], clipped[2], clipped[3].values, used, loose, fixed,
                    fixed_norm])
    np.testing.assert_allclose(got[0], 13.0, rtol=1e-6)
    np.testing.assert_allclose(got[1], a * 0.5, rtol=1e-6)
    np.testing.assert_allclose(got[2], b * 0.5, rtol=1e-6)
    np.testing.assert_allclose(got[3], [[0.0, 0.0]])
    np.testing.assert_allclose(got[4], 13.0, rtol=1e-6)
    np.testing.assert_allclose(got[5][0], a, rtol=1e-6)
    np.testing.assert_allclose(got[5][1], b, rtol=1e-6)
    np.testing.assert_allclose(got[6][0], a * 0.1, rtol=1e-6)
    assert got[7] == 10.0
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        clip_ops.global_norm("abc")
    with pytest.raises(TypeError, match="t_list should be a sequence"):
        clip_ops.clip_by_global_norm(5, 1.0)


def test_clip_by_average_norm():
    x = np.array([[3.0, 4.0], [0.0, 0.0]], np.float32)
    with ops.Graph().as_default():
        t = constant_op.constant(x)
        got = _run([clip_ops.clip_by_average_norm(t, 0.5),
                    clip_ops.clip_by_average_norm(t, 5.0)])
    # average norm = 5 / 4 elements
    np.testing.assert_allclose(got[0], x * 0.5 / 1.25, rtol=1e-6)
    np.testing.assert_allclose(got[1], x, rtol=1e-6)


def test_clip_by_value_is_reexported():
    from tideflow.ops import math_ops

    assert clip_ops.clip_by_value is math_ops.clip_by_value
