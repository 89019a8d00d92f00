"""``tf.contrib.skflow`` (TF 0.8): scikit-flow inside TensorFlow, the namespace that became
``tf.contrib.learn`` in 0.9. Its estimators, ``models`` and ``preprocessing`` are
contrib.learn's; its ``ops`` add 0.8's layer helpers (``dnn`` of ``Linear`` layers,
collected ``dropout``, ``conv2d``, ``split_squeeze``, ``expand_concat``, ``one_hot_matrix``)."""

import types

import tideflow as _tf
from tideflow import contrib_learn as _learn
from tideflow import contrib_learn_models as _models

# the graph collection of the keep probabilities ``dropout`` makes (skflow's estimators run
# them at 1.0 outside training)
DROPOUTS = "dropouts"


def dropout(tensor_in, prob, name=None):
    """``tf.nn.dropout`` keeping ``prob``; a float becomes the non-trainable variable
    ``prob``. The keep probability joins the ``dropouts`` collection. Outside training
    (predict and evaluate of skflow's estimators) it keeps everything."""
    with _tf.name_scope(name, "dropout", [tensor_in]):
        if isinstance(prob, float):
            prob = _tf.get_variable("prob", [], initializer=_tf.constant_initializer(prob),
                                    trainable=False)
        _tf.add_to_collection(DROPOUTS, prob)
        if not _models.training_phase():
            return _tf.identity(tensor_in)
        return _tf.nn.dropout(tensor_in, prob)


def dnn(tensor_in, hidden_units, activation=_tf.nn.relu, dropout=None, keep_prob=None):
    """Fully connected layers ``dnn/layer<i>/Linear/{Matrix,Bias}`` of ``hidden_units``, each
    followed by ``activation`` and, with ``dropout`` (the probability of dropping; or
    scikit-flow 0.1's ``keep_prob``), by a dropout layer."""
    keep = keep_prob if dropout is None else 1.0 - dropout
    with _tf.variable_scope("dnn"):
        for i, n_units in enumerate(hidden_units):
            with _tf.variable_scope(f"layer{i}"):
                tensor_in = _tf.nn.rnn_cell.linear(tensor_in, n_units, True)
                if activation is not None:
                    tensor_in = activation(tensor_in)
                if keep is not None:
                    tensor_in = globals()["dropout"](tensor_in, prob=keep)
        return tensor_in


def split_squeeze(dim, num_split, tensor_in):
    """``tensor_in`` split into ``num_split`` pieces along ``dim``, each without that axis."""
    return [_tf.squeeze(t, axis=[dim]) for t in _tf.split(tensor_in, num_split, axis=dim)]


def expand_concat(dim, inputs):
    """``inputs`` joined along a new axis ``dim``."""
    return _tf.concat([_tf.expand_dims(t, dim) for t in inputs], dim)


def one_hot_matrix(tensor_in, num_classes, on_value=1.0, off_value=0.0):
    """Float one-hot rows of ``num_classes`` for the integer ids ``tensor_in``."""
    return _tf.one_hot(_tf.cast(tensor_in, _tf.int64), num_classes, on_value=on_value,
                       off_value=off_value, dtype=_tf.float32)


def conv2d(tensor_in, n_filters, filter_shape, strides=None, padding="SAME", bias=True,
           activation=None, batch_norm=False):
    """A 2-D convolution with the variables ``filters`` (``filter_shape + [in, n_filters]``)
    and ``bias``, then ``activation``; ``strides`` default to 1."""
    if batch_norm:
        raise NotImplementedError("skflow.ops.conv2d: batch_norm=True is not supported; "
                                  "apply tf.contrib.layers.batch_norm to its output")
    with _tf.variable_scope("convolution"):
        if strides is None:
            strides = [1, 1, 1, 1]
        in_channels = tensor_in.get_shape()[3]
        filters = _tf.get_variable("filters", list(filter_shape) + [in_channels, n_filters])
        out = _tf.nn.conv2d(tensor_in, filters, strides, padding)
        if bias:
            out = out + _tf.get_variable("bias", [1, 1, 1, n_filters])
        if activation is not None:
            out = activation(out)
        return out


