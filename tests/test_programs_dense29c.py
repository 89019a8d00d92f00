"""Dense prediction and vision programs, part 3: as in test_programs_dense29.py, each reduced
and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: B006, B008, F401, F841, I001, RUF059, SIM117, UP004, UP031, UP032

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_edsr_subpixel(capsys, tmp_path):
    # jmiller656/EDSR-Tensorflow model.py + utils.py (subpixel phase shift): train, save, resume, predict (reduced)
    import sys, os, shutil, tempfile
    import numpy as np
    slim = tf.contrib.slim
    # jmiller656/EDSR-Tensorflow utils.py (subpixel PS from tetrachrome/subpixel) + model.py (reduced: 6x6 inputs, 2 res blocks, 6 features; a numpy batch function)
    class utils: pass
    def resBlock(x,channels=64,kernel_size=[3,3],scale=1):
        tmp = slim.conv2d(x,channels,kernel_size,activation_fn=None)
        tmp = tf.nn.relu(tmp)
        tmp = slim.conv2d(tmp,channels,kernel_size,activation_fn=None)
        tmp *= scale
        return x + tmp
    def upsample(x,scale=2,features=64,activation=tf.nn.relu):
        assert scale in [2,3,4]
        x = slim.conv2d(x,features,[3,3],activation_fn=activation)
        if scale == 2:
            ps_features = 3*(scale**2)
            x = slim.conv2d(x,ps_features,[3,3],activation_fn=activation)
            x = PS(x,2,color=True)
        elif scale == 3:
            ps_features =3*(scale**2)
            x = slim.conv2d(x,ps_features,[3,3],activation_fn=activation)
            x = PS(x,3,color=True)
        return x
    def _phase_shift(I, r):
        bsize, a, b, c = I.get_shape().as_list()
        bsize = tf.shape(I)[0]
        X = tf.reshape(I, (bsize, a, b, r, r))
        X = tf.transpose(X, (0, 1, 2, 4, 3))
        X = tf.split(X, a, 1)
        X = tf.concat([tf.squeeze(x, axis=1) for x in X],2)
        X = tf.split(X, b, 1)
        X = tf.concat([tf.squeeze(x, axis=1) for x in X],2)
        return tf.reshape(X, (bsize, a*r, b*r, 1))
    def PS(X, r, color=False):
        if color:
            Xc = tf.split(X, 3, 3)
            X = tf.concat([_phase_shift(x, r) for x in Xc],3)
        else:
            X = _phase_shift(X, r)
        return X
    def log10(x):
      numerator = tf.log(x)
      denominator = tf.log(tf.constant(10, dtype=numerator.dtype))
      return numerator / denominator
    utils.resBlock, utils.upsample, utils.log10 = resBlock, upsample, log10
    class EDSR(object):
        def __init__(self,img_size=32,num_layers=32,feature_size=256,scale=2,output_channels=3):
            print("Building EDSR...")
            self.input = x = tf.placeholder(tf.float32,[None,img_size,img_size,output_channels])
            self.target = y = tf.placeholder(tf.float32,[None,img_size*scale,img_size*scale,output_channels])
            mean_x = tf.reduce_mean(self.input)
            image_input =x- mean_x
            mean_y = tf.reduce_mean(self.target)
            image_target =y- mean_y
            x = slim.conv2d(image_input,feature_size,[3,3])
            conv_1 = x
            scaling_factor = 0.1
            for i in range(num_layers):
                x = utils.resBlock(x,feature_size,scale=scaling_factor)
            x = slim.conv2d(x,feature_size,[3,3])
            x += conv_1
            x = utils.upsample(x,scale,feature_size,None)
            output =x
            self.out = tf.clip_by_value(output+mean_x,0.0,255.0)
            self.loss = loss = tf.reduce_mean(tf.losses.absolute_difference(image_target,output))
            mse = tf.reduce_mean(tf.squared_difference(image_target,output))
            PSNR = tf.constant(255**2,dtype=tf.float32)/mse
            PSNR = tf.constant(10,dtype=tf.float32)*utils.log10(PSNR)
            self.psnr = PSNR
            tf.summary.scalar("loss",self.loss)
            tf.summary.scalar("PSNR",PSNR)
            tf.summary.image("input_image",tf.cast(self.input,tf.uint8))
            tf.summary.image("target_image",tf.cast(self.target,tf.uint8))
            tf.summary.image("output_image",tf.cast(self.out,tf.uint8))
            self.sess = tf.Session()
            self.saver = tf.train.Saver()
            print("Done building!")
        def save(self,savedir='saved_models'):
            print("Saving...")
            self.saver.save(self.sess,savedir+"/model")
            print("Saved!")
        def resume(self,savedir='saved_models'):
            print("Restoring...")
            self.saver.restore(self.sess,tf.train.latest_checkpoint(savedir))
            print("Restored!")
        def predict(self,x):
            print("Predicting...")
            return self.sess.run(self.out,feed_dict={self.input:x})
        def set_data_fn(self,fn,args,test_set_fn=None,test_set_args=None):
            self.data = fn
            self.args = args
            self.test_data = test_set_fn
            self.test_args = test_set_args
        def train(self,iterations=1000,save_dir="saved_models"):
            if os.path.exists(save_dir):
                shutil.rmtree(save_dir)
            os.mkdir(save_dir)
            merged = tf.summary.merge_all()
            optimizer = tf.train.AdamOptimizer()
            train_op = optimizer.minimize(self.loss)
            init = tf.global_variables_initializer()
            print("Begin training...")
            with self.sess as sess:
                sess.run(init)
                test_exists = self.test_data
                train_writer = tf.summary.FileWriter(save_dir+"/train",sess.graph)
                if test_exists:
                    test_writer = tf.summary.FileWriter(save_dir+"/test",sess.graph)
                    test_x,test_y = self.test_data(*self.test_args)
                    test_feed = {self.input:test_x,self.target:test_y}
                for i in range(iterations):
                    x,y = self.data(*self.args)
                    feed = {self.input:x, self.target:y}
                    summary,_ = sess.run([merged,train_op],feed)
                    print(i, sess.run([self.loss, self.psnr], feed))
                    if test_exists:
                        t_summary = sess.run(merged,test_feed)
                        test_writer.add_summary(t_summary,i)
                    train_writer.add_summary(summary,i)
                self.save(save_dir)

    np.random.seed(4)
    tf.set_random_seed(4)
    hr = (np.random.rand(10, 12, 12, 3) * 255).astype(np.float32)
    lr = hr.reshape(10, 6, 2, 6, 2, 3).mean(axis=(2, 4))
    def get_batch(n):
        idx = np.random.choice(10, n, replace=False)
        return lr[idx], hr[idx]
    def get_test_set(n):
        return lr[:n], hr[:n]
    network = EDSR(6, 2, 6, 2, 3)
    print(network.out, network.loss, len(tf.trainable_variables()))
    print([v.name for v in tf.trainable_variables()])
    network.set_data_fn(get_batch, (3,), get_test_set, (2,))
    d = str(tmp_path)
    network.train(4, d + "/saved")
    print(sorted(os.listdir(d + "/saved")), tf.train.latest_checkpoint(d + "/saved")[len(d):])
    network.sess = tf.Session()
    network.resume(d + "/saved")
    out = network.predict(lr[:1])
    print(out.shape, out[0, :2, :4, 0])
    # PS equals depth_to_space with its channels regrouped
    t = tf.constant(np.arange(2 * 2 * 3 * 12, dtype=np.float32).reshape(2, 2, 3, 12))
    a = PS(t, 2, color=True)
    b = tf.depth_to_space(t, 2)
    with tf.Session() as s:
        ra, rb = s.run([a, b])
        print(a, b, ra[0, :2, :, 0], rb[0, :2, :, 0])
    _printed(capsys, """\
