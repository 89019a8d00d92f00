"""Fused optimizer updates (``ApplyAdam``, ``SparseApplyMomentum``, ...): stateful ops that update
a variable and its accumulators in place, as TF's ``training_ops``; none is differentiable.

Each update is written once, for whole arrays; the sparse form runs the same update on the rows
named by ``indices`` (one row at a time, in order, when indices repeat, as TF's kernels do).
"""

import inspect

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.resource_import import is_resource
from tideflow.framework.tensor_shape import unknown_shape
from tideflow.kernels import threads
from tideflow.ops import resource_variable_ops, state_ops
from tideflow.ops.unary_ops import _rsqrt  # (Eigen scalar path's 1 / sqrt, shared with Rsqrt)

# ------------------------------------------------------------------------------------------
# the updates: each takes the ref buffers, the gradient and the scalars in the op's input order
# (refs first) and writes into the buffers in place
# ------------------------------------------------------------------------------------------


def _gradient_descent(var, delta, alpha):
    var -= alpha * delta


def _gradient_descent_in_delta(var, delta, alpha):
    # the same two roundings as above, with delta's buffer holding alpha * delta
    np.multiply(alpha, delta, out=delta)
    var -= delta


def _proximal(var, prox, lr, l1, l2):
    if l1 > 0:
        var[...] = np.sign(prox) * np.maximum(np.abs(prox) - lr * l1, 0) / (1 + lr * l2)
    else:
        var[...] = prox / (1 + lr * l2)


def _proximal_gradient_descent(var, delta, alpha, l1, l2):
    _proximal(var, var - alpha * delta, alpha, l1, l2)




def _adadelta(var, accum, accum_update, grad, lr, rho, epsilon):
    accum *= rho
    accum += grad * grad * (1 - rho)
    update = np.sqrt(accum_update + epsilon) * _rsqrt(accum + epsilon) * grad
    accum_update *= rho
    accum_update += update * update * (1 - rho)
    var -= update * lr


def _adagrad(var, accum, grad, lr, *, update_slots):
    if update_slots:
        accum += grad * grad
    var -= grad * lr * _rsqrt(accum)  # (TF's order of the products, as below)


def _by_rows(var):
    """Whether TF's sparse kernel updates ``var``'s rows as Eigen rows (more than one float
    each) rather than element by element in scalar C++ (a vector, or rows of one float)."""
    return var.ndim > 1 and var.size > var.shape[0]


def _sparse_adagrad(var, accum, grad, lr, *, update_slots):
    # TF's sparse kernel: a row at a time ((lr * g) * rsqrt(a)), or element by element for
    # a vector ((lr * g) / sqrt(a))
    if update_slots:
        accum += grad * grad
    if _by_rows(var):
        var -= lr * grad * _rsqrt(accum)
    else:
        var -= lr * grad / np.sqrt(accum)


def _adagrad_v2(var, accum, grad, lr, epsilon, *, update_slots):
    # (Keras's Adagrad: epsilon beside the root, so an accumulator may start at zero)
    if update_slots:
        accum += grad * grad
    var -= lr * grad / (np.sqrt(accum) + epsilon)


def _proximal_adagrad(var, accum, grad, lr, l1, l2):
    accum += grad * grad
    rate = lr * _rsqrt(accum)
    _proximal(var, var - grad * rate, rate, l1, l2)


def _in_double(var, prox, rate, l1, l2):
    # TF's sparse kernels on a vector divide by ``1.0 + l2 * rate`` in double
    denom = 1.0 + (l2 * rate).astype(np.float64)
    if l1 > 0:
        shrunk = np.sign(prox) * np.maximum(np.abs(prox) - rate * l1, 0)
    else:
        shrunk = prox
    var[...] = (shrunk / denom).astype(var.dtype)


def _sparse_proximal_adagrad(var, accum, grad, lr, l1, l2):
    accum += grad * grad
    if _by_rows(var):
        rate = lr * _rsqrt(accum)
        _proximal(var, var - grad * rate, rate, l1, l2)
    else:
        rate = lr / np.sqrt(accum)
        _in_double(var, var - rate * grad, rate, l1, l2)


def _sparse_proximal_gradient_descent(var, delta, alpha, l1, l2):
    if _by_rows(var):
        _proximal(var, var - delta * alpha, alpha, l1, l2)
    else:
        _in_double(var, var - alpha * delta, alpha, l1, l2)


