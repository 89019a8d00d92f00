"""Control flow, TensorArrays and queues as TF 1.15 programs see them: the names of the tensors
a loop's condition and body receive, and the errors and orders of queues and input pipelines.
Reference strings and values were measured in TF 1.15."""

import pytest

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


def test_a_loop_shape_error_names_the_shape_of_the_tensor_entering():
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        with pytest.raises(ValueError) as info:
            tf.while_loop(lambda i, x: i < 3, lambda i, x: [i + 1, tf.concat([x, x], 1)], [0, x],
                          shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 3])])
        sp = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
        with pytest.raises(ValueError) as sparse_info:
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (
                i + 1, tf.SparseTensor([[0, 0, 0]], [1.0], [2, 2, 2])), (tf.constant(0), sp))
    # measured in TF 1.15: the entering tensor's own shape, not the invariant's
    assert str(info.value).startswith(
        "Input tensor 'ones:0' enters the loop with shape (2, 3), but has shape (?, 6) after "
        "one iteration. To allow the shape")
    assert str(sparse_info.value).startswith(
        "Input tensor 'SparseTensor/indices:0' enters the loop with shape (2, 2), but has "
        "shape (1, 3) after one iteration.")


def test_a_composite_loop_variable_returned_as_something_else_is_nests_error():
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0], [1, 1]], [1.0, 2.0], [2, 2])
        ix = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
        with pytest.raises(ValueError) as as_tensor:
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, s.values),
                          (tf.constant(0), ix))
        with pytest.raises(ValueError) as values_dtype:
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, tf.SparseTensor(
                s.indices, tf.cast(s.values, tf.int32), s.dense_shape)), (tf.constant(0), sp))
        with pytest.raises(TypeError) as other_kind:
            tf.while_loop(lambda i, s: i < 2, lambda i, s: (i + 1, ix), (tf.constant(0), sp))
    # measured in TF 1.15 (the objects' reprs aside)
    assert str(as_tensor.value).startswith("The two structures don't have the same nested")
    assert (
        'More specifically: Substructure "type=IndexedSlices str=IndexedSlices(indices=Tensor('
        '"while/Identity_2:0", shape=(1,), dtype=int32), values=Tensor("while/Identity_1:0", '
        'shape=(1, 2), dtype=float32), dense_shape=Tensor("while/Identity_3:0", shape=(2,), '
        'dtype=int32))" is a sequence, while substructure "type=Tensor str=Tensor('
        '"while/Identity_1:0", shape=(1, 2), dtype=float32)" is not\n'
        "Entire first structure:\n[., .]\nEntire second structure:\n[., .]"
    ) in str(as_tensor.value)
    assert (
        "More specifically: Incompatible CompositeTensor TypeSpecs: type=SparseTensorSpec "
        "str=SparseTensorSpec(TensorShape([Dimension(None), Dimension(None)]), tf.float32) vs. "
        "type=SparseTensorSpec str=SparseTensorSpec(TensorShape([Dimension(None), "
        "Dimension(None)]), tf.int32)\n"
    ) in str(values_dtype.value)
    assert (
        "More specifically: The two namedtuples don't have the same sequence type. First "
        'structure type=SparseTensor str=SparseTensor(indices=Tensor("while_2/Identity_1:0", '
        'shape=(?, 2), dtype=int64), values=Tensor("while_2/Identity_2:0", shape=(?,), '
        'dtype=float32), dense_shape=Tensor("while_2/Identity_3:0", shape=(2,), dtype=int64)) '
        "has type SparseTensor, while second structure type=IndexedSlices str=IndexedSlices("
        'indices=Tensor("Const_1:0", shape=(1,), dtype=int32), values=Tensor("Const:0", '
        'shape=(1, 2), dtype=float32), dense_shape=Tensor("Const_2:0", shape=(2,), '
        "dtype=int32)) has type IndexedSlices\n"
    ) in str(other_kind.value)


