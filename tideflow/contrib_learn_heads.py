"""``tf.contrib.learn``'s heads (TF 1.1-1.4): the loss, predictions and eval metrics on top of
a model's logits, as ``Head.create_model_fn_ops`` builds them into a ``ModelFnOps``."""

import abc

# TF's metric keys (contrib.learn's metric_key.MetricKey)
LOSS = "loss"
AUC = "auc"
AUC_PR = "auc_precision_recall"
CLASS_AUC = "auc/class%d"
CLASS_AUC_PR = "auc_precision_recall/class%d"
PREDICTION_MEAN = "labels/prediction_mean"
CLASS_PREDICTION_MEAN = "labels/prediction_mean/class%d"
CLASS_LOGITS_MEAN = "labels/logits_mean/class%d"
CLASS_PROBABILITY_MEAN = "labels/probability_mean/class%d"
LABEL_MEAN = "labels/actual_label_mean"
CLASS_LABEL_MEAN = "labels/actual_label_mean/class%d"
ACCURACY = "accuracy"
ACCURACY_BASELINE = "accuracy/baseline_label_mean"
ACCURACY_MEAN = "accuracy/threshold_%f_mean"
PRECISION_MEAN = "precision/positive_threshold_%f_mean"
RECALL_MEAN = "recall/positive_threshold_%f_mean"


def _tf():
    import tideflow

    return tideflow


def _learn():
    from tideflow import contrib_learn

    return contrib_learn


class Head(abc.ABC):
    """The top of a model: given logits (or the input to a last linear layer), builds the
    loss, the train op (through ``train_op_fn``), predictions and eval metrics."""

    @abc.abstractproperty
    def logits_dimension(self):
        """The size of the logits' last dimension."""

    @abc.abstractmethod
    def create_model_fn_ops(self, features, mode, labels=None, train_op_fn=None, logits=None,
                            logits_input=None, scope=None):
        """A ``ModelFnOps`` for ``mode``; exactly one of ``logits`` and ``logits_input``."""


def no_op_train_fn(loss):
    """A ``train_op_fn`` that trains nothing."""
    del loss
    return _tf().no_op()


def _key(head_name, key):
    return f"{key}/{head_name}" if head_name else key


def _check_mode(mode):
    if mode not in ("train", "eval", "infer"):
        raise ValueError(f"mode={mode} unrecognized.")


def _weight_tensor(features, weight_column_name):
    """The example weights as a float column ``[batch, 1]`` (or as given when not rank 1)."""
    if not weight_column_name:
        return None
    if weight_column_name not in features:
        raise ValueError(f"Weights {weight_column_name} missing from features.")
    tf = _tf()
    with tf.name_scope(None, "weight_tensor", tuple(features.values())):
        w = tf.cast(features[weight_column_name], tf.float32)
        if w.get_shape().ndims == 1:
            return tf.reshape(w, (-1, 1))
        return w


def _weighted_loss(loss, weights, name="loss"):
    """(training loss, reported loss): the mean of ``loss * weights`` over the batch, and the
    weighted average ``sum(loss * w) / sum(w)`` the summaries and eval report."""
    tf = _tf()
    from tideflow.ops import weights_broadcast_ops

    with tf.name_scope(name, values=(loss, weights)) as scope:
        if weights is None:
            mean = tf.reduce_mean(loss, name=scope)
            return mean, mean
        weights = weights_broadcast_ops.broadcast_weights(weights, loss)
        with tf.name_scope(None, "weighted_loss", (loss, weights)) as inner:
            weighted = tf.multiply(loss, weights, name=inner)
        mean = tf.reduce_mean(weighted, name=scope)
        normalized = tf.div(tf.reduce_sum(weighted), tf.cast(tf.reduce_sum(weights), tf.float32),
                            name="weighted_average_loss")
        return mean, normalized


def _as_column(t):
    tf = _tf()
    t = tf.convert_to_tensor(t)
    return tf.expand_dims(t, axis=1) if t.get_shape().ndims == 1 else t


def _mean_squared_loss(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "mean_squared_loss", (logits, labels)) as name:
        labels, logits = _as_column(labels), _as_column(logits)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        loss = tf.squared_difference(logits, tf.cast(labels, tf.float32), name=name)
        return _weighted_loss(loss, weights)