def _momentum(var, accum, grad, lr, momentum, *, use_nesterov):
    accum *= momentum
    accum += grad
    if use_nesterov:
        var -= grad * lr + accum * momentum * lr
    else:
        var -= accum * lr


def _sparse_momentum(var, accum, grad, lr, momentum, *, use_nesterov):
    # TF's sparse kernel takes lr * momentum first
    accum *= momentum
    accum += grad
    if use_nesterov:
        var -= lr * grad + lr * momentum * accum
    else:
        var -= lr * accum


def _momentum_in_grad(var, accum, grad, lr, momentum, *, use_nesterov):
    accum *= momentum
    accum += grad
    if use_nesterov:
        np.multiply(grad, lr, out=grad)
        t = accum * momentum
        t *= lr
        grad += t
    else:
        np.multiply(accum, lr, out=grad)
    var -= grad


def _adam(var, m, v, grad, beta1_power, beta2_power, lr, beta1, beta2, epsilon, *, use_nesterov):
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m += (grad - m) * (1 - beta1)
    v += (grad * grad - v) * (1 - beta2)
    if use_nesterov:
        var -= (grad * (1 - beta1) + beta1 * m) * alpha / (np.sqrt(v) + epsilon)
    else:
        var -= m * alpha / (np.sqrt(v) + epsilon)


def _adam_with_amsgrad(var, m, v, vhat, grad, beta1_power, beta2_power, lr, beta1, beta2,
                       epsilon):
    # (Adam whose denominator is the largest second moment seen so far)
    alpha = lr * np.sqrt(1 - beta2_power) / (1 - beta1_power)
    m += (grad - m) * (1 - beta1)
    v += (grad * grad - v) * (1 - beta2)
    np.maximum(vhat, v, out=vhat)
    var -= m * alpha / (np.sqrt(vhat) + epsilon)


def _ada_max(var, m, v, grad, beta1_power, lr, beta1, beta2, epsilon):
    m += (grad - m) * (1 - beta1)
    np.maximum(v * beta2, np.abs(grad), out=v)
    var -= lr / (1 - beta1_power) * (m / (v + epsilon))  # (TF's order of the products)


def _add_sign(var, m, grad, lr, alpha, sign_decay, beta):
    m *= beta
    m += grad * (1 - beta)
    var -= (alpha + sign_decay * np.sign(grad) * np.sign(m)) * grad * lr


def _power_sign(var, m, grad, lr, logbase, sign_decay, beta):
    m *= beta
    m += grad * (1 - beta)
    var -= np.exp(logbase * sign_decay * np.sign(grad) * np.sign(m)) * grad * lr


def _rms_prop(var, ms, mom, grad, lr, rho, momentum, epsilon):
    ms += (grad * grad - ms) * (1 - rho)
    mom *= momentum
    mom += grad * lr / np.sqrt(ms + epsilon)
    var -= mom


def _sparse_rms_prop(var, ms, mom, grad, lr, rho, momentum, epsilon):
    # TF's sparse kernel: ms * rho + g^2 * (1 - rho), then rsqrt(ms + eps) * lr * g
    ms[...] = ms * rho + grad * grad * (1 - rho)
    mom[...] = mom * momentum + _rsqrt(ms + epsilon) * lr * grad
    var -= mom


def _sparse_centered_rms_prop(var, mg, ms, mom, grad, lr, rho, momentum, epsilon):
    ms[...] = ms * rho + grad * grad * (1 - rho)
    mg[...] = mg * rho + grad * (1 - rho)
    mom[...] = mom * momentum + _rsqrt(ms + epsilon - mg * mg) * lr * grad
    var -= mom


def _centered_rms_prop(var, mg, ms, mom, grad, lr, rho, momentum, epsilon):
    ms += (grad * grad - ms) * (1 - rho)
    mg += (grad - mg) * (1 - rho)
    denom = ms - mg * mg + epsilon
    mom *= momentum
    mom += grad * lr / np.sqrt(denom)
    var -= mom


def _adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1, l2,
                global_step):
    # the variable is recomputed from the accumulated gradients (dual averaging), at step
    # ``global_step`` taken in the variable's dtype
    gradient_accumulator += grad
    gradient_squared_accumulator += grad * grad
    t = np.asarray(global_step).astype(var.dtype)
    den = l2 * (t * lr) + np.sqrt(gradient_squared_accumulator)
    if l1 > 0:
        shrunk = np.maximum(np.abs(gradient_accumulator) - t * l1, 0)
        var[...] = -lr * np.sign(gradient_accumulator) * shrunk / den
    else:
        var[...] = -(lr * gradient_accumulator) / den


