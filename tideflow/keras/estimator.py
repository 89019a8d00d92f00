"""``tf.keras.estimator.model_to_estimator``: an Estimator whose ``model_fn`` rebuilds a
compiled functional or Sequential Keras model on the input tensors, trains it with the model's
loss and optimizer, reports its metrics as ``tf.metrics.mean`` values, and warm-starts from the
Keras model's current weights saved in ``model_dir/keras`` (as TF 1.15)."""

import os

import tideflow as tf
from tideflow.keras import backend as K
from tideflow.keras import layers as layers_mod
from tideflow.keras import optimizers as optimizers_mod
from tideflow.keras.engine.base_layer import flatten


def _same_name_clone(layer):
    return layers_mod.deserialize(layers_mod.serialize(layer))


def _pick(value, names, what):
    if isinstance(value, dict):
        missing = [n for n in names if n not in value]
        if missing:
            raise ValueError(f"model_to_estimator: the {what} dict has keys {sorted(value)} but "
                             f"the Keras model needs {names}.")
        return [value[n] for n in names]
    values = flatten(value)
    if len(values) != len(names):
        raise ValueError(f"model_to_estimator: the Keras model takes {len(names)} {what} "
                         f"({names}), got {len(values)}.")
    return values


def _first_weights(keras_model, config):
    """The weights the Estimator starts from: the Keras model's own once any is initialized;
    else, as TF 1.15, those of a clone made in a new graph seeded with the RunConfig's
    ``tf_random_seed`` (after its global step), so the Keras model's session is not touched."""
    if any(getattr(w, "_keras_initialized", False) for w in keras_model.weights):
        return keras_model.get_weights()
    from tideflow.keras.models import clone_model

    with tf.Graph().as_default():
        tf.set_random_seed(getattr(config, "tf_random_seed", None))
        tf.train.create_global_step()
        clone = clone_model(keras_model, clone_function=_same_name_clone)
        with tf.Session() as sess:
            sess.run(tf.variables_initializer(clone.weights))
            return sess.run(clone.weights)


