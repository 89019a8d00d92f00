"""Patterns from TF 1.x generative-model programs (GAN / VAE collections) run under tideflow.

Each test rebuilds, in a small self-contained form, a pattern one of the swept programs used
and tideflow got wrong.
"""

import numpy as np
import pytest

import tideflow as tf


def _manual_batch_norm(x, scale, offset, mean, variance, eps, training, axes):
    """Batch normalization from elementwise and reduction ops (differentiated op by op)."""
    if training:
        mean, variance = tf.nn.moments(x, axes, keep_dims=True)
    return (x - mean) * tf.rsqrt(variance + eps) * scale + offset


@pytest.mark.parametrize("data_format", ["NHWC", "NCHW"])
@pytest.mark.parametrize("training", [True, False])
def test_gradient_penalty_through_fused_batch_norm(data_format, training):
    # WGAN-GP / DRAGAN critics with batch norm: d/dtheta |d D(x) / dx|^2 differentiates the
    # fused batch-norm gradient op (FusedBatchNormGradV3) once more.
    rng = np.random.RandomState(0)
    xv = rng.randn(4, 3, 3, 2).astype(np.float32)
    wv = rng.randn(4, 3, 3, 2).astype(np.float32)
    if data_format == "NCHW":
        xv, wv = xv.transpose(0, 3, 1, 2).copy(), wv.transpose(0, 3, 1, 2).copy()
    axes = [0, 2, 3] if data_format == "NCHW" else [0, 1, 2]
    bshape = [1, 2, 1, 1] if data_format == "NCHW" else [2]
    results = []
    for fused in (True, False):
        g = tf.Graph()
        with g.as_default():
            x = tf.constant(xv)
            scale = tf.constant([1.5, 0.7])
            offset = tf.constant([0.1, -0.2])
            mean = tf.constant([0.2, -0.1])
            var = tf.constant([1.3, 0.8])
            if fused:
                y = tf.nn.fused_batch_norm(
                    x, scale, offset, mean=None if training else mean,
                    variance=None if training else var, is_training=training,
                    data_format=data_format, epsilon=1e-3)[0]
            else:
                y = _manual_batch_norm(x, tf.reshape(scale, bshape), tf.reshape(offset, bshape),
                                       tf.reshape(mean, bshape), tf.reshape(var, bshape), 1e-3,
                                       training, axes)
            critic = tf.reduce_sum(tf.sin(y) * wv)
            gx, gs = tf.gradients(critic, [x, scale])
            penalty = tf.reduce_sum(tf.square(gx)) + tf.reduce_sum(tf.square(gs))
            second = tf.gradients(penalty, [x, scale, offset])
            assert all(t is not None for t in second)
            with tf.Session() as sess:
                results.append(sess.run(second))
    for fused_grad, manual_grad in zip(*results):
        np.testing.assert_allclose(fused_grad, manual_grad, rtol=2e-3, atol=2e-3)


