"""Departures from TF 1.x fixed in the sixth session: quantize/dequantize/quantized_concat,
second derivatives, dropout op names, device placement logs, and smaller API gaps.

Expected values marked "TF 2.21" were observed from TensorFlow 2.21's compat.v1 (CPU,
TF_ENABLE_ONEDNN_OPTS=0) running the same graph."""

import numpy as np
import pytest

import tideflow as tf

_X = np.array([-7.0, -6.2, -1.3, -0.51, -0.0234, 0.0, 0.0234, 0.8, 2.49, 5.99, 6.0, 9.0],
              np.float32)


# ------------------------------------------------------------------------------------------
# tf.quantize / tf.dequantize / tf.quantized_concat
# ------------------------------------------------------------------------------------------

# TF 2.21: tf.quantize(_X, -6.0, 6.0, T, mode=...) then tf.dequantize of its outputs
_TF_QUANTIZED = {
    ("MIN_COMBINED", "quint8"): [0, 0, 100, 117, 127, 128, 128, 145, 180, 255, 255, 255],
    ("MIN_COMBINED", "qint8"): [-128, -128, -28, -11, -1, -1, 0, 17, 52, 127, 127, 127],
    ("MIN_COMBINED", "qint16"): [-32768, -32768, -7100, -2786, -128, -1, 127, 4369, 13598,
                                 32712, 32767, 32767],
    ("MIN_FIRST", "quint8"): [0, 0, 100, 117, 128, 128, 128, 145, 181, 255, 255, 255],
    ("MIN_FIRST", "quint16"): [0, 0, 25668, 29983, 32640, 32768, 32896, 37137, 46367, 65481,
                               65535, 65535],
    ("SCALED", "qint8"): [-128, -128, -28, -11, 0, 0, 0, 17, 53, 127, 127, 127],
    ("SCALED", "quint8"): [0, 0, 0, 0, 0, 0, 1, 34, 106, 255, 255, 255],
}
_TF_DEQUANTIZED = {
    ("MIN_COMBINED", "qint8"): [-6.0, -6.0, -1.2941174507141113, -0.49411773681640625,
                                -0.023529529571533203, -0.023529529571533203,
                                0.023529529571533203, 0.8235297203063965, 2.4705886840820312,
                                6.0, 6.0, 6.0],
    ("MIN_FIRST", "quint8"): [-6.023529529571533, -6.023529529571533, -1.3176469802856445,
                              -0.5176472663879395, 0.0, 0.0, 0.0, 0.8000001907348633,
                              2.494117259979248, 5.976470470428467, 5.976470470428467,
                              5.976470470428467],
    ("SCALED", "qint8"): [-6.047244071960449, -6.047244071960449, -1.3228346109390259,
                          -0.5196850299835205, 0.0, 0.0, 0.0, 0.8031495809555054,
                          2.503937005996704, 6.0, 6.0, 6.0],
}


@pytest.mark.parametrize("mode,tname", sorted(_TF_QUANTIZED))
def test_quantize_matches_tf(mode, tname):
    T = tf.as_dtype(tname)
    with tf.Graph().as_default():
        q = tf.quantize(_X, -6.0, 6.0, T, mode=mode)
        d = tf.dequantize(q.output, q.output_min, q.output_max, mode=mode)
        assert type(q).__name__ == "QuantizeV2" and q._fields == ("output", "output_min",
                                                                    "output_max")
        assert q.output.dtype == T and q.output.op.type == "QuantizeV2"
        assert q.output.name == "QuantizeV2:0" and d.name == "Dequantize:0"
        with tf.Session() as s:
            out, mn, mx, dv = s.run([q.output, q.output_min, q.output_max, d])
    # fetched as plain integers of the quantized type's width, as TF
    assert out.dtype == np.dtype(T._np[0])
    assert out.tolist() == _TF_QUANTIZED[(mode, tname)]
    if mode == "SCALED" and tname == "qint8":  # the range as used: scale set by the max side
        np.testing.assert_allclose([mn, mx], [-6.047244, 6.0], rtol=1e-6)
    elif mode == "SCALED":
        assert (mn, mx) == (0.0, 6.0)
    else:
        assert (mn, mx) == (-6.0, 6.0)
    if (mode, tname) in _TF_DEQUANTIZED:
        np.testing.assert_array_equal(dv, np.float32(_TF_DEQUANTIZED[(mode, tname)]))


