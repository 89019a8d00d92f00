"""Random ops: uniform, normal, truncated normal, shuffle, multinomial and gamma samples.

Each random op draws from its own generator, kept per session and per node and seeded from
the op's ``seed``/``seed2`` attrs (TF's graph-level and op-level seeds): a program with a graph
seed repeats its numbers on every run, a new session restarts each sequence, and successive
``Session.run`` calls continue it. With both seeds 0 the generator is seeded from the OS.

Seeded RandomUniform, RandomStandardNormal, TruncatedNormal and RandomUniformInt give TF's
own numbers (Philox4x32-10 and TF's transforms, ``philox.py``); unseeded ones, whose values
TF does not fix either, draw from NumPy's faster generator.
"""

import math

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, random_seed
from tideflow.framework.tensor_shape import TensorShape, dimension_value, unknown_shape
from tideflow.ops import philox
from tideflow.ops.array_ops import dim_for_scalar_input

_MASK64 = (1 << 64) - 1


def _make_generator(seed, seed2):
    if seed == 0 and seed2 == 0:
        return np.random.Generator(np.random.Philox())
    key = (int(seed) & _MASK64) | ((int(seed2) & _MASK64) << 64)
    return np.random.Generator(np.random.Philox(key=key))


def _generator(ctx):
    attrs = ctx.op._attrs
    return ctx.node_state("rng", lambda: _make_generator(attrs["seed"], attrs["seed2"]))


def _philox_stream(ctx):
    """The op's TF-exact stream when it is seeded, else None."""
    attrs = ctx.op._attrs
    if attrs["seed"] == 0 and attrs["seed2"] == 0:
        return None
    return ctx.node_state("philox", lambda: philox.PhiloxStream(attrs["seed"], attrs["seed2"]))


def shape_from_tensor(t):
    """The static shape that a 1-D shape tensor ``t`` describes (partially known if need be:
    ``tf.concat([tf.shape(x)[:1], [7]], 0)`` gives ``(?, 7)``, as TF's partial evaluation)."""
    ndims = t.get_shape().ndims
    if ndims == 1:
        from tideflow.ops import array_ops

        return array_ops.constant_value_as_shape(t)
    if ndims is not None:
        raise ValueError(f"Shape must be rank 1 but is rank {ndims}")
    value = ops.constant_value(t)
    if value is not None:
        return TensorShape([None if int(d) < 0 else int(d) for d in np.reshape(value, -1)])
    return unknown_shape()


def _check_shape_input(shape):
    s = np.asarray(shape)
    if s.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, f"shape must be a vector of {{int32,int64}}, got shape {list(s.shape)}"
        )
    dims = tuple(int(d) for d in s)
    for d in dims:
        if d < 0:
            raise errors.InvalidArgumentError(None, None, f"Dimension {d} must be >= 0")
    return dims


def _draw(gen, fn, shape, np_dtype):
    """Draws in float32/float64 and casts (half and bfloat16 have no native generator)."""
    if np_dtype in (np.float32, np.float64) or fn is _uniform:
        return fn(gen, shape, np_dtype)
    return fn(gen, shape, np.float32).astype(np_dtype)


def _float_random_kernel(fn, exact):
    def factory(ctx):
        np_dtype = np.dtype(ctx.op._attrs["dtype"].as_numpy_dtype)
        stream = _philox_stream(ctx)
        if stream is not None:
            def run_exact(shape):
                return exact(stream, _check_shape_input(shape), np_dtype)

            return run_exact
        gen = _generator(ctx)

        def run(shape):
            return _draw(gen, fn, _check_shape_input(shape), np_dtype.type)

        return run

    return factory


def _uniform(gen, shape, dt):
    if dt in (np.float32, np.float64):
        return gen.random(shape, dtype=dt)
    # half and bfloat16: uniform on the dtype's grid below 1 (as TF fills the mantissa bits),
    # so rounding can never give 1.0
    nmant = 10 if dt == np.float16 else 7
    return (gen.integers(0, 1 << nmant, size=shape) * (1.0 / (1 << nmant))).astype(dt)


