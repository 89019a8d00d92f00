"""``tf.contrib.gan`` (TFGAN): ``gan_model`` builds generator and discriminator in their
scopes (the discriminator reused on real data; ``infogan_model`` / ``acgan_model`` for InfoGAN's
predicted distributions and AC-GAN's classification logits; ``cyclegan_model`` two of them,
x -> y and y -> x, with the reconstructions, and ``cyclegan_loss`` their losses with the
cycle-consistency term), ``gan_loss`` applies tuple losses
(Wasserstein, minimax, modified, least squares) with the optional gradient penalty, mutual
information penalty and auxiliary classifier terms plus each scope's regularization losses,
``gan_train_ops`` makes one train op per network with its own update ops, and ``gan_train``
runs them with sequential or joint hooks in a MonitoredTrainingSession
(``get_sequential_train_steps`` for Supervisor-era loops). ``features`` conditions tensors on
labels and clips discriminator weights, ``eval`` makes image grids and summaries,
``estimator.GANEstimator`` wraps it all.

The loss functions are in ``tf.contrib.gan.losses`` (taking a model tuple) and
``tf.contrib.gan.losses.wargs`` (taking tensors), as in TF 1.x.
"""

import collections
import types

from tideflow.estimator.estimator import Estimator as _Estimator
from tideflow.framework import ops
from tideflow.train import contrib_training, training_util
from tideflow.train.session_run_hook import SessionRunHook

GANModel = collections.namedtuple("GANModel", (
    "generator_inputs", "generated_data", "generator_variables", "generator_scope",
    "generator_fn", "real_data", "discriminator_real_outputs", "discriminator_gen_outputs",
    "discriminator_variables", "discriminator_scope", "discriminator_fn"))
InfoGANModel = collections.namedtuple("InfoGANModel", GANModel._fields + (
    "structured_generator_inputs", "predicted_distributions", "discriminator_and_aux_fn"))
ACGANModel = collections.namedtuple("ACGANModel", GANModel._fields + (
    "one_hot_labels", "discriminator_real_classification_logits",
    "discriminator_gen_classification_logits"))
CycleGANModel = collections.namedtuple("CycleGANModel", (
    "model_x2y", "model_y2x", "reconstructed_x", "reconstructed_y"))
StarGANModel = collections.namedtuple("StarGANModel", (
    "input_data", "input_data_domain_label", "generated_data", "generated_data_domain_target",
    "reconstructed_data", "discriminator_input_data_source_predication",
    "discriminator_generated_data_source_predication",
    "discriminator_input_data_domain_predication",
    "discriminator_generated_data_domain_predication", "generator_variables", "generator_scope",
    "generator_fn", "discriminator_variables", "discriminator_scope", "discriminator_fn"))
GANLoss = collections.namedtuple("GANLoss", ("generator_loss", "discriminator_loss"))
CycleGANLoss = collections.namedtuple("CycleGANLoss", ("loss_x2y", "loss_y2x"))
GANTrainSteps = collections.namedtuple(
    "GANTrainSteps", ("generator_train_steps", "discriminator_train_steps"))


class GANTrainOps(collections.namedtuple("GANTrainOps", (
        "generator_train_op", "discriminator_train_op", "global_step_inc_op", "train_hooks"))):
    """The two networks' train ops and the global-step increment (``train_hooks`` default
    to none)."""

    def __new__(cls, generator_train_op, discriminator_train_op, global_step_inc_op,
                train_hooks=()):
        return super().__new__(cls, generator_train_op, discriminator_train_op,
                               global_step_inc_op, train_hooks)


def _tf():
    import tideflow

    return tideflow


def _convert(x):
    if isinstance(x, (list, tuple)):
        return [ops.convert_to_tensor(v) for v in x]
    if isinstance(x, dict):
        return {k: ops.convert_to_tensor(v) for k, v in x.items()}
    return ops.convert_to_tensor(x)


def _trainable(scope):
    return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope.name + "/")


def gan_model(generator_fn, discriminator_fn, real_data, generator_inputs,
              generator_scope="Generator", discriminator_scope="Discriminator",
              check_shapes=True):
    """Builds ``generator_fn(generator_inputs)`` and the discriminator on generated and real
    data (sharing variables); returns a ``GANModel``."""
    vs = _tf().variable_scope
    with vs(generator_scope) as gen_scope:
        generator_inputs = _convert(generator_inputs)
        generated_data = generator_fn(generator_inputs)
    with vs(discriminator_scope) as dis_scope:
        discriminator_gen_outputs = discriminator_fn(generated_data, generator_inputs)
    with vs(dis_scope, reuse=True):
        real_data = _convert(real_data)
        discriminator_real_outputs = discriminator_fn(real_data, generator_inputs)
    if check_shapes and not generated_data.shape.is_compatible_with(real_data.shape):
        raise ValueError(f"Generator output shape ({generated_data.shape}) must be the same "
                         f"shape as real data ({real_data.shape}).")
    return GANModel(generator_inputs, generated_data, _trainable(gen_scope), gen_scope,
                    generator_fn, real_data, discriminator_real_outputs,
                    discriminator_gen_outputs, _trainable(dis_scope), dis_scope,
                    discriminator_fn)


def cyclegan_model(generator_fn, discriminator_fn, data_x, data_y, generator_scope="Generator",
                   discriminator_scope="Discriminator", model_x2y_scope="ModelX2Y",
                   model_y2x_scope="ModelY2X", check_shapes=True):
    """Two GANModels, x -> y (in ``model_x2y_scope``) and y -> x (in ``model_y2x_scope``),
    each with its own generator and discriminator, and each input carried through both
    generators (the other model's generator reused): a ``CycleGANModel``."""
    vs = _tf().variable_scope

    def partial(inputs, targets):
        return gan_model(generator_fn, discriminator_fn, real_data=targets,
                         generator_inputs=inputs, generator_scope=generator_scope,
                         discriminator_scope=discriminator_scope, check_shapes=check_shapes)

    with vs(model_x2y_scope):
        model_x2y = partial(data_x, data_y)
    with vs(model_y2x_scope):
        model_y2x = partial(data_y, data_x)
    with vs(model_y2x.generator_scope, reuse=True):
        reconstructed_x = model_y2x.generator_fn(model_x2y.generated_data)
    with vs(model_x2y.generator_scope, reuse=True):
        reconstructed_y = model_x2y.generator_fn(model_y2x.generated_data)
    return CycleGANModel(model_x2y, model_y2x, reconstructed_x, reconstructed_y)


def stargan_model(generator_fn, discriminator_fn, input_data, input_data_domain_label,
                  generator_scope="Generator", discriminator_scope="Discriminator"):
    """StarGAN (https://arxiv.org/abs/1711.09020): ``generator_fn(data, target_domains)``
    translates the inputs to random one-hot target domains and back to their own labels
    (``input_data_domain_label`` [batch, domains], fully defined); ``discriminator_fn(data,
    num_domains)`` returns (source logits, domain logits). Lists of inputs are concatenated
    along the batch. Returns a ``StarGANModel``."""
    tf = _tf()
    vs = tf.variable_scope

    def joined(x):
        x = _convert(x)
        return tf.concat(list(x), 0) if isinstance(x, (list, tuple)) else x

    input_data = joined(input_data)
    labels = joined(input_data_domain_label)
    labels.shape.assert_has_rank(2)
    labels.shape.assert_is_fully_defined()
    batch_size, num_domains = labels.shape.as_list()
    with vs(generator_scope) as gen_scope:
        target = tf.one_hot(tf.random_uniform([batch_size], 0, num_domains, dtype=tf.int32),
                            num_domains)
        generated = generator_fn(input_data, target)
    with vs(gen_scope, reuse=True):
        reconstructed = generator_fn(generated, labels)
    with vs(discriminator_scope) as dis_scope:
        gen_source, gen_domain = discriminator_fn(generated, num_domains)
    with vs(dis_scope, reuse=True):
        input_source, input_domain = discriminator_fn(input_data, num_domains)
    return StarGANModel(
        input_data=input_data, input_data_domain_label=labels, generated_data=generated,
        generated_data_domain_target=target, reconstructed_data=reconstructed,
        discriminator_input_data_source_predication=input_source,
        discriminator_generated_data_source_predication=gen_source,
        discriminator_input_data_domain_predication=input_domain,
        discriminator_generated_data_domain_predication=gen_domain,
        generator_variables=_trainable(gen_scope), generator_scope=gen_scope,
        generator_fn=generator_fn, discriminator_variables=_trainable(dis_scope),
        discriminator_scope=dis_scope, discriminator_fn=discriminator_fn)


def _as_list(x):
    x = _convert(x)
    return list(x) if isinstance(x, (list, tuple)) else [x]


def infogan_model(generator_fn, discriminator_fn, real_data, unstructured_generator_inputs,
                  structured_generator_inputs, generator_scope="Generator",
                  discriminator_scope="Discriminator"):
    """An InfoGAN (https://arxiv.org/abs/1606.03657): the generator takes the unstructured
    then the structured inputs (one list); ``discriminator_fn(data, generator_inputs)``
    returns ``(logits, distributions)``, one distribution predicted per structured input.
    Returns an ``InfoGANModel`` whose ``discriminator_fn`` returns the logits only."""
    vs = _tf().variable_scope
    with vs(generator_scope) as gen_scope:
        unstructured = _as_list(unstructured_generator_inputs)
        structured = _as_list(structured_generator_inputs)
        generator_inputs = unstructured + structured
        generated_data = generator_fn(generator_inputs)
    with vs(discriminator_scope) as dis_scope:
        dis_gen_outputs, predicted_distributions = discriminator_fn(generated_data,
                                                                    generator_inputs)
    if not isinstance(predicted_distributions, (list, tuple)):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError
            "`predicted_distributions` must be a list. Instead, found "
                         f"{type(predicted_distributions)}.")
    if len(predicted_distributions) != len(structured):
        raise ValueError(f"Length of `predicted_distributions` {len(predicted_distributions)} "
                         "must be the same as the length of structured noise "
                         f"{len(structured)}.")
    with vs(dis_scope, reuse=True):
        real_data = _convert(real_data)
        dis_real_outputs, _ = discriminator_fn(real_data, generator_inputs)
    if not generated_data.shape.is_compatible_with(real_data.shape):
        raise ValueError(f"Generator output shape ({generated_data.shape}) must be the same "
                         f"shape as real data ({real_data.shape}).")
    return InfoGANModel(generator_inputs, generated_data, _trainable(gen_scope), gen_scope,
                        generator_fn, real_data, dis_real_outputs, dis_gen_outputs,
                        _trainable(dis_scope), dis_scope,
                        lambda x, y: discriminator_fn(x, y)[0],  # the GANModel interface
                        structured, list(predicted_distributions), discriminator_fn)


def _acgan_outputs(outputs):
    try:
        logits, classification_logits = outputs
    except (TypeError, ValueError):
        raise TypeError("A discriminator function for ACGAN must output a tuple consisting of "
                        "(discrimination logits, classification logits).") from None
    return logits, classification_logits


