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


def test_unigram_candidate_samplers_draw_tf_1_15s_candidates():
    """Seeded fixed-unigram draws follow TF's alias-method sampler (a float, then an item index,
    per draw) and learned-unigram draws TF's weighted picker over integer counts, which learn the
    true classes after each run; expected counts come out in float32 as TF's."""
    counts = [50., 3., 17., 1., 8., 120., 4., 9., 2., 30., 6., 11.]
    tc = tf.constant([[5, 0], [9, 2]], tf.int64)
    a = tf.nn.fixed_unigram_candidate_sampler(tc, 2, 6, True, 12, unigrams=counts,
                                              distortion=0.75, seed=11)
    b = tf.nn.learned_unigram_candidate_sampler(tc, 2, 5, True, 12, seed=12)
    c = tf.nn.fixed_unigram_candidate_sampler(tc, 2, 8, False, 13, unigrams=counts,
                                              num_reserved_ids=1, seed=13)
    want = [
        ([0, 9, 11, 5, 10, 3], [[0.99421, 0.90896], [0.79416, 0.63522]],
         [0.90896, 0.79416, 0.51273, 0.99421, 0.3632, 0.10961]),
        ([2, 9, 3, 7, 5], [[0.40671] * 2] * 2, [0.40671] * 5),
        ([1, 6, 6, 12, 6, 6, 5, 11], [[0.24521, 0.0], [0.0613, 0.09195]],
         [1.53257, 3.67816, 3.67816, 0.33716, 3.67816, 3.67816, 0.24521, 0.18391]),
        ([0, 5, 8, 2, 11, 7], [[0.99755, 0.93894], [0.84183, 0.69166]],
         [0.93894, 0.99755, 0.20431, 0.69166, 0.56776, 0.51252]),
        ([7, 0, 10, 3, 11], [[0.625] * 2] * 2, [0.3125, 0.625, 0.3125, 0.3125, 0.3125]),
        ([1, 1, 6, 8, 6, 6, 3, 6], [[0.24521, 0.0], [0.0613, 0.09195]],
         [1.53257, 1.53257, 3.67816, 0.27586, 3.67816, 3.67816, 0.52107, 3.67816]),
    ]
    with tf.Session() as s:
        got = [s.run(t) for _ in range(2) for t in (a, b, c)]
    for (cand, true_ec, sampled_ec), g in zip(want, got):
        assert g[0].tolist() == cand
        np.testing.assert_allclose(g[1], true_ec, atol=1e-5)
        np.testing.assert_allclose(g[2], sampled_ec, atol=1e-5)


def test_keras_backend_dropout_takes_its_seed_from_numpy():
    """As TF 1.15's Keras backend: K.dropout without a seed draws one from NumPy's generator,
    so np.random.seed makes it repeat TF's mask."""
    np.random.seed(0)
    tf.set_random_seed(1)
    d = tf.keras.backend.dropout(tf.ones([6]), 0.5)
    uniform = [op for op in tf.get_default_graph().get_operations() if op.type == "RandomUniform"]
    assert [op.get_attr("seed2") for op in uniform] == [8325804]
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(d), [2., 0., 0., 0., 2., 0.])


def test_sparse_add_takes_threshold_and_builds_tf_1_15s_ops():
    """tf.sparse.add takes ``threshold`` (``thresh`` its deprecated name), builds no name scope
    ("threshold", "SparseAdd", "SparseTensorDenseAdd"), and checks the operands' static shapes
    with TF's message; an unordered SparseToDense and a wrong sparse reshape say what TF says."""
    a = tf.SparseTensor([[0, 1], [1, 0]], [1.0, 2.0], [3, 4])
    b = tf.SparseTensor([[0, 1], [1, 0], [2, 2]], [10.0, -1.9, -1.5], [3, 4])
    c = tf.sparse.add(a, b, threshold=2.0)
    d = tf.sparse.add(a, tf.ones([3, 4]))
    e = tf.sparse_add(a, b, 0.5)
    assert [n for n in op_names() if not n.startswith(("SparseTensor/", "SparseTensor_"))] == [
        "threshold", "SparseAdd", "ones", "SparseTensorDenseAdd", "threshold_1", "SparseAdd_1"]
    with pytest.raises(ValueError, match=r"Shapes \(3, 4\) and \(3, 5\) are incompatible"):
        tf.sparse.add(a, tf.SparseTensor([[0, 1]], [1.0], [3, 5]))
    with pytest.raises(ValueError, match=r"to shape \[5, None\] \(10 elements\)"):
        tf.sparse.reshape(a, [5, -1])
    with tf.Session() as s:
        got_c, got_d, got_e = s.run([c, d, e])
        # a sum below the threshold goes; an entry of one operand alone stays
        for got in (got_c, got_e):
            assert got.indices.tolist() == [[0, 1], [2, 2]]
            np.testing.assert_allclose(got.values, [11.0, -1.5])
        np.testing.assert_array_equal(got_d[:2], [[1, 2, 1, 1], [3, 1, 1, 1]])
        unordered = tf.SparseTensor([[2, 3], [0, 1]], [3.0, 1.0], [3, 4])
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(tf.sparse.to_dense(unordered))
        assert info.value.message.splitlines()[0] == (
            "indices[1] = [0,1] is out of order. Many sparse ops require sorted indices.")


def test_string_split_keeps_no_token_for_an_empty_string():
    """tf.string_split with skip_empty=False keeps empty tokens between delimiters, but an
    empty input string gives no token at all (TF 1.15); tf.strings.split gives it one."""
    s = tf.constant(["", ",", "a,"])
    with tf.Session() as sess:
        v1 = sess.run(tf.string_split(s, ",", skip_empty=False))
        v2 = sess.run(tf.strings.split(s, ","))
    assert v1.indices.tolist() == [[1, 0], [1, 1], [2, 0], [2, 1]]
    assert v1.values.tolist() == [b"", b"", b"a", b""]
    assert v1.dense_shape.tolist() == [3, 2]
    assert v2.indices.tolist() == [[0, 0], [1, 0], [1, 1], [2, 0], [2, 1]]
