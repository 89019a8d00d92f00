"""TF 1.15 parity fixes of the twenty-second session (lead), each expectation taken from running
the same program under TF 1.15: signatures a program calls by keyword or position."""

import numpy as np
import pytest

import tideflow as tf


def _graph():
    return tf.Graph().as_default()


def test_contrib_framework_py_func_takes_nested_args_and_gives_nested_outputs():
    # TF 1.15: contrib.framework.py_func(func, args, kwargs, output_types, output_shapes) packs
    # flat outputs into output_types' structure (dict keys sorted) and sets the given shapes
    with _graph():
        x = tf.constant([1., 2.])
        y = tf.constant(3, tf.int64)

        def f(a, b, scale=None):
            return {"s": (a * scale).astype(np.float32),
                    "p": (np.float32(a.sum() + b), np.int64(b * 2))}

        out = tf.contrib.framework.py_func(
            f, args=[x, y], kwargs={"scale": tf.constant(2.)},
            output_types={"s": tf.float32, "p": (tf.float32, tf.int64)},
            output_shapes={"s": [2], "p": ([], [])})
        assert out["s"].name == "PyFunc:2" and out["p"][1].name == "PyFunc:1"
        assert out["s"].shape.as_list() == [2] and out["p"][0].shape.ndims == 0
        g = tf.contrib.framework.py_func(lambda a: a + 1, [x], output_types=lambda a: a.dtype)
        with tf.Session() as sess:
            got = sess.run(out)
            np.testing.assert_array_equal(got["s"], [2., 4.])
            assert got["p"] == (6.0, 6)
            np.testing.assert_array_equal(sess.run(g), [2., 3.])
        with pytest.raises(TypeError, match="args must be list and not"):
            tf.contrib.framework.py_func(lambda a: a, x, output_types=tf.float32)
        with pytest.raises(TypeError, match="kwargs must be dict and not <class 'list'>"):
            tf.contrib.framework.py_func(lambda a: a, [x], kwargs=[1], output_types=tf.float32)


def test_conv1d_transpose_builds_tf_ops_under_core_and_contrib_names():
    # TF 1.15: contrib.nn.conv1d_transpose is core's (input, filters, output_shape, strides);
    # a Python output_shape is sliced in Python, Conv2DBackpropInput takes the scope's name
    with _graph() as g:
        v = tf.contrib.nn.conv1d_transpose(tf.ones([1, 4, 2]), tf.ones([3, 5, 2]), [1, 8, 5], 2)
        assert v.name == "conv1d_transpose/Squeeze:0" and v.shape.as_list() == [1, 8, 5]
        assert [(o.name, o.type) for o in g.get_operations()][6:] == [
            ("conv1d_transpose/concat/values_0", "Const"),
            ("conv1d_transpose/concat/values_1", "Const"),
            ("conv1d_transpose/concat/values_2", "Const"),
            ("conv1d_transpose/concat/axis", "Const"), ("conv1d_transpose/concat", "ConcatV2"),
            ("conv1d_transpose", "Conv2DBackpropInput"),
            ("conv1d_transpose/Squeeze", "Squeeze")]
        w = tf.nn.conv1d_transpose(tf.ones([1, 4, 2]), filters=tf.ones([3, 5, 2]),
                                   output_shape=tf.constant([1, 8, 5]), strides=2, name="ct")
        assert w.name == "ct/Squeeze:0"
        with tf.Session() as sess:
            assert sess.run(v).sum() == 110.0 and sess.run(w).sum() == 110.0


def test_linear_operator_add_to_tensor_argument_names():
    # TF 1.15: Identity, ScaledIdentity and Zeros name the argument ``mat``, Diag ``x``
    with _graph():
        m = tf.constant(np.arange(8.).reshape(2, 2, 2))
        cases = [(tf.linalg.LinearOperatorIdentity(2, batch_shape=[2], dtype=tf.float64),
                  [1, 1, 2, 4, 5, 5, 6, 8]),
                 (tf.linalg.LinearOperatorScaledIdentity(2, tf.constant([2., 3.], tf.float64)),
                  [2, 1, 2, 5, 7, 5, 6, 10]),
                 (tf.linalg.LinearOperatorZeros(2, batch_shape=[2], dtype=tf.float64),
                  [0, 1, 2, 3, 4, 5, 6, 7])]
        results = [op.add_to_tensor(mat=m) for op, _ in cases]
        diag = tf.linalg.LinearOperatorDiag(tf.constant([[1., 2.], [3, 4]], tf.float64))
        results.append(diag.add_to_tensor(x=m))
        with tf.Session() as sess:
            for r, want in zip(sess.run(results), [w for _, w in cases] +
                               [[1, 1, 2, 5, 7, 5, 6, 11]]):
                np.testing.assert_array_equal(r.ravel(), want)


