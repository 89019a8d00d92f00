"""reverse_sequence, matrix diagonal ops, norm, sort/search and scatter_nd: signatures, static
shapes, attrs and errors (values and gradients are in the op table, tests/ops/table_extra.py)."""

import numpy as np
import pytest

import tideflow as tf


def _run(*fetches, feed=None):
    with tf.Session() as s:
        out = s.run(list(fetches), feed)
    return out if len(out) > 1 else out[0]


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# -- reverse_sequence ---------------------------------------------------------------------


def test_reverse_sequence_attrs_and_static_shape():
    x = tf.placeholder(tf.float32, [None, 5, 3])
    y = tf.reverse_sequence(x, tf.constant([1, 2], tf.int64), seq_axis=1, batch_axis=0)
    assert y.op.type == "ReverseSequence"
    assert y.op.get_attr("seq_dim") == 1 and y.op.get_attr("batch_dim") == 0
    assert y.op.get_attr("Tlen") == tf.int64
    assert y.get_shape().as_list() == [2, 5, 3]  # batch dim taken from seq_lengths


def test_reverse_sequence_bad_static_input_is_a_value_error():
    x = tf.zeros([2, 5, 3])
    with pytest.raises(ValueError, match="ReverseSequence.*batch_dim"):
        tf.reverse_sequence(x, [1, 2, 3], seq_axis=1)
    with pytest.raises(ValueError, match="batch_dim == seq_dim"):
        tf.reverse_sequence(x, [1, 2], seq_axis=0, batch_axis=0)
    with pytest.raises(ValueError, match="seq_dim must be < input rank: 3 vs. 3"):
        tf.reverse_sequence(x, [1, 2], seq_axis=3)
    with pytest.raises(ValueError, match="Cannot specify both 'seq_axis' and 'seq_dim'"):
        tf.reverse_sequence(x, [1, 2], seq_axis=1, seq_dim=1)


def test_reverse_sequence_bad_lengths_at_run_time():
    x = tf.placeholder(tf.float32)
    n = tf.placeholder(tf.int64)
    y = tf.reverse_sequence(x, n, seq_axis=1)
    data = np.zeros((2, 4), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seq_lengths\[1\] = 5 is not in"):
        _run(y, feed={x: data, n: [1, 5]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\(3 vs. 2\)"):
        _run(y, feed={x: data, n: [1, 2, 3]})
    np.testing.assert_array_equal(_run(y, feed={x: np.arange(8.).reshape(2, 4), n: [4, 2]}),
                                  [[3, 2, 1, 0], [5, 4, 6, 7]])