def _sparse_adagrad_da(var, gradient_accumulator, gradient_squared_accumulator, grad, lr, l1,
                       l2, global_step):
    # TF's sparse kernel: rows by the accumulators' means over the steps; a vector's elements
    # in double
    ga, gg = gradient_accumulator, gradient_squared_accumulator
    if _by_rows(var):
        ga += grad
        gg += grad * grad
        t = np.asarray(global_step).astype(var.dtype)
        den = l2 + np.sqrt(gg) / (t * lr)
        if l1 > 0:
            var[...] = -np.sign(ga) * np.maximum(np.abs(ga) / t - l1, 0) / den
        else:
            var[...] = -(ga / t) / den
        return
    g = grad.astype(np.float64)
    ga[...] = (ga + g).astype(ga.dtype)
    gg[...] = (gg + g * g).astype(gg.dtype)
    t = float(global_step)
    lr_d, l1_d, l2_d = float(lr), float(l1), float(l2)
    den = t * l2_d * lr_d + np.sqrt(gg).astype(np.float64)  # (the root in float)
    if l1_d > 0:
        shrunk = np.maximum(np.abs(ga.astype(np.float64)) - t * l1_d, 0.0)
        var[...] = (np.sign(-ga) * lr_d * shrunk / den).astype(var.dtype)
    else:
        var[...] = (-ga.astype(np.float64) * lr_d / den).astype(var.dtype)


def _accum_pow(accum, lr_power):
    """``accum ** -lr_power`` as TF's kernels raise it (Eigen's scalar pow: glibc's powf per
    element in float32, where NumPy's vectorised pow is a unit or two off)."""
    if accum.dtype == np.float32:
        from tideflow.ops.eigen_float32 import powf

        return powf(accum, np.negative(lr_power, dtype=np.float32))
    return accum ** -lr_power


def _ftrl_step(var, accum, linear, grad, shrunk_grad, lr, l1, l2, lr_power):
    new_accum = accum + grad * grad
    if lr_power == -0.5:
        new_pow, old_pow = np.sqrt(new_accum), np.sqrt(accum)
    else:
        new_pow, old_pow = _accum_pow(new_accum, lr_power), _accum_pow(accum, lr_power)
    linear += shrunk_grad - (new_pow - old_pow) / lr * var
    x = l1 * np.sign(linear) - linear
    y = new_pow / lr + 2 * l2
    var[...] = np.where(np.abs(linear) > l1, x / y, 0)
    accum[...] = new_accum


def _ftrl(var, accum, linear, grad, lr, l1, l2, lr_power):
    _ftrl_step(var, accum, linear, grad, grad, lr, l1, l2, lr_power)


def _ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    _ftrl_step(var, accum, linear, grad, grad + 2 * l2_shrinkage * var, lr, l1, l2, lr_power)


def _sparse_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power, shrunk_grad=None):
    # (SparseApplyFtrlV2: the shrunk gradient ``grad + 2 * l2_shrinkage * var`` moves the
    # linear term only; the accumulator takes the plain gradient's square)
    if shrunk_grad is None:
        shrunk_grad = grad
    new_accum = accum + grad * grad
    if lr_power == -0.5:
        new_pow, old_pow = np.sqrt(new_accum), np.sqrt(accum)
    else:
        new_pow, old_pow = _accum_pow(new_accum, lr_power), _accum_pow(accum, lr_power)
    if _by_rows(var):
        # TF's rows: the dense update, the l1 shrinkage as a clip
        linear += shrunk_grad - (new_pow - old_pow) / lr * var
        var[...] = (np.clip(linear, -l1, l1) - linear) / (new_pow / lr + 2 * l2)
    else:
        # element by element: sigma = (pow(a + g^2, -p) - pow(a, -p)) / lr,
        # l = (l + g) - sigma * v
        sigma = (new_pow - old_pow) / lr
        linear[...] = linear + shrunk_grad - sigma * var
        y = new_pow / lr + 2 * l2
        var[...] = np.where(np.abs(linear) > l1, (l1 * np.sign(linear) - linear) / y, 0)
    accum[...] = new_accum


def _sparse_ftrl_v2(var, accum, linear, grad, lr, l1, l2, l2_shrinkage, lr_power):
    _sparse_ftrl(var, accum, linear, grad, lr, l1, l2, lr_power,
                 shrunk_grad=grad + 2 * l2_shrinkage * var)


# ------------------------------------------------------------------------------------------
# shapes, checks and the kernel around an update
# ------------------------------------------------------------------------------------------

