"""The op-table harness: every registered op has a row checked against a NumPy reference.

A row (``Case``) builds the op from tensors, names a NumPy reference, and lists dtypes. The
harness runs it (1) with inputs fed through placeholders of known shape, checking values
against the reference and the static shape against the result, (2) with placeholders of
unknown shape, so shape functions cope with unknown dimensions, and (3) where the op is
differentiable and ``tf.gradients`` exists, checks the gradient against central finite
differences in float64. Rows for stateful or random ops supply their own ``check``.
"""

import os

import numpy as np

import tideflow as tf
from tideflow.ops.gradients import dense, gradients


class Case:
    """One row of the op table.

    op: the op type(s) the row covers (str or tuple of str).
    fn: ``fn(*tensors) -> Tensor or list of Tensors`` building the op from the inputs.
    inputs: NumPy arrays (cast to each dtype), or ``callable(np_dtype) -> array``.
    ref: ``ref(*arrays) -> array or list of arrays``, the NumPy reference.
    dtypes: the tf dtypes to run with (inputs whose position is in ``fixed`` keep their own).
    grad: check the gradient in float64 (False for ops declared not differentiable).
    grad_inputs: which inputs to differentiate (default: every floating input).
    check: instead of fn/ref, ``check()`` runs its own assertions (stateful, random ops).
    """

    def __init__(self, op, fn=None, inputs=(), ref=None, dtypes=(tf.float32, tf.float64),
                 grad=True, grad_inputs=None, rtol=None, atol=None, fixed=(), name=None,
                 check=None, unknown_shape=True):
        self.ops = (op,) if isinstance(op, str) else tuple(op)
        self.fn = fn
        self.inputs = list(inputs)
        self.ref = ref
        self.dtypes = list(dtypes)
        self.grad = grad
        self.grad_inputs = grad_inputs
        self.rtol = rtol
        self.atol = atol
        self.fixed = set(fixed)
        self.name = name or self.ops[0]
        self.check = check
        self.unknown_shape = unknown_shape

    def __repr__(self):
        return self.name


def _tol(dtype, rtol, atol):
    if rtol is not None or atol is not None:
        return rtol or 0.0, atol or 0.0
    if dtype in (tf.float16, tf.bfloat16):
        return 2e-2, 2e-2
    if dtype in (tf.float32, tf.complex64):
        return 1e-5, 1e-5
    return 1e-10, 1e-10


def _inputs_for(case, dtype):
    out = []
    for i, x in enumerate(case.inputs):
        if callable(x):
            x = x(dtype.as_numpy_dtype)
        elif i not in case.fixed and isinstance(x, np.ndarray) and x.dtype.kind in "fiucb":
            x = x.astype(dtype.as_numpy_dtype)
        out.append(np.asarray(x) if not isinstance(x, np.ndarray) else x)
    return out


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v]


def _compare(case, dtype, got, want):
    rtol, atol = _tol(dtype, case.rtol, case.atol)
    got, want = _as_list(got), _as_list(want)
    assert len(got) == len(want), f"{case}: {len(got)} outputs, reference gave {len(want)}"
    for g, w in zip(got, want):
        w = np.asarray(w)
        g = np.asarray(g)
        assert g.shape == w.shape, f"{case} [{dtype.name}]: shape {g.shape} != reference {w.shape}"
        if w.dtype == object or g.dtype == object:
            assert g.tolist() == w.tolist(), f"{case}: {g!r} != {w!r}"
        elif w.dtype.kind in "fcV" or g.dtype.kind in "fcV":  # V: bfloat16
            np.testing.assert_allclose(g.astype(np.complex128 if g.dtype.kind == "c" else
                                                np.float64),
                                       w.astype(np.complex128 if w.dtype.kind == "c" else
                                                np.float64),
                                       rtol=rtol, atol=atol, err_msg=f"{case} [{dtype.name}]")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{case} [{dtype.name}]")


def _check_static(case, tensors, values):
    for t, v in zip(tensors, values):
        static = t.get_shape()
        actual = np.shape(v)
        assert static.is_compatible_with(actual), (
            f"{case}: static shape {static} incompatible with result shape {actual}"
        )
        return static


