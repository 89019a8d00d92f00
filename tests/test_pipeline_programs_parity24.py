"""Input pipelines, queues and sequence models written as TF 1.x users write them: the
differences a sweep of small programs found against TF 1.15, each pinned to the numbers and
words TF 1.15 gave (measured with TF 1.15 on CPU)."""

import numpy as np

import tideflow as tf


def test_ctc_loss_all_blank_label_row_scores_as_tf():
    # A label row holding only the blank class (or any class >= num_classes - 1) is an empty
    # target. TF 1.15's beta recursion seeds (U'-2, T-1), which for U' = 1 is (0, T-2): the row
    # scores -log(p_0 .. p_{T-2} * (1 + p_{T-1})) over the blank's probabilities, and the last
    # step's blank gradient is p - p / (1 + p). Measured in TF 1.15.
    logits = tf.constant(np.random.RandomState(5).randn(6, 2, 4).astype(np.float32))
    seq_len = tf.constant([6, 4])
    labels = tf.SparseTensor(indices=[[0, 0], [1, 0]], values=tf.constant([1, 3], tf.int32),
                             dense_shape=[2, 1])
    loss = tf.nn.ctc_loss(labels, logits, seq_len)
    grad = tf.gradients(loss, logits)[0]
    with tf.Session() as s:
        lv, gv = s.run([loss, grad])
    np.testing.assert_allclose(lv, [6.1765842, 5.3378267], rtol=1e-6)
    np.testing.assert_allclose(gv[3, 1], [0.2160, 0.1937, 0.4758, 0.0118], atol=1e-4)
    np.testing.assert_allclose(gv[2, 1], [0.2002, 0.2266, 0.2232, -0.6501], atol=1e-4)
    assert not gv[4:, 1].any()


def test_ctc_loss_empty_targets_merge_repeated_and_mixed_rows():
    # rows: [2] (the blank: an empty target) over 5 steps and over 2; [5] (above the blank:
    # empty) over 2 steps; [0, 2] (ends at the blank) over 3 steps. Measured in TF 1.15.
    logits = tf.constant(np.random.RandomState(5).randn(5, 4, 3).astype(np.float32))
    labels = tf.SparseTensor(indices=[[0, 0], [1, 0], [2, 0], [3, 0], [3, 1]],
                             values=tf.constant([2, 2, 5, 0, 2], tf.int32), dense_shape=[4, 2])
    # (the two-step empty row's 'probability' passes 1: TF's loss is negative there)
    want = {True: [5.8733, -0.164, 0.444, 1.2346], False: [5.8733, -0.164, 0.444, 1.7294]}
    with tf.Session() as s:
        for merge, expect in want.items():
            loss = tf.nn.ctc_loss(labels, logits, tf.constant([5, 2, 2, 3]),
                                  ctc_merge_repeated=merge, ignore_longer_outputs_than_inputs=True)
            lv, gv = s.run([loss, tf.gradients(loss, logits)[0]])
            np.testing.assert_allclose(lv, expect, atol=1e-4)
            np.testing.assert_allclose(gv[1, 2], [0.0882, 0.7618, 0.0196], atol=1e-4)
            np.testing.assert_allclose(gv[0, 2], [0.1863, 0.2559, -0.4422], atol=1e-4)


