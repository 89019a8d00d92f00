"""Parity with TF 1.15 for programs that differentiate through gradients and loops: MAML,
gradient penalties, Hessians, Jacobians, custom and overridden gradients."""
import pytest

import tideflow as tf


def test_hessians_of_unconnected_x_takes_reshapes_name():
    """TF 1.15's hessians reshapes the None first gradient: the op's name is taken before the
    conversion fails, so the next tf.reshape is Reshape_1 (TF prints 'Reshape_1:0')."""
    with tf.Graph().as_default():
        x = tf.Variable([1.0, 2.0])
        unrelated = tf.constant([3.0])
        with pytest.raises(ValueError, match="None values not supported"):
            tf.hessians(tf.reduce_sum(x ** 3), unrelated)
        assert tf.reshape(x, [-1]).name == "Reshape_1:0"


def test_parallel_for_jacobian_and_batch_jacobian():
    """tensorflow.python.ops.parallel_for.gradients: TF 1.15 gives jacobian shapes
    (?, 2, 3, 2) and (?, 2, ?, 3), None for an unconnected input, batch_jacobian (?, 2, 3)."""
    import numpy as np

    from tideflow.python.ops.parallel_for import gradients as pg

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 3])
        w = np.array([[1., 2.], [0.5, -1.], [0., 3.]], np.float32)
        v = tf.Variable(w)
        u = tf.Variable([7.])
        y = tf.sin(tf.matmul(x, v))
        jac = pg.jacobian(y, {"v": v, "u": u, "x": x})
        assert jac["u"] is None
        assert jac["v"].get_shape().as_list() == [None, 2, 3, 2]
        assert jac["x"].get_shape().as_list() == [None, 2, None, 3]
        loop = pg.jacobian(y, [v], use_pfor=False)[0]
        bj = pg.batch_jacobian(y, x)
        assert bj.get_shape().as_list() == [None, 2, 3]
        assert pg.batch_jacobian(y, tf.placeholder(tf.float32, [None, 3])) is None
        with pytest.raises(ValueError, match=r"Need first dimension of output shape \(\(3, 2\)\)"):
            pg.batch_jacobian(tf.zeros([3, 2]), tf.zeros([4, 2]))
        xv = np.arange(6.).reshape(2, 3) / 4
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            jv, jx, jl, b = sess.run([jac["v"], jac["x"], loop, bj], {x: xv})
        c = np.cos(xv @ w)  # dy[n,k]/dx[m,j] = cos(.)[n,k] w[j,k] [n==m]
        want_b = c[:, :, None] * w.T[None]
        np.testing.assert_allclose(b, want_b, rtol=1e-5)
        np.testing.assert_allclose(jx[0, :, 0], want_b[0], rtol=1e-5)
        np.testing.assert_allclose(jx[0, :, 1], 0)
        np.testing.assert_allclose(jv, jl)
        np.testing.assert_allclose(jv[1, 0, :, 0], c[1, 0] * xv[1], rtol=1e-5)


def test_parallel_for_pfor_and_for_loop():
    """pfor gives its outputs the static shape [iters] + the loop_fn output's; for_loop leaves
    the first dimension unknown and keeps None outputs, and both check their arguments with
    TF 1.15's messages."""
    import numpy as np

    from tideflow.python.ops.parallel_for import control_flow_ops as pcf

    with tf.Graph().as_default():
        o = pcf.pfor(lambda i: (tf.cast(i, tf.float32) * 2., [tf.ones([2], tf.int32) * i]), 4)
        assert o[0].get_shape().as_list() == [4]
        assert o[1][0].get_shape().as_list() == [4, 2] and o[1][0].dtype == tf.int32
        o2 = pcf.for_loop(lambda i: (tf.cast(i, tf.float32), tf.fill([2], i)),
                          (tf.float32, tf.int32), 3)
        assert o2[1].get_shape().as_list() == [None, 2]
        assert pcf.for_loop(lambda i: [None], [tf.float32], 3) == [None]
        with pytest.raises(ValueError, match="Found parallel_iterations == 1"):
            pcf.pfor(lambda i: i, 4, parallel_iterations=1)
        with pytest.raises(ValueError, match="Number of expected outputs, 1, does not match"):
            pcf.for_loop(lambda i: [i, i], [tf.int32], 3)
        with tf.Session() as sess:
            a, b = sess.run([o, o2])
        np.testing.assert_array_equal(a[1][0], [[0, 0], [1, 1], [2, 2], [3, 3]])
        np.testing.assert_array_equal(b[0], [0., 1., 2.])


def test_second_order_through_gradient_loop_without_pops_raises():
    """The loop y <- y + w pops no forward value in its gradient loop, but the upstream
    gradient 2*y depends on w: TF 1.15 raises TypeError ("Second-order gradient for while loops
    not supported.") at the gradient loop's Enter, whatever the loop pops."""
    with tf.Graph().as_default():
        x = tf.Variable(0.7)
        w = tf.Variable([0.5, -0.3, 0.2])
        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y + w), [0, x * w])
        g = tf.gradients(tf.reduce_sum(y * y), w)[0]
        with pytest.raises(TypeError, match="Second-order gradient for while loops"):
            tf.gradients(g, [x, w])



