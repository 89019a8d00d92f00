"""TF 1.15 parity fixes of the seventeenth session (the lead's), each pinned with what TF 1.15
printed for the same program."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_protos_print_as_tf1_programs_show_them():
    # TF 1.15's printed protos: float fields at double precision with '.0', maps sorted by
    # key, non-ASCII octal-escaped; repr is the same text
    v = tf.Summary.Value(tag="a", simple_value=4.0)
    assert str(v) == repr(v) == 'tag: "a"\nsimple_value: 4.0\n'
    assert str(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=0.3)])) == (
        'value {\n  tag: "x"\n  simple_value: 0.30000001192092896\n}\n')
    fl = tf.train.FloatList(value=[float("inf"), -float("inf"), float("nan"), -0.0, 1e16,
                                   123456789.0, 1.5e-45, 3.4028234663852886e+38, 1e-8])
    assert str(fl) == (
        "value: inf\nvalue: -inf\nvalue: nan\nvalue: -0.0\nvalue: 1.0000000272564224e+16\n"
        "value: 123456792.0\nvalue: 1.401298464324817e-45\nvalue: 3.4028234663852886e+38\n"
        "value: 9.99999993922529e-09\n")
    hp = tf.HistogramProto(min=1e100, max=-0.0, sum=float("nan"), num=1e16, sum_squares=0.1,
                           bucket_limit=[1e-300, 2.0 ** 70])
    assert str(hp) == ("min: 1e+100\nmax: -0.0\nnum: 1e+16\nsum: nan\nsum_squares: 0.1\n"
                       "bucket_limit: 1e-300\nbucket_limit: 1.1805916207174113e+21\n")
    assert str(tf.train.BytesList(value=["h\u00e9llo".encode(), b"\t\n\"'\\"])) == (
        'value: "h\\303\\251llo"\nvalue: "\\t\\n\\"\\\'\\\\"\n')
    assert str(tf.Summary.Value(tag="\u00e9")) == 'tag: "\\303\\251"\n'
    ex = tf.train.Example(features=tf.train.Features(feature={
        "i": tf.train.Feature(int64_list=tf.train.Int64List(value=[1])),
        "b": tf.train.Feature(float_list=tf.train.FloatList(value=[2.0]))}))
    assert str(ex) == (
        'features {\n  feature {\n    key: "b"\n    value {\n      float_list {\n'
        '        value: 2.0\n      }\n    }\n  }\n  feature {\n    key: "i"\n    value {\n'
        '      int64_list {\n        value: 1\n      }\n    }\n  }\n}\n')
    # attrs in key order ('T' before 'alpha'), a float attr at double precision
    node = tf.nn.leaky_relu(tf.constant([[1.0]]), alpha=0.1).op.node_def
    text = str(node)
    assert text.index('key: "T"') < text.index('key: "alpha"')
    assert "f: 0.10000000149011612" in text
    assert "float_val: 3.0" in str(tf.make_tensor_proto(3.0))
    assert str(tf.AttrValue(list=tf.AttrValue.ListValue(f=[1.0, 0.5]))) == (
        "list {\n  f: 1.0\n  f: 0.5\n}\n")
    # map entries print key and value even when 0 or empty (TF 1.15's C++ printer)
    cd = tf.train.ClusterSpec({"w": ["", "b"]}).as_cluster_def()
    assert str(cd) == ('job {\n  name: "w"\n  tasks {\n    key: 0\n    value: ""\n  }\n'
                       '  tasks {\n    key: 1\n    value: "b"\n  }\n}\n')
    assert str(tf.HistogramProto(min=1 / 3)) == "min: 0.3333333333333333\n"
    assert str(tf.train.FloatList(value=[1 / 3])) == "value: 0.3333333432674408\n"
    # the text parses back to the same message
    from google.protobuf import text_format
    assert text_format.Parse(str(ex), tf.train.Example()) == ex
    assert np.isnan(text_format.Parse(str(fl), tf.train.FloatList()).value[2])


def test_op_error_has_no_args_as_in_tf():
    # TF 1.15: OpError passes nothing to Exception, so repr shows no message (str does)
    e = tf.errors.InvalidArgumentError(None, None, "boom")
    assert (str(e), repr(e), e.args, e.message, e.error_code) == (
        "boom", "InvalidArgumentError()", (), "boom", 3)
    import pickle
    back = pickle.loads(pickle.dumps(tf.errors.OutOfRangeError(None, None, "done")))
    assert type(back) is tf.errors.OutOfRangeError and str(back) == "done"
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(tf.placeholder(tf.float32, name="p"))
        assert info.value.args == () and "p" in str(info.value)


def test_numpy1_names_are_back_for_tf1_programs():
    # TF 1.x programs ran on NumPy 1.x: its removed names keep their 1.x meaning here
    assert np.float is float and np.int is int and np.object is object and np.str is str
    assert np.zeros(2, dtype=np.float).dtype == np.float64
    assert np.zeros(2, dtype=np.int).dtype == np.dtype(int)
    assert np.float_ is np.float64 and np.string_ is np.bytes_ and np.bool8 is np.bool_
    assert np.isnan(np.NaN) and np.Inf == np.inf and np.NINF == -np.inf
    assert np.asscalar(np.array([3.5])) == 3.5 and np.product([2, 3]) == 6
    np.testing.assert_array_equal(np.in1d([[1, 2], [3, 2]], [2]), [False, True, False, True])
    assert np.cast[np.float32]([1, 2]).dtype == np.float32
    assert np.asfarray([1, 2]).dtype == np.float64 and np.trapz([1, 2, 3]) == 4.0
    assert np.alltrue([True, True]) and np.sometrue([False, True])
    assert np.math.sqrt(4.0) == 2.0
    # a fetched value used the way such a program does
    with tf.Session() as sess:
        v = sess.run(tf.constant([1.5, 2.5]))
    assert v.astype(np.float).dtype == np.float64 and np.asscalar(v[:1]) == 1.5


def test_numpy1_names_can_be_left_out():
    import os
    import subprocess
    import sys

    code = ("import numpy as np, tideflow; "
            "import time; print(hasattr(np, 'asscalar'), 'float' in vars(np), "
            "hasattr(np.ndarray, 'tostring'), hasattr(time, 'clock'))")
    env = dict(os.environ, TIDEFLOW_LEGACY_NAMES="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False", "False", "False"]


def test_numpy1_tostring_and_binary_fromstring_for_tfrecord_programs():
    # TF 1.x's convert_to_records-style programs: features from arr.tostring(), read back
    # with np.fromstring(bytes, dtype)
    img = np.arange(12, dtype=np.uint8).reshape(3, 4)
    raw = img.tostring()
    assert raw == img.tobytes() and img.tostring(order="F") == img.tobytes(order="F")
    assert np.float32(1.5).tostring() == np.float32(1.5).tobytes()
    assert img.ptp() == 11 and list(img.ptp(axis=0)) == [8, 8, 8, 8]
    back = np.fromstring(raw, dtype=np.uint8)
    assert back.flags.writeable and list(back) == list(range(12))
    assert list(np.fromstring(raw, dtype=np.uint8, count=3)) == [0, 1, 2]
    assert list(np.fromstring("1 2 3", dtype=int, sep=" ")) == [1, 2, 3]  # text mode as before
    ex = tf.train.Example(features=tf.train.Features(feature={
        "img": tf.train.Feature(bytes_list=tf.train.BytesList(value=[raw]))}))
    parsed = tf.parse_single_example(ex.SerializeToString(),
                                     {"img": tf.FixedLenFeature([], tf.string)})
    with tf.Session() as sess:
        got = sess.run(tf.decode_raw(parsed["img"], tf.uint8))
    np.testing.assert_array_equal(got, img.ravel())


def test_python37_names_are_back_for_tf1_programs():
    # TF 1.15 ran on Python 3.5-3.7; its programs time steps with time.clock and test
    # collections.Iterable
    import base64
    import collections
    import fractions
    import inspect
    import threading
    import time

    t0 = time.clock()
    assert time.clock() >= t0
    assert isinstance([1], collections.Iterable) and issubclass(dict, collections.Mapping)
    assert not isinstance(3, collections.Sequence) and collections.Callable is not None
    t = threading.Thread(target=lambda: None)
    assert t.isAlive() is False
    spec = inspect.getargspec(lambda a, b=2, *c, **d: None)
    assert (spec.args, spec.varargs, spec.keywords, spec.defaults) == (["a", "b"], "c", "d", (2,))
    with pytest.raises(ValueError):
        inspect.getargspec(lambda *, k: None)
    assert base64.decodestring(base64.encodestring(b"ab")) == b"ab"
    assert fractions.gcd(12, 18) == 6


def test_batch_renorm_with_a_tensor_training_flag_is_tf1_graph():
    # TF 1.15: each moving-statistics update in a cond of its own (cond_6, cond_7), the
    # variance set under AssignNewValue; the op count after the layer is TF's, so a later
    # random op draws TF's numbers (printed by TF 1.15 for this program)
    tf.set_random_seed(1)
    x = tf.placeholder(tf.float32, [None, 4, 4, 2])
    training = tf.placeholder_with_default(True, [])
    tf.layers.batch_normalization(x, training=training, momentum=0.9, renorm=True)
    assert [o.name for o in tf.get_collection(tf.GraphKeys.UPDATE_OPS)] == [
        "batch_normalization/cond_6/Merge", "batch_normalization/cond_7/Merge"]
    r = tf.random_normal([3])
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(r), [-1.6522181, 0.5509488, -0.8257483], rtol=1e-6)


def test_batch_renorm_values_and_stddev_floor():
    # the renorm stddev is at least sqrt(epsilon) in the corrections (TF 1.15)
    x = tf.placeholder(tf.float32, [None, 2])
    training = tf.placeholder_with_default(True, [])
    layer = tf.layers.BatchNormalization(momentum=0.5, renorm=True, renorm_momentum=0.5,
                                         epsilon=0.01, renorm_clipping={"rmax": 100.0})
    y = layer(x, training=training)
    with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
        y = tf.identity(y)
    xs = np.array([[1.0, 2.0], [3.0, 6.0]], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(layer.renorm_stddev.assign([1e-4, 1e-4]))
        got = sess.run(y, {x: xs})
        mean, var = xs.mean(0), xs.var(0)
        std = np.sqrt(var + 0.01)
        floor = np.maximum(1e-4, np.sqrt(0.01))
        r = np.minimum(std / floor, 100.0)
        d = mean / floor
        want = (xs - mean) / std * r + d
        np.testing.assert_allclose(got, want, rtol=1e-5)
        # the moving variance comes from the moving stddev (relu of stddev^2 - epsilon)
        mv, ms = sess.run([layer.moving_variance, layer.moving_stddev])
        np.testing.assert_allclose(ms, 0.5 * 1.0 + 0.5 * std, rtol=1e-5)  # from sqrt(1)
        np.testing.assert_allclose(mv, np.maximum(ms * ms - 0.01, 0), rtol=1e-5)
        # inference: the moving statistics, no correction
        got = sess.run(y, {x: xs, training: False})
        np.testing.assert_allclose(got, (xs - sess.run(layer.moving_mean)) / np.sqrt(mv + 0.01),
                                   rtol=1e-5)


@pytest.mark.parametrize("make", [lambda: tf.keras.optimizers.Adam(0.01, amsgrad=True),
                                  lambda: tf.keras.optimizers.Nadam(0.01)])
def test_keras_amsgrad_and_nadam_train_an_embedding(make):
    # an Embedding's gradient is IndexedSlices: the written-out rules take it as dense rows
    # (repeated ids summed), as TF's sparse updates do
    ids = np.array([[1, 2, 2], [0, 1, 3]])
    y = np.array([0, 1])
    table = np.arange(8, dtype=np.float32).reshape(4, 2) / 10
    kernel = np.arange(12, dtype=np.float32).reshape(6, 2) / 20 - 0.2

    def build(opt):
        model = tf.keras.Sequential([tf.keras.layers.Embedding(4, 2, input_length=3,
                                                               embeddings_initializer=tf.constant_initializer(table)),
                                     tf.keras.layers.Flatten(),
                                     tf.keras.layers.Dense(
                                         2, activation="softmax",
                                         kernel_initializer=tf.constant_initializer(kernel))])
        model.compile(optimizer=opt, loss="sparse_categorical_crossentropy")
        return model

    model = build(make())
    model.fit(ids, y, epochs=3, batch_size=2, verbose=0, shuffle=False)
    emb = tf.keras.backend.get_value(model.layers[0].embeddings)
    # the same steps on the one-hot (dense-gradient) form of the lookup
    with tf.Graph().as_default():
        inp = tf.keras.Input((3,), dtype="int32")
        hot = tf.keras.layers.Lambda(lambda t: tf.one_hot(t, 4))(inp)
        h = tf.keras.layers.Dense(2, use_bias=False,
                                  kernel_initializer=tf.constant_initializer(table))(hot)
        out = tf.keras.layers.Dense(2, activation="softmax",
                                    kernel_initializer=tf.constant_initializer(kernel))(
            tf.keras.layers.Flatten()(h))
        dense = tf.keras.Model(inp, out)
        dense.compile(optimizer=make(), loss="sparse_categorical_crossentropy")
        dense.fit(ids, y, epochs=3, batch_size=2, verbose=0, shuffle=False)
        want = tf.keras.backend.get_value(dense.layers[2].kernel)
    assert not np.allclose(emb, table)
    np.testing.assert_allclose(emb, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind, nesterov, decay, want_pred, want_random", [
    ("dense", False, 0.0, [1.3242129, 1.1833738], [0.8283584, 0.5654769, 0.41428173]),
    ("dense", True, 0.0, [1.1497856, 0.93950236], [0.8283584, 0.5654769, 0.41428173]),
    ("embedding", False, 0.02, [0.49630237, 0.38733107], [0.23422861, 0.36115623, 0.2424885]),
])
def test_keras_sgd_momentum_keeps_tf_op_count(kind, nesterov, decay, want_pred, want_random):
    # TF 1.15 printed these: the fit's values, and a random op made after it (its op seed is
    # the op count: SGD with momentum makes TF's number of ops, dense and sparse)
    np.random.seed(0)
    tf.set_random_seed(4)
    if kind == "embedding":
        model = tf.keras.Sequential([tf.keras.layers.Embedding(10, 3, input_length=2),
                                     tf.keras.layers.Flatten(), tf.keras.layers.Dense(2)])
        x = np.array([[1, 2], [3, 3], [0, 9], [4, 5]])
    else:
        model = tf.keras.Sequential([tf.keras.layers.Dense(4, input_dim=3, activation="relu"),
                                     tf.keras.layers.Dense(3), tf.keras.layers.Dense(2)])
        x = np.ones((4, 3))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.05, momentum=0.9, nesterov=nesterov,
                                                    decay=decay), loss="mse")
    model.fit(x, np.ones((4, 2)), epochs=2, batch_size=2, verbose=0)
    np.testing.assert_allclose(model.predict(x[:2])[0], want_pred, rtol=1e-5)
    got = tf.keras.backend.get_session().run(tf.random_uniform([3]))
    np.testing.assert_allclose(got, want_random, rtol=1e-6)


def test_keras_metrics_come_back_as_float32_as_in_tf():
    # TF 1.15: evaluate's list and the history hold the loss as a Python float and each
    # metric as its Mean's float32 scalar (printed as 0.50186664, not 0.5018666386604309)
    np.random.seed(0)
    x = np.random.rand(8, 3).astype(np.float32)
    y = np.random.rand(8, 1).astype(np.float32)
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_dim=3)])
    model.compile(optimizer="sgd", loss="mse", metrics=["mae"])
    h = model.fit(x, y, epochs=2, batch_size=4, verbose=0)
    loss, mae = model.evaluate(x, y, verbose=0)
    assert isinstance(loss, float) and type(mae) is np.float32
    assert all(isinstance(v, float) for v in h.history["loss"])
    assert all(type(v) is np.float32 for v in h.history["mean_absolute_error"])
    np.testing.assert_allclose(mae, np.abs(model.predict(x) - y).mean(), rtol=1e-5)


def test_unfed_placeholders_fail_first_and_name_the_last_made():
    # TF 1.15 names the last-made placeholder a step lacks; no other op of the step runs
    a = tf.placeholder(tf.float32, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.placeholder(tf.float32, name="c")
    v = tf.Variable(0.0)
    with tf.control_dependencies([tf.assign_add(v, 1.0)]):
        y = a + b * c
    with tf.Session() as sess:
        sess.run(v.initializer)
        for fetch, feed, want in [(y, {}, "c"), (y, {c: 1.0}, "b"), (a + b, {}, "b"),
                                  (b + a, {}, "b"), ([c * 2.0 + a, y], {}, "c")]:
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=f"You must feed a value for placeholder tensor '{want}'"):
                sess.run(fetch, feed)
        assert sess.run(v) == 0.0  # the assign_add never ran
        assert sess.run(y, {a: 1.0, b: 2.0, c: 3.0}) == 7.0 and sess.run(v) == 1.0
