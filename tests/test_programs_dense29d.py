"""Dense prediction and vision programs, part 4: as in test_programs_dense29.py, each reduced
and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: B006, BLE001, F401, F841, I001, RUF059, SIM117, UP031, UP034

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_fcn8s(capsys, tmp_path):
    # shekkizh/FCN.tensorflow FCN.py + TensorflowUtils.py: conv2d_transpose skips, summaries (reduced)
    import sys
    import numpy as np
    # shekkizh/FCN.tensorflow FCN.py + TensorflowUtils.py (reduced: a 3-stage conv net in place of VGG19's weights, 16x16 images, 3 classes)
    NUM_OF_CLASSESS = 3
    IMAGE_SIZE = 16
    def weight_variable(shape, stddev=0.02, name=None):
        initial = tf.truncated_normal(shape, stddev=stddev)
        if name is None:
            return tf.Variable(initial)
        else:
            return tf.get_variable(name, initializer=initial)
    def bias_variable(shape, name=None):
        initial = tf.constant(0.0, shape=shape)
        if name is None:
            return tf.Variable(initial)
        else:
            return tf.get_variable(name, initializer=initial)
    def conv2d_basic(x, W, bias):
        conv = tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")
        return tf.nn.bias_add(conv, bias)
    def conv2d_transpose_strided(x, W, b, output_shape=None, stride = 2):
        if output_shape is None:
            output_shape = x.get_shape().as_list()
            output_shape[1] *= 2
            output_shape[2] *= 2
            output_shape[3] = W.get_shape().as_list()[2]
        conv = tf.nn.conv2d_transpose(x, W, output_shape, strides=[1, stride, stride, 1], padding="SAME")
        return tf.nn.bias_add(conv, b)
    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")
    def add_to_regularization_and_summary(var):
        if var is not None:
            tf.summary.histogram(var.op.name, var)
            tf.add_to_collection("reg_loss", tf.nn.l2_loss(var))
    def add_activation_summary(var):
        if var is not None:
            tf.summary.histogram(var.op.name + "/activation", var)
            tf.summary.scalar(var.op.name + "/sparsity", tf.nn.zero_fraction(var))
    def add_gradient_summary(grad, var):
        if grad is not None:
            tf.summary.histogram(var.op.name + "/gradient", grad)
    def vgg_net(image):
        net = {}
        current = image
        for i, (name, cin, cout) in enumerate([('conv1_1', 3, 4), ('pool1', 0, 0), ('conv2_1', 4, 5), ('pool2', 0, 0), ('conv3_1', 5, 6), ('pool3', 0, 0), ('conv4_1', 6, 6), ('pool4', 0, 0), ('conv5_1', 6, 6)]):
            kind = name[:4]
            if kind == 'conv':
                kernels = weight_variable([3, 3, cin, cout], name=name + "_w")
                bias = bias_variable([cout], name=name + "_b")
                current = conv2d_basic(current, kernels, bias)
                current = tf.nn.relu(current, name='relu' + name[4:])
            elif kind == 'pool':
                current = max_pool_2x2(current)
            net[name] = current
        net['conv5_3'] = net['conv5_1']
        return net
    def inference(image, keep_prob):
        mean_pixel = np.array([123.68, 116.779, 103.939])
        processed_image = image - mean_pixel
        with tf.variable_scope("inference"):
            image_net = vgg_net(processed_image)
            conv_final_layer = image_net["conv5_3"]
            pool5 = max_pool_2x2(conv_final_layer)
            W6 = weight_variable([3, 3, 6, 7], name="W6")
            b6 = bias_variable([7], name="b6")
            conv6 = conv2d_basic(pool5, W6, b6)
            relu6 = tf.nn.relu(conv6, name="relu6")
            add_activation_summary(relu6)
            relu_dropout6 = tf.nn.dropout(relu6, keep_prob=keep_prob)
            W7 = weight_variable([1, 1, 7, 7], name="W7")
            b7 = bias_variable([7], name="b7")
            conv7 = conv2d_basic(relu_dropout6, W7, b7)
            relu7 = tf.nn.relu(conv7, name="relu7")
            add_activation_summary(relu7)
            relu_dropout7 = tf.nn.dropout(relu7, keep_prob=keep_prob)
            W8 = weight_variable([1, 1, 7, NUM_OF_CLASSESS], name="W8")
            b8 = bias_variable([NUM_OF_CLASSESS], name="b8")
            conv8 = conv2d_basic(relu_dropout7, W8, b8)
            deconv_shape1 = image_net["pool4"].get_shape()
            W_t1 = weight_variable([4, 4, deconv_shape1[3].value, NUM_OF_CLASSESS], name="W_t1")
            b_t1 = bias_variable([deconv_shape1[3].value], name="b_t1")
            conv_t1 = conv2d_transpose_strided(conv8, W_t1, b_t1, output_shape=tf.shape(image_net["pool4"]))
            fuse_1 = tf.add(conv_t1, image_net["pool4"], name="fuse_1")
            deconv_shape2 = image_net["pool3"].get_shape()
            W_t2 = weight_variable([4, 4, deconv_shape2[3].value, deconv_shape1[3].value], name="W_t2")
            b_t2 = bias_variable([deconv_shape2[3].value], name="b_t2")
            conv_t2 = conv2d_transpose_strided(fuse_1, W_t2, b_t2, output_shape=tf.shape(image_net["pool3"]))
            fuse_2 = tf.add(conv_t2, image_net["pool3"], name="fuse_2")
            shape = tf.shape(image)
            deconv_shape3 = tf.stack([shape[0], shape[1], shape[2], NUM_OF_CLASSESS])
            W_t3 = weight_variable([16, 16, NUM_OF_CLASSESS, deconv_shape2[3].value], name="W_t3")
            b_t3 = bias_variable([NUM_OF_CLASSESS], name="b_t3")
            conv_t3 = conv2d_transpose_strided(fuse_2, W_t3, b_t3, output_shape=deconv_shape3, stride=8)
            annotation_pred = tf.argmax(conv_t3, dimension=3, name="prediction")
        return tf.expand_dims(annotation_pred, dim=3), conv_t3
    def train(loss_val, var_list):
        optimizer = tf.train.AdamOptimizer(1e-3)
        grads = optimizer.compute_gradients(loss_val, var_list=var_list)
        for grad, var in grads:
            add_gradient_summary(grad, var)
        return optimizer.apply_gradients(grads)

    np.random.seed(2)
    tf.set_random_seed(2)
    imgs = (np.random.rand(4, IMAGE_SIZE, IMAGE_SIZE, 3) * 255).astype(np.float32)
    annos = np.random.randint(0, 3, size=(4, IMAGE_SIZE, IMAGE_SIZE, 1)).astype(np.int32)
    keep_probability = tf.placeholder(tf.float32, name="keep_probabilty")
    image = tf.placeholder(tf.float32, shape=[None, IMAGE_SIZE, IMAGE_SIZE, 3], name="input_image")
    annotation = tf.placeholder(tf.int32, shape=[None, IMAGE_SIZE, IMAGE_SIZE, 1], name="annotation")
    pred_annotation, logits = inference(image, keep_probability)
    print(pred_annotation, logits)
    tf.summary.image("input_image", image, max_outputs=2)
    tf.summary.image("ground_truth", tf.cast(annotation, tf.uint8), max_outputs=2)
    tf.summary.image("pred_annotation", tf.cast(pred_annotation, tf.uint8), max_outputs=2)
    loss = tf.reduce_mean((tf.nn.sparse_softmax_cross_entropy_with_logits(logits=logits, labels=tf.squeeze(annotation, squeeze_dims=[3]), name="entropy")))
    loss_summary = tf.summary.scalar("entropy", loss)
    trainable_var = tf.trainable_variables()
    for var in trainable_var:
        add_to_regularization_and_summary(var)
    train_op = train(loss, trainable_var)
    summary_op = tf.summary.merge_all()
    print(loss, len(trainable_var), len(tf.get_collection("reg_loss")), len(tf.get_collection(tf.GraphKeys.SUMMARIES)))
    sess = tf.Session()
    saver = tf.train.Saver()
    sess.run(tf.global_variables_initializer())
    for itr in range(6):
        b = itr % 2
        feed_dict = {image: imgs[2*b:2*b+2], annotation: annos[2*b:2*b+2], keep_probability: 0.85}
        sess.run(train_op, feed_dict=feed_dict)
        if itr % 2 == 0:
            train_loss, summary_str = sess.run([loss, summary_op], feed_dict=feed_dict)
            print("Step: %d, Train_loss:%g" % (itr, train_loss))
    valid_loss = sess.run(loss, feed_dict={image: imgs, annotation: annos, keep_probability: 1.0})
    print("Validation_loss: %g" % valid_loss)
    pred = sess.run(pred_annotation, feed_dict={image: imgs[:2], annotation: annos[:2], keep_probability: 1.0})
    pred = np.squeeze(pred, axis=3)
    print(pred.shape, pred.dtype, np.bincount(pred.reshape(-1), minlength=3))
    _printed(capsys, """\