def acgan_model(generator_fn, discriminator_fn, real_data, generator_inputs, one_hot_labels,
                generator_scope="Generator", discriminator_scope="Discriminator",
                check_shapes=True):
    """An AC-GAN (https://arxiv.org/abs/1610.09585): ``discriminator_fn`` returns
    ``(logits, classification_logits)``; returns an ``ACGANModel`` (a GANModel plus the labels
    and both classification logits)."""
    vs = _tf().variable_scope
    with vs(generator_scope) as gen_scope:
        generator_inputs = _convert(generator_inputs)
        generated_data = generator_fn(generator_inputs)
    with vs(discriminator_scope) as dis_scope:
        dis_gen, dis_gen_cls = _acgan_outputs(discriminator_fn(generated_data,
                                                               generator_inputs))
    with vs(dis_scope, reuse=True):
        real_data = _convert(real_data)
        dis_real, dis_real_cls = _acgan_outputs(discriminator_fn(real_data, generator_inputs))
    if check_shapes and not generated_data.shape.is_compatible_with(real_data.shape):
        raise ValueError(f"Generator output shape ({generated_data.shape}) must be the same "
                         f"shape as real data ({real_data.shape}).")
    return ACGANModel(generator_inputs, generated_data, _trainable(gen_scope), gen_scope,
                      generator_fn, real_data, dis_real, dis_gen, _trainable(dis_scope),
                      dis_scope, discriminator_fn, one_hot_labels, dis_real_cls, dis_gen_cls)


# ------------------------------------------------------------------------------------------
# losses on tensors (tfgan.losses.wargs)
# ------------------------------------------------------------------------------------------


def _reduction():
    return _tf().losses.Reduction.SUM_BY_NONZERO_WEIGHTS


def _scalar_summary(name, value, add_summaries):
    if add_summaries:
        _tf().summary.scalar(name, value)


def wasserstein_generator_loss(discriminator_gen_outputs, weights=1.0, scope=None,
                               loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                               add_summaries=False):
    """``-mean(D(G(z)))``."""
    tf = _tf()
    with ops.name_scope(scope, "generator_wasserstein_loss", (discriminator_gen_outputs,)):
        outputs = tf.to_float(discriminator_gen_outputs)
        loss = tf.losses.compute_weighted_loss(-outputs, weights, scope, loss_collection,
                                               reduction or _reduction())
        _scalar_summary("generator_wass_loss", loss, add_summaries)
    return loss


def wasserstein_discriminator_loss(discriminator_real_outputs, discriminator_gen_outputs,
                                   real_weights=1.0, generated_weights=1.0, scope=None,
                                   loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                                   add_summaries=False):
    """``mean(D(G(z))) - mean(D(x))``."""
    tf = _tf()
    reduction = reduction or _reduction()
    with ops.name_scope(scope, "discriminator_wasserstein_loss",
                        (discriminator_real_outputs, discriminator_gen_outputs)):
        real = tf.to_float(discriminator_real_outputs)
        gen = tf.to_float(discriminator_gen_outputs)
        on_gen = tf.losses.compute_weighted_loss(gen, generated_weights, scope,
                                                 loss_collection=None, reduction=reduction)
        on_real = tf.losses.compute_weighted_loss(real, real_weights, scope,
                                                  loss_collection=None, reduction=reduction)
        loss = on_gen - on_real
        if loss_collection:
            ops.add_to_collection(loss_collection, loss)
        _scalar_summary("discriminator_gen_wass_loss", on_gen, add_summaries)
        _scalar_summary("discriminator_real_wass_loss", on_real, add_summaries)
        _scalar_summary("discriminator_wass_loss", loss, add_summaries)
    return loss


def minimax_discriminator_loss(discriminator_real_outputs, discriminator_gen_outputs,
                               label_smoothing=0.25, real_weights=1.0, generated_weights=1.0,
                               scope=None, loss_collection=ops.GraphKeys.LOSSES,
                               reduction=None, add_summaries=False):
    """Sigmoid cross entropy of real outputs against (smoothed) ones plus generated outputs
    against zeros."""
    tf = _tf()
    reduction = reduction or _reduction()
    with ops.name_scope(scope, "discriminator_minimax_loss",
                        (discriminator_real_outputs, discriminator_gen_outputs)) as sc:
        on_real = tf.losses.sigmoid_cross_entropy(
            tf.ones_like(discriminator_real_outputs), discriminator_real_outputs,
            real_weights, label_smoothing, sc, loss_collection=None, reduction=reduction)
        on_gen = tf.losses.sigmoid_cross_entropy(
            tf.zeros_like(discriminator_gen_outputs), discriminator_gen_outputs,
            generated_weights, scope=sc, loss_collection=None, reduction=reduction)
        loss = on_real + on_gen
        if loss_collection:
            ops.add_to_collection(loss_collection, loss)
        _scalar_summary("discriminator_gen_minimax_loss", on_gen, add_summaries)
        _scalar_summary("discriminator_real_minimax_loss", on_real, add_summaries)
        _scalar_summary("discriminator_minimax_loss", loss, add_summaries)
    return loss


def minimax_generator_loss(discriminator_gen_outputs, label_smoothing=0.0, weights=1.0,
                           scope=None, loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                           add_summaries=False):
    """The negated discriminator loss on generated data (the original, saturating one)."""
    tf = _tf()
    with ops.name_scope(scope, "generator_minimax_loss") as sc:
        loss = -minimax_discriminator_loss(
            tf.ones_like(discriminator_gen_outputs), discriminator_gen_outputs,
            label_smoothing, weights, weights, sc, loss_collection, reduction,
            add_summaries=False)
        _scalar_summary("generator_minimax_loss", loss, add_summaries)
    return loss


def modified_generator_loss(discriminator_gen_outputs, label_smoothing=0.0, weights=1.0,
                            scope=None, loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                            add_summaries=False):
    """Sigmoid cross entropy of generated outputs against ones (non-saturating)."""
    tf = _tf()
    with ops.name_scope(scope, "generator_modified_loss", [discriminator_gen_outputs]):
        loss = tf.losses.sigmoid_cross_entropy(
            tf.ones_like(discriminator_gen_outputs), discriminator_gen_outputs, weights,
            label_smoothing, scope, loss_collection, reduction or _reduction())
        _scalar_summary("generator_modified_loss", loss, add_summaries)
    return loss


modified_discriminator_loss = minimax_discriminator_loss


def least_squares_generator_loss(discriminator_gen_outputs, real_label=1, weights=1.0,
                                 scope=None, loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=None, add_summaries=False):
    """``mean((D(G(z)) - real_label)^2) / 2``."""
    tf = _tf()
    with ops.name_scope(scope, "lsq_generator_loss", (discriminator_gen_outputs, real_label)):
        outputs = tf.to_float(discriminator_gen_outputs)
        loss = tf.squared_difference(outputs, real_label) / 2.0
        loss = tf.losses.compute_weighted_loss(loss, weights, scope, loss_collection,
                                               reduction or _reduction())
        _scalar_summary("generator_lsq_loss", loss, add_summaries)
    return loss


def least_squares_discriminator_loss(discriminator_real_outputs, discriminator_gen_outputs,
                                     real_label=1, fake_label=0, real_weights=1.0,
                                     generated_weights=1.0, scope=None,
                                     loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                                     add_summaries=False):
    """``mean((D(x) - real_label)^2) / 2 + mean((D(G(z)) - fake_label)^2) / 2``."""
    tf = _tf()
    reduction = reduction or _reduction()
    with ops.name_scope(scope, "lsq_discriminator_loss",
                        (discriminator_gen_outputs, real_label)):
        real = tf.to_float(discriminator_real_outputs)
        gen = tf.to_float(discriminator_gen_outputs)
        on_real = tf.losses.compute_weighted_loss(
            tf.squared_difference(real, real_label) / 2.0, real_weights, scope,
            loss_collection=None, reduction=reduction)
        on_gen = tf.losses.compute_weighted_loss(
            tf.squared_difference(gen, fake_label) / 2.0, generated_weights, scope,
            loss_collection=None, reduction=reduction)
        loss = on_real + on_gen
        if loss_collection:
            ops.add_to_collection(loss_collection, loss)
        _scalar_summary("discriminator_gen_lsq_loss", on_gen, add_summaries)
        _scalar_summary("discriminator_real_lsq_loss", on_real, add_summaries)
        _scalar_summary("discriminator_lsq_loss", loss, add_summaries)
    return loss


def wasserstein_gradient_penalty(real_data, generated_data, generator_inputs,
                                 discriminator_fn, discriminator_scope, epsilon=1e-10,
                                 target=1.0, one_sided=False, weights=1.0, scope=None,
                                 loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                                 add_summaries=False):
    """WGAN-GP: ``mean((sqrt(|grad D(interp)|^2 + epsilon) / target - 1)^2)`` at random
    interpolates of real and generated data."""
    tf = _tf()
    with ops.name_scope(scope, "wasserstein_gradient_penalty",
                        (real_data, generated_data)) as sc:
        real_data = ops.convert_to_tensor(real_data)
        generated_data = ops.convert_to_tensor(generated_data)
        if real_data.shape.ndims is None:
            raise ValueError("`real_data` can't have unknown rank.")
        if generated_data.shape.ndims is None:
            raise ValueError("`generated_data` can't have unknown rank.")
        differences = generated_data - real_data
        batch_size = differences.shape.dims[0].value or tf.shape(differences)[0]
        alpha = tf.random_uniform(shape=[batch_size] + [1] * (differences.shape.ndims - 1))
        interpolates = real_data + alpha * differences
        with ops.name_scope(None), tf.variable_scope(discriminator_scope, "gpenalty_dscope",
                                                     reuse=tf.AUTO_REUSE):
            disc_interpolates = discriminator_fn(interpolates, generator_inputs)
        if isinstance(disc_interpolates, tuple):
            disc_interpolates = disc_interpolates[0]
        gradients = tf.gradients(disc_interpolates, interpolates)[0]
        squares = tf.reduce_sum(tf.square(gradients),
                                axis=list(range(1, gradients.shape.ndims)))
        if isinstance(batch_size, int):
            squares.set_shape([batch_size] + squares.shape.as_list()[1:])
        penalties = tf.sqrt(squares + epsilon) / target - 1.0
        if one_sided:
            penalties = tf.maximum(0.0, penalties)
        penalty = tf.losses.compute_weighted_loss(tf.square(penalties), weights, scope=sc,
                                                  loss_collection=loss_collection,
                                                  reduction=reduction or _reduction())
        _scalar_summary("gradient_penalty_loss", penalty, add_summaries)
    return penalty


def mutual_information_penalty(structured_generator_inputs, predicted_distributions,
                               weights=1.0, scope=None, loss_collection=ops.GraphKeys.LOSSES,
                               reduction=None, add_summaries=False):
    """InfoGAN's penalty: minus the (weighted) mean over the structured inputs of the mean
    log-likelihood of each input under the distribution predicted for it."""
    tf = _tf()
    if len(structured_generator_inputs) != len(predicted_distributions):
        raise ValueError("`structured_generator_inputs` length "
                         f"{len(structured_generator_inputs)} must be the same as "
                         f"`predicted_distributions` length {len(predicted_distributions)}.")
    log_probs = [tf.reduce_mean(dist.log_prob(noise))
                 for dist, noise in zip(predicted_distributions, structured_generator_inputs)]
    loss = -1 * tf.losses.compute_weighted_loss(log_probs, weights, scope, loss_collection,
                                                reduction=reduction or _reduction())
    _scalar_summary("mutual_information_penalty", loss, add_summaries)
    return loss