Building EDSR...
Done building!
Tensor("clip_by_value:0", shape=(?, 12, 12, 3), dtype=float32) Tensor("Mean_2:0", shape=(), dtype=float32) 16
['Conv/weights:0', 'Conv/biases:0', 'Conv_1/weights:0', 'Conv_1/biases:0', 'Conv_2/weights:0', 'Conv_2/biases:0', 'Conv_3/weights:0', 'Conv_3/biases:0', 'Conv_4/weights:0', 'Conv_4/biases:0', 'Conv_5/weights:0', 'Conv_5/biases:0', 'Conv_6/weights:0', 'Conv_6/biases:0', 'Conv_7/weights:0', 'Conv_7/biases:0']
Begin training...
0 [65.55645, 10.5218935]
1 [65.1988, 10.584817]
2 [66.30628, 10.440469]
3 [64.938416, 10.536232]
Saving...
Saved!
['checkpoint', 'model.data-00000-of-00001', 'model.index', 'model.meta', 'test', 'train'] /saved/model
Restoring...
Restored!
Predicting...
(1, 12, 12, 3) [[117.07232 120.13647 138.68723 125.39434]
 [128.13492 135.2744  128.73093 120.64521]]
Tensor("concat_13:0", shape=(2, 4, 6, 3), dtype=float32) Tensor("DepthToSpace:0", shape=(2, 4, 6, 3), dtype=float32) [[ 0.  2. 12. 14. 24. 26.]
 [ 1.  3. 13. 15. 25. 27.]] [[ 0.  3. 12. 15. 24. 27.]
 [ 6.  9. 18. 21. 30. 33.]]
