"""``tf.contrib``: the contrib names TF 1.x programs commonly use: ``layers``, ``slim``,
``framework``, ``rnn``, ``metrics``, ``losses``, ``seq2seq``/``legacy_seq2seq`` (sequence
losses), ``training`` (HParams), ``lookup``; explicit re-exports only."""

import importlib
import importlib.abc
import importlib.machinery
import sys
import types

from tideflow import contrib_feature_columns as _contrib_fc
from tideflow import contrib_image_extra as _contrib_image_extra
from tideflow import contrib_misc as _contrib_misc
from tideflow import contrib_recompute as _contrib_recompute
from tideflow import contrib_rev_block as _contrib_rev_block
from tideflow import contrib_rnn_cells as _rnn_research_cells
from tideflow import contrib_rnn_fused as _rnn_fused
from tideflow import contrib_rnn_gated as _rnn_gated
from tideflow import contrib_rnn_grid as _rnn_grid_cells
from tideflow import contrib_slim_data as _slim_data
from tideflow import contrib_slim_misc as _slim_misc
from tideflow import contrib_slim_nets as _slim_nets
from tideflow import contrib_summaries as _contrib_summaries
from tideflow.framework import dtypes as _dtypes
from tideflow.framework import nest as _nest
from tideflow.ops import contrib_layers as _contrib_layers
from tideflow.ops import contrib_layers_extra as _extra_layers
from tideflow.ops import contrib_layers_more as _more
from tideflow.ops import contrib_layers_nd as _nd_layers
from tideflow.ops import contrib_losses as _contrib_losses
from tideflow.ops import contrib_metrics as _contrib_metrics
from tideflow.ops import contrib_norm_layers as _norm_layers
from tideflow.ops import crf as _crf
from tideflow.ops import image_transform_ops as _image_transform_ops
from tideflow.ops import image_warp_ops as _image_warp_ops
from tideflow.ops import layer_initializers as _initializers
from tideflow.ops import legacy_seq2seq as _legacy_seq2seq
from tideflow.ops import lookup_ops as _lookup_ops
from tideflow.ops import loop_rnn as _loop_rnn
from tideflow.ops import regularizers as _regularizers
from tideflow.ops import rnn as _rnn
from tideflow.ops import rnn_cell_impl as _rnn_cell_impl
from tideflow.ops import rnn_contrib_cells as _rnn_contrib_cells
from tideflow.ops import seq2seq_loss as _seq2seq_loss
from tideflow.ops import sort_ops as _sort_ops
from tideflow.train import bucket_ops as _bucket_ops
from tideflow.train import contrib_checkpoint_ops as _contrib_checkpoint_ops
from tideflow.train import contrib_evaluation as _contrib_evaluation
from tideflow.train import contrib_gan as _contrib_gan
from tideflow.train import contrib_opt as _contrib_opt
from tideflow.train import contrib_opt_averaging as _contrib_opt_averaging
from tideflow.train import contrib_opt_wrappers as _contrib_opt_wrappers
from tideflow.train import contrib_sampling as _contrib_sampling
from tideflow.train import contrib_training as _contrib_training
from tideflow.train import device_setter as _device_setter
from tideflow.train import feeding_queue_runner as _feeding_queue_runner
from tideflow.train import hparams as _hparams
from tideflow.train import sequence_state_saver as _sequence_state_saver
from tideflow.train import slim_learning as _slim_learning
from tideflow.train import training_util as _training_util

layers = types.ModuleType(__name__ + ".layers", "``tf.contrib.layers``: regularizers, initializers.")
layers.apply_regularization = _regularizers.apply_regularization
layers.l1_l2_regularizer = _regularizers.l1_l2_regularizer
layers.l1_regularizer = _regularizers.l1_regularizer
layers.l2_regularizer = _regularizers.l2_regularizer
layers.sum_regularizer = _regularizers.sum_regularizer
layers.variance_scaling_initializer = _initializers.variance_scaling_initializer
layers.xavier_initializer = _initializers.xavier_initializer
layers.xavier_initializer_conv2d = _initializers.xavier_initializer_conv2d
_LAYER_FNS = ("avg_pool2d", "batch_norm", "bow_encoder", "conv2d", "convolution2d", "dropout",
              "embed_sequence", "flatten", "fully_connected", "layer_norm", "max_pool2d",
              "one_hot_encoding")
_MORE_LAYER_FNS = ("adaptive_clipping_fn", "bias_add", "conv2d_transpose",
                   "convolution2d_transpose", "linear", "optimize_loss", "relu", "relu6", "repeat", "separable_conv2d",
                   "separable_convolution2d", "softmax", "stack", "unit_norm",
                   "OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES")
for _name in _LAYER_FNS:
    setattr(layers, _name, getattr(_contrib_layers, _name))
for _name in _MORE_LAYER_FNS:
    setattr(layers, _name, getattr(_more, _name))
for _name in _norm_layers.__all__:
    setattr(layers, _name, getattr(_norm_layers, _name))
for _name in _nd_layers.__all__:
    setattr(layers, _name, getattr(_nd_layers, _name))
for _name in _extra_layers.__all__:
    setattr(layers, _name, getattr(_extra_layers, _name))
for _name in _contrib_fc.__all__:  # the 0.10-1.4 feature columns
    setattr(layers, _name, getattr(_contrib_fc, _name))
for _name in _contrib_summaries.SUMMARIZE_NAMES:
    setattr(layers, _name, getattr(_contrib_summaries, _name))
layers.__all__ = [
    "apply_regularization", *_LAYER_FNS, *_MORE_LAYER_FNS, *_norm_layers.__all__,
    *_nd_layers.__all__, *_extra_layers.__all__, *_contrib_fc.__all__,
    *_contrib_summaries.SUMMARIZE_NAMES,
    "l1_l2_regularizer", "l1_regularizer", "l2_regularizer", "sum_regularizer",
    "variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d",
    "recompute_grad",
]
layers.recompute_grad = _contrib_recompute.recompute_grad
layers.RevBlock = _contrib_rev_block.RevBlock
layers.rev_block = _contrib_rev_block.rev_block
layers.__all__ += _contrib_rev_block.__all__
# makes `import tideflow.contrib.layers` and `from tideflow.contrib.layers import ...` work
sys.modules[layers.__name__] = layers

rnn = types.ModuleType(__name__ + ".rnn", "``tf.contrib.rnn``: recurrent cells and drivers.")
for _name in _rnn_cell_impl.__all__:
    setattr(rnn, _name, getattr(_rnn_cell_impl, _name))
for _name in _rnn_contrib_cells.__all__:
    setattr(rnn, _name, getattr(_rnn_contrib_cells, _name))
