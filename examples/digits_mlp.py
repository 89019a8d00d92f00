"""A two-layer perceptron with dropout on scikit-learn's digits, trained with Adam (TF 1.x style).

Run: ``python examples/digits_mlp.py``; prints the test accuracy (about 0.97).
"""

import argparse

import numpy as np
from digits_data import batches, load

import tideflow as tf


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--hidden", type=int, default=128)
    args = ap.parse_args()
    (xtr, ytr), (xte, yte) = load()
    tf.set_random_seed(0)

    x = tf.placeholder(tf.float32, [None, 64], name="x")
    y = tf.placeholder(tf.int64, [None], name="y")
    keep_prob = tf.placeholder_with_default(1.0, [], name="keep_prob")
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("w", [64, args.hidden])
        b1 = tf.get_variable("b", [args.hidden], initializer=tf.zeros_initializer())
        h = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1) + b1), keep_prob)
    with tf.variable_scope("out"):
        w2 = tf.get_variable("w", [args.hidden, 10])
        b2 = tf.get_variable("b", [10], initializer=tf.zeros_initializer())
        logits = tf.matmul(h, w2) + b2
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    global_step = tf.train.get_or_create_global_step()
    train_op = tf.train.AdamOptimizer(0.003).minimize(loss, global_step=global_step)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))

    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(args.epochs):
            for bx, by in batches(xtr, ytr, 64, rng):
                sess.run(train_op, {x: bx, y: by, keep_prob: 0.8})
        acc, step = sess.run([accuracy, global_step], {x: xte, y: yte})
    print(f"mlp: test accuracy {acc:.4f} after {step} steps")
    return acc


if __name__ == "__main__":
    main()
