"""``tf.contrib.learn``'s estimators over a ``Head`` (TF 1.1-1.4): DNNEstimator,
LinearEstimator, DNNLinearCombinedEstimator, the LogisticRegressor wrapper and the SDCA-trained
SVM; their networks are contrib.learn's (``dnn/hiddenlayer_N/weights``, ``linear/x/weight``)."""

import contextlib
import math
import re

from tideflow import contrib_learn as _learn
from tideflow import contrib_learn_heads as _heads
from tideflow.ops import nn_impl as _nn_impl

_DNN_RATE = 0.05
_LINEAR_RATE = 0.2


def _tf():
    import tideflow

    return tideflow


def _as_features(features):
    return dict(features) if isinstance(features, dict) else {_learn._BARE: features}


def _make_optimizer(optimizer):
    return optimizer() if callable(optimizer) and not isinstance(optimizer, type) else optimizer


def _dnn_logits(features, mode, head, hidden_units, columns, activation_fn, dropout, config,
                min_slice_size):
    return _learn._contrib_dnn_logits(features, mode, hidden_units, head.logits_dimension,
                                      columns, activation_fn, dropout, config, min_slice_size)


def _linear_logits(features, head, columns, config, scope_name="linear"):
    tf = _tf()
    num_ps = config.num_ps_replicas if config else 0
    partitioner = tf.min_max_variable_partitioner(max_partitions=num_ps, min_slice_size=64 << 20)
    with tf.variable_scope(scope_name, values=tuple(features.values()),
                           partitioner=partitioner) as scope:
        logits, cols_to_vars, bias = tf.contrib.layers.weighted_sum_from_feature_columns(
            columns_to_tensors=features, feature_columns=columns,
            num_outputs=head.logits_dimension, weight_collections=[scope_name], scope=scope)
    return logits, cols_to_vars, bias


@contextlib.contextmanager
def _reentered(scope, tensor):
    """Variable scope ``scope`` and the name scope ``tensor`` was built in (its first
    component), entered again: TF builds the head inside the network's own ``with``."""
    tf = _tf()
    with tf.variable_scope(scope, auxiliary_name_scope=False), \
            tf.name_scope(tensor.op.name.split("/")[0] + "/"):
        yield


def _linear_train_op_fn(optimizer, clip_norm, collection="linear"):
    tf = _tf()

    def train_op_fn(loss):
        my_vars = tf.get_collection(collection)
        grads = tf.gradients(loss, my_vars)
        if clip_norm:
            grads, _ = tf.clip_by_global_norm(grads, clip_norm)
        return _make_optimizer(optimizer).apply_gradients(
            zip(grads, my_vars), global_step=tf.train.get_global_step())

    return train_op_fn


class _HeadEstimator(_learn._Canned):
    """A contrib.learn Estimator whose model_fn ends in a contrib ``Head``: predictions,
    the loss and the eval metrics are the head's, under its keys."""

    _feeds_arrays = True
    _contrib_linear_names = True

    def __init__(self, head, model_dir, config, feature_engineering_fn):
        self._head = head
        self._user_model_fn = self._model_fn
        self._feature_engineering_fn = feature_engineering_fn
        self._init_core(self._contrib_model_fn, model_dir, config)
        self._head_scope = getattr(head, "_default_scope", "head")

    def _model_fn(self, features, labels, mode, config):
        return self._build(_as_features(features), labels, mode, config)

    # the canned classifiers' and regressors' predict (classes or scores) rather than the
    # head's whole dict
    _canned_predict = False
    _sparse_keys = frozenset()
    _SLOT = re.compile(r"^linear/linear_model/(bias_weights|[^/]*/weights)/.*/part_0/"
                       r"([^/]+)$")

    def _eval_result(self, result, metrics=None):
        return result

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None, as_iterable=True):
        if self._canned_predict:
            return super().predict(x, input_fn, batch_size, outputs, as_iterable)
        return _learn.Estimator.predict(self, x, input_fn, batch_size, outputs, as_iterable)

    def _note_columns(self, columns):
        from tideflow.feature_column import feature_column as fc

        self._sparse_keys = frozenset(c.name for c in columns
                                      if isinstance(c, fc._CategoricalColumn))

    def _contrib_linear_name(self, name):
        """contrib.learn's names: ``linear/<column>/weights`` for sparse columns (``weight``
        for dense ones), also inside the SDCA slots' names."""
        slot = self._SLOT.match(name)
        if slot is not None:
            # an optimizer slot of a partitioned weight: TF names it after the weight, then
            # the slot variable's name (built under "<head>/linear/") less as many leading
            # characters as "<weight>/part_0/" has
            column, slot_name = slot.groups()
            if column == "bias_weights":
                weight = "linear/bias_weight"
            else:
                col = column[:-len("/weights")]
                weight = f"linear/{col}/weight" + ("s" if col in self._sparse_keys else "")
            full = f"{self._head_scope}/linear/{weight}/part_0/{slot_name}"
            return f"{weight}/" + full[len(f"{weight}/part_0/"):]
        m = re.match(r"^(.*?)linear/linear_model/(.*)$", name)
        if m is None:
            return super()._contrib_linear_name(name)
        prefix, rest = m.groups()
        col = re.match(r"^([^/]*)/weights(.*)$", rest)
        if col is not None and col.group(1) in self._sparse_keys:
            return f"{prefix}linear/{col.group(1)}/weights{col.group(2)}"
        mapped = super()._contrib_linear_name(name)
        if mapped != name:
            return mapped
        rest = re.sub(r"^bias_weights", "bias_weight", rest)
        if col is not None:
            rest = f"{col.group(1)}/weight{col.group(2)}"
        return f"{prefix}linear/{rest}"