""", rtol=1e-05)


def test_deeplab_v3_estimator(capsys, tmp_path):
    # rishizek/tensorflow-deeplab-v3 deeplab_model.py: ASPP over a resnet_v2, Estimator train/evaluate/predict, init_from_checkpoint (reduced)
    from tideflow.contrib.slim.nets import resnet_v2
    from tideflow.contrib import layers as layers_lib
    from tideflow.contrib.framework.python.ops import arg_scope
    from tideflow.contrib.layers.python.layers import layers
    from tideflow.contrib.slim.python.slim.nets import resnet_utils
    import sys, os, tempfile, shutil
    import numpy as np
    # rishizek/tensorflow-deeplab-v3 deeplab_model.py (reduced: a two-block resnet_v2 of depth 2 as the base, 16x16 images, 3 classes; utils/preprocessing's helpers inlined)
    _BATCH_NORM_DECAY = 0.9997
    _WEIGHT_DECAY = 5e-4
    _R_MEAN, _G_MEAN, _B_MEAN = 123.68, 116.78, 103.94
    def mean_image_addition(image, means=(_R_MEAN, _G_MEAN, _B_MEAN)):
      num_channels = image.get_shape().as_list()[-1]
      channels = tf.split(axis=2, num_or_size_splits=num_channels, value=image)
      for i in range(num_channels):
        channels[i] += means[i]
      return tf.concat(axis=2, values=channels)
    label_colours = [(0, 0, 0), (128, 0, 0), (0, 128, 0), (128, 128, 0)]
    def decode_labels(mask, num_images=1, num_classes=21):
      n, h, w, c = mask.shape
      outputs = np.zeros((num_images, h, w, 3), dtype=np.uint8)
      for i in range(num_images):
        for y in range(h):
          for x in range(w):
            outputs[i, y, x] = label_colours[mask[i, y, x, 0]]
      return outputs
    def atrous_spatial_pyramid_pooling(inputs, output_stride, batch_norm_decay, is_training, depth=256):
      with tf.variable_scope("aspp"):
        if output_stride not in [8, 16]:
          raise ValueError('output_stride must be either 8 or 16.')
        atrous_rates = [6, 12, 18]
        if output_stride == 8:
          atrous_rates = [2*rate for rate in atrous_rates]
        with tf.contrib.slim.arg_scope(resnet_v2.resnet_arg_scope(batch_norm_decay=batch_norm_decay)):
          with arg_scope([layers.batch_norm], is_training=is_training):
            inputs_size = tf.shape(inputs)[1:3]
            conv_1x1 = layers_lib.conv2d(inputs, depth, [1, 1], stride=1, scope="conv_1x1")
            conv_3x3_1 = resnet_utils.conv2d_same(inputs, depth, 3, stride=1, rate=atrous_rates[0], scope='conv_3x3_1')
            conv_3x3_2 = resnet_utils.conv2d_same(inputs, depth, 3, stride=1, rate=atrous_rates[1], scope='conv_3x3_2')
            conv_3x3_3 = resnet_utils.conv2d_same(inputs, depth, 3, stride=1, rate=atrous_rates[2], scope='conv_3x3_3')
            with tf.variable_scope("image_level_features"):
              image_level_features = tf.reduce_mean(inputs, [1, 2], name='global_average_pooling', keepdims=True)
              image_level_features = layers_lib.conv2d(image_level_features, depth, [1, 1], stride=1, scope='conv_1x1')
              image_level_features = tf.image.resize_bilinear(image_level_features, inputs_size, name='upsample')
            net = tf.concat([conv_1x1, conv_3x3_1, conv_3x3_2, conv_3x3_3, image_level_features], axis=3, name='concat')
            net = layers_lib.conv2d(net, depth, [1, 1], stride=1, scope='conv_1x1_concat')
            return net
    def tiny_resnet(inputs, num_classes=None, is_training=True, global_pool=True, output_stride=None, reuse=None, scope='resnet_v2_50'):
      blocks = [resnet_v2.resnet_v2_block('block1', base_depth=2, num_units=1, stride=2),
                resnet_v2.resnet_v2_block('block2', base_depth=2, num_units=1, stride=2),
                resnet_v2.resnet_v2_block('block3', base_depth=2, num_units=1, stride=2),
                resnet_v2.resnet_v2_block('block4', base_depth=2, num_units=1, stride=1)]
      return resnet_v2.resnet_v2(inputs, blocks, num_classes, is_training=is_training, global_pool=global_pool,
                                 output_stride=output_stride, include_root_block=True, reuse=reuse, scope=scope)
    def deeplab_v3_generator(num_classes, output_stride, base_architecture, pre_trained_model, batch_norm_decay, data_format='channels_last'):
      if batch_norm_decay is None:
        batch_norm_decay = _BATCH_NORM_DECAY
      if base_architecture not in ['resnet_v2_50', 'resnet_v2_101']:
        raise ValueError("'base_architrecture' must be either 'resnet_v2_50' or 'resnet_v2_50'.")
      base_model = tiny_resnet
      def model(inputs, is_training):
        with tf.contrib.slim.arg_scope(resnet_v2.resnet_arg_scope(batch_norm_decay=batch_norm_decay)):
          logits, end_points = base_model(inputs, num_classes=None, is_training=is_training, global_pool=False, output_stride=output_stride)
        if is_training and pre_trained_model:
          exclude = [base_architecture + '/logits', 'global_step']
          variables_to_restore = tf.contrib.slim.get_variables_to_restore(exclude=exclude)
          tf.train.init_from_checkpoint(pre_trained_model, {v.name.split(':')[0]: v for v in variables_to_restore})
        inputs_size = tf.shape(inputs)[1:3]
        net = end_points[base_architecture + '/block4']
        net = atrous_spatial_pyramid_pooling(net, output_stride, batch_norm_decay, is_training, depth=6)
        with tf.variable_scope("upsampling_logits"):
          net = layers_lib.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None, scope='conv_1x1')
          logits = tf.image.resize_bilinear(net, inputs_size, name='upsample')
        return logits
      return model
    def deeplabv3_model_fn(features, labels, mode, params):
      if isinstance(features, dict):
        features = features['image']
      images = tf.cast(tf.map_fn(mean_image_addition, features), tf.uint8)
      network = deeplab_v3_generator(params['num_classes'], params['output_stride'], params['base_architecture'], params['pre_trained_model'], params['batch_norm_decay'])
      logits = network(features, mode == tf.estimator.ModeKeys.TRAIN)
      pred_classes = tf.expand_dims(tf.argmax(logits, axis=3, output_type=tf.int32), axis=3)
      pred_decoded_labels = tf.py_func(decode_labels, [pred_classes, params['batch_size'], params['num_classes']], tf.uint8)
      predictions = {'classes': pred_classes, 'probabilities': tf.nn.softmax(logits, name='softmax_tensor'), 'decoded_labels': pred_decoded_labels}
      if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions, export_outputs={'preds': tf.estimator.export.PredictOutput(predictions)})
      gt_decoded_labels = tf.py_func(decode_labels, [labels, params['batch_size'], params['num_classes']], tf.uint8)
      labels = tf.squeeze(labels, axis=3)
      logits_by_num_classes = tf.reshape(logits, [-1, params['num_classes']])
      labels_flat = tf.reshape(labels, [-1, ])
      valid_indices = tf.to_int32(labels_flat <= params['num_classes'] - 1)
      valid_logits = tf.dynamic_partition(logits_by_num_classes, valid_indices, num_partitions=2)[1]
      valid_labels = tf.dynamic_partition(labels_flat, valid_indices, num_partitions=2)[1]
      preds_flat = tf.reshape(pred_classes, [-1, ])
      valid_preds = tf.dynamic_partition(preds_flat, valid_indices, num_partitions=2)[1]
      confusion_matrix = tf.confusion_matrix(valid_labels, valid_preds, num_classes=params['num_classes'])
      predictions['valid_preds'] = valid_preds
      predictions['valid_labels'] = valid_labels
      predictions['confusion_matrix'] = confusion_matrix
      cross_entropy = tf.losses.sparse_softmax_cross_entropy(logits=valid_logits, labels=valid_labels)
      tf.identity(cross_entropy, name='cross_entropy')
      tf.summary.scalar('cross_entropy', cross_entropy)
      if not params['freeze_batch_norm']:
        train_var_list = [v for v in tf.trainable_variables()]
      else:
        train_var_list = [v for v in tf.trainable_variables() if 'beta' not in v.name and 'gamma' not in v.name]
      with tf.variable_scope("total_loss"):
        loss = cross_entropy + params.get('weight_decay', _WEIGHT_DECAY) * tf.add_n([tf.nn.l2_loss(v) for v in train_var_list])
      if mode == tf.estimator.ModeKeys.TRAIN:
        tf.summary.image('images', tf.concat(axis=2, values=[images, gt_decoded_labels, pred_decoded_labels]), max_outputs=params['tensorboard_images_max_outputs'])
        global_step = tf.train.get_or_create_global_step()
        if params['learning_rate_policy'] == 'piecewise':
          initial_learning_rate = 0.1 * params['batch_size'] / 128
          batches_per_epoch = params['num_train'] / params['batch_size']
          boundaries = [int(batches_per_epoch * epoch) for epoch in [100, 150, 200]]
          values = [initial_learning_rate * decay for decay in [1, 0.1, 0.01, 0.001]]
          learning_rate = tf.train.piecewise_constant(tf.cast(global_step, tf.int32), boundaries, values)
        elif params['learning_rate_policy'] == 'poly':
          learning_rate = tf.train.polynomial_decay(params['initial_learning_rate'], tf.cast(global_step, tf.int32) - params['initial_global_step'], params['max_iter'], params['end_learning_rate'], power=params['power'])
        tf.identity(learning_rate, name='learning_rate')
        tf.summary.scalar('learning_rate', learning_rate)
        optimizer = tf.train.MomentumOptimizer(learning_rate=learning_rate, momentum=params['momentum'])
        update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        with tf.control_dependencies(update_ops):
          train_op = optimizer.minimize(loss, global_step, var_list=train_var_list)
      else:
        train_op = None
      accuracy = tf.metrics.accuracy(valid_labels, valid_preds)
      mean_iou = tf.metrics.mean_iou(valid_labels, valid_preds, params['num_classes'])
      metrics = {'px_accuracy': accuracy, 'mean_iou': mean_iou}
      tf.identity(accuracy[1], name='train_px_accuracy')
      tf.summary.scalar('train_px_accuracy', accuracy[1])
      def compute_mean_iou(total_cm, name='mean_iou'):
        sum_over_row = tf.to_float(tf.reduce_sum(total_cm, 0))
        sum_over_col = tf.to_float(tf.reduce_sum(total_cm, 1))
        cm_diag = tf.to_float(tf.diag_part(total_cm))
        denominator = sum_over_row + sum_over_col - cm_diag
        num_valid_entries = tf.reduce_sum(tf.cast(tf.not_equal(denominator, 0), dtype=tf.float32))
        denominator = tf.where(tf.greater(denominator, 0), denominator, tf.ones_like(denominator))
        iou = tf.div(cm_diag, denominator)
        for i in range(params['num_classes']):
          tf.identity(iou[i], name='train_iou_class{}'.format(i))
          tf.summary.scalar('train_iou_class{}'.format(i), iou[i])
        result = tf.where(tf.greater(num_valid_entries, 0), tf.reduce_sum(iou, name=name) / num_valid_entries, 0)
        return result
      train_mean_iou = compute_mean_iou(mean_iou[1])
      tf.identity(train_mean_iou, name='train_mean_iou')
      tf.summary.scalar('train_mean_iou', train_mean_iou)
      return tf.estimator.EstimatorSpec(mode=mode, predictions=predictions, loss=loss, train_op=train_op, eval_metric_ops=metrics)

    np.random.seed(0)
    imgs = (np.random.rand(4, 16, 16, 3) * 40 - 20).astype(np.float32)
    labs = np.random.randint(0, 4, size=(4, 16, 16, 1)).astype(np.int32)   # 3 marks an ignored pixel
    def input_fn(training):
      ds = tf.data.Dataset.from_tensor_slices(({'image': imgs}, labs)).batch(2)
      if training:
        ds = ds.repeat()
      return ds
    d = str(tmp_path)
    # a "pre-trained" base written first, for init_from_checkpoint
    with tf.Graph().as_default():
      tf.set_random_seed(9)
      with tf.contrib.slim.arg_scope(resnet_v2.resnet_arg_scope()):
        tiny_resnet(tf.zeros([1, 16, 16, 3]), is_training=False, global_pool=False, output_stride=8)
      with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        print(len(tf.global_variables()), tf.global_variables()[0], s.run(tf.global_variables()[0]).astype(np.float64).sum())
        tf.train.Saver().save(s, d + '/pre/resnet_v2_50.ckpt')
    params = {'output_stride': 8, 'batch_size': 2, 'base_architecture': 'resnet_v2_50', 'pre_trained_model': d + '/pre/resnet_v2_50.ckpt',
              'batch_norm_decay': _BATCH_NORM_DECAY, 'num_classes': 3, 'tensorboard_images_max_outputs': 2, 'weight_decay': 2e-4,
              'learning_rate_policy': 'poly', 'num_train': 4, 'initial_learning_rate': 7e-3, 'max_iter': 30, 'end_learning_rate': 1e-6,
              'initial_global_step': 0, 'power': 0.9, 'momentum': 0.9, 'freeze_batch_norm': True}
    run_config = tf.estimator.RunConfig(tf_random_seed=11, save_checkpoints_steps=1000, keep_checkpoint_max=1, log_step_count_steps=1000)
    model = tf.estimator.Estimator(model_fn=deeplabv3_model_fn, model_dir=d + '/model', config=run_config, params=params)
    class Printer(tf.train.SessionRunHook):
      def before_run(self, run_context):
        return tf.train.SessionRunArgs(['cross_entropy:0', 'learning_rate:0', 'train_px_accuracy:0', 'train_mean_iou:0'])
      def after_run(self, run_context, run_values):
        print('train', ['%.5f' % v for v in run_values.results])
    model.train(input_fn=lambda: input_fn(True), steps=3, hooks=[Printer()])
    ev = model.evaluate(input_fn=lambda: input_fn(False))
    print(sorted((k, v.tolist() if hasattr(v, 'tolist') else v) for k, v in ev.items()))
    for p in model.predict(input_fn=lambda: input_fn(False), predict_keys=['classes', 'probabilities', 'decoded_labels']):
      print(sorted(p), p['classes'].shape, p['probabilities'][0, 0], p['decoded_labels'].dtype, p['decoded_labels'].shape)
      break
    print(sorted(f.split('.tfevents')[0] if 'tfevents' in f else f for f in os.listdir(d + '/model')))
    print([n for n, s in tf.train.list_variables(d + '/model')][:8])
    _printed(capsys, """\