def _normal(gen, shape, dt):
    return gen.standard_normal(shape, dtype=dt)


def _truncated(gen, shape, dt):
    out = gen.standard_normal(shape, dtype=dt)
    bad = np.abs(out) > 2.0
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()), dtype=dt)
        bad = np.abs(out) > 2.0
    return out


def _shape_input_fn(op):
    return [shape_from_tensor(op._inputs[0])]


_FLOAT_ATTRS = ["seed: int = 0", "seed2: int = 0", "dtype: {half, bfloat16, float, double}",
                "T: {int32, int64}"]

for _name, _fn, _exact in (("RandomUniform", _uniform, philox.uniform),
                           ("RandomStandardNormal", _normal, philox.normal),
                           ("TruncatedNormal", _truncated, philox.truncated_normal)):
    op_registry.declare(
        _name,
        inputs=["shape: T"],
        outputs=["output: dtype"],
        attrs=_FLOAT_ATTRS,
        shape=_shape_input_fn,
        kernel_factory=_float_random_kernel(_fn, _exact),
        differentiable=False,
        stateful=True,
        is_random=True,
    )


def _uniform_int_shape(op):
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims}")
    return _shape_input_fn(op)


def _uniform_int_kernel(ctx):
    stream = _philox_stream(ctx)
    gen = _generator(ctx) if stream is None else None
    op = ctx.op
    np_dtype = op._attrs["Tout"].as_numpy_dtype

    def run(shape, minval, maxval):
        shape = _check_shape_input(shape)
        lo, hi = np.asarray(minval), np.asarray(maxval)
        if lo.ndim or hi.ndim:
            raise errors.InvalidArgumentError(
                None, op, f"minval must be 0-D, got shape {list(lo.shape)}" if lo.ndim else
                f"maxval must be 0-D, got shape {list(hi.shape)}"
            )
        lo, hi = int(lo), int(hi)
        if int(np.prod(shape, dtype=np.int64)) > 0 and not lo < hi:
            raise errors.InvalidArgumentError(None, op, f"Need minval < maxval, got {lo} >= {hi}")
        if not lo < hi:
            return np.empty(shape, np_dtype)
        if stream is not None:
            return philox.uniform_int(stream, shape, lo, hi, np_dtype)
        return gen.integers(lo, hi, size=shape, dtype=np_dtype)

    return run


op_registry.declare(
    "RandomUniformInt",
    inputs=["shape: T", "minval: Tout", "maxval: Tout"],
    outputs=["output: Tout"],
    attrs=["seed: int = 0", "seed2: int = 0", "Tout: {int32, int64}", "T: {int32, int64}"],
    shape=_uniform_int_shape,
    kernel_factory=_uniform_int_kernel,
    differentiable=False,
    stateful=True,
    is_random=True,
)


def _philox_words(stream, blocks):
    """The stream's next ``blocks`` Philox blocks as a flat uint32 word sequence, moving it on
    by exactly that many counters (TF's ReserveSamples128)."""
    base = stream.counter
    stream.counter = (stream.counter + blocks) & ((1 << 128) - 1)
    return stream.blocks(base, blocks).astype(np.uint32).reshape(-1)


