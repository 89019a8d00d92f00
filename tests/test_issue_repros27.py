"""Short programs from TensorFlow's GitHub issue threads ("code to reproduce the issue"), run on
tideflow: what a user sees (values, reprs, exception classes and first lines) must be what
TF 1.15 shows. Each test names its issue; every expected value was measured in TF 1.15."""

import threading

import pytest

import tideflow as tf

# -- tf.train.Coordinator ------------------------------------------------------------------------

def test_coordinator_request_stop_with_an_exception_outside_an_except_block():
    # TF 1.15 records sys.exc_info() for an exception instance and %-formats its own message
    # with it: outside an except block that is (None, None, None) and the call fails with a
    # TypeError before the stop is set; the empty record then makes join fail as six.reraise
    # does (measured); threads reporting through stop_on_exception still work
    coord = tf.train.Coordinator()

    def worker(i):
        with coord.stop_on_exception():
            if i == 1:
                raise RuntimeError(f"boom {i}")

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(3)]
    for t in threads:
        t.start()
    with pytest.raises(RuntimeError, match="boom 1"):
        coord.join(threads)
    assert coord.should_stop()

    c2 = tf.train.Coordinator()
    with pytest.raises(TypeError, match="^not all arguments converted during string formatting$"):
        c2.request_stop(ValueError("v"))
    assert not c2.should_stop()
    c2.request_stop(ValueError("w"))  # the empty record is kept: no second TypeError
    assert c2.should_stop()
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        c2.join([])


def test_coordinator_request_stop_records_the_exception_being_handled():
    # inside an except block TF 1.15 records the exception in flight, not the one passed
    # (measured): join raises the KeyError
    c3 = tf.train.Coordinator()
    try:
        raise KeyError("k")
    except KeyError:
        c3.request_stop(ValueError("other"))
    with pytest.raises(KeyError):
        c3.join([])
    # after join, an exception passed with nothing in flight re-raises the empty exc_info
    c4 = tf.train.Coordinator()
    c4.request_stop()
    c4.join([])
    with pytest.raises(TypeError, match="'NoneType' object is not callable"):
        c4.request_stop(RuntimeError("late"))


# -- tf.pad ------------------------------------------------------------------------------------

def test_pad_unknown_mode_message_names_the_upper_cased_mode():
    # issue-style pad/tile/slice error program (tf.pad mode="wrap"): TF 1.15 upper-cases the
    # mode before it checks it, and its message shows the upper-cased name (measured)
    x = tf.constant([[1, 2], [3, 4]])
    with pytest.raises(ValueError, match="^Unknown padding mode: WRAP$"):
        tf.pad(x, [[0, 0], [0, 0]], mode="wrap")
    with tf.Session() as s:  # lower-case known modes work (measured)
        assert s.run(tf.pad(x, [[1, 0], [0, 1]], mode="reflect")).tolist() == [
            [3, 4, 3], [1, 2, 1], [3, 4, 3]]


# -- tf.while_loop -----------------------------------------------------------------------------

def test_while_loop_body_changing_a_type_fails_at_the_next_run_not_at_build():
    # issue-style while_loop error program (a body returning float for an int32 loop
    # variable): TF 1.15 builds the loop (its Exit keeps the entering type) and the whole graph
    # fails at the session's first run, whatever is fetched, with the Merge's input error
    # (measured)
    with tf.Graph().as_default():
        i = tf.constant(0)
        x = tf.constant(1.0)
        r = tf.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, tf.cast(x, tf.int64)), [i, x])
        assert [t.name for t in r] == ["while/Exit:0", "while/Exit_1:0"]
        assert [t.dtype for t in r] == [tf.int32, tf.float32]
        msg = ("^Input 1 of node while/Merge_1 was passed int64 from while/NextIteration_1:0 "
               "incompatible with expected float.$")
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
            s.run(tf.constant(1))
    with tf.Graph().as_default():
        # with maximum_iterations the counter is the loop's first variable (measured)
        r = tf.while_loop(lambda i: i < 3, lambda i: tf.cast(i, tf.float32), [tf.constant(0)],
                          maximum_iterations=3, name="ww")
        assert r.name == "ww/Exit_1:0" and r.dtype == tf.int32
        msg = ("^Input 1 of node ww/Merge_1 was passed float from ww/NextIteration_1:0 "
               "incompatible with expected int32.$")
        with tf.Session() as s:
            for _ in range(2):
                with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
                    s.run(r)
