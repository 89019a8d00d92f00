"""Op-table rows for SdcaFprint: known answers from TensorFlow's sdca_fprint (FarmHash
Fingerprint128), covering the short, middle (CityMurmur) and long (>= 128 bytes) paths; and
for SdcaOptimizer(V2): one dual coordinate step on a single example (its closed form)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_IN = np.array([b"", b"a", b"hello world", b"x" * 40, b"y" * 200], dtype=object)
# tf.train.sdca_fprint(_IN) in TF 2.21
_TF = [[4463240938071824939, 4374473821787594281], [7969074168056553668, 5955762262185338209],
       [2911873174415414509, 6996746284954752264], [945643983540428722, -8988887773001250402],
       [-902574499720870739, -1594065693494824583]]

def _check_sdca_step():
    from tideflow.ops import sdca_ops

    for op in (tf.train.sdca_optimizer, sdca_ops.sdca_optimizer_v2):
        with tf.Graph().as_default(), tf.Session() as s:
            # a dense group and a sparse group (ids 4 and 1, values 1 and 2) on one example
            state, sparse, dense = op(
                [[0, 0]], [[4, 1]], [[1.0, 2.0]], [tf.constant([[1.0, -2.0, 0.5]])], [1.0],
                [2.5], [[1, 4]], [[0.0, 0.0]], [tf.zeros([3])], tf.zeros([1, 4]),
                loss_type="squared_loss", l1=0.0, l2=1.0, num_loss_partitions=1,
                num_inner_iterations=1)
            assert state.get_shape().as_list() == [1, 4]
            assert dense[0].get_shape().as_list() == [3]
            st, sp, d = s.run([state, sparse[0], dense[0]])
            # |x|^2 = 5.25 + 5: the dual moves to y / (1 + |x|^2) and the weights by dual * x
            dual = 2.5 / 11.25
            np.testing.assert_allclose(st, [[dual, 3.125, 0.0, 1.0]], rtol=1e-6)
            np.testing.assert_allclose(sp, [2 * dual, dual], rtol=1e-6)
            np.testing.assert_allclose(d, [dual, -2 * dual, 0.5 * dual], rtol=1e-6)


CASES = [
    Case(("SdcaOptimizer", "SdcaOptimizerV2"), check=_check_sdca_step),
    Case("SdcaFprint", lambda s: tf.train.sdca_fprint(s), [_IN],
         lambda s: np.array(_TF, np.int64), dtypes=(tf.string,), grad=False),
]