def test_quantize_narrow_range_even_rounding_and_names():
    with tf.Graph().as_default():
        q = tf.quantization.quantize(_X, -6.0, 6.0, tf.qint8, mode="SCALED",
                                     round_mode="HALF_TO_EVEN", narrow_range=True, name="myq")
        assert q.output.name == "myq:0"
        names = {op.name for op in tf.get_default_graph().get_operations()}
        assert {"myq/min_range", "myq/max_range"} <= names  # as TF's generated wrapper
        bad = tf.quantize(_X, -6.0, 6.0, tf.qint8, round_mode="HALF_TO_EVEN")
        rev = tf.quantize(_X, 1.0, -1.0, tf.quint8)
        mf_axis = tf.quantize(_X.reshape(3, 4), [-1.0] * 4, [1.0] * 4, tf.qint8,
                              mode="MIN_FIRST", axis=-1)
        with tf.Session() as s:
            out, mn, mx = s.run(q)
            # TF 2.21: narrow range keeps -128 out and the range symmetric
            assert out.tolist() == [-127, -127, -28, -11, 0, 0, 0, 17, 53, 127, 127, 127]
            assert (mn, mx) == (-6.0, 6.0)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="HALF_TO_EVEN' only supported for mode 'SCALED'"):
                s.run(bad.output)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="input_max_range must be larger than input_min_range"):
                s.run(rev.output)
            with pytest.raises(tf.errors.UnimplementedError, match="MIN_FIRST mode"):
                s.run(mf_axis.output)


def test_quantize_axis_ranges_static_shapes_and_errors():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 10.0
    with tf.Graph().as_default():
        xt = tf.constant(x)
        q = tf.quantize(xt, [-5.0, -1.0, -12.0], [3.0, 14.0, 2.0], tf.qint8, mode="SCALED",
                        axis=1)
        assert q.output_min.shape.as_list() == [3] and q.output.shape.as_list() == [2, 3, 4]
        d = tf.dequantize(q.output, q.output_min, q.output_max, mode="SCALED", axis=-2)
        with pytest.raises(ValueError):  # min_range must be a vector when axis is given
            tf.quantize(xt, -1.0, 1.0, tf.qint8, axis=1)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 2 and 3"):
            tf.quantize(xt, [-1.0, 0.0], [1.0, 2.0], tf.qint8, axis=1)
        with pytest.raises(ValueError, match="known rank"):
            tf.quantize(tf.placeholder(tf.float32), [-1.0], [1.0], tf.qint8, axis=-1)
        with tf.Session() as s:
            out, mn, mx, dv = s.run([q.output, q.output_min, q.output_max, d])
    # each slice of axis 1 is quantized with its own symmetric scale (SCALED)
    for k, (lo, hi) in enumerate([(-5.0, 3.0), (-1.0, 14.0), (-12.0, 2.0)]):
        scale = min(128 / -lo, 127 / hi)
        np.testing.assert_allclose([mn[k], mx[k]], [-128 / scale, 127 / scale], rtol=1e-6)
        want = np.clip(np.floor(np.abs(np.clip(x[:, k], -128 / scale, 127 / scale) * scale)
                                + 0.5) * np.sign(x[:, k]), -128, 127)
        np.testing.assert_array_equal(out[:, k], want)
        np.testing.assert_allclose(dv[:, k], out[:, k] / scale, rtol=1e-6)


