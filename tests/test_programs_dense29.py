"""Dense prediction, super-resolution, depth, pose-free vision, point clouds, CTR and memory
networks: TF 1.x programs from their repositories (SRCNN, monodepth, DeepFM, DGCNN, spatial
transformers, SegNet, EDSR, DeepLab v3, Faster R-CNN proposals, FCN, DispNet, NTM, CRNN, PSPNet, deformable convolutions, SSD preprocessing, a stacked hourglass), each reduced to a standalone form with
small synthetic data (API calls, graph structure and training loop kept; sizes and steps shrunk;
the repository's helpers inlined) and compared line by line with what TF 1.15
(tensorflow-cpu 1.15.0) printed running the same program with the same seeds (measured). Where
the comparison takes a relative tolerance, the cause is one tideflow leaves (docs/design.md): the
last float32 bits of long convolution filter gradients, Eigen's packet sqrt/rsqrt, batched
BatchMatMul's blocked order, or the AddN order TF's grappler gives a residual network's
gradients when the batch dimension is unknown. Channel counts stay under 8 where batch norm runs
(its packet rsqrt). The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: B006, C408, F401, F841, FURB136, I001, PIE808, PLC0414, RUF059, SIM117, UP004, UP031, UP032

import tideflow as tf

from tests.dense_programs_util import _fresh_graph, _printed


def test_srcnn_checkpoints(capsys, tmp_path):
    # tegg89/SRCNN-Tensorflow model.py: train, save every 5 steps, then a new graph restores the latest (reduced)
    import sys, os, tempfile, time
    import numpy as np
    xrange = range
    # tegg89/SRCNN-Tensorflow model.py (reduced: 13x13 patches, 5x5 labels, 3 epochs)
    class Config: pass
    class SRCNN(object):
      def __init__(self, sess, image_size=33, label_size=21, batch_size=128, c_dim=1, checkpoint_dir=None, sample_dir=None):
        self.sess = sess
        self.is_grayscale = (c_dim == 1)
        self.image_size = image_size
        self.label_size = label_size
        self.batch_size = batch_size
        self.c_dim = c_dim
        self.checkpoint_dir = checkpoint_dir
        self.sample_dir = sample_dir
        self.build_model()
      def build_model(self):
        self.images = tf.placeholder(tf.float32, [None, self.image_size, self.image_size, self.c_dim], name='images')
        self.labels = tf.placeholder(tf.float32, [None, self.label_size, self.label_size, self.c_dim], name='labels')
        self.weights = {
          'w1': tf.Variable(tf.random_normal([9, 9, 1, 64], stddev=1e-3), name='w1'),
          'w2': tf.Variable(tf.random_normal([1, 1, 64, 32], stddev=1e-3), name='w2'),
          'w3': tf.Variable(tf.random_normal([5, 5, 32, 1], stddev=1e-3), name='w3')
        }
        self.biases = {
          'b1': tf.Variable(tf.zeros([64]), name='b1'),
          'b2': tf.Variable(tf.zeros([32]), name='b2'),
          'b3': tf.Variable(tf.zeros([1]), name='b3')
        }
        self.pred = self.model()
        self.loss = tf.reduce_mean(tf.square(self.labels - self.pred))
        self.saver = tf.train.Saver()
      def train(self, config, train_data, train_label):
        self.train_op = tf.train.GradientDescentOptimizer(config.learning_rate).minimize(self.loss)
        tf.initialize_all_variables().run()
        counter = 0
        if self.load(self.checkpoint_dir):
          print(" [*] Load SUCCESS")
        else:
          print(" [!] Load failed...")
        print("Training...")
        for ep in xrange(config.epoch):
          batch_idxs = len(train_data) // config.batch_size
          for idx in xrange(0, batch_idxs):
            batch_images = train_data[idx*config.batch_size : (idx+1)*config.batch_size]
            batch_labels = train_label[idx*config.batch_size : (idx+1)*config.batch_size]
            counter += 1
            _, err = self.sess.run([self.train_op, self.loss], feed_dict={self.images: batch_images, self.labels: batch_labels})
            if counter % 2 == 0:
              print("Epoch: [%2d], step: [%2d], loss: [%.8f]" % ((ep+1), counter, err))
            if counter % 5 == 0:
              self.save(config.checkpoint_dir, counter)
      def model(self):
        conv1 = tf.nn.relu(tf.nn.conv2d(self.images, self.weights['w1'], strides=[1,1,1,1], padding='VALID') + self.biases['b1'])
        conv2 = tf.nn.relu(tf.nn.conv2d(conv1, self.weights['w2'], strides=[1,1,1,1], padding='VALID') + self.biases['b2'])
        conv3 = tf.nn.conv2d(conv2, self.weights['w3'], strides=[1,1,1,1], padding='VALID') + self.biases['b3']
        return conv3
      def save(self, checkpoint_dir, step):
        model_name = "SRCNN.model"
        model_dir = "%s_%s" % ("srcnn", self.label_size)
        checkpoint_dir = os.path.join(checkpoint_dir, model_dir)
        if not os.path.exists(checkpoint_dir):
            os.makedirs(checkpoint_dir)
        self.saver.save(self.sess, os.path.join(checkpoint_dir, model_name), global_step=step)
      def load(self, checkpoint_dir):
        print(" [*] Reading checkpoints...")
        model_dir = "%s_%s" % ("srcnn", self.label_size)
        checkpoint_dir = os.path.join(checkpoint_dir, model_dir)
        ckpt = tf.train.get_checkpoint_state(checkpoint_dir)
        if ckpt and ckpt.model_checkpoint_path:
            ckpt_name = os.path.basename(ckpt.model_checkpoint_path)
            print(ckpt_name)
            self.saver.restore(self.sess, os.path.join(checkpoint_dir, ckpt_name))
            return True
        else:
            return False

    np.random.seed(0)
    tf.set_random_seed(1)
    data = np.random.rand(24, 13, 13, 1).astype(np.float32)
    label = data[:, 6:7, 6:7, :] * 0.9
    d = str(tmp_path)
    config = Config(); config.learning_rate = 1e-1; config.epoch = 3; config.batch_size = 8; config.checkpoint_dir = d
    with tf.Session() as sess:
        srcnn = SRCNN(sess, image_size=13, label_size=1, batch_size=8, c_dim=1, checkpoint_dir=d, sample_dir=d)
        print(srcnn.pred, srcnn.loss)
        print([v.name for v in tf.global_variables()])
        srcnn.train(config, data, label)
        print(sorted(os.listdir(os.path.join(d, 'srcnn_1'))))
        print(srcnn.pred.eval({srcnn.images: data[:1]}).reshape(-1)[:5])
    tf.reset_default_graph()
    with tf.Session() as sess:
        srcnn = SRCNN(sess, image_size=13, label_size=1, batch_size=8, c_dim=1, checkpoint_dir=d, sample_dir=d)
        config.epoch = 1
        srcnn.train(config, data, label)
    _printed(capsys, """\
