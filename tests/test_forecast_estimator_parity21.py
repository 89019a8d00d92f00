"""TF 1.15 parity of forecasting programs (sliding windows, RNN forecasters) and of custom
Estimators that export: each expected value below is what the same program printed under
real TF 1.15."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_window_components_legacy_structure_is_their_dataset_spec():
    # TF 1.15: a window dataset's (or an Optional-valued one's) output_types, output_shapes
    # and output_classes each hold the component's DatasetSpec/OptionalSpec, which as_dtype
    # then refuses in Iterator.from_structure
    d = tf.data.Dataset.from_tensor_slices((np.arange(8), np.arange(8) * 10.0)).window(4)
    want = ("(DatasetSpec(TensorSpec(shape=(), dtype=tf.int64, name=None), TensorShape([])), "
            "DatasetSpec(TensorSpec(shape=(), dtype=tf.float64, name=None), TensorShape([])))")
    assert str(d.output_types) == want
    assert str(d.output_shapes) == want
    assert str(d.output_classes) == want
    assert str(tf.compat.v1.data.get_output_shapes(d)) == want
    o = tf.data.Dataset.range(3).map(lambda x: tf.data.experimental.Optional.from_value(x))
    spec = "OptionalSpec(TensorSpec(shape=(), dtype=tf.int64, name=None),)"
    assert repr(o.output_types) == repr(o.output_shapes) == spec
    assert repr(o) == f"<DatasetV1Adapter shapes: {spec}, types: {spec}>"
    with pytest.raises(TypeError, match=r"^Cannot convert value OptionalSpec\(TensorSpec\("
                       r"shape=\(\), dtype=tf.int64, name=None\),\) to a TensorFlow DType.$"):
        tf.data.Iterator.from_structure(o.output_types, o.output_shapes)
    w = tf.data.Dataset.range(5).window(2)
    with pytest.raises(TypeError, match=r"^Cannot convert value DatasetSpec\("):
        tf.data.Iterator.from_structure(w.output_types, w.output_shapes)
