"""TF 1.15's constant folding and CSE where they change float32 bits (runtime/graph_passes.py,
runtime/grappler*.py): a Const gated on pure control inputs folds into what reads it (the
weight of ``tf.losses``, cast under its broadcast check's NoOp), Select folds; commutative
twins merge, an AddN sums first an input whose buffer no other input shares, and ``x + x``
takes SimplifyAggregation's name; a Reshape of a Reshape reshapes the inner one's input
(RemoveRedundantReshape); a no-op Reshape or Sum, transposes that cancel and a double
negation are their input, which constants are pushed across; so is x + 0 where grappler knows
x's shape.

Each expected value is the CRC-32 of the float32 result's bytes, measured in TF 1.15 with the
same program (``import tensorflow as tf``, grappler at its defaults)."""

import zlib

import numpy as np
import pytest

import tideflow as tf


def _data(seed, shape):
    return np.random.RandomState(seed).uniform(-2, 2, shape).astype(np.float32)


def _crc(v):
    return zlib.crc32(np.ascontiguousarray(np.asarray(v, np.float32)).tobytes())


def _run(build):
    with tf.Graph().as_default():
        fetches, feed = build()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return [_crc(v) for v in s.run(fetches, feed)]


def _huber(reduction, shape, **kw):
    def build():
        e = _data(3, shape) if shape != [3] else np.array([0.38891202211380005, -0.2, 1.7],
                                                          np.float32)
        x = tf.placeholder(tf.float32, shape)
        loss = tf.losses.huber_loss(tf.zeros(shape), x, reduction=reduction, **kw)
        return [loss, tf.gradients(tf.reduce_sum(loss), x)[0]], {x: e}
    return build


def _mse():
    x = tf.Variable(_data(1, [8, 5]))
    y = tf.constant(_data(2, [8, 5]))
    loss = tf.losses.mean_squared_error(y, x * 1.3)
    return [loss, tf.gradients(loss, [x])[0]], None


def _gated_div():
    v = tf.Variable(_data(1, [64]), name="v")
    with tf.control_dependencies([tf.no_op()]):
        b = tf.constant(2.3, name="b") * 1.1
    return [v / b], None


def _huber_fed_rank():
    # a fed shape: x * x's gradient terms, merged as commutative twins, are each summed over
    # the no axes BroadcastGradientArgs gives, so both are one buffer and AddN sums into the
    # third one's (Neg's) instead
    x = tf.placeholder(tf.float32, None)
    loss = tf.losses.huber_loss(tf.zeros([16, 9]), x, reduction=tf.losses.Reduction.NONE)
    return [loss, tf.gradients(tf.reduce_sum(loss), x)[0]], {x: _data(3, [16, 9])}


def _huber_dense():
    x = tf.placeholder(tf.float32, [None, 9])
    w = tf.Variable(_data(11, [9, 4]))
    p = tf.matmul(x, w)
    loss = tf.losses.huber_loss(tf.ones_like(p), p)
    return [tf.gradients(loss, w)[0]], {x: _data(5, [16, 9])}


def _aggregation(kind):
    # SimplifyAggregation: m + m runs as 2 * m named ArithmeticOptimizer/SimplifyAggregation_
    # Mul_zz, which sorts first in the AddN reading it (fetched or not); so does p0 * p1 +
    # p1 * p0 once CSE merges the commutative twins
    def build():
        p = [tf.placeholder(tf.float32, [16], name=f"p{i}") for i in range(3)]
        feed = {p[i]: _data(i, [16]) * 1e3 ** i for i in range(3)}
        m = p[0] * 3.0
        if kind == "add_n":
            a = tf.add_n([m, m], name="zz")
        elif kind == "twins":
            a = tf.add(p[0] * p[1], p[1] * p[0], name="zz")
        else:
            a = tf.add(m, m, name="zz")
        s = tf.add_n([p[1], a, p[2]])
        return ([s, a] if kind == "fetched" else [s]), feed
    return build


def _reshapes(kind):
    # RemoveRedundantReshape: a Reshape of a Reshape reshapes x itself, so the inner shape s
    # (6 values into 4) never fails unless the inner Reshape runs for another reader
    def build():
        x = tf.placeholder(tf.float32, [6], name="x")
        s = tf.placeholder(tf.int32, [1], name="s")
        feed = {x: _data(0, [6]), s: [4]}
        if kind == "inner_ctrl":
            with tf.control_dependencies([tf.no_op()]):
                a = tf.reshape(x, s)
        elif kind == "identity":
            a = tf.identity(tf.reshape(x, s))
        elif kind == "chain":
            a = tf.reshape(tf.reshape(x, [6]), s)
        else:
            a = tf.reshape(x, s)
        y = tf.reshape(a, [2, 3])
        if kind == "two_readers":
            return [y, tf.reshape(a, [3, 2])], feed
        if kind == "inner_fetched":
            return [y, a], feed
        if kind == "inner_summed":
            return [y + tf.reduce_sum(a)], feed
        return [y * 2.0 if kind == "chain" else y], feed
    return build


