"""TF 1.15's constant push-down (grappler's constant folding): chains of additions and
subtractions, and of multiplications, with a constant operand are rotated so constants meet and
fold, changing last bits as TF does. Reference bits measured in TF 1.15 (CPU)."""

import itertools

import numpy as np
import pytest

import tideflow as tf

RNG = np.random.RandomState(7)
XV = RNG.uniform(-3, 3, 8).astype(np.float32)
YV = RNG.uniform(0.5, 3, 8).astype(np.float32)
SV = np.float32(1.3717)
C = 0.3713
K = [1.171, -0.6183, 2.0437, 0.11, -1.9, 0.75, 1.3, -0.45]
FAM = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
       "/": lambda a, b: a / b}
# every parent/child pair of one family, the constant on either side, the child's other
# operand a placeholder (Y) or a constant (K), x on either side
SHAPES = [e for fam in ("+-", "*/") for e in itertools.product(fam, fam, (0, 1), "YK", (0, 1))]
CHAINS = [
    "((X + 0.1) + 0.2) + 0.3", "(((X + Y) + 0.1) + 0.2) + 0.3", "0.1 * (0.2 * (X * Y))",
    "X / 255.0 * 2.0 - 1.0", "(X - 127.5) / 127.5", "(X * Y + S) - 0.1",
    "0.7 - (0.3 - (X - Y))", "((X + 0.1) * 0.3) + 0.7", "(X + S) + 0.1", "(S + X) + 0.1",
    "X * 0.1 * 0.3 * 0.7", "(X + Y) + tf.constant(np.array(K, np.float32))",
    "(S + Y) - tf.constant(np.array(K, np.float32))", "(X * 3.0 + Y) * 0.5",
    "1.0 - (X * Y - 0.25)", "(X - Y) * 0.5 * 0.25", "((X + S) - 0.3) - 0.45",
]
# the float32 bits TF 1.15 computes for SHAPES then CHAINS (8 values each)
TF_BITS = [
    "bf7fefce40733bb4400cca0640871607409621813fa230dd3fcc97f03f13dcf8",
    "bf7fefce40733bb4400cca0640871607409621813fa230dc3fcc97f03f13dcf8",
    "bf7ff6303fb75c944002e8be3fe93a483fab6c1f3fad175b3fd6c973c0295e82",
    "bf7ff6303fb75c944002e8be3fe93a483fab6c1f3fad175b3fd6c973c0295e82",
    "bf7fefce40733bb4400cca0640871607409621813fa230dd3fcc97f03f13dcf8",
    "bf7fefce40733bb4400cca0640871607409621813fa230dc3fcc97f03f13dcf8",
    "bf7ff6303fb75c944002e8be3fe93a483fab6c1f3fad175b3fd6c973c0295e82",
    "bf7ff6303fb75c944002e8be3fe93a483fab6c1f3fad175b3fd6c973c0295e82",
    "c055e2783e9a2aa0c00c9080bf4c19023fe4b89fbd80226abf57a3acc09f0d54",
    "4082b49d3ee20b70403c17423fc51a05bf85ab1b3f4e1f563fcadf5a40b6d0b5",
    "c055e0e0402ad2bec002af383fcd115240a474a2be174529bf6c06b2bfdf89d0",
    "4082b3d1bff697f8403235fabf5c079cc08cb1403f63ec533fd510dd401f4baa",
    "c055e2783e9a2aa0c00c9080bf4c19023fe4b89fbd80226abf57a3acc09f0d54",
    "4082b49d3ee20b70403c17423fc51a05bf85ab1b3f4e1f563fcadf5a40b6d0b5",
    "c055e0e0402ad2bec002af383fcd115240a474a2be174529bf6c06b2bfdf89d0",
    "4082b3d1bff697f8403235fabf5c079cc08cb1403f63ec533fd510dd401f4baa",
    "3fdf056bc043b4f2bfba8687c05ea54cc07cbc40bf0646b0bf5b14d83e28f840",
    "3fdf056bc043b4f2bfba8687c05ea54cc07cbc40bf0646b0bf5b14d73e28f840",
    "3fdf089cbf309e1ebfa6c3f7bf8a2cc4bf18bd34bf1c13adbf6f77de4058e544",
    "3fdf089cbf309e1ebfa6c3f7bf8a2cc4bf18bd34bf1c13adbf6f77de4058e544",
    "bfdf056b4043b4f23fba8687405ea54c407cbc403f0646b03f5b14d8be28f840",
    "bfdf056b4043b4f23fba8687405ea54c407cbc403f0646b03f5b14d7be28f840",
    "bfdf089c3f309e1e3fa6c3f73f8a2cc43f18bd343f1c13ad3f6f77dec058e544",
    "bfdf089c3f309e1e3fa6c3f73f8a2cc43f18bd343f1c13ad3f6f77dec058e544",
    "4082b49d3ee20b70403c17423fc51a05bf85ab1b3f4e1f573fcadf5a40b6d0b5",
    "c055e2783e9a2aa0c00c9080bf4c19023fe4b89fbd802268bf57a3acc09f0d54",
    "4082b3d1bff697f8403235fabf5c079cc08cb1403f63ec533fd510dd401f4baa",
    "c055e0e0402ad2bec002af383fcd115240a474a2be174529bf6c06b2bfdf89d0",
    "c082b49dbee20b70c03c1742bfc51a053f85ab1bbf4e1f57bfcadf5ac0b6d0b5",
    "4055e278be9a2aa0400c90803f4c1902bfe4b89f3d8022683f57a3ac409f0d54",
    "c082b3d13ff697f8c03235fa3f5c079c408cb140bf63ec53bfd510ddc01f4baa",
    "4055e0e0c02ad2be4002af38bfcd1152c0a474a23e1745293f6c06b23fdf89d0",
    "bf8d7dba3f8ba9e5be9a6b973f9fe7313fc5f5ad3d698b2b3b47a356c0294253",
    "bf8d7db93f8ba9e5be9a6b973f9fe7323fc5f5ad3d698b2c3b47a356c0294253",
    "bf8d7ab6bec569eebe8f93363d604e0dc0017cd33d83baa43b54aa653edba8e8",
    "bf8d7ab6bec569eebe8f93363d604e0dc0017cd33d83baa43b54aa653edba8e8",
    "bf8d7dba3f8ba9e5be9a6b973f9fe7313fc5f5ad3d698b2b3b47a356c0294253",
    "bf8d7db93f8ba9e5be9a6b973f9fe7323fc5f5ad3d698b2c3b47a356c0294253",
    "bf8d7ab6bec569eebe8f93363d604e0dc0017cd33d83baa43b54aa653edba8e8",
    "bf8d7ab6bec569eebe8f93363d604e0dc0017cd33d83baa43b54aa653edba8e8",
    "bf4e55ca3eb67aa5bd7faff83e4b27673f3bb2fe3e04173f3b060c9fbeaff7db",
    "be2f27143ec60d06c00d58543f31e5373e408afa3f88cce44286cd3bbecd60fb",
    "bf4e5a2ebf81190cbd8980294090d330bf0f7a003dea2f5c3afbacde400797ac",
    "be2f2359be0bf8cfc0036b083cf98b2abe7be38a3f9a52b4428f992a3d85447b",
    "bf4e55ca3eb67aa5bd7faff83e4b27673f3bb2fe3e04173f3b060c9fbeaff7db",
    "be2f27143ec60d06c00d58543f31e5373e408afa3f88cce44286cd3bbecd60fb",
    "bf4e5a2ebf81190cbd8980294090d330bf0f7a003dea2f5c3afbacde400797ac",
    "be2f2359be0bf8cfc0036b083cf98b2abe7be38a3f9a52b4428f992a3d85447b",
    "bdff6c643e0161febeea099c3de203443db6902c401abf3242350742bd558508",
    "bdff6c643e0161febeea099c3de203443db6902c401abf3242350742bd558508",
    "bdff71d5beb71167befbb74e40211ee2bd8b8cf440092d114229f0573ea4871e",
    "bdff71d5beb71167befbb74e40211ee2bd8b8cf440092d114229f0573ea4871e",
    "c10049f940fd4397c00c03014110fba441337d133ed3c0963cb502a5c1997749",
    "c10049f940fd4396c00c03014110fba441337d133ed3c0963cb502a5c1997749",
    "c100473ec032fe5ec0022dae3ecb6026c16acf973eeee0223cc0d285404729f6",
    "c100473ec032fe5ec0022dae3ecb6026c16acf973eeee0223cc0d285404729f6",
    "be2f27143ec60d06c00d58543f31e5373e408afa3f88cce54286cd3bbecd60fc",
    "bf4e55c93eb67aa5bd7faff83e4b27673f3bb2fe3e04173f3b060c9ebeaff7db",
    "be2f235abe0bf8cec0036b083cf98b2bbe7be3893f9a52b3428f992a3d85447c",
    "bf4e5a2ebf81190cbd8980294090d330bf0f7a003dea2f5b3afbacdf400797ac",
    "c0bb1521402573d3bee7d4723fb832ba40aa2f7b3f6f88123c731541c01f8c8f",
    "bf9ecf444033923fc180281140a14be23fae93c440f8125f43f47289c03a3729",
    "c0bb191cc0ea1aa8bef9577442034fccc08216d23f5455753c64312f4175e1a3",
    "bf9ecbe2bf7dd2b1c16e4fc83e624265bfe462c0410bec70440233143ef1aa53",
    "bff898614011e38a3e6bfc803ff86bd8405df2ae3f54bacb3f1b5230bffbdd5f",
    "bf4563b84080ef5c401b6d0c408e678a409d73043fbf76e73fe9ddfb3f4e6910",
    "bd73e26e3d70bc0cbc8515c83d89cf753daa9be23b4946c9392c0e2fbe11dfac",
    "bf828d58bf7ca0b8bf805ef9bf7d4ed3bf7a3ddcbf7f8947bf7ffc8bbf8293e8",
    "bf828d58bf7ca0b9bf805efabf7d4ed4bf7a3dddbf7f8948bf7ffc8dbf8293e8",
    "bfda4abb4086bb383eeb383640945bd740adfb8c3fb66efa3fa3d3e7c0bb3bb7",
    "c0540c403ea8dc68c00aba48bf44c0203fe86510bd0ab6c0bf504acbc09e2238",
    "bd05b6f03f9deeec3f1e7fbc3f90ed273fcb919c3f4c9e703f3b6574bd251a10",
    "bf8904834049ad783f8d136e4033ffdb408ade4f3fd9f1443fbd3cf6bf8c4981",
    "bf8904844049ad783f8d136e4033ffdb408ade4e3fd9f1443fbd3cf6bf8c4982",
    "bd5aaa643d107708bbfe4b443ce6a8b23d76b0403b9ef0c63914094bbd5cdcda",
    "be4cdab04033e6194077d2a0407d72ea401ae6083fd2aa1b4021bbc9be798f00",
    "3faf970f406f57593fc3566e407158d940972b713fa4ad603fa5625b40930fd8",
    "c04e92414059394c3f0b72cf405103dc40a0e60c3f2dcb4c3f1ec9c3c01dbb28",
    "40874473bfd825d04003fc82c0075426c03a93903f8c58163f9ef32a4105f6be",
    "beeda5dabc0fc1a0bea453e2be1593433e3531ddbd5e23a4be1b5898bf2aef04",
    "bff5d150401347123e811a843ffb32e9405f56373f5a48ed3f20e052bff9164e",
]


