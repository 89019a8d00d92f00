"""TF 1.15 parity fixes of the sixteenth session (the lead's), each pinned with what TF 1.15
printed for the same program."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_rot90_static_shape_is_the_merge_of_all_four_rotations():
    # TF 1.15 selects the rotation with a case, whose output merges the four branches' shapes
    # (for any k, constant or not): sizes known only for square images
    want = {(6, 8, 3): "(?, ?, 3)", (8, 8, 3): "(8, 8, 3)", (None, 8, 8, 3): "(?, 8, 8, 3)",
            (2, 6, 8, 1): "(2, ?, ?, 1)", (None, None, 3): "(?, ?, 3)"}
    for shape, text in want.items():
        for k in (0, 1, 2, 3, tf.placeholder(tf.int32, [])):
            out = tf.image.rot90(tf.placeholder(tf.float32, shape), k)
            assert str(out.shape) == text, (shape, k)
    img = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    with tf.Session() as sess:
        for k in range(4):
            np.testing.assert_array_equal(sess.run(tf.image.rot90(img, k)), np.rot90(img, k))


def test_ngrams_count_is_not_static_and_substr_errors_read_as_tf():
    # TF 1.15 printed these shapes and messages
    for shape, want in [([4], "(?,)"), ([2, 4], "(2, ?)"), ([None, 4], "(?, ?)")]:
        d = tf.placeholder(tf.string, shape)
        assert str(tf.strings.ngrams(d, 2).shape) == want
        assert str(tf.strings.ngrams(d, 2, pad_values="#").shape) == want
    cases = [(("ab", -5, 1), "pos -5 out of range for string b'ab' at index 0"),
             ((["x", ""], [0, 1], [1, 1]), "pos 1 out of range for string b'' at index 1"),
             (("ab", 3, 1, "UTF8_CHAR"), "pos 3 out of range for string at index 0"),
             (("ab", -5, 1, "UTF8_CHAR"), "pos -5 out of range for string at index 0")]
    with tf.Session() as sess:
        for args, msg in cases:
            kw = {"unit": args[3]} if len(args) > 3 else {}
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(tf.strings.substr(*args[:3], **kw))
            assert e.value.message.splitlines()[0] == msg


def test_round_of_small_negatives_is_positive_zero():
    # TF 1.15 printed [ 0.  0. -0. -2. -2.  0.  2.]: rounding from the floor up
    x = np.array([-0.4, -0.5, -0.0, -1.5, -2.5, 0.5, 1.5], np.float32)
    with tf.Session() as sess:
        got = sess.run(tf.round(x))
        one = sess.run(tf.round(tf.constant(-0.3, tf.float64)))
    np.testing.assert_array_equal(got, [0, 0, 0, -2, -2, 0, 2])
    assert np.signbit(got).tolist() == [False, False, True, True, True, False, False]
    assert one == 0 and not np.signbit(one)
