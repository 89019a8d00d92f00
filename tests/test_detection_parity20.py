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


def _nms_error(fetch, feed):
    with tf.Session() as sess:
        try:
            sess.run(fetch, feed)
        except tf.errors.InvalidArgumentError as e:
            return str(e).split('\n')[0]
    return None


def test_nms_kernel_checks_in_tf115_words_and_order():
    # TF 1.15's NMS kernels check max_output_size, the thresholds, sigma, then boxes and
    # scores, with the words printed below (shapes written without spaces, no op prefix)
    b, s = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    m, t, st = tf.placeholder(tf.int32), tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    sg, ov = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
    v3 = tf.image.non_max_suppression(b, s, m, iou_threshold=t, score_threshold=st)
    v4 = tf.image.non_max_suppression_padded(b, s, m, iou_threshold=t, score_threshold=st)[0]
    v5 = tf.image.non_max_suppression_with_scores(b, s, m, iou_threshold=t, score_threshold=st,
                                                  soft_nms_sigma=sg)[0]
    wo = tf.image.non_max_suppression_overlaps(ov, s, m, overlap_threshold=t,
                                               score_threshold=st)
    boxes = np.random.RandomState(0).uniform(0, 1, (5, 4)).astype(np.float32)
    base = {b: boxes, s: np.arange(5.), m: 3, t: 0.5, st: 0.1, sg: 0., ov: np.eye(5)}
    cases = [
        ({b: boxes[:, :3], m: [3]}, [v3, v4, v5, wo], 'max_output_size must be 0-D, got shape [1]'),
        ({b: boxes[None]}, [v3, v4, v5], 'boxes must be 2-D[1,5,4]'),
        ({b: boxes[:, :3]}, [v3, v4, v5], 'boxes must have 4 columns'),
        ({s: np.zeros((5, 1)), b: boxes[:, :3]}, [v3], 'boxes must have 4 columns'),
        ({s: np.zeros((5, 1))}, [v3, v5, wo], 'scores must be 1-D[5,1]'),
        ({s: np.zeros(3)}, [v3, v4, v5, wo], 'scores has incompatible shape'),
        ({t: 1.5, st: [0.1]}, [v3, v4, v5], 'iou_threshold must be in [0, 1]'),
        ({t: [0.5]}, [v3, v4, v5], 'iou_threshold must be 0-D, got shape [1]'),
        ({t: [0.5]}, [wo], 'overlap_threshold must be 0-D, got shape [1]'),
        ({st: [[0.1]], ov: np.zeros(5)}, [v3, wo], 'score_threshold must be 0-D, got shape [1,1]'),
        ({sg: -1., b: boxes[:, :3]}, [v5], 'soft_nms_sigma_val must be >= 0'),
        ({sg: [0.]}, [v5], 'soft_nms_sigma must be 0-D, got shape [1]'),
        ({ov: np.zeros((5, 4))}, [wo], 'overlaps must be square[5,4]'),
        ({ov: np.zeros(5)}, [wo], 'overlaps must be 2-D[5]'),
    ]
    for change, fetches, words in cases:
        feed = {**base, **change}
        for f in fetches:
            assert _nms_error(f, feed) == words, (f.name, words)
    # TF compares the selection's size with max_output_size unsigned: -1 keeps them all
    with tf.Session() as sess:
        for f in (v3, v5, wo):
            np.testing.assert_array_equal(sess.run(f, {**base, m: -1}), [4, 3, 2, 1])


def test_soft_nms_scores_rounded_as_tf115():
    # TF 1.15 weights a suppressed score by expf(scale * iou * iou) in float32; TF printed
    # 0.9433541893959045 for the second score (a float64-weighted product gave one ulp less)
    rng = np.random.RandomState(1)
    yx, hw = rng.uniform(0, 50, (40, 2)), rng.uniform(5, 30, (40, 2))
    boxes = np.concatenate([yx, yx + hw], 1).astype(np.float32)
    scores = rng.uniform(0, 1, 40).astype(np.float32)
    sel, sc = tf.image.non_max_suppression_with_scores(
        boxes, scores, 30, iou_threshold=0.6, score_threshold=0.05, soft_nms_sigma=0.3)
    with tf.Session() as sess:
        i, v = sess.run([sel, sc])
    assert i[:3].tolist() == [11, 39, 35]
    assert v[:3].tolist() == [0.9886161684989929, 0.9433541893959045, 0.931972086429596]
