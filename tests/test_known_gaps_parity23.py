"""TF 1.15 parity for gaps earlier work left: malformed device requests, the float16 matmul's
accumulation, Keras metrics as layers, RNN output names, run metadata, logging, estimator heads.

Reference strings and numbers were measured in TF 1.15 (CPU)."""

import pytest

import tideflow as tf

# -- device requests the runtime's grammar rejects ------------------------------------------

@pytest.mark.parametrize("device", ["/job:", "/job:1x", "/job:a-b", "/job:a b",
                                    "/job:localhost/replica:-1", "/cpu:-1", "/device:1CPU:0",
                                    "/device:C-PU:0"])
def test_malformed_device_fails_at_run(device):
    # TF 1.15: graph building keeps the string, Session.run raises InvalidArgumentError
    # "Malformed device specification '/job:' in node: {name:'x' id:2 ..." (soft or not)
    g = tf.Graph()
    with g.as_default():
        with tf.device(device):
            x = tf.placeholder(tf.float32, name="x")
        y = tf.add(x, 1.0, name="y")
        for soft in (False, True):
            with tf.Session(config=tf.ConfigProto(allow_soft_placement=soft)) as sess:
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(y, {x: 1.0})
                spec = tf.DeviceSpec.from_string(device).to_string()
                assert str(info.value).startswith(
                    f"Malformed device specification '{spec}' in node: {{name:'x' id:2 ")
                assert "Placeholder[dtype=DT_FLOAT" in str(info.value)


@pytest.mark.parametrize("device", ["//cpu:0", "/job:*", "/device:*:0", "/cpu:*",
                                    "/job:localhost/device:cpu:0", "/device:CPU:0 "])
def test_wellformed_device_runs(device):
    # TF 1.15 runs all of these on the local CPU ('//cpu:0' normalizes to '/device:CPU:0')
    g = tf.Graph()
    with g.as_default():
        with tf.device(device):
            c = tf.constant(1)
        with tf.Session() as sess:
            assert sess.run(c + 1) == 2


def test_device_spec_parse_errors():
    # TF 1.15's DeviceSpec parse errors (class and words)
    for spec, words in [("/cpu:x", "invalid literal for int() with base 10: 'x'"),
                        ("/device:CPU", "Unknown attribute: 'device' in '/device:CPU'"),
                        ("/gpu:0/cpu:0", "Cannot specify multiple device types: /gpu:0/cpu:0")]:
        with pytest.raises(ValueError) as info:
            tf.DeviceSpec.from_string(spec)
        assert str(info.value) == words
    assert tf.DeviceSpec.from_string("//cpu:0").to_string() == "/device:CPU:0"
    assert tf.DeviceSpec.from_string("/job:a/job:b").to_string() == "/job:b"
