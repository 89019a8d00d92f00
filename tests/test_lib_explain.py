"""What running model-explanation libraries (iNNvestigate 1.0.9 on standalone Keras, SHAP 0.35's
DeepExplainer and GradientExplainer) on tideflow needed, pinned with plain TF 1.x calls: the
gradient registry as ``ops._gradient_registry`` (entries rewritten in place to override
gradients), registered gradient functions that return a bare tensor where TF's do, and the
``tensorflow.python.eager`` modules such libraries import."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.python.framework import ops as tf_ops


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# ops._gradient_registry: TF's Registry (lookup, list, _registry entries of type/location)
# ------------------------------------------------------------------------------------------

def test_gradient_registry_lookup_and_entries():
    reg = tf_ops._gradient_registry
    entry = reg._registry["Relu"]
    assert set(entry) == {"type", "location"}
    assert callable(entry["type"])
    assert reg.lookup("Relu") is entry["type"]
    assert reg.lookup(b"Relu") is entry["type"]
    assert "Tanh" in reg.list()
    with pytest.raises(LookupError, match="gradient registry has no entry for: NoSuchOpHere"):
        reg.lookup("NoSuchOpHere")


def test_gradient_registry_not_differentiable_entry_is_none():
    assert tf_ops._gradient_registry.lookup("Shape") is None


def test_gradient_registry_get_gradient_function_agrees():
    x = tf.placeholder(tf.float32, (3,))
    y = tf.nn.sigmoid(x)
    assert tf_ops.get_gradient_function(y.op) is tf_ops._gradient_registry.lookup("Sigmoid")


def test_gradient_registry_entry_rewritten_in_place_overrides_gradients():
    # programs swap an op type's gradient for a while by rewriting its entry's "type"
    reg = tf_ops._gradient_registry._registry
    x = tf.constant([-2.0, -0.5, 1.0, 3.0])
    y = tf.nn.relu(x)
    original = reg["Relu"]["type"]

    def guided(op, grad):
        return tf.where(grad > 0.0, original(op, grad), tf.zeros_like(grad))

    upstream = tf.constant([1.0, 1.0, -1.0, 2.0])
    reg["Relu"]["type"] = guided
    try:
        g_guided = tf.gradients(y, x, grad_ys=upstream)[0]
    finally:
        reg["Relu"]["type"] = original
    g_plain = tf.gradients(y, x, grad_ys=upstream)[0]
    with tf.Session() as sess:
        a, b = sess.run([g_guided, g_plain])
    np.testing.assert_allclose(a, [0.0, 0.0, 0.0, 2.0])
    np.testing.assert_allclose(b, [0.0, 0.0, -1.0, 2.0])


def test_gradient_registry_added_and_removed_entries():
    # a new entry under a fresh name serves gradient_override_map, and can be removed again
    reg = tf_ops._gradient_registry._registry
    name = "ExplainTestDoubleIdentity"

    def double(op, grad):
        return 2.0 * grad

    reg[name] = {"type": double, "location": ("here",)}
    try:
        x = tf.constant([1.0, 2.0])
        g = tf.get_default_graph()
        with g.gradient_override_map({"Identity": name}):
            y = tf.identity(x)
        dx = tf.gradients(y, x)[0]
    finally:
        del reg[name]
    assert name not in tf_ops._gradient_registry.list()
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(dx), [2.0, 2.0])


def test_gradient_registry_register_then_duplicate_fails():
    reg = tf_ops._gradient_registry
    name = "ExplainTestRegistered"

    def my_grad(op, grad):
        return grad

    reg.register(my_grad, name)
    try:
        assert reg.lookup(name) is my_grad
        assert "test_lib_explain.py" in reg._registry[name]["location"]
        with pytest.raises(KeyError, match="Registering two gradient with name "
                                           "'ExplainTestRegistered'"):
            reg.register(my_grad, name)
    finally:
        del reg._registry[name]


def test_rescale_rule_through_registry_sums_to_output_difference():
    # a DeepLIFT-style rescale rule for Relu/Sigmoid (the rule SHAP's DeepExplainer installs):
    # inputs and references ride in one batch; the attributions then add up exactly
    reg = tf_ops._gradient_registry._registry
    originals = {t: reg[t]["type"] for t in ("Relu", "Sigmoid")}

    def rescale(op, grad):
        xin, rin = tf.split(op.inputs[0], 2)
        xout, rout = tf.split(op.outputs[0], 2)
        delta = xin - rin
        ratio = tf.where(tf.abs(delta) < 1e-6, tf.zeros_like(delta),
                         (xout - rout) / tf.where(tf.abs(delta) < 1e-6,
                                                  tf.ones_like(delta), delta))
        return grad * tf.tile(ratio, [2, 1])

    rs = np.random.RandomState(3)
    w1 = rs.randn(4, 6).astype(np.float32)
    w2 = rs.randn(6, 1).astype(np.float32)
    x = tf.placeholder(tf.float32, (None, 4))
    out = tf.nn.sigmoid(tf.matmul(tf.nn.relu(tf.matmul(x, w1)), w2))
    for t in originals:
        reg[t]["type"] = rescale
    try:
        mult = tf.gradients(out, x)[0]
    finally:
        for t, f in originals.items():
            reg[t]["type"] = f
    xv = rs.randn(1, 4).astype(np.float32)
    ref = rs.randn(1, 4).astype(np.float32)
    with tf.Session() as sess:
        m = sess.run(mult, {x: np.concatenate([xv, ref])})
        o = sess.run(out, {x: np.concatenate([xv, ref])})
    phi = m[:1] * (xv - ref)
    np.testing.assert_allclose(phi.sum(), o[0, 0] - o[1, 0], rtol=1e-5, atol=1e-6)


# ------------------------------------------------------------------------------------------
# registered gradient functions return what TF's return (a bare tensor or a list)
# ------------------------------------------------------------------------------------------

def _grad_result(t):
    op = t.op
    fn = tf_ops._gradient_registry.lookup(op.type)
    grads = [tf.ones_like(o) if (o.dtype.is_floating or o.dtype.is_complex) else None
             for o in op.outputs]
    return fn(op, *grads)


def _bare_cases():
    x4 = tf.placeholder(tf.float32, (2, 4, 4, 3))
    x5 = tf.placeholder(tf.float32, (1, 4, 4, 4, 2))
    c = tf.complex(tf.ones((2, 4)), tf.zeros((2, 4)))
    return {
        "MaxPool": tf.nn.max_pool(x4, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        "AvgPool": tf.nn.avg_pool(x4, [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
        "MaxPool3D": tf.nn.max_pool3d(x5, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        "AvgPool3D": tf.nn.avg_pool3d(x5, [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),
        "MaxPoolWithArgmax": tf.nn.max_pool_with_argmax(x4, [1, 2, 2, 1], [1, 2, 2, 1],
                                                        "VALID")[0],
        "DepthToSpace": tf.depth_to_space(tf.ones((1, 2, 2, 4)), 2),
        "SpaceToDepth": tf.space_to_depth(tf.ones((1, 2, 2, 4)), 2),
        "Diag": tf.diag(tf.constant([1.0, 2.0])),
        "DiagPart": tf.diag_part(tf.ones((3, 3))),
        "FFT": tf.fft(c),
        "IFFT": tf.ifft(c),
        "FFT2D": tf.fft2d(c),
        "CheckNumerics": tf.check_numerics(x4, "checked"),
        "Qr": tf.qr(tf.eye(3) + 0.1)[0],
        "SelfAdjointEigV2": tf.self_adjoint_eig(tf.eye(3) * 2.0)[0],
        "Svd": tf.svd(tf.eye(3) + 0.1)[0],
    }


def test_single_input_gradients_are_bare_tensors():
    for op_type, t in _bare_cases().items():
        assert t.op.type == op_type
        r = _grad_result(t)
        assert isinstance(r, tf.Tensor), (op_type, r)
        assert r.shape.as_list() == t.op.inputs[0].shape.as_list(), op_type


def test_lrn_gradient_is_a_one_element_list():
    y = tf.nn.local_response_normalization(tf.ones((1, 2, 2, 3)))
    r = _grad_result(y)
    assert isinstance(r, list) and len(r) == 1 and isinstance(r[0], tf.Tensor)


def test_max_pool_gradient_called_directly_can_be_split():
    # the max-pool rule of SHAP's DeepExplainer: the registered gradient of a batch holding
    # inputs and references is split back into its two halves
    rs = np.random.RandomState(0)
    xv = rs.randn(4, 4, 4, 2).astype(np.float32)
    x = tf.constant(xv)
    y = tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    up = tf.constant(rs.randn(4, 2, 2, 2).astype(np.float32))
    direct = tf_ops._gradient_registry.lookup("MaxPool")(y.op, up)
    first, second = tf.split(direct, 2)
    via_gradients = tf.gradients(y, x, grad_ys=up)[0]
    with tf.Session() as sess:
        a, b, g = sess.run([first, second, via_gradients])
    assert a.shape == (2, 4, 4, 2)
    np.testing.assert_allclose(np.concatenate([a, b]), g)


def test_avg_pool_gradient_values_unchanged():
    x = tf.constant(np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1))
    y = tf.nn.avg_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    g = tf.gradients(y, x)[0]
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(g), np.full((1, 4, 4, 1), 0.25))


# ------------------------------------------------------------------------------------------
# tensorflow.python.eager modules imported by explanation libraries
# ------------------------------------------------------------------------------------------

def test_eager_backprop_and_execute_modules_import():
    from tideflow.python.eager import backprop, execute

    assert backprop.GradientTape is tf.GradientTape
    assert execute.__name__.endswith("eager.execute")


def test_python_framework_registry_entries_have_tf_shape():
    from tideflow.python.framework import registry

    reg = registry.Registry("gadgets")

    def first():
        return 1

    def second():
        return 2

    reg.register(first, "g")
    assert reg._registry["g"]["type"] is first
    filename, line, function = reg._registry["g"]["location"]
    assert line > 0
    assert filename.endswith("test_lib_explain.py") and function == (
        "test_python_framework_registry_entries_have_tf_shape")
    reg._registry["g"]["type"] = second
    assert reg.lookup("g") is second
