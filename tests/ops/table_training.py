"""Op-table rows for the fused optimizer updates (Apply*, SparseApply*): several steps of each
op's in-place update checked against a NumPy re-implementation, dense and sparse (with repeated
indices), in float32 and float64."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import op_registry
from tideflow.ops import state_ops, training_ops

# ------------------------------------------------------------------------------------------
# NumPy references: (refs dict, grad, scalars dict, attrs) -> new refs dict, written from
# the published update rules (not in place)
# ------------------------------------------------------------------------------------------


def _prox(prox, lr, l1, l2):
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    return prox / (1 + lr * l2)


def _ref_gd(r, g, s, a):
    return {"var": r["var"] - s["alpha"] * g}


def _ref_proximal_gd(r, g, s, a):
    return {"var": _prox(r["var"] - s["alpha"] * g, s["alpha"], s["l1"], s["l2"])}


def _ref_adadelta(r, g, s, a):
    rho, eps = s["rho"], s["epsilon"]
    accum = rho * r["accum"] + (1 - rho) * g * g
    update = np.sqrt(r["accum_update"] + eps) / np.sqrt(accum + eps) * g
    accum_update = rho * r["accum_update"] + (1 - rho) * update * update
    return {"var": r["var"] - s["lr"] * update, "accum": accum, "accum_update": accum_update}


def _ref_adagrad(r, g, s, a):
    accum = r["accum"] + g * g if a.get("update_slots", True) else r["accum"]
    return {"var": r["var"] - s["lr"] * g / np.sqrt(accum), "accum": accum}


def _ref_adagrad_v2(r, g, s, a):
    accum = r["accum"] + g * g if a.get("update_slots", True) else r["accum"]
    return {"var": r["var"] - s["lr"] * g / (np.sqrt(accum) + s["epsilon"]), "accum": accum}


def _ref_adagrad_da(r, g, s, a):
    acc = r["gradient_accumulator"] + g
    sq = r["gradient_squared_accumulator"] + g * g
    t = s["global_step"]
    shrunk = np.sign(acc) * np.maximum(np.abs(acc) - s["l1"] * t, 0) if s["l1"] > 0 else acc
    var = -s["lr"] * shrunk / (s["l2"] * t * s["lr"] + np.sqrt(sq))
    return {"var": var, "gradient_accumulator": acc, "gradient_squared_accumulator": sq}


def _ref_proximal_adagrad(r, g, s, a):
    accum = r["accum"] + g * g
    lr = s["lr"] / np.sqrt(accum)
    return {"var": _prox(r["var"] - lr * g, lr, s["l1"], s["l2"]), "accum": accum}


def _ref_momentum(r, g, s, a):
    accum = s["momentum"] * r["accum"] + g
    if a.get("use_nesterov"):
        step = s["lr"] * g + s["lr"] * s["momentum"] * accum
    else:
        step = s["lr"] * accum
    return {"var": r["var"] - step, "accum": accum}


def _ref_adam(r, g, s, a):
    b1, b2 = s["beta1"], s["beta2"]
    m = b1 * r["m"] + (1 - b1) * g
    v = b2 * r["v"] + (1 - b2) * g * g
    alpha = s["lr"] * np.sqrt(1 - s["beta2_power"]) / (1 - s["beta1_power"])
    top = b1 * m + (1 - b1) * g if a.get("use_nesterov") else m
    return {"var": r["var"] - alpha * top / (np.sqrt(v) + s["epsilon"]), "m": m, "v": v}


def _ref_adam_amsgrad(r, g, s, a):
    b1, b2 = s["beta1"], s["beta2"]
    m = b1 * r["m"] + (1 - b1) * g
    v = b2 * r["v"] + (1 - b2) * g * g
    vhat = np.maximum(r["vhat"], v)
    alpha = s["lr"] * np.sqrt(1 - s["beta2_power"]) / (1 - s["beta1_power"])
    return {"var": r["var"] - alpha * m / (np.sqrt(vhat) + s["epsilon"]), "m": m, "v": v,
            "vhat": vhat}


def _ref_rms_prop(r, g, s, a):
    ms = s["rho"] * r["ms"] + (1 - s["rho"]) * g * g
    mom = s["momentum"] * r["mom"] + s["lr"] * g / np.sqrt(ms + s["epsilon"])
    return {"var": r["var"] - mom, "ms": ms, "mom": mom}


def _ref_centered_rms_prop(r, g, s, a):
    ms = s["rho"] * r["ms"] + (1 - s["rho"]) * g * g
    mg = s["rho"] * r["mg"] + (1 - s["rho"]) * g
    mom = s["momentum"] * r["mom"] + s["lr"] * g / np.sqrt(ms - mg * mg + s["epsilon"])
    return {"var": r["var"] - mom, "mg": mg, "ms": ms, "mom": mom}


def _ref_ftrl(r, g, s, a):
    shrink = s.get("l2_shrinkage", 0.0)
    p = -s["lr_power"]
    accum = r["accum"] + g * g
    sigma = (accum ** p - r["accum"] ** p) / s["lr"]
    linear = r["linear"] + g + 2 * shrink * r["var"] - sigma * r["var"]
    quadratic = accum ** p / s["lr"] + 2 * s["l2"]
    var = np.where(np.abs(linear) > s["l1"], (s["l1"] * np.sign(linear) - linear) / quadratic,
                   0.0)
    return {"var": var, "accum": accum, "linear": linear}


# ------------------------------------------------------------------------------------------
# the check: build the op on variables, run several steps, compare every buffer
# ------------------------------------------------------------------------------------------

_SHAPE = (5, 3)


def _initial(name, rng, low):
    if name == "var":
        return rng.uniform(-1, 1, _SHAPE)
    if name == "mg":
        return rng.uniform(-0.1, 0.1, _SHAPE)
    return rng.uniform(low, 1.0, _SHAPE)


def _ref_sparse(ref, refs, grad, indices, scalars, attrs):
    """Updates the rows one index at a time, in order (repeated rows are updated twice)."""
    out = {k: v.copy() for k, v in refs.items()}
    for k, i in enumerate(indices):
        row = ref({n: v[i] for n, v in out.items()}, grad[k], scalars, attrs)
        for n, v in row.items():
            out[n][i] = v
    return out


def _scalar_dtype(name, dtype):
    return tf.int64 if name == "global_step" else dtype  # AdagradDA's step is int64


def _check_apply(op_type, ref, scalars, attrs=None, slot_low=0.1):
    attrs = attrs or {}
    wrapper = getattr(training_ops, training_ops._snake(op_type))
    od = op_registry.get(op_type)
    ref_names = [a.name for a in od.inputs if a.is_ref]
    sparse = op_type.startswith("Sparse")
    for dtype in (tf.float32, tf.float64):
        rng = np.random.RandomState(1)
        np_dt = dtype.as_numpy_dtype
        values = {n: _initial(n, rng, slot_low).astype(np_dt) for n in ref_names}
        with tf.Graph().as_default():
            refs = {n: state_ops.variable_op_v2(_SHAPE, dtype, name=n) for n in ref_names}
            inits = [tf.assign(refs[n], values[n]) for n in ref_names]
            grad = tf.placeholder(dtype, [None, _SHAPE[1]] if sparse else _SHAPE)
            indices = tf.placeholder(tf.int64, [None])
            kwargs = {n: refs[n] for n in ref_names}
            kwargs.update({k: tf.constant(v, _scalar_dtype(k, dtype)) for k, v in scalars.items()})
            kwargs[next(a.name for a in od.inputs if a.name in ("grad", "delta"))] = grad
            if sparse:
                kwargs["indices"] = indices
            out = wrapper(**kwargs, **attrs)
            assert out.op.type == op_type and out.dtype == dtype._as_ref
            assert out.get_shape().as_list() == list(_SHAPE)
            with tf.Session() as s:
                with pytest.raises(tf.errors.FailedPreconditionError, match="uninitialized"):
                    s.run(out, {grad: np.zeros(_SHAPE, np_dt), indices: [0]})
                s.run(inits)
                want = {n: v.astype(np.float64) for n, v in values.items()}
                idx_steps = ([0, 2, 4], [3, 1, 3, 3], [], [4]) if sparse else (None,) * 3
                for idx in idx_steps:
                    rows = len(idx) if sparse else _SHAPE[0]
                    g = rng.uniform(-1, 1, (rows, _SHAPE[1])).astype(np_dt)
                    feed = {grad: g}
                    if sparse:
                        feed[indices] = np.array(idx, np.int64)
                    got = s.run(out, feed)
                    sc = {k: np.float64(np_dt(v)) for k, v in scalars.items()}
                    if sparse:
                        want = _ref_sparse(ref, want, g.astype(np.float64), idx, sc, attrs)
                    else:
                        want = {**want, **ref(want, g.astype(np.float64), sc, attrs)}
                    tol = 2e-5 if dtype == tf.float32 else 1e-12
                    np.testing.assert_allclose(got, want["var"], rtol=tol, atol=tol,
                                               err_msg=f"{op_type} var")
                    for n in ref_names:
                        np.testing.assert_allclose(s.run(refs[n]), want[n], rtol=tol, atol=tol,
                                                   err_msg=f"{op_type} {n}")
                if sparse:
                    with pytest.raises(tf.errors.InvalidArgumentError,
                                       match="Index 7 at offset 1 in indices is out of range"):
                        s.run(out, {grad: np.ones((2, 3), np_dt), indices: [0, 7]})
                    with pytest.raises(tf.errors.InvalidArgumentError, match="first dimension"):
                        s.run(out, {grad: np.ones((3, 3), np_dt), indices: [0, 1]})
                else:
                    first = next(iter(scalars))
                    bad = tf.placeholder(dtype)
                    # (TF 1.15's FTRL and proximal Adagrad check the rate's value too)
                    words = ("lr is not a positive scalar" if "Ftrl" in op_type
                             or "ProximalAdagrad" in op_type else f"{first} is not a scalar")
                    with pytest.raises(tf.errors.InvalidArgumentError, match=words):
                        s.run(wrapper(**{**kwargs, first: bad}, **attrs),
                              {grad: np.zeros(_SHAPE, np_dt), bad: [1, 1]})
    # static shapes: a grad of the wrong shape fails when the op is built
    with tf.Graph().as_default():
        refs = {n: state_ops.variable_op_v2(_SHAPE, tf.float32, name=n) for n in ref_names}
        kwargs = {n: refs[n] for n in ref_names}
        kwargs.update({k: tf.constant(v, _scalar_dtype(k, tf.float32))
                       for k, v in scalars.items()})
        gname = next(a.name for a in od.inputs if a.name in ("grad", "delta"))
        if sparse:
            kwargs["indices"] = tf.constant([0, 1])
            kwargs[gname] = tf.zeros([2, 4])
        else:
            kwargs[gname] = tf.zeros([5, 4])
        with pytest.raises(ValueError, match=op_type):
            wrapper(**kwargs, **attrs)
        # unknown shapes are accepted
        kwargs[gname] = tf.placeholder(tf.float32)
        if sparse:
            kwargs["indices"] = tf.placeholder(tf.int32)
        assert wrapper(**kwargs, **attrs).get_shape().as_list() == list(_SHAPE)


def _ref_ada_max(r, g, s, a):
    m = s["beta1"] * r["m"] + (1 - s["beta1"]) * g
    v = np.maximum(s["beta2"] * r["v"], np.abs(g))
    return {"var": r["var"] - s["lr"] / (1 - s["beta1_power"]) * m / (v + s["epsilon"]),
            "m": m, "v": v}


def _ref_sign(kind):
    def ref(r, g, s, a):
        m = s["beta"] * r["m"] + (1 - s["beta"]) * g
        agree = s["sign_decay"] * np.sign(g) * np.sign(m)
        scale = s["alpha"] + agree if kind == "add" else np.exp(s["logbase"] * agree)
        return {"var": r["var"] - s["lr"] * scale * g, "m": m}

    return ref


# row name -> (op type, scalars, attrs, extra arguments): table_resource.py runs the same
# settings through the resource variables' ops
SETTINGS = {}


def _row(op_type, ref, scalars, attrs=None, name=None, **kw):
    SETTINGS[name or op_type] = (op_type, scalars, attrs or {}, kw)
    return Case(op_type, check=lambda: _check_apply(op_type, ref, scalars, attrs, **kw),
                grad=False, name=name or op_type)


_PROX = {"alpha": 0.3, "l1": 0.05, "l2": 0.1}
_ADADELTA = {"lr": 0.5, "rho": 0.9, "epsilon": 1e-3}
_PROX_ADAGRAD = {"lr": 0.3, "l1": 0.05, "l2": 0.1}
_ADAGRAD_DA = {"lr": 0.3, "l1": 0.05, "l2": 0.1, "global_step": 3}
_MOMENTUM = {"lr": 0.1, "momentum": 0.9}
_ADAM = {"beta1_power": 0.9 ** 2, "beta2_power": 0.999 ** 2, "lr": 0.01, "beta1": 0.9,
         "beta2": 0.999, "epsilon": 1e-4}
_RMS = {"lr": 0.05, "rho": 0.9, "momentum": 0.5, "epsilon": 1e-3}
_FTRL = {"lr": 0.5, "l1": 0.01, "l2": 0.2, "lr_power": -0.5}
_FTRL_POW = {"lr": 0.5, "l1": 0.01, "l2": 0.2, "lr_power": -0.3}
_FTRL_V2 = {"lr": 0.5, "l1": 0.01, "l2": 0.2, "l2_shrinkage": 0.1, "lr_power": -0.5}


CASES = [
    _row("ApplyGradientDescent", _ref_gd, {"alpha": 0.3}),
    _row("ApplyProximalGradientDescent", _ref_proximal_gd, _PROX),
    _row("ApplyProximalGradientDescent", _ref_proximal_gd, {**_PROX, "l1": 0.0},
         name="ApplyProximalGradientDescent_l2_only"),
    _row("SparseApplyProximalGradientDescent", _ref_proximal_gd, _PROX),
    _row("ApplyAdadelta", _ref_adadelta, _ADADELTA),
    _row("SparseApplyAdadelta", _ref_adadelta, _ADADELTA),
    _row("ApplyAdagrad", _ref_adagrad, {"lr": 0.3}),
    _row("ApplyAdagrad", _ref_adagrad, {"lr": 0.3}, {"update_slots": False},
         name="ApplyAdagrad_no_slot_update"),
    _row("SparseApplyAdagrad", _ref_adagrad, {"lr": 0.3}),
    _row("ApplyAdagradV2", _ref_adagrad_v2, {"lr": 0.3, "epsilon": 0.01}),
    _row("ApplyAdagradV2", _ref_adagrad_v2, {"lr": 0.3, "epsilon": 0.01},
         {"update_slots": False}, name="ApplyAdagradV2_no_update"),
    _row("SparseApplyAdagradV2", _ref_adagrad_v2, {"lr": 0.3, "epsilon": 0.01}),
    _row("ApplyAdagradDA", _ref_adagrad_da, _ADAGRAD_DA),
    _row("ApplyAdagradDA", _ref_adagrad_da, {**_ADAGRAD_DA, "l1": 0.0},
         name="ApplyAdagradDA_no_l1"),
    _row("SparseApplyAdagradDA", _ref_adagrad_da, _ADAGRAD_DA),
    _row("ApplyProximalAdagrad", _ref_proximal_adagrad, _PROX_ADAGRAD),
    _row("SparseApplyProximalAdagrad", _ref_proximal_adagrad, _PROX_ADAGRAD),
    _row("ApplyMomentum", _ref_momentum, _MOMENTUM),
    _row("ApplyMomentum", _ref_momentum, _MOMENTUM, {"use_nesterov": True},
         name="ApplyMomentum_nesterov"),
    _row("SparseApplyMomentum", _ref_momentum, _MOMENTUM),
    _row("SparseApplyMomentum", _ref_momentum, _MOMENTUM, {"use_nesterov": True},
         name="SparseApplyMomentum_nesterov"),
    _row("ApplyAdam", _ref_adam, _ADAM),
    _row("ApplyAdam", _ref_adam, _ADAM, {"use_nesterov": True}, name="ApplyAdam_nesterov"),
    _row("ApplyAdamWithAmsgrad", _ref_adam_amsgrad, _ADAM),
    _row("ApplyAdaMax", _ref_ada_max, {"beta1_power": 0.9 ** 2, "lr": 0.01, "beta1": 0.9,
                                       "beta2": 0.999, "epsilon": 1e-4}),
    _row("ApplyAddSign", _ref_sign("add"), {"lr": 0.1, "alpha": 1.0, "sign_decay": 0.5,
                                            "beta": 0.9}),
    _row("ApplyPowerSign", _ref_sign("power"), {"lr": 0.1, "logbase": 1.0, "sign_decay": 0.5,
                                                "beta": 0.9}),
    _row("ApplyRMSProp", _ref_rms_prop, _RMS),
    _row("SparseApplyRMSProp", _ref_rms_prop, _RMS),
    _row("ApplyCenteredRMSProp", _ref_centered_rms_prop, _RMS, slot_low=0.5),
    _row("SparseApplyCenteredRMSProp", _ref_centered_rms_prop, _RMS, slot_low=0.5),
    _row("ApplyFtrl", _ref_ftrl, _FTRL),
    _row("ApplyFtrl", _ref_ftrl, _FTRL_POW, name="ApplyFtrl_lr_power"),
    _row("SparseApplyFtrl", _ref_ftrl, _FTRL),
    _row("ApplyFtrlV2", _ref_ftrl, _FTRL_V2),
    _row("SparseApplyFtrlV2", _ref_ftrl, _FTRL_V2),
]
