"""What running Lucid 0.3.8 (feature visualisation on frozen graphs) and DeepMind's DNC
(Differentiable Neural Computer on Sonnet 1) on tideflow needed, pinned with plain TF 1.x calls:
gradient overrides bind to imported ops (Lucid imports its model under
``gradient_override_map({"Relu": ...})`` and differentiates it afterwards), and the calls both
libraries lean on (frozen-graph import with ``input_map``, FFT image parameterisations, the
DNC's sort-based allocation, temporal links and cumulative products)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def _frozen_relu_net():
    """A tiny frozen model: input -> dense -> relu "act" -> sum "out"."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="input")
        w = tf.Variable([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]], name="w")
        act = tf.nn.relu(tf.matmul(x, w), name="act")
        tf.reduce_sum(act, name="out")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return tf.graph_util.convert_variables_to_constants(sess, g.as_graph_def(), ["out"])


_PASS_THROUGH = "H175PassThroughRelu"


@tf.RegisterGradient(_PASS_THROUGH)
def _pass_through_relu(op, grad):
    return grad


# ------------------------------------------------------------------------------------------
# gradient_override_map binds at op creation, imported ops included
# ------------------------------------------------------------------------------------------

def test_import_under_gradient_override_map_stamps_imported_ops():
    gd = _frozen_relu_net()
    g = tf.get_default_graph()
    x = tf.constant([[-1.0, -1.0, -1.0], [2.0, 0.0, 1.0]])
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        act, = tf.import_graph_def(gd, {"input": x}, return_elements=["act:0"], name="m")
    assert act.op.get_attr("_gradient_op_type") == _PASS_THROUGH.encode()
    assert act.op.node_def.attr["_gradient_op_type"].s == _PASS_THROUGH.encode()
    # differentiated after the block: the override still applies to the imported Relu
    grad = tf.gradients(tf.reduce_sum(act), x)[0]
    plain, = tf.import_graph_def(gd, {"input": x}, return_elements=["act:0"], name="p")
    grad_plain = tf.gradients(tf.reduce_sum(plain), x)[0]
    with tf.Session() as sess:
        a, b = sess.run([grad, grad_plain])
    w = np.array([[1.0, -2.0], [0.5, 1.0], [-1.0, 0.25]])
    np.testing.assert_allclose(a, np.ones((2, 2)) @ w.T, rtol=1e-6)
    pre = np.array([[-1.0, -1.0, -1.0], [2.0, 0.0, 1.0]]) @ w
    np.testing.assert_allclose(b, (pre > 0).astype(float) @ w.T, rtol=1e-6)


def test_import_override_replaces_recorded_gradient_and_kernel_label():
    with tf.Graph().as_default() as g0:
        x = tf.placeholder(tf.float32, [2], name="x")
        with g0.gradient_override_map({"Relu": "Identity"}):
            tf.nn.relu(x, name="r")
    gd = g0.as_graph_def()
    g = tf.get_default_graph()
    tf.import_graph_def(gd, name="keep")
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        tf.import_graph_def(gd, name="swap")
    with g._kernel_label_map({"Relu": "my_label"}):
        tf.import_graph_def(gd, name="lab")
    assert g.get_operation_by_name("keep/r").get_attr("_gradient_op_type") == b"Identity"
    assert g.get_operation_by_name("swap/r").get_attr("_gradient_op_type") == \
        _PASS_THROUGH.encode()
    assert g.get_operation_by_name("lab/r").get_attr("_kernel") == b"my_label"
    with pytest.raises(ValueError):
        g.get_operation_by_name("keep/r").get_attr("_kernel")


def test_override_active_only_while_differentiating_changes_nothing():
    x = tf.constant([-1.0, 2.0, -3.0])
    r = tf.nn.relu(x)
    g = tf.get_default_graph()
    with g.gradient_override_map({"Relu": _PASS_THROUGH}):
        grad_outside = tf.gradients(r, x)[0]
        r2 = tf.nn.relu(x)
    grad_inside = tf.gradients(r2, x)[0]
    with tf.Session() as sess:
        a, b = sess.run([grad_outside, grad_inside])
    np.testing.assert_allclose(a, [0.0, 1.0, 0.0])
    np.testing.assert_allclose(b, [1.0, 1.0, 1.0])


