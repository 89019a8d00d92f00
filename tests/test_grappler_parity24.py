"""TF 1.15 grappler's arithmetic rewrites that change float32 bits (runtime/grappler.py): the
canonical (by name) input order of AddN and constant folding's partial split of its constants,
AddOpsRewrite, HoistCommonFactorOutOfAggregation and MinimizeBroadcasts, where TF applies them
and where it does not (a fetched sum, shapes unknown because a tensor is fed); and
AccumulateNV2's summation order.

Each expected value is the CRC-32 of the float32 result's bytes, measured in TF 1.15 with the
same program (``import tensorflow.compat.v1 as tf``). Each case's result as written (without
the rewrite, or with it where TF leaves the graph alone) has another CRC."""

import zlib

import numpy as np
import pytest

import tideflow as tf


def _data(seed, n=64):
    return np.random.RandomState(seed).uniform(-2, 2, n).astype(np.float32)


def _run(build):
    g = tf.Graph()
    with g.as_default():
        p = [tf.placeholder(tf.float32, [64], name=f"p{i}") for i in range(3)]
        v = [tf.Variable(_data(10 + i), name=f"v{i}") for i in range(3)]
        y = build(p, v)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            r = s.run(y, {p[i]: _data(i) for i in range(3)})
    return zlib.crc32(np.asarray(r, np.float32).tobytes())


def _c(value, name):
    return tf.constant(np.full(64, value, np.float32), name=name)


def _pending(p):
    q = p[1] / p[0]
    return tf.add_n([p[0], q, p[2]]) * (q - 1.0)