def _error(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 (the test reads the class and words)
        return e
    raise AssertionError("no error")


def test_core_cells_name_an_unknown_input_depth_as_a_tuple():
    # TF 1.15's core cells see the input shape as a tuple, contrib's as a TensorShape; neither
    # names the cell. Measured in TF 1.15.
    state = tf.nn.rnn_cell.LSTMStateTuple(tf.zeros([2, 4]), tf.zeros([2, 4]))
    x = tf.placeholder(tf.float32, [2, None])
    for cell, st in ((tf.nn.rnn_cell.LSTMCell(4), state), (tf.nn.rnn_cell.BasicLSTMCell(4), state),
                     (tf.nn.rnn_cell.GRUCell(4), tf.zeros([2, 4])),
                     (tf.nn.rnn_cell.BasicRNNCell(4), tf.zeros([2, 4]))):
        e = _error(lambda cell=cell, st=st: cell(x, st))
        assert type(e) is ValueError
        assert str(e) == "Expected inputs.shape[-1] to be known, saw shape: (2, None)"
    e = _error(lambda: tf.contrib.rnn.IndRNNCell(4)(x, tf.zeros([2, 4])))
    assert str(e) == "Expected inputs.shape[-1] to be known, saw shape: (2, ?)"


def test_an_error_in_a_cells_call_reads_as_autograph_converted_code():
    # TF 1.15 runs the call of every layer whose class is not Keras's own (tf.layers, RNN
    # cells, a user's RNNCell) through AutoGraph: an error there is headed "in converted
    # code:", lists the frames (the user's marked "  *") and ends with the error. Measured in
    # TF 1.15 (its library frames are its own files).
    with tf.Graph().as_default():
        _check_converted_call_errors()


def _check_converted_call_errors():
    e = _error(lambda: tf.nn.rnn_cell.BasicRNNCell(4)(tf.zeros([2, 3]), tf.zeros([2, 5])))
    assert type(e) is ValueError
    msg = str(e)
    assert msg.startswith("in converted code:\n")
    assert "rnn_cell_impl.py:" in msg.split("\n")[3] and msg.split("\n")[3].endswith(" call")
    assert msg.endswith(
        "\n\n    ValueError: Dimensions must be equal, but are 8 and 7 for 'basic_rnn_cell/MatMul' "
        "(op: 'MatMul') with input shapes: [2,8], [7,4].\n")
    # a cell inside a MultiRNNCell: the outer call's frame first, then the inner one's
    e = _error(lambda: tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4)])(
        tf.zeros([2, 3]), (tf.zeros([2, 5]),)))
    lines = str(e).split("\n")
    assert lines[4].strip() == "cur_inp, new_state = cell(cur_inp, cur_state)"
    assert lines[5].endswith(" call") and lines[3].endswith(" call")
    assert str(e).endswith("for 'multi_rnn_cell/cell_0/gru_cell/MatMul' (op: 'MatMul') with "
                           "input shapes: [2,8], [7,8].\n")

    class MyCell(tf.nn.rnn_cell.RNNCell):
        state_size = output_size = 2

        def call(self, inputs, state):
            raise ValueError("too many units")

    e = _error(lambda: tf.nn.dynamic_rnn(MyCell(), tf.zeros([2, 4, 3]), dtype=tf.float32))
    lines = str(e).split("\n")
    assert type(e) is ValueError and lines[0] == "in converted code:", lines
    assert lines[2].endswith(f":{MyCell.call.__code__.co_firstlineno + 1} call  *")
    assert lines[3:] == ['        raise ValueError("too many units")', "",
                         "    ValueError: too many units", ""]
    # an error in build is not call's: it stays as it is (TF builds before converting call)
    e = _error(lambda: tf.layers.Dense(3)(tf.zeros([2, 3], tf.int32)))
    assert str(e) == "Unable to build `Dense` layer with non-floating point dtype <dtype: 'int32'>"


class _ClipCell(tf.nn.rnn_cell.RNNCell):
    state_size = 2
    output_size = 2

    def call(self, inputs, state):
        s = state + tf.reduce_sum(inputs, 1, keepdims=True)
        if tf.reduce_max(s) > 3.0:
            s = s * 0.5
        for i in tf.range(2):
            s = s + tf.cast(i, tf.float32)
        return s, s


class _DenseCell(tf.nn.rnn_cell.RNNCell):
    state_size = 2
    output_size = 2

    def call(self, inputs, state):
        out = tf.tanh(tf.layers.dense(inputs, 2) + state)
        return out, out


def test_a_users_cell_call_is_converted_by_autograph():
    # TF 1.15 converts a user RNNCell's call: a Python `if`/`for` over tensors is graph control
    # flow there. Values measured in TF 1.15.
    with tf.Graph().as_default():
        o, st = tf.nn.dynamic_rnn(_ClipCell(), tf.ones([2, 4, 3]), dtype=tf.float32)
        with tf.Session() as s:
            ov, sv = s.run([o, st])
    np.testing.assert_allclose(ov[0, :, 0], [4.0, 4.5, 4.75, 4.875])
    np.testing.assert_allclose(sv, [[4.875, 4.875], [4.875, 4.875]])
    # an error under a converted call names the user's line as written (nested converted
    # calls mapped back to their source)
    with tf.Graph().as_default():
        e = _error(lambda: tf.nn.dynamic_rnn(_DenseCell(), tf.zeros([2, 4, 3], tf.int32),
                                             dtype=tf.float32))
    lines = str(e).split("\n")
    assert lines[0] == "in converted code:"
    # (the library's frames share /work/main with this file: a "relative to" line comes first)
    at = next(i for i, line in enumerate(lines) if line.endswith(" call  *"))
    assert lines[at].endswith(f":{_DenseCell.call.__code__.co_firstlineno + 1} call  *")
    assert lines[at + 1] == "        out = tf.tanh(tf.layers.dense(inputs, 2) + state)"
    assert lines[-2] == ("    TypeError: Unable to build `Dense` layer with non-floating point "
                         "dtype <dtype: 'int32'>")