def _shape_expr(shape):
    pop, cop, cpos, ycase, xpos = shape

    def build(X, Y, S):
        yy = Y if ycase == "Y" else tf.constant(np.array(K, np.float32))
        child = FAM[cop](X, yy) if xpos == 0 else FAM[cop](yy, X)
        c = tf.constant(np.float32(C))
        return FAM[pop](c, child) if cpos == 0 else FAM[pop](child, c)

    return build


def _run(build):
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32, [8])
        Y = tf.placeholder(tf.float32, [8])
        S = tf.placeholder(tf.float32, [])
        out = tf.identity(build(X, Y, S))
        with tf.Session() as sess:
            return sess.run(out, {X: XV, Y: YV, S: SV})


def _bits(v):
    return "".join(f"{u:08x}" for u in np.asarray(v, np.float32).view(np.uint32))


CASES = [(f"{p}{c}{cp}{y}{x}", _shape_expr((p, c, cp, y, x))) for p, c, cp, y, x in SHAPES]
CASES += [(src, eval("lambda X, Y, S: " + src)) for src in CHAINS]


@pytest.mark.parametrize("i", range(len(CASES)), ids=[name for name, _ in CASES])
def test_bits_as_tf(i):
    name, build = CASES[i]
    got = _run(build)
    assert _bits(got) == TF_BITS[i], name
    # and the value is the mathematical one, to float32 rounding
    X, Y, S = XV.astype(np.float64), YV.astype(np.float64), np.float64(SV)
    exact = build(X, Y, S) if name in CHAINS and "tf." not in name else None
    if exact is not None:
        np.testing.assert_allclose(got, exact, rtol=1e-5, atol=1e-5)


