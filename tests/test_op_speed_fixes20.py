"""Values of kernels made faster (whole-array index checks, row rounds for scatters): the same
numbers and the same first error, in TF 1.15's words, as the row-by-row versions."""

import numpy as np
import pytest

import tideflow as tf


def _run(t):
    with tf.Session() as sess:
        return sess.run(t)


@pytest.mark.parametrize("indices,message", [
    # TF 1.15's messages (run there): the first bad row wins; a row's bounds come first
    ([[0, 1], [1, 0], [1, 0], [3, 3]], "indices[2] = [1,0] is repeated"),
    ([[0, 1], [1, 2], [1, 1], [5, 0]], ("indices[2] = [1,1] is out of order. Many sparse ops "
                                        "require sorted indices.\n    Use `tf.sparse.reorder` "
                                        "to create a correctly ordered copy.\n\n")),
    ([[0, 1], [1, 2], [4, 1], [0, 0]], "indices[2] = [4,1] is out of bounds: need 0 <= index"),
    ([[0, 1], [0, 1], [9, 9]], "indices[1] = [0,1] is repeated"),
    ([[2, 2], [1, 1], [2, 9]], "indices[1] = [1,1] is out of order."),
    ([[0, 0], [0, -1]], "indices[1] = [0,-1] is out of bounds"),
])
def test_sparse_to_dense_first_bad_index(indices, message):
    t = tf.sparse_to_dense(np.array(indices, np.int64), [4, 3], 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run(t)
    assert e.value.message.startswith(message)


def test_sparse_to_dense_sorted_many():
    rng = np.random.RandomState(0)
    flat = np.unique(rng.randint(0, 300 * 200, 5000))
    idx = np.stack(np.unravel_index(flat, (300, 200)), 1).astype(np.int64)
    vals = rng.standard_normal(len(idx)).astype(np.float32)
    want = np.full((300, 200), -1.0, np.float32)
    want[idx[:, 0], idx[:, 1]] = vals
    got = _run(tf.sparse_to_dense(idx, [300, 200], vals, -1.0))
    np.testing.assert_array_equal(got, want)


def _add_at(out, index, rows):
    np.add.at(out, index, rows)  # each row in turn, in index order: TF's kernels' order
    return out


def test_sparse_tensor_dense_matmul_repeated_rows():
    rng = np.random.RandomState(1)
    idx = np.stack([rng.randint(0, 40, 3000), rng.randint(0, 30, 3000)], 1).astype(np.int64)
    vals = rng.standard_normal(3000).astype(np.float32)
    b = rng.standard_normal((30, 64)).astype(np.float32)
    sp = tf.SparseTensor(idx, vals, [40, 30])
    got = _run(tf.sparse_tensor_dense_matmul(sp, b))
    want = _add_at(np.zeros((40, 64), np.float32), idx[:, 0], vals[:, None] * b[idx[:, 1]])
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("shape,k", [([50, 40], 1), ([6, 7, 48], 2), ([5, 6, 40, 3], 2),
                                     ([9, 8], 2)])
def test_scatter_nd_duplicates_in_order(shape, k):
    rng = np.random.RandomState(2)
    idx = np.stack([rng.randint(0, shape[j], (30, 20)) for j in range(k)], -1).astype(np.int32)
    upd = rng.standard_normal((30, 20) + tuple(shape[k:])).astype(np.float32)
    where = tuple(np.moveaxis(idx, -1, 0))
    got = _run(tf.scatter_nd(idx, upd, shape))
    assert got.tobytes() == _add_at(np.zeros(shape, np.float32), where, upd).tobytes()
    base = rng.standard_normal(shape).astype(np.float32)
    got = _run(tf.tensor_scatter_sub(base, idx, upd))
    want = base.copy()
    np.subtract.at(want, where, upd)
    assert got.tobytes() == want.tobytes()


def test_scatter_nd_add_variable_in_place():
    rng = np.random.RandomState(3)
    idx = rng.randint(0, 100, (500, 1)).astype(np.int64)
    upd = rng.standard_normal((500, 64)).astype(np.float32)
    init = rng.standard_normal((100, 64)).astype(np.float32)
    v = tf.Variable(init)
    op = tf.scatter_nd_add(v, idx, upd)
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(op)
        got = sess.run(v)
    assert got.tobytes() == _add_at(init.copy(), idx[:, 0], upd).tobytes()


def test_sparse_softmax_groups_unsorted_rows():
    rng = np.random.RandomState(4)
    idx = np.stack([rng.randint(0, 5, 400), rng.randint(0, 6, 400), np.arange(400)], 1)
    vals = rng.standard_normal(400).astype(np.float32)
    got = _run(tf.sparse_softmax(tf.SparseTensor(idx.astype(np.int64), vals, [5, 6, 400]))).values
    want = np.empty_like(vals)
    for key in set(map(tuple, idx[:, :2])):
        sel = (idx[:, 0] == key[0]) & (idx[:, 1] == key[1])
        e = np.exp(vals[sel] - vals[sel].max())
        want[sel] = e / e.sum()
    # as TF 1.15 (checked on this input): the values come out in row-major index order
    np.testing.assert_allclose(got, want[np.lexsort(idx.T[::-1])], rtol=1e-6)


def test_crop_and_resize_image_gradient_overlapping_boxes():
    # each sample's four corner shares are added to the image one after another, as TF's
    # kernel: a float32 np.add.at over the samples in order gives the same sums
    rng = np.random.RandomState(5)
    boxes = rng.uniform(0, 1, (6, 4)).astype(np.float32)
    bi = np.array([0, 1, 0, 0, 1, 1], np.int32)
    g = rng.standard_normal((6, 9, 7, 40)).astype(np.float32)
    got = _run(tf.raw_ops.CropAndResizeGradImage(grads=g, boxes=boxes, box_ind=bi,
                                                 image_size=[2, 11, 13, 40], T=tf.float32))
    want = np.zeros((2, 11, 13, 40), np.float32)
    one = np.float32(1)
    for b in range(6):
        y1, x1, y2, x2 = boxes[b]
        sy = (y2 - y1) * np.float32(10) / np.float32(8)
        sx = (x2 - x1) * np.float32(12) / np.float32(6)
        for i in range(9):
            y = y1 * np.float32(10) + np.float32(i) * sy
            if not 0 <= y <= 10:
                continue
            t, bo = int(np.floor(y)), int(np.ceil(y))
            fy = y - np.floor(y)
            for j in range(7):
                x = x1 * np.float32(12) + np.float32(j) * sx
                if not 0 <= x <= 12:
                    continue
                le, ri = int(np.floor(x)), int(np.ceil(x))
                fx = x - np.floor(x)
                dtop, dbot = (one - fy) * g[b, i, j], fy * g[b, i, j]
                img = want[bi[b]]
                img[t, le] += (one - fx) * dtop
                img[t, ri] += fx * dtop
                img[bo, le] += (one - fx) * dbot
                img[bo, ri] += fx * dbot
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _nearest_grad_reference(g, h, w):
    # TF 1.15's kernel: every gradient pixel added into the source pixel it was copied from
    b, gh, gw, c = g.shape
    iy = np.minimum(np.floor(np.arange(gh) * (h / gh)).astype(int), h - 1)
    ix = np.minimum(np.floor(np.arange(gw) * (w / gw)).astype(int), w - 1)
    out = np.zeros((b, h, w, c), np.float64)
    for y in range(gh):
        for x in range(gw):
            out[:, iy[y], ix[x]] += g[:, y, x]
    return out.astype(g.dtype)


@pytest.mark.parametrize("size,out", [((5, 7), (10, 14)), ((6, 4), (9, 11)), ((8, 8), (3, 5))])
def test_resize_nearest_neighbor_gradient(size, out):
    rng = np.random.RandomState(7)
    x = tf.Variable(np.zeros((2,) + size + (33,), np.float32))
    g = rng.standard_normal((2,) + out + (33,)).astype(np.float32)
    grad = tf.gradients(tf.image.resize_nearest_neighbor(x, out), x, grad_ys=g)[0]
    with tf.Session() as sess:
        sess.run(x.initializer)
        got = sess.run(grad)
    np.testing.assert_allclose(got, _nearest_grad_reference(g, *size), rtol=1e-6, atol=1e-6)


def test_resize_nearest_neighbor_gradient_inf():
    # TF 1.15 gives [[inf, 4], [4, 4]]: an infinite gradient stays in its own source pixel
    x = tf.Variable(np.zeros((1, 2, 2, 1), np.float32))
    g = np.ones((1, 4, 4, 1), np.float32)
    g[0, 0, 0, 0] = np.inf
    grad = tf.gradients(tf.image.resize_nearest_neighbor(x, [4, 4]), x, grad_ys=g)[0]
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert sess.run(grad).reshape(2, 2).tolist() == [[np.inf, 4.0], [4.0, 4.0]]


# (no uint32/uint64: TF 1.15 has no Unique kernel for them)
@pytest.mark.parametrize("dtype", [np.int32, np.int64, np.uint8, np.int8, np.uint16])
def test_unique_first_occurrence_order(dtype):
    # TF 1.15's Unique: values in order of first appearance, idx into them (NumPy reference)
    rng = np.random.RandomState(9)
    info = np.iinfo(dtype)
    for x in (rng.randint(0, 100, 5000).astype(dtype),
              np.array([info.max, info.min, info.max, 3, info.min], dtype),
              (np.array(info.max, dtype) - rng.randint(0, 50, 300).astype(dtype)).astype(dtype)):
        y, idx = _run(tf.unique(tf.constant(x), out_idx=tf.int64))
        seen = {}
        want_idx = [seen.setdefault(v, len(seen)) for v in x.tolist()]
        assert y.dtype == dtype and y.tolist() == list(seen)
        assert idx.dtype == np.int64 and idx.tolist() == want_idx


def test_decode_csv_plain_and_quoted_records():
    # TF 1.15 (run there): plain records split on the delimiter (a trailing one gives an
    # empty last field, filled from its default); quoted fields keep their delimiters
    recs = ['1,2.5,abc,7', '-3,,x y,', '"4","1e3","a,b",8', ',0.25,"",-9']
    out = _run(tf.decode_csv(recs, [[0], [-1.0], ['d'], [5]]))
    assert out[0].tolist() == [1, -3, 4, 0]
    assert out[1].tolist() == [2.5, -1.0, 1000.0, 0.25]
    assert out[2].tolist() == [b'abc', b'x y', b'a,b', b'd']
    assert out[3].tolist() == [7, 5, 8, -9]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Expect 2 fields but have 3"):
        _run(tf.decode_csv(['1,2,3'], [[0], [0]]))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="Field 1 in record 0 is not a valid int32: 9999999999"):
        _run(tf.decode_csv(['1,9999999999'], [[0], [0]]))