def _drain(d):
    nx = d.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        while True:
            try:
                out.append(s.run(nx))
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.OpError as e:
                out.append(e)
                return out


def test_bucket_by_sequence_length_pads_unknown_dims_to_the_boundary_as_tf():
    # TF 1.15 pads only the unknown dimensions (of padded_shapes, else of the elements) to the
    # bucket's boundary - 1; known ones stay, and stay known in the static shape. An element
    # of a statically known length is not padded at all. Measured in TF 1.15.
    ebl = tf.data.experimental.bucket_by_sequence_length
    with tf.Graph().as_default():
        g = tf.data.Dataset.from_generator(
            lambda: (np.ones([n, 2], np.int32) * n for n in [1, 3, 2, 4, 1]), tf.int32, [None, 2])
        d = g.apply(ebl(lambda x: tf.shape(x)[0], [2, 5], [2, 2, 2],
                        pad_to_bucket_boundary=True))
        assert str(d.output_shapes) == "(?, ?, 2)"
        out = [o.tolist() for o in _drain(d)]
        assert out == [[[[3, 3], [3, 3], [3, 3], [0, 0]], [[2, 2], [2, 2], [0, 0], [0, 0]]],
                       [[[1, 1]], [[1, 1]]], [[[4, 4], [4, 4], [4, 4], [4, 4]]]]
        g2 = tf.data.Dataset.from_generator(
            lambda: ((np.ones([n, n], np.int32), "w" * n) for n in [1, 3, 2]),
            (tf.int32, tf.string), ([None, None], []))
        d = g2.apply(ebl(lambda x, y: tf.shape(x)[0], [2, 4], [2, 2, 2],
                         padded_shapes=([None, 3], []), pad_to_bucket_boundary=True))
        assert d.output_shapes[0].as_list() == [None, None, 3]
        (a, sa), (b, sb) = _drain(d)
        assert a.tolist() == [[[1, 1, 1], [1, 1, 1], [1, 1, 1]], [[1, 1, 0], [1, 1, 0], [0] * 3]]
        assert sa.tolist() == [b"www", b"ww"]
        assert b.tolist() == [[[1, 0, 0]]] and sb.tolist() == [b"w"]
        fixed = tf.data.Dataset.from_tensor_slices(tf.constant([[1, 1, 0], [1, 1, 1]]))
        first, err = _drain(fixed.apply(ebl(lambda x: tf.reduce_sum(x), [3], [1, 1],
                                            pad_to_bucket_boundary=True)))
    assert first.tolist() == [[1, 1, 0]]
    assert isinstance(err, tf.errors.InvalidArgumentError)
    assert ("[Condition x < y did not hold element-wise:] [x (args_0:0) = ] [1] "
            "[y (Const:0) = ] [1]") in err.message


def test_ctc_decoders_check_inputs_in_tfs_order_and_words():
    # Measured in TF 1.15 (both decoders check alike; a negative length decodes nothing).
    x = tf.placeholder(tf.float32)
    sl = tf.placeholder(tf.int32)
    lg = np.random.RandomState(1).randn(4, 2, 3).astype(np.float32)
    cases = [((lg, [5, 1]), tf.errors.FailedPreconditionError, "sequence_length(0) <= 4"),
             ((lg[0], [1, 1]), tf.errors.InvalidArgumentError, "inputs is not a 3-Tensor"),
             ((lg, [1, 1, 1]), tf.errors.FailedPreconditionError,
              "len(sequence_length) != batch_size.  len(sequence_length):  3 batch_size: 2"),
             ((lg, [[1, 1]]), tf.errors.InvalidArgumentError, "sequence_length is not a vector"),
             ((lg[:0], [0, 0]), tf.errors.InvalidArgumentError, "max_time is 0")]
    greedy = tf.nn.ctc_greedy_decoder(x, sl)[1]
    beam = tf.nn.ctc_beam_search_decoder(x, sl, beam_width=3, top_paths=1)[1]
    with tf.Session() as s:
        for dec in (greedy, beam):
            for (xv, sv), cls, msg in cases:
                e = _error(lambda dec=dec, xv=xv, sv=sv: s.run(dec, {x: xv, sl: sv}))
                assert type(e) is cls and e.message.split("\n")[0] == msg, (e, msg)
        np.testing.assert_allclose(s.run(greedy, {x: lg, sl: [-1, 2]}), [[0.0], [-2.3275]],
                                   atol=1e-4)
        np.testing.assert_allclose(s.run(beam, {x: lg, sl: [-1, 2]}), [[0.0], [-0.2922]],
                                   atol=1e-4)
        e = _error(lambda: s.run(tf.nn.ctc_beam_search_decoder(x, sl, beam_width=2,
                                                               top_paths=3)[1],
                                 {x: lg, sl: [4, 4]}))
        assert e.message.split("\n")[0] == "requested more paths than the beam width."
        e = _error(lambda: s.run(tf.nn.ctc_beam_search_decoder(x, sl, beam_width=4,
                                                               top_paths=2)[1],
                                 {x: lg, sl: [0, 2]}))
        assert e.message.split("\n")[0] == "Less leaves in the beam search than requested."


