"""Dense prediction and vision programs, part 5: as in test_programs_dense29.py, each reduced
and compared line by line with what TF 1.15 printed (measured)."""
# ruff: noqa: F401, F841, I001, RUF013, RUF059, UP004, UP006, UP008, UP031, UP032, UP035

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_crnn_ctc(capsys, tmp_path):
    # MaybeShewill-CV/CRNN_Tensorflow crnn_model/cnn_basenet.py + crnn_model.py (ShadowNet) + tools/train_shadownet.py: CTC loss, beam search, edit distance (reduced); the beam scores within float32 rounding (the prefix beam search of tideflow)
    from tideflow.contrib import rnn
    import sys
    from abc import ABCMeta
    from typing import Tuple
    import numpy as np
    # MaybeShewill-CV/CRNN_Tensorflow crnn_model/cnn_basenet.py + crnn_model/crnn_model.py (ShadowNet) + tools/train_shadownet.py's CTC loss, beam search and edit distance (reduced: 32x16 images, channels 2..6, 4 characters)
    class CNNBaseModel(metaclass=ABCMeta):
        def __init__(self):
            pass
        @staticmethod
        def conv2d(inputdata, out_channel, kernel_size, padding='SAME', stride=1, w_init=None, b_init=None, nl=tf.identity, split=1, use_bias=True, data_format='NHWC', name=None):
            with tf.variable_scope(name):
                in_shape = inputdata.get_shape().as_list()
                channel_axis = 3 if data_format == 'NHWC' else 1
                in_channel = in_shape[channel_axis]
                assert in_channel is not None, "[Conv2D] Input cannot have unknown channel!"
                assert in_channel % split == 0
                assert out_channel % split == 0
                padding = padding.upper()
                if isinstance(kernel_size, list):
                    filter_shape = [kernel_size[0], kernel_size[1]] + [in_channel / split, out_channel]
                else:
                    filter_shape = [kernel_size, kernel_size] + [in_channel / split, out_channel]
                if isinstance(stride, list):
                    strides = [1, stride[0], stride[1], 1] if data_format == 'NHWC' else [1, 1, stride[0], stride[1]]
                else:
                    strides = [1, stride, stride, 1] if data_format == 'NHWC' else [1, 1, stride, stride]
                if w_init is None:
                    w_init = tf.contrib.layers.variance_scaling_initializer()
                if b_init is None:
                    b_init = tf.constant_initializer()
                w = tf.get_variable('W', filter_shape, initializer=w_init)
                b = None
                if use_bias:
                    b = tf.get_variable('b', [out_channel], initializer=b_init)
                if split == 1:
                    conv = tf.nn.conv2d(inputdata, w, strides, padding, data_format=data_format)
                else:
                    inputs = tf.split(inputdata, split, channel_axis)
                    kernels = tf.split(w, split, 3)
                    outputs = [tf.nn.conv2d(i, k, strides, padding, data_format=data_format) for i, k in zip(inputs, kernels)]
                    conv = tf.concat(outputs, channel_axis)
                ret = nl(tf.nn.bias_add(conv, b, data_format=data_format) if use_bias else conv, name=name)
            return ret
        @staticmethod
        def relu(inputdata, name=None):
            return tf.nn.relu(features=inputdata, name=name)
        @staticmethod
        def maxpooling(inputdata, kernel_size, stride=None, padding='VALID', data_format='NHWC', name=None):
            padding = padding.upper()
            if stride is None:
                stride = kernel_size
            if isinstance(kernel_size, list):
                kernel = [1, kernel_size[0], kernel_size[1], 1] if data_format == 'NHWC' else [1, 1, kernel_size[0], kernel_size[1]]
            else:
                kernel = [1, kernel_size, kernel_size, 1] if data_format == 'NHWC' else [1, 1, kernel_size, kernel_size]
            if isinstance(stride, list):
                strides = [1, stride[0], stride[1], 1] if data_format == 'NHWC' else [1, 1, stride[0], stride[1]]
            else:
                strides = [1, stride, stride, 1] if data_format == 'NHWC' else [1, 1, stride, stride]
            return tf.nn.max_pool(value=inputdata, ksize=kernel, strides=strides, padding=padding, data_format=data_format, name=name)
        @staticmethod
        def dropout(inputdata, keep_prob, noise_shape=None, name=None):
            return tf.nn.dropout(inputdata, keep_prob=keep_prob, noise_shape=noise_shape, name=name)
        @staticmethod
        def layerbn(inputdata, is_training):
            output = tf.layers.batch_normalization(inputdata, scale=True, training=is_training)
            return output
        @staticmethod
        def squeeze(inputdata, axis=None, name=None):
            return tf.squeeze(input=inputdata, axis=axis, name=name)
    C = [2, 3, 4, 6]
    class ShadowNet(CNNBaseModel):
        def __init__(self, phase: str, hidden_nums: int, layers_nums: int, num_classes: int):
            super(ShadowNet, self).__init__()
            self.__phase = phase
            self.__hidden_nums = hidden_nums
            self.__layers_nums = layers_nums
            self.__num_classes = num_classes
        @property
        def phase(self):
            return self.__phase
        def __conv_stage(self, inputdata: tf.Tensor, out_dims: int, name: str=None) -> tf.Tensor:
            conv = self.conv2d(inputdata=inputdata, out_channel=out_dims, kernel_size=3, stride=1, use_bias=False, name=name)
            relu = self.relu(inputdata=conv)
            max_pool = self.maxpooling(inputdata=relu, kernel_size=2, stride=2)
            return max_pool
        def __feature_sequence_extraction(self, inputdata: tf.Tensor) -> tf.Tensor:
            conv1 = self.__conv_stage(inputdata=inputdata, out_dims=C[0], name='conv1')
            conv2 = self.__conv_stage(inputdata=conv1, out_dims=C[1], name='conv2')
            conv3 = self.conv2d(inputdata=conv2, out_channel=C[2], kernel_size=3, stride=1, use_bias=False, name='conv3')
            relu3 = self.relu(conv3)
            conv4 = self.conv2d(inputdata=relu3, out_channel=C[2], kernel_size=3, stride=1, use_bias=False, name='conv4')
            relu4 = self.relu(conv4)
            max_pool4 = self.maxpooling(inputdata=relu4, kernel_size=[2, 1], stride=[2, 1], padding='VALID')
            conv5 = self.conv2d(inputdata=max_pool4, out_channel=C[3], kernel_size=3, stride=1, use_bias=False, name='conv5')
            relu5 = self.relu(conv5)
            bn5 = self.layerbn(inputdata=relu5, is_training=self.phase == 'train')
            conv6 = self.conv2d(inputdata=bn5, out_channel=C[3], kernel_size=3, stride=1, use_bias=False, name='conv6')
            relu6 = self.relu(conv6)
            bn6 = self.layerbn(inputdata=relu6, is_training=self.phase == 'train')
            max_pool6 = self.maxpooling(inputdata=bn6, kernel_size=[2, 1], stride=[2, 1])
            conv7 = self.conv2d(inputdata=max_pool6, out_channel=C[3], kernel_size=2, stride=[2, 1], use_bias=False, name='conv7')
            relu7 = self.relu(conv7)
            return relu7
        def __map_to_sequence(self, inputdata: tf.Tensor) -> tf.Tensor:
            shape = inputdata.get_shape().as_list()
            assert shape[1] == 1
            return self.squeeze(inputdata=inputdata, axis=1)
        def __sequence_label(self, inputdata: tf.Tensor) -> Tuple[tf.Tensor, tf.Tensor]:
            with tf.variable_scope('LSTMLayers'):
                fw_cell_list = [rnn.BasicLSTMCell(nh, forget_bias=1.0) for nh in [self.__hidden_nums]*self.__layers_nums]
                bw_cell_list = [rnn.BasicLSTMCell(nh, forget_bias=1.0) for nh in [self.__hidden_nums]*self.__layers_nums]
                stack_lstm_layer, _, _ = rnn.stack_bidirectional_dynamic_rnn(fw_cell_list, bw_cell_list, inputdata, dtype=tf.float32)
                if self.phase.lower() == 'train':
                    stack_lstm_layer = self.dropout(inputdata=stack_lstm_layer, keep_prob=0.5)
                [batch_s, _, hidden_nums] = inputdata.get_shape().as_list()
                rnn_reshaped = tf.reshape(stack_lstm_layer, [-1, hidden_nums])
                w = tf.Variable(tf.truncated_normal([hidden_nums, self.__num_classes], stddev=0.1), name="w")
                logits = tf.matmul(rnn_reshaped, w)
                logits = tf.reshape(logits, [batch_s, -1, self.__num_classes])
                raw_pred = tf.argmax(tf.nn.softmax(logits), axis=2, name='raw_prediction')
                rnn_out = tf.transpose(logits, (1, 0, 2), name='transpose_time_major')
            return rnn_out, raw_pred
        def build_shadownet(self, inputdata: tf.Tensor) -> tf.Tensor:
            cnn_out = self.__feature_sequence_extraction(inputdata=inputdata)
            sequence = self.__map_to_sequence(inputdata=cnn_out)
            net_out, raw_pred = self.__sequence_label(inputdata=sequence)
            return net_out

    np.random.seed(13)
    tf.set_random_seed(13)
    B = 4
    images = np.random.rand(8, 32, 16, 1).astype(np.float32)
    texts = [[0, 2], [3], [2, 2], [1, 0], [1], [3, 0], [2], [0, 3]]
    def sparse(batch):
        idx = [[i, j] for i, t in enumerate(batch) for j in range(len(t))]
        vals = [c for t in batch for c in t]
        return tf.SparseTensorValue(np.array(idx, np.int64), np.array(vals, np.int32), np.array([len(batch), max(len(t) for t in batch)], np.int64))
    inputdata = tf.placeholder(tf.float32, [B, 32, 16, 1], name='input')
    input_labels = tf.sparse_placeholder(tf.int32, name='input_labels')
    shadownet = ShadowNet(phase='Train', hidden_nums=3, layers_nums=2, num_classes=5)
    with tf.variable_scope('shadow', reuse=False):
        net_out = shadownet.build_shadownet(inputdata=inputdata)
    cost = tf.reduce_mean(tf.nn.ctc_loss(labels=input_labels, inputs=net_out, sequence_length=4 * np.ones(B)))
    decoded, log_prob = tf.nn.ctc_beam_search_decoder(net_out, 4 * np.ones(B), merge_repeated=False)
    sequence_dist = tf.reduce_mean(tf.edit_distance(tf.cast(decoded[0], tf.int32), input_labels))
    greedy, _ = tf.nn.ctc_greedy_decoder(net_out, 4 * np.ones(B, np.int32))
    global_step = tf.Variable(0, name='global_step', trainable=False)
    learning_rate = tf.train.exponential_decay(0.1, global_step, 10, 0.1, staircase=True)
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        optimizer = tf.train.AdadeltaOptimizer(learning_rate=learning_rate).minimize(loss=cost, global_step=global_step)
    print(net_out, cost, decoded[0], log_prob, sequence_dist, len(update_ops))
    print([v.name for v in tf.trainable_variables()][:6], tf.trainable_variables()[0].shape)
    tf.summary.scalar(name='Cost', tensor=cost)
    tf.summary.scalar(name='Learning_Rate', tensor=learning_rate)
    tf.summary.scalar(name='Seq_Dist', tensor=sequence_dist)
    merge_summary_op = tf.summary.merge_all()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for epoch in range(4):
            b = epoch % 2
            fd = {inputdata: images[B*b:B*b+B], input_labels: sparse(texts[B*b:B*b+B])}
            _, c, seq_distance, preds, gp, summary, lp = sess.run([optimizer, cost, sequence_dist, decoded, greedy, merge_summary_op, log_prob], feed_dict=fd)
            print('Epoch: {:d} cost= {:9f} seq distance= {:9f}'.format(epoch + 1, c, seq_distance))
            print(preds[0].indices.tolist(), preds[0].values.tolist(), preds[0].dense_shape.tolist(), gp[0].values.tolist(), lp.ravel())
    _printed(capsys, """\
Tensor("shadow/LSTMLayers/transpose_time_major:0", shape=(4, 4, 5), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32) SparseTensor(indices=Tensor("CTCBeamSearchDecoder:0", shape=(?, 2), dtype=int64), values=Tensor("CTCBeamSearchDecoder:1", shape=(?,), dtype=int64), dense_shape=Tensor("CTCBeamSearchDecoder:2", shape=(2,), dtype=int64)) Tensor("CTCBeamSearchDecoder:3", shape=(4, 1), dtype=float32) Tensor("Mean_1:0", shape=(), dtype=float32) 0
['shadow/conv1/W:0', 'shadow/conv2/W:0', 'shadow/conv3/W:0', 'shadow/conv4/W:0', 'shadow/conv5/W:0', 'shadow/batch_normalization/gamma:0'] (3, 3, 1, 2)
Epoch: 1 cost=  4.103477 seq distance=  0.750000
[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]] [0, 2, 2, 0, 0, 2, 2, 0] [4, 2] [0, 2, 2, 0, 2, 1, 0, 2, 2] [-3.7225766 -3.7257771 -3.726854  -3.726836 ]
Epoch: 2 cost=  3.932105 seq distance=  1.250000
[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]] [0, 2, 0, 2, 0, 2, 1, 0] [4, 2] [0, 0, 0, 0, 0] [-3.72567   -3.725628  -3.7237363 -3.7264795]
Epoch: 3 cost=  4.104811 seq distance=  0.750000
[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]] [0, 2, 0, 2, 2, 0, 2, 0] [4, 2] [0, 2, 0, 2, 0, 2, 0] [-3.7242465 -3.724286  -3.7275472 -3.7265637]
Epoch: 4 cost=  3.931842 seq distance=  1.250000
[[0, 0], [0, 1], [1, 0], [1, 1], [2, 0], [2, 1], [3, 0], [3, 1]] [0, 2, 0, 2, 2, 1, 2, 0] [4, 2] [0, 0, 2, 0, 0, 0, 2, 0] [-3.7253768 -3.7253356 -3.7240489 -3.725273 ]
""", rtol=1e-06)