def test_dequantize_bfloat16_and_mode_errors():
    with tf.Graph().as_default():
        q = tf.quantize([-3.0, -1.0, 0.5, 3.0], -3.0, 3.0, tf.qint8)
        d = tf.dequantize(q.output, q.output_min, q.output_max, dtype=tf.bfloat16)
        assert d.dtype == tf.bfloat16
        bad = tf.dequantize(q.output, q.output_min, q.output_max, mode="SCALED",
                            dtype=tf.bfloat16)
        with pytest.raises(ValueError, match="rank 0 but is rank 1"):  # static, as TF
            tf.dequantize(q.output, [-1.0, 0.0], [1.0, 2.0])
        r = tf.placeholder(tf.float32)
        wrong = tf.dequantize(q.output, r, r)
        with tf.Session() as s:
            v = s.run(tf.cast(d, tf.float32))
            # MIN_COMBINED: (q + 128) * 6 / 255 - 3, then rounded to bfloat16
            qs = s.run(q.output).astype(np.float64)
            np.testing.assert_allclose(v, (qs + 128) * 6 / 255 - 3, atol=2e-2)
            with pytest.raises(tf.errors.InvalidArgumentError, match="bfloat16"):
                s.run(bad)
            with pytest.raises(tf.errors.InvalidArgumentError, match="as many elements"):
                s.run(wrong, {r: [-1.0, 1.0]})


def test_quantized_concat_matches_tf():
    with tf.Graph().as_default():
        q = tf.quantize([1.0, 2.0], -1.0, 3.0, tf.quint8)
        c = tf.quantized_concat(0, [q.output, q.output], [q.output_min, -2.0],
                                [q.output_max, 5.0])
        assert type(c).__name__ == "QuantizedConcat" and c.output.shape.as_list() == [4]
        assert tf.quantization.quantized_concat is tf.quantized_concat
        with tf.Session() as s:
            out, mn, mx = s.run(c)
    # TF 2.21: the first input is requantized into the union range [-2, 5]
    assert out.tolist() == [110, 146, 128, 191] and (mn, mx) == (-2.0, 5.0)


def test_quantize_ops_have_no_gradient_as_tf():
    with tf.Graph().as_default():
        x = tf.constant([1.0, 2.0])
        q = tf.quantize(x, -1.0, 3.0, tf.quint8)
        d = tf.dequantize(q.output, q.output_min, q.output_max)
        with pytest.raises(LookupError, match="No gradient defined"):
            tf.gradients(d, x)
        # the fake-quant ops do have gradients (straight through inside the nudged range)
        y = tf.quantization.fake_quant_with_min_max_vars(x * 3.0, tf.constant(-1.0),
                                                         tf.constant(4.0))
        g = tf.gradients(y, x)[0]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(g), [3.0, 0.0])


def test_quantize_v2_and_quantization_namespace():
    with tf.Graph().as_default():
        q = tf.quantize_v2([0.5], 0.0, 1.0, tf.quint8, "MIN_COMBINED", "qv2")
        assert q.output.name == "qv2:0"
        for n in ("quantize", "dequantize", "quantized_concat"):
            assert n in tf.quantization.__all__ and callable(getattr(tf.quantization, n))
        with tf.Session() as s:
            assert s.run(q.output).tolist() == [128]


# ------------------------------------------------------------------------------------------
# tf.hessians where a derivative is None (TF 2.21 compat.v1: ValueError, both messages)
# ------------------------------------------------------------------------------------------


def _hessian_of(build):
    with tf.Graph().as_default():
        x = tf.constant([1.0, -2.0, 3.0])
        return build(x)


def _hessians_with_scale(x):
    y = tf.constant(2.0)  # d2/dy2 of sum(x * x) * y is None
    return tf.hessians(tf.reduce_sum(x * x) * y, [x, y])


@pytest.mark.parametrize("build", [
    lambda x: tf.hessians(tf.reduce_sum(3.0 * x), x),  # first derivative constant in x
    lambda x: tf.hessians(tf.reduce_max(x), x),  # its gradient goes through Equal
    lambda x: tf.hessians(tf.reduce_sum(tf.cast(tf.cast(x, tf.int32), tf.float32) * x), x),
    lambda x: tf.hessians(tf.reduce_sum(tf.stop_gradient(x) * x), x),
    lambda x: _hessians_with_scale(x),
], ids=["linear", "reduce_max", "int_path", "stop_gradient", "list_with_linear"])
def test_hessians_second_derivative_none_raises_as_tf(build):
    with pytest.raises(ValueError, match=r"^None values not supported\.$"):
        _hessian_of(build)


