"""Stateless random ops (``tf.random.stateless_*``) and ``RandomPoissonV2``.

A stateless op's numbers are a pure function of its ``seed`` input (two integers) and its other
inputs: the same seed gives the same numbers in every run, session and process.

Uniform (float and integer, bounded or full range), normal and truncated normal draw TF's own
numbers: the seed pair is scrambled into a Philox key and counter as TF's ``GenerateKey`` does
(one Philox block of the seed words under a fixed key), then TF's distributions are read from
that stream (``ops/philox.py``). The other stateless ops (multinomial, Poisson, gamma,
binomial, parameterized truncated normal) use NumPy's Philox generator keyed by the seed pair:
deterministic with the right distributions, but not TF's sequences; except multinomial, which
reads TF's doubles from the seed's stream as TF's CPU kernel does (one shard: rows in turn).
"""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, random_seed
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import philox
from tideflow.ops.random_ops import (
    _check_shape_input,
    _shape_tensor,
    categorical_rows,
    shape_from_tensor,
)

_MASK64 = (1 << 64) - 1


def _invalid(op, msg):
    return errors.InvalidArgumentError(None, op, msg)


def _gen(seed, op_name):
    s = np.asarray(seed)
    if s.shape != (2,):
        raise _invalid(None, f"{op_name}: seed must have shape [2], not {list(s.shape)}")
    key = (int(s[0]) & _MASK64) | ((int(s[1]) & _MASK64) << 64)
    # a fixed counter offset keeps these streams apart from the stateful ops' ones
    return np.random.Generator(np.random.Philox(key=key, counter=[0, 0, 0, 0x5eed]))


def _seed_shape_check(op, index=1):
    """TF's check of the seed input: a vector (its WithRank), of two elements (its WithValue)."""
    s = op.inputs[index].get_shape()
    if s.ndims is not None and s.ndims != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {s.ndims}")
    if s.ndims == 1 and s[0].value not in (None, 2):
        raise ValueError(f"Dimension must be 2 but is {s[0].value}")


def _shape_fn(op):
    _seed_shape_check(op)
    return [shape_from_tensor(op.inputs[0])]


class _SeedStream(philox.PhiloxStream):
    """TF's stateless stream: the key and counter ``GenerateKey`` makes from a seed pair; every
    op run starts at that counter."""

    _SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)

    def __init__(self, seed, op_name):  # the base class's __init__ (seed, seed2) is not used
        s = np.asarray(seed)
        if s.shape != (2,):
            raise _invalid(None, f"{op_name}: seed must have shape [2], not {list(s.shape)}")
        s0, s1 = (int(v) & _MASK64 for v in s)
        words = np.array([[s0 & 0xFFFFFFFF, s0 >> 32, s1 & 0xFFFFFFFF, s1 >> 32]], np.uint32)
        mix = philox.philox4x32(words, self._SCRAMBLE_KEY)[0]
        self.key = (int(mix[0]), int(mix[1]))
        self.counter = (int(mix[2]) << 64) | (int(mix[3]) << 96)

    def reserve(self, outputs):
        return self.counter


def _float_kernel(draw, op_name):
    def kernel(shape, seed, *, dtype):
        shape = _check_shape_input(shape)
        return draw(_SeedStream(seed, op_name), shape, dtype.as_numpy_dtype)
    return kernel


_FLOAT_ATTRS = ["dtype: {half, bfloat16, float, double} = DT_FLOAT", "T: {int32, int64} = DT_INT32",
                "Tseed: {int32, int64} = DT_INT64"]

for _name, _draw in (("StatelessRandomUniform", philox.uniform),
                     ("StatelessRandomNormal", philox.normal),
                     ("StatelessTruncatedNormal", philox.truncated_normal)):
    op_registry.declare(
        _name,
        inputs=["shape: T", "seed: Tseed"],
        outputs=["output: dtype"],
        attrs=_FLOAT_ATTRS,
        shape=_shape_fn,
        kernel=_float_kernel(_draw, _name),
        differentiable=False,
    )


