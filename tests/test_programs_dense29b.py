"""Dense prediction and vision programs, part 2: as in test_programs_dense29.py, each reduced
and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: B006, F401, F841, I001, RUF059, UP031

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_dgcnn_edge_conv(capsys, tmp_path):
    # WangYueFt/dgcnn tensorflow/utils/tf_util.py + models/dgcnn.py: knn by top_k, edge features by gather, both batch norms (reduced)
    import sys
    import numpy as np
    # WangYueFt/dgcnn tensorflow/utils/tf_util.py (compat.v1 version) + a reduced models/dgcnn.py get_model/get_loss and train.py's loop
    def _variable_on_cpu(name, shape, initializer, use_fp16=False, trainable=True):
      with tf.device('/cpu:0'):
        dtype = tf.float16 if use_fp16 else tf.float32
        var = tf.compat.v1.get_variable(name, shape, initializer=initializer, dtype=dtype, trainable=trainable)
      return var
    def _variable_with_weight_decay(name, shape, stddev, wd, use_xavier=True):
      if use_xavier:
        initializer = tf.contrib.layers.xavier_initializer()
      else:
        initializer = tf.truncated_normal_initializer(stddev=stddev)
      var = _variable_on_cpu(name, shape, initializer)
      if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss')
        tf.compat.v1.add_to_collection('losses', weight_decay)
      return var
    def conv2d(inputs, num_output_channels, kernel_size, scope, stride=[1, 1], padding='SAME', use_xavier=True, stddev=1e-3,
               weight_decay=0.0, activation_fn=tf.nn.relu, bn=False, bn_decay=None, is_training=None, is_dist=False):
      with tf.compat.v1.variable_scope(scope) as sc:
          kernel_h, kernel_w = kernel_size
          num_in_channels = inputs.get_shape()[-1]
          kernel_shape = [kernel_h, kernel_w, num_in_channels, num_output_channels]
          kernel = _variable_with_weight_decay('weights', shape=kernel_shape, use_xavier=use_xavier, stddev=stddev, wd=weight_decay)
          stride_h, stride_w = stride
          outputs = tf.nn.conv2d(inputs, kernel, [1, stride_h, stride_w, 1], padding=padding)
          biases = _variable_on_cpu('biases', [num_output_channels], tf.constant_initializer(0.0))
          outputs = tf.nn.bias_add(outputs, biases)
          if bn:
            outputs = batch_norm_for_conv2d(outputs, is_training, bn_decay=bn_decay, scope='bn', is_dist=is_dist)
          if activation_fn is not None:
            outputs = activation_fn(outputs)
          return outputs
    def fully_connected(inputs, num_outputs, scope, use_xavier=True, stddev=1e-3, weight_decay=0.0, activation_fn=tf.nn.relu,
                        bn=False, bn_decay=None, is_training=None, is_dist=False):
      with tf.compat.v1.variable_scope(scope) as sc:
        num_input_units = inputs.get_shape()[-1]
        weights = _variable_with_weight_decay('weights', shape=[num_input_units, num_outputs], use_xavier=use_xavier, stddev=stddev, wd=weight_decay)
        outputs = tf.matmul(inputs, weights)
        biases = _variable_on_cpu('biases', [num_outputs], tf.constant_initializer(0.0))
        outputs = tf.nn.bias_add(outputs, biases)
        if bn:
          outputs = batch_norm_for_fc(outputs, is_training, bn_decay, 'bn', is_dist=is_dist)
        if activation_fn is not None:
          outputs = activation_fn(outputs)
        return outputs
    def max_pool2d(inputs, kernel_size, scope, stride=[2, 2], padding='VALID'):
      with tf.compat.v1.variable_scope(scope) as sc:
        kernel_h, kernel_w = kernel_size
        stride_h, stride_w = stride
        outputs = tf.nn.max_pool(inputs, ksize=[1, kernel_h, kernel_w, 1], strides=[1, stride_h, stride_w, 1], padding=padding, name=sc.name)
        return outputs
    def batch_norm_template(inputs, is_training, scope, moments_dims, bn_decay):
      with tf.compat.v1.variable_scope(scope) as sc:
        num_channels = inputs.get_shape()[-1]
        beta = tf.Variable(tf.constant(0.0, shape=[num_channels]), name='beta', trainable=True)
        gamma = tf.Variable(tf.constant(1.0, shape=[num_channels]), name='gamma', trainable=True)
        batch_mean, batch_var = tf.nn.moments(inputs, moments_dims, name='moments')
        decay = bn_decay if bn_decay is not None else 0.9
        ema = tf.train.ExponentialMovingAverage(decay=decay)
        ema_apply_op = tf.cond(is_training, lambda: ema.apply([batch_mean, batch_var]), lambda: tf.no_op())
        def mean_var_with_update():
          with tf.control_dependencies([ema_apply_op]):
            return tf.identity(batch_mean), tf.identity(batch_var)
        mean, var = tf.cond(is_training, mean_var_with_update, lambda: (ema.average(batch_mean), ema.average(batch_var)))
        normed = tf.nn.batch_normalization(inputs, mean, var, beta, gamma, 1e-3)
      return normed
    def batch_norm_dist_template(inputs, is_training, scope, moments_dims, bn_decay):
      with tf.compat.v1.variable_scope(scope) as sc:
        num_channels = inputs.get_shape()[-1]
        beta = _variable_on_cpu('beta', [num_channels], initializer=tf.zeros_initializer())
        gamma = _variable_on_cpu('gamma', [num_channels], initializer=tf.ones_initializer())
        pop_mean = _variable_on_cpu('pop_mean', [num_channels], initializer=tf.zeros_initializer(), trainable=False)
        pop_var = _variable_on_cpu('pop_var', [num_channels], initializer=tf.ones_initializer(), trainable=False)
        def train_bn_op():
          batch_mean, batch_var = tf.nn.moments(inputs, moments_dims, name='moments')
          decay = bn_decay if bn_decay is not None else 0.9
          train_mean = tf.compat.v1.assign(pop_mean, pop_mean * decay + batch_mean * (1 - decay))
          train_var = tf.compat.v1.assign(pop_var, pop_var * decay + batch_var * (1 - decay))
          with tf.control_dependencies([train_mean, train_var]):
            return tf.nn.batch_normalization(inputs, batch_mean, batch_var, beta, gamma, 1e-3)
        def test_bn_op():
          return tf.nn.batch_normalization(inputs, pop_mean, pop_var, beta, gamma, 1e-3)
        normed = tf.cond(is_training, train_bn_op, test_bn_op)
        return normed
    def batch_norm_for_fc(inputs, is_training, bn_decay, scope, is_dist=False):
      if is_dist:
        return batch_norm_dist_template(inputs, is_training, scope, [0,], bn_decay)
      else:
        return batch_norm_template(inputs, is_training, scope, [0,], bn_decay)
    def batch_norm_for_conv2d(inputs, is_training, bn_decay, scope, is_dist=False):
      if is_dist:
        return batch_norm_dist_template(inputs, is_training, scope, [0,1,2], bn_decay)
      else:
        return batch_norm_template(inputs, is_training, scope, [0,1,2], bn_decay)
    def dropout(inputs, is_training, scope, keep_prob=0.5, noise_shape=None):
      with tf.compat.v1.variable_scope(scope) as sc:
        outputs = tf.cond(is_training, lambda: tf.nn.dropout(inputs, keep_prob, noise_shape), lambda: inputs)
        return outputs
    def pairwise_distance(point_cloud):
      og_batch_size = point_cloud.get_shape().as_list()[0]
      point_cloud = tf.squeeze(point_cloud)
      if og_batch_size == 1:
        point_cloud = tf.expand_dims(point_cloud, 0)
      point_cloud_transpose = tf.transpose(point_cloud, perm=[0, 2, 1])
      point_cloud_inner = tf.matmul(point_cloud, point_cloud_transpose)
      point_cloud_inner = -2*point_cloud_inner
      point_cloud_square = tf.compat.v1.reduce_sum(tf.square(point_cloud), axis=-1, keep_dims=True)
      point_cloud_square_tranpose = tf.transpose(point_cloud_square, perm=[0, 2, 1])
      return point_cloud_square + point_cloud_inner + point_cloud_square_tranpose
    def knn(adj_matrix, k=20):
      neg_adj = -adj_matrix
      _, nn_idx = tf.nn.top_k(neg_adj, k=k)
      return nn_idx
    def get_edge_feature(point_cloud, nn_idx, k=20):
      og_batch_size = point_cloud.get_shape().as_list()[0]
      point_cloud = tf.squeeze(point_cloud)
      if og_batch_size == 1:
        point_cloud = tf.expand_dims(point_cloud, 0)
      point_cloud_central = point_cloud
      point_cloud_shape = point_cloud.get_shape()
      batch_size = point_cloud_shape[0]
      num_points = point_cloud_shape[1]
      num_dims = point_cloud_shape[2]
      idx_ = tf.range(batch_size) * num_points
      idx_ = tf.reshape(idx_, [batch_size, 1, 1])
      point_cloud_flat = tf.reshape(point_cloud, [-1, num_dims])
      point_cloud_neighbors = tf.gather(point_cloud_flat, nn_idx+idx_)
      point_cloud_central = tf.expand_dims(point_cloud_central, axis=-2)
      point_cloud_central = tf.tile(point_cloud_central, [1, 1, k, 1])
      edge_feature = tf.concat([point_cloud_central, point_cloud_neighbors-point_cloud_central], axis=-1)
      return edge_feature

    def get_model(point_cloud, is_training, bn_decay=None, is_dist=False):
      batch_size = point_cloud.get_shape()[0].value
      num_point = point_cloud.get_shape()[1].value
      k = 4
      adj_matrix = pairwise_distance(point_cloud)
      nn_idx = knn(adj_matrix, k=k)
      edge_feature = get_edge_feature(point_cloud, nn_idx=nn_idx, k=k)
      net = conv2d(edge_feature, 6, [1,1], padding='VALID', stride=[1,1], bn=True, is_training=is_training, scope='dgcnn1', bn_decay=bn_decay, is_dist=is_dist)
      net = tf.reduce_max(net, axis=-2, keep_dims=True)
      net1 = net
      adj_matrix = pairwise_distance(net)
      nn_idx = knn(adj_matrix, k=k)
      edge_feature = get_edge_feature(net, nn_idx=nn_idx, k=k)
      net = conv2d(edge_feature, 6, [1,1], padding='VALID', stride=[1,1], bn=True, is_training=is_training, scope='dgcnn2', bn_decay=bn_decay, is_dist=is_dist)
      net = tf.reduce_max(net, axis=-2, keep_dims=True)
      net2 = net
      net = conv2d(tf.concat([net1, net2], axis=-1), 7, [1, 1], padding='VALID', stride=[1,1], bn=True, is_training=is_training, scope='agg', bn_decay=bn_decay, is_dist=is_dist)
      net = tf.reduce_max(net, axis=1, keep_dims=True)
      net = tf.reshape(net, [batch_size, -1])
      net = fully_connected(net, 7, bn=True, is_training=is_training, scope='fc1', bn_decay=bn_decay, is_dist=is_dist)
      net = dropout(net, keep_prob=0.5, is_training=is_training, scope='dp1')
      net = fully_connected(net, 5, activation_fn=None, scope='fc3')
      return net, edge_feature
    def get_loss(pred, label, end_points=None):
      labels = tf.one_hot(indices=label, depth=5)
      loss = tf.losses.softmax_cross_entropy(onehot_labels=labels, logits=pred, label_smoothing=0.2)
      classify_loss = tf.reduce_mean(loss)
      return classify_loss

    np.random.seed(1)
    tf.set_random_seed(7)
    B, N = 4, 16
    data = np.random.rand(3 * B, N, 3).astype(np.float32)
    labels = np.random.randint(0, 5, size=3 * B)
    for is_dist in [False, True]:
      tf.reset_default_graph()
      with tf.Graph().as_default():
        tf.set_random_seed(7)
        pointclouds_pl = tf.placeholder(tf.float32, shape=(B, N, 3))
        labels_pl = tf.placeholder(tf.int32, shape=(B))
        is_training_pl = tf.placeholder(tf.bool, shape=())
        batch = tf.Variable(0)
        bn_momentum = tf.train.exponential_decay(0.5, batch * B, 200000, 0.5, staircase=True)
        bn_decay = tf.minimum(0.99, 1 - bn_momentum)
        pred, ef = get_model(pointclouds_pl, is_training_pl, bn_decay=bn_decay, is_dist=is_dist)
        loss = get_loss(pred, labels_pl)
        print(pred, ef, loss)
        correct = tf.equal(tf.argmax(pred, 1), tf.to_int64(labels_pl))
        accuracy = tf.reduce_sum(tf.cast(correct, tf.float32)) / float(B)
        learning_rate = tf.train.exponential_decay(0.001, batch * B, 200000, 0.7, staircase=True)
        learning_rate = tf.maximum(learning_rate, 0.00001)
        optimizer = tf.train.AdamOptimizer(learning_rate)
        train_op = optimizer.minimize(loss, global_step=batch)
        saver = tf.train.Saver()
        print(len(tf.global_variables()), [v.name for v in tf.global_variables()][:12])
        print(len(tf.get_collection('losses')))
        config = tf.ConfigProto()
        config.gpu_options.allow_growth = True
        config.allow_soft_placement = True
        config.log_device_placement = False
        sess = tf.Session(config=config)
        sess.run(tf.global_variables_initializer(), {is_training_pl: True})
        for epoch in range(2):
          loss_sum = 0
          for b in range(3):
            feed_dict = {pointclouds_pl: data[b*B:(b+1)*B], labels_pl: labels[b*B:(b+1)*B], is_training_pl: True}
            step, _, loss_val, pred_val = sess.run([batch, train_op, loss, pred], feed_dict=feed_dict)
            loss_sum += loss_val
          print('epoch %d mean loss: %f' % (epoch, loss_sum / 3))
          feed_dict = {pointclouds_pl: data[:B], labels_pl: labels[:B], is_training_pl: False}
          loss_val, acc = sess.run([loss, accuracy], feed_dict)
          print('eval loss: %f acc: %f' % (loss_val, acc), step)
        try:
          print(sess.run(ef, {pointclouds_pl: data[:B]})[0, 0])
        except tf.errors.InvalidArgumentError as e:
          print(type(e).__name__, e.message.splitlines()[0])
        sess.close()
    _printed(capsys, """\
