"""TF 1.15 parity found by the nineteenth session's lead: each expected value is what TF 1.15
printed for the same program."""

import numpy as np

import tideflow as tf


def test_load_iris_is_the_table_tf_bundles():
    # TF 1.15's iris.csv keeps rows 35 and 38 as Fisher first printed them (later copies, such
    # as scikit-learn's, carry the corrected 4.9,3.1,1.5,0.2 and 4.9,3.6,1.4,0.1): a program's
    # first loss on the whole set moved in its fourth digit
    iris = tf.contrib.learn.datasets.load_iris()
    assert iris.data.shape == (150, 4) and iris.data.dtype == np.float64
    assert iris.target.dtype == np.int64 and np.bincount(iris.target).tolist() == [50, 50, 50]
    assert iris.data[34].tolist() == [4.9, 3.1, 1.5, 0.1]
    assert iris.data[37].tolist() == [4.9, 3.1, 1.5, 0.1]
    np.testing.assert_allclose(iris.data.sum(axis=0), [876.5, 458.1, 563.8, 179.8], rtol=1e-12)
