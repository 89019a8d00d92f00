"""The optimizers: several steps of ``apply_gradients`` (gradients fed through placeholders,
dense and IndexedSlices) against NumPy re-implementations; slots, global step, errors."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.table_training import (
    _ref_adadelta,
    _ref_adagrad,
    _ref_adam,
    _ref_centered_rms_prop,
    _ref_ftrl,
    _ref_momentum,
    _ref_proximal_adagrad,
    _ref_proximal_gd,
    _ref_rms_prop,
)
from tideflow.framework import op_registry
from tideflow.framework.indexed_slices import IndexedSlices

SHAPE = (4, 3)
STEPS_DENSE = (None, None, None)
STEPS_SPARSE = ([0, 2], [3, 1, 3], [2, 2, 2, 0])


def _run(make_opt, sparse=False, dtype=tf.float64, steps=None, seed=0):
    """Runs apply_gradients for a few steps; yields (grad as dense array, state) per step,
    where state maps "var" and every slot name to its value after the step."""
    rng = np.random.RandomState(seed)
    np_dt = dtype.as_numpy_dtype
    w0 = rng.uniform(-1, 1, SHAPE).astype(np_dt)
    steps = steps or (STEPS_SPARSE if sparse else STEPS_DENSE)
    with tf.Graph().as_default():
        w = tf.Variable(w0, name="w")
        opt = make_opt()
        if sparse:
            values = tf.placeholder(dtype, [None, SHAPE[1]])
            indices = tf.placeholder(tf.int32, [None])
            grad = IndexedSlices(values, indices, tf.constant(SHAPE))
        else:
            grad = tf.placeholder(dtype, SHAPE)
        gs = tf.train.get_or_create_global_step()
        train = opt.apply_gradients([(grad, w)], global_step=gs)
        slots = {n: opt.get_slot(w, n) for n in opt.get_slot_names()}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            state = {"var": w0.astype(np.float64)}
            state.update({n: s.run(v).astype(np.float64) for n, v in slots.items()})
            out = [(None, state)]
            for k, idx in enumerate(steps):
                if sparse:
                    vals = rng.uniform(-1, 1, (len(idx), SHAPE[1])).astype(np_dt)
                    s.run(train, {values: vals, indices: idx})
                    g = (vals, np.array(idx))
                else:
                    g = rng.uniform(-1, 1, SHAPE).astype(np_dt)
                    s.run(train, {grad: g})
                state = {"var": s.run(w).astype(np.float64)}
                state.update({n: s.run(v).astype(np.float64) for n, v in slots.items()})
                out.append((g, state))
                assert s.run(gs) == k + 1
            extra = {v.op.name: s.run(v) for v in opt.variables()}
    return out, extra


def _check(trace, step_fn, rtol=1e-10):
    """step_fn(state, grad, step_number) -> expected state after the step."""
    want = trace[0][1]
    for k, (g, got) in enumerate(trace[1:]):
        want = step_fn(want, g, k)
        for n, v in want.items():
            np.testing.assert_allclose(got[n], v, rtol=rtol, atol=rtol, err_msg=f"{n} step {k}")


def _summed(g):
    """An IndexedSlices step as (unique indices, summed rows), as the optimizers dedupe."""
    vals, idx = g
    uniq, pos = np.unique(idx, return_inverse=True)
    summed = np.zeros((len(uniq), SHAPE[1]))
    np.add.at(summed, pos, vals.astype(np.float64))
    return uniq, summed


def _f32(scalars):
    # Python hyper-parameters become float32 tensors, then are cast to the variable's dtype
    return {k: float(np.float32(v)) for k, v in scalars.items()}


def _rows_update(ref, names, scalars, attrs=None):
    """A sparse step: the dense reference applied to the deduplicated rows only."""
    scalars = _f32(scalars)
    def step(state, g, k):
        uniq, summed = _summed(g)
        rows = {n: state[m][uniq] for n, m in names.items()}
        new = ref(rows, summed, scalars, attrs or {})
        out = {m: state[m].copy() for m in state}
        for n, m in names.items():
            if n in new:
                out[m][uniq] = new[n]
        return out
    return step


def _dense_update(ref, names, scalars, attrs=None):
    scalars = _f32(scalars)

    def step(state, g, k):
        new = ref({n: state[m] for n, m in names.items()}, g.astype(np.float64), scalars,
                  attrs or {})
        return {**state, **{m: new[n] for n, m in names.items() if n in new}}
    return step


@pytest.mark.parametrize("sparse", [False, True])
def test_gradient_descent(sparse):
    trace, _ = _run(lambda: tf.train.GradientDescentOptimizer(0.3), sparse)

    def step(state, g, k):
        if sparse:
            dense = np.zeros(SHAPE)
            np.add.at(dense, g[1], g[0].astype(np.float64))
            g = dense
        return {"var": state["var"] - float(np.float32(0.3)) * g}

    _check(trace, step)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("nesterov", [False, True])
def test_momentum(sparse, nesterov):
    trace, _ = _run(lambda: tf.train.MomentumOptimizer(0.1, 0.9, use_nesterov=nesterov), sparse)
    names = {"var": "var", "accum": "momentum"}
    sc, attrs = {"lr": 0.1, "momentum": 0.9}, {"use_nesterov": nesterov}
    _check(trace, (_rows_update if sparse else _dense_update)(_ref_momentum, names, sc, attrs))


@pytest.mark.parametrize("sparse", [False, True])
def test_adagrad(sparse):
    trace, _ = _run(lambda: tf.train.AdagradOptimizer(0.2, initial_accumulator_value=0.3),
                    sparse)
    assert np.all(trace[0][1]["accumulator"] == 0.3)
    names = {"var": "var", "accum": "accumulator"}
    _check(trace, (_rows_update if sparse else _dense_update)(_ref_adagrad, names, {"lr": 0.2}))


@pytest.mark.parametrize("sparse", [False, True])
def test_adadelta(sparse):
    trace, _ = _run(lambda: tf.train.AdadeltaOptimizer(0.5, rho=0.9, epsilon=1e-3), sparse)
    names = {"var": "var", "accum": "accum", "accum_update": "accum_update"}
    sc = {"lr": 0.5, "rho": 0.9, "epsilon": 1e-3}
    _check(trace, (_rows_update if sparse else _dense_update)(_ref_adadelta, names, sc))


@pytest.mark.parametrize("sparse", [False, True])
def test_adam(sparse):
    trace, extra = _run(lambda: tf.train.AdamOptimizer(0.01, epsilon=1e-4), sparse)
    b1, b2 = np.float32(0.9), np.float32(0.999)

    def step(state, g, k):
        if sparse:  # every row's moments decay; the new rows are added
            dense = np.zeros(SHAPE)
            np.add.at(dense, g[1], g[0].astype(np.float64))
            g = dense
        sc = _f32({"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-4,
                   "beta1_power": b1 ** (k + 1), "beta2_power": b2 ** (k + 1)})
        new = _ref_adam({"var": state["var"], "m": state["m"], "v": state["v"]}, g, sc, {})
        return new

    _check(trace, step, rtol=1e-6)
    np.testing.assert_allclose(extra["beta1_power"], 0.9 ** 4, rtol=1e-6)
    np.testing.assert_allclose(extra["beta2_power"], 0.999 ** 4, rtol=1e-6)


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("centered", [False, True])
def test_rmsprop(sparse, centered):
    trace, _ = _run(lambda: tf.train.RMSPropOptimizer(0.05, decay=0.8, momentum=0.5,
                                                      epsilon=1e-3, centered=centered), sparse)
    assert np.all(trace[0][1]["rms"] == 1.0)
    names = {"var": "var", "ms": "rms", "mom": "momentum"}
    ref = _ref_rms_prop
    if centered:
        names["mg"] = "mg"
        ref = _ref_centered_rms_prop
    sc = {"lr": 0.05, "rho": 0.8, "momentum": 0.5, "epsilon": 1e-3}
    _check(trace, (_rows_update if sparse else _dense_update)(ref, names, sc))


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("shrinkage", [0.0, 0.1])
def test_ftrl(sparse, shrinkage):
    trace, _ = _run(lambda: tf.train.FtrlOptimizer(
        0.5, l1_regularization_strength=0.01, l2_regularization_strength=0.2,
        l2_shrinkage_regularization_strength=shrinkage), sparse)
    names = {"var": "var", "accum": "accum", "linear": "linear"}
    sc = {"lr": 0.5, "l1": 0.01, "l2": 0.2, "lr_power": -0.5, "l2_shrinkage": shrinkage}
    _check(trace, (_rows_update if sparse else _dense_update)(_ref_ftrl, names, sc))


@pytest.mark.parametrize("sparse", [False, True])
def test_proximal_optimizers(sparse):
    # TF 1.15's proximal updates take their hyperparameters uncast: float64 for these
    # float64 variables (the float32 numbers the references take)
    def f64(x):
        return tf.constant(np.float32(x), tf.float64)

    trace, _ = _run(lambda: tf.train.ProximalGradientDescentOptimizer(
        f64(0.3), l1_regularization_strength=f64(0.05), l2_regularization_strength=f64(0.1)),
        sparse)
    sc = {"alpha": 0.3, "l1": 0.05, "l2": 0.1}
    _check(trace, (_rows_update if sparse else _dense_update)(_ref_proximal_gd,
                                                              {"var": "var"}, sc))
    trace, _ = _run(lambda: tf.train.ProximalAdagradOptimizer(
        f64(0.3), l1_regularization_strength=f64(0.05), l2_regularization_strength=f64(0.1)),
        sparse)
    sc = {"lr": 0.3, "l1": 0.05, "l2": 0.1}
    _check(trace, (_rows_update if sparse else _dense_update)(
        _ref_proximal_adagrad, {"var": "var", "accum": "accumulator"}, sc))


def test_float32_variables():
    trace, _ = _run(lambda: tf.train.MomentumOptimizer(0.1, 0.9), dtype=tf.float32)
    _check(trace, _dense_update(_ref_momentum, {"var": "var", "accum": "momentum"},
                                {"lr": np.float32(0.1), "momentum": np.float32(0.9)}),
           rtol=1e-5)


def test_slots_and_names():
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros([2, 2], np.float32), name="w")
        b = tf.Variable(np.zeros([2], np.float32), name="b")
        opt = tf.train.AdamOptimizer()
        assert opt.get_name() == "Adam"
        gw, gb = tf.placeholder(tf.float32, [2, 2]), tf.placeholder(tf.float32, [2])
        with tf.name_scope("outer"):
            train = opt.apply_gradients([(gw, w), (gb, b)])
        assert train.name == "outer/Adam" and isinstance(train, tf.Operation)
        assert train in tf.get_collection(tf.GraphKeys.TRAIN_OP)
        assert opt.get_slot_names() == ["m", "v"]
        assert opt.get_slot(w, "m").op.name == "w/Adam"
        assert opt.get_slot(w, "v").op.name == "w/Adam_1"
        assert opt.get_slot(b, "m").op.name == "b/Adam"
        assert opt.get_slot(w, "nope") is None
        assert opt.get_slot(w, "m").get_shape().as_list() == [2, 2]
        names = [v.op.name for v in opt.variables()]
        # slots are named by variable scope; the beta powers follow the name scope, as in TF
        assert names == ["b/Adam", "b/Adam_1", "outer/beta1_power", "outer/beta2_power",
                         "w/Adam", "w/Adam_1"]
        # slots are global, not trainable, and colocated with their variable
        assert all(v in tf.global_variables() for v in opt.variables())
        assert tf.trainable_variables() == [w, b]
        assert opt.get_slot(w, "m").op.colocation_groups() == [b"loc:@w"]
        # the beta powers sit with the first variable by name
        assert opt._get_beta_accumulators()[0].op.colocation_groups() == [b"loc:@b"]
        ops = {op.type for op in tf.get_default_graph().get_operations()}
        assert "ApplyAdam" in ops

    with tf.Graph().as_default():
        w = tf.Variable(np.zeros([2], np.float32), name="w")
        g = tf.placeholder(tf.float32, [2])
        for opt, slots in ((tf.train.MomentumOptimizer(0.1, 0.9), {"momentum": "w/Momentum"}),
                           (tf.train.AdagradOptimizer(0.1), {"accumulator": "w/Adagrad"}),
                           (tf.train.RMSPropOptimizer(0.1), {"rms": "w/RMSProp",
                                                             "momentum": "w/RMSProp_1"}),
                           (tf.train.FtrlOptimizer(0.1), {"accum": "w/Ftrl",
                                                          "linear": "w/Ftrl_1"}),
                           (tf.train.AdadeltaOptimizer(), {"accum": "w/Adadelta",
                                                           "accum_update": "w/Adadelta_1"})):
            opt.apply_gradients([(g, w)])
            assert {n: opt.get_slot(w, n).op.name for n in opt.get_slot_names()} == slots
        opt = tf.train.GradientDescentOptimizer(0.1)
        assert opt.apply_gradients([(g, w)], name="sgd").name == "sgd"
        assert opt.get_slot_names() == [] and opt.variables() == []


def test_global_step():
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        g = tf.placeholder(tf.float32, [2])
        gs = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(1.0).apply_gradients([(g, w)], global_step=gs)
        assert train.type == "AssignAdd" and train.name == "GradientDescent"
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train, {g: [1.0, 1.0]})
            assert tf.train.global_step(s, gs) == 3
            np.testing.assert_allclose(s.run(w), [-2.0, -1.0])


def test_var_list_and_none_gradients():
    with tf.Graph().as_default():
        a = tf.Variable([1.0], name="a")
        b = tf.Variable([1.0], name="b")
        g = tf.placeholder(tf.float32, [1])
        opt = tf.train.MomentumOptimizer(1.0, 0.5)
        train = opt.apply_gradients([(g, a), (None, b)])
        # slots only for variables with a gradient
        assert opt.get_slot(a, "momentum") is not None and opt.get_slot(b, "momentum") is None
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {g: [1.0]})
            assert s.run(a).tolist() == [0.0] and s.run(b).tolist() == [1.0]
        with pytest.raises(ValueError, match="No gradients provided for any variable"):
            opt.apply_gradients([(None, a), (None, b)])
        with pytest.raises(ValueError, match="No variables provided"):
            opt.apply_gradients([])
        with pytest.raises(TypeError, match="Gradient must be"):
            opt.apply_gradients([(object(), a)])


def test_compute_gradients_without_dependence():
    with tf.Graph().as_default():
        a = tf.Variable([1.0], name="a")
        b = tf.Variable([1.0], name="b", trainable=False)
        loss = tf.placeholder(tf.float32, [])
        opt = tf.train.GradientDescentOptimizer(0.1)
        gv = opt.compute_gradients(loss)
        assert gv == [(None, a)]  # only the trainable variables
        assert opt.compute_gradients(loss, var_list=[b]) == [(None, b)]
        with pytest.raises(ValueError, match="No gradients provided for any variable, check your "
                                             "graph for ops that do not support gradients"):
            opt.minimize(loss)
        with pytest.raises(ValueError, match="gate_gradients must be one of"):
            opt.compute_gradients(loss, gate_gradients=7)
        with pytest.raises(ValueError, match="Invalid type"):
            opt.compute_gradients(tf.placeholder(tf.int32, []))
    with tf.Graph().as_default(), pytest.raises(ValueError, match="No variables to optimize"):
        tf.train.GradientDescentOptimizer(0.1).compute_gradients(tf.constant(1.0))


def test_constructor_errors():
    with pytest.raises(ValueError, match="Must specify the optimizer name"):
        tf.train.Optimizer(False, "")
    with pytest.raises(ValueError, match="initial_accumulator_value must be positive"):
        tf.train.AdagradOptimizer(0.1, initial_accumulator_value=0.0)
    with pytest.raises(ValueError, match="learning_rate_power"):
        tf.train.FtrlOptimizer(0.1, learning_rate_power=0.5)
    with pytest.raises(ValueError, match="l1_regularization_strength"):
        tf.train.FtrlOptimizer(0.1, l1_regularization_strength=-1.0)


def test_learning_rate_tensor_and_callable():
    with tf.Graph().as_default():
        w = tf.Variable([1.0], name="w")
        gs = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(1.0, gs, 1, 0.5)
        g = tf.placeholder(tf.float32, [1])
        train = tf.train.GradientDescentOptimizer(lr).apply_gradients([(g, w)], global_step=gs)
        train2 = tf.train.GradientDescentOptimizer(lambda: 0.25).apply_gradients([(g, w)])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {g: [1.0]})  # lr 1
            s.run(train, {g: [1.0]})  # lr 0.5
            s.run(train2, {g: [1.0]})
            np.testing.assert_allclose(s.run(w), [1.0 - 1.0 - 0.5 - 0.25])


_HAVE_GRADS = all(op_registry.has_gradient_entry(t) and op_registry.gradient_function(t)
                  for t in ("MatMul", "Sub", "Square", "Mean", "Add", "Identity"))


@pytest.mark.skipif(not _HAVE_GRADS, reason="tf.gradients of MatMul/Sub/Square/Mean/Add are "
                    "not registered yet (written in parallel)")
@pytest.mark.parametrize("make_opt", [
    lambda: tf.train.GradientDescentOptimizer(0.1),
    lambda: tf.train.MomentumOptimizer(0.05, 0.9),
    lambda: tf.train.AdamOptimizer(0.1),
    lambda: tf.train.RMSPropOptimizer(0.05),
    lambda: tf.train.AdagradOptimizer(0.5),
], ids=["sgd", "momentum", "adam", "rmsprop", "adagrad"])
def test_minimize_least_squares(make_opt):
    rng = np.random.RandomState(0)
    x = rng.randn(32, 3).astype(np.float32)
    true_w = np.array([[1.0], [-2.0], [0.5]], np.float32)
    y = x @ true_w + 0.3
    with tf.Graph().as_default():
        w = tf.Variable(np.zeros([3, 1], np.float32), name="w")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(tf.constant(x), w) + b - tf.constant(y)))
        gs = tf.train.get_or_create_global_step()
        train = make_opt().minimize(loss, global_step=gs)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            first = s.run(loss)
            for _ in range(300):
                s.run(train)
            assert s.run(loss) < 1e-2 * first
            assert s.run(gs) == 300


def test_use_locking_and_half_precision():
    for dtype in (tf.float16, tf.bfloat16):
        with tf.Graph().as_default():
            w = tf.Variable(np.ones([3, 2]), dtype=dtype, name="w")
            g = tf.placeholder(dtype, [3, 2])
            train = tf.train.MomentumOptimizer(0.1, 0.5, use_locking=True).apply_gradients(
                [(g, w)])
            assert train.control_inputs[0].get_attr("use_locking") is True
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                s.run(train, {g: np.ones([3, 2])})
                s.run(train, {g: np.ones([3, 2])})
                # accum 1 then 1.5: w = 1 - 0.1 - 0.15
                np.testing.assert_allclose(s.run(w).astype(np.float64), 0.75, rtol=1e-2)


@pytest.mark.skipif(not (_HAVE_GRADS and op_registry.has_gradient_entry("GatherV2")),
                    reason="the gradient of Gather is not registered yet")
def test_minimize_through_gather_uses_sparse_updates():
    with tf.Graph().as_default():
        emb = tf.Variable(np.ones([5, 2], np.float32), name="emb")
        loss = tf.reduce_sum(tf.gather(emb, tf.constant([0, 3, 0])))
        opt = tf.train.AdagradOptimizer(0.1)
        (grad, var), = opt.compute_gradients(loss)
        assert isinstance(grad, IndexedSlices) and var is emb
        train = opt.apply_gradients([(grad, var)])
        types = {op.type for op in tf.get_default_graph().get_operations()}
        assert "SparseApplyAdagrad" in types and "ApplyAdagrad" not in types
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            # row 0 appears twice: its gradients are summed before the update
            acc = s.run(opt.get_slot(emb, "accumulator"))[:, 0]
            np.testing.assert_allclose(acc, [4.1, 0.1, 0.1, 1.1, 0.1], rtol=1e-6)
            np.testing.assert_allclose(s.run(emb)[:, 0], [1 - 0.2 / np.sqrt(4.1), 1, 1,
                                                          1 - 0.1 / np.sqrt(1.1), 1], rtol=1e-6)