def test_small_signature_fixes():
    # TF 1.15: UnknownError takes an error_code; load_library's argument is library_location;
    # resize_image_with_pad has align_corners; contrib.eager.py_func is (func, inp, Tout, name)
    assert tf.errors.UnknownError(None, None, "x", 7).error_code == 7
    assert tf.errors.UnknownError(None, None, "x").error_code == 2
    with pytest.raises(tf.errors.UnimplementedError):
        tf.load_library(library_location="/nowhere.so")
    with _graph():
        img = tf.constant(np.arange(12, dtype=np.float32).reshape(2, 3, 2))
        r = tf.image.resize_image_with_pad(img, 4, 4, tf.image.ResizeMethod.BILINEAR, True)
        assert r.shape.as_list() == [4, 4, 2]
        e = tf.contrib.eager.py_func(lambda a: a * 2, [tf.constant(2.)], tf.float32, "dbl")
        assert e.op.type == "EagerPyFunc" and e.op.name == "dbl"
        with tf.Session() as sess:
            assert sess.run(e) == 4.0
            np.testing.assert_allclose(sess.run(r)[:, 1, 0], [4 / 3, 22 / 3, 0, 0], rtol=1e-6)


def test_saved_model_save_writes_a_keras_model_servable_by_the_v1_loader(tmp_path):
    # TF 1.15 graph mode: tf.saved_model.save(model, dir) writes serving_default keyed by the
    # model's input and output names, the model's variables only, under object-based keys
    tf.keras.backend.clear_session()
    tf.Variable(1.0, name="unrelated")  # never initialized: TF does not save it
    inp = tf.keras.Input((3,), name="feat")
    out = tf.keras.layers.Dense(2, name="logits")(tf.keras.layers.Dense(4, name="hid")(inp))
    model = tf.keras.Model(inp, out)
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    want = model.predict(x)
    path = str(tmp_path / "sm")
    tf.saved_model.save(model, path)
    tf.saved_model.save(model, path)  # an existing directory is written over
    assert sorted(n for n, _ in tf.train.list_variables(path + "/variables/variables")) == [
        "_CHECKPOINTABLE_OBJECT_GRAPH",
        "layer_with_weights-0/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE",
        "layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"]
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.load(sess, ["serve"], path)
        assert sorted(meta.signature_def) == ["__saved_model_init_op", "serving_default"]
        sig = meta.signature_def["serving_default"]
        assert list(sig.inputs) == ["feat"] and list(sig.outputs) == ["logits"]
        assert sig.method_name == "tensorflow/serving/predict"
        got = sess.run(sig.outputs["logits"].name, {sig.inputs["feat"].name: x})
        np.testing.assert_allclose(got, want, rtol=1e-6)
    with pytest.raises(ValueError, match="Expected a Trackable object for export, got 3."):
        tf.saved_model.save(3, str(tmp_path / "bad"))
    tf.keras.backend.clear_session()


def test_optimizer_v2_takes_stop_gradients_and_its_own_argument_order():
    # TF 1.15: contrib.optimizer_v2's minimize(loss, global_step, var_list, gate_gradients,
    # aggregation_method, name, grad_loss, stop_gradients, scale_loss_by_num_replicas); no
    # colocate_gradients_with_ops
    with _graph():
        w = tf.Variable([1., 2.], name="w")
        h = w * 3.
        loss = tf.reduce_sum(h * w)
        opt = tf.contrib.optimizer_v2.AdamOptimizer(0.1)
        (grad, _), = opt.compute_gradients(loss, stop_gradients=[h])
        train = opt.minimize(loss, stop_gradients=[h], scale_loss_by_num_replicas=True)
        sgd = tf.contrib.optimizer_v2.GradientDescentOptimizer(0.5)
        t2 = sgd.minimize(loss, None, [w], 1, None, "mytrain")
        assert t2.name == "mytrain"
        assert isinstance(opt, tf.contrib.optimizer_v2.OptimizerV2)
        with pytest.raises(TypeError):
            opt.minimize(loss, colocate_gradients_with_ops=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(grad), [3., 6.])  # h held constant
            sess.run(train)
            np.testing.assert_allclose(sess.run(w), [0.9, 1.9], rtol=1e-6)
            sess.run(t2)
            np.testing.assert_allclose(sess.run(w), [-1.8, -3.8], rtol=1e-6)