# the types of TF 1.15's CPU kernels (none is complex; the proximal updates and AdagradDA are
# single and double only, AdaMax and the sparse RMSProps have no bfloat16)
_FLOATS = frozenset({"float16", "bfloat16", "float32", "float64"})
_NO_BF16 = frozenset({"float16", "float32", "float64"})
_F32_F64 = frozenset({"float32", "float64"})


def _shape_fn(op):
    od = op._op_def
    s = unknown_shape()
    grad_shape = indices_shape = None
    for arg, t in zip(od.inputs, op._inputs):
        shape = t._shape
        if arg.is_ref:
            s = state_ops._merge_shapes(s, shape)
        elif arg.name == "indices":
            indices_shape = shape.with_rank(1) if shape.ndims is not None else shape
            if shape.ndims is not None and shape.ndims != 1:
                raise ValueError(f"Shape must be rank 1 but is rank {shape.ndims}")
        elif arg.name in ("grad", "delta"):
            grad_shape = shape
        elif shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {shape.ndims}")
    if indices_shape is None:
        return [state_ops._merge_shapes(s, grad_shape)]
    if grad_shape.ndims is None:
        return [s]
    if grad_shape.ndims == 0:
        raise ValueError("Argument grad must not be a scalar. Got grad with rank 0")
    n_idx = indices_shape.as_list()[0] if indices_shape.ndims else None
    n_grad = grad_shape.as_list()[0]
    if n_idx is not None and n_grad is not None and n_idx != n_grad:
        raise ValueError(f"Dimensions must be equal, but are {n_idx} and {n_grad}")
    return [state_ops._merge_shapes(s, unknown_shape(1).concatenate(grad_shape[1:]))]