def acgan_discriminator_loss(discriminator_real_classification_logits,
                             discriminator_gen_classification_logits, one_hot_labels,
                             label_smoothing=0.0, real_weights=1.0, generated_weights=1.0,
                             scope=None, loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                             add_summaries=False):
    """AC-GAN's discriminator term: softmax cross-entropy of the labels on the classification
    logits of generated plus of real data."""
    tf = _tf()
    reduction = reduction or _reduction()
    with ops.name_scope(scope, "acgan_discriminator_loss",
                        (discriminator_real_classification_logits,
                         discriminator_gen_classification_logits, one_hot_labels)) as name:
        on_gen = tf.losses.softmax_cross_entropy(
            one_hot_labels, discriminator_gen_classification_logits, weights=generated_weights,
            label_smoothing=label_smoothing, scope=name, loss_collection=None,
            reduction=reduction)
        on_real = tf.losses.softmax_cross_entropy(
            one_hot_labels, discriminator_real_classification_logits, weights=real_weights,
            label_smoothing=label_smoothing, scope=name, loss_collection=None,
            reduction=reduction)
        loss = on_gen + on_real
        if loss_collection is not None:
            ops.add_to_collection(loss_collection, loss)
        _scalar_summary("discriminator_gen_ac_loss", on_gen, add_summaries)
        _scalar_summary("discriminator_real_ac_loss", on_real, add_summaries)
        _scalar_summary("discriminator_ac_loss", loss, add_summaries)
    return loss


def acgan_generator_loss(discriminator_gen_classification_logits, one_hot_labels, weights=1.0,
                         scope=None, loss_collection=ops.GraphKeys.LOSSES, reduction=None,
                         add_summaries=False):
    """AC-GAN's generator term: softmax cross-entropy of the labels on the classification
    logits of generated data."""
    tf = _tf()
    with ops.name_scope(scope, "acgan_generator_loss",
                        (discriminator_gen_classification_logits, one_hot_labels)) as name:
        loss = tf.losses.softmax_cross_entropy(
            one_hot_labels, discriminator_gen_classification_logits, weights=weights,
            scope=name, loss_collection=loss_collection, reduction=reduction or _reduction())
        _scalar_summary("generator_ac_loss", loss, add_summaries)
    return loss


_WARGS = ("wasserstein_generator_loss", "wasserstein_discriminator_loss",
          "minimax_generator_loss", "minimax_discriminator_loss", "modified_generator_loss",
          "modified_discriminator_loss", "least_squares_generator_loss",
          "least_squares_discriminator_loss", "wasserstein_gradient_penalty",
          "mutual_information_penalty", "acgan_discriminator_loss", "acgan_generator_loss")


# ------------------------------------------------------------------------------------------
# losses on a GANModel (tfgan.losses)
# ------------------------------------------------------------------------------------------


def cycle_consistency_loss(data_x, reconstructed_data_x, data_y, reconstructed_data_y,
                           scope=None, add_summaries=False):
    """CycleGAN's cycle-consistency loss: the mean of the two mean absolute reconstruction
    errors, ``|x - F(G(x))|`` and ``|y - G(F(y))|``."""
    tf = _tf()
    with ops.name_scope(scope, "cycle_consistency_loss",
                        [data_x, reconstructed_data_x, data_y, reconstructed_data_y]):
        loss_x2x = tf.reduce_mean(tf.abs(data_x - reconstructed_data_x))
        loss_y2y = tf.reduce_mean(tf.abs(data_y - reconstructed_data_y))
        loss = (loss_x2x + loss_y2y) / 2.0
        _scalar_summary("cycle_consistency_loss_x2x", loss_x2x, add_summaries)
        _scalar_summary("cycle_consistency_loss_y2y", loss_y2y, add_summaries)
        _scalar_summary("cycle_consistency_loss", loss, add_summaries)
    return loss


def _stable_global_norm(tensors):
    # the global norm, with everything scaled by its largest magnitude first
    tf = _tf()
    tensors = [t for t in tensors if t is not None]
    if not tensors:
        return 0.0
    biggest = tf.reduce_max([tf.reduce_max(tf.abs(t)) for t in tensors])
    return biggest * tf.global_norm([t / biggest for t in tensors])


def combine_adversarial_loss(main_loss, adversarial_loss, weight_factor=None,
                             gradient_ratio=None, gradient_ratio_epsilon=1e-6, variables=None,
                             scalar_summaries=True, gradient_summaries=True, scope=None):
    """``main_loss + c * adversarial_loss`` with ``c`` either ``weight_factor`` or chosen so
    the adversarial gradients (w.r.t. ``variables``, default every trainable variable) have
    ``1 / gradient_ratio`` of the main loss's gradient norm; ``c`` gets no gradient. Exactly
    one of the two must be given."""
    tf = _tf()
    if weight_factor is None and gradient_ratio is None:
        raise ValueError("`weight_factor` and `gradient_ratio` cannot both be `None.`")
    if weight_factor is not None and gradient_ratio is not None:
        raise ValueError("`weight_factor` and `gradient_ratio` cannot both be specified.")
    if variables is None:
        variables = tf.trainable_variables()
    with ops.name_scope(scope, "adversarial_loss", values=[main_loss, adversarial_loss]):
        main_loss = ops.convert_to_tensor(main_loss)
        adversarial_loss = ops.convert_to_tensor(adversarial_loss)
        if not main_loss.shape.is_compatible_with(adversarial_loss.shape):
            if main_loss.shape[0] != adversarial_loss.shape[0]:
                raise ValueError("main_loss and adversarial_loss must have the same sized first "
                                 f"dimension. Found {main_loss.shape[0]} and "
                                 f"{adversarial_loss.shape[0]}.")
            # per-example means make the two comparable
            main_loss = tf.reduce_mean(main_loss, axis=list(range(1, main_loss.shape.ndims)))
            adversarial_loss = tf.reduce_mean(
                adversarial_loss, axis=list(range(1, adversarial_loss.shape.ndims)))
        if gradient_summaries or gradient_ratio is not None:
            main_norm = _stable_global_norm(tf.gradients(main_loss, variables))
            adv_norm = _stable_global_norm(tf.gradients(adversarial_loss, variables))
        if scalar_summaries:
            tf.summary.scalar("main_loss", tf.reduce_mean(main_loss))
            tf.summary.scalar("adversarial_loss", tf.reduce_mean(adversarial_loss))
        if gradient_summaries:
            tf.summary.scalar("main_loss_gradients", main_norm)
            tf.summary.scalar("adversarial_loss_gradients", adv_norm)
        given = weight_factor if weight_factor is not None else gradient_ratio
        if tf.get_static_value(ops.convert_to_tensor(given)) == 0:
            return main_loss
        if weight_factor is not None:
            return main_loss + tf.stop_gradient(weight_factor) * adversarial_loss
        coeff = main_norm / (adv_norm + gradient_ratio_epsilon) / gradient_ratio
        tf.summary.scalar("adversarial_coefficient", coeff)
        return main_loss + tf.stop_gradient(coeff) * adversarial_loss


def _combine_adversarial_loss_tuple(gan_loss, gan_model, non_adversarial_loss,
                                    weight_factor=None, gradient_ratio=None,
                                    gradient_ratio_epsilon=1e-6, scalar_summaries=True,
                                    gradient_summaries=True):
    combined = combine_adversarial_loss(
        non_adversarial_loss, gan_loss.generator_loss, weight_factor, gradient_ratio,
        gradient_ratio_epsilon, gan_model.generator_variables, scalar_summaries,
        gradient_summaries)
    return gan_loss._replace(generator_loss=combined)


def _stargan_wrapped(loss_fn, new_fn):
    new_fn.__name__ = loss_fn.__name__
    new_fn.__doc__ = f"The stargan_model version of {loss_fn.__name__}."
    return new_fn


def stargan_generator_loss_wrapper(loss_fn):
    """``loss_fn`` (on the discriminator's outputs for generated data) as a loss of a
    StarGANModel (its source logits for the generated data)."""
    return _stargan_wrapped(loss_fn, lambda stargan_model, **kwargs: loss_fn(
        stargan_model.discriminator_generated_data_source_predication, **kwargs))


def stargan_discriminator_loss_wrapper(loss_fn):
    """``loss_fn`` (on real then generated discriminator outputs) as a loss of a
    StarGANModel (its source logits for the input and the generated data)."""
    return _stargan_wrapped(loss_fn, lambda stargan_model, **kwargs: loss_fn(
        stargan_model.discriminator_input_data_source_predication,
        stargan_model.discriminator_generated_data_source_predication, **kwargs))


def stargan_gradient_penalty_wrapper(loss_fn):
    """``wasserstein_gradient_penalty``-like ``loss_fn`` on a StarGANModel (the
    discriminator is given the number of domains as its second argument)."""
    return _stargan_wrapped(loss_fn, lambda stargan_model, **kwargs: loss_fn(
        real_data=stargan_model.input_data, generated_data=stargan_model.generated_data,
        generator_inputs=stargan_model.input_data_domain_label.shape.as_list()[-1],
        discriminator_fn=stargan_model.discriminator_fn,
        discriminator_scope=stargan_model.discriminator_scope, **kwargs))


def _cycle_consistency_loss_tuple(cyclegan_model, scope=None, add_summaries=False):
    return cycle_consistency_loss(
        cyclegan_model.model_x2y.generator_inputs, cyclegan_model.reconstructed_x,
        cyclegan_model.model_y2x.generator_inputs, cyclegan_model.reconstructed_y,
        scope=scope, add_summaries=add_summaries)


def _on_gen(fn):
    def loss(gan_model, **kwargs):
        return fn(gan_model.discriminator_gen_outputs, **kwargs)

    loss.__name__, loss.__doc__ = fn.__name__, fn.__doc__
    return loss


def _on_both(fn):
    def loss(gan_model, **kwargs):
        return fn(gan_model.discriminator_real_outputs, gan_model.discriminator_gen_outputs,
                  **kwargs)

    loss.__name__, loss.__doc__ = fn.__name__, fn.__doc__
    return loss


def _gradient_penalty_tuple(gan_model, epsilon=1e-10, target=1.0, one_sided=False, **kwargs):
    return wasserstein_gradient_penalty(
        gan_model.real_data, gan_model.generated_data, gan_model.generator_inputs,
        gan_model.discriminator_fn, gan_model.discriminator_scope, epsilon=epsilon,
        target=target, one_sided=one_sided, **kwargs)


losses = types.ModuleType("tideflow.contrib.gan.losses", "``tfgan.losses``: on a GANModel.")
losses.wargs = types.ModuleType("tideflow.contrib.gan.losses.wargs",
                                "``tfgan.losses.wargs``: on tensors.")