def test_redirected_relu_pattern_on_imported_model():
    # Lucid's redirected ReLU: where a whole batch row of the ReLU gradient is zero, pass the
    # incoming gradient through unless it pushes an already negative input lower; tf.where
    # with a [batch] condition picks whole rows
    name = "H175RedirectedRelu"

    @tf.RegisterGradient(name)
    def _redirected(op, grad):
        x = op.inputs[0]
        relu_grad = tf.where(x < 0.0, tf.zeros_like(grad), grad)
        redirected = tf.where(tf.logical_and(x < 0.0, grad > 0.0), tf.zeros_like(grad), grad)
        rows = tf.norm(tf.reshape(relu_grad, [tf.shape(relu_grad)[0], -1]), axis=1)
        return tf.where(rows > 0.0, relu_grad, redirected)

    gd = _frozen_relu_net()
    x = tf.constant([[0.0, -2.0, 0.0], [2.0, 0.0, 1.0]])
    with tf.get_default_graph().gradient_override_map({"Relu": name}):
        act, = tf.import_graph_def(gd, {"input": x}, return_elements=["act:0"], name="m")
    up = tf.gradients(-tf.reduce_sum(act * [[1.0, 1.0], [1.0, 1.0]]), act.op.inputs[0])[0]
    down = tf.gradients(tf.reduce_sum(act), act.op.inputs[0])[0]
    with tf.Session() as sess:
        pre, u, d = sess.run([act.op.inputs[0], up, down])
    # row 0 is dead (pre = [-1, -2]); row 1 has a live unit (pre = [1, -3.75])
    np.testing.assert_allclose(pre, [[-1.0, -2.0], [1.0, -3.75]])
    np.testing.assert_allclose(u, [[-1.0, -1.0], [-1.0, 0.0]])  # pushed up: allowed
    np.testing.assert_allclose(d, [[0.0, 0.0], [1.0, 0.0]])  # pushed lower: blocked


def test_py_func_with_pyfunc_gradient_override():
    # Lucid's use_gradient: the value comes from a stateful py_func that replays what a first
    # py_func stored, and the replay carries a gradient registered under a fresh name
    name = "H175ConstantGrad"

    @tf.RegisterGradient(name)
    def _constant_grad(op, grad):
        return [tf.ones_like(op.inputs[0]) * 42.0, tf.ones_like(op.inputs[1]) * 43.0]

    state = {}
    x, y = tf.constant(1.0), tf.constant(2.0)
    out = x + y
    store = tf.py_func(lambda v: state.update(v=v), [out], [], stateful=True)
    with tf.control_dependencies([store]), \
            tf.get_default_graph().gradient_override_map({"PyFunc": name}):
        mock = tf.py_func(lambda a, b: state["v"], [x, y], tf.float32, stateful=True)
    mock.set_shape(out.get_shape())
    gx, gy = tf.gradients(mock, [x, y])
    with tf.Session() as sess:
        assert sess.run(mock) == 3.0
        assert sess.run([gx, gy]) == [42.0, 43.0]


# ------------------------------------------------------------------------------------------
# Lucid: frozen models and image parameterisations
# ------------------------------------------------------------------------------------------

def test_unused_input_map_key_fails_after_the_import():
    # TF checks for input_map keys no node uses once the ops are imported: they stay, so the
    # name is taken and a corrected retry lands in a fresh scope
    gd = _frozen_relu_net()
    g = tf.get_default_graph()
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match=r"Attempted to map inputs that were not found in "
                                         r"graph_def: \[inptu:0\]"):
        tf.import_graph_def(gd, {"inptu:0": x}, name="model")
    assert g.get_operation_by_name("model/act").type == "Relu"
    out, = tf.import_graph_def(gd, {"input:0": x}, return_elements=["out:0"], name="model")
    assert out.name == "model_1/out:0"


