"""Op-table rows for Dilation2D and its backprop ops (against explicit window loops) and for
the fixed-unigram, learned-unigram and all-candidates samplers (seeding, statistics)."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.framework import ops as _ops
from tideflow.ops import (  # noqa: F401 - registers the ops
    fractional_pool_ops,
    morphology_ops,
    nn_extra_ops,
)

_rng = np.random.RandomState(21)
IMG = _rng.randn(2, 5, 4, 2)
KER = _rng.randn(2, 3, 2)


def _geometry(h, w, fh, fw, st, rt, padding):
    eh, ew = (fh - 1) * rt[1] + 1, (fw - 1) * rt[2] + 1
    if padding == "VALID":
        return -(-(h - eh + 1) // st[1]), -(-(w - ew + 1) // st[2]), 0, 0
    oh, ow = -(-h // st[1]), -(-w // st[2])
    return (oh, ow, max((oh - 1) * st[1] + eh - h, 0) // 2,
            max((ow - 1) * st[2] + ew - w, 0) // 2)


def ref_dilation(x, f, st, rt, padding, dy=None):
    """Output and (given dy) the input and filter gradients, routing each output's gradient to
    the first window tap reaching the max."""
    b, h, w, d = x.shape
    fh, fw, _ = f.shape
    oh, ow, pt, pl = _geometry(h, w, fh, fw, st, rt, padding)
    out = np.zeros((b, oh, ow, d))
    gx, gf = np.zeros(x.shape), np.zeros(f.shape)
    for n in range(b):
        for y in range(oh):
            for xx in range(ow):
                for c in range(d):
                    best, where = -np.inf, None
                    for i in range(fh):
                        for j in range(fw):
                            r, q = y * st[1] + i * rt[1] - pt, xx * st[2] + j * rt[2] - pl
                            if 0 <= r < h and 0 <= q < w and x[n, r, q, c] + f[i, j, c] > best:
                                best, where = x[n, r, q, c] + f[i, j, c], (r, q, i, j)
                    out[n, y, xx, c] = best
                    if dy is not None and where is not None:
                        gx[n, where[0], where[1], c] += dy[n, y, xx, c]
                        gf[where[2], where[3], c] += dy[n, y, xx, c]
    return out, gx, gf


def _dil_case(st, rt, padding):
    attrs = {"strides": st, "rates": rt, "padding": padding}
    oh, ow, _, _ = _geometry(5, 4, 2, 3, st, rt, padding)
    dy = _rng.randn(2, oh, ow, 2)

    def fwd(x, f):
        return _ops.apply_op("Dilation2D", [x, f], attrs)._outputs[0]

    def bp(x, f, g):
        return [_ops.apply_op(t, [x, f, g], attrs)._outputs[0]
                for t in ("Dilation2DBackpropInput", "Dilation2DBackpropFilter")]

    def ref_bp(x, f, g):
        _, gx, gf = ref_dilation(x, f, st, rt, padding, g)
        return [gx.astype(x.dtype), gf.astype(x.dtype)]

    tag = f"{padding}_{st[1]}{st[2]}_{rt[1]}{rt[2]}"
    return [
        Case("Dilation2D", fwd, [IMG, KER],
             lambda x, f: ref_dilation(x, f, st, rt, padding)[0].astype(x.dtype),
             name=f"Dilation2D_{tag}"),
        Case(("Dilation2DBackpropInput", "Dilation2DBackpropFilter"), bp, [IMG, KER, dy],
             ref_bp, grad=False, name=f"Dilation2DBackprop_{tag}"),
    ]


CASES = []
for _st, _rt, _pad in (([1, 1, 1, 1], [1, 1, 1, 1], "SAME"), ([1, 2, 1, 1], [1, 1, 2, 1], "VALID"),
                       ([1, 2, 2, 1], [1, 2, 1, 1], "SAME")):
    CASES += _dil_case(_st, _rt, _pad)


def _run_sampler(op_type, attrs, true, runs=2):
    with tf.Graph().as_default():
        out = _ops.apply_op(op_type, [tf.constant(true)], attrs)._outputs
        assert [o.dtype for o in out] == [tf.int64, tf.float32, tf.float32]
        n = attrs["num_sampled"]
        assert [o.get_shape().as_list() for o in out] == [[n], list(true.shape), [n]]
        with tf.Session() as s:
            return [s.run(out) for _ in range(runs)]


def _check_fixed_unigram():
    true = np.array([[2, 3], [4, 1]], np.int64)
    unigrams = [1.0, 4.0, 0.0, 9.0, 16.0]
    attrs = {"num_true": 2, "num_sampled": 400, "unique": False, "range_max": 6,
             "unigrams": unigrams, "num_reserved_ids": 1, "distortion": 0.5, "seed": 3,
             "seed2": 4}
    a, b = _run_sampler("FixedUnigramCandidateSampler", attrs, true)
    again = _run_sampler("FixedUnigramCandidateSampler", attrs, true, runs=1)[0]
    np.testing.assert_array_equal(a[0], again[0])  # seeded: same draws in a new graph
    assert not np.array_equal(a[0], b[0])
    w = np.array([0.0] + [u ** 0.5 for u in unigrams])
    p = w / w.sum()
    np.testing.assert_allclose(a[1], 400 * p[true], rtol=1e-6)
    np.testing.assert_allclose(a[2], 400 * p[a[0]], rtol=1e-6)
    assert 0 not in a[0] and 3 not in a[0]  # reserved id and zero unigram never drawn
    freq = np.bincount(np.concatenate([a[0], b[0]]), minlength=6) / 800
    np.testing.assert_allclose(freq, p, atol=0.06)
    # as TF's FixedUnigramSampler: a shard keeps its reserved ids, then the unigrams whose
    # ids (counted from the weights kept so far) fall in it; the range is the number kept
    sharded = _run_sampler("FixedUnigramCandidateSampler",
                           dict(attrs, num_shards=2, shard=1, range_max=2), true, runs=1)[0]
    freq = np.bincount(sharded[0], minlength=2) / 400  # unigrams 4 and 9, distorted: 2 and 3
    np.testing.assert_allclose(freq, [0.4, 0.6], atol=0.08)
    np.testing.assert_allclose(sharded[2], 400 * np.array([0.4, 0.6])[sharded[0]], rtol=1e-6)
    with tf.Graph().as_default():
        bad = _ops.apply_op("FixedUnigramCandidateSampler", [tf.constant(true)],
                            dict(attrs, range_max=9))._outputs
        with tf.Session() as s:
            try:
                s.run(bad)
            except tf.errors.InvalidArgumentError as e:
                assert "range_max" in str(e)
            else:
                raise AssertionError("a range_max not matching the unigrams must fail")


def _check_learned_unigram():
    true = np.array([[7], [7], [7], [7]], np.int64)
    attrs = {"num_true": 1, "num_sampled": 3, "unique": True, "range_max": 10, "seed": 1,
             "seed2": 2}
    runs = _run_sampler("LearnedUnigramCandidateSampler", attrs, true, runs=30)
    # before any update the distribution is uniform; each run then adds the true class
    first_true_ec = runs[0][1]
    assert (first_true_ec > 0).all()
    assert runs[-1][1][0, 0] > first_true_ec[0, 0]  # class 7 grew more likely
    assert all(len(set(r[0].tolist())) == 3 for r in runs)
    plain = dict(attrs, unique=False)
    r = _run_sampler("LearnedUnigramCandidateSampler", plain, true, runs=1)[0]
    np.testing.assert_allclose(r[1], np.full((4, 1), 3 / 10), rtol=1e-6)


def _check_all_sampler():
    true = np.array([[1, 2], [0, 4]], np.int64)
    a = _run_sampler("AllCandidateSampler", {"num_true": 2, "num_sampled": 5, "unique": True},
                     true, runs=1)[0]
    assert a[0].tolist() == [0, 1, 2, 3, 4]
    assert (a[1] == 1).all() and (a[2] == 1).all()


CASES += [
    Case("FixedUnigramCandidateSampler", check=_check_fixed_unigram),
    Case("LearnedUnigramCandidateSampler", check=_check_learned_unigram),
    Case("AllCandidateSampler", check=_check_all_sampler),
]


# -- fractional pooling -------------------------------------------------------------------------

FX = _rng.randn(2, 7, 9, 2)
ROWS = np.array([0, 1, 3, 5, 7], np.int64)
COLS = np.array([0, 2, 4, 7, 9], np.int64)


def _regions(seq, overlapping, n):
    return [(seq[i], min(seq[i + 1] + (1 if overlapping else 0), n)) for i in range(len(seq) - 1)]


def ref_frac(x, rows, cols, overlapping, reduce):
    rr, cc = _regions(rows, overlapping, x.shape[1]), _regions(cols, overlapping, x.shape[2])
    out = np.zeros((x.shape[0], len(rr), len(cc), x.shape[3]))
    for i, (r0, r1) in enumerate(rr):
        for j, (c0, c1) in enumerate(cc):
            for b in range(x.shape[0]):
                for d in range(x.shape[3]):
                    out[b, i, j, d] = reduce(x[b, r0:r1, c0:c1, d])
    return out.astype(x.dtype)


def _frac_check(op_type, reduce):
    def check():
        for overlapping in (False, True):
            for pseudo in (False, True):
                with tf.Graph().as_default():
                    x = tf.placeholder(tf.float64, [2, 7, 9, 2])
                    out, rows, cols = _ops.apply_op(op_type, [x], {
                        "pooling_ratio": [1.0, 1.5, 2.0, 1.0], "pseudo_random": pseudo,
                        "overlapping": overlapping, "deterministic": True, "seed": 5,
                        "seed2": 6})._outputs
                    assert out.get_shape().as_list() == [2, 4, 4, 2]
                    grad = tf.gradients(tf.reduce_sum(out * out), x)[0]
                    with tf.Session() as s:
                        o, r, c, g = s.run([out, rows, cols, grad], {x: FX})
                assert r[0] == 0 and r[-1] == 7 and c[0] == 0 and c[-1] == 9
                assert (np.diff(r) >= 1).all() and (np.diff(c) >= 1).all()
                assert set(np.diff(r)) <= {1, 2} and set(np.diff(c)) <= {2, 3}
                np.testing.assert_allclose(o, ref_frac(FX, r, c, overlapping, reduce))
                # the gradient of sum(out^2) by finite differences on a few entries
                for k in _rng.choice(FX.size, 6, replace=False):
                    e = np.zeros(FX.shape)
                    e.flat[k] = 1e-6
                    num = ((ref_frac(FX + e, r, c, overlapping, reduce) ** 2).sum() -
                           (ref_frac(FX - e, r, c, overlapping, reduce) ** 2).sum()) / 2e-6
                    np.testing.assert_allclose(g.flat[k], num, atol=1e-5)
        # deterministic: the same regions on every run
        with tf.Graph().as_default():
            out = _ops.apply_op(op_type, [tf.constant(FX)], {
                "pooling_ratio": [1.0, 1.5, 2.0, 1.0], "deterministic": True, "seed": 1,
                "seed2": 1})._outputs
            with tf.Session() as s:
                first = s.run(out[1:])
                for _ in range(3):
                    np.testing.assert_array_equal(s.run(out[1:])[0], first[0])

    return check


def _frac_max_grad(x, out, g, rows, cols):
    return _ops.apply_op("FractionalMaxPoolGrad", [x, out, g, rows, cols])._outputs[0]


def _frac_max_grad_ref(x, out, g, rows, cols):
    res = np.zeros(x.shape)
    for i, (r0, r1) in enumerate(_regions(rows, False, x.shape[1])):
        for j, (c0, c1) in enumerate(_regions(cols, False, x.shape[2])):
            for b in range(x.shape[0]):
                for d in range(x.shape[3]):
                    win = x[b, r0:r1, c0:c1, d]
                    y, xx = np.unravel_index(np.argmax(win), win.shape)
                    res[b, r0 + y, c0 + xx, d] += g[b, i, j, d]
    return res.astype(x.dtype)


def _frac_avg_grad(shape, g, rows, cols):
    return _ops.apply_op("FractionalAvgPoolGrad", [shape, g, rows, cols],
                         {"overlapping": True})._outputs[0]


def _frac_avg_grad_ref(shape, g, rows, cols):
    res = np.zeros(tuple(shape))
    for i, (r0, r1) in enumerate(_regions(rows, True, shape[1])):
        for j, (c0, c1) in enumerate(_regions(cols, True, shape[2])):
            res[:, r0:r1, c0:c1] += g[:, i:i + 1, j:j + 1] / ((r1 - r0) * (c1 - c0))
    return res.astype(g.dtype)


_G4 = _rng.randn(2, 4, 4, 2)
CASES += [
    Case("FractionalMaxPool", check=_frac_check("FractionalMaxPool", np.max)),
    Case("FractionalAvgPool", check=_frac_check("FractionalAvgPool", np.mean)),
    Case("FractionalMaxPoolGrad", _frac_max_grad,
         [FX, ref_frac(FX, ROWS, COLS, False, np.max), _G4, ROWS, COLS], _frac_max_grad_ref,
         fixed=(3, 4), grad=False),
    Case("FractionalAvgPoolGrad", _frac_avg_grad,
         [np.array(FX.shape, np.int64), _G4, ROWS, COLS], _frac_avg_grad_ref,
         fixed=(0, 2, 3), grad=False),
]
