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


# TF 1.15's op order for contrib group_norm(groups=2) of a [2, 8, 8, 4] input (measured in
# TF 1.15): each parameter's Reshape follows its variable, beta's first
_TF_GROUP_NORM = [
    'y:Placeholder', 'Shape:Const', 'Reshape/shape:Const', 'Reshape:Reshape',
    'GroupNorm/beta/Initializer/zeros:Const', 'GroupNorm/beta:VariableV2',
    'GroupNorm/beta/Assign:Assign', 'GroupNorm/beta/read:Identity',
    'GroupNorm/Reshape/shape:Const', 'GroupNorm/Reshape:Reshape',
    'GroupNorm/gamma/Initializer/ones:Const', 'GroupNorm/gamma:VariableV2',
    'GroupNorm/gamma/Assign:Assign', 'GroupNorm/gamma/read:Identity',
    'GroupNorm/Reshape_1/shape:Const', 'GroupNorm/Reshape_1:Reshape',
    'GroupNorm/moments/mean/reduction_indices:Const', 'GroupNorm/moments/mean:Mean',
    'GroupNorm/moments/StopGradient:StopGradient',
    'GroupNorm/moments/SquaredDifference:SquaredDifference',
    'GroupNorm/moments/variance/reduction_indices:Const', 'GroupNorm/moments/variance:Mean',
    'GroupNorm/add/y:Const', 'GroupNorm/add:AddV2', 'GroupNorm/Rsqrt:Rsqrt',
    'GroupNorm/Neg:Neg', 'GroupNorm/mul:Mul', 'GroupNorm/mul_1:Mul', 'GroupNorm/mul_2:Mul',
    'GroupNorm/add_1:AddV2', 'GroupNorm/mul_3:Mul', 'GroupNorm/add_2:AddV2',
    'GroupNorm/Reshape_2/shape:Const', 'GroupNorm/Reshape_2:Reshape']


def test_group_norm_reshapes_each_parameter_after_it_as_tf115():
    g = tf.Graph()
    with g.as_default():
        tf.contrib.layers.group_norm(tf.placeholder(tf.float32, [2, 8, 8, 4], name='y'),
                                     groups=2)
        assert [o.name + ':' + o.type for o in g.get_operations()] == _TF_GROUP_NORM


def test_nchw_instance_norm_then_group_norm_names_and_values_as_tf115():
    # a CycleGAN-style NCHW stack; names, outputs and beta/gamma gradients measured in TF 1.15
    g = tf.Graph()
    with g.as_default():
        y = tf.placeholder(tf.float32, [2, 4, 3, 3], name='y')
        a = tf.contrib.layers.instance_norm(y, data_format='NCHW')
        names = [o.name for o in g.get_operations()]
        assert names[1:8] == [
            'InstanceNorm/beta/Initializer/zeros', 'InstanceNorm/beta',
            'InstanceNorm/beta/Assign', 'InstanceNorm/beta/read', 'InstanceNorm/Reshape/shape',
            'InstanceNorm/Reshape', 'InstanceNorm/gamma/Initializer/ones']
        b = tf.contrib.layers.group_norm(a, groups=2, channels_axis=1, reduction_axes=(-2, -1))
        assert [o.name for o in g.get_operations() if o.type == 'Reshape'] == [
            'InstanceNorm/Reshape', 'InstanceNorm/Reshape_1', 'Reshape', 'GroupNorm/Reshape',
            'GroupNorm/Reshape_1', 'GroupNorm/Reshape_2']
        loss = tf.reduce_sum(b * b[:, ::-1])
        grads = tf.gradients(loss, tf.trainable_variables())
        d = np.random.RandomState(0).randn(2, 4, 3, 3).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out, _, g_in_gamma, _, g_gn_gamma = sess.run([b] + grads, {y: d})
    np.testing.assert_allclose(out[0, :, 0, 0], [0.97706604, -0.25383297, 0.35506675,
                                                 -0.21267545], rtol=1e-5)
    np.testing.assert_allclose(g_in_gamma, [9.894055, -9.894068, -9.894063, 9.894053],
                               rtol=1e-5)
    np.testing.assert_allclose(g_gn_gamma, [3.9333105, -15.854801, -15.854801, 3.93331],
                               rtol=1e-5)


