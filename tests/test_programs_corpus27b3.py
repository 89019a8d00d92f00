"""Still more TF 1.x programs from individual authors' repositories (carpedm20, yunjey, wiseodd,
hwalsuklee), reduced to standalone forms with small synthetic data (API calls, graph structure
and training loops kept; sizes and step counts shrunk). Each test runs the reduced program and
compares what it prints, line by line, with what TF 1.15 (tensorflow-cpu 1.15.0) printed
running the same program with the same seeds (measured; numbers printed at the precision
shown). The programs keep their authors' code style, hence the file-wide lint exemptions."""
# ruff: noqa: B006, E722, F821, F841, I001, PIE808, RUF059, SIM117, UP004, UP031, UP032

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_dcgan_cond(capsys):
    # carpedm20/DCGAN-tensorflow model.py + ops.py (mnist / y_dim path), reduced
    import os, re, shutil, tempfile
    image_summary = tf.summary.image
    scalar_summary = tf.summary.scalar
    histogram_summary = tf.summary.histogram
    merge_summary = tf.summary.merge
    SummaryWriter = tf.summary.FileWriter
    if "concat_v2" in dir(tf):
      def concat(tensors, axis, *args, **kwargs):
        return tf.concat_v2(tensors, axis, *args, **kwargs)
    else:
      def concat(tensors, axis, *args, **kwargs):
        return tf.concat(tensors, axis, *args, **kwargs)

    class batch_norm(object):
      def __init__(self, epsilon=1e-5, momentum = 0.9, name="batch_norm"):
        with tf.variable_scope(name):
          self.epsilon  = epsilon
          self.momentum = momentum
          self.name = name
      def __call__(self, x, train=True):
        return tf.contrib.layers.batch_norm(x, decay=self.momentum, updates_collections=None,
                          epsilon=self.epsilon, scale=True, is_training=train, scope=self.name)
    def conv_cond_concat(x, y):
      x_shapes = x.get_shape()
      y_shapes = y.get_shape()
      return concat([x, y*tf.ones([x_shapes[0], x_shapes[1], x_shapes[2], y_shapes[3]])], 3)
    def conv2d(input_, output_dim, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="conv2d"):
      with tf.variable_scope(name):
        w = tf.get_variable('w', [k_h, k_w, input_.get_shape()[-1], output_dim],
                  initializer=tf.truncated_normal_initializer(stddev=stddev))
        conv = tf.nn.conv2d(input_, w, strides=[1, d_h, d_w, 1], padding='SAME')
        biases = tf.get_variable('biases', [output_dim], initializer=tf.constant_initializer(0.0))
        conv = tf.reshape(tf.nn.bias_add(conv, biases), conv.get_shape())
        return conv
    def deconv2d(input_, output_shape, k_h=5, k_w=5, d_h=2, d_w=2, stddev=0.02, name="deconv2d", with_w=False):
      with tf.variable_scope(name):
        w = tf.get_variable('w', [k_h, k_w, output_shape[-1], input_.get_shape()[-1]],
                  initializer=tf.random_normal_initializer(stddev=stddev))
        try:
          deconv = tf.nn.conv2d_transpose(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
        except AttributeError:
          deconv = tf.nn.deconv2d(input_, w, output_shape=output_shape, strides=[1, d_h, d_w, 1])
        biases = tf.get_variable('biases', [output_shape[-1]], initializer=tf.constant_initializer(0.0))
        deconv = tf.reshape(tf.nn.bias_add(deconv, biases), deconv.get_shape())
        if with_w:
          return deconv, w, biases
        else:
          return deconv
    def lrelu(x, leak=0.2, name="lrelu"):
      return tf.maximum(x, leak*x)
    def linear(input_, output_size, scope=None, stddev=0.02, bias_start=0.0, with_w=False):
      shape = input_.get_shape().as_list()
      with tf.variable_scope(scope or "Linear"):
        try:
          matrix = tf.get_variable("Matrix", [shape[1], output_size], tf.float32,
                     tf.random_normal_initializer(stddev=stddev))
        except ValueError as err:
            msg = "NOTE: Usually, this is due to an issue with the image dimensions."
            err.args = err.args + (msg,)
            raise
        bias = tf.get_variable("bias", [output_size], initializer=tf.constant_initializer(bias_start))
        if with_w:
          return tf.matmul(input_, matrix) + bias, matrix, bias
        else:
          return tf.matmul(input_, matrix) + bias

    class DCGAN(object):
      def __init__(self, sess, batch_size=4, y_dim=3, z_dim=5, gf_dim=4, df_dim=4, gfc_dim=16, dfc_dim=16, c_dim=1):
        self.sess = sess; self.batch_size = batch_size; self.sample_num = batch_size
        self.output_height = self.output_width = 8
        self.y_dim = y_dim; self.z_dim = z_dim; self.gf_dim = gf_dim; self.df_dim = df_dim
        self.gfc_dim = gfc_dim; self.dfc_dim = dfc_dim; self.c_dim = c_dim
        self.d_bn1 = batch_norm(name='d_bn1')
        self.d_bn2 = batch_norm(name='d_bn2')
        self.g_bn0 = batch_norm(name='g_bn0')
        self.g_bn1 = batch_norm(name='g_bn1')
        self.g_bn2 = batch_norm(name='g_bn2')
        self.build_model()
      def build_model(self):
        self.y = tf.placeholder(tf.float32, [self.batch_size, self.y_dim], name='y')
        image_dims = [self.output_height, self.output_width, self.c_dim]
        self.inputs = tf.placeholder(tf.float32, [self.batch_size] + image_dims, name='real_images')
        inputs = self.inputs
        self.z = tf.placeholder(tf.float32, [None, self.z_dim], name='z')
        self.z_sum = histogram_summary("z", self.z)
        self.G                  = self.generator(self.z, self.y)
        self.D, self.D_logits   = self.discriminator(inputs, self.y, reuse=False)
        self.sampler            = self.sampler(self.z, self.y)
        self.D_, self.D_logits_ = self.discriminator(self.G, self.y, reuse=True)
        self.d_sum = histogram_summary("d", self.D)
        self.d__sum = histogram_summary("d_", self.D_)
        self.G_sum = image_summary("G", self.G)
        def sigmoid_cross_entropy_with_logits(x, y):
          try:
            return tf.nn.sigmoid_cross_entropy_with_logits(logits=x, labels=y)
          except:
            return tf.nn.sigmoid_cross_entropy_with_logits(logits=x, targets=y)
        self.d_loss_real = tf.reduce_mean(sigmoid_cross_entropy_with_logits(self.D_logits, tf.ones_like(self.D)))
        self.d_loss_fake = tf.reduce_mean(sigmoid_cross_entropy_with_logits(self.D_logits_, tf.zeros_like(self.D_)))
        self.g_loss = tf.reduce_mean(sigmoid_cross_entropy_with_logits(self.D_logits_, tf.ones_like(self.D_)))
        self.d_loss_real_sum = scalar_summary("d_loss_real", self.d_loss_real)
        self.d_loss_fake_sum = scalar_summary("d_loss_fake", self.d_loss_fake)
        self.d_loss = self.d_loss_real + self.d_loss_fake
        self.g_loss_sum = scalar_summary("g_loss", self.g_loss)
        self.d_loss_sum = scalar_summary("d_loss", self.d_loss)
        t_vars = tf.trainable_variables()
        self.d_vars = [var for var in t_vars if 'd_' in var.name]
        self.g_vars = [var for var in t_vars if 'g_' in var.name]
        self.saver = tf.train.Saver()
      def discriminator(self, image, y=None, reuse=False):
        with tf.variable_scope("discriminator") as scope:
          if reuse:
            scope.reuse_variables()
          yb = tf.reshape(y, [self.batch_size, 1, 1, self.y_dim])
          x = conv_cond_concat(image, yb)
          h0 = lrelu(conv2d(x, self.c_dim + self.y_dim, name='d_h0_conv'))
          h0 = conv_cond_concat(h0, yb)
          h1 = lrelu(self.d_bn1(conv2d(h0, self.df_dim + self.y_dim, name='d_h1_conv')))
          h1 = tf.reshape(h1, [self.batch_size, -1])
          h1 = concat([h1, y], 1)
          h2 = lrelu(self.d_bn2(linear(h1, self.dfc_dim, 'd_h2_lin')))
          h2 = concat([h2, y], 1)
          h3 = linear(h2, 1, 'd_h3_lin')
          return tf.nn.sigmoid(h3), h3
      def generator(self, z, y=None):
        with tf.variable_scope("generator") as scope:
          s_h, s_w = self.output_height, self.output_width
          s_h2, s_h4 = int(s_h/2), int(s_h/4)
          s_w2, s_w4 = int(s_w/2), int(s_w/4)
          yb = tf.reshape(y, [self.batch_size, 1, 1, self.y_dim])
          z = concat([z, y], 1)
          h0 = tf.nn.relu(self.g_bn0(linear(z, self.gfc_dim, 'g_h0_lin')))
          h0 = concat([h0, y], 1)
          h1 = tf.nn.relu(self.g_bn1(linear(h0, self.gf_dim*2*s_h4*s_w4, 'g_h1_lin')))
          h1 = tf.reshape(h1, [self.batch_size, s_h4, s_w4, self.gf_dim * 2])
          h1 = conv_cond_concat(h1, yb)
          h2 = tf.nn.relu(self.g_bn2(deconv2d(h1, [self.batch_size, s_h2, s_w2, self.gf_dim * 2], name='g_h2')))
          h2 = conv_cond_concat(h2, yb)
          return tf.nn.sigmoid(deconv2d(h2, [self.batch_size, s_h, s_w, self.c_dim], name='g_h3'))
      def sampler(self, z, y=None):
        with tf.variable_scope("generator") as scope:
          scope.reuse_variables()
          s_h, s_w = self.output_height, self.output_width
          s_h2, s_h4 = int(s_h/2), int(s_h/4)
          s_w2, s_w4 = int(s_w/2), int(s_w/4)
          yb = tf.reshape(y, [self.batch_size, 1, 1, self.y_dim])
          z = concat([z, y], 1)
          h0 = tf.nn.relu(self.g_bn0(linear(z, self.gfc_dim, 'g_h0_lin'), train=False))
          h0 = concat([h0, y], 1)
          h1 = tf.nn.relu(self.g_bn1(linear(h0, self.gf_dim*2*s_h4*s_w4, 'g_h1_lin'), train=False))
          h1 = tf.reshape(h1, [self.batch_size, s_h4, s_w4, self.gf_dim * 2])
          h1 = conv_cond_concat(h1, yb)
          h2 = tf.nn.relu(self.g_bn2(deconv2d(h1, [self.batch_size, s_h2, s_w2, self.gf_dim * 2], name='g_h2'), train=False))
          h2 = conv_cond_concat(h2, yb)
          return tf.nn.sigmoid(deconv2d(h2, [self.batch_size, s_h, s_w, self.c_dim], name='g_h3'))
      def load(self, checkpoint_dir):
        print(" [*] Reading checkpoints...")
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

    tf.set_random_seed(0); np.random.seed(0)
    tmp = tempfile.mkdtemp()
    with tf.Session() as sess:
      m = DCGAN(sess)
      print(m.G, m.D_logits, m.sampler)
      print([v.name for v in m.d_vars]); print([v.name for v in m.g_vars])
      print([v.name for v in tf.global_variables() if v not in m.d_vars + m.g_vars])
      d_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(m.d_loss, var_list=m.d_vars)
      g_optim = tf.train.AdamOptimizer(0.0002, beta1=0.5).minimize(m.g_loss, var_list=m.g_vars)
      tf.global_variables_initializer().run()
      m.g_sum = merge_summary([m.z_sum, m.d__sum, m.G_sum, m.d_loss_fake_sum, m.g_loss_sum])
      m.d_sum = merge_summary([m.z_sum, m.d_sum, m.d_loss_real_sum, m.d_loss_sum])
      writer = SummaryWriter(tmp, sess.graph)
      print(m.load(tmp))
      X = np.random.rand(8, 8, 8, 1); yl = np.eye(3)[np.random.randint(0, 3, 8)]
      counter = 1
      for idx in range(2):
        batch_images = X[idx*4:(idx+1)*4]; batch_labels = yl[idx*4:(idx+1)*4]
        batch_z = np.random.uniform(-1, 1, [4, 5]).astype(np.float32)
        _, s = sess.run([d_optim, m.d_sum], feed_dict={m.inputs: batch_images, m.z: batch_z, m.y: batch_labels})
        writer.add_summary(s, counter)
        _, s = sess.run([g_optim, m.g_sum], feed_dict={m.z: batch_z, m.y: batch_labels})
        writer.add_summary(s, counter)
        errD_fake = m.d_loss_fake.eval({m.z: batch_z, m.y: batch_labels})
        errD_real = m.d_loss_real.eval({m.inputs: batch_images, m.y: batch_labels})
        errG = m.g_loss.eval({m.z: batch_z, m.y: batch_labels})
        counter += 1
        print("Epoch: [%2d/%2d] [%4d/%4d] d_loss: %.5f, g_loss: %.5f" % (0, 1, idx, 2, errD_fake+errD_real, errG))
      samples = sess.run(m.sampler, {m.z: batch_z, m.y: batch_labels})
      print(samples.shape, samples.dtype, "%.4f" % samples.mean())
      m.saver.save(sess, os.path.join(tmp, "DCGAN.model"), global_step=counter)
      print(sorted(os.listdir(tmp))[:3], len(os.listdir(tmp)))
      print(m.load(tmp))
    shutil.rmtree(tmp)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["dcgan_cond"]


def test_satt(capsys):
    # yunjey/show-attend-and-tell core/model.py + core/solver.py (features and captions synthetic, sizes shrunk)
    class CaptionGenerator(object):
        def __init__(self, word_to_idx, dim_feature=[196, 512], dim_embed=512, dim_hidden=1024, n_time_step=16,
                      prev2out=True, ctx2out=True, alpha_c=0.0, selector=True, dropout=True):
            self.word_to_idx = word_to_idx
            self.idx_to_word = {i: w for w, i in word_to_idx.items()}
            self.prev2out = prev2out; self.ctx2out = ctx2out; self.alpha_c = alpha_c
            self.selector = selector; self.dropout = dropout
            self.V = len(word_to_idx); self.L = dim_feature[0]; self.D = dim_feature[1]
            self.M = dim_embed; self.H = dim_hidden; self.T = n_time_step
            self._start = word_to_idx['<START>']; self._null = word_to_idx['<NULL>']
            self.weight_initializer = tf.contrib.layers.xavier_initializer()
            self.const_initializer = tf.constant_initializer(0.0)
            self.emb_initializer = tf.random_uniform_initializer(minval=-1.0, maxval=1.0)
            self.features = tf.placeholder(tf.float32, [None, self.L, self.D])
            self.captions = tf.placeholder(tf.int32, [None, self.T + 1])
        def _get_initial_lstm(self, features):
            with tf.variable_scope('initial_lstm'):
                features_mean = tf.reduce_mean(features, 1)
                w_h = tf.get_variable('w_h', [self.D, self.H], initializer=self.weight_initializer)
                b_h = tf.get_variable('b_h', [self.H], initializer=self.const_initializer)
                h = tf.nn.tanh(tf.matmul(features_mean, w_h) + b_h)
                w_c = tf.get_variable('w_c', [self.D, self.H], initializer=self.weight_initializer)
                b_c = tf.get_variable('b_c', [self.H], initializer=self.const_initializer)
                c = tf.nn.tanh(tf.matmul(features_mean, w_c) + b_c)
                return c, h
        def _word_embedding(self, inputs, reuse=False):
            with tf.variable_scope('word_embedding', reuse=reuse):
                w = tf.get_variable('w', [self.V, self.M], initializer=self.emb_initializer)
                return tf.nn.embedding_lookup(w, inputs, name='word_vector')
        def _project_features(self, features):
            with tf.variable_scope('project_features'):
                w = tf.get_variable('w', [self.D, self.D], initializer=self.weight_initializer)
                features_flat = tf.reshape(features, [-1, self.D])
                features_proj = tf.matmul(features_flat, w)
                return tf.reshape(features_proj, [-1, self.L, self.D])
        def _attention_layer(self, features, features_proj, h, reuse=False):
            with tf.variable_scope('attention_layer', reuse=reuse):
                w = tf.get_variable('w', [self.H, self.D], initializer=self.weight_initializer)
                b = tf.get_variable('b', [self.D], initializer=self.const_initializer)
                w_att = tf.get_variable('w_att', [self.D, 1], initializer=self.weight_initializer)
                h_att = tf.nn.relu(features_proj + tf.expand_dims(tf.matmul(h, w), 1) + b)
                out_att = tf.reshape(tf.matmul(tf.reshape(h_att, [-1, self.D]), w_att), [-1, self.L])
                alpha = tf.nn.softmax(out_att)
                context = tf.reduce_sum(features * tf.expand_dims(alpha, 2), 1, name='context')
                return context, alpha
        def _selector(self, context, h, reuse=False):
            with tf.variable_scope('selector', reuse=reuse):
                w = tf.get_variable('w', [self.H, 1], initializer=self.weight_initializer)
                b = tf.get_variable('b', [1], initializer=self.const_initializer)
                beta = tf.nn.sigmoid(tf.matmul(h, w) + b, 'beta')
                context = tf.multiply(beta, context, name='selected_context')
                return context, beta
        def _decode_lstm(self, x, h, context, dropout=False, reuse=False):
            with tf.variable_scope('logits', reuse=reuse):
                w_h = tf.get_variable('w_h', [self.H, self.M], initializer=self.weight_initializer)
                b_h = tf.get_variable('b_h', [self.M], initializer=self.const_initializer)
                w_out = tf.get_variable('w_out', [self.M, self.V], initializer=self.weight_initializer)
                b_out = tf.get_variable('b_out', [self.V], initializer=self.const_initializer)
                if dropout:
                    h = tf.nn.dropout(h, 0.5)
                h_logits = tf.matmul(h, w_h) + b_h
                if self.ctx2out:
                    w_ctx2out = tf.get_variable('w_ctx2out', [self.D, self.M], initializer=self.weight_initializer)
                    h_logits += tf.matmul(context, w_ctx2out)
                if self.prev2out:
                    h_logits += x
                h_logits = tf.nn.tanh(h_logits)
                if dropout:
                    h_logits = tf.nn.dropout(h_logits, 0.5)
                return tf.matmul(h_logits, w_out) + b_out
        def _batch_norm(self, x, mode='train', name=None):
            return tf.contrib.layers.batch_norm(inputs=x, decay=0.95, center=True, scale=True,
                                                is_training=(mode=='train'), updates_collections=None,
                                                scope=(name+'batch_norm'))
        def build_model(self):
            features = self.features
            captions = self.captions
            batch_size = tf.shape(features)[0]
            captions_in = captions[:, :self.T]
            captions_out = captions[:, 1:]
            mask = tf.to_float(tf.not_equal(captions_out, self._null))
            features = self._batch_norm(features, mode='train', name='conv_features')
            c, h = self._get_initial_lstm(features=features)
            x = self._word_embedding(inputs=captions_in)
            features_proj = self._project_features(features=features)
            loss = 0.0
            alpha_list = []
            lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(num_units=self.H)
            for t in range(self.T):
                context, alpha = self._attention_layer(features, features_proj, h, reuse=(t!=0))
                alpha_list.append(alpha)
                if self.selector:
                    context, beta = self._selector(context, h, reuse=(t!=0))
                with tf.variable_scope('lstm', reuse=(t!=0)):
                    _, (c, h) = lstm_cell(inputs=tf.concat( [x[:,t,:], context],1), state=[c, h])
                logits = self._decode_lstm(x[:,t,:], h, context, dropout=self.dropout, reuse=(t!=0))
                loss += tf.reduce_sum(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=captions_out[:, t],logits=logits)*mask[:, t] )
            if self.alpha_c > 0:
                alphas = tf.transpose(tf.stack(alpha_list), (1, 0, 2))
                alphas_all = tf.reduce_sum(alphas, 1)
                alpha_reg = self.alpha_c * tf.reduce_sum((16./196 - alphas_all) ** 2)
                loss += alpha_reg
            return loss / tf.to_float(batch_size)
        def build_sampler(self, max_len=20):
            features = self.features
            features = self._batch_norm(features, mode='test', name='conv_features')
            c, h = self._get_initial_lstm(features=features)
            features_proj = self._project_features(features=features)
            sampled_word_list = []; alpha_list = []; beta_list = []
            lstm_cell = tf.nn.rnn_cell.BasicLSTMCell(num_units=self.H)
            for t in range(max_len):
                if t == 0:
                    x = self._word_embedding(inputs=tf.fill([tf.shape(features)[0]], self._start))
                else:
                    x = self._word_embedding(inputs=sampled_word, reuse=True)
                context, alpha = self._attention_layer(features, features_proj, h, reuse=(t!=0))
                alpha_list.append(alpha)
                if self.selector:
                    context, beta = self._selector(context, h, reuse=(t!=0))
                    beta_list.append(beta)
                with tf.variable_scope('lstm', reuse=(t!=0)):
                    _, (c, h) = lstm_cell(inputs=tf.concat( [x, context],1), state=[c, h])
                logits = self._decode_lstm(x, h, context, reuse=(t!=0))
                sampled_word = tf.argmax(logits, 1)
                sampled_word_list.append(sampled_word)
            alphas = tf.transpose(tf.stack(alpha_list), (1, 0, 2))
            betas = tf.transpose(tf.squeeze(beta_list), (1, 0))
            sampled_captions = tf.transpose(tf.stack(sampled_word_list), (1, 0))
            return alphas, betas, sampled_captions
    tf.set_random_seed(3); np.random.seed(3)
    word_to_idx = {'<NULL>': 0, '<START>': 1, '<END>': 2, 'a': 3, 'dog': 4, 'cat': 5}
    model = CaptionGenerator(word_to_idx, dim_feature=[5, 4], dim_embed=3, dim_hidden=6, n_time_step=4, alpha_c=1.0)
    loss = model.build_model()
    print(loss, len(tf.trainable_variables()), [v.name for v in tf.global_variables()][:5])
    with tf.variable_scope(tf.get_variable_scope()) as scope:
        with tf.name_scope('optimizer'):
            optimizer = tf.train.AdamOptimizer(learning_rate=0.01)
            grads = tf.gradients(loss, tf.trainable_variables())
            grads_and_vars = list(zip(grads, tf.trainable_variables()))
            train_op = optimizer.apply_gradients(grads_and_vars=grads_and_vars)
    print(train_op.name, [type(g).__name__ for g, v in grads_and_vars][:3])
    tf.summary.scalar('batch_loss', loss)
    for var in tf.trainable_variables():
        tf.summary.histogram(var.op.name, var)
    for grad, var in grads_and_vars:
        tf.summary.histogram(var.op.name+'/gradient', grad)
    summary_op = tf.summary.merge_all()
    tf.get_variable_scope().reuse_variables()
    alphas, betas, generated_captions = model.build_sampler(max_len=5)
    print(alphas, betas, generated_captions)
    feats = np.random.rand(3, 5, 4).astype(np.float32)
    caps = np.array([[1, 3, 4, 2, 0], [1, 3, 5, 2, 0], [1, 5, 2, 0, 0]])
    with tf.Session() as sess:
        tf.global_variables_initializer().run()
        saver = tf.train.Saver(max_to_keep=40)
        for i in range(3):
            _, l = sess.run([train_op, loss], {model.features: feats, model.captions: caps})
            # (after the first update TF 1.15 races: its ref reads alias the variables Adam updates)
            print("Train loss at epoch %d & iteration %d (mini-batch): %.2f" % (1, i, l) if i else "%.5f" % l)
        s = sess.run(summary_op, {model.features: feats, model.captions: caps})
        gen = sess.run(generated_captions, {model.features: feats})
        print(gen.shape, gen.dtype, sess.run(betas, {model.features: feats}).shape)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["satt"]


