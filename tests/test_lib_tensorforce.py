"""TF 1.x calls Tensorforce 0.5.2 makes, reduced to plain programs: each pins a difference its
agents, optimizers, saving and summaries found in tideflow."""

import glob
import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_while_v2_and_cond_v2_modules():
    # tensorflow.python.ops.while_v2 / cond_v2: the functional loop keeps loop_vars' structure
    # by default (a one-element list comes back a list)
    from tideflow.python.ops import cond_v2, while_v2

    out = while_v2.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * 3.0),
                              [tf.constant(0), tf.constant(0.5)], maximum_iterations=3)
    single = while_v2.while_loop(lambda x: x < 10, lambda x: x + 4, [tf.constant(1)])
    pick = cond_v2.cond_v2(tf.constant(False), lambda: tf.constant(7.0),
                           lambda: tf.constant(-2.0))
    assert isinstance(single, list) and len(single) == 1
    same = tf.while_loop(lambda x: x < 3, lambda x: x + 1, (tf.constant(0),),
                         return_same_structure=True)
    assert isinstance(same, list) and len(same) == 1
    with tf.Session() as sess:
        (i, s), (x,), p = sess.run([out, single, pick])
    assert (i, s, x, p) == (3, 13.5, 13, -2.0)


def test_variable_in_resource_scope_is_a_resource_variable():
    # TF 1.x: tf.Variable and get_variable follow the enclosing variable_scope's use_resource;
    # a resource variable's dtype is its value's dtype (int64, never int64_ref)
    with tf.variable_scope("agent", use_resource=True):
        step = tf.Variable(tf.zeros([], tf.int64), trainable=False, name="timestep")
        w = tf.get_variable("w", [2, 3])
    plain = tf.Variable(1.0, name="plain")
    direct = tf.Variable(2.0, use_resource=True, name="direct")
    scoped_off = tf.get_variable("off", [1], use_resource=False)
    assert step.dtype == tf.int64 and w.dtype == tf.float32 and direct.dtype == tf.float32
    assert plain.dtype == tf.float32_ref and scoped_off.dtype == tf.float32_ref
    assert "dtype=int64>" in repr(step)
    with tf.control_dependencies([step.assign_add(3)]):
        after = tf.identity(step)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(after) == 3
        assert sess.run(w).shape == (2, 3)


def test_resource_variable_restores_a_checkpoint_of_another_shape(tmp_path):
    # TF's AssignVariableOp takes the checkpoint's value whatever its shape (a saver restoring
    # a resource variable only checks static shapes); a reference variable refuses it
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        counts = tf.Variable([4, 9], name="counts", use_resource=True)
        with tf.Session() as sess:
            sess.run(counts.initializer)
            tf.train.Saver([counts]).save(sess, prefix)
    with tf.Graph().as_default():
        counts = tf.Variable([0], name="counts", use_resource=True)
        total = tf.reduce_sum(counts)
        with tf.Session() as sess:
            tf.train.Saver([counts]).restore(sess, prefix)
            assert sess.run(counts).tolist() == [4, 9] and sess.run(total) == 13
    with tf.Graph().as_default():
        counts = tf.Variable([0], name="counts")
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            tf.train.Saver([counts]).restore(sess, prefix)


def test_contrib_summary_scalar_of_one_element_tensor(tmp_path):
    # TF's WriteScalarSummary writes the first element of a tensor of any shape (a [?]-shaped
    # probability with batch size 1, as Tensorforce's summaries pass)
    from tideflow.summary.summary_iterator import summary_iterator

    cs = tf.contrib.summary
    x = tf.placeholder(tf.float32, [None])
    writer = cs.create_file_writer(str(tmp_path))
    with writer.as_default(), cs.always_record_summaries():
        op = cs.scalar("prob", x, step=5)
    with tf.Session() as sess:
        sess.run(cs.summary_writer_initializer_op())
        sess.run(op, {x: [0.25]})
        sess.run(op, {x: [0.75, 0.5]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="prob"):
            sess.run(op, {x: np.zeros([0], np.float32)})
        sess.run(writer.flush())
    path = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))[0]
    values = [(e.step, v.tag, v.simple_value) for e in summary_iterator(path)
              for v in e.summary.value]
    assert values == [(5, "prob", 0.25), (5, "prob", 0.75)]
