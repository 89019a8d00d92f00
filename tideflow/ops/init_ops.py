"""Initializers: callables ``init(shape, dtype=None, partition_info=None)`` that build the ops
giving a variable its first value (``tf.zeros_initializer``, ``tf.glorot_uniform_initializer``...).
"""

import itertools
import math

import numpy as np

from tideflow.framework import dtypes
from tideflow.ops import constant_op, random_ops


def _array_ops():
    from tideflow.ops import array_ops

    return array_ops


def _math_ops():
    from tideflow.ops import math_ops

    return math_ops


def _assert_float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"Expected floating point type, got {dtype}.")
    return dtype


class Initializer:
    """Base class of initializers."""

    def __call__(self, shape, dtype=None, partition_info=None):
        raise NotImplementedError

    def get_config(self):
        """The constructor arguments, so ``cls.from_config(config)`` rebuilds the initializer."""
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class Zeros(Initializer):
    """Initializes to 0."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array_ops().zeros(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Ones(Initializer):
    """Initializes to 1."""

    def __init__(self, dtype=dtypes.float32):
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return _array_ops().ones(shape, dtype or self.dtype)

    def get_config(self):
        return {"dtype": self.dtype.name}


class Constant(Initializer):
    """Initializes to ``value`` (a scalar fills the shape; a shorter list repeats its last
    element, as ``tf.constant`` does, unless ``verify_shape``)."""

    def __init__(self, value=0, dtype=dtypes.float32, verify_shape=False):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(
                f"Invalid type for initial value: {type(value)} (expected Python scalar, list or "
                "tuple of values, or numpy.ndarray)."
            )
        self.value = value
        self.dtype = dtypes.as_dtype(dtype)
        self._verify_shape = verify_shape

    def __call__(self, shape, dtype=None, partition_info=None, verify_shape=None):
        if dtype is None:
            dtype = self.dtype
        if verify_shape is None:
            verify_shape = self._verify_shape
        return constant_op.constant(self.value, dtype=dtype, shape=shape,
                                    verify_shape=verify_shape)

    def get_config(self):
        return {"value": self.value, "dtype": self.dtype.name}


class Identity(Initializer):
    """``gain`` times the identity matrix (2-D shapes only; rectangular ones get ones on the
    main diagonal)."""

    def __init__(self, gain=1.0, dtype=dtypes.float32):
        self.gain = gain
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        full_shape = list(shape) if partition_info is None else list(
            partition_info.full_shape)
        if len(full_shape) != 2:
            raise ValueError("Identity matrix initializer can only be used for 2D matrices.")
        dtype = dtypes.as_dtype(dtype or self.dtype)
        from tideflow.ops.range_ops import eye

        # gain * eye(...), built from TF 1.15's ops
        value = eye(*[int(d) for d in full_shape], dtype=dtype)
        if partition_info is not None:
            from tideflow.ops.slicing_ops import slice as slice_

            value = slice_(value, partition_info.var_offset, list(shape))
        return self.gain * value

    def get_config(self):
        return {"gain": self.gain, "dtype": self.dtype.name}


class RandomUniform(Initializer):
    """Uniform samples in ``[minval, maxval)``."""

    def __init__(self, minval=0, maxval=None, seed=None, dtype=dtypes.float32):
        self.minval = minval
        self.maxval = maxval
        self.seed = seed
        self.dtype = dtypes.as_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_uniform(shape, self.minval, self.maxval, dtype or self.dtype,
                                         seed=self.seed)

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed,
                "dtype": self.dtype.name}


class RandomNormal(Initializer):
    """Normal samples."""

    def __init__(self, mean=0.0, stddev=1.0, seed=None, dtype=dtypes.float32):
        self.mean = mean
        self.stddev = stddev
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.random_normal(shape, self.mean, self.stddev, dtype or self.dtype,
                                        seed=self.seed)

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed,
                "dtype": self.dtype.name}


class TruncatedNormal(RandomNormal):
    """Normal samples, re-drawn beyond two standard deviations."""

    def __call__(self, shape, dtype=None, partition_info=None):
        return random_ops.truncated_normal(shape, self.mean, self.stddev, dtype or self.dtype,
                                           seed=self.seed)


class UniformUnitScaling(Initializer):
    """Uniform in ``±sqrt(3 / input_size) * factor`` (keeps the scale of the input)."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor = factor
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        input_size = 1.0
        for d in list(scale_shape)[:-1]:
            input_size *= float(d)
        input_size = max(input_size, 1.0)
        max_val = math.sqrt(3 / input_size) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype or self.dtype,
                                         seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


def _compute_fans(shape):
    shape = [int(d) for d in shape]
    if len(shape) < 1:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = 1
    for d in shape[:-2]:
        receptive *= d
    return shape[-2] * receptive, shape[-1] * receptive


# stddev of a unit normal truncated to [-2, 2], to correct the spread of truncated samples
_TRUNCATED_STDDEV = 0.87962566103423978