def test_vae(capsys):
    # wiseodd/generative-models VAE/vanilla_vae/vae_tensorflow.py (MNIST -> random data; the
    # positional sigmoid_cross_entropy_with_logits(logits, X) named, as TF 1.15 requires)
    mb_size = 8; z_dim = 3; X_dim = 12; h_dim = 6; lr = 1e-3
    np.random.seed(2); tf.set_random_seed(2)
    data = (np.random.rand(64, X_dim) > 0.5).astype(np.float32)
    def xavier_init(size):
        in_dim = size[0]
        xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
        return tf.random_normal(shape=size, stddev=xavier_stddev)
    X = tf.placeholder(tf.float32, shape=[None, X_dim])
    z = tf.placeholder(tf.float32, shape=[None, z_dim])
    Q_W1 = tf.Variable(xavier_init([X_dim, h_dim])); Q_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    Q_W2_mu = tf.Variable(xavier_init([h_dim, z_dim])); Q_b2_mu = tf.Variable(tf.zeros(shape=[z_dim]))
    Q_W2_sigma = tf.Variable(xavier_init([h_dim, z_dim])); Q_b2_sigma = tf.Variable(tf.zeros(shape=[z_dim]))
    def Q(X):
        h = tf.nn.relu(tf.matmul(X, Q_W1) + Q_b1)
        z_mu = tf.matmul(h, Q_W2_mu) + Q_b2_mu
        z_logvar = tf.matmul(h, Q_W2_sigma) + Q_b2_sigma
        return z_mu, z_logvar
    def sample_z(mu, log_var):
        eps = tf.random_normal(shape=tf.shape(mu))
        return mu + tf.exp(log_var / 2) * eps
    P_W1 = tf.Variable(xavier_init([z_dim, h_dim])); P_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    P_W2 = tf.Variable(xavier_init([h_dim, X_dim])); P_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    def P(z):
        h = tf.nn.relu(tf.matmul(z, P_W1) + P_b1)
        logits = tf.matmul(h, P_W2) + P_b2
        prob = tf.nn.sigmoid(logits)
        return prob, logits
    z_mu, z_logvar = Q(X)
    z_sample = sample_z(z_mu, z_logvar)
    _, logits = P(z_sample)
    X_samples, _ = P(z)
    recon_loss = tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(logits=logits, labels=X), 1)
    kl_loss = 0.5 * tf.reduce_sum(tf.exp(z_logvar) + z_mu**2 - 1. - z_logvar, 1)
    vae_loss = tf.reduce_mean(recon_loss + kl_loss)
    print(z_sample, recon_loss, kl_loss, vae_loss)
    solver = tf.train.AdamOptimizer().minimize(vae_loss)
    sess = tf.Session()
    sess.run(tf.initialize_all_variables())
    for it in range(5):
        X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
        _, loss = sess.run([solver, vae_loss], feed_dict={X: X_mb})
        if it % 2 == 0:
            print('Iter: {}'.format(it))
            print('Loss: {:.4}'. format(loss))
            print()
            samples = sess.run(X_samples, feed_dict={z: np.random.randn(16, z_dim)})
            print(samples.shape, samples.dtype)
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["vae"]