def test_an_error_inside_a_dataset_function_reads_as_tfs_function_runtime_writes_it():
    # TF 1.15: "{{function_node __inference_Dataset_<transformation>_<name>_<uid>}} " ahead, the
    # node as "[[{{node OP}}]]", then the iterator's op plainly; the error names no op (the
    # function's ops are no graph's the session knows). Measured in TF 1.15 (its uid differs).
    with tf.Graph().as_default():
        a = tf.data.Dataset.range(10)
        nx = a.map(lambda x: tf.check_numerics(tf.cast(x, tf.float32) / 0., "boom")) \
            .make_one_shot_iterator().get_next()
        with tf.Session() as s:
            e = _error(lambda: s.run(nx))
    assert type(e) is tf.errors.InvalidArgumentError
    assert e.op is None and e.node_def is None
    head, rest = e.message.split("}} ", 1)
    assert head.startswith("{{function_node __inference_Dataset_map_<lambda>_")
    assert rest == ("boom : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]\n"
                    "\t [[IteratorGetNext]]")

    # a named function's tag is one TF's session reads, and drops: the space after it stays
    def parse(x):
        return tf.check_numerics(tf.cast(x, tf.float32) / 0., "boom")

    with tf.Graph().as_default():
        nx = tf.data.Dataset.range(3).map(parse).make_one_shot_iterator().get_next()
        with tf.Session() as s:
            e = _error(lambda: s.run(nx))
    assert e.op is None
    assert e.message == (" boom : Tensor had NaN values\n\t [[{{node CheckNumerics}}]]\n"
                         "\t [[IteratorGetNext]]")


def test_py_func_error_text_is_tfs():
    # TF 1.15 joins the traceback's parts with blank lines and ends with one more newline
    def f(v):
        raise ValueError("bad")

    with tf.Graph().as_default():
        y = tf.py_func(f, [tf.constant(1)], tf.float64)
        with tf.Session() as s:
            e = _error(lambda: s.run(y))
    text = e.message[:e.message.index("\t [[node PyFunc")]
    assert text.startswith("ValueError: bad\nTraceback (most recent call last):\n\n  File ")
    assert text.endswith("\n    raise ValueError(\"bad\")\n\nValueError: bad\n\n\n")
    assert "^^^" not in text


def test_from_generator_errors_are_py_func_errors_as_tfs():
    # TF 1.15 runs the generator in a py_func of a dataset function: a rejected element or the
    # generator's own exception is a py_func's error (its traceback, then the node and the
    # iterator's op plainly), naming no op; the iteration goes on after a rejected element.
    def gen():
        yield [1, 2]
        yield [3]
        yield [5, 6]
        raise KeyError("boom")

    with tf.Graph().as_default():
        nx = tf.data.Dataset.from_generator(gen, tf.int32, [2]).make_one_shot_iterator() \
            .get_next()
        with tf.Session() as s:
            assert s.run(nx).tolist() == [1, 2]
            e = _error(lambda: s.run(nx))
            assert type(e) is tf.errors.InvalidArgumentError and e.op is None
            lines = e.message.split("\n")
            assert lines[0] == ("ValueError: `generator` yielded an element of shape (1,) where "
                                "an element of shape (2,) was expected.")
            assert lines[1] == "Traceback (most recent call last):"
            assert e.message.endswith("was expected.\n\n\n\t [[{{node PyFunc}}]]\n"
                                      "\t [[IteratorGetNext]]")
            assert s.run(nx).tolist() == [5, 6]
            e = _error(lambda: s.run(nx))
            assert type(e) is tf.errors.UnknownError and e.op is None
            assert e.message.startswith("KeyError: 'boom'\nTraceback (most recent call last):")
            assert e.message.endswith("\n\n\n\t [[{{node PyFunc}}]]\n\t [[IteratorGetNext]]")
