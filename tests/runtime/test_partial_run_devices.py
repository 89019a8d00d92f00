"""partial_run on a graph placed over several CPU devices: each piece runs its part of the
step across the partitions, stateful ops run once per partial run, results match one device."""

import numpy as np
import pytest

import tideflow as tf


def _graph():
    a = tf.placeholder(tf.float32, [2], name="a")
    b = tf.placeholder(tf.float32, [2], name="b")
    with tf.device("/cpu:0"):
        v = tf.Variable([1.0, 2.0], name="v")
        bump = tf.assign_add(v, [1.0, 1.0])  # stateful: must run once per partial run
        c = a * bump
    with tf.device("/cpu:1"):
        d = c + b
        e = tf.reduce_sum(d * 2.0)
    return a, b, v, c, e


@pytest.mark.parametrize("n_cpus", [1, 2])
def test_partial_run_over_devices(n_cpus):
    with tf.Graph().as_default():
        a, b, v, c, e = _graph()
        cfg = tf.ConfigProto(device_count={"CPU": n_cpus}, allow_soft_placement=True)
        with tf.Session(config=cfg) as s:
            s.run(tf.global_variables_initializer())
            h = s.partial_run_setup([c, e], [a, b])
            np.testing.assert_allclose(s.partial_run(h, c, {a: [1.0, 3.0]}), [2.0, 9.0])
            # the second piece reuses c (and the bump) computed on CPU:0 by the first one
            assert s.partial_run(h, e, {b: [3.0, 3.0]}) == pytest.approx(2 * (5.0 + 12.0))
            np.testing.assert_allclose(s.run(v), [2.0, 3.0])
            ro = tf.RunOptions(output_partition_graphs=True)
            md = tf.RunMetadata()
            s.run(e, {a: [1.0, 1.0], b: [0.0, 0.0]}, options=ro, run_metadata=md)
            assert len(md.partition_graphs) == n_cpus


def test_partial_run_over_devices_errors_leave_session_usable():
    with tf.Graph().as_default():
        a, b, _v, c, e = _graph()
        with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as s:
            s.run(tf.global_variables_initializer())
            h = s.partial_run_setup([e], [a, b])
            with pytest.raises(tf.errors.InvalidArgumentError, match="can.t be computed from the feeds"):
                s.partial_run(h, e, {a: [1.0, 1.0]})
            with pytest.raises(tf.errors.InvalidArgumentError, match="not specified"):
                s.partial_run(h, c, {b: [1.0, 1.0]})
            assert s.run(e, {a: [1.0, 1.0], b: [0.0, 0.0]}) == pytest.approx(2 * (2.0 + 3.0))
