"""Dense prediction and vision programs, part 6: as in test_programs_dense29.py, each reduced
and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: B006, F401, I001, RUF059, UP031, UP039

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_ssd_preprocessing(capsys, tmp_path):
    # balancap/SSD-Tensorflow preprocessing/ssd_vgg_preprocessing.py + tf_image.py + tf_extended bboxes: distorted crop, flips, switch/merge colour distortions, eval crop-or-pad (reduced)
    from tideflow.python.framework import ops
    from tideflow.python.ops import array_ops, check_ops, control_flow_ops, math_ops, variables
    import sys
    from enum import IntEnum
    import numpy as np
    # (sample_distorted_bounding_box given seeds: its v1 form takes none from the graph seed, so unseeded it differs run to run in TF 1.15 too)
    # balancap/SSD-Tensorflow preprocessing/ssd_vgg_preprocessing.py + preprocessing/tf_image.py + tf_extended's bboxes_resize/bboxes_filter_overlap/bboxes_intersection/safe_divide (reduced: a 40x56 image, 3 boxes, 32x32 output)
    def safe_divide(numerator, denominator, name):
        return tf.where(tf.greater(denominator, 0), tf.divide(numerator, denominator), tf.zeros_like(numerator), name=name)
    def bboxes_resize(bbox_ref, bboxes, name=None):
        with tf.name_scope(name, 'bboxes_resize'):
            v = tf.stack([bbox_ref[0], bbox_ref[1], bbox_ref[0], bbox_ref[1]])
            bboxes = bboxes - v
            s = tf.stack([bbox_ref[2] - bbox_ref[0], bbox_ref[3] - bbox_ref[1], bbox_ref[2] - bbox_ref[0], bbox_ref[3] - bbox_ref[1]])
            bboxes = bboxes / s
            return bboxes
    def bboxes_intersection(bbox_ref, bboxes, name=None):
        with tf.name_scope(name, 'bboxes_intersection'):
            bboxes = tf.transpose(bboxes)
            bbox_ref = tf.transpose(bbox_ref)
            int_ymin = tf.maximum(bboxes[0], bbox_ref[0])
            int_xmin = tf.maximum(bboxes[1], bbox_ref[1])
            int_ymax = tf.minimum(bboxes[2], bbox_ref[2])
            int_xmax = tf.minimum(bboxes[3], bbox_ref[3])
            h = tf.maximum(int_ymax - int_ymin, 0.)
            w = tf.maximum(int_xmax - int_xmin, 0.)
            inter_vol = h * w
            bboxes_vol = (bboxes[2] - bboxes[0]) * (bboxes[3] - bboxes[1])
            scores = safe_divide(inter_vol, bboxes_vol, 'intersection')
            return scores
    def bboxes_filter_overlap(labels, bboxes, threshold=0.5, assign_negative=False, scope=None):
        with tf.name_scope(scope, 'bboxes_filter', [labels, bboxes]):
            scores = bboxes_intersection(tf.constant([0, 0, 1, 1], bboxes.dtype), bboxes)
            mask = scores > threshold
            if assign_negative:
                labels = tf.where(mask, labels, -labels)
            else:
                labels = tf.boolean_mask(labels, mask)
                bboxes = tf.boolean_mask(bboxes, mask)
            return labels, bboxes
    def _assert(cond, ex_type, msg):
        if _is_tensor(cond):
            return [control_flow_ops.Assert(cond, [msg])]
        else:
            if not cond:
                raise ex_type(msg)
            else:
                return []
    def _is_tensor(x):
        return isinstance(x, (ops.Tensor, variables.Variable))
    def _ImageDimensions(image):
        if image.get_shape().is_fully_defined():
            return image.get_shape().as_list()
        else:
            static_shape = image.get_shape().with_rank(3).as_list()
            dynamic_shape = array_ops.unstack(array_ops.shape(image), 3)
            return [s if s is not None else d for s, d in zip(static_shape, dynamic_shape)]
    def _Check3DImage(image, require_static=True):
        try:
            image_shape = image.get_shape().with_rank(3)
        except ValueError:
            raise ValueError("'image' must be three-dimensional.")
        if require_static and not image_shape.is_fully_defined():
            raise ValueError("'image' must be fully defined.")
        if any(x == 0 for x in image_shape):
            raise ValueError("all dims of 'image.shape' must be > 0: %s" % image_shape)
        if not image_shape.is_fully_defined():
            return [check_ops.assert_positive(array_ops.shape(image), ["all dims of 'image.shape' must be > 0."])]
        else:
            return []
    def bboxes_crop_or_pad(bboxes, height, width, offset_y, offset_x, target_height, target_width):
        with tf.name_scope('bboxes_crop_or_pad'):
            scale = tf.cast(tf.stack([height, width, height, width]), bboxes.dtype)
            bboxes = bboxes * scale
            offset = tf.cast(tf.stack([offset_y, offset_x, offset_y, offset_x]), bboxes.dtype)
            bboxes = bboxes + offset
            scale = tf.cast(tf.stack([target_height, target_width, target_height, target_width]), bboxes.dtype)
            bboxes = bboxes / scale
            return bboxes
    def resize_image_bboxes_with_crop_or_pad(image, bboxes, target_height, target_width):
        with tf.name_scope('resize_with_crop_or_pad'):
            image = ops.convert_to_tensor(image, name='image')
            assert_ops = []
            assert_ops += _Check3DImage(image, require_static=False)
            assert_ops += _assert(target_width > 0, ValueError, 'target_width must be > 0.')
            assert_ops += _assert(target_height > 0, ValueError, 'target_height must be > 0.')
            image = control_flow_ops.with_dependencies(assert_ops, image)
            if _is_tensor(target_height):
                target_height = control_flow_ops.with_dependencies(assert_ops, target_height)
            if _is_tensor(target_width):
                target_width = control_flow_ops.with_dependencies(assert_ops, target_width)
            def max_(x, y):
                if _is_tensor(x) or _is_tensor(y):
                    return math_ops.maximum(x, y)
                else:
                    return max(x, y)
            def min_(x, y):
                if _is_tensor(x) or _is_tensor(y):
                    return math_ops.minimum(x, y)
                else:
                    return min(x, y)
            def equal_(x, y):
                if _is_tensor(x) or _is_tensor(y):
                    return math_ops.equal(x, y)
                else:
                    return x == y
            height, width, _ = _ImageDimensions(image)
            width_diff = target_width - width
            offset_crop_width = max_(-width_diff // 2, 0)
            offset_pad_width = max_(width_diff // 2, 0)
            height_diff = target_height - height
            offset_crop_height = max_(-height_diff // 2, 0)
            offset_pad_height = max_(height_diff // 2, 0)
            height_crop = min_(target_height, height)
            width_crop = min_(target_width, width)
            cropped = tf.image.crop_to_bounding_box(image, offset_crop_height, offset_crop_width, height_crop, width_crop)
            bboxes = bboxes_crop_or_pad(bboxes, height, width, -offset_crop_height, -offset_crop_width, height_crop, width_crop)
            resized = tf.image.pad_to_bounding_box(cropped, offset_pad_height, offset_pad_width, target_height, target_width)
            bboxes = bboxes_crop_or_pad(bboxes, height_crop, width_crop, offset_pad_height, offset_pad_width, target_height, target_width)
            if resized.get_shape().ndims is None:
                raise ValueError('resized contains no shape.')
            resized_height, resized_width, _ = _ImageDimensions(resized)
            assert_ops = []
            assert_ops += _assert(equal_(resized_height, target_height), ValueError, 'resized height is not correct.')
            assert_ops += _assert(equal_(resized_width, target_width), ValueError, 'resized width is not correct.')
            resized = control_flow_ops.with_dependencies(assert_ops, resized)
            return resized, bboxes
    def resize_image(image, size, method=tf.image.ResizeMethod.BILINEAR, align_corners=False):
        with tf.name_scope('resize_image'):
            height, width, channels = _ImageDimensions(image)
            image = tf.expand_dims(image, 0)
            image = tf.image.resize_images(image, size, method, align_corners)
            image = tf.reshape(image, tf.stack([size[0], size[1], channels]))
            return image
    def random_flip_left_right(image, bboxes):
        with tf.name_scope('random_flip_left_right'):
            image = tf.image.random_flip_left_right(image)
            offset = tf.constant([[1., 0., 1., 0.]])
            bboxes = offset - bboxes
            return image, bboxes
    Resize = IntEnum('Resize', ('NONE', 'CENTRAL_CROP', 'PAD_AND_RESIZE', 'WARP_RESIZE'))
    _R_MEAN = 123.
    _G_MEAN = 117.
    _B_MEAN = 104.
    BBOX_CROP_OVERLAP = 0.4
    CROP_RATIO_RANGE = (0.8, 1.2)
    def tf_image_whitened(image, means=[_R_MEAN, _G_MEAN, _B_MEAN]):
        if image.get_shape().ndims != 3:
            raise ValueError('Input must be of size [height, width, C>0]')
        num_channels = image.get_shape().as_list()[-1]
        if len(means) != num_channels:
            raise ValueError('len(means) must match the number of channels')
        mean = tf.constant(means, dtype=image.dtype)
        image = image - mean
        return image
    def tf_summary_image(image, bboxes, name='image', unwhitened=False):
        image = tf.expand_dims(image, 0)
        bboxes = tf.expand_dims(bboxes, 0)
        image_with_box = tf.image.draw_bounding_boxes(image, bboxes)
        tf.summary.image(name, image_with_box)
    def apply_with_random_selector(x, func, num_cases):
        sel = tf.random_uniform([], maxval=num_cases, dtype=tf.int32)
        return control_flow_ops.merge([func(control_flow_ops.switch(x, tf.equal(sel, case))[1], case) for case in range(num_cases)])[0]
    def distort_color(image, color_ordering=0, fast_mode=True, scope=None):
        with tf.name_scope(scope, 'distort_color', [image]):
            if fast_mode:
                if color_ordering == 0:
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                else:
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
            else:
                if color_ordering == 0:
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                    image = tf.image.random_hue(image, max_delta=0.2)
                    image = tf.image.random_contrast(image, lower=0.5, upper=1.5)
                elif color_ordering == 1:
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
                    image = tf.image.random_contrast(image, lower=0.5, upper=1.5)
                    image = tf.image.random_hue(image, max_delta=0.2)
                elif color_ordering == 2:
                    image = tf.image.random_contrast(image, lower=0.5, upper=1.5)
                    image = tf.image.random_hue(image, max_delta=0.2)
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                elif color_ordering == 3:
                    image = tf.image.random_hue(image, max_delta=0.2)
                    image = tf.image.random_saturation(image, lower=0.5, upper=1.5)
                    image = tf.image.random_contrast(image, lower=0.5, upper=1.5)
                    image = tf.image.random_brightness(image, max_delta=32. / 255.)
            return tf.clip_by_value(image, 0.0, 1.0)
    def distorted_bounding_box_crop(image, labels, bboxes, min_object_covered=0.05, aspect_ratio_range=(0.9, 1.1), area_range=(0.1, 1.0), max_attempts=200, scope=None):
        with tf.name_scope(scope, 'distorted_bounding_box_crop', [image, bboxes]):
            bbox_begin, bbox_size, distort_bbox = tf.image.sample_distorted_bounding_box(
                    tf.shape(image), bounding_boxes=tf.expand_dims(bboxes, 0), min_object_covered=min_object_covered,
                    aspect_ratio_range=aspect_ratio_range, area_range=area_range, max_attempts=max_attempts, use_image_if_no_bounding_boxes=True, seed=7, seed2=11)
            distort_bbox = distort_bbox[0, 0]
            cropped_image = tf.slice(image, bbox_begin, bbox_size)
            cropped_image.set_shape([None, None, 3])
            bboxes = bboxes_resize(distort_bbox, bboxes)
            labels, bboxes = bboxes_filter_overlap(labels, bboxes, BBOX_CROP_OVERLAP)
            return cropped_image, labels, bboxes, distort_bbox
    def preprocess_for_train(image, labels, bboxes, out_shape, data_format='NHWC', scope='ssd_preprocessing_train'):
        fast_mode = False
        with tf.name_scope(scope, 'ssd_preprocessing_train', [image, labels, bboxes]):
            if image.get_shape().ndims != 3:
                raise ValueError('Input must be of size [height, width, C>0]')
            if image.dtype != tf.float32:
                image = tf.image.convert_image_dtype(image, dtype=tf.float32)
            tf_summary_image(image, bboxes, 'image_with_bboxes')
            dst_image = image
            dst_image, labels, bboxes, distort_bbox = distorted_bounding_box_crop(image, labels, bboxes, aspect_ratio_range=CROP_RATIO_RANGE)
            dst_image = resize_image(dst_image, out_shape, method=tf.image.ResizeMethod.BILINEAR, align_corners=False)
            tf_summary_image(dst_image, bboxes, 'image_shape_distorted')
            dst_image, bboxes = random_flip_left_right(dst_image, bboxes)
            dst_image = apply_with_random_selector(dst_image, lambda x, ordering: distort_color(x, ordering, fast_mode), num_cases=4)
            tf_summary_image(dst_image, bboxes, 'image_color_distorted')
            image = dst_image * 255.
            image = tf_image_whitened(image, [_R_MEAN, _G_MEAN, _B_MEAN])
            if data_format == 'NCHW':
                image = tf.transpose(image, perm=(2, 0, 1))
            return image, labels, bboxes
    def preprocess_for_eval(image, labels, bboxes, out_shape=(300, 300), data_format='NHWC', difficults=None, resize=Resize.WARP_RESIZE, scope='ssd_preprocessing_train'):
        with tf.name_scope(scope):
            if image.get_shape().ndims != 3:
                raise ValueError('Input must be of size [height, width, C>0]')
            image = tf.to_float(image)
            image = tf_image_whitened(image, [_R_MEAN, _G_MEAN, _B_MEAN])
            bbox_img = tf.constant([[0., 0., 1., 1.]])
            if bboxes is None:
                bboxes = bbox_img
            else:
                bboxes = tf.concat([bbox_img, bboxes], axis=0)
            if resize == Resize.NONE:
                pass
            elif resize == Resize.CENTRAL_CROP:
                image, bboxes = resize_image_bboxes_with_crop_or_pad(image, bboxes, out_shape[0], out_shape[1])
            elif resize == Resize.PAD_AND_RESIZE:
                shape = tf.shape(image)
                factor = tf.minimum(tf.to_double(1.0), tf.minimum(tf.to_double(out_shape[0] / shape[0]), tf.to_double(out_shape[1] / shape[1])))
                resize_shape = factor * tf.to_double(shape[0:2])
                resize_shape = tf.cast(tf.floor(resize_shape), tf.int32)
                image = resize_image(image, resize_shape, method=tf.image.ResizeMethod.BILINEAR, align_corners=False)
                image, bboxes = resize_image_bboxes_with_crop_or_pad(image, bboxes, out_shape[0], out_shape[1])
            elif resize == Resize.WARP_RESIZE:
                image = resize_image(image, out_shape, method=tf.image.ResizeMethod.BILINEAR, align_corners=False)
            bbox_img = bboxes[0]
            bboxes = bboxes[1:]
            if difficults is not None:
                mask = tf.logical_not(tf.cast(difficults, tf.bool))
                labels = tf.boolean_mask(labels, mask)
                bboxes = tf.boolean_mask(bboxes, mask)
            if data_format == 'NCHW':
                image = tf.transpose(image, perm=(2, 0, 1))
            return image, labels, bboxes, bbox_img

    np.random.seed(16)
    tf.set_random_seed(16)
    img_np = (np.random.rand(40, 56, 3) * 255).astype(np.uint8)
    image = tf.placeholder(tf.uint8, [None, None, 3])
    labels = tf.constant([1, 2, 3], tf.int64)
    bboxes = tf.constant([[0.1, 0.1, 0.5, 0.4], [0.3, 0.5, 0.9, 0.95], [0.0, 0.0, 0.2, 0.15]], tf.float32)
    img_t, lab_t, box_t = preprocess_for_train(image, labels, bboxes, (32, 32))
    print(img_t, lab_t, box_t)
    img_e, lab_e, box_e, bimg_e = preprocess_for_eval(image, labels, bboxes, (32, 32), resize=Resize.PAD_AND_RESIZE, difficults=tf.constant([0, 1, 0]))
    img_c, _, box_c, bimg_c = preprocess_for_eval(image, labels, bboxes, (32, 48), resize=Resize.CENTRAL_CROP, scope='eval_crop')
    print(img_e, box_e, bimg_e, img_c, box_c)
    summ = tf.summary.merge_all()
    print(len(tf.get_collection(tf.GraphKeys.SUMMARIES)))
    with tf.Session() as sess:
        for i in range(3):
            a, b, c, s = sess.run([img_t, lab_t, box_t, summ], {image: img_np})
            print(a.shape, np.round(a.mean(), 3), np.round(a[0, :3, 0], 3), b, np.round(c, 4))
        e, f, g = sess.run([img_e, box_e, bimg_e], {image: img_np})
        print(e.shape, np.round(e[:2, :3, 0], 3), np.round(f, 4), g)
        e, f, g = sess.run([img_c, box_c, bimg_c], {image: img_np})
        print(e.shape, np.round(e[:2, :3, 0], 3), np.round(f, 4), g)
    _printed(capsys, """\