def test_wgan_gp_critic_with_contrib_batch_norm_trains():
    # the hwalsuklee WGAN_GP.py pattern: conv critic with tf.contrib.layers.batch_norm
    # (updates_collections=None), the gradient penalty on interpolates, Adam on d_ variables
    rng = np.random.RandomState(1)
    with tf.Graph().as_default():
        tf.set_random_seed(3)
        real = tf.placeholder(tf.float32, [8, 6, 6, 1])
        fake = tf.placeholder(tf.float32, [8, 6, 6, 1])

        def critic(x, reuse):
            with tf.variable_scope("discriminator", reuse=reuse):
                w = tf.get_variable("d_w", [3, 3, 1, 4],
                                    initializer=tf.truncated_normal_initializer(stddev=0.3))
                h = tf.nn.conv2d(x, w, [1, 2, 2, 1], "SAME")
                h = tf.contrib.layers.batch_norm(h, decay=0.9, updates_collections=None,
                                                 epsilon=1e-5, scale=True, is_training=True,
                                                 scope="d_bn")
                h = tf.maximum(h, 0.2 * h)
                return tf.layers.dense(tf.reshape(h, [8, -1]), 1, name="d_fc")

        d_real = critic(real, False)
        d_fake = critic(fake, True)
        alpha = tf.random_uniform([8, 1, 1, 1])
        inter = real + alpha * (fake - real)
        grads = tf.gradients(critic(inter, True), [inter])[0]
        slopes = tf.sqrt(tf.reduce_sum(tf.square(grads), axis=[1, 2, 3]))
        penalty = tf.reduce_mean((slopes - 1.0) ** 2)
        d_loss = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real) + 10.0 * penalty
        d_vars = [v for v in tf.trainable_variables() if "d_" in v.name]
        assert len(d_vars) == 5  # conv kernel, bn beta/gamma, dense kernel/bias
        train = tf.train.AdamOptimizer(1e-2).minimize(d_loss, var_list=d_vars)
        feed = {real: rng.rand(8, 6, 6, 1) + 0.5, fake: rng.rand(8, 6, 6, 1) - 0.5}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(d_loss, feed)
            for _ in range(30):
                sess.run(train, feed)
            last = sess.run(d_loss, feed)
    assert np.isfinite(last) and last < first


def _tiny_gan(tfgan):
    def generator_fn(noise):
        return tf.layers.dense(noise, 3, name="g_out")

    def discriminator_fn(data, unused_conditioning):
        return tf.layers.dense(data, 1, name="d_out")

    real = tf.constant(np.random.RandomState(0).rand(8, 3).astype(np.float32))
    model = tfgan.gan_model(generator_fn, discriminator_fn, real_data=real,
                            generator_inputs=tf.random_normal([8, 2], seed=1))
    loss = tfgan.gan_loss(model, generator_loss_fn=tfgan.losses.wasserstein_generator_loss,
                          discriminator_loss_fn=tfgan.losses.wasserstein_discriminator_loss)
    return tfgan.gan_train_ops(model, loss, tf.train.AdamOptimizer(0.01, beta1=0.5),
                               tf.train.AdamOptimizer(0.01, beta1=0.5))


def test_tfgan_sequential_train_steps_counts_updates_and_global_step():
    # Kaggle's TFGAN exercise: train_step_fn = tfgan.get_sequential_train_steps(
    # GANTrainSteps(1, 2)) called by hand in a SingularMonitoredSession loop
    tfgan = tf.contrib.gan
    with tf.Graph().as_default():
        train_ops = _tiny_gan(tfgan)
        global_step = tf.train.get_or_create_global_step()
        step_fn = tfgan.get_sequential_train_steps(tfgan.GANTrainSteps(1, 2))
        powers = {v.op.name: v for v in tf.global_variables() if "beta1_power" in v.name}
        assert len(powers) == 2
        with tf.train.SingularMonitoredSession() as sess:
            for i in range(3):
                loss, should_stop = step_fn(sess, train_ops, global_step, train_step_kwargs={})
                assert np.isfinite(loss) and should_stop is False
                assert sess.run(global_step) == i + 1
            values = sorted(sess.run(list(powers.values())))
    # Adam's beta1 power is beta1 ** (1 + updates): 3 generator and 6 discriminator updates
    np.testing.assert_allclose(values, [0.5 ** 7, 0.5 ** 4], rtol=1e-6)


def test_tfgan_sequential_train_steps_stop_condition():
    tfgan = tf.contrib.gan
    with tf.Graph().as_default():
        train_ops = _tiny_gan(tfgan)
        global_step = tf.train.get_or_create_global_step()
        step_fn = tfgan.get_sequential_train_steps()
        reached = tf.greater_equal(global_step, 2)
        with tf.train.SingularMonitoredSession() as sess:
            stops = [step_fn(sess, train_ops, global_step, {"should_stop": reached})[1]
                     for _ in range(2)]
            assert [bool(s) for s in stops] == [False, True]
            assert step_fn(sess, train_ops, global_step, {"number_of_steps": 3})[1]


