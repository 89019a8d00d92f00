"""A small convolutional network on scikit-learn's digits (8x8x1), trained with momentum.

conv 3x3x32 SAME + relu + 2x2 max pool, conv 3x3x64 SAME + relu + 2x2 max pool, a dense layer
of 128, and a softmax layer. Run: ``python examples/digits_cnn.py``; prints the test accuracy
(about 0.98).
"""

import argparse

import numpy as np
from digits_data import batches, load

import tideflow as tf


def weight(name, shape):
    return tf.get_variable(name, shape, initializer=tf.variance_scaling_initializer(2.0))


def bias(name, size):
    return tf.get_variable(name, [size], initializer=tf.zeros_initializer())


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=15)
    args = ap.parse_args()
    (xtr, ytr), (xte, yte) = load(flat=False)
    tf.set_random_seed(0)

    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    with tf.variable_scope("conv1"):
        h = tf.nn.conv2d(x, weight("w", [3, 3, 1, 32]), [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.bias_add(h, bias("b", 32)))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    with tf.variable_scope("conv2"):
        h = tf.nn.conv2d(h, weight("w", [3, 3, 32, 64]), [1, 1, 1, 1], "SAME")
        h = tf.nn.relu(tf.nn.bias_add(h, bias("b", 64)))
        h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.reshape(h, [-1, 2 * 2 * 64])
    with tf.variable_scope("fc"):
        h = tf.nn.relu(tf.matmul(h, weight("w", [256, 128])) + bias("b", 128))
    with tf.variable_scope("logits"):
        logits = tf.matmul(h, weight("w", [128, 10])) + bias("b", 10)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.MomentumOptimizer(0.05, 0.9).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))

    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(args.epochs):
            for bx, by in batches(xtr, ytr, 50, rng):
                sess.run(train_op, {x: bx, y: by})
        acc = sess.run(accuracy, {x: xte, y: yte})
    print(f"cnn: test accuracy {acc:.4f}")
    return acc


if __name__ == "__main__":
    main()