def _shuffle_kernel(ctx):
    gen = _generator(ctx)
    stream = _philox_stream(ctx)

    def run(value):
        value = np.asarray(value)
        if value.ndim == 0 or value.shape[0] <= 1 or value.size <= 1:
            return value
        n = value.shape[0]
        if stream is None:
            return value[gen.permutation(n)]
        # TF's kernel: n - 1 uint32 samples (reserved in blocks of four), and a forward
        # Fisher-Yates swap of i with i + sample % (n - i)
        words = _philox_words(stream, (n - 1 + 3) // 4)
        perm = np.arange(n)
        for i in range(n - 1):
            j = i + int(words[i]) % (n - i)
            perm[i], perm[j] = perm[j], perm[i]
        return value[perm]

    return run


op_registry.declare(
    "RandomShuffle",
    inputs=["value: T"],
    outputs=["output: T"],
    attrs=["seed: int = 0", "seed2: int = 0", "T: type"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_shuffle_kernel,  # (no gradient defined, as TF 1.15: a path through it is a LookupError)
    stateful=True,
    is_random=True,
)


def _multinomial_shape(op):
    logits = op._inputs[0]._shape
    if logits.ndims is None:
        logits = unknown_shape(ndims=2)
    elif logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims}")
    if op._inputs[1]._shape.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op._inputs[1]._shape.ndims}")
    return [TensorShape([logits[0], dim_for_scalar_input(op, 1)])]


def categorical_rows(logits, u, out):
    """Fills ``out[b]`` with the classes that uniforms ``u[b]`` pick from ``logits[b]`` (float64
    rows), as TF's CPU kernel picks them: a logit that is not finite (inf, -inf or NaN) weighs
    nothing, and a row with no finite logit gives every sample the index num_classes."""
    finite = np.isfinite(logits)
    for b in range(logits.shape[0]):
        row, keep = logits[b], finite[b]
        m = row[keep].max() if keep.any() else 0.0
        cdf = np.cumsum(np.where(keep, np.exp(np.where(keep, row, m) - m), 0.0))
        out[b] = np.searchsorted(cdf, u[b] * cdf[-1], side="right")


