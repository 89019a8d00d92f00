"""What running qubvel's model zoos (segmentation-models 0.2.1, image-classifiers 0.2.0,
efficientnet 1.0.0) and ImageAI 2.1.5 on tideflow needed, pinned with plain TF 1.x calls."""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# None where a tensor is wanted: ValueError, as TF's make_tensor_proto
# (keras_applications' ResNeXt reshapes to (batch, None, None, groups, c) on an input of
# unknown spatial size)
# ------------------------------------------------------------------------------------------

def test_constant_of_none_is_a_value_error():
    for dtype in (None, tf.int32, tf.float32):
        with pytest.raises(ValueError, match="None values not supported"):
            tf.constant(None, dtype=dtype)


def test_none_in_an_autopacked_shape_is_a_value_error():
    x = tf.placeholder(tf.float32, (None, None, 6))
    with pytest.raises(ValueError, match="None values not supported"):
        tf.reshape(x, (tf.shape(x)[0], None, 2, 3))
    # a fully static or a tensor-only shape still works
    y = tf.reshape(x, (tf.shape(x)[0], -1, 2, 3))
    assert y.shape.as_list() == [None, None, 2, 3]
