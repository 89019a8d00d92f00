"""Control flow, TensorArrays and queues as TF 1.15 programs see them: the names of the tensors
a loop's condition and body receive, and the errors and orders of queues and input pipelines.
Reference strings and values were measured in TF 1.15."""

import tideflow as tf


def test_loop_variables_are_named_as_tf_merge_and_identity_ops():
    seen = []

    def cond(i, x):
        seen.append(("cond", i.name, x.name))
        return i < 3

    def body(i, x):
        seen.append(("body", i.name, x.name))
        return [i + 1, x * 2.0]

    with tf.Graph().as_default():
        tf.while_loop(cond, body, [tf.constant(0), tf.constant(1.0)])
        # with maximum_iterations the counter comes first: the user's variables shift by one
        tf.while_loop(cond, body, [tf.constant(0), tf.constant(1.0)], maximum_iterations=4)
        tf.while_loop(cond, body, [tf.constant(0), tf.constant(1.0)], back_prop=False, name="nb")
    # measured in TF 1.15
    assert seen == [
        ("cond", "while/Merge:0", "while/Merge_1:0"),
        ("body", "while/Identity:0", "while/Identity_1:0"),
        ("cond", "while_1/Merge_1:0", "while_1/Merge_2:0"),
        ("body", "while_1/Identity_1:0", "while_1/Identity_2:0"),
        ("cond", "nb/Merge:0", "nb/Merge_1:0"),
        ("body", "nb/Identity:0", "nb/Identity_1:0"),
    ]


def test_a_tensor_an_inner_loop_captures_takes_no_name_from_its_body():
    seen = []

    def inner_body(j):
        seen.append(j.name)
        return j + 1

    def outer_body(i, x):
        j = tf.while_loop(lambda j: j < i, inner_body, [tf.constant(0)])
        seen.append(j.name)
        return [i + 1, x + tf.cast(j, tf.float32)]

    with tf.Graph().as_default():
        r = tf.while_loop(lambda i, x: i < 3, outer_body, [tf.constant(0), tf.constant(1.0)])
        with tf.Session() as sess:
            assert sess.run(r) == [3, 4.0]
    # measured in TF 1.15 (the outer 'while/Identity' the inner loop reads enters it as an
    # Enter op, so the inner body's own Identity keeps its name)
    assert seen == ["while/while/Identity:0", "while/while/Exit:0"]