Tensor("add_2:0", shape=(?, 1, 1, 1), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32)
['w1:0', 'w2:0', 'w3:0', 'b1:0', 'b2:0', 'b3:0']
 [*] Reading checkpoints...
 [!] Load failed...
Training...
Epoch: [ 1], step: [ 2], loss: [0.12032009]
Epoch: [ 2], step: [ 4], loss: [0.13368088]
Epoch: [ 2], step: [ 6], loss: [0.08867198]
Epoch: [ 3], step: [ 8], loss: [0.03485637]
['SRCNN.model-5.data-00000-of-00001', 'SRCNN.model-5.index', 'SRCNN.model-5.meta', 'checkpoint']
[0.39645052]
 [*] Reading checkpoints...
SRCNN.model-5
 [*] Load SUCCESS
Training...
Epoch: [ 1], step: [ 2], loss: [0.03661399]
""")


def test_monodepth_vgg(capsys, tmp_path):
    # mrharicot/monodepth bilinear_sampler.py + monodepth_model.py (vgg, upconv) + monodepth_main.py step; batch 1 (reduced)
    import sys, os, tempfile
    from collections import namedtuple
    import numpy as np
    slim = tf.contrib.slim
    # mrharicot/monodepth bilinear_sampler.py + monodepth_model.py (vgg encoder, channels /16, 128x128 input) + monodepth_main.py's training step (reduced)
    def bilinear_sampler_1d_h(input_images, x_offset, wrap_mode='border', name='bilinear_sampler', **kwargs):
        def _repeat(x, n_repeats):
            with tf.variable_scope('_repeat'):
                rep = tf.tile(tf.expand_dims(x, 1), [1, n_repeats])
                return tf.reshape(rep, [-1])
        def _interpolate(im, x, y):
            with tf.variable_scope('_interpolate'):
                _edge_size = 0
                if _wrap_mode == 'border':
                    _edge_size = 1
                    im = tf.pad(im, [[0, 0], [1, 1], [1, 1], [0, 0]], mode='CONSTANT')
                    x = x + _edge_size
                    y = y + _edge_size
                elif _wrap_mode == 'edge':
                    _edge_size = 0
                else:
                    return None
                x = tf.clip_by_value(x, 0.0,  _width_f - 1 + 2 * _edge_size)
                x0_f = tf.floor(x)
                y0_f = tf.floor(y)
                x1_f = x0_f + 1
                x0 = tf.cast(x0_f, tf.int32)
                y0 = tf.cast(y0_f, tf.int32)
                x1 = tf.cast(tf.minimum(x1_f,  _width_f - 1 + 2 * _edge_size), tf.int32)
                dim2 = (_width + 2 * _edge_size)
                dim1 = (_width + 2 * _edge_size) * (_height + 2 * _edge_size)
                base = _repeat(tf.range(_num_batch) * dim1, _height * _width)
                base_y0 = base + y0 * dim2
                idx_l = base_y0 + x0
                idx_r = base_y0 + x1
                im_flat = tf.reshape(im, tf.stack([-1, _num_channels]))
                pix_l = tf.gather(im_flat, idx_l)
                pix_r = tf.gather(im_flat, idx_r)
                weight_l = tf.expand_dims(x1_f - x, 1)
                weight_r = tf.expand_dims(x - x0_f, 1)
                return weight_l * pix_l + weight_r * pix_r
        def _transform(input_images, x_offset):
            with tf.variable_scope('transform'):
                x_t, y_t = tf.meshgrid(tf.linspace(0.0,   _width_f - 1.0,  _width),
                                       tf.linspace(0.0 , _height_f - 1.0 , _height))
                x_t_flat = tf.reshape(x_t, (1, -1))
                y_t_flat = tf.reshape(y_t, (1, -1))
                x_t_flat = tf.tile(x_t_flat, tf.stack([_num_batch, 1]))
                y_t_flat = tf.tile(y_t_flat, tf.stack([_num_batch, 1]))
                x_t_flat = tf.reshape(x_t_flat, [-1])
                y_t_flat = tf.reshape(y_t_flat, [-1])
                x_t_flat = x_t_flat + tf.reshape(x_offset, [-1]) * _width_f
                input_transformed = _interpolate(input_images, x_t_flat, y_t_flat)
                output = tf.reshape(
                    input_transformed, tf.stack([_num_batch, _height, _width, _num_channels]))
                return output
        with tf.variable_scope(name):
            _num_batch    = tf.shape(input_images)[0]
            _height       = tf.shape(input_images)[1]
            _width        = tf.shape(input_images)[2]
            _num_channels = tf.shape(input_images)[3]
            _height_f = tf.cast(_height, tf.float32)
            _width_f  = tf.cast(_width,  tf.float32)
            _wrap_mode = wrap_mode
            output = _transform(input_images, x_offset)
            return output

    monodepth_parameters = namedtuple('parameters', 'encoder, height, width, batch_size, num_threads, num_epochs, do_stereo, wrap_mode, use_deconv, alpha_image_loss, disp_gradient_loss_weight, lr_loss_weight, full_summary')
    D = 16
    class MonodepthModel(object):
        def __init__(self, params, mode, left, right, reuse_variables=None, model_index=0):
            self.params = params
            self.mode = mode
            self.left = left
            self.right = right
            self.model_collection = ['model_' + str(model_index)]
            self.reuse_variables = reuse_variables
            self.build_model()
            self.build_outputs()
            if self.mode == 'test':
                return
            self.build_losses()
            self.build_summaries()
        def gradient_x(self, img):
            return img[:,:,:-1,:] - img[:,:,1:,:]
        def gradient_y(self, img):
            return img[:,:-1,:,:] - img[:,1:,:,:]
        def upsample_nn(self, x, ratio):
            s = tf.shape(x)
            h = s[1]
            w = s[2]
            return tf.image.resize_nearest_neighbor(x, [h * ratio, w * ratio])
        def scale_pyramid(self, img, num_scales):
            scaled_imgs = [img]
            s = tf.shape(img)
            h = s[1]
            w = s[2]
            for i in range(num_scales - 1):
                ratio = 2 ** (i + 1)
                nh = h // ratio
                nw = w // ratio
                scaled_imgs.append(tf.image.resize_area(img, [nh, nw]))
            return scaled_imgs
        def generate_image_left(self, img, disp):
            return bilinear_sampler_1d_h(img, -disp)
        def generate_image_right(self, img, disp):
            return bilinear_sampler_1d_h(img, disp)
        def SSIM(self, x, y):
            C1 = 0.01 ** 2
            C2 = 0.03 ** 2
            mu_x = slim.avg_pool2d(x, 3, 1, 'VALID')
            mu_y = slim.avg_pool2d(y, 3, 1, 'VALID')
            sigma_x  = slim.avg_pool2d(x ** 2, 3, 1, 'VALID') - mu_x ** 2
            sigma_y  = slim.avg_pool2d(y ** 2, 3, 1, 'VALID') - mu_y ** 2
            sigma_xy = slim.avg_pool2d(x * y , 3, 1, 'VALID') - mu_x * mu_y
            SSIM_n = (2 * mu_x * mu_y + C1) * (2 * sigma_xy + C2)
            SSIM_d = (mu_x ** 2 + mu_y ** 2 + C1) * (sigma_x + sigma_y + C2)
            SSIM = SSIM_n / SSIM_d
            return tf.clip_by_value((1 - SSIM) / 2, 0, 1)
        def get_disparity_smoothness(self, disp, pyramid):
            disp_gradients_x = [self.gradient_x(d) for d in disp]
            disp_gradients_y = [self.gradient_y(d) for d in disp]
            image_gradients_x = [self.gradient_x(img) for img in pyramid]
            image_gradients_y = [self.gradient_y(img) for img in pyramid]
            weights_x = [tf.exp(-tf.reduce_mean(tf.abs(g), 3, keep_dims=True)) for g in image_gradients_x]
            weights_y = [tf.exp(-tf.reduce_mean(tf.abs(g), 3, keep_dims=True)) for g in image_gradients_y]
            smoothness_x = [disp_gradients_x[i] * weights_x[i] for i in range(4)]
            smoothness_y = [disp_gradients_y[i] * weights_y[i] for i in range(4)]
            return smoothness_x + smoothness_y
        def get_disp(self, x):
            return 0.3 * self.conv(x, 2, 3, 1, tf.nn.sigmoid)
        def conv(self, x, num_out_layers, kernel_size, stride, activation_fn=tf.nn.elu):
            p = np.floor((kernel_size - 1) / 2).astype(np.int32)
            p_x = tf.pad(x, [[0, 0], [p, p], [p, p], [0, 0]])
            return slim.conv2d(p_x, num_out_layers, kernel_size, stride, 'VALID', activation_fn=activation_fn)
        def conv_block(self, x, num_out_layers, kernel_size):
            conv1 = self.conv(x,     num_out_layers, kernel_size, 1)
            conv2 = self.conv(conv1, num_out_layers, kernel_size, 2)
            return conv2
        def upconv(self, x, num_out_layers, kernel_size, scale):
            upsample = self.upsample_nn(x, scale)
            return self.conv(upsample, num_out_layers, kernel_size, 1)
        def deconv(self, x, num_out_layers, kernel_size, scale):
            p_x = tf.pad(x, [[0, 0], [1, 1], [1, 1], [0, 0]])
            conv = slim.conv2d_transpose(p_x, num_out_layers, kernel_size, scale, 'SAME')
            return conv[:,3:-1,3:-1,:]
        def build_vgg(self):
            conv = self.conv
            upconv = self.deconv if self.params.use_deconv else self.upconv
            with tf.variable_scope('encoder'):
                conv1 = self.conv_block(self.model_input,  32//D, 7)
                conv2 = self.conv_block(conv1,             64//D, 5)
                conv3 = self.conv_block(conv2,            128//D, 3)
                conv4 = self.conv_block(conv3,            256//D, 3)
                conv5 = self.conv_block(conv4,            512//D, 3)
                conv6 = self.conv_block(conv5,            512//D, 3)
                conv7 = self.conv_block(conv6,            512//D, 3)
            with tf.variable_scope('skips'):
                skip1, skip2, skip3, skip4, skip5, skip6 = conv1, conv2, conv3, conv4, conv5, conv6
            with tf.variable_scope('decoder'):
                upconv7 = upconv(conv7,  512//D, 3, 2)
                concat7 = tf.concat([upconv7, skip6], 3)
                iconv7  = conv(concat7,  512//D, 3, 1)
                upconv6 = upconv(iconv7, 512//D, 3, 2)
                concat6 = tf.concat([upconv6, skip5], 3)
                iconv6  = conv(concat6,  512//D, 3, 1)
                upconv5 = upconv(iconv6, 256//D, 3, 2)
                concat5 = tf.concat([upconv5, skip4], 3)
                iconv5  = conv(concat5,  256//D, 3, 1)
                upconv4 = upconv(iconv5, 128//D, 3, 2)
                concat4 = tf.concat([upconv4, skip3], 3)
                iconv4  = conv(concat4,  128//D, 3, 1)
                self.disp4 = self.get_disp(iconv4)
                udisp4  = self.upsample_nn(self.disp4, 2)
                upconv3 = upconv(iconv4,  64//D, 3, 2)
                concat3 = tf.concat([upconv3, skip2, udisp4], 3)
                iconv3  = conv(concat3,   64//D, 3, 1)
                self.disp3 = self.get_disp(iconv3)
                udisp3  = self.upsample_nn(self.disp3, 2)
                upconv2 = upconv(iconv3,  32//D, 3, 2)
                concat2 = tf.concat([upconv2, skip1, udisp3], 3)
                iconv2  = conv(concat2,   32//D, 3, 1)
                self.disp2 = self.get_disp(iconv2)
                udisp2  = self.upsample_nn(self.disp2, 2)
                upconv1 = upconv(iconv2,  16//D + 1, 3, 2)
                concat1 = tf.concat([upconv1, udisp2], 3)
                iconv1  = conv(concat1,   16//D + 1, 3, 1)
                self.disp1 = self.get_disp(iconv1)
        def build_model(self):
            with slim.arg_scope([slim.conv2d, slim.conv2d_transpose], activation_fn=tf.nn.elu):
                with tf.variable_scope('model', reuse=self.reuse_variables):
                    self.left_pyramid  = self.scale_pyramid(self.left,  4)
                    if self.mode == 'train':
                        self.right_pyramid = self.scale_pyramid(self.right, 4)
                    if self.params.do_stereo:
                        self.model_input = tf.concat([self.left, self.right], 3)
                    else:
                        self.model_input = self.left
                    self.build_vgg()
        def build_outputs(self):
            with tf.variable_scope('disparities'):
                self.disp_est  = [self.disp1, self.disp2, self.disp3, self.disp4]
                self.disp_left_est  = [tf.expand_dims(d[:,:,:,0], 3) for d in self.disp_est]
                self.disp_right_est = [tf.expand_dims(d[:,:,:,1], 3) for d in self.disp_est]
            if self.mode == 'test':
                return
            with tf.variable_scope('images'):
                self.left_est  = [self.generate_image_left(self.right_pyramid[i], self.disp_left_est[i])  for i in range(4)]
                self.right_est = [self.generate_image_right(self.left_pyramid[i], self.disp_right_est[i]) for i in range(4)]
            with tf.variable_scope('left-right'):
                self.right_to_left_disp = [self.generate_image_left(self.disp_right_est[i], self.disp_left_est[i])  for i in range(4)]
                self.left_to_right_disp = [self.generate_image_right(self.disp_left_est[i], self.disp_right_est[i]) for i in range(4)]
            with tf.variable_scope('smoothness'):
                self.disp_left_smoothness  = self.get_disparity_smoothness(self.disp_left_est,  self.left_pyramid)
                self.disp_right_smoothness = self.get_disparity_smoothness(self.disp_right_est, self.right_pyramid)
        def build_losses(self):
            with tf.variable_scope('losses', reuse=self.reuse_variables):
                self.l1_left = [tf.abs( self.left_est[i] - self.left_pyramid[i]) for i in range(4)]
                self.l1_reconstruction_loss_left  = [tf.reduce_mean(l) for l in self.l1_left]
                self.l1_right = [tf.abs(self.right_est[i] - self.right_pyramid[i]) for i in range(4)]
                self.l1_reconstruction_loss_right = [tf.reduce_mean(l) for l in self.l1_right]
                self.ssim_left = [self.SSIM( self.left_est[i],  self.left_pyramid[i]) for i in range(4)]
                self.ssim_loss_left  = [tf.reduce_mean(s) for s in self.ssim_left]
                self.ssim_right = [self.SSIM(self.right_est[i], self.right_pyramid[i]) for i in range(4)]
                self.ssim_loss_right = [tf.reduce_mean(s) for s in self.ssim_right]
                self.image_loss_right = [self.params.alpha_image_loss * self.ssim_loss_right[i] + (1 - self.params.alpha_image_loss) * self.l1_reconstruction_loss_right[i] for i in range(4)]
                self.image_loss_left  = [self.params.alpha_image_loss * self.ssim_loss_left[i]  + (1 - self.params.alpha_image_loss) * self.l1_reconstruction_loss_left[i]  for i in range(4)]
                self.image_loss = tf.add_n(self.image_loss_left + self.image_loss_right)
                self.disp_left_loss  = [tf.reduce_mean(tf.abs(self.disp_left_smoothness[i]))  / 2 ** i for i in range(4)]
                self.disp_right_loss = [tf.reduce_mean(tf.abs(self.disp_right_smoothness[i])) / 2 ** i for i in range(4)]
                self.disp_gradient_loss = tf.add_n(self.disp_left_loss + self.disp_right_loss)
                self.lr_left_loss  = [tf.reduce_mean(tf.abs(self.right_to_left_disp[i] - self.disp_left_est[i]))  for i in range(4)]
                self.lr_right_loss = [tf.reduce_mean(tf.abs(self.left_to_right_disp[i] - self.disp_right_est[i])) for i in range(4)]
                self.lr_loss = tf.add_n(self.lr_left_loss + self.lr_right_loss)
                self.total_loss = self.image_loss + self.params.disp_gradient_loss_weight * self.disp_gradient_loss + self.params.lr_loss_weight * self.lr_loss
        def build_summaries(self):
            with tf.device('/cpu:0'):
                for i in range(4):
                    tf.summary.scalar('ssim_loss_' + str(i), self.ssim_loss_left[i] + self.ssim_loss_right[i], collections=self.model_collection)
                    tf.summary.scalar('l1_loss_' + str(i), self.l1_reconstruction_loss_left[i] + self.l1_reconstruction_loss_right[i], collections=self.model_collection)
                    tf.summary.image('disp_left_est_' + str(i), self.disp_left_est[i], max_outputs=2, collections=self.model_collection)

    use_deconv = False
    params = monodepth_parameters(encoder='vgg', height=128, width=128, batch_size=1, num_threads=1, num_epochs=1, do_stereo=False, wrap_mode='border', use_deconv=use_deconv, alpha_image_loss=0.85, disp_gradient_loss_weight=0.1, lr_loss_weight=1.0, full_summary=False)
    tf.set_random_seed(3)
    np.random.seed(0)
    left_np = np.random.rand(1, 128, 128, 3).astype(np.float32)
    right_np = np.roll(left_np, 3, axis=2)
    global_step = tf.Variable(0, trainable=False)
    boundaries = [np.int32((3/5) * 10), np.int32((4/5) * 10)]
    values = [1e-4, 1e-4 / 2, 1e-4 / 4]
    learning_rate = tf.train.piecewise_constant(global_step, boundaries, values)
    opt_step = tf.train.AdamOptimizer(learning_rate)
    left = tf.constant(left_np); right = tf.constant(right_np)
    with tf.variable_scope(tf.get_variable_scope()):
        model = MonodepthModel(params, 'train', left, right, None, 0)
        loss = model.total_loss
        grads = opt_step.compute_gradients(loss)
    apply_gradient_op = opt_step.apply_gradients(grads, global_step=global_step)
    tf.summary.scalar('learning_rate', learning_rate, ['model_0'])
    tf.summary.scalar('total_loss', loss, ['model_0'])
    summary_op = tf.summary.merge_all('model_0')
    print(model.disp1, model.disp4, model.left_est[2], model.left_pyramid[3])
    print(len(tf.trainable_variables()), tf.trainable_variables()[0], tf.trainable_variables()[-1])
    print([v.name for v in tf.trainable_variables()][:6])
    total_num_parameters = 0
    for variable in tf.trainable_variables():
        total_num_parameters += np.array(variable.get_shape().as_list()).prod()
    print("number of trainable parameters: {}".format(total_num_parameters))
    print(summary_op, len(tf.get_collection('model_0')))
    config = tf.ConfigProto(allow_soft_placement=True)
    sess = tf.Session(config=config)
    sess.run(tf.global_variables_initializer())
    sess.run(tf.local_variables_initializer())
    coordinator = tf.train.Coordinator()
    threads = tf.train.start_queue_runners(sess=sess, coord=coordinator)
    for step in range(1):
        _, loss_value, il, dl, lr, s, d1 = sess.run([apply_gradient_op, loss, model.image_loss, model.disp_gradient_loss, model.lr_loss, summary_op, model.disp1])
        print('step', step, '%.6f' % loss_value)
    print('%.6f %.6f %.6f' % (il, dl, lr))
    print(type(s), len(s) > 100)
    print(d1[0, :2, :3, 0])
    coordinator.request_stop(); coordinator.join(threads); sess.close()
    _printed(capsys, """\