# name -> (build, CRC-32 measured in TF 1.15)
CASES = {
    # AddN sums its inputs sorted by name: exp(p1) is "Exp", then p0, p2, v1/read
    "add_n_sorted": (lambda p, v: tf.add_n([p[2], v[1], p[0], tf.exp(p[1])]), 3803789498),
    # the constants z, a, m summed first, in that order, into ConstantFolding/..._partial_split_3
    "add_n_partial_split": (lambda p, v: tf.add_n(
        [p[1], _c(0.1, "z"), p[0], _c(3.3, "a"), _c(-1.7, "m")]), 2678253880),
    # AddOpsRewrite: one AddN of the four leaves (shapes known: variables)
    "add_ops_rewrite": (lambda p, v: tf.identity((v[2] + v[1]) + (v[0] + tf.square(v[2]))),
                        2841833919),
    # leaves of two shapes: AddN(Square, v1/read) + the scalar
    "add_ops_rewrite_shapes": (lambda p, v: tf.identity(tf.square(v[0]) + (v[1] + 2.68719220)),
                               3661423549),
    # p0 * (p1 + p2)
    "hoist_mul": (lambda p, v: tf.identity(p[0] * p[1] + p[2] * p[0]), 2603002345),
    # (p1 + p2) / p0
    "hoist_div": (lambda p, v: tf.identity(p[1] / p[0] + p[2] / p[0]), 2791259933),
    # v0 * AddN(v0, v1, v2): an AddN's other factors must have known, equal shapes
    "hoist_add_n": (lambda p, v: tf.identity(tf.add_n([v[2] * v[0], v[1] * v[0], v[0] * v[0]])),
                    2510308025),
    # MinimizeBroadcasts on a fetched root: (Square + 2.687) + v1
    "minimize_broadcasts": (lambda p, v: tf.square(v[0]) + (v[1] + 2.68719220), 1867579075),
    # (v0 * (1 / c)) * (c - v0) as ((1 / c) * (c - v0)) * v0
    "minimize_broadcasts_mul": (lambda p, v: (v[0] / 2.3712549) * (2.3712549 - v[0]),
                                3917722492),
    # the push-down's truediv + (v0 + 9.), which no op of the graph reads both of
    "push_down_new_op": (lambda p, v: ((v[0] / 3.0) + (v[0] + 2.0)) + 7.0, 1367236317),
    # the push-down's mul * (AddN * (1 / 1.5)), then MinimizeBroadcasts: AddN * ((1 / 1.5) * mul)
    "push_down_then_minimize": (
        lambda p, v: ((v[0] * 1.5) * tf.add_n([v[0], p[0], v[1]])) / 1.5, 3050325471),
    "push_down_then_minimize_2": (
        lambda p, v: tf.identity((v[1] * (v[0] * 2.5)) * 0.3), 1552775441),
    # AddN's kernel sums into the buffer of its first input (by name) read by nothing else
    # still to run, and sums that one first: sub, p2, p0 (the fed ones are not its own)
    "add_n_forwards": (lambda p, v: tf.add_n([p[0] - p[1], p[0], p[2]]), 3887091247),
    # ... not when another op reading it may not have run (q - 1. becomes ready with the AddN)
    "add_n_forward_pending": (lambda p, v: _pending(p), 3913205066),
    # not rewritten: p0's shape is unknown to grappler (fed)
    "hoist_add_n_fed_kept": (lambda p, v: tf.identity(
        tf.add_n([v[2] * v[0], v[1] * v[0], p[0] * v[0]])), 4204378645),
    # not rewritten: the sum is fetched itself
    "fetched_sum_kept": (lambda p, v: p[0] * p[1] + p[2] * p[0], 1310149058),
    # not rewritten: the tree's shape is unknown (fed leaves)
    "fed_tree_kept": (lambda p, v: tf.identity((p[0] + p[1]) + (p[2] + v[0])), 434553570),
    # AccumulateNV2: zeros, then += each input from the last to the first
    "accumulate_n": (lambda p, v: tf.math.accumulate_n([p[0], p[1], p[2]]), 3961794853),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewrite_bits_as_tf(name):
    build, crc = CASES[name]
    assert _run(build) == crc


def test_as_written_differs_where_tf_rewrites():
    # (that each case above can tell: its value computed as written, or rewritten where TF
    # does not, is another)
    p = [_data(i) for i in range(3)]
    v = [_data(10 + i) for i in range(3)]

    def crc(x):
        return zlib.crc32(np.asarray(x, np.float32).tobytes())

    assert crc(p[0] * p[1] + p[2] * p[0]) != CASES["hoist_mul"][1]
    assert crc(p[0] * (p[1] + p[2])) != CASES["fetched_sum_kept"][1]
    assert crc(((p[0] + p[1]) + p[2]) + v[0]) != CASES["fed_tree_kept"][1]
    assert crc((p[0] + p[1]) + p[2]) != CASES["accumulate_n"][1]
    assert crc((p[0] + p[2]) + (p[0] - p[1])) != CASES["add_n_forwards"][1]
    q = p[1] / p[0]
    assert crc(((q + p[0]) + p[2]) * (q - 1)) != CASES["add_n_forward_pending"][1]


def test_add_n_19_inputs_sorted_then_summed_in_blocks():
    # the inputs given last to first, sorted by name ("q0", "q1", "q10", ..., "q2", ...);
    # TF's CPU kernel sums 19 % 8 = 3 of them, then adds each block of 8 summed on its own
    rng = np.random.RandomState(5)
    xs = [(rng.uniform(-1, 1, 64) * 10.0 ** rng.randint(-3, 4)).astype(np.float32)
          for _ in range(19)]
    g = tf.Graph()
    with g.as_default():
        q = [tf.placeholder(tf.float32, [64], name=f"q{i}") for i in range(19)]
        y = tf.add_n(q[::-1])
        with tf.Session() as s:
            r = s.run(y, dict(zip(q, xs)))
    assert zlib.crc32(r.tobytes()) == 3082058919  # (TF 1.15)
    left = xs[18]
    for x in xs[17::-1]:
        left = left + x
    assert zlib.crc32(left.tobytes()) != 3082058919


def test_rewritten_value_read_by_another_op_and_traced():
    # a hoisted sum read by a further op, run with a trace: the new op is named as TF's
    g = tf.Graph()
    with g.as_default():
        p = [tf.placeholder(tf.float32, [64], name=f"p{i}") for i in range(3)]
        y = tf.square(p[0] * p[1] + p[2] * p[0])
        with tf.Session() as s:
            feeds = {p[i]: _data(i) for i in range(3)}
            md = tf.RunMetadata()
            r = s.run(y, feeds, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                      run_metadata=md)
            assert np.array_equal(r, s.run(y, feeds))
    x = [_data(i) for i in range(3)]
    assert np.array_equal(r, np.square(x[0] * (x[1] + x[2])))


# the gradient of a tensor read by several ops is an AddN of one term per reader, summed in
# the order of their names (CRC-32 measured in TF 1.15; the terms summed as tf.gradients
# lists them give other bits)
GRADIENT_CASES = {
    "three_readers": (lambda x, w: tf.reduce_sum(
        x * w + tf.exp(x) * 0.3 + tf.square(x) * w + tf.sin(x)), 168043947),
    "five_readers": (lambda x, w: tf.reduce_sum(
        tf.tanh(x) * w + x * 1.7 + tf.sigmoid(x) + x * x * w + tf.exp(x * w)), 1800547461),
    "mlp_like": (lambda x, w: tf.reduce_sum(
        tf.nn.relu(x * w + 0.1) * tf.sigmoid(x * 2.0 - w) + tf.tanh(x) * tf.exp(-x)),
        1483388407),
}


@pytest.mark.parametrize("name", sorted(GRADIENT_CASES))
def test_gradient_aggregation_bits_as_tf(name):
    build, crc = GRADIENT_CASES[name]
    g = tf.Graph()
    with g.as_default():
        x = tf.Variable(_data(1), name="x")
        w = tf.placeholder(tf.float32, [64], name="w")
        gx, = tf.gradients(build(x, w), [x])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            r = s.run(gx, {w: _data(2)})
    assert zlib.crc32(r.tobytes()) == crc

