"""Differential parity of TF 0.8-1.4-era programs with TF 1.15 (seventeenth session): the names,
values and errors such programs print, as TF 1.15 printed them (literals below are TF's)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


class MyCell(tf.nn.rnn_cell.RNNCell):
    # a 2017-style custom cell: a plain RNNCell that implements call
    @property
    def state_size(self):
        return 4

    @property
    def output_size(self):
        return 4

    def call(self, inputs, state):
        w = tf.get_variable("w", [inputs.get_shape()[1] + 4, 4])
        out = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), w))
        return out, out


class MyLayerCell(tf.contrib.rnn.LayerRNNCell):
    @property
    def state_size(self):
        return 4

    @property
    def output_size(self):
        return 4

    def build(self, shape):
        self.w = self.add_variable("w", [shape[1].value + 4, 4])
        self.built = True

    def call(self, inputs, state):
        out = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), self.w))
        return out, out


def test_plain_rnn_cells_name_their_ops_one_scope_deeper_than_their_variables():
    # TF 1.15: an RNNCell that is not a LayerRNNCell re-enters the variable scope it is first
    # called in, so its ops sit under "<scope>/<scope>/..." while its variables do not
    x = [tf.placeholder(tf.float32, [2, 3]) for _ in range(2)]
    o, s = tf.contrib.rnn.static_rnn(MyCell(), x, dtype=tf.float32)
    assert [t.name for t in o] == ["rnn/rnn/my_cell/Tanh:0", "rnn/rnn/my_cell/Tanh_1:0"]
    o, s = tf.contrib.rnn.static_rnn(MyLayerCell(), x, dtype=tf.float32, scope="lay")
    assert [t.name for t in o] == ["lay/my_layer_cell/Tanh:0", "lay/my_layer_cell/Tanh_1:0"]
    cell = tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicLSTMCell(4, state_is_tuple=False) for _ in range(2)],
        state_is_tuple=False)
    o, s = tf.contrib.rnn.static_rnn(cell, x, dtype=tf.float32, scope="multi")
    assert [t.name for t in o] == ["multi/multi/multi_rnn_cell/cell_1/basic_lstm_cell/Mul_2:0",
                                   "multi/multi/multi_rnn_cell/cell_1/basic_lstm_cell/Mul_5:0"]
    assert s.name == "multi/multi/multi_rnn_cell/concat_1:0"
    names = sorted(v.name for v in tf.global_variables())
    assert names[:2] == ["lay/my_layer_cell/w:0",
                         "multi/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0"]
    assert "rnn/my_cell/w:0" in names


def test_wrapper_cells_called_in_a_scope_twice():
    x = [tf.placeholder(tf.float32, [2, 3]) for _ in range(2)]
    with tf.variable_scope("dec"):
        c = tf.contrib.rnn.OutputProjectionWrapper(tf.nn.rnn_cell.GRUCell(3), 5)
        o, s = c(x[0], c.zero_state(2, tf.float32))
    assert (o.name, s.name) == ("dec/dec/output_projection_wrapper/BiasAdd:0",
                                "dec/dec/output_projection_wrapper/gru_cell/add:0")
    with tf.variable_scope("dec", reuse=True):
        o, s = c(x[1], s)
    assert (o.name, s.name) == ("dec/dec/output_projection_wrapper/BiasAdd_1:0",
                                "dec/dec/output_projection_wrapper/gru_cell/add_1:0")
    # a cell called at the top level opens no extra scope
    c2 = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3)])
    o, _ = c2(x[0], c2.zero_state(2, tf.float32))
    assert o.name == "multi_rnn_cell/cell_0/gru_cell/add:0"


def test_attention_cell_wrapper_concatenates_along_a_const_of_its_own():
    x = [tf.placeholder(tf.float32, [2, 3]) for _ in range(2)]
    c = tf.contrib.rnn.AttentionCellWrapper(tf.nn.rnn_cell.GRUCell(3), 2, state_is_tuple=True)
    o, _ = tf.contrib.rnn.static_rnn(c, x, dtype=tf.float32, scope="att")
    assert o[0].name == "att/att/attention_cell_wrapper/attn_output_projection/BiasAdd:0"
    ops = [n.name for n in tf.get_default_graph().get_operations()
           if n.name.startswith("att/att/attention_cell_wrapper/")
           and n.type in ("Const", "ConcatV2")]
    assert ops[:4] == ["att/att/attention_cell_wrapper/Reshape/shape",
                       "att/att/attention_cell_wrapper/Const",
                       "att/att/attention_cell_wrapper/concat",
                       "att/att/attention_cell_wrapper/gru_cell/concat/axis"]


def test_embedding_attention_seq2seq_op_names_and_devices():
    enc = [tf.placeholder(tf.int32, [None], name=f"e{i}") for i in range(2)]
    dec = [tf.placeholder(tf.int32, [None], name=f"d{i}") for i in range(2)]
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4)])
    outs, _ = tf.contrib.legacy_seq2seq.embedding_attention_seq2seq(enc, dec, cell, 5, 6, 3)
    g = tf.get_default_graph()
    names = [o.name for o in g.get_operations()]
    assert len(names) == 339
    pre = "embedding_attention_seq2seq/embedding_attention_decoder/attention_decoder/"
    assert [n[len(pre):] for n in names if n.startswith(pre) and (
        "Initializer/Const" in n
        or n.endswith(("attention_decoder/Const", "/cell_0/gru_cell/MatMul")))] == [
        "bias/Initializer/Const", "Const",
        "output_projection_wrapper/multi_rnn_cell/cell_0/gru_cell/gates/bias/Initializer/Const",
        ("attention_decoder_1/output_projection_wrapper/output_projection_wrapper/"
         "multi_rnn_cell/cell_0/gru_cell/MatMul"),
        "output_projection_wrapper/bias/Initializer/Const", "Attention_0/bias/Initializer/Const",
        "AttnOutputProjection/bias/Initializer/Const"]
    # the embedding wrapper's lookup and the wrapped cell (its variables too) sit on the CPU
    assert {v.device for v in tf.global_variables() if "embedding_wrapper" in v.name} == {
        "/device:CPU:0"}
    tf.contrib.legacy_seq2seq.sequence_loss_by_example(
        outs, dec, [tf.ones([2])] * 2,
        softmax_loss_function=lambda labels, logits:
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    # a given loss function takes the targets unflattened (no Reshape)
    assert [o.type for o in g.get_operations() if o.name.startswith(
        "sequence_loss_by_example/")] == [
        "Shape", "SparseSoftmaxCrossEntropyWithLogits", "Mul", "Shape",
        "SparseSoftmaxCrossEntropyWithLogits", "Mul", "AddN", "AddN", "Const", "AddV2",
        "RealDiv"]


def test_0x_translate_model_shares_one_cell_across_buckets():
    # TF 0.12's seq2seq_model.py: one cell object built outside seq2seq_f, used by every
    # bucket (0.x cells held no variables). The buckets share the encoder's and decoder's
    # variables by name, as with a cell made per bucket in TF 1.15.
    buckets = [(2, 2), (3, 3)]
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.GRUCell(4)])
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(4)]
    wts = [tf.ones([2]) for _ in range(4)]
    _, losses = tf.nn.seq2seq.model_with_buckets(
        enc, dec, dec[1:], wts, buckets,
        lambda x, y: tf.nn.seq2seq.embedding_attention_seq2seq(x, y, cell, 5, 6, 3))
    names = sorted(v.name for v in tf.trainable_variables())
    assert len(names) == 28 and len(losses) == 2  # (TF 1.15 with a cell made per bucket)
    assert "embedding_attention_seq2seq/rnn/embedding_wrapper/multi_rnn_cell/cell_1/gru_cell/" \
           "gates/kernel:0" in names
    rng = np.random.RandomState(0)
    feed = {p: rng.randint(0, 5, 2) for p in enc + dec}
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(losses, feed)
    assert np.all(np.isfinite(got))


def test_contrib_unit_norm_tiles_and_divides_as_tf():
    x = tf.constant(np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 5)
    rows = {0: [0.9806, 0.9701, 0.9594, 0.9487], 1: [0.7547, 0.7428, 0.7322, 0.7229],
            2: [0.4535, 0.4837, 0.514, 0.5442]}  # TF 1.15's [1, 2] rows
    outs = [tf.contrib.layers.unit_norm(x, d) for d in rows]
    assert [u.name for u in outs] == ["UnitNorm/div:0", "UnitNorm_1/div:0", "UnitNorm_2/div:0"]
    for d in (-1, 3):
        with pytest.raises(ValueError, match="dim must be positive but smaller than the input"):
            tf.contrib.layers.unit_norm(x, d)
    assert len(tf.get_default_graph().get_operations()) == 59
    with tf.Session() as sess:
        got = sess.run(outs)
    for d, want in rows.items():
        np.testing.assert_allclose(got[d][1, 2], want, atol=1e-4)


def test_contrib_learn_canned_models_answer_contrib_variable_names(tmp_path):
    learn = tf.contrib.learn
    fcs = [tf.contrib.layers.real_valued_column("a", dimension=2),
           tf.contrib.layers.sparse_column_with_keys("k", ["x", "y"])]

    def input_fn():
        return ({"a": tf.constant([[1., 2.], [3., 4.]]),
                 "k": tf.SparseTensor([[0, 0], [1, 0]], ["x", "y"], [2, 1])},
                tf.constant([[1.], [2.]]))

    lr = learn.LinearRegressor(feature_columns=fcs, model_dir=str(tmp_path / "lin"))
    lr.fit(input_fn=input_fn, steps=2)
    assert lr.get_variable_value("linear/a/weight").shape == (2, 1)
    assert lr.get_variable_value("linear/k/weights").shape == (2, 1)
    np.testing.assert_allclose(lr.get_variable_value("linear/bias_weight"), [0.21314135],
                               rtol=1e-5)  # TF 1.15's
    x = np.random.RandomState(0).rand(60, 4).astype(np.float32)
    y = (x[:, 0] > 0.5).astype(np.int64)
    cols = learn.infer_real_valued_columns_from_input(x)
    d = learn.DNNLinearCombinedClassifier(linear_feature_columns=cols, dnn_feature_columns=cols,
                                          dnn_hidden_units=[3], model_dir=str(tmp_path / "dl"))
    d.fit(x=x, y=y, steps=2)
    assert d.get_variable_value("dnn/hiddenlayer_0/weights").shape == (4, 3)
    assert d.get_variable_value("dnn/logits/biases").shape == (1,)
    with pytest.raises(tf.errors.NotFoundError):
        d.get_variable_value("dnn/nope/weights")


def test_contrib_learn_load_dataset_unknown_name():
    with pytest.raises(ValueError, match="^Name of dataset is not found: nope$"):
        tf.contrib.learn.datasets.load_dataset("nope")


def test_contrib_learn_estimator_feeds_arrays_as_tfs_data_feeder(tmp_path):
    # fit/evaluate/predict on arrays: "input"/"output" placeholders (a vector x as a column,
    # y [n, 1] as [batch]) fed in RandomState(42)'s order; the model's seeded weights, the
    # batches and the results are TF 1.15's
    learn = tf.contrib.learn
    rng = np.random.RandomState(0)
    rng.rand(10, 3), rng.rand(10)
    x = rng.rand(7).astype(np.float32)
    y = rng.rand(7, 1).astype(np.float32)
    seen, sigs = [], []

    def model_fn(features, targets, mode):
        sigs.append((features.name, str(features.get_shape()),
                     None if targets is None else (targets.name, str(targets.get_shape()))))
        w = tf.get_variable("w", [1, 1])
        pred = tf.squeeze(tf.matmul(features, w), [1])
        loss = tf.reduce_mean(tf.square(pred - targets)) if targets is not None else None
        train = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step()) if mode == "train" else None
        return {"p": pred, "seen": tf.reduce_sum(features, 1)}, loss, train

    class Seen(tf.train.SessionRunHook):
        def before_run(self, ctx):
            return tf.train.SessionRunArgs(tf.get_default_graph().get_tensor_by_name("Sum:0"))

        def after_run(self, ctx, vals):
            seen.append(vals.results.tolist())

    est = learn.Estimator(model_fn=model_fn, model_dir=str(tmp_path),
                          config=learn.RunConfig(tf_random_seed=4))
    est.fit(x=x, y=y, steps=5, batch_size=3, monitors=[Seen()])
    want = [[0.3595, 0.437, 0.6706], [0.6976, 0.6668, 0.0602], [0.2104],
            [0.6706, 0.3595, 0.0602], [0.6976, 0.437, 0.2104]]
    assert [len(b) for b in seen] == [len(b) for b in want]
    for b, w in zip(seen, want):
        np.testing.assert_allclose(b, w, atol=1e-4)
    ev = est.evaluate(x=x, y=y, batch_size=3)
    np.testing.assert_allclose(ev["loss"], 0.1324, atol=1e-4)
    assert ev["global_step"] == 5
    np.testing.assert_allclose(est.get_variable_value("w"), [[0.2269]], atol=1e-4)
    got = [p["seen"] for p in est.predict(x=x, batch_size=3)]
    np.testing.assert_allclose(got, x, rtol=1e-6)
    assert sigs[0] == ("input:0", "(?, 1)", ("output:0", "(?,)"))
    assert sigs[1] == ("input:0", "(?, 1)", ("output:0", "(?,)"))


def test_contrib_losses_weighted_mean_builds_tfs_ops():
    lg = tf.placeholder(tf.float32, [None, 4])
    lb = tf.placeholder(tf.float32, [None, 4])
    tf.contrib.losses.mean_squared_error(lg, lb, tf.ones([2, 1]))
    assert [o.name[len("mean_squared_error/"):] for o in tf.get_default_graph().get_operations()
            if o.name.startswith("mean_squared_error/")] == [
        "SquaredDifference", "Squeeze", "Sum/reduction_indices", "Sum", "Mul", "Const", "Sum_1",
        "NotEqual/y", "NotEqual", "Cast", "Sum_2/reduction_indices", "Sum_2", "Shape",
        "Slice/begin", "Slice/size", "Slice", "Const_1", "Prod", "Cast_1", "Mul_1", "Const_2",
        "Sum_3", "Const_3", "Sum_4", "value"]
    p = tf.placeholder(tf.float32, [None, 3, 4])
    q = tf.placeholder(tf.float32, [None, 3, 4])
    tf.contrib.losses.mean_pairwise_squared_error(p, q, tf.ones([2]))
    assert [o.type for o in tf.get_default_graph().get_operations()
            if o.name.startswith("mean_pairwise_squared_error/")] == [
        "Sub", "Square", "Const", "Sum", "Const", "NotEqual", "Cast", "Const", "Sum", "Shape",
        "Const", "Const", "Slice", "Const", "Prod", "Cast", "Mul", "DivNoNan", "Const", "Mul",
        "Const", "Sum", "Square", "Square", "DivNoNan", "Const", "Mul", "Sub", "Const", "Sum",
        "Mul", "Const", "Sum", "Const", "Sum", "Const", "Greater", "Const", "Select"]
    # no weight present: 0, not NaN (TF's div_no_nan)
    with tf.Session() as sess:
        got = sess.run(tf.contrib.losses.mean_squared_error(tf.ones([2, 3]), tf.zeros([2, 3]),
                                                            0.0))
    assert got == 0.0


def test_contrib_input_from_real_valued_columns_builds_tfs_ops():
    layers = tf.contrib.layers
    tf.set_random_seed(2)
    f = {"a": tf.constant([1., 2.]), "b": tf.constant([[1., 2., 3.], [4., 5., 6.]], tf.float64),
         "c": tf.constant([[7], [8]])}
    cols = [layers.real_valued_column("b", dimension=3), layers.real_valued_column("a"),
            layers.real_valued_column("c", normalizer=lambda t: t * 2)]
    outs = {}
    net = layers.input_from_feature_columns(f, cols, cols_to_outs=outs)
    assert net.name == "input_from_feature_columns/concat:0"
    assert sorted((k.name, v.name) for k, v in outs.items()) == [
        ("a", "input_from_feature_columns/a/expand_dims:0"),
        ("b", "input_from_feature_columns/b/Cast:0"),
        ("c", "input_from_feature_columns/c/Cast:0")]
    h = layers.fully_connected(net, 3)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got_net, got_h = sess.run([net, h])
    np.testing.assert_allclose(got_net, [[1, 1, 2, 3, 14], [2, 4, 5, 6, 16]])
    np.testing.assert_allclose(got_h, [[0, 3.5223, 0], [0, 5.343, 0]], atol=1e-4)  # TF 1.15


@pytest.mark.parametrize("shapes,axis,want", [
    ([[2, 3], [3]], 0, "Shape must be rank 2 but is rank 1 for 'concat' (op: 'ConcatV2')"),
    ([[3], [2, 3], [2]], 0, "Shape must be rank 1 but is rank 2 for 'concat'"),
    ([[2, 3], [2, 3], [4, 5]], 0, ("Dimension 0 in both shapes must be equal, but are 3 and 5. "
                                  "Shapes are [3] and [5]. for 'concat'")),
    ([[2, 3], [2, 3], [4, 5]], -1, ("Dimension 0 in both shapes must be equal, but are 2 and 4. "
                                   "Shapes are [2] and [4]. for 'concat'")),
    ([[2, 3, 4], [2, 5, 6]], 1, ("Dimension 0 in both shapes must be equal, but are 4 and 6. "
                                "Shapes are [4] and [6]. for 'concat'")),
    ([[2, 3], [3, 2]], 2, "Shape must be at least rank 3 but is rank 2 for 'concat'"),
])
def test_concat_shape_errors_read_as_tfs(shapes, axis, want):
    # TF 1.15's words (the old concat(dim, values) order gives the same op; TF's stack names
    # the op after its failed auto-packing attempt: 'stack_1')
    with pytest.raises(ValueError) as e:
        tf.concat(axis, [tf.zeros(s) for s in shapes])
    assert str(e.value).startswith(want)


def test_stack_shape_errors_name_the_input_merged_from_the_last():
    with pytest.raises(ValueError) as e:
        tf.pack([tf.zeros([2, 3]), tf.zeros([2, 3]), tf.zeros([2, 4])])
    assert str(e.value) == (
        "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and "
        "[2,4].\n\tFrom merging shape 1 with other shapes. for 'pack_1' (op: 'Pack') with input "
        "shapes: [2,3], [2,3], [2,4].")
    with pytest.raises(ValueError, match=r"^Shapes must be equal rank, but are 1 and 2\n\tFrom "
                                         r"merging shape 0 with other shapes\. for 'stack_1'"):
        tf.stack([tf.zeros([3]), tf.zeros([2, 3]), tf.zeros([2, 3])])
    assert tf.concat(0, [tf.placeholder(tf.float32), tf.zeros([2, 3])]).get_shape().as_list() \
        == [None, 3]


def test_add_n_shape_error_reads_as_tfs():
    with pytest.raises(ValueError) as e:
        tf.add_n([tf.zeros([2, 3]), tf.zeros([2, 3]), tf.zeros([2, 4])])
    assert str(e.value) == (
        "Dimension 1 in both shapes must be equal, but are 3 and 4. Shapes are [2,3] and "
        "[2,4].\n\tFrom merging shape 1 with other shapes. for 'AddN' (op: 'AddN') with input "
        "shapes: [2,3], [2,3], [2,4].")


@pytest.mark.parametrize("paddings,kw,want", [
    ([[1, 1]], {}, "Shape must be rank 1 but is rank 2 for 'Pad' (op: 'Pad')"),
    ([[1, 2, 3], [1, 2, 3]], {}, "Dimension must be 2 but is 3 for 'Pad' (op: 'Pad')"),
    ([[1, 1], [1, 1], [0, 0]], {}, "Shape must be rank 3 but is rank 2 for 'Pad'"),
    ([[1, 1]], {"mode": "REFLECT"}, "Shape must be rank 1 but is rank 2 for 'MirrorPad'"),
    ([[1, 1]], {"constant_values": 1}, "Shape must be rank 1 but is rank 2 for 'PadV2'"),
])
def test_pad_shape_errors_read_as_tfs(paddings, kw, want):
    with pytest.raises(ValueError) as e:
        tf.pad(tf.zeros([2, 3]), paddings, **kw)
    assert str(e.value).startswith(want)


def test_reshape_with_two_minus_ones_fails_when_run_not_built():
    # TF 1.15: static shape (?, ?); the kernel refuses it
    r = tf.reshape(tf.placeholder(tf.float32), [-1, 2, -1])
    assert r.get_shape().as_list() == [None, 2, None]
    r2 = tf.reshape(tf.placeholder(tf.float32, name="p"), [-1, -1])
    assert r2.get_shape().as_list() == [None, None]
    with tf.Session() as sess, pytest.raises(
            tf.errors.InvalidArgumentError, match="Only one input size may be -1, not both 0 and 1"):
        sess.run(r2, {"p:0": [1., 2.]})


def test_select_shape_error_reads_as_tfs():
    with pytest.raises(ValueError) as e:
        tf.where(tf.zeros([2], tf.bool), tf.zeros([2, 3]), tf.zeros([3, 3]))
    assert str(e.value) == (
        "Dimension 0 in both shapes must be equal, but are 2 and 3. Shapes are [2,3] and [3,3]. "
        "for 'Select' (op: 'Select') with input shapes: [2], [2,3], [3,3].")


def test_shape_errors_list_the_inputs_tf_had_computed():
    # TF's shape refiner runs a shape function without input values, then with those it
    # asked for: an error of the second pass lists them, one of the first pass does not
    z = tf.zeros
    with pytest.raises(ValueError) as e:
        tf.concat([z([2, 3]), z([2, 3]), z([4, 5])], -1)
    assert str(e.value).endswith(
        "with input shapes: [2,3], [2,3], [4,5], [] and with computed input tensors: "
        "input[3] = <-1>.")
    with pytest.raises(ValueError) as e:
        tf.reduce_sum(z([2, 3]), 2)
    assert str(e.value) == (
        "Invalid reduction dimension 2 for input with 2 dimensions. for 'Sum' (op: 'Sum') with "
        "input shapes: [2,3], [] and with computed input tensors: input[1] = <2>.")
    with pytest.raises(ValueError) as e:
        tf.reshape(z([2, 3]), [4, -1])
    assert str(e.value).endswith(
        "with input shapes: [2,3], [2] and with input tensors computed as partial shapes: "
        "input[1] = [4,?].")
    with pytest.raises(ValueError) as e:
        tf.split(1, 2, z([2, 3]))
    assert str(e.value).endswith(
        "for 'split' (op: 'Split') with input shapes: [], [2,3] and with computed input "
        "tensors: input[0] = <1>.")
    for make in (lambda: tf.transpose(z([2, 3]), [1, 0, 2]), lambda: tf.tile(z([2, 3]), [2])):
        with pytest.raises(ValueError) as e:
            make()
        assert "computed" not in str(e.value)  # (failed in the first pass)


def test_seq2seq_decoder_lookups_and_attention_sizes_as_tfs():
    enc = [tf.placeholder(tf.int32, [None]) for _ in range(2)]
    dec = [tf.placeholder(tf.int32, [None]) for _ in range(3)]
    tf.contrib.legacy_seq2seq.embedding_rnn_seq2seq(enc, dec, tf.nn.rnn_cell.GRUCell(4), 5, 6, 3,
                                                    feed_previous=True)
    names = [op.name for op in tf.get_default_graph().get_operations()]
    # each decoder step's lookup is made in rnn_decoder's scope as the step runs
    assert len(names) == 240
    assert [n for n in names if n.endswith("embedding_lookup")] == [
        "embedding_rnn_seq2seq/rnn/rnn/embedding_wrapper/embedding_lookup",
        "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/embedding_lookup",
        "embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/loop_function/embedding_lookup",
        ("embedding_rnn_seq2seq/embedding_rnn_decoder/rnn_decoder/loop_function_1/"
        "embedding_lookup")]
    with tf.Graph().as_default() as g:
        x = [tf.placeholder(tf.float32, [2, 3]) for _ in range(2)]
        att = tf.placeholder(tf.float32, [2, 4, 5])
        tf.contrib.legacy_seq2seq.attention_decoder(x, tf.zeros([2, 4]), att,
                                                    tf.nn.rnn_cell.GRUCell(4), num_heads=2,
                                                    initial_state_attention=True)
        assert len(g.get_operations()) == 299
        assert [op.name for op in g.get_operations() if op.type == "Pack"] == [
            "attention_decoder/stack"]


def test_contrib_layers_given_a_scope_object_name_their_ops_as_tf():
    # TF's core layer makes its ops in the scope's first name scope ("h/"); the activation
    # goes to the name scope that entering the scope object opens ("h/h/")
    x = tf.placeholder(tf.float32, [None, 4])
    with tf.variable_scope("h", partitioner=tf.min_max_variable_partitioner(max_partitions=0)) \
            as sc:
        y = tf.contrib.layers.fully_connected(x, 3, scope=sc)
    assert [o.name for o in tf.get_default_graph().get_operations()
            if o.type in ("MatMul", "BiasAdd", "Relu")] == ["h/MatMul", "h/BiasAdd", "h/h/Relu"]
    assert y.name == "h/h/Relu:0"
    assert [v.name for v in tf.global_variables()] == ["h/weights/part_0:0", "h/biases/part_0:0"]
    img = tf.placeholder(tf.float32, [None, 4, 4, 2])
    with tf.variable_scope("c") as sc:
        c = tf.contrib.layers.conv2d(img, 3, 3, scope=sc)
    assert [o.name for o in tf.get_default_graph().get_operations() if o.name.startswith(
        "c/") and "/weights" not in o.name and "/biases" not in o.name] == [
        "c/dilation_rate", "c/Conv2D", "c/BiasAdd", "c/c/Relu"]
    assert c.name == "c/c/Relu:0"


def test_contrib_learn_dnn_classifier_seeded_matches_tf(tmp_path):
    # the 2016 getting-started estimator on arrays, seeded: TF 1.15's network (partitioned
    # dnn/hiddenlayer_N/weights), data feeder and so its numbers
    learn = tf.contrib.learn
    rng = np.random.RandomState(0)
    x = rng.rand(60, 4).astype(np.float32)
    y = (x[:, 0] + x[:, 1] > 1).astype(np.int64) + (x[:, 2] > 0.7)
    cols = learn.infer_real_valued_columns_from_input(x)
    clf = learn.DNNClassifier(feature_columns=cols, hidden_units=[10, 8], n_classes=3,
                              model_dir=str(tmp_path / "dnn"),
                              config=learn.RunConfig(tf_random_seed=1))
    clf.fit(x=x, y=y, steps=20, batch_size=60)
    ev = clf.evaluate(x=x, y=y, steps=1)
    np.testing.assert_allclose([ev["accuracy"], ev["loss"]], [0.5167, 0.921], atol=2e-4)
    assert ev["global_step"] == 20
    assert list(clf.predict(x=x[:5], as_iterable=True)) == [1, 1, 1, 1, 1]
    np.testing.assert_allclose(list(clf.predict_proba(x=x[:3], as_iterable=True)),
                               [[0.271, 0.4931, 0.2358], [0.3053, 0.4587, 0.2359],
                                [0.2978, 0.4715, 0.2307]], atol=2e-4)
    np.testing.assert_allclose(clf.get_variable_value("dnn/hiddenlayer_0/weights")[0, :4],
                               [-0.2209, -0.262, 0.5947, 0.2667], atol=2e-4)
    assert {"dnn/hiddenlayer_0/weights", "dnn/logits/biases"} <= set(clf.get_variable_names())
    reg = learn.SKCompat(learn.DNNRegressor(feature_columns=cols, hidden_units=[5],
                                            model_dir=str(tmp_path / "reg"),
                                            config=learn.RunConfig(tf_random_seed=2)))
    reg.fit(x, x[:, 0] * 2.0, steps=10, batch_size=60)
    np.testing.assert_allclose(reg.score(x, x[:, 0] * 2.0, steps=1)["loss"], 0.2155, atol=2e-4)


def test_contrib_learn_wide_and_deep_rates_and_double_step(tmp_path):
    # contrib.learn's combined model trains its parts at contrib's rates (Ftrl 0.2, Adagrad
    # 0.05; the core model's are 0.005 and 0.001) and, without fix_global_step_increment_bug,
    # counts each step twice: 200 steps asked are ~100 run (TF 1.15: global step 200 or 202,
    # accuracy 0.935-0.95 here)
    learn = tf.contrib.learn
    rng = np.random.RandomState(0)
    x = rng.rand(200, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int64)
    cols = learn.infer_real_valued_columns_from_input(x)
    m = learn.DNNLinearCombinedClassifier(linear_feature_columns=cols, dnn_feature_columns=cols,
                                          dnn_hidden_units=[4], model_dir=str(tmp_path),
                                          config=learn.RunConfig(tf_random_seed=1))
    m.fit(x=x, y=y, steps=200, batch_size=50)
    ev = m.evaluate(x=x, y=y, steps=1)
    assert ev["global_step"] in (200, 202)
    assert ev["accuracy"] > 0.85


@pytest.mark.parametrize("sizes,axis,want", [
    ([1, 1], 1, "can't split axis of size 3 into pieces of size [1,1] for 'split' (op: 'SplitV')"),
    ([4, -1], 1, "can't split axis of size 3 into pieces of size [4,-1] for 'split'"),
    ([1, -2], 1, "can't split axis of size 3 into pieces of size [1,-2] for 'split'"),
    ([-1, -1, 1], 1, "size_splits can only have one -1 for 'split'"),
    ([1, 2], 2, "Dimension size, given by scalar input 2 must be in range [-2, 2) for 'split'"),
    (4, 1, "Dimension size must be evenly divisible by 4 but is 3"),
    (3, -3, "Dimension size, given by scalar input -3 must be in range [-2, 2) for 'split'"),
])
def test_split_shape_errors_read_as_tfs(sizes, axis, want):
    with pytest.raises(ValueError) as e:
        tf.split(tf.zeros([2, 3]), sizes, axis)
    assert str(e.value).startswith(want)


def test_contrib_dropout_names_and_scope_objects():
    # TF 1.15: the core Dropout layer, named after the variable scope, takes its snake-case
    # name in the scope's first name scope; a scope object is taken as other layers take it
    x = tf.placeholder(tf.float32, [None, 4])
    names = [tf.contrib.layers.dropout(x, 0.5, scope="dd").name,
             tf.contrib.layers.dropout(x, 0.5).name, tf.contrib.layers.dropout(x, 0.5).name]
    with tf.name_scope("outer"):
        names.append(tf.contrib.layers.dropout(x, 0.5).name)
    names.append(tf.layers.dropout(x, 0.5, training=True).name)
    with tf.variable_scope("d") as sc:
        pass
    names.append(tf.contrib.layers.dropout(x, 0.5, scope=sc).name)
    assert names == ["dd/dropout/mul_1:0", "Dropout/dropout_1/mul_1:0",
                     "Dropout_1/dropout/mul_1:0", "outer/Dropout/dropout/mul_1:0",
                     "dropout_2/dropout/mul_1:0", "d/dropout/mul_1:0"]


def test_contrib_transposed_and_separable_convs_name_their_ops_as_tf():
    x = tf.placeholder(tf.float32, [None, 4, 4, 3])
    layers = tf.contrib.layers
    layers.conv2d_transpose(x, 3, 3)
    layers.conv2d_transpose(x, 3, 3)
    layers.conv2d_transpose(x, 3, 3, scope="tt")
    with tf.variable_scope("t") as sc:
        layers.conv2d_transpose(x, 3, 3, scope=sc)
    with tf.variable_scope("s") as sc:
        layers.separable_conv2d(x, 3, 3, 2, scope=sc)
    with tf.variable_scope("q") as sc:
        layers.separable_conv2d(x, None, 3, 2, scope=sc)
    g = tf.get_default_graph()
    assert len(g.get_operations()) == 210
    assert [o.name for o in g.get_operations() if o.type in (
        "Conv2DBackpropInput", "Conv2D", "DepthwiseConv2dNative", "BiasAdd")] == [
        "Conv2d_transpose/conv2d_transpose_1", "Conv2d_transpose/BiasAdd",
        "Conv2d_transpose_1/conv2d_transpose", "Conv2d_transpose_1/BiasAdd",
        "tt/conv2d_transpose", "tt/BiasAdd", "t/conv2d_transpose", "t/BiasAdd",
        "s/separable_conv2d/depthwise", "s/separable_conv2d", "s/BiasAdd", "q/q/depthwise",
        "q/q/BiasAdd"]


def test_contrib_learn_utils_serving_input_fns_and_export(tmp_path):
    import os

    from tideflow.contrib.learn.python.learn.utils import input_fn_utils

    learn = tf.contrib.learn
    assert learn.utils.input_fn_utils is input_fn_utils
    rng = np.random.RandomState(0)
    x = rng.rand(40, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int64)
    cols = [tf.contrib.layers.real_valued_column("x", dimension=3)]
    m = learn.DNNClassifier(feature_columns=cols, hidden_units=[4],
                            model_dir=str(tmp_path / "m"))
    m.fit(input_fn=lambda: ({"x": tf.constant(x)}, tf.constant(y)), steps=2)
    spec = tf.contrib.layers.create_feature_spec_for_parsing(cols)
    assert repr(spec["x"]) == ("FixedLenFeature(shape=[3], dtype=tf.float32, "
                               "default_value=None)")  # TF 1.15's
    fn = input_fn_utils.build_parsing_serving_input_fn(spec)
    with tf.Graph().as_default():
        ops = fn()
        assert type(ops).__name__ == "InputFnOps" and ops.labels is None
        assert ops.default_inputs["examples"].name == "input_example_tensor:0"
        assert ops.features["x"].get_shape().as_list() == [None, 3]
    path = m.export_savedmodel(str(tmp_path / "export"), fn)
    path = path.decode() if isinstance(path, bytes) else path
    assert sorted(os.listdir(path)) == ["saved_model.pb", "variables"]
    serve = input_fn_utils.build_default_serving_input_fn(
        {"x": tf.placeholder(tf.float32, [None, 3], name="xin")})
    with tf.Graph().as_default():
        feats = serve()
        assert feats.features["x"].name == "xin:0"
        assert feats.features["x"].get_shape().as_list() == [None, 3]