72 <tf.Variable 'resnet_v2_50/conv1/weights:0' shape=(7, 7, 3, 64) dtype=float32_ref> 32.60203290075333
train ['1.29632', '0.00700', '0.38095', '0.16126']
train ['1.27450', '0.00679', '0.36211', '0.16973']
train ['1.34626', '0.00658', '0.35915', '0.15682']
[('global_step', 3), ('loss', 20.01961898803711), ('mean_iou', 0.13659793138504028), ('px_accuracy', 0.32731959223747253)]
['classes', 'decoded_labels', 'probabilities'] (16, 16, 1) [3.8059333e-03 9.9619412e-01 8.1180855e-16] uint8 (16, 16, 3)
['checkpoint', 'eval', 'events.out', 'graph.pbtxt', 'model.ckpt-3.data-00000-of-00001', 'model.ckpt-3.index', 'model.ckpt-3.meta']
['aspp/conv_1x1/BatchNorm/beta', 'aspp/conv_1x1/BatchNorm/gamma', 'aspp/conv_1x1/BatchNorm/moving_mean', 'aspp/conv_1x1/BatchNorm/moving_variance', 'aspp/conv_1x1/weights', 'aspp/conv_1x1/weights/Momentum', 'aspp/conv_1x1_concat/BatchNorm/beta', 'aspp/conv_1x1_concat/BatchNorm/gamma']
""", rtol=0.0001)


def test_faster_rcnn_proposals(capsys, tmp_path):
    # endernewton/tf-faster-rcnn lib/layer_utils/snippets.py (generate_anchors_tf), generate_anchors.py, the TF proposal layer (non_max_suppression over clipped boxes), nets/network.py (_reshape_layer, _softmax_layer, _crop_pool_layer by crop_and_resize) (reduced)
    import sys
    import numpy as np
    slim = tf.contrib.slim
    # endernewton/tf-faster-rcnn lib/layer_utils/snippets.py (generate_anchors_tf), generate_anchors.py, proposal_layer.py's TF form (bbox_transform_inv_tf, clip_boxes_tf, non_max_suppression), nets/network.py (_reshape_layer, _softmax_layer, _crop_pool_layer) (reduced: a 2-conv backbone, 32x48 image, scales (2, 4))
    def _whctrs(anchor):
      w = anchor[2] - anchor[0] + 1
      h = anchor[3] - anchor[1] + 1
      x_ctr = anchor[0] + 0.5 * (w - 1)
      y_ctr = anchor[1] + 0.5 * (h - 1)
      return w, h, x_ctr, y_ctr
    def _mkanchors(ws, hs, x_ctr, y_ctr):
      ws = ws[:, np.newaxis]
      hs = hs[:, np.newaxis]
      return np.hstack((x_ctr - 0.5 * (ws - 1), y_ctr - 0.5 * (hs - 1), x_ctr + 0.5 * (ws - 1), y_ctr + 0.5 * (hs - 1)))
    def _ratio_enum(anchor, ratios):
      w, h, x_ctr, y_ctr = _whctrs(anchor)
      size = w * h
      size_ratios = size / ratios
      ws = np.round(np.sqrt(size_ratios))
      hs = np.round(ws * ratios)
      return _mkanchors(ws, hs, x_ctr, y_ctr)
    def _scale_enum(anchor, scales):
      w, h, x_ctr, y_ctr = _whctrs(anchor)
      ws = w * scales
      hs = h * scales
      return _mkanchors(ws, hs, x_ctr, y_ctr)
    def generate_anchors(base_size=16, ratios=[0.5, 1, 2], scales=2 ** np.arange(3, 6)):
      base_anchor = np.array([1, 1, base_size, base_size]) - 1
      ratio_anchors = _ratio_enum(base_anchor, ratios)
      anchors = np.vstack([_scale_enum(ratio_anchors[i, :], scales) for i in range(ratio_anchors.shape[0])])
      return anchors
    def generate_anchors_tf(height, width, feat_stride=16, anchor_scales=(8, 16, 32), anchor_ratios=(0.5, 1, 2)):
      shift_x = tf.range(width) * feat_stride
      shift_y = tf.range(height) * feat_stride
      shift_x, shift_y = tf.meshgrid(shift_x, shift_y)
      sx = tf.reshape(shift_x, shape=(-1,))
      sy = tf.reshape(shift_y, shape=(-1,))
      shifts = tf.transpose(tf.stack([sx, sy, sx, sy]))
      K = tf.multiply(width, height)
      shifts = tf.transpose(tf.reshape(shifts, shape=[1, K, 4]), perm=(1, 0, 2))
      anchors = generate_anchors(ratios=np.array(anchor_ratios), scales=np.array(anchor_scales))
      A = anchors.shape[0]
      anchor_constant = tf.constant(anchors.reshape((1, A, 4)), dtype=tf.int32)
      length = K * A
      anchors_tf = tf.reshape(tf.add(anchor_constant, shifts), shape=(length, 4))
      return tf.cast(anchors_tf, dtype=tf.float32), length
    def bbox_transform_inv_tf(boxes, deltas):
      boxes = tf.cast(boxes, deltas.dtype)
      widths = tf.subtract(boxes[:, 2], boxes[:, 0]) + 1.0
      heights = tf.subtract(boxes[:, 3], boxes[:, 1]) + 1.0
      ctr_x = tf.add(boxes[:, 0], widths * 0.5)
      ctr_y = tf.add(boxes[:, 1], heights * 0.5)
      dx = deltas[:, 0]
      dy = deltas[:, 1]
      dw = deltas[:, 2]
      dh = deltas[:, 3]
      pred_ctr_x = tf.add(tf.multiply(dx, widths), ctr_x)
      pred_ctr_y = tf.add(tf.multiply(dy, heights), ctr_y)
      pred_w = tf.multiply(tf.exp(dw), widths)
      pred_h = tf.multiply(tf.exp(dh), heights)
      pred_boxes0 = tf.subtract(pred_ctr_x, pred_w * 0.5)
      pred_boxes1 = tf.subtract(pred_ctr_y, pred_h * 0.5)
      pred_boxes2 = tf.add(pred_ctr_x, pred_w * 0.5)
      pred_boxes3 = tf.add(pred_ctr_y, pred_h * 0.5)
      return tf.stack([pred_boxes0, pred_boxes1, pred_boxes2, pred_boxes3], axis=1)
    def clip_boxes_tf(boxes, im_info):
      b0 = tf.maximum(tf.minimum(boxes[:, 0], im_info[1] - 1), 0)
      b1 = tf.maximum(tf.minimum(boxes[:, 1], im_info[0] - 1), 0)
      b2 = tf.maximum(tf.minimum(boxes[:, 2], im_info[1] - 1), 0)
      b3 = tf.maximum(tf.minimum(boxes[:, 3], im_info[0] - 1), 0)
      return tf.stack([b0, b1, b2, b3], axis=1)
    def proposal_layer_tf(rpn_cls_prob, rpn_bbox_pred, im_info, _feat_stride, anchors, num_anchors, post_nms_topN=6, nms_thresh=0.7):
      scores = rpn_cls_prob[:, :, :, num_anchors:]
      scores = tf.reshape(scores, shape=(-1,))
      rpn_bbox_pred = tf.reshape(rpn_bbox_pred, shape=(-1, 4))
      proposals = bbox_transform_inv_tf(anchors, rpn_bbox_pred)
      proposals = clip_boxes_tf(proposals, im_info[:2])
      indices = tf.image.non_max_suppression(proposals, scores, max_output_size=post_nms_topN, iou_threshold=nms_thresh)
      boxes = tf.gather(proposals, indices)
      boxes = tf.to_float(boxes)
      scores = tf.gather(scores, indices)
      scores = tf.reshape(scores, shape=(-1, 1))
      batch_inds = tf.zeros((tf.shape(indices)[0], 1), dtype=tf.float32)
      blob = tf.concat([batch_inds, boxes], 1)
      return blob, scores
    class Network(object):
      def __init__(self):
        self._feat_stride = [4, ]
        self._predictions = {}
      def _reshape_layer(self, bottom, num_dim, name):
        input_shape = tf.shape(bottom)
        with tf.variable_scope(name) as scope:
          to_caffe = tf.transpose(bottom, [0, 3, 1, 2])
          reshaped = tf.reshape(to_caffe, tf.concat(axis=0, values=[[1, num_dim, -1], [input_shape[2]]]))
          to_tf = tf.transpose(reshaped, [0, 2, 3, 1])
          return to_tf
      def _softmax_layer(self, bottom, name):
        if name.startswith('rpn_cls_prob_reshape'):
          input_shape = tf.shape(bottom)
          bottom_reshaped = tf.reshape(bottom, [-1, input_shape[-1]])
          reshaped_score = tf.nn.softmax(bottom_reshaped, name=name)
          return tf.reshape(reshaped_score, input_shape)
        return tf.nn.softmax(bottom, name=name)
      def _crop_pool_layer(self, bottom, rois, name):
        with tf.variable_scope(name) as scope:
          batch_ids = tf.squeeze(tf.slice(rois, [0, 0], [-1, 1], name="batch_id"), [1])
          bottom_shape = tf.shape(bottom)
          height = (tf.to_float(bottom_shape[1]) - 1.) * np.float32(self._feat_stride[0])
          width = (tf.to_float(bottom_shape[2]) - 1.) * np.float32(self._feat_stride[0])
          x1 = tf.slice(rois, [0, 1], [-1, 1], name="x1") / width
          y1 = tf.slice(rois, [0, 2], [-1, 1], name="y1") / height
          x2 = tf.slice(rois, [0, 3], [-1, 1], name="x2") / width
          y2 = tf.slice(rois, [0, 4], [-1, 1], name="y2") / height
          bboxes = tf.stop_gradient(tf.concat([y1, x1, y2, x2], axis=1))
          pre_pool_size = 3 * 2
          crops = tf.image.crop_and_resize(bottom, bboxes, tf.to_int32(batch_ids), [pre_pool_size, pre_pool_size], name="crops")
        return slim.max_pool2d(crops, [2, 2], padding='SAME')
      def build(self, image, im_info, labels):
        num_anchors = 2 * 3
        net = slim.conv2d(image, 5, [3, 3], scope='conv1')
        net = slim.max_pool2d(net, [2, 2], padding='SAME', scope='pool1')
        net = slim.conv2d(net, 6, [3, 3], scope='conv2')
        net_conv = slim.max_pool2d(net, [2, 2], padding='SAME', scope='pool2')
        anchors, length = generate_anchors_tf(tf.to_int32(tf.ceil(im_info[0] / 4.)), tf.to_int32(tf.ceil(im_info[1] / 4.)), 4, (2, 4), (0.5, 1, 2))
        rpn = slim.conv2d(net_conv, 6, [3, 3], scope="rpn_conv/3x3")
        rpn_cls_score = slim.conv2d(rpn, num_anchors * 2, [1, 1], padding='VALID', activation_fn=None, scope='rpn_cls_score')
        rpn_cls_score_reshape = self._reshape_layer(rpn_cls_score, 2, 'rpn_cls_score_reshape')
        rpn_cls_prob_reshape = self._softmax_layer(rpn_cls_score_reshape, "rpn_cls_prob_reshape")
        rpn_cls_pred = tf.argmax(tf.reshape(rpn_cls_score_reshape, [-1, 2]), axis=1, name="rpn_cls_pred")
        rpn_cls_prob = self._reshape_layer(rpn_cls_prob_reshape, num_anchors * 2, "rpn_cls_prob")
        rpn_bbox_pred = slim.conv2d(rpn, num_anchors * 4, [1, 1], padding='VALID', activation_fn=None, scope='rpn_bbox_pred')
        rois, roi_scores = proposal_layer_tf(rpn_cls_prob, rpn_bbox_pred, im_info, self._feat_stride, anchors, num_anchors)
        pool5 = self._crop_pool_layer(net_conv, rois, "pool5")
        fc7 = slim.fully_connected(slim.flatten(pool5), 7, scope='fc7')
        cls_score = slim.fully_connected(fc7, 3, activation_fn=None, scope='cls_score')
        cls_prob = self._softmax_layer(cls_score, "cls_prob")
        lab = tf.gather(labels, tf.range(tf.shape(cls_score)[0]))
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=cls_score, labels=lab))
        rpn_labels = tf.cast(tf.reshape(rpn_cls_pred, [-1]) * 0 + tf.cast(tf.range(tf.shape(rpn_cls_pred)[0]) % 2, tf.int64), tf.int32)
        rpn_loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=tf.reshape(rpn_cls_score_reshape, [-1, 2]), labels=rpn_labels))
        return anchors, length, rpn_cls_prob, rois, roi_scores, pool5, cls_prob, loss + rpn_loss

    np.random.seed(12)
    tf.set_random_seed(12)
    print(generate_anchors(ratios=np.array((0.5, 1, 2)), scales=np.array((2, 4))))
    image = tf.placeholder(tf.float32, shape=[1, None, None, 3])
    im_info = tf.placeholder(tf.float32, shape=[3])
    labels = tf.constant([0, 1, 2, 1, 0, 2], tf.int32)
    net = Network()
    anchors, length, rpn_cls_prob, rois, roi_scores, pool5, cls_prob, loss = net.build(image, im_info, labels)
    print(anchors, length, rpn_cls_prob, rois, roi_scores, pool5, cls_prob)
    train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(loss)
    img = np.random.rand(1, 32, 48, 3).astype(np.float32)
    info = np.array([32, 48, 1], np.float32)
    with tf.Session() as sess:
      sess.run(tf.global_variables_initializer())
      a, n, r, s, p = sess.run([anchors, length, rois, roi_scores, pool5], {image: img, im_info: info})
      print(a[:3], n, a.shape)
      print(r)
      print(s.ravel(), p.shape, p[0, :, :, 0])
      for i in range(3):
        _, l = sess.run([train_op, loss], {image: img, im_info: info})
        print(i, l)
      print(sess.run(cls_prob, {image: img, im_info: info}))
    _printed(capsys, """\