def test_ali_bigan(capsys):
    # wiseodd/generative-models GAN/ali_bigan/ali_bigan_tensorflow.py (MNIST -> random data, sizes shrunk)
    mb_size = 8; X_dim = 12; z_dim = 4; h_dim = 6; lr = 1e-3; d_steps = 3
    np.random.seed(4); tf.set_random_seed(4)
    data = np.random.rand(64, X_dim).astype(np.float32)
    def xavier_init(size):
        in_dim = size[0]
        xavier_stddev = 1. / tf.sqrt(in_dim / 2.)
        return tf.random_normal(shape=size, stddev=xavier_stddev)
    def log(x):
        return tf.log(x + 1e-8)
    X = tf.placeholder(tf.float32, shape=[None, X_dim])
    z = tf.placeholder(tf.float32, shape=[None, z_dim])
    D_W1 = tf.Variable(xavier_init([X_dim + z_dim, h_dim])); D_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    D_W2 = tf.Variable(xavier_init([h_dim, 1])); D_b2 = tf.Variable(tf.zeros(shape=[1]))
    Q_W1 = tf.Variable(xavier_init([X_dim, h_dim])); Q_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    Q_W2 = tf.Variable(xavier_init([h_dim, z_dim])); Q_b2 = tf.Variable(tf.zeros(shape=[z_dim]))
    P_W1 = tf.Variable(xavier_init([z_dim, h_dim])); P_b1 = tf.Variable(tf.zeros(shape=[h_dim]))
    P_W2 = tf.Variable(xavier_init([h_dim, X_dim])); P_b2 = tf.Variable(tf.zeros(shape=[X_dim]))
    theta_G = [Q_W1, Q_W2, Q_b1, Q_b2, P_W1, P_W2, P_b1, P_b2]
    theta_D = [D_W1, D_W2, D_b1, D_b2]
    def sample_z(m, n):
        return np.random.uniform(-1., 1., size=[m, n])
    def Q(X):
        h = tf.nn.relu(tf.matmul(X, Q_W1) + Q_b1)
        return tf.matmul(h, Q_W2) + Q_b2
    def P(z):
        h = tf.nn.relu(tf.matmul(z, P_W1) + P_b1)
        return tf.nn.sigmoid(tf.matmul(h, P_W2) + P_b2)
    def D(X, z):
        inputs = tf.concat([X, z], axis=1)
        h = tf.nn.relu(tf.matmul(inputs, D_W1) + D_b1)
        return tf.nn.sigmoid(tf.matmul(h, D_W2) + D_b2)
    z_hat = Q(X)
    X_hat = P(z)
    D_enc = D(X, z_hat)
    D_gen = D(X_hat, z)
    D_loss = -tf.reduce_mean(log(D_enc) + log(1 - D_gen))
    G_loss = -tf.reduce_mean(log(D_gen) + log(1 - D_enc))
    D_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(D_loss, var_list=theta_D))
    G_solver = (tf.train.AdamOptimizer(learning_rate=lr).minimize(G_loss, var_list=theta_G))
    print(D_enc, D_gen, D_solver.name, G_solver.name, len(tf.global_variables()))
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for it in range(6):
        X_mb = data[(it * mb_size) % 64:(it * mb_size) % 64 + mb_size]
        z_mb = sample_z(mb_size, z_dim)
        _, D_loss_curr = sess.run([D_solver, D_loss], feed_dict={X: X_mb, z: z_mb})
        _, G_loss_curr = sess.run([G_solver, G_loss], feed_dict={X: X_mb, z: z_mb})
        if it % 2 == 0:
            print('Iter: {}; D_loss: {:.4}; G_loss: {:.4}'.format(it, D_loss_curr, G_loss_curr))
            samples = sess.run(X_hat, feed_dict={z: sample_z(16, z_dim)})
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["ali_bigan"]


