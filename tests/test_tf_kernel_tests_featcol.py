"""TF 1.x behaviour of ``tf.feature_column`` (v1 columns, ``input_layer``, ``linear_model``)
that TF 1.15's own feature_column tests exposed as differences: each test pins the TF behaviour
with values worked out by hand."""

import numpy as np
import pytest
from tideflow.python.feature_column import feature_column as fc_path

import tideflow as tf
from tideflow.feature_column import feature_column as fcm

fc = tf.feature_column


def _run(fetch, feed=None):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
        return sess.run(fetch, feed_dict=feed)


def _sp(values, indices, shape):
    return tf.SparseTensor(indices=indices, values=values, dense_shape=shape)


# -- the module path TF's tests import -----------------------------------------------------------

def test_private_v1_constructor_names_and_transform_features():
    # TF 1.15 keeps the v1 constructors as feature_column._numeric_column and so on
    assert fc_path._numeric_column is fc.numeric_column
    assert fc_path._crossed_column is fc.crossed_column
    assert fc_path._shared_embedding_columns is fc.shared_embedding_columns
    with tf.Graph().as_default():
        col = fc.numeric_column("x", shape=[3], normalizer_fn=lambda t: t * 10.0)
        out = fcm._transform_features({"x": [[0.5, 1.0, 2.0]]}, [col])
        assert list(out) == [col]
        np.testing.assert_allclose(_run(out[col]), [[5.0, 10.0, 20.0]])


# -- column constructors -------------------------------------------------------------------------

def test_numeric_default_value_must_fit_the_dtype():
    fc.numeric_column("n", shape=[3], default_value=[4, 5, 6], dtype=tf.int64)
    fc.numeric_column("n", shape=[2], default_value=[4, 5.5])
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("n", shape=[2], default_value=[4, 5.5], dtype=tf.int64)
    with pytest.raises(TypeError, match="default_value must be compatible with dtype"):
        fc.numeric_column("n", default_value="seven")


def test_crossed_column_name_flattens_nested_crosses_before_sorting():
    inner = fc.crossed_column(["zeta", "alpha"], 7)
    outer = fc.crossed_column([inner, "mid"], 7)
    assert inner.name == "alpha_X_zeta"
    assert outer.name == "alpha_X_mid_X_zeta"


def test_hash_bucket_refuses_float_input_by_its_dtype():
    col = fc.categorical_column_with_hash_bucket("h", 5)
    builder = fcm._LazyBuilder({"h": _sp([1.5], [[0, 0]], [1, 1])})
    with pytest.raises(ValueError, match="column_name: h input_tensor dtype must be string or "
                                         "integer"):
        builder.get(col)


# -- linear_model ----------------------------------------------------------------------------

def test_linear_model_sum_combiner_keeps_negative_weights():
    ids = fc.categorical_column_with_identity("ids", 3)
    weighted = fc.weighted_categorical_column(ids, "w")
    with tf.Graph().as_default():
        features = {"ids": _sp([0, 2, 1], [[0, 0], [0, 1], [1, 0]], [2, 2]),
                    "w": _sp([2.0, -3.0, 0.5], [[0, 0], [0, 1], [1, 0]], [2, 2])}
        out_sum = fc.linear_model(features, [weighted])
        out_mean = fc.linear_model(features, [weighted], sparse_combiner="mean")
        scopes = ("linear_model", "linear_model_1")
        assigns = [tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES, s + "/ids_weighted_by_w")[0]
                   .assign([[1.0], [10.0], [100.0]]) for s in scopes]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(assigns)
            got_sum, got_mean = sess.run([out_sum, out_mean])
    # sum: 2*1 - 3*100 = -298 and 0.5*10 = 5; mean prunes the weight <= 0: 2*1/2 = 1, 10
    np.testing.assert_allclose(got_sum, [[-298.0], [5.0]])
    np.testing.assert_allclose(got_mean, [[1.0], [10.0]])


def test_linear_model_refuses_a_column_neither_dense_nor_categorical():
    class Odd(fcm._FeatureColumn):
        name = "odd"
        _parse_example_spec = None

        def _transform_feature(self, inputs):
            return inputs.get("odd")

    with tf.Graph().as_default(), pytest.raises(
            ValueError, match="must be either a _DenseColumn or _CategoricalColumn"):
        fc.linear_model({"odd": [[1.0]]}, [Odd()])


@pytest.mark.parametrize("builder", [fc.linear_model, fc.input_layer])
def test_static_batch_sizes_must_agree(builder):
    cols = [fc.numeric_column("p"), fc.numeric_column("q"), fc.numeric_column("r")]
    with tf.Graph().as_default():
        features = {"p": tf.placeholder(tf.float32), "q": [[1.0], [2.0], [3.0], [4.0]],
                    "r": [[1.0], [2.0]]}
        with pytest.raises(ValueError, match=r"Batch size \(first dimension\) of each feature "
                                             r"must be same. Batch size of columns \(q, r\)"):
            builder(features, cols)


@pytest.mark.parametrize("builder", [fc.linear_model, fc.input_layer])
def test_feature_of_unknown_rank_is_checked_and_expanded_when_run(builder):
    col = fc.numeric_column("v")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        out = builder({"v": x}, [col])
        assert out.shape.as_list()[1] == 1
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # a rank-1 feed is one value per example
            assert sess.run(out, {x: np.array([1.0, 2.0, 3.0])}).shape == (3, 1)
            assert sess.run(out, {x: np.array([[1.0], [2.0]])}).shape == (2, 1)
            with pytest.raises(tf.errors.InvalidArgumentError, match="Feature .* cannot have rank 0"):
                sess.run(out, {x: np.array(4.0)})