@pytest.mark.parametrize("spec,message", [
    # TF 1.15: the spec's length is checked before any stride, strides are numbered by the
    # input's dimension, and a zero stride found before begin is evaluated hides a shrunk
    # index out of bounds
    ((Ellipsis, slice(-3, 7, 0), slice(-1, None, 2), slice(0, None)),
     "strides[0] must be non-zero"),
    ((None, slice(None, None, 0)), "strides[0] must be non-zero"),
    ((slice(5, None, 0), slice(7, None, -1), slice(-5, 5), 1),
     "Index out of range using input dim 3; input has only 3 dims"),
    ((6, Ellipsis, slice(None, 0, 0), "T"), "strides[1] must be non-zero"),
    ((5, slice(None), "T"), "slice index 5 of dimension 0 out of bounds."),
    ((-5, slice(0, 1)), "slice index -1 of dimension 0 out of bounds."),
])
def test_strided_slice_errors_in_tf_order(spec, message):
    with _graph():
        x = tf.constant(np.arange(120).reshape(4, 5, 6))
        spec = tuple(tf.constant(1) if s == "T" else s for s in spec)
        with pytest.raises(ValueError) as info:
            x[spec]
        assert str(info.value).startswith(message)


@pytest.mark.parametrize("spec,message", [
    # at run time (input of unknown rank): the same order, dimension by dimension
    ((slice(5, None, 0), slice(7, None, -1), slice(-5, 5), 1),
     "Index out of range using input dim 3; input has only 3 dims"),
    ((None, slice(None, None, 0)), "strides[0] must be non-zero"),
    ((-5, slice(0, 1, 0)), "slice index -1 of dimension 0 out of bounds."),
    ((0, Ellipsis, slice(None, 7, 3), slice(4, None, 0)), "strides[2] must be non-zero"),
    ((slice(3, None, -1), Ellipsis, Ellipsis), "Multiple ellipses in slice spec not allowed"),
])
def test_strided_slice_run_time_errors_in_tf_order(spec, message):
    with _graph():
        p = tf.placeholder(tf.int64)
        y = p[spec]
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(y, {p: np.arange(120).reshape(4, 5, 6)})
        assert info.value.message.startswith(message)


def test_graph_collections_lists_tf_keys_only():
    # TF 1.15: ('__varscope',) is a key, tideflow's own stores are not
    with _graph() as g:
        tf.Variable(1.)
        tf.layers.Dense(2)(tf.ones([1, 2]))
        assert g.collections == [("__varscope",), "variables", "trainable_variables",
                                 ("__variable_store",), "update_ops"]
        assert g.get_all_collection_keys() == ["variables", "trainable_variables", "update_ops"]


def test_graph_defs_leave_out_attrs_tf_1_15_lacks():
    # TF 1.15's ScanDataset, DirectedInterleaveDataset, TensorListSetItem and SerializeIterator
    # have no use_default_device / stop_on_empty_dataset / resize_if_index_out_of_bounds /
    # external_state_policy (its import_graph_def refused such nodes); its stateless random
    # ops' T defaults to int32
    with _graph() as g:
        ds = tf.data.Dataset.range(5).apply(
            tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)))
        sel = tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.from_tensors(1).repeat(), tf.data.Dataset.from_tensors(2).repeat()],
            tf.data.Dataset.range(2).repeat(3))
        ds.make_initializable_iterator().get_next()
        sel.make_initializable_iterator().get_next()
        nodes = {n.op: n for n in g.as_graph_def().node}
        assert "use_default_device" not in nodes["ScanDataset"].attr
        assert "stop_on_empty_dataset" not in nodes["DirectedInterleaveDataset"].attr
    from tideflow.framework import op_registry

    for name in ("StatelessRandomNormal", "StatelessRandomUniform", "StatelessTruncatedNormal"):
        attr = {a.name: a for a in op_registry.lookup_or_load(name).attr}["T"]
        assert attr.default_value.type == tf.int32.as_datatype_enum
    assert op_registry.lookup_or_load("TensorListSetItem").newer_attrs == {
        "resize_if_index_out_of_bounds"}
    assert op_registry.lookup_or_load("SerializeIterator").newer_attrs == {"external_state_policy"}


def test_op_def_prints_as_tf_proto():
    with _graph():
        x = tf.placeholder(tf.float32, name="x")
        assert str(x.op.op_def).startswith('name: "Placeholder"\noutput_arg {\n  name: "output"\n'
                                           '  type_attr: "dtype"\n}\nattr {\n  name: "dtype"\n')


