"""``tf.contrib.slim.nets.inception``: Inception v1 (GoogLeNet), v2 (with batch norm) and v3
as TF-Slim builds them, with slim's variable names
(``InceptionV3/Mixed_6b/Branch_1/Conv2d_0b_1x7/weights``) and end points, so the published
slim checkpoints restore by name.

Each network is described here as data: a list of layers (``_Conv``, ``_Pool``) and of mixed
blocks, a mixed block being a list of branches (scopes ``Branch_<i>``) whose outputs are
concatenated along the channels; ``_Split`` ends a branch in two convolutions of the same
input, concatenated (Inception v3's 1x3/3x1 pairs).
"""

import collections
import types

from tideflow.framework import ops
from tideflow.ops import array_ops, concat_ops, init_ops, nn_impl, regularizers
from tideflow.ops import contrib_layers as layers
from tideflow.ops import contrib_layers_more as more
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import variance_scaling_initializer


def _trunc_normal(stddev):
    return init_ops.truncated_normal_initializer(0.0, stddev)


# one layer: a convolution of ``depth`` outputs (scaled by the depth function) and its options
_Conv = collections.namedtuple("_Conv", "depth kernel scope stride padding stddev",
                               defaults=(1, None, None))
# a max ("max") or average ("avg") pooling
_Pool = collections.namedtuple("_Pool", "kind kernel scope stride padding", defaults=(1, None))
# two convolutions of the same input, concatenated along the channels
_Split = collections.namedtuple("_Split", "first second")
# a separable convolution (Inception v2's first layer)
_SepConv = collections.namedtuple("_SepConv", "depth kernel scope stride stddev")


def _apply(layer, net, depth):
    if isinstance(layer, _Conv):
        kwargs = {"stride": layer.stride, "scope": layer.scope}
        if layer.padding is not None:
            kwargs["padding"] = layer.padding
        if layer.stddev is not None:
            kwargs["weights_initializer"] = _trunc_normal(layer.stddev)
        kernel = layer.kernel if isinstance(layer.kernel, list) else [layer.kernel] * 2
        return layers.conv2d(net, depth(layer.depth), kernel, **kwargs)
    if isinstance(layer, _Pool):
        pool = layers.max_pool2d if layer.kind == "max" else layers.avg_pool2d
        kwargs = {"stride": layer.stride, "scope": layer.scope}
        if layer.padding is not None:
            kwargs["padding"] = layer.padding
        return pool(net, [layer.kernel, layer.kernel], **kwargs)
    if isinstance(layer, _Split):
        return concat_ops.concat([_apply(layer.first, net, depth),
                                  _apply(layer.second, net, depth)], 3)
    if isinstance(layer, _SepConv):
        out = depth(layer.depth)
        return more.separable_conv2d(
            net, out, [layer.kernel, layer.kernel],
            depth_multiplier=min(int(out / 3), 8), stride=layer.stride,
            weights_initializer=_trunc_normal(layer.stddev), scope=layer.scope)
    raise TypeError(f"unknown Inception layer {layer!r}")


def _mixed(net, name, branches, depth):
    with vs.variable_scope(name):
        outputs = []
        for index, branch in enumerate(branches):
            with vs.variable_scope(f"Branch_{index}"):
                out = net
                for layer in branch:
                    out = _apply(layer, out, depth)
                outputs.append(out)
        return concat_ops.concat(outputs, 3)


def _run_base(net, stages, final_endpoint, depth, end_points):
    """Runs ``stages`` (``(end point, layer or branches)`` pairs) until ``final_endpoint``;
    returns ``(net, reached)``."""
    for name, stage in stages:
        if isinstance(stage, list):
            net = _mixed(net, name, stage, depth)
        else:
            net = _apply(stage, net, depth)
        end_points[name] = net
        if name == final_endpoint:
            return net, True
    return net, False


def _depth_fn(min_depth, depth_multiplier):
    if depth_multiplier <= 0:
        raise ValueError("depth_multiplier is not greater than zero.")
    return lambda d: max(int(d * depth_multiplier), min_depth)


def _reduced_kernel_size_for_small_input(input_tensor, kernel_size):
    """``kernel_size`` cut to the input's spatial size where that is known."""
    shape = input_tensor.get_shape().as_list()
    if shape[1] is None or shape[2] is None:
        return list(kernel_size)
    return [min(shape[1], kernel_size[0]), min(shape[2], kernel_size[1])]