for _module in (_rnn_research_cells, _rnn_grid_cells, _rnn_fused, _rnn_gated):
    for _name in _module.__all__:
        setattr(rnn, _name, getattr(_module, _name))
rnn.static_rnn = _rnn.static_rnn
rnn.static_bidirectional_rnn = _rnn.static_bidirectional_rnn
rnn.static_state_saving_rnn = _loop_rnn.static_state_saving_rnn
rnn.transpose_batch_time = _rnn._transpose_batch_time
rnn.LayerRNNCell = _rnn_cell_impl.LayerRNNCell
rnn.__all__ = [*_rnn_cell_impl.__all__, *_rnn_contrib_cells.__all__,
               *_rnn_research_cells.__all__, *_rnn_grid_cells.__all__, *_rnn_fused.__all__,
               *_rnn_gated.__all__,
               "LayerRNNCell", "transpose_batch_time", "static_bidirectional_rnn",
               "static_rnn", "static_state_saving_rnn"]
sys.modules[rnn.__name__] = rnn

training = types.ModuleType(__name__ + ".training", "``tf.contrib.training``: ps strategies.")
training.GreedyLoadBalancingStrategy = _device_setter.GreedyLoadBalancingStrategy
training.byte_size_load_fn = _device_setter.byte_size_load_fn
training.RandomStrategy = _device_setter.RandomStrategy
training.HParams = _hparams.HParams
training.parse_values = _hparams.parse_values
training.FeedingQueueRunner = _feeding_queue_runner.FeedingQueueRunner
for _name in _contrib_evaluation.__all__:
    setattr(training, _name, getattr(_contrib_evaluation, _name))
for _name in _contrib_training.__all__:
    setattr(training, _name, getattr(_contrib_training, _name))
for _name in _sequence_state_saver.__all__:
    setattr(training, _name, getattr(_sequence_state_saver, _name))
for _name in _contrib_sampling.__all__:
    setattr(training, _name, getattr(_contrib_sampling, _name))
for _name in _bucket_ops.__all__:  # queue-based bucketing
    setattr(training, _name, getattr(_bucket_ops, _name))
sys.modules[training.__name__] = training

# ``tf.contrib.gan`` (TFGAN): models, tuple losses, train ops and the training loop
gan = types.ModuleType(__name__ + ".gan", "``tf.contrib.gan``: GAN models, losses, training.")
for _name in _contrib_gan.__all__:
    setattr(gan, _name, getattr(_contrib_gan, _name))
gan.__all__ = list(_contrib_gan.__all__)
sys.modules[gan.__name__] = gan
for _module in (gan.losses, gan.losses.wargs, gan.eval):
    _module.__name__ = _module.__name__.replace("tideflow.contrib", __name__)
    sys.modules[_module.__name__] = _module

lookup = types.ModuleType(__name__ + ".lookup", "``tf.contrib.lookup``: hash tables.")
for _name in _lookup_ops.__all__:
    setattr(lookup, _name, getattr(_lookup_ops, _name))
lookup.__all__ = list(_lookup_ops.__all__)


def _string_to_index_table_from_file(vocabulary_file=None, num_oov_buckets=0, vocab_size=None,
                                     default_value=-1, hasher_spec=_lookup_ops.FastHashSpec,
                                     name=None):
    """TF 1.0's name of ``index_table_from_file`` for string keys."""
    return _lookup_ops.index_table_from_file(vocabulary_file, num_oov_buckets, vocab_size,
                                             default_value, hasher_spec, name=name)


def _string_to_index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                                       hasher_spec=_lookup_ops.FastHashSpec, name=None):
    """TF 1.0's name of ``index_table_from_tensor`` for string keys."""
    return _lookup_ops.index_table_from_tensor(mapping, num_oov_buckets, default_value,
                                               hasher_spec, name=name)


def _index_table_from_tensor(mapping, num_oov_buckets=0, default_value=-1,
                             hasher_spec=_lookup_ops.FastHashSpec, dtype=_dtypes.string,
                             name=None):
    """``index_table_from_tensor`` under contrib's argument name (and its error words)."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return _lookup_ops.index_table_from_tensor(mapping, num_oov_buckets, default_value,
                                               hasher_spec, dtype, name)


def _index_to_string_table_from_tensor(mapping, default_value="UNK", name=None):
    """``index_to_string_table_from_tensor`` under contrib's argument name."""
    if mapping is None:
        raise ValueError("mapping must be specified.")
    return _lookup_ops.index_to_string_table_from_tensor(mapping, default_value, name)


lookup.index_table_from_tensor = _index_table_from_tensor
lookup.index_to_string_table_from_tensor = _index_to_string_table_from_tensor
lookup.string_to_index_table_from_file = _string_to_index_table_from_file
lookup.string_to_index_table_from_tensor = _string_to_index_table_from_tensor
lookup.__all__ += ["string_to_index_table_from_file", "string_to_index_table_from_tensor"]
sys.modules[lookup.__name__] = lookup

framework = types.ModuleType(__name__ + ".framework", "``tf.contrib.framework``: global step.")
framework.get_global_step = _training_util.get_global_step
framework.get_or_create_global_step = _training_util.get_or_create_global_step
framework.create_global_step = _training_util.create_global_step
framework.nest = _nest
framework.sort = _sort_ops.sort  # TF 1.x's tf.contrib.framework.sort/argsort (not in slim)
framework.argsort = _sort_ops.argsort
_FRAMEWORK_FNS = ("add_arg_scope", "arg_scope", "arg_scope_func_key", "arg_scoped_arguments",
                  "current_arg_scope",
                  "get_local_variables", "get_model_variables", "get_trainable_variables",
                  "get_unique_variable", "get_variables", "get_variables_by_name",
                  "get_variables_by_suffix", "get_variables_to_restore", "has_arg_scope",
                  "model_variable")
_VARIABLE_FNS = ("assign_from_checkpoint", "assign_from_checkpoint_fn", "assign_from_values",
                 "assign_from_values_fn", "global_variable", "local_variable", "variable",
                 "VariableDeviceChooser", "filter_variables", "get_variable_full_name",
                 "zero_initializer")
for _name in _FRAMEWORK_FNS:
    setattr(framework, _name, getattr(_contrib_layers, _name))
for _name in _VARIABLE_FNS:
    setattr(framework, _name, getattr(_more, _name))
framework.__all__ = ["create_global_step", "get_global_step", "get_or_create_global_step",
                     "nest",
                     *_FRAMEWORK_FNS, *_VARIABLE_FNS]
# TF 1.x's tensor checks, helpers and core re-exports
from tideflow import contrib_framework_extra as _framework_extra