Tensor("ExpandDims:0", shape=(?, ?, ?, 1), dtype=int64) Tensor("inference/BiasAdd_10:0", shape=(?, ?, ?, 3), dtype=float32)
Tensor("Mean:0", shape=(), dtype=float32) 22 22 52
Step: 0, Train_loss:1.09796
Step: 2, Train_loss:1.09729
Step: 4, Train_loss:1.09593
Validation_loss: 1.0957
(2, 16, 16) int64 [285  71 156]
""")


def test_dispnet_correlation(capsys, tmp_path):
    # fedor-chervinskii/dispflownet-tf dispnet.py: correlation by slice/pad, tf.where errors, placeholder_with_default (reduced)
    import sys
    import numpy as np
    # fedor-chervinskii/dispflownet-tf dispnet.py (reduced: channels / 32, MAX_DISP 4, 64x64 inputs; in-memory images through its preprocess, no file queues)
    LEAKY_ALPHA = 0.1
    MAX_DISP = 4
    MEAN_VALUE = 100.
    INPUT_SIZE = (64, 64, 3)
    tf.set_random_seed(21)
    initializer = tf.contrib.layers.xavier_initializer_conv2d(uniform=False)
    def correlation_map(x, y, max_disp):
        corr_tensors = []
        y_shape = tf.shape(y)
        for i in range(-max_disp, 0, 1):
            shifted = tf.pad(tf.slice(y, [0] * 4, [-1, -1, y_shape[2] + i, -1]), [[0, 0], [0, 0], [-i, 0], [0, 0]], "CONSTANT")
            corr = tf.reduce_mean(tf.multiply(shifted, x), axis=3)
            corr_tensors.append(corr)
        for i in range(max_disp + 1):
            shifted = tf.pad(tf.slice(x, [0, 0, i, 0], [-1] * 4), [[0, 0], [0, 0], [0, i], [0, 0]], "CONSTANT")
            corr = tf.reduce_mean(tf.multiply(shifted, y), axis=3)
            corr_tensors.append(corr)
        return tf.transpose(tf.stack(corr_tensors), perm=[1, 2, 3, 0])
    def preprocess(left_img, right_img, target_img, conf_img, input_size, augmentation=False, conf_th=0):
        left_img = tf.image.convert_image_dtype(left_img, tf.float32)
        right_img = tf.image.convert_image_dtype(right_img, tf.float32)
        conf_img = tf.image.convert_image_dtype(conf_img, tf.float32)
        height, width, n_channels = input_size
        orig_width = tf.shape(left_img)[1]
        orig_height = tf.shape(left_img)[0]
        left_img = left_img - (MEAN_VALUE / 255)
        right_img = right_img - (MEAN_VALUE / 255)
        crop_row = tf.random_uniform(shape=(), minval=0, maxval=orig_height - height, dtype=tf.int32)
        crop_col = tf.random_uniform(shape=(), minval=0, maxval=orig_width - width, dtype=tf.int32)
        left_img = left_img[crop_row:crop_row + height, crop_col:crop_col + width, :]
        right_img = right_img[crop_row:crop_row + height, crop_col:crop_col + width, :]
        target = target_img[crop_row:crop_row + height, crop_col:crop_col + width, :]
        conf = conf_img[crop_row:crop_row + height, crop_col:crop_col + width, :]
        left_img.set_shape([height, width, n_channels])
        right_img.set_shape([height, width, n_channels])
        target = tf.reshape(target[:, :, 0], [height, width, 1])
        conf = tf.reshape(conf[:, :, 0], [height, width, 1])
        try:
            conf_img = tf.where(conf_img > conf_th, conf_img, 0)
        except Exception as e:
            print(type(e).__name__, e)
        target = -target
        if augmentation:
            active = tf.random_uniform(shape=[5], minval=0, maxval=1, dtype=tf.float32)
            random_delta = tf.random_uniform(shape=(), minval=-0.05, maxval=0.05, dtype=tf.float32)
            left_img = tf.where(active[1] > 0.5, left_img, tf.image.adjust_brightness(left_img, random_delta))
            right_img = tf.where(active[1] > 0.5, right_img, tf.image.adjust_brightness(right_img, random_delta))
            random_contrast = tf.random_uniform(shape=(), minval=0.8, maxval=1.2, dtype=tf.float32)
            left_img = tf.where(active[2] > 0.5, left_img, tf.image.adjust_contrast(left_img, random_contrast))
            right_img = tf.where(active[2] > 0.5, right_img, tf.image.adjust_contrast(right_img, random_contrast))
            random_hue = tf.random_uniform(shape=(), minval=0.8, maxval=1.2, dtype=tf.float32)
            left_img = tf.where(active[3] > 0.5, left_img, tf.image.adjust_hue(left_img, random_hue))
            right_img = tf.where(active[3] > 0.5, right_img, tf.image.adjust_hue(right_img, random_hue))
        left_img = tf.clip_by_value(left_img, -1, 1)
        right_img = tf.clip_by_value(right_img, -1, 1)
        return left_img, right_img, target, conf
    def conv2d(x, kernel_shape, strides=1, relu=True, padding='SAME'):
        W = tf.get_variable("weights", kernel_shape, initializer=initializer)
        tf.add_to_collection(tf.GraphKeys.WEIGHTS, W)
        b = tf.get_variable("bias", kernel_shape[3], initializer=tf.constant_initializer(0.0))
        with tf.name_scope("conv"):
            x = tf.nn.conv2d(x, W, strides=[1, strides, strides, 1], padding=padding)
            x = tf.nn.bias_add(x, b)
            if relu:
                x = tf.maximum(LEAKY_ALPHA * x, x)
        return x
    def conv2d_transpose(x, kernel_shape, strides=1, relu=True):
        W = tf.get_variable("weights", kernel_shape, initializer=initializer)
        tf.add_to_collection(tf.GraphKeys.WEIGHTS, W)
        b = tf.get_variable("bias", kernel_shape[2], initializer=tf.constant_initializer(0.0))
        x_shape = tf.shape(x)
        output_shape = [x_shape[0],x_shape[1]*strides,x_shape[2]*strides,kernel_shape[2]]
        with tf.name_scope("deconv"):
            x = tf.nn.conv2d_transpose(x, W, output_shape, strides=[1, strides, strides, 1], padding='SAME')
            x = tf.nn.bias_add(x, b)
            if relu:
                x = tf.maximum(LEAKY_ALPHA * x, x)
        return x
    def upsampling_block(bottom, skip_connection, input_channels, output_channels, skip_input_channels):
        with tf.variable_scope("deconv"):
            deconv = conv2d_transpose(bottom, [4, 4, output_channels, input_channels], strides=2)
        with tf.variable_scope("predict"):
            predict = conv2d(bottom, [3, 3, input_channels, 1], strides=1, relu=False)
        with tf.variable_scope("up_predict"):
            upsampled_predict = conv2d_transpose(predict, [4, 4, 1, 1], strides=2, relu=False)
        with tf.variable_scope("concat"):
            concat = conv2d(tf.concat([skip_connection, deconv, upsampled_predict], axis=3), [3, 3, output_channels + skip_input_channels + 1, output_channels], strides=1, relu=False)
        return concat, predict
    D = 32
    def build_main_graph(left_image_batch, right_image_batch, is_corr=True, corr_type="tf", is_train=True):
        with tf.variable_scope("conv1") as scope:
            conv1a = conv2d(left_image_batch, [7, 7, 3, 64//D], strides=2)
            scope.reuse_variables()
            conv1b = conv2d(right_image_batch, [7, 7, 3, 64//D], strides=2)
        with tf.variable_scope("conv2") as scope:
            conv2a = conv2d(conv1a, [5, 5, 64//D, 128//D], strides=2)
            scope.reuse_variables()
            conv2b = conv2d(conv1b, [5, 5, 64//D, 128//D], strides=2)
        with tf.variable_scope("conv_redir"):
            conv_redir = conv2d(conv2a, [1, 1, 128//D, 64//D], strides=1)
        with tf.name_scope("correlation"):
            corr = correlation_map(conv2a, conv2b, max_disp=MAX_DISP)
        with tf.variable_scope("conv3"):
            conv3 = conv2d(tf.concat([corr, conv_redir], axis=3), [5, 5, MAX_DISP * 2 + 1 + 64//D, 256//D], strides=2)
        with tf.variable_scope("conv3"):
            with tf.variable_scope("1"):
                conv3_1 = conv2d(conv3, [3, 3, 256//D, 256//D], strides=1)
        with tf.variable_scope("conv4"):
            conv4 = conv2d(conv3_1, [3, 3, 256//D, 512//D], strides=2)
            with tf.variable_scope("1"):
                conv4_1 = conv2d(conv4, [3, 3, 512//D, 512//D], strides=1)
        with tf.variable_scope("conv5"):
            conv5 = conv2d(conv4_1, [3, 3, 512//D, 512//D], strides=2)
            with tf.variable_scope("1"):
                conv5_1 = conv2d(conv5, [3, 3, 512//D, 512//D], strides=1)
        with tf.variable_scope("conv6"):
            conv6 = conv2d(conv5_1, [3, 3, 512//D, 1024//D], strides=2)
            with tf.variable_scope("1"):
                conv6_1 = conv2d(conv6, [3, 3, 1024//D, 1024//D], strides=1)
        with tf.variable_scope("up5"):
            concat5, predict6 = upsampling_block(conv6_1, conv5_1, 1024//D, 512//D, 512//D)
        with tf.variable_scope("up4"):
            concat4, predict5 = upsampling_block(concat5, conv4_1, 512//D, 256//D, 512//D)
        with tf.variable_scope("up3"):
            concat3, predict4 = upsampling_block(concat4, conv3_1, 256//D, 128//D, 256//D)
        with tf.variable_scope("up2"):
            concat2, predict3 = upsampling_block(concat3, conv2a, 128//D, 64//D, 128//D)
        with tf.variable_scope("up1"):
            concat1, predict2 = upsampling_block(concat2, conv1a, 64//D, 32//D, 64//D)
        with tf.variable_scope("prediction"):
            predict1 = conv2d(concat1, [3, 3, 32//D, 1], strides=1, relu=False)
        return (predict1, predict2, predict3, predict4, predict5, predict6)
    def L1_loss(x, y, conf=1):
        return tf.reduce_mean(conf * tf.abs(x - y))
    def build_loss(predictions, target, loss_weights, weight_decay, conf_batch=[], smoothness_lambda=0):
        height, width = target.get_shape()[1].value, target.get_shape()[2].value
        regularizer = tf.contrib.layers.l2_regularizer(weight_decay)
        with tf.name_scope("loss"):
            targets = [tf.image.resize_nearest_neighbor(target, [height // np.power(2, n), width // np.power(2, n)]) for n in range(1, 7)]
            confs = [tf.image.resize_nearest_neighbor(conf_batch, [height // np.power(2, n), width // np.power(2, n)]) for n in range(1, 7)]
            if len(confs) == 0:
                losses = [L1_loss(targets[i], predictions[i]) for i in range(6)]
            else:
                losses = [L1_loss(targets[i], predictions[i], confs[i]) for i in range(6)]
            for i in range(6):
                tf.summary.scalar('loss' + str(i), losses[i])
                tf.summary.scalar('loss_weight' + str(i), loss_weights[i])
            final_prediction = predictions[5]
            _, p_height, p_width, _ = final_prediction.shape
            diff_vert = tf.reduce_mean(tf.abs(final_prediction[:, 0:p_height - 1, :, :] - final_prediction[:, 1:, :, :]))
            diff_hor = tf.reduce_mean(tf.abs(final_prediction[:, :, 0:p_width - 1, :] - final_prediction[:, :, 1:, :]))
            mean_error = diff_vert * 2 + diff_hor * 2
            loss = tf.add_n([losses[i] * loss_weights[i] for i in range(6)])
            reg_loss = tf.contrib.layers.apply_regularization(regularizer)
            total_loss = loss + reg_loss + (smoothness_lambda * mean_error)
            tf.summary.scalar('loss', loss)
            error = losses[0]
            return total_loss, loss, error

    np.random.seed(6)
    def sample():
        l = (np.random.rand(70, 72, 3) * 255).astype(np.uint8)
        r = np.roll(l, 2, axis=1)
        t = (np.random.rand(70, 72, 1) * 4).astype(np.float32)
        c = (np.random.rand(70, 72, 1) * 255).astype(np.uint8)
        return l, r, t, c
    loss_weights = tf.placeholder(tf.float32, shape=(6), name="loss_weights")
    learning_rate = tf.placeholder(tf.float32, shape=(), name="learning_rate")
    weight_decay = tf.placeholder_with_default(shape=(), name='weight_decay', input=0.0004)
    beta1 = tf.placeholder_with_default(shape=(), name="beta1", input=0.9)
    beta2 = tf.placeholder_with_default(shape=(), name="beta2", input=0.99)
    batches = [preprocess(*[tf.constant(a) for a in sample()], INPUT_SIZE, augmentation=k == 0) for k in range(2)]
    left_image_batch, right_image_batch, target, conf_batch = [tf.stack(list(z)) for z in zip(*batches)]
    print(left_image_batch, target, conf_batch)
    with tf.variable_scope('model') as scope:
        predictions_train = build_main_graph(left_image_batch, right_image_batch)
        scope.reuse_variables()
        predictions_test = build_main_graph(left_image_batch[:1], right_image_batch[:1], is_train=False)
    total_loss, loss, train_error = build_loss(predictions_train, target, loss_weights, weight_decay, conf_batch=conf_batch, smoothness_lambda=0.01)
    print([p.shape.as_list() for p in predictions_train], total_loss, len(tf.get_collection(tf.GraphKeys.WEIGHTS)))
    optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate, beta1=beta1, beta2=beta2)
    train_step = optimizer.minimize(total_loss)
    init = tf.group(tf.global_variables_initializer(), tf.local_variables_initializer())
    merged_summary = tf.summary.merge_all()
    print(len(tf.get_collection(tf.GraphKeys.SUMMARIES)), len(tf.global_variables()), tf.global_variables()[-1])
    with tf.Session() as sess:
        sess.run(init)
        l, r = sess.run([left_image_batch, right_image_batch])
        print(l.shape, l[0, 0, :3, 0], l[1, 0, :3, 0])
        for step in range(4):
            _, tl, ls, err = sess.run([train_step, total_loss, loss, train_error], {loss_weights: [1.0, 0.5, 0.25, 0.1, 0.0, 0.0], learning_rate: 1e-3})
            print(step, tl, ls, err)
        print(sess.run(predictions_test[0])[0, :2, :4, 0])
    _printed(capsys, """\