for _name in _WARGS:
    setattr(losses.wargs, _name, globals()[_name])
    wrap = _on_gen if "generator_loss" in _name else _on_both
    setattr(losses, _name, wrap(globals()[_name]))
losses.wasserstein_gradient_penalty = _gradient_penalty_tuple


def _mutual_information_penalty_tuple(model, **kwargs):
    return mutual_information_penalty(model.structured_generator_inputs,
                                      model.predicted_distributions, **kwargs)


losses.mutual_information_penalty = _mutual_information_penalty_tuple


def _acgan_discriminator_loss_tuple(model, **kwargs):
    return acgan_discriminator_loss(model.discriminator_real_classification_logits,
                                    model.discriminator_gen_classification_logits,
                                    model.one_hot_labels, **kwargs)


def _acgan_generator_loss_tuple(model, **kwargs):
    return acgan_generator_loss(model.discriminator_gen_classification_logits,
                                model.one_hot_labels, **kwargs)


losses.acgan_discriminator_loss = _acgan_discriminator_loss_tuple
losses.acgan_generator_loss = _acgan_generator_loss_tuple
losses.cycle_consistency_loss = _cycle_consistency_loss_tuple
losses.wargs.cycle_consistency_loss = cycle_consistency_loss
losses.combine_adversarial_loss = _combine_adversarial_loss_tuple
for _name in ("stargan_generator_loss_wrapper", "stargan_discriminator_loss_wrapper",
              "stargan_gradient_penalty_wrapper"):
    setattr(losses, _name, globals()[_name])
losses.wargs.combine_adversarial_loss = combine_adversarial_loss
losses.__all__ = [*_WARGS, "combine_adversarial_loss", "cycle_consistency_loss",
                  "stargan_discriminator_loss_wrapper", "stargan_generator_loss_wrapper",
                  "stargan_gradient_penalty_wrapper", "wargs"]
losses.wargs.__all__ = [*_WARGS, "combine_adversarial_loss", "cycle_consistency_loss"]


def gan_loss(model, generator_loss_fn=None, discriminator_loss_fn=None,
             gradient_penalty_weight=None, gradient_penalty_epsilon=1e-10,
             gradient_penalty_target=1.0, gradient_penalty_one_sided=False,
             mutual_information_penalty_weight=None, aux_cond_generator_weight=None,
             aux_cond_discriminator_weight=None, tensor_pool_fn=None, add_summaries=True):
    """``GANLoss(generator_loss, discriminator_loss)`` of ``model`` (default: Wasserstein),
    plus ``gradient_penalty_weight`` times the WGAN-GP penalty on the discriminator,
    ``mutual_information_penalty_weight`` times InfoGAN's penalty on both (an
    ``InfoGANModel``), and the regularization losses of each network's variable scope."""
    if not isinstance(model, (GANModel, InfoGANModel, ACGANModel)):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError
            f"`model` must be a GANModel. Instead, was {type(model)}.")
    # the discriminator's loss (and penalties) see generated data drawn from the pool
    pooled = model if tensor_pool_fn is None else _pooled_model(model, tensor_pool_fn)
    def used(weight):
        return weight is not None and (isinstance(weight, ops.Tensor) or weight > 0)

    use_info = used(mutual_information_penalty_weight)
    use_ac_gen, use_ac_dis = used(aux_cond_generator_weight), used(aux_cond_discriminator_weight)
    if (use_ac_gen or use_ac_dis) and not isinstance(model, ACGANModel):
        raise ValueError("When `aux_cond_generator_weight` or `aux_cond_discriminator_weight` "
                         f"is provided, `model` must be an `ACGANModel`. Instead, was "
                         f"{type(model)}.")
    if use_info and not isinstance(model, InfoGANModel):
        raise ValueError("When `mutual_information_penalty_weight` is provided, `model` must "
                         f"be an `InfoGANModel`. Instead, was {type(model)}.")
    generator_loss_fn = generator_loss_fn or losses.wasserstein_generator_loss
    discriminator_loss_fn = discriminator_loss_fn or losses.wasserstein_discriminator_loss
    gen_loss = generator_loss_fn(model, add_summaries=add_summaries)
    dis_loss = discriminator_loss_fn(pooled, add_summaries=add_summaries)
    if gradient_penalty_weight:
        gp = _gradient_penalty_tuple(pooled, epsilon=gradient_penalty_epsilon,
                                     target=gradient_penalty_target,
                                     one_sided=gradient_penalty_one_sided,
                                     add_summaries=add_summaries)
        dis_loss = dis_loss + gradient_penalty_weight * gp
    if use_info:
        info = losses.mutual_information_penalty(model, add_summaries=add_summaries)
        gen_loss = gen_loss + mutual_information_penalty_weight * info
        if pooled is not model:
            info = losses.mutual_information_penalty(pooled, add_summaries=add_summaries)
        dis_loss = dis_loss + mutual_information_penalty_weight * info
    if use_ac_gen:
        gen_loss = gen_loss + aux_cond_generator_weight * losses.acgan_generator_loss(
            model, add_summaries=add_summaries)
    if use_ac_dis:
        dis_loss = dis_loss + aux_cond_discriminator_weight * losses.acgan_discriminator_loss(
            pooled, add_summaries=add_summaries)
    # as TF: each network's loss includes the regularization losses of its scope
    # (weights_regularizer of its layers)
    get_reg = _tf().losses.get_regularization_loss
    if model.generator_scope:
        gen_loss = gen_loss + get_reg(model.generator_scope.name)
    if model.discriminator_scope:
        dis_loss = dis_loss + get_reg(model.discriminator_scope.name)
    return GANLoss(gen_loss, dis_loss)


def _pooled_model(model, tensor_pool_fn):
    """``model`` with its generated data (and generator inputs, and AC-GAN's labels) drawn
    through ``tensor_pool_fn`` and the discriminator run again on them."""
    vs = _tf().variable_scope
    if isinstance(model, ACGANModel):
        inputs, generated, labels = tensor_pool_fn(
            (model.generator_inputs, model.generated_data, model.one_hot_labels))
        with vs(model.discriminator_scope, reuse=True):
            outputs, logits = _acgan_outputs(model.discriminator_fn(generated, inputs))
        return model._replace(generator_inputs=inputs, generated_data=generated,
                              one_hot_labels=labels, discriminator_gen_outputs=outputs,
                              discriminator_gen_classification_logits=logits)
    if isinstance(model, InfoGANModel):
        inputs, generated, structured = tensor_pool_fn(
            (model.generator_inputs, model.generated_data, model.structured_generator_inputs))
        with vs(model.discriminator_scope, reuse=True):
            outputs, distributions = model.discriminator_and_aux_fn(generated, inputs)
        return model._replace(generator_inputs=inputs, generated_data=generated,
                              structured_generator_inputs=structured,
                              discriminator_gen_outputs=outputs,
                              predicted_distributions=distributions)
    inputs, generated = tensor_pool_fn((model.generator_inputs, model.generated_data))
    with vs(model.discriminator_scope, reuse=True):
        outputs = model.discriminator_fn(generated, inputs)
    return model._replace(generator_inputs=inputs, generated_data=generated,
                          discriminator_gen_outputs=outputs)


def stargan_loss(model, generator_loss_fn=None, discriminator_loss_fn=None,
                 gradient_penalty_weight=10.0, gradient_penalty_epsilon=1e-10,
                 gradient_penalty_target=1.0, gradient_penalty_one_sided=False,
                 reconstruction_loss_fn=None, reconstruction_loss_weight=10.0,
                 classification_loss_fn=None, classification_loss_weight=1.0,
                 classification_one_hot=True, add_summaries=True):
    """``GANLoss`` of a StarGANModel: the adversarial losses on the source logits
    (Wasserstein by default) with the gradient penalty on the discriminator, the
    reconstruction loss (absolute difference) on the generator, and the domain
    classification loss (softmax cross entropy) on each: the generator's on the random
    targets, the discriminator's on the inputs' own labels."""
    tf = _tf()
    generator_loss_fn = generator_loss_fn or stargan_generator_loss_wrapper(
        wasserstein_generator_loss)
    discriminator_loss_fn = discriminator_loss_fn or stargan_discriminator_loss_wrapper(
        wasserstein_discriminator_loss)
    reconstruction_loss_fn = reconstruction_loss_fn or tf.losses.absolute_difference
    classification_loss_fn = classification_loss_fn or tf.losses.softmax_cross_entropy

    def classification(labels, logits, name):
        with ops.name_scope(name, values=(labels, logits)):
            loss = classification_loss_fn(onehot_labels=labels, logits=logits)
            if not classification_one_hot:
                loss = tf.reduce_sum(loss, axis=1)
            loss = tf.reduce_mean(loss)
            _scalar_summary(name, loss, add_summaries)
            return loss

    model.input_data_domain_label.shape.assert_has_rank(2)
    model.input_data_domain_label.shape[1:].assert_is_fully_defined()
    gen_loss = generator_loss_fn(model, add_summaries=add_summaries)
    dis_loss = discriminator_loss_fn(model, add_summaries=add_summaries)
    if gradient_penalty_weight is not None and (
            isinstance(gradient_penalty_weight, ops.Tensor) or gradient_penalty_weight > 0):
        penalty = stargan_gradient_penalty_wrapper(wasserstein_gradient_penalty)(
            model, epsilon=gradient_penalty_epsilon, target=gradient_penalty_target,
            one_sided=gradient_penalty_one_sided, add_summaries=add_summaries)
        dis_loss += penalty * gradient_penalty_weight
    reconstruction = reconstruction_loss_fn(model.input_data, model.reconstructed_data)
    gen_loss += reconstruction * reconstruction_loss_weight
    _scalar_summary("reconstruction_loss", reconstruction, add_summaries)
    gen_loss += classification(model.generated_data_domain_target,
                               model.discriminator_generated_data_domain_predication,
                               "generator_classification_loss") * classification_loss_weight
    dis_loss += classification(model.input_data_domain_label,
                               model.discriminator_input_data_domain_predication,
                               "discriminator_classification_loss") * classification_loss_weight
    return GANLoss(gen_loss, dis_loss)


def cyclegan_loss(model, generator_loss_fn=None, discriminator_loss_fn=None,
                  cycle_consistency_loss_fn=None, cycle_consistency_loss_weight=10.0, **kwargs):
    """``CycleGANLoss`` of a ``CycleGANModel``: ``gan_loss`` of each direction (least squares
    by default) with ``cycle_consistency_loss_weight`` times the cycle-consistency loss added
    to both generator losses."""
    if not isinstance(model, CycleGANModel):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError
            f"`model` must be a `CycleGANModel`. Instead, was {type(model)}.")
    generator_loss_fn = generator_loss_fn or losses.least_squares_generator_loss
    discriminator_loss_fn = discriminator_loss_fn or losses.least_squares_discriminator_loss
    cycle_consistency_loss_fn = cycle_consistency_loss_fn or losses.cycle_consistency_loss
    weight = cycle_consistency_loss_weight
    if isinstance(weight, (int, float)) and weight < 0:
        raise ValueError(f"`cycle_consistency_loss_weight` must be greater than 0. Got {weight}.")
    aux = weight * cycle_consistency_loss_fn(model,
                                             add_summaries=kwargs.get("add_summaries", True))

    def partial(partial_model):
        got = gan_loss(partial_model, generator_loss_fn=generator_loss_fn,
                       discriminator_loss_fn=discriminator_loss_fn, **kwargs)
        return got._replace(generator_loss=got.generator_loss + aux)

    with ops.name_scope("cyclegan_loss_x2y"):
        loss_x2y = partial(model.model_x2y)
    with ops.name_scope("cyclegan_loss_y2x"):
        loss_y2x = partial(model.model_y2x)
    return CycleGANLoss(loss_x2y, loss_y2x)


