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
