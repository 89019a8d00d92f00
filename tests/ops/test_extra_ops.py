"""reverse_sequence, matrix diagonal ops, norm, sort/search and scatter_nd: signatures, static
shapes, attrs and errors (values and gradients are in the op table, tests/ops/table_extra.py)."""

import numpy as np
import pytest

import tideflow as tf


def _run(*fetches, feed=None):
    with tf.Session() as s:
        out = s.run(list(fetches), feed)
    return out if len(out) > 1 else out[0]


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


# -- reverse_sequence ---------------------------------------------------------------------


def test_reverse_sequence_attrs_and_static_shape():
    x = tf.placeholder(tf.float32, [None, 5, 3])
    y = tf.reverse_sequence(x, tf.constant([1, 2], tf.int64), seq_axis=1, batch_axis=0)
    assert y.op.type == "ReverseSequence"
    assert y.op.get_attr("seq_dim") == 1 and y.op.get_attr("batch_dim") == 0
    assert y.op.get_attr("Tlen") == tf.int64
    assert y.get_shape().as_list() == [2, 5, 3]  # batch dim taken from seq_lengths


def test_reverse_sequence_bad_static_input_is_a_value_error():
    x = tf.zeros([2, 5, 3])
    with pytest.raises(ValueError, match="ReverseSequence.*batch_dim"):
        tf.reverse_sequence(x, [1, 2, 3], seq_axis=1)
    with pytest.raises(ValueError, match="batch_dim == seq_dim"):
        tf.reverse_sequence(x, [1, 2], seq_axis=0, batch_axis=0)
    with pytest.raises(ValueError, match="seq_dim must be < input rank: 3 vs. 3"):
        tf.reverse_sequence(x, [1, 2], seq_axis=3)
    with pytest.raises(ValueError, match="Cannot specify both 'seq_dim' and 'seq_axis'"):
        tf.reverse_sequence(x, [1, 2], seq_axis=1, seq_dim=1)