ValueError Shapes must be equal rank, but are 3 and 0 for 'Select' (op: 'Select') with input shapes: [70,72,1], [70,72,1], [].
ValueError Shapes must be equal rank, but are 3 and 0 for 'Select_7' (op: 'Select') with input shapes: [70,72,1], [70,72,1], [].
Tensor("stack:0", shape=(2, 64, 64, 3), dtype=float32) Tensor("stack_2:0", shape=(2, 64, 64, 1), dtype=float32) Tensor("stack_3:0", shape=(2, 64, 64, 1), dtype=float32)
[[2, 32, 32, 1], [2, 16, 16, 1], [2, 8, 8, 1], [2, 4, 4, 1], [2, 2, 2, 1], [2, 1, 1, 1]] Tensor("loss/add_2:0", shape=(), dtype=float32) 68
13 194 <tf.Variable 'model/prediction/bias/Adam_1:0' shape=(1,) dtype=float32_ref>
(2, 64, 64, 3) [ 0.05208417  0.3658097  -0.43419036] [-0.25098038 -0.26274508 -0.21176471]
0 nan 1.746264 0.99934596
1 nan 1.8370609 0.9820858
2 nan 1.8422713 0.981125
3 nan 1.7019936 0.984745
[[-0.05283107  0.01430338 -0.09366658 -0.05616783]
 [-0.06579108 -0.03689008  0.06429891 -0.24987122]]
