"""``tf.contrib.slim``'s ``utils`` (named end points) and ``nets``: ``vgg`` (VGG-A/16/19),
``alexnet`` and ``overfeat`` as fully convolutional slim networks returning
``(logits, end_points)`` as TF-Slim does; the ResNets and Inceptions are in
``contrib_slim_resnet`` and ``contrib_slim_inception``."""

import collections
import sys
import types

from tideflow import contrib_slim_inception as _inception
from tideflow import contrib_slim_resnet as _resnet
from tideflow.framework import ops
from tideflow.ops import array_ops, init_ops, nn_impl, regularizers, variable_scope
from tideflow.ops import contrib_layers as layers
from tideflow.ops import contrib_layers_more as more

# ------------------------------------------------------------------------------------------
# slim.utils
# ------------------------------------------------------------------------------------------


def append_tensor_alias(tensor, alias):
    """Records ``alias`` (a trailing '/' dropped) as an end-point name of ``tensor``."""
    alias = alias.removesuffix("/")
    layers.TENSOR_ALIASES.setdefault(tensor, []).append(alias)
    return tensor


def get_tensor_aliases(tensor):
    """The end-point names of ``tensor``: its aliases, else its name without ':0'."""
    aliases = layers.TENSOR_ALIASES.get(tensor)
    if aliases:
        return list(aliases)
    return [tensor.name.removesuffix(":0")]


def collect_named_outputs(collections_, alias, outputs):
    """Adds ``outputs`` to ``collections_`` under the end-point name ``alias``."""
    if collections_:
        append_tensor_alias(outputs, alias)
        ops.add_to_collections(collections_, outputs)
    return outputs


def gather_tensors_aliases(tensors):
    """The end-point names of ``tensors`` in order (each tensor's aliases, else its name
    without ':0')."""
    return [alias for tensor in tensors for alias in get_tensor_aliases(tensor)]


def convert_collection_to_dict(collection, clear_collection=False):
    """An OrderedDict from each end-point name to its tensor, in collection order."""
    output = collections.OrderedDict(
        (alias, tensor) for tensor in ops.get_collection(collection)
        for alias in get_tensor_aliases(tensor))
    if clear_collection:
        ops.get_default_graph().clear_collection(collection)
    return output


utils = types.ModuleType("tideflow.contrib.slim.utils", "``slim.utils``: named end points.")
for _name in ("append_tensor_alias", "collect_named_outputs", "convert_collection_to_dict",
              "gather_tensors_aliases", "get_tensor_aliases"):
    setattr(utils, _name, globals()[_name])
utils.__all__ = ["append_tensor_alias", "collect_named_outputs", "convert_collection_to_dict",
                 "gather_tensors_aliases", "get_tensor_aliases"]

# ------------------------------------------------------------------------------------------
# slim.nets.vgg
# ------------------------------------------------------------------------------------------


def vgg_arg_scope(weight_decay=0.0005):
    """ReLU convolutions and fully connected layers with L2 weight decay, SAME padding."""
    with layers.arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_impl.relu,
                          weights_regularizer=regularizers.l2_regularizer(weight_decay),
                          biases_initializer=init_ops.zeros_initializer()), \
            layers.arg_scope([layers.conv2d], padding="SAME") as arg_sc:
        return arg_sc


def _fully_connected_head(net, fc6_depth, fc6_kernel, num_classes, is_training,
                          dropout_keep_prob, **fc8_kwargs):
    """fc6, dropout6, fc7, dropout7 and fc8: the fully connected layers as convolutions."""
    net = layers.conv2d(net, fc6_depth, fc6_kernel, padding="VALID", scope="fc6")
    net = layers.dropout(net, dropout_keep_prob, is_training=is_training, scope="dropout6")
    net = layers.conv2d(net, 4096, [1, 1], scope="fc7")
    net = layers.dropout(net, dropout_keep_prob, is_training=is_training, scope="dropout7")
    return layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                         scope="fc8", **fc8_kwargs)


def _initialized_fully_connected_head(net, fc6_depth, fc6_kernel, num_classes, is_training,
                                      dropout_keep_prob):
    """AlexNet's and OverFeat's head: truncated-normal(0.005) weights, 0.1 biases, zero fc8
    biases."""
    with layers.arg_scope(
            [layers.conv2d],
            weights_initializer=init_ops.truncated_normal_initializer(0.0, 0.005),
            biases_initializer=init_ops.constant_initializer(0.1)):
        return _fully_connected_head(net, fc6_depth, fc6_kernel, num_classes, is_training,
                                     dropout_keep_prob,
                                     biases_initializer=init_ops.zeros_initializer())