def _batch_norm_params(decay, epsilon, updates_collections, batch_norm_var_collection,
                       fused=None):
    params = {
        "decay": decay, "epsilon": epsilon, "updates_collections": updates_collections,
        "variables_collections": {
            "beta": None, "gamma": None,
            "moving_mean": [batch_norm_var_collection],
            "moving_variance": [batch_norm_var_collection],
        },
    }
    if fused is not None:
        params["fused"] = fused
    return params


def _reduced_avg_pool(net, kernel_size):
    """The classifier's VALID average pool ``AvgPool_1a_<k>x<k>``, its kernel cut to the
    input's spatial size."""
    kernel_size = _reduced_kernel_size_for_small_input(net, kernel_size)
    return layers.avg_pool2d(net, kernel_size, padding="VALID",
                             scope="AvgPool_1a_{}x{}".format(*kernel_size))


def _dropout_and_logits(net, num_classes, dropout_keep_prob, spatial_squeeze, index):
    """The classifier's ``Dropout_<index>b`` and 1x1 ``Conv2d_<index>c_1x1`` logits (squeezed
    to [batch, classes] when ``spatial_squeeze``); returns ``(dropped, logits)``."""
    net = layers.dropout(net, keep_prob=dropout_keep_prob, scope=f"Dropout_{index}b")
    logits = layers.conv2d(net, num_classes, [1, 1], activation_fn=None, normalizer_fn=None,
                           scope=f"Conv2d_{index}c_1x1")
    if spatial_squeeze:
        logits = array_ops.squeeze(logits, [1, 2], name="SpatialSqueeze")
    return net, logits


def _inception_arg_scope(weight_decay, normalizer_fn, normalizer_params):
    with layers.arg_scope([layers.conv2d, layers.fully_connected],
                          weights_regularizer=regularizers.l2_regularizer(weight_decay)), \
            layers.arg_scope([layers.conv2d],
                             weights_initializer=variance_scaling_initializer(),
                             activation_fn=nn_impl.relu, normalizer_fn=normalizer_fn,
                             normalizer_params=normalizer_params) as sc:
        return sc


# ------------------------------------------------------------------------------------------
# Inception v1
# ------------------------------------------------------------------------------------------


def _v1_mixed(d0, d1a, d1b, d2a, d2b, d3, branch_2_second="Conv2d_0b_3x3"):
    return [[_Conv(d0, 1, "Conv2d_0a_1x1")],
            [_Conv(d1a, 1, "Conv2d_0a_1x1"), _Conv(d1b, 3, "Conv2d_0b_3x3")],
            [_Conv(d2a, 1, "Conv2d_0a_1x1"), _Conv(d2b, 3, branch_2_second)],
            [_Pool("max", 3, "MaxPool_0a_3x3"), _Conv(d3, 1, "Conv2d_0b_1x1")]]


_V1_STAGES = [
    ("Conv2d_1a_7x7", _Conv(64, 7, "Conv2d_1a_7x7", stride=2)),
    ("MaxPool_2a_3x3", _Pool("max", 3, "MaxPool_2a_3x3", stride=2)),
    ("Conv2d_2b_1x1", _Conv(64, 1, "Conv2d_2b_1x1")),
    ("Conv2d_2c_3x3", _Conv(192, 3, "Conv2d_2c_3x3")),
    ("MaxPool_3a_3x3", _Pool("max", 3, "MaxPool_3a_3x3", stride=2)),
    ("Mixed_3b", _v1_mixed(64, 96, 128, 16, 32, 32)),
    ("Mixed_3c", _v1_mixed(128, 128, 192, 32, 96, 64)),
    ("MaxPool_4a_3x3", _Pool("max", 3, "MaxPool_4a_3x3", stride=2)),
    ("Mixed_4b", _v1_mixed(192, 96, 208, 16, 48, 64)),
    ("Mixed_4c", _v1_mixed(160, 112, 224, 24, 64, 64)),
    ("Mixed_4d", _v1_mixed(128, 128, 256, 24, 64, 64)),
    ("Mixed_4e", _v1_mixed(112, 144, 288, 32, 64, 64)),
    ("Mixed_4f", _v1_mixed(256, 160, 320, 32, 128, 128)),
    ("MaxPool_5a_2x2", _Pool("max", 2, "MaxPool_5a_2x2", stride=2)),
    # slim names this one's second Branch_2 convolution Conv2d_0a_3x3 (kept for checkpoints)
    ("Mixed_5b", _v1_mixed(256, 160, 320, 32, 128, 128, "Conv2d_0a_3x3")),
    ("Mixed_5c", _v1_mixed(384, 192, 384, 48, 128, 128)),
]