def test_classic_linear_regression_trajectory_as_tf():
    # TF's getting-started program: TF rewrites (W * x + b) - y_data as (b - y_data) + W * x
    x_data = np.random.RandomState(0).rand(100).astype(np.float32)
    y_data = x_data * 0.1 + 0.3
    with tf.Graph().as_default():
        W = tf.Variable(tf.constant([0.7], tf.float32))
        b = tf.Variable(tf.zeros([1]))
        y = W * x_data + b
        loss = tf.reduce_mean(tf.square(y - y_data))
        train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        got = []
        for step in range(201):
            sess.run(train)
            if step % 20 == 0:
                w_, b_, l_ = sess.run([W, b, loss])
                got.append([step, repr(w_[0]), repr(b_[0]), repr(l_)])
    expected = [[0, '0.65784705', '0.016323715', '0.026262898'], [20, '0.2393055', '0.22940359', '0.0016353934'], [40, '0.13476288', '0.28238308', '0.00010183973'], [60, '0.10867487', '0.2956038', '6.341783e-06'], [80, '0.10216476', '0.29890296', '3.9491698e-07'], [100, '0.100540206', '0.29972625', '2.4592516e-08'], [120, '0.100134805', '0.2999317', '1.5312844e-09'], [140, '0.10003363', '0.29998296', '9.5320356e-11'], [160, '0.1000084', '0.29999575', '5.943991e-12'], [180, '0.100002095', '0.29999894', '3.7078405e-13'], [200, '0.100000545', '0.29999974', '2.4571228e-14']]
    assert got == expected