def _logits_and_end_points(net, end_points_collection, sc, spatial_squeeze):
    """The end points collected so far, and the logits squeezed to [batch, classes] when
    ``spatial_squeeze``."""
    end_points = convert_collection_to_dict(end_points_collection)
    if spatial_squeeze:
        net = array_ops.squeeze(net, [1, 2], name="fc8/squeezed")
        end_points[sc.name + "/fc8"] = net
    return net, end_points


def _vgg(inputs, repeats, num_classes, is_training, dropout_keep_prob, spatial_squeeze,
         scope, default_name):
    with variable_scope.variable_scope(scope, default_name, [inputs]) as sc:
        end_points_collection = sc.original_name_scope + "_end_points"
        with layers.arg_scope([layers.conv2d, layers.fully_connected, layers.max_pool2d],
                              outputs_collections=end_points_collection):
            net = inputs
            for block, (count, depth) in enumerate(zip(repeats, (64, 128, 256, 512, 512)), 1):
                net = more.repeat(net, count, layers.conv2d, depth, [3, 3],
                                  scope=f"conv{block}")
                net = layers.max_pool2d(net, [2, 2], scope=f"pool{block}")
            net = _fully_connected_head(net, 4096, [7, 7], num_classes, is_training,
                                        dropout_keep_prob)
            return _logits_and_end_points(net, end_points_collection, sc, spatial_squeeze)


def vgg_a(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5,
          spatial_squeeze=True, scope="vgg_a"):
    """VGG 11-layers (configuration A)."""
    return _vgg(inputs, (1, 1, 2, 2, 2), num_classes, is_training, dropout_keep_prob,
                spatial_squeeze, scope, "vgg_a")


def vgg_16(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5,
           spatial_squeeze=True, scope="vgg_16"):
    """VGG 16-layers (configuration D)."""
    return _vgg(inputs, (2, 2, 3, 3, 3), num_classes, is_training, dropout_keep_prob,
                spatial_squeeze, scope, "vgg_16")


def vgg_19(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5,
           spatial_squeeze=True, scope="vgg_19"):
    """VGG 19-layers (configuration E)."""
    return _vgg(inputs, (2, 2, 4, 4, 4), num_classes, is_training, dropout_keep_prob,
                spatial_squeeze, scope, "vgg_19")


vgg_a.default_image_size = 224
vgg_16.default_image_size = 224
vgg_19.default_image_size = 224

vgg = types.ModuleType("tideflow.contrib.slim.nets.vgg", "``slim.nets.vgg``.")
for _name in ("vgg_a", "vgg_16", "vgg_19", "vgg_arg_scope"):
    setattr(vgg, _name, globals()[_name])
vgg.vgg_d = vgg_16
vgg.vgg_e = vgg_19
vgg.__all__ = ["vgg_16", "vgg_19", "vgg_a", "vgg_arg_scope", "vgg_d", "vgg_e"]

# ------------------------------------------------------------------------------------------
# slim.nets.alexnet
# ------------------------------------------------------------------------------------------


def alexnet_v2_arg_scope(weight_decay=0.0005):
    """ReLU layers with 0.1 biases and L2 weight decay; SAME convolutions, VALID pooling."""
    with layers.arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_impl.relu,
                          biases_initializer=init_ops.constant_initializer(0.1),
                          weights_regularizer=regularizers.l2_regularizer(weight_decay)), \
            layers.arg_scope([layers.conv2d], padding="SAME"), \
            layers.arg_scope([layers.max_pool2d], padding="VALID") as arg_sc:
        return arg_sc


def alexnet_v2(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5,
               spatial_squeeze=True, scope="alexnet_v2"):
    """AlexNet version 2 (one tower), its fully connected layers as convolutions."""
    with variable_scope.variable_scope(scope, "alexnet_v2", [inputs]) as sc:
        end_points_collection = sc.original_name_scope + "_end_points"
        with layers.arg_scope([layers.conv2d, layers.fully_connected, layers.max_pool2d],
                              outputs_collections=[end_points_collection]):
            net = layers.conv2d(inputs, 64, [11, 11], 4, padding="VALID", scope="conv1")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool1")
            net = layers.conv2d(net, 192, [5, 5], scope="conv2")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool2")
            net = layers.conv2d(net, 384, [3, 3], scope="conv3")
            net = layers.conv2d(net, 384, [3, 3], scope="conv4")
            net = layers.conv2d(net, 256, [3, 3], scope="conv5")
            net = layers.max_pool2d(net, [3, 3], 2, scope="pool5")
            net = _initialized_fully_connected_head(net, 4096, [5, 5], num_classes,
                                                    is_training, dropout_keep_prob)
            return _logits_and_end_points(net, end_points_collection, sc, spatial_squeeze)