def test_frozen_model_imported_behind_placeholder_with_default():
    gd = _frozen_relu_net()
    assert {n.op for n in gd.node} == {"Placeholder", "Const", "Identity", "MatMul", "Relu",
                                        "Sum"}
    img = tf.placeholder(tf.float32, [4, 3])
    loose = tf.placeholder_with_default(img, [None, 3])  # Lucid's forget_xy
    tf.import_graph_def(gd, {"input:0": loose}, name="import")
    g = tf.get_default_graph()
    act = g.get_tensor_by_name("import/act:0")
    assert act.shape.as_list() == [None, 2]
    assert g.unique_name("import", mark_as_used=False) == "import_1"
    assert g.get_tensor_by_name("import/input:0").shape.as_list() == [None, 3]
    with tf.Session() as sess:
        v = sess.run(g.get_tensor_by_name("import/out:0"), {img: np.ones((4, 3))})
    np.testing.assert_allclose(v, 4 * (0.5 + 0.0))


@pytest.mark.parametrize("h,w", [(6, 8), (5, 7)])
def test_fft_image_parameterisation(h, w):
    # Lucid's fft_image: a spectrum variable (real, imag) -> irfft2d -> crop to [h, w]
    fw = w // 2 + 2 if w % 2 else w // 2 + 1
    rs = np.random.RandomState(h * w)
    init = rs.randn(2, 3, h, fw)
    spec = tf.Variable(init)
    scale = rs.rand(h, fw) + 0.5
    img = tf.spectral.irfft2d(tf.complex(spec[0], spec[1]) * scale)
    assert img.shape.as_list() == [3, h, 2 * (fw - 1)]
    img = tf.transpose(img[:3, :h, :w], [1, 2, 0])
    assert img.dtype == tf.float64 and img.shape.as_list() == [h, w, 3]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        v = sess.run(img)
        err = tf.test.compute_gradient_error(spec, [2, 3, h, fw], img, [h, w, 3],
                                             x_init_value=init)
    ref = np.fft.irfft2(((init[0] + 1j * init[1]) * scale), s=(h, 2 * (fw - 1)))
    np.testing.assert_allclose(v, ref[:, :h, :w].transpose(1, 2, 0), atol=1e-12)
    assert err < 1e-6


# ------------------------------------------------------------------------------------------
# DNC: sort-based allocation, temporal links, cumulative products
# ------------------------------------------------------------------------------------------

def _np_allocation(usage):
    usage = 1e-6 + (1 - 1e-6) * usage
    out = np.zeros_like(usage)
    for b, row in enumerate(usage):
        order = np.argsort(row, kind="stable")
        acc = 1.0
        for j in order:
            out[b, j] = (1 - row[j]) * acc
            acc *= row[j]
    return out


def test_dnc_allocation_by_sorting_usage():
    rs = np.random.RandomState(3)
    u = rs.rand(4, 7)
    u[1, 2] = 0.0
    usage = tf.constant(u)
    eps_usage = 1e-6 + (1 - 1e-6) * usage
    nonusage = 1 - eps_usage
    sorted_nonusage, indices = tf.nn.top_k(nonusage, k=7)
    prod = tf.cumprod(1 - sorted_nonusage, axis=1, exclusive=True)
    sorted_alloc = sorted_nonusage * prod
    # batched invert_permutation via one flat permutation with row offsets, then gather_nd
    n, m = tf.shape(indices)[0], 7
    offsets = tf.tile(tf.expand_dims(tf.range(0, n * m, m), 1), [1, m])
    inverse = tf.reshape(tf.invert_permutation(tf.reshape(indices + offsets, [-1])), [-1, m])
    inverse -= offsets
    rows = tf.tile(tf.expand_dims(tf.range(n), 1), [1, m])
    alloc = tf.gather_nd(sorted_alloc, tf.stack([rows, inverse], -1))
    assert indices.dtype == tf.int32 and alloc.shape.as_list() == [4, 7]
    with tf.Session() as sess:
        a, idx = sess.run([alloc, indices])
        err = tf.test.compute_gradient_error(usage, [4, 7], alloc, [4, 7], x_init_value=u)
    np.testing.assert_allclose(a, _np_allocation(u), rtol=1e-10)
    assert (np.argsort(-(1 - u), axis=1, kind="stable") == idx).all()
    assert err < 1e-5


