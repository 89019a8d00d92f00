"""Regressions found by running tensorflow/models official/ and samples/ Estimator programs
(MNIST, ResNet/CIFAR-10, wide & deep census, boosted trees, iris get_started) against
tideflow."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_python_util_nest_and_compat_import_like_tensorflow_python_util():
    # official/utils/misc/model_helpers.py: ``from tensorflow.python.util import nest``
    import tideflow.python.util.nest as nest_mod

    from tideflow.python.util import compat, nest

    assert nest_mod is nest
    shapes = {"a": tf.TensorShape([2]), "b": (tf.TensorShape([1, 3]),)}
    consts = nest.map_structure(lambda s: tf.constant(1.5, tf.float32, s), shapes)
    assert consts["a"].shape.as_list() == [2]
    assert consts["b"][0].shape.as_list() == [1, 3]
    assert compat.as_text(b"x") == "x" and compat.as_bytes("x") == b"x"
