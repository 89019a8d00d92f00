"""A canned ``tf.estimator.DNNClassifier`` on scikit-learn's digits (TF 1.x style): numpy input
functions, feature columns, train / evaluate / predict, and a SavedModel export.

Run: ``python examples/estimator_digits.py``; prints the test accuracy (about 0.97).
"""

import argparse
import tempfile

import numpy as np
from digits_data import load

import tideflow as tf


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=1500)
    ap.add_argument("--model_dir", default=None)
    args = ap.parse_args()
    tf.logging.set_verbosity(tf.logging.WARN)
    (xtr, ytr), (xte, yte) = load()

    pixels = tf.feature_column.numeric_column("pixels", shape=[64])
    classifier = tf.estimator.DNNClassifier(
        hidden_units=[64, 32], feature_columns=[pixels], n_classes=10,
        optimizer=tf.train.AdamOptimizer(learning_rate=0.005),
        model_dir=args.model_dir or tempfile.mkdtemp(),
        config=tf.estimator.RunConfig(tf_random_seed=0, save_checkpoints_steps=500))

    train_input_fn = tf.estimator.inputs.numpy_input_fn(
        {"pixels": xtr}, ytr, batch_size=64, num_epochs=None, shuffle=True)
    classifier.train(train_input_fn, steps=args.steps)

    test_input_fn = tf.estimator.inputs.numpy_input_fn(
        {"pixels": xte}, yte, batch_size=len(xte), num_epochs=1, shuffle=False)
    metrics = classifier.evaluate(test_input_fn)
    print(f"global step {metrics['global_step']}, loss {metrics['average_loss']:.4f}")

    predict_input_fn = tf.estimator.inputs.numpy_input_fn(
        {"pixels": xte[:10]}, num_epochs=1, shuffle=False)
    predicted = [int(p["class_ids"][0]) for p in classifier.predict(predict_input_fn)]
    print("first predictions", predicted, "labels", [int(v) for v in yte[:10]])

    spec = tf.feature_column.make_parse_example_spec([pixels])
    export_dir = classifier.export_saved_model(
        tempfile.mkdtemp(), tf.estimator.export.build_parsing_serving_input_receiver_fn(spec))
    print("exported to", export_dir.decode())
    assert np.isfinite(metrics["loss"])
    print(f"test accuracy {metrics['accuracy']:.4f}")


if __name__ == "__main__":
    main()