def _reshape_variable_shape():
    v = tf.Variable(_data(0, [6]))
    s = tf.Variable([4])
    y = tf.reshape(tf.reshape(v * 2.0, s), [2, 3])
    return [y, tf.gradients(tf.reduce_sum(y * y), v)[0]], None


def _loss_reshaped_twice():
    # the loss is read through the new Reshape alone: it is still computed
    logits = tf.placeholder(tf.float32, [None, 4])
    labels = tf.placeholder(tf.int32, [None])
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)
    y = tf.reshape(tf.reshape(loss, [-1, 1]), [-1])
    return [y * 2.0], {logits: _data(1, [5, 4]), labels: [0, 3, 1, 2, 2]}


def _no_op(kind):
    # a Reshape to the shape grappler knows x has, and a Sum over no axes, are Identities
    # that the push-down reaches across: (v * 3.1) * 5.3 is v * 16.43 there; not for a fed
    # x's Reshape (its shape unknown to grappler) nor a fetched one
    def build():
        if kind.endswith("fed"):
            x = tf.placeholder(tf.float32, None if kind == "sum_fed" else [2, 3])
            feed = {x: _data(1, [2, 3])}
        else:
            x, feed = tf.Variable(_data(1, [2, 3])), None
        y = x * 3.1
        if kind.startswith("sum"):
            r = tf.reduce_sum(y, axis=[])
        else:
            r = tf.reshape(y, [-1, 3] if kind == "reshape_m1" else [2, 3])
        out = r * 5.3
        if kind.endswith("fed"):
            out += tf.Variable(1.0)
        return ([out, r] if kind == "reshape_fetched" else [out]), feed
    return build


def _scaled_prediction():
    # the RealDiv's gradient Sum (no axes) and Reshape (to its shape) between 2 / 7 and * 3
    w = tf.Variable(_data(1, [4, 3]), name="w")
    x = tf.constant(_data(2, [5, 4]))
    y = tf.constant(_data(3, [5, 3]))
    loss = tf.reduce_sum(tf.square(tf.matmul(x, w) * 3.0 / 7.0 - y))
    return [loss, tf.gradients(loss, w)[0]], None


def _cancelling(kind):
    # transposes whose permutations cancel (RemoveIdentityTranspose) and double negations
    # (RemoveInvolution) are their input to their readers, so (v * 3.1) * 5.3 is v * 16.43:
    # not when the outer one is fetched, nor for a fed x's transposes (rank unknown)
    def build():
        shape = [2, 3, 4] if kind == "perm3" else [2, 3]
        if kind.endswith("fed"):
            x = tf.placeholder(tf.float32, None)
            feed = {x: _data(1, shape)}
        else:
            x, feed = tf.Variable(_data(1, shape)), None
        y = x * 3.1
        if kind == "perm3":
            t = tf.transpose(tf.transpose(y, [1, 2, 0]), [2, 0, 1])
        elif kind == "identity_perm":
            t = tf.transpose(y, [0, 1])
        elif kind == "neg4":
            neg = tf.negative
            return [neg(neg(neg(neg(x + 2.1)))) + 3.3], feed
        elif kind.startswith("neg"):
            t = tf.negative(tf.negative(y))
        else:
            t = tf.transpose(tf.transpose(y))
        out = t * 5.3
        if kind.endswith("fed"):
            out += tf.Variable(1.0)
        if kind.endswith("fetched"):
            return [out, t], feed
        if kind.endswith("grad"):
            return [out, tf.gradients(tf.reduce_sum(out * out), x)[0]], feed
        return [out], feed
    return build


def _plus_zeros(kind):
    # x + zeros is x where grappler knows x's whole shape (a variable's product): -0.0 stays
    def build():
        v = tf.Variable(np.array([[-0.0, 1.5, -2.0], [0.0, -0.0, 3.0]], np.float32))
        if kind == "zeros_like":
            return [tf.add(v * 1.5, tf.zeros_like(v))], None
        if kind == "negated":
            return [tf.add(-(v * 1.5), tf.zeros([2, 3]))], None
        return [tf.add(v * 1.5, tf.zeros([2, 3])) * 2.0], None
    return build