def _uniform_int_kernel(shape, seed, minval, maxval, *, dtype):
    shape = _check_shape_input(shape)
    lo, hi = np.asarray(minval), np.asarray(maxval)
    if lo.ndim or hi.ndim:
        raise _invalid(None, f"StatelessRandomUniformInt: minval and maxval must be scalars, "
                             f"got shapes {list(lo.shape)} and {list(hi.shape)}")
    if not lo < hi:
        raise _invalid(None, f"StatelessRandomUniformInt: Need minval < maxval, got {lo} >= {hi}")
    return philox.uniform_int(_SeedStream(seed, "StatelessRandomUniformInt"), shape, int(lo),
                              int(hi), dtype.as_numpy_dtype)


op_registry.declare(
    "StatelessRandomUniformInt",
    inputs=["shape: T", "seed: Tseed", "minval: dtype", "maxval: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: {int32, int64}", "T: {int32, int64}", "Tseed: {int32, int64} = DT_INT64"],
    shape=_shape_fn,
    kernel=_uniform_int_kernel,
    differentiable=False,
)


def _full_int_kernel(shape, seed, *, dtype):
    shape = _check_shape_input(shape)
    np_dtype = np.dtype(dtype.as_numpy_dtype)
    stream = _SeedStream(seed, "StatelessRandomUniformFullInt")
    n = int(np.prod(shape, dtype=np.int64))
    if np_dtype.itemsize == 8:  # two words per output, the low one first (TF's layout)
        words = stream.blocks(stream.counter, (n + 1) // 2).astype(np.uint64).reshape(-1)
        bits = words[0::2] | (words[1::2] << np.uint64(32))
    else:
        bits = stream.blocks(stream.counter, (n + 3) // 4).reshape(-1).astype(np.uint32)
    return bits[:n].view(np_dtype).reshape(shape)


op_registry.declare(
    "StatelessRandomUniformFullInt",
    inputs=["shape: T", "seed: Tseed"],
    outputs=["output: dtype"],
    attrs=["dtype: {int32, int64, uint32, uint64}", "T: {int32, int64}",
           "Tseed: {int32, int64} = DT_INT64"],
    shape=_shape_fn,
    kernel=_full_int_kernel,
    differentiable=False,
)


def _categorical_rows(gen, logits, n, out_dtype):
    logits = np.asarray(logits, np.float64)
    batch = logits.shape[0]
    out = np.empty((batch, n), dtype=out_dtype)
    if n == 0 or batch == 0:
        return out
    categorical_rows(logits, gen.random((batch, n)), out)
    return out


def _multinomial_kernel(logits, num_samples, seed, *, output_dtype):
    logits = np.asarray(logits)
    n = int(num_samples)
    if logits.ndim != 2:
        raise _invalid(None, f"StatelessMultinomial: logits should be a matrix, got shape "
                             f"{list(logits.shape)}")
    if n < 0:
        raise _invalid(None, f"StatelessMultinomial: num_samples should be nonnegative, got {n}")
    if logits.shape[1] == 0 and n > 0:
        raise _invalid(None, "StatelessMultinomial: num_classes should be positive, got 0")
    return _categorical_rows(_TFDoubles(_SeedStream(seed, "StatelessMultinomial")), logits, n,
                             output_dtype.as_numpy_dtype)


class _TFDoubles:
    """``random((batch, n))`` as TF's CPU multinomial draws it from a stream: each sample a
    double made from two consecutive 32-bit words, the rows one after the other."""

    def __init__(self, stream):
        self.stream = stream

    def random(self, shape):
        batch, n = shape
        words = self.stream.blocks(self.stream.counter, (batch * n * 2 + 3) // 4)
        words = words.astype(np.uint32).reshape(-1)
        u = philox._double01(words[0:2 * batch * n:2], words[1:2 * batch * n:2])
        return u.reshape(batch, n)


def _multinomial_shape(op):
    _seed_shape_check(op, 2)
    logits = op.inputs[0].get_shape()
    if logits.ndims not in (None, 2):
        raise ValueError(f"StatelessMultinomial: logits must be a matrix, got {logits}")
    n = ops.constant_value(op.inputs[1])
    rows = None if logits.ndims is None else logits[0].value
    return [TensorShape([rows, None if n is None else int(n)])]


op_registry.declare(
    "StatelessMultinomial",
    inputs=["logits: T", "num_samples: int32", "seed: Tseed"],
    outputs=["output: output_dtype"],
    attrs=["T: realnumbertype", "Tseed: {int32, int64} = DT_INT64",
           "output_dtype: {int32, int64} = DT_INT64"],
    shape=_multinomial_shape,
    kernel=_multinomial_kernel,
    differentiable=False,
)


def _broadcast_param(name, x, shape):
    x = np.asarray(x, np.float64)
    try:
        return np.broadcast_to(x, shape)
    except ValueError:
        raise _invalid(None, f"{name}: shape {list(x.shape)} cannot be broadcast to the output "
                             f"shape {list(shape)}") from None


def _poisson_kernel(shape, seed, lam, *, dtype):
    shape = _check_shape_input(shape)
    lam = _broadcast_param("StatelessRandomPoisson: lam", lam, shape)
    if (lam < 0).any():
        raise _invalid(None, "StatelessRandomPoisson: lam must be >= 0")
    return _gen(seed, "StatelessRandomPoisson").poisson(lam).astype(dtype.as_numpy_dtype)


op_registry.declare(
    "StatelessRandomPoisson",
    inputs=["shape: T", "seed: Tseed", "lam: Rtype"],
    outputs=["output: dtype"],
    attrs=["Rtype: {half, float, double, int32, int64}",
           "dtype: {half, float, double, int32, int64}", "T: {int32, int64}",
           "Tseed: {int32, int64}"],
    shape=_shape_fn,
    kernel=_poisson_kernel,
    differentiable=False,
)


def _gamma_kernel(shape, seed, alpha, *, dtype):
    shape = _check_shape_input(shape)
    alpha = _broadcast_param("StatelessRandomGammaV2: alpha", alpha, shape)
    return _gen(seed, "StatelessRandomGammaV2").standard_gamma(alpha).astype(
        dtype.as_numpy_dtype)


op_registry.declare(
    "StatelessRandomGammaV2",
    inputs=["shape: T", "seed: Tseed", "alpha: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: {half, float, double}", "T: {int32, int64}", "Tseed: {int32, int64}"],
    shape=_shape_fn,
    kernel=_gamma_kernel,
    differentiable=False,
)


def _binomial_kernel(shape, seed, counts, probs, *, dtype):
    shape = _check_shape_input(shape)
    counts = _broadcast_param("StatelessRandomBinomial: counts", counts, shape)
    probs = _broadcast_param("StatelessRandomBinomial: probs", probs, shape)
    if (counts < 0).any() or ((probs < 0) | (probs > 1)).any():
        raise _invalid(None, "StatelessRandomBinomial: need counts >= 0 and 0 <= probs <= 1")
    gen = _gen(seed, "StatelessRandomBinomial")
    return gen.binomial(counts.astype(np.int64), probs).astype(dtype.as_numpy_dtype)


op_registry.declare(
    "StatelessRandomBinomial",
    inputs=["shape: S", "seed: Tseed", "counts: T", "probs: T"],
    outputs=["output: dtype"],
    attrs=["S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64",
           "T: {half, float, double, int32, int64} = DT_DOUBLE",
           "dtype: {half, float, double, int32, int64} = DT_INT64"],
    shape=_shape_fn,
    kernel=_binomial_kernel,
    differentiable=False,
)


def _truncated_standard(gen, a, b):
    """Standard normal samples restricted to [a, b] (arrays of the same shape)."""
    out = np.empty(a.shape)
    todo = np.ones(a.shape, bool)
    # plain rejection where the interval holds enough mass
    for _ in range(50):
        if not todo.any():
            return out
        z = gen.standard_normal(int(todo.sum()))
        ok = (z >= a[todo]) & (z <= b[todo])
        idx = np.flatnonzero(todo)[ok]
        out.reshape(-1)[idx] = z[ok]
        todo.reshape(-1)[idx] = False
    # far tails: exponential proposals (Robert, 1995) on the side away from zero
    for i in np.flatnonzero(todo):
        lo, hi = a.reshape(-1)[i], b.reshape(-1)[i]
        flip = hi <= 0
        lo, hi = (-hi, -lo) if flip else (lo, hi)
        if lo < 0:  # an interval around zero that plain rejection kept missing: uniform proposal
            while True:
                z = gen.uniform(lo, hi)
                if gen.random() <= np.exp(-z * z / 2):
                    break
        else:
            alpha = (lo + np.sqrt(lo * lo + 4)) / 2
            while True:
                z = lo + gen.exponential(1 / alpha)
                if z <= hi and gen.random() <= np.exp(-(z - alpha) ** 2 / 2):
                    break
        out.reshape(-1)[i] = -z if flip else z
    return out


def _ptn_kernel(shape, seed, means, stddevs, minvals, maxvals, *, dtype):
    shape = _check_shape_input(shape)
    mean = _broadcast_param("StatelessParameterizedTruncatedNormal: means", means, shape)
    std = _broadcast_param("StatelessParameterizedTruncatedNormal: stddevs", stddevs, shape)
    lo = _broadcast_param("StatelessParameterizedTruncatedNormal: minvals", minvals, shape)
    hi = _broadcast_param("StatelessParameterizedTruncatedNormal: maxvals", maxvals, shape)
    if (std <= 0).any() or (lo >= hi).any():
        raise _invalid(None, "StatelessParameterizedTruncatedNormal: need stddevs > 0 and "
                             "minvals < maxvals")
    gen = _gen(seed, "StatelessParameterizedTruncatedNormal")
    z = _truncated_standard(gen, (lo - mean) / std, (hi - mean) / std)
    return np.clip(mean + std * z, lo, hi).astype(dtype.as_numpy_dtype)


op_registry.declare(
    "StatelessParameterizedTruncatedNormal",
    inputs=["shape: S", "seed: Tseed", "means: dtype", "stddevs: dtype", "minvals: dtype",
            "maxvals: dtype"],
    outputs=["output: dtype"],
    attrs=["S: {int32, int64}", "Tseed: {int32, int64} = DT_INT64",
           "dtype: {half, float, double}"],
    shape=_shape_fn,
    kernel=_ptn_kernel,
    differentiable=False,
)


# ------------------------------------------------------------------------------------------
# RandomPoissonV2 (stateful, tf.random.poisson)
# ------------------------------------------------------------------------------------------


def _poisson_v2_factory(ctx):
    from tideflow.ops.random_ops import _generator, _philox_stream, tf_poisson

    gen = _generator(ctx)
    stream = _philox_stream(ctx)
    np_dtype = ctx.op._attrs["dtype"].as_numpy_dtype

    def run(shape, rate):
        shape = _check_shape_input(shape)
        rate = np.asarray(rate, np.float64)
        if stream is not None:  # seeded: TF's numbers
            return tf_poisson(stream, shape, rate).astype(np_dtype)
        # TF draws 0 for a negative rate (exp(-rate) > 1 stops its first product)
        return gen.poisson(np.maximum(rate, 0), size=shape + rate.shape).astype(np_dtype)

    return run


op_registry.declare(
    "RandomPoissonV2",
    inputs=["shape: S", "rate: R"],
    outputs=["output: dtype"],
    attrs=["seed: int = 0", "seed2: int = 0", "S: {int32, int64}",
           "R: {half, float, double, int32, int64} = DT_DOUBLE",
           "dtype: {half, float, double, int32, int64} = DT_INT64"],
    shape=lambda op: [shape_from_tensor(op.inputs[0]).concatenate(op.inputs[1].get_shape())],
    kernel_factory=_poisson_v2_factory,  # no gradient defined: TF 1.15 raises LookupError
    stateful=True,
    is_random=True,
)


# ------------------------------------------------------------------------------------------
# wrappers
# ------------------------------------------------------------------------------------------


def _seed_tensor(seed):
    """``seed`` for the op to convert inside its own name scope, as TF's generated wrappers do
    ("<Op>/seed"); its dtype and shape are checked there, in TF's words."""
    if isinstance(seed, ops.Tensor):
        return seed
    arr = np.asarray(seed)
    if arr.dtype.kind == "u" or (arr.dtype.kind == "f" and isinstance(seed, np.ndarray)):
        # TF converts a NumPy seed to the attr's default int64: an unsigned one bit for bit,
        # a float one by casting (a Python list of floats is refused)
        return arr.astype(np.int64)
    if arr.dtype.kind == "i":
        return arr if arr.dtype == np.int32 else arr.astype(np.int64)
    return seed


def stateless_random_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32,
                             name=None, alg="auto_select"):
    """Deterministic uniform numbers in ``[minval, maxval)`` given the seed pair ``seed``.

    Integer dtypes need ``maxval`` (or neither bound: the full range of the dtype)."""
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64,
                     dtypes.int32, dtypes.int64, dtypes.uint32, dtypes.uint64):
        raise ValueError(f"Invalid dtype {dtype!r}")
    with ops.name_scope(name, "stateless_random_uniform", [shape, seed, minval, maxval]) as n:
        shape_t = _shape_tensor(shape)
        seed = _seed_tensor(seed)  # converted by the op, after min and max (TF's order)
        if dtype.is_integer:
            if minval is None and maxval is None:
                return ops.apply_op("StatelessRandomUniformFullInt", [shape_t, seed],
                                    {"dtype": dtype}, name=n).outputs[0]
            if maxval is None:
                raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
            if dtype not in (dtypes.int32, dtypes.int64):
                raise ValueError(f"Invalid dtype {dtype.name} for a bounded "
                                 f"stateless_random_uniform")
            lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
            hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
            return ops.apply_op("StatelessRandomUniformInt", [shape_t, seed, lo, hi],
                                {"dtype": dtype}, name=n).outputs[0]
        if minval is None:
            minval = 0
        if maxval is None:
            maxval = 1
        lo = ops.convert_to_tensor(minval, dtype=dtype, name="min")
        hi = ops.convert_to_tensor(maxval, dtype=dtype, name="max")
        rnd = ops.apply_op("StatelessRandomUniform", [shape_t, seed], {"dtype": dtype}
                           ).outputs[0]
        return _add(rnd * (hi - lo), lo, n)


def _add(a, b, name):
    from tideflow.ops import math_ops

    return math_ops.add(a, b, name=name)


def _scaled(op_type, default, shape, seed, mean, stddev, dtype, name):
    dtype = dtypes.as_dtype(dtype)
    with ops.name_scope(name, default, [shape, seed, mean, stddev]) as n:
        shape_t = _shape_tensor(shape)
        seed = _seed_tensor(seed)
        mean = ops.convert_to_tensor(mean, dtype=dtype, name="mean")
        stddev = ops.convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = ops.apply_op(op_type, [shape_t, seed], {"dtype": dtype}).outputs[0]
        return _add(rnd * stddev, mean, n)


def stateless_random_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                            alg="auto_select"):
    """Deterministic normal numbers given the seed pair ``seed`` (``alg`` is accepted; there
    is one generator)."""
    return _scaled("StatelessRandomNormal", "stateless_random_normal", shape, seed, mean, stddev,
                   dtype, name)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select"):
    """Deterministic normal numbers within two standard deviations of ``mean``."""
    return _scaled("StatelessTruncatedNormal", "stateless_truncated_normal", shape, seed, mean,
                   stddev, dtype, name)