def test_a_loop_invariants_gradient_is_named_as_tfs_accumulator_exit():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 5, 3])
        out, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicLSTMCell(4), x, dtype=tf.float32)
        grads = [g.name for g, _ in tf.train.GradientDescentOptimizer(0.1).compute_gradients(
            tf.reduce_sum(out))]
        v = tf.Variable(tf.ones([3]))
        p = tf.placeholder(tf.float32, [None])
        y = tf.Variable(2.0)
        r = tf.while_loop(lambda i, a: i < 3, lambda i, a: [
            i + 1, a + tf.reduce_sum(v * v) + tf.reduce_sum(p)], [tf.constant(0), 0.0])
        invariants = [g.name for g in tf.gradients(r[1], [v, p])]

        def outer_body(i, a):  # the invariant is read first by the nested loop's body
            inner = tf.while_loop(lambda j, b: j < 2, lambda j, b: [j + 1, b * v], [0, a])
            return [i + 1, inner[1]]

        r = tf.while_loop(lambda i, a: i < 2, outer_body, [0, tf.ones([3])])
        nested = [g.name for g in tf.gradients(r[1], v)]
        r = tf.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, a + tf.multiply(v, y)],
                          [0, tf.zeros([3])])
        one_op = [g.name for g in tf.gradients(r[1], [v, y])]
        r = tf.while_loop(lambda i, a: i < y, lambda i, a: [i + 1.0, a * y], [0.0, 1.0])
        in_cond = [g.name for g in tf.gradients(r[1], y)]
        emb = tf.Variable(tf.ones([5, 2]))
        r = tf.while_loop(lambda i, a: i < 2, lambda i, a: [i + 1, a + tf.reduce_sum(
            tf.nn.embedding_lookup(emb, [i, i + 1]))], [tf.constant(0), tf.constant(0.0)])
        sparse = tf.gradients(r[1], emb)[0]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.gradients(r[1], emb)[0].values).tolist() == [[0.0, 0.0]] + [
                [1.0, 1.0]] * 4
    # measured in TF 1.15
    assert grads == ["gradients/rnn/while/basic_lstm_cell/MatMul/Enter_grad/b_acc_3:0",
                     "gradients/rnn/while/basic_lstm_cell/BiasAdd/Enter_grad/b_acc_3:0"]
    # (a shape not fully known: no b_acc constant, one name less)
    assert invariants == ["gradients_1/while/mul/Enter_grad/b_acc_3:0",
                          "gradients_1/while/Sum_1/Enter_grad/b_acc_2:0"]
    assert nested == ["gradients_2/while_1/while/mul/Enter_grad/b_acc_3:0"]
    assert one_op == ["gradients_3/while_2/Mul/Enter_grad/b_acc_3:0",
                      "gradients_3/while_2/Mul/Enter_1_grad/b_acc_3:0"]
    assert in_cond == ["gradients_4/while_3/Less/Enter_grad/b_acc_3:0"]
    scope = "gradients_5/while_4/embedding_lookup/Enter_grad/"
    assert (sparse.indices.name, sparse.values.name, sparse.dense_shape.name) == (
        scope + "b_acc_7:0", scope + "b_acc_8:0", scope + "b_acc_9:0")


def test_a_cond_inputs_gradient_is_named_as_tfs_switch_gradient_or_addn():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0, 3.0])
        b = tf.Variable(1.0)
        x = tf.placeholder(tf.float32, [3])
        c = tf.cond(x[0] > 0, lambda: x * w, lambda: x + b)
        both = [g.name for g in tf.gradients(c, [w, b, x])]
        c3 = tf.cond(x[0] > 0, lambda: x * w, lambda: x)
        returned = [g.name for g in tf.gradients(c3, [w, x])]
        e = tf.Variable(tf.ones([4, 2]))
        c6 = tf.cond(x[0] > 0, lambda: tf.gather(e, [1, 2]), lambda: tf.zeros([2, 2]))
        g6 = tf.gradients(c6, e)[0]
        sliced = [g6.values.name, g6.indices.name, g6.dense_shape.name]
        c7 = tf.cond(x[0] > 0, lambda: tf.while_loop(
            lambda i, a: i < 2, lambda i, a: [i + 1, a * w], [0, x])[1], lambda: x)
        loop_in_cond = [g.name for g in tf.gradients(c7, [w, x])]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(tf.gradients(c, [w, b, x]), {x: [1.0, 2.0, 3.0]})[0].tolist() == [
                1.0, 2.0, 3.0]
    # measured in TF 1.15: 'cond/mul/Switch_1' is w's Switch into the true branch (x has
    # 'cond/mul/Switch'); x, read by both branches, gets the AddN of their two gradients
    assert both == ["gradients/cond/mul/Switch_1_grad/cond_grad:0",
                    "gradients/cond/add/Switch_1_grad/cond_grad:0", "gradients/AddN:0"]
    assert returned == ["gradients_1/cond_1/mul/Switch_1_grad/cond_grad:0", "gradients_1/AddN:0"]
    scope = "gradients_2/cond_2/GatherV2/Switch_grad/cond_grad/"
    assert sliced == [scope + "Merge:0", scope + "Merge_1:0", scope + "Merge_2:0"]
    assert loop_in_cond == ["gradients_3/cond_3/while/mul/Switch_grad/cond_grad:0",
                            "gradients_3/AddN:0"]


def test_a_tensor_a_branch_returns_as_it_is_has_the_switch_after_the_predicates():
    with tf.Graph().as_default():
        w = tf.Variable(2.0)
        v = tf.Variable(3.0)
        p = tf.placeholder(tf.bool, [])
        c = tf.cond(p, lambda: w, lambda: v * 2.0)
        first = [g.name for g in tf.gradients(c, [w, v])]
        c = tf.cond(p, lambda: tf.identity(w), lambda: v)
        second = [g.name for g in tf.gradients(c, [w, v])]
    # measured in TF 1.15 ('cond/Switch' is the predicate's own)
    assert first == ["gradients/cond/Switch_1_grad/cond_grad:0",
                     "gradients/cond/mul/Switch_grad/cond_grad:0"]
    assert second == ["gradients_1/cond_1/Identity/Switch_grad/cond_grad:0",
                      "gradients_1/cond_1/Switch_1_grad/cond_grad:0"]