class DNNEstimator(_HeadEstimator):
    """``tf.contrib.learn.DNNEstimator``: contrib.learn's fully connected network with any
    ``Head`` on top (Adagrad at 0.05 unless ``optimizer`` says otherwise)."""

    def __init__(self, head, hidden_units, feature_columns, model_dir=None, optimizer=None,
                 activation_fn=_nn_impl.relu, dropout=None, gradient_clip_norm=None,
                 config=None, feature_engineering_fn=None, embedding_lr_multipliers=None,
                 input_layer_min_slice_size=None):
        self._hidden_units = hidden_units
        self._columns = list(feature_columns)
        self._optimizer = optimizer
        self._activation_fn = activation_fn
        self._dropout = dropout
        self._clip = gradient_clip_norm
        self._min_slice_size = input_layer_min_slice_size
        super().__init__(head, model_dir, config, feature_engineering_fn)

    def _build(self, features, labels, mode, config):
        tf = _tf()
        logits = _dnn_logits(features, mode, self._head, self._hidden_units, self._columns,
                             self._activation_fn, self._dropout, config, self._min_slice_size)

        def train_op_fn(loss):
            return tf.contrib.layers.optimize_loss(
                loss=loss, global_step=tf.train.get_global_step(), learning_rate=_DNN_RATE,
                optimizer=_make_optimizer(self._optimizer or "Adagrad"),
                clip_gradients=self._clip, name="dnn", summaries=[])

        # TF builds the head inside the network's "dnn" scope (its learning rate variable is
        # dnn/<head>/dnn/learning_rate)
        with _reentered("dnn", logits):
            return self._head.create_model_fn_ops(features=features, mode=mode, labels=labels,
                                                  train_op_fn=train_op_fn, logits=logits)


class LinearEstimator(_HeadEstimator):
    """``tf.contrib.learn.LinearEstimator``: a linear model on ``feature_columns`` with any
    ``Head`` on top (FTRL at min(0.2, 1/sqrt(#columns)) unless ``optimizer`` says
    otherwise)."""

    def __init__(self, feature_columns, head, model_dir=None, weight_column_name=None,
                 optimizer=None, gradient_clip_norm=None, _joint_weights=False, config=None,
                 feature_engineering_fn=None):
        from tideflow.contrib_learn import _is_sdca

        if _is_sdca(optimizer):
            raise ValueError("LinearEstimator does not support SDCA optimizer.")
        self._columns = list(feature_columns)
        self._optimizer = optimizer
        self._clip = gradient_clip_norm
        self._note_columns(self._columns)
        super().__init__(head, model_dir, config, feature_engineering_fn)

    def _build(self, features, labels, mode, config):
        tf = _tf()
        logits, _, _ = _linear_logits(features, self._head, self._columns, config)
        optimizer = self._optimizer or (lambda: tf.train.FtrlOptimizer(
            min(_LINEAR_RATE, 1.0 / math.sqrt(len(self._columns)))))
        # as TF, the head (its centered bias too) is built in the model's "linear" scope
        with _reentered("linear", logits):
            return self._head.create_model_fn_ops(
                features=features, mode=mode, labels=labels,
                train_op_fn=_linear_train_op_fn(optimizer, self._clip), logits=logits)


