"""float32 cross-entropy, softmax and the scalar exp/log, bit for bit with TF 1.15's CPU kernels.

Every expected value here was measured in TF 1.15 (CPU, on glibc 2.36) from the inputs that
``_inputs`` draws with NumPy's legacy RandomState: small cases as float32 bit patterns (hex),
larger ones as the first 16 hex digits of the sha256 of the output's bits. The larger shapes
cover TF's executor blocks (a softmax's exp in blocks of 4076 elements written in place, the
cross-entropy backprop's in blocks of 2560 in a scratch buffer), rows wider than 8192 floats
(reduced as a tree of halves) and widths below one 8-float packet (all scalar)."""

import hashlib

import numpy as np
import pytest

import tideflow as tf

F = np.float32


def _inputs(seed, rows, cols):
    rng = np.random.RandomState(seed)
    logits = rng.randn(rows, cols).astype(F) * F(3)
    labels = rng.rand(rows, cols).astype(F)  # (not normalized: the kernel takes any weights)
    sparse = rng.randint(0, cols, size=rows).astype(np.int64)
    return logits, labels, sparse


def _hex(bits):
    return np.array([int(h, 16) for h in bits.split()], np.uint32)


def _digest(a):
    data = np.ascontiguousarray(np.asarray(a, F)).view(np.uint32).tobytes()
    return hashlib.sha256(data).hexdigest()[:16]


def _run(fetches, logits, labels, sparse):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, logits.shape)
        y = tf.placeholder(tf.float32, labels.shape)
        s = tf.placeholder(tf.int64, sparse.shape)
        ops = {
            "dense": tf.raw_ops.SoftmaxCrossEntropyWithLogits(features=x, labels=y),
            "sparse": tf.raw_ops.SparseSoftmaxCrossEntropyWithLogits(features=x, labels=s),
            "softmax": tf.nn.softmax(x),
            "log_softmax": tf.nn.log_softmax(x),
            "row_sum": tf.reduce_sum(x, 1),
        }
        with tf.Session() as sess:
            out = sess.run({k: ops[k] for k in fetches}, {x: logits, y: labels, s: sparse})
    return out


