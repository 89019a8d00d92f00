"""Differences found by running TensorFlow Probability 0.8.0 (the release for TF 1.15, written
against ``tf.compat.v2``) against tideflow in graph mode, each reduced to the plain TF 1.x calls
the library makes."""

import importlib
import inspect

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# tf.compat.v2: the TF 2 spelling of the API, as TF 1.15 exports it
# ----------------------------------------------------------------------------------------


def test_compat_v2_is_an_importable_namespace_of_its_own():
    v2 = importlib.import_module("tideflow.compat.v2")
    assert tf.compat.v2 is v2
    assert v2.compat.v1 is tf and v2.compat.v2 is v2
    from tideflow.compat.v2 import math as v2_math

    assert v2_math is v2.math
    # names whose TF 2 form is the TF 1 one are the very same objects
    assert v2.exp is tf.exp and v2.math.lgamma is tf.math.lgamma and v2.Variable is tf.Variable


@pytest.mark.parametrize("fn", ["reduce_sum", "math.reduce_sum", "reduce_logsumexp",
                                "math.reduce_prod", "reduce_all"])
def test_compat_v2_reductions_have_tf2_signatures(fn):
    obj = tf.compat.v2
    for part in fn.split("."):
        obj = getattr(obj, part)
    spec = inspect.getfullargspec(obj)
    assert spec.args == ["input_tensor", "axis", "keepdims", "name"]
    assert spec.defaults == (None, False, None)


def test_compat_v2_signatures_that_differ_from_tf1():
    v2 = tf.compat.v2

    def argspec(f):
        s = inspect.getfullargspec(f)
        return s.args, s.defaults

    assert argspec(v2.concat) == (["values", "axis", "name"], ("concat",))
    assert argspec(v2.ones_like) == (["input", "dtype", "name"], (None, None))
    assert argspec(v2.shape) == (["input", "out_type", "name"], (tf.int32, None))
    assert argspec(v2.size) == (["input", "out_type", "name"], (tf.int32, None))
    assert argspec(v2.pad)[0] == ["tensor", "paddings", "mode", "constant_values", "name"]
    assert argspec(v2.where) == (["condition", "x", "y", "name"], (None, None, None))
    assert argspec(v2.argmax)[0] == ["input", "axis", "output_type", "name"]
    assert argspec(v2.nn.softmax_cross_entropy_with_logits) == (
        ["labels", "logits", "axis", "name"], (-1, None))
    assert argspec(v2.debugging.assert_equal)[0] == ["x", "y", "message", "summarize", "name"]


def test_compat_v2_reduction_values_and_keepdims_default():
    v2 = tf.compat.v2
    x = tf.constant([[1.0, 2.0, 4.0], [8.0, 16.0, 32.0]])
    s = v2.reduce_sum(x, 1)
    k = v2.math.reduce_max(x, axis=0, keepdims=True)
    assert s.shape.as_list() == [2] and k.shape.as_list() == [1, 3]
    with tf.Session() as sess:
        sv, kv, sz, sh = sess.run([s, k, v2.size(x), v2.shape(x)])
    np.testing.assert_allclose(sv, [7.0, 56.0])
    np.testing.assert_allclose(kv, [[8.0, 16.0, 32.0]])
    assert sz == 6 and list(sh) == [2, 3] and sh.dtype == np.int32


def test_compat_v2_where_broadcasts_its_three_arguments():
    cond = tf.constant([[True], [False]])
    out = tf.compat.v2.where(cond, tf.constant([1.0, 2.0, 3.0]), tf.constant(-1.0))
    assert out.shape.as_list() == [2, 3]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), [[1.0, 2.0, 3.0], [-1.0, -1.0, -1.0]])


def test_compat_v2_while_loop_keeps_the_loop_structure():
    out = tf.compat.v2.while_loop(lambda i: i < 5, lambda i: [i + 2], [tf.constant(0)])
    assert isinstance(out, list) and len(out) == 1
    v1 = tf.while_loop(lambda i: i < 5, lambda i: [i + 2], [tf.constant(0)])
    assert isinstance(v1, tf.Tensor)  # TF 1's unpacks a single loop variable
    with tf.Session() as sess:
        assert sess.run(out[0]) == 6