def test_duplicate_expressions_push_down_before_they_merge():
    # TF folds before it merges common subexpressions: the copy of W * x + b inside the loss
    # is rotated while the one read twice is not
    rng = np.random.RandomState(3)
    xv = rng.rand(50).astype(np.float32)
    yv = (xv * 0.3 - 0.2).astype(np.float32)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [50])
        y = tf.placeholder(tf.float32, [50])
        W = tf.Variable(0.5)
        b = tf.Variable(0.1)
        pred = W * x + b
        loss = (tf.reduce_mean(tf.square((W * x + b) - y))
                + 0.01 * tf.reduce_sum(tf.square(pred - 0.1)))
        train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        got = []
        for i in range(60):
            _, lv = sess.run([train, loss], {x: xv, y: yv})
            if i % 10 == 0:
                got.append([i, repr(lv), repr(sess.run(W)), repr(sess.run(b))])
    expected = [[0, '0.1927798', '0.44648966', '-0.0020972937'], [10, '0.07238066', '0.30778223', '-0.029440673'], [20, '0.031423226', '0.19909328', '-0.03006706'], [30, '0.017658396', '0.18180695', '-0.052166052'], [40, '0.012833914', '0.20299219', '-0.07984695'], [50, '0.011237726', '0.21389061', '-0.094876744']]
    assert got == expected


