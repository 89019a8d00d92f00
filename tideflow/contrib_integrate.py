"""``tf.contrib.integrate``: ``odeint`` (adaptive Dormand-Prince 5(4) with dense output, as
TF 1.x's ``dopri5``) and ``odeint_fixed`` (midpoint or RK4 on a fixed grid), composed of
``while_loop``s and TensorArrays so the solutions are differentiable."""

import collections

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    constant_op,
    logging_ops,
    math_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.cond import cond
from tideflow.ops.tensor_array import TensorArray
from tideflow.ops.while_loop import while_loop

_Tableau = collections.namedtuple("_Tableau", "alpha beta c_sol c_mid c_error")

# Dormand-Prince coefficients with Shampine's (1986) mid-point weights
_DOPRI5 = _Tableau(
    alpha=[1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0],
    beta=[[1 / 5],
          [3 / 40, 9 / 40],
          [44 / 45, -56 / 15, 32 / 9],
          [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729],
          [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656],
          [35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]],
    c_sol=[35 / 384, 0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84, 0],
    c_mid=[6025192743 / 30085553152 / 2, 0, 51252292925 / 65400821598 / 2,
           -2691868925 / 45128329728 / 2, 187940372067 / 1594534317056 / 2,
           -1776094331 / 19743644256 / 2, 11237099 / 235043384 / 2],
    c_error=[1951 / 21600 - 35 / 384, 0, 22642 / 50085 - 500 / 1113, 451 / 720 - 125 / 192,
             -12231 / 42400 - -2187 / 6784, 649 / 6300 - 11 / 84, 1 / 60],
)


def _scaled_dot(scale, coeffs, ks):
    return math_ops.add_n([(scale * c) * k for c, k in zip(coeffs, ks, strict=False)
                           if isinstance(c, ops.Tensor) or c != 0])


def _rk_step(func, y0, f0, t0, dt):
    """One Dormand-Prince step: (y1, f1, error estimate, stages)."""
    dt_cast = cast_ops.cast(dt, y0.dtype)
    k = [f0]
    for alpha, beta in zip(_DOPRI5.alpha, _DOPRI5.beta, strict=True):
        yi = y0 + _scaled_dot(dt_cast, beta, k)
        k.append(func(yi, t0 + alpha * dt))
    # the last stage is evaluated at the 5th-order solution (FSAL), so yi is y1
    return yi, k[-1], _scaled_dot(dt_cast, _DOPRI5.c_error, k), k


def _interp_fit(y0, y1, k, dt):
    """Coefficients of the quartic through y0, the mid-point value and y1 with the end
    derivatives (for x = (t - t0) / dt in [0, 1])."""
    dt = cast_ops.cast(dt, y0.dtype)
    y_mid = y0 + _scaled_dot(dt, _DOPRI5.c_mid, k)
    f0, f1 = k[0], k[-1]

    def dot(cs, vs):
        return math_ops.add_n([c * v for c, v in zip(cs, vs, strict=True)])
    vals = [f0, f1, y0, y1, y_mid]
    a = dot([-2 * dt, 2 * dt, -8, -8, 16], vals)
    b = dot([5 * dt, -3 * dt, 18, 14, -32], vals)
    c = dot([-4 * dt, dt, -11, -5, 16], vals)
    return [a, b, c, dt * f0, y0]


def _interp_evaluate(coeffs, t0, t1, t):
    check = logging_ops.Assert((t0 <= t) & (t <= t1),
                               ["invalid interpolation, fails `t0 <= t <= t1`:", t0, t, t1])
    with ops.control_dependencies([check]):
        x = cast_ops.cast((t - t0) / (t1 - t0), coeffs[0].dtype)
    xs = [constant_op.constant(1, coeffs[0].dtype), x]
    for _ in range(2, len(coeffs)):
        xs.append(xs[-1] * x)
    return math_ops.add_n([c * p for c, p in zip(coeffs, reversed(xs), strict=True)])


def _abs_square(x):
    if x.dtype.is_complex:
        return math_ops.square(math_ops.real(x)) + math_ops.square(math_ops.imag(x))
    return math_ops.square(x)