Tensor("model/decoder/mul_23:0", shape=(1, 128, 128, 2), dtype=float32) Tensor("model/decoder/mul_8:0", shape=(1, 16, 16, 2), dtype=float32) Tensor("images/bilinear_sampler_2/transform/Reshape_5:0", shape=(1, 32, 32, 3), dtype=float32) Tensor("model/ResizeArea_2:0", shape=(1, 16, 16, 3), dtype=float32)
64 <tf.Variable 'model/encoder/Conv/weights:0' shape=(7, 7, 3, 2) dtype=float32_ref> <tf.Variable 'model/decoder/Conv_17/biases:0' shape=(2,) dtype=float32_ref>
['model/encoder/Conv/weights:0', 'model/encoder/Conv/biases:0', 'model/encoder/Conv_1/weights:0', 'model/encoder/Conv_1/biases:0', 'model/encoder/Conv_2/weights:0', 'model/encoder/Conv_2/biases:0']
number of trainable parameters: 124590
Tensor("Merge/MergeSummary:0", shape=(), dtype=string) 14
step 0 3.567905
3.237238 0.035848 0.327082
<class 'bytes'> True
[[0.14194603 0.14406474 0.14881296]
 [0.15129817 0.1539974  0.15174256]]
""", rtol=1e-05)


def test_deepfm(capsys, tmp_path):
    # ChenglongChen/tensorflow-DeepFM DeepFM.py: FM, deep and both, Adam/Adagrad/Momentum/GD (reduced)
    from tideflow.contrib.layers.python.layers import batch_norm as batch_norm
    import sys, os, tempfile
    from time import time
    import numpy as np
    # ChenglongChen/tensorflow-DeepFM DeepFM.py (reduced: no sklearn base class, metric a rank AUC in numpy, tiny sizes)
    def roc_auc_score(y, p):
        y = np.asarray(y); p = np.asarray(p)
        order = np.argsort(p); r = np.empty(len(p)); r[order] = np.arange(1, len(p) + 1)
        npos = y.sum(); nneg = len(y) - npos
        return (r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)
    class DeepFM(object):
        def __init__(self, feature_size, field_size, embedding_size=8, dropout_fm=[1.0, 1.0], deep_layers=[32, 32], dropout_deep=[0.5, 0.5, 0.5],
                     deep_layers_activation=tf.nn.relu, epoch=10, batch_size=256, learning_rate=0.001, optimizer_type="adam",
                     batch_norm=0, batch_norm_decay=0.995, verbose=False, random_seed=2016, use_fm=True, use_deep=True,
                     l2_reg=0.0, metric=roc_auc_score, greater_is_better=True):
            assert (use_fm or use_deep)
            self.feature_size = feature_size
            self.field_size = field_size
            self.embedding_size = embedding_size
            self.dropout_fm = dropout_fm
            self.deep_layers = deep_layers
            self.dropout_deep = dropout_deep
            self.deep_layers_activation = deep_layers_activation
            self.use_fm = use_fm
            self.use_deep = use_deep
            self.l2_reg = l2_reg
            self.epoch = epoch
            self.batch_size = batch_size
            self.learning_rate = learning_rate
            self.optimizer_type = optimizer_type
            self.batch_norm = batch_norm
            self.batch_norm_decay = batch_norm_decay
            self.verbose = verbose
            self.random_seed = random_seed
            self.metric = metric
            self.greater_is_better = greater_is_better
            self.train_result, self.valid_result = [], []
            self._init_graph()
        def _init_graph(self):
            self.graph = tf.Graph()
            with self.graph.as_default():
                tf.set_random_seed(self.random_seed)
                self.feat_index = tf.placeholder(tf.int32, shape=[None, None], name="feat_index")
                self.feat_value = tf.placeholder(tf.float32, shape=[None, None], name="feat_value")
                self.label = tf.placeholder(tf.float32, shape=[None, 1], name="label")
                self.dropout_keep_fm = tf.placeholder(tf.float32, shape=[None], name="dropout_keep_fm")
                self.dropout_keep_deep = tf.placeholder(tf.float32, shape=[None], name="dropout_keep_deep")
                self.train_phase = tf.placeholder(tf.bool, name="train_phase")
                self.weights = self._initialize_weights()
                self.embeddings = tf.nn.embedding_lookup(self.weights["feature_embeddings"], self.feat_index)
                feat_value = tf.reshape(self.feat_value, shape=[-1, self.field_size, 1])
                self.embeddings = tf.multiply(self.embeddings, feat_value)
                self.y_first_order = tf.nn.embedding_lookup(self.weights["feature_bias"], self.feat_index)
                self.y_first_order = tf.reduce_sum(tf.multiply(self.y_first_order, feat_value), 2)
                self.y_first_order = tf.nn.dropout(self.y_first_order, self.dropout_keep_fm[0])
                self.summed_features_emb = tf.reduce_sum(self.embeddings, 1)
                self.summed_features_emb_square = tf.square(self.summed_features_emb)
                self.squared_features_emb = tf.square(self.embeddings)
                self.squared_sum_features_emb = tf.reduce_sum(self.squared_features_emb, 1)
                self.y_second_order = 0.5 * tf.subtract(self.summed_features_emb_square, self.squared_sum_features_emb)
                self.y_second_order = tf.nn.dropout(self.y_second_order, self.dropout_keep_fm[1])
                self.y_deep = tf.reshape(self.embeddings, shape=[-1, self.field_size * self.embedding_size])
                self.y_deep = tf.nn.dropout(self.y_deep, self.dropout_keep_deep[0])
                for i in range(0, len(self.deep_layers)):
                    self.y_deep = tf.add(tf.matmul(self.y_deep, self.weights["layer_%d" %i]), self.weights["bias_%d"%i])
                    if self.batch_norm:
                        self.y_deep = self.batch_norm_layer(self.y_deep, train_phase=self.train_phase, scope_bn="bn_%d" %i)
                    self.y_deep = self.deep_layers_activation(self.y_deep)
                    self.y_deep = tf.nn.dropout(self.y_deep, self.dropout_keep_deep[1+i])
                if self.use_fm and self.use_deep:
                    concat_input = tf.concat([self.y_first_order, self.y_second_order, self.y_deep], axis=1)
                elif self.use_fm:
                    concat_input = tf.concat([self.y_first_order, self.y_second_order], axis=1)
                elif self.use_deep:
                    concat_input = self.y_deep
                self.out = tf.add(tf.matmul(concat_input, self.weights["concat_projection"]), self.weights["concat_bias"])
                self.out = tf.nn.sigmoid(self.out)
                self.loss = tf.losses.log_loss(self.label, self.out)
                if self.l2_reg > 0:
                    self.loss += tf.contrib.layers.l2_regularizer(self.l2_reg)(self.weights["concat_projection"])
                    if self.use_deep:
                        for i in range(len(self.deep_layers)):
                            self.loss += tf.contrib.layers.l2_regularizer(self.l2_reg)(self.weights["layer_%d"%i])
                if self.optimizer_type == "adam":
                    self.optimizer = tf.train.AdamOptimizer(learning_rate=self.learning_rate, beta1=0.9, beta2=0.999, epsilon=1e-8).minimize(self.loss)
                elif self.optimizer_type == "adagrad":
                    self.optimizer = tf.train.AdagradOptimizer(learning_rate=self.learning_rate, initial_accumulator_value=1e-8).minimize(self.loss)
                elif self.optimizer_type == "gd":
                    self.optimizer = tf.train.GradientDescentOptimizer(learning_rate=self.learning_rate).minimize(self.loss)
                elif self.optimizer_type == "momentum":
                    self.optimizer = tf.train.MomentumOptimizer(learning_rate=self.learning_rate, momentum=0.95).minimize(self.loss)
                self.saver = tf.train.Saver()
                init = tf.global_variables_initializer()
                self.sess = self._init_session()
                self.sess.run(init)
                total_parameters = 0
                for variable in self.weights.values():
                    shape = variable.get_shape()
                    variable_parameters = 1
                    for dim in shape:
                        variable_parameters *= dim.value
                    total_parameters += variable_parameters
                if self.verbose > 0:
                    print("#params: %d" % total_parameters)
        def _init_session(self):
            config = tf.ConfigProto(device_count={"gpu": 0})
            config.gpu_options.allow_growth = True
            return tf.Session(config=config)
        def _initialize_weights(self):
            weights = dict()
            weights["feature_embeddings"] = tf.Variable(tf.random_normal([self.feature_size, self.embedding_size], 0.0, 0.01), name="feature_embeddings")
            weights["feature_bias"] = tf.Variable(tf.random_uniform([self.feature_size, 1], 0.0, 1.0), name="feature_bias")
            num_layer = len(self.deep_layers)
            input_size = self.field_size * self.embedding_size
            glorot = np.sqrt(2.0 / (input_size + self.deep_layers[0]))
            weights["layer_0"] = tf.Variable(np.random.normal(loc=0, scale=glorot, size=(input_size, self.deep_layers[0])), dtype=np.float32)
            weights["bias_0"] = tf.Variable(np.random.normal(loc=0, scale=glorot, size=(1, self.deep_layers[0])), dtype=np.float32)
            for i in range(1, num_layer):
                glorot = np.sqrt(2.0 / (self.deep_layers[i-1] + self.deep_layers[i]))
                weights["layer_%d" % i] = tf.Variable(np.random.normal(loc=0, scale=glorot, size=(self.deep_layers[i-1], self.deep_layers[i])), dtype=np.float32)
                weights["bias_%d" % i] = tf.Variable(np.random.normal(loc=0, scale=glorot, size=(1, self.deep_layers[i])), dtype=np.float32)
            if self.use_fm and self.use_deep:
                input_size = self.field_size + self.embedding_size + self.deep_layers[-1]
            elif self.use_fm:
                input_size = self.field_size + self.embedding_size
            elif self.use_deep:
                input_size = self.deep_layers[-1]
            glorot = np.sqrt(2.0 / (input_size + 1))
            weights["concat_projection"] = tf.Variable(np.random.normal(loc=0, scale=glorot, size=(input_size, 1)), dtype=np.float32)
            weights["concat_bias"] = tf.Variable(tf.constant(0.01), dtype=np.float32)
            return weights
        def batch_norm_layer(self, x, train_phase, scope_bn):
            bn_train = batch_norm(x, decay=self.batch_norm_decay, center=True, scale=True, updates_collections=None, is_training=True, reuse=None, trainable=True, scope=scope_bn)
            bn_inference = batch_norm(x, decay=self.batch_norm_decay, center=True, scale=True, updates_collections=None, is_training=False, reuse=True, trainable=True, scope=scope_bn)
            z = tf.cond(train_phase, lambda: bn_train, lambda: bn_inference)
            return z
        def get_batch(self, Xi, Xv, y, batch_size, index):
            start = index * batch_size
            end = (index+1) * batch_size
            end = end if end < len(y) else len(y)
            return Xi[start:end], Xv[start:end], [[y_] for y_ in y[start:end]]
        def shuffle_in_unison_scary(self, a, b, c):
            rng_state = np.random.get_state()
            np.random.shuffle(a)
            np.random.set_state(rng_state)
            np.random.shuffle(b)
            np.random.set_state(rng_state)
            np.random.shuffle(c)
        def fit_on_batch(self, Xi, Xv, y):
            feed_dict = {self.feat_index: Xi, self.feat_value: Xv, self.label: y, self.dropout_keep_fm: self.dropout_fm,
                         self.dropout_keep_deep: self.dropout_deep, self.train_phase: True}
            loss, opt = self.sess.run((self.loss, self.optimizer), feed_dict=feed_dict)
            return loss
        def fit(self, Xi_train, Xv_train, y_train, Xi_valid=None, Xv_valid=None, y_valid=None, early_stopping=False, refit=False):
            has_valid = Xv_valid is not None
            for epoch in range(self.epoch):
                t1 = time()
                self.shuffle_in_unison_scary(Xi_train, Xv_train, y_train)
                total_batch = int(len(y_train) / self.batch_size)
                for i in range(total_batch):
                    Xi_batch, Xv_batch, y_batch = self.get_batch(Xi_train, Xv_train, y_train, self.batch_size, i)
                    self.fit_on_batch(Xi_batch, Xv_batch, y_batch)
                train_result = self.evaluate(Xi_train, Xv_train, y_train)
                self.train_result.append(train_result)
                if has_valid:
                    valid_result = self.evaluate(Xi_valid, Xv_valid, y_valid)
                    self.valid_result.append(valid_result)
                if self.verbose > 0 and epoch % self.verbose == 0:
                    if has_valid:
                        print("[%d] train-result=%.4f, valid-result=%.4f" % (epoch + 1, train_result, valid_result))
                    else:
                        print("[%d] train-result=%.4f" % (epoch + 1, train_result))
        def predict(self, Xi, Xv):
            dummy_y = [1] * len(Xi)
            batch_index = 0
            Xi_batch, Xv_batch, y_batch = self.get_batch(Xi, Xv, dummy_y, self.batch_size, batch_index)
            y_pred = None
            while len(Xi_batch) > 0:
                num_batch = len(y_batch)
                feed_dict = {self.feat_index: Xi_batch, self.feat_value: Xv_batch, self.label: y_batch,
                             self.dropout_keep_fm: [1.0] * len(self.dropout_fm), self.dropout_keep_deep: [1.0] * len(self.dropout_deep),
                             self.train_phase: False}
                batch_out = self.sess.run(self.out, feed_dict=feed_dict)
                if batch_index == 0:
                    y_pred = np.reshape(batch_out, (num_batch,))
                else:
                    y_pred = np.concatenate((y_pred, np.reshape(batch_out, (num_batch,))))
                batch_index += 1
                Xi_batch, Xv_batch, y_batch = self.get_batch(Xi, Xv, dummy_y, self.batch_size, batch_index)
            return y_pred
        def evaluate(self, Xi, Xv, y):
            y_pred = self.predict(Xi, Xv)
            return self.metric(y, y_pred)

    np.random.seed(2017)
    N, F, M = 60, 5, 30
    Xi = np.random.randint(0, M, size=(N, F)).tolist()
    Xv = np.random.rand(N, F).round(3).tolist()
    y = (np.random.rand(N) > 0.5).astype(int).tolist()
    Xi_v, Xv_v, y_v = Xi[:20], Xv[:20], y[:20]
    for kw in [dict(batch_norm=0, l2_reg=0.01), dict(optimizer_type="adagrad", use_deep=False), dict(optimizer_type="momentum", use_fm=False, dropout_deep=[0.8, 0.8, 0.8]), dict(optimizer_type="gd", batch_size=20)]:
        dfm = DeepFM(feature_size=M, field_size=F, embedding_size=4, deep_layers=[6, 5], epoch=3, learning_rate=0.01, verbose=1, **dict(dict(batch_size=16), **kw))
        dfm.fit(list(Xi), list(Xv), list(y), Xi_v, Xv_v, y_v)
        print(dfm.predict(Xi_v[:4], Xv_v[:4]))
        with dfm.graph.as_default():
            print([v.name for v in tf.global_variables()])
            print(len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)), dfm.loss, dfm.out)
        dfm.sess.close()
    _printed(capsys, """\
