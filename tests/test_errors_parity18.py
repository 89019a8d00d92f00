"""Error parity, eighteenth session: the exception class and message TF 1.x programs meet.

Each expected message below is what real TF 1.15 printed for the same snippet (the
'Caused by op' / node tail of run-time errors is not compared); the tests need only tideflow.
"""

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def test_empty_graph_run_message_has_tf_spacing():
    with tf.Session() as s, pytest.raises(RuntimeError) as e:
        s.run(None)
    assert str(e.value) == ("The Session graph is empty.  Add operations to the graph before "
                            "calling run().")


def test_strided_slice_error_lists_only_the_strides_as_computed():
    with pytest.raises(ValueError) as e:
        tf.zeros([2, 3])[0, 0, 0]
    assert str(e.value) == (
        "Index out of range using input dim 2; input has only 2 dims for 'strided_slice' "
        "(op: 'StridedSlice') with input shapes: [2,3], [3], [3], [3] and with computed input "
        "tensors: input[3] = <1 1 1>.")


@pytest.mark.parametrize("b,e,s,msg", [
    ([0, 0], [1, 1], [1, 1, 1], "but are 2 and 3. Shapes are [2] and [3]."),
    ([0, 0, 0], [1, 1], [1, 1], "but are 3 and 2. Shapes are [3] and [2]."),
])
def test_strided_slice_spec_lengths_are_merged_as_shapes(b, e, s, msg):
    with pytest.raises(ValueError) as err:
        tf.strided_slice(tf.zeros([2, 3]), b, e, s)
    assert str(err.value).startswith("Dimension 0 in both shapes must be equal, " + msg)


def test_static_rank_asserts_keep_the_message_separator():
    with pytest.raises(ValueError) as e:
        tf.assert_rank(tf.zeros([2, 3]), 3)
    assert str(e.value) == ".  Tensor zeros:0 must have rank 3.  Received rank 2, shape (2, 3)"
    with pytest.raises(ValueError) as e:
        tf.assert_rank_at_least(tf.zeros([2], name="z1"), 3, message="m")
    assert str(e.value) == ("m.  Tensor z1:0 must have rank at least 3.  Received rank 1, "
                            "shape (2,)")
    with pytest.raises(ValueError) as e:
        tf.assert_rank_in(tf.zeros([2], name="z2"), [0, 2])
    assert str(e.value) == (".  Tensor z2:0 must have rank in (array(0, dtype=int32), "
                            "array(2, dtype=int32)).  Received rank 1, shape (2,)")


def test_assert_shapes_static_message():
    with pytest.raises(ValueError) as e:
        tf.debugging.assert_shapes([(tf.zeros([2, 3]), ("N", "Q")), (tf.zeros([3]), ("N",))])
    assert str(e.value) == (".  Specified by tensor zeros:0 dimension 0.  Tensor zeros_1:0 "
                            "dimension 0 must have size 2.  Received size 3, shape (3,)")


def test_assert_type_message():
    with pytest.raises(TypeError) as e:
        tf.assert_type(tf.zeros([2]), tf.int32, message="tmsg")
    assert str(e.value) == "tmsg  zeros:0 must be of type <dtype: 'int32'>"