@pytest.mark.parametrize("build", [
    lambda x: tf.hessians(tf.cast(tf.argmax(x), tf.float32), x),
    lambda x: tf.hessians(tf.reduce_sum(x * x), tf.constant(1.0)),
], ids=["argmax", "unconnected"])
def test_hessians_first_derivative_none_raises_as_tf(build):
    with pytest.raises(ValueError, match="Tried to convert 'tensor' to a tensor and failed. "
                                         "Error: None values not supported."):
        _hessian_of(build)


def test_hessians_through_relu_abs_and_gradients_of_gradients():
    with tf.Graph().as_default():
        x = tf.constant([1.0, -2.0, 3.0])
        # relu, abs: piecewise linear, but their gradients stay connected (zeros, as TF)
        hr = tf.hessians(tf.reduce_sum(tf.nn.relu(x)), x)[0]
        ha = tf.hessians(tf.reduce_sum(tf.abs(x)), x)[0]
        hs = tf.hessians(tf.reduce_sum(tf.square(tf.nn.relu(x))), x)[0]
        g = tf.gradients(tf.reduce_sum(2.0 * x), x)[0]
        assert tf.gradients(g, x) == [None]  # tf.gradients itself gives None, as TF
        gr = tf.gradients(tf.gradients(tf.reduce_sum(tf.nn.relu(x)), x)[0], x)[0]
        with tf.Session() as s:
            np.testing.assert_array_equal(s.run(hr), np.zeros((3, 3)))
            np.testing.assert_array_equal(s.run(ha), np.zeros((3, 3)))
            np.testing.assert_array_equal(s.run(hs), np.diag([2.0, 0.0, 2.0]))
            np.testing.assert_array_equal(s.run(gr), [0.0, 0.0, 0.0])


# ------------------------------------------------------------------------------------------
# tf.nn.dropout builds TF 1.15's graph (output "dropout/mul_1:0")
# ------------------------------------------------------------------------------------------


def test_dropout_op_names_as_tf_1_15():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        y = tf.nn.dropout(x, keep_prob=0.5)
        assert y.name == "dropout/mul_1:0" and y.op.type == "Mul"
        ops = [(op.name, op.type) for op in g.get_operations()][1:]
        assert [n for n, _ in ops if "random_uniform" not in n] == [
            "dropout/rate", "dropout/Shape", "dropout/sub/x", "dropout/sub", "dropout/truediv/x",
            "dropout/truediv", "dropout/GreaterEqual", "dropout/mul", "dropout/Cast",
            "dropout/mul_1"]
        assert dict(ops)["dropout/GreaterEqual"] == "GreaterEqual"
        assert g.get_tensor_by_name("dropout/mul_1:0") is y
        # rate=, a name, a tensor keep_prob (its "1 - keep_prob" is built outside the scope)
        assert tf.nn.dropout(x, rate=0.25, name="drop").name == "drop/mul_1:0"
        kp = tf.placeholder(tf.float32, name="kp")
        yk = tf.nn.dropout(x, kp)
        assert yk.name == "dropout_1/mul_1:0" and g.get_operation_by_name("sub").type == "Sub"
        with tf.Graph().as_default():
            xl = tf.placeholder(tf.float32, [2, 3])
            assert tf.layers.dropout(xl, 0.3, training=True).name == "dropout/dropout/mul_1:0"
        assert tf.nn.dropout(x, rate=0.0) is x and tf.nn.dropout(x, keep_prob=1.0) is x
        with pytest.raises(ValueError, match="Cannot specify both 'keep_prob' and 'rate'"):
            tf.nn.dropout(x, keep_prob=0.5, rate=0.5)
        with pytest.raises(ValueError, match=r"rate must be .* range \[0, 1\), got 1"):
            tf.nn.dropout(x, keep_prob=0.0)
        with pytest.raises(ValueError, match="keep_prob must be a floating point number"):
            tf.nn.dropout(x, keep_prob="a")
        with tf.Session() as s:
            xv = np.ones((2, 3), np.float32)
            v = s.run(yk, {x: np.ones((2, 3)), kp: 0.5})
            assert set(np.unique(v)) <= {0.0, 2.0}
            big = s.run(tf.nn.dropout(tf.ones([100, 100]), rate=0.25))
            assert set(np.unique(big)) <= {0.0, np.float32(1 / np.float32(0.75))}
            assert abs((big != 0).mean() - 0.75) < 0.03
            assert s.run(tf.nn.dropout(x, kp), {x: xv, kp: 1.0}).tolist() == xv.tolist()


