"""What running Stable Baselines (2.10.2) on tideflow needed, pinned with plain TF 1.x calls: the
synchronous ``pywrap_tensorflow.EventsWriter`` its logger writes TensorBoard files with, and the
shape of the gradient graph its K-FAC optimizer (ACKTR) walks to find each layer's factors."""

import glob
import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# pywrap_tensorflow.EventsWriter (OpenAI baselines' logger and its many copies)
# ------------------------------------------------------------------------------------------

def test_events_writer_writes_a_readable_event_file(tmp_path):
    from tideflow.core.util import event_pb2

    from tideflow.python import pywrap_tensorflow
    from tideflow.python.util import compat

    prefix = os.path.join(str(tmp_path), "events")
    writer = pywrap_tensorflow.EventsWriter(compat.as_bytes(prefix))
    assert writer.FileName() == ""
    for step, loss in enumerate([0.75, 0.5]):
        summary = tf.Summary(value=[tf.Summary.Value(tag="loss", simple_value=loss)])
        writer.WriteEvent(event_pb2.Event(wall_time=1.0, step=step, summary=summary))
    assert writer.Flush()
    name = writer.FileName()
    assert name.startswith(prefix + ".out.tfevents.")
    assert glob.glob(prefix + ".out.tfevents.*") == [name]
    events = list(tf.train.summary_iterator(name))
    assert events[0].file_version == "brain.Event:2"
    assert [(e.step, e.summary.value[0].tag, e.summary.value[0].simple_value)
            for e in events[1:]] == [(0, "loss", 0.75), (1, "loss", 0.5)]
    assert writer.Close()


def test_events_writer_init_with_suffix_and_wrong_type(tmp_path):
    from tideflow.python import pywrap_tensorflow

    prefix = os.path.join(str(tmp_path), "run")
    writer = pywrap_tensorflow.EventsWriter(prefix)
    assert writer.InitWithSuffix(".v2")
    assert writer.FileName().endswith(".v2")
    assert os.path.exists(writer.FileName())
    with pytest.raises(TypeError, match="Expected an event_pb2.Event proto"):
        writer.WriteEvent(tf.Summary())
    writer.Close()
    assert [e.file_version for e in tf.train.summary_iterator(writer.FileName())] == [
        "brain.Event:2"]


# ------------------------------------------------------------------------------------------
# the gradient of a broadcast bias is Reshape(Sum(incoming gradient)), as TF builds it
# ------------------------------------------------------------------------------------------