Tensor("ssd_preprocessing_train/sub:0", shape=(32, 32, 3), dtype=float32) Tensor("ssd_preprocessing_train/distorted_bounding_box_crop/bboxes_filter/boolean_mask/GatherV2:0", shape=(?,), dtype=int64) Tensor("ssd_preprocessing_train/random_flip_left_right/sub:0", shape=(?, 4), dtype=float32)
Tensor("ssd_preprocessing_train_1/resize_with_crop_or_pad/control_dependency_1:0", shape=(32, 32, 3), dtype=float32) Tensor("ssd_preprocessing_train_1/boolean_mask_1/GatherV2:0", shape=(?, 4), dtype=float32) Tensor("ssd_preprocessing_train_1/strided_slice_3:0", shape=(4,), dtype=float32) Tensor("eval_crop/resize_with_crop_or_pad/control_dependency_1:0", shape=(32, 48, 3), dtype=float32) Tensor("eval_crop/strided_slice_1:0", shape=(3, 4), dtype=float32)
3
(32, 32, 3) -4.801 [-108.232  -58.704    6.183] [] []
(32, 32, 3) -14.3 [-117.349   10.633  -81.501] [1 2] [[ 0.8974  0.0706  0.4872 -0.4235]
 [ 0.6923 -0.5882  0.0769 -1.3294]]