class DNNLinearCombinedEstimator(_HeadEstimator):
    """``tf.contrib.learn.DNNLinearCombinedEstimator`` (wide and deep over any ``Head``):
    the linear and DNN logits summed, each part trained by its own optimizer."""

    def __init__(self, head, model_dir=None, linear_feature_columns=None,
                 linear_optimizer=None, _joint_linear_weights=False, dnn_feature_columns=None,
                 dnn_optimizer=None, dnn_hidden_units=None, dnn_activation_fn=None,
                 dnn_dropout=None, gradient_clip_norm=None, config=None,
                 feature_engineering_fn=None, embedding_lr_multipliers=None,
                 fix_global_step_increment_bug=False, input_layer_partitioner=None):
        linear = list(linear_feature_columns or [])
        dnn = list(dnn_feature_columns or [])
        if not linear and not dnn:
            raise ValueError("Either linear_feature_columns or dnn_feature_columns "
                             "must be defined.")
        if dnn and not dnn_hidden_units:
            raise ValueError("dnn_hidden_units must be defined when dnn_feature_columns is "
                             "specified.")
        self._linear, self._dnn = linear, dnn
        self._linear_optimizer, self._dnn_optimizer = linear_optimizer, dnn_optimizer
        self._hidden_units = dnn_hidden_units
        self._activation_fn = dnn_activation_fn or _nn_impl.relu
        self._dropout = dnn_dropout
        self._clip = gradient_clip_norm
        self._fix_step = fix_global_step_increment_bug
        self._note_columns(linear)
        super().__init__(head, model_dir, config, feature_engineering_fn)

    def _build(self, features, labels, mode, config):
        tf = _tf()
        parts = []
        if self._dnn:
            parts.append(_dnn_logits(features, mode, self._head, self._hidden_units, self._dnn,
                                     self._activation_fn, self._dropout, config, None))
        if self._linear:
            parts.append(_linear_logits(features, self._head, self._linear, config)[0])
        logits = parts[0] if len(parts) == 1 else parts[0] + parts[1]
        # each part's optimizer steps the global step unless the bug fix is asked for (TF
        # 1.15's default counts a combined step twice)
        step_each = not self._fix_step

        def train_op_fn(loss):
            gs = tf.train.get_global_step()
            ops = []
            if self._dnn:
                ops.append(tf.contrib.layers.optimize_loss(
                    loss=loss, global_step=gs, learning_rate=_DNN_RATE,
                    optimizer=_make_optimizer(self._dnn_optimizer or "Adagrad"),
                    clip_gradients=self._clip, variables=tf.get_collection("dnn"),
                    name="dnn", summaries=[], increment_global_step=step_each))
            if self._linear:
                rate = min(_LINEAR_RATE, 1.0 / math.sqrt(len(self._linear)))
                ops.append(tf.contrib.layers.optimize_loss(
                    loss=loss, global_step=gs, learning_rate=rate,
                    optimizer=_make_optimizer(self._linear_optimizer or "Ftrl"),
                    clip_gradients=self._clip, variables=tf.get_collection("linear"),
                    name="linear", summaries=[], increment_global_step=step_each))
            train_op = tf.group(*ops)
            if not step_each:
                with tf.control_dependencies([train_op]):
                    train_op = tf.assign_add(gs, 1).op
            return train_op

        return self._head.create_model_fn_ops(features=features, mode=mode, labels=labels,
                                              train_op_fn=train_op_fn, logits=logits)