def inception_v1_base(inputs, final_endpoint="Mixed_5c", scope="InceptionV1"):
    """Inception v1 from its input up to ``final_endpoint``: returns ``(net, end_points)``."""
    end_points = {}
    with vs.variable_scope(scope, "InceptionV1", [inputs]), \
            layers.arg_scope([layers.conv2d, layers.fully_connected],
                             weights_initializer=_trunc_normal(0.01)), \
            layers.arg_scope([layers.conv2d, layers.max_pool2d], stride=1, padding="SAME"):
        net, reached = _run_base(inputs, _V1_STAGES, final_endpoint, lambda d: d, end_points)
        if reached:
            return net, end_points
    raise ValueError(f"Unknown final endpoint {final_endpoint}")


def inception_v1(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8,
                 prediction_fn=more.softmax, spatial_squeeze=True, reuse=None,
                 scope="InceptionV1"):
    """Inception v1 classifier: a 7x7 average pool (224x224 inputs), dropout and a 1x1
    convolution to the logits; returns ``(logits, end_points)``."""
    with vs.variable_scope(scope, "InceptionV1", [inputs, num_classes], reuse=reuse) as sc, \
            layers.arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
        net, end_points = inception_v1_base(inputs, scope=sc)
        with vs.variable_scope("Logits"):
            net = layers.avg_pool2d(net, [7, 7], stride=1, scope="MaxPool_0a_7x7")
            _, logits = _dropout_and_logits(net, num_classes, dropout_keep_prob,
                                            spatial_squeeze, 0)
            end_points["Logits"] = logits
            end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v1.default_image_size = 224


def inception_v1_arg_scope(weight_decay=0.00004, use_batch_norm=True,
                           batch_norm_var_collection="moving_vars"):
    """He-initialized, L2-decayed ReLU convolutions with batch norm (decay 0.9997, epsilon
    0.001; moving statistics also in ``batch_norm_var_collection``)."""
    params = _batch_norm_params(0.9997, 0.001, ops.GraphKeys.UPDATE_OPS,
                                batch_norm_var_collection)
    if use_batch_norm:
        return _inception_arg_scope(weight_decay, layers.batch_norm, params)
    return _inception_arg_scope(weight_decay, None, {})


# ------------------------------------------------------------------------------------------
# Inception v2
# ------------------------------------------------------------------------------------------


def _v2_mixed(d0, d1a, d1b, d2a, d2b, pool, d3):
    return [[_Conv(d0, 1, "Conv2d_0a_1x1")],
            [_Conv(d1a, 1, "Conv2d_0a_1x1", stddev=0.09), _Conv(d1b, 3, "Conv2d_0b_3x3")],
            [_Conv(d2a, 1, "Conv2d_0a_1x1", stddev=0.09), _Conv(d2b, 3, "Conv2d_0b_3x3"),
             _Conv(d2b, 3, "Conv2d_0c_3x3")],
            [_Pool(pool, 3, f"{'AvgPool' if pool == 'avg' else 'MaxPool'}_0a_3x3"),
             _Conv(d3, 1, "Conv2d_0b_1x1", stddev=0.1)]]


def _v2_reduction(d0a, d0b, d1a, d1b):
    return [[_Conv(d0a, 1, "Conv2d_0a_1x1", stddev=0.09),
             _Conv(d0b, 3, "Conv2d_1a_3x3", stride=2)],
            [_Conv(d1a, 1, "Conv2d_0a_1x1", stddev=0.09), _Conv(d1b, 3, "Conv2d_0b_3x3"),
             _Conv(d1b, 3, "Conv2d_1a_3x3", stride=2)],
            [_Pool("max", 3, "MaxPool_1a_3x3", stride=2)]]