def test_tfgan_condition_tensor_from_onehot():
    # conditional generators/discriminators (Kaggle's TFGAN exercise, the TFGAN MNIST example)
    # add a linear map of a learned label embedding to a layer's activations
    tfgan = tf.contrib.gan
    rng = np.random.RandomState(0)
    x = rng.randn(4, 2, 3, 5).astype(np.float32)
    labels = np.eye(6, dtype=np.float32)[[1, 0, 5, 1]]
    with tf.Graph().as_default():
        with tf.variable_scope("Generator"):
            out = tfgan.features.condition_tensor_from_onehot(
                tf.constant(x), tf.constant(labels), embedding_size=7)
        assert out.shape.as_list() == [4, 2, 3, 5]
        names = {v.op.name: v.shape.as_list() for v in tf.trainable_variables()}
        assert names == {"Generator/embedding": [6, 7],
                         "Generator/fully_connected/weights": [7, 30],
                         "Generator/fully_connected/biases": [30]}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            emb, w, b = sess.run([tf.trainable_variables()[i] for i in range(3)])
            got = sess.run(out)
        want = x + ((emb[labels.argmax(1)] @ w) + b).reshape(4, 2, 3, 5)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
        with pytest.raises(ValueError):
            tfgan.features.condition_tensor_from_onehot(tf.constant(x), tf.constant(labels[0]))


def test_tfgan_gan_loss_adds_each_scopes_regularization_loss():
    # the TFGAN MNIST example puts l2 weights_regularizers on both networks: TF's gan_loss adds
    # get_regularization_loss(scope) of the generator / discriminator scope to each loss
    tfgan = tf.contrib.gan
    reg = tf.contrib.layers.l2_regularizer(0.5)
    with tf.Graph().as_default():
        def generator_fn(noise):
            return tf.contrib.layers.fully_connected(noise, 3, activation_fn=None,
                                                     weights_regularizer=reg)

        def discriminator_fn(data, unused):
            return tf.contrib.layers.fully_connected(data, 1, activation_fn=None,
                                                     weights_regularizer=reg)

        model = tfgan.gan_model(generator_fn, discriminator_fn, real_data=tf.ones([4, 3]),
                                generator_inputs=tf.ones([4, 2]))
        loss = tfgan.gan_loss(model)  # Wasserstein losses by default
        g_w = next(v for v in model.generator_variables if "weights" in v.name)
        d_w = next(v for v in model.discriminator_variables if "weights" in v.name)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            (gl, dl), gw, dw, d_gen, d_real = sess.run(
                [loss, g_w, d_w, model.discriminator_gen_outputs,
                 model.discriminator_real_outputs])
    # l2_regularizer(0.5)(w) = 0.5 * sum(w ** 2) / 2
    np.testing.assert_allclose(gl, -d_gen.mean() + 0.25 * (gw ** 2).sum(), rtol=1e-5)
    np.testing.assert_allclose(dl, d_gen.mean() - d_real.mean() + 0.25 * (dw ** 2).sum(),
                               rtol=1e-5)