Tensor("fc3/BiasAdd:0", shape=(4, 5), dtype=float32) Tensor("concat_1:0", shape=(4, 16, 4, 12), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32)
65 ['Variable:0', 'dgcnn1/weights:0', 'dgcnn1/biases:0', 'dgcnn1/bn/beta:0', 'dgcnn1/bn/gamma:0', 'dgcnn1/bn/dgcnn1/bn/moments/Squeeze/ExponentialMovingAverage:0', 'dgcnn1/bn/dgcnn1/bn/moments/Squeeze_1/ExponentialMovingAverage:0', 'dgcnn2/weights:0', 'dgcnn2/biases:0', 'dgcnn2/bn/beta:0', 'dgcnn2/bn/gamma:0', 'dgcnn2/bn/dgcnn2/bn/moments/Squeeze/ExponentialMovingAverage:0']
6
epoch 0 mean loss: 2.210971
eval loss: 2.182632 acc: 0.000000 3
epoch 1 mean loss: 2.003768
eval loss: 1.721043 acc: 0.000000 6
InvalidArgumentError You must feed a value for placeholder tensor 'Placeholder_2' with dtype bool
Tensor("fc3/BiasAdd:0", shape=(4, 5), dtype=float32) Tensor("concat_1:0", shape=(4, 16, 4, 12), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32)
65 ['Variable:0', 'dgcnn1/weights:0', 'dgcnn1/biases:0', 'dgcnn1/bn/beta:0', 'dgcnn1/bn/gamma:0', 'dgcnn1/bn/pop_mean:0', 'dgcnn1/bn/pop_var:0', 'dgcnn2/weights:0', 'dgcnn2/biases:0', 'dgcnn2/bn/beta:0', 'dgcnn2/bn/gamma:0', 'dgcnn2/bn/pop_mean:0']
6
epoch 0 mean loss: 2.210971
eval loss: 1.822003 acc: 0.250000 3
epoch 1 mean loss: 2.003768
eval loss: 1.587964 acc: 0.500000 6
InvalidArgumentError You must feed a value for placeholder tensor 'Placeholder_2' with dtype bool
""")


def test_spatial_transformer(capsys, tmp_path):
    # kevinzakka/spatial-transformer-network stn/transformer.py under a dense localization net (reduced)
    import sys
    import numpy as np
    # kevinzakka/spatial-transformer-network stn/transformer.py + a localization network trained on synthetic 12x12 images (reduced)
    def spatial_transformer_network(input_fmap, theta, out_dims=None, **kwargs):
        B = tf.shape(input_fmap)[0]
        H = tf.shape(input_fmap)[1]
        W = tf.shape(input_fmap)[2]
        theta = tf.reshape(theta, [B, 2, 3])
        if out_dims:
            out_H = out_dims[0]
            out_W = out_dims[1]
            batch_grids = affine_grid_generator(out_H, out_W, theta)
        else:
            batch_grids = affine_grid_generator(H, W, theta)
        x_s = batch_grids[:, 0, :, :]
        y_s = batch_grids[:, 1, :, :]
        out_fmap = bilinear_sampler(input_fmap, x_s, y_s)
        return out_fmap
    def get_pixel_value(img, x, y):
        shape = tf.shape(x)
        batch_size = shape[0]
        height = shape[1]
        width = shape[2]
        batch_idx = tf.range(0, batch_size)
        batch_idx = tf.reshape(batch_idx, (batch_size, 1, 1))
        b = tf.tile(batch_idx, (1, height, width))
        indices = tf.stack([b, y, x], 3)
        return tf.gather_nd(img, indices)
    def affine_grid_generator(height, width, theta):
        num_batch = tf.shape(theta)[0]
        x = tf.linspace(-1.0, 1.0, width)
        y = tf.linspace(-1.0, 1.0, height)
        x_t, y_t = tf.meshgrid(x, y)
        x_t_flat = tf.reshape(x_t, [-1])
        y_t_flat = tf.reshape(y_t, [-1])
        ones = tf.ones_like(x_t_flat)
        sampling_grid = tf.stack([x_t_flat, y_t_flat, ones])
        sampling_grid = tf.expand_dims(sampling_grid, axis=0)
        sampling_grid = tf.tile(sampling_grid, tf.stack([num_batch, 1, 1]))
        theta = tf.cast(theta, 'float32')
        sampling_grid = tf.cast(sampling_grid, 'float32')
        batch_grids = tf.matmul(theta, sampling_grid)
        batch_grids = tf.reshape(batch_grids, [num_batch, 2, height, width])
        return batch_grids
    def bilinear_sampler(img, x, y):
        H = tf.shape(img)[1]
        W = tf.shape(img)[2]
        max_y = tf.cast(H - 1, 'int32')
        max_x = tf.cast(W - 1, 'int32')
        zero = tf.zeros([], dtype='int32')
        x = tf.cast(x, 'float32')
        y = tf.cast(y, 'float32')
        x = 0.5 * ((x + 1.0) * tf.cast(max_x-1, 'float32'))
        y = 0.5 * ((y + 1.0) * tf.cast(max_y-1, 'float32'))
        x0 = tf.cast(tf.floor(x), 'int32')
        x1 = x0 + 1
        y0 = tf.cast(tf.floor(y), 'int32')
        y1 = y0 + 1
        x0 = tf.clip_by_value(x0, zero, max_x)
        x1 = tf.clip_by_value(x1, zero, max_x)
        y0 = tf.clip_by_value(y0, zero, max_y)
        y1 = tf.clip_by_value(y1, zero, max_y)
        Ia = get_pixel_value(img, x0, y0)
        Ib = get_pixel_value(img, x0, y1)
        Ic = get_pixel_value(img, x1, y0)
        Id = get_pixel_value(img, x1, y1)
        x0 = tf.cast(x0, 'float32')
        x1 = tf.cast(x1, 'float32')
        y0 = tf.cast(y0, 'float32')
        y1 = tf.cast(y1, 'float32')
        wa = (x1-x) * (y1-y)
        wb = (x1-x) * (y-y0)
        wc = (x-x0) * (y1-y)
        wd = (x-x0) * (y-y0)
        wa = tf.expand_dims(wa, axis=3)
        wb = tf.expand_dims(wb, axis=3)
        wc = tf.expand_dims(wc, axis=3)
        wd = tf.expand_dims(wd, axis=3)
        out = tf.add_n([wa*Ia, wb*Ib, wc*Ic, wd*Id])
        return out

    np.random.seed(3)
    tf.set_random_seed(3)
    imgs = np.random.rand(6, 12, 12, 1).astype(np.float32)
    ys = np.random.randint(0, 3, 6)
    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.int64, [None])
    with tf.variable_scope('loc'):
        h = tf.layers.flatten(x)
        h = tf.layers.dense(h, 5, activation=tf.nn.tanh)
        initial = np.array([[1., 0, 0], [0, 1., 0]]).astype('float32').flatten()
        theta = tf.layers.dense(h, 6, kernel_initializer=tf.zeros_initializer(), bias_initializer=tf.constant_initializer(initial))
    h_trans = spatial_transformer_network(x, theta)
    h_small = spatial_transformer_network(x, theta, out_dims=(6, 8))
    print(h_trans, h_small)
    logits = tf.layers.dense(tf.layers.flatten(tf.reshape(h_trans, [-1, 12, 12, 1])), 3)
    loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
    train = tf.train.AdamOptimizer(0.05).minimize(loss)
    acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(h_trans, {x: imgs})
        print(np.abs(out - imgs).max(), out.shape)
        for i in range(6):
            l, a, _ = sess.run([loss, acc, train], {x: imgs, y: ys})
            print(i, '%.6f' % l, a)
        t, o = sess.run([theta, h_small], {x: imgs[:2]})
        print(t)
        print(o[0, :, :, 0].round(4) + 0.0)
        g = sess.run(tf.gradients(tf.reduce_sum(h_trans), theta)[0], {x: imgs[:2]})
        print(g)
    _printed(capsys, """\