def test_dragan(capsys):
    # hwalsuklee/tensorflow-generative-model-collections DRAGAN.py + ops.py (MNIST -> random 8x8, sizes shrunk)
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
    class DRAGAN(object):
        model_name = "DRAGAN"
        def __init__(self, sess, epoch, batch_size, z_dim, checkpoint_dir):
            self.sess = sess; self.checkpoint_dir = checkpoint_dir; self.epoch = epoch; self.batch_size = batch_size
            self.input_height = self.input_width = 8; self.z_dim = z_dim; self.c_dim = 1
            self.lambd = 0.25; self.learning_rate = 0.0002; self.beta1 = 0.5
            self.data_X = np.random.rand(8, 8, 8, 1).astype(np.float32)
            self.num_batches = len(self.data_X) // self.batch_size
        def discriminator(self, x, is_training=True, reuse=False):
            with tf.variable_scope("discriminator", reuse=reuse):
                net = lrelu(conv2d(x, 4, 4, 4, 2, 2, name='d_conv1'))
                net = lrelu(bn(conv2d(net, 6, 4, 4, 2, 2, name='d_conv2'), is_training=is_training, scope='d_bn2'))
                net = tf.reshape(net, [self.batch_size, -1])
                net = lrelu(bn(linear(net, 10, scope='d_fc3'), is_training=is_training, scope='d_bn3'))
                out_logit = linear(net, 1, scope='d_fc4')
                out = tf.nn.sigmoid(out_logit)
                return out, out_logit, net
        def generator(self, z, is_training=True, reuse=False):
            with tf.variable_scope("generator", reuse=reuse):
                net = tf.nn.relu(bn(linear(z, 10, scope='g_fc1'), is_training=is_training, scope='g_bn1'))
                net = tf.nn.relu(bn(linear(net, 6 * 2 * 2, scope='g_fc2'), is_training=is_training, scope='g_bn2'))
                net = tf.reshape(net, [self.batch_size, 2, 2, 6])
                net = tf.nn.relu(bn(deconv2d(net, [self.batch_size, 4, 4, 4], 4, 4, 2, 2, name='g_dc3'), is_training=is_training, scope='g_bn3'))
                out = tf.nn.sigmoid(deconv2d(net, [self.batch_size, 8, 8, 1], 4, 4, 2, 2, name='g_dc4'))
                return out
        def get_perturbed_batch(self, minibatch):
            return minibatch + 0.5 * minibatch.std() * np.random.random(minibatch.shape)
        def build_model(self):
            image_dims = [self.input_height, self.input_width, self.c_dim]
            bs = self.batch_size
            self.inputs = tf.placeholder(tf.float32, [bs] + image_dims, name='real_images')
            self.inputs_p = tf.placeholder(tf.float32, [bs] + image_dims, name='real_perturbed_images')
            self.z = tf.placeholder(tf.float32, [bs, self.z_dim], name='z')
            D_real, D_real_logits, _ = self.discriminator(self.inputs, is_training=True, reuse=False)
            G = self.generator(self.z, is_training=True, reuse=False)
            D_fake, D_fake_logits, _ = self.discriminator(G, is_training=True, reuse=True)
            d_loss_real = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_real_logits, labels=tf.ones_like(D_real)))
            d_loss_fake = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_fake_logits, labels=tf.zeros_like(D_fake)))
            self.d_loss = d_loss_real + d_loss_fake
            self.g_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(logits=D_fake_logits, labels=tf.ones_like(D_fake)))
            alpha = tf.random_uniform(shape=self.inputs.get_shape(), minval=0.,maxval=1.)
            differences = self.inputs_p - self.inputs
            interpolates = self.inputs + (alpha * differences)
            _,D_inter,_=self.discriminator(interpolates, is_training=True, reuse=True)
            gradients = tf.gradients(D_inter, [interpolates])[0]
            slopes = tf.sqrt(tf.reduce_sum(tf.square(gradients), reduction_indices=[1]))
            gradient_penalty = tf.reduce_mean((slopes - 1.) ** 2)
            self.d_loss += self.lambd * gradient_penalty
            print(gradients, slopes, gradient_penalty)
            t_vars = tf.trainable_variables()
            d_vars = [var for var in t_vars if 'd_' in var.name]
            g_vars = [var for var in t_vars if 'g_' in var.name]
            print(len(d_vars), len(g_vars), tf.get_collection(tf.GraphKeys.UPDATE_OPS))
            with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
                self.d_optim = tf.train.AdamOptimizer(self.learning_rate*5, beta1=self.beta1).minimize(self.d_loss, var_list=d_vars)
                self.g_optim = tf.train.AdamOptimizer(self.learning_rate*5, beta1=self.beta1).minimize(self.g_loss, var_list=g_vars)
            self.fake_images = self.generator(self.z, is_training=False, reuse=True)
            d_loss_real_sum = tf.summary.scalar("d_loss_real", d_loss_real)
            d_loss_fake_sum = tf.summary.scalar("d_loss_fake", d_loss_fake)
            d_loss_sum = tf.summary.scalar("d_loss", self.d_loss)
            g_loss_sum = tf.summary.scalar("g_loss", self.g_loss)
            self.g_sum = tf.summary.merge([d_loss_fake_sum, g_loss_sum])
            self.d_sum = tf.summary.merge([d_loss_real_sum, d_loss_sum])
        def train(self):
            tf.global_variables_initializer().run()
            self.sample_z = np.random.uniform(-1, 1, size=(self.batch_size , self.z_dim))
            self.saver = tf.train.Saver()
            counter = 1
            for epoch in range(0, self.epoch):
                for idx in range(0, self.num_batches):
                    batch_images = self.data_X[idx*self.batch_size:(idx+1)*self.batch_size]
                    batch_images_p = self.get_perturbed_batch(batch_images)
                    batch_z = np.random.uniform(-1, 1, [self.batch_size, self.z_dim]).astype(np.float32)
                    _, summary_str, d_loss = self.sess.run([self.d_optim, self.d_sum, self.d_loss],
                                                   feed_dict={self.inputs: batch_images, self.inputs_p: batch_images_p, self.z: batch_z})
                    _, summary_str, g_loss = self.sess.run([self.g_optim, self.g_sum, self.g_loss], feed_dict={self.z: batch_z})
                    counter += 1
                    print("Epoch: [%2d] [%4d/%4d] d_loss: %.5f, g_loss: %.5f" % (epoch, idx, self.num_batches, d_loss, g_loss))
            samples = self.sess.run(self.fake_images, feed_dict={self.z: self.sample_z})
            print(samples.shape, "%.4f" % samples.mean())
    np.random.seed(0); tf.set_random_seed(0)
    with tf.Session() as sess:
        gan = DRAGAN(sess, epoch=1, batch_size=4, z_dim=3, checkpoint_dir=tempfile.mkdtemp())
        gan.build_model()
        gan.train()
    assert capsys.readouterr().out.splitlines() == _TF115_PRINTED["dragan"]