_V2_STAGES = [
    ("Conv2d_1a_7x7", _SepConv(64, 7, "Conv2d_1a_7x7", 2, 1.0)),
    ("MaxPool_2a_3x3", _Pool("max", 3, "MaxPool_2a_3x3", stride=2)),
    ("Conv2d_2b_1x1", _Conv(64, 1, "Conv2d_2b_1x1", stddev=0.1)),
    ("Conv2d_2c_3x3", _Conv(192, 3, "Conv2d_2c_3x3")),
    ("MaxPool_3a_3x3", _Pool("max", 3, "MaxPool_3a_3x3", stride=2)),
    ("Mixed_3b", _v2_mixed(64, 64, 64, 64, 96, "avg", 32)),
    ("Mixed_3c", _v2_mixed(64, 64, 96, 64, 96, "avg", 64)),
    ("Mixed_4a", _v2_reduction(128, 160, 64, 96)),
    ("Mixed_4b", _v2_mixed(224, 64, 96, 96, 128, "avg", 128)),
    ("Mixed_4c", _v2_mixed(192, 96, 128, 96, 128, "avg", 128)),
    ("Mixed_4d", _v2_mixed(160, 128, 160, 128, 160, "avg", 96)),
    ("Mixed_4e", _v2_mixed(96, 128, 192, 160, 192, "avg", 96)),
    ("Mixed_5a", _v2_reduction(128, 192, 192, 256)),
    ("Mixed_5b", _v2_mixed(352, 192, 320, 160, 224, "avg", 128)),
    ("Mixed_5c", _v2_mixed(352, 192, 320, 192, 224, "max", 128)),
]


def inception_v2_base(inputs, final_endpoint="Mixed_5c", min_depth=16, depth_multiplier=1.0,
                      scope=None):
    """Inception v2 (BN-Inception) up to ``final_endpoint``, every depth scaled by
    ``depth_multiplier`` (at least ``min_depth``): returns ``(net, end_points)``."""
    end_points = {}
    depth = _depth_fn(min_depth, depth_multiplier)
    with vs.variable_scope(scope, "InceptionV2", [inputs]), \
            layers.arg_scope([layers.conv2d, layers.max_pool2d, layers.avg_pool2d,
                              more.separable_conv2d], stride=1, padding="SAME"):
        net, reached = _run_base(inputs, _V2_STAGES, final_endpoint, depth, end_points)
        if reached:
            return net, end_points
    raise ValueError(f"Unknown final endpoint {final_endpoint}")


def inception_v2(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8,
                 min_depth=16, depth_multiplier=1.0, prediction_fn=more.softmax,
                 spatial_squeeze=True, reuse=None, scope="InceptionV2"):
    """Inception v2 classifier (average pool of up to 7x7, dropout, 1x1 convolution);
    returns ``(logits, end_points)``."""
    if depth_multiplier <= 0:
        raise ValueError("depth_multiplier is not greater than zero.")
    with vs.variable_scope(scope, "InceptionV2", [inputs, num_classes], reuse=reuse) as sc, \
            layers.arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
        net, end_points = inception_v2_base(inputs, scope=sc, min_depth=min_depth,
                                            depth_multiplier=depth_multiplier)
        with vs.variable_scope("Logits"):
            _, logits = _dropout_and_logits(_reduced_avg_pool(net, [7, 7]), num_classes,
                                            dropout_keep_prob, spatial_squeeze, 1)
        end_points["Logits"] = logits
        end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v2.default_image_size = 224


def inception_v2_arg_scope(weight_decay=0.00004, batch_norm_var_collection="moving_vars"):
    """As inception_v1_arg_scope, batch norm always on."""
    params = _batch_norm_params(0.9997, 0.001, ops.GraphKeys.UPDATE_OPS,
                                batch_norm_var_collection)
    return _inception_arg_scope(weight_decay, layers.batch_norm, params)


# ------------------------------------------------------------------------------------------
# Inception v3
# ------------------------------------------------------------------------------------------


def _v3_mixed_5(d3, branch_1_scopes=("Conv2d_0a_1x1", "Conv2d_0b_5x5")):
    return [[_Conv(64, 1, "Conv2d_0a_1x1")],
            [_Conv(48, 1, branch_1_scopes[0]), _Conv(64, 5, branch_1_scopes[1])],
            [_Conv(64, 1, "Conv2d_0a_1x1"), _Conv(96, 3, "Conv2d_0b_3x3"),
             _Conv(96, 3, "Conv2d_0c_3x3")],
            [_Pool("avg", 3, "AvgPool_0a_3x3"), _Conv(d3, 1, "Conv2d_0b_1x1")]]


def _v3_mixed_6(d):
    return [[_Conv(192, 1, "Conv2d_0a_1x1")],
            [_Conv(d, 1, "Conv2d_0a_1x1"), _Conv(d, [1, 7], "Conv2d_0b_1x7"),
             _Conv(192, [7, 1], "Conv2d_0c_7x1")],
            [_Conv(d, 1, "Conv2d_0a_1x1"), _Conv(d, [7, 1], "Conv2d_0b_7x1"),
             _Conv(d, [1, 7], "Conv2d_0c_1x7"), _Conv(d, [7, 1], "Conv2d_0d_7x1"),
             _Conv(192, [1, 7], "Conv2d_0e_1x7")],
            [_Pool("avg", 3, "AvgPool_0a_3x3"), _Conv(192, 1, "Conv2d_0b_1x1")]]