def test_tf_layers_masking_protocol():
    # TF 1.15's tf.layers are Keras layers: Dense, Dropout and BatchNormalization pass a mask
    # through, others refuse one
    with _graph():
        dense = tf.layers.Dense(3)
        mask = tf.ones([2], tf.bool)
        assert dense.supports_masking and dense.compute_mask(tf.ones([2, 3])) is None
        assert dense.compute_mask(tf.ones([2, 3]), mask) is mask
        assert [tf.layers.Dropout().supports_masking, tf.layers.Flatten().supports_masking,
                tf.layers.BatchNormalization().supports_masking,
                tf.layers.Conv2D(2, 2).supports_masking] == [True, False, True, False]
        cell = tf.nn.rnn_cell.LSTMCell(3, name="lstm_cell_1")
        with pytest.raises(TypeError, match="Layer lstm_cell_1 does not support masking, but "
                                            "was passed an input_mask: Tensor"):
            cell.compute_mask(tf.ones([2, 3]), mask)
        assert dense.submodules == ()


_EIGEN_X = [1.9525401592254639, 5.835764408111572, 13.304793357849121, 0.1330365538597107,
            -0.7251711487770081, -0.00024616459268145263, 0.00040467025246471167, -16.0,
            -15.899999618530273, -17.5, -15.800000190734863, 0.0, 1e-08, -20.0, 9.5, -9.5]


def test_float32_sigmoid_and_tanh_are_tf_kernels_bit_for_bit():
    # TF 1.15's outputs (bits): Eigen's rational approximations over 8-float packets (sigmoid
    # exactly 0 at -17.5 and -20, tanh exactly -1 from -9), the sigmoid's last size % 8
    # elements by its scalar 1 / (1 + exp(-x))
    sig = [0x3f602f68, 0x3f7f411d, 0x3f7fffe4, 0x3f088076, 0x3ea70aef, 0x3efff7ef, 0x3f0006a1,
           0x33800000, 0x34800000, 0x0, 0x34800000, 0x3f000000, 0x3f000000, 0x0, 0x3f7ffb19,
           0x389ce000]
    tanh = [0x3f75e468, 0x3f7ffee1, 0x3f800000, 0x3e076e6f, 0xbf1ebf05, 0xb9810fa6, 0x39d429e9,
            0xbf800000, 0xbf800000, 0xbf800000, 0xbf800000, 0x0, 0x322bcc76, 0xbf800000,
            0x3f800000, 0xbf800000]
    x = np.array(_EIGEN_X + [-9.5, -16.0, 3.0], np.float32)
    with _graph(), tf.Session() as sess:
        packets = sess.run([tf.sigmoid(x[:16]), tf.tanh(x[:16])])
        tail = sess.run([tf.sigmoid(x), tf.tanh(x)])
    assert packets[0].view(np.uint32).tolist() == sig
    assert packets[1].view(np.uint32).tolist() == tanh
    assert tail[0].view(np.uint32).tolist() == sig + [0x389cf6c3, 0x33f1aadb, 0x3f73dbe6]
    assert tail[1].view(np.uint32).tolist() == tanh + [0xbf800000, 0xbf800000, 0x3f7ebbe8]