def _get_update_ops(kwargs, gen_scope, dis_scope, check_for_unused_ops=True):
    if "update_ops" in kwargs:
        update_ops = list(kwargs.pop("update_ops"))
    else:
        update_ops = ops.get_collection(ops.GraphKeys.UPDATE_OPS)
    gen_ops = ops.get_collection(ops.GraphKeys.UPDATE_OPS, gen_scope)
    dis_ops = ops.get_collection(ops.GraphKeys.UPDATE_OPS, dis_scope)
    if check_for_unused_ops:
        unused = [u for u in update_ops if u not in gen_ops and u not in dis_ops]
        if unused:
            raise ValueError(f"There are unused update ops: {unused}")
    return ([u for u in gen_ops if u in update_ops], [u for u in dis_ops if u in update_ops])


def gan_train_ops(model, loss, generator_optimizer, discriminator_optimizer,
                  check_for_unused_update_ops=True, is_chief=True, **kwargs):
    """One train op per network (over its own variables and update ops, leaving the global
    step alone) and the op that increments the global step."""
    if isinstance(model, CycleGANModel):
        # one pair of train ops per direction (the pairs as the tuple's two entries) and one
        # global-step increment
        with ops.name_scope("cyclegan_x2y_train"):
            x2y = gan_train_ops(model.model_x2y, loss.loss_x2y, generator_optimizer,
                                discriminator_optimizer, check_for_unused_update_ops,
                                is_chief, **kwargs)
        with ops.name_scope("cyclegan_y2x_train"):
            y2x = gan_train_ops(model.model_y2x, loss.loss_y2x, generator_optimizer,
                                discriminator_optimizer, check_for_unused_update_ops,
                                is_chief, **kwargs)
        return GANTrainOps((x2y.generator_train_op, y2x.generator_train_op),
                           (x2y.discriminator_train_op, y2x.discriminator_train_op),
                           training_util.get_or_create_global_step().assign_add(1))
    del is_chief
    global_step = training_util.get_or_create_global_step()
    global_step_inc = global_step.assign_add(1)
    gen_update_ops, dis_update_ops = _get_update_ops(
        kwargs, model.generator_scope.name, model.discriminator_scope.name,
        check_for_unused_update_ops)
    with ops.name_scope("generator_train"):
        gen_train_op = contrib_training.create_train_op(
            total_loss=loss.generator_loss, optimizer=generator_optimizer,
            variables_to_train=model.generator_variables, global_step=None,
            update_ops=gen_update_ops, **kwargs)
    with ops.name_scope("discriminator_train"):
        disc_train_op = contrib_training.create_train_op(
            total_loss=loss.discriminator_loss, optimizer=discriminator_optimizer,
            variables_to_train=model.discriminator_variables, global_step=None,
            update_ops=dis_update_ops, **kwargs)
    return GANTrainOps(gen_train_op, disc_train_op, global_step_inc, [])


class RunTrainOpsHook(SessionRunHook):
    """Runs ``train_ops`` ``train_steps`` times before each step of the session."""

    def __init__(self, train_ops, train_steps):
        self._train_ops = train_ops if isinstance(train_ops, (list, tuple)) else [train_ops]
        self._train_steps = train_steps

    def before_run(self, run_context):
        for _ in range(self._train_steps):
            run_context.session.run(self._train_ops)


_ONE_STEP_EACH = GANTrainSteps(1, 1)


def get_sequential_train_hooks(train_steps=_ONE_STEP_EACH):
    """Hooks that run the discriminator's, then the generator's train op each step."""
    def get_hooks(train_ops):
        return [RunTrainOpsHook(train_ops.discriminator_train_op,
                                train_steps.discriminator_train_steps),
                RunTrainOpsHook(train_ops.generator_train_op,
                                train_steps.generator_train_steps),
                *train_ops.train_hooks]

    return get_hooks


def get_joint_train_hooks(train_steps=_ONE_STEP_EACH):
    """Hooks that run both train ops together, then the extra steps of either."""
    g_steps, d_steps = train_steps.generator_train_steps, train_steps.discriminator_train_steps
    joint = min(g_steps, d_steps)

    def get_hooks(train_ops):
        hooks = [RunTrainOpsHook([train_ops.generator_train_op,
                                  train_ops.discriminator_train_op], joint)]
        if g_steps > joint:
            hooks.append(RunTrainOpsHook(train_ops.generator_train_op, g_steps - joint))
        if d_steps > joint:
            hooks.append(RunTrainOpsHook(train_ops.discriminator_train_op, d_steps - joint))
        return hooks + list(train_ops.train_hooks)

    return get_hooks


_SEQUENTIAL = get_sequential_train_hooks()


def get_sequential_train_steps(train_steps=_ONE_STEP_EACH):
    """A ``train_step_fn`` for ``slim.learning.train`` (Supervisor-era TFGAN loops):
    ``fn(sess, train_ops, global_step, train_step_kwargs)`` runs the generator's train op
    ``generator_train_steps`` times, then the discriminator's ``discriminator_train_steps``
    times (each through ``slim.learning.train_step``), then increments the global step, and
    returns ``(sum of the train ops' losses, should_stop)``; the stop condition (a
    ``should_stop`` tensor or ``number_of_steps`` in ``train_step_kwargs``) is checked once,
    after the increment."""
    def sequential_train_steps(sess, train_ops, global_step, train_step_kwargs):
        from tideflow.train.slim_learning import train_step

        kwargs = dict(train_step_kwargs)
        should_stop_op = kwargs.pop("should_stop", None)
        total = 0
        for op, n in ((train_ops.generator_train_op, train_steps.generator_train_steps),
                      (train_ops.discriminator_train_op,
                       train_steps.discriminator_train_steps)):
            for _ in range(n):
                total += train_step(sess, op, global_step, kwargs)[0]
        sess.run(train_ops.global_step_inc_op)
        limit = kwargs.get("number_of_steps")  # how slim.learning.train passes its limit here
        if should_stop_op is not None:
            should_stop = sess.run(should_stop_op)
        elif limit is not None:
            should_stop = sess.run(global_step) >= limit
        else:
            should_stop = False
        return total, should_stop

    return sequential_train_steps


def gan_train(train_ops, logdir, get_hooks_fn=_SEQUENTIAL, master="",
              is_chief=True, scaffold=None, hooks=None, chief_only_hooks=None,
              save_checkpoint_secs=600, save_summaries_steps=100, config=None):
    """Trains until a hook stops: each step runs the hooks' train ops, then increments the
    global step; returns the final global step increment's value."""
    new_hooks = get_hooks_fn(train_ops)
    hooks = list(hooks) + list(new_hooks) if hooks is not None else new_hooks
    return contrib_training.train(
        train_ops.global_step_inc_op, logdir, master=master, is_chief=is_chief,
        scaffold=scaffold, hooks=hooks, chief_only_hooks=chief_only_hooks,
        save_checkpoint_secs=save_checkpoint_secs, save_summaries_steps=save_summaries_steps,
        config=config)


def image_reshaper(images, num_cols=None):
    """A ``[1, rows * h, cols * w, c]`` grid of ``images`` ([n, h, w, c]; ``num_cols``
    default: a square grid)."""
    tf = _tf()
    if isinstance(images, ops.Tensor):
        images = tf.unstack(images)
    images = list(images)
    num_images = len(images)
    num_cols = num_cols or int(num_images ** 0.5)
    if num_images % num_cols:
        raise ValueError("The number of images must be divisible by num_columns.")
    rows = [tf.concat(images[i:i + num_cols], 1) for i in range(0, num_images, num_cols)]
    return tf.expand_dims(tf.concat(rows, 0), 0)


def condition_tensor(tensor, conditioning):
    """``tensor`` plus a learned linear map of ``conditioning`` (flattened) onto its
    per-example shape (https://arxiv.org/abs/1609.03499); ``tensor``'s non-batch dimensions
    must be known."""
    tf = _tf()
    tensor.shape[1:].assert_is_fully_defined()
    num_features = tensor.shape[1:].num_elements()
    mapped = tf.contrib.layers.linear(tf.contrib.layers.flatten(conditioning), num_features)
    if not mapped.shape.is_compatible_with(tensor.shape):
        shape = tf.shape(tensor)
        static = tf.contrib.util.constant_value(shape)
        mapped = tf.reshape(mapped, static if static is not None else shape)
    return tensor + mapped


def condition_tensor_from_onehot(tensor, one_hot_labels, embedding_size=256):
    """``condition_tensor`` on a learned ``embedding`` ([classes, embedding_size], in the
    current variable scope) of the labels of ``one_hot_labels`` ([batch, classes])."""
    tf = _tf()
    one_hot_labels.shape.assert_has_rank(2)
    one_hot_labels.shape[1:].assert_is_fully_defined()
    embedding = tf.get_variable("embedding", [one_hot_labels.shape[1], embedding_size])
    labels = tf.argmax(one_hot_labels, axis=1)
    conditioning = tf.nn.embedding_lookup(embedding, labels, name="token_to_embedding")
    return condition_tensor(tensor, conditioning)


def tensor_pool(input_values, pool_size=50, pooling_probability=0.5, name="tensor_pool"):
    """A pool of past values of ``input_values`` (a tensor or a nest of them): while the pool
    holds fewer than ``pool_size`` entries each evaluation stores the input and returns it;
    once full it swaps the input for a random stored entry and returns that entry with
    probability ``pooling_probability``, else the input. ``pool_size`` or
    ``pooling_probability`` <= 0: ``input_values`` unchanged."""
    tf = _tf()
    from tideflow.framework import nest

    if pool_size <= 0 or pooling_probability <= 0:
        return input_values
    flat = [ops.convert_to_tensor(v) for v in nest.flatten(input_values)]
    with ops.name_scope(f"{name}_pool_queue", values=[*flat, pooling_probability]):
        queue = tf.RandomShuffleQueue(capacity=pool_size, min_after_dequeue=0,
                                      dtypes=[v.dtype for v in flat], shapes=None)

        def store_and_pass():
            with ops.control_dependencies([queue.enqueue(flat)]):
                return [tf.identity(v) for v in flat]

        def swap():
            # take a stored entry out before putting the input in
            pooled = queue.dequeue()
            pooled = list(pooled) if isinstance(pooled, (list, tuple)) else [pooled]
            with ops.control_dependencies(pooled):
                stored = queue.enqueue(flat)
            with ops.control_dependencies([stored]):
                use_pool = tf.random_uniform((), dtype=tf.float32) < pooling_probability
                return tf.cond(use_pool, lambda: [tf.identity(v) for v in pooled],
                               lambda: [tf.identity(v) for v in flat])

        out = tf.cond(queue.size() < pool_size, store_and_pass, swap)
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        for given, got in zip(flat, out):
            got.set_shape(given.shape)
    return nest.pack_sequence_as(input_values, out)