def test_pspnet_layers(capsys, tmp_path):
    # supervisely/supervisely nn/pspnet/src/network.py layer decorator + a PSPNet-style pyramid pooling model (reduced)
    import sys
    import numpy as np
    # supervisely/supervisely nn/pspnet/src/network.py (the kaffe-style layer decorator) + a PSPNet-style model in its model.py's form: residual block, atrous conv, pyramid pooling with align_corners resizes (reduced: 24x24 input, channels 3..7)
    DEFAULT_PADDING = 'VALID'
    DEFAULT_DATAFORMAT = 'NHWC'
    def layer(op):
        def layer_decorated(self, *args, **kwargs):
            name = kwargs.setdefault('name', self.get_unique_name(op.__name__))
            if len(self.terminals) == 0:
                raise RuntimeError('No input variables found for layer %s.' % name)
            elif len(self.terminals) == 1:
                layer_input = self.terminals[0]
            else:
                layer_input = list(self.terminals)
            layer_output = op(self, layer_input, *args, **kwargs)
            self.layers[name] = layer_output
            self.feed(layer_output)
            return self
        return layer_decorated
    class Network(object):
        def __init__(self, inputs, trainable=True, is_training=False, num_classes=21):
            self.inputs = inputs
            self.terminals = []
            self.layers = dict(inputs)
            self.trainable = trainable
            self.use_dropout = tf.placeholder_with_default(tf.constant(float(is_training)), shape=[], name='use_dropout')
            self.is_training = is_training
            self.setup(is_training, num_classes)
        def feed(self, *args):
            assert len(args) != 0
            self.terminals = []
            for fed_layer in args:
                if isinstance(fed_layer, str):
                    try:
                        fed_layer = self.layers[fed_layer]
                    except KeyError:
                        raise KeyError('Unknown layer name fed: %s' % fed_layer)
                self.terminals.append(fed_layer)
            return self
        def get_output(self):
            return self.terminals[-1]
        def get_unique_name(self, prefix):
            ident = sum(t.startswith(prefix) for t, _ in self.layers.items()) + 1
            return '%s_%d' % (prefix, ident)
        def make_var(self, name, shape):
            return tf.get_variable(name, shape, trainable=self.trainable)
        def validate_padding(self, padding):
            assert padding in ('SAME', 'VALID')
        @layer
        def zero_padding(self, input, paddings, name):
            pad_mat = np.array([[0,0], [paddings, paddings], [paddings, paddings], [0, 0]])
            return tf.pad(input, paddings=pad_mat, name=name)
        @layer
        def conv(self, input, k_h, k_w, c_o, s_h, s_w, name, relu=True, padding=DEFAULT_PADDING, group=1, biased=True):
            self.validate_padding(padding)
            c_i = input.get_shape()[-1]
            convolve = lambda i, k: tf.nn.conv2d(i, k, [1, s_h, s_w, 1], padding=padding,data_format=DEFAULT_DATAFORMAT)
            with tf.variable_scope(name) as scope:
                kernel = self.make_var('weights', shape=[k_h, k_w, c_i, c_o])
                output = convolve(input, kernel)
                if biased:
                    biases = self.make_var('biases', [c_o])
                    output = tf.nn.bias_add(output, biases)
                if relu:
                    output = tf.nn.relu(output, name=scope.name)
                return output
        @layer
        def atrous_conv(self, input, k_h, k_w, c_o, dilation, name, relu=True, padding=DEFAULT_PADDING, group=1, biased=True):
            self.validate_padding(padding)
            c_i = input.get_shape()[-1]
            convolve = lambda i, k: tf.nn.atrous_conv2d(i, k, dilation, padding=padding)
            with tf.variable_scope(name) as scope:
                kernel = self.make_var('weights', shape=[k_h, k_w, c_i, c_o])
                output = convolve(input, kernel)
                if biased:
                    biases = self.make_var('biases', [c_o])
                    output = tf.nn.bias_add(output, biases)
                if relu:
                    output = tf.nn.relu(output, name=scope.name)
                return output
        @layer
        def relu(self, input, name):
            return tf.nn.relu(input, name=name)
        @layer
        def max_pool(self, input, k_h, k_w, s_h, s_w, name, padding=DEFAULT_PADDING):
            self.validate_padding(padding)
            return tf.nn.max_pool(input, ksize=[1, k_h, k_w, 1], strides=[1, s_h, s_w, 1], padding=padding, name=name, data_format=DEFAULT_DATAFORMAT)
        @layer
        def avg_pool(self, input, k_h, k_w, s_h, s_w, name, padding=DEFAULT_PADDING):
            self.validate_padding(padding)
            output = tf.nn.avg_pool(input, ksize=[1, k_h, k_w, 1], strides=[1, s_h, s_w, 1], padding=padding, name=name, data_format=DEFAULT_DATAFORMAT)
            return output
        @layer
        def concat(self, inputs, axis, name):
            return tf.concat(axis=axis, values=inputs, name=name)
        @layer
        def add(self, inputs, name):
            return tf.add_n(inputs, name=name)
        @layer
        def fc(self, input, num_out, name, relu=True):
            with tf.variable_scope(name) as scope:
                input_shape = input.get_shape()
                if input_shape.ndims == 4:
                    dim = 1
                    for d in input_shape[1:].as_list():
                        dim *= d
                    feed_in = tf.reshape(input, [-1, dim])
                else:
                    feed_in, dim = (input, input_shape[-1].value)
                weights = self.make_var('weights', shape=[dim, num_out])
                biases = self.make_var('biases', [num_out])
                op = tf.nn.relu_layer if relu else tf.nn.xw_plus_b
                fc = op(feed_in, weights, biases, name=scope.name)
                return fc
        @layer
        def batch_normalization(self, input, name, scale_offset=True, relu=False):
            output = tf.layers.batch_normalization(input, momentum=0.95, epsilon=1e-5, training=self.is_training, name=name)
            if relu:
                output = tf.nn.relu(output)
            return output
        @layer
        def dropout(self, input, keep_prob, name):
            keep = 1 - self.use_dropout + (self.use_dropout * keep_prob)
            return tf.nn.dropout(input, keep, name=name)
        @layer
        def resize_bilinear(self, input, size, name):
            return tf.image.resize_bilinear(input, size=size, align_corners=True, name=name)
    class PSPNetTiny(Network):
        def setup(self, is_training, num_classes):
            (self.feed('data')
                 .conv(3, 3, 4, 2, 2, biased=False, relu=False, padding='SAME', name='conv1_1_3x3_s2')
                 .batch_normalization(relu=False, name='conv1_1_3x3_s2_bn')
                 .relu(name='conv1_1_3x3_s2_bn_relu')
                 .max_pool(3, 3, 2, 2, padding='SAME', name='pool1_3x3_s2')
                 .conv(1, 1, 6, 1, 1, biased=False, relu=False, name='conv2_1_1x1_proj')
                 .batch_normalization(relu=False, name='conv2_1_1x1_proj_bn'))
            (self.feed('pool1_3x3_s2')
                 .conv(1, 1, 3, 1, 1, biased=False, relu=False, name='conv2_1_1x1_reduce')
                 .batch_normalization(relu=True, name='conv2_1_1x1_reduce_bn')
                 .zero_padding(paddings=2, name='padding1')
                 .atrous_conv(3, 3, 3, 2, biased=False, relu=False, name='conv2_1_3x3')
                 .batch_normalization(relu=True, name='conv2_1_3x3_bn')
                 .conv(1, 1, 6, 1, 1, biased=False, relu=False, name='conv2_1_1x1_increase')
                 .batch_normalization(relu=False, name='conv2_1_1x1_increase_bn'))
            (self.feed('conv2_1_1x1_proj_bn', 'conv2_1_1x1_increase_bn')
                 .add(name='conv2_1')
                 .relu(name='conv2_1/relu'))
            shape = self.layers['conv2_1/relu'].get_shape().as_list()[1:3]
            for k, b in [(6, 1), (3, 2), (2, 3), (1, 6)]:
                (self.feed('conv2_1/relu')
                     .avg_pool(k, k, k, k, name='conv5_3_pool%d' % b)
                     .conv(1, 1, 2, 1, 1, biased=False, relu=False, name='conv5_3_pool%d_conv' % b)
                     .batch_normalization(relu=True, name='conv5_3_pool%d_conv_bn' % b)
                     .resize_bilinear(shape, name='conv5_3_pool%d_interp' % b))
            (self.feed('conv2_1/relu', 'conv5_3_pool6_interp', 'conv5_3_pool3_interp', 'conv5_3_pool2_interp', 'conv5_3_pool1_interp')
                 .concat(axis=-1, name='conv5_3_concat')
                 .conv(3, 3, 5, 1, 1, biased=False, relu=False, padding='SAME', name='conv5_4')
                 .batch_normalization(relu=True, name='conv5_4_bn')
                 .dropout(keep_prob=0.9, name='conv5_4_dropout')
                 .conv(1, 1, num_classes, 1, 1, biased=True, relu=False, name='conv6'))
            (self.feed('conv2_1/relu').fc(7, name='fc_aux').fc(num_classes, relu=False, name='fc_out'))

    np.random.seed(14)
    tf.set_random_seed(14)
    img = tf.placeholder(tf.float32, [2, 24, 24, 3])
    lab = tf.placeholder(tf.int32, [2, 24, 24])
    net = PSPNetTiny({'data': img}, is_training=True, num_classes=3)
    raw_output = net.layers['conv6']
    print(raw_output, net.layers['conv5_3_pool6_interp'], net.layers['fc_out'], sorted(net.layers)[:6], len(net.layers))
    raw_output_up = tf.image.resize_bilinear(raw_output, size=[24, 24], align_corners=True)
    raw_nearest = tf.image.resize_images(raw_output, [24, 24], method=tf.image.ResizeMethod.NEAREST_NEIGHBOR, align_corners=True)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(logits=raw_output_up, labels=lab))
    l2_losses = [0.0001 * tf.nn.l2_loss(v) for v in tf.trainable_variables() if 'weights' in v.name]
    reduced_loss = tf.reduce_mean(loss) + tf.add_n(l2_losses) + 0.01 * tf.reduce_mean(tf.square(net.layers['fc_out']))
    update_ops = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    with tf.control_dependencies(update_ops):
        train_op = tf.train.MomentumOptimizer(0.01, 0.9).minimize(reduced_loss)
    pred = tf.argmax(raw_output_up, axis=3)
    mIoU, update_op = tf.metrics.mean_iou(tf.reshape(lab, [-1]), tf.reshape(pred, [-1]), num_classes=3)
    print(len(update_ops), len(tf.trainable_variables()), len(tf.local_variables()))
    x = np.random.rand(2, 24, 24, 3).astype(np.float32)
    y = np.random.randint(0, 3, (2, 24, 24)).astype(np.int32)
    with tf.Session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        for step in range(3):
            l, _ = sess.run([reduced_loss, train_op], {img: x, lab: y})
            print('step {:d} \t loss = {:.6f}'.format(step, l))
        sess.run(update_op, {img: x, lab: y, net.use_dropout: 0.0})
        print('mIoU: {:.6f}'.format(sess.run(mIoU)))
        up, nn = sess.run([net.layers['conv5_3_pool3_interp'], raw_nearest], {img: x})
        print(up[0, :3, :3, 0], nn[0, :2, :4, 0])
    _printed(capsys, """\
Tensor("conv6/BiasAdd:0", shape=(2, 6, 6, 3), dtype=float32) Tensor("conv5_3_pool6_interp:0", shape=(2, 6, 6, 2), dtype=float32) Tensor("fc_out/fc_out:0", shape=(2, 3), dtype=float32) ['conv1_1_3x3_s2', 'conv1_1_3x3_s2_bn', 'conv1_1_3x3_s2_bn_relu', 'conv2_1', 'conv2_1/relu', 'conv2_1_1x1_increase'] 39
20 36 1
step 0 	 loss = 1.335855
step 1 	 loss = 1.338258
step 2 	 loss = 1.335833
mIoU: 0.159471
[[0.98475546 0.5908533  0.19695109]
 [0.5908533  0.35451198 0.11817066]
 [0.19695109 0.11817065 0.03939022]] [[-0.46579355 -0.46579355 -0.46579355 -0.36405584]
 [-0.46579355 -0.46579355 -0.46579355 -0.36405584]]
""")