def _shape_str(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _invalid(op, msg):
    return errors.InvalidArgumentError(None, op, msg)


class _Locks:
    """The locks of the variables behind ``op``'s ref inputs, taken in one global order."""

    def __init__(self, ctx, op, use_locking):
        self._locks = ()
        if use_locking:
            resources = {}
            for t in op._inputs:
                if t._dtype._is_ref_dtype:
                    var_op = state_ops.variable_op_of(t)
                    if var_op is not None:
                        res = state_ops.resource_for(ctx, var_op)
                        resources[res.name] = res
            self._locks = tuple(resources[k].lock for k in sorted(resources))

    def __enter__(self):
        for lock in self._locks:
            lock.acquire()
        return self

    def __exit__(self, *exc):
        for lock in reversed(self._locks):
            lock.release()
        return False


# the scalars TF's FTRL and proximal Adagrad kernels also check the value of (a NaN fails):
# name -> (test, TF's words before the shape)
_POSITIVE = (lambda x: x > 0, "lr is not a positive scalar: ")
_STRENGTH = "regularization strength is not a non-negative scalar: "
_VALUE_CHECKS = {
    "lr": _POSITIVE,
    "l1": (lambda x: x >= 0, f"l1 {_STRENGTH}"),
    "l2": (lambda x: x >= 0, f"l2 {_STRENGTH}"),
    "l2_shrinkage": (lambda x: x >= 0, f"l2 shrinkage {_STRENGTH}"),
    "lr_power": (lambda x: x <= 0, "lr_power is not a non-positive scalar: "),
}
_CHECKS_VALUES = frozenset({"ApplyFtrl", "SparseApplyFtrl", "ApplyFtrlV2", "SparseApplyFtrlV2",
                            "ApplyProximalAdagrad", "SparseApplyProximalAdagrad"})


def _check_dense(op, names, refs, grad, scalars, scalar_names, grad_name="grad"):
    var = refs[0]
    for name, r in zip(names[1:], refs[1:]):
        if r.shape != var.shape:
            raise _invalid(op, f"var and {name} do not have the same shape"
                               f"{_shape_str(var.shape)} {_shape_str(r.shape)}")
    values_checked = op.type in _CHECKS_VALUES
    for name, s in zip(scalar_names, scalars):
        if values_checked and name in _VALUE_CHECKS:
            test, words = _VALUE_CHECKS[name]
            if np.ndim(s) != 0 or not test(s):
                raise _invalid(op, f"{words}{_shape_str(np.shape(s))}")
        elif np.ndim(s) != 0:
            raise _invalid(op, f"{name} is not a scalar: {_shape_str(np.shape(s))}")
    if grad is not None and grad.shape != var.shape:
        # (TF's gradient descent kernels name their input 'delta', the others 'grad')
        raise _invalid(op, f"var and {grad_name} do not have the same shape"
                           f"{_shape_str(var.shape)} {_shape_str(grad.shape)}")


def _check_sparse(op, var, grad, indices):
    if indices.ndim != 1:
        raise _invalid(op, "indices must be one-dimensional")
    if var.ndim < 1:
        raise _invalid(op, "var must be at least 1 dimensional")
    if grad.ndim < 1 or grad.shape[1:] != var.shape[1:]:
        raise _invalid(op, f"var and grad must match in dimension "
                           f"{_shape_str(var.shape)} {_shape_str(grad.shape)}")
    if grad.shape[0] != indices.shape[0]:
        raise _invalid(op, "grad must be the same size as indices in the first dimension.")
    bad = np.flatnonzero((indices < 0) | (indices >= var.shape[0]))
    if bad.size:
        i = int(bad[0])
        raise _invalid(op, f"Index {int(indices[i])} at offset {i} in indices is out of range")


def _apply_factory(update, types, sparse):
    params = inspect.signature(update).parameters.values()
    attr_names = tuple(p.name for p in params if p.kind is p.KEYWORD_ONLY)

    def factory(ctx):
        op = ctx.op
        od = op._op_def
        dtype = op._attrs["T"]
        if dtype.name not in types:
            raise _invalid(
                op, f"No OpKernel was registered to support Op '{op.type}' with these attrs: "
                f"T={dtype.name}"
            )
        kinds = []
        for arg in od.inputs:
            if arg.is_ref or arg.fixed_type == dtypes.resource:  # (a ResourceApply*'s handle)
                kinds.append("ref")
            elif arg.name in ("grad", "delta"):
                kinds.append("grad")
            elif arg.name == "indices":
                kinds.append("indices")
            else:
                kinds.append("scalar")
        ref_names = [a.name for a, k in zip(od.inputs, kinds) if k == "ref"]
        scalar_names = [a.name for a, k in zip(od.inputs, kinds) if k == "scalar"]
        attrs = {a: op._attrs[a] for a in attr_names}
        locks = _Locks(ctx, op, op._attrs["use_locking"])

        if not sparse:
            return _dense_kernel(op, update, kinds, ref_names, scalar_names, attrs, locks)

        def run(*args):
            refs, scalars = [], []
            grad = indices = None
            for k, a in zip(kinds, args):
                if k == "ref":
                    refs.append(a)
                elif k == "grad":
                    grad = np.asarray(a)
                elif k == "indices":
                    indices = np.asarray(a)
                else:
                    scalars.append(np.asarray(a))
            var = refs[0]
            _check_dense(op, ref_names, refs, None, scalars, scalar_names)
            _check_sparse(op, var, grad, indices)
            if indices.size == 0:
                return var
            with locks:
                if np.unique(indices).size == indices.size:
                    rows = [r[indices] for r in refs]
                    update(*rows, grad, *scalars, **attrs)
                    for r, row in zip(refs, rows):
                        r[indices] = row
                else:  # repeated rows are updated once per occurrence, in order
                    for i, j in enumerate(indices.tolist()):
                        update(*(r[j:j + 1] for r in refs), grad[i:i + 1], *scalars, **attrs)
            return var

        return run

    return factory


# updates with a form that may overwrite the gradient (used when nothing else can see it)
_IN_GRAD = {_gradient_descent: _gradient_descent_in_delta, _momentum: _momentum_in_grad}


def _dense_kernel(op, update, kinds, ref_names, scalar_names, attrs, locks):
    """The kernel of a dense Apply* op; ``run.donated`` may use the gradient's buffer."""
    ref_idx = [i for i, k in enumerate(kinds) if k == "ref"]
    grad_idx = kinds.index("grad")
    grad_name = op._op_def.inputs[grad_idx].name
    scalar_idx = [i for i, k in enumerate(kinds) if k == "scalar"]
    unlocked = not locks._locks
    plain = _split(update, len(ref_idx) + 1)

    def checked(fn):
        def run(*args):
            refs = [args[i] for i in ref_idx]
            grad = np.asarray(args[grad_idx])
            scalars = [np.asarray(args[i]) for i in scalar_idx]
            _check_dense(op, ref_names, refs, grad, scalars, scalar_names, grad_name)
            if fn is not plain and not (
                    grad.dtype == refs[0].dtype and all(s.dtype == grad.dtype for s in scalars)):
                fn_ = plain  # mixed precision: keep the rounding of the plain update
            else:
                fn_ = fn
            if unlocked:
                fn_(*refs, grad, *scalars, **attrs)
            else:
                with locks:
                    fn_(*refs, grad, *scalars, **attrs)
            return refs[0]

        return run

    make = checked
    if len(ref_idx) == 1 and len(scalar_idx) == 1 and unlocked and not attrs:
        vi, si = ref_idx[0], scalar_idx[0]

        def make(fn):
            # one variable and one scalar (gradient descent): arrays that need no check
            # skip straight to the update
            slow = checked(fn)

            def run(*args):
                var, grad, alpha = args[vi], args[grad_idx], args[si]
                if (type(var) is np.ndarray and type(grad) is np.ndarray
                        and type(alpha) is np.ndarray and alpha.ndim == 0
                        and grad.shape == var.shape and grad.dtype == var.dtype == alpha.dtype):
                    fn(var, grad, alpha)
                    return var
                return slow(*args)

            return run

    run = make(plain)
    in_grad = _IN_GRAD.get(update)
    if in_grad is not None:
        run.scratch_input = grad_idx  # runtime/executor.py: the input ``donated`` may overwrite
        run.donated = make(_split(in_grad, len(ref_idx) + 1))
    return run


# elements per block of a large dense update: a block of each array (256 KB in float32) stays
# in the core's cache across the update's passes (the slot, the gradient's scaling, the
# variable), so memory sees each array once instead of once per pass; measured on ApplyMomentum
# over 3.2M floats on one core: 3.1 ms whole, 1.7 ms in blocks
_BLOCK = 1 << 16


def _split(update, n_arrays):
    """``update`` run over matching pieces of its first ``n_arrays`` arguments (the variable,
    its slots and the gradient: element-wise, so any split gives the same bits), on the
    intra-op threads when they are large, each piece in cache-sized blocks."""

    def blocks(*parts, rest, attrs):
        n = parts[0].size
        if n < 2 * _BLOCK:
            update(*parts, *rest, **attrs)
            return
        for i in range(0, n, _BLOCK):
            update(*(p[i:i + _BLOCK] for p in parts), *rest, **attrs)

    def run(*args, **attrs):
        arrays, rest = args[:n_arrays], args[n_arrays:]
        n = arrays[0].size
        if n < 2 * _BLOCK or not all(
                type(a) is np.ndarray and a.flags.c_contiguous and a.size == n for a in arrays):
            update(*args, **attrs)
        elif n < threads.MIN_SPLIT_SIZE or not threads.active():
            blocks(*(a.reshape(-1) for a in arrays), rest=rest, attrs=attrs)
        else:
            threads.split_flat(arrays, lambda *part: blocks(*part, rest=rest, attrs=attrs))

    return run


def _declare(name, inputs, update, attrs=(), types=_FLOATS):
    sparse = name.startswith("Sparse")
    all_attrs = ["T: numbertype"]
    if sparse:
        all_attrs.append("Tindices: {int32, int64}")
    all_attrs.append("use_locking: bool = false")
    all_attrs.extend(attrs)
    op_registry.declare(
        name,
        inputs=inputs,
        outputs=["out: Ref(T)"],
        attrs=all_attrs,
        shape=_shape_fn,
        kernel_factory=_apply_factory(update, types, sparse),
        differentiable=False,
        stateful=True,
        ref_outputs_alias=(0,),
    )
    # Resource<name>: the update of resource variables (handles in place of the refs, no
    # output, as TF's), running the same kernel on the variables' buffers
    op_registry.declare(
        "Resource" + name,
        inputs=[i.replace("Ref(T)", "resource") for i in inputs],
        attrs=all_attrs,
        kernel_factory=resource_variable_ops.resource_form(
            _apply_factory(update, types, sparse), uninitialized_reads=True),
        differentiable=False,
        stateful=True,
    )


# inputs that are variables (Ref(T)); every other name in _OPS is "name: T" or the indices
_REFS = frozenset({"var", "accum", "accum_update", "m", "v", "vhat", "ms", "mg", "mom", "linear",
                   "gradient_accumulator", "gradient_squared_accumulator"})


def _args(names):
    out = []
    for n in names.split():
        if n in _REFS:
            out.append(f"{n}: Ref(T)")
        elif n == "indices":
            out.append("indices: Tindices")
        elif n == "global_step":
            out.append("global_step: int64")
        else:
            out.append(f"{n}: T")
    return out


_ADAGRAD_DA = "var gradient_accumulator gradient_squared_accumulator grad lr l1 l2 global_step"

_OPS = (
    # name, inputs, update, extra attrs, kernel types
    ("ApplyGradientDescent", "var alpha delta", _gradient_descent, (), _FLOATS),
    ("ApplyProximalGradientDescent", "var alpha l1 l2 delta", _proximal_gradient_descent, (),
     _F32_F64),
    ("SparseApplyProximalGradientDescent", "var alpha l1 l2 grad indices",
     _sparse_proximal_gradient_descent, (), _F32_F64),
    ("ApplyAdadelta", "var accum accum_update lr rho epsilon grad", _adadelta, (),
     _FLOATS),
    ("SparseApplyAdadelta", "var accum accum_update lr rho epsilon grad indices", _adadelta, (),
     _FLOATS),
    ("ApplyAdagrad", "var accum lr grad", _adagrad, ("update_slots: bool = true",),
     _FLOATS),
    ("SparseApplyAdagrad", "var accum lr grad indices", _sparse_adagrad,
     ("update_slots: bool = true",), _FLOATS),
    ("ApplyAdagradV2", "var accum lr epsilon grad", _adagrad_v2,
     ("update_slots: bool = true",), _FLOATS),
    ("SparseApplyAdagradV2", "var accum lr epsilon grad indices", _adagrad_v2,
     ("update_slots: bool = true",), _FLOATS),
    ("ApplyAdagradDA", _ADAGRAD_DA, _adagrad_da, (), _F32_F64),
    ("SparseApplyAdagradDA", _ADAGRAD_DA.replace("grad ", "grad indices "), _sparse_adagrad_da,
     (),
     _F32_F64),
    ("ApplyProximalAdagrad", "var accum lr l1 l2 grad", _proximal_adagrad, (), _F32_F64),
    ("SparseApplyProximalAdagrad", "var accum lr l1 l2 grad indices",
     _sparse_proximal_adagrad, (), _F32_F64),
    ("ApplyMomentum", "var accum lr grad momentum", _momentum,
     ("use_nesterov: bool = false",), _FLOATS),
    ("SparseApplyMomentum", "var accum lr grad indices momentum", _sparse_momentum,
     ("use_nesterov: bool = false",), _FLOATS),
    ("ApplyAdam", "var m v beta1_power beta2_power lr beta1 beta2 epsilon grad", _adam,
     ("use_nesterov: bool = false",), _FLOATS),
    # (TF 1.15 has only the resource form, ResourceApplyAdamWithAmsgrad: a resource
    # variable's update is named so)
    ("ApplyAdamWithAmsgrad", "var m v vhat beta1_power beta2_power lr beta1 beta2 epsilon grad",
     _adam_with_amsgrad, (), _FLOATS),
    ("ApplyAdaMax", "var m v beta1_power lr beta1 beta2 epsilon grad", _ada_max, (), _NO_BF16),
    ("ApplyAddSign", "var m lr alpha sign_decay beta grad", _add_sign, (), _FLOATS),
    ("ApplyPowerSign", "var m lr logbase sign_decay beta grad", _power_sign, (), _FLOATS),
    ("ApplyRMSProp", "var ms mom lr rho momentum epsilon grad", _rms_prop, (),
     _FLOATS),
    ("SparseApplyRMSProp", "var ms mom lr rho momentum epsilon grad indices", _sparse_rms_prop,
     (),
     _NO_BF16),
    ("ApplyCenteredRMSProp", "var mg ms mom lr rho momentum epsilon grad", _centered_rms_prop,
     (), _FLOATS),
    ("SparseApplyCenteredRMSProp", "var mg ms mom lr rho momentum epsilon grad indices",
     _sparse_centered_rms_prop, (), _NO_BF16),
    ("ApplyFtrl", "var accum linear grad lr l1 l2 lr_power", _ftrl, (), _FLOATS),
    ("SparseApplyFtrl", "var accum linear grad indices lr l1 l2 lr_power", _sparse_ftrl, (),
     _FLOATS),
    ("ApplyFtrlV2", "var accum linear grad lr l1 l2 l2_shrinkage lr_power", _ftrl_v2, (),
     _FLOATS),
    ("SparseApplyFtrlV2", "var accum linear grad indices lr l1 l2 l2_shrinkage lr_power",
     _sparse_ftrl_v2, (), _FLOATS),
)

for _name, _inputs, _update, _attrs, _types in _OPS:
    _declare(_name, _args(_inputs), _update, _attrs, _types)


# ------------------------------------------------------------------------------------------
# Python wrappers, named as TF's generated ones (apply_adam, sparse_apply_momentum, ...)
# ------------------------------------------------------------------------------------------


def _snake(op_type):
    out = []
    for i, c in enumerate(op_type):
        if c.isupper() and i and not (op_type[i - 1].isupper() and
                                      (i + 1 == len(op_type) or op_type[i + 1].isupper())):
            out.append("_")
        out.append(c.lower())
    return "".join(out)


def _is_resource_variable(var):
    if getattr(var, "_resource", False) is True:
        return True
    op = getattr(var, "_op", None)
    return op is not None and (op._type == "VarHandleOp" or getattr(
        var, "_dtype", None) == dtypes.resource or (op._type == "VariableV2" and is_resource(op)))


def _handle(x):
    """A resource variable's handle (the handle tensor itself when given one)."""
    if getattr(x, "_resource", False) is True and hasattr(x, "handle"):
        return x.handle
    return x


def _wrapper(op_type):
    resource_name = "Resource" + op_type
    od = op_registry.get(op_type)
    in_names = [a.name for a in od.inputs]
    attr_defaults = {n: a.default for n, a in od.attrs.items() if a.has_default}
    params = [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in in_names]
    params += [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=d)
               for n, d in attr_defaults.items()]
    params.append(inspect.Parameter("name", inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    default=None))
    sig = inspect.Signature(params)

    def fn(*args, **kwargs):
        bound = sig.bind(*args, **kwargs)
        bound.apply_defaults()
        a = bound.arguments
        inputs = [a[n] for n in in_names]
        attrs = {n: a[n] for n in attr_defaults}
        name = a["name"]
        if _is_resource_variable(inputs[0]):
            # a resource variable's update: TF's Resource<op> on the handles (an op, no
            # output), named after it
            inputs = [_handle(x) if a.is_ref else x for a, x in zip(od.inputs, inputs)]
            return ops.apply_op(resource_name, inputs, attrs, name=name or resource_name)
        return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]

    fn.__name__ = fn.__qualname__ = _snake(op_type)
    fn.__signature__ = sig
    fn.__doc__ = (f"Creates a ``{op_type}`` op (updates ``var`` in place); returns the ref "
                  "to ``var``.")
    return fn