def test_tfgan_eval_image_grid_and_model_summaries():
    # research/gan/mnist/train.py: tfgan.eval.add_gan_model_image_summaries(model, grid_size)
    # and add_regularization_loss_summaries(model)
    tfgan = tf.contrib.gan
    imgs = np.arange(4 * 2 * 3 * 1, dtype=np.float32).reshape(4, 2, 3, 1)
    with tf.Graph().as_default():
        grid = tfgan.eval.image_grid(tf.constant(imgs), (2, 2), (2, 3), 1)
        assert grid.shape.as_list() == [1, 4, 6, 1]

        def generator_fn(noise):
            return tf.reshape(tf.layers.dense(noise, 6, name="g"), [4, 2, 3, 1])

        def discriminator_fn(data, unused):
            return tf.layers.dense(tf.reshape(data, [4, 6]), 1, name="d")

        model = tfgan.gan_model(generator_fn, discriminator_fn, real_data=tf.constant(imgs),
                                generator_inputs=tf.ones([4, 2]))
        tfgan.eval.add_gan_model_image_summaries(model, grid_size=2)
        tfgan.eval.add_regularization_loss_summaries(model)
        names = [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)]
        assert names[:2] == ["real_data", "generated_data"]
        assert len([n for n in names if n.startswith("generator_variables/")]) == 2
        assert len([n for n in names if n.startswith("discriminator_variables/")]) == 2
        assert names[-2:] == ["generator_regularization_loss",
                              "discriminator_regularization_loss"]
        with tf.Session() as sess:
            got = sess.run(grid)[0, :, :, 0]
    want = np.block([[imgs[0, :, :, 0], imgs[1, :, :, 0]], [imgs[2, :, :, 0], imgs[3, :, :, 0]]])
    np.testing.assert_array_equal(got, want)


def test_tfgan_infogan_model_and_mutual_information_penalty():
    # research/gan/mnist/train.py --gan_type=infogan: tfgan.infogan_model with a discriminator
    # returning (logits, [Categorical, Normal]) and gan_loss(mutual_information_penalty_weight)
    tfgan = tf.contrib.gan
    ds = tf.contrib.distributions
    cat = np.array([0, 2, 1, 2])
    cont = np.array([[0.5], [-0.25], [0.0], [1.0]], np.float32)
    with tf.Graph().as_default():
        def generator_fn(inputs):
            noise, c, u = inputs
            x = tf.concat([noise, tf.one_hot(c, 3), u], axis=1)
            return tf.layers.dense(x, 4, name="g")

        def discriminator_fn(data, unused):
            h = tf.layers.dense(data, 5, name="h")
            q_cat = ds.Categorical(tf.layers.dense(h, 3, name="cat"))
            q_cont = ds.Normal(loc=tf.layers.dense(h, 1, name="mu"), scale=1.0)
            return tf.layers.dense(h, 1, name="logit"), [q_cat, q_cont]

        model = tfgan.infogan_model(generator_fn, discriminator_fn, real_data=tf.ones([4, 4]),
                                    unstructured_generator_inputs=[tf.ones([4, 2])],
                                    structured_generator_inputs=[tf.constant(cat),
                                                                 tf.constant(cont)])
        assert isinstance(model, tfgan.InfoGANModel) and len(model.generator_inputs) == 3
        assert model.discriminator_fn(model.real_data, None).shape.as_list() == [4, 1]
        plain = tfgan.gan_loss(model)
        info = tfgan.gan_loss(model, mutual_information_penalty_weight=2.0)
        q_cat, q_cont = model.predicted_distributions
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            (pg, pd), (ig, id_), logits, mu = sess.run(
                [plain, info, q_cat.logits, q_cont.loc])
    logp_cat = logits[np.arange(4), cat] - np.log(np.exp(logits).sum(1))
    logp_cont = -0.5 * (cont - mu) ** 2 - 0.5 * np.log(2 * np.pi)
    penalty = -(logp_cat.mean() + logp_cont.mean()) / 2
    np.testing.assert_allclose([ig - pg, id_ - pd], [2 * penalty, 2 * penalty], rtol=1e-4)
    with tf.Graph().as_default(), pytest.raises(ValueError, match="InfoGANModel"):
        gan = tfgan.gan_model(lambda z: z, lambda x, c: x, real_data=tf.ones([2, 2]),
                              generator_inputs=tf.ones([2, 2]))
        tfgan.gan_loss(gan, mutual_information_penalty_weight=1.0)


