"""TF 1.x GAN programs from individual authors' repositories (hwalsuklee's infoGAN and EBGAN,
wiseodd's MAGAN), reduced to standalone forms with small synthetic data (API calls, graph
structure and training loops kept; sizes and step counts shrunk). Each test runs the reduced
program and compares what it prints, line by line, with what TF 1.15 (tensorflow-cpu 1.15.0)
printed running the same program with the same seeds (measured; numbers printed at the
precision shown). The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: F841, I001, PIE808, RUF059, UP004, UP031, UP032

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_infogan(capsys):
    # hwalsuklee/tensorflow-generative-model-collections infoGAN.py + ops.py (MNIST -> random 8x8, sizes shrunk)
    import tempfile
    if "concat_v2" in dir(tf):
        def concat(tensors, axis, *args, **kwargs):
            return tf.concat_v2(tensors, axis, *args, **kwargs)
    else:
        def concat(tensors, axis, *args, **kwargs):
            return tf.concat(tensors, axis, *args, **kwargs)
    def bn(x, is_training, scope):
        return tf.contrib.layers.batch_norm(x, decay=0.9, updates_collections=None, epsilon=1e-5, scale=True,
                                            is_training=is_training, scope=scope)
    def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim], initializer=tf.truncated_normal_initializer(stddev=stddev))
            conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
            biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
            conv = tf.reshape(tf.nn.bias_add(conv, biases), conv.get_shape())
            return conv
    def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, name="deconv2d", stddev=0.02, with_w=False):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]], initializer=tf.random_normal_initializer(stddev=stddev))
            deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
            biases = tf.get_variable('biases', [output_shape[-1]], initializer=tf.constant_initializer(0.0))
            deconv = tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())
            return deconv
    def lrelu(x, leak=0.2, name="lrelu"):
        return tf.maximum(x, leak*x)
    def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0, with_w=False):
        shape = input_.get_shape().as_list()
        with tf.variable_scope(scope or "Linear"):
            matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32, tf.random_normal_initializer(stddev=stddev))
            bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(bias_start))
            return tf.matmul(input_, matrix) + bias
    class infoGAN(object):
        model_name = "infoGAN"
        def __init__(self, sess, epoch, batch_size, z_dim, SUPERVISED=True):
            self.sess = sess; self.epoch = epoch; self.batch_size = batch_size
            self.input_height = self.input_width = 8; self.z_dim = z_dim; self.y_dim = 5; self.c_dim = 1
            self.SUPERVISED = SUPERVISED; self.learning_rate = 0.0002; self.beta1 = 0.5
            self.len_discrete_code = 3; self.len_continuous_code = 2
            self.data_X = np.random.rand(8, 8, 8, 1).astype(np.float32)
            self.data_y = np.eye(3)[np.random.randint(0, 3, 8)]
            self.num_batches = len(self.data_X) // self.batch_size
        def classifier(self, x, is_training=True, reuse=False):
            with tf.variable_scope("classifier", reuse=reuse):
                net = lrelu(bn(linear(x, 6, scope='c_fc1'), is_training=is_training, scope='c_bn1'))
                out_logit = linear(net, self.y_dim, scope='c_fc2')
                out = tf.nn.softmax(out_logit)
                return out, out_logit
        def discriminator(self, x, is_training=True, reuse=False):
            with tf.variable_scope("discriminator", reuse=reuse):
                net = lrelu(conv2d(x, 4, 4, 4, 2, 2, name='d_conv1'))
                net = lrelu(bn(conv2d(net, 6, 4, 4, 2, 2, name='d_conv2'), is_training=is_training, scope='d_bn2'))
                net = tf.reshape(net, [self.batch_size, -1])
                net = lrelu(bn(linear(net, 10, scope='d_fc3'), is_training=is_training, scope='d_bn3'))
                out_logit = linear(net, 1, scope='d_fc4')
                out = tf.nn.sigmoid(out_logit)
                return out, out_logit, net
        def generator(self, z, y, is_training=True, reuse=False):
            with tf.variable_scope("generator", reuse=reuse):
                z = concat([z, y], 1)
                net = tf.nn.relu(bn(linear(z, 10, scope='g_fc1'), is_training=is_training, scope='g_bn1'))
                net = tf.nn.relu(bn(linear(net, 6 * 2 * 2, scope='g_fc2'), is_training=is_training, scope='g_bn2'))
                net = tf.reshape(net, [self.batch_size, 2, 2, 6])
                net = tf.nn.relu(bn(deconv2d(net, [self.batch_size, 4, 4, 4], 4, 4, 2, 2, name='g_dc3'), is_training=is_training, scope='g_bn3'))
                out = tf.nn.sigmoid(deconv2d(net, [self.batch_size, 8, 8, 1], 4, 4, 2, 2, name='g_dc4'))
                return out
        def build_model(self):
            image_dims = [self.input_height, self.input_width, self.c_dim]
            bs = self.batch_size
            self.inputs = tf.placeholder(tf.float32, [bs] + image_dims, name='real_images')
            self.y = tf.placeholder(tf.float32, [bs, self.y_dim], name='y')
            self.z = tf.placeholder(tf.float32, [bs, self.z_dim], name='z')
            D_real, D_real_logits, _ = self.discriminator(self.inputs, is_training=True, reuse=False)
            G = self.generator(self.z, self.y, is_training=True, reuse=False)
            D_fake, D_fake_logits, input4classifier_fake = self.discriminator(G, is_training=True, reuse=True)
            d_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_real_logits, labels=tf.ones_like(D_real)))
            d_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_fake_logits, labels=tf.zeros_like(D_fake)))
            self.d_loss = d_loss_real + d_loss_fake
            self.g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_fake_logits, labels=tf.ones_like(D_fake)))
            code_fake, code_logit_fake = self.classifier(input4classifier_fake, is_training=True, reuse=False)
            disc_code_est = code_logit_fake[:, :self.len_discrete_code]
            disc_code_tg = self.y[:, :self.len_discrete_code]
            q_disc_loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=disc_code_est, labels=disc_code_tg))
            cont_code_est = code_logit_fake[:, self.len_discrete_code:]
            cont_code_tg = self.y[:, self.len_discrete_code:]
            q_cont_loss = tf.reduce_mean(tf.reduce_sum(tf.square(cont_code_tg - cont_code_est), axis=1))
            self.q_loss = q_disc_loss + q_cont_loss
            t_vars = tf.trainable_variables()
            d_vars = [var for var in t_vars if 'd_' in var.name]
            g_vars = [var for var in t_vars if 'g_' in var.name]
            q_vars = [var for var in t_vars if ('d_' in var.name) or ('c_' in var.name) or ('g_' in var.name)]
            print(len(d_vars), len(g_vars), len(q_vars))
            with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
                self.d_optim = tf.train.AdamOptimizer(self.learning_rate, beta1=self.beta1).minimize(self.d_loss, var_list=d_vars)
                self.g_optim = tf.train.AdamOptimizer(self.learning_rate * 5, beta1=self.beta1).minimize(self.g_loss, var_list=g_vars)
                self.q_optim = tf.train.AdamOptimizer(self.learning_rate * 5, beta1=self.beta1).minimize(self.q_loss, var_list=q_vars)
            print(self.d_optim.name, self.g_optim.name, self.q_optim.name, len(tf.global_variables()))
            self.fake_images = self.generator(self.z, self.y, is_training=False, reuse=True)
            d_loss_real_sum = tf.summary.scalar("d_loss_real", d_loss_real)
            d_loss_fake_sum = tf.summary.scalar("d_loss_fake", d_loss_fake)
            d_loss_sum = tf.summary.scalar("d_loss", self.d_loss)
            g_loss_sum = tf.summary.scalar("g_loss", self.g_loss)
            q_loss_sum = tf.summary.scalar("g_loss", self.q_loss)
            q_disc_sum = tf.summary.scalar("q_disc_loss", q_disc_loss)
            q_cont_sum = tf.summary.scalar("q_cont_loss", q_cont_loss)
            print(g_loss_sum.name, q_loss_sum.name)
            self.g_sum = tf.summary.merge([d_loss_fake_sum, g_loss_sum])
            self.d_sum = tf.summary.merge([d_loss_real_sum, d_loss_sum])
            self.q_sum = tf.summary.merge([q_loss_sum, q_disc_sum, q_cont_sum])
        def train(self):
            tf.global_variables_initializer().run()
            self.writer = tf.summary.FileWriter(tempfile.mkdtemp() + '/' + self.model_name, self.sess.graph)
            counter = 1
            for idx in range(0, self.num_batches):
                batch_images = self.data_X[idx*self.batch_size:(idx+1)*self.batch_size]
                batch_labels = self.data_y[idx * self.batch_size:(idx + 1) * self.batch_size]
                batch_codes = np.concatenate((batch_labels, np.random.uniform(-1, 1, size=(self.batch_size, 2))), axis=1)
                batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)
                _, summary_str, d_loss = self.sess.run([self.d_optim, self.d_sum, self.d_loss],
                                                       feed_dict={self.inputs: batch_images, self.y: batch_codes, self.z: batch_z})
                self.writer.add_summary(summary_str, counter)
                # (one step: the G and Q updates of one run both write the generator's variables, a race in TF)
                if idx == 0:
                    _, summary_str_g, g_loss, _, summary_str_q, q_loss = self.sess.run(
                        [self.g_optim, self.g_sum, self.g_loss, self.q_optim, self.q_sum, self.q_loss],
                        feed_dict={self.inputs: batch_images, self.z: batch_z, self.y: batch_codes})
                counter += 1
                print("Epoch: [%2d] [%4d/%4d] d_loss: %.5f, g_loss: %.5f, q_loss: %.5f" % (0, idx, self.num_batches, d_loss, g_loss, q_loss))
    np.random.seed(0); tf.set_random_seed(0)
    with tf.Session() as sess:
        gan = infoGAN(sess, epoch=1, batch_size=4, z_dim=3)
        gan.build_model()
        gan.train()
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["infogan"]


def test_magan(capsys):
    # wiseodd/generative-models GAN/magan/magan_tensorflow.py (MNIST -> random data, sizes shrunk)
    mb_size = 8; X_dim = 12; z_dim = 4; h_dim = 6; lr = 5e-4; n_iter = 3; n_epoch = 3; N = n_iter * mb_size
    np.random.seed(6); tf.set_random_seed(6)
    data = np.random.rand(64, X_dim).astype(np.float32)
    def xavier_init(size):
        in_dim = size[0]
        xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
        return tf.random_normal(shape=size, stddev=xavier_stddev)
    X = tf.placeholder(tf.float32, shape=[None, X_dim])
    z = tf.placeholder(tf.float32, shape=[None, z_dim])
    m = tf.placeholder(tf.float32)
    D_W1 = tf.Variable(xavier_init([X_dim, h_dim])); D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    D_W2 = tf.Variable(xavier_init([h_dim, X_dim])); D_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    G_W1 = tf.Variable(xavier_init([z_dim, h_dim])); G_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    G_W2 = tf.Variable(xavier_init([h_dim, X_dim])); G_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    theta_G = [G_W1, G_W2, G_b1, G_b2]; theta_D = [D_W1, D_W2, D_b1, D_b2]
    def sample_z(m, n):
        return np.random.uniform(-1., 1., size=[m, n])
    def G(z):
        G_h1 = tf.nn.relu(tf.matmul(z, G_W1) + G_b1)
        return tf.nn.sigmoid(tf.matmul(G_h1, G_W2) + G_b2)
    def D(X):
        D_h1 = tf.nn.relu(tf.matmul(X, D_W1) + D_b1)
        X_recon = tf.matmul(D_h1, D_W2) + D_b2
        return tf.reduce_sum((X - X_recon)**2, 1)
    G_sample = G(z)
    D_real = D(X)
    D_fake = D(G_sample)
    D_recon_loss = tf.reduce_mean(D_real)
    D_loss = tf.reduce_mean(D_real + tf.maximum(0., m - D_fake))
    G_loss = tf.reduce_mean(D_fake)
    print(D_loss, m, tf.maximum(0., m - D_fake))
    D_recon_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(D_recon_loss, var_list=theta_D))
    D_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(D_loss, var_list=theta_D))
    G_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(G_loss, var_list=theta_G))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for it in range(4):
        X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
        _, D_recon_loss_curr = sess.run([D_recon_solver, D_recon_loss], feed_dict={X: X_mb})
        if it % 2 == 0:
            print('Iter-{}; Pretrained D loss: {:.4}'.format(it, D_recon_loss_curr))
    margin = sess.run(D_recon_loss, feed_dict={X: data})
    s_z_before = np.inf
    for t in range(n_epoch):
        s_x, s_z = 0., 0.
        for it in range(n_iter):
            X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
            z_mb = sample_z(mb_size, z_dim)
            _, D_loss_curr, D_real_curr = sess.run([D_solver, D_loss, D_real], feed_dict={X: X_mb, z: z_mb, m: margin})
            s_x += np.sum(D_real_curr)
            _, G_loss_curr, D_fake_curr = sess.run([G_solver, G_loss, D_fake], feed_dict={X: X_mb, z: sample_z(mb_size, z_dim), m: margin})
            s_z += np.sum(D_fake_curr)
        if (s_x / N < margin) and (s_x < s_z) and (s_z_before < s_z):
            margin = s_x / N
        s_z_before = s_z
        Ex = s_x / N
        Ez = s_z / N
        L = Ex + np.abs(Ex - Ez)
        print('Epoch: {}; m: {:.4}, L: {:.4}'.format(t, margin, L))
        samples = sess.run(G_sample, feed_dict={z: sample_z(16, z_dim)})
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["magan"]


def test_ebgan(capsys):
    # hwalsuklee/tensorflow-generative-model-collections EBGAN.py + ops.py (MNIST -> random 8x8, sizes shrunk)
    import os, re, tempfile
    if "concat_v2" in dir(tf):
        def concat(tensors, axis, *args, **kwargs):
            return tf.concat_v2(tensors, axis, *args, **kwargs)
    else:
        def concat(tensors, axis, *args, **kwargs):
            return tf.concat(tensors, axis, *args, **kwargs)
    def bn(x, is_training, scope):
        return tf.contrib.layers.batch_norm(x, decay=0.9, updates_collections=None, epsilon=1e-5, scale=True,
                                            is_training=is_training, scope=scope)
    def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim], initializer=tf.truncated_normal_initializer(stddev=stddev))
            conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
            biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
            conv = tf.reshape(tf.nn.bias_add(conv, biases), conv.get_shape())
            return conv
    def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, name="deconv2d", stddev=0.02, with_w=False):
        with tf.variable_scope(name):
            w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]], initializer=tf.random_normal_initializer(stddev=stddev))
            deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
            biases = tf.get_variable('biases', [output_shape[-1]], initializer=tf.constant_initializer(0.0))
            deconv = tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())
            return deconv
    def lrelu(x, leak=0.2, name="lrelu"):
        return tf.maximum(x, leak*x)
    def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0, with_w=False):
        shape = input_.get_shape().as_list()
        with tf.variable_scope(scope or "Linear"):
            matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32, tf.random_normal_initializer(stddev=stddev))
            bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(bias_start))
            return tf.matmul(input_, matrix) + bias
    class EBGAN(object):
        model_name = "EBGAN"
        def __init__(self, sess, epoch, batch_size, z_dim, checkpoint_dir):
            self.sess = sess; self.checkpoint_dir = checkpoint_dir; self.epoch = epoch; self.batch_size = batch_size
            self.input_height = self.input_width = 8; self.z_dim = z_dim; self.c_dim = 1
            self.pt_loss_weight = 0.1
            self.margin = max(1,self.batch_size/64.)
            self.learning_rate = 0.0002; self.beta1 = 0.5
            self.data_X = np.random.rand(8, 8, 8, 1).astype(np.float32)
            self.num_batches = len(self.data_X) // self.batch_size
        def pullaway_loss(self, embeddings):
            norm = tf.sqrt(tf.reduce_sum(tf.square(embeddings), 1, keep_dims=True))
            normalized_embeddings = embeddings / norm
            similarity = tf.matmul(normalized_embeddings, normalized_embeddings, transpose_b=True)
            batch_size = tf.cast(tf.shape(embeddings)[0], tf.float32)
            pt_loss = (tf.reduce_sum(similarity) - batch_size) / (batch_size * (batch_size - 1))
            return pt_loss
        def discriminator(self, x, is_training=True, reuse=False):
            with tf.variable_scope("discriminator", reuse=reuse):
                net = tf.nn.relu(conv2d(x, 4, 4, 4, 2, 2, name='d_conv1'))
                net = tf.reshape(net, [self.batch_size, -1])
                code = (linear(net, 5, scope='d_fc6'))
                net = tf.nn.relu(bn(linear(code, 4 * 4 * 4, scope='d_fc3'), is_training=is_training, scope='d_bn3'))
                net = tf.reshape(net, [self.batch_size, 4, 4, 4])
                out = tf.nn.sigmoid(deconv2d(net, [self.batch_size, 8, 8, 1], 4, 4, 2, 2, name='d_dc5'))
                recon_error = tf.sqrt(2 * tf.nn.l2_loss(out - x)) / self.batch_size
                return out, recon_error, code
        def generator(self, z, is_training=True, reuse=False):
            with tf.variable_scope("generator", reuse=reuse):
                net = tf.nn.relu(bn(linear(z, 10, scope='g_fc1'), is_training=is_training, scope='g_bn1'))
                net = tf.nn.relu(bn(linear(net, 6 * 2 * 2, scope='g_fc2'), is_training=is_training, scope='g_bn2'))
                net = tf.reshape(net, [self.batch_size, 2, 2, 6])
                net = tf.nn.relu(bn(deconv2d(net, [self.batch_size, 4, 4, 4], 4, 4, 2, 2, name='g_dc3'), is_training=is_training, scope='g_bn3'))
                out = tf.nn.sigmoid(deconv2d(net, [self.batch_size, 8, 8, 1], 4, 4, 2, 2, name='g_dc4'))
                return out
        def build_model(self):
            image_dims = [self.input_height, self.input_width, self.c_dim]
            bs = self.batch_size
            self.inputs = tf.placeholder(tf.float32, [bs] + image_dims, name='real_images')
            self.z = tf.placeholder(tf.float32, [bs, self.z_dim], name='z')
            D_real_img, D_real_err, D_real_code = self.discriminator(self.inputs, is_training=True, reuse=False)
            G = self.generator(self.z, is_training=True, reuse=False)
            D_fake_img, D_fake_err, D_fake_code = self.discriminator(G, is_training=True, reuse=True)
            self.d_loss = D_real_err + tf.maximum(self.margin - D_fake_err,0)
            self.g_loss = D_fake_err + self.pt_loss_weight*self.pullaway_loss(D_fake_code)
            print(self.d_loss, self.g_loss, D_fake_code)
            t_vars = tf.trainable_variables()
            d_vars = [var for var in t_vars if 'd_' in var.name]
            g_vars = [var for var in t_vars if 'g_' in var.name]
            with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
                self.d_optim = tf.train.AdamOptimizer(self.learning_rate, beta1=self.beta1).minimize(self.d_loss, var_list=d_vars)
                self.g_optim = tf.train.AdamOptimizer(self.learning_rate*5, beta1=self.beta1).minimize(self.g_loss, var_list=g_vars)
            self.fake_images = self.generator(self.z, is_training=False, reuse=True)
            d_loss_real_sum = tf.summary.scalar("d_error_real", D_real_err)
            d_loss_fake_sum = tf.summary.scalar("d_error_fake", D_fake_err)
            d_loss_sum = tf.summary.scalar("d_loss", self.d_loss)
            g_loss_sum = tf.summary.scalar("g_loss", self.g_loss)
            self.g_sum = tf.summary.merge([d_loss_fake_sum, g_loss_sum])
            self.d_sum = tf.summary.merge([d_loss_real_sum, d_loss_sum])
        @property
        def model_dir(self):
            return "{}_{}_{}_{}".format(self.model_name, 'mnist', self.batch_size, self.z_dim)
        def save(self, checkpoint_dir, step):
            checkpoint_dir = os.path.join(checkpoint_dir, self.model_dir, self.model_name)
            if not os.path.exists(checkpoint_dir):
                os.makedirs(checkpoint_dir)
            self.saver.save(self.sess,os.path.join(checkpoint_dir, self.model_name+'.model'), global_step=step)
        def load(self, checkpoint_dir):
            print(" [*] Reading checkpoints...")
            checkpoint_dir = os.path.join(checkpoint_dir, self.model_dir, self.model_name)
            ckpt = tf.train.get_checkpoint_state(checkpoint_dir)
            if ckpt and ckpt.model_checkpoint_path:
                ckpt_name = os.path.basename(ckpt.model_checkpoint_path)
                self.saver.restore(self.sess, os.path.join(checkpoint_dir, ckpt_name))
                counter = int(next(re.finditer(r"(\d+)(?!.*\d)",ckpt_name)).group(0))
                print(" [*] Success to read {}".format(ckpt_name))
                return True, counter
            else:
                print(" [*] Failed to find a checkpoint")
                return False, 0
        def train(self):
            tf.global_variables_initializer().run()
            self.sample_z = np.random.uniform(-1, 1, size=(self.batch_size , self.z_dim))
            self.saver = tf.train.Saver()
            could_load, checkpoint_counter = self.load(self.checkpoint_dir)
            if could_load:
                start_epoch = (int)(checkpoint_counter / self.num_batches)
                start_batch_id = checkpoint_counter - start_epoch * self.num_batches
                counter = checkpoint_counter
                print(" [*] Load SUCCESS")
            else:
                start_epoch = 0; start_batch_id = 0; counter = 1
                print(" [!] Load failed...")
            for epoch in range(start_epoch, self.epoch):
                for idx in range(start_batch_id, self.num_batches):
                    batch_images = self.data_X[idx*self.batch_size:(idx+1)*self.batch_size]
                    batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)
                    _, summary_str, d_loss = self.sess.run([self.d_optim, self.d_sum, self.d_loss], feed_dict={self.inputs: batch_images, self.z: batch_z})
                    _, summary_str, g_loss = self.sess.run([self.g_optim, self.g_sum, self.g_loss], feed_dict={self.z: batch_z})
                    counter += 1
                    print("Epoch: [%2d] [%4d/%4d] d_loss: %.5f, g_loss: %.5f" % (epoch, idx, self.num_batches, d_loss, g_loss))
                start_batch_id = 0
                self.save(self.checkpoint_dir, counter)
    np.random.seed(1); tf.set_random_seed(1)
    ckdir = tempfile.mkdtemp()
    with tf.Session() as sess:
        gan = EBGAN(sess, epoch=1, batch_size=4, z_dim=3, checkpoint_dir=ckdir)
        gan.build_model()
        gan.train()
    with tf.Graph().as_default(), tf.Session() as sess:
        gan = EBGAN(sess, epoch=2, batch_size=4, z_dim=3, checkpoint_dir=ckdir)
        gan.build_model()
        gan.train()
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["ebgan"]


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "infogan": [
        '12 14 32',
        'Adam Adam_1 Adam_2 162',
        'g_loss:0 g_loss_1:0',
        'Epoch: [ 0] [   0/   2] d_loss: 1.38651, g_loss: 0.69099, q_loss: 1.51453',
        'Epoch: [ 0] [   1/   2] d_loss: 1.38293, g_loss: 0.69099, q_loss: 1.51453',
    ],
    "magan": [
        'Tensor("Mean_1:0", shape=(), dtype=float32) Tensor("Placeholder_2:0", dtype=float32) Tensor("Maximum_1:0", dtype=float32)',
        'Iter-0; Pretrained D loss: 6.031',
        'Iter-2; Pretrained D loss: 5.613',
        'Epoch: 0; m: 6.141, L: 6.807',
        'Epoch: 1; m: 6.141, L: 6.713',
        'Epoch: 2; m: 6.141, L: 6.791',
    ],
    "ebgan": [
        'Tensor("add:0", shape=(), dtype=float32) Tensor("add_1:0", shape=(), dtype=float32) Tensor("discriminator_1/d_fc6/add:0", shape=(4, 5), dtype=float32)',
        ' [*] Reading checkpoints...',
        ' [*] Failed to find a checkpoint',
        ' [!] Load failed...',
        'Epoch: [ 0] [   0/   2] d_loss: 2.17126, g_loss: 0.15342',
        'Epoch: [ 0] [   1/   2] d_loss: 2.09526, g_loss: 0.14277',
        'Tensor("add:0", shape=(), dtype=float32) Tensor("add_1:0", shape=(), dtype=float32) Tensor("discriminator_1/d_fc6/add:0", shape=(4, 5), dtype=float32)',
        ' [*] Reading checkpoints...',
        ' [*] Success to read EBGAN.model-3',
        ' [*] Load SUCCESS',
        'Epoch: [ 1] [   1/   2] d_loss: 2.09839, g_loss: 0.13970',
    ],
}
