"""Public TF 1.x programs (GANs, autoencoders, augmentation, classic MLPs), reduced to small
synthetic data and run as TF 1.15 ran them (the second half of test_programs_corpus26a); each
test names the repository and file it comes from. Expected values were measured with TF 1.15.0
(CPU) running the same reduced program."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# --- PacktPublishing/Hands-on-Convolutional-Neural-Networks-with-Tensorflow:
# Chapter02/xor_example.py (801 of its steps) ---------------------------------------------

def test_packt_xor_log_loss_summaries_and_printed_losses(tmp_path):
    tf.set_random_seed(0)
    XOR_X = [[0, 0], [0, 1], [1, 0], [1, 1]]
    XOR_Y = [[0], [1], [1], [0]]
    x_ = tf.placeholder("float", shape=[None, 2], name='X')
    y_ = tf.placeholder("float", shape=[None, 1], name='Y')
    H1 = tf.layers.dense(inputs=x_, units=4, activation=tf.nn.sigmoid)
    H2 = tf.layers.dense(inputs=H1, units=8, activation=tf.nn.sigmoid)
    H_OUT = tf.layers.dense(inputs=H2, units=1, activation=tf.nn.sigmoid)
    with tf.name_scope("cost") as scope:
        cost = tf.losses.log_loss(labels=y_, predictions=H_OUT)
        tf.summary.scalar("log_loss", cost)
    with tf.name_scope("train") as scope:
        train_step = tf.train.GradientDescentOptimizer(0.1).minimize(cost)
    merged_summary_op = tf.summary.merge_all()
    assert (scope, cost.name, train_step.name, merged_summary_op.name, H_OUT.name) == (
        "train/", "cost/log_loss/value:0", "train/GradientDescent", "Merge/MergeSummary:0",
        "dense_2/Sigmoid:0")
    sess = tf.Session()
    writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    sess.run(tf.global_variables_initializer())
    printed = []
    for step in range(801):
        _, summary = sess.run([train_step, merged_summary_op], feed_dict={x_: XOR_X, y_: XOR_Y})
        if step % 400 == 0:
            loss = sess.run(cost, feed_dict={x_: XOR_X, y_: XOR_Y})
            printed.append(f"Step/Epoch: {step}, Loss: {loss}")
            writer.add_summary(summary, step)
    writer.close()
    sess.close()
    assert printed == ["Step/Epoch: 0, Loss: 0.7073166966438293",  # (TF 1.15's lines)
                       "Step/Epoch: 400, Loss: 0.692339301109314",
                       "Step/Epoch: 800, Loss: 0.6919554471969604"]


# --- james-oldfield/adv-attribute-disentanglement: utils.py gradient_penalty (after LynnHo's
# WGAN-GP) on a small conv critic and conv2d_transpose generator ---------------------------

def test_wgan_gp_penalty_through_conv_gradients():
    def gradient_penalty(real, fake, f):
        def interpolate(a, b):
            shape = tf.concat((tf.shape(a)[0:1], tf.tile([1], [a.shape.ndims - 1])), axis=0)
            alpha = tf.random_uniform(shape=shape, minval=0., maxval=1.)
            inter = a + alpha * (b - a)
            inter.set_shape(a.get_shape().as_list())
            return inter
        x = interpolate(real, fake)
        gradients = tf.gradients(f(x, reuse=True), x)[0]
        slopes = tf.sqrt(tf.reduce_sum(tf.square(gradients), axis=[1, 2, 3]))
        return tf.reduce_mean((slopes - 1.)**2)

    def critic(x, reuse=False):
        with tf.variable_scope('critic', reuse=reuse):
            h = tf.layers.conv2d(x, 4, 3, strides=2, padding='same',
                                 activation=tf.nn.leaky_relu, name='c1')
            h = tf.layers.conv2d(h, 8, 3, strides=2, padding='same',
                                 activation=tf.nn.leaky_relu, name='c2')
            return tf.layers.dense(tf.layers.flatten(h), 1, name='fc')

    def generator(z):
        with tf.variable_scope('gen'):
            h = tf.reshape(tf.layers.dense(z, 2 * 2 * 8, activation=tf.nn.relu), [-1, 2, 2, 8])
            h = tf.layers.conv2d_transpose(h, 4, 3, strides=2, padding='same',
                                           activation=tf.nn.relu)
            return tf.layers.conv2d_transpose(h, 1, 3, strides=2, padding='same',
                                              activation=tf.nn.tanh)

    tf.set_random_seed(2)
    real = tf.placeholder(tf.float32, [4, 8, 8, 1])
    fake = generator(tf.random_normal([4, 6]))
    d_real, d_fake = critic(real), critic(fake, reuse=True)
    gp = gradient_penalty(real, fake, critic)
    d_loss = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real) + 10.0 * gp
    g_loss = -tf.reduce_mean(d_fake)
    d_vars = [v for v in tf.trainable_variables() if v.name.startswith('critic')]
    g_vars = [v for v in tf.trainable_variables() if v.name.startswith('gen')]
    assert len(d_vars) == len(g_vars) == 6 and gp.name == "Mean:0"
    d_opt = tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9).minimize(d_loss, var_list=d_vars)
    g_opt = tf.train.AdamOptimizer(1e-3, beta1=0.5, beta2=0.9).minimize(g_loss, var_list=g_vars)
    X = np.random.RandomState(0).rand(4, 8, 8, 1).astype(np.float32) * 2 - 1
    got = []
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for _ in range(3):
            for _ in range(2):
                _, dl, g = s.run([d_opt, d_loss, gp], {real: X})
            got.append((float(dl), float(g), float(s.run([g_opt, g_loss], {real: X})[1])))
    # (TF 1.15's values. The penalty matches to the bit. A loss fetched with its own training
    # op is TF's only up to ~1e-5: there the ops the gradients do not need (the critic's last
    # BiasAdd, the Means) may run after the Adam updates and read the updated variables, as
    # TF's executor happens to order them -- this program's losses moved by that much in TF
    # when its code was merely restructured)
    want = [(4.334163665771484, 0.42811673879623413, 0.015315274707973003),
            (4.406717777252197, 0.4353000223636627, 0.026020793244242668),
            (4.172120094299316, 0.4098876118659973, 0.015659958124160767)]
    assert [g[1] for g in got] == [w[1] for w in want]
    np.testing.assert_allclose([g[0] for g in got], [w[0] for w in want], rtol=1e-4)
    np.testing.assert_allclose([g[2] for g in got], [w[2] for w in want], rtol=1e-6)


# --- emilemathieu/ImageClassificationChallenge: code/draft_data_augmenting.py (distortions
# of cifar10_input) and aldoawp/cat-dog-classifier: src/core/pipeline/augmentation.py (in a
# Dataset.map) -------------------------------------------------------------------------------

def test_seeded_image_augmentations_match_tfs_draws():
    tf.set_random_seed(3)

    def distort(reshaped_image):
        distorted_image = tf.random_crop(reshaped_image, [6, 6, 3])
        distorted_image = tf.image.random_flip_left_right(distorted_image)
        distorted_image = tf.image.random_brightness(distorted_image, max_delta=63)
        distorted_image = tf.image.random_contrast(distorted_image, lower=0.2, upper=1.8)
        return tf.image.per_image_standardization(distorted_image)

    def augmentation(img):
        img = tf.image.random_flip_left_right(img)
        img = tf.image.random_flip_up_down(img)
        img = tf.image.random_brightness(img, max_delta=0.2)
        return tf.image.random_contrast(img, lower=0.8, upper=1.2)

    imgs = (np.random.RandomState(0).rand(5, 8, 8, 3) * 255).astype(np.float32)
    ph = tf.placeholder(tf.float32, [8, 8, 3])
    d = distort(ph)
    a = augmentation(ph / 255.0)
    assert (d.name, a.name) == ("per_image_standardization/Identity:0",
                                "adjust_contrast_1/Identity:0")
    ds = tf.data.Dataset.from_tensor_slices(imgs).map(lambda im: augmentation(im / 255.0))
    nxt = ds.batch(2).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        got = [s.run([d, a], {ph: imgs[i]}) for i in range(3)]
        batches = [s.run(nxt) for _ in range(2)]
    # (TF 1.15's printed values, rounded as printed)
    np.testing.assert_array_equal(
        [np.round(v[0, :3, 0], 5) for v, _ in got],
        np.float32([[-0.3062, -1.093, -0.94088], [0.1807, -0.07288, 0.83593],
                    [-1.29911, -0.72209, 0.19351]]))
    np.testing.assert_array_equal(
        [np.round(w[:2, 0, 0], 5) for _, w in got],
        np.float32([[0.37951, -0.02562], [0.36241, 0.00807], [0.58973, 0.39324]]))
    assert [float(b.sum()) for b in batches] == [210.80165100097656, 216.997802734375]


# --- PacktPublishing/Hands-on-Convolutional-Neural-Networks-with-Tensorflow:
# Chapter07/models.py CAE_CNN and the singleton CAE_CNN_Encoder (4 and 8 filters, fc1 of 24) --

def _packt_cae(img_size=28, latent_size=20):
    x = tf.placeholder(tf.float32, shape=[None, img_size * img_size], name='IMAGE_IN')
    x_image = tf.reshape(x, [-1, img_size, img_size, 1])
    with tf.name_scope('ENCODER'):
        conv1 = tf.layers.conv2d(inputs=x_image, strides=(2, 2), name='conv1', filters=4,
                                 kernel_size=[5, 5], padding="same", activation=tf.nn.relu)
        conv2 = tf.layers.conv2d(inputs=conv1, strides=(2, 2), name='conv2', filters=8,
                                 kernel_size=[5, 5], padding="same", activation=tf.nn.relu)
    with tf.name_scope('LATENT'):
        enc_out = tf.reshape(conv2, [tf.shape(x)[0], 7 * 7 * 8])
        guessed_z = tf.layers.dense(inputs=enc_out, units=latent_size, activation=None,
                                    name="latent_var")
        tf.summary.histogram("latent", guessed_z)
    with tf.name_scope('DECODER'):
        z_develop = tf.layers.dense(inputs=guessed_z, units=7 * 7 * 8, activation=None,
                                    name="z_matrix")
        z_develop_act = tf.nn.relu(tf.reshape(z_develop, [tf.shape(x)[0], 7, 7, 8]))
        t1 = tf.layers.conv2d_transpose(inputs=z_develop_act, name='dconv1', strides=(2, 2),
                                        kernel_size=[5, 5], filters=4, padding="same",
                                        activation=tf.nn.relu)
        y = tf.layers.conv2d_transpose(inputs=t1, name='dconv2', strides=(2, 2),
                                       kernel_size=[5, 5], filters=1, padding="same",
                                       activation=tf.nn.sigmoid)
        y_flat = tf.reshape(y, [tf.shape(x)[0], 28 * 28])
    return x, y, y_flat


def test_packt_conv_autoencoder_trains_to_tfs_bits():
    tf.set_random_seed(4)
    X = np.random.RandomState(0).rand(6, 784).astype(np.float32)
    x, y, y_flat = _packt_cae()
    loss = tf.reduce_mean(tf.squared_difference(y_flat, x))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    assert (y.name, y_flat.name, loss.name) == ("DECODER/dconv2/Sigmoid:0",
                                                "DECODER/Reshape_1:0", "Mean:0")
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = [float(s.run([train, loss], {x: X})[1]) for _ in range(3)]
        summary = s.run(tf.summary.merge_all(), {x: X})
    # (TF 1.15's values: strided convolutions, transposed ones and their gradients)
    assert got == [0.08376356214284897, 0.08376254141330719, 0.0837615430355072]
    assert len(summary) == 1368


def test_packt_singleton_encoder_classifier():
    class CAE_CNN_Encoder:
        __instance = None

        def __new__(cls):
            if CAE_CNN_Encoder.__instance is None:
                CAE_CNN_Encoder.__instance = object.__new__(cls)
                CAE_CNN_Encoder.__instance.build_graph()
            return CAE_CNN_Encoder.__instance

        def build_graph(self, img_size=28):
            self.x = tf.placeholder(tf.float32, shape=[None, img_size * img_size],
                                    name='IMAGE_IN')
            x_image = tf.reshape(self.x, [-1, img_size, img_size, 1])
            self.y_ = tf.placeholder("float", shape=[None, 10], name='Y')
            with tf.name_scope('ENCODER'):
                conv1 = tf.layers.conv2d(inputs=x_image, strides=(2, 2), name='conv1',
                                         filters=4, kernel_size=[5, 5], padding="same",
                                         activation=tf.nn.relu)
                conv2 = tf.layers.conv2d(inputs=conv1, strides=(2, 2), name='conv2',
                                         filters=8, kernel_size=[5, 5], padding="same",
                                         activation=tf.nn.relu)
            with tf.name_scope('LATENT'):
                enc_out = tf.layers.flatten(conv2, name='flatten_conv2')
                dense = tf.layers.dense(inputs=enc_out, units=24, activation=tf.nn.relu,
                                        name='fc1')
                self.logits = tf.layers.dense(inputs=dense, units=10, name='logits')

    tf.set_random_seed(4)
    enc = CAE_CNN_Encoder()
    assert enc is CAE_CNN_Encoder()
    assert (enc.logits.name, enc.y_.name, enc.x.name) == ("LATENT/logits/BiasAdd:0", "Y:0",
                                                          "IMAGE_IN:0")
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=enc.y_,
                                                                     logits=enc.logits))
    train = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
    rng = np.random.RandomState(0)
    X = rng.rand(6, 784).astype(np.float32)
    Y = np.eye(10, dtype=np.float32)[[1, 3, 5, 7, 9, 0]]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        got = [float(s.run([train, loss], {enc.x: X, enc.y_: Y})[1]) for _ in range(3)]
    # (TF 1.15's values; fc1's 392-long products are two blocks summed in TF's GEMM, a last
    # bit apart from OpenBLAS's)
    np.testing.assert_allclose(got, [2.465017080307007, 2.265073537826538, 2.2131030559539795],
                               rtol=1e-6)


# --- PacktPublishing/Hands-on-Convolutional-Neural-Networks-with-Tensorflow:
# Chapter02/cnn_mnist.py (12x12 inputs, 4 and 8 filters, dense 16; SGD for its Adam) ---------

def test_packt_cnn_mnist_dropout_on_a_bool_placeholder():
    tf.set_random_seed(9)
    x_ = tf.placeholder("float", shape=[None, 144], name='X')
    y_ = tf.placeholder("float", shape=[None, 10], name='Y')
    is_training = tf.placeholder(tf.bool)
    x_image = tf.reshape(x_, [-1, 12, 12, 1])
    conv1 = tf.layers.conv2d(inputs=x_image, filters=4, kernel_size=[5, 5], padding="same",
                             activation=tf.nn.relu)
    pool1 = tf.layers.max_pooling2d(inputs=conv1, pool_size=[2, 2], strides=2)
    conv2 = tf.layers.conv2d(inputs=pool1, filters=8, kernel_size=[5, 5], padding="same",
                             activation=tf.nn.relu)
    pool2 = tf.layers.max_pooling2d(inputs=conv2, pool_size=[2, 2], strides=2)
    dense = tf.layers.dense(inputs=tf.reshape(pool2, [-1, 3 * 3 * 8]), units=16,
                            activation=tf.nn.relu)
    dropout = tf.layers.dropout(inputs=dense, rate=0.4, training=is_training)
    logits = tf.layers.dense(inputs=dropout, units=10)
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=logits,
                                                                           labels=y_))
    train_step = tf.train.GradientDescentOptimizer(0.5).minimize(cross_entropy)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), tf.argmax(y_, 1)),
                                      tf.float32))
    assert (dropout.name, logits.name) == ("dropout/cond/Merge:0", "dense_1/BiasAdd:0")
    gpu_options = tf.GPUOptions(per_process_gpu_memory_fraction=0.333)
    sess = tf.Session(config=tf.ConfigProto(gpu_options=gpu_options))
    sess.run(tf.global_variables_initializer())
    rng = np.random.RandomState(0)
    printed = []
    for i in range(30):
        bx = rng.rand(10, 144).astype(np.float32)
        by = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 10)]
        if i % 10 == 0:
            acc = accuracy.eval(session=sess, feed_dict={x_: bx, y_: by, is_training: True})
            printed.append((f"step {i}, training accuracy {acc:g}", float(
                sess.run(cross_entropy, {x_: bx, y_: by, is_training: True}))))
        train_step.run(session=sess, feed_dict={x_: bx, y_: by, is_training: False})
    last = sess.run([accuracy, cross_entropy], {x_: bx, y_: by, is_training: False})
    sess.close()
    # (TF 1.15's printed values; the dropped-out loss of step 10 is 2 ulps off TF's)
    assert [p[0] for p in printed] == ["step 0, training accuracy 0",
                                       "step 10, training accuracy 0",
                                       "step 20, training accuracy 0"]
    np.testing.assert_allclose([p[1] for p in printed],
                               [2.2981839179992676, 2.371272563934326, 2.3020458221435547],
                               rtol=3e-7)
    assert float(last[0]) == np.float32(0.4) and float(last[1]) == 2.0848562717437744