# ------------------------------------------------------------------------------------------
# log_device_placement: every op of the graph, as TF's placer logs them
# ------------------------------------------------------------------------------------------

_CPU0 = "/job:localhost/replica:0/task:0/device:CPU:0"


def test_log_device_placement_logs_whole_graph_as_tf(capsys):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2], name="x")
        v = tf.Variable([1.0, 2.0], name="v")
        z = tf.reduce_sum(tf.add(x, v, name="y") * 2.0, name="z")
        with tf.Session(config=tf.ConfigProto(log_device_placement=True)) as s:
            # (TF 1.15's CPU build maps its XLA_CPU device)
            assert capsys.readouterr().out == (
                "Device mapping:\n/job:localhost/replica:0/task:0/device:XLA_CPU:0 -> device: "
                "XLA_CPU device\n")
            s.run(v.initializer)
            first = capsys.readouterr().out
            assert s.run(z, {x: [1.0, 1.0]}) == 10.0
            assert capsys.readouterr().out == ""  # the graph is unchanged: nothing new
            w = tf.identity(z, name="w")
            s.run(w, {x: [1.0, 1.0]})
            again = capsys.readouterr().out
    # TF 2.21 (its AddV2 is TF 1.15's Add): ops with inputs and the variable first, then the
    # generators (Placeholder, Const), the fed placeholder included
    want = [("v", "VariableV2"), ("v/Assign", "Assign"), ("v/read", "Identity"),
            ("y", "Add"), ("mul", "Mul"), ("z", "Sum"), ("x", "Placeholder"),
            ("v/initial_value", "Const"), ("mul/y", "Const"), ("Const", "Const")]
    assert first == "".join(f"{n}: ({t}): {_CPU0}\n" for n, t in want)
    # a run after the graph grew logs the whole graph again
    want.insert(6, ("w", "Identity"))
    assert again == "".join(f"{n}: ({t}): {_CPU0}\n" for n, t in want)


# ------------------------------------------------------------------------------------------
# keras imagenet_utils.preprocess_input, mode='torch', channels_first tensors
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (2, 3, 4, 3)])
def test_preprocess_input_torch_channels_first_tensor(shape):
    from tideflow.keras.applications import imagenet_utils

    x = (np.random.RandomState(0).rand(*shape) * 255).astype(np.float32)
    mean = np.array([0.485, 0.456, 0.406]).reshape(1, 3, 1, 1)
    std = np.array([0.229, 0.224, 0.225]).reshape(1, 3, 1, 1)
    want = (x / 255.0 - mean) / std  # per channel along axis 1 (as tf_keras)
    with tf.Graph().as_default():
        t = imagenet_utils.preprocess_input(tf.constant(x), data_format="channels_first",
                                            mode="torch")
        with tf.Session() as s:
            got = s.run(t)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    arr = imagenet_utils.preprocess_input(x.copy(), data_format="channels_first", mode="torch")
    np.testing.assert_allclose(arr, want, rtol=1e-5, atol=1e-5)


# ------------------------------------------------------------------------------------------
# tf.contrib.tensor_forest.client.eval_metrics
# ------------------------------------------------------------------------------------------