def test_an_empty_dict_of_loop_variables_is_no_loop_variables():
    with tf.Graph().as_default(), pytest.raises(ValueError,
                                                match="^No loop variables provided$"):
        tf.while_loop(lambda d: True, lambda d: d, {})


def test_a_tensor_array_write_of_another_dtype_builds_logs_and_fails_when_run(caplog):
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, size=2)
        written = ta.write(0, tf.constant(1)).stack()
        unstacked = ta.unstack(tf.constant([1, 2])).stack()
        floats_into_ints = tf.TensorArray(tf.int32, size=1).write(0, 1.5).stack()
        mapped = tf.map_fn(lambda e: tf.cast(e, tf.int32), tf.constant([1.0, 2.0]))
        # measured in TF 1.15: built with the array's dtype, refused by the write's kernel
        assert (written.dtype, mapped.dtype, mapped.shape) == (tf.float32, tf.float32, (2,))
        write = "TensorArray dtype is {} but Op is trying to write dtype {}.\n\t [[node {} "
        with tf.Session() as sess:
            for t, message in [
                    (written, write.format("float", "int32",
                                           "TensorArrayWrite/TensorArrayWriteV3")),
                    (unstacked, write.format(
                        "float", "int32",
                        "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3")),
                    (floats_into_ints, write.format("int32", "float",
                                                    "TensorArrayWrite_1/TensorArrayWriteV3")),
                    (mapped, write.format("float", "int32",
                                          "map/while/TensorArrayWrite/TensorArrayWriteV3"))]:
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(t)
                assert str(info.value).startswith(message)
    errors = [r.getMessage() for r in caplog.records if r.levelname == "ERROR"]
    logged = "Error: Input value {} has dtype <dtype: '{}'>, but expected dtype <dtype: '{}'>."
    assert [e.split("  This leads")[0] for e in errors] == [
        logged.format('Tensor("Const:0", shape=(), dtype=int32)', "int32", "float32"),
        logged.format('Tensor("Const_1:0", shape=(2,), dtype=int32)', "int32", "float32"),
        logged.format('Tensor("TensorArrayWrite_1/value:0", shape=(), dtype=float32)',
                      "float32", "int32"),
        logged.format('Tensor("map/while/Cast:0", shape=(), dtype=int32)', "int32", "float32")]
    assert errors[0].split("  Traceback:\n")[0].endswith(
        "This leads to undefined behavior and will be an error in future versions of "
        "TensorFlow.")


def test_a_loop_variables_gradient_is_named_as_tfs_exit_of_its_enters_gradient():
    with tf.Graph().as_default():
        x = tf.constant(2.0)
        r = tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a * 2.0], [0, x])
        plain = [g.name for g in tf.gradients(r[1], x)]
        r = tf.while_loop(lambda i, a: i < 3, lambda i, a: [i + 1, a * 2.0], [0, x],
                          maximum_iterations=5)
        bounded = [g.name for g in tf.gradients(r[1], x)]
        with tf.Session() as sess:
            assert sess.run(tf.gradients(r[1], x)) == [8.0]
    # measured in TF 1.15 (the counter of a bounded loop is its loop variable 0)
    assert plain == ["gradients/while/Enter_1_grad/Exit:0"]
    assert bounded == ["gradients_1/while_1/Enter_2_grad/Exit:0"]


def test_switch_case_input_gradients_are_named_as_tfs_case_gradient():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        w = tf.Variable(2.0)
        b = tf.Variable(1.0)
        r = tf.switch_case(tf.cast(x, tf.int32), [lambda: x * w, lambda: w + b,
                                                  lambda: b * 3.0], default=lambda: x)
        names = [g.name for g in tf.gradients(r, [w, x, b])]
    # measured in TF 1.15: one Identity per input of its Case op (x, w, b as captured)
    scope = "gradients/switch_case/indexed_case_grad/"
    assert names == [scope + "Identity_1:0", scope + "Identity:0", scope + "Identity_2:0"]


def test_a_tensor_array_of_negative_size_fails_in_tf_words():
    with tf.Graph().as_default():
        size = tf.placeholder_with_default(-2, [])
        ta = tf.TensorArray(tf.float32, size=size)
        dynamic = tf.TensorArray(tf.float32, size=size, dynamic_size=True)
        with tf.Session() as sess:
            for t in (ta.size(), dynamic.size()):
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(t)
                # measured in TF 1.15 (its TensorArrayV3 kernel)
                assert str(info.value).startswith("Size should be >= 0.\n\t [[node TensorArray")
            assert sess.run(ta.size(), {size: 3}) == 3