def _logistic_metrics(labels, predictions, thresholds):
    tf = _tf()
    if isinstance(labels, dict) and len(labels) == 1:
        labels = next(iter(labels.values()))
    metrics = {_heads.PREDICTION_MEAN: tf.metrics.mean(predictions),
               _heads.LABEL_MEAN: tf.metrics.mean(labels),
               _heads.ACCURACY_BASELINE: tf.metrics.mean(labels),
               _heads.AUC: tf.metrics.auc(labels=labels, predictions=predictions)}
    for t in thresholds:
        at = tf.cast(tf.greater_equal(predictions, t), tf.float32,
                     name=f"predictions_at_threshold_{t:f}")
        metrics[_heads.ACCURACY_MEAN % t] = tf.metrics.accuracy(labels=labels, predictions=at)
        metrics[_heads.PRECISION_MEAN % t] = tf.metrics.precision(labels=labels,
                                                                  predictions=at)
        metrics[_heads.RECALL_MEAN % t] = tf.metrics.recall(labels=labels, predictions=at)
    return metrics


def LogisticRegressor(model_fn, thresholds=None, model_dir=None, config=None,
                      feature_engineering_fn=None):
    """An Estimator for a binary model whose ``model_fn(features, labels, mode)`` returns
    ``(probabilities, loss, train_op)``; evaluation adds the label and prediction means, AUC
    and accuracy/precision/recall at each of ``thresholds`` (default ``[.5]``)."""

    def wrapped(features, labels, mode, params):
        predictions, loss, train_op = model_fn(features, labels, mode)
        metrics = None
        if mode == _learn.ModeKeys.EVAL:
            metrics = _logistic_metrics(labels, predictions, params.get("thresholds") or [.5])
        return _learn.ModelFnOps(
            mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=metrics,
            output_alternatives={"head": (_learn.ProblemType.LOGISTIC_REGRESSION,
                                          {"predictions": predictions})})

    return _learn.Estimator(model_fn=wrapped, model_dir=model_dir, config=config,
                            params={"thresholds": thresholds},
                            feature_engineering_fn=feature_engineering_fn)


def _SdcaUpdateWeightsHook():  # the hook class, loaded on first use
    from tideflow.contrib_linear_optimizer import SdcaUpdateWeightsHook

    return SdcaUpdateWeightsHook()


def sdca_model_fn(features, labels, mode, head, feature_columns, optimizer,
                  weight_column_name=None, update_weights_hook=None, config=None):
    """A linear model trained by SDCA under a binary SVM, logistic or (one-dimensional)
    regression head."""
    from tideflow import contrib_linear_optimizer as sdca

    if not isinstance(optimizer, sdca.SDCAOptimizer):
        raise ValueError("Optimizer must be of type SDCAOptimizer")  # noqa: TRY004 - as TF
    if isinstance(head, _heads._BinarySvmHead):
        loss_type = "hinge_loss"
    elif isinstance(head, _heads._BinaryLogisticHead):
        loss_type = "logistic_loss"
    elif isinstance(head, _heads._RegressionHead):
        if head.logits_dimension != 1:
            raise ValueError("SDCA only applies for logits_dimension=1.")
        loss_type = "squared_loss"
    else:
        raise ValueError(f"Unsupported head type: {head}")  # noqa: TRY004 - as TF
    tf = _tf()
    with tf.variable_scope("linear", values=tuple(features.values()),
                           partitioner=optimizer.partitioner) as scope:
        features = dict(features)
        features.update(tf.contrib.layers.transform_features(features, feature_columns))
        logits, cols_to_vars, bias = tf.contrib.layers.weighted_sum_from_feature_columns(
            columns_to_tensors=features, feature_columns=feature_columns, num_outputs=1,
            scope=scope)
    cols_to_vars = dict(cols_to_vars)
    bias_column = sdca._BiasColumn()
    cols_to_vars[bias_column] = [bias] if not isinstance(bias, list) else bias

    def train_op_fn(unused_loss):
        model, train_op = optimizer.get_train_step(
            cols_to_vars, weight_column_name, loss_type, features, labels,
            tf.train.get_global_step())
        if update_weights_hook is not None:
            update_weights_hook.set_parameters(model, train_op)
        return train_op

    ops = head.create_model_fn_ops(features=features, labels=labels, mode=mode,
                                   train_op_fn=train_op_fn, logits=logits)
    if update_weights_hook is not None:
        return ops._replace(training_chief_hooks=ops.training_chief_hooks
                            + [update_weights_hook])
    return ops


