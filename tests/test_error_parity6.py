"""Error parity, sixth session: the errors TF 1.x programs meet most.

Each expected class, phase (graph construction or Session.run) and message fragment below was
observed by running the same snippet under real TensorFlow 2.21 in compat.v1 mode
(``import tensorflow.compat.v1 as tf; tf.disable_v2_behavior()``); the tests need only tideflow.
"""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_assert_rank_static_message_has_no_stray_prefix():
    # TF 2.21: ValueError "Tensor zeros:0 must have rank 3.  Received rank 2, shape (2, 3)".
    with pytest.raises(ValueError) as e:
        tf.assert_rank(tf.zeros([2, 3], name="zeros"), 3)
    assert str(e.value).startswith("Tensor zeros:0 must have rank 3.  Received rank 2")
    with pytest.raises(ValueError, match=r"^mine\.  Tensor z:0 must have rank 1"):
        tf.assert_rank(tf.zeros([2, 3], name="z"), 1, message="mine")


def test_assert_type_names_expected_and_actual_dtype():
    # TF 2.21: TypeError "Const:0 must be of type tf.float32; got tf.int32".
    with pytest.raises(TypeError) as e:
        tf.assert_type(tf.constant(1, name="Const"), tf.float32)
    assert str(e.value) == "Const:0 must be of type tf.float32; got tf.int32"


@pytest.mark.parametrize("exc,cls", [
    (KeyError("kk"), tf.errors.UnknownError),          # TF 2.21: UnknownError "KeyError: 'kk'"
    (RuntimeError("boom"), tf.errors.UnknownError),
    (ValueError("bad"), tf.errors.InvalidArgumentError),
    (NotImplementedError("ni"), tf.errors.UnimplementedError),
])
def test_generator_exception_maps_class_like_py_func(exc, cls):
    def gen():
        yield 1
        raise exc

    ds = tf.data.Dataset.from_generator(gen, tf.int32)
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == 1
        with pytest.raises(cls) as e:
            sess.run(nxt)
    assert type(exc).__name__ + ":" in str(e.value)
    assert str(exc.args[0]) in str(e.value)


def _saved_checkpoint(tmp_path):
    with tf.Graph().as_default():
        tf.Variable(1.0, name="a")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, str(tmp_path / "m"))


@pytest.mark.parametrize("which", ["dir", ".meta", ".data-00000-of-00001", "checkpoint"])
def test_restore_from_a_path_that_is_not_a_prefix_is_data_loss(tmp_path, which):
    # TF 2.21: Saver.restore(sess, <a directory / the .meta file / ...>) raises DataLossError
    # "Unable to open table file <path>: ...: perhaps your file is in a different file format".
    prefix = _saved_checkpoint(tmp_path)
    path = {"dir": str(tmp_path), "checkpoint": str(tmp_path / "checkpoint")}.get(
        which, prefix + which)
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    with tf.Session() as sess, pytest.raises(tf.errors.DataLossError) as e:
        saver.restore(sess, path)
    assert f"Unable to open table file {path}:" in str(e.value)
    assert ("Is a directory" in str(e.value)) == (which == "dir")


def test_restore_from_a_missing_prefix_is_still_a_value_error(tmp_path):
    # TF 2.21: ValueError "The passed save_path is not a valid checkpoint: <path>".
    tf.Variable(1.0, name="a")
    saver = tf.train.Saver()
    missing = str(tmp_path / "nothere" / "m")
    with tf.Session() as sess, pytest.raises(
            ValueError, match="The passed save_path is not a valid checkpoint"):
        saver.restore(sess, missing)


@pytest.mark.parametrize("pool,op", [("max_pool", "MaxPool"), ("avg_pool", "AvgPool")])
def test_2d_pool_of_a_rank3_input_names_the_rank(pool, op):
    # TF 2.21: ValueError "Shape must be rank 4 but is rank 3 for '{{node MaxPool}} = ...' with
    # input shapes: [5,5,3]." (a 4-long ksize asks for the 2-D pool; not a 1-D pool's length error)
    with pytest.raises(ValueError, match=rf"Shape must be rank 4 but is rank 3 for '{op}'") as e:
        getattr(tf.nn, pool)(tf.zeros([5, 5, 3]), [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    assert "[5,5,3]" in str(e.value)
    # A 1-D window on the same rank-3 input still pools over the middle axis.
    assert getattr(tf.nn, pool)(tf.zeros([2, 8, 3]), 2, 2, "SAME").shape.as_list() == [2, 4, 3]


def test_conv2d_depth_mismatch_names_both_depths():
    # TF 2.21: ValueError "Depth of input (3) is not a multiple of input depth of filter (4) for
    # '{{node Conv2D}} = Conv2D[...]' with input shapes: [1,5,5,3], [3,3,4,8]."
    with pytest.raises(ValueError, match=r"Depth of input \(3\) is not a multiple of input depth "
                                         r"of filter \(4\) for 'Conv2D'.*\[1,5,5,3\], \[3,3,4,8\]"):
        tf.nn.conv2d(tf.zeros([1, 5, 5, 3]), tf.zeros([3, 3, 4, 8]), [1, 1, 1, 1], "SAME")
    # At run time (fed shapes): InvalidArgumentError naming both depths.
    x = tf.placeholder(tf.float32, [None, None, None, None])
    y = tf.nn.conv2d(x, tf.zeros([3, 3, 4, 8]), [1, 1, 1, 1], "SAME")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError, match="3 vs 4"):
        sess.run(y, {x: np.zeros((1, 5, 5, 3))})