framework.__all__ = [*framework.__all__, *_framework_extra.install(framework)]
for _name in _contrib_checkpoint_ops.__all__:  # vocabulary-remapping initializers
    setattr(framework, _name, getattr(_contrib_checkpoint_ops, _name))
framework.__all__ += _contrib_checkpoint_ops.__all__
sys.modules[framework.__name__] = framework
# TF 1.x's speech-commands programs: `from tensorflow.contrib.framework.python.ops import
# audio_ops as contrib_audio` (audio_spectrogram, mfcc, decode_wav, encode_wav)
from tideflow.python.ops import gen_audio_ops as _gen_audio_ops

framework.python = types.ModuleType(__name__ + ".framework.python", "``framework.python``.")
framework.python.ops = types.ModuleType(__name__ + ".framework.python.ops",
                                        "``framework.python.ops``.")
framework.python.ops.audio_ops = _gen_audio_ops
for _module in (framework.python, framework.python.ops):
    sys.modules[_module.__name__] = _module
sys.modules[__name__ + ".framework.python.ops.audio_ops"] = _gen_audio_ops


def _namespace(name, doc, source, names):
    module = types.ModuleType(f"{__name__}.{name}", doc)
    for attr in names:
        setattr(module, attr, getattr(source, attr))
    module.__all__ = list(names)
    sys.modules[module.__name__] = module
    return module


from tideflow.keras import experimental as _keras_experimental

saved_model = _namespace("saved_model", "``tf.contrib.saved_model``: Keras models as "
                         "SavedModels (TF 1.12/1.13).", _keras_experimental,
                         ["save_keras_model", "load_keras_model"])
opt = _namespace("opt", "``tf.contrib.opt``: TF 1.15's contrib optimizers and wrappers.",
                 _contrib_opt, _contrib_opt.__all__)
for _module in (_contrib_opt_wrappers, _contrib_opt_averaging):
    for _name in _module.__all__:
        setattr(opt, _name, getattr(_module, _name))
    opt.__all__ += _module.__all__
# TF's implementation modules (tensorflow.contrib.opt.python.training.lazy_adam_optimizer, ...)
# are the one namespace: each holds its names there
opt.python = types.ModuleType(opt.__name__ + ".python", "``opt.python``.")
opt.python.training = types.ModuleType(opt.__name__ + ".python.training",
                                       "``opt.python.training``.")
for _module in (opt.python, opt.python.training):
    sys.modules[_module.__name__] = _module
for _short in ("adam_gs_optimizer", "adamax", "addsign", "agn_optimizer",
               "drop_stale_gradient_optimizer", "elastic_average_optimizer",
               "external_optimizer", "ggt", "lars_optimizer", "lazy_adam_gs_optimizer",
               "lazy_adam_optimizer", "model_average_optimizer", "moving_average_optimizer",
               "multitask_optimizer_wrapper", "nadam_optimizer", "powersign",
               "reg_adagrad_optimizer", "shampoo", "sign_decay", "variable_clipping_optimizer",
               "weight_decay_optimizers"):
    setattr(opt.python.training, _short, opt)
    sys.modules[f"{opt.python.training.__name__}.{_short}"] = opt
image = _namespace("image", "``tf.contrib.image``: projective transforms, dense warps.",
                   _image_transform_ops, _image_transform_ops.__all__)
image.dense_image_warp = _image_warp_ops.dense_image_warp
image.interpolate_spline = _contrib_misc.interpolate_spline
image.sparse_image_warp = _contrib_misc.sparse_image_warp
for _name in _contrib_image_extra.__all__:
    setattr(image, _name, getattr(_contrib_image_extra, _name))
image.__all__ = sorted([*image.__all__, *_image_warp_ops.__all__, "interpolate_spline",
                        "sparse_image_warp", *_contrib_image_extra.__all__])
crf = _namespace("crf", "``tf.contrib.crf``: linear-chain CRF.", _crf, _crf.__all__)
metrics = _namespace("metrics", "``tf.contrib.metrics``: streaming metrics.", _contrib_metrics,
                     _contrib_metrics.__all__)
losses = _namespace("losses", "``tf.contrib.losses``: predictions-first losses.",
                    _contrib_losses, _contrib_losses.__all__)
losses.metric_learning = _namespace("losses.metric_learning", "``tf.contrib.losses."
                                    "metric_learning``: embedding losses.", _contrib_misc,
                                    _contrib_misc.METRIC_LEARNING_NAMES)
sparsemax = _namespace("sparsemax", "``tf.contrib.sparsemax``.", _contrib_misc,
                       _contrib_misc.SPARSEMAX_NAMES)
resampler = _namespace("resampler", "``tf.contrib.resampler``: bilinear resampling.",
                       _contrib_misc, ["resampler"])
nn = _namespace("nn", "``tf.contrib.nn``: alpha dropout, scaled softplus, sampled losses.",
                _contrib_misc, _contrib_misc.NN_NAMES)
seq2seq = types.ModuleType(__name__ + ".seq2seq", "``tf.contrib.seq2seq``: sequence_loss, "
                           "helpers, decoders, attention and beam search.")
seq2seq.sequence_loss = _seq2seq_loss.sequence_loss
seq2seq.__all__ = ["sequence_loss"]
for _mod in ("seq2seq_decoder", "seq2seq_helper", "seq2seq_attention", "seq2seq_beam_search"):
    _mod = __import__("tideflow.ops." + _mod, fromlist=["__all__"])
    for _name in _mod.__all__:
        setattr(seq2seq, _name, getattr(_mod, _name))
    seq2seq.__all__ += _mod.__all__
sys.modules[seq2seq.__name__] = seq2seq
legacy_seq2seq = types.ModuleType(__name__ + ".legacy_seq2seq",
                                  "``tf.contrib.legacy_seq2seq``: sequence losses and "
                                  "decoders over lists of steps.")
legacy_seq2seq.sequence_loss = _seq2seq_loss.legacy_sequence_loss
legacy_seq2seq.sequence_loss_by_example = _seq2seq_loss.sequence_loss_by_example
for _name in _legacy_seq2seq.__all__:
    setattr(legacy_seq2seq, _name, getattr(_legacy_seq2seq, _name))
legacy_seq2seq.__all__ = ["sequence_loss", "sequence_loss_by_example", *_legacy_seq2seq.__all__]
sys.modules[legacy_seq2seq.__name__] = legacy_seq2seq
# `from tensorflow.contrib.rnn.python.ops import core_rnn_cell`, `...seq2seq.python.ops import
# attention_wrapper`, ...
__import__("tideflow.contrib_source_paths", fromlist=["register"]).register(
    sys.modules[__name__])

# ``tf.contrib.slim``: layers, arg scopes, variables, losses, metrics and the training loop
slim = types.ModuleType(__name__ + ".slim", "``tf.contrib.slim``.")
for _name in layers.__all__:
    setattr(slim, _name, getattr(layers, _name))