""", rtol=1e-05)


def test_ntm_copy(capsys, tmp_path):
    # MarkPKCollier/NeuralTuringMachine ntm.py + utils.py + run_tasks.py copy task in dynamic_rnn (reduced)
    import sys, collections
    import numpy as np
    # MarkPKCollier/NeuralTuringMachine ntm.py + utils.py + run_tasks.py's copy task (reduced: memory 8x5, 4-bit vectors, sequence 3)
    def expand(x, dim, N):
        return tf.concat([tf.expand_dims(x, dim) for _ in range(N)], axis=dim)
    def learned_init(units):
        return tf.squeeze(tf.contrib.layers.fully_connected(tf.ones([1, 1]), units, activation_fn=None, biases_initializer=None))
    def create_linear_initializer(input_size, dtype=tf.float32):
        stddev = 1.0 / np.sqrt(input_size)
        return tf.truncated_normal_initializer(stddev=stddev, dtype=dtype)
    NTMControllerState = collections.namedtuple('NTMControllerState', ('controller_state', 'read_vector_list', 'w_list', 'M'))
    class NTMCell(tf.compat.v1.nn.rnn_cell.RNNCell):
        def __init__(self, controller_layers, controller_units, memory_size, memory_vector_dim, read_head_num, write_head_num,
                     addressing_mode='content_and_location', shift_range=1, reuse=False, output_dim=None, clip_value=20, init_mode='constant'):
            self.controller_layers = controller_layers
            self.controller_units = controller_units
            self.memory_size = memory_size
            self.memory_vector_dim = memory_vector_dim
            self.read_head_num = read_head_num
            self.write_head_num = write_head_num
            self.addressing_mode = addressing_mode
            self.reuse = reuse
            self.clip_value = clip_value
            def single_cell(num_units):
                return tf.compat.v1.nn.rnn_cell.BasicLSTMCell(num_units, forget_bias=1.0)
            self.controller = tf.compat.v1.nn.rnn_cell.MultiRNNCell([single_cell(self.controller_units) for _ in range(self.controller_layers)])
            self.init_mode = init_mode
            self.step = 0
            self.output_dim = output_dim
            self.shift_range = shift_range
            self.o2p_initializer = create_linear_initializer(self.controller_units)
            self.o2o_initializer = create_linear_initializer(self.controller_units + self.memory_vector_dim * self.read_head_num)
        def __call__(self, x, prev_state):
            prev_read_vector_list = prev_state.read_vector_list
            controller_input = tf.concat([x] + prev_read_vector_list, axis=1)
            with tf.compat.v1.variable_scope('controller', reuse=self.reuse):
                controller_output, controller_state = self.controller(controller_input, prev_state.controller_state)
            num_parameters_per_head = self.memory_vector_dim + 1 + 1 + (self.shift_range * 2 + 1) + 1
            num_heads = self.read_head_num + self.write_head_num
            total_parameter_num = num_parameters_per_head * num_heads + self.memory_vector_dim * 2 * self.write_head_num
            with tf.compat.v1.variable_scope("o2p", reuse=(self.step > 0) or self.reuse):
                parameters = tf.compat.v1.layers.dense(controller_output, total_parameter_num, activation=None, kernel_initializer=self.o2p_initializer)
                parameters = tf.clip_by_value(parameters, -self.clip_value, self.clip_value)
            head_parameter_list = tf.split(parameters[:, :num_parameters_per_head * num_heads], num_heads, axis=1)
            erase_add_list = tf.split(parameters[:, num_parameters_per_head * num_heads:], 2 * self.write_head_num, axis=1)
            prev_w_list = prev_state.w_list
            prev_M = prev_state.M
            w_list = []
            for i, head_parameter in enumerate(head_parameter_list):
                k = tf.tanh(head_parameter[:, 0:self.memory_vector_dim])
                beta = tf.nn.softplus(head_parameter[:, self.memory_vector_dim])
                g = tf.sigmoid(head_parameter[:, self.memory_vector_dim + 1])
                s = tf.nn.softmax(head_parameter[:, self.memory_vector_dim + 2:self.memory_vector_dim + 2 + (self.shift_range * 2 + 1)])
                gamma = tf.nn.softplus(head_parameter[:, -1]) + 1
                with tf.compat.v1.variable_scope('addressing_head_%d' % i):
                    w = self.addressing(k, beta, g, s, gamma, prev_M, prev_w_list[i])
                w_list.append(w)
            read_w_list = w_list[:self.read_head_num]
            read_vector_list = []
            for i in range(self.read_head_num):
                read_vector = tf.reduce_sum(tf.expand_dims(read_w_list[i], axis=2) * prev_M, axis=1)
                read_vector_list.append(read_vector)
            write_w_list = w_list[self.read_head_num:]
            M = prev_M
            for i in range(self.write_head_num):
                w = tf.expand_dims(write_w_list[i], axis=2)
                erase_vector = tf.expand_dims(tf.sigmoid(erase_add_list[i * 2]), axis=1)
                add_vector = tf.expand_dims(tf.tanh(erase_add_list[i * 2 + 1]), axis=1)
                M = M * (tf.ones(M.get_shape()) - tf.matmul(w, erase_vector)) + tf.matmul(w, add_vector)
            if not self.output_dim:
                output_dim = x.get_shape()[1]
            else:
                output_dim = self.output_dim
            with tf.compat.v1.variable_scope("o2o", reuse=(self.step > 0) or self.reuse):
                NTM_output = tf.compat.v1.layers.dense(tf.concat([controller_output] + read_vector_list, axis=1), output_dim, activation=None, kernel_initializer=self.o2o_initializer)
                NTM_output = tf.clip_by_value(NTM_output, -self.clip_value, self.clip_value)
            self.step += 1
            return NTM_output, NTMControllerState(controller_state=controller_state, read_vector_list=read_vector_list, w_list=w_list, M=M)
        def addressing(self, k, beta, g, s, gamma, prev_M, prev_w):
            k = tf.expand_dims(k, axis=2)
            inner_product = tf.matmul(prev_M, k)
            k_norm = tf.sqrt(tf.reduce_sum(tf.square(k), axis=1, keepdims=True))
            M_norm = tf.sqrt(tf.reduce_sum(tf.square(prev_M), axis=2, keepdims=True))
            norm_product = M_norm * k_norm
            K = tf.squeeze(inner_product / (norm_product + 1e-8))
            K_amplified = tf.exp(tf.expand_dims(beta, axis=1) * K)
            w_c = K_amplified / tf.reduce_sum(K_amplified, axis=1, keepdims=True)
            if self.addressing_mode == 'content':
                return w_c
            g = tf.expand_dims(g, axis=1)
            w_g = g * w_c + (1 - g) * prev_w
            s = tf.concat([s[:, :self.shift_range + 1], tf.zeros([s.get_shape()[0], self.memory_size - (self.shift_range * 2 + 1)]), s[:, -self.shift_range:]], axis=1)
            t = tf.concat([tf.reverse(s, axis=[1]), tf.reverse(s, axis=[1])], axis=1)
            s_matrix = tf.stack([t[:, self.memory_size - i - 1:self.memory_size * 2 - i - 1] for i in range(self.memory_size)], axis=1)
            w_ = tf.reduce_sum(tf.expand_dims(w_g, axis=1) * s_matrix, axis=2)
            w_sharpen = tf.pow(w_, tf.expand_dims(gamma, axis=1))
            w = w_sharpen / tf.reduce_sum(w_sharpen, axis=1, keepdims=True)
            return w
        def zero_state(self, batch_size, dtype):
            with tf.compat.v1.variable_scope('init', reuse=self.reuse):
                read_vector_list = [expand(tf.tanh(learned_init(self.memory_vector_dim)), dim=0, N=batch_size) for i in range(self.read_head_num)]
                w_list = [expand(tf.nn.softmax(learned_init(self.memory_size)), dim=0, N=batch_size) for i in range(self.read_head_num + self.write_head_num)]
                controller_init_state = self.controller.zero_state(batch_size, dtype)
                if self.init_mode == 'learned':
                    M = expand(tf.tanh(tf.reshape(learned_init(self.memory_size * self.memory_vector_dim), [self.memory_size, self.memory_vector_dim])), dim=0, N=batch_size)
                elif self.init_mode == 'random':
                    M = expand(tf.tanh(tf.get_variable('init_M', [self.memory_size, self.memory_vector_dim], initializer=tf.random_normal_initializer(mean=0.0, stddev=0.5))), dim=0, N=batch_size)
                elif self.init_mode == 'constant':
                    M = expand(tf.get_variable('init_M', [self.memory_size, self.memory_vector_dim], initializer=tf.constant_initializer(1e-6)), dim=0, N=batch_size)
                return NTMControllerState(controller_state=controller_init_state, read_vector_list=read_vector_list, w_list=w_list, M=M)
        @property
        def state_size(self):
            return NTMControllerState(controller_state=self.controller.state_size, read_vector_list=[self.memory_vector_dim for _ in range(self.read_head_num)],
                w_list=[self.memory_size for _ in range(self.read_head_num + self.write_head_num)], M=tf.TensorShape([self.memory_size * self.memory_vector_dim]))
        @property
        def output_size(self):
            return self.output_dim

    np.random.seed(8)
    BATCH, BITS, SEQ = 3, 4, 3
    for init_mode, mode in [('constant', 'content_and_location'), ('learned', 'content')]:
      tf.reset_default_graph()
      tf.set_random_seed(8)
      inputs = tf.placeholder(tf.float32, shape=(BATCH, None, BITS + 1))
      outputs_ph = tf.placeholder(tf.float32, shape=(BATCH, None, BITS))
      max_seq_len = tf.placeholder(tf.int32)
      cell = NTMCell(1, 6, 8, 5, 1, 1, addressing_mode=mode, shift_range=1, reuse=False, output_dim=BITS, clip_value=20, init_mode=init_mode)
      initial_state = cell.zero_state(BATCH, tf.float32)
      output_sequence, _ = tf.nn.dynamic_rnn(cell=cell, inputs=inputs, time_major=False, initial_state=initial_state)
      output_logits = output_sequence[:, max_seq_len + 1:, :]
      outputs = tf.sigmoid(output_logits)
      loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=outputs_ph, logits=output_logits))
      optimizer = tf.train.RMSPropOptimizer(learning_rate=1e-3, momentum=0.9)
      trainable_variables = tf.trainable_variables()
      grads, _ = tf.clip_by_global_norm(tf.gradients(loss, trainable_variables), 10)
      train_op = optimizer.apply_gradients(zip(grads, trainable_variables))
      print(output_sequence, loss, cell.step, [v.name for v in trainable_variables])
      with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
          seq = np.random.randint(0, 2, size=(BATCH, SEQ, BITS)).astype(np.float32)
          inp = np.zeros((BATCH, 2 * SEQ + 1, BITS + 1), np.float32)
          inp[:, :SEQ, :BITS] = seq
          inp[:, SEQ, BITS] = 1
          _, l, o = sess.run([train_op, loss, outputs], {inputs: inp, outputs_ph: seq, max_seq_len: SEQ})
          print(i, repr(l), o[0, 0])
    _printed(capsys, """\
