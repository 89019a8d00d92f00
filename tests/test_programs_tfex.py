"""Regressions found by running TF 1.x example programs (tensorflow/examples, tensorflow/models
tutorials) against tideflow; each test is a small program of our own in the same style."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_contrib_learn_base_load_csv_reads_the_0x_header_csv(tmp_path):
    # 0.x's load_csv(filename, target_dtype[, target_column, has_header]): float64 features
    path = tmp_path / "flowers.csv"
    path.write_text("3,2,a,b\n1.5,2.0,1\n3.0,4.5,0\n0.5,0.25,1\n")
    ds = tf.contrib.learn.datasets.base.load_csv(filename=str(path), target_dtype=int)
    np.testing.assert_array_equal(ds.data, [[1.5, 2.0], [3.0, 4.5], [0.5, 0.25]])
    assert ds.data.dtype == np.float64
    np.testing.assert_array_equal(ds.target, [1, 0, 1])
    plain = tmp_path / "plain.csv"
    plain.write_text("7,1.0,2.0\n8,3.0,4.0\n")
    ds = tf.contrib.learn.datasets.base.load_csv(str(plain), np.int32, target_column=0,
                                                 has_header=False)
    np.testing.assert_array_equal(ds.target, [7, 8])
    np.testing.assert_array_equal(ds.data, [[1.0, 2.0], [3.0, 4.0]])



def test_contrib_learn_datasets_table_maps_names_to_loaders():
    # resnet-style programs index the loader table by name: DATASETS['mnist'](directory)
    table = tf.contrib.learn.datasets.DATASETS
    assert {"iris", "boston", "mnist"} <= set(table)
    assert table["mnist"] is tf.contrib.learn.datasets.load_mnist
    iris = table["iris"]()
    assert iris.data.shape == (150, 4)
    np.testing.assert_array_equal(np.bincount(iris.target), [50, 50, 50])