def _multinomial_kernel(ctx):
    gen = _generator(ctx)
    op = ctx.op
    np_dtype = op._attrs["output_dtype"].as_numpy_dtype

    def run(logits, num_samples):
        logits = np.asarray(logits, dtype=np.float64)
        n = int(num_samples)
        if logits.ndim != 2:
            raise errors.InvalidArgumentError(
                None, op, f"logits should be a matrix, got shape {list(logits.shape)}"
            )
        if n < 0:
            raise errors.InvalidArgumentError(
                None, op, f"num_samples should be nonnegative, got {n}"
            )
        batch, classes = logits.shape
        if classes == 0 and n > 0:
            raise errors.InvalidArgumentError(
                None, op, "num_classes should be positive, got 0"
            )
        out = np.empty((batch, n), dtype=np_dtype)
        if n == 0 or batch == 0:
            return out
        stream = _philox_stream(ctx)
        if stream is None:
            u = gen.random((batch, n))
        else:
            # TF's CPU kernel: 256 counters reserved per (row, sample rounded up to 4) times two
            # (doubles); each sample a double from two consecutive words, rows in sequence
            base = stream.reserve(batch * ((n + 3) // 4 * 4) * 2)
            words = stream.blocks(base, (batch * n * 2 + 3) // 4).astype(np.uint32).reshape(-1)
            u = philox._double01(words[0:2 * batch * n:2], words[1:2 * batch * n:2])
            u = u.reshape(batch, n)
        categorical_rows(logits, u, out)
        return out

    return run


op_registry.declare(
    "Multinomial",
    inputs=["logits: T", "num_samples: int32"],
    outputs=["output: output_dtype"],
    attrs=["seed: int = 0", "seed2: int = 0", "T: realnumbertype",
           "output_dtype: {int32, int64} = DT_INT64"],
    shape=_multinomial_shape,
    kernel_factory=_multinomial_kernel,
    differentiable=False,
    stateful=True,
    is_random=True,
)


def _gamma_shape(op):
    return [shape_from_tensor(op._inputs[0]).concatenate(op._inputs[1]._shape)]


class _OutputDraws:
    """One output's draws in TF's CPU RandomGamma: a generator at ``start`` counters past the
    op's base; each uniform or normal call takes one Philox block yielding two doubles, which
    TF reads last-first."""

    def __init__(self, stream, base, start, first_blocks):
        self._stream, self._base, self._start = stream, base, start
        self._blocks = list(first_blocks)
        self._used = 0
        self._uniforms, self._normals = [], []

    def _block(self):
        if self._used >= len(self._blocks):  # a long rejection run: compute more blocks
            more = self._stream.blocks(self._base, 8, start=self._start + len(self._blocks))
            self._blocks.extend(list(more))
        w = self._blocks[self._used]
        self._used += 1
        return [np.uint32(v) for v in w]

    def uniform(self):
        if not self._uniforms:
            w = self._block()
            self._uniforms = [float(philox._double01(w[0], w[1])),
                              float(philox._double01(w[2], w[3]))]
        return self._uniforms.pop()

    def normal(self):
        if not self._normals:
            z0, z1 = philox._box_muller_double(*self._block())
            self._normals = [float(z0), float(z1)]
        return self._normals.pop()


def _gamma_sample(draws, a):
    if not a > 0:  # TF: a zero shape draws 0 (clipped to tiny later), a negative or NaN one NaN
        return 0.0 if a == 0 else float("nan")
    if a == 1.0:  # an exponential
        return -np.log(1.0 - draws.uniform())
    # Marsaglia and Tsang's transformation-rejection, boosted for alpha < 1
    d = a + (2.0 / 3 if a < 1 else -1.0 / 3)
    c = 1.0 / 3 / np.sqrt(d)
    while True:
        x = draws.normal()
        v = 1 + c * x
        if v <= 0:
            continue
        v = v * v * v
        u = draws.uniform()
        if u < 1 - 0.0331 * (x * x) * (x * x) or np.log(u) < 0.5 * x * x + d * (
                1 - v + np.log(v)):
            res = d * v
            if a < 1:
                res *= draws.uniform() ** (1 / a)
            return res


def _tf_gamma(stream, shape, alpha):
    """TF's CPU RandomGamma numbers: outputs taken alpha-major, each from its own generator
    256 counters apart, written to ``[shape..., alpha...]``."""
    alpha_shape = np.shape(alpha)
    alpha = np.asarray(alpha, dtype=np.float64).reshape(-1)
    num_alphas = alpha.size
    num_samples = int(np.prod(shape, dtype=np.int64))
    n_out = num_samples * num_alphas
    out = np.empty(n_out, dtype=np.float64)
    base = stream.reserve(n_out)
    ahead = 8  # blocks computed up front per output (rejections rarely need more)
    offsets = (np.arange(n_out, dtype=np.uint64)[:, None] * np.uint64(philox.GROUP_RESERVE)
               + np.arange(ahead, dtype=np.uint64)[None, :]).reshape(-1)
    first = philox._philox_words(*philox._counter_words(base, offsets),
                                 stream.key).reshape(n_out, ahead, 4)
    for output_idx in range(n_out):
        alpha_idx, sample_idx = divmod(output_idx, num_samples)
        draws = _OutputDraws(stream, base, output_idx * philox.GROUP_RESERVE, first[output_idx])
        out[sample_idx * num_alphas + alpha_idx] = _gamma_sample(draws, float(alpha[alpha_idx]))
    return out.reshape(tuple(shape) + tuple(alpha_shape))


def _poisson_sample(draws, rate, exp_neg_rate, log_rate, consts):
    if rate < 10:  # Knuth: multiply uniforms until the product drops to exp(-rate)
        prod, x = 1.0, 0.0
        while True:
            prod *= draws.uniform()
            if prod <= exp_neg_rate:
                return x
            x += 1
    b, a, inv_alpha = consts  # Hormann's transformed rejection
    while True:
        u = draws.uniform() - 0.5
        v = draws.uniform()
        u_shifted = 0.5 - abs(u)
        k = np.floor((2 * a / u_shifted + b) * u + rate + 0.43)
        if k < 0:
            continue
        if u_shifted >= 0.07 and v <= 0.9277 - 3.6224 / (b - 2):
            return k
        if u_shifted < 0.013 and v > u_shifted:
            continue
        s = np.log(v * inv_alpha / (a / (u_shifted * u_shifted) + b))
        t = -rate + k * log_rate - math.lgamma(k + 1)
        if s <= t:
            return k


def tf_poisson(stream, shape, rates):
    """TF's CPU RandomPoissonV2 numbers: as RandomGamma, one generator per output 256 counters
    apart (rates major), uniforms as doubles read last-first."""
    rate_shape = np.shape(rates)
    rates = np.asarray(rates, dtype=np.float64).reshape(-1)
    num_rates = rates.size
    num_samples = int(np.prod(shape, dtype=np.int64))
    n_out = num_samples * num_rates
    out = np.empty(n_out, dtype=np.float64)
    base = stream.reserve(n_out)
    ahead = 8
    offsets = (np.arange(n_out, dtype=np.uint64)[:, None] * np.uint64(philox.GROUP_RESERVE)
               + np.arange(ahead, dtype=np.uint64)[None, :]).reshape(-1)
    first = philox._philox_words(*philox._counter_words(base, offsets),
                                 stream.key).reshape(n_out, ahead, 4)
    for output_idx in range(n_out):
        rate_idx, sample_idx = divmod(output_idx, num_samples)
        rate = float(rates[rate_idx])
        b = 0.931 + 2.53 * np.sqrt(rate)
        consts = (b, -0.059 + 0.02483 * b, 1.1239 + 1.1328 / (b - 3.4))
        draws = _OutputDraws(stream, base, output_idx * philox.GROUP_RESERVE, first[output_idx])
        out[sample_idx * num_rates + rate_idx] = _poisson_sample(
            draws, rate, np.exp(-rate), np.log(rate) if rate > 0 else -np.inf, consts)
    return out.reshape(tuple(shape) + tuple(rate_shape))


def _gamma_kernel(ctx):
    gen = _generator(ctx)
    stream = _philox_stream(ctx)
    np_dtype = ctx.op._attrs["T"].as_numpy_dtype

    def run(shape, alpha):
        shape = _check_shape_input(shape)
        if stream is not None:
            return _tf_gamma(stream, shape, alpha).astype(np_dtype)
        alpha = np.asarray(alpha, dtype=np.float64)
        valid = alpha > 0
        out = gen.standard_gamma(np.where(valid, alpha, 1.0), size=shape + alpha.shape)
        if not valid.all():  # as TF: 0 for a zero shape, NaN for a negative or NaN one
            out = np.where(valid, out, np.where(alpha == 0, 0.0, np.nan))
        return out.astype(np_dtype)

    return run


op_registry.declare(
    "RandomGamma",
    inputs=["shape: S", "alpha: T"],
    outputs=["output: T"],
    attrs=["seed: int = 0", "seed2: int = 0", "S: {int32, int64}", "T: {half, float, double}"],
    shape=_gamma_shape,
    kernel_factory=_gamma_kernel,
    grad=lambda op, grad: _random_gamma_grad(op, grad),
    stateful=True,
    is_random=True,
)


def _random_gamma_grad(op, grad):
    from tideflow.ops.random_gamma_grad import _random_gamma_grad as g

    return g(op, grad)


# ------------------------------------------------------------------------------------------
# public wrappers
# ------------------------------------------------------------------------------------------


def _seeds(seed):
    s1, s2 = random_seed.get_seed(seed)
    return (0, 0) if s1 is None else (s1, s2)


def _shape_tensor(shape):
    """A shape given as a list, tuple, TensorShape or tensor, as an integer tensor."""
    if isinstance(shape, (list, tuple)) and not shape:
        return ops.convert_to_tensor(np.zeros([0], np.int32), name="shape")
    if isinstance(shape, (list, tuple)):
        # as TF's shape_tensor: Dimensions unwrapped, then the usual conversion (int64 where a
        # size needs it; (None, 3) fails naming that tuple)
        shape = tuple(dimension_value(d) for d in shape)
    return ops.convert_to_tensor(shape, name="shape")


def _math():
    from tideflow.ops import math_ops

    return math_ops


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Uniform samples in ``[minval, maxval)``; integer dtypes need ``maxval``."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
                     dtypes.int32, dtypes.int64):
        raise ValueError(f"Invalid dtype {dtype!r}")
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    with ops.name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        shape = _shape_tensor(shape)
        minval = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        maxval = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        seed1, seed2 = _seeds(seed)
        if dtype.is_integer:
            return ops.apply_op(
                "RandomUniformInt", [shape, minval, maxval], {"seed": seed1, "seed2": seed2},
                name=scope,
            )._outputs[0]
        rnd = ops.apply_op(
            "RandomUniform", [shape], {"seed": seed1, "seed2": seed2, "dtype": dtype}
        )._outputs[0]
        m = _math()
        # TF writes rnd * (maxval - minval): its ops are named "sub" and "mul"
        return m.add(m.multiply(rnd, m.subtract(maxval, minval, name="sub"), name="mul"), minval,
                     name=scope)


def _scaled_normal(op_type, default_name, shape, mean, stddev, dtype, seed, name):
    dtype = dtypes.as_dtype(dtype)
    with ops.name_scope(name, default_name, [shape, mean, stddev]) as scope:
        shape = _shape_tensor(shape)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        seed1, seed2 = _seeds(seed)
        rnd = ops.apply_op(
            op_type, [shape], {"seed": seed1, "seed2": seed2, "dtype": dtype}
        )._outputs[0]
        m = _math()
        return m.add(m.multiply(rnd, stddev, name="mul"), mean, name=scope)


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution."""
    return _scaled_normal("RandomStandardNormal", "random_normal", shape, mean, stddev, dtype,
                          seed, name)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Normal samples, re-drawn when more than two standard deviations from the mean."""
    return _scaled_normal("TruncatedNormal", "truncated_normal", shape, mean, stddev, dtype,
                          seed, name)


def random_shuffle(value, seed=None, name=None):
    """``value`` with its first dimension randomly permuted."""
    seed1, seed2 = _seeds(seed)
    return ops.apply_op(
        "RandomShuffle", [value], {"seed": seed1, "seed2": seed2}, name=name
    )._outputs[0]


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """``num_samples`` class indices per row of ``logits`` (unnormalized log-probabilities)."""
    with ops.name_scope(name, "multinomial", [logits]):
        logits = ops.convert_to_tensor(logits, name="logits")
        seed1, seed2 = _seeds(seed)
        attrs = {"seed": seed1, "seed2": seed2}
        if output_dtype is not None:
            attrs["output_dtype"] = output_dtype
        return ops.apply_op("Multinomial", [logits, num_samples], attrs)._outputs[0]


def random_gamma(shape, alpha, beta=None, dtype=dtypes.float32, seed=None, name=None):
    """Gamma samples of shape ``shape + broadcast(alpha, beta).shape``."""
    dtype = dtypes.as_dtype(dtype)
    with ops.name_scope(name, "random_gamma", [shape, alpha, beta]):
        shape = ops.convert_to_tensor(shape, name="shape", dtype=dtypes.int32)
        alpha = ops.convert_to_tensor(alpha, name="alpha", dtype=dtype)
        # as TF 1.15: beta defaults to a constant 1 and is always broadcast in and divided
        # out, so the op count (and the seeds of later random ops) match TF's
        beta = ops.convert_to_tensor(1 if beta is None else beta, name="beta", dtype=dtype)
        alpha = alpha + _math_zeros_like(beta)
        seed1, seed2 = _seeds(seed)
        sample = ops.apply_op(
            "RandomGamma", [shape, alpha], {"seed": seed1, "seed2": seed2}
        )._outputs[0]
        return _math().maximum(np.finfo(dtype.as_numpy_dtype).tiny, sample / beta)


def _math_zeros_like(t):
    from tideflow.ops import array_ops

    return array_ops.zeros_like(t)


# registers RandomGammaGrad (the op behind the gradient above)
from tideflow.ops import random_gamma_grad as _random_gamma_grad_ops  # noqa: F401