for _name in framework.__all__:
    setattr(slim, _name, getattr(framework, _name))
slim.variables = _namespace("slim.variables", "``slim.variables``.", framework,
                            framework.__all__)
slim.losses = losses
slim.metrics = metrics
# TF 1.x's slim star-imports contrib.layers' package, so its modules come along as
# ``slim.layers.conv2d``, ``slim.initializers.xavier_initializer``, ``slim.regularizers...``
slim.layers = layers
slim.initializers = _namespace(
    "slim.initializers", "``slim.initializers``.", layers,
    ("variance_scaling_initializer", "xavier_initializer", "xavier_initializer_conv2d"))
slim.regularizers = _namespace(
    "slim.regularizers", "``slim.regularizers``.", layers,
    ("apply_regularization", "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
     "sum_regularizer"))
slim.optimizers = _namespace("slim.optimizers", "``slim.optimizers``.", layers,
                             ("optimize_loss",))
slim.utils = _slim_nets.utils
slim.nets = _slim_nets.nets
for _module in (slim.utils, slim.nets, slim.nets.alexnet, slim.nets.vgg):
    sys.modules[_module.__name__] = _module
slim.evaluation = types.ModuleType(__name__ + ".slim.evaluation", "``slim.evaluation``.")
slim.evaluation.evaluate_once = _contrib_evaluation.slim_evaluate_once
slim.evaluation.evaluation_loop = _contrib_evaluation.slim_evaluation_loop
slim.evaluation.wait_for_new_checkpoint = _contrib_evaluation.wait_for_new_checkpoint
slim.evaluation.checkpoints_iterator = _contrib_evaluation.checkpoints_iterator
slim.evaluation.__all__ = ["checkpoints_iterator", "evaluate_once", "evaluation_loop",
                           "wait_for_new_checkpoint"]
sys.modules[slim.evaluation.__name__] = slim.evaluation
slim.learning = _namespace("slim.learning", "``slim.learning``.", _slim_learning,
                           ("add_gradients_summaries", "create_train_op", "multiply_gradients",
                            "train", "train_step"))
slim.learning.clip_gradient_norms = _contrib_training.clip_gradient_norms
slim.learning.__all__ += ["clip_gradient_norms"]
slim.python = _slim_nets.slim_python  # TF's implementation path, for older imports
slim.python.slim.learning = slim.learning
slim.python.slim.evaluation = slim.evaluation
for _module in (slim.learning, slim.evaluation):
    sys.modules[_module.__name__.replace(".slim.", ".slim.python.slim.")] = _module
slim.python.slim.data = types.ModuleType(slim.python.slim.__name__ + ".data", "slim's data.")
for _module in _slim_data.MODULES:  # slim.dataset, slim.tfexample_decoder, ...
    _short = _module.__name__.rpartition(".")[2]
    setattr(slim, _short, _module)
    setattr(slim.python.slim.data, _short, _module)
    sys.modules[_module.__name__] = _module
    sys.modules[f"{slim.python.slim.data.__name__}.{_short}"] = _module
sys.modules[slim.python.slim.data.__name__] = slim.python.slim.data
for _module in _slim_misc.MODULES:  # slim.summaries, slim.model_analyzer, slim.queues
    _short = _module.__name__.rpartition(".")[2]
    setattr(slim, _short, _module)
    setattr(slim.python.slim, _short, _module)
    sys.modules[_module.__name__] = _module
    sys.modules[f"{slim.python.slim.__name__}.{_short}"] = _module
slim.__all__ = sorted({*layers.__all__, *framework.__all__, "evaluation", "learning", "losses",
                       "metrics", "nets", "utils", "variables",
                       *(m.__name__.rpartition(".")[2]
                         for m in (*_slim_data.MODULES, *_slim_misc.MODULES))})
sys.modules[slim.__name__] = slim
# custom slim layers import TF's implementation paths: tensorflow.contrib.layers.python.layers
# (utils, initializers, ...) and tensorflow.contrib.framework.python.ops (add_arg_scope, ...)
from tideflow import contrib_layers_python as _contrib_layers_python

_contrib_layers_python.install(sys.modules[__name__])



def _batch_and_drop_remainder(batch_size):
    """``tf.contrib.data.batch_and_drop_remainder``: ``batch(batch_size, drop_remainder=True)``
    as a transformation for ``Dataset.apply``."""
    return lambda dataset: dataset.batch(batch_size, drop_remainder=True)


def _padded_batch_and_drop_remainder(batch_size, padded_shapes, padding_values=None):
    """``tf.contrib.data.padded_batch_and_drop_remainder``: ``padded_batch`` without the
    last, smaller batch, for ``Dataset.apply``."""
    return lambda dataset: dataset.padded_batch(batch_size, padded_shapes, padding_values,
                                                drop_remainder=True)


def _read_batch_features(file_pattern, batch_size, features, reader=None, reader_args=None,
                         randomize_input=True, num_epochs=None, capacity=10000):
    """``tf.contrib.data.read_batch_features``: the next batch (a dict of features) of
    ``make_batched_features_dataset`` over the files, through a one-shot iterator."""
    from tideflow import data

    dataset = data.experimental.make_batched_features_dataset(
        file_pattern, batch_size=batch_size, features=features,
        reader=reader or data.TFRecordDataset, reader_args=reader_args,
        shuffle=randomize_input, num_epochs=num_epochs, shuffle_buffer_size=capacity)
    return dataset.make_one_shot_iterator().get_next()


def _reduce_dataset(dataset, reducer):
    """``tf.contrib.data.reduce_dataset``: ``reducer`` (a ``Reducer``) over every element,
    the single result."""
    from tideflow import data

    if not isinstance(dataset, data.Dataset):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    import numpy as np

    return data.experimental.get_single_element(
        dataset.apply(data.experimental.group_by_reducer(lambda x: np.int64(0), reducer)))


def _sloppy_interleave(map_func, cycle_length, block_length=1):
    """``tf.contrib.data.sloppy_interleave``: ``parallel_interleave(..., sloppy=True)``."""
    from tideflow import data

    return data.experimental.parallel_interleave(map_func, cycle_length, block_length,
                                                 sloppy=True)


