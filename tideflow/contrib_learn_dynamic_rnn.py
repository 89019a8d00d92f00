"""``tf.contrib.learn.DynamicRnnEstimator`` (TF 1.1-1.4) and its ``rnn_common`` helpers: an RNN
(basic, LSTM or GRU cells, stacked) over sequence features, with the context features tiled
over the steps, predicting one value per sequence or one per step."""

import types

from tideflow import contrib_learn as _learn


def _tf():
    import tideflow

    return tideflow


class RNNKeys:
    FINAL_STATE_KEY = "final_state"
    LABELS_KEY = "__labels__"
    SEQUENCE_LENGTH_KEY = "sequence_length"
    STATE_PREFIX = "rnn_cell_state"


class PredictionType:
    """Whether the model predicts a value per sequence or per step."""

    SINGLE_VALUE = 1
    MULTIPLE_VALUE = 2


def _cell_types():
    tf = _tf()
    return {"basic_rnn": tf.contrib.rnn.BasicRNNCell, "lstm": tf.contrib.rnn.LSTMCell,
            "gru": tf.contrib.rnn.GRUCell}


def _single_cell(cell_type, num_units):
    tf = _tf()
    types_ = _cell_types()
    cls = types_.get(cell_type, cell_type)
    if not cls or not isinstance(cls, type) or not issubclass(cls, tf.contrib.rnn.RNNCell):
        raise ValueError(f"The supported cell types are {list(types_)}; got {cell_type}")
    return cls(num_units=num_units)


def apply_dropout(cells, dropout_keep_probabilities, random_seed=None):
    """Each cell's input dropped with its keep probability, the last cell's output with the
    last one."""
    tf = _tf()
    if len(dropout_keep_probabilities) != len(cells) + 1:
        raise ValueError("The number of dropout probabilities must be one greater than the "
                         f"number of cells. Got {len(cells)} cells and "
                         f"{len(dropout_keep_probabilities)} dropout probabilities.")
    wrapped = [tf.contrib.rnn.DropoutWrapper(cell, prob, 1.0, seed=random_seed)
               for cell, prob in zip(cells[:-1], dropout_keep_probabilities[:-2])]
    wrapped.append(tf.contrib.rnn.DropoutWrapper(cells[-1], dropout_keep_probabilities[-2],
                                                 dropout_keep_probabilities[-1]))
    return wrapped


def construct_rnn_cell(num_units, cell_type="basic_rnn", dropout_keep_probabilities=None):
    """The cell (a MultiRNNCell for several sizes), dropout applied when asked."""
    tf = _tf()
    if not isinstance(num_units, (list, tuple)):
        num_units = (num_units,)
    cells = [_single_cell(cell_type, n) for n in num_units]
    if dropout_keep_probabilities:
        cells = apply_dropout(cells, dropout_keep_probabilities)
    return cells[0] if len(cells) == 1 else tf.contrib.rnn.MultiRNNCell(cells)


def select_last_activations(activations, sequence_lengths):
    """``activations[i, sequence_lengths[i] - 1, :]`` (the last step when lengths are
    None)."""
    tf = _tf()
    with tf.name_scope("select_last_activations", values=[activations, sequence_lengths]):
        shape = tf.shape(activations)
        batch, padded, k = shape[0], shape[1], shape[2]
        flat = tf.reshape(activations, [-1, k])
        if sequence_lengths is None:
            sequence_lengths = padded
        idx = tf.range(batch) * padded + tf.cast(sequence_lengths, tf.int32) - 1
        last = tf.gather(flat, idx)
        last.set_shape([activations.get_shape()[0], activations.get_shape()[2]])
        return last


def mask_activations_and_labels(activations, labels, sequence_lengths):
    """The steps within each sequence's length, flattened: ``(activations, labels)``."""
    tf = _tf()
    with tf.name_scope("mask_activations_and_labels",
                       values=[activations, labels, sequence_lengths]):
        shape = tf.shape(labels)
        batch, padded = shape[0], shape[1]
        if sequence_lengths is None:
            n = batch * padded
            return (tf.reshape(activations, [n, -1]), tf.reshape(labels, [n]))
        mask = tf.sequence_mask(sequence_lengths, padded)
        return tf.boolean_mask(activations, mask), tf.boolean_mask(labels, mask)