def _poisson_loss(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "_poisson_loss", (logits, labels)) as name:
        labels, logits = _as_column(labels), _as_column(logits)
        logits.get_shape().assert_is_compatible_with(labels.get_shape())
        loss = tf.nn.log_poisson_loss(labels, logits, compute_full_loss=True, name=name)
        return _weighted_loss(loss, weights)


def _log_loss_with_two_classes(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "log_loss_with_two_classes", (logits, labels)) as name:
        labels = _as_column(tf.cast(labels, tf.float32))
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits, name=name)
        return _weighted_loss(loss, weights)


def _softmax_cross_entropy_loss(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "softmax_cross_entropy_loss", (logits, labels)) as name:
        labels = tf.convert_to_tensor(labels)
        if not labels.dtype.is_integer:
            raise ValueError(f"Labels dtype should be integer Instead got {labels.dtype}.")
        squeezed = labels.get_shape().ndims == 2
        if squeezed:
            labels = tf.squeeze(labels, axis=(1,))
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                              name=name)
        if squeezed:
            loss = tf.expand_dims(loss, axis=(1,))
        return _weighted_loss(loss, weights)


def _sigmoid_cross_entropy_loss(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "sigmoid_cross_entropy_loss", (logits, labels)) as name:
        loss = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(labels, tf.float32),
                                                       logits=logits, name=name)
        return _weighted_loss(loss, weights)


def _assert_labels_rank(labels):
    tf = _tf()
    return tf.Assert(tf.less_equal(tf.rank(labels), 2),
                     ("labels shape should be either [batch_size, 1] or [batch_size]",))


def _hinge_loss(labels, logits, weights=None):
    tf = _tf()
    with tf.name_scope(None, "hinge_loss", (logits, labels)) as name:
        with tf.control_dependencies((_assert_labels_rank(labels),)):
            labels = tf.reshape(labels, shape=(-1, 1))
        loss = tf.losses.hinge_loss(labels=labels, logits=logits, scope=name,
                                    reduction=tf.losses.Reduction.NONE)
        return _weighted_loss(loss, weights)


def _custom_loss(loss_fn):
    def wrapped(labels, logits, weights=None):
        loss = loss_fn(labels, logits) if weights is None else loss_fn(labels, logits, weights)
        return loss, loss

    return wrapped


def _check_loss_fn_args(loss_fn):
    from tideflow.contrib_learn import _fn_args

    args = _fn_args(loss_fn)
    for name in ("labels", "logits", "weights"):
        if name not in args:
            raise ValueError(f"Argument {name} not found in loss_fn.")


def _labels_tensor(labels, label_name):
    tf = _tf()
    labels = labels[label_name] if isinstance(labels, dict) else labels
    return tf.convert_to_tensor_or_sparse_tensor(labels)


def _no_sparse(x):
    tf = _tf()
    if isinstance(x, tf.SparseTensor):
        raise ValueError("SparseTensor is not supported.")  # noqa: TRY004 - as TF


def _logits(logits_input, logits, logits_dimension):
    """``logits`` checked against ``logits_dimension``, or a linear layer ("logits") over
    ``logits_input``."""
    tf = _tf()
    if logits_dimension is None or logits_dimension < 1:
        raise ValueError(f"Invalid logits_dimension {logits_dimension}.")
    if logits is None:
        if logits_input is None:
            raise ValueError("Neither logits nor logits_input supplied.")
        return tf.contrib.layers.linear(logits_input, logits_dimension, scope="logits")
    if logits_input is not None:
        raise ValueError("Both logits and logits_input supplied.")
    logits = tf.convert_to_tensor(logits, name="logits")
    dims = logits.get_shape().dims
    if dims is not None:
        dims[-1].assert_is_compatible_with(logits_dimension)
    return logits


def _centered_bias(logits_dimension, head_name):
    tf = _tf()
    bias = tf.Variable(tf.zeros(shape=(logits_dimension,)), name="centered_bias_weight",
                       trainable=True)
    for dim in range(logits_dimension):
        tag = f"centered_bias/bias_{dim}" + (f"/{head_name}" if head_name else "")
        tf.summary.scalar(tag, bias[dim])
    return bias