def _contrib_data():
    from tideflow import data

    experimental = data.experimental
    names = [n for n in dir(experimental) if not n.startswith("_") and n not in
             ("collections", "dtypes", "np", "Dataset")]
    module = _namespace("data", "``tf.contrib.data``: tf.data.experimental and the 1.x "
                        "transformations.", experimental, names)
    module.batch_and_drop_remainder = _batch_and_drop_remainder
    module.padded_batch_and_drop_remainder = _padded_batch_and_drop_remainder
    from tideflow.ops.dataset_more import assert_element_shape, sliding_window_batch

    module.sliding_window_batch = sliding_window_batch
    module.assert_element_shape = assert_element_shape
    module.read_batch_features = _read_batch_features
    module.reduce_dataset = _reduce_dataset
    module.sloppy_interleave = _sloppy_interleave
    module.CheckpointInputPipelineHook = experimental.CheckpointInputPipelineHook
    # TF 1.2-1.5 programs build their pipelines from tf.contrib.data's own dataset classes
    legacy = ("Dataset", "Iterator", "TextLineDataset", "TFRecordDataset",
              "FixedLengthRecordDataset")
    for name in legacy:
        setattr(module, name, getattr(data, name))
    module.__all__ = sorted([*names, *legacy, "batch_and_drop_remainder",
                             "padded_batch_and_drop_remainder", "sliding_window_batch",
                             "assert_element_shape", "read_batch_features", "reduce_dataset",
                             "sloppy_interleave", "CheckpointInputPipelineHook"])
    return module


def _contrib_estimator():
    from tideflow import estimator
    from tideflow.estimator import experimental

    names = ("InMemoryEvaluatorHook", "make_early_stopping_hook", "stop_if_higher_hook",
             "stop_if_lower_hook", "stop_if_no_decrease_hook", "stop_if_no_increase_hook",
             "dnn_logit_fn_builder", "linear_logit_fn_builder", "call_logit_fn")
    module = _namespace("estimator", "``tf.contrib.estimator``: metrics and early stopping.",
                        experimental, names)
    module.add_metrics = estimator.add_metrics
    from tideflow.estimator.canned import boosted_trees

    in_memory = ("boosted_trees_classifier_train_in_memory",
                 "boosted_trees_regressor_train_in_memory")
    for name in in_memory:
        setattr(module, name, getattr(boosted_trees, name))
    from tideflow.estimator import contrib_estimator

    for name in contrib_estimator.__all__:
        setattr(module, name, getattr(contrib_estimator, name))
    canned = ("DNNEstimator", "LinearEstimator", "DNNLinearCombinedEstimator")
    for name in canned:
        setattr(module, name, getattr(estimator, name))
    from tideflow.estimator.canned import dnn_annotations, rnn, saved_model_estimator

    sources = (rnn, dnn_annotations, saved_model_estimator)
    for source in sources:
        for name in source.__all__:
            setattr(module, name, getattr(source, name))
    module.__all__ = sorted([*names, "add_metrics", *in_memory, *contrib_estimator.__all__,
                             *canned, *(n for source in sources for n in source.__all__)])
    return module


def _contrib_feature_column():
    from tideflow.feature_column import sequence_feature_column as seq

    names = [n for n in dir(seq) if n.startswith("sequence_") and not n.startswith("_")
             and callable(getattr(seq, n))]
    return _namespace("feature_column", "``tf.contrib.feature_column``: sequence columns.",
                      seq, names)


def _contrib_factorization():
    from tideflow.ops import clustering_ops, factorization_ops, gmm_ops
    from tideflow.ops import contrib_factorization as fac

    module = _namespace("factorization", "``tf.contrib.factorization``: k-means, WALS, GMM.",
                        fac, fac.__all__)
    # TF's implementation modules (``factorization.python.ops.clustering_ops``)
    module.python = types.ModuleType(module.__name__ + ".python", "``factorization.python``.")
    module.python.ops = types.ModuleType(module.__name__ + ".python.ops",
                                         "``factorization.python.ops``.")
    for sub in (module.python, module.python.ops):
        sys.modules[sub.__name__] = sub
    for impl in (clustering_ops, factorization_ops, gmm_ops):
        short = impl.__name__.rpartition(".")[2]
        setattr(module.python.ops, short, impl)
        sys.modules[f"{module.python.ops.__name__}.{short}"] = impl
    return module


def _contrib_distributions():
    from tideflow import distributions
    from tideflow.distributions import (
        bijectors,
        contrib_compound,
        contrib_dists,
        contrib_mvn,
        contrib_scalar,
        contrib_stats,
        transformed,
    )
    from tideflow.distributions import util as distribution_util

    module = _namespace("distributions", "``tf.contrib.distributions``: tf.distributions and "
                        "the multivariate normals, one-hot categorical, ``kl``.",
                        distributions, distributions.__all__)
    sources = (contrib_dists, contrib_mvn, contrib_scalar, transformed, contrib_compound,
               contrib_stats)
    for source in sources:
        for name in source.__all__:
            setattr(module, name, getattr(source, name))
    # the distribution utilities and softplus-parameter variants TF 1.15 exports there too
    helpers = ["fill_triangular", "fill_triangular_inverse", "reduce_weighted_logsumexp",
               "softplus_inverse"]
    for name in helpers:
        setattr(module, name, getattr(distribution_util, name))
    softplus = ["BetaWithSoftplusConcentration", "ExponentialWithSoftplusRate",
                "GammaWithSoftplusConcentrationRate", "LaplaceWithSoftplusScale",
                "StudentTWithAbsDfSoftplusScale"]
    for name in softplus:
        setattr(module, name, getattr(distributions, name))
    contrib_dists.add_legacy_names()  # Normal(mu=, sigma=), Bernoulli(p=), sample_n, ...
    module.bijectors = bijectors
    sys.modules[module.__name__ + ".bijectors"] = bijectors
    module.__all__ = sorted([*distributions.__all__, *helpers, *softplus, "bijectors",
                             *(name for source in sources for name in source.__all__)])
    return module


def _contrib_stateless():
    from tideflow import random

    module = types.ModuleType(f"{__name__}.stateless", "``tf.contrib.stateless``: stateless "
                              "random ops keyed by a shape-[2] seed.")
    module.stateless_random_uniform = random.stateless_uniform
    module.stateless_random_normal = random.stateless_normal
    module.stateless_truncated_normal = random.stateless_truncated_normal
    module.stateless_multinomial = random.stateless_multinomial
    module.__all__ = ["stateless_multinomial", "stateless_random_normal",
                      "stateless_random_uniform", "stateless_truncated_normal"]
    sys.modules[module.__name__] = module
    return module