class SVM(_HeadEstimator):
    """``tf.contrib.learn.SVM``: a binary linear SVM (hinge loss) trained by stochastic dual
    coordinate ascent; ``example_id_column`` names the feature holding each example's unique
    string id (SDCA keeps one dual variable per example)."""

    _feeds_arrays = False

    def __init__(self, example_id_column, feature_columns, weight_column_name=None,
                 model_dir=None, l1_regularization=0.0, l2_regularization=0.0,
                 num_loss_partitions=1, kernels=None, config=None,
                 feature_engineering_fn=None):
        from tideflow import contrib_linear_optimizer as sdca

        if kernels is not None:
            raise ValueError("Kernel SVMs are not currently supported.")
        self._sdca = sdca.SDCAOptimizer(example_id_column=example_id_column,
                                        num_loss_partitions=num_loss_partitions,
                                        symmetric_l1_regularization=l1_regularization,
                                        symmetric_l2_regularization=l2_regularization)
        self._feature_columns = list(feature_columns)
        self._weight_column_name = weight_column_name
        self._hook = _SdcaUpdateWeightsHook()
        self._note_columns(self._feature_columns)
        super().__init__(_heads.binary_svm_head(weight_column_name=weight_column_name,
                                                enable_centered_bias=False),
                         model_dir, config, feature_engineering_fn)

    def _build(self, features, labels, mode, config):
        return sdca_model_fn(features, labels, mode, self._head, self._feature_columns,
                             self._sdca, self._weight_column_name, self._hook, config)

    def predict_classes(self, x=None, input_fn=None, batch_size=None, as_iterable=True):
        """The predicted class of each example."""
        return self._one("classes", x, input_fn, batch_size, as_iterable)

    def predict_proba(self, x=None, input_fn=None, batch_size=None, outputs=None,
                      as_iterable=True):
        """As TF 1.15's: the head has no probabilities, so this raises a ValueError."""
        return self._one("probabilities", x, input_fn, batch_size, as_iterable)


class _SdcaLinear(_HeadEstimator):
    """contrib.learn's LinearClassifier (binary) or LinearRegressor given an SDCAOptimizer:
    the linear model trained by SDCA under the logistic or squared loss."""

    _canned_predict = True

    def __init__(self, head, feature_columns, optimizer, weight_column_name, model_dir,
                 config, feature_engineering_fn, classifier):
        self._classifier = classifier
        self._feature_columns = list(feature_columns)
        self._sdca = optimizer
        self._weight_column_name = weight_column_name
        self._hook = _SdcaUpdateWeightsHook()
        self._note_columns(self._feature_columns)
        super().__init__(head, model_dir, config, feature_engineering_fn)

    def _build(self, features, labels, mode, config):
        return sdca_model_fn(features, labels, mode, self._head, self._feature_columns,
                             self._sdca, self._weight_column_name, self._hook, config)


def sdca_linear(classifier, feature_columns, optimizer, n_classes=2, weight_column_name=None,
                model_dir=None, config=None, feature_engineering_fn=None, label_dimension=1,
                enable_centered_bias=False):
    """The SDCA-trained contrib LinearClassifier / LinearRegressor."""
    # TF 1.15's checks (its asserts among them)
    if classifier:
        if enable_centered_bias:
            raise ValueError("enable_centered_bias is not supported with SDCA")
        if n_classes != 2:
            raise AssertionError("SDCA only applies to binary classification.")
        head = _heads.multi_class_head(2, weight_column_name=weight_column_name)
    else:
        if enable_centered_bias:
            from tideflow import logging

            logging.warning("centered_bias is not supported with SDCA, please disable it "
                            "explicitly.")
        if label_dimension != 1:
            raise AssertionError("SDCA only applies for label_dimension=1.")
        head = _heads.regression_head(weight_column_name=weight_column_name)
    return _SdcaLinear(head, feature_columns, optimizer, weight_column_name, model_dir, config,
                       feature_engineering_fn, classifier)


__all__ = ["SVM", "DNNEstimator", "DNNLinearCombinedEstimator", "LinearEstimator",
           "LogisticRegressor", "sdca_linear", "sdca_model_fn"]