# measured in TF 1.15: SoftmaxCrossEntropyWithLogits (loss, backprop) and
# SparseSoftmaxCrossEntropyWithLogits (sloss, sbp) of _inputs(seed, rows, cols)
_SMALL_BITS = {
    (0, 6, 10): {
        "loss": "4197994f 41751c4d 42170c13 41efc6be 422c7d43 4185fd2f",
        "bp": (
            "be17f20c bdee18f8 be9ba2a7 3e505ede 3e0cb56a bf314341 bf0dc261 be87a343 "
            "bf05cfd8 bdbb2c24 bf115c20 bf03d0e0 be8897e8 bf28e8e7 bde4f7e7 bf33b397 "
            "3e35ce68 be38aa83 bf12b088 bca1627e bf543563 3adf9e04 bf2a6fbb be8a31be "
            "3da661b0 bf76513c be7daa37 bf135d5f bf00a7dd beff1dd7 be511e70 bf6a7841 "
            "bee48154 bf58ac33 bf31ff95 be8e96b4 bead78e5 3d252e08 bf609cfd bf1394b5 "
            "bf61b190 bf31472d bf39a92d 3eef1158 bf749a61 bf24ab8e bed8fb06 bf13e611 "
            "bc9d0d00 be99a767 bf2793e1 bcecf8d0 bf19b01d beda510e bd76fa50 bb287a80 "
            "bef0af58 bec6bc86 bf0fe774 bf202a5b"
        ),
        "sloss": "40f072c0 409c1ea9 408d6683 41260b33 411a499e 40c172cc",
        "sbp": (
            "3e174d54 3b21d190 3c658138 3f1e24db 3e4e654b 38262d55 3c529a61 39f77db1 "
            "bf7fdc42 3b26f7b1 3c0546b5 3ed42af7 3d541c83 bf7e0d7f 3ca3d08b 3c6b6830 "
            "3eef143d 3b3b002f 3c5d4b7d 39d585b7 34e4337b 3bd1c403 bf7cea59 38cbe0e1 "
            "3f5101e3 37408d27 3a8776c6 3a06b25b 3db7418f 3d978174 3c9a8898 3d16f1b0 "
            "3a5893d0 bf7ffdf6 3b88bf08 3c9b2f47 3ef33137 3edfa88e 3b72fe0e 3b9ccc29 "
            "38fb191d 3824c710 378ba0f3 3f77df77 3a1e14a3 3a43f228 bf7ffbbf 3cead092 "
            "37b83716 3ac09d73 3bb6a04e 3e85b580 3c90c494 bf7f64be 3d99f646 3e976781 "
            "3dcc8c5f 3e4f94b5 3c47e1d1 3ce1b9f3"
        ),
    },
    (1, 4, 2): {
        "loss": "40bc8b44 3f9c2e74 40a9dbea 3fbea8a8",
        "bp": "3f4b591e bf607c67 3f4f33b3 bf01da54 3f15269d bf0f0165 3f5bec05 be4a4ccd",
        "sloss": "40d6b46e 3fe80328 411803be 40f0985d",
        "sbp": "3f7fb019 bf7fb019 3f563693 bf563692 3f7ffb1a bf7ffb19 3f7fdc6b bf7fdc6c",
    },
    (2, 3, 13): {
        "loss": "425e66f0 41c2e6b2 42514ab5",
        "bp": (
            "bf63a6ce beae8504 bf113043 be9c2651 bedf9ccc bf46c7e5 bf081487 bf74270d "
            "bf0b4ec6 bda802ba beb92c7d 3c803380 becf7e91 bcd87bde be0a8951 bd81e84e "
            "bf790f05 be5dd474 bf4c435e bf143984 bf436bf9 be1f10cd be7af60e bf05de50 "
            "beb27a3e bd0e51f8 bf7ba4ed bee1f50a bf01051f bea54903 be84baab 3f086fd1 "
            "bf54ff02 bf3c32c8 bec0624d 3d5e4cb3 bf4ad257 be89e178 bf14e031"
        ),
        "sloss": "40abb2a0 40c1a22c 40d8e244",
        "sbp": (
            "39863ca0 3a45ef01 35c5a4e8 3dfb03f3 368a2a78 38960b63 3b846a06 37b2dc29 "
            "381ce098 3875413a bf7ecda1 3f5dd2f3 3a84b701 3a4b742e 3de5256e 3b7355ee "
            "3cabc220 3f4102d7 bf7f65a3 3cbae586 3ad0e079 3c638a25 3d4460e6 3a95dd4c "
            "3c03a6e2 3c331f97 3930533a 38077862 37866f78 3a3c63d9 3a05326e 3f6b7b08 "
            "354da613 3ad15aef 3b62cb1b 3d89cf2f 3ba8322b 38bdc480 bf7fb55b"
        ),
    },
}
_DIGESTS = {
    (3, 1000, 5): {
        "loss": "a83b337fa61fd1ff", "bp": "9fb7b1069b4690a3", "sloss": "a551804808e85998",
        "sbp": "9c4f624bb4bb2afa", "softmax": "d22fe9a3e7167222", "log_softmax": "d8b2584981bd3e24",
        "row_sum": "ea36769e6123278c",
    },
    (4, 2, 9000): {
        "loss": "fe8b6f7d63b51625", "bp": "87407ce9b3588fd8", "sloss": "6d55a44cd40f37a2",
        "sbp": "1033ac90b4c02901", "softmax": "456585135690b274", "log_softmax": "85ee135f1ebc4ada",
        "row_sum": "e5e8bedd8468da78",
    },
    (5, 3000, 3): {
        "loss": "1319d159129a5357", "bp": "9f54e98ecb90b640", "sloss": "fc3fbf7a11b56bb4",
        "sbp": "076119aa78312736", "softmax": "614dba2b1188417a", "log_softmax": "9d7be1a4776fc34c",
        "row_sum": "1e8d09a98a34332c",
    },
    (6, 333, 100): {
        "loss": "957ff18259af8e58", "bp": "b32409798cfa1821", "sloss": "ac707080c80aae6a",
        "sbp": "78a060830d883c04", "softmax": "e4a4404b3c6b3500", "log_softmax": "adf5ef2cb443b827",
        "row_sum": "d3efaa0d45f43b70",
    },
    (7, 3, 20000): {
        "loss": "8a9e175214a18633", "bp": "7d28ec38901b24e4", "sloss": "b3c6421d15b4b148",
        "sbp": "740edccd2b99b32a", "softmax": "6ea3f37d82920aa0", "log_softmax": "e5072c9d1dfa185c",
        "row_sum": "e2b78509589c2638",
    },
    (8, 2000, 17): {
        "loss": "e1c3c56779384002", "bp": "421ec81f8e8a9d82", "sloss": "5b63e2c92eefdbf4",
        "sbp": "f9449a9259f77219", "softmax": "e817c52a59d0fab2", "log_softmax": "5e729c6ceb45f5ad",
        "row_sum": "c189657f23fc6901",
    },
}


