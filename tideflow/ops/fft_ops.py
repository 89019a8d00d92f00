"""FFT ops: FFT/IFFT (1-3D, complex), RFFT/IRFFT (1-3D, real <-> complex, with ``fft_length``)
and their gradients; the public ``tf.signal.fft`` family and ``fftshift``/``ifftshift``."""

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _invalid, _np, _shape_str

_COMPLEX = "Tcomplex: {complex64, complex128} = DT_COMPLEX64"
_REAL = "Treal: {float, double} = DT_FLOAT"
# TF 1.15's real FFTs are float32 -> complex64 only, without these attrs (TF 2.2 added them)
_TF2_REAL_FFT_ATTRS = ("Treal", "Tcomplex")
_NAMES = {1: "", 2: "2D", 3: "3D"}


def _check_rank(op_type, shape, k):
    if shape.ndims is not None and shape.ndims < k:  # TF's shape-function words
        raise ValueError(f"Shape must be at least rank {k} but is rank {shape.ndims}")


def _fft_shape(k):
    def shape(op):
        s = op._inputs[0]._shape
        _check_rank(op.type, s, k)
        return [s]

    return shape


def _fft_len(op_type, fft_length, k):
    n = _np(fft_length)
    if n.shape != (k,):
        raise _invalid(f"{op_type}: fft_length must be a vector of {k} elements, got shape "
                       f"{_shape_str(n.shape)}")
    if (n < 0).any():
        raise _invalid(f"{op_type}: fft_length must be non-negative, got {n.tolist()}")
    return [int(v) for v in n]


def _rfft_shape(k, inverse):
    def shape(op):
        s = op._inputs[0]._shape
        _check_rank(op.type, s, k)
        ls = op._inputs[1]._shape
        if ls.ndims is not None and ls.ndims != 1:
            raise ValueError(f"Shape must be rank 1 but is rank {ls.ndims}")
        if ls.ndims is not None and ls.dims[0].value not in (None, k):
            raise ValueError(f"Dimension must be {k} but is {ls.dims[0].value}")
        if s.ndims is None:
            return [TensorShape(None)]
        n = ops.constant_value(op._inputs[1])
        outer = s.as_list()[:-k]
        if n is None:
            return [TensorShape(outer + [None] * k)]
        n = [int(v) for v in np.reshape(n, [-1])]
        if not inverse:
            n = n[:-1] + [_bins(n[-1])]
        return [TensorShape(outer + n)]

    return shape


def _fft_kernel(k, inverse):
    axes = tuple(range(-k, 0))

    def kernel(input):
        x = _np(input)
        if x.ndim < k:
            raise _invalid(f"FFT: input must have rank at least {k}, got shape "
                           f"{_shape_str(x.shape)}")
        if x.size == 0:
            return x.copy()
        y = np.fft.ifftn(x, axes=axes) if inverse else np.fft.fftn(x, axes=axes)
        return y.astype(x.dtype)

    return kernel


def _bins(n):
    """The frequency bins of a real FFT of length n (none for an empty transform)."""
    return n // 2 + 1 if n else 0


def _check_lengths(x, n, need):
    """TF's kernels read the first ``need`` elements of each inner dimension: the wrappers pad
    a shorter input, the raw op refuses it."""
    k = len(n)
    for i, (have, want) in enumerate(zip(x.shape[-k:], need)):
        if have < want and n[i]:
            raise _invalid(f"Input dimension {x.ndim - k + i} must have length of at least "
                           f"{want} but got: {have}")


def _rfft_kernel(k, op_type):
    axes = tuple(range(-k, 0))

    def kernel(input, fft_length, *, Tcomplex):
        x = _np(input)
        n = _fft_len(op_type, fft_length, k)
        if x.ndim < k:
            raise _invalid(f"{op_type}: input must have rank at least {k}, got shape "
                           f"{_shape_str(x.shape)}")
        _check_lengths(x, n, n)
        out_shape = x.shape[:-k] + tuple(n[:-1]) + (_bins(n[-1]),)
        if 0 in out_shape or 0 in n:
            return np.zeros(out_shape, Tcomplex.as_numpy_dtype)
        return np.fft.rfftn(x, s=n, axes=axes).astype(Tcomplex.as_numpy_dtype)

    return kernel


