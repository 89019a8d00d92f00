"""Lead parity checks of the twenty-fifth session, against values measured in TF 1.15."""

import hashlib

import numpy as np
import pytest

import tideflow as tf

# sha256 of TF 1.15's tf.pow(x, e) bytes for x = 0.0137 * (1..20000) in float32 (measured in
# TF 1.15): its CPU kernel calls glibc's powf per element
_POW_DIGESTS = {
    0.37: "b5e9ebe7999603dae1ef9a20e87229ce3c2e8dae194501d7738eb7e1f5b30e8b",
    -1.3: "8698880281c614a6038d0bcb457d95d3c9e41df4f854b35d84ac72cda7e6985f",
    2.5: "9b02d409d13b2eb702d2fce8b06f81d9e7b7b2a0307907c131276b20d5af6e95",
}


@pytest.mark.parametrize("e", sorted(_POW_DIGESTS))
def test_float32_pow_of_many_elements_is_glibcs_powf(e):
    x = (np.arange(1, 20001, dtype=np.float32) * np.float32(0.0137)).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        r = sess.run(tf.pow(tf.placeholder_with_default(x, [None]), np.float32(e)))
    assert hashlib.sha256(r.tobytes()).hexdigest() == _POW_DIGESTS[e]


def test_a_metric_over_a_dataset_counts_only_the_batches_that_ran():
    # the loss's 1.0 * value runs as the value itself (TF's constant folding); the metric's
    # count update waits on that Mul by a control edge, so the step that ends the dataset
    # (OutOfRangeError) must not count, as in TF 1.15
    with tf.Graph().as_default():
        x = tf.data.Dataset.from_tensor_slices(np.arange(6, dtype=np.float32)).batch(3)
        v = x.make_one_shot_iterator().get_next()
        loss = tf.constant(1.0) * tf.reduce_mean(v)
        mean, update = tf.metrics.mean(loss)
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            steps = 0
            try:
                while True:
                    sess.run(update)
                    steps += 1
            except tf.errors.OutOfRangeError:
                pass
            count = sess.run(next(v for v in tf.local_variables() if "count" in v.name))
            assert steps == 2 and count == 2.0
            assert sess.run(mean) == pytest.approx((1.0 + 4.0) / 2)