def test_batch_renorm_updates_build_tf115_ops_and_train_as_tf115():
    # tf.layers renorm with a fed `training`, then a Keras renorm layer with clipping (which
    # raised before); losses, the draw of a random op made after both (its seed comes from
    # the op count) and the moving statistics measured in TF 1.15
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(2)
        x = tf.placeholder(tf.float32, [4, 3], name='x')
        tr = tf.placeholder(tf.bool, [], name='tr')
        a = tf.layers.batch_normalization(x, training=tr, renorm=True, renorm_momentum=0.9,
                                          momentum=0.8)
        b = tf.keras.layers.BatchNormalization(
            renorm=True, renorm_clipping={'rmax': 2., 'rmin': 0.5, 'dmax': 1.})(a, training=True)
        names = [o.name for o in g.get_operations()]
        # Keras: the moving stddev's update read afresh by each operand of its square, the new
        # variance made in the layer's scope and only its Assign in AssignNewValue
        at = names.index('batch_normalization_1/AssignMovingAvg_3/ReadVariableOp_1')
        assert names[at + 1:at + 9] == [
            'batch_normalization_1/ReadVariableOp',
            'batch_normalization_1/mul_2/ReadVariableOp', 'batch_normalization_1/mul_2',
            'batch_normalization_1/sub_1/y', 'batch_normalization_1/sub_1',
            'batch_normalization_1/Relu', 'batch_normalization_1/AssignNewValue',
            'batch_normalization_1/AssignNewValue/ReadVariableOp']
        w = tf.random_normal([2])
        loss = tf.reduce_sum(b * b * tf.range(3.))
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            step = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        assert g._last_id == 479
        d = np.random.RandomState(0).randn(4, 3).astype(np.float32)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([step, loss], {x: d, tr: True})[1] for _ in range(3)]
            got_w = sess.run(w)
            stats = sess.run(['batch_normalization/moving_variance:0',
                              'batch_normalization/moving_stddev:0',
                              'batch_normalization/renorm_stddev:0'])
    np.testing.assert_allclose(losses, [11.768688, 7.5568485, 8.189188], rtol=1e-5)
    np.testing.assert_allclose(got_w, [-1.2895213, -0.5095886], rtol=1e-5)
    np.testing.assert_allclose(stats, [[0.7352264, 0.7936545, 0.9476906],
                                       [0.85803634, 0.89143395, 0.9740075],
                                       [0.9211636, 0.93971026, 0.98556566]], rtol=1e-5)


def test_layers_renorm_new_variance_is_made_in_the_layer_scope_as_tf115():
    g = tf.Graph()
    with g.as_default():
        tf.layers.batch_normalization(tf.placeholder(tf.float32, [2, 8, 8, 4], name='y'),
                                      training=True, renorm=True)
        names = [o.name for o in g.get_operations()]
    at = names.index('batch_normalization/AssignMovingAvg_3')
    assert names[at + 1:at + 6] == [  # measured in TF 1.15
        'batch_normalization/mul_2', 'batch_normalization/sub_1/y', 'batch_normalization/sub_1',
        'batch_normalization/Relu', 'batch_normalization/AssignNewValue']


def test_first_input_of_a_type_attr_fixes_it_as_tf115():
    # TF 1.15's op_def_library types an op's inputs in order: a Python or NumPy value met
    # before a tensor of the same type attr takes the attr's default (or its own) dtype, and
    # the tensor must then match; only a list argument follows the first tensor in it.
    # Messages measured in TF 1.15.
    with tf.Graph().as_default():
        d = tf.constant([2.], tf.float64)
        cases = [  # (build, op, input, its type, the type fixed, by the argument)
            (lambda: tf.add(1., d), 'Add', 'y', 'float64', 'float32', 'x'),
            (lambda: tf.subtract(np.ones(1, np.float32), d), 'Sub', 'y', 'float64', 'float32',
             'x'),
            (lambda: tf.where([True], [1.], d), 'Select', 'e', 'float64', 'float32', 't'),
            (lambda: tf.maximum(np.float64(1.), tf.constant(1., tf.float32)), 'Maximum', 'y',
             'float32', 'float64', 'x'),
            (lambda: tf.lin_space(0., d[0], 3), 'LinSpace', 'stop', 'float64', 'float32',
             'start'),
            (lambda: tf.squared_difference([1.], d), 'SquaredDifference', 'y', 'float64',
             'float32', 'x'),
            (lambda: tf.image.non_max_suppression_with_scores(
                np.zeros((2, 4), np.float32), np.ones(2, np.float32), 1,
                iou_threshold=tf.constant(.5, tf.float64)),
             'NonMaxSuppressionV5', 'iou_threshold', 'float64', 'float32', 'boxes'),
        ]
        for fn, op, arg, got, want, first in cases:
            msg = (f"^Input '{arg}' of '{op}' Op has type {got} that does not match type "
                   f"{want} of argument '{first}'\\.$")
            with pytest.raises(TypeError, match=msg):
                fn()
        # a list's type follows its tensors; the wrappers that cast do so as TF's
        assert tf.stack([[1.], d]).dtype == tf.float64
        assert tf.concat([np.ones(1, np.float32), d], 0).dtype == tf.float64
        assert tf.clip_by_value(d, 0., 1.).dtype == tf.float64
        assert tf.range(1., d[0]).dtype == tf.float64
        assert tf.fill([2], d[0]).dtype == tf.float64