def _resolve_axis(reference_batch, axis):
    ndims = reference_batch.shape.ndims
    if ndims is None:
        raise ValueError("`reference_batch` has unknown dimensions.")
    used = axis + ndims if axis < 0 else axis
    if not 0 <= used < ndims:
        raise ValueError(f"Value of `axis` argument {used} is out of range for input with "
                         f"rank {ndims}")
    return used


def _mean_and_mean_square(x, axes):
    # float16 statistics are taken in float32
    tf = _tf()
    wide = tf.cast(x, tf.float32) if x.dtype == tf.float16 else x
    mean = tf.reduce_mean(wide, axis=axes, keepdims=True)
    mean_sq = tf.reduce_mean(tf.square(wide), axis=axes, keepdims=True)
    if x.dtype == tf.float16:
        return tf.cast(mean, x.dtype), tf.cast(mean_sq, x.dtype)
    return mean, mean_sq


class VBN:
    """Virtual batch normalization (Salimans et al., 2016): each example is normalized with
    statistics of a fixed ``reference_batch`` plus itself (weighted 1 / (reference size + 1)),
    so an example's output does not depend on the rest of its minibatch. ``axis`` is the
    feature axis (``beta``/``gamma`` of its size, shared by every call) and ``batch_axis`` the
    examples' axis."""

    def __init__(self, reference_batch, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer=None, gamma_initializer=None, beta_regularizer=None,
                 gamma_regularizer=None, trainable=True, name=None, batch_axis=0):
        tf = _tf()
        axis = _resolve_axis(reference_batch, axis)
        self._batch_axis = _resolve_axis(reference_batch, batch_axis)
        if axis == self._batch_axis:
            raise ValueError("`axis` and `batch_axis` cannot be the same.")
        self._epsilon = epsilon
        self._beta, self._gamma = 0.0, 1.0
        ndims = reference_batch.shape.ndims
        with tf.variable_scope(name, "VBN", values=[reference_batch]) as self._vs:
            self._reference_batch = reference_batch
            self._example_axes = [i for i in range(ndims) if i not in (axis, self._batch_axis)]
            self._param_shape = [1] * ndims
            self._param_shape[axis] = reference_batch.shape.dims[axis].value
            self._ref_mean, self._ref_mean_sq = _mean_and_mean_square(
                reference_batch, [i for i in range(ndims) if i != axis])
            self._ref_variance = self._ref_mean_sq - tf.square(self._ref_mean)
            size = tf.shape(reference_batch)[self._batch_axis]
            static = tf.get_static_value(size)
            size = static if static else tf.cast(size, tf.float32)
            self._example_weight = 1.0 / (size + 1.0)
            self._ref_weight = 1.0 - self._example_weight
            channels = (reference_batch.shape.dims[axis].value,)
            if center:
                self._beta = tf.get_variable(
                    "beta", shape=channels, initializer=beta_initializer or tf.zeros_initializer(),
                    regularizer=beta_regularizer, trainable=trainable)
            if scale:
                self._gamma = tf.get_variable(
                    "gamma", shape=channels,
                    initializer=gamma_initializer or tf.ones_initializer(),
                    regularizer=gamma_regularizer, trainable=trainable)

    def _param(self, v):
        # beta/gamma as [1, .., C, .., 1] (the constants 0 and 1 when not made)
        return v if isinstance(v, float) else _tf().reshape(v, self._param_shape)

    def reference_batch_normalization(self):
        """The reference batch normalized with its own statistics."""
        tf = _tf()
        with ops.name_scope(self._vs.name):
            return tf.nn.batch_normalization(
                self._reference_batch, self._ref_mean, self._ref_variance,
                self._param(self._beta), self._param(self._gamma), self._epsilon)

    def __call__(self, inputs):
        """``inputs`` virtual-batch-normalized (its shape, but for the batch size, that of the
        reference batch)."""
        tf = _tf()
        inputs = ops.convert_to_tensor(inputs)

        def rest(shape):
            dims = shape.as_list()
            del dims[self._batch_axis]
            return dims

        tf.TensorShape(rest(inputs.shape)).assert_is_compatible_with(
            rest(self._reference_batch.shape))
        with ops.name_scope(self._vs.name, values=[inputs, self._reference_batch]):
            mean, mean_sq = _mean_and_mean_square(inputs, self._example_axes)
            mean = self._example_weight * mean + self._ref_weight * self._ref_mean
            mean_sq = self._example_weight * mean_sq + self._ref_weight * self._ref_mean_sq
            return tf.nn.batch_normalization(
                inputs, mean, mean_sq - tf.square(mean), self._param(self._beta),
                self._param(self._gamma), self._epsilon)


_SPECTRAL_U = "spectral_norm_u"


def compute_spectral_norm(w_tensor, power_iteration_rounds=1, name=None, training=True):
    """The largest singular value of ``w_tensor`` (as a [-1, last dim] matrix) by power
    iteration from a persisted, non-trainable estimate ``spectral_norm_u`` of the leading
    left singular vector, which each evaluation updates (unless ``training`` is False)."""
    tf = _tf()
    with tf.variable_scope(name, "spectral_norm"):
        w = tf.reshape(w_tensor, (-1, w_tensor.get_shape()[-1]))
        u_var = tf.get_variable(_SPECTRAL_U, shape=(w.shape[0], 1), dtype=w.dtype,
                                initializer=tf.random_normal_initializer(), trainable=False)
        u = u_var
        for _ in range(power_iteration_rounds):
            v = tf.nn.l2_normalize(tf.matmul(w, u, transpose_a=True))
            u = tf.nn.l2_normalize(tf.matmul(w, v))
        if training:
            with ops.control_dependencies([tf.assign(u_var, u, name="update_u")]):
                u = tf.identity(u)
        u, v = tf.stop_gradient(u), tf.stop_gradient(v)
        return tf.matmul(tf.matmul(u, w, transpose_a=True), v)[0][0]


def spectral_normalize(w, power_iteration_rounds=1, name=None, equality_constrained=True,
                       training=True):
    """``w`` divided by its spectral norm (with ``equality_constrained=False``, by
    ``max(1, norm)``: a norm at most 1)."""
    tf = _tf()
    with tf.variable_scope(name, "spectral_normalize"):
        norm = compute_spectral_norm(w, power_iteration_rounds=power_iteration_rounds,
                                     training=training)
        if not equality_constrained:
            norm = tf.maximum(1.0, norm)
        return tf.reshape(w / norm, w.get_shape())


def spectral_norm_regularizer(scale, power_iteration_rounds=1, scope=None, training=True):
    """A weights regularizer: ``scale`` times the weights' spectral norm (``scale`` 0: none)."""
    import numbers

    tf = _tf()
    if isinstance(scale, numbers.Integral):
        raise ValueError(f"scale cannot be an integer: {scale}")  # noqa: TRY004 - as TF
    if isinstance(scale, numbers.Real):
        if scale < 0.0:
            raise ValueError(f"Setting a scale less than 0 on a regularizer: {scale:g}")
        if scale == 0.0:
            tf.logging.info("Scale of 0 disables regularizer.")
            return lambda _: None

    def regularize(weights, name=None):
        del name  # (TF's regularizer signature) the op is named by the scope
        with ops.name_scope(scope, "SpectralNormRegularizer", [weights]) as op_name:
            factor = ops.convert_to_tensor(scale, dtype=weights.dtype.base_dtype, name="scale")
            return tf.multiply(factor, compute_spectral_norm(
                weights, power_iteration_rounds=power_iteration_rounds, training=training),
                name=op_name)

    return regularize


def _is_weight_name(name):
    import re

    return re.match(r"(.*/)?(depthwise_|pointwise_)?(weights|kernel)$", name) is not None


def spectral_normalization_custom_getter(name_filter=_is_weight_name, power_iteration_rounds=1,
                                         equality_constrained=True, training=True):
    """A variable-scope custom getter that returns the variables ``name_filter`` accepts
    (by default the kernels/weights of tf.layers, contrib layers and slim) spectrally
    normalized."""
    if not callable(name_filter):
        raise ValueError("name_filter must be callable")  # noqa: TRY004 - as TF

    def getter_fn(getter, name, *args, **kwargs):
        if not name_filter(name):
            return getter(name, *args, **kwargs)
        if name.endswith(_SPECTRAL_U):
            raise ValueError("Cannot apply Spectral Normalization to internal variables "
                             f"created for Spectral Normalization. Tried to normalized "
                             f"variable [{name}]")
        dtype = kwargs.get("dtype")
        tf = _tf()
        if dtype not in (tf.float16, tf.float32, tf.float64):
            raise ValueError(f"Disallowed data type {dtype}")
        weights = getter(name, *args, **kwargs)
        if len(weights.get_shape()) < 2:
            raise ValueError("Spectral norm can only be applied to multi-dimensional tensors")
        return spectral_normalize(weights, power_iteration_rounds=power_iteration_rounds,
                                  equality_constrained=equality_constrained, training=training,
                                  name=name + "/spectral_normalize")

    return getter_fn


def clip_variables(optimizer, variables, weight_clip):
    """``optimizer`` whose updates then clip each entry of ``variables`` to
    ``[-weight_clip, weight_clip]`` (WGAN's weight clipping)."""
    if weight_clip < 0:
        raise ValueError(
            f"`discriminator_weight_clip` must be positive. Instead, was {weight_clip}")
    from tideflow import contrib

    return contrib.opt.VariableClippingOptimizer(
        opt=optimizer, vars_to_clip_dims={var: [] for var in variables}, max_norm=weight_clip,
        use_locking=True, colocate_clip_ops_with_vars=True)


def clip_discriminator_weights(optimizer, model, weight_clip):
    """``clip_variables`` over the discriminator variables of the GANModel ``model``."""
    return clip_variables(optimizer, model.discriminator_variables, weight_clip)


features = types.ModuleType("tideflow.contrib.gan.features",
                            "``tfgan.features``: conditioning tensors on labels, weight clipping, "
                            "tensor pools, virtual batch and spectral normalization.")
features.condition_tensor = condition_tensor
features.condition_tensor_from_onehot = condition_tensor_from_onehot
features.tensor_pool = tensor_pool
features.VBN = VBN
for _name in ("compute_spectral_norm", "spectral_normalize", "spectral_norm_regularizer",
              "spectral_normalization_custom_getter"):
    setattr(features, _name, globals()[_name])
features.clip_variables = clip_variables
features.clip_discriminator_weights = clip_discriminator_weights
features.__all__ = ["condition_tensor", "condition_tensor_from_onehot", "clip_variables",
                    "clip_discriminator_weights", "tensor_pool", "VBN",
                    "compute_spectral_norm", "spectral_normalize", "spectral_norm_regularizer",
                    "spectral_normalization_custom_getter"]