def _dopri5(func, y0, t, rtol, atol, full_output=False, first_step=None, safety=0.9,
            ifactor=10.0, dfactor=0.2, max_num_steps=1000, name=None):
    with ops.name_scope(name, "dopri5", [y0, t, rtol, atol]) as scope:
        first_step = ops.convert_to_tensor(1.0 if first_step is None else first_step,
                                           dtype=t.dtype, name="first_step")
        safety = ops.convert_to_tensor(safety, dtype=t.dtype, name="safety")
        ifactor = ops.convert_to_tensor(ifactor, dtype=t.dtype, name="ifactor")
        dfactor = ops.convert_to_tensor(dfactor, dtype=t.dtype, name="dfactor")
        max_num_steps = ops.convert_to_tensor(max_num_steps, dtype=dtypes.int32,
                                              name="max_num_steps")

        def step(y0_, f0, _t_prev, t0, dt, coeffs, points, ratios, n_steps):
            checks = [
                logging_ops.Assert(t0 + dt > t0, ["underflow in dt", dt]),
                logging_ops.Assert(n_steps < max_num_steps, ["max_num_steps exceeded"]),
                logging_ops.Assert(reduction_ops.reduce_all(unary_ops.is_finite(
                    unary_ops.abs(y0_))), ["non-finite values in state `y`", y0_]),
            ]
            with ops.control_dependencies(checks):
                y1, f1, err, k = _rk_step(func, y0_, f0, t0, dt)
            tol = atol + rtol * math_ops.maximum(unary_ops.abs(y0_), unary_ops.abs(y1))
            ratio = unary_ops.sqrt(reduction_ops.reduce_mean(_abs_square(err) /
                                                             _abs_square(tol)))
            accept = ratio <= 1
            y_next = cond(accept, lambda: y1, lambda: y0_)
            f_next = cond(accept, lambda: f1, lambda: f0)
            t_next = cond(accept, lambda: t0 + dt, lambda: t0)
            new_coeffs = cond(accept, lambda: _interp_fit(y0_, y1, k, dt),
                              lambda: list(coeffs))
            # keep the error ratio in the numerator, so that it never divides by zero
            exponent = cast_ops.cast(1 / 5, dt.dtype)
            factor = math_ops.maximum(1 / ifactor, math_ops.minimum(
                cast_ops.cast(ratio, dt.dtype) ** exponent / safety, 1 / dfactor))
            points = points.write(points.size(), t0 + dt)
            ratios = ratios.write(ratios.size(), ratio)
            return (y_next, f_next, t0, t_next, dt / factor, list(new_coeffs), points, ratios,
                    n_steps + 1)

        def interpolate(solution, y_, f_, t0, t1, dt, coeffs, points, ratios, i):
            ti = t[i]
            (y_, f_, t0, t1, dt, coeffs, points, ratios, _) = while_loop(
                lambda y_, f_, t0, t1, *rest: ti > t1, step,
                (y_, f_, t0, t1, dt, list(coeffs), points, ratios, 0), name="integrate_loop")
            solution = solution.write(i, _interp_evaluate(coeffs, t0, t1, ti))
            return solution, y_, f_, t0, t1, dt, list(coeffs), points, ratios, i + 1

        check = logging_ops.Assert(reduction_ops.reduce_all(t[1:] > t[:-1]),
                                   ["`t` must be monotonic increasing"])
        with ops.control_dependencies([check]):
            num_times = array_ops.size(t)
        solution = TensorArray(y0.dtype, size=num_times).write(0, y0)
        points = TensorArray(t.dtype, size=0, dynamic_size=True)
        ratios = TensorArray(rtol.dtype, size=0, dynamic_size=True)
        f0 = func(y0, t[0])
        out = while_loop(lambda *args: args[-1] < num_times, interpolate,
                         (solution, y0, f0, t[0], t[0], first_step, [y0] * 5, points, ratios,
                          1), name="interpolate_loop")
        solution, points, ratios = out[0], out[7], out[8]
        y = solution.stack(name=scope)  # TF 1.15's solution is the op named as odeint's scope
        y.set_shape(t.get_shape().concatenate(y0.get_shape()))
        if not full_output:
            return y
        integrate_points = points.stack()
        return y, {"num_func_evals": 6 * array_ops.size(integrate_points) + 1,
                   "integrate_points": integrate_points, "error_ratio": ratios.stack()}