def test_compat_v2_softmax_cross_entropy_backpropagates_into_labels():
    labels = tf.constant([[0.25, 0.75]])
    logits = tf.constant([[1.0, 3.0]])
    loss = tf.compat.v2.nn.softmax_cross_entropy_with_logits(labels, logits)
    g = tf.gradients(loss, labels)[0]
    assert g is not None
    with tf.Session() as sess:
        lv, gv = sess.run([loss, g])
    logp = np.log(np.exp([1.0, 3.0]) / np.exp([1.0, 3.0]).sum())
    np.testing.assert_allclose(lv, [-(0.25 * logp[0] + 0.75 * logp[1])], rtol=1e-6)
    np.testing.assert_allclose(gv, [-logp], rtol=1e-6)


def test_compat_v2_dropout_takes_rate_and_poisson_takes_shape_first():
    v2 = tf.compat.v2
    x = tf.ones([1000])
    y = v2.nn.dropout(x, 0.25, seed=3)
    p = v2.random.poisson([4, 2], [1.0, 5.0], seed=1)
    assert p.shape.as_list() == [4, 2, 2]
    with tf.Session() as sess:
        yv = sess.run(y)
    assert set(np.unique(yv)) <= {0.0, np.float32(1 / 0.75)}
    assert 0.15 < (yv == 0).mean() < 0.35


def test_compat_v2_asserts_take_message_third():
    x = tf.placeholder(tf.float32)
    check = tf.compat.v2.debugging.assert_equal(x, 1.0, "x must be one")
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="x must be one"):
        sess.run(check, {x: 2.0})


def test_compat_v2_optimizers_and_initializers_are_keras_ones():
    assert tf.compat.v2.optimizers is tf.keras.optimizers
    inits = tf.compat.v2.initializers
    assert inits is tf.keras.initializers
    config = inits.serialize(inits.get("glorot_uniform"))
    assert config["class_name"] == "GlorotUniform"
    assert isinstance(inits.deserialize(config), inits.GlorotUniform)


# ----------------------------------------------------------------------------------------
# tensorflow.python.* helpers libraries import
# ----------------------------------------------------------------------------------------


def test_lazy_loader_imports_on_first_attribute_access():
    lazy_loader = importlib.import_module("tideflow.python.util.lazy_loader")
    scope = {}
    mod = lazy_loader.LazyLoader("jsonmod", scope, "json")
    scope["jsonmod"] = mod
    assert mod.dumps([1]) == "[1]"
    import json

    assert scope["jsonmod"] is json


def test_name_scope_object_has_the_given_name():
    assert tf.name_scope("block").name == "block"
    assert tf.name_scope(None, default_name="fallback").name == "fallback"
    with tf.name_scope("outer"):
        ns = tf.name_scope("inner")
        with ns as scope:
            assert scope == "outer/inner/"
        assert ns.name == "inner"


def test_linear_operator_util_solves_broadcast_batch_dims():
    util = importlib.import_module("tideflow.python.ops.linalg.linear_operator_util")
    rng = np.random.RandomState(1)
    lower = np.tril(rng.rand(3, 3)) + 2 * np.eye(3)
    rhs = rng.rand(4, 3, 2)
    x = util.matrix_triangular_solve_with_broadcast(lower, rhs)
    xa = util.matrix_triangular_solve_with_broadcast(lower, rhs, adjoint=True)
    spd = lower @ lower.T
    c = util.cholesky_solve_with_broadcast(np.linalg.cholesky(spd)[None], rhs)
    s = util.matrix_solve_with_broadcast(spd, rhs)
    for t in (x, xa, c, s):
        assert t.shape.as_list() == [4, 3, 2]
    with tf.Session() as sess:
        xv, xav, cv, sv = sess.run([x, xa, c, s])
    np.testing.assert_allclose(xv, np.linalg.solve(lower, rhs), rtol=1e-10)
    np.testing.assert_allclose(xav, np.linalg.solve(lower.T, rhs), rtol=1e-10)
    np.testing.assert_allclose(cv, np.linalg.solve(spd, rhs), rtol=1e-9)
    np.testing.assert_allclose(sv, np.linalg.solve(spd, rhs), rtol=1e-9)