def test_reverse_sequence_bad_lengths_at_run_time():
    x = tf.placeholder(tf.float32)
    n = tf.placeholder(tf.int64)
    y = tf.reverse_sequence(x, n, seq_axis=1)
    data = np.zeros((2, 4), np.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^seq_lens\(1\) > input.dims\(1\)\n"):  # TF 1.15's words
        _run(y, feed={x: data, n: [1, 5]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"\(3 vs. 2\)"):
        _run(y, feed={x: data, n: [1, 2, 3]})
    np.testing.assert_array_equal(_run(y, feed={x: np.arange(8.).reshape(2, 4), n: [4, 2]}),
                                  [[3, 2, 1, 0], [5, 4, 6, 7]])


# -- diagonals ----------------------------------------------------------------------------


def test_matrix_diag_static_shapes_with_unknown_dims():
    x = tf.placeholder(tf.float32, [None, 3, 5])
    assert tf.matrix_diag_part(x).get_shape().as_list() == [None, 3]
    assert tf.matrix_diag(tf.placeholder(tf.float32, [None, 4])).get_shape().as_list() == [
        None, 4, 4]
    d = tf.placeholder(tf.float32, [7, None])
    assert tf.matrix_set_diag(x, d).get_shape().as_list() == [7, 3, 5]
    assert tf.diag(tf.placeholder(tf.int32, [2, None])).get_shape().as_list() == [2, None, 2, None]
    assert tf.diag_part(tf.placeholder(tf.float32, [None, 3, 4, None])).get_shape().as_list() == [
        4, 3]
    assert tf.trace(x).get_shape().as_list() == [None]
    assert tf.trace(x).op.type == "Sum"


def test_diagonal_ops_static_errors():
    with pytest.raises(ValueError, match=r"at least rank 2 but is rank 1 for 'diag_part' \(op: 'MatrixDiagPart'"):
        tf.matrix_diag_part(tf.zeros([3]))
    with pytest.raises(ValueError, match=r"at least rank 1 but is rank 0 for 'diag' \(op: 'MatrixDiag'"):
        tf.matrix_diag(tf.constant(1.0))
    # TF 1.15's shape functions' words
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 3 and 4 for 'set_"):
        tf.matrix_set_diag(tf.zeros([2, 3, 4]), tf.zeros([2, 4]))
    with pytest.raises(ValueError, match="^Input must have even and non-zero rank, input rank "
                                         "is 3 for 'DiagPart'"):
        tf.diag_part(tf.zeros([2, 3, 4]))
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 3 and 4 for"):
        tf.diag_part(tf.zeros([2, 3, 2, 4]))
    with pytest.raises(TypeError):
        tf.diag(tf.constant([True, False]))  # Diag's T excludes bool, as in TF


def test_diagonal_ops_run_time_errors():
    x = tf.placeholder(tf.float32)
    d = tf.placeholder(tf.float32)
    # TF 1.15's words (its MatrixSetDiag kernel is V2's)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^Either first dimensions of diagonal don't match"):
        _run(tf.matrix_set_diag(x, d), feed={x: np.zeros((3, 3)), d: np.zeros(2)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="input must be at "
                                                           r"least 2-dim, received shape: \[3\]"):
        _run(tf.matrix_diag_part(x), feed={x: np.zeros(3)})
    with pytest.raises(tf.errors.InvalidArgumentError, match="DiagPart: invalid input shape"):
        _run(tf.diag_part(x), feed={x: np.zeros((2, 3))})


def test_matrix_diag_part_gradient_of_rectangular_input():
    x = tf.constant(np.arange(6.0).reshape(2, 3))
    (g,) = tf.gradients(tf.reduce_sum(tf.matrix_diag_part(x) * [2.0, 3.0]), [x])
    np.testing.assert_array_equal(_run(g), [[2, 0, 0], [0, 3, 0]])


# -- norm ---------------------------------------------------------------------------------

_X = np.arange(-6.0, 6.0).reshape(3, 4)


@pytest.mark.parametrize("ord", ["euclidean", 1, 2, np.inf, 3, 0.5])
def test_vector_norms_match_numpy(ord):
    np_ord = 2 if ord == "euclidean" else ord
    whole = tf.norm(_X, ord=ord)
    rows = tf.norm(_X, ord=ord, axis=1)
    cols = tf.linalg.norm(_X, ord=ord, axis=-2, keepdims=True)
    assert whole.get_shape().as_list() == [] and rows.get_shape().as_list() == [3]
    assert cols.get_shape().as_list() == [1, 4]
    w, r, c = _run(whole, rows, cols)
    np.testing.assert_allclose(w, np.linalg.norm(_X.ravel(), np_ord))
    np.testing.assert_allclose(r, np.linalg.norm(_X, np_ord, axis=1))
    np.testing.assert_allclose(c, np.linalg.norm(_X, np_ord, axis=0, keepdims=True))


@pytest.mark.parametrize("ord", ["fro", "euclidean", 1, 2, np.inf])
def test_matrix_norms_match_numpy(ord):
    x = np.stack([_X, _X * 2 - 1])  # [2, 3, 4]
    np_ord = "fro" if ord == "euclidean" else ord
    y = tf.norm(x, ord=ord, axis=(1, 2))
    z = tf.norm(x, ord=ord, axis=[-1, -2], keep_dims=True)
    if ord == 2:  # TF 1.15's run-time permutations leave only the rank known
        assert y.get_shape().as_list() == [None] and z.get_shape().as_list() == [None] * 3
    else:
        assert y.get_shape().as_list() == [2] and z.get_shape().as_list() == [2, 1, 1]
    a, b = _run(y, z)
    np.testing.assert_allclose(a, [np.linalg.norm(m, np_ord) for m in x])
    np.testing.assert_allclose(b.ravel(), [np.linalg.norm(m.T, np_ord) for m in x])


def test_norm_gradient_is_x_over_norm():
    x = tf.constant(_X)
    (g,) = tf.gradients(tf.norm(x), [x])
    np.testing.assert_allclose(_run(g), _X / np.linalg.norm(_X))


def test_norm_bad_ord_and_axis_are_value_errors():
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.norm(_X, ord="fro")
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
        tf.norm(_X, ord=-1)
    with pytest.raises(ValueError, match="'ord' must be a supported matrix norm in"):
        tf.norm(_X, ord=3, axis=(0, 1))
    with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple of 2"):
        tf.norm(_X, axis=(1, 1))
    with pytest.raises(ValueError, match="'axis' must be None, an integer, or a tuple of 2"):
        tf.norm(_X, axis=(0, 1, 2))


# -- sort, argsort, searchsorted ----------------------------------------------------------


def test_sort_static_shapes_and_unknown_rank():
    x = tf.placeholder(tf.float32, [None, 4, 3])
    # TF 1.15's: the sort's k is tf.shape(x)[axis], no constant while x's batch is unknown
    assert tf.sort(x, axis=1).get_shape().as_list() == [None, None, 3]
    assert tf.argsort(x).dtype == tf.int32
    u = tf.placeholder(tf.float32)  # unknown rank: the transposition is built at run time
    data = np.random.RandomState(1).rand(2, 3, 4).astype(np.float32)
    got = _run(tf.sort(u, axis=1, direction="DESCENDING"), feed={u: data})
    np.testing.assert_array_equal(got, -np.sort(-data, axis=1))


def test_argsort_ascending_and_descending_keep_ties_in_order():
    x = np.array([2.0, 1.0, 2.0, 0.0, 1.0, 2.0])
    a, d = _run(tf.argsort(x, stable=True), tf.argsort(x, direction="DESCENDING", stable=True))
    np.testing.assert_array_equal(a, [3, 1, 4, 0, 2, 5])
    np.testing.assert_array_equal(d, [0, 2, 5, 1, 4, 3])


def test_sort_errors():
    with pytest.raises(ValueError, match="UP should be one of ASCENDING, DESCENDING"):
        tf.sort([1, 2], direction="UP")
    with pytest.raises(ValueError, match="axis must be a constant scalar"):
        tf.argsort([1, 2], axis=tf.placeholder(tf.int32, []))
    # TF 1.15: shape(values)[axis]'s StridedSlice refuses it in its shape function
    with pytest.raises(ValueError, match="slice index 3 of dimension 0 out of bounds"):
        tf.sort(tf.zeros([2, 3]), axis=3)


def test_searchsorted_shapes_and_errors():
    from tideflow.framework import ops

    s = tf.placeholder(tf.float32, [3, 5])
    v = tf.placeholder(tf.float32, [3, 2])
    out = tf.searchsorted(s, v)
    assert out.op.inputs[0].op.type == "LowerBound" and out.dtype == tf.int32
    assert out.get_shape().as_list() == [3, 2]
    with pytest.raises(ValueError, match="side must be either 'right' or 'left'"):
        tf.searchsorted(s, v, side="middle")
    with pytest.raises(ValueError, match=r"LowerBound: leading dim_size .* \[3,5\] vs. values "
                                         r"\[2,2\]"):
        ops.apply_op("LowerBound", [tf.zeros([3, 5]), tf.zeros([2, 2])])
    s2, v2 = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"UpperBound: leading dim_size"):
        _run(tf.searchsorted(s2, v2, side="right"),
             feed={s2: np.zeros((3, 5)), v2: np.zeros((4, 2))})


# -- scatter_nd ---------------------------------------------------------------------------


def test_tensor_scatter_static_errors_name_the_op_and_shapes():
    t = tf.zeros([4, 3])
    # TF's words; the op is named by the " for 'TensorScatterUpdate' (op: ...)" suffix
    with pytest.raises(ValueError, match=r"The inner 1 dimensions of output.shape=\[4,3\] must "
                                         r"match the inner 1 dimensions of updates.shape="
                                         r"\[2,2\]: Dimension 0 in both shapes must be "
                                         r"equal, .* for 'TensorScatterUpdate'"):
        tf.tensor_scatter_update(t, [[0], [1]], tf.zeros([2, 2]))
    with pytest.raises(ValueError, match=r"The outer 1 dimensions of indices.shape=\[2,1\] must "
                                         r"match the outer 1 dimensions of updates.shape=\[3,3\]"):
        tf.tensor_scatter_update(t, [[0], [1]], tf.zeros([3, 3]))
    with pytest.raises(ValueError, match=r"TensorScatterAdd: the last dimension of indices \(3\) "
                                         r"must be <= the rank of the target \(2\)"):
        tf.tensor_scatter_add(t, [[0, 0, 0]], [1.0])
    with pytest.raises(ValueError, match="TensorScatterSub: indices must be at least rank 1"):
        tf.tensor_scatter_sub(t, 0, [1.0])


def test_tensor_scatter_run_time_errors():
    t = tf.placeholder(tf.float32)
    ix = tf.placeholder(tf.int32)
    up = tf.placeholder(tf.float32)
    y = tf.tensor_scatter_update(t, ix, up)
    assert y.get_shape().ndims is None
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"^indices\[1\] = \[4, 0\] does not index into "
                             r"shape \[4,3\]"):
        _run(y, feed={t: np.zeros((4, 3)), ix: [[0, 0], [4, 0]], up: [1, 2]})
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"must have updates.shape"):
        _run(y, feed={t: np.zeros((4, 3)), ix: [[0], [1]], up: [1, 2]})