def test_prevent_gradient_reason_is_the_attrs_bytes():
    """TF 1.15 formats PreventGradient's message attr (bytes) with %s: the second derivative
    of sparse_softmax_cross_entropy_with_logits names its reason as b"Currently ...", and
    prevent_gradient(x, message="it's") as b"it's"."""
    from tideflow.python.ops import array_ops

    with tf.Graph().as_default():
        x = tf.constant([1.5, -2.0])
        y = array_ops.prevent_gradient(x, message="it's")
        with pytest.raises(LookupError) as e:
            tf.gradients(y * 2.0, x)
        assert str(e.value) == "Gradient explicitly disabled. Reason: b\"it's\""
        logits = tf.constant([[1.0, 2.0, 0.5]])
        ce = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=[1], logits=logits)
        g = tf.gradients(ce, logits)[0]
        with pytest.raises(LookupError, match='Reason: b"Currently there is no way to take the '
                           'second derivative of sparse_softmax'):
            tf.gradients(g, logits)


def test_compute_gradient_checks_read_as_tf_asserts():
    """tf.test.compute_gradient(_error) in TF 1.15: a shape that is not x_init_value's and an
    int x are AssertionErrors (x_shape printed as given), an int y fails making its dy."""
    import numpy as np

    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [3])
        xi = tf.placeholder(tf.int32, [3])
        with tf.Session():
            with pytest.raises(AssertionError, match=r"^x_shape = \(2,\), init_data shape = \[3\]$"):
                tf.test.compute_gradient_error(x, (2,), tf.square(x), [3],
                                               x_init_value=np.zeros(3))
            with pytest.raises(AssertionError, match="^Don't support type int32 for x$"):
                tf.test.compute_gradient_error(xi, [3], tf.cast(xi, tf.float32), [3])
            with pytest.raises(TypeError, match="Expected int64, got 1.0 of type 'float'"):
                tf.test.compute_gradient(x, [3], tf.argmax(x), [], x_init_value=np.zeros(3))


def test_reshape_to_a_length_zero_shape_error_has_no_partial_shape_tail():
    """TF 1.15's first shape pass makes a shape tensor of static length 0 a scalar, so the
    error comes before any input is computed: no "computed as partial shapes" tail (the mul
    gradient of a [2] tensor fed a [1, 2] grad_ys fails so)."""
    with tf.Graph().as_default():
        z = tf.zeros([2, 3])
        with pytest.raises(ValueError) as e:
            tf.reshape(z, tf.shape(tf.zeros([])))
        assert str(e.value) == (
            "Cannot reshape a tensor with 6 elements to shape [] (1 elements) for 'Reshape' "
            "(op: 'Reshape') with input shapes: [2,3], [0].")
        with pytest.raises(ValueError, match=r"with input shapes: \[2,3\], \[1\] and with input "
                           r"tensors computed as partial shapes: input\[1\] = \[4\]\.$"):
            tf.reshape(z, tf.shape(tf.zeros([4])))
        a = tf.constant([1., 2.])
        with pytest.raises(ValueError, match=r"'gradients/mul_grad/Reshape_1' \(op: 'Reshape'\) "
                           r"with input shapes: \[2\], \[0\]\.$"):
            tf.gradients(a * 3., [a], grad_ys=[tf.constant([[1., 2.]])])


def test_gradients_of_or_for_none_fail_on_its_op_after_taking_the_scope():
    """TF 1.15: tf.gradients(None, a) and tf.gradients(b, [None]) raise AttributeError
    ('NoneType' object has no attribute 'op') inside their name scope, so the next call's ops
    sit under gradients_2/."""
    with tf.Graph().as_default():
        a = tf.constant([1., 2.])
        b = a * 3.
        for ys, xs in ((None, a), (b, [None])):
            with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'op'"):
                tf.gradients(ys, xs)
        assert tf.gradients(b, a)[0].name == "gradients_2/mul_grad/Mul:0"


@pytest.mark.parametrize("resize", ["resize_bilinear", "resize_nearest_neighbor",
                                    "resize_bicubic"])
def test_second_derivative_through_a_resize_has_no_gradient(resize):
    """TF 1.15 registers no gradient for ResizeBilinearGrad, ResizeNearestNeighborGrad or
    ResizeBicubicGrad: double backprop through a resize is a LookupError."""
    import numpy as np

    with tf.Graph().as_default():
        x = tf.constant(np.ones((1, 4, 4, 1), np.float32))
        y = getattr(tf.image, resize)(x * x, [6, 6])
        g = tf.gradients(tf.reduce_sum(tf.sin(y)), x)[0]
        with pytest.raises(LookupError, match=r"No gradient defined for operation 'gradients/"
                           r"Resize\w+_grad/Resize\w+Grad' \(op type: Resize\w+Grad\)"):
            tf.gradients(tf.reduce_sum(g * g), x)