def image_grid(input_tensor, grid_shape, image_shape=(32, 32), num_channels=3):
    """The images of ``input_tensor`` ([rows * cols, h, w, c]) tiled row by row into one
    ``[1, rows * h, cols * w, c]`` image."""
    tf = _tf()
    rows, cols = grid_shape
    h, w = image_shape
    if input_tensor.shape[0] is not None and int(input_tensor.shape[0]) != rows * cols:
        raise ValueError(f"Grid shape {tuple(grid_shape)} incompatible with minibatch size "
                         f"{int(input_tensor.shape[0])}.")
    x = tf.reshape(input_tensor, [rows, cols, h, w, num_channels])
    x = tf.transpose(x, [0, 2, 1, 3, 4])  # rows, h, cols, w, c
    return tf.reshape(x, [1, rows * h, cols * w, num_channels])


def _image_shape_of(data, what):
    data.shape.assert_has_rank(4)
    data.shape[1:].assert_is_fully_defined()
    return data.shape.as_list()[1:]


def add_image_comparison_summaries(gan_model, num_comparisons=2, display_diffs=False):
    """One image summary ``image_comparison``: ``num_comparisons`` generator inputs, their
    generated images and real images (and with ``display_diffs`` the absolute differences
    of generated and real) as the rows of a grid, for image-to-image models."""
    tf = _tf()
    for data in (gan_model.generator_inputs, gan_model.generated_data, gan_model.real_data):
        _image_shape_of(data, "image")
    gan_model.generated_data.shape.assert_is_compatible_with(gan_model.generator_inputs.shape)
    gan_model.real_data.shape.assert_is_compatible_with(gan_model.generated_data.shape)
    generated = tf.unstack(gan_model.generated_data[:num_comparisons])
    real = tf.unstack(gan_model.real_data[:num_comparisons])
    images = tf.unstack(gan_model.generator_inputs[:num_comparisons]) + generated + real
    if display_diffs:
        images += [tf.abs(tf.cast(g, tf.float32) - tf.cast(r, tf.float32))
                   for g, r in zip(generated, real)]
    return tf.summary.image("image_comparison",
                            image_reshaper(images, num_cols=num_comparisons), max_outputs=1)


def add_cyclegan_image_summaries(cyclegan_model):
    """An ``image_comparison`` summary for each direction of a CycleGANModel: the first
    input, its translation and its reconstruction side by side."""
    tf = _tf()
    if not isinstance(cyclegan_model, CycleGANModel):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError
            f"`cyclegan_model` was not a CycleGANModel. Instead, was {type(cyclegan_model)}")
    pairs = ((cyclegan_model.model_x2y, cyclegan_model.reconstructed_x, "x2y"),
             (cyclegan_model.model_y2x, cyclegan_model.reconstructed_y, "y2x"))
    for model, reconstructed, _ in pairs:
        for data in (model.generator_inputs, model.generated_data, reconstructed):
            _image_shape_of(data, "image")
    for model, reconstructed, direction in pairs:
        with ops.name_scope(f"{direction}_image_comparison_summaries"):
            images = (tf.unstack(model.generator_inputs[:1]) + tf.unstack(model.generated_data[:1])
                      + tf.unstack(reconstructed[:1]))
            tf.summary.image("image_comparison", image_reshaper(images, num_cols=len(images)),
                             max_outputs=1)


def add_gan_model_summaries(gan_model):
    """Histograms of the generator's and the discriminator's variables."""
    tf = _tf()
    with tf.name_scope("generator_variables"):
        for var in gan_model.generator_variables:
            tf.summary.histogram(var.name, var)
    with tf.name_scope("discriminator_variables"):
        for var in gan_model.discriminator_variables:
            tf.summary.histogram(var.name, var)


def add_gan_model_image_summaries(gan_model, grid_size=4, model_summaries=True):
    """Image summaries ``real_data`` and ``generated_data``: the first ``grid_size ** 2``
    images of each as one grid; with ``model_summaries``, the variables' histograms too."""
    tf = _tf()
    n = grid_size ** 2
    for name, data in (("real_data", gan_model.real_data),
                       ("generated_data", gan_model.generated_data)):
        h, w, c = _image_shape_of(data, name)
        tf.summary.image(name, image_grid(data[:n], (grid_size, grid_size), (h, w), c),
                         max_outputs=1)
    if model_summaries:
        add_gan_model_summaries(gan_model)


def add_regularization_loss_summaries(gan_model):
    """Scalar summaries of each network's regularization loss."""
    tf = _tf()
    if gan_model.generator_scope:
        tf.summary.scalar("generator_regularization_loss",
                          tf.losses.get_regularization_loss(gan_model.generator_scope.name))
    if gan_model.discriminator_scope:
        tf.summary.scalar("discriminator_regularization_loss",
                          tf.losses.get_regularization_loss(gan_model.discriminator_scope.name))


# ------------------------------------------------------------------------------------------
# tfgan.estimator.GANEstimator
# ------------------------------------------------------------------------------------------


class SummaryType:
    """Which summaries ``GANEstimator(add_summaries=...)`` writes."""
    VARIABLES = "variables"
    IMAGES = "images"


def _with_mode(fn, mode):
    """``fn`` with ``mode`` bound when it takes one (TF's generator_fn(inputs, mode))."""
    import functools
    import inspect

    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return fn
    return functools.partial(fn, mode=mode) if "mode" in params else fn


class GANEstimator(_Estimator):
    """An Estimator for a GAN: ``features`` are the generator's inputs and ``labels`` the
    real data. Training runs the two networks' train ops through ``get_hooks_fn`` (default:
    sequential, discriminator first) and increments the global step; evaluation reports
    the mean generator and discriminator losses; prediction yields generated data.
    ``generator_fn`` / ``discriminator_fn`` taking a ``mode`` argument get it."""

    def __init__(self, model_dir=None, generator_fn=None, discriminator_fn=None,
                generator_loss_fn=None, discriminator_loss_fn=None, generator_optimizer=None,
                discriminator_optimizer=None, get_hooks_fn=None, get_eval_metric_ops_fn=None,
                add_summaries=None, use_loss_summaries=True, config=None):
        tf = _tf()
        hooks_fn = get_hooks_fn or get_sequential_train_hooks()

        def model_fn(features, labels, mode):
            gen_fn = _with_mode(generator_fn, mode)
            dis_fn = _with_mode(discriminator_fn, mode)
            if mode == tf.estimator.ModeKeys.PREDICT:
                if labels is not None:
                    raise ValueError("`labels` must be `None` when mode is `predict`. "
                                     f"Instead, found {labels}")
                with tf.variable_scope("Generator"):
                    generated = gen_fn(_convert(features))
                return tf.estimator.EstimatorSpec(mode, predictions=generated)
            model = gan_model(gen_fn, dis_fn, labels, features,
                              check_shapes=isinstance(labels, ops.Tensor))
            kinds = add_summaries if isinstance(add_summaries, (list, tuple)) else \
                [add_summaries] if add_summaries else []
            with tf.name_scope(None):
                for kind in kinds:
                    if kind == SummaryType.IMAGES:
                        add_gan_model_image_summaries(model)
                    elif kind == SummaryType.VARIABLES:
                        add_gan_model_summaries(model)
                    else:
                        raise ValueError(f"Unsupported summary type {kind!r}")
            loss = gan_loss(model, generator_loss_fn=generator_loss_fn,
                            discriminator_loss_fn=discriminator_loss_fn,
                            add_summaries=use_loss_summaries)
            scalar_loss = loss.generator_loss + loss.discriminator_loss
            if mode == tf.estimator.ModeKeys.EVAL:
                metrics = {"generator_loss": tf.metrics.mean(loss.generator_loss),
                           "discriminator_loss": tf.metrics.mean(loss.discriminator_loss)}
                if get_eval_metric_ops_fn is not None:
                    metrics.update(get_eval_metric_ops_fn(model))
                return tf.estimator.EstimatorSpec(mode, predictions=model.generated_data,
                                                  loss=scalar_loss, eval_metric_ops=metrics)
            gopt = generator_optimizer() if callable(generator_optimizer) else \
                generator_optimizer
            dopt = discriminator_optimizer() if callable(discriminator_optimizer) else \
                discriminator_optimizer
            train_ops = gan_train_ops(model, loss, gopt, dopt)
            return tf.estimator.EstimatorSpec(
                mode, loss=scalar_loss, train_op=train_ops.global_step_inc_op,
                training_hooks=hooks_fn(train_ops))

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config)


estimator = types.ModuleType("tideflow.contrib.gan.estimator",
                             "``tfgan.estimator``: GANEstimator.")
estimator.GANEstimator = GANEstimator
estimator.SummaryType = SummaryType
estimator.__all__ = ["GANEstimator", "SummaryType"]

def _as_float64(*tensors):
    tf = _tf()
    return [t if t.dtype == tf.float64 else tf.cast(t, tf.float64) for t in tensors]


def _activation_pair(activations1, activations2):
    """Two [N, D] activation tensors in float64, and the dtype the distance is returned in."""
    a1, a2 = ops.convert_to_tensor(activations1), ops.convert_to_tensor(activations2)
    a1.shape.assert_has_rank(2)
    a2.shape.assert_has_rank(2)
    return (*_as_float64(a1, a2), a1.dtype)


def _run_in_batches(inputs, classifier_fn, num_batches):
    """``classifier_fn`` over ``num_batches`` equal splits of ``inputs`` (one at a time,
    through ``map_fn``), the results concatenated back."""
    tf = _tf()
    if num_batches <= 1:
        return classifier_fn(inputs)
    batches = tf.stack(tf.split(inputs, num_or_size_splits=num_batches))
    out = tf.map_fn(classifier_fn, batches, parallel_iterations=1, back_prop=False,
                    swap_memory=True, name="RunClassifier")
    return tf.concat(tf.unstack(out), 0)


def classifier_score_from_logits(logits):
    """The Inception-style score of classifier ``logits`` [N, classes]: ``exp`` of the mean KL
    divergence between each example's class distribution and their average (in float64)."""
    tf = _tf()
    logits = ops.convert_to_tensor(logits)
    logits.shape.assert_has_rank(2)
    dtype = logits.dtype
    (wide,) = _as_float64(logits)
    p = tf.nn.softmax(wide)
    q = tf.reduce_mean(p, axis=0)
    kl = tf.reduce_sum(p * (tf.nn.log_softmax(wide) - tf.log(q)), axis=1)
    score = tf.exp(tf.reduce_mean(kl))
    return score if dtype == tf.float64 else tf.cast(score, dtype)


def classifier_score(images, classifier_fn, num_batches=1):
    """``classifier_score_from_logits`` of ``classifier_fn``'s logits on ``images`` (run in
    ``num_batches`` pieces)."""
    return classifier_score_from_logits(_run_in_batches(images, classifier_fn, num_batches))


def _sqrtm_psd(mat, eps=1e-10):
    # the square root of a symmetric positive semi-definite matrix through its SVD (singular
    # values below eps kept as they are: sqrt is unstable near 0)
    tf = _tf()
    s, u, v = tf.svd(mat)
    root = tf.where(s < eps, s, tf.sqrt(s))
    return tf.matmul(tf.matmul(u, tf.diag(root)), v, transpose_b=True)