def stateless_multinomial(logits, num_samples, seed, output_dtype=dtypes.int64, name=None):
    """Deterministic class indices drawn from each row of ``logits``."""
    with ops.name_scope(name, "stateless_multinomial", [logits, seed]):
        logits = ops.convert_to_tensor(logits, name="logits")
        if not isinstance(num_samples, ops.Tensor):
            num_samples = np.asarray(num_samples, np.int32)
        return ops.apply_op("StatelessMultinomial", [logits, num_samples, _seed_tensor(seed)],
                            {"output_dtype": dtypes.as_dtype(output_dtype)}).outputs[0]


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """``stateless_multinomial`` under TF's newer name (``dtype`` for ``output_dtype``)."""
    return stateless_multinomial(logits, num_samples, seed, dtype or dtypes.int64,
                                 name or "stateless_categorical")


def stateless_random_poisson(shape, seed, lam, dtype=dtypes.int32, name=None):
    """Deterministic Poisson counts with rates ``lam`` (broadcast to ``shape``)."""
    with ops.name_scope(name, "stateless_random_poisson", [shape, seed, lam]) as n:
        lam = ops.convert_to_tensor(lam, name="lam")
        return ops.apply_op("StatelessRandomPoisson", [_shape_tensor(shape), _seed_tensor(seed),
                                                       lam],
                            {"dtype": dtypes.as_dtype(dtype)}, name=n).outputs[0]