def _contrib_util():
    from tideflow.framework import meta_graph, tensor_util
    from tideflow.ops.misc_ops import get_static_value

    module = types.ModuleType(f"{__name__}.util", "``tf.contrib.util``: tensor protos.")
    module.make_tensor_proto = tensor_util.make_tensor_proto
    module.make_ndarray = tensor_util.make_ndarray
    module.constant_value = get_static_value
    module.ops_used_by_graph_def = meta_graph.ops_used_by_graph_def
    module.stripped_op_list_for_graph = meta_graph.stripped_op_list_for_graph
    module.__all__ = ["constant_value", "make_ndarray", "make_tensor_proto",
                      "ops_used_by_graph_def", "stripped_op_list_for_graph"]
    sys.modules[module.__name__] = module
    # TF 1.15's contrib.util.loader.load_op_library(path)
    from tideflow.ops import tf1_misc_ops

    module.loader = _namespace("util.loader", "``tf.contrib.util.loader``.", tf1_misc_ops, [])
    module.loader.load_op_library = tf1_misc_ops.contrib_load_op_library
    module.loader.__all__ = ["load_op_library"]
    return module


def _contrib_batching():
    import tideflow

    module = _namespace("batching", "``tf.contrib.batching``: batch_function.", tideflow, [])
    module.batch_function = tideflow.nondifferentiable_batch_function  # (TF 1.15's alias)
    module.__all__ = ["batch_function"]
    return module


def _contrib_tensorboard():
    projector = __import__("tideflow.contrib_projector", fromlist=["projector"])
    tensorboard = types.ModuleType(f"{__name__}.tensorboard", "``tf.contrib.tensorboard``.")
    tensorboard.plugins = types.ModuleType(f"{__name__}.tensorboard.plugins",
                                           "``tf.contrib.tensorboard.plugins``.")
    tensorboard.plugins.projector = projector
    sys.modules[tensorboard.__name__] = tensorboard
    sys.modules[tensorboard.plugins.__name__] = tensorboard.plugins
    sys.modules[f"{tensorboard.plugins.__name__}.projector"] = projector
    return tensorboard


deprecated = _namespace("deprecated", "``tf.contrib.deprecated``: 0.x's summary ops.",
                        _contrib_summaries, _contrib_summaries.DEPRECATED_NAMES)

def _contrib_cudnn_rnn():
    from tideflow import contrib_cudnn_rnn as cudnn

    return _namespace("cudnn_rnn", "``tf.contrib.cudnn_rnn``: the cuDNN RNN layers (run on "
                      "the CPU) and their compatible cells.", cudnn, cudnn.__all__)


def _contrib_learn():
    """``tf.contrib.learn``, with the module paths TF 1.x programs import its data sets from
    (``tf.contrib.learn.datasets.mnist``; contrib_learn registers the ``python.learn`` ones)."""
    from tideflow import contrib_learn, contrib_learn_datasets

    base = f"{__name__}.learn"
    datasets = contrib_learn.datasets
    datasets.mnist = contrib_learn_datasets.mnist
    contrib_learn.python = sys.modules.get(f"{base}.python")
    for module, name in ((datasets, "datasets"), (datasets.base, "datasets.base"),
                         (datasets.mnist, "datasets.mnist")):
        sys.modules.setdefault(f"{base}.{name}", module)
    return contrib_learn


def _contrib_linalg():
    """``tf.contrib.linalg``: the LinearOperator classes, with TF <= 1.4's names
    ``LinearOperatorTriL`` (now LowerTriangular) and ``LinearOperatorUDVHUpdate`` (LowRankUpdate)."""
    from tideflow import linalg

    names = [n for n in dir(linalg) if n.startswith("LinearOperator")]
    module = _namespace("linalg", _contrib_linalg.__doc__, linalg, names)
    module.LinearOperatorTriL = linalg.LinearOperatorLowerTriangular
    module.LinearOperatorUDVHUpdate = linalg.LinearOperatorLowRankUpdate
    module.__all__ += ["LinearOperatorTriL", "LinearOperatorUDVHUpdate"]
    return module


def _contrib_compiler():
    from tideflow import contrib_compiler

    module = _namespace("compiler", "``tf.contrib.compiler``: ``jit`` and ``xla`` (no XLA: "
                        "ops are marked, then run as usual).", contrib_compiler,
                        ["jit", "xla"])
    for sub in (contrib_compiler.jit, contrib_compiler.xla):
        sub.__name__ = f"{module.__name__}.{sub.__name__.rpartition('.')[2]}"
        sys.modules[sub.__name__] = sub
    return module


def _contrib_collective(name):
    from tideflow import contrib_collectives

    module = getattr(contrib_collectives, name)
    sys.modules[module.__name__] = module
    return module


def _contrib_graph_editor():
    from tideflow import contrib_graph_editor, contrib_graph_transform

    module = _namespace("graph_editor", "``tf.contrib.graph_editor``: select, subgraph "
                        "views, reroute, edit, copy.", contrib_graph_editor,
                        contrib_graph_editor.__all__)
    for name in contrib_graph_transform.__all__:
        setattr(module, name, getattr(contrib_graph_transform, name))
    module.__all__ = sorted([*contrib_graph_editor.__all__, *contrib_graph_transform.__all__])
    # TF's submodules (ge.util.make_list_of_op, ge.reroute.add_control_inputs, ...), each
    # with TF's names
    for name, source, names in (
            ("util", contrib_graph_editor, contrib_graph_editor.UTIL_NAMES),
            ("select", contrib_graph_editor, contrib_graph_editor.SELECT_NAMES),
            ("subgraph", contrib_graph_editor, contrib_graph_editor.SUBGRAPH_NAMES),
            ("reroute", contrib_graph_transform, contrib_graph_transform.REROUTE_NAMES),
            ("edit", contrib_graph_transform, contrib_graph_transform.EDIT_NAMES),
            ("transform", contrib_graph_transform, contrib_graph_transform.TRANSFORM_NAMES)):
        setattr(module, name, _namespace(f"graph_editor.{name}",
                                         f"``tf.contrib.graph_editor.{name}``.", source, names))
    return module


def _contrib_reduce_slice_ops():
    """``tf.contrib.reduce_slice_ops``, with TF's module path ``python.ops.reduce_slice_ops``
    (where TF 1.15 programs import the functions from)."""
    from tideflow.ops import reduce_slice_ops

    module = _namespace("reduce_slice_ops", "``tf.contrib.reduce_slice_ops``: reductions "
                        "of slices.", reduce_slice_ops, reduce_slice_ops.__all__)
    module.python = types.ModuleType(module.__name__ + ".python", "``python``.")
    module.python.ops = types.ModuleType(module.__name__ + ".python.ops", "``python.ops``.")
    module.python.ops.reduce_slice_ops = reduce_slice_ops
    sys.modules[module.python.__name__] = module.python
    sys.modules[module.python.ops.__name__] = module.python.ops
    sys.modules[module.python.ops.__name__ + ".reduce_slice_ops"] = reduce_slice_ops
    return module


