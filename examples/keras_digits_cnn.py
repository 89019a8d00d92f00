"""A tf.keras convolutional network on scikit-learn's digits (8x8x1), the TF 1.x Keras way.

Conv2D(16) + BatchNormalization + MaxPooling2D, Conv2D(32) + Flatten, Dropout
and a softmax layer; compiled with Adam and sparse categorical cross-entropy, trained with
``fit`` (validation split, early stopping and a checkpoint of the best weights), then scored
with ``evaluate``. Run: ``python examples/keras_digits_cnn.py``; prints the test accuracy
(0.97-0.99 over seeds 0-3).
"""

import argparse
import os
import tempfile

import numpy as np
from digits_data import load

import tideflow as tf


def build_model():
    layers = tf.keras.layers
    return tf.keras.Sequential([
        layers.Conv2D(16, 3, padding="same", activation="relu", input_shape=(8, 8, 1)),
        layers.BatchNormalization(),
        layers.MaxPooling2D(),
        layers.Conv2D(32, 3, padding="same", activation="relu"),
        layers.Flatten(),
        layers.Dropout(0.2),
        layers.Dense(10, activation="softmax"),
    ])


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--epochs", type=int, default=15)
    args = ap.parse_args()
    (xtr, ytr), (xte, yte) = load(flat=False)
    np.random.seed(0)
    tf.set_random_seed(0)
    model = build_model()
    model.compile(optimizer=tf.keras.optimizers.Adam(lr=0.01),
                  loss="sparse_categorical_crossentropy", metrics=["accuracy"])
    model.summary()
    with tempfile.TemporaryDirectory() as tmp:
        best = os.path.join(tmp, "best.ckpt")
        callbacks = [
            tf.keras.callbacks.EarlyStopping(monitor="val_loss", patience=5),
            tf.keras.callbacks.ModelCheckpoint(best, monitor="val_acc", save_best_only=True,
                                               save_weights_only=True),
        ]
        history = model.fit(xtr, ytr, batch_size=32, epochs=args.epochs, verbose=2,
                            validation_split=0.1, callbacks=callbacks)
        print(f"trained {len(history.history['loss'])} epochs, best val_acc "
              f"{max(history.history['val_acc']):.4f}")
        model.load_weights(best)
    loss, acc = model.evaluate(xte, yte, verbose=0)
    print(f"test loss {loss:.4f}")
    print(f"test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
