"""Model-zoo programs (style transfer, YOLO-style detection heads, compact CNNs, PointNet, GCN,
GloVe, mixture density networks) against TF 1.15: each test pins what TF 1.15 built, raised
or printed for the same program."""
import numpy as np
import pytest

import tideflow as tf


def _boxes_scores():
    rng = np.random.RandomState(0)
    return rng.rand(6, 4).astype(np.float32), rng.rand(6).astype(np.float32)


def test_nms_with_scores_builds_thresholds_first_as_tf115():
    # Measured in TF 1.15: the three scalars are converted first, then the op's own inputs
    # inside its name scope; the soft-NMS result below too.
    b, sc = _boxes_scores()
    g = tf.Graph()
    with g.as_default():
        idx, scores = tf.image.non_max_suppression_with_scores(b, sc, 3, 0.5,
                                                               soft_nms_sigma=0.5)
        assert [op.name for op in g.get_operations()] == [
            'non_max_suppression_with_scores/iou_threshold',
            'non_max_suppression_with_scores/score_threshold',
            'non_max_suppression_with_scores/soft_nms_sigma',
            'non_max_suppression_with_scores/NonMaxSuppressionV5/boxes',
            'non_max_suppression_with_scores/NonMaxSuppressionV5/scores',
            'non_max_suppression_with_scores/NonMaxSuppressionV5/max_output_size',
            'non_max_suppression_with_scores/NonMaxSuppressionV5']
        assert idx.name == 'non_max_suppression_with_scores/NonMaxSuppressionV5:0'
        assert scores.get_shape().as_list() == [None]
        with tf.Session() as sess:
            i, s = sess.run([idx, scores])
    np.testing.assert_array_equal(i, [3, 1, 4])
    np.testing.assert_allclose(s, [0.9446689, 0.63987774, 0.5207136], rtol=1e-6)


def test_nms_with_scores_types_inputs_as_tf115():
    b, sc = _boxes_scores()
    with tf.Graph().as_default():
        # a float64 NumPy box set (or score vector) is cast to the op's default float32
        for boxes, scores in ((b.astype(np.float64), sc), (b, sc.astype(np.float64))):
            _, s = tf.image.non_max_suppression_with_scores(boxes, scores, 3)
            assert s.dtype == tf.float32
        # float16 boxes meet float32 thresholds: TF 1.15's TypeError names the threshold
        msg = ("Input 'iou_threshold' of 'NonMaxSuppressionV5' Op has type float32 that does "
               "not match type float16 of argument 'boxes'.")
        with pytest.raises(TypeError, match=msg):
            tf.image.non_max_suppression_with_scores(
                tf.constant(b, tf.float16), tf.constant(sc, tf.float16), 3)
        with pytest.raises(TypeError, match=msg):
            tf.image.non_max_suppression_with_scores(tf.constant(b, tf.float16), sc, 3)
        # an int sigma is not cast to the boxes' type
        with pytest.raises(TypeError, match="Input 'soft_nms_sigma' of 'NonMaxSuppressionV5' "
                                            "Op has type int32 that does not match type "
                                            "float32 of argument 'boxes'."):
            tf.image.non_max_suppression_with_scores(b, sc, 3, soft_nms_sigma=1)
        # a float64 box tensor is refused by the op's type list
        with pytest.raises(TypeError, match="Value passed to parameter 'boxes' has DataType "
                                            "float64 not in list of allowed values: "
                                            "float16, float32"):
            tf.image.non_max_suppression_with_scores(tf.constant(b, tf.float64), sc, 3)