def model_to_estimator(keras_model=None, keras_model_path=None, custom_objects=None,
                       model_dir=None, config=None, checkpoint_format="saver"):
    """An ``Estimator`` training and evaluating ``keras_model`` (compiled) on the features and
    labels of its ``input_fn``: features keyed by the model's input names (or a tensor for one
    input), labels by its output names (or a tensor for one output)."""
    from tideflow import estimator as est
    from tideflow.estimator.estimator import maybe_overwrite_model_dir_and_session_config
    from tideflow.keras.models import clone_model

    if keras_model is not None and keras_model_path is not None:
        raise ValueError("Please specify either `keras_model` or `keras_model_path`, but not "
                         "both.")
    if keras_model_path is not None:  # an HDF5 model file (model.save)
        from tideflow.keras.saving import load_model

        if not os.path.exists(keras_model_path):
            raise ValueError(f"Keras model path {keras_model_path} does not exist.")
        keras_model = load_model(keras_model_path, custom_objects=custom_objects)
    if keras_model is None:
        raise ValueError("Either `keras_model` or `keras_model_path` needs to be provided.")
    if not keras_model._is_graph_network:
        raise NotImplementedError("model_to_estimator supports functional and Sequential "
                                  "models; subclassed models cannot be cloned.")
    if not getattr(keras_model, "_compiled", False) or keras_model.optimizer is None:
        raise ValueError("The given keras model has not been compiled yet. Please compile the "
                         "model with `model.compile()` before calling `model_to_estimator()`.")
    config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
    weights = _first_weights(keras_model, config)
    opt = keras_model.optimizer
    tf_opt = opt.optimizer if isinstance(opt, optimizers_mod.TFOptimizer) else None
    opt_cls, opt_config = type(opt), (None if tf_opt is not None else opt.get_config())
    input_names = list(keras_model.input_names)
    output_names = list(keras_model.output_names)
    input_dtypes = [t.dtype.base_dtype for t in keras_model.inputs]
    compile_args = {"loss": keras_model.loss, "metrics": keras_model._compile_metrics,
                    "loss_weights": keras_model.loss_weights}
    built = []  # the clone of the last model_fn call

    def model_fn(features, labels, mode):
        training = mode == est.ModeKeys.TRAIN
        K.set_learning_phase(1 if training else 0)
        xs = [tf.cast(x, d) if x.dtype.base_dtype != d else x
              for x, d in zip(_pick(features, input_names, "inputs"), input_dtypes)]
        model = clone_model(keras_model, input_tensors=xs, clone_function=_same_name_clone)
        built[:] = [model]
        outputs = model.outputs
        predictions = dict(zip(output_names, outputs))
        if mode == est.ModeKeys.PREDICT:
            return est.EstimatorSpec(mode, predictions=predictions)
        ys = [tf.cast(y, o.dtype.base_dtype)
              for y, o in zip(_pick(labels, output_names, "labels"), outputs)]
        model.output_names = output_names
        # as TF 1.15's clone: the optimizer counts its steps in the global step (no
        # iterations variable of its own)
        step = tf.train.get_or_create_global_step()
        if tf_opt is not None:
            optimizer = optimizers_mod.TFOptimizer(tf_opt, iterations=step)
        else:
            optimizer = opt_cls.from_config(opt_config)
            optimizer.__dict__["_step_counter"] = step
        model.compile(optimizer=optimizer, target_tensors=ys, **compile_args)
        loss = model.total_loss
        train_op = None
        if training:
            with K.name_scope("training"):
                updates = model.optimizer.get_updates(loss, model._collected_trainable_weights)
            train_op = tf.group(*(list(updates) + list(model._model_updates())))
        batch = tf.cast(tf.shape(outputs[0])[0], tf.float32)  # weights: sample means
        # as TF 1.15: a compiled metric object is the estimator's metric itself (its
        # variables local ones); a value without one is averaged over the batches
        objects = dict(zip(sorted(model._stateful_positions), model._stateful_metrics))
        eval_metric_ops = {
            name: objects.get(j + 1) or tf.metrics.mean(value, weights=batch)
            for j, (name, value) in enumerate(zip(model.metrics_names[1:],
                                                  model._metric_tensors))}
        return est.EstimatorSpec(mode, predictions=predictions, loss=loss, train_op=train_op,
                                 eval_metric_ops=eval_metric_ops)

    warm_start_path = _save_first_checkpoint(model_fn, built, keras_model, weights, config)
    return est.Estimator(model_fn, config=config, warm_start_from=warm_start_path)


def _save_first_checkpoint(model_fn, built, keras_model, weights, config):
    """As TF 1.15: unless ``model_dir/keras`` holds a checkpoint already, the training graph's
    variables (optimizer's included) saved there as ``keras_model.ckpt`` with the Keras weights;
    the Estimator warm-starts its trainable variables from it."""
    from tideflow.estimator import ModeKeys

    keras_dir = os.path.join(config.model_dir, "keras")
    latest = tf.train.latest_checkpoint(keras_dir)
    if latest:
        return latest
    os.makedirs(keras_dir, exist_ok=True)
    with tf.Graph().as_default():
        tf.set_random_seed(config.tf_random_seed)
        tf.train.create_global_step()
        # the model's inputs, and targets of its outputs' ranks as Keras makes them
        features = {name: tf.placeholder(t.dtype.base_dtype, t.shape)
                    for name, t in zip(keras_model.input_names, keras_model.inputs)}
        labels = {name: tf.placeholder(t.dtype.base_dtype, [None] * t.shape.ndims)
                  for name, t in zip(keras_model.output_names, keras_model.outputs)}
        model_fn(features, labels, ModeKeys.TRAIN)
        with tf.Session(config=config.session_config) as sess:
            sess.run(tf.global_variables_initializer())
            for w, value in zip(built[0].weights, weights):
                w.load(value, sess)
            path = os.path.join(keras_dir, "keras_model.ckpt")
            tf.train.Saver().save(sess, path)
    return path
