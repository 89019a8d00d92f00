"""Candidate sampling for sampled losses: uniform and log-uniform (Zipfian) samplers with their
expected counts, and ComputeAccidentalHits."""

import collections

import numpy as np

from tideflow.framework import errors, op_registry, ops, random_seed
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import philox
from tideflow.ops.array_ops import _check_rank
from tideflow.ops.random_ops import _generator, _philox_stream


def _uniform_draw(gen, n, range_max):
    return gen.integers(0, range_max, size=n, dtype=np.int64)


def _uniform_prob(values, range_max):
    return np.full(np.shape(values), 1.0 / range_max)


def _log_uniform_draw(gen, n, range_max):
    # P(k) = log((k + 2) / (k + 1)) / log(range_max + 1): invert the CDF of a uniform draw
    v = np.exp(gen.random(n) * np.log(range_max + 1.0)).astype(np.int64) - 1
    return np.minimum(v, range_max - 1)


def _log_uniform_prob(values, range_max):
    v = np.asarray(values, np.float64)
    return (np.log(v + 2.0) - np.log(v + 1.0)) / np.log(range_max + 1.0)


def _sample_unique(gen, draw, num_sampled, range_max):
    """Draws until ``num_sampled`` distinct values appear; returns them (in order of first
    appearance) and the number of draws it took."""
    stream = np.zeros([0], np.int64)
    while True:
        need = max(num_sampled, 16)
        stream = np.concatenate([stream, draw(gen, need, range_max)])
        values, first = np.unique(stream, return_index=True)
        if values.size >= num_sampled:
            firsts = np.sort(first)[:num_sampled]
            return stream[firsts], int(firsts[-1]) + 1


class _TFWords:
    """TF's SimplePhilox over one run's reservation: uint32 words taken in order from
    consecutive Philox blocks."""

    def __init__(self, stream, num_sampled):
        blocks = (2048 * num_sampled + 3) // 4  # TF reserves 2048 words per sampled class
        self._stream, self._base = stream, stream.counter
        stream.counter = (stream.counter + blocks) & ((1 << 128) - 1)
        self._words = np.zeros([0], np.uint32)
        self._pos = 0

    def rewind(self, n):
        """Gives back the last ``n`` words taken."""
        self._pos -= n

    def take(self, n):
        while self._pos + n > self._words.size:
            more = self._stream.blocks(self._base, 64, start=self._words.size // 4)
            self._words = np.concatenate([self._words, more.astype(np.uint32).reshape(-1)])
        out = self._words[self._pos:self._pos + n]
        self._pos += n
        return out


def _tf_uniform_draw(words, n, range_max):
    # SimplePhilox::Uniform64: a 64-bit word (first word low) mod n
    w = words.take(2 * n).astype(np.uint64)
    return (((w[1::2] << np.uint64(32)) | w[0::2]) % np.uint64(range_max)).astype(np.int64)


def _tf_log_uniform_draw(words, n, range_max):
    w = words.take(2 * n)
    u = philox._double01(w[0::2], w[1::2])
    v = np.exp(u * np.log(range_max + 1.0)).astype(np.int64) - 1
    return v % range_max


_TF_DRAWS = {_uniform_draw: _tf_uniform_draw, _log_uniform_draw: _tf_log_uniform_draw}


def _expected_count(p, num_sampled, num_tries):
    # in float32 from a float32 probability, as TF's sampler computes it
    p = np.asarray(p, np.float32)
    if num_tries == num_sampled:
        return p * np.float32(num_sampled)
    # the probability of being drawn at least once in num_tries draws: 1 - (1 - p)^tries,
    # through glibc's float log1pf and expm1f, as TF's kernel
    from tideflow.ops import glibc_float32

    return -glibc_float32.expm1f(np.float32(num_tries) * glibc_float32.log1pf(-p))


def check_true_classes(true_classes, num_true):
    """A sampler kernel's check of its true classes, in TF 1.15's words (which swap the
    expected and the actual column counts)."""
    if true_classes.ndim != 2:
        raise errors.InvalidArgumentError(None, None, "true_classes must be a matrix")
    if true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, None, "true_classes must have num_true columns, expected: "
            f"{true_classes.shape[1]} was: {num_true}")


def _sampler_kernel(draw, prob):
    def factory(ctx):
        gen = _generator(ctx)
        stream = _philox_stream(ctx) if draw in _TF_DRAWS else None
        attrs = ctx.op._attrs
        num_true, num_sampled = attrs["num_true"], attrs["num_sampled"]
        unique, range_max = attrs["unique"], attrs["range_max"]

        def run(true_classes):
            check_true_classes(true_classes, num_true)
            if unique and num_sampled > range_max:
                raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
            src, fn = gen, draw
            if stream is not None:  # seeded: TF's draws (SimplePhilox over its reservation)
                src, fn = _TFWords(stream, num_sampled), _TF_DRAWS[draw]
            if unique:
                sampled, tries = _sample_unique(src, fn, num_sampled, range_max)
            else:
                sampled, tries = fn(src, num_sampled, range_max), num_sampled
            true_ec = _expected_count(prob(true_classes, range_max), num_sampled, tries)
            sampled_ec = _expected_count(prob(sampled, range_max), num_sampled, tries)
            return sampled, true_ec.astype(np.float32), sampled_ec.astype(np.float32)

        return run

    return factory