def _contrib_receptive_field():
    """``tf.contrib.receptive_field``, with TF's module paths ``python.util.receptive_field``,
    ``graph_compute_order`` and ``parse_layer_parameters`` (one module here)."""
    from tideflow import contrib_receptive_field as rf

    module = _namespace("receptive_field", "``tf.contrib.receptive_field``: receptive fields "
                        "of CNN graphs.", rf, rf.__all__)
    module.python = types.ModuleType(module.__name__ + ".python", "``python``.")
    module.python.util = types.ModuleType(module.__name__ + ".python.util", "``python.util``.")
    sys.modules[module.python.__name__] = module.python
    sys.modules[module.python.util.__name__] = module.python.util
    for name in ("receptive_field", "graph_compute_order", "parse_layer_parameters"):
        setattr(module.python.util, name, rf)
        sys.modules[f"{module.python.util.__name__}.{name}"] = rf
    return module


def _contrib_module(module, name, doc):
    source = importlib.import_module("tideflow." + module)
    return _namespace(name, doc, source, source.__all__)


def _contrib_mixed_precision():
    module = _contrib_module(
        "train.contrib_mixed_precision", "mixed_precision",
        "``tf.contrib.mixed_precision``: LossScaleOptimizer and loss scale managers.")
    # TF's implementation modules (mixed_precision.python.loss_scale_optimizer, ...)
    module.python = types.ModuleType(module.__name__ + ".python", "``mixed_precision.python``.")
    sys.modules[module.python.__name__] = module.python
    for short in ("loss_scale_manager", "loss_scale_optimizer"):
        setattr(module.python, short, module)
        sys.modules[f"{module.python.__name__}.{short}"] = module
    return module


def _contrib_quantize():
    module = _contrib_module(
        "contrib_quantize", "quantize",
        "``tf.contrib.quantize``: fake-quantization rewrites of training and eval graphs.")
    # the pattern matcher programs import from TF's implementation path
    # (``tensorflow.contrib.quantize.python.graph_matcher``)
    matcher = importlib.import_module("tideflow.contrib_graph_matcher")
    module.python = types.ModuleType(module.__name__ + ".python", "``quantize.python``.")
    module.python.graph_matcher = matcher
    sys.modules[module.python.__name__] = module.python
    sys.modules[module.python.__name__ + ".graph_matcher"] = matcher
    return module


def _implementation_paths(module, paths, target=None, hidden=True):
    """Binds ``target`` (default: ``module``) under TF's implementation module paths below
    ``module`` (``grid_rnn.python.ops.grid_rnn_cell``), for programs that import from there;
    ``hidden``: importable only, not an attribute of ``module`` (TF's remove_undocumented)."""
    target = module if target is None else target
    for path in paths:
        parent = module
        parts = path.split(".")
        for depth, part in enumerate(parts):
            full = f"{module.__name__}.{'.'.join(parts[:depth + 1])}"
            if depth == len(parts) - 1:
                child = target
            else:
                child = sys.modules.get(full) or types.ModuleType(full, f"``{full}``.")
                child.__path__ = []
            if depth or not hidden:
                setattr(parent, part, child)
            sys.modules[full] = child
            parent = child
    return module


def _contrib_grid_rnn():
    module = _contrib_module("contrib_grid_rnn", "grid_rnn",
                             "``tf.contrib.grid_rnn``: Grid RNN cells.")
    return _implementation_paths(module, ["python.ops.grid_rnn_cell"], hidden=False)


def _contrib_model_pruning():
    module = _contrib_module("contrib_model_pruning", "model_pruning",
                             "``tf.contrib.model_pruning``: magnitude pruning with masks.")
    return _implementation_paths(module, ["python.pruning", "python.pruning_utils",
                                          "python.layers.layers", "python.layers.core_layers",
                                          "python.layers.rnn_cells", "python.learning",
                                          "python.strip_pruning_vars_lib"],
                                 target=importlib.import_module("tideflow.contrib_model_pruning"))


def _contrib_kernel_methods():
    module = _contrib_module(
        "contrib_kernel_methods", "kernel_methods",
        "``tf.contrib.kernel_methods``: random Fourier features, multiclass hinge loss, "
        "KernelLinearClassifier.")
    return _implementation_paths(
        module, ["python.kernel_estimators", "python.losses",
                 "python.mappers.random_fourier_features", "python.mappers.dense_kernel_mapper"],
        importlib.import_module("tideflow.contrib_kernel_methods"))


def _contrib_solvers():
    source = importlib.import_module("tideflow.contrib_solvers")
    module = types.ModuleType(f"{__name__}.solvers", source.__doc__)
    sys.modules[module.__name__] = module
    parts = {"linear_equations": ["conjugate_gradient"], "least_squares": ["cgls"],
             "lanczos": ["lanczos_bidiag", "bidiag_matmul"],
             "util": ["create_operator", "identity_operator", "dot", "l2norm_squared",
                      "l2norm", "l2normalize"]}
    for part, names in parts.items():
        setattr(module, part, _namespace(f"solvers.{part}", f"``tf.contrib.solvers.{part}``.",
                                         source, names))
    module.__all__ = sorted(parts)
    for part in parts:  # TF's implementation modules: solvers.python.ops.<part>
        _implementation_paths(module, [f"python.ops.{part}"], getattr(module, part),
                              hidden=False)
    return module


def _contrib_bayesflow():
    monte_carlo = _contrib_module("contrib_bayesflow", "bayesflow.monte_carlo",
                                  "``tf.contrib.bayesflow.monte_carlo``: Monte Carlo "
                                  "expectations.")
    module = types.ModuleType(__name__ + ".bayesflow", "``tf.contrib.bayesflow``.")
    module.monte_carlo = monte_carlo
    module.__all__ = ["monte_carlo"]
    sys.modules[module.__name__] = module
    return _implementation_paths(module, ["python.ops.monte_carlo",
                                          "python.ops.monte_carlo_impl"], monte_carlo)


def _contrib_copy_graph():
    module = _contrib_module("contrib_copy_graph", "copy_graph",
                             "``tf.contrib.copy_graph``: copy variables and ops between graphs.")
    return _implementation_paths(module, ["python.util.copy_elements"])