def get_rnn_model(rnn_size, cell_type, num_layers, input_op_fn, bidirectional,
                  target_predictor_fn, sequence_length, initial_state, attn_length=None,
                  attn_size=None, attn_vec_size=None):
    """``tf.contrib.learn.models.get_rnn_model``; 0.8 had no attention arguments."""
    return _models.get_rnn_model(rnn_size, cell_type, num_layers, input_op_fn, bidirectional,
                                 target_predictor_fn, sequence_length, initial_state,
                                 attn_length, attn_size, attn_vec_size)


def _module(name, doc, members):
    module = types.ModuleType(f"tideflow.contrib.skflow.{name}", doc)
    for key, value in members.items():
        setattr(module, key, value)
    module.__all__ = sorted(members)
    return module


ops = _module("ops", "``skflow.ops``: layers, embeddings, loss heads, seq2seq steps.", {
    **{n: getattr(_models.ops, n) for n in _models.ops.__all__},
    "DROPOUTS": DROPOUTS, "conv2d": conv2d, "dnn": dnn, "dropout": dropout,
    "expand_concat": expand_concat, "one_hot_matrix": one_hot_matrix,
    "split_squeeze": split_squeeze})
models = _module("models", "``skflow.models``: regressions and RNN encoders.", {
    **{n: getattr(_models.models, n) for n in _models.models.__all__},
    "get_rnn_model": get_rnn_model})

def _skflow_estimator(base):
    """``base`` as 0.8 spelled it: plain gradient descent by default, a graph seed of 42
    (``tf_random_seed``) and the Saver's ``max_to_keep``/``keep_checkpoint_every_n_hours``
    (``tf_master`` names an in-process session here)."""

    def __init__(self, *args, tf_master="", tf_random_seed=42, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000, optimizer="SGD", config=None, **kwargs):
        if config is None:
            config = _learn.RunConfig(
                tf_random_seed=tf_random_seed, keep_checkpoint_max=max_to_keep,
                keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours)
        base.__init__(self, *args, optimizer=optimizer, config=config, **kwargs)
        self.tf_master, self.tf_random_seed = tf_master, tf_random_seed
        self.max_to_keep = max_to_keep
        self.keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours

    return type(base.__name__, (base,), {
        "__init__": __init__, "__module__": __name__,
        "__doc__": f"0.8's ``skflow.{base.__name__}``: {base.__doc__}"})


TensorFlowEstimator = _skflow_estimator(_learn.TensorFlowEstimator)
TensorFlowDNNClassifier = _skflow_estimator(_learn.TensorFlowDNNClassifier)
TensorFlowDNNRegressor = _skflow_estimator(_learn.TensorFlowDNNRegressor)
TensorFlowLinearClassifier = _skflow_estimator(_learn.TensorFlowLinearClassifier)
TensorFlowLinearRegressor = _skflow_estimator(_learn.TensorFlowLinearRegressor)
TensorFlowClassifier = TensorFlowLinearClassifier
TensorFlowRegressor = TensorFlowLinearRegressor
TensorFlowRNNClassifier = _skflow_estimator(_learn.TensorFlowRNNClassifier)
TensorFlowRNNRegressor = _skflow_estimator(_learn.TensorFlowRNNRegressor)


def __getattr__(name):
    if name == "preprocessing":
        return _learn.preprocessing
    raise AttributeError(f"module 'tideflow.contrib.skflow' has no attribute {name!r}")


__all__ = ["TensorFlowClassifier", "TensorFlowDNNClassifier", "TensorFlowDNNRegressor",
           "TensorFlowEstimator", "TensorFlowLinearClassifier", "TensorFlowLinearRegressor",
           "TensorFlowRNNClassifier", "TensorFlowRNNRegressor", "TensorFlowRegressor", "models",
           "ops"]