def _irfft_kernel(k, op_type):
    axes = tuple(range(-k, 0))

    def kernel(input, fft_length, *, Treal):
        x = _np(input)
        n = _fft_len(op_type, fft_length, k)
        if x.ndim < k:
            raise _invalid(f"{op_type}: input must have rank at least {k}, got shape "
                           f"{_shape_str(x.shape)}")
        _check_lengths(x, n, n[:-1] + [n[-1] // 2 + 1])
        out_shape = x.shape[:-k] + tuple(n)
        if 0 in out_shape or 0 in x.shape[-k:]:
            return np.zeros(out_shape, Treal.as_numpy_dtype)
        # numpy crops/pads the input to n (n[-1] // 2 + 1 innermost), as TF does
        return np.fft.irfftn(x, s=n, axes=axes).astype(Treal.as_numpy_dtype)

    return kernel


# -- gradients --------------------------------------------------------------------------------


def _inner_size(x, k, dtype):
    from tideflow.ops import array_ops, cast_ops, reduction_ops

    dims = array_ops.shape(x)[-k:]
    return cast_ops.cast(reduction_ops.reduce_prod(dims), dtype)


def _fft_grad(k, inverse):
    def grad(op, g):
        from tideflow.ops.gradients import dense

        g = dense(g)
        size = _inner_size(g, k, g.dtype)
        if inverse:  # adjoint of ifft = fft / n
            return _fft_apply(k, False, g) / size
        return _fft_apply(k, True, g) * size

    return grad


def _fit_inner(x, dims, k):
    """``x`` cropped or zero-padded in its ``k`` innermost dims to ``dims`` (a 1-D tensor)."""
    from tideflow.ops import array_ops, math_ops, pad_ops, slicing_ops
    from tideflow.ops.concat_ops import concat, stack
    from tideflow.ops.fill_ops import zeros, zeros_like

    xs = array_ops.shape(x)
    keep = math_ops.minimum(xs[-k:], dims)
    outer = xs[:-k]
    x = slicing_ops.slice(x, zeros_like(xs), concat([outer, keep], 0))
    pads = stack([zeros_like(dims), dims - keep], axis=1)
    pads = concat([zeros(stack([array_ops.size(outer), 2]), dtypes.int32), pads], 0)
    return pad_ops.pad(x, pads)


def _rfft_grad(k):
    def grad(op, g):
        from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops
        from tideflow.ops.concat_ops import concat
        from tideflow.ops.fill_ops import ones
        from tideflow.ops.gradients import dense

        g = dense(g)
        x, n = op._inputs
        real = x.dtype.base_dtype
        # x_grad = Re(prod(n) * ifftn(g zero-extended)) = prod(n) * irfftn(g * w), w halving
        # every bin but DC (and Nyquist for even n) since irfft counts each twice
        last = n[-1]
        is_odd = math_ops.mod(last, 2)
        inner = last // 2 + 1
        w = concat([ones([1], real), 0.5 * ones([inner - 2 + is_odd], real),
                    ones([1 - is_odd], real)], 0)
        w = math_ops.complex(w, array_ops.zeros_like(w))
        size = cast_ops.cast(reduction_ops.reduce_prod(n), real)
        y = _irfft_apply(k, g * cast_ops.cast(w, g.dtype), n, real) * size
        return [_fit_inner(y, array_ops.shape(x)[-k:], k), None]

    return grad


def _irfft_grad(k):
    def grad(op, g):
        from tideflow.ops import array_ops, cast_ops, math_ops, reduction_ops
        from tideflow.ops.concat_ops import concat
        from tideflow.ops.fill_ops import ones
        from tideflow.ops.gradients import dense

        g = dense(g)
        y, n = op._inputs
        cdt = y.dtype.base_dtype
        real = g.dtype.base_dtype
        last = n[-1]
        is_odd = math_ops.mod(last, 2)
        inner = last // 2 + 1
        # x = irfft(y): each bin but DC (and Nyquist, even n) appears twice in the full spectrum
        mask = concat([ones([1], real), 2.0 * ones([inner - 2 + is_odd], real),
                       ones([1 - is_odd], real)], 0)
        size = cast_ops.cast(reduction_ops.reduce_prod(n), real)
        r = _rfft_apply(k, g, n, cdt) * cast_ops.cast(
            math_ops.complex(mask / size, array_ops.zeros_like(mask)), cdt)
        return [_fit_inner(r, array_ops.shape(y)[-k:], k), None]

    return grad


for _k in (1, 2, 3):
    _s = _NAMES[_k]
    op_registry.declare(f"FFT{_s}", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"],
                        attrs=[_COMPLEX], shape=_fft_shape(_k), kernel=_fft_kernel(_k, False),
                        grad=_fft_grad(_k, False))
    op_registry.declare(f"IFFT{_s}", inputs=["input: Tcomplex"], outputs=["output: Tcomplex"],
                        attrs=[_COMPLEX], shape=_fft_shape(_k), kernel=_fft_kernel(_k, True),
                        grad=_fft_grad(_k, True))
    op_registry.declare(f"RFFT{_s}", inputs=["input: Treal", "fft_length: int32"],
                        outputs=["output: Tcomplex"], attrs=[_REAL, _COMPLEX],
                        shape=_rfft_shape(_k, False), kernel=_rfft_kernel(_k, f"RFFT{_s}"),
                        grad=_rfft_grad(_k), newer_attrs=_TF2_REAL_FFT_ATTRS)
    op_registry.declare(f"IRFFT{_s}", inputs=["input: Tcomplex", "fft_length: int32"],
                        outputs=["output: Treal"], attrs=[_REAL, _COMPLEX],
                        shape=_rfft_shape(_k, True), kernel=_irfft_kernel(_k, f"IRFFT{_s}"),
                        grad=_irfft_grad(_k), newer_attrs=_TF2_REAL_FFT_ATTRS)


# -- public API -------------------------------------------------------------------------------


def _complex_input(x, op_type):
    x = ops.convert_to_tensor(x, name="input")
    if not x.dtype.base_dtype.is_complex:
        raise TypeError(f"{op_type}: input must be complex64 or complex128, got {x.dtype.name}")
    return x


def _fft_apply(k, inverse, x, name=None):
    op_type = ("IFFT" if inverse else "FFT") + _NAMES[k]
    # the op's own type check words a real input's error as TF 1.15 does
    return ops.apply_op(op_type, [x], name=name)._outputs[0]


def _real_input(x, op_type, k):
    x = ops.convert_to_tensor(x)
    x.get_shape().with_rank_at_least(k)
    if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
        x = ops.convert_to_tensor(x, dtypes.float32)
    return x


def _default_length(x, k, inverse):
    from tideflow.ops import array_ops

    s = x.get_shape()
    if s.ndims is not None and s[-k:].is_fully_defined():
        dims = [d.value for d in s[-k:].dims]
        if inverse:
            dims[-1] = max(0, 2 * (dims[-1] - 1))
        return ops.convert_to_tensor(np.array(dims, np.int32))
    dims = array_ops.shape(x)[-k:]
    if inverse:
        from tideflow.ops import math_ops
        from tideflow.ops.concat_ops import concat

        dims = concat([dims[:-1], math_ops.maximum(2 * (dims[-1:] - 1), 0)], 0)
    return dims


def _pad_to_length(x, k, fft_length, inverse):
    """``x`` zero-padded so each inner dimension holds at least what the kernel reads
    (``fft_length``; ``fft_length // 2 + 1`` innermost for the inverse), as TF's wrappers."""
    from tideflow.ops import array_ops, concat_ops, math_ops, pad_ops

    x.get_shape().with_rank_at_least(k)
    length = ops.convert_to_tensor(fft_length, dtype=dtypes.int32)
    length.get_shape().with_rank(1)
    static = ops.constant_value(length)
    shape = x.get_shape()
    if static is not None and shape.ndims is not None:
        need = [int(v) for v in np.reshape(static, -1)]
        if len(need) != k:
            return x, length  # the op's shape function reports the wrong length
        if inverse:
            need[-1] = need[-1] // 2 + 1
        have = [d.value for d in shape.dims[-k:]]
        if all(h is not None and h >= w for h, w in zip(have, need)):
            return x, length
        if all(h is not None for h in have):
            pads = [[0, 0]] * (shape.ndims - k) + [[0, max(w - h, 0)] for h, w in zip(have, need)]
            return pad_ops.pad(x, pads), length
    need = length
    if inverse:
        need = concat_ops.concat([length[:-1], length[-1:] // 2 + 1], 0)
    have = array_ops.shape(x)[-k:]
    extra = math_ops.maximum(need - have, 0)
    rank = array_ops.rank(x)
    pads = concat_ops.concat([array_ops.zeros([rank - k, 2], dtypes.int32),
                              array_ops.stack([array_ops.zeros_like(extra), extra], 1)], 0)
    return pad_ops.pad(x, pads), length


def _rfft_apply(k, x, fft_length, tcomplex=None, name=None):
    op_type = "RFFT" + _NAMES[k]
    # TF 1.15's wrapper: a scope named as the function (``rfft``) holding the converted
    # arguments (``rfft/Const``), the op itself taking the scope's name
    with ops.name_scope(name, op_type.lower(), [x, fft_length]) as scope:
        x = _real_input(x, op_type, k)
        if tcomplex is None:
            tcomplex = (dtypes.complex128 if x.dtype.base_dtype == dtypes.float64
                        else dtypes.complex64)
        if fft_length is None:
            x.get_shape().with_rank_at_least(k)
            fft_length = _default_length(x, k, False)
        else:
            x, fft_length = _pad_to_length(x, k, fft_length, False)
        return ops.apply_op(op_type, [x, fft_length], {"Tcomplex": tcomplex},
                            name=scope)._outputs[0]


def _irfft_apply(k, x, fft_length, treal=None, name=None):
    op_type = "IRFFT" + _NAMES[k]
    with ops.name_scope(name, op_type.lower(), [x, fft_length]) as scope:  # as _rfft_apply
        if not isinstance(x, ops.Tensor) and np.asarray(x).dtype.kind in "biuf":
            x = np.asarray(x, np.complex64)  # TF converts with complex64 preferred
        x = ops.convert_to_tensor(x)
        x.get_shape().with_rank_at_least(k)
        if not x.dtype.base_dtype.is_complex:  # TF 1.15's ValueError, from the conversion
            x = ops.convert_to_tensor(x, dtypes.complex64)
        if treal is None:
            treal = x.dtype.base_dtype.real_dtype
        if fft_length is None:
            x.get_shape().with_rank_at_least(k)
            fft_length = _default_length(x, k, True)
        else:
            x, fft_length = _pad_to_length(x, k, fft_length, True)
        return ops.apply_op(op_type, [x, fft_length], {"Treal": treal}, name=scope)._outputs[0]


def fft(input, name=None):
    """The 1-D discrete Fourier transform over the innermost dimension of a complex tensor."""
    return _fft_apply(1, False, input, name)


def ifft(input, name=None):
    """The inverse 1-D discrete Fourier transform over the innermost dimension."""
    return _fft_apply(1, True, input, name)


def fft2d(input, name=None):
    """The 2-D discrete Fourier transform over the 2 innermost dimensions."""
    return _fft_apply(2, False, input, name)


def ifft2d(input, name=None):
    """The inverse 2-D discrete Fourier transform over the 2 innermost dimensions."""
    return _fft_apply(2, True, input, name)


def fft3d(input, name=None):
    """The 3-D discrete Fourier transform over the 3 innermost dimensions."""
    return _fft_apply(3, False, input, name)


def ifft3d(input, name=None):
    """The inverse 3-D discrete Fourier transform over the 3 innermost dimensions."""
    return _fft_apply(3, True, input, name)


def rfft(input_tensor, fft_length=None, name=None):
    """The 1-D FFT of a real signal: the ``fft_length // 2 + 1`` unique bins."""
    return _rfft_apply(1, input_tensor, fft_length, name=name)


def irfft(input_tensor, fft_length=None, name=None):
    """The inverse of :func:`rfft`: a real signal of ``fft_length`` samples."""
    return _irfft_apply(1, input_tensor, fft_length, name=name)


def rfft2d(input_tensor, fft_length=None, name=None):
    """The 2-D FFT of a real signal over the 2 innermost dimensions."""
    return _rfft_apply(2, input_tensor, fft_length, name=name)


def irfft2d(input_tensor, fft_length=None, name=None):
    """The inverse of :func:`rfft2d`."""
    return _irfft_apply(2, input_tensor, fft_length, name=name)


def rfft3d(input_tensor, fft_length=None, name=None):
    """The 3-D FFT of a real signal over the 3 innermost dimensions."""
    return _rfft_apply(3, input_tensor, fft_length, name=name)


def irfft3d(input_tensor, fft_length=None, name=None):
    """The inverse of :func:`rfft3d`."""
    return _irfft_apply(3, input_tensor, fft_length, name=name)


def _shift(x, axes, inverse, name, scope):
    from tideflow.ops import array_ops, gather_ops, math_ops, range_ops

    with ops.name_scope(name, scope, [x]):
        x = ops.convert_to_tensor(x, name="x")
        if axes is None:
            rank = x.get_shape().ndims
            if rank is None:
                raise ValueError(f"{scope}: the rank of x must be known when axes is None")
            axes = list(range(rank))
        elif isinstance(axes, int):
            axes = [axes]
        shape = array_ops.shape(x)
        for a in axes:
            n = shape[a]
            s = -(n // 2) if inverse else n // 2
            # a roll by s along a: out[i] = x[(i - s) mod n]
            idx = math_ops.floormod(range_ops.range(n) - s, math_ops.maximum(n, 1))
            x = gather_ops.gather(x, idx, axis=a)
        return x


def fftshift(x, axes=None, name=None):
    """Moves the zero-frequency bin to the centre (``numpy.fft.fftshift``)."""
    return _shift(x, axes, False, name, "fftshift")


def ifftshift(x, axes=None, name=None):
    """The inverse of :func:`fftshift`."""
    return _shift(x, axes, True, name, "ifftshift")


# -- N-D transforms over chosen axes (tf.signal.fftnd family), composed of the 1-D ops ---------


def _nd_setup(x, fft_length, axes, what, inverse_real=False):
    rank = x.get_shape().ndims
    if rank is None:
        raise ValueError(f"{what}: the rank of the input must be known")
    if axes is None:
        axes = list(range(rank - len(fft_length), rank)) if fft_length is not None else list(
            range(rank))
    axes = [a + rank if a < 0 else a for a in (np.atleast_1d(axes).tolist())]
    if any(not 0 <= a < rank for a in axes) or len(set(axes)) != len(axes):
        raise ValueError(f"{what}: axes {axes} are not distinct axes of a rank-{rank} input")
    if fft_length is None:
        shape = x.get_shape().as_list()
        if any(shape[a] is None for a in axes):
            raise ValueError(f"{what}: fft_length is needed when the transformed dimensions "
                             f"are not all known")
        fft_length = [shape[a] for a in axes]
        if inverse_real:
            fft_length[-1] = 2 * (fft_length[-1] - 1)
    fft_length = [int(n) for n in np.atleast_1d(fft_length)]
    if len(fft_length) != len(axes):
        raise ValueError(f"{what}: fft_length {fft_length} and axes {axes} differ in length")
    return axes, fft_length, rank


def _along(x, axis, rank, fn):
    """``fn`` applied to ``axis`` moved innermost, then moved back."""
    from tideflow.ops import array_ops

    if axis == rank - 1:
        return fn(x)
    perm = [i for i in range(rank) if i != axis] + [axis]
    inv = list(np.argsort(perm))
    return array_ops.transpose(fn(array_ops.transpose(x, perm)), inv)


def _fit_axis(x, axis, n, rank):
    """``x`` cropped or zero-padded along ``axis`` to ``n``."""
    from tideflow.ops import array_ops

    def fit(y):
        return _fit_inner(y, array_ops.reshape(ops.convert_to_tensor(n, dtypes.int32), [1]), 1)

    return _along(x, axis, rank, fit)


def _norm_scale(x, norm, lengths, inverse, what):
    if norm in (None, "backward"):
        return x
    n = float(np.prod(lengths))
    if norm == "ortho":
        f = np.sqrt(n) if inverse else 1 / np.sqrt(n)
    elif norm == "forward":
        f = n if inverse else 1 / n
    else:
        raise ValueError(f"{what}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")
    return x * np.array(f, x.dtype.as_numpy_dtype)


def _complex_nd(x, fft_length, axes, norm, name, inverse):
    what = "ifftnd" if inverse else "fftnd"
    with ops.name_scope(name, what, [x]):
        x = _complex_input(x, what)
        axes, lengths, rank = _nd_setup(x, fft_length, axes, what)
        for a, n in zip(axes, lengths):
            x = _fit_axis(x, a, n, rank)
            x = _along(x, a, rank, lambda y: _fft_apply(1, inverse, y))
        return _norm_scale(x, norm, lengths, inverse, what)


def fftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-D FFT over ``axes`` (default: the last ``len(fft_length)`` axes, or all), each
    cropped or zero-padded to ``fft_length``."""
    return _complex_nd(input_tensor, fft_length, axes, norm, name, False)


def ifftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of :func:`fftnd`."""
    return _complex_nd(input_tensor, fft_length, axes, norm, name, True)


def rfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The N-D FFT of a real signal: the real FFT over the last of ``axes``, then complex
    FFTs over the others."""
    with ops.name_scope(name, "rfftnd", [input_tensor]):
        x = _real_input(input_tensor, "rfftnd", 0)
        axes, lengths, rank = _nd_setup(x, fft_length, axes, "rfftnd")
        last = axes[-1]
        x = _along(x, last, rank, lambda y: _rfft_apply(1, y, [lengths[-1]]))
        for a, n in zip(axes[:-1], lengths[:-1]):
            x = _fit_axis(x, a, n, rank)
            x = _along(x, a, rank, lambda y: _fft_apply(1, False, y))
        return _norm_scale(x, norm, lengths, False, "rfftnd")


def irfftnd(input_tensor, fft_length=None, axes=None, norm=None, name=None):
    """The inverse of :func:`rfftnd`: complex inverse FFTs over all but the last of ``axes``,
    then the real inverse FFT of length ``fft_length[-1]`` over the last."""
    with ops.name_scope(name, "irfftnd", [input_tensor]):
        x = _complex_input(input_tensor, "irfftnd")
        axes, lengths, rank = _nd_setup(x, fft_length, axes, "irfftnd", inverse_real=True)
        for a, n in zip(axes[:-1], lengths[:-1]):
            x = _fit_axis(x, a, n, rank)
            x = _along(x, a, rank, lambda y: _fft_apply(1, True, y))
        x = _along(x, axes[-1], rank, lambda y: _irfft_apply(1, y, [lengths[-1]]))
        return _norm_scale(x, norm, lengths, True, "irfftnd")
