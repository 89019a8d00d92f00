"""Parity with TF 1.15 for reinforcement-learning programs (DQN, actor-critic, PPO, A3C) and
for several Python threads sharing one graph and session; expected values come from TF 1.15."""

import threading

import tideflow as tf


def _in_thread(fn):
    out, errors = [], []

    def run():
        try:
            out.append(fn())
        except Exception as e:  # noqa: BLE001 - re-raised in the caller
            errors.append(e)

    t = threading.Thread(target=run)
    t.start()
    t.join()
    if errors:
        raise errors[0]
    return out[0]


def test_a_new_thread_builds_into_a_default_graph_of_its_own():
    # TF 1.15: the default graph stack is thread-local and so is its global graph, so a worker
    # thread that enters no graph neither sees the caller's `as_default()` graph nor the main
    # thread's global one; each such thread can make variables of the same names
    main = tf.get_default_graph()
    with tf.Graph().as_default() as g1:

        def build():
            g = tf.get_default_graph()
            w = tf.get_variable("w", [1])
            return g, w.name, tf.constant(1.0, name="c").name

        ga, wa, ca = _in_thread(build)
        gb, wb, cb = _in_thread(build)
    assert ga is not main and ga is not g1 and gb is not ga
    assert (wa, ca) == (wb, cb) == ("w:0", "c:0")
    assert g1.get_operations() == []
    assert not any(op.name == "w" for op in main.get_operations())


def test_reset_default_graph_in_a_thread_leaves_the_main_threads_graph():
    # TF 1.15: reset_default_graph() resets the calling thread's global graph only
    main = tf.get_default_graph()

    def reset():
        before = tf.get_default_graph()
        tf.reset_default_graph()
        return before, tf.get_default_graph()

    before, after = _in_thread(reset)
    assert before is not main and after is not before
    assert tf.get_default_graph() is main