Tensor("AddN:0", shape=(?, ?, ?, 1), dtype=float32) Tensor("AddN_1:0", shape=(?, 6, 8, 1), dtype=float32)
0.8860347 (6, 12, 12, 1)
0 1.903669 0.33333334
1 0.982867 0.6666667
2 1.865472 0.6666667
3 1.120114 0.6666667
4 0.715548 0.6666667
5 0.612364 0.6666667
[[ 2.1539452  -0.6929389   0.51976204  0.3850764   1.3618584   0.3696791 ]
 [ 2.120347   -0.6697039   0.5289657   0.32207224  1.349486    0.3035605 ]]
[[0.     0.     0.     0.     0.     0.     0.     0.    ]
 [0.     0.532  0.914  0.709  0.     0.     0.     0.    ]
 [0.     0.4023 0.4082 0.18   0.3365 0.     0.     0.    ]
 [0.     0.     0.5288 0.7507 0.5712 0.     0.     0.    ]
 [0.     0.     0.6948 0.5457 0.     0.     0.     0.    ]
 [0.     0.     0.     0.     0.     0.     0.     0.    ]]
[[ 3.223926    0.32256585 -4.045762    1.8377179  -1.8741398  -6.772443  ]
 [-3.3359015  -3.137168   -4.3677087   3.1825883   1.085033    1.0692927 ]]