[[-15.  -4.  30.  19.]
 [-38. -16.  53.  31.]
 [ -8.  -8.  23.  23.]
 [-24. -24.  39.  39.]
 [ -3. -14.  18.  29.]
 [-14. -36.  29.  51.]]
Tensor("Cast:0", shape=(?, 4), dtype=float32) Tensor("mul_3:0", shape=(), dtype=int32) Tensor("rpn_cls_prob/transpose_1:0", shape=(1, ?, ?, 12), dtype=float32) Tensor("concat:0", shape=(?, 5), dtype=float32) Tensor("Reshape_9:0", shape=(?, 1), dtype=float32) Tensor("MaxPool2D/MaxPool:0", shape=(?, 3, 3, 6), dtype=float32) Tensor("cls_prob:0", shape=(?, 3), dtype=float32)
[[-15.  -4.  30.  19.]
 [-38. -16.  53.  31.]
 [ -8.  -8.  23.  23.]] 576 (576, 4)
[[ 0.        0.        0.       37.28106  31.      ]
 [ 0.        0.       22.27179  35.619736 31.      ]
 [ 0.        0.       31.       40.640926 31.      ]
 [ 0.        0.       31.       40.640926 31.      ]
 [ 0.        0.       31.       40.640926 31.      ]
 [ 0.        0.       31.       40.640926 31.      ]]