apply_gradient_descent = _wrapper("ApplyGradientDescent")
apply_proximal_gradient_descent = _wrapper("ApplyProximalGradientDescent")
sparse_apply_proximal_gradient_descent = _wrapper("SparseApplyProximalGradientDescent")
apply_adadelta = _wrapper("ApplyAdadelta")
sparse_apply_adadelta = _wrapper("SparseApplyAdadelta")
apply_adagrad = _wrapper("ApplyAdagrad")
sparse_apply_adagrad = _wrapper("SparseApplyAdagrad")
apply_adagrad_v2 = _wrapper("ApplyAdagradV2")
sparse_apply_adagrad_v2 = _wrapper("SparseApplyAdagradV2")
apply_adagrad_da = _wrapper("ApplyAdagradDA")
sparse_apply_adagrad_da = _wrapper("SparseApplyAdagradDA")
apply_proximal_adagrad = _wrapper("ApplyProximalAdagrad")
sparse_apply_proximal_adagrad = _wrapper("SparseApplyProximalAdagrad")
apply_momentum = _wrapper("ApplyMomentum")
sparse_apply_momentum = _wrapper("SparseApplyMomentum")
apply_adam = _wrapper("ApplyAdam")
apply_adam_with_amsgrad = _wrapper("ApplyAdamWithAmsgrad")
apply_ada_max = _wrapper("ApplyAdaMax")
apply_add_sign = _wrapper("ApplyAddSign")
apply_power_sign = _wrapper("ApplyPowerSign")
apply_rms_prop = _wrapper("ApplyRMSProp")
sparse_apply_rms_prop = _wrapper("SparseApplyRMSProp")
apply_centered_rms_prop = _wrapper("ApplyCenteredRMSProp")
sparse_apply_centered_rms_prop = _wrapper("SparseApplyCenteredRMSProp")
apply_ftrl = _wrapper("ApplyFtrl")
sparse_apply_ftrl = _wrapper("SparseApplyFtrl")
apply_ftrl_v2 = _wrapper("ApplyFtrlV2")
sparse_apply_ftrl_v2 = _wrapper("SparseApplyFtrlV2")


def as_op(update):
    """The op of an update: a ref form's output tensor's op, or a resource form's op."""
    return update if isinstance(update, ops.Operation) else update.op