def stateless_random_gamma(shape, seed, alpha, beta=None, dtype=dtypes.float32, name=None):
    """Deterministic Gamma(``alpha``, rate ``beta``) samples (parameters broadcast to
    ``shape``)."""
    dtype = dtypes.as_dtype(dtype)
    with ops.name_scope(name, "stateless_random_gamma", [shape, seed, alpha, beta]) as n:
        alpha = ops.convert_to_tensor(alpha, dtype=dtype, name="alpha")
        out = ops.apply_op("StatelessRandomGammaV2", [_shape_tensor(shape), _seed_tensor(seed),
                                                      alpha], {}).outputs[0]
        if beta is None:
            from tideflow.ops import array_ops

            return array_ops.identity(out, name=n)
        from tideflow.ops import math_ops

        beta = ops.convert_to_tensor(beta, dtype=dtype, name="beta")
        return math_ops.divide(out, beta, name=n)


def stateless_random_binomial(shape, seed, counts, probs, output_dtype=dtypes.int32,
                              name=None):
    """Deterministic Binomial(``counts``, ``probs``) samples (broadcast to ``shape``)."""
    with ops.name_scope(name, "stateless_random_binomial", [shape, seed, counts, probs]) as n:
        probs = ops.convert_to_tensor(probs, name="probs")
        counts = ops.convert_to_tensor(counts, dtype=probs.dtype, name="counts")
        return ops.apply_op("StatelessRandomBinomial", [_shape_tensor(shape), _seed_tensor(seed),
                                                        counts, probs],
                            {"dtype": dtypes.as_dtype(output_dtype)}, name=n).outputs[0]