Tensor("rnn/transpose_1:0", shape=(3, ?, 4), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32) 1 ['init/fully_connected/weights:0', 'init/fully_connected_1/weights:0', 'init/fully_connected_2/weights:0', 'init/init_M:0', 'rnn/controller/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0', 'rnn/controller/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0', 'rnn/o2p/dense/kernel:0', 'rnn/o2p/dense/bias:0', 'rnn/o2o/dense/kernel:0', 'rnn/o2o/dense/bias:0']
0 0.6969402 [0.49846807 0.48827055 0.50089556 0.48760903]
1 0.6927059 [0.4919631  0.50047046 0.49903855 0.4869262 ]
2 0.6902274 [0.49122778 0.5057123  0.49724358 0.49326047]
Tensor("rnn/transpose_1:0", shape=(3, ?, 4), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32) 1 ['init/fully_connected/weights:0', 'init/fully_connected_1/weights:0', 'init/fully_connected_2/weights:0', 'init/fully_connected_3/weights:0', 'rnn/controller/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0', 'rnn/controller/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0', 'rnn/o2p/dense/kernel:0', 'rnn/o2p/dense/bias:0', 'rnn/o2o/dense/kernel:0', 'rnn/o2o/dense/bias:0']
0 0.689943 [0.4959719  0.4727221  0.51686907 0.517287  ]
1 0.6884865 [0.5013216  0.47704744 0.52134013 0.520891  ]
2 0.6913484 [0.47836417 0.47968328 0.50333536 0.5165288 ]
""", rtol=1e-05)