class _Target:
    """contrib.layers' target column: the loss on logits and the predictions from them."""

    def __init__(self, problem_type, num_classes=None):
        self.classification = problem_type == _learn.ProblemType.CLASSIFICATION
        if self.classification and num_classes < 2:
            raise ValueError("n_classes must be > 1 for classification.")
        self.num_label_columns = (1 if not self.classification or num_classes == 2
                                  else num_classes)

    def _two(self, logits):
        tf = _tf()
        if self.num_label_columns == 1:
            return tf.concat([tf.zeros_like(logits), logits], 1)
        return logits

    def predictions(self, logits, proba=False):
        tf = _tf()
        if not self.classification:
            return tf.squeeze(logits, axis=[1]) if self.num_label_columns == 1 else logits
        two = self._two(logits)
        return tf.nn.softmax(two) if proba else tf.argmax(two, 1)

    def loss(self, logits, target):
        tf = _tf()
        if not self.classification:
            if target.get_shape().ndims == 1:
                target = tf.expand_dims(target, axis=1)
            per = tf.squared_difference(logits, tf.cast(target, tf.float32))
        elif self.num_label_columns == 1:
            if target.get_shape().ndims == 1:
                target = tf.expand_dims(target, axis=1)
            per = tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.cast(target, tf.float32),
                                                          logits=logits)
        else:
            if not target.dtype.is_integer:
                raise ValueError(f"Target's dtype should be integer Instead got "
                                 f"{target.dtype}.")
            if target.get_shape().ndims == 2:
                target = tf.squeeze(target, axis=[1])
            per = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=target, logits=logits)
        return tf.reduce_mean(per, name="loss")


def _state_name(i):
    return f"{RNNKeys.STATE_PREFIX}_{i}"


def state_tuple_to_dict(state):
    """The state's components as ``{"rnn_cell_state_<i>": tensor}``."""
    tf = _tf()
    with tf.name_scope("state_tuple_to_dict"):
        flat = tf.contrib.framework.nest.flatten(state)
        return {_state_name(i): None if s is None else tf.identity(s, name=_state_name(i))
                for i, s in enumerate(flat)}


def dict_to_state_tuple(input_dict, cell):
    """The cell's initial state from ``rnn_cell_state_<i>`` features (None when there are
    none)."""
    tf = _tf()
    nest = tf.contrib.framework.nest
    sizes = nest.flatten(cell.state_size)
    tensors = []
    with tf.name_scope("dict_to_state_tuple"):
        for i, size in enumerate(sizes):
            t = input_dict.get(_state_name(i))
            if t is not None:
                rank = tf.assert_rank(t, 2, name=f"check_state_{i}_rank")
                width = tf.assert_equal(tf.shape(t)[1], size, name=f"check_state_{i}_shape")
                with tf.control_dependencies([rank, width]):
                    tensors.append(tf.identity(t, name=_state_name(i)))
        if not tensors:
            return None
        if len(tensors) == len(sizes):
            return nest.pack_sequence_as(cell.zero_state(batch_size=1, dtype=tf.bool), tensors)
        raise ValueError("RNN state was partially specified.Expected zero or "
                         f"{len(sizes)} state Tensors; got {len(tensors)}")