""", rtol=0.0001)


def test_segnet_unpool(capsys, tmp_path):
    # tkuanlun350/Tensorflow-SegNet model.py: max_pool_with_argmax, SparseTensor unpooling, cond batch norm, EMA (reduced; TF 0.x names as 1.x)
    from tideflow.python.framework import ops
    from tideflow.python.ops import gen_nn_ops
    import sys, math, re
    from math import ceil
    import numpy as np
    # tkuanlun350/Tensorflow-SegNet model.py (reduced: 24x32 images, 4 channels, 3 classes; its TF 0.x names kept)
    try:
      @ops.RegisterGradient("MaxPoolWithArgmax")
      def _MaxPoolWithArgmaxGrad(op, grad, unused_argmax_grad):
        return gen_nn_ops._max_pool_grad(op.inputs[0], op.outputs[0], grad, op.get_attr("ksize"), op.get_attr("strides"), padding=op.get_attr("padding"), data_format='NHWC')
    except KeyError as e:
      print('KeyError', str(e).split(' (')[0])
    BATCH_SIZE = 2
    IMAGE_HEIGHT = 12
    IMAGE_WIDTH = 12
    IMAGE_DEPTH = 3
    NUM_CLASSES = 3
    C = 4
    def _add_loss_summaries(total_loss):
      loss_averages = tf.train.ExponentialMovingAverage(0.9, name='avg')
      losses = tf.get_collection('losses')
      loss_averages_op = loss_averages.apply(losses + [total_loss])
      for l in losses + [total_loss]:
        tf.summary.scalar(l.op.name +' (raw)', l)
        tf.summary.scalar(l.op.name, loss_averages.average(l))
      return loss_averages_op
    def _variable_on_cpu(name, shape, initializer):
      with tf.device('/cpu:0'):
        var = tf.get_variable(name, shape, initializer=initializer)
      return var
    def _variable_with_weight_decay(name, shape, initializer, wd):
      var = _variable_on_cpu(name, shape, initializer)
      if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name='weight_loss')
        tf.add_to_collection('losses', weight_decay)
      return var
    def msra_initializer(kl, dl):
        stddev = math.sqrt(2. / (kl**2 * dl))
        return tf.truncated_normal_initializer(stddev=stddev)
    def orthogonal_initializer(scale = 1.1):
        print('Warning -- You have opted to use the orthogonal_initializer function')
        def _initializer(shape, dtype=tf.float32, partition_info=None):
          flat_shape = (shape[0], np.prod(shape[1:]))
          a = np.random.normal(0.0, 1.0, flat_shape)
          u, _, v = np.linalg.svd(a, full_matrices=False)
          q = u if u.shape == flat_shape else v
          q = q.reshape(shape)
          print('you have initialized one orthogonal matrix.')
          return tf.constant(scale * q[:shape[0], :shape[1]], dtype=tf.float32)
        return _initializer
    def dump_unravel(indices, shape):
        N = indices.get_shape().as_list()[0]
        tb = tf.constant([shape[0]], shape=[1,N])
        ty = tf.constant([shape[1]], shape=[1,N])
        tx = tf.constant([shape[2]], shape=[1,N])
        tc = tf.constant([shape[3]], shape=[1,N])
        c = indices % tc
        x = ((indices - c) // tc ) % tx
        t_temp = ((indices - c) // tc)
        y = ((t_temp - x) // tx) % ty
        t_temp = ((t_temp - x) // tx)
        b = (t_temp - y) // ty
        t_new = tf.transpose(tf.reshape(tf.stack([b,y,x,c]), (4, N)))
        return t_new
    def upsample_with_pool_indices(value, indices, shape=None, scale=2, out_w=None, out_h=None,name="up"):
        s = shape.as_list()
        b = s[0]
        w = s[1]
        h = s[2]
        c = s[3]
        if out_w is not None:
          unraveled = dump_unravel(tf.to_int32(tf.reshape(indices,[b*w*h*c])), [b, out_w, out_h, c])
          ts = tf.SparseTensor(indices=tf.to_int64(unraveled), values=tf.reshape(value, [b*w*h*c]), dense_shape=[b,out_w,out_h,c])
        else:
          unraveled = dump_unravel(tf.to_int32(tf.reshape(indices,[b*w*h*c])), [b, w*scale, h*scale, c])
          ts = tf.SparseTensor(indices=tf.to_int64(unraveled), values=tf.reshape(value, [b*w*h*c]), dense_shape=[b,w*scale,h*scale,c])
        t_dense = tf.sparse_tensor_to_dense(ts, name=name, validate_indices=False)
        return t_dense
    def weighted_loss(logits, labels, num_classes, head=None):
        with tf.name_scope('loss'):
            logits = tf.reshape(logits, (-1, num_classes))
            epsilon = tf.constant(value=1e-10)
            logits = logits + epsilon
            label_flat = tf.reshape(labels, (-1, 1))
            labels = tf.reshape(tf.one_hot(label_flat, depth=num_classes), (-1, num_classes))
            softmax = tf.nn.softmax(logits)
            cross_entropy = -tf.reduce_sum(tf.multiply(labels * tf.log(softmax + epsilon), head), reduction_indices=[1])
            cross_entropy_mean = tf.reduce_mean(cross_entropy, name='cross_entropy')
            tf.add_to_collection('losses', cross_entropy_mean)
            loss = tf.add_n(tf.get_collection('losses'), name='total_loss')
        return loss
    def cal_loss(logits, labels):
        loss_weight = np.array([0.2595, 0.1826, 4.5640])
        labels = tf.cast(labels, tf.int32)
        return weighted_loss(logits, labels, num_classes=NUM_CLASSES, head=loss_weight)
    def conv_layer_with_bn(inputT, shape, train_phase, activation=True, name=None):
        in_channel = shape[2]
        out_channel = shape[3]
        k_size = shape[0]
        with tf.variable_scope(name) as scope:
          kernel = _variable_with_weight_decay('weights', shape=shape, initializer=msra_initializer(k_size, in_channel), wd=None)
          conv = tf.nn.conv2d(inputT, kernel, [1, 1, 1, 1], padding='SAME')
          biases = _variable_on_cpu('biases', [out_channel], tf.constant_initializer(0.0))
          bias = tf.nn.bias_add(conv, biases)
          if activation is True:
            conv_out = tf.nn.relu(batch_norm_layer(bias, train_phase, scope.name))
          else:
            conv_out = batch_norm_layer(bias, train_phase, scope.name)
        return conv_out
    def get_deconv_filter(f_shape):
      width = f_shape[0]
      heigh = f_shape[0]
      f = ceil(width/2.0)
      c = (2 * f - 1 - f % 2) / (2.0 * f)
      bilinear = np.zeros([f_shape[0], f_shape[1]])
      for x in range(width):
          for y in range(heigh):
              value = (1 - abs(x / f - c)) * (1 - abs(y / f - c))
              bilinear[x, y] = value
      weights = np.zeros(f_shape)
      for i in range(f_shape[2]):
          weights[:, :, i, i] = bilinear
      init = tf.constant_initializer(value=weights, dtype=tf.float32)
      return tf.get_variable(name="up_filter", initializer=init, shape=weights.shape)
    def deconv_layer(inputT, f_shape, output_shape, stride=2, name=None):
      strides = [1, stride, stride, 1]
      with tf.variable_scope(name):
        weights = get_deconv_filter(f_shape)
        deconv = tf.nn.conv2d_transpose(inputT, weights, output_shape, strides=strides, padding='SAME')
      return deconv
    def batch_norm_layer(inputT, is_training, scope):
      return tf.cond(is_training,
              lambda: tf.contrib.layers.batch_norm(inputT, is_training=True, center=False, updates_collections=None, scope=scope+"_bn"),
              lambda: tf.contrib.layers.batch_norm(inputT, is_training=False, updates_collections=None, center=False, scope=scope+"_bn", reuse = True))
    def inference(images, labels, phase_train):
        batch_size = BATCH_SIZE
        norm1 = tf.nn.lrn(images, depth_radius=5, bias=1.0, alpha=0.0001, beta=0.75, name='norm1')
        conv1 = conv_layer_with_bn(norm1, [3, 3, IMAGE_DEPTH, C], phase_train, name="conv1")
        pool1, pool1_indices = tf.nn.max_pool_with_argmax(conv1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool1')
        conv2 = conv_layer_with_bn(pool1, [3, 3, C, C], phase_train, name="conv2")
        pool2, pool2_indices = tf.nn.max_pool_with_argmax(conv2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME', name='pool2')
        print(pool1, pool1_indices, pool2_indices)
        upsample2 = upsample_with_pool_indices(pool2, pool2_indices, pool2.get_shape(), out_w=6, out_h=6, scale=2, name='upsample2')
        print(upsample2)
        conv_decode2 = conv_layer_with_bn(upsample2, [3, 3, C, C], phase_train, False, name="conv_decode2")
        upsample1 = deconv_layer(conv_decode2, [2, 2, C, C], [batch_size, 12, 12, C], 2, "up1")
        conv_decode1 = conv_layer_with_bn(upsample1, [3, 3, C, C], phase_train, False, name="conv_decode1")
        with tf.variable_scope('conv_classifier') as scope:
          kernel = _variable_with_weight_decay('weights', shape=[1, 1, C, NUM_CLASSES], initializer=msra_initializer(1, C), wd=0.0005)
          conv = tf.nn.conv2d(conv_decode1, kernel, [1, 1, 1, 1], padding='SAME')
          biases = _variable_on_cpu('biases', [NUM_CLASSES], tf.constant_initializer(0.0))
          conv_classifier = tf.nn.bias_add(conv, biases, name=scope.name)
        logit = conv_classifier
        loss = cal_loss(conv_classifier, labels)
        return loss, logit
    def train(total_loss, global_step):
        lr = 0.01
        loss_averages_op = _add_loss_summaries(total_loss)
        with tf.control_dependencies([loss_averages_op]):
          opt = tf.train.AdamOptimizer(lr)
          grads = opt.compute_gradients(total_loss)
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        for var in tf.trainable_variables():
          tf.summary.histogram(var.op.name, var)
        for grad, var in grads:
          if grad is not None:
            tf.summary.histogram(var.op.name + '/gradients', grad)
        variable_averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
        with tf.control_dependencies([apply_gradient_op, variables_averages_op]):
          train_op = tf.no_op(name='train')
        return train_op
    def per_class_acc(predictions, label_tensor):
        labels = label_tensor
        size = predictions.shape[0]
        num_class = predictions.shape[3]
        hist = np.zeros((num_class, num_class))
        for i in range(size):
          a = labels[i].flatten(); b = predictions[i].argmax(2).flatten()
          k = (a >= 0) & (a < num_class)
          hist += np.bincount(num_class * a[k].astype(int) + b[k], minlength=num_class**2).reshape(num_class, num_class)
        acc_total = np.diag(hist).sum() / hist.sum()
        print ('accuracy = %f'%np.nanmean(acc_total))
        iu = np.diag(hist) / (hist.sum(1) + hist.sum(0) - np.diag(hist))
        print ('mean IU  = %f'%np.nanmean(iu))

    np.random.seed(5)
    tf.set_random_seed(5)
    imgs = np.random.rand(4, 12, 12, 3).astype(np.float32) * 255
    labs = np.random.randint(0, 3, size=(4, 12, 12, 1))
    train_data_node = tf.placeholder(tf.float32, shape=[BATCH_SIZE, IMAGE_HEIGHT, IMAGE_WIDTH, IMAGE_DEPTH])
    train_labels_node = tf.placeholder(tf.int64, shape=[BATCH_SIZE, IMAGE_HEIGHT, IMAGE_WIDTH, 1])
    phase_train = tf.placeholder(tf.bool, name='phase_train')
    global_step = tf.Variable(0, trainable=False)
    loss, eval_prediction = inference(train_data_node, train_labels_node, phase_train)
    train_op = train(loss, global_step)
    saver = tf.train.Saver(tf.global_variables())
    summary_op = tf.summary.merge_all()
    print(loss, eval_prediction, summary_op, len(tf.get_collection(tf.GraphKeys.SUMMARIES)))
    print([v.name for v in tf.global_variables()][:14])
    with tf.Session() as sess:
        sess.run(tf.initialize_all_variables())
        for step in range(4):
          b = step % 2
          feed_dict = {train_data_node: imgs[2*b:2*b+2], train_labels_node: labs[2*b:2*b+2], phase_train: True}
          _, loss_value = sess.run([train_op, loss], feed_dict=feed_dict)
          print('step %d, loss = %.5f' % (step, loss_value))
          if step % 2 == 1:
            pred = sess.run(eval_prediction, feed_dict=feed_dict)
            per_class_acc(pred, labs[2*b:2*b+2])
        s = sess.run(summary_op, feed_dict=feed_dict)
        print(type(s), len(s) > 0)
        u = sess.run(tf.get_default_graph().get_tensor_by_name('upsample2:0'), feed_dict=feed_dict)
        print(u.shape, (u != 0).sum(), u[0, :2, :4, 0])
    _printed(capsys, """\
