"""TF 1.x calls Tensor2Tensor 1.15 makes, reduced to plain programs: each pins a difference its
layers, models, optimizers and trainer found in tideflow."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_python2_division_operators():
    # TF 1.15's Tensor keeps __div__/__rdiv__ (Python 2 division: floor for integers);
    # wrappers that forward every name of OVERLOADABLE_OPERATORS look them up
    a = tf.constant([9, -9])
    b = tf.constant([4.0, 8.0])
    x, y, z = a.__div__(4), a.__rdiv__(-20), b.__rdiv__(2.0)
    assert (x.op.type, y.op.type, z.op.type) == ("FloorDiv", "FloorDiv", "RealDiv")
    assert x.op.name == "div"
    for name in tf.Tensor.OVERLOADABLE_OPERATORS:
        assert hasattr(tf.Tensor, name), name
    v = tf.Variable([6.0, 3.0])
    w = v.__div__(3.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([x, y, z, w])
    np.testing.assert_array_equal(got[0], [2, -3])
    np.testing.assert_array_equal(got[1], [-3, 2])
    np.testing.assert_allclose(got[2], [0.5, 0.25])
    np.testing.assert_allclose(got[3], [2.0, 1.0])


def test_optimizer_cls_names_is_a_dict_of_optimizers():
    names = tf.contrib.layers.OPTIMIZER_CLS_NAMES
    assert sorted(names) == ["Adagrad", "Adam", "Ftrl", "Momentum", "RMSProp", "SGD"]
    assert names["Adam"] is tf.train.AdamOptimizer
    table = dict(names.items())  # a library copies it into its own registry
    assert table["SGD"] is tf.train.GradientDescentOptimizer
    assert isinstance(table["Momentum"](learning_rate=0.1), tf.train.MomentumOptimizer)
    w = tf.Variable(2.0)
    train = tf.contrib.layers.optimize_loss(tf.square(w), tf.train.get_or_create_global_step(),
                                            0.25, "SGD", summaries=[])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        assert sess.run(w) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="Optimizer name should be one of"):
        tf.contrib.layers.optimize_loss(tf.square(w), None, 0.1, "Nope")


def test_tfdbg_module_imports_and_its_filter():
    from tideflow.python import debug as tf_debug

    assert tf_debug.has_inf_or_nan(None, np.array([1.0, np.nan]))
    assert not tf_debug.has_inf_or_nan(None, np.array([1.0, 2.0]))
    assert not tf_debug.has_inf_or_nan(None, np.array([1, 2]))
    with pytest.raises(NotImplementedError, match="LocalCLIDebugHook"):
        tf_debug.LocalCLIDebugHook()