def build_sequence_input(features, sequence_feature_columns, context_feature_columns,
                         weight_collections=None, scope=None):
    """The RNN's input ``[batch, time, d]``: the sequence features side by side, then the
    context features repeated at every step."""
    tf = _tf()
    parts = []
    for col in sequence_feature_columns:
        key = getattr(col, "key", getattr(col, "name", None))
        if key not in features or isinstance(features[key], tf.SparseTensor):
            raise NotImplementedError(
                f"DynamicRnnEstimator takes dense real-valued sequence columns; got {col}")
        t = tf.cast(features[key], tf.float32)
        if t.get_shape().ndims == 2:
            t = tf.expand_dims(t, -1)
        parts.append(t)
    # (as TF's sequence_input_from_feature_columns: its scope and concat, one part too)
    with tf.variable_scope(scope, default_name="sequence_input_from_feature_columns"):
        seq = tf.concat(parts, 2)
    if context_feature_columns is not None:
        ctx = tf.contrib.layers.input_from_feature_columns(
            features, context_feature_columns, weight_collections=weight_collections,
            scope=scope)
        checks = [
            tf.assert_rank(seq, 3, message="sequence_input must have rank 3",
                           data=[tf.shape(seq)]),
            tf.assert_type(seq, tf.float32, message="sequence_input must have dtype float32; "
                           f"got {seq.dtype}."),
            tf.assert_rank(ctx, 2, message="context_input must have rank 2",
                           data=[tf.shape(ctx)]),
            tf.assert_type(ctx, tf.float32, message="context_input must have dtype float32; "
                           f"got {ctx.dtype}.")]
        with tf.control_dependencies([c for c in checks if c is not None]):
            padded = tf.shape(seq)[1]
            tiled = tf.tile(tf.expand_dims(ctx, 1), tf.concat([[1], [padded], [1]], 0))
        seq = tf.concat([seq, tiled], 2)
    return seq


def _model_fn(problem_type, prediction_type, target, sequence_feature_columns,
              context_feature_columns, cell_type, num_units, optimizer, learning_rate,
              predict_probabilities, gradient_clipping_norm, dropout_keep_probabilities,
              name):
    tf = _tf()
    single = prediction_type == PredictionType.SINGLE_VALUE
    key = "classes" if target.classification else "scores"

    def model_fn(features, labels, mode):
        with tf.name_scope(name):
            lengths = features.get(RNNKeys.SEQUENCE_LENGTH_KEY)
            seq = build_sequence_input(features, sequence_feature_columns,
                                       context_feature_columns)
            cell = construct_rnn_cell(num_units, cell_type,
                                      dropout_keep_probabilities if mode == "train" else None)
            initial = dict_to_state_tuple(features, cell)
            with tf.name_scope("RNN"):
                outputs, final = tf.nn.dynamic_rnn(cell=cell, inputs=seq,
                                                   initial_state=initial, dtype=tf.float32,
                                                   parallel_iterations=32, swap_memory=True,
                                                   time_major=False)
                activations = tf.contrib.layers.fully_connected(
                    inputs=outputs, num_outputs=target.num_label_columns, activation_fn=None,
                    trainable=True)
            loss = None
            if single:
                with tf.name_scope("SingleValuePrediction"):
                    last = select_last_activations(activations, lengths)
                    if predict_probabilities:
                        proba = target.predictions(last, proba=True)
                        preds = {"probabilities": proba, key: tf.argmax(proba, 1)}
                    else:
                        preds = {key: target.predictions(last)}
                if mode != "infer":
                    with tf.name_scope("SingleValueLoss"):
                        loss = target.loss(select_last_activations(activations, lengths),
                                           labels)
            else:
                with tf.name_scope("MultiValuePrediction"):
                    shape = tf.shape(activations)
                    flat = tf.reshape(activations, [-1, shape[2]])
                    preds = {}
                    if predict_probabilities:
                        flat_proba = target.predictions(flat, proba=True)
                        flat_pred = tf.argmax(flat_proba, 1)
                        width = ([2] if target.num_label_columns == 1 else shape[2:])
                        preds["probabilities"] = tf.reshape(
                            flat_proba, tf.concat([shape[:2], width], 0),
                            name="probabilities")
                    else:
                        flat_pred = target.predictions(flat)
                    preds[key] = tf.reshape(flat_pred, [shape[0], shape[1]], name=key)
                if mode != "infer":
                    with tf.name_scope("MultiValueLoss"):
                        acts, labs = mask_activations_and_labels(activations, labels, lengths)
                        loss = target.loss(acts, labs)
            preds.update(state_tuple_to_dict(final))
            metrics = None
            if mode == "eval" and target.classification:
                if single:
                    metrics = {"accuracy": tf.metrics.accuracy(labels=labels,
                                                               predictions=preds[key])}
                else:
                    p, lab = mask_activations_and_labels(preds[key], labels, lengths)
                    metrics = {"accuracy": tf.metrics.accuracy(labels=lab, predictions=p)}
            train_op = None
            if mode == "train":
                train_op = tf.contrib.layers.optimize_loss(
                    loss=loss, global_step=None, learning_rate=learning_rate,
                    optimizer=optimizer, clip_gradients=gradient_clipping_norm)
            alternatives = None
            if single:
                alternatives = {"dynamic_rnn_output": (problem_type, {
                    k: v for k, v in preds.items() if RNNKeys.STATE_PREFIX not in k})}
            return _learn.ModelFnOps(mode=mode, predictions=preds, loss=loss,
                                     train_op=train_op, eval_metric_ops=metrics,
                                     output_alternatives=alternatives)

    return model_fn


