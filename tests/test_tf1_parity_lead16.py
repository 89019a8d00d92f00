"""TF 1.15 parity fixes of the sixteenth session (the lead's), each pinned with what TF 1.15
printed for the same program."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_rot90_static_shape_is_the_merge_of_all_four_rotations():
    # TF 1.15 selects the rotation with a case, whose output merges the four branches' shapes
    # (for any k, constant or not): sizes known only for square images
    want = {(6, 8, 3): "(?, ?, 3)", (8, 8, 3): "(8, 8, 3)", (None, 8, 8, 3): "(?, 8, 8, 3)",
            (2, 6, 8, 1): "(2, ?, ?, 1)", (None, None, 3): "(?, ?, 3)"}
    for shape, text in want.items():
        for k in (0, 1, 2, 3, tf.placeholder(tf.int32, [])):
            out = tf.image.rot90(tf.placeholder(tf.float32, shape), k)
            assert str(out.shape) == text, (shape, k)
    img = np.arange(24, dtype=np.float32).reshape(2, 4, 3)
    with tf.Session() as sess:
        for k in range(4):
            np.testing.assert_array_equal(sess.run(tf.image.rot90(img, k)), np.rot90(img, k))


def test_ngrams_count_is_not_static_and_substr_errors_read_as_tf():
    # TF 1.15 printed these shapes and messages
    for shape, want in [([4], "(?,)"), ([2, 4], "(2, ?)"), ([None, 4], "(?, ?)")]:
        d = tf.placeholder(tf.string, shape)
        assert str(tf.strings.ngrams(d, 2).shape) == want
        assert str(tf.strings.ngrams(d, 2, pad_values="#").shape) == want
    cases = [(("ab", -5, 1), "pos -5 out of range for string b'ab' at index 0"),
             ((["x", ""], [0, 1], [1, 1]), "pos 1 out of range for string b'' at index 1"),
             (("ab", 3, 1, "UTF8_CHAR"), "pos 3 out of range for string at index 0"),
             (("ab", -5, 1, "UTF8_CHAR"), "pos -5 out of range for string at index 0")]
    with tf.Session() as sess:
        for args, msg in cases:
            kw = {"unit": args[3]} if len(args) > 3 else {}
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                sess.run(tf.strings.substr(*args[:3], **kw))
            assert e.value.message.splitlines()[0] == msg


def test_round_of_small_negatives_is_positive_zero():
    # TF 1.15 printed [ 0.  0. -0. -2. -2.  0.  2.]: rounding from the floor up
    x = np.array([-0.4, -0.5, -0.0, -1.5, -2.5, 0.5, 1.5], np.float32)
    with tf.Session() as sess:
        got = sess.run(tf.round(x))
        one = sess.run(tf.round(tf.constant(-0.3, tf.float64)))
    np.testing.assert_array_equal(got, [0, 0, 0, -2, -2, 0, 2])
    assert np.signbit(got).tolist() == [False, False, True, True, True, False, False]
    assert one == 0 and not np.signbit(one)


def test_einsum_builds_tf_1_15s_composition():
    # TF 1.15's tf.einsum is transposes, reshapes and MatMul/BatchMatMulV2 (or a broadcast Mul
    # when nothing is summed) under an 'einsum' scope: names, op types and counts as printed
    P = tf.placeholder
    g = tf.get_default_graph()
    bm = P(tf.float32, [None, 4, 5])
    cases = [
        ("ij,jk->ik", [P(tf.float32, [3, 4]), P(tf.float32, [4, 5])], "einsum/MatMul:0",
         "(3, 5)", ["MatMul"]),
        ("ij->ji", [P(tf.float32, [3, 4])], "einsum_1/transpose:0", "(4, 3)",
         ["Const", "Transpose"]),
        ("ii", [P(tf.float32, [3, 3])], "einsum_2/Trace:0", "()",
         ["MatrixDiagPart", "Const", "Sum"]),
        ("...ij,...jk->...ik", [bm, P(tf.float32, [None, 5, 2])], "einsum_3/Reshape_2:0",
         "(?, 4, 2)",
         ["Shape", "Const", "Const", "Const", "StridedSlice", "Const", "Const", "Pack",
          "Reshape", "Shape", "Const", "Const", "Const", "StridedSlice", "Const", "Const",
          "Pack", "Reshape", "BatchMatMulV2", "Const", "Const", "Pack", "Reshape"]),
        ("...,d->...d", [P(tf.float32, [None, 7]), P(tf.float32, [8])], "einsum_4/Mul:0",
         "(?, 7, 8)",
         ["Const", "ExpandDims", "Const", "ExpandDims", "Const", "ExpandDims", "Mul"]),
        ("bij,jk->bik", [bm, P(tf.float32, [5, 6])], "einsum_5/Reshape_1:0", "(?, 4, 6)",
         ["Shape", "Const", "Const", "Const", "StridedSlice", "Const", "Mul", "Const", "Mul",
          "Const", "Pack", "Reshape", "MatMul", "Const", "Const", "Pack", "Reshape"]),
        ("ij,jk,kl->il", [P(tf.float32, [2, 3]), P(tf.float32, [3, 4]), P(tf.float32, [4, 5])],
         "einsum_6/MatMul_1:0", "(2, 5)", ["MatMul", "MatMul"]),
        ("bij->bj", [P(tf.float32, [2, 3, 4])], "einsum_7/Sum:0", "(2, 4)", ["Const", "Sum"]),
    ]
    for eq, args, name, shape, types in cases:
        before = len(g.get_operations())
        out = tf.einsum(eq, *args)
        assert (out.name, str(out.shape)) == (name, shape), eq
        assert [op.type for op in g.get_operations()[before:]] == types, eq
    with pytest.raises(ValueError, match="an axis appears more than once: ii"):
        tf.einsum("ii->", P(tf.float32, [3, 3]))
    with pytest.raises(ValueError, match="Invalid equation: ij->k"):
        tf.einsum("ij->k", P(tf.float32, [3, 3]))
    rng = np.random.RandomState(0)
    a, b, c = rng.randn(2, 3, 4), rng.randn(4, 5), rng.randn(2, 5)
    ta, tb, tc = (tf.constant(x) for x in (a, b, c))  # (TF 1.15's einsum: tensors only)
    with tf.Session() as sess:
        got = sess.run([tf.einsum("bij,jk->bik", ta, tb), tf.einsum("bij,jk,bk->bi", ta, tb, tc),
                        tf.einsum("bij->jb", ta)])
    np.testing.assert_allclose(got[0], np.einsum("bij,jk->bik", a, b), rtol=1e-12)
    np.testing.assert_allclose(got[1], np.einsum("bij,jk,bk->bi", a, b, c), rtol=1e-12)
    np.testing.assert_allclose(got[2], np.einsum("bij->jb", a), rtol=1e-12)


def test_contrib_optimizers_build_tf_1_15s_op_count():
    # g._last_id after minimize (so the seeds of later random ops) as TF 1.15 printed them,
    # dense and with an embedding's sparse gradient
    want = {("LazyAdamOptimizer", False): 63, ("LazyAdamOptimizer", True): 173,
            ("PowerSignOptimizer", False): 47, ("PowerSignOptimizer", True): 143,
            ("AddSignOptimizer", False): 47, ("AddSignOptimizer", True): 141,
            ("NadamOptimizer", False): 63, ("NadamOptimizer", True): 172,
            ("AdamWOptimizer", False): 67, ("AdamWOptimizer", True): 174}
    for (name, sparse), count in want.items():
        g = tf.Graph()
        with g.as_default():
            x = tf.placeholder(tf.float32, [None, 3])
            w = tf.get_variable("w", [3, 1])
            if sparse:
                emb = tf.get_variable("emb", [5, 3])
                x = x + tf.reduce_sum(tf.nn.embedding_lookup(emb, [0, 2]), 0)
            loss = tf.reduce_mean(tf.matmul(x, w))
            cls = getattr(tf.contrib.opt, name)
            o = cls(0.01, learning_rate=0.01) if name == "AdamWOptimizer" else cls(0.01)
            o.minimize(loss)
            assert g._last_id == count, (name, sparse)
    # TF 1.15's PowerSign/AddSign constants
    with tf.Graph().as_default() as g:
        w = tf.get_variable("w", [2])
        tf.contrib.opt.AddSignOptimizer(0.1).minimize(tf.reduce_sum(w))
        names = {op.name for op in g.get_operations()}
        assert {"AddSignOptimizer/learning_rate", "AddSignOptimizer/beta",
                "AddSignOptimizer/alpha", "AddSignOptimizer/sign_decay"} <= names


def test_fetched_scalars_print_as_tf_1_x_programs_show_them():
    # TF 1.15 (NumPy 1.x) printed "[1.0, 3, array([1.5], dtype=float32)]"
    with tf.Session() as sess:
        got = sess.run([tf.constant(1.0), tf.constant(3), tf.constant([1.5])])
    assert repr(got) == "[1.0, 3, array([1.5], dtype=float32)]"