alexnet_v2.default_image_size = 224

alexnet = types.ModuleType("tideflow.contrib.slim.nets.alexnet", "``slim.nets.alexnet``.")
alexnet.alexnet_v2 = alexnet_v2
alexnet.alexnet_v2_arg_scope = alexnet_v2_arg_scope
alexnet.__all__ = ["alexnet_v2", "alexnet_v2_arg_scope"]

# ------------------------------------------------------------------------------------------
# slim.nets.overfeat
# ------------------------------------------------------------------------------------------


def overfeat_arg_scope(weight_decay=0.0005):
    """ReLU layers with zero biases and L2 weight decay; SAME convolutions, VALID pooling."""
    with layers.arg_scope([layers.conv2d, layers.fully_connected], activation_fn=nn_impl.relu,
                          weights_regularizer=regularizers.l2_regularizer(weight_decay),
                          biases_initializer=init_ops.zeros_initializer()), \
            layers.arg_scope([layers.conv2d], padding="SAME"), \
            layers.arg_scope([layers.max_pool2d], padding="VALID") as arg_sc:
        return arg_sc


def overfeat(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.5,
             spatial_squeeze=True, scope="overfeat"):
    """OverFeat (the accurate model), its fully connected layers as convolutions; 231x231
    inputs give 1x1 logits."""
    with variable_scope.variable_scope(scope, "overfeat", [inputs]) as sc:
        end_points_collection = sc.name + "_end_points"
        with layers.arg_scope([layers.conv2d, layers.fully_connected, layers.max_pool2d],
                              outputs_collections=end_points_collection):
            net = layers.conv2d(inputs, 64, [11, 11], 4, padding="VALID", scope="conv1")
            net = layers.max_pool2d(net, [2, 2], scope="pool1")
            net = layers.conv2d(net, 256, [5, 5], padding="VALID", scope="conv2")
            net = layers.max_pool2d(net, [2, 2], scope="pool2")
            for index, depth in ((3, 512), (4, 1024), (5, 1024)):
                net = layers.conv2d(net, depth, [3, 3], scope=f"conv{index}")
            net = layers.max_pool2d(net, [2, 2], scope="pool5")
            net = _initialized_fully_connected_head(net, 3072, [6, 6], num_classes,
                                                    is_training, dropout_keep_prob)
            return _logits_and_end_points(net, end_points_collection, sc, spatial_squeeze)


overfeat.default_image_size = 231

overfeat_module = types.ModuleType("tideflow.contrib.slim.nets.overfeat", "``slim.nets.overfeat``.")
overfeat_module.overfeat = overfeat
overfeat_module.overfeat_arg_scope = overfeat_arg_scope
overfeat_module.__all__ = ["overfeat", "overfeat_arg_scope"]

nets = types.ModuleType("tideflow.contrib.slim.nets",
                        "``slim.nets``: AlexNet, Inception v1-v3, OverFeat, ResNet v1/v2, VGG.")
nets.alexnet = alexnet
nets.overfeat = overfeat_module
nets.vgg = vgg

nets.inception = _inception.inception
nets.inception_v1 = _inception.inception_v1_module
nets.inception_v2 = _inception.inception_v2_module
nets.inception_v3 = _inception.inception_v3_module
nets.resnet_utils = _resnet.resnet_utils
nets.resnet_v1 = _resnet.resnet_v1_module
nets.resnet_v2 = _resnet.resnet_v2_module
nets.__all__ = ["alexnet", "inception", "overfeat", "resnet_utils", "resnet_v1", "resnet_v2",
                "vgg"]
# `import tensorflow.contrib.slim.nets.resnet_v1` and `from ...nets.inception import x` work
for _module in (nets.inception, nets.inception_v1, nets.inception_v2, nets.inception_v3,
                nets.overfeat, nets.resnet_utils, nets.resnet_v1, nets.resnet_v2):
    sys.modules[_module.__name__] = _module

# the implementation path older programs import from (`from tensorflow.contrib.slim.python.slim
# .nets import resnet_utils`): the same modules under a second name
slim_python = types.ModuleType("tideflow.contrib.slim.python", "``slim.python``.")
slim_python.slim = types.ModuleType("tideflow.contrib.slim.python.slim",
                                    "``slim.python.slim``: nets, learning, evaluation.")
slim_python.slim.nets = nets
sys.modules[slim_python.__name__] = slim_python
sys.modules[slim_python.slim.__name__] = slim_python.slim
for _name in ("", *nets.__all__, "inception_v1", "inception_v2", "inception_v3"):
    _path = "tideflow.contrib.slim.python.slim.nets" + ("." + _name if _name else "")
    sys.modules[_path] = getattr(nets, _name) if _name else nets