def _centered_bias_step(bias, batch_size, labels, loss_fn, weights):
    tf = _tf()
    with tf.name_scope(None, "centered_bias_step", (labels,)) as name:
        dim = tf.shape(bias)[0]
        logits = tf.reshape(tf.tile(bias, (batch_size,)), (batch_size, dim))
        with tf.name_scope(None, "centered_bias", (labels, logits)):
            loss = tf.reduce_mean(loss_fn(labels, logits, weights), name="training_loss")
    return tf.train.AdagradOptimizer(0.1).minimize(loss, var_list=(bias,), name=name)


def _metric_mean(values, weights=None, class_id=None):
    """The streaming mean of float ``values`` (one class's column with ``class_id``)."""
    tf = _tf()
    from tideflow.ops import weights_broadcast_ops

    values = tf.cast(values, tf.float32)
    if weights is not None:
        weights = weights_broadcast_ops.broadcast_weights(tf.cast(weights, tf.float32), values)
    if class_id is not None:
        if weights is not None:
            weights = weights[:, class_id]
        values = values[:, class_id]
    return tf.metrics.mean(values, weights)


def _class_mean(ids, weights, class_id):
    """The streaming fraction of ``ids`` equal to ``class_id``."""
    tf = _tf()
    hit = tf.equal(tf.cast(class_id, tf.int32), tf.cast(ids, tf.int32))
    return tf.metrics.mean(tf.where(hit, tf.ones_like(ids), tf.zeros_like(ids)),
                           weights=weights)


def _auc(predictions, labels, weights=None, class_id=None, curve="ROC"):
    tf = _tf()
    from tideflow.ops import weights_broadcast_ops

    predictions = tf.cast(predictions, tf.float32)
    if labels.dtype.base_dtype != tf.bool:
        labels = tf.cast(labels, tf.bool)
    if weights is not None:
        weights = weights_broadcast_ops.broadcast_weights(tf.cast(weights, tf.float32),
                                                          predictions)
    if class_id is not None:
        if weights is not None:
            weights = weights[:, class_id]
        predictions = predictions[:, class_id]
        labels = labels[:, class_id]
    return tf.metrics.auc(labels, predictions, weights, curve=curve)


def _threshold_metrics(metrics, head_name, probabilities, labels, weights, thresholds):
    tf = _tf()
    fw = None if weights is None else tf.cast(weights, tf.float32)
    for t in thresholds:
        above = tf.cast(tf.greater_equal(probabilities, t), tf.float32)
        metrics[_key(head_name, ACCURACY_MEAN % t)] = tf.metrics.accuracy(labels, above,
                                                                          weights)
        for key, fn in ((PRECISION_MEAN, tf.metrics.precision_at_thresholds),
                        (RECALL_MEAN, tf.metrics.recall_at_thresholds)):
            value, update = fn(labels, probabilities, (t,), fw)
            metrics[_key(head_name, key % t)] = (tf.squeeze(value), tf.squeeze(update))