@pytest.mark.parametrize("case", ["shuffle", "scatter_update", "scatter_max", "unique_wc",
                                  "bitcast", "slice_assign", "dilation2", "fracmax2", "gamma2",
                                  "segment_prod", "argmax2"])
def test_ops_tf_gives_no_gradient_raise_lookup_error(case):
    """TF 1.15 registers no gradient (not even None) for RandomShuffle, ScatterUpdate,
    ScatterMax, UniqueWithCounts, Bitcast, StridedSliceAssign, the sorted SegmentProd, nor for
    the gradient ops of dilation2d, fractional_max_pool, max_pool_with_argmax and random_gamma:
    a path through one is a LookupError."""
    with tf.Graph().as_default():
        x = tf.constant([[1., 2., 3.], [4., 5., 6.]])
        v = tf.Variable(tf.zeros([4, 3]))
        img = tf.reshape(tf.range(32, dtype=tf.float32), [1, 4, 4, 2]) / 10.

        def twice(f, t):
            g = tf.gradients(tf.reduce_sum(f(t * t)), t)[0]
            return tf.gradients(tf.reduce_sum(tf.square(g)), t)

        cases = {
            "shuffle": lambda: tf.gradients(tf.reduce_sum(tf.random_shuffle(x * 2.)), x),
            "scatter_update": lambda: tf.gradients(
                tf.reduce_sum(tf.scatter_update(v, [0, 2], x * 2.)), x),
            "scatter_max": lambda: tf.gradients(
                tf.reduce_sum(tf.scatter_max(v, [0, 2], x * 2.)), x),
            "unique_wc": lambda: tf.gradients(
                tf.reduce_sum(tf.unique_with_counts(tf.reshape(x, [-1]) * 2.)[0]), x),
            "bitcast": lambda: tf.gradients(tf.reduce_sum(tf.bitcast(x * 2., tf.float32)), x),
            "slice_assign": lambda: tf.gradients(tf.reduce_sum(v[1:3].assign(x * 2.)), x),
            "dilation2": lambda: twice(lambda t: tf.nn.dilation2d(
                t, tf.ones([2, 2, 2]), [1, 1, 1, 1], [1, 1, 1, 1], "SAME"), img),
            "fracmax2": lambda: twice(lambda t: tf.nn.fractional_max_pool(
                t, [1., 1.5, 1.5, 1.], seed=1, seed2=2)[0], img),
            "gamma2": lambda: twice(lambda t: tf.random_gamma([3], t, seed=1), x),
            "segment_prod": lambda: tf.gradients(
                tf.reduce_sum(tf.segment_prod(x * 2., [0, 0])), x),
            "argmax2": lambda: twice(lambda t: tf.nn.max_pool_with_argmax(
                t, [1, 2, 2, 1], [1, 1, 1, 1], "VALID")[0], img),
        }
        with pytest.raises(LookupError, match="No gradient defined for operation"):
            cases[case]()


def test_gradient_in_a_loop_body_through_a_loop_vars_initial_value_raises():
    """Conjugate gradient with Hessian-vector products in a while loop whose loop variables
    start from -grad(w): TF 1.15's tf.gradients in the body meets their Switch (even past a
    stop_gradient) and raises ValueError naming w; an x that is only a loop invariant, or a
    map_fn over elems that depend on w, is fine."""
    msg = (r"^Cannot compute gradient inside while loop with respect to op 'w'\. We do not "
           r"support taking the gradient wrt or through the initial value of a loop variable\.")
    with tf.Graph().as_default():
        w = tf.Variable([0.3, -0.2], name="w")
        g = tf.gradients(tf.reduce_sum(tf.exp(w) * w), w)[0]

        def body(i, p):
            return i + 1, tf.gradients(tf.reduce_sum(g * tf.stop_gradient(p)), w)[0]

        with pytest.raises(ValueError, match=msg):
            tf.while_loop(lambda i, p: i < 3, body, [0, -g])
        with pytest.raises(ValueError, match=msg):
            tf.scan(lambda a, e: a + tf.gradients(tf.reduce_sum(a * w), w)[0],
                    tf.ones([3, 2]), initializer=w * 2.)
        ok = tf.while_loop(lambda i, a: i < 2, lambda i, a: (
            i + 1, a + tf.gradients(tf.reduce_sum(w * w), w)[0]), [0, tf.zeros([2])])[1]
        per_row = tf.map_fn(lambda r: tf.gradients(tf.reduce_sum(r * w * w), w)[0],
                            tf.ones([3, 2]) * w)
        assert ok.get_shape().as_list() == [2] and per_row.get_shape().as_list() == [3, 2]