def _greedy_nms_reference(boxes, scores, m, t):
    # TF 1.15's greedy selection: by falling score, kept unless IoU >= t with a kept box
    kept = []
    for i in np.argsort(-scores, kind="stable"):
        if len(kept) >= m:
            break
        y0, x0, y1, x1 = boxes[i]
        ok = True
        for k in kept:
            ky0, kx0, ky1, kx1 = boxes[k]
            inter = (max(min(y1, ky1) - max(y0, ky0), 0) * max(min(x1, kx1) - max(x0, kx0), 0))
            area, karea = (y1 - y0) * (x1 - x0), (ky1 - ky0) * (kx1 - kx0)
            if area > 0 and karea > 0 and inter / (area + karea - inter) >= t:
                ok = False
                break
        if ok:
            kept.append(int(i))
    return kept


@pytest.mark.parametrize("n,m,t,spread", [(300, 1000, 0.5, 0.5), (700, 50, 0.7, 1.0),
                                          (400, 400, 0.3, 2.0)])
def test_non_max_suppression_across_blocks(n, m, t, spread):
    rng = np.random.RandomState(13)
    c = rng.uniform(0, spread, (n, 2))
    boxes = np.concatenate([c, c + rng.uniform(0.05, 0.4, (n, 2))], 1).astype(np.float32)
    scores = (rng.permutation(n) / n + 0.01).astype(np.float32)
    got = _run(tf.image.non_max_suppression(boxes, scores, m, t))
    assert got.tolist() == _greedy_nms_reference(boxes.astype(np.float64), scores, m, t)


def test_string_to_hash_bucket_fast_repeated_values():
    # TF 1.15's buckets (run there), the same on a second run (fingerprints kept)
    words = [b'', b'a', b'hello', b'x' * 20, b'y' * 50, b'z' * 130, b'hello', b'a']
    want = [797982799, 920614371, 825756904, 251088324, 739446803, 728035492, 825756904,
            920614371]
    t = tf.strings.to_hash_bucket_fast(words, 1 << 30)
    with tf.Session() as sess:
        assert sess.run(t).tolist() == want
        assert sess.run(t).tolist() == want
