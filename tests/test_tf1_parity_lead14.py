"""TF 1.15 parity found by the lead in the fourteenth session; expected values are what real
TF 1.15 printed for the same programs."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_random_ops_in_dataset_functions_count_the_functions_own_ops():
    """TF 1.15 traces a Dataset.map function into a graph of its own: a random op there without
    an op seed takes that graph's op count (4 after the argument and the three constants of
    random_uniform), wherever the dataset sits in the outer graph."""
    tf.set_random_seed(42)
    tf.constant(1.0)
    tf.constant(2.0)
    ds = tf.data.Dataset.range(3).map(lambda i: (i, tf.random_uniform([]), tf.random_uniform([])))
    lib = tf.get_default_graph().as_graph_def().library
    seeds = sorted(n.attr["seed2"].i for f in lib.function for n in f.node_def
                   if "seed2" in n.attr)
    assert seeds == [4, 11]
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as s:
        got = [s.run(nxt)[1:] for _ in range(3)]
    np.testing.assert_allclose(got, [[0.008577466, 0.49367917], [0.7345408, 0.6236744],
                                     [0.93321645, 0.24173737]], rtol=1e-6)