def test_fused_cross_entropies_are_tf_kernels_bit_for_bit():
    # the exps of each row's sum inside the reduction (the row's last cols % 8 by glibc's
    # expf), the loss's log of the sums on packets of the batch (dense) or by logf (sparse)
    for key, want in _SMALL_BITS.items():
        got = _run(("dense", "sparse"), *_inputs(*key))
        values = dict(zip(("loss", "bp"), got["dense"]))
        values.update(zip(("sloss", "sbp"), got["sparse"]))
        for name, bits in want.items():
            assert values[name].dtype == np.float32
            assert values[name].view(np.uint32).reshape(-1).tolist() == _hex(bits).tolist(), (
                key, name)


def test_executor_blocks_and_wide_rows_are_tf_kernels_bit_for_bit():
    for key, want in _DIGESTS.items():
        got = _run(("dense", "sparse", "softmax", "log_softmax", "row_sum"), *_inputs(*key))
        values = dict(zip(("loss", "bp"), got["dense"]))
        values.update(zip(("sloss", "sbp"), got["sparse"]))
        values.update((k, got[k]) for k in ("softmax", "log_softmax", "row_sum"))
        assert {k: _digest(values[k]) for k in want} == want, key


def test_scalar_tails_take_glibc_expf_and_logf():
    # fewer than 8 elements: all on Eigen's scalar path, which calls glibc's expf and logf
    # (not correctly rounded: each of these differs by one ulp from exp/log rounded once);
    # the bits TF 1.15 gives
    x = _hex("40d89581 4028dbd8 3fb2ce5c bffe4554").view(F)
    y = _hex("4011913a 3f818a68 401b2a28 401afffb").view(F)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.exp(x), tf.log(y), tf.sigmoid(-x), tf.nn.softplus(x)])
    want = ["44597275 415fdb5d 40815e1f 3e0c77dc", "3f525e90 3c440699 3f62b6ef 3f627150",
            "3a968565 3d889d63 3e4b1071 3f611e7b", "40d89eeb 402d46ec 3fcf18f8 3e03a218"]
    for value, bits in zip(got, want):
        assert value.view(np.uint32).tolist() == _hex(bits).tolist()
    correctly_rounded = np.exp(x.astype(np.float64)).astype(F)
    assert (got[0] != correctly_rounded).all()


def test_cross_entropy_gradients_take_the_exact_backprop():
    # the logits' gradient of a mean loss is the kernel's backprop over the batch size
    logits, labels, sparse = _inputs(0, 6, 10)
    with tf.Graph().as_default():
        x = tf.constant(logits)
        dense = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels,
                                                                          logits=x))
        sp = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=sparse,
                                                                            logits=x))
        grads = tf.gradients([dense], [x]) + tf.gradients([sp], [x])
        with tf.Session() as sess:
            g_dense, g_sparse = sess.run(grads)
    bp = _hex(_SMALL_BITS[(0, 6, 10)]["bp"]).view(F).reshape(6, 10)
    sbp = _hex(_SMALL_BITS[(0, 6, 10)]["sbp"]).view(F).reshape(6, 10)
    np.testing.assert_array_equal(g_dense, bp * (F(1) / F(6)))
    np.testing.assert_array_equal(g_sparse, sbp * (F(1) / F(6)))