class _SingleHead(Head):
    """A head over one label: the problem type, logits size, label and weight keys."""

    _default_scope = "head"
    _loss_fn = None

    def __init__(self, problem_type, logits_dimension, label_name=None,
                 weight_column_name=None, head_name=None, enable_centered_bias=False):
        if problem_type is None:
            raise ValueError(f"Invalid problem_type {problem_type}.")
        if logits_dimension is None or logits_dimension < 1:
            raise ValueError(f"Invalid logits_dimension {logits_dimension}.")
        self._problem_type = problem_type
        self._logits_dimension = logits_dimension
        self._label_name = label_name
        self._weight_column_name = weight_column_name
        self._head_name = head_name
        self._enable_centered_bias = enable_centered_bias

    logits_dimension = property(lambda self: self._logits_dimension)
    label_name = property(lambda self: self._label_name)
    weight_column_name = property(lambda self: self._weight_column_name)
    head_name = property(lambda self: self._head_name)

    def _transform_labels(self, mode, labels):
        if mode == "infer" or labels is None:
            return None
        t = _labels_tensor(labels, self._label_name)
        _no_sparse(t)
        return t

    def _train_loss(self, labels, logits, weights):
        return self._loss_fn(labels, logits, weights)

    def _output_alternatives(self, predictions):
        return {self._head_name: (self._problem_type, predictions)}

    def create_model_fn_ops(self, features, mode, labels=None, train_op_fn=None, logits=None,
                            logits_input=None, scope=None):
        tf = _tf()
        learn = _learn()
        with tf.variable_scope(scope, default_name=self._head_name or self._default_scope,
                               values=tuple(features.values()) + (labels, logits,
                                                                  logits_input)):
            labels = self._transform_labels(mode, labels)
            logits = _logits(logits_input, logits, self._logits_dimension)
            _check_mode(mode)
            bias = None
            if self._enable_centered_bias:
                bias = _centered_bias(self._logits_dimension, self._head_name)
                logits = tf.nn.bias_add(logits, bias)
            predictions = self._predictions(logits)
            loss = train_op = metrics = None
            if mode != "infer" and labels is not None:
                weights = _weight_tensor(features, self._weight_column_name)
                loss, reported = self._train_loss(labels, logits, weights)
                with tf.name_scope(""):
                    tf.summary.scalar(_key(self._head_name, LOSS), tf.identity(reported))
                if mode == "train":
                    if train_op_fn is None:
                        raise ValueError("train_op_fn can not be None in TRAIN mode")
                    step = None
                    if bias is not None:
                        step = _centered_bias_step(bias, tf.shape(logits)[0], labels,
                                                   self._train_loss, weights)
                    with tf.name_scope(None, "train_op", (loss, labels)):
                        train_op = train_op_fn(loss)
                        if step is not None:
                            train_op = tf.group(train_op, step)
                metrics = self._metrics(reported, predictions, labels, weights)
            return learn.ModelFnOps(mode=mode, predictions=predictions, loss=loss,
                                    train_op=train_op, eval_metric_ops=metrics,
                                    output_alternatives=self._output_alternatives(predictions))


class _RegressionHead(_SingleHead):
    _default_scope = "regression_head"

    def __init__(self, label_dimension, loss_fn, link_fn, logits_dimension=None,
                 label_name=None, weight_column_name=None, enable_centered_bias=False,
                 head_name=None):
        super().__init__(_learn().ProblemType.LINEAR_REGRESSION,
                         logits_dimension if logits_dimension is not None else label_dimension,
                         label_name, weight_column_name, head_name, enable_centered_bias)
        self._loss_fn = loss_fn
        self._link_fn = link_fn

    def _predictions(self, logits):
        tf = _tf()
        with tf.name_scope(None, "predictions", (logits,)):
            if self._logits_dimension == 1:
                logits = tf.squeeze(logits, axis=(1,), name="scores")
            return {"scores": self._link_fn(logits)}

    def _metrics(self, eval_loss, predictions, labels, weights):
        tf = _tf()
        with tf.name_scope("metrics", values=[eval_loss]):
            return {_key(self._head_name, LOSS): tf.metrics.mean(eval_loss)}


def _class_alternatives(head, label_keys=None):
    """The exported form of a classifier's predictions: probabilities and the class names."""
    def make(predictions):
        tf = _tf()
        probabilities = predictions.get("probabilities")
        if probabilities is None:
            raise ValueError("probabilities missing in predictions")
        with tf.name_scope(None, "_classification_output_alternatives", (probabilities,)):
            batch = tf.shape(probabilities)[0]
            if label_keys:
                classes = tf.tile(tf.expand_dims(label_keys, 0), [batch, 1],
                                  name="classes_tensor")
            else:
                n = tf.shape(probabilities)[1]
                classes = tf.tile(tf.expand_dims(tf.range(n), 0), [batch, 1])
                classes = tf.as_string(classes, name="classes_tensor")
        return {head._head_name: (head._problem_type,
                                  {"probabilities": probabilities, "classes": classes})}
    return make


def _two_class_logits(logits):
    tf = _tf()
    return tf.concat((tf.zeros_like(logits), logits), 1)