# what TF 1.15 printed for each program (measured)
_TF115_PRINTED = {
    "dcgan_cond": [
        'Tensor("generator/Sigmoid:0", shape=(4, 8, 8, 1), dtype=float32) Tensor("discriminator/d_h3_lin/add:0", shape=(4, 1), dtype=float32) Tensor("generator_1/Sigmoid:0", shape=(4, 8, 8, 1), dtype=float32)',
        "['discriminator/d_h0_conv/w:0', 'discriminator/d_h0_conv/biases:0', 'discriminator/d_h1_conv/w:0', 'discriminator/d_h1_conv/biases:0', 'discriminator/d_bn1/beta:0', 'discriminator/d_bn1/gamma:0', 'discriminator/d_h2_lin/Matrix:0', 'discriminator/d_h2_lin/bias:0', 'discriminator/d_bn2/beta:0', 'discriminator/d_bn2/gamma:0', 'discriminator/d_h3_lin/Matrix:0', 'discriminator/d_h3_lin/bias:0']",
        "['generator/g_h0_lin/Matrix:0', 'generator/g_h0_lin/bias:0', 'generator/g_bn0/beta:0', 'generator/g_bn0/gamma:0', 'generator/g_h1_lin/Matrix:0', 'generator/g_h1_lin/bias:0', 'generator/g_bn1/beta:0', 'generator/g_bn1/gamma:0', 'generator/g_h2/w:0', 'generator/g_h2/biases:0', 'generator/g_bn2/beta:0', 'generator/g_bn2/gamma:0', 'generator/g_h3/w:0', 'generator/g_h3/biases:0']",
        "['generator/g_bn0/moving_mean:0', 'generator/g_bn0/moving_variance:0', 'generator/g_bn1/moving_mean:0', 'generator/g_bn1/moving_variance:0', 'generator/g_bn2/moving_mean:0', 'generator/g_bn2/moving_variance:0', 'discriminator/d_bn1/moving_mean:0', 'discriminator/d_bn1/moving_variance:0', 'discriminator/d_bn2/moving_mean:0', 'discriminator/d_bn2/moving_variance:0']",
        ' [*] Reading checkpoints...',
        ' [*] Failed to find a checkpoint',
        '(False, 0)',
        'Epoch: [ 0/ 1] [   0/   2] d_loss: 1.38524, g_loss: 0.69562',
        'Epoch: [ 0/ 1] [   1/   2] d_loss: 1.38582, g_loss: 0.69129',
        '(4, 8, 8, 1) float32 0.4953',
        "['DCGAN.model-3.data-00000-of-00001', 'DCGAN.model-3.index', 'DCGAN.model-3.meta'] 5",
        ' [*] Reading checkpoints...',
        ' [*] Success to read DCGAN.model-3',
        '(True, 3)',
    ],
    "satt": [
        'Tensor("truediv:0", shape=(), dtype=float32) 20 [\'conv_featuresbatch_norm/beta:0\', \'conv_featuresbatch_norm/gamma:0\', \'conv_featuresbatch_norm/moving_mean:0\', \'conv_featuresbatch_norm/moving_variance:0\', \'initial_lstm/w_h:0\']',
        "optimizer/Adam ['Tensor', 'Tensor', 'Tensor']",
        'Tensor("transpose_1:0", shape=(?, 5, 5), dtype=float32) Tensor("transpose_2:0", shape=(?, ?), dtype=float32) Tensor("transpose_3:0", shape=(?, 5), dtype=int64)',
        '11.49665',
        'Train loss at epoch 1 & iteration 1 (mini-batch): 10.20',
        'Train loss at epoch 1 & iteration 2 (mini-batch): 10.25',
        '(3, 5) int64 (3, 5)',
    ],
    "vae": [
        'Tensor("add_3:0", shape=(?, 3), dtype=float32) Tensor("Sum:0", shape=(?,), dtype=float32) Tensor("mul_1:0", shape=(?,), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32)',
        'Iter: 0',
        'Loss: 13.98',
        '',
        '(16, 12) float32',
        'Iter: 2',
        'Loss: 12.26',
        '',
        '(16, 12) float32',
        'Iter: 4',
        'Loss: 18.62',
        '',
        '(16, 12) float32',
    ],
    "ali_bigan": [
        'Tensor("Sigmoid_1:0", shape=(?, 1), dtype=float32) Tensor("Sigmoid_2:0", shape=(?, 1), dtype=float32) Adam Adam_1 40',
        'Iter: 0; D_loss: 2.076; G_loss: 1.238',
        'Iter: 2; D_loss: 1.912; G_loss: 1.328',
        'Iter: 4; D_loss: 1.8; G_loss: 1.388',
    ],
    "dragan": [
        'Tensor("gradients/discriminator_2/d_conv1/Conv2D_grad/Conv2DBackpropInput:0", shape=(4, 8, 8, 1), dtype=float32) Tensor("Sqrt:0", shape=(4, 8, 1), dtype=float32) Tensor("Mean_3:0", shape=(), dtype=float32)',
        '12 14 []',
        'Epoch: [ 0] [   0/   2] d_loss: 1.60985, g_loss: 0.69283',
        'Epoch: [ 0] [   1/   2] d_loss: 1.62638, g_loss: 0.69216',
        '(4, 8, 8, 1) 0.4995',
    ],
}