def run_case(case):
    """Runs every check of one row."""
    if case.check is not None:
        case.check()
        return
    for dtype in case.dtypes:
        arrays = _inputs_for(case, dtype)
        want = case.ref(*arrays)
        for known in (True, False) if case.unknown_shape else (True,):
            g = tf.Graph()
            with g.as_default():
                phs = [
                    tf.placeholder(tf.as_dtype(a.dtype) if a.dtype != object else tf.string,
                                   shape=a.shape if known else None, name=f"in{i}")
                    for i, a in enumerate(arrays)
                ]
                out = case.fn(*phs)
                outs = _as_list(out)
                with tf.Session(graph=g) as sess:
                    got = sess.run(outs, dict(zip(phs, arrays)))
            _compare(case, dtype, got if isinstance(out, (list, tuple)) else got[0], want)
            for t, v in zip(outs, got):
                static = t.get_shape()
                assert static.is_compatible_with(np.shape(v)), (
                    f"{case} [{dtype.name}]: static shape {static} incompatible with result "
                    f"shape {np.shape(v)}"
                )
                if known and static.is_fully_defined():
                    assert tuple(static.as_list()) == np.shape(v)
                # the dtype declared for the output matches what the kernel produced
                if isinstance(v, (np.ndarray, np.generic)) and v.dtype != object:
                    declared = t.dtype.base_dtype
                    if declared.is_quantized:  # fetched as plain integers, as TF
                        declared = tf.as_dtype(declared._np[0])
                    assert tf.as_dtype(v.dtype) == declared, (
                        f"{case} [{dtype.name}]: kernel gave {v.dtype}, op declares {t.dtype}"
                    )
            if known and case.unknown_shape is False:
                break
    if case.grad and (hasattr(tf, "gradients") or os.environ.get("TIDEFLOW_CHECK_GRADIENTS")):
        check_gradient(case)


def check_gradient(case, delta=1e-6, tol=1e-5):
    """Analytic gradient of sum(output * w) against central differences, in float64."""
    arrays = _inputs_for(case, tf.float64)
    which = case.grad_inputs
    if which is None:
        which = [i for i, a in enumerate(arrays) if a.dtype.kind == "f"]
    rng = np.random.RandomState(0)
    g = tf.Graph()
    with g.as_default():
        phs = [tf.placeholder(tf.as_dtype(a.dtype), shape=a.shape) for a in arrays]
        outs = _as_list(case.fn(*phs))
        # float64 outputs only: central differences at delta=1e-6 cannot see through a cast
        # to a narrower float type (Cast rows emit such outputs beside float64 ones)
        outs = [o for o in outs if o.dtype.base_dtype == tf.float64]
        feed = dict(zip(phs, arrays))
        shapes = [o.get_shape() for o in outs]
        if not all(s.is_fully_defined() for s in shapes):  # e.g. segment ops: value-dependent
            with tf.Session(graph=g) as sess:
                shapes = [np.shape(v) for v in sess.run(outs, feed)]
        ws = [tf.constant(rng.uniform(-1, 1, size=tuple(s))) for s in shapes]
        loss = tf.add_n([tf.reduce_sum(o * w) for o, w in zip(outs, ws)])
        grads = gradients(loss, [phs[i] for i in which])
        with tf.Session(graph=g) as sess:
            # sparse gradients (IndexedSlices of gathers) are compared densely
            analytic = sess.run([dense(gr) for gr in grads if gr is not None], feed)
            analytic = iter(analytic)
            for i, gr in zip(which, grads):
                a = arrays[i]
                num = np.zeros_like(a)
                flat = a.reshape(-1)
                idx = range(flat.size) if flat.size <= 64 else rng.choice(flat.size, 16,
                                                                         replace=False)
                for j in idx:
                    orig = flat[j]
                    flat[j] = orig + delta
                    fp = sess.run(loss, feed)
                    flat[j] = orig - delta
                    fm = sess.run(loss, feed)
                    flat[j] = orig
                    num.reshape(-1)[j] = (fp - fm) / (2 * delta)
                got = np.zeros_like(a) if gr is None else np.asarray(next(analytic))
                got = got.reshape(-1)[list(idx)]
                exp = num.reshape(-1)[list(idx)]
                np.testing.assert_allclose(got, exp, rtol=tol, atol=tol,
                                           err_msg=f"{case}: gradient wrt input {i}")
