"""Two-operand Einsum runs as transposes and one batched matmul: every label pattern (batch,
contracted, free, summed in one operand only, scalar outputs, reordered outputs) against
np.einsum, in float32/float64/complex64, and the fallbacks it must leave to np.einsum."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops.linalg_ops import _einsum, _pairwise_einsum

_SIZES = dict(zip("BTNHFDijkabcdxyzw", [4, 5, 2, 3, 6, 7, 3, 4, 5, 2, 3, 4, 5, 2, 3, 4, 3]))
_EQUATIONS = ["BTNH,BFNH->BNFT", "BFD,DNH->BFNH", "BNFT,BTNH->BFNH", "BFNH,NHD->BFD",
              "ij,jk->ik", "ij,jk->ki", "bij,bjk->bik", "ij,kj->ik", "i,i->", "i,j->ij",
              "ij,j->i", "abc,cd->abd", "abc,bc->a", "ijk,ij->k", "ab,cd->abcd", "ik,kj->",
              "ab,b->ab", "xyz,zyw->wx"]


@pytest.mark.parametrize("equation", _EQUATIONS)
def test_pairwise_einsum_matches_numpy(equation):
    rng = np.random.RandomState(0)
    lhs = equation.split("->")[0].split(",")
    for dt in (np.float32, np.float64, np.complex64):
        operands = [rng.standard_normal([_SIZES[c] for c in s]).astype(dt) for s in lhs]
        assert _pairwise_einsum(equation, *operands) is not None
        want = np.einsum(equation, *operands)
        got = _einsum(operands, equation=equation)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert got.flags.c_contiguous
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("equation", ["...ij,...jk->...ik", "ii,ij->j", "ij,jk,kl->il",
                                      "ij,jk"])
def test_other_forms_are_left_to_numpy(equation):
    rng = np.random.RandomState(1)
    lhs = equation.split("->")[0].split(",")
    operands = [rng.standard_normal([3] * len(s.replace("...", "a"))) for s in lhs]
    if len(operands) == 2:
        assert _pairwise_einsum(equation, *operands) is None
    np.testing.assert_allclose(_einsum(operands, equation=equation),
                               np.einsum(equation, *operands), rtol=1e-12)


def test_mismatched_label_sizes_still_fail_in_the_session():
    a = tf.placeholder(tf.float32, [None, 3])
    b = tf.placeholder(tf.float32, [None, 4])
    out = tf.einsum("ij,jk->ik", a, b)
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError):
        s.run(out, {a: np.ones((2, 3)), b: np.ones((4, 4))})