def stateless_parameterized_truncated_normal(shape, seed, means=0.0, stddevs=1.0, minvals=-2.0,
                                             maxvals=2.0, name=None):
    """Deterministic normal samples with parameters ``means``/``stddevs`` restricted to
    ``[minvals, maxvals]`` (all broadcast to ``shape``)."""
    with ops.name_scope(name, "stateless_parameterized_truncated_normal",
                        [shape, means, stddevs, minvals, maxvals]) as n:
        means = ops.convert_to_tensor(means, name="means")
        dt = means.dtype.base_dtype
        params = [ops.convert_to_tensor(v, dtype=dt, name=nm) for v, nm in
                  ((stddevs, "stddevs"), (minvals, "minvals"), (maxvals, "maxvals"))]
        return ops.apply_op("StatelessParameterizedTruncatedNormal",
                            [_shape_tensor(shape), _seed_tensor(seed), means] + params, {},
                            name=n).outputs[0]


def random_poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """Poisson samples: shape ``shape + lam.shape`` (TF 1.x ``tf.random_poisson``)."""
    from tideflow.ops.random_ops import _seeds

    with ops.name_scope(name, "random_poisson", [lam, shape]):
        # as TF 1.15: the shape first, then the op, which converts a Python ``lam`` itself
        # ("RandomPoissonV2/rate", float64 by the op's default)
        shape = _shape_tensor(shape)
        s1, s2 = _seeds(seed)
        return ops.apply_op("RandomPoissonV2", [shape, lam],
                            {"seed": s1, "seed2": s2, "dtype": dtypes.as_dtype(dtype)}).outputs[0]