def test_deformable_conv(capsys, tmp_path):
    # kastnerkyle/deform-conv deform_conv/deform_conv.py + layers.py (ConvOffset2D) + cnn.py get_deform_cnn under tf.keras fit/evaluate/predict (reduced); Adam (packet sqrt) steps apart in the last bits, which the biases before batch norm amplify (their gradients are rounding noise)
    import sys
    import numpy as np
    Conv2D = tf.keras.layers.Conv2D
    RandomNormal = tf.keras.initializers.RandomNormal
    # kastnerkyle/deform-conv deform_conv/deform_conv.py + layers.py (ConvOffset2D) + deform_conv/cnn.py's get_deform_cnn, trained as scripts/scaled_mnist.py does (reduced: 12x12 inputs, 4 filters, random offsets' init)
    def tf_flatten(a):
        return tf.reshape(a, [-1])
    def tf_repeat(a, repeats, axis=0):
        assert len(a.get_shape()) == 1
        a = tf.expand_dims(a, -1)
        a = tf.tile(a, [1, repeats])
        a = tf_flatten(a)
        return a
    def tf_repeat_2d(a, repeats):
        assert len(a.get_shape()) == 2
        a = tf.expand_dims(a, 0)
        a = tf.tile(a, [repeats, 1, 1])
        return a
    def tf_batch_map_coordinates(input, coords, order=1):
        input_shape = tf.shape(input)
        batch_size = input_shape[0]
        input_size = input_shape[1]
        n_coords = tf.shape(coords)[1]
        coords = tf.clip_by_value(coords, 0, tf.cast(input_size, 'float32') - 1)
        coords_lt = tf.cast(tf.floor(coords), 'int32')
        coords_rb = tf.cast(tf.ceil(coords), 'int32')
        coords_lb = tf.stack([coords_lt[..., 0], coords_rb[..., 1]], axis=-1)
        coords_rt = tf.stack([coords_rb[..., 0], coords_lt[..., 1]], axis=-1)
        idx = tf_repeat(tf.range(batch_size), n_coords)
        def _get_vals_by_coords(input, coords):
            indices = tf.stack([idx, tf_flatten(coords[..., 0]), tf_flatten(coords[..., 1])], axis=-1)
            vals = tf.gather_nd(input, indices)
            vals = tf.reshape(vals, (batch_size, n_coords))
            return vals
        vals_lt = _get_vals_by_coords(input, coords_lt)
        vals_rb = _get_vals_by_coords(input, coords_rb)
        vals_lb = _get_vals_by_coords(input, coords_lb)
        vals_rt = _get_vals_by_coords(input, coords_rt)
        coords_offset_lt = coords - tf.cast(coords_lt, 'float32')
        vals_t = vals_lt + (vals_rt - vals_lt) * coords_offset_lt[..., 0]
        vals_b = vals_lb + (vals_rb - vals_lb) * coords_offset_lt[..., 0]
        mapped_vals = vals_t + (vals_b - vals_t) * coords_offset_lt[..., 1]
        return mapped_vals
    def tf_batch_map_offsets(input, offsets, order=1):
        input_shape = tf.shape(input)
        batch_size = input_shape[0]
        input_size = input_shape[1]
        offsets = tf.reshape(offsets, (batch_size, -1, 2))
        grid = tf.meshgrid(tf.range(input_size), tf.range(input_size), indexing='ij')
        grid = tf.stack(grid, axis=-1)
        grid = tf.cast(grid, 'float32')
        grid = tf.reshape(grid, (-1, 2))
        grid = tf_repeat_2d(grid, batch_size)
        coords = offsets + grid
        mapped_vals = tf_batch_map_coordinates(input, coords)
        return mapped_vals
    class ConvOffset2D(Conv2D):
        def __init__(self, filters, init_normal_stddev=0.01, **kwargs):
            self.filters = filters
            super(ConvOffset2D, self).__init__(self.filters * 2, (3, 3), padding='same', use_bias=False, kernel_initializer=RandomNormal(0, init_normal_stddev), **kwargs)
        def call(self, x):
            x_shape = x.get_shape()
            offsets = super(ConvOffset2D, self).call(x)
            offsets = self._to_bc_h_w_2(offsets, x_shape)
            x = self._to_bc_h_w(x, x_shape)
            x_offset = tf_batch_map_offsets(x, offsets)
            x_offset = self._to_b_h_w_c(x_offset, x_shape)
            return x_offset
        def compute_output_shape(self, input_shape):
            return input_shape
        @staticmethod
        def _to_bc_h_w_2(x, x_shape):
            x = tf.transpose(x, [0, 3, 1, 2])
            x = tf.reshape(x, (-1, int(x_shape[1]), int(x_shape[2]), 2))
            return x
        @staticmethod
        def _to_bc_h_w(x, x_shape):
            x = tf.transpose(x, [0, 3, 1, 2])
            x = tf.reshape(x, (-1, int(x_shape[1]), int(x_shape[2])))
            return x
        @staticmethod
        def _to_b_h_w_c(x, x_shape):
            x = tf.reshape(x, (-1, int(x_shape[3]), int(x_shape[1]), int(x_shape[2])))
            x = tf.transpose(x, [0, 2, 3, 1])
            return x
    Input, KConv2D, Activation, GlobalAvgPool2D, Dense, BatchNormalization = tf.keras.layers.Input, tf.keras.layers.Conv2D, tf.keras.layers.Activation, tf.keras.layers.GlobalAvgPool2D, tf.keras.layers.Dense, tf.keras.layers.BatchNormalization
    def get_deform_cnn(trainable):
        inputs = l = Input((12, 12, 1), name='input')
        l = KConv2D(4, (3, 3), padding='same', name='conv11', trainable=trainable)(l)
        l = Activation('relu', name='conv11_relu')(l)
        l = BatchNormalization(name='conv11_bn')(l)
        l_offset = ConvOffset2D(4, name='conv12_offset')(l)
        l = KConv2D(5, (3, 3), padding='same', strides=(2, 2), name='conv12', trainable=trainable)(l_offset)
        l = Activation('relu', name='conv12_relu')(l)
        l = BatchNormalization(name='conv12_bn')(l)
        l_offset = ConvOffset2D(5, name='conv21_offset')(l)
        l = KConv2D(6, (3, 3), padding='same', strides=(2, 2), name='conv21', trainable=trainable)(l_offset)
        l = Activation('relu', name='conv21_relu')(l)
        l = BatchNormalization(name='conv21_bn')(l)
        l = GlobalAvgPool2D(name='avg_pool')(l)
        l = Dense(3, name='fc1', trainable=trainable)(l)
        outputs = l = Activation('softmax', name='out')(l)
        return inputs, outputs
    np.random.seed(15)
    tf.set_random_seed(15)
    X = np.random.rand(12, 12, 12, 1).astype(np.float32)
    Y = tf.keras.utils.to_categorical(np.random.randint(0, 3, 12), 3)
    inputs, outputs = get_deform_cnn(trainable=True)
    model = tf.keras.models.Model(inputs=inputs, outputs=outputs)
    print(model.output_shape, len(model.trainable_weights), [w.name for w in model.trainable_weights][:5])
    optim = tf.keras.optimizers.Adam(1e-3)
    model.compile(optim, 'categorical_crossentropy', metrics=['accuracy'])
    h = model.fit(X, Y, batch_size=4, epochs=3, verbose=0, shuffle=False, validation_data=(X[:4], Y[:4]))
    print(sorted(h.history), [round(v, 6) for v in h.history['loss']], h.history['val_acc'])
    print(model.evaluate(X, Y, batch_size=6, verbose=0))
    print(model.predict(X[:2]))
    off = model.get_layer('conv12_offset')
    print(off.filters, off.kernel.shape, off.output_shape)
    _printed(capsys, """\
(None, 3) 16 ['conv11/kernel:0', 'conv11/bias:0', 'conv11_bn/gamma:0', 'conv11_bn/beta:0', 'conv12_offset/kernel:0']
['acc', 'loss', 'val_acc', 'val_loss'] [1.223217, 1.087656, 0.996502] [0.75, 0.75, 0.75]
[1.096657395362854, 0.33333334]
[[0.2865898  0.37175652 0.34165367]
 [0.28300297 0.38146403 0.33553296]]
8 (3, 3, 4, 8) (None, 12, 12, 4)
""", rtol=0.001)