def test_tensor_scatter_gradients():
    wv = np.arange(12.0).reshape(4, 3) + 1
    t = tf.constant(np.zeros((4, 3)))
    u = tf.constant(np.ones((2, 3)))
    masked = wv.copy()
    masked[[3, 0]] = 0
    for fn, gt, gu in ((tf.tensor_scatter_update, masked, wv[[3, 0]]),
                       (tf.tensor_scatter_add, wv, wv[[3, 0]]),
                       (tf.tensor_scatter_sub, wv, -wv[[3, 0]])):
        out = fn(t, [[3], [0]], u)
        a, b = _run(*tf.gradients(tf.reduce_sum(out * wv), [t, u]))
        np.testing.assert_array_equal(a, gt)
        np.testing.assert_array_equal(b, gu)


def test_scatter_nd_update_on_variable_and_bad_index():
    v = tf.Variable(np.zeros((2, 2), np.float32))
    ix = tf.placeholder(tf.int32, [None, 2])
    up = tf.scatter_nd_update(v, ix, [7.0])
    with tf.Session() as s:
        s.run(v.initializer)
        np.testing.assert_array_equal(s.run(up, {ix: [[1, 0]]}), [[0, 0], [7, 0]])
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^indices\[0\] = \[2, 0\] does not index into shape \[2,2\]"):
            s.run(up, {ix: [[2, 0]]})
    assert tf.scatter_nd_update(v, [[0, 0]], [1.0]).op.get_attr("use_locking") is True
    assert tf.scatter_nd_add(v, [[0, 0]], [1.0], use_locking=True).op.get_attr("use_locking")


