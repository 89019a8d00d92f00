"""Training-loop machinery (MonitoredSession, SessionManager, Supervisor, Coordinator,
QueueRunner, warm starting, checkpoint utilities, device setters, SyncReplicasOptimizer,
Server) where TF 1.15's own tests found tideflow differing: each test pins one fix."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.training import session_manager


# -- SessionManager ---------------------------------------------------------------------------
def test_prepare_session_not_ready_error_accepts_a_list_of_init_ops():
    with tf.Graph().as_default():
        a = tf.Variable(4.0, name="a")
        b = tf.Variable(a, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="b")
        sm = session_manager.SessionManager(ready_op=tf.report_uninitialized_variables())
        # the model is still not ready (b): the message names the missing variable even
        # though init_op, a list, has no name of its own
        with pytest.raises(RuntimeError, match="did not make model ready.*b"):
            sm.prepare_session("", init_op=[a.initializer])
        del b


def test_variable_initialized_from_another_variable_survives_graph_def_round_trip():
    # its initial value is a cond whose body keeps a colocation with the new variable, an op
    # of the outer graph; importing the body must not reject that
    with tf.Graph().as_default() as g:
        a = tf.Variable(3, name="a")
        tf.Variable(a * 2, name="b")
        graph_def = g.as_graph_def()
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            sess.run("a/Assign")
            sess.run("b/Assign")
            assert sess.run("b:0") == 6


def test_wait_for_session_runs_local_init_on_a_grpc_master():
    server = tf.train.Server.create_local_server()
    with tf.Graph().as_default() as g:
        a = tf.Variable(7, name="a")
        b = tf.Variable(a, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="b")
        sm = session_manager.SessionManager(
            graph=g, ready_op=tf.report_uninitialized_variables(),
            ready_for_local_init_op=tf.report_uninitialized_variables(tf.global_variables()),
            local_init_op=b.initializer)
        chief = tf.Session(server.target, graph=g)
        chief.run(a.initializer)
        sess = sm.wait_for_session(server.target, max_wait_secs=5)
        assert sess.run([a, b]) == [7, 7]
        np.testing.assert_array_equal(sess.run(tf.report_uninitialized_variables()), [])
        sess.close()
        chief.close()


# -- Supervisor / training_util -----------------------------------------------------------------
def test_supervisor_services_with_a_one_element_global_step(tmp_path):
    # a global step of shape [1] (as some 0.x programs made it) reads as a Python int
    with tf.Graph().as_default():
        tf.Variable([41], name="global_step")
        # the standard services start with the session and read the step at once
        sv = tf.train.Supervisor(logdir=str(tmp_path))
        sess = sv.prepare_or_wait_for_session("")
        assert tf.train.global_step(sess, sv.global_step) == 41
        sv.stop()
        sess.close()
    assert list(tmp_path.glob("model.ckpt-41*"))