def poisson(lam, shape, dtype=dtypes.float32, seed=None, name=None):
    """``tf.random.poisson``: the same as :func:`random_poisson`."""
    return random_poisson(lam, shape, dtype, seed, name)


def split(seed, num=2, alg="auto_select"):
    """``num`` new seed pairs (shape ``[num, 2]``, int64) derived from ``seed``."""
    del alg
    return stateless_random_uniform([num, 2], seed, dtype=dtypes.int64, minval=None,
                                    maxval=None)


def fold_in(seed, data, alg="auto_select"):
    """A new seed pair derived from ``seed`` and the integer ``data``."""
    from tideflow.ops import array_ops

    del alg
    data = ops.convert_to_tensor(data, dtype=dtypes.int64)
    key = stateless_random_uniform([], seed, dtype=dtypes.int64, minval=None, maxval=None)
    return array_ops.stack([key, data])


def get_seed(op_seed):
    """The ``(graph seed, op seed)`` pair an op with ``op_seed`` uses (TF's
    ``tf.random.get_seed``)."""
    return random_seed.get_seed(op_seed)


__all__ = ["fold_in", "get_seed", "poisson", "random_poisson", "split", "stateless_categorical",
           "stateless_multinomial", "stateless_parameterized_truncated_normal",
           "stateless_random_binomial", "stateless_random_gamma", "stateless_random_normal",
           "stateless_random_poisson", "stateless_random_uniform", "stateless_truncated_normal"]