def test_broadcast_matrix_batch_dims_with_unknown_batch():
    util = importlib.import_module("tideflow.python.ops.linalg.linear_operator_util")
    a = tf.placeholder(tf.float64, [None, 2, 2])
    b = tf.ones([3, 1, 2, 5], tf.float64)
    a2, b2 = util.broadcast_matrix_batch_dims([a, b])
    with tf.Session() as sess:
        av, bv = sess.run([a2, b2], {a: np.ones((4, 2, 2))})
    assert av.shape == (3, 4, 2, 2) and bv.shape == (3, 4, 2, 5)
    assert util.is_ref(tf.Variable(1.0)) and not util.is_ref(tf.constant(1.0))


def test_nn_ops_convolution_object():
    nn_ops = importlib.import_module("tideflow.python.ops.nn_ops")
    x = np.arange(2 * 5 * 5 * 1, dtype=np.float32).reshape(2, 5, 5, 1)
    w = np.ones((3, 3, 1, 2), np.float32)
    conv = nn_ops.Convolution(tf.TensorShape([None, 5, 5, 1]), tf.TensorShape([3, 3, 1, 2]),
                              padding="VALID", strides=[1, 1], data_format="NHWC")
    y = conv(tf.constant(x), tf.constant(w))
    assert y.shape.as_list() == [2, 3, 3, 2]
    with tf.Session() as sess:
        yv = sess.run(y)
    np.testing.assert_allclose(yv[0, 0, 0], [x[0, :3, :3, 0].sum()] * 2)
    with pytest.raises(ValueError):
        nn_ops.Convolution(tf.TensorShape(None), tf.TensorShape(None), "SAME")


def test_layers_utils_convert_data_format():
    utils = importlib.import_module("tideflow.python.layers.utils")
    assert utils.convert_data_format("channels_last", 4) == "NHWC"
    assert utils.convert_data_format("channels_first", 3) == "NCW"
    assert utils.convert_data_format("channels_last", 5) == "NDHWC"
    with pytest.raises(ValueError):
        utils.convert_data_format("channels_last", 6)


# ----------------------------------------------------------------------------------------
# tf.Module as TF's trackable base
# ----------------------------------------------------------------------------------------


def test_module_no_dependency_and_same_object_assignment():
    class Box(tf.Module):
        def __init__(self):
            super().__init__(name="box")
            self._params = self._no_dependency({"a": 1})
            self._inner = tf.constant([1.0, 2.0])

        @property
        def shape(self):
            return self._inner.shape

    b = Box()
    assert b._params == {"a": 1}
    b.shape = b._inner.shape  # the object the read-only property returns: a no-op, as in TF
    with pytest.raises(AttributeError):
        b.shape = tf.TensorShape([5])


def test_keras_batch_normalization_axis_is_a_list_once_built():
    bn = tf.keras.layers.BatchNormalization()
    assert bn.axis == -1
    bn(tf.zeros([4, 3]))
    assert bn.axis == [1]
    bn2 = tf.keras.layers.BatchNormalization(axis=[1, -1])
    bn2(tf.zeros([2, 3, 5]))
    assert bn2.axis == [1, 2]
    bn3 = tf.keras.layers.BatchNormalization(axis=1)
    bn3.build(tf.TensorShape([None, 6, 4, 4]))
    assert bn3.axis == [1]


