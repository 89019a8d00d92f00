"""tf.contrib names that are other tideflow namespaces, and tf.contrib.data's transformations."""

import pytest

import tideflow as tf


def test_contrib_aliases_are_the_namespaces():
    assert tf.contrib.keras is tf.keras
    assert tf.contrib.data.map_and_batch is tf.data.experimental.map_and_batch
    with pytest.raises(AttributeError):
        tf.contrib.no_such_module  # noqa: B018


def test_batch_and_drop_remainder():
    with tf.Graph().as_default():
        plain = tf.data.Dataset.range(7).apply(tf.contrib.data.batch_and_drop_remainder(3))
        padded = tf.data.Dataset.range(5).map(lambda v: tf.fill([v], v)).apply(
            tf.contrib.data.padded_batch_and_drop_remainder(2, [None]))
        a = plain.make_one_shot_iterator().get_next()
        b = padded.make_one_shot_iterator().get_next()
        assert a.get_shape().as_list() == [3]
        with tf.Session() as sess:
            got = [sess.run(a).tolist() for _ in range(2)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(a)
            first, second = sess.run(b).tolist(), sess.run(b).tolist()
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(b)
    assert got == [[0, 1, 2], [3, 4, 5]]
    assert first == [[0], [1]]  # fill([0], 0) is empty, padded with 0
    assert second == [[2, 2, 0], [3, 3, 3]]


def test_contrib_estimator_tpu_and_feature_column_aliases():
    assert tf.contrib.tpu.TPUEstimator is tf.estimator.tpu.TPUEstimator
    assert tf.contrib.estimator.add_metrics is tf.estimator.add_metrics
    assert callable(tf.contrib.estimator.stop_if_no_decrease_hook)
    assert callable(tf.contrib.feature_column.sequence_input_layer)
    assert "sequence_numeric_column" in tf.contrib.feature_column.__all__


def test_contrib_aliases_import_by_name():
    import subprocess
    import sys

    # a fresh process, so that no attribute access built the aliases first
    code = ("from tideflow.contrib.factorization import KMeans\n"
            "from tideflow.contrib.data import map_and_batch\n"
            "import tideflow.contrib.keras as k\n"
            "import tideflow as tf\n"
            "assert tf.contrib.factorization.KMeans is KMeans and k is tf.keras\n"
            "assert tf.keras.__name__ == 'tideflow.keras'\n"
            "try:\n    import tideflow.contrib.nope\nexcept ImportError:\n    print('ok')\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout
    assert out.strip() == "ok"