(32, 32, 3) 5.208 [40.494 24.421  6.675] [2] [[ 1.1818  0.2381  0.0909 -0.9619]]
(32, 32, 3) [[0. 0. 0.]
 [0. 0. 0.]] [[0.225  0.1    0.5    0.4   ]
 [0.1562 0.     0.2938 0.15  ]] [0.15625 0.      0.84375 1.     ]
(32, 48, 3) [[-51. -32. -51.]
 [ 25.  20. -86.]] [[ 0.      0.0333  0.5     0.3833]
 [ 0.25    0.5     1.      1.025 ]
 [-0.125  -0.0833  0.125   0.0917]] [-0.125      -0.08333334  1.125       1.0833334 ]
""")


def test_stacked_hourglass(capsys, tmp_path):
    # wbenbihi/hourglasstensorflow hourglass_tiny.py HourglassModel: stacked hourglass with intermediate supervision, contrib batch norm, RMSProp, per-joint accuracy by arg_max, summary collections (reduced)
    import sys
    import numpy as np
    # wbenbihi/hourglasstensorflow hourglass_tiny.py (HourglassModel: _graph_hourglass non-tiny branch, _conv, _conv_bn_relu, _conv_block, _skip_layer, _residual, _hourglass, _argmax, _compute_err, _accur; its generate_model's loss, RMSProp and summaries) (reduced: 32x32 inputs, nFeat 6, 3 joints, 2 stacks, nLow 2)
    class HourglassModel():
        def __init__(self, nFeat=512, nStack=4, nModules=1, nLow=4, outDim=16, batch_size=16, drop_rate=0.2, lear_rate=2.5e-4, decay=0.96, decay_step=2000, training=True, w_summary=True, tiny=False, modif=True, w_loss=False):
            self.nStack = nStack
            self.nFeat = nFeat
            self.nModules = nModules
            self.outDim = outDim
            self.batchSize = batch_size
            self.training = training
            self.w_summary = w_summary
            self.tiny = tiny
            self.dropout_rate = drop_rate
            self.learning_rate = lear_rate
            self.decay = decay
            self.decay_step = decay_step
            self.nLow = nLow
            self.modif = modif
            self.w_loss = w_loss
        def generate_model(self):
            with tf.name_scope('inputs'):
                self.img = tf.placeholder(dtype=tf.float32, shape=(None, 32, 32, 3))
                self.gtMaps = tf.placeholder(dtype=tf.float32, shape=(None, self.nStack, 8, 8, self.outDim))
            self.output = self._graph_hourglass(self.img)
            with tf.name_scope('loss'):
                self.loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=self.output, labels=self.gtMaps), name='cross_entropy_loss')
            with tf.name_scope('accuracy'):
                self._accuracy_computation()
            with tf.name_scope('steps'):
                self.train_step = tf.Variable(0, name='global_step', trainable=False)
            with tf.name_scope('lr'):
                self.lr = tf.train.exponential_decay(self.learning_rate, self.train_step, self.decay_step, self.decay, staircase=True, name='learning_rate')
            with tf.name_scope('rmsprop'):
                self.rmsprop = tf.train.RMSPropOptimizer(learning_rate=self.lr)
            with tf.name_scope('minimizer'):
                self.update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
                with tf.control_dependencies(self.update_ops):
                    self.train_rmsprop = self.rmsprop.minimize(self.loss, self.train_step)
            self.init = tf.global_variables_initializer()
            with tf.name_scope('training'):
                tf.summary.scalar('loss', self.loss, collections=['train'])
                tf.summary.scalar('learning_rate', self.lr, collections=['train'])
            with tf.name_scope('summary'):
                for i in range(len(self.joint_accur)):
                    tf.summary.scalar('j%d' % i, self.joint_accur[i], collections=['train', 'test'])
            self.train_op = tf.summary.merge_all('train')
            self.test_op = tf.summary.merge_all('test')
            self.weight_op = tf.summary.merge_all('weight')
        def _accuracy_computation(self):
            self.joint_accur = []
            for i in range(self.outDim):
                self.joint_accur.append(self._accur(self.output[:, self.nStack - 1, :, :, i], self.gtMaps[:, self.nStack - 1, :, :, i], self.batchSize))
        def _graph_hourglass(self, inputs):
            with tf.name_scope('model'):
                with tf.name_scope('preprocessing'):
                    pad1 = tf.pad(inputs, [[0,0],[2,2],[2,2],[0,0]], name='pad_1')
                    conv1 = self._conv_bn_relu(pad1, filters= 4, kernel_size = 6, strides = 2, name = 'conv_256_to_128')
                    r1 = self._residual(conv1, numOut = 4, name = 'r1')
                    pool1 = tf.contrib.layers.max_pool2d(r1, [2,2], [2,2], padding='VALID')
                    r2 = self._residual(pool1, numOut= int(self.nFeat/2), name = 'r2')
                    r3 = self._residual(r2, numOut= self.nFeat, name = 'r3')
                hg = [None] * self.nStack
                ll = [None] * self.nStack
                ll_ = [None] * self.nStack
                drop = [None] * self.nStack
                out = [None] * self.nStack
                out_ = [None] * self.nStack
                sum_ = [None] * self.nStack
                with tf.name_scope('stacks'):
                    with tf.name_scope('stage_0'):
                        hg[0] = self._hourglass(r3, self.nLow, self.nFeat, 'hourglass')
                        drop[0] = tf.layers.dropout(hg[0], rate = self.dropout_rate, training = self.training, name = 'dropout')
                        ll[0] = self._conv_bn_relu(drop[0], self.nFeat, 1,1, 'VALID', name = 'conv')
                        ll_[0] =  self._conv(ll[0], self.nFeat, 1, 1, 'VALID', 'll')
                        out[0] = self._conv(ll[0], self.outDim, 1, 1, 'VALID', 'out')
                        out_[0] = self._conv(out[0], self.nFeat, 1, 1, 'VALID', 'out_')
                        sum_[0] = tf.add_n([out_[0], r3, ll_[0]], name='merge')
                    with tf.name_scope('stage_' + str(self.nStack -1)):
                        hg[self.nStack - 1] = self._hourglass(sum_[self.nStack - 2], self.nLow, self.nFeat, 'hourglass')
                        drop[self.nStack-1] = tf.layers.dropout(hg[self.nStack-1], rate = self.dropout_rate, training = self.training, name = 'dropout')
                        ll[self.nStack - 1] = self._conv_bn_relu(drop[self.nStack-1], self.nFeat, 1, 1, 'VALID', 'conv')
                        out[self.nStack - 1] = self._conv(ll[self.nStack - 1], self.outDim, 1,1, 'VALID', 'out')
                return tf.stack(out, axis= 1 , name = 'final_output')
        def _conv(self, inputs, filters, kernel_size = 1, strides = 1, pad = 'VALID', name = 'conv'):
            with tf.name_scope(name):
                kernel = tf.Variable(tf.contrib.layers.xavier_initializer(uniform=False)([kernel_size,kernel_size, inputs.get_shape().as_list()[3], filters]), name= 'weights')
                conv = tf.nn.conv2d(inputs, kernel, [1,strides,strides,1], padding=pad, data_format='NHWC')
                if self.w_summary:
                    with tf.device('/cpu:0'):
                        tf.summary.histogram('weights_summary', kernel, collections = ['weight'])
                return conv
        def _conv_bn_relu(self, inputs, filters, kernel_size = 1, strides = 1, pad = 'VALID', name = 'conv_bn_relu'):
            with tf.name_scope(name):
                kernel = tf.Variable(tf.contrib.layers.xavier_initializer(uniform=False)([kernel_size,kernel_size, inputs.get_shape().as_list()[3], filters]), name= 'weights')
                conv = tf.nn.conv2d(inputs, kernel, [1,strides,strides,1], padding='VALID', data_format='NHWC')
                norm = tf.contrib.layers.batch_norm(conv, 0.9, epsilon=1e-5, activation_fn = tf.nn.relu, is_training = self.training)
                if self.w_summary:
                    with tf.device('/cpu:0'):
                        tf.summary.histogram('weights_summary', kernel, collections = ['weight'])
                return norm
        def _conv_block(self, inputs, numOut, name = 'conv_block'):
            with tf.name_scope(name):
                with tf.name_scope('norm_1'):
                    norm_1 = tf.contrib.layers.batch_norm(inputs, 0.9, epsilon=1e-5, activation_fn = tf.nn.relu, is_training = self.training)
                    conv_1 = self._conv(norm_1, int(numOut/2), kernel_size=1, strides=1, pad = 'VALID', name= 'conv')
                with tf.name_scope('norm_2'):
                    norm_2 = tf.contrib.layers.batch_norm(conv_1, 0.9, epsilon=1e-5, activation_fn = tf.nn.relu, is_training = self.training)
                    pad = tf.pad(norm_2, np.array([[0,0],[1,1],[1,1],[0,0]]), name= 'pad')
                    conv_2 = self._conv(pad, int(numOut/2), kernel_size=3, strides=1, pad = 'VALID', name= 'conv')
                with tf.name_scope('norm_3'):
                    norm_3 = tf.contrib.layers.batch_norm(conv_2, 0.9, epsilon=1e-5, activation_fn = tf.nn.relu, is_training = self.training)
                    conv_3 = self._conv(norm_3, int(numOut), kernel_size=1, strides=1, pad = 'VALID', name= 'conv')
                return conv_3
        def _skip_layer(self, inputs, numOut, name = 'skip_layer'):
            with tf.name_scope(name):
                if inputs.get_shape().as_list()[3] == numOut:
                    return inputs
                else:
                    conv = self._conv(inputs, numOut, kernel_size=1, strides = 1, name = 'conv')
                    return conv
        def _residual(self, inputs, numOut, name = 'residual_block'):
            with tf.name_scope(name):
                convb = self._conv_block(inputs, numOut)
                skipl = self._skip_layer(inputs, numOut)
                if self.modif:
                    return tf.nn.relu(tf.add_n([convb, skipl], name = 'res_block'))
                else:
                    return tf.add_n([convb, skipl], name = 'res_block')
        def _hourglass(self, inputs, n, numOut, name = 'hourglass'):
            with tf.name_scope(name):
                up_1 = self._residual(inputs, numOut, name = 'up_1')
                low_ = tf.contrib.layers.max_pool2d(inputs, [2,2], [2,2], padding='VALID')
                low_1= self._residual(low_, numOut, name = 'low_1')
                if n > 0:
                    low_2 = self._hourglass(low_1, n-1, numOut, name = 'low_2')
                else:
                    low_2 = self._residual(low_1, numOut, name = 'low_2')
                low_3 = self._residual(low_2, numOut, name = 'low_3')
                up_2 = tf.image.resize_nearest_neighbor(low_3, tf.shape(low_3)[1:3]*2, name = 'upsampling')
                if self.modif:
                    return tf.nn.relu(tf.add_n([up_2,up_1]), name='out_hg')
                else:
                    return tf.add_n([up_2,up_1], name='out_hg')
        def _argmax(self, tensor):
            resh = tf.reshape(tensor, [-1])
            argmax = tf.arg_max(resh, 0)
            return (argmax // tensor.get_shape().as_list()[0], argmax % tensor.get_shape().as_list()[0])
        def _compute_err(self, u, v):
            u_x,u_y = self._argmax(u)
            v_x,v_y = self._argmax(v)
            return tf.divide(tf.sqrt(tf.square(tf.to_float(u_x - v_x)) + tf.square(tf.to_float(u_y - v_y))), tf.to_float(91))
        def _accur(self, pred, gtMap, num_image):
            err = tf.to_float(0)
            for i in range(num_image):
                err = tf.add(err, self._compute_err(pred[i], gtMap[i]))
            return tf.subtract(tf.to_float(1), err/num_image)

    np.random.seed(17)
    tf.set_random_seed(17)
    model = HourglassModel(nFeat=6, nStack=2, nLow=1, outDim=3, batch_size=2, lear_rate=1e-3, decay_step=2, training=True, modif=False)
    model.generate_model()
    print(model.output, model.loss, len(model.joint_accur), len(model.update_ops), len(tf.trainable_variables()), len(tf.global_variables()))
    print(model.train_op, model.test_op, model.weight_op)
    img = np.random.rand(4, 32, 32, 3).astype(np.float32)
    gt = (np.random.rand(4, 2, 8, 8, 3) > 0.9).astype(np.float32)
    with tf.Session() as sess:
        sess.run(model.init)
        for i in range(4):
            b = i % 2
            fd = {model.img: img[2*b:2*b+2], model.gtMaps: gt[2*b:2*b+2]}
            _, c, summary = sess.run([model.train_rmsprop, model.loss, model.train_op], fd)
            acc = sess.run(model.joint_accur, fd)
            print(i, '%.6f' % c, ['%.5f' % a for a in acc], sess.run(model.lr))
        w = sess.run(model.weight_op)
        print(type(w), len(w) > 0)
    _printed(capsys, """\
Tensor("model/final_output:0", shape=(?, 2, 8, 8, 3), dtype=float32) Tensor("loss/cross_entropy_loss:0", shape=(), dtype=float32) 3 108 114 451
Tensor("Merge/MergeSummary:0", shape=(), dtype=string) Tensor("Merge_1/MergeSummary:0", shape=(), dtype=string) Tensor("Merge_2/MergeSummary:0", shape=(), dtype=string)
0 0.729456 ['0.94933', '0.93206', '0.97123'] 0.001
1 0.724042 ['0.94987', '0.96525', '0.94920'] 0.00096000003
2 0.723423 ['0.94201', '0.93513', '0.97253'] 0.00096000003
3 0.710848 ['0.94466', '0.97994', '0.96038'] 0.00092160003
<class 'bytes'> True
""")