KeyError "Registering two gradient with name 'MaxPoolWithArgmax'!
Tensor("pool1:0", shape=(2, 6, 6, 4), dtype=float32) Tensor("pool1:1", shape=(2, 6, 6, 4), dtype=int64) Tensor("pool2:1", shape=(2, 3, 3, 4), dtype=int64)
Tensor("upsample2:0", shape=(2, 6, 6, 4), dtype=float32)
Tensor("loss/total_loss:0", shape=(), dtype=float32) Tensor("conv_classifier/conv_classifier:0", shape=(2, 12, 12, 3), dtype=float32) Tensor("Merge/MergeSummary:0", shape=(), dtype=string) 28
['Variable:0', 'conv1/weights:0', 'conv1/biases:0', 'conv1/conv1_bn/moving_mean:0', 'conv1/conv1_bn/moving_variance:0', 'conv2/weights:0', 'conv2/biases:0', 'conv2/conv2_bn/moving_mean:0', 'conv2/conv2_bn/moving_variance:0', 'conv_decode2/weights:0', 'conv_decode2/biases:0', 'conv_decode2/conv_decode2_bn/moving_mean:0', 'conv_decode2/conv_decode2_bn/moving_variance:0', 'up1/up_filter:0']
step 0, loss = 1.89695
step 1, loss = 1.71718
accuracy = 0.361111
mean IU  = 0.209467
step 2, loss = 1.74595
step 3, loss = 1.56278
accuracy = 0.395833
mean IU  = 0.242681
<class 'bytes'> True
(2, 6, 6, 4) 51 [[0.        0.        0.        0.       ]
 [1.5364318 0.        0.        0.7214154]]
""", rtol=1e-05)