def test_top_k_ties_keep_lower_index_first():
    x = tf.constant([[1.0, 3.0, 3.0, 1.0, 2.0, 3.0], [0.0] * 6])
    v, i = tf.nn.top_k(x, 4)
    vals, idx = tf.Session().run([v, i])
    np.testing.assert_array_equal(idx, [[1, 2, 5, 4], [0, 1, 2, 3]])
    np.testing.assert_array_equal(vals, [[3, 3, 3, 2], [0, 0, 0, 0]])


@pytest.mark.parametrize("exclusive", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_cumprod_gradient_divides_by_input_as_tf_1_15(exclusive, reverse):
    # TF 1.15's Cumprod gradient is cumsum(cumprod(x) * grad, reversed) / x, so a zero input
    # reads nan/inf where the quotient is 0/0 or c/0 (TF 2 later switched to div_no_nan)
    xv = np.array([[1.5, 0.0, 2.0, 0.0, 3.0], [2.0, 0.5, 0.0, 4.0, 1.0]])
    gv = np.random.RandomState(1).rand(2, 5)
    x = tf.constant(xv)
    y = tf.cumprod(x, axis=1, exclusive=exclusive, reverse=reverse)
    g = tf.gradients(y, x, tf.constant(gv))[0]
    with tf.Session() as sess:
        got = sess.run(g)

    def cum(f, a, rev, exc):
        a = a[:, ::-1] if rev else a
        r = f(a, axis=1)
        if exc:
            r = np.concatenate([np.full((a.shape[0], 1), 1.0 if f is np.cumprod else 0.0),
                                r[:, :-1]], 1)
        return r[:, ::-1] if rev else r

    with np.errstate(divide="ignore", invalid="ignore"):
        ref = cum(np.cumsum, cum(np.cumprod, xv, reverse, exclusive) * gv, not reverse,
                  exclusive) / xv
    np.testing.assert_allclose(got, ref, equal_nan=True)
    assert np.isnan(got).any() or np.isinf(got).any()


def test_temporal_link_update_and_directional_reads():
    rs = np.random.RandomState(5)
    b, w, n, r = 2, 2, 4, 3
    link0, prec0 = rs.rand(b, w, n, n) / n, rs.rand(b, w, n) / n
    ww, rw = rs.rand(b, w, n) / n, rs.rand(b, r, n) / n
    wi, wj = tf.expand_dims(ww, 3), tf.expand_dims(ww, 2)
    link = (1 - wi - wj) * link0 + wi * tf.expand_dims(prec0, 2)
    link = tf.matrix_set_diag(link, tf.zeros([b, w, n], tf.float64))
    stacked = tf.stack([tf.constant(rw)] * w, 1)
    fwd = tf.transpose(tf.matmul(stacked, link, adjoint_b=True), [0, 2, 1, 3])
    bwd = tf.transpose(tf.matmul(stacked, link), [0, 2, 1, 3])
    assert fwd.shape.as_list() == [b, r, w, n]
    with tf.Session() as sess:
        lv, f, bk = sess.run([link, fwd, bwd])
    ref = (1 - ww[..., :, None] - ww[..., None, :]) * link0 + ww[..., :, None] * prec0[..., None, :]
    ref[..., np.arange(n), np.arange(n)] = 0
    np.testing.assert_allclose(lv, ref)
    sr = np.stack([rw] * w, 1)
    np.testing.assert_allclose(f, np.einsum("bwrm,bwnm->brwn", sr, ref))
    np.testing.assert_allclose(bk, np.einsum("bwrm,bwmn->brwn", sr, ref))
