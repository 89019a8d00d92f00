"""TF 1.15 parity found by the lead in the fifteenth session; expected names and values are what
real TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf
from tests.opseq_util import op_names


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_random_gamma_poisson_and_stateless_ops_build_tf_1_15s_ops():
    """random_gamma always broadcasts and divides by beta (1 by default), so it makes 9 ops and
    the random ops after it get TF's seeds; random_poisson converts the shape before the rate,
    which its op converts itself (float64); the stateless ops convert their seed last."""
    tf.set_random_seed(7)
    g = tf.random_gamma([2], [0.5, 1.5])
    g2 = tf.random_gamma([2], 2.0, beta=[1., 3.])
    p = tf.random_poisson([1.0, 10.0], [3])
    n = tf.random_normal([3])
    s1 = tf.random.stateless_normal([3], seed=[1, 2])
    s2 = tf.random.stateless_uniform([3], seed=[3, 4], minval=0, maxval=7, dtype=tf.int32)
    s3 = tf.random.stateless_multinomial(tf.log([[0.5, 0.5]]), 5, seed=[1, 1])
    gamma = ["shape", "alpha", "beta", "zeros_like", "add", "RandomGamma", "truediv",
             "Maximum/x", "Maximum"]
    assert op_names() == (
        ["random_gamma/" + x for x in gamma] + ["random_gamma_1/" + x for x in gamma]
        + ["random_poisson/shape", "random_poisson/RandomPoissonV2/rate",
           "random_poisson/RandomPoissonV2"]
        + ["random_normal/shape", "random_normal/mean", "random_normal/stddev",
           "random_normal/RandomStandardNormal", "random_normal/mul", "random_normal"]
        + ["stateless_random_normal/" + x for x in
           ["shape", "mean", "stddev", "StatelessRandomNormal/seed", "StatelessRandomNormal",
            "mul"]] + ["stateless_random_normal"]
        + ["stateless_random_uniform/" + x for x in ["shape", "min", "max", "seed"]]
        + ["stateless_random_uniform", "Log/x", "Log"]
        + ["stateless_multinomial/StatelessMultinomial/" + x for x in ["num_samples", "seed"]]
        + ["stateless_multinomial/StatelessMultinomial"])
    assert p.op.inputs[1].dtype == tf.float64
    with tf.Session() as s:
        got = s.run([g, g2, p, n, s1, s2, s3])
    np.testing.assert_allclose(got[0], [[0.2787539, 1.6510435], [0.2994215, 0.2785569]],
                               rtol=1e-5)
    np.testing.assert_allclose(got[1], [[0.6805595, 0.2856559], [1.2288376, 0.2461956]],
                               rtol=1e-5)
    np.testing.assert_array_equal(got[2], [[3., 9.], [1., 10.], [0., 10.]])
    np.testing.assert_allclose(got[3], [-0.4120128, -0.9573587, 0.0847685], rtol=1e-5)
    np.testing.assert_allclose(got[4], [0.5441101, 0.2073803, 0.0735643], rtol=1e-5)
    np.testing.assert_array_equal(got[5], [5, 2, 5])
    np.testing.assert_array_equal(got[6], [[1, 1, 1, 1, 0]])