# TF 1.15's float32 outputs (bits) for _TRANSCENDENTAL_X (exp, log(|x| + 0.5),
# log1p(|x|), softplus, elu, selu) and for softmax and log_softmax of _SOFTMAX_X
_TF_BITS = {
    "exp": [
        0, 913971050, 969039962, 1024922318, 1065336447, 1065353144, 1065353216,
        1069109086, 1091593845, 1246201446, 2130215607, 1056037383, 822977587,
        1083140607, 1034427438, 1065361609, 913971050, 969039962, 1104733871],
    "log": [
        1083131480, 1076111393, 1074279667, 1068163409, 3207655207, 3207688584,
        3207688728, 3188628151, 1065240000, 1076849132, 1083143362, 1046773694,
        1078021796, 1060205080, 1066180436, 3207655207, 1076111393, 1074279667,
        1068163409],
    "log1p": [
        1083143362, 1076269688, 1074522179, 1069200357, 981664171, 915425444, 0,
        1050750688, 1066721824, 1076982296, 1083155177, 1057964795, 1078122868,
        1063948808, 1067473546, 981664171, 1076269688, 1074522180, 1069200358],
    "softplus": [
        0, 913833954, 969037512, 1024744088, 1060196694, 1060205044, 1060205080,
        1063594342, 1075021436, 1097859072, 1118830592, 1053168629, 822977587,
        1071237097, 1033998579, 1060213470, 913833954, 969037511, 1079346334],
    "elu": [
        3212836864, 3212836801, 3212830644, 3212218067, 3129147904, 3062890496, 0,
        1052602532, 1074580685, 1097859072, 1118830592, 3204911868, 3212836864,
        1069547520, 3211459706, 981668463, 3212836801, 3212830644, 1079194419],
    "selu": [
        3219196262, 3219196207, 3219190794, 3218652309, 3135656739, 3070044819, 0,
        1053231992, 1075048527, 1098656530, 1119415395, 3211622730, 3219196262,
        1070185486, 3217985672, 982103981, 3219196207, 3219190794, 1079896182],
    "softmax": [
        1057029729, 1047421407, 1038780896, 1031124281, 1024002852, 1017300698,
        1011736185, 1007328915, 1002882365, 999800502, 997634938, 1025835766,
        1024988246, 1024802291, 1025241692, 1026392760, 1028493204, 1031907248,
        1034823518, 1039733964, 1044228571, 1050265312, 952097032, 959470449, 967614219,
        976480629, 986163414, 996929102, 1007971692, 1019665168, 1032705755, 1045918620,
        1059994714],
    "log_softmax": [
        3207558990, 3216675459, 3221925916, 3224638054, 3227086876, 3229272386,
        3230404330, 3231233770, 3231931553, 3232497678, 3232932147, 3226307922,
        3226650230, 3226729226, 3226544906, 3226097271, 3225386322, 3224412060,
        3223174482, 3221673591, 3218593298, 3214538259, 3239365196, 3238726659,
        3238022293, 3236501508, 3234829463, 3233025760, 3231090400, 3228432687,
        3224035339, 3217523878, 3200581718],
}


_TRANSCENDENTAL_X = [-87.5, -12.5, -7.9, -3.3, -1e-3, -4.3e-6, 0.0, 0.37, 2.2, 15.0, 88.0, -0.75,
                     -20.0, 1.5, -2.5, 0.001, -12.5, -7.9, 3.3]


def test_float32_exp_log_softplus_elu_selu_softmax_are_tf_kernels_bit_for_bit():
    # Eigen's Cephes exp and log on 8-float packets, the C library's on the last size % 8
    # elements, denormal results flushed; elu/selu take exp(x) - 1 (elu(-4.3e-6) is
    # -4.2915344e-06, not expm1's -4.299991e-06), softplus log(1 + exp(x)), softmax the row
    # sums in Eigen's lane order
    x = np.array(_TRANSCENDENTAL_X, np.float32)
    logits = np.linspace(-6, 9, 33).astype(np.float32).reshape(3, 11) ** 2 / 7
    with _graph(), tf.Session() as sess:
        got = sess.run([tf.exp(x), tf.log(tf.abs(x) + 0.5), tf.math.log1p(tf.abs(x)),
                        tf.nn.softplus(x), tf.nn.elu(x), tf.nn.selu(x), tf.nn.softmax(logits),
                        tf.nn.log_softmax(logits)])
    for name, value in zip(_TF_BITS, got):
        assert value.view(np.uint32).reshape(-1).tolist() == _TF_BITS[name], name


def test_float32_sums_and_means_add_in_eigens_lane_order():
    # TF 1.15's bits: a whole-tensor sum of up to 8192 floats (one thread in TF) or a sum over
    # the trailing axes adds eight lanes over whole packets, the rest, then the lanes pairwise
    # (NumPy's pairwise sum differs in the last bit for 13 and 4096 values)
    rng = np.random.RandomState(5)
    want = {5: (0x41d88470, 0x40ad36c0), 13: (0x42628c99, 0x408b6a37),
            100: (0x440065ec, 0x40a45980), 1000: (0x459b43ec, 0x409efddf),
            4096: (0x46a242e3, 0x40a242e3)}
    values = {n: (rng.rand(n) * 10).astype(np.float32) for n in want}
    with _graph(), tf.Session() as sess:
        got = sess.run({n: (tf.reduce_sum(x), tf.reduce_mean(x)) for n, x in values.items()})
        rows = sess.run(tf.reduce_sum(values[1000].reshape(8, 125), 1))
    for n, (total, mean) in want.items():
        assert (int(got[n][0].view(np.uint32)), int(got[n][1].view(np.uint32))) == (total, mean)
    assert rows.shape == (8,)
    np.testing.assert_allclose(rows, values[1000].reshape(8, 125).sum(1), rtol=1e-6)