def _v3_mixed_7(branch_1_second):
    return [[_Conv(320, 1, "Conv2d_0a_1x1")],
            [_Conv(384, 1, "Conv2d_0a_1x1"),
             _Split(_Conv(384, [1, 3], "Conv2d_0b_1x3"), _Conv(384, [3, 1], branch_1_second))],
            [_Conv(448, 1, "Conv2d_0a_1x1"), _Conv(384, 3, "Conv2d_0b_3x3"),
             _Split(_Conv(384, [1, 3], "Conv2d_0c_1x3"), _Conv(384, [3, 1], "Conv2d_0d_3x1"))],
            [_Pool("avg", 3, "AvgPool_0a_3x3"), _Conv(192, 1, "Conv2d_0b_1x1")]]


# the stem runs with VALID padding by default, the mixed blocks with SAME
_V3_STEM = [
    ("Conv2d_1a_3x3", _Conv(32, 3, "Conv2d_1a_3x3", stride=2)),
    ("Conv2d_2a_3x3", _Conv(32, 3, "Conv2d_2a_3x3")),
    ("Conv2d_2b_3x3", _Conv(64, 3, "Conv2d_2b_3x3", padding="SAME")),
    ("MaxPool_3a_3x3", _Pool("max", 3, "MaxPool_3a_3x3", stride=2)),
    ("Conv2d_3b_1x1", _Conv(80, 1, "Conv2d_3b_1x1")),
    ("Conv2d_4a_3x3", _Conv(192, 3, "Conv2d_4a_3x3")),
    ("MaxPool_5a_3x3", _Pool("max", 3, "MaxPool_5a_3x3", stride=2)),
]
_V3_MIXED = [
    ("Mixed_5b", _v3_mixed_5(32)),
    # slim's names in this block's Branch_1 differ from its siblings' (kept for checkpoints)
    ("Mixed_5c", _v3_mixed_5(64, ("Conv2d_0b_1x1", "Conv_1_0c_5x5"))),
    ("Mixed_5d", _v3_mixed_5(64)),
    ("Mixed_6a", [[_Conv(384, 3, "Conv2d_1a_1x1", stride=2, padding="VALID")],
                  [_Conv(64, 1, "Conv2d_0a_1x1"), _Conv(96, 3, "Conv2d_0b_3x3"),
                   _Conv(96, 3, "Conv2d_1a_1x1", stride=2, padding="VALID")],
                  [_Pool("max", 3, "MaxPool_1a_3x3", stride=2, padding="VALID")]]),
    ("Mixed_6b", _v3_mixed_6(128)),
    ("Mixed_6c", _v3_mixed_6(160)),
    ("Mixed_6d", _v3_mixed_6(160)),
    ("Mixed_6e", _v3_mixed_6(192)),
    ("Mixed_7a", [[_Conv(192, 1, "Conv2d_0a_1x1"),
                   _Conv(320, 3, "Conv2d_1a_3x3", stride=2, padding="VALID")],
                  [_Conv(192, 1, "Conv2d_0a_1x1"), _Conv(192, [1, 7], "Conv2d_0b_1x7"),
                   _Conv(192, [7, 1], "Conv2d_0c_7x1"),
                   _Conv(192, 3, "Conv2d_1a_3x3", stride=2, padding="VALID")],
                  [_Pool("max", 3, "MaxPool_1a_3x3", stride=2, padding="VALID")]]),
    ("Mixed_7b", _v3_mixed_7("Conv2d_0b_3x1")),
    ("Mixed_7c", _v3_mixed_7("Conv2d_0c_3x1")),
]

_POOLS_AND_CONV = (layers.conv2d, layers.max_pool2d, layers.avg_pool2d)


def inception_v3_base(inputs, final_endpoint="Mixed_7c", min_depth=16, depth_multiplier=1.0,
                      scope=None):
    """Inception v3 up to ``final_endpoint`` (299x299 inputs give 8x8x2048 at Mixed_7c),
    depths scaled by ``depth_multiplier``: returns ``(net, end_points)``."""
    end_points = {}
    depth = _depth_fn(min_depth, depth_multiplier)
    with vs.variable_scope(scope, "InceptionV3", [inputs]):
        with layers.arg_scope(_POOLS_AND_CONV, stride=1, padding="VALID"):
            net, reached = _run_base(inputs, _V3_STEM, final_endpoint, depth, end_points)
        if reached:
            return net, end_points
        with layers.arg_scope(_POOLS_AND_CONV, stride=1, padding="SAME"):
            net, reached = _run_base(net, _V3_MIXED, final_endpoint, depth, end_points)
        if reached:
            return net, end_points
    raise ValueError(f"Unknown final endpoint {final_endpoint}")