def test_fetched_intermediate_keeps_its_value():
    # a fetched child is not rotated (TF preserves fetched nodes); the parent still is
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8])
        y = tf.placeholder(tf.float32, [8])
        inner = x + y
        outer = inner - 0.1
        sess = tf.Session()
        a, b = sess.run([inner, outer], {x: XV, y: YV})
    np.testing.assert_array_equal(a, XV + YV)
    np.testing.assert_array_equal(b, (XV + YV) - np.float32(0.1))


def test_child_read_twice_is_not_rotated():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8])
        y = tf.placeholder(tf.float32, [8])
        inner = x + y
        out = (inner - 0.1) * tf.sqrt(tf.abs(inner))
        got = tf.Session().run(out, {x: XV, y: YV})
    s = XV + YV
    np.testing.assert_array_equal(got, (s - np.float32(0.1)) * np.sqrt(np.abs(s)))


def test_rotation_under_control_dependency_constant():
    # the 2.0 of Square's gradient sits under control_dependencies([grad]) of a folded
    # constant: still a constant to the push-down, and gradients stay right
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8])
        loss = tf.reduce_mean(tf.square(x * 3.0 - 1.0))
        g, = tf.gradients(loss, [x])
        got = tf.Session().run(g, {x: XV})
    np.testing.assert_allclose(got, 6.0 * (3.0 * XV - 1.0) / 8, rtol=1e-6)


def test_integer_chains_untouched():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [4])
        out = (x + 7) - 3
        got = tf.Session().run(out, {x: [1, 2, 3, 4]})
    np.testing.assert_array_equal(got, [5, 6, 7, 8])



# values whose cube, rounded once (pow), differs from (x * x) * x
CUBE_X = np.array([1004292808, 1065985549, 1072252294, 3215111237, 1075660975, 1058697585,
                   1049949702, 3177377793], np.uint32).view(np.float32)


@pytest.mark.parametrize("exponent", [3.0, 2.0, -1.0, 4.0])
def test_pow_by_constant_as_tf(exponent):
    # TF's ConvertPow: x ** 3 is Square(x) * x, x ** 2 Square, x ** -1 Reciprocal; x ** 4 stays
    # pow (rounded once)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [8])
        y = tf.identity(tf.pow(x, exponent) + 0.0)
        got = tf.Session().run(y, {x: CUBE_X})
    x = CUBE_X
    expected = {3.0: (x * x) * x, 2.0: x * x, -1.0: np.float32(1) / x,
                4.0: (x.astype(np.float64) ** 4).astype(np.float32)}[exponent]
    assert _bits(got) == _bits(expected)
    if exponent == 3.0:
        assert _bits(got) != _bits((x.astype(np.float64) ** 3).astype(np.float32))


def test_pow_broadcasting_exponent_keeps_pow():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        y = tf.pow(x, tf.constant([3.0, 3.0])) + 0.0
        got = tf.Session().run(y, {x: np.float32(1.5)})
    np.testing.assert_array_equal(got, [3.375, 3.375])


def _sqrt_div_cases():
    rng = np.random.RandomState(0)
    a = rng.standard_normal(4096).astype(np.float32)
    p = (np.abs(rng.standard_normal(4096)) + 0.1).astype(np.float32)
    return a, p


