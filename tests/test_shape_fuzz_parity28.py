"""Differential fuzzing of array and shape ops against TF 1.15 (session 28, helper h313):
random programs of reshape/transpose/expand_dims/squeeze/concat/stack/unstack/split/tile/pad/
slice/strided_slice (Python slicing and raw masks)/gather (axis, batch_dims)/gather_nd/
scatter_nd/boolean_mask/where/one_hot/sequence_mask/reverse(_sequence)/roll/unique/setdiff1d/
top_k/sort/argsort/argmax/cumsum/segment ops/space<->batch/depth/meshgrid/broadcast_to/shape
ops/matrix_band_part/matrix_diag*/einsum over placeholders of partly known shapes, compared
with TF 1.15 for static shapes (str and as_list), values, dtypes and errors (class, message, at
build or at run, and for fed values of the wrong shape). Below: the minimal cases where
tideflow differed, with TF 1.15's answers as measured, then a small seeded fuzz run that checks
tideflow against NumPy and against its own static shapes."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run(t, feed=None):
    with tf.Session() as s:
        return s.run(t, feed)


def _run_error(t, feed=None):
    with tf.Session() as s, pytest.raises(tf.errors.OpError) as e:
        s.run(t, feed)
    return type(e.value), e.value.message.split("\n")[0]


P = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
I2 = [[0, 1], [1, 2]]


# ---- tf.gather with batch_dims (TF 1.15's wrapper, shape function and kernel) -------------

def test_gather_batch_dims_axis0_takes_the_plain_gather():
    # TF 1.15's tf.gather passes batch_dims only when the constant axis is not 0
    p = tf.placeholder(tf.float32, [2, 3, 4])
    t = tf.gather(p, I2, axis=0, batch_dims=1)
    assert t.shape.as_list() == [2, 2, 3, 4]
    assert "batch_dims" not in t.op.node_def.attr or t.op.get_attr("batch_dims") == 0
    assert _run_error(t, {p: P}) == (tf.errors.InvalidArgumentError,
                                     "indices[1,1] = 2 is not in [0, 2)")


def test_gather_batch_dims_unknown_axis_keeps_the_batch_dims_in_the_rank():
    # TF 1.15: rank(params) + rank(indices) - 1, batch_dims not taken off
    p = tf.placeholder(tf.float32, [2, 3, 4])
    a = tf.placeholder(tf.int32, [])
    assert str(tf.gather(p, I2, axis=a, batch_dims=1).shape) == "(?, ?, ?, ?)"
    assert str(tf.gather(p, I2, axis=a, batch_dims=-3).shape) == "(?, ?, ?, ?)"


def test_gather_batch_dims_shape_function_errors():
    p = tf.placeholder(tf.float32, None)
    with pytest.raises(ValueError, match=r"^Subshape start out of bounds: -3, for shape with "
                                         r"rank 2 for 'GatherV2'"):
        tf.gather(p, I2, axis=1, batch_dims=-3)
    # batch_dims past the indices' rank: unknown params build (Subshape clamps) ...
    assert tf.gather(p, I2, axis=2, batch_dims=3).shape.ndims is None
    # ... known params need rank batch_dims + 1
    with pytest.raises(ValueError, match=r"^Shape must be at least rank 4 but is rank 3"):
        tf.gather(tf.placeholder(tf.float32, [2, 3, 4]), I2, axis=2, batch_dims=3)


def test_gather_batch_dims_kernel_errors_in_tf_words():
    p = tf.placeholder(tf.float32, None)
    cases = [
        (tf.gather(p, I2, axis=2, batch_dims=2), P,
         "Expected batch_dims in the range [-2, 2), but got 2"),
        (tf.gather(p, I2, axis=2, batch_dims=3), P,
         "Expected batch_dims in the range [-2, 2), but got 3"),
        (tf.gather(p, [0, 1], axis=1, batch_dims=1), P,
         "Expected batch_dims in the range [-1, 1), but got 1"),
        (tf.gather(p, [[0]], batch_dims=1), P[0, 0],
         "Expected axis in the range [-1, 1), but got 1"),
        # a bad index is named by its place in the whole indices tensor
        (tf.gather(p, [[0, 1], [1, 5]], axis=2, batch_dims=1), P,
         "indices[1,1] = 5 is not in [0, 4)"),
        (tf.gather(p, [[0, -1], [1, 2]], axis=2, batch_dims=1), P,
         "indices[0,1] = -1 is not in [0, 4)"),
        (tf.gather(p, [[[0, 3], [1, 2], [0, 0]], [[0, 1], [1, 9], [0, 0]]], axis=2,
                   batch_dims=2), P, "indices[1,1,1] = 9 is not in [0, 4)"),
    ]
    for t, v, msg in cases:
        assert _run_error(t, {p: v}) == (tf.errors.InvalidArgumentError, msg)


def test_gather_batch_dims_reads_indices_by_params_batch():
    # TF 1.15 does not compare the batch dimensions: indices [3, 1] against params' batch of
    # 2 read as 2 rows of 1 (values measured in TF 1.15)
    p = tf.placeholder(tf.float32, [2, 3, 4])
    t = tf.gather(p, [[0], [1], [2]], axis=1, batch_dims=1)
    assert t.shape.as_list() == [2, 1, 4]
    assert _run(t, {p: P}).ravel().tolist() == [0, 1, 2, 3, 16, 17, 18, 19]
    assert _run(tf.gather(p, I2, axis=-1, batch_dims=1), {p: P}).ravel().tolist() == [
        0, 1, 4, 5, 8, 9, 13, 14, 17, 18, 21, 22]


# ---- strided_slice: an unknown dimension skips TF's shrink checks -------------------------

def test_strided_slice_shrink_negative_stride_on_unknown_dim_builds():
    x = tf.placeholder(tf.float32, [None])
    t = tf.strided_slice(x, [0], [1], [-1], shrink_axis_mask=1)
    assert t.shape.as_list() == []
    assert _run_error(t, {x: [1., 2., 3.]}) == (
        tf.errors.InvalidArgumentError, "only stride 1 allowed on non-range indexing.")
    # the known dimension's index is checked first at build
    y = tf.placeholder(tf.float32, [1, None])
    with pytest.raises(ValueError, match=r"^slice index 5 of dimension 0 out of bounds\."):
        tf.strided_slice(y, [5, -5], [2, -1], [1, -2], shrink_axis_mask=3)
    assert tf.strided_slice(y, [0, 1], [2, -1], [1, -2], shrink_axis_mask=3).shape.ndims == 0


# ---- matrix_diag_part: a known 0 wins over an unknown dimension (TF's Min) ----------------

def test_matrix_diag_part_zero_dim_static_shape():
    x = tf.placeholder(tf.float32, [2, None, 0])
    t = tf.matrix_diag_part(x)
    assert str(t) == 'Tensor("diag_part:0", shape=(2, 0), dtype=float32)'
    assert _run(t, {x: np.zeros([2, 3, 0])}).shape == (2, 0)
    assert tf.matrix_diag_part(tf.placeholder(tf.float32, [0, None])).shape.as_list() == [0]


# ---- where_v2: then/else combined first ---------------------------------------------------

def test_where_v2_broadcast_error_words():
    x = tf.placeholder(tf.float32, None)
    y = tf.placeholder(tf.float32, None)
    c = tf.placeholder(tf.bool, None)
    assert _run_error(tf.where_v2(x > 1, x, y), {x: np.ones([2, 2, 4]), y: np.ones([2, 3, 3])})[
        1] == "then [2,2,4] and else [2,3,3] must be broadcastable"
    assert _run_error(tf.where_v2(c, x, x), {c: np.ones([3], bool), x: np.ones([2])})[1] == (
        "condition [3], then [2], and else [2] must be broadcastable")


# ---- space_to_batch_nd / batch_to_space_nd: TF 1.15's shape function and kernel words -----

def test_space_batch_nd_shape_function_errors():
    cases = [
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[1, 2], [0, 0]]), [4, 1, 1, 1],
         "Negative dimension size caused by subtracting 2 from 1"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[0, 0], [3, 0]]), [4, 1, 1, 1],
         "Negative dimension size caused by subtracting 3 from 2"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[-1, 0], [0, 0]]), None,
         "crops cannot be negative"),
        (lambda p: tf.batch_to_space_nd(p, [0, 2], [[0, 0], [0, 0]]), None,
         "block_shape must be positive"),
        (lambda p: tf.space_to_batch_nd(p, [2, 2], [[0, -1], [0, 0]]), None,
         "paddings cannot be negative"),
        (lambda p: tf.space_to_batch_nd(p, [2, 2], [[0, 0], [0, 0]]), [None, None],
         "Shape must be at least rank 3 but is rank 2"),
        (lambda p: tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), [2, 3, 4, 2],
         "Dimension size must be evenly divisible by 2 but is 1"),
    ]
    for f, shape, msg in cases:
        with pytest.raises(ValueError, match="^" + msg.replace("[", r"\[")):
            f(tf.placeholder(tf.float32, shape))


def test_space_batch_nd_kernel_errors():
    x = np.zeros([2, 3, 4, 2], np.float32)
    p = tf.placeholder(tf.float32, None)
    cases = [
        (tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), x,
         "Input batch dimension (2) is not divisible by product of block sizes (4)"),
        (tf.batch_to_space_nd(p, [2, 2], [[1, 2], [0, 0]]), np.zeros([4, 1, 1, 1]),
         "cropped_shape[0]=-1 must be non-negative"),
        (tf.space_to_batch_nd(p, [2, 2], [[0, 1], [0, 1]]), x,
         "padded_shape[1]=5 is not divisible by block_shape[1]=2"),
        (tf.space_to_batch_nd(p, [2, 2], [[0, 0], [0, 0]]), x[0, 0],
         "input rank should be >= 3 instead of 2"),
        (tf.batch_to_space_nd(p, [2, 2], [[0, 0], [0, 0]]), x[0, 0],
         "input rank should be >= 3 instead of 2"),
    ]
    for t, v, msg in cases:
        assert _run_error(t, {p: v}) == (tf.errors.InvalidArgumentError, msg)


# ---- kernels instantiated for a few ranks only --------------------------------------------

def test_pad_and_reverse_sequence_rank_limits():
    p = tf.placeholder(tf.float32, None)
    for r, mode, ok in [(6, "CONSTANT", True), (7, "CONSTANT", False), (5, "REFLECT", True),
                        (6, "REFLECT", False), (6, "SYMMETRIC", False)]:
        t = tf.pad(p, [[0, 0]] * r, mode)
        v = np.ones([1] * r, np.float32)
        if ok:
            assert _run(t, {p: v}).shape == (1,) * r
        else:
            most = 6 if mode == "CONSTANT" else 5
            assert _run_error(t, {p: v}) == (tf.errors.UnimplementedError,
                                             f"inputs rank not in [0,{most}]: {r}")
    t = tf.reverse_sequence(p, [1], seq_axis=1, batch_axis=0)
    assert _run(t, {p: np.ones([1] * 5)}).shape == (1,) * 5
    assert _run_error(t, {p: np.ones([1] * 6)}) == (
        tf.errors.InvalidArgumentError, "ReverseSequenceOp : Unhandled input dimensions: 6")


# ---- shape tensors read whole (perm, size_splits) or as shapes (multiples, broadcast shape) --

def test_partly_known_perm_and_size_splits_give_unknown_dims():
    # TF 1.15 takes perm and size_splits only as whole constants (c->input_tensor)
    sc = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [2, 3, 4])
    assert str(tf.transpose(x, tf.stack([2, sc, 0])).shape) == "(?, ?, ?)"
    assert str(tf.transpose(tf.placeholder(tf.float32, None), tf.stack([1, sc])).shape) == (
        "(?, ?)")
    assert tf.transpose(tf.placeholder(tf.float32, None), tf.stack([sc])).shape.ndims is None
    y = tf.placeholder(tf.float32, [3, 2, 4, 1])
    assert str(tf.split(y, tf.stack([4, sc]), -2)[0].shape) == "(3, 2, ?, 1)"
    assert str(tf.split(y, tf.stack([sc, 2, sc]), 2)[1].shape) == "(3, 2, ?, 1)"


def test_tile_and_broadcast_to_zero_dims_with_unknown_shape_tensors():
    # TF's Multiply keeps a 0 (and 1 x unknown is unknown); BroadcastTo merges only dims > 1
    m = tf.placeholder(tf.int32, None)
    assert str(tf.tile(tf.placeholder(tf.float32, [2, 0, 0, 1]), m).shape) == "(?, 0, 0, ?)"
    assert str(tf.tile(tf.placeholder(tf.float32, [0, 0]), tf.placeholder(tf.int32, [2])).shape
               ) == "(0, 0)"
    sh = tf.placeholder(tf.int32, [5])
    x = tf.placeholder(tf.float32, [1, 0, 2, 3])
    assert str(tf.broadcast_to(x, sh).shape) == "(?, ?, ?, 2, 3)"
    assert str(tf.broadcast_to(x, [1, 1, 5, 2, 3]).shape) == "(1, 1, 5, 2, 3)"
    assert str(tf.broadcast_to(tf.placeholder(tf.float32, [0, 0]), tf.placeholder(
        tf.int32, [2])).shape) == "(?, ?)"


def test_reshape_of_an_input_with_a_known_zero_dimension():
    # TF's NumElements: a known 0 makes 0 elements whatever the unknown dimensions
    x = tf.placeholder(tf.float32, [None, 0, 1])
    with pytest.raises(ValueError, match=r"^Cannot reshape a tensor with 0 elements to shape "
                                         r"\[1\] \(1 elements\)"):
        tf.reshape(x, [1])
    assert [str(tf.reshape(x, t).shape) for t in ([0, 3], [2, -1], [0, -1], [-1])] == [
        "(0, 3)", "(2, 0)", "(0, ?)", "(0,)"]


def test_pad_paddings_not_a_matrix_words():
    x = tf.placeholder(tf.float32, None)
    p = tf.placeholder(tf.int32, None)
    for mode in ("CONSTANT", "REFLECT"):
        assert _run_error(tf.pad(x, p, mode), {x: 1.0, p: np.zeros([0], np.int32)}) == (
            tf.errors.InvalidArgumentError, "paddings must be a matrix with 2 columns: [0]")


# ---- seeded fuzz: random array programs against NumPy and against their static shapes -----
# (each program: placeholders of partly known shape, then random ops on earlier values; shape
# parameters given as Python lists, constants or fed placeholders; every value is checked
# against NumPy, its run-time shape against its static shape)

def _fuzz_program(seed):
    r = np.random.RandomState(seed)
    vals, builders, feeds_spec = [], [], []

    def new(shape_known):
        sh = tuple(int(d) for d in r.randint(1, 4, size=r.randint(1, 4)))
        v = r.randint(-4, 5, size=sh).astype(np.float64)
        ps = [d if shape_known or r.rand() < 0.5 else None for d in sh]
        ps = None if not shape_known and r.rand() < 0.15 else ps
        vals.append(v)
        builders.append(("ph", ps))
        feeds_spec.append(len(vals) - 1)

    for _ in range(r.randint(1, 3)):
        new(r.rand() < 0.4)
    ops = []
    for _ in range(r.randint(5, 12)):
        i = int(r.randint(len(vals)))
        x = vals[i]
        op = r.choice(["reshape", "transpose", "expand", "squeeze", "concat", "stack", "unstack",
                       "split", "tile", "pad", "slice", "getitem", "gather", "gather_nd",
                       "reverse", "roll", "cumsum", "one_hot", "argmax", "top_k", "bcast",
                       "band", "bmask"])
        nd = x.ndim
        if x.size == 0 or nd == 0 and op not in ("reshape", "transpose", "expand", "getitem",
                                                 "bcast", "stack", "squeeze"):
            continue  # (the others need an axis; [] as a shape parameter would be float32)
        a = int(r.randint(-nd, nd)) if nd else 0
        try:
            if op == "reshape":
                tgt = [-1] if r.rand() < 0.4 else [x.shape[0], -1] if nd else [1]
                ops.append((op, i, tgt, x.reshape(tgt)))
            elif op == "transpose":
                perm = [int(p) for p in r.permutation(nd)]
                ops.append((op, i, perm, x.transpose(perm)))
            elif op == "expand":
                a = int(r.randint(-nd - 1, nd + 1))
                ops.append((op, i, a, np.expand_dims(x, a)))
            elif op == "squeeze":
                axes = [d for d in range(nd) if x.shape[d] == 1] or None
                ops.append((op, i, axes, np.squeeze(x, tuple(axes) if axes else None)))
            elif op in ("concat", "stack"):
                ops.append((op, i, a, np.concatenate([x, -x], a) if op == "concat" else
                            np.stack([x, -x], a)))
            elif op == "unstack":
                k = int(r.randint(x.shape[a]))
                ops.append((op, i, (a, k, x.shape[a]), np.take(x, k, a)))
            elif op == "split":
                n = x.shape[a]
                s0 = int(r.randint(n + 1))
                ops.append((op, i, (a, [s0, -1]), np.split(x, [s0], a)[1]))
            elif op == "tile":
                m = [int(v) for v in r.randint(0, 3, size=nd)]
                ops.append((op, i, m, np.tile(x, m)))
            elif op == "pad":
                mode = str(r.choice(["CONSTANT", "REFLECT", "SYMMETRIC"]))
                lim = {"CONSTANT": 2, "REFLECT": -1, "SYMMETRIC": 0}[mode]
                pads = [[int(r.randint(0, (d + lim if lim <= 0 else lim) + 1)) for _ in "ab"]
                        for d in x.shape]
                ops.append((op, i, (pads, mode), np.pad(x, pads, mode.lower())))
            elif op == "slice":
                b = [int(r.randint(d + 1)) for d in x.shape]
                z = [int(r.randint(d - bb + 1)) if r.rand() < 0.7 else -1
                     for d, bb in zip(x.shape, b)]
                ops.append((op, i, (b, z), x[tuple(slice(bb, None if zz < 0 else bb + zz)
                                                   for bb, zz in zip(b, z))]))
            elif op == "getitem":
                idx = tuple(
                    int(r.randint(-d, d)) if r.rand() < 0.25 else None if r.rand() < 0.15 else
                    slice(*[None if r.rand() < 0.4 else int(r.randint(-d - 1, d + 2)),
                            None if r.rand() < 0.4 else int(r.randint(-d - 1, d + 2)),
                            int(r.choice([1, 2, -1, -2]))]) for d in x.shape[:r.randint(nd + 1)])
                if r.rand() < 0.3:
                    idx = (Ellipsis,) + idx[1:]
                ops.append((op, i, idx, x[idx]))
            elif op == "gather":
                ind = r.randint(0, x.shape[a], size=r.randint(1, 4, size=r.randint(3)))
                ops.append((op, i, (ind, a), np.take(x, ind, a)))
            elif op == "gather_nd":
                m = int(r.randint(1, nd + 1))
                ind = np.stack([r.randint(0, x.shape[d], size=[2]) for d in range(m)], -1)
                ops.append((op, i, ind, x[tuple(ind[:, d] for d in range(m))]))
            elif op == "reverse":
                ops.append((op, i, [a], np.flip(x, a)))
            elif op == "roll":
                s = int(r.randint(-4, 5))
                ops.append((op, i, (s, a), np.roll(x, s, a)))
            elif op == "cumsum":
                ops.append((op, i, a, np.cumsum(x, a)))
            elif op == "one_hot":
                depth = int(r.randint(1, 5))
                ind = np.clip(x, -1, depth).astype(np.int64)
                ops.append((op, i, depth, (ind[..., None] == np.arange(depth)).astype(
                    np.float64)))
            elif op == "argmax":
                ops.append((op, i, a, np.argmax(x, a).astype(np.float64)))
            elif op == "top_k":
                k = int(r.randint(x.shape[-1] + 1))
                ops.append((op, i, k, -np.sort(-x, -1, kind="stable")[..., :k]))
            elif op == "bcast":
                sh = [2] + [d if d != 1 else int(r.randint(1, 4)) for d in x.shape]
                ops.append((op, i, sh, np.broadcast_to(x, sh)))
            elif op == "band" and nd >= 2:
                lo, hi = int(r.randint(-1, 2)), int(r.randint(-1, 2))
                dm = np.arange(x.shape[-2])[:, None] - np.arange(x.shape[-1])
                keep = ((lo < 0) | (dm <= lo)) & ((hi < 0) | (-dm <= hi))
                ops.append((op, i, (lo, hi), np.where(keep, x, 0.0)))
            elif op == "bmask":
                mask = x.reshape(-1)[:x.shape[0]] > 0 if nd else None
                ops.append((op, i, mask, x[mask]))
            else:
                continue
        except (ValueError, IndexError):
            continue
        vals.append(np.asarray(ops[-1][3], np.float64))
        builders.append(ops[-1][:3])
    return r, vals, builders, feeds_spec


def _fuzz_build(r, builders, vals):
    T, extra = [], {}

    def P(v, kinds=4):
        k = r.randint(kinds)
        if k == 0:
            return v
        if k == 1:
            return tf.constant(np.array(v, np.int32))
        t = tf.placeholder(tf.int32, np.shape(v) if k == 2 else None)
        extra[t] = np.array(v, np.int32)
        return t

    for b in builders:
        if b[0] == "ph":
            T.append(tf.placeholder(tf.float32, b[1]))
            continue
        op, i, p = b
        x = T[i]
        if op == "reshape":
            t = tf.reshape(x, P(p))
        elif op == "transpose":
            t = tf.transpose(x, P(p))
        elif op == "expand":
            t = tf.expand_dims(x, P(p))
        elif op == "squeeze":
            t = tf.squeeze(x, p)
        elif op == "concat":
            t = tf.concat([x, -x], P(p))
        elif op == "stack":
            t = tf.stack([x, -x], p)
        elif op == "unstack":
            t = tf.unstack(x, num=p[2], axis=p[0])[p[1]]
        elif op == "split":
            t = tf.split(x, P(p[1], 3), p[0])[1]  # (num must be known)
        elif op == "tile":
            t = tf.tile(x, P(p))
        elif op == "pad":
            t = tf.pad(x, P(p[0]), p[1])
        elif op == "slice":
            t = tf.slice(x, P(p[0]), P(p[1]))
        elif op == "getitem":
            t = x[p]
        elif op == "gather":
            t = tf.gather(x, p[0], axis=P(p[1]))
        elif op == "gather_nd":
            t = tf.gather_nd(x, p)
        elif op == "reverse":
            t = tf.reverse(x, P(p))
        elif op == "roll":
            t = tf.roll(x, P(p[0]), P(p[1]))
        elif op == "cumsum":
            t = tf.cumsum(x, P(p))
        elif op == "one_hot":
            t = tf.one_hot(tf.cast(tf.clip_by_value(x, -1, p), tf.int64), P(p))
        elif op == "argmax":
            t = tf.cast(tf.argmax(x, P(p)), tf.float32)
        elif op == "top_k":
            t = tf.nn.top_k(x, P(p))[0]
        elif op == "bcast":
            t = tf.broadcast_to(x, P(p))
        elif op == "band":
            t = tf.matrix_band_part(x, p[0], p[1])
        else:
            t = tf.boolean_mask(x, p)
        T.append(t)
    return T, extra


@pytest.mark.parametrize("chunk", range(3))
def test_seeded_array_fuzz_against_numpy(chunk):
    for seed in range(chunk * 20, chunk * 20 + 20):
        with tf.Graph().as_default():
            r, vals, builders, phs = _fuzz_program(seed)
            T, extra = _fuzz_build(r, builders, vals)
            feed = dict(extra)
            feed.update({T[i]: vals[i].astype(np.float32) for i in phs})
            with tf.Session() as s:
                out = s.run(T, feed)
            for k, (t, v, want) in enumerate(zip(T, out, vals)):
                what = (seed, k, builders[k][0])
                assert v.shape == want.shape, what
                np.testing.assert_array_equal(v, want.astype(np.float32), err_msg=str(what))
                assert t.shape.is_compatible_with(v.shape), (what, t.shape, v.shape)


def test_argmax_rank_limit():
    # TF 1.15's ArgMax/ArgMin kernels take ranks 1..5 (measured: a rank-6 input fails)
    x = tf.placeholder(tf.float32, None)
    v = np.zeros([1, 2, 1, 1, 1], np.float32)
    assert _run(tf.argmax(x, 1), {x: v}).shape == (1, 1, 1, 1)
    for f in (tf.argmax, tf.argmin):
        assert _run_error(f(x, 1), {x: v[..., None]}) == (
            tf.errors.InvalidArgumentError, "ArgOp : Unhandled input dimensions: 6")


def test_fed_shape_parameters_kernel_words():
    # fed values a little off: TF 1.15's kernels' checks and words (measured)
    x = tf.placeholder(tf.float32, None)
    q = tf.placeholder(tf.int32, None)
    q2 = tf.placeholder(tf.int32, None)
    cases = [
        (tf.pad(x, q, "REFLECT"), np.ones([2, 2]), [[1, -1], [0, 0]], None,
         "paddings must be non-negative: 1 -1"),
        (tf.roll(x, 1, q), np.ones([2, 2]), -3, None, "axis -1 is out of range"),
        (tf.broadcast_to(x, q), np.ones([2, 2]), [2, 1], None,
         "Unable to broadcast tensor of shape [2,2] to tensor of shape [2,1]"),
        (tf.broadcast_to(x, q), np.ones([2, 3]), [3], None,
         "Rank of input (2) must be no greater than rank of output shape (1)."),
        (tf.broadcast_to(x, q), np.ones([2, 0]), [2, 1], None,
         "Unable to broadcast tensor of shape [2,0] to tensor of shape [2,1]"),
        (tf.slice(x, q, q2), np.ones([0, 2]), [2, 0], [0, 1],
         "Expected begin[0] == 0 (got 2) and size[0] == 0 (got 0) when input.dim_size(0) == 0"),
        (tf.reverse_sequence(x, q, seq_axis=1, batch_axis=0), np.ones([4, 2]), [1], None,
         "len(seq_lens) != input.dims(0), (1 vs. 4)"),
    ]
    for t, xv, qv, q2v, msg in cases:
        fd = {x: xv, q: qv}
        if q2v is not None:
            fd[q2] = q2v
        assert _run_error(t, fd) == (tf.errors.InvalidArgumentError, msg)
    # an empty target shape is made whatever the input's
    assert _run(tf.broadcast_to(x, q), {x: np.ones([2, 3]), q: [0, 3]}).shape == (0, 3)
    assert _run(tf.slice(x, q, q2), {x: np.ones([0, 2]), q: [0, 0], q2: [-1, 1]}).shape == (
        0, 1)


def test_reshape_divisibility_only_with_one_unknown_input_dim():
    # TF 1.15 checks that the known input dims divide the target only when exactly one input
    # dimension is unknown (with more it infers nothing)
    assert tf.reshape(tf.placeholder(tf.float32, [2, None, None, None]), [1]).shape == [1]
    assert tf.reshape(tf.placeholder(tf.float32, [2, None, None]), [3]).shape == [3]
    with pytest.raises(ValueError, match="^Dimension size must be evenly divisible by 2 but is 3"):
        tf.reshape(tf.placeholder(tf.float32, [2, None]), [3])
    x = tf.placeholder(tf.float32, None)
    q = tf.placeholder(tf.int32, None)
    assert _run_error(tf.broadcast_to(x, q), {x: np.ones([4, 1, 1, 2]), q: [4, 1, -1, 2]}) == (
        tf.errors.InvalidArgumentError, "Dimension -1 must be >= 0")


def test_negative_constant_in_a_partly_known_shape_pack_is_unknown():
    # TF reads a Pack with unknown entries element by element: a negative entry is unknown;
    # only a whole constant with an entry below -1 fails
    sc = tf.placeholder(tf.int32, [])
    x = tf.placeholder(tf.float32, [2, 4])
    for f in (lambda v: tf.tile(x, v), lambda v: tf.reshape(x, v), lambda v: tf.fill(v, 1.0),
              tf.zeros):
        assert str(f(tf.stack([-2, sc])).shape) == "(?, ?)"
    assert str(tf.broadcast_to(x, tf.stack([-2, sc])).shape) == "(2, 4)"
    with pytest.raises(ValueError, match="^Invalid value in tensor used for shape: -2"):
        tf.tile(x, [-2, 1])
    y = tf.slice(x, [0, 0], tf.stack([-2, sc]))
    assert str(y.shape) == "(?, ?)"
    with pytest.raises(ValueError, match="^Invalid value in tensor used for shape: -3"):
        tf.slice(x, [0, 0], tf.stack([1, -3]))


def test_mirror_pad_and_reverse_sequence_check_order_and_words():
    # TF 1.15 (measured): MirrorPad checks sign and size dimension by dimension;
    # ReverseSequence's kernel names the dims against input.dims()
    x = tf.placeholder(tf.float32, None)
    q = tf.placeholder(tf.int32, None)
    assert _run_error(tf.pad(x, q, "REFLECT"), {x: np.ones([0, 2]), q: [[0, 0], [0, -3]]})[
        1] == "paddings must be less than the dimension size: 0, 0 not less than 0"
    assert _run_error(tf.pad(x, q, "REFLECT"), {x: np.ones([2, 2]), q: [[0, 2], [0, -1]]})[
        1] == "paddings must be less than the dimension size: 0, 2 not less than 2"
    for s_ax, b_ax, msg in ((1, 3, "batch_dim must be < input.dims()( 3 vs. 3)"),
                            (3, 0, "seq_dim must be < input.dims()( 3 vs. 3)")):
        t = tf.reverse_sequence(x, q, seq_axis=s_ax, batch_axis=b_ax)
        assert _run_error(t, {x: np.ones([2, 2, 2]), q: [1, 1]})[1] == msg
