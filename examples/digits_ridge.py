"""Ridge-regression classifier for scikit-learn's digits, solved in closed form inside the graph.

A TF 1.x program (only the import line names tideflow): it feeds the 1797 8x8 digit images,
solves (X^T X + lambda I) W = X^T Y with MatrixSolve, and reports test accuracy on a
1500/297 split. Run: ``python examples/digits_ridge.py``.
"""

import argparse
import time

import numpy as np
from sklearn.datasets import load_digits

import tideflow as tf


def load(seed=0):
    digits = load_digits()
    x = (digits.data / 16.0).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.RandomState(seed).permutation(len(x))
    x, y = x[order], y[order]
    return (x[:1500], y[:1500]), (x[1500:], y[1500:])


def build(num_features, num_classes=10, l2=1.0):
    x = tf.placeholder(tf.float32, [None, num_features], name="images")
    labels = tf.placeholder(tf.int64, [None], name="labels")
    with tf.name_scope("features"):
        ones = tf.ones(tf.stack([tf.shape(x)[0], 1]))
        feats = tf.concat([x, ones], axis=1)  # a bias column
    with tf.name_scope("solve"):
        targets = tf.one_hot(labels, num_classes, dtype=tf.float32)
        gram = tf.matmul(feats, feats, transpose_a=True)
        reg = l2 * tf.eye(num_features + 1)
        weights = tf.matrix_solve(gram + reg, tf.matmul(feats, targets, transpose_a=True))
    w = tf.placeholder_with_default(weights, [num_features + 1, num_classes], name="weights")
    with tf.name_scope("predict"):
        scores = tf.matmul(feats, w)
        pred = tf.argmax(scores, axis=1)
        accuracy = tf.reduce_mean(tf.cast(tf.equal(pred, labels), tf.float32))
    return x, labels, weights, w, accuracy


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--l2", type=float, default=1.0, help="ridge penalty")
    args = ap.parse_args()
    (xtr, ytr), (xte, yte) = load()
    t0 = time.time()
    x, labels, weights, w, accuracy = build(xtr.shape[1], l2=args.l2)
    with tf.Session() as sess:
        wv, train_acc = sess.run([weights, accuracy], {x: xtr, labels: ytr})
        test_acc = sess.run(accuracy, {x: xte, labels: yte, w: wv})
    print(f"digits ridge classifier: train accuracy {train_acc:.4f}, "
          f"test accuracy {test_acc:.4f} ({len(xtr)} train / {len(xte)} test images, "
          f"{time.time() - t0:.2f} s)")
    return test_acc


if __name__ == "__main__":
    main()
