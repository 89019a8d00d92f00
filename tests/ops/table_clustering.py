"""Op-table rows for contrib.factorization's clustering kernels: NearestNeighbors against
brute-force NumPy; the two seeded samplers (KmeansPlusPlusInitialization,
KMC2ChainInitialization) through checks of what they must return."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import clustering_ops as co

_RNG = np.random.RandomState(3)
_PTS = _RNG.randn(7, 3).astype(np.float32)
_CEN = _RNG.randn(4, 3).astype(np.float32)


def _nn_ref(points, centers, k):
    d = ((points[:, None, :].astype(np.float64) - centers[None, :, :]) ** 2).sum(-1)
    kk = min(int(k), centers.shape[0])
    idx = np.argsort(d, axis=1, kind="stable")[:, :kk]
    return [idx.astype(np.int64), np.take_along_axis(d, idx, 1).astype(np.float32)]


def _run(fn, *args):
    with tf.Graph().as_default(), tf.Session() as sess:
        return sess.run(fn(*args))


def _check_kmeans_pp():
    pts = _RNG.randn(20, 2).astype(np.float32)
    got = _run(co.kmeans_plus_plus_initialization, pts, 5, 7, 2)
    assert got.shape == (5, 2) and got.dtype == np.float32
    rows = {tuple(r) for r in pts.tolist()}
    assert all(tuple(r) in rows for r in got.tolist()), "samples must be rows of points"
    assert len({tuple(r) for r in got.tolist()}) == 5, "k-means++ never repeats a point"
    # deterministic for a seed; every point when num_to_sample == N
    np.testing.assert_array_equal(got, _run(co.kmeans_plus_plus_initialization, pts, 5, 7, 2))
    everything = _run(co.kmeans_plus_plus_initialization, pts, 20, 1, -1)
    assert sorted(map(tuple, everything.tolist())) == sorted(map(tuple, pts.tolist()))
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_to_sample"):
        _run(co.kmeans_plus_plus_initialization, pts, 21, 0, 0)


def _check_kmc2():
    # a zero distance is left for the first positive one, which no zero can displace
    assert _run(co.kmc2_chain_initialization, np.float32([0, 0, 5, 0, 0]), 1) == 2
    # from distance 3 the chain moves to distance 1 with probability 1/3 (and from 1 to 3
    # always)
    picks = [int(_run(co.kmc2_chain_initialization, np.float32([3, 1]), s)) for s in range(150)]
    assert 0.2 < np.mean(picks) < 0.47
    assert all(_run(co.kmc2_chain_initialization, np.float32([1, 3]), s) == 1
               for s in range(5))
    # TF 1.15 checks only that the distances are a non-empty vector
    with pytest.raises(tf.errors.InvalidArgumentError, match="size\\(\\) > 0"):
        _run(co.kmc2_chain_initialization, np.float32([]), 0)


CASES = [
    Case("NearestNeighbors", lambda p, c, k: list(co.nearest_neighbors(p, c, k)),
         [_PTS, _CEN, np.int64(2)], _nn_ref, dtypes=(tf.float32,), fixed=(2,), grad=False,
         rtol=1e-4, atol=1e-4),
    Case("NearestNeighbors", lambda p, c, k: list(co.nearest_neighbors(p, c, k)),
         [_PTS, _CEN, np.int64(9)], _nn_ref, dtypes=(tf.float32,), fixed=(2,), grad=False,
         rtol=1e-4, atol=1e-4, name="NearestNeighbors_k_above_centers"),
    Case("KmeansPlusPlusInitialization", check=_check_kmeans_pp),
    Case("KMC2ChainInitialization", check=_check_kmc2),
]