def test_reverse_axis_list_holding_a_tensor():
    x = tf.placeholder(tf.float32, shape=None)
    y = tf.reverse(x, axis=[tf.rank(x) - 1])  # TF packs the list like any op argument
    z = tf.reverse(tf.constant([[1, 2], [3, 4]]), [True, False])  # 0.x's bool mask still works
    with tf.Session() as sess:
        got = sess.run(y, {x: np.arange(6, dtype=np.float32).reshape(2, 3)})
        np.testing.assert_array_equal(got, [[2, 1, 0], [5, 4, 3]])
        np.testing.assert_array_equal(sess.run(z), [[3, 4], [1, 2]])


def test_overloadable_operators_is_a_mutable_set_of_tensor_dunders():
    ops = tf.Tensor.OVERLOADABLE_OPERATORS
    assert type(ops) is set  # TF 1.15's; TF Probability's tensor-like metaclass edits it
    assert {"__add__", "__getitem__", "__eq__", "__matmul__"} <= ops
    assert all(hasattr(tf.Tensor, name) for name in ops if name not in ("__div__", "__rdiv__"))


# ----------------------------------------------------------------------------------------
# Keras layers returning objects of a registered symbolic type (TF Probability's
# DistributionLambda layers return distributions)
# ----------------------------------------------------------------------------------------


class _GaussianOut:
    """A distribution-like object a layer returns: a loc tensor and a log density."""

    def __init__(self, loc):
        self.loc = loc
        self.dtype = loc.dtype
        self.shape = loc.shape

    def get_shape(self):
        return self.shape

    def log_prob(self, y):
        return -0.5 * tf.square(y - self.loc)


def _gaussian_to_tensor(value, dtype=None, name=None, as_ref=False):
    return value.loc


tf.register_tensor_conversion_function(_GaussianOut, _gaussian_to_tensor)


class _GaussianLayer(tf.keras.layers.Layer):
    def call(self, inputs):
        return _GaussianOut(inputs)


def test_keras_layers_pass_registered_symbolic_types_through():
    from tideflow.keras.utils import tf_utils
    tf_utils.register_symbolic_tensor_type(_GaussianOut)
    assert tf_utils.is_symbolic_tensor(tf.constant(1.0))
    x = np.linspace(-1, 1, 32).astype(np.float32)[:, None]
    y = 3.0 * x
    inp = tf.keras.layers.Input(shape=(1,))
    out = _GaussianLayer()(tf.keras.layers.Dense(1)(inp))
    assert isinstance(out, _GaussianOut) and tf_utils.is_symbolic_tensor(out)
    model = tf.keras.Model(inp, out)
    assert model.outputs[0] is out
    model.compile(optimizer=tf.train.GradientDescentOptimizer(0.5),
                  loss=lambda y_true, dist: -dist.log_prob(y_true))
    hist = model.fit(x, y, epochs=30, batch_size=32, verbose=0)
    assert hist.history["loss"][-1] < 0.1 * hist.history["loss"][0]
    seq = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,)), _GaussianLayer()])
    assert isinstance(seq.outputs[0], _GaussianOut)
    # an unregistered non-tensor result is still converted to a tensor
    class Plain(tf.keras.layers.Layer):
        def call(self, inputs):
            return np.ones((1, 2), np.float32)

    assert isinstance(Plain()(inp), tf.Tensor)


def test_compat_v2_image_resize_uses_half_pixel_centers():
    img = tf.constant(np.array([0.0, 1.0], np.float32).reshape(1, 1, 2, 1))
    v2 = tf.compat.v2.image.resize(img, [1, 4])
    v1 = tf.image.resize(img, [1, 4])
    assert "resize" in dir(tf.compat.v2.image)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(v2).ravel(), [0.0, 0.25, 0.75, 1.0], atol=1e-6)
        np.testing.assert_allclose(sess.run(v1).ravel(), [0.0, 0.5, 1.0, 1.0], atol=1e-6)


