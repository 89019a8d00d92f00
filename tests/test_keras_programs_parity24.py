"""Keras and estimator programs as users write them, against TF 1.15's printed results (each
number below was measured by running the same program under TF 1.15)."""

import numpy as np

import tideflow as tf


def _zero_model():
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(3,),
                                                   kernel_initializer="zeros")])
    m.compile(tf.keras.optimizers.SGD(0.0), "mse")
    return m


def test_fit_generator_validates_through_an_enqueuer_per_pass():
    # TF 1.15 makes a validation pass's enqueuer at the pass and stops it after its steps: a
    # generator's batches drawn ahead are lost (TF's second pass began at item 12 or 13, as
    # its threads ran), and a Sequence's pass ends before its on_epoch_end (0 calls in TF)
    tf.reset_default_graph()

    def gen():
        i = 0
        while True:
            yield np.ones((4, 3), np.float32), np.full((4, 1), float(i), np.float32)
            i += 1

    def train():
        while True:
            yield np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)

    m = _zero_model()
    h = m.fit_generator(train(), steps_per_epoch=2, epochs=2, validation_data=gen(),
                        validation_steps=2, verbose=0)
    first, second = h.history["val_loss"]
    assert first == 0.5  # items 0 and 1
    assert second > 12  # not items 2 and 3 (6.5): at least one item drawn ahead was lost

    class Seq(tf.keras.utils.Sequence):
        def __init__(self):
            self.ends = 0

        def __len__(self):
            return 3

        def __getitem__(self, i):
            return np.ones((4, 3), np.float32), np.zeros((4, 1), np.float32)

        def on_epoch_end(self):
            self.ends += 1

    val = Seq()
    m.fit_generator(train(), steps_per_epoch=2, epochs=3, validation_data=val, verbose=0)
    assert val.ends == 0