def test_expm1_is_kahans_formula_on_packet_exp_and_log():
    # measured in TF 1.15: (u - 1) * (x / log u) on packets (x itself where u = exp(x) is 1,
    # an input denormal kept: a select), glibc's expm1f (denormals flushed, signed) on the
    # last size % 8
    x = np.array([0, -0.0, 1e-10, -1e-10, 1e-7, 3e-5, -3e-5, 0.3, -0.3, 5, -5, 20, -20, 88,
                  88.5, 89, 100, -88, -100, -104, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 50,
                  -50, 0.69314718, 1.5, -17], F)
    want = _hex("00000000 80000000 2edbe6ff aedbe6ff 33d6bf96 37fba97a b7fba78b 3eb320b3 "
                "be84b37a 431369c5 bf7e466c 4de75844 bf800000 7ef882b7 7f800000 7f800000 "
                "7f800000 bf800000 bf800000 bf800000 7f800000 bf800000 7fc00000 000116c2 "
                "80000000 638c881f bf800000 3f800000 405ed3fe bf7fffff")
    z = np.random.RandomState(11).randn(1003).astype(F) * F(2)
    with tf.Graph().as_default(), tf.Session() as sess:
        got, many = sess.run([tf.math.expm1(x), tf.math.expm1(z)])
    assert got.view(np.uint32).tolist() == want.tolist()
    assert _digest(many) == "e7a9222c7980e8a7"


def test_leading_sums_add_the_rows_in_sequence():
    # measured in TF 1.15: Sum, Mean and BiasAddGrad over leading axes add row after row
    x = np.random.RandomState(9).randn(300, 300).astype(F) * F(3)
    y = np.random.RandomState(10).randn(32, 5, 5, 16).astype(F) * F(3)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run({"sum0": tf.reduce_sum(x, 0), "mean0": tf.reduce_mean(x, 0),
                        "bias_grad": tf.raw_ops.BiasAddGrad(out_backprop=y),
                        "sum012": tf.reduce_sum(y, [0, 1, 2])})
    assert {k: _digest(v) for k, v in got.items()} == {
        "sum0": "e00d09adbc9dd7dd", "mean0": "2054ac40496d9213",
        "bias_grad": "55a13fc098e66a45", "sum012": "55a13fc098e66a45"}


# measured in TF 1.15: Pow of the 60 pairs below and exponential_decay(0.1, step, 7, 0.96) at
# steps 0, 9, ..., 198 (glibc's powf, per element)
_POW_BITS = (
    "406fbff2 4032012c 3f8e5a4e 42a5edb1 40c41f78 407970ac 51e43ccb 3c7622d5 "
    "3c8475e0 392f45e5 3f482d9a 4002bf3b 444b88f2 39292883 45631791 3ab77d2e "
    "3e03c128 3ee33cab 3d9b47d7 3d368bb1 3de4ac3d 43ba0693 3f180982 3fcd6779 "
    "460a1560 3a05d611 35b0947b 402b55f4 3ceead8f 4024d0ae 3ef5f04a 473bb7ff "
    "40565375 3fca363f 3f3e4d56 43b1db59 4236cab2 3c47fb52 42f5bbaa 3fe08ad5 "
    "3d56adb9 436fe0a9 3f8bd76b 3f81db8d 3f7cc202 3e8f6be1 42db3ad9 3b286f4f "
    "532a089c 3e9c7712 3de9c5f2 3dd86c2a 44571184 460c8093 40e87d51 42f1fc09 "
    "4265ff0b 419995f8 467c7a7c 4293caba "
)
_DECAY_BITS = (
    "3dcccccd 3dc25404 3db8644f 3daef6aa 3da6046f 3d9d874f 3d95794b 3d8dd4b8 "
    "3d86942f 3d7f652a 3d72561a 3d65f1fa 3d5a300d 3d4f0807 3d447209 3d3a669c "
    "3d30deab 3d27d37c 3d1f3eaf 3d171a35 3d0f604f 3d080b8d 3d0116c1 "
)


def test_small_pows_are_glibc_powf_bit_for_bit():
    rng = np.random.RandomState(12)
    x = np.abs(rng.randn(60)).astype(F) * F(3)
    y = rng.randn(60).astype(F) * F(4)
    with tf.Graph().as_default():
        step = tf.placeholder(tf.int64, [])
        lr = tf.train.exponential_decay(0.1, step, 7, 0.96)
        pw = tf.pow(tf.constant(x), tf.constant(y))
        with tf.Session() as sess:
            got = sess.run(pw)
            lrs = np.array([sess.run(lr, {step: k}) for k in range(0, 200, 9)], F)
    assert got.view(np.uint32).tolist() == _hex(_POW_BITS).tolist()
    assert lrs.view(np.uint32).tolist() == _hex(_DECAY_BITS).tolist()