def test_shape_inference_sees_through_comparisons_and_select():
    x = tf.reshape(tf.range(12.0), [3, 4])
    dims = tf.shape(x)
    broadcast = dims[0] > 3  # False, known statically
    start = tf.where(broadcast, 0, 1)
    step = tf.where(broadcast, 1, 2)
    assert x[start:, ::step].shape.as_list() == [2, 2]
    assert tf.zeros(tf.where(broadcast, [1, 2], [3, 4])).shape.as_list() == [3, 4]
    assert tf.tile(x, [tf.compat.v2.where(broadcast, 1, 2), 1]).shape.as_list() == [6, 4]
    assert tf.slice(x, [0, 0], tf.where(dims < 4, [1, 1], [2, 2])).shape.as_list() == [1, 2]
    # ... while the Python-side constant value (smart_cond's) still stops at them
    from tideflow.framework import ops as framework_ops

    assert framework_ops.constant_value(broadcast) is None
    assert framework_ops.constant_value(start) is None
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(x[start:, ::step]), [[4.0, 6.0], [8.0, 10.0]])


def test_keras_optimizer_minimize_and_apply_gradients():
    v = tf.Variable([1.0, -2.0])
    w = tf.Variable(3.0)
    opt = tf.keras.optimizers.SGD(0.1)
    step = opt.minimize(lambda: tf.reduce_sum(v * v), var_list=[v])
    other = tf.keras.optimizers.Adam(0.5)
    step2 = other.apply_gradients([(tf.constant(1.0), w), (None, v)])
    with pytest.raises(ValueError, match="No gradients provided"):
        other.apply_gradients([(None, w)])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step)
        np.testing.assert_allclose(sess.run(v), np.array([1.0, -2.0]) * 0.8 ** 3, rtol=1e-6)
        assert sess.run(opt.iterations) == 3
        sess.run(step2)
        np.testing.assert_allclose(sess.run(w), 2.5, rtol=1e-5)  # Adam's first step: lr


class _HeavyBall(tf.keras.optimizers.Optimizer):
    """A user-written Keras optimizer in TF 1.15's OptimizerV2 style."""

    def __init__(self, learning_rate=0.1, momentum=0.5, name="HeavyBall", **kwargs):
        super().__init__(name=name, **kwargs)
        self._set_hyper("learning_rate", learning_rate)
        self._set_hyper("momentum", momentum)

    def _create_slots(self, var_list):
        for var in var_list:
            self.add_slot(var, "velocity")

    def _resource_apply_dense(self, grad, var):
        lr = self._get_hyper("learning_rate", var.dtype.base_dtype)
        mom = self._get_hyper("momentum", var.dtype.base_dtype)
        vel = self.get_slot(var, "velocity")
        return tf.assign_add(var, tf.assign(vel, mom * vel - lr * grad))

    def _resource_apply_sparse(self, grad, var, indices):
        lr = self._get_hyper("learning_rate", var.dtype.base_dtype)
        return self._resource_scatter_add(var, indices, -lr * grad)


def test_keras_optimizer_subclass_with_its_own_update_rule():
    v = tf.Variable([1.0, -2.0])
    emb = tf.Variable(np.ones((3, 2), np.float32))
    opt = _HeavyBall()
    step = opt.minimize(lambda: tf.reduce_sum(v * v), var_list=[v])
    sparse = opt.minimize(lambda: tf.reduce_sum(tf.gather(emb, [2])), var_list=[emb])
    assert opt.get_slot(v, "velocity").name == "HeavyBall/Variable/velocity:0"
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(step)
        # velocity -0.2, -0.26, -0.238 (times the start value) from g = 2v
        np.testing.assert_allclose(sess.run(v), np.array([1.0, -2.0]) * 0.302, rtol=1e-5)
        sess.run(sparse)
        np.testing.assert_allclose(sess.run(emb), [[1, 1], [1, 1], [0.9, 0.9]], rtol=1e-6)
        assert sess.run(opt.iterations) == 4
    x = np.linspace(-1, 1, 32).astype(np.float32)[:, None]
    model = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(1,))])
    model.compile(optimizer=_HeavyBall(0.1, 0.5), loss="mse")
    hist = model.fit(x, 2 * x, epochs=15, verbose=0)
    assert hist.history["loss"][-1] < 0.05 * hist.history["loss"][0]