def _metric_value(name, predictions, targets):
    from tideflow.contrib.tensor_forest.client import eval_metrics

    with tf.Graph().as_default():
        out = eval_metrics.get_metric(name)(tf.constant(predictions), tf.constant(targets))
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            if isinstance(out, tuple):
                s.run(out[1])
                return s.run(out[0])
            return s.run(out)


def test_tensor_forest_eval_metrics():
    from tideflow.contrib.tensor_forest.client import eval_metrics

    assert tf.contrib.tensor_forest.client.eval_metrics is eval_metrics
    keys = {n: eval_metrics.get_prediction_key(n) for n in (
        "auc", "accuracy", "r2", "predictions", "precision", "recall", "top_5",
        "classification_log_loss", "softmax_entropy", "sigmoid_entropy",
        "precision_at_thresholds", "recall_at_thresholds")}
    assert keys["accuracy"] == keys["precision"] == keys["recall"] == "classes"
    assert keys["auc"] == keys["top_5"] == keys["classification_log_loss"] == "probabilities"
    assert keys["r2"] == "scores"
    with pytest.raises(KeyError):
        eval_metrics.get_metric("no_such_metric")
    probs = np.array([[0.1, 0.9], [0.8, 0.2], [0.4, 0.6], [0.3, 0.7]], np.float32)
    t = np.array([[1], [0], [0], [1]], np.int64)
    classes = probs.argmax(1).reshape(-1, 1)
    assert _metric_value("accuracy", classes, t) == pytest.approx(0.75)
    assert _metric_value("precision", classes, t) == pytest.approx(2 / 3)
    assert _metric_value("recall", classes, t) == pytest.approx(1.0)
    assert _metric_value("auc", probs, t) == pytest.approx(1.0)
    assert _metric_value("top_5", probs, t.reshape(-1)) == pytest.approx(1.0)
    tf_ = t.astype(np.float64)
    r2 = 1 - np.sum(np.sum((tf_ - probs) ** 2, 0) / np.sum((tf_ - tf_.mean(0)) ** 2, 0))
    assert _metric_value("r2", probs, t) == pytest.approx(r2, rel=1e-5)
    onehot = np.eye(2)[t[:, 0]]
    p = probs.astype(np.float64)
    log_loss = np.mean(-onehot * np.log(p + 1e-7) - (1 - onehot) * np.log(1 - p + 1e-7))
    assert _metric_value("classification_log_loss", probs, t) == pytest.approx(log_loss,
                                                                               rel=1e-5)
    lse = np.log(np.exp(p).sum(1))
    assert _metric_value("softmax_entropy", probs, t.reshape(-1)) == pytest.approx(
        np.mean(lse - p[np.arange(4), t[:, 0]]), rel=1e-5)
    at = _metric_value("precision_at_thresholds", probs, t)
    assert at.shape == (100,) and at[0] == pytest.approx(0.5) and at[65] == pytest.approx(1.0)


# ------------------------------------------------------------------------------------------
# tf.sparse.segment_* with num_segments (SparseSegment*WithNumSegments)
# ------------------------------------------------------------------------------------------


def test_sparse_segment_with_num_segments():
    with tf.Graph().as_default():
        data = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
        s = tf.sparse.segment_sum(data, [0, 1, 3], [0, 0, 2], num_segments=4)
        m = tf.sparse.segment_mean(data, [0, 1, 3], [0, 0, 2], num_segments=5)
        assert s.op.type == "SparseSegmentSumWithNumSegments" and s.shape.as_list() == [4, 2]
        assert m.shape.as_list() == [5, 2]
        g = tf.gradients(tf.reduce_sum(m * 3.0), data)[0]
        bad = tf.sparse.segment_sum(data, [0, 1, 3], [0, 0, 2], num_segments=2)
        with tf.Session() as sess:
            # TF 2.21: trailing and skipped segments are zero rows
            assert sess.run(s).tolist() == [[4, 6], [0, 0], [7, 8], [0, 0]]
            assert sess.run(m).tolist() == [[2, 3], [0, 0], [7, 8], [0, 0], [0, 0]]
            assert sess.run(tf.convert_to_tensor(g)).tolist() == [[1.5, 1.5], [1.5, 1.5],
                                                                   [0, 0], [3, 3]]
            with pytest.raises(tf.errors.InvalidArgumentError, match="num_segments"):
                sess.run(bad)


