"""Tutorial-program patterns (the nlintz, MorvanZhou, easy-tensorflow and sjchoi86 collections)
run under TF 1.15 and tideflow with their printed output compared; expected values and names
are what TF 1.15 printed for these same calls."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_gradient_descent_on_a_nested_sine_fits_as_tf():
    # two scalar variables from Python numbers, a NumPy float32 grid folded into the graph
    x = np.linspace(-1, 1, 50, dtype=np.float32)
    y = np.sin(2.5 * np.cos(1.2 * x)) + 0.05 * np.cos(7 * x)
    a, b = [tf.Variable(initial_value=p, dtype=tf.float32) for p in [2, 4.5]]
    pred = tf.sin(b * tf.cos(a * x))
    mse = tf.reduce_mean(tf.square(y - pred))
    assert repr(a) == "<tf.Variable 'Variable:0' shape=() dtype=float32_ref>"
    assert str(pred) == 'Tensor("Sin:0", shape=(50,), dtype=float32)'
    assert str(mse) == 'Tensor("Mean:0", shape=(), dtype=float32)'
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(mse)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(60):
            a_, b_, m_ = s.run([a, b, mse])
            r, n = s.run([pred, train_op])
    assert r.dtype == np.float32 and n is None
    np.testing.assert_allclose([a_, b_, m_], [1.2293715, 2.5907238, 0.0034124744], rtol=1e-5)


def test_dataset_of_placeholders_runs_out_after_its_epochs():
    npx = np.linspace(-1, 1, 80)[:, None]
    npy = npx ** 2
    tfx = tf.placeholder(npx.dtype, npx.shape)
    tfy = tf.placeholder(npy.dtype, npy.shape)
    ds = tf.data.Dataset.from_tensor_slices((tfx, tfy)).shuffle(100).batch(32).repeat(3)
    it = ds.make_initializable_iterator()
    bx, by = it.get_next()
    loss = tf.losses.mean_squared_error(by, tf.layers.dense(bx, 1))
    assert str(ds.output_shapes) == ("(TensorShape([Dimension(None), Dimension(1)]), "
                                     "TensorShape([Dimension(None), Dimension(1)]))")
    assert ds.output_types == (tf.float64, tf.float64)
    assert str(bx) == 'Tensor("IteratorGetNext:0", shape=(?, 1), dtype=float64)'
    # float64 inputs, a float32 loss (the loss collection's weights are float32)
    assert str(loss) == 'Tensor("mean_squared_error/value:0", shape=(), dtype=float32)'
    with tf.Session() as s:
        s.run([it.initializer, tf.global_variables_initializer()], {tfx: npx, tfy: npy})
        n = 0
        with pytest.raises(tf.errors.OutOfRangeError, match=r"^End of sequence"):
            while True:
                s.run(bx)
                n += 1
    assert n == 9  # 3 batches (32, 32, 16) a pass, 3 passes


def test_dynamic_rnn_last_output_gathered_by_length_is_the_final_state():
    tf.set_random_seed(3)
    x = tf.placeholder(tf.float32, [None, 4, 1])
    lengths = tf.placeholder(tf.int32, [None])
    o, st = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(5), x, sequence_length=lengths,
                              dtype=tf.float32)
    n = tf.shape(o)[0]
    idx = tf.range(0, n) * 4 + (lengths - 1)
    last = tf.gather(tf.reshape(o, [-1, 5]), idx)
    assert [str(t) for t in (o, st, n, idx, last)] == [
        'Tensor("rnn/transpose_1:0", shape=(?, 4, 5), dtype=float32)',
        'Tensor("rnn/while/Exit_3:0", shape=(?, 5), dtype=float32)',
        'Tensor("strided_slice:0", shape=(), dtype=int32)',
        'Tensor("add:0", shape=(?,), dtype=int32)',
        'Tensor("GatherV2:0", shape=(?, 5), dtype=float32)']
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        xs = np.arange(12, dtype=np.float32).reshape(3, 4, 1) / 10
        lv, sv = s.run([last, st], {x: xs, lengths: [4, 2, 1]})
    np.testing.assert_array_equal(lv, sv)


def test_char_rnn_with_legacy_seq2seq_names_as_tf():
    # one cell object stacked twice (shared weights, TF 1.x), rnn_decoder under a scope
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(8)] * 2)
    inp = tf.placeholder(tf.int32, [2, 3])
    z = cell.zero_state(2, tf.float32)
    with tf.variable_scope("rnnlm"):
        w = tf.get_variable("softmax_w", [8, 10])
        bb = tf.get_variable("softmax_b", [10])
        emb = tf.get_variable("embedding", [10, 8])
        ins = [tf.squeeze(t, [1]) for t in tf.split(tf.nn.embedding_lookup(emb, inp), 3, 1)]
    outs, last = tf.contrib.legacy_seq2seq.rnn_decoder(ins, z, cell, scope="rnnlm")
    logits = tf.nn.xw_plus_b(tf.reshape(tf.concat(outs, 1), [-1, 8]), w, bb)
    loss = tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        [logits], [tf.reshape(inp, [-1])], [tf.ones([6])], 10)
    g, gn = tf.clip_by_global_norm(tf.gradients(tf.reduce_mean(loss), tf.trainable_variables()),
                                   5.)
    cell_scope = "rnnlm_1/rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/"
    assert z[0].c.name == "MultiRNNCellZeroState/BasicLSTMCellZeroState/zeros:0"
    assert str(ins[0]) == 'Tensor("rnnlm/Squeeze:0", shape=(2, 8), dtype=float32)'
    assert outs[0].name == cell_scope + "Mul_5:0"
    assert last[1].h.name == cell_scope + "Mul_17:0"
    assert str(logits) == 'Tensor("xw_plus_b:0", shape=(6, 10), dtype=float32)'
    assert str(loss) == 'Tensor("sequence_loss_by_example/truediv:0", shape=(6,), dtype=float32)'
    assert str(gn) == 'Tensor("global_norm/global_norm:0", shape=(), dtype=float32)'
    assert g[0].name == "clip_by_global_norm/clip_by_global_norm/_0:0"
    assert [v.name for v in tf.trainable_variables()] == [
        "rnnlm/softmax_w:0", "rnnlm/softmax_b:0", "rnnlm/embedding:0",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
        "rnnlm/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0"]


def test_restore_from_a_missing_prefix_is_a_value_error_with_tfs_words(tmp_path):
    tf.Variable(1.0)
    saver = tf.train.Saver()
    prefix = str(tmp_path / "no_such_params")
    with tf.Session() as s, pytest.raises(ValueError) as info:
        saver.restore(s, prefix)
    assert str(info.value) == "The passed save_path is not a valid checkpoint: " + prefix


def test_tensor_array_ops_take_tf_1x_default_names():
    # TF 1.15 names each TensorArray op after its V3 kernel; a time-major dynamic_rnn's
    # outputs and map_fn/scan results print those names
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.unstack(tf.zeros([3, 2]), name="u").flow.name == "u/u/u:0"
    assert ta.write(0, [1., 2.], name="w").flow.name == "w/w:0"
    ta = ta.unstack(tf.zeros([3, 2]))
    assert ta.flow.name == "TensorArrayUnstack/TensorArrayScatter/TensorArrayScatterV3:0"
    assert ta.write(0, [1., 2.]).flow.name == "TensorArrayWrite/TensorArrayWriteV3:0"
    assert ta.scatter([0], tf.ones([1, 2])).flow.name == "TensorArrayScatter/TensorArrayScatterV3:0"
    assert tf.TensorArray(tf.float32, size=3).split(
        tf.ones([3, 2]), [1, 1, 1]).flow.name == "TensorArraySplit/TensorArraySplitV3:0"
    assert ta.read(1).name == "TensorArrayReadV3:0"
    assert ta.read(1, name="r").name == "r:0"
    assert ta.stack().name == "TensorArrayStack/TensorArrayGatherV3:0"
    assert ta.stack(name="st").name == "st/st:0"
    assert ta.gather([0, 1]).name == "TensorArrayGatherV3:0"
    assert ta.concat().name == "TensorArrayConcatV3:0"
    assert ta.size().name == "TensorArraySizeV3:0"
    assert ta.close().name == "TensorArrayCloseV3"
    o, _ = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.zeros([4, 3, 1]), time_major=True,
                             dtype=tf.float32)
    assert str(o) == ('Tensor("rnn/TensorArrayStack/TensorArrayGatherV3:0", shape=(4, 3, 2), '
                      'dtype=float32)')
    m = tf.map_fn(lambda v: (v[0], v[1] * 2), (tf.ones([3]), tf.ones([3])),
                  dtype=(tf.float32, tf.float32))
    assert [t.name for t in m] == ["map/TensorArrayStack/TensorArrayGatherV3:0",
                                   "map/TensorArrayStack_1/TensorArrayGatherV3:0"]
    s = tf.scan(lambda a, v: a + v, tf.ones([3, 2]), reverse=True)
    assert str(s) == 'Tensor("scan/TensorArrayStack/TensorArrayGatherV3:0", shape=(3, 2), dtype=float32)'
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(s), [[3, 3], [2, 2], [1, 1]])


def test_tensor_array_scatter_gradient_is_named_as_tf_gather():
    # TF 1.15's scatter gradient gathers the gradient array: map_fn/scan inputs' gradients
    x = tf.placeholder(tf.float32, [None, 3])
    g = tf.gradients(tf.map_fn(lambda v: v * v, x), x)[0]
    assert g.name == ("gradients/map/TensorArrayUnstack/TensorArrayScatter/"
                      "TensorArrayScatterV3_grad/TensorArrayGatherV3:0")
    assert str(g.shape) == "(?, 3)"
    with tf.Session() as s:
        np.testing.assert_allclose(s.run(g, {x: [[1., 2., 3.]]}), [[2., 4., 6.]])


def test_an_attr_value_of_the_wrong_kind_takes_no_op_name():
    # TF 1.15's generated wrappers convert attrs (make_type, make_bool, ...) before entering
    # the op's name scope: the refused op leaves its name free
    with pytest.raises(TypeError, match=r"^Expected DataType for argument 'dtype' not 'int'\.$"):
        tf.placeholder("int")
    assert tf.placeholder(tf.float32).name == "Placeholder:0"
    x = tf.ones([1, 4, 4, 1])
    w = tf.ones([1, 1, 1, 1])
    with pytest.raises(TypeError, match=r"^Expected string for argument 'padding' not 3\.$"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], padding=3)
    with pytest.raises(TypeError,
                       match=r"^Expected bool for argument 'use_cudnn_on_gpu' not 'x'\.$"):
        tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", use_cudnn_on_gpu="x")
    assert tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", use_cudnn_on_gpu=None).name == "Conv2D:0"
    # a refused input type still takes the name, as TF's
    with pytest.raises(TypeError):
        tf.decode_raw(tf.constant(["a"]), tf.string)
    assert tf.decode_raw(tf.constant(["a"]), tf.uint8).name == "DecodeRaw_1:0"


def test_reference_dtype_names_of_the_aliases():
    # TF 1.x's as_dtype takes "float_ref", "double_ref" and "half_ref" too
    assert tf.as_dtype("float_ref") == tf.float32_ref
    assert tf.as_dtype("double_ref") == tf.float64_ref
    assert tf.as_dtype("half_ref") == tf.float16_ref
    assert str(tf.placeholder("float_ref")) == 'Tensor("Placeholder:0", dtype=float32)'