class VarianceScaling(Initializer):
    """Samples with variance ``scale / n``, n the fan-in, fan-out or their mean."""

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None,
                 dtype=dtypes.float32):
        if scale <= 0.0:
            raise ValueError("`scale` must be positive float.")
        if mode not in ("fan_in", "fan_out", "fan_avg"):
            raise ValueError("Invalid `mode` argument:", mode)
        distribution = distribution.lower()
        if distribution not in ("normal", "uniform", "truncated_normal", "untruncated_normal"):
            raise ValueError("Invalid `distribution` argument:", distribution)
        self.scale = scale
        self.mode = mode
        self.distribution = distribution
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        scale_shape = partition_info.full_shape if partition_info is not None else shape
        fan_in, fan_out = _compute_fans(scale_shape)
        scale = self.scale
        if self.mode == "fan_in":
            scale /= max(1.0, fan_in)
        elif self.mode == "fan_out":
            scale /= max(1.0, fan_out)
        else:
            scale /= max(1.0, (fan_in + fan_out) / 2.0)
        if self.distribution in ("normal", "truncated_normal"):
            stddev = math.sqrt(scale) / _TRUNCATED_STDDEV
            return random_ops.truncated_normal(shape, 0.0, stddev, dtype, seed=self.seed)
        if self.distribution == "untruncated_normal":
            return random_ops.random_normal(shape, 0.0, math.sqrt(scale), dtype, seed=self.seed)
        limit = math.sqrt(3.0 * scale)
        return random_ops.random_uniform(shape, -limit, limit, dtype, seed=self.seed)

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed, "dtype": self.dtype.name}


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix, reshaped to ``shape``, times ``gain``."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        shape = [int(d) for d in shape]
        if len(shape) < 2:
            raise ValueError("The tensor to initialize must be at least two-dimensional")
        rows = 1
        for d in shape[:-1]:
            rows *= d
        cols = shape[-1]
        flat = (cols, rows) if rows < cols else (rows, cols)
        from tideflow.ops.linalg_extra_ops import matrix_transpose, qr
        from tideflow.ops.matrix_diag_ops import diag_part

        # TF 1.15's ops (DiagPart, the operators' mul names, matrix_transpose's scope)
        a = random_ops.random_normal(flat, dtype=dtype, seed=self.seed)
        q, r = qr(a, full_matrices=False)
        m, ao = _math_ops(), _array_ops()
        q = q * m.sign(diag_part(r))
        if rows < cols:
            q = matrix_transpose(q)
        return self.gain * ao.reshape(q, shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


def _matmul(a, b, **kwargs):
    from tideflow.ops.linalg_ops import matmul

    return matmul(a, b, **kwargs)


def _random_orthogonal(n, dtype, seed):
    """An n x n orthogonal matrix, uniformly distributed (QR of a normal matrix, with the signs
    of R's diagonal folded into Q)."""
    from tideflow.ops.linalg_extra_ops import qr
    from tideflow.ops.matrix_diag_ops import matrix_diag_part

    q, r = qr(random_ops.random_normal([n, n], dtype=dtype, seed=seed), full_matrices=False)
    return _math_ops().multiply(q, _math_ops().sign(matrix_diag_part(r)))


class ConvolutionDeltaOrthogonal(Initializer):
    """A convolution kernel that is zero except at its spatial centre, where it holds an
    orthogonal ``in x out`` matrix times ``gain`` (Xiao et al., 2018): the convolution is then
    an isometry of its input (with "same" padding)."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = [int(d) for d in shape]
        if not 3 <= len(shape) <= 5:
            raise ValueError("The tensor to initialize must be at least three-dimensional and "
                             "at most five-dimensional")
        if shape[-2] > shape[-1]:
            raise ValueError("In_filters cannot be greater than out_filters.")
        ao = _array_ops()
        q = _random_orthogonal(shape[-1], dtype, self.seed)[: shape[-2], :]
        centre = [[k // 2 for k in shape[:-2]]]
        kernel = ao.scatter_nd(centre, ao.expand_dims(q, 0), shape)
        return _math_ops().multiply(constant_op.constant(self.gain, dtype), kernel)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class _ConvolutionOrthogonal(Initializer):
    """An orthogonal convolution kernel of ``rank`` spatial dimensions, all of one size k
    (Xiao et al., 2018): the product of k-1 random "block" kernels of size 2 (each built from
    symmetric projections P as P and I - P per axis) is an orthogonal convolution with circular
    padding; an orthogonal ``in x out`` matrix maps the input channels in."""

    rank = None

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain = gain
        self.seed = seed
        self.dtype = _assert_float_dtype(dtype)

    def _next_seed(self):
        seed = self.seed
        if self.seed:
            self.seed += 1  # each random matrix gets its own op seed, as TF's does
        return seed

    def _projection(self, n, dtype):
        # a symmetric projection: an orthogonal matrix with a random half of its columns kept
        m = _math_ops()
        q = _random_orthogonal(n, dtype, self._next_seed())
        draw = random_ops.random_normal([n], dtype=dtype, seed=self._next_seed())
        keep = m.maximum(m.sign(draw), constant_op.constant(0, dtype))  # 1 where draw > 0
        c = m.multiply(q, keep)
        return _matmul(c, c, transpose_b=True)

    def _block(self, n, dtype):
        eye = constant_op.constant(np.eye(n), dtype)
        halves = []
        for _ in range(self.rank):
            p = self._projection(n, dtype)
            halves.append((p, eye - p))
        block = {}
        for index in itertools.product((0, 1), repeat=self.rank):
            product = halves[0][index[0]]
            for axis in range(1, self.rank):
                product = _matmul(product, halves[axis][index[axis]])
            block[index] = product
        return block

    @staticmethod
    def _matrix_conv(a, b, size_a, size_b, rank):
        out = {}
        for index in itertools.product(range(size_a + size_b - 1), repeat=rank):
            total = None
            for first in itertools.product(range(size_a), repeat=rank):
                second = tuple(i - j for i, j in zip(index, first))
                if all(0 <= s < size_b for s in second):
                    term = _matmul(a[first], b[second])
                    total = term if total is None else total + term
            out[index] = total
        return out

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtypes.as_dtype(dtype or self.dtype)
        shape = [int(d) for d in shape]
        if len(shape) != self.rank + 2:
            raise ValueError(f"The tensor to initialize must be {self._RANK_WORD}-dimensional")
        if shape[-2] > shape[-1]:
            raise ValueError("In_filters cannot be greater than out_filters.")
        if len(set(shape[:-2])) != 1:
            raise ValueError("Kernel sizes must be equal.")
        m, ao = _math_ops(), _array_ops()
        k, cin, cout = shape[0], shape[-2], shape[-1]
        orth = _random_orthogonal(cout, dtype, self._next_seed())[:cin, :]
        if k == 1:
            kernel = ao.reshape(orth, shape)
        else:
            p = self._block(cout, dtype)
            for size in range(2, k):
                p = self._matrix_conv(p, self._block(cout, dtype), size, 2, self.rank)
            taps = [_matmul(orth, p[index])
                    for index in itertools.product(range(k), repeat=self.rank)]
            kernel = ao.reshape(ao.stack(taps), shape)
        return m.multiply(constant_op.constant(self.gain, dtype), kernel)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class ConvolutionOrthogonal1D(_ConvolutionOrthogonal):
    """An orthogonal 1-D convolution kernel ``[k, in, out]`` (circular padding)."""

    rank = 1
    _RANK_WORD = "three"


class ConvolutionOrthogonal2D(_ConvolutionOrthogonal):
    """An orthogonal 2-D convolution kernel ``[k, k, in, out]`` (circular padding)."""

    rank = 2
    _RANK_WORD = "four"


class ConvolutionOrthogonal3D(_ConvolutionOrthogonal):
    """An orthogonal 3-D convolution kernel ``[k, k, k, in, out]`` (circular padding)."""

    rank = 3
    _RANK_WORD = "five"


class GlorotUniform(VarianceScaling):
    """Uniform in ``±sqrt(6 / (fan_in + fan_out))`` (Glorot and Bengio, 2010)."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        # TF 1.15 drops ``dtype`` here (and in GlorotNormal): called without one, it makes
        # float32 whatever the constructor was given
        del dtype
        super().__init__(scale=1.0, mode="fan_avg", distribution="uniform", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


class GlorotNormal(VarianceScaling):
    """Truncated normal with stddev ``sqrt(2 / (fan_in + fan_out))``."""

    def __init__(self, seed=None, dtype=dtypes.float32):
        del dtype  # (as GlorotUniform)
        super().__init__(scale=1.0, mode="fan_avg", distribution="truncated_normal", seed=seed)

    def get_config(self):
        return {"seed": self.seed, "dtype": self.dtype.name}


def lecun_normal(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def lecun_uniform(seed=None):
    return VarianceScaling(scale=1.0, mode="fan_in", distribution="uniform", seed=seed)


def he_normal(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="truncated_normal", seed=seed)


def he_uniform(seed=None):
    return VarianceScaling(scale=2.0, mode="fan_in", distribution="uniform", seed=seed)


# TF's lower-case public aliases
zeros_initializer = Zeros
ones_initializer = Ones
constant_initializer = Constant
random_uniform_initializer = RandomUniform
random_normal_initializer = RandomNormal
truncated_normal_initializer = TruncatedNormal
uniform_unit_scaling_initializer = UniformUnitScaling
variance_scaling_initializer = VarianceScaling
orthogonal_initializer = Orthogonal
glorot_uniform_initializer = GlorotUniform
glorot_normal_initializer = GlorotNormal
identity_initializer = Identity
convolutional_delta_orthogonal = ConvolutionDeltaOrthogonal
convolutional_orthogonal_1d = ConvolutionOrthogonal1D
convolutional_orthogonal_2d = ConvolutionOrthogonal2D
convolutional_orthogonal_3d = ConvolutionOrthogonal3D