def test_tfgan_gan_estimator_train_evaluate_predict(tmp_path):
    # research/gan/mnist_estimator/train.py: GANEstimator(generator_fn(noise, mode), ...)
    tfgan = tf.contrib.gan
    modes = []

    def generator_fn(noise, mode):
        modes.append(mode)
        return tf.layers.dense(noise, 3, name="g")

    def discriminator_fn(data, unused):
        return tf.layers.dense(data, 1, name="d")

    def train_input_fn():
        real = tf.constant(np.random.RandomState(0).rand(8, 3).astype(np.float32))
        return tf.random_normal([8, 2]), real

    est = tfgan.estimator.GANEstimator(
        model_dir=str(tmp_path), generator_fn=generator_fn, discriminator_fn=discriminator_fn,
        generator_loss_fn=tfgan.losses.wasserstein_generator_loss,
        discriminator_loss_fn=tfgan.losses.wasserstein_discriminator_loss,
        generator_optimizer=tf.train.AdamOptimizer(0.01, 0.5),
        discriminator_optimizer=tf.train.AdamOptimizer(0.01, 0.5),
        add_summaries=tfgan.estimator.SummaryType.VARIABLES)
    assert isinstance(est, tf.estimator.Estimator)
    est.train(train_input_fn, max_steps=3)
    assert est.get_variable_value("global_step") == 3
    metrics = est.evaluate(train_input_fn, steps=1)
    assert {"generator_loss", "discriminator_loss", "loss"} <= set(metrics)
    assert np.isfinite(metrics["generator_loss"])
    preds = est.predict(lambda: tf.random_normal([5, 2]))
    outs = [next(preds) for _ in range(5)]
    assert [o.shape for o in outs] == [(3,)] * 5
    assert modes == [tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL,
                     tf.estimator.ModeKeys.PREDICT]


def test_tfgan_acgan_model_and_auxiliary_classifier_losses():
    # AC-GAN through TFGAN: discriminator returns (logits, class logits); gan_loss with
    # aux_cond_generator_weight / aux_cond_discriminator_weight adds the softmax cross-entropy
    tfgan = tf.contrib.gan
    labels = np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]
    with tf.Graph().as_default():
        def generator_fn(inputs):
            return tf.layers.dense(inputs, 4, name="g")

        def discriminator_fn(data, unused):
            h = tf.layers.dense(data, 5, name="h")
            return tf.layers.dense(h, 1, name="logit"), tf.layers.dense(h, 3, name="cls")

        model = tfgan.acgan_model(generator_fn, discriminator_fn, real_data=tf.ones([4, 4]),
                                  generator_inputs=tf.ones([4, 2]),
                                  one_hot_labels=tf.constant(labels))
        assert isinstance(model, tfgan.ACGANModel)
        plain = tfgan.gan_loss(model)
        ac = tfgan.gan_loss(model, aux_cond_generator_weight=0.5,
                            aux_cond_discriminator_weight=2.0)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            (pg, pd), (ag, ad), real_cls, gen_cls = sess.run(
                [plain, ac, model.discriminator_real_classification_logits,
                 model.discriminator_gen_classification_logits])

        def xent(logits):
            z = logits - logits.max(1, keepdims=True)
            return -(labels * (z - np.log(np.exp(z).sum(1, keepdims=True)))).sum(1).mean()

        np.testing.assert_allclose(ag - pg, 0.5 * xent(gen_cls), rtol=1e-4)
        np.testing.assert_allclose(ad - pd, 2.0 * (xent(gen_cls) + xent(real_cls)), rtol=1e-4)
        gan = tfgan.gan_model(lambda z: z, lambda x, c: x, real_data=tf.ones([2, 2]),
                              generator_inputs=tf.ones([2, 2]))
        with pytest.raises(ValueError, match="ACGANModel"):
            tfgan.gan_loss(gan, aux_cond_generator_weight=1.0)
        with pytest.raises(TypeError, match="ACGAN"):
            tfgan.acgan_model(lambda z: z, lambda x, c: x, real_data=tf.ones([2, 2]),
                              generator_inputs=tf.ones([2, 2]), one_hot_labels=tf.ones([2, 3]),
                              generator_scope="G2", discriminator_scope="D2")
