"""Object-detection programs (anchors, box coding, NMS, ROI crops, image ops) against TF 1.15:
each test pins what TF 1.15 printed for the same program."""
import numpy as np

import tideflow as tf


def _names(g):
    return [op.name for op in g.get_operations()]


def test_meshgrid_multiplies_by_ones_as_tf115():
    # TF 1.15's meshgrid builds ones(sizes) (through _constant_if_small's np.prod, a Less and
    # a Pack) and one Mul per output; an anchor generator's op count depends on it.
    g = tf.Graph()
    with g.as_default():
        x, y = tf.meshgrid(tf.placeholder(tf.float32, [None]), tf.constant([1., 2.]))
        assert x.get_shape().as_list() == [2, None]
        assert _names(g)[-8:] == [
            'meshgrid/ones/mul', 'meshgrid/ones/Less/y',
            'meshgrid/ones/Less', 'meshgrid/ones/packed', 'meshgrid/ones/Const',
            'meshgrid/ones', 'meshgrid/mul', 'meshgrid/mul_1']
        with tf.Session() as sess:
            a, b = sess.run([x, y], {g.get_tensor_by_name('Placeholder:0'): [5., 6., 7.]})
        np.testing.assert_array_equal(a, [[5., 6., 7.], [5., 6., 7.]])
        np.testing.assert_array_equal(b, [[1., 1., 1.], [2., 2., 2.]])