class _BinaryLogisticHead(_SingleHead):
    _default_scope = "binary_logistic_head"

    def __init__(self, label_name=None, weight_column_name=None, enable_centered_bias=False,
                 head_name=None, loss_fn=None, thresholds=None):
        super().__init__(_learn().ProblemType.LOGISTIC_REGRESSION, 1, label_name,
                         weight_column_name, head_name, enable_centered_bias)
        self._thresholds = thresholds if thresholds else (.5,)
        self._loss_fn = loss_fn if loss_fn else _log_loss_with_two_classes
        self._output_alternatives = _class_alternatives(self)

    def _predictions(self, logits):
        tf = _tf()
        with tf.name_scope(None, "predictions", (logits,)):
            two = _two_class_logits(logits)
            return {"logits": logits,
                    "logistic": tf.sigmoid(logits, name="logistic"),
                    "probabilities": tf.nn.softmax(two, name="probabilities"),
                    "classes": tf.argmax(two, 1, name="classes")}

    def _metrics(self, eval_loss, predictions, labels, weights):
        tf = _tf()
        h = self._head_name
        with tf.name_scope("metrics", values=[eval_loss, labels, weights]
                           + list(predictions.values())):
            logistic = predictions["logistic"]
            metrics = {_key(h, LOSS): tf.metrics.mean(eval_loss),
                       _key(h, ACCURACY): tf.metrics.accuracy(labels, predictions["classes"],
                                                              weights),
                       _key(h, PREDICTION_MEAN): _metric_mean(logistic, weights),
                       _key(h, LABEL_MEAN): _metric_mean(labels, weights),
                       _key(h, ACCURACY_BASELINE): _metric_mean(labels, weights),
                       _key(h, AUC): _auc(logistic, labels, weights),
                       _key(h, AUC_PR): _auc(logistic, labels, weights, curve="PR")}
            _threshold_metrics(metrics, h, logistic, labels, weights, self._thresholds)
        return metrics


class _MultiClassHead(_SingleHead):
    _default_scope = "multi_class_head"

    def __init__(self, n_classes, label_name=None, weight_column_name=None,
                 enable_centered_bias=False, head_name=None, loss_fn=None, thresholds=None,
                 metric_class_ids=None, label_keys=None):
        super().__init__(_learn().ProblemType.CLASSIFICATION, n_classes, label_name,
                         weight_column_name, head_name, enable_centered_bias)
        if n_classes is None or n_classes <= 2:
            raise ValueError(f"n_classes must be > 2: {n_classes}.")
        self._thresholds = thresholds if thresholds else (.5,)
        self._loss = loss_fn if loss_fn else _softmax_cross_entropy_loss
        self._metric_class_ids = tuple(metric_class_ids or ())
        for c in self._metric_class_ids:
            if c < 0 or c >= n_classes:
                raise ValueError(f"Class ID {c} not in [0, {n_classes}).")
        if label_keys and len(label_keys) != n_classes:
            raise ValueError("Length of label_keys must equal n_classes.")
        self._label_keys = label_keys
        self._output_alternatives = _class_alternatives(self, label_keys)

    def _transform_labels(self, mode, labels):
        t = super()._transform_labels(mode, labels)
        if t is None:
            return None
        if self._label_keys:
            tf = _tf()
            table = tf.contrib.lookup.index_table_from_tensor(self._label_keys,
                                                               name="label_id_lookup")
            return {"labels": t, "label_ids": table.lookup(t)}
        return {"labels": t, "label_ids": t}

    def _train_loss(self, labels, logits, weights):
        return self._loss(labels["label_ids"], logits, weights=weights)

    def _predictions(self, logits):
        tf = _tf()
        with tf.name_scope(None, "predictions", (logits,)):
            ids = tf.argmax(logits, 1, name="classes")
            classes = ids
            if self._label_keys:
                table = tf.contrib.lookup.index_to_string_table_from_tensor(
                    self._label_keys, name="class_string_lookup")
                classes = table.lookup(ids)
            return {"logits": logits,
                    "probabilities": tf.nn.softmax(logits, name="probabilities"),
                    "classes": classes}

    def _metrics(self, eval_loss, predictions, labels, weights):
        tf = _tf()
        h = self._head_name
        with tf.name_scope("metrics", values=(eval_loss, labels["labels"], labels["label_ids"],
                                              weights) + tuple(predictions.values())):
            classes = predictions["classes"]
            metrics = {_key(h, LOSS): tf.metrics.mean(eval_loss),
                       _key(h, ACCURACY): tf.metrics.accuracy(labels["labels"], classes,
                                                              weights)}
            if not self._label_keys:
                for c in self._metric_class_ids:
                    metrics[_key(h, CLASS_PREDICTION_MEAN % c)] = _class_mean(classes, weights,
                                                                              c)
                    metrics[_key(h, CLASS_LABEL_MEAN % c)] = _class_mean(labels["label_ids"],
                                                                         weights, c)
                    metrics[_key(h, CLASS_PROBABILITY_MEAN % c)] = _metric_mean(
                        predictions["probabilities"], weights, c)
                    metrics[_key(h, CLASS_LOGITS_MEAN % c)] = _metric_mean(
                        predictions["logits"], weights, c)
        return metrics


