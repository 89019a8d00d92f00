"""Op-table row for SdcaFprint: known answers from TensorFlow's sdca_fprint (FarmHash
Fingerprint128), covering the short, middle (CityMurmur) and long (>= 128 bytes) paths."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_IN = np.array([b"", b"a", b"hello world", b"x" * 40, b"y" * 200], dtype=object)
# tf.train.sdca_fprint(_IN) in TF 2.21
_TF = [[4463240938071824939, 4374473821787594281], [7969074168056553668, 5955762262185338209],
       [2911873174415414509, 6996746284954752264], [945643983540428722, -8988887773001250402],
       [-902574499720870739, -1594065693494824583]]

CASES = [
    Case("SdcaFprint", lambda s: tf.train.sdca_fprint(s), [_IN],
         lambda s: np.array(_TF, np.int64), dtypes=(tf.string,), grad=False),
]