def test_quantized_pool_and_relu_x():
    a = np.array([1, 2, 2, 2, 5, 6, 9, 10, 3, 4, 7, 7, 1, 1, 1, 2], np.uint8).reshape(1, 4, 4, 1)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.quint8, [1, 4, 4, 1])
        avg = tf.nn.quantized_avg_pool(x, -1.0, 3.0, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        mx = tf.nn.quantized_max_pool(x, -1.0, 3.0, [1, 3, 3, 1], [1, 1, 1, 1], "SAME")
        xr = tf.placeholder(tf.quint8, [None])
        relu = tf.nn.quantized_relu_x(xr, 1.5, -1.0, 3.0)
        assert type(avg).__name__ == "QuantizedAvgPool" and avg.output.dtype == tf.quint8
        assert avg.output.shape.as_list() == [1, 2, 2, 1]
        # TF 1.15: no path from a quantized input (quint8 is not differentiated): [None]
        assert tf.gradients(tf.dequantize(avg.output, avg.min_output, avg.max_output),
                            x) == [None]
        with tf.Session() as s:
            out, lo, hi = s.run(avg, {x: a})
            # TF 1.15: window means 3.5, 5.75, 2.25, 4.25 truncate (TF 2.21 rounds them)
            assert out.reshape(-1).tolist() == [3, 5, 2, 4] and (lo, hi) == (-1.0, 3.0)
            a2 = np.array([0, 1, 0, 1, 0, 0, 0, 1] + [1] * 7 + [2], np.uint8).reshape(a.shape)
            assert s.run(avg.output, {x: a2}).reshape(-1).tolist() == [0, 0, 1, 1]
            m = s.run(mx.output, {x: a})[0, :, :, 0]
            assert m[0].tolist() == [6, 9, 10, 10] and m.shape == (4, 4)
            # the levels of 0 and 1.5 in [-1, 3] are 64 and 160 (TF's FloatToQuantized)
            r = s.run(relu.activations, {xr: np.array([0, 63, 64, 100, 160, 161, 255],
                                                      np.uint8)})
            assert r.tolist() == [64, 64, 64, 100, 160, 160, 160]


def test_quantized_conv2d_matches_float_conv_and_tf_errors():
    rng = np.random.RandomState(0)
    xv = rng.randint(0, 256, (1, 5, 5, 2)).astype(np.uint8)
    fv = rng.randint(0, 256, (3, 3, 2, 3)).astype(np.uint8)
    with tf.Graph().as_default():
        x, f = tf.placeholder(tf.quint8, xv.shape), tf.placeholder(tf.quint8, fv.shape)
        q = tf.nn.quantized_conv2d(x, f, -1.0, 3.0, -0.5, 0.7, [1, 1, 1, 1], "SAME")
        assert q.output.dtype == tf.qint32 and q.output.shape.as_list() == [1, 5, 5, 3]
        back = tf.dequantize(q.output, q.min_output, q.max_output)
        ref = tf.nn.conv2d(tf.dequantize(x, -1.0, 3.0, mode="MIN_FIRST"),
                           tf.dequantize(f, -0.5, 0.7, mode="MIN_FIRST"), [1, 1, 1, 1], "SAME")
        bad = tf.nn.quantized_conv2d(x, f, -1.0, 3.0, -0.5, 0.7, [1, 2, 1, 1], "SAME")
        with tf.Session() as s:
            got, want = s.run([back, ref], {x: xv, f: fv})
            # the integer result dequantizes to the float convolution of the dequantized
            # inputs (up to their rounding of the level of 0.0)
            np.testing.assert_allclose(got, want, rtol=0, atol=0.05)
            with pytest.raises(tf.errors.InvalidArgumentError, match="equal length strides"):
                s.run(bad.output, {x: xv, f: fv})


def test_compute_accidental_hits_checks_num_true_statically():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Dimension must be 1 but is 2"):  # as TF 2.21
            tf.nn.compute_accidental_hits(tf.constant([[0, 1]], tf.int64),
                                          tf.constant([1, 2, 0], tf.int64), 1)
        hits = tf.nn.compute_accidental_hits(tf.constant([[0], [1]], tf.int64),
                                             tf.constant([1, 2, 0], tf.int64), 1)
        with tf.Session() as s:
            idx, ids, w = s.run(hits)
    assert sorted(zip(idx.tolist(), ids.tolist())) == [(0, 2), (1, 0)]
    assert (w < -1e37).all()


def test_decode_json_example_bytes_as_tf():
    first = ('{"features": {"feature": {"x": {"floatList": {"value": [1.5, 2.0]}}, '
             '"a": {"int64List": {"value": [3, -1, 300]}}, '
             '"b": {"bytesList": {"value": ["aGk="]}}}}}')
    js = [first, '{}', '{"features": {"feature": {"e": {}, "f": {"floatList": {}}}}}']
    with tf.Graph().as_default():
        out = tf.io.decode_json_example(js)
        parsed = tf.parse_single_example(out[0], {"x": tf.FixedLenFeature([2], tf.float32),
                                                  "a": tf.VarLenFeature(tf.int64)})
        with tf.Session() as s:
            got = s.run(out)
            px, pa = s.run([parsed["x"], parsed["a"].values])
    # TF 2.21's bytes: features in the JSON's order, repeated numbers unpacked
    assert got[0] == (b"\n9\n\x11\n\x01x\x12\x0c\x12\n\r\x00\x00\xc0?\r\x00\x00\x00@\n\x17\n\x01a"
                      b"\x12\x12\x1a\x10\x08\x03\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"
                      b"\x08\xac\x02\n\x0b\n\x01b\x12\x06\n\x04\n\x02hi")
    assert got[1] == b"" and got[2] == b"\n\x10\n\x05\n\x01e\x12\x00\n\x07\n\x01f\x12\x02\x12\x00"
    assert px.tolist() == [1.5, 2.0] and pa.tolist() == [3, -1, 300]


def test_decode_proto_errors_text_format_and_descriptor_file(tmp_path):
    from google.protobuf import descriptor_pb2

    from tideflow.protos import tensor_shape_pb2

    fds = descriptor_pb2.FileDescriptorSet()
    tensor_shape_pb2.DESCRIPTOR.CopyToProto(fds.file.add())
    path = tmp_path / "desc.pb"
    path.write_bytes(fds.SerializeToString())
    full = tensor_shape_pb2.TensorShapeProto.Dim.DESCRIPTOR.full_name
    with tf.Graph().as_default():
        wrong = tf.io.decode_proto(["\x08\x05"], "tensorflow.TensorShapeProto.Dim", ["size"],
                                   [tf.int32])[1][0]
        junk = tf.io.decode_proto(["garbage\xff"], "tensorflow.TensorShapeProto.Dim", ["size"],
                                  [tf.int64])[1][0]
        text = tf.io.decode_proto(['size: 9 name: "t"'], "tensorflow.TensorShapeProto.Dim",
                                  ["name", "size"], [tf.string, tf.int64],
                                  message_format="text")
        from_file = tf.io.decode_proto(["\x08\x05"], full, ["size"], [tf.int64],
                                       descriptor_source=str(path))[1][0]
        with tf.Session() as s:
            # TF 2.21's message and error classes
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Unexpected output type for tensorflow.TensorShapeProto"
                                     r".Dim.size: int64 to DT_INT32"):
                s.run(wrong)
            with pytest.raises(tf.errors.DataLossError):
                s.run(junk)
            sizes, (name, size) = s.run(text)
            assert sizes.tolist() == [[1, 1]] and name.tolist() == [[b"t"]]
            assert size.tolist() == [[9]]
            assert s.run(from_file).tolist() == [[5]]
