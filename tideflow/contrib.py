"""``tf.contrib``: the contrib names TF 1.x programs commonly use, as ``tf.contrib.layers``
(regularizers and initializers); explicit re-exports only."""

import sys
import types

from tideflow.ops import contrib_layers as _contrib_layers
from tideflow.ops import layer_initializers as _initializers
from tideflow.ops import lookup_ops as _lookup_ops
from tideflow.ops import regularizers as _regularizers
from tideflow.ops import rnn as _rnn
from tideflow.ops import rnn_cell_impl as _rnn_cell_impl
from tideflow.train import device_setter as _device_setter
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
_LAYER_FNS = ("avg_pool2d", "batch_norm", "conv2d", "convolution2d", "dropout",
              "embed_sequence", "flatten", "fully_connected", "layer_norm", "max_pool2d",
              "one_hot_encoding")
for _name in _LAYER_FNS:
    setattr(layers, _name, getattr(_contrib_layers, _name))
layers.__all__ = [
    "apply_regularization", *_LAYER_FNS, "l1_l2_regularizer", "l1_regularizer", "l2_regularizer",
    "sum_regularizer", "variance_scaling_initializer", "xavier_initializer",
    "xavier_initializer_conv2d",
]
# makes `import tideflow.contrib.layers` and `from tideflow.contrib.layers import ...` work
sys.modules[layers.__name__] = layers

rnn = types.ModuleType(__name__ + ".rnn", "``tf.contrib.rnn``: recurrent cells and drivers.")
for _name in _rnn_cell_impl.__all__:
    setattr(rnn, _name, getattr(_rnn_cell_impl, _name))
rnn.static_rnn = _rnn.static_rnn
rnn.static_bidirectional_rnn = _rnn.static_bidirectional_rnn
rnn.__all__ = [*_rnn_cell_impl.__all__, "static_bidirectional_rnn", "static_rnn"]
sys.modules[rnn.__name__] = rnn

training = types.ModuleType(__name__ + ".training", "``tf.contrib.training``: ps strategies.")
training.GreedyLoadBalancingStrategy = _device_setter.GreedyLoadBalancingStrategy
training.byte_size_load_fn = _device_setter.byte_size_load_fn
sys.modules[training.__name__] = training

lookup = types.ModuleType(__name__ + ".lookup", "``tf.contrib.lookup``: hash tables.")
for _name in _lookup_ops.__all__:
    setattr(lookup, _name, getattr(_lookup_ops, _name))
lookup.__all__ = list(_lookup_ops.__all__)
sys.modules[lookup.__name__] = lookup

framework = types.ModuleType(__name__ + ".framework", "``tf.contrib.framework``: global step.")
framework.get_global_step = _training_util.get_global_step
framework.get_or_create_global_step = _training_util.get_or_create_global_step
framework.create_global_step = _training_util.create_global_step
_FRAMEWORK_FNS = ("add_arg_scope", "arg_scope", "arg_scope_func_key", "current_arg_scope",
                  "get_local_variables", "get_model_variables", "get_trainable_variables",
                  "get_unique_variable", "get_variables", "get_variables_by_name",
                  "get_variables_by_suffix", "get_variables_to_restore", "has_arg_scope",
                  "model_variable")
for _name in _FRAMEWORK_FNS:
    setattr(framework, _name, getattr(_contrib_layers, _name))
framework.__all__ = ["create_global_step", "get_global_step", "get_or_create_global_step",
                     *_FRAMEWORK_FNS]
sys.modules[framework.__name__] = framework

__all__ = ["framework", "layers", "lookup", "rnn", "training"]