def test_division_by_sqrt_runs_as_rsqrt_times():
    # TF's SqrtDivToRsqrtMul: x / sqrt(y) is x * rsqrt(y) when the Sqrt has no other reader
    a, p = _sqrt_div_cases()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4096])
        y = tf.placeholder(tf.float32, [4096])
        q = tf.identity(x / tf.sqrt(y + 1e-3))
        r = tf.identity(x * tf.rsqrt(y + 1e-3))
        sess = tf.Session()
        got = sess.run(q, {x: a, y: p})
        ref = sess.run(r, {x: a, y: p})
    assert _bits(got) == _bits(ref)
    assert _bits(got) != _bits(a / np.sqrt(p + np.float32(1e-3)))  # a different rounding


@pytest.mark.parametrize("case", ["shared", "fetched"])
def test_division_by_a_sqrt_read_elsewhere_divides(case):
    a, p = _sqrt_div_cases()
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [4096])
        y = tf.placeholder(tf.float32, [4096])
        s = tf.sqrt(y)
        sess = tf.Session()
        if case == "shared":
            got = sess.run(tf.identity(x / s + s), {x: a, y: p})
            sq = sess.run(tf.sqrt(y), {y: p})
            expected = a / sq + sq
        else:
            got, sq = sess.run([tf.identity(x / s), s], {x: a, y: p})
            expected = a / sq
    assert _bits(got) == _bits(expected)


def test_cube_by_a_constant_rotates_in_the_second_round():
    # model_pruning's sparsity schedule: -0.75 * Pow(1 - p, 3) + 0.85. TF's arithmetic
    # optimizer makes the Pow Mul(x, Square(x)), and the second constant-folding round pushes
    # -0.75 down to the Square: x * (-0.75 * x * x). Printed by TF 1.15 at steps 0..4.
    with tf.Graph().as_default():
        gs = tf.Variable(0, dtype=tf.int64)
        p = tf.minimum(1.0, tf.maximum(0.0, tf.div(tf.cast(gs, tf.float32), 10)))
        s = tf.add(tf.multiply(0.1 - 0.85, tf.pow(1 - p, 3)), 0.85)
        inc = tf.assign_add(gs, 1)
        sess = tf.Session()
        sess.run(tf.global_variables_initializer())
        got = []
        for _ in range(5):
            got.append(repr(sess.run(s)))
            sess.run(inc)
    assert got == ["0.100000024", "0.30325007", "0.466", "0.5927501", "0.688"]


def test_polynomial_regression_tutorial_prints_tfs_costs():
    # the TF 1.x tutorial's polynomial fit (x ** 1..4 by tf.pow, one sample fed per step): the
    # cube is Square(x) * x and the chain's constants fold as in TF; printed by TF 1.15
    n = 101
    xs = np.linspace(-3, 3, n)
    ys = np.sin(xs) + np.random.RandomState(0).uniform(-0.5, 0.5, n)
    with tf.Graph().as_default():
        X = tf.placeholder(tf.float32)
        Y = tf.placeholder(tf.float32)
        Y_pred = tf.Variable(0.3, name="bias")
        for pow_i in range(1, 5):
            W = tf.Variable(0.1 / pow_i, name=f"weight_{pow_i}")
            Y_pred = tf.add(tf.multiply(tf.pow(X, pow_i), W), Y_pred)
        cost = tf.reduce_sum(tf.pow(Y_pred - Y, 2)) / (n - 1)
        optimizer = tf.train.GradientDescentOptimizer(0.001).minimize(cost)
        got = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            step = sess.make_callable(optimizer, [X, Y])
            for epoch in range(10):
                for x, y in zip(xs, ys):
                    step(x, y)
                if epoch % 3 == 0:
                    got.append(repr(sess.run(cost, feed_dict={X: xs, Y: ys})))
    assert got == ["0.4794267", "0.45929506", "0.4441565", "0.43634415"]