def _sampler_shape(op):
    num_true, num_sampled = op._attrs["num_true"], op._attrs["num_sampled"]
    tc = op._inputs[0]._shape
    _check_rank(tc, 2)  # (TF's words, not with_rank's)
    tc = tc.with_rank(2)
    # as TF: the true classes' column count is not checked against num_true until run time
    return [TensorShape([num_sampled]), TensorShape([tc[0], num_true]),
            TensorShape([num_sampled])]


_SAMPLER_ATTRS = ["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool",
                  "range_max: int >= 1", "seed: int = 0", "seed2: int = 0"]
for _name, _draw, _prob in (("UniformCandidateSampler", _uniform_draw, _uniform_prob),
                            ("LogUniformCandidateSampler", _log_uniform_draw, _log_uniform_prob)):
    op_registry.declare(
        _name,
        inputs=["true_classes: int64"],
        outputs=["sampled_candidates: int64", "true_expected_count: float",
                 "sampled_expected_count: float"],
        attrs=_SAMPLER_ATTRS,
        shape=_sampler_shape,
        kernel_factory=_sampler_kernel(_draw, _prob),
        differentiable=False,
        stateful=True,
        is_random=True,
    )


def _accidental_hits(true_classes, sampled_candidates, *, num_true):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, None, "true_candidates must be a batch_size * num_true matrix")
    if sampled_candidates.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "sampled_candidates must be a vector, which is typically an output "
            "from CandidateSampler")
    # as TF: one hit per true class found among the sampled ones, at the last position that
    # candidate was sampled at (a candidate sampled twice is one hit)
    n = sampled_candidates.shape[0]
    last = n - 1 - np.unique(sampled_candidates[::-1], return_index=True)[1]
    values = sampled_candidates[last]
    pos = np.searchsorted(values, true_classes)
    found = values[np.minimum(pos, values.size - 1)] == true_classes if n else \
        np.zeros(true_classes.shape, bool)
    rows, cols = np.nonzero(found)
    ids = last[pos[rows, cols]] if n else np.zeros([0], np.int64)
    weights = np.full(rows.shape, -np.finfo(np.float32).max, np.float32)
    return rows.astype(np.int32), ids.astype(np.int64), weights


def _accidental_hits_shape(op):
    true_classes = op._inputs[0]._shape
    _check_rank(true_classes, 2)
    _check_rank(op._inputs[1]._shape, 1)
    true_classes = true_classes.with_rank(2)
    cols = true_classes.dims[1].value
    if cols is not None and cols != op._attrs["num_true"]:  # as TF's shape function
        raise ValueError(f"Dimension must be {op._attrs['num_true']} but is {cols}")
    v = TensorShape([None])
    return [v, v, v]


op_registry.declare(
    "ComputeAccidentalHits",
    inputs=["true_classes: int64", "sampled_candidates: int64"],
    outputs=["indices: int32", "ids: int64", "weights: float"],
    attrs=["num_true: int", "seed: int = 0", "seed2: int = 0"],
    shape=_accidental_hits_shape,
    kernel=_accidental_hits,
    differentiable=False,
)


def _seeds(seed):
    s1, s2 = random_seed.get_seed(seed)
    return (0, 0) if s1 is None else (s1, s2)


def _sample(op_type, true_classes, num_true, num_sampled, unique, range_max, seed, name):
    s1, s2 = _seeds(seed)
    attrs = {"num_true": num_true, "num_sampled": num_sampled, "unique": unique,
             "range_max": range_max, "seed": s1, "seed2": s2}
    return sampler_output(op_type, ops.apply_op(op_type, [true_classes], attrs, name=name))


_SAMPLER_TUPLES = {}


def sampler_output(op_type, op):
    """A sampler op's three outputs as TF's generated wrapper returns them: a namedtuple
    named after the op (sampled_candidates, true_expected_count, sampled_expected_count)."""
    cls = _SAMPLER_TUPLES.get(op_type)
    if cls is None:
        cls = _SAMPLER_TUPLES[op_type] = collections.namedtuple(
            op_type, ["sampled_candidates", "true_expected_count", "sampled_expected_count"])
    return cls(*op._outputs)


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                              name=None):
    """Samples ``num_sampled`` classes uniformly from [0, range_max); returns
    (sampled_candidates, true_expected_count, sampled_expected_count)."""
    return _sample("UniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                   range_max, seed, name)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples classes from the log-uniform (Zipfian) distribution over [0, range_max):
    P(k) = log((k + 2) / (k + 1)) / log(range_max + 1)."""
    return _sample("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                   range_max, seed, name)


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """The (row, sampled position) pairs where a sampled candidate is one of the row's true
    classes; returns (indices, ids, weights) with weights -FLT_MAX."""
    s1, s2 = _seeds(seed)
    return _AccidentalHits(*ops.apply_op(
        "ComputeAccidentalHits", [true_classes, sampled_candidates],
        {"num_true": num_true, "seed": s1, "seed2": s2}, name=name)._outputs)


# as TF's generated wrapper: a namedtuple (which Session.run hands back in kind)
_AccidentalHits = collections.namedtuple("ComputeAccidentalHits", ["indices", "ids", "weights"])