class _BinarySvmHead(_SingleHead):
    _default_scope = "binary_svm_head"

    def __init__(self, label_name, weight_column_name, enable_centered_bias, head_name,
                 thresholds):
        super().__init__(_learn().ProblemType.LOGISTIC_REGRESSION, 1, label_name,
                         weight_column_name, head_name, enable_centered_bias)
        self._thresholds = thresholds if thresholds else (.5,)
        self._loss_fn = _hinge_loss

    def _predictions(self, logits):
        tf = _tf()
        with tf.name_scope(None, "predictions", (logits,)):
            return {"logits": logits,
                    "classes": tf.argmax(_two_class_logits(logits), 1, name="classes")}

    def _metrics(self, eval_loss, predictions, labels, weights):
        tf = _tf()
        h = self._head_name
        with tf.name_scope("metrics", values=[eval_loss, labels, weights]
                           + list(predictions.values())):
            return {_key(h, LOSS): tf.metrics.mean(eval_loss),
                    _key(h, ACCURACY): tf.metrics.accuracy(labels, predictions["classes"],
                                                           weights)}


class _MultiLabelHead(_SingleHead):
    _default_scope = "multi_label_head"

    def __init__(self, n_classes, label_name, weight_column_name, enable_centered_bias,
                 head_name, thresholds, metric_class_ids=None, loss_fn=None):
        super().__init__(_learn().ProblemType.CLASSIFICATION, n_classes, label_name,
                         weight_column_name, head_name, enable_centered_bias)
        self._thresholds = thresholds if thresholds else (.5,)
        self._loss_fn = loss_fn if loss_fn else _sigmoid_cross_entropy_loss
        self._metric_class_ids = tuple(metric_class_ids or ())
        for c in self._metric_class_ids:
            if c < 0 or c >= n_classes:
                raise ValueError(f"Class ID {c} not in [0, {n_classes}).")
        self._output_alternatives = _class_alternatives(self)

    def _transform_labels(self, mode, labels):
        if mode == "infer" or labels is None:
            return None
        tf = _tf()
        t = _labels_tensor(labels, self._label_name)
        if isinstance(t, tf.SparseTensor):
            if self._logits_dimension < 2:
                raise ValueError("Must set num_classes >= 2 when passing labels as a "
                                 "SparseTensor.")
            t = tf.cast(tf.sparse_to_indicator(t, self._logits_dimension), tf.int64)
        return t

    def _predictions(self, logits):
        tf = _tf()
        with tf.name_scope(None, "predictions", (logits,)):
            return {"logits": logits,
                    "probabilities": tf.sigmoid(logits, name="probabilities"),
                    "classes": tf.cast(tf.greater(logits, 0), tf.int64, name="classes")}

    def _metrics(self, eval_loss, predictions, labels, weights):
        tf = _tf()
        h = self._head_name
        with tf.name_scope("metrics", values=[eval_loss, labels, weights]
                           + list(predictions.values())):
            p = predictions["probabilities"]
            metrics = {_key(h, LOSS): tf.metrics.mean(eval_loss),
                       _key(h, ACCURACY): tf.metrics.accuracy(labels, predictions["classes"],
                                                              weights),
                       _key(h, AUC): _auc(p, labels, weights),
                       _key(h, AUC_PR): _auc(p, labels, weights, curve="PR")}
            for c in self._metric_class_ids:
                metrics[_key(h, CLASS_PREDICTION_MEAN % c)] = _metric_mean(
                    predictions["classes"], weights, c)
                metrics[_key(h, CLASS_LABEL_MEAN % c)] = _metric_mean(labels, weights, c)
                metrics[_key(h, CLASS_PROBABILITY_MEAN % c)] = _metric_mean(p, weights, c)
                metrics[_key(h, CLASS_LOGITS_MEAN % c)] = _metric_mean(predictions["logits"],
                                                                       weights, c)
                metrics[_key(h, CLASS_AUC % c)] = _auc(p, labels, weights, c)
                metrics[_key(h, CLASS_AUC_PR % c)] = _auc(p, labels, weights, c, curve="PR")
        return metrics