def test_matrix_2_norm_gradient_and_middle_axes():
    x = np.random.RandomState(3).rand(3, 2, 4)
    xt = tf.constant(x)
    n = tf.norm(xt, ord=2, axis=[0, 2], keepdims=True)
    # TF 1.15 moves the axes through run-time permutations: the rank is known, no dimension
    assert n.get_shape().as_list() == [None, None, None]
    (g,) = tf.gradients(tf.reduce_sum(n), [xt])
    got_n, got_g = _run(n, g)
    np.testing.assert_allclose(got_n.ravel(), [np.linalg.norm(x[:, i], 2) for i in range(2)])
    fd = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = 1e-6
        fd[idx] = sum(np.linalg.norm((x + d)[:, i], 2) - np.linalg.norm((x - d)[:, i], 2)
                      for i in range(2)) / 2e-6
    np.testing.assert_allclose(got_g, fd, atol=1e-6)


def test_svd_shapes_and_errors():
    x = tf.placeholder(tf.float32, [5, None, 3])
    s, u, v = tf.svd(x, full_matrices=True)
    assert s.get_shape().as_list() == [5, None] and u.get_shape().as_list() == [5, None, None]
    assert v.get_shape().as_list() == [5, 3, 3]
    assert tf.linalg.svd(tf.zeros([4, 2]), compute_uv=False).get_shape().as_list() == [2]
    with pytest.raises(ValueError, match="Shape must be at least rank 2 but is rank 1 for 'Svd"):
        tf.svd(tf.zeros([3]))
    y = tf.placeholder(tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"Svd: input must have rank >= 2"):
        _run(tf.svd(y, compute_uv=False), feed={y: np.zeros(3)})
    a = tf.constant(np.ones((2, 5)))
    _, u2, _ = tf.svd(a, full_matrices=True)
    with pytest.raises(NotImplementedError, match=r"abs\(m - n\) > 1 when full_matrices"):
        tf.gradients(tf.reduce_sum(u2), [a])