#params: 326
[1] train-result=0.5102, valid-result=0.5595
[2] train-result=0.5294, valid-result=0.5595
[3] train-result=0.5566, valid-result=0.6071
[0.4965879  0.53457355 0.57632905 0.52050805]
['feature_embeddings:0', 'feature_bias:0', 'Variable:0', 'Variable_1:0', 'Variable_2:0', 'Variable_3:0', 'Variable_4:0', 'Variable_5:0', 'beta1_power:0', 'beta2_power:0', 'feature_embeddings/Adam:0', 'feature_embeddings/Adam_1:0', 'feature_bias/Adam:0', 'feature_bias/Adam_1:0', 'Variable/Adam:0', 'Variable/Adam_1:0', 'Variable_1/Adam:0', 'Variable_1/Adam_1:0', 'Variable_2/Adam:0', 'Variable_2/Adam_1:0', 'Variable_3/Adam:0', 'Variable_3/Adam_1:0', 'Variable_4/Adam:0', 'Variable_4/Adam_1:0', 'Variable_5/Adam:0', 'Variable_5/Adam_1:0']
0 Tensor("add_5:0", shape=(), dtype=float32) Tensor("Sigmoid:0", shape=(?, 1), dtype=float32)
#params: 321
[1] train-result=0.4887, valid-result=0.2738
[2] train-result=0.4977, valid-result=0.2738
[3] train-result=0.5000, valid-result=0.2738
[0.4658278  0.76346457 0.4703908  0.5471373 ]
['feature_embeddings:0', 'feature_bias:0', 'Variable:0', 'Variable_1:0', 'Variable_2:0', 'Variable_3:0', 'Variable_4:0', 'Variable_5:0', 'feature_embeddings/Adagrad:0', 'feature_bias/Adagrad:0', 'Variable_4/Adagrad:0', 'Variable_5/Adagrad:0']
0 Tensor("log_loss/value:0", shape=(), dtype=float32) Tensor("Sigmoid:0", shape=(?, 1), dtype=float32)
#params: 317
[1] train-result=0.4683, valid-result=0.3810
[2] train-result=0.4853, valid-result=0.4286
[3] train-result=0.5079, valid-result=0.4762
[0.5419199  0.54199064 0.54203916 0.54203886]
['feature_embeddings:0', 'feature_bias:0', 'Variable:0', 'Variable_1:0', 'Variable_2:0', 'Variable_3:0', 'Variable_4:0', 'Variable_5:0', 'feature_embeddings/Momentum:0', 'Variable/Momentum:0', 'Variable_1/Momentum:0', 'Variable_2/Momentum:0', 'Variable_3/Momentum:0', 'Variable_4/Momentum:0', 'Variable_5/Momentum:0']
0 Tensor("log_loss/value:0", shape=(), dtype=float32) Tensor("Sigmoid:0", shape=(?, 1), dtype=float32)
#params: 326
[1] train-result=0.5373, valid-result=0.6071
[2] train-result=0.5362, valid-result=0.6071
[3] train-result=0.5373, valid-result=0.6071
[0.7087314 0.6184546 0.7077444 0.733578 ]
['feature_embeddings:0', 'feature_bias:0', 'Variable:0', 'Variable_1:0', 'Variable_2:0', 'Variable_3:0', 'Variable_4:0', 'Variable_5:0']
0 Tensor("log_loss/value:0", shape=(), dtype=float32) Tensor("Sigmoid:0", shape=(?, 1), dtype=float32)
""")