class _LossOnlyHead(Head):
    """A head holding an extra loss term (a regularizer) to sit in a ``multi_head``."""

    def __init__(self, loss_fn, head_name=None):
        self._loss_fn = loss_fn
        self.head_name = head_name or "loss_only_head"

    logits_dimension = property(lambda self: 0)

    def create_model_fn_ops(self, features, mode, labels=None, train_op_fn=None, logits=None,
                            logits_input=None, scope=None):
        tf = _tf()
        learn = _learn()
        _check_mode(mode)
        loss = train_op = None
        metrics = {}
        if mode != "infer":
            with tf.variable_scope(scope, default_name=self.head_name):
                loss = self._loss_fn()
                if isinstance(loss, list):
                    loss = tf.add_n(loss)
                if mode == "train":
                    if train_op_fn is None:
                        raise ValueError("train_op_fn can not be None in TRAIN mode")
                    with tf.name_scope(None, "train_op", (loss,)):
                        train_op = train_op_fn(loss)
                tf.summary.scalar(_key(self.head_name, LOSS), loss)
                metrics = {_key(self.head_name, LOSS): tf.metrics.mean(loss)}
        return learn.ModelFnOps(mode=mode, loss=loss, train_op=train_op,
                                predictions={}, eval_metric_ops=metrics)


class _MultiHead(Head):
    """Several named heads over one logits tensor (split by their sizes) or a dict of
    logits: the merged loss trains, each head's metrics are reported under its name and its
    predictions under ``(head_name, key)``."""

    def __init__(self, heads, loss_merger):
        self._logits_dimension = 0
        for head in heads:
            if not head.head_name:
                raise ValueError("Members of MultiHead must have names.")
            self._logits_dimension += head.logits_dimension
        self._heads = heads
        self._loss_merger = loss_merger

    logits_dimension = property(lambda self: self._logits_dimension)

    def create_model_fn_ops(self, features, mode, labels=None, train_op_fn=None, logits=None,
                            logits_input=None, scope=None):
        tf = _tf()
        learn = _learn()
        _check_mode(mode)
        if logits is None:
            pairs = [(h, None) for h in self._heads]
        elif isinstance(logits, dict):
            pairs = [(h, None if isinstance(h, _LossOnlyHead) else logits[h.head_name])
                     for h in self._heads]
        else:
            pairs, begin = [], 0
            for h in self._heads:
                pairs.append((h, tf.slice(logits, [0, begin], [-1, h.logits_dimension])))
                begin += h.logits_dimension
        all_ops = []
        for head, head_logits in pairs:
            kwargs = ({"logits_input": logits_input} if logits is None
                      else {"logits": head_logits})
            all_ops.append(head.create_model_fn_ops(features=features, mode=mode,
                                                    labels=labels, train_op_fn=no_op_train_fn,
                                                    scope=scope, **kwargs))
        metrics = {}
        for m in all_ops:
            metrics.update(m.eval_metric_ops or {})
        if mode == "train":
            if train_op_fn is None:
                raise ValueError("train_op_fn can not be None in TRAIN mode.")
            loss = self._loss_merger([m.loss for m in all_ops])
            train_op = tf.group(train_op_fn(loss), *[m.train_op for m in all_ops])
            return learn.ModelFnOps(mode=mode, loss=loss, train_op=train_op,
                                    eval_metric_ops=metrics)
        predictions, alternatives = {}, {}
        for head, m in zip(self._heads, all_ops):
            if isinstance(head, _LossOnlyHead):
                continue
            if m.output_alternatives:
                alternatives[head.head_name] = m.output_alternatives[head.head_name]
            for k, v in m.predictions.items():
                predictions[(head.head_name, k)] = v
        if mode == "infer":
            return learn.ModelFnOps(mode=mode, predictions=predictions,
                                    output_alternatives=alternatives)
        loss = self._loss_merger([m.loss for m in all_ops])
        return learn.ModelFnOps(mode=mode, predictions=predictions, loss=loss,
                                eval_metric_ops=metrics)


