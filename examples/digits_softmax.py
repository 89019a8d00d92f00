"""Softmax regression on scikit-learn's digits, trained with plain gradient descent (TF 1.x style).

Run: ``python examples/digits_softmax.py``; prints the test accuracy (about 0.95).
"""

import argparse

import numpy as np
from digits_data import batches, load

import tideflow as tf


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.5)
    args = ap.parse_args()
    (xtr, ytr), (xte, yte) = load()
    tf.set_random_seed(0)

    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    w = tf.Variable(tf.zeros([64, 10]), name="weights")
    b = tf.Variable(tf.zeros([10]), name="bias")
    logits = tf.matmul(x, w) + b
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    train_op = tf.train.GradientDescentOptimizer(args.lr).minimize(loss)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))

    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(args.epochs):
            for bx, by in batches(xtr, ytr, 100, rng):
                sess.run(train_op, {x: bx, y: by})
        acc = sess.run(accuracy, {x: xte, y: yte})
    print(f"softmax regression: test accuracy {acc:.4f}")
    return acc


if __name__ == "__main__":
    main()