def trace_sqrt_product(sigma, sigma_v):
    """``trace(sqrtm(sigma @ sigma_v))`` for covariance matrices, computed as
    ``trace(sqrtm(A sigma_v A))`` with ``A = sqrtm(sigma)`` (a symmetric product)."""
    tf = _tf()
    root = _sqrtm_psd(sigma)
    return tf.trace(_sqrtm_psd(tf.matmul(root, tf.matmul(sigma_v, root))))


def frechet_classifier_distance_from_activations(activations1, activations2):
    """The Frechet distance between Gaussians fitted to two sets of activations [N, D]:
    ``|m1 - m2|^2 + tr(C1 + C2 - 2 sqrtm(C1 C2))`` (covariances with N - 1, in float64)."""
    tf = _tf()
    a1, a2, dtype = _activation_pair(activations1, activations2)
    m1, m2 = tf.reduce_mean(a1, 0), tf.reduce_mean(a2, 0)

    def cov(a, m):
        n = tf.cast(tf.shape(a)[0], tf.float64)
        centered = a - m
        return tf.matmul(centered, centered, transpose_a=True) / (n - 1)

    c1, c2 = cov(a1, m1), cov(a2, m2)
    fid = (tf.trace(c1 + c2) - 2.0 * trace_sqrt_product(c1, c2)
           + tf.reduce_sum(tf.squared_difference(m1, m2)))
    return fid if dtype == tf.float64 else tf.cast(fid, dtype)


def mean_only_frechet_classifier_distance_from_activations(activations1, activations2):
    """The means' part of the Frechet distance: ``|m1 - m2|^2``."""
    tf = _tf()
    a1, a2, dtype = _activation_pair(activations1, activations2)
    out = tf.reduce_sum(tf.squared_difference(tf.reduce_mean(a1, 0), tf.reduce_mean(a2, 0)))
    return out if dtype == tf.float64 else tf.cast(out, dtype)


def diagonal_only_frechet_classifier_distance_from_activations(activations1, activations2):
    """The Frechet distance with diagonal covariances (the per-dimension variances, with N):
    ``|m1 - m2|^2 + sum(v1 + v2 - 2 sqrt(v1 v2))``."""
    tf = _tf()
    a1, a2, dtype = _activation_pair(activations1, activations2)
    m1, v1 = tf.nn.moments(a1, axes=[0])
    m2, v2 = tf.nn.moments(a2, axes=[0])
    out = (tf.reduce_sum(v1 + v2 - 2.0 * tf.sqrt(v1 * v2))
           + tf.reduce_sum(tf.squared_difference(m1, m2)))
    return out if dtype == tf.float64 else tf.cast(out, dtype)


def frechet_classifier_distance(real_images, generated_images, classifier_fn, num_batches=1):
    """``frechet_classifier_distance_from_activations`` of ``classifier_fn``'s activations on
    the real and the generated images (each run in ``num_batches`` pieces)."""
    return frechet_classifier_distance_from_activations(
        _run_in_batches(real_images, classifier_fn, num_batches),
        _run_in_batches(generated_images, classifier_fn, num_batches))


def _binomial_kernel():
    # the 5x5 binomial (Gaussian) kernel of OpenCV's pyrDown/pyrUp, normalized to sum 1
    import numpy as np

    row = np.array([1.0, 4.0, 6.0, 4.0, 1.0], np.float32)
    return (np.outer(row, row) / 256.0).reshape(5, 5, 1, 1)


def laplacian_pyramid(batch, num_levels):
    """``num_levels`` Laplacian-pyramid levels of images [N, H, W, C] (float32): each level
    the image at that scale minus the upsampled next one, the last the coarsest image."""
    tf = _tf()
    kernel = tf.constant(_binomial_kernel())

    def blur(images, gain):
        # the kernel over each channel alone (channels folded into the batch), reflect-padded
        s = tf.shape(images)
        padded = tf.pad(images, [[0, 0], [2, 2], [2, 2], [0, 0]], mode="REFLECT")
        planes = tf.reshape(tf.transpose(padded, [0, 3, 1, 2]), [s[0] * s[3], s[1] + 4, s[2] + 4, 1])
        out = tf.nn.conv2d(planes, kernel * gain, strides=[1, 1, 1, 1], padding="VALID")
        return tf.transpose(tf.reshape(out, [s[0], s[3], s[1], s[2]]), [0, 2, 3, 1])

    def down(images):
        return blur(images, 1)[:, ::2, ::2]

    def up(images):
        # interleave zeros (batch_to_space of the images and three zero batches), then blur
        s = tf.shape(images)
        spread = tf.concat([images, tf.zeros([3 * s[0], s[1], s[2], s[3]])], 0)
        return blur(tf.batch_to_space(spread, [[0, 0], [0, 0]], 2), 4)

    levels = [tf.cast(batch, tf.float32)]
    for _ in range(1, num_levels):
        levels.append(down(levels[-1]))
        levels[-2] -= up(levels[-1])
    return levels


def _random_patches(images, patches_per_image, patch_size):
    """``patches_per_image`` random ``patch_size`` squares of each image (3 channels), drawn
    with NumPy's generator when the graph runs."""
    tf = _tf()

    def draw(batch):
        import numpy as np

        n, height, width, channels = batch.shape
        count, half = patches_per_image * n, patch_size // 2
        pid, dy, dx, ch = np.ogrid[0:count, -half:half + 1, -half:half + 1, 0:3]
        y = dy + np.random.randint(half, height - half, size=(count, 1, 1, 1))
        x = dx + np.random.randint(half, width - half, size=(count, 1, 1, 1))
        image = pid // patches_per_image
        return batch.flat[((image * height + y) * width + x) * channels + ch]

    return tf.py_func(draw, [images], images.dtype, stateful=False)


def _standardized_rows(patches):
    # each patch to zero mean, unit variance, flattened to a row
    tf = _tf()
    mean, variance = tf.nn.moments(patches, axes=[1, 2, 3], keep_dims=True)
    patches = (patches - mean) / tf.sqrt(variance)
    return tf.reshape(patches, [tf.shape(patches)[0], -1])


def _sorted_columns(matrix, rows):
    tf = _tf()
    return tf.transpose(tf.nn.top_k(tf.transpose(matrix), rows)[0])


def _swd_random(a, b, random_sampling_count, random_projection_dim):
    # mean over random unit projections of the 1-D Wasserstein distance between projections
    tf = _tf()
    rows = tf.shape(a)[0]
    dists = []
    for _ in range(random_sampling_count):
        proj = tf.random_normal([tf.shape(a)[1], random_projection_dim])
        proj *= tf.rsqrt(tf.reduce_sum(tf.square(proj), axis=0, keepdims=True))
        dists.append(tf.reduce_mean(tf.abs(_sorted_columns(tf.matmul(a, proj), rows)
                                           - _sorted_columns(tf.matmul(b, proj), rows))))
    return tf.reduce_mean(dists)


def _swd_svd(a, b):
    # the same on the joint data's principal directions (scaled by the singular values)
    tf = _tf()
    rows = tf.shape(a)[0]
    sig, u = tf.svd(tf.concat([a, b], 0))[:2]
    proj_a, proj_b = tf.split(u * sig, 2, axis=0)
    return tf.reduce_mean(tf.abs(_sorted_columns(proj_a[:, ::-1], rows)
                                 - _sorted_columns(proj_b[:, ::-1], rows)))


def sliced_wasserstein_distance(real_images, fake_images, resolution_min=16,
                                patches_per_image=64, patch_size=7, random_sampling_count=1,
                                random_projection_dim=7 * 7 * 3, use_svd=False):
    """The sliced Wasserstein distance of Karras et al. (2017) between random patches of the
    Laplacian pyramids of ``real_images`` and ``fake_images`` ([N, H, H, 3]), from ``H`` down
    to ``resolution_min``: per level, ``(distance real/real, distance real/fake)`` (the first
    between two patch draws of the real images, a baseline)."""
    import numpy as np

    height = real_images.shape[1]
    real_images.shape.assert_is_compatible_with([None, None, height, 3])
    fake_images.shape.assert_is_compatible_with(real_images.shape)
    full = int(height)
    low = min(resolution_min, full)
    num_levels = len(range(int(np.log2(full)), int(np.log2(low)) - 1, -1))
    real_levels = laplacian_pyramid(real_images, num_levels)
    fake_levels = laplacian_pyramid(fake_images, num_levels)
    def distance(a, b):
        if use_svd:
            return _swd_svd(a, b)
        return _swd_random(a, b, random_sampling_count, random_projection_dim)

    scores = []
    for real, fake in zip(real_levels, fake_levels):
        a = _standardized_rows(_random_patches(real, patches_per_image, patch_size))
        b = _standardized_rows(_random_patches(real, patches_per_image, patch_size))
        c = _standardized_rows(_random_patches(fake, patches_per_image, patch_size))
        scores.append((distance(a, b), distance(a, c)))
    return scores


eval = types.ModuleType("tideflow.contrib.gan.eval",
                        "``tfgan.eval``: image grids, summaries, classifier metrics and the "
                        "sliced Wasserstein distance.")
for _name in ("add_cyclegan_image_summaries", "add_image_comparison_summaries",
              "classifier_score", "classifier_score_from_logits", "frechet_classifier_distance",
              "frechet_classifier_distance_from_activations",
              "mean_only_frechet_classifier_distance_from_activations",
              "diagonal_only_frechet_classifier_distance_from_activations",
              "trace_sqrt_product", "laplacian_pyramid", "sliced_wasserstein_distance"):
    setattr(eval, _name, globals()[_name])
eval.image_reshaper = image_reshaper
eval.image_grid = image_grid
eval.add_gan_model_image_summaries = add_gan_model_image_summaries
eval.add_gan_model_summaries = add_gan_model_summaries
eval.add_regularization_loss_summaries = add_regularization_loss_summaries
eval.__all__ = ["add_cyclegan_image_summaries", "add_gan_model_image_summaries",
                "add_gan_model_summaries", "add_image_comparison_summaries",
                "add_regularization_loss_summaries", "classifier_score",
                "classifier_score_from_logits",
                "diagonal_only_frechet_classifier_distance_from_activations",
                "frechet_classifier_distance", "frechet_classifier_distance_from_activations",
                "image_grid", "image_reshaper", "laplacian_pyramid",
                "mean_only_frechet_classifier_distance_from_activations",
                "sliced_wasserstein_distance", "trace_sqrt_product"]

__all__ = [
    "ACGANModel",
    "CycleGANLoss",
    "CycleGANModel",
    "GANLoss",
    "GANModel",
    "GANTrainOps",
    "GANTrainSteps",
    "InfoGANModel",
    "RunTrainOpsHook",
    "StarGANModel",
    "acgan_model",
    "cyclegan_loss",
    "cyclegan_model",
    "estimator",
    "eval",
    "features",
    "gan_loss",
    "gan_model",
    "gan_train",
    "gan_train_ops",
    "get_joint_train_hooks",
    "get_sequential_train_hooks",
    "get_sequential_train_steps",
    "infogan_model",
    "losses",
    "stargan_loss",
    "stargan_model",
]