[0.6076508 0.607122  0.6011627 0.6011627 0.6011627 0.6011627] (6, 3, 3, 6) [[0.09123636 0.0419687  0.06166816]
 [0.08968068 0.24849875 0.0506807 ]
 [0.07430442 0.08979407 0.18645164]]
0 1.8077903
1 1.8044026
2 1.8905928
[[0.32275808 0.3161638  0.36107808]
 [0.22590739 0.38322964 0.390863  ]
 [0.33293104 0.33385304 0.33321592]
 [0.32320592 0.3168458  0.35994834]
 [0.25154564 0.37595126 0.3725031 ]
 [0.32406324 0.3181558  0.35778096]]
""", rtol=1e-05)


def test_nms_keeps_selecting_an_empty_box():
    # TF 1.15's NMS kernel pushes a box it selected back into its queue; a box of zero area
    # (IoU 0 with itself) is then selected again and fills the output, as the proposal layer
    # above shows with boxes clipped flat to the image's edge (measured in TF 1.15)
    import numpy as np
    b = np.array([[0, 0, 37.3, 31], [0, 22.3, 35.6, 31], [0, 31, 40.6, 31], [0, 31, 40.6, 31],
                  [0, 31, 40.6, 31], [0, 31, 40.6, 31], [7.8, 7.5, 47, 31], [5, 5, 20, 20]],
                 np.float32)
    tied = np.array([0.7, 0.65, 0.6, 0.6, 0.6, 0.6, 0.5, 0.4], np.float32)
    distinct = np.array([0.7, 0.65, 0.6, 0.59, 0.58, 0.57, 0.5, 0.4], np.float32)
    with tf.Session() as sess:
        got = [sess.run(tf.image.non_max_suppression(b, s, 6, 0.7, score_threshold=st)).tolist()
               for s in (tied, distinct) for st in (float("-inf"), 0.1)]
        padded = sess.run(tf.image.non_max_suppression_padded(
            b, distinct, 6, 0.7, pad_to_max_output_size=True))
        zero_iou = sess.run(tf.image.non_max_suppression(b, distinct, 6, 0.0)).tolist()
    assert got == [[0, 1, 2, 5, 2, 5]] * 2 + [[0, 1, 2, 2, 2, 2]] * 2
    assert padded[0].tolist() == [0, 1, 2, 2, 2, 2] and padded[1] == 6
    # at an IoU threshold of 0 an IoU of 0 suppresses: the empty boxes go, themselves too
    assert zero_iou == [0]