def regression_head(label_name=None, weight_column_name=None, label_dimension=1,
                    enable_centered_bias=False, head_name=None, link_fn=None):
    """A head for linear regression (mean squared loss, ``scores`` predictions)."""
    return _RegressionHead(label_dimension, _mean_squared_loss,
                           link_fn if link_fn is not None else _tf().identity,
                           label_name=label_name, weight_column_name=weight_column_name,
                           enable_centered_bias=enable_centered_bias, head_name=head_name)


def poisson_regression_head(label_name=None, weight_column_name=None, label_dimension=1,
                            enable_centered_bias=False, head_name=None):
    """A head for Poisson regression (log-Poisson loss; predictions ``exp(logits)``)."""
    return _RegressionHead(label_dimension, _poisson_loss, _tf().exp, label_name=label_name,
                           weight_column_name=weight_column_name,
                           enable_centered_bias=enable_centered_bias, head_name=head_name)


def multi_class_head(n_classes, label_name=None, weight_column_name=None,
                     enable_centered_bias=False, head_name=None, thresholds=None,
                     metric_class_ids=None, loss_fn=None, label_keys=None):
    """A single-label classification head: logistic for 2 classes, softmax for more."""
    if n_classes is None or n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}.")
    if loss_fn:
        _check_loss_fn_args(loss_fn)
        loss_fn = _custom_loss(loss_fn)
    if n_classes == 2:
        if metric_class_ids:
            raise ValueError("metric_class_ids invalid for n_classes==2.")
        if label_keys:
            raise ValueError("label_keys is not supported for n_classes=2.")
        return _BinaryLogisticHead(label_name, weight_column_name, enable_centered_bias,
                                   head_name, loss_fn, thresholds)
    return _MultiClassHead(n_classes, label_name, weight_column_name, enable_centered_bias,
                           head_name, loss_fn, thresholds, metric_class_ids, label_keys)


def binary_svm_head(label_name=None, weight_column_name=None, enable_centered_bias=False,
                    head_name=None, thresholds=None):
    """A binary classification head with the hinge loss."""
    return _BinarySvmHead(label_name, weight_column_name, enable_centered_bias, head_name,
                          thresholds)


def multi_label_head(n_classes, label_name=None, weight_column_name=None,
                     enable_centered_bias=False, head_name=None, thresholds=None,
                     metric_class_ids=None, loss_fn=None):
    """A multi-label head (independent sigmoid per class); labels are a multi-hot tensor
    or a SparseTensor of class ids."""
    if n_classes < 2:
        raise ValueError(f"n_classes must be > 1 for classification: {n_classes}.")
    if loss_fn:
        _check_loss_fn_args(loss_fn)
        loss_fn = _custom_loss(loss_fn)
    return _MultiLabelHead(n_classes, label_name, weight_column_name, enable_centered_bias,
                           head_name, thresholds, metric_class_ids, loss_fn)


def loss_only_head(loss_fn, head_name=None):
    """A head whose loss is ``loss_fn()`` (for extra terms in a ``multi_head``)."""
    return _LossOnlyHead(loss_fn, head_name=head_name)


def multi_head(heads, loss_weights=None):
    """The heads as one; their losses summed (weighted by ``loss_weights``)."""
    def merge(losses):
        tf = _tf()
        if loss_weights:
            if len(losses) != len(loss_weights):
                raise ValueError("losses and loss_weights must have same size")
            losses = [tf.multiply(loss, w) for loss, w in zip(losses, loss_weights)]
        return tf.add_n(losses)

    return _MultiHead(heads, loss_merger=merge)


__all__ = ["Head", "binary_svm_head", "loss_only_head", "multi_class_head", "multi_head",
           "multi_label_head", "no_op_train_fn", "poisson_regression_head", "regression_head"]
