"""tf.keras parity with TF 1.15's graph-mode Keras, checked program by program against
tf_keras 2.x run under ``tf.compat.v1`` with v2 behaviour off (the closest live reference).
Expected texts quoted here were observed there (or are TF 1.15's, where tf_keras's changed)."""

import hashlib
import os
import tarfile
import zipfile

import numpy as np
import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend
L = keras.layers


# -- Dense refuses integer inputs ---------------------------------------------------------------

@pytest.mark.parametrize("make", ["layers", "keras"])
def test_dense_on_int32_input_is_tf_type_error(make):
    x = tf.placeholder(tf.int32, [None, 3])
    with pytest.raises(TypeError, match=r"Unable to build `Dense` layer with non-floating "
                                        r"point dtype <dtype: 'int32'>"):
        if make == "layers":
            tf.layers.dense(x, 2)
        else:
            L.Dense(2)(x)


def test_dense_with_float_dtype_given_takes_int_input_cast_by_user():
    # a float64 layer on float64 input builds a float64 kernel
    x = tf.placeholder(tf.float64, [None, 3])
    y = L.Dense(2)(x)
    assert y.dtype == tf.float64