_R = tf.losses.Reduction
_BAD_SHAPE = "tensor with 6 values, but the requested shape has 4"
# name -> (build, CRC-32 of each fetched value measured in TF 1.15)
CASES = {
    # the gradient's AddN of two products and the folded -delta: TF sums the constant as
    # folded (the weight 1.0's Mul folds with the ones the Sum's gradient tiles)
    "huber_none": (_huber(_R.NONE, [3]), [0x2D9FD94D, 0x880AFFFC]),
    "huber_none_big": (_huber(_R.NONE, [16, 9]), [0x60233854, 0xC7A3414D]),
    "huber_mean": (_huber(_R.MEAN, [16, 9]), [0x03B9E12F, 0x42A07A8C]),
    "huber_sum": (_huber(_R.SUM, [16, 9]), [0x8BFF8F1E, 0xC7A3414D]),
    # num_present's Select of constants folds too (then 1 / n is pushed into the gradient)
    "huber_weighted": (_huber(_R.SUM_BY_NONZERO_WEIGHTS, [16, 9], weights=0.3, delta=0.7),
                       [0xF8CDC6E5, 0x0794F9F3]),
    "mse": (_mse, [0x60D03870, 0xE47B4CA6]),
    # b * 1.1 folds, so v / b runs as v * (1 / b)
    "gated_div": (_gated_div, [0xA08D7580]),
    "huber_fed_rank": (_huber_fed_rank, [0x60233854, 0x9EC0B33C]),
    "huber_dense": (_huber_dense, [0x5B694D46]),
    "aggregation_add": (_aggregation("add"), [0x7A6FF29A]),
    "aggregation_fetched": (_aggregation("fetched"), [0x7A6FF29A, 0x39409E34]),
    "aggregation_add_n": (_aggregation("add_n"), [0x7A6FF29A]),
    "aggregation_twins": (_aggregation("twins"), [0x77A09481]),
    "reshape_fed_shape": (_reshapes("plain"), [0x1F207B7E]),
    "reshape_inner_ctrl": (_reshapes("inner_ctrl"), [0x1F207B7E]),
    "reshape_identity": (_reshapes("identity"), [0x1F207B7E]),
    "reshape_chain": (_reshapes("chain"), [0x5E154675]),
    "reshape_two_readers": (_reshapes("two_readers"), [0x1F207B7E, 0x1F207B7E]),
    "reshape_variable_shape": (_reshape_variable_shape, [0x5E154675, 0x523E9E0C]),
    "reshape_of_a_loss": (_loss_reshaped_twice, [0xA5E2353F]),
    "no_op_reshape": (_no_op("reshape"), [0xD8F467B9]),
    "no_op_reshape_m1": (_no_op("reshape_m1"), [0xD8F467B9]),
    "no_op_reshape_fed": (_no_op("reshape_fed"), [0x88AEE837]),
    "no_op_reshape_fetched": (_no_op("reshape_fetched"), [0x945BE80D, 0x2F0AB8D3]),
    "no_op_sum": (_no_op("sum"), [0xD8F467B9]),
    "no_op_sum_fed": (_no_op("sum_fed"), [0xBE58BA95]),
    "scaled_prediction": (_scaled_prediction, [0x88A3DD18, 0x5BE3036F]),
    "transposes": (_cancelling("transposes"), [0xD8F467B9]),
    "transposes_perm3": (_cancelling("perm3"), [0x2CD99117]),
    "transpose_identity_perm": (_cancelling("identity_perm"), [0xD8F467B9]),
    "transposes_grad": (_cancelling("transposes_grad"), [0xD8F467B9, 0x52E02748]),
    "transposes_fetched": (_cancelling("transposes_fetched"), [0x945BE80D, 0x2F0AB8D3]),
    "transposes_fed": (_cancelling("transposes_fed"), [0x88AEE837]),
    "negations": (_cancelling("neg"), [0xD8F467B9]),
    "negations_fed": (_cancelling("neg_fed"), [0xBE58BA95]),
    "negations_grad": (_cancelling("neg_grad"), [0xD8F467B9, 0x52E02748]),
    "negations_fetched": (_cancelling("neg_fetched"), [0x945BE80D, 0x2F0AB8D3]),
    "negations_four": (_cancelling("neg4"), [0xC4290886]),
    "plus_zeros": (_plus_zeros("zeros"), [0x692EF784]),
    "plus_zeros_like": (_plus_zeros("zeros_like"), [0x08B2563A]),
    "plus_zeros_negated": (_plus_zeros("negated"), [0x1AEC169B]),
    "reshape_inner_fetched": (_reshapes("inner_fetched"), _BAD_SHAPE),
    "reshape_inner_summed": (_reshapes("inner_summed"), _BAD_SHAPE),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_bits_as_tf(name):
    build, want = CASES[name]
    if isinstance(want, str):
        with pytest.raises(tf.errors.InvalidArgumentError, match=want):
            _run(build)
    else:
        assert _run(build) == want


@pytest.mark.parametrize("gate", ["placeholder", "check_numerics"])
def test_const_gated_on_a_check_still_runs_it(gate):
    # TF 1.15 folds c * 3. but forwards c's control input to the folded constant, so the
    # unfed placeholder's Identity and the failing check still run (both measured there)
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [2], name="p")
        if gate == "placeholder":
            g, match = tf.identity(p), "You must feed a value for placeholder tensor 'p'"
        else:
            g, match = tf.debugging.check_numerics(tf.constant([1.0, np.nan]), "bad"), "NaN"
        with tf.control_dependencies([g]):
            c = tf.constant(2.0, name="c")
        v = tf.Variable([1.0, 2.0])
        with tf.Session() as s:
            s.run(v.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match=match):
                s.run(v * (c * 3.0))