def odeint(func, y0, t, rtol=1e-6, atol=1e-12, method=None, options=None, full_output=False,
           name=None):
    """Solves ``dy/dt = func(y, t)``, ``y(t[0]) = y0`` at the increasing times ``t`` with
    adaptive Dormand-Prince steps (``method='dopri5'``, the only one); returns [len(t)] +
    y0's shape (and, with ``full_output``, an info dict)."""
    if method is not None and method != "dopri5":
        raise ValueError(f"invalid method: {method!r}")
    if options is None:
        options = {}
    elif method is None:
        raise ValueError("cannot supply `options` without specifying `method`")
    with ops.name_scope(name, "odeint", [y0, t, rtol, atol]) as scope:
        y0 = ops.convert_to_tensor(y0, name="y0")
        if not (y0.dtype.is_floating or y0.dtype.is_complex):
            raise TypeError("`y0` must have a floating point or complex floating point dtype")
        t = _time_tensor(t)
        error_dtype = unary_ops.abs(y0).dtype
        rtol = ops.convert_to_tensor(rtol, dtype=error_dtype, name="rtol")
        atol = ops.convert_to_tensor(atol, dtype=error_dtype, name="atol")
        return _dopri5(func, y0, t, rtol=rtol, atol=atol, full_output=full_output, name=scope,
                       **options)


def _time_tensor(t):
    if not isinstance(t, ops.Tensor):
        import numpy as np

        arr = np.asarray(t)
        t = constant_op.constant(arr, dtype=dtypes.float64 if arr.dtype.kind in "iuf"
                                 else None, name="t")
    if not t.dtype.is_floating:
        raise TypeError("`t` must have a floating point dtype")
    return t


def _midpoint(func, t, dt, y):
    dt_cast = cast_ops.cast(dt, y.dtype)
    return dt_cast * func(y + func(y, t) * dt_cast / 2, t + dt / 2)


def _rk4(func, t, dt, y):
    k1 = func(y, t)
    half = t + dt / 2
    dt_cast = cast_ops.cast(dt, y.dtype)
    k2 = func(y + dt_cast * k1 / 2, half)
    k3 = func(y + dt_cast * k2 / 2, half)
    k4 = func(y + dt_cast * k3, t + dt)
    return math_ops.add_n([k1, 2 * k2, 2 * k3, k4]) * (dt_cast / 6)


def odeint_fixed(func, y0, t, dt=None, method="rk4", name=None):
    """Solves ``dy/dt = func(y, t)`` with fixed steps (``'rk4'`` or ``'midpoint'``): each
    interval of ``t`` is cut into ``ceil(interval / dt)`` equal steps (one if ``dt`` is
    None)."""
    if method not in ("rk4", "midpoint"):
        raise ValueError(f"method not supported: {method}")
    step_fn = _rk4 if method == "rk4" else _midpoint
    with ops.name_scope(name, "odeint_fixed", [y0, t, dt]):
        t = _time_tensor(t)
        y0 = ops.convert_to_tensor(y0, name="y0")
        if not (y0.dtype.is_floating or y0.dtype.is_complex):
            raise TypeError("`y0` must have a floating point or complex floating point dtype")
        intervals = t[1:] - t[:-1]
        dt = intervals if dt is None else ops.convert_to_tensor(dt, dtype=t.dtype, name="dt")
        if dt.get_shape().ndims not in (None, 0, 1):
            raise ValueError(f"`dt` must be a scalar or a 1-D tensor, got shape "
                             f"{dt.get_shape()}")
        steps = unary_ops.ceil(intervals / dt)
        dt = intervals / steps
        steps = cast_ops.cast(steps, dtypes.int32)
        check = logging_ops.Assert(reduction_ops.reduce_all(t[1:] > t[:-1]),
                                   ["`t` must be monotonic increasing"])
        with ops.control_dependencies([check]):
            num_times = array_ops.size(t)
        solution = TensorArray(y0.dtype, size=num_times).write(0, y0)

        def interval(solution, y, time, i):
            h = dt[i - 1]
            y, time, _ = while_loop(
                lambda y, time, j: j < steps[i - 1],
                lambda y, time, j: (y + cast_ops.cast(step_fn(func, time, h, y), y.dtype),
                                    time + h, j + 1),
                (y, time, 0))
            return solution.write(i, y), y, time, i + 1

        with ops.name_scope(method):
            solution, _, _, _ = while_loop(lambda s, y, time, i: i < num_times, interval,
                                           (solution, y0, t[0], 1))
            y = solution.stack()
        y.set_shape(t.get_shape().concatenate(y0.get_shape()))
        return y


__all__ = ["odeint", "odeint_fixed"]