class DynamicRnnEstimator(_learn.Estimator):
    """A dynamically unrolled RNN over ``sequence_feature_columns`` (features ``[batch,
    time, d]``, lengths in the ``sequence_length`` feature) for classification or regression,
    one prediction per sequence (``PredictionType.SINGLE_VALUE``) or per step."""

    _feeds_arrays = False

    def __init__(self, problem_type, prediction_type, sequence_feature_columns,
                 context_feature_columns=None, num_classes=None, num_units=None,
                 cell_type="basic_rnn", optimizer="SGD", learning_rate=0.1,
                 predict_probabilities=False, momentum=None, gradient_clipping_norm=5.0,
                 dropout_keep_probabilities=None, model_dir=None, feature_engineering_fn=None,
                 config=None):
        tf = _tf()
        if prediction_type == PredictionType.MULTIPLE_VALUE:
            name = "MultiValueDynamicRNN"
        elif prediction_type == PredictionType.SINGLE_VALUE:
            name = "SingleValueDynamicRNN"
        else:
            raise ValueError("prediction_type must be one of PredictionType.MULTIPLE_VALUE or "
                             f"PredictionType.SINGLE_VALUE; got {prediction_type}")
        if problem_type == _learn.ProblemType.LINEAR_REGRESSION:
            name += "Regressor"
            target = _Target(problem_type)
        elif problem_type == _learn.ProblemType.CLASSIFICATION:
            if not num_classes:
                raise ValueError("For CLASSIFICATION problem_type, num_classes must be "
                                 "specified.")
            target = _Target(problem_type, num_classes)
            name += "Classifier"
        else:
            raise ValueError("problem_type must be either ProblemType.LINEAR_REGRESSION or "
                             f"ProblemType.CLASSIFICATION; got {problem_type}")
        if predict_probabilities and problem_type != _learn.ProblemType.CLASSIFICATION:
            raise ValueError("predict_probabilities can only be set to True for problem_type "
                             f"ProblemType.CLASSIFICATION; got {problem_type}.")
        if optimizer == "Momentum":
            optimizer = tf.train.MomentumOptimizer(learning_rate, momentum)
        fn = _model_fn(problem_type, prediction_type, target, list(sequence_feature_columns),
                       context_feature_columns, cell_type, num_units, optimizer, learning_rate,
                       predict_probabilities, gradient_clipping_norm,
                       dropout_keep_probabilities, name)
        super().__init__(model_fn=fn, model_dir=model_dir, config=config,
                         feature_engineering_fn=feature_engineering_fn)


rnn_common = types.ModuleType(__name__ + ".rnn_common",
                              "``tf.contrib.learn...estimators.rnn_common``.")
for _name in ("RNNKeys", "PredictionType", "apply_dropout", "construct_rnn_cell",
              "select_last_activations", "mask_activations_and_labels"):
    setattr(rnn_common, _name, globals()[_name])


def register(learn):
    """Makes ``tf.contrib.learn.python.learn.estimators.{dynamic_rnn_estimator,rnn_common}``
    importable."""
    import sys

    me = sys.modules[__name__]
    estimators = getattr(learn, "estimators", None)
    for base in ("tideflow.contrib.learn.estimators",
                 "tideflow.contrib.learn.python.learn.estimators"):
        sys.modules.setdefault(base + ".dynamic_rnn_estimator", me)
        sys.modules.setdefault(base + ".rnn_common", rnn_common)
    if estimators is not None:
        estimators.dynamic_rnn_estimator = me
        estimators.rnn_common = rnn_common


__all__ = ["DynamicRnnEstimator", "PredictionType", "RNNKeys", "build_sequence_input",
           "dict_to_state_tuple", "rnn_common", "state_tuple_to_dict"]