def inception_v3(inputs, num_classes=1000, is_training=True, dropout_keep_prob=0.8,
                 min_depth=16, depth_multiplier=1.0, prediction_fn=more.softmax,
                 spatial_squeeze=True, reuse=None, create_aux_logits=True,
                 scope="InceptionV3"):
    """Inception v3 classifier with the auxiliary head on Mixed_6e (``AuxLogits``) when
    ``create_aux_logits``; returns ``(logits, end_points)``."""
    depth = _depth_fn(min_depth, depth_multiplier)
    with vs.variable_scope(scope, "InceptionV3", [inputs, num_classes], reuse=reuse) as sc, \
            layers.arg_scope([layers.batch_norm, layers.dropout], is_training=is_training):
        net, end_points = inception_v3_base(inputs, scope=sc, min_depth=min_depth,
                                            depth_multiplier=depth_multiplier)
        if create_aux_logits and num_classes:
            with layers.arg_scope(_POOLS_AND_CONV, stride=1, padding="SAME"), \
                    vs.variable_scope("AuxLogits"):
                aux = layers.avg_pool2d(end_points["Mixed_6e"], [5, 5], stride=3,
                                        padding="VALID", scope="AvgPool_1a_5x5")
                aux = layers.conv2d(aux, depth(128), [1, 1], scope="Conv2d_1b_1x1")
                kernel_size = _reduced_kernel_size_for_small_input(aux, [5, 5])
                aux = layers.conv2d(aux, depth(768), kernel_size,
                                    weights_initializer=_trunc_normal(0.01), padding="VALID",
                                    scope="Conv2d_2a_{}x{}".format(*kernel_size))
                aux = layers.conv2d(aux, num_classes, [1, 1], activation_fn=None,
                                    normalizer_fn=None, weights_initializer=_trunc_normal(0.001),
                                    scope="Conv2d_2b_1x1")
                if spatial_squeeze:
                    aux = array_ops.squeeze(aux, [1, 2], name="SpatialSqueeze")
                end_points["AuxLogits"] = aux
        with vs.variable_scope("Logits"):
            end_points["PreLogits"], logits = _dropout_and_logits(
                _reduced_avg_pool(net, [8, 8]), num_classes, dropout_keep_prob,
                spatial_squeeze, 1)
        end_points["Logits"] = logits
        end_points["Predictions"] = prediction_fn(logits, scope="Predictions")
    return logits, end_points


inception_v3.default_image_size = 299


def inception_v3_arg_scope(weight_decay=0.00004, batch_norm_var_collection="moving_vars",
                           batch_norm_decay=0.9997, batch_norm_epsilon=0.001,
                           updates_collections=ops.GraphKeys.UPDATE_OPS,
                           use_fused_batchnorm=True):
    """He-initialized, L2-decayed ReLU convolutions with (fused) batch norm."""
    params = _batch_norm_params(batch_norm_decay, batch_norm_epsilon, updates_collections,
                                batch_norm_var_collection, fused=use_fused_batchnorm)
    return _inception_arg_scope(weight_decay, layers.batch_norm, params)


def _module(name, doc, members):
    module = types.ModuleType(f"tideflow.contrib.slim.nets.{name}", doc)
    for attr in members:
        setattr(module, attr, globals()[attr])
    module.__all__ = sorted(members)
    return module


_V1 = ("inception_v1", "inception_v1_arg_scope", "inception_v1_base")
_V2 = ("inception_v2", "inception_v2_arg_scope", "inception_v2_base")
_V3 = ("inception_v3", "inception_v3_arg_scope", "inception_v3_base")
inception = _module("inception", "``slim.nets.inception``: Inception v1, v2 and v3.",
                    _V1 + _V2 + _V3)
inception_v1_module = _module("inception_v1", "``slim.nets.inception_v1``.", _V1)
inception_v2_module = _module("inception_v2", "``slim.nets.inception_v2``.", _V2)
inception_v3_module = _module("inception_v3", "``slim.nets.inception_v3``.", _V3)
