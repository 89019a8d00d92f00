"""Writes the TF-made TFLite files that tests/test_lite_parity23.py reads.

Run with TensorFlow 1.15 (its ``toco_from_protos`` on the PATH)::

    python tests/data/tflite/make_tflite.py [OUT_DIR]

For each model NAME: ``NAME.tflite`` (TF 1.15's TFLiteConverter.from_session), ``NAME_x.npy``
(an input) and ``NAME_y.npy`` (``sess.run``'s output for it; for ``hybrid``, converted with
``optimizations=[tf.lite.Optimize.DEFAULT]``, TF's interpreter's). The test builds the same graphs
(same builders and seeds) in tideflow and compares its converter's files and interpreter with these.
"""

import os
import sys

import numpy as np


def mlp(tf, rng):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w1 = tf.Variable(rng.randn(4, 8).astype(np.float32), name="w1")
    b1 = tf.Variable(rng.randn(8).astype(np.float32), name="b1")
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    w2 = tf.Variable(rng.randn(8, 3).astype(np.float32), name="w2")
    b2 = tf.Variable(rng.randn(3).astype(np.float32), name="b2")
    y = tf.nn.softmax(tf.nn.bias_add(tf.matmul(h, w2), b2), name="y")
    return x, y, rng.randn(1, 4).astype(np.float32)


def cnn(tf, rng):
    x = tf.placeholder(tf.float32, [1, 8, 8, 3], name="img")
    k = tf.constant(rng.randn(3, 3, 3, 4).astype(np.float32) * 0.5)
    b = tf.constant(rng.randn(4).astype(np.float32))
    h = tf.nn.relu6(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    dk = tf.constant(rng.randn(3, 3, 4, 2).astype(np.float32) * 0.5)
    h = tf.nn.depthwise_conv2d(h, dk, [1, 1, 1, 1], "SAME")
    h = tf.nn.relu(h + tf.constant(rng.randn(8).astype(np.float32)))
    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.reshape(h, [1, -1])
    wd = tf.constant(rng.randn(32, 5).astype(np.float32) * 0.3)
    y = tf.nn.softmax(tf.matmul(h, wd), name="probs")
    return x, y, rng.randn(1, 8, 8, 3).astype(np.float32)


def misc(tf, rng):
    x = tf.placeholder(tf.float32, [2, 3, 4], name="inp")
    a = tf.transpose(x, [0, 2, 1])
    b = tf.reduce_mean(a, axis=[1], keepdims=True)
    c = tf.concat([a, tf.tile(b, [1, 4, 1])], axis=-1)
    d = tf.pad(c, [[0, 0], [1, 1], [0, 0]])
    e = tf.maximum(tf.exp(d * 0.1), tf.sqrt(tf.abs(d) + 1.0))
    f = tf.strided_slice(e, [0, 1, 0], [2, 5, 6], [1, 2, 1])
    y = tf.squeeze(tf.expand_dims(f, 0), [0], name="out")
    return x, y, rng.randn(2, 3, 4).astype(np.float32)


def one_channel(tf, rng):
    # a conv over one input channel: TOCO writes it as a DEPTHWISE_CONV_2D
    x = tf.placeholder(tf.float32, [1, 8, 8, 1], name="gray")
    k = tf.constant(rng.randn(3, 3, 1, 6).astype(np.float32), name="k")
    y = tf.nn.relu(tf.nn.conv2d(x, k, [1, 2, 2, 1], "SAME"), name="feat")
    return x, y, rng.randn(1, 8, 8, 1).astype(np.float32)


def hybrid(tf, rng):
    # converted with optimizations=[DEFAULT]: int8 weights (hybrid CONV_2D / FULLY_CONNECTED,
    # a DEQUANTIZE before the DEPTHWISE_CONV_2D)
    x = tf.placeholder(tf.float32, [2, 6, 6, 3], name="img")
    k = tf.constant(rng.randn(3, 3, 3, 64).astype(np.float32), name="k")
    h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME") +
                   tf.constant(rng.randn(64).astype(np.float32)))
    dk = tf.constant(rng.randn(3, 3, 64, 2).astype(np.float32), name="dk")
    h = tf.nn.depthwise_conv2d(h, dk, [1, 1, 1, 1], "VALID")
    h = tf.reshape(tf.reduce_mean(h, [1, 2]), [2, 128])
    w = tf.constant(rng.randn(128, 10).astype(np.float32), name="w")
    y = tf.matmul(h, w, name="y")
    return x, y, rng.randn(2, 6, 6, 3).astype(np.float32)


MODELS = {"mlp": (mlp, 0), "cnn": (cnn, 1), "misc": (misc, 2), "one_channel": (one_channel, 3),
          "hybrid": (hybrid, 5)}


def convert(tf, name):
    """(flatbuffer, input, sess.run's output) of model ``name`` built and converted by ``tf``
    (TF 1.15 here, tideflow in the test)."""
    fn, seed = MODELS[name]
    with tf.Graph().as_default():
        x, y, xi = fn(tf, np.random.RandomState(seed))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ref = sess.run(y, {x: xi})
            converter = tf.lite.TFLiteConverter.from_session(sess, [x], [y])
            if name == "hybrid":
                converter.optimizations = [tf.lite.Optimize.DEFAULT]
            data = converter.convert()
    return data, xi, ref


def main(out):
    import tensorflow as tf

    os.makedirs(out, exist_ok=True)
    for name in MODELS:
        data, xi, ref = convert(tf, name)
        if name == "hybrid":  # the reference is TF's interpreter (its hybrid kernels)
            interp = tf.lite.Interpreter(model_content=data)
            interp.allocate_tensors()
            interp.set_tensor(interp.get_input_details()[0]["index"], xi)
            interp.invoke()
            ref = interp.get_tensor(interp.get_output_details()[0]["index"])
        with open(os.path.join(out, name + ".tflite"), "wb") as f:
            f.write(data)
        np.save(os.path.join(out, name + "_x.npy"), xi)
        np.save(os.path.join(out, name + "_y.npy"), ref)


def write_quantized(out):
    """``uint8.tflite``: a fake-quant graph converted with inference_type=QUANTIZED_UINT8
    (tideflow's Interpreter refuses its quantized kernels)."""
    import tensorflow as tf

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [1, 4], name="x")
        xq = tf.quantization.fake_quant_with_min_max_args(x, -1, 1)
        w = tf.quantization.fake_quant_with_min_max_args(
            tf.constant(np.random.RandomState(0).randn(4, 3).astype(np.float32)), -3, 3)
        y = tf.quantization.fake_quant_with_min_max_args(tf.matmul(xq, w), -6, 6, name="y")
        with tf.Session() as sess:
            converter = tf.lite.TFLiteConverter.from_session(sess, [x], [y])
            converter.inference_type = tf.lite.constants.QUANTIZED_UINT8
            converter.quantized_input_stats = {"x": (127.5, 127.5)}
            data = converter.convert()
    with open(os.path.join(out, "uint8.tflite"), "wb") as f:
        f.write(data)


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    main(target)
    write_quantized(target)