def test_sin_and_cos_are_eigens_packet_polynomials():
    # measured in TF 1.15: x less its multiple of pi/2 (in four parts, no FMA), the quadrant's
    # polynomial, glibc's sinf/cosf on the last size % 8 (here 3 of 11; 3 of 1003)
    e = np.array([0, -0.0, 3.1415927, -2.5, 1e-5, 0.78539, 1.5707964, 100.5, -7.25, 12.0, 0.5], F)
    x = np.random.RandomState(13).uniform(-100, 100, 1003).astype(F)
    with tf.Graph().as_default(), tf.Session() as sess:
        s, c, many_s, many_c = sess.run([tf.sin(e), tf.cos(e), tf.sin(x), tf.cos(x)])
    assert s.view(np.uint32).tolist() == _hex(
        "00000000 80000000 b3bbbd2e bf193579 3727c5ac 3f350492 3f800000 bcfd9fc2 bf52b56e "
        "bf095cd8 3ef57744").tolist()
    assert c.view(np.uint32).tolist() == _hex(
        "3f800000 3f800000 bf800000 bf4d17bf 3f800000 3f350554 b33bbd2e 3f7fe095 3f11637b "
        "3f5806d0 3f60a940").tolist()
    assert (_digest(many_s), _digest(many_c)) == ("585ddb3bbea8d0ed", "64e1b61198954ba3")


def test_whole_tensor_sums_and_l2_loss_add_as_eigens_tree():
    # measured in TF 1.15 (the same bits on 1, 2 and 8 intra-op threads): past 8192 floats
    # TF's inner reduction halves the run at a packet boundary until each leaf holds at most
    # 8192, adds each leaf in 8 lanes, then the halves; L2Loss sums t * t * 0.5 so
    a = np.random.RandomState(7).randn(128, 784).astype(F) * F(3)
    w = np.random.RandomState(8).randn(784, 512).astype(F) * F(0.1)
    b = np.random.RandomState(9).randn(3, 20001).astype(F)
    with tf.Graph().as_default(), tf.Session() as sess:
        got = sess.run([tf.reduce_sum(a), tf.reduce_mean(a), tf.nn.l2_loss(w),
                        tf.nn.l2_loss(a[:3, :5]), tf.reduce_sum(b, 1), tf.reduce_mean(b)])
    want = ["c4662761", "bc164df6", "44fa7744", "429cfd83", "4067bec0 c317a4f4 c33be214",
            "bbb770c6"]
    for value, bits in zip(got, want):
        assert np.asarray(value, F).reshape(-1).view(np.uint32).tolist() == _hex(bits).tolist()


# scalar sin/cos (a tensor of one element: TF's scalar path, glibc's sinf/cosf, which are not
# the exact value rounded); inputs and outputs as float32 bits, measured in TF 1.15
_SCALAR_COS = ([3215012541, 3230754012, 3231876354, 1084252541, 3238060508, 3232644066],
               [1050469320, 3190558479, 1052206843, 1050087743, 3192691179, 1059794450])
_SCALAR_SIN = ([3233951730, 1091695199, 1075253068, 3238960290, 1079033207, 3224969404],
               [1046105313, 1050202901, 1060390375, 3204096556, 3186957509, 3195818430])


@pytest.mark.parametrize("fn, data", [("cos", _SCALAR_COS), ("sin", _SCALAR_SIN)])
def test_scalar_sin_cos_are_glibcs(fn, data):
    xs = np.array(data[0], np.uint32).view(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None])
        y = getattr(tf, fn)(x)
        with tf.Session() as sess:
            got = [sess.run(y, {x: xs[i:i + 1]})[0] for i in range(len(xs))]
    assert np.array(got, np.float32).view(np.uint32).tolist() == data[1]
    exact = getattr(np, fn)(xs.astype(np.float64)).astype(np.float32)
    assert exact.view(np.uint32).tolist() != data[1]  # (the exact value rounded is not it)