def _contrib_eager():
    import tideflow as tf
    from tideflow.python import _eager_context
    from tideflow.python.framework import test_util

    module = types.ModuleType(__name__ + ".eager", "``tf.contrib.eager``: the eager-era names "
                              "that also work in graph mode (``defun``, ``Checkpoint``, ...).")
    for name, value in (("defun", tf.function), ("function", tf.function),
                        ("executing_eagerly", tf.executing_eagerly),
                        ("in_eager_mode", tf.executing_eagerly),
                        ("in_graph_mode", lambda: not tf.executing_eagerly()),
                        ("GradientTape", tf.GradientTape), ("Variable", tf.Variable),
                        ("Checkpoint", tf.train.Checkpoint), ("py_func", tf.py_function),
                        ("custom_gradient", tf.custom_gradient),
                        ("enable_eager_execution", tf.enable_eager_execution),
                        ("num_gpus", _eager_context.num_gpus),
                        # test-class decorators: the graph half is what runs here
                        ("run_test_in_graph_and_eager_modes",
                         test_util.run_in_graph_and_eager_modes),
                        ("run_all_tests_in_graph_and_eager_modes",
                         test_util.run_all_in_graph_and_eager_modes)):
        setattr(module, name, value)
    module.__all__ = sorted(n for n in vars(module) if not n.startswith("_"))
    # TF's implementation module path (``from tensorflow.contrib.eager.python import tfe``)
    module.python = types.ModuleType(module.__name__ + ".python", "``eager.python``.")
    module.python.tfe = module
    sys.modules[module.python.__name__] = module.python
    sys.modules[module.python.__name__ + ".tfe"] = module
    return module


# contrib names that are other namespaces of tideflow, bound on first use
_LAZY_ALIASES = {
    "autograph": lambda: __import__("tideflow.autograph", fromlist=["autograph"]),
    "eager": _contrib_eager,
    "tpu": lambda: __import__("tideflow.estimator.tpu", fromlist=["tpu"]),
    "estimator": _contrib_estimator,
    "feature_column": _contrib_feature_column,
    "keras": lambda: __import__("tideflow.keras", fromlist=["keras"]),
    "distributions": _contrib_distributions,
    "data": _contrib_data,
    "factorization": _contrib_factorization,
    "predictor": lambda: __import__("tideflow.contrib_predictor", fromlist=["predictor"]),
    "signal": lambda: __import__("tideflow.signal", fromlist=["signal"]),
    "stateless": _contrib_stateless,
    "linalg": _contrib_linalg,
    "util": _contrib_util,
    "batching": _contrib_batching,
    "tensorboard": _contrib_tensorboard,
    "learn": lambda: _contrib_learn(),
    "linear_optimizer": lambda: _contrib_module(
        "contrib_linear_optimizer", "linear_optimizer",
        "``tf.contrib.linear_optimizer``: SDCA-trained linear models."),
    "skflow": lambda: __import__("tideflow.contrib_skflow", fromlist=["ops"]),
    "cudnn_rnn": lambda: _contrib_cudnn_rnn(),
    "summary": lambda: _contrib_module("contrib_summary_v2", "summary",
                                       "``tf.contrib.summary``: writer-based summaries."),
    "optimizer_v2": lambda: _contrib_module(
        "contrib_optimizer_v2", "optimizer_v2",
        "``tf.contrib.optimizer_v2``: the OptimizerV2 names of tf.train's optimizers."),
    "integrate": lambda: _contrib_module("contrib_integrate", "integrate",
                                         "``tf.contrib.integrate``: odeint, odeint_fixed."),
    "distribute": lambda: __import__("tideflow.distribute.contrib", fromlist=["contrib"]),
    "cluster_resolver": lambda: __import__("tideflow.distribute.cluster_resolver",
                                           fromlist=["cluster_resolver"]),
    "tensor_forest": lambda: __import__("tideflow.contrib_tensor_forest",
                                        fromlist=["_namespace"])._namespace(),
    "boosted_trees": lambda: __import__("tideflow.contrib_boosted_trees",
                                        fromlist=["_namespace"])._namespace(),
    "staging": lambda: _contrib_module("ops.staging_ops", "staging",
                                       "``tf.contrib.staging``: StagingArea."),
    "compiler": lambda: _contrib_compiler(),
    "nccl": lambda: _contrib_collective("nccl"),
    "graph_editor": lambda: _contrib_graph_editor(),
    "reduce_slice_ops": lambda: _contrib_reduce_slice_ops(),
    "receptive_field": lambda: _contrib_receptive_field(),
    "all_reduce": lambda: _contrib_collective("all_reduce"),
    "quantize": lambda: _contrib_quantize(),
    "tfprof": lambda: _contrib_module(
        "contrib_tfprof", "tfprof",
        "``tf.contrib.tfprof``: model_analyzer and tfprof_logger over tf.profiler."),
    "text": lambda: _contrib_module("ops.skip_gram_ops", "text",
                                    "``tf.contrib.text``: skip-gram sampling."),
    "memory_stats": lambda: _contrib_module(
        "ops.memory_stats_ops", "memory_stats",
        "``tf.contrib.memory_stats``: BytesInUse, MaxBytesInUse, BytesLimit."),
    "mixed_precision": lambda: _contrib_mixed_precision(),
    "grid_rnn": lambda: _contrib_grid_rnn(),
    "kernel_methods": lambda: _contrib_kernel_methods(),
    "model_pruning": lambda: _contrib_model_pruning(),
    "recurrent": lambda: _implementation_paths(
        _contrib_module("contrib_recurrent", "recurrent",
                        "``tf.contrib.recurrent``: Recurrent and the functional RNNs."),
        ["python.ops.recurrent", "python.ops.functional_rnn", "python.recurrent_api"]),
    "bayesflow": lambda: _contrib_bayesflow(),
    "solvers": lambda: _contrib_solvers(),
    "copy_graph": lambda: _contrib_copy_graph(),
    "periodic_resample": lambda: _contrib_module(
        "ops.periodic_resample_ops", "periodic_resample",
        "``tf.contrib.periodic_resample``: periodic_resample (a sub-pixel shuffle)."),
}


def __getattr__(name):
    make = _LAZY_ALIASES.get(name)
    if make is None:
        raise AttributeError(f"module 'tideflow.contrib' has no attribute {name!r}")
    value = make()
    globals()[name] = value
    sys.modules.setdefault(f"{__name__}.{name}", value)
    return value


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets ``import tideflow.contrib.<alias>`` and ``from tideflow.contrib.<alias> import x``
    build a lazy alias, as the attribute access does."""

    def find_spec(self, fullname, path, target=None):
        prefix, _, name = fullname.rpartition(".")
        if prefix != __name__ or name not in _LAZY_ALIASES:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec):
        return __getattr__(spec.name.rpartition(".")[2])

    def exec_module(self, module):
        pass


__path__ = []  # a package for the import system, so that its aliases can be imported by name
sys.meta_path.append(_AliasFinder())

__all__ = ["crf", "deprecated", "framework", "gan", "image", "layers", "legacy_seq2seq", "lookup", "losses", "metrics",
           "nn", "opt", "resampler", "rnn", "seq2seq", "slim", "sparsemax", "training"]


def __dir__():
    return sorted(set(globals()) | set(_LAZY_ALIASES))