def test_bias_gradient_is_reshape_of_sum_of_incoming_gradient():
    x = tf.placeholder(tf.float32, [None, 3])
    w = tf.constant(np.arange(6.0, dtype=np.float32).reshape(3, 2) / 10)
    b = tf.Variable([0.5, -0.25], name="b")
    pre = tf.matmul(x, w) + b
    out = tf.reduce_sum(tf.tanh(pre) * tf.constant([1.0, 2.0]))
    (gb,) = tf.gradients(out, [b], name="gradientsSampled")
    # K-FAC: the bias's gradient op, its first input's op, then the incoming gradient
    assert gb.op.type == "Reshape"
    assert gb.op.inputs[0].op.type == "Sum"
    incoming = gb.op.inputs[0].op.inputs[0]
    assert incoming.op.type == "TanhGrad"
    assert gb.get_shape().as_list() == [2]

    xv = np.array([[1.0, 0.0, -1.0], [0.5, 2.0, 0.25], [0.0, 0.0, 1.0]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got, inc = sess.run([gb, incoming], {x: xv})
    pre_v = xv @ (np.arange(6.0).reshape(3, 2) / 10) + [0.5, -0.25]
    want_inc = (1 - np.tanh(pre_v) ** 2) * [1.0, 2.0]
    np.testing.assert_allclose(inc, want_inc, rtol=1e-5)
    np.testing.assert_allclose(got, want_inc.sum(0), rtol=1e-5)


def test_size_one_axis_gradient_keeps_the_input_shape():
    # a [1, n] operand broadcast against [batch, n]: summed over the batch, shaped [1, n]
    x = tf.placeholder(tf.float32, [None, 2])
    s = tf.Variable([[2.0, 3.0]], name="s")
    (gs,) = tf.gradients(tf.reduce_sum(x * s), [s])
    assert gs.op.type == "Reshape"
    assert gs.get_shape().as_list() == [1, 2]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(gs, {x: [[1.0, 2.0], [3.0, 4.0]]}), [[4.0, 6.0]])


# ------------------------------------------------------------------------------------------
# tf.cond with an Operation in one branch and a bool Tensor in the other (K-FAC's async path)
# ------------------------------------------------------------------------------------------

def test_cond_operation_against_tensor_stands_in_the_branch_predicate():
    v = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    q = tf.placeholder(tf.bool, [])

    def nested():  # both branches Operations: a bool tensor
        return tf.cond(q, tf.no_op, lambda: tf.group(tf.assign_add(v, 1.0)))

    r = tf.cond(p, nested, lambda: tf.group(tf.assign_add(v, 10.0)))
    r2 = tf.cond(p, lambda: tf.assign_add(v, 100.0).op, lambda: tf.constant(True))
    assert r.dtype == tf.bool and r.get_shape().ndims == 0
    assert r2.dtype == tf.bool
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for pv, qv in [(True, True), (True, False), (False, True)]:
            got.append((sess.run(r, {p: pv, q: qv}), sess.run(v)))
        assert got == [(True, 0.0), (False, 1.0), (False, 11.0)]
        assert sess.run(r2, {p: True}) and sess.run(v) == 111.0
        assert sess.run(r2, {p: False}) and sess.run(v) == 111.0


def test_cond_operation_against_non_bool_tensor_fails():
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(ValueError, match="must have the same type: bool, float32"):
        tf.cond(p, tf.no_op, lambda: tf.constant(1.0))


def test_cond_runs_an_operation_made_outside_its_branch_on_every_step():
    # K-FAC's apply_gradients: cond(warm, lambda: kfac_update_op, cold_sgd) where kfac_update_op
    # was built before the cond; TF 1.x runs it whichever branch is taken
    runs = tf.Variable(0.0)
    cold = tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    made_before = tf.group(tf.assign_add(runs, 1.0))
    r = tf.cond(p, lambda: made_before, lambda: tf.group(tf.assign_add(cold, 1.0)))
    flag = tf.cond(p, lambda: made_before, lambda: tf.constant(False))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert not sess.run(r, {p: False})
        assert sess.run([runs, cold]) == [1.0, 1.0]
        assert sess.run(r, {p: True})
        assert sess.run([runs, cold]) == [2.0, 1.0]
        assert not sess.run(flag, {p: False}) and sess.run(runs) == 3.0
        assert sess.run(flag, {p: True}) and sess.run(runs) == 4.0


def test_nested_cond_returning_ops_of_enclosing_graphs():
    a, b, c = tf.Variable(0.0), tf.Variable(0.0), tf.Variable(0.0)
    p = tf.placeholder(tf.bool, [])
    q = tf.placeholder(tf.bool, [])
    top = tf.group(tf.assign_add(a, 1.0))

    def outer_branch():
        mid = tf.group(tf.assign_add(b, 1.0))
        return tf.cond(q, lambda: top, lambda: mid)

    r = tf.cond(p, outer_branch, lambda: tf.group(tf.assign_add(c, 1.0)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for pv, qv in [(False, False), (True, False), (True, True)]:
            got.append((bool(sess.run(r, {p: pv, q: qv})), sess.run([a, b, c])))
    assert got == [(False, [1.0, 0.0, 1.0]), (False, [2.0, 1.0, 1.0]), (True, [3.0, 2.0, 1.0])]
