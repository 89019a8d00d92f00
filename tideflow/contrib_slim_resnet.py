"""``tf.contrib.slim.nets.resnet_utils``, ``resnet_v1`` and ``resnet_v2``: TF-Slim's residual
networks with slim's variable names (``resnet_v1_50/block1/unit_1/bottleneck_v1/conv1/weights``)
and end points, so the published slim checkpoints restore by name.

The functions keep TF 1.x contrib's positional signatures; ``spatial_squeeze`` and
``store_non_strided_activations`` (from the later models/research slim) are accepted as
keywords, ``spatial_squeeze`` defaulting to False so the logits keep contrib's
``[batch, 1, 1, num_classes]`` shape.
"""

import collections
import types

from tideflow.framework import ops
from tideflow.ops import array_ops, nn_impl, pad_ops, reduction_ops, regularizers
from tideflow.ops import contrib_layers as layers
from tideflow.ops import contrib_layers_more as more
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import variance_scaling_initializer


def _slim_utils():
    # slim.utils lives in contrib_slim_nets, which loads this module at its end
    from tideflow import contrib_slim_nets

    return contrib_slim_nets


# ------------------------------------------------------------------------------------------
# resnet_utils
# ------------------------------------------------------------------------------------------


class Block(collections.namedtuple("Block", ["scope", "unit_fn", "args"])):
    """One ResNet block: its variable scope, the unit function and one argument set per
    unit (a dict of ``depth``, ``depth_bottleneck``, ``stride``; TF 1.0's
    ``(depth, depth_bottleneck, stride)`` tuples are accepted too)."""


def subsample(inputs, factor, scope=None):
    """Keeps every ``factor``-th row and column (a 1x1 max pool), or ``inputs`` itself when
    ``factor`` is 1."""
    if factor == 1:
        return inputs
    return layers.max_pool2d(inputs, [1, 1], stride=factor, scope=scope)


def conv2d_same(inputs, num_outputs, kernel_size, stride, rate=1, scope=None):
    """A convolution whose output is that of a stride-1 SAME convolution subsampled by
    ``stride``: for ``stride > 1`` the input is zero-padded explicitly (the padding split as
    TF's SAME would split it for stride 1) and the convolution runs VALID."""
    if stride == 1:
        return layers.conv2d(inputs, num_outputs, kernel_size, stride=1, rate=rate,
                             padding="SAME", scope=scope)
    effective = kernel_size + (kernel_size - 1) * (rate - 1)
    before = (effective - 1) // 2
    after = effective - 1 - before
    inputs = pad_ops.pad(inputs, [[0, 0], [before, after], [before, after], [0, 0]])
    return layers.conv2d(inputs, num_outputs, kernel_size, stride=stride, rate=rate,
                         padding="VALID", scope=scope)


def _unit_kwargs(unit):
    if isinstance(unit, dict):
        return dict(unit)
    if isinstance(unit, (tuple, list)) and len(unit) == 3:
        depth, depth_bottleneck, stride = unit
        return {"depth": depth, "depth_bottleneck": depth_bottleneck, "stride": stride}
    raise ValueError(f"stack_blocks_dense: a unit's arguments must be a dict or a "
                     f"(depth, depth_bottleneck, stride) tuple, got {unit!r}.")


def stack_blocks_dense(net, blocks, output_stride=None, outputs_collections=None, *,
                       store_non_strided_activations=False):
    """Runs ``blocks`` in scopes ``<block.scope>/unit_<i>``; with ``output_stride`` the units
    past that stride run with stride 1 and a growing atrous rate instead (dense features).

    With ``store_non_strided_activations`` the last unit of each block runs with stride 1
    and the block output is subsampled after being recorded as the block's end point.
    Raises ValueError when ``output_stride`` is not a product of the leading unit strides.
    """
    current_stride = 1  # the stride of the activations so far
    rate = 1  # the atrous rate once output_stride is reached
    for block in blocks:
        with vs.variable_scope(block.scope, "block", [net]) as sc:
            block_stride = 1
            units = [_unit_kwargs(u) for u in block.args]
            for i, unit in enumerate(units):
                if store_non_strided_activations and i == len(units) - 1:
                    block_stride = unit.get("stride", 1)
                    unit = dict(unit, stride=1)
                with vs.variable_scope(f"unit_{i + 1}", values=[net]):
                    if output_stride is not None and current_stride == output_stride:
                        net = block.unit_fn(net, rate=rate, **dict(unit, stride=1))
                        rate *= unit.get("stride", 1)
                    else:
                        net = block.unit_fn(net, rate=1, **unit)
                        current_stride *= unit.get("stride", 1)
                        if output_stride is not None and current_stride > output_stride:
                            raise ValueError("The target output_stride cannot be reached.")
            net = _slim_utils().collect_named_outputs(outputs_collections, sc.name, net)
            if output_stride is not None and current_stride == output_stride:
                rate *= block_stride
            else:
                net = subsample(net, block_stride)
                current_stride *= block_stride
                if output_stride is not None and current_stride > output_stride:
                    raise ValueError("The target output_stride cannot be reached.")
    if output_stride is not None and current_stride != output_stride:
        raise ValueError("The target output_stride cannot be reached.")
    return net


stack_blocks_dense = layers.add_arg_scope(stack_blocks_dense)


def resnet_arg_scope(weight_decay=0.0001, batch_norm_decay=0.997, batch_norm_epsilon=1e-5,
                     batch_norm_scale=True, activation_fn=nn_impl.relu, use_batch_norm=True,
                     batch_norm_updates_collections=ops.GraphKeys.UPDATE_OPS):
    """The ResNet arg scope: He-initialized, L2-decayed ReLU convolutions followed by batch
    normalization (decay 0.997, epsilon 1e-5, with gamma), SAME max pooling."""
    batch_norm_params = {
        "decay": batch_norm_decay,
        "epsilon": batch_norm_epsilon,
        "scale": batch_norm_scale,
        "updates_collections": batch_norm_updates_collections,
    }
    with layers.arg_scope(
            [layers.conv2d],
            weights_regularizer=regularizers.l2_regularizer(weight_decay),
            weights_initializer=variance_scaling_initializer(),
            activation_fn=activation_fn,
            normalizer_fn=layers.batch_norm if use_batch_norm else None,
            normalizer_params=batch_norm_params), \
            layers.arg_scope([layers.batch_norm], **batch_norm_params), \
            layers.arg_scope([layers.max_pool2d], padding="SAME") as arg_sc:
        return arg_sc


def _last_dimension(inputs, who):
    shape = inputs.get_shape()
    if shape.ndims is not None and shape.ndims < 4:
        raise ValueError(f"{who}: inputs must have rank at least 4, got shape {shape}.")
    depth = shape[-1].value if shape.ndims is not None else None
    if depth is None:
        raise ValueError(f"{who}: the last dimension of the inputs must be known, got shape "
                         f"{shape}.")
    return depth


# ------------------------------------------------------------------------------------------
# resnet_v1 and resnet_v2
# ------------------------------------------------------------------------------------------


def bottleneck_v1(inputs, depth, depth_bottleneck, stride, rate=1, outputs_collections=None,
                  scope=None):
    """The original residual unit: 1x1, 3x3 (strided, atrous at ``rate``), 1x1 convolutions,
    each batch-normalized, added to the (projected or subsampled) input, then ReLU."""
    with vs.variable_scope(scope, "bottleneck_v1", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        depth_in = _last_dimension(inputs, "bottleneck")
        if depth == depth_in:
            shortcut = subsample(inputs, stride, "shortcut")
        else:
            shortcut = layers.conv2d(inputs, depth, [1, 1], stride=stride, activation_fn=None,
                                     scope="shortcut")
        residual = layers.conv2d(inputs, depth_bottleneck, [1, 1], stride=1, scope="conv1")
        residual = conv2d_same(residual, depth_bottleneck, 3, stride, rate=rate, scope="conv2")
        residual = layers.conv2d(residual, depth, [1, 1], stride=1, activation_fn=None,
                                 scope="conv3")
        output = nn_impl.relu(shortcut + residual)
        return _slim_utils().collect_named_outputs(outputs_collections, sc.name, output)


def bottleneck_v2(inputs, depth, depth_bottleneck, stride, rate=1, outputs_collections=None,
                  scope=None):
    """The full pre-activation residual unit: batch norm + ReLU first (``preact``), then 1x1,
    3x3, 1x1 convolutions, the last without normalization, added to the shortcut."""
    with vs.variable_scope(scope, "bottleneck_v2", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        depth_in = _last_dimension(inputs, "bottleneck")
        preact = layers.batch_norm(inputs, activation_fn=nn_impl.relu, scope="preact")
        if depth == depth_in:
            shortcut = subsample(inputs, stride, "shortcut")
        else:
            shortcut = layers.conv2d(preact, depth, [1, 1], stride=stride, normalizer_fn=None,
                                     activation_fn=None, scope="shortcut")
        residual = layers.conv2d(preact, depth_bottleneck, [1, 1], stride=1, scope="conv1")
        residual = conv2d_same(residual, depth_bottleneck, 3, stride, rate=rate, scope="conv2")
        residual = layers.conv2d(residual, depth, [1, 1], stride=1, normalizer_fn=None,
                                 activation_fn=None, scope="conv3")
        output = shortcut + residual
        return _slim_utils().collect_named_outputs(outputs_collections, sc.name, output)


bottleneck_v1 = layers.add_arg_scope(bottleneck_v1)
bottleneck_v2 = layers.add_arg_scope(bottleneck_v2)


def _resnet(version, inputs, blocks, num_classes, is_training, global_pool, output_stride,
            include_root_block, reuse, scope, spatial_squeeze, store_non_strided_activations):
    unit_fn = bottleneck_v1 if version == 1 else bottleneck_v2
    default_name = f"resnet_v{version}"
    with vs.variable_scope(scope, default_name, [inputs], reuse=reuse) as sc:
        end_points_collection = sc.original_name_scope + "_end_points"
        with layers.arg_scope([layers.conv2d, unit_fn, stack_blocks_dense],
                              outputs_collections=end_points_collection), \
                layers.arg_scope([layers.batch_norm], is_training=is_training):
            net = inputs
            if include_root_block:
                if output_stride is not None:
                    if output_stride % 4 != 0:
                        raise ValueError("The output_stride needs to be a multiple of 4.")
                    output_stride //= 4
                if version == 1:
                    net = conv2d_same(net, 64, 7, stride=2, scope="conv1")
                else:
                    # v2's root convolution feeds a pre-activation unit: no BN, no ReLU
                    with layers.arg_scope([layers.conv2d], activation_fn=None,
                                          normalizer_fn=None):
                        net = conv2d_same(net, 64, 7, stride=2, scope="conv1")
                net = layers.max_pool2d(net, [3, 3], stride=2, scope="pool1")
            net = stack_blocks_dense(net, blocks, output_stride,
                                     store_non_strided_activations=store_non_strided_activations)
            if version == 2:
                net = layers.batch_norm(net, activation_fn=nn_impl.relu, scope="postnorm")
            if global_pool:
                net = reduction_ops.reduce_mean(net, [1, 2], name="pool5", keepdims=True)
            if num_classes is not None:
                net = layers.conv2d(net, num_classes, [1, 1], activation_fn=None,
                                    normalizer_fn=None, scope="logits")
            end_points = _slim_utils().convert_collection_to_dict(end_points_collection)
            if num_classes is not None:
                if spatial_squeeze:
                    net = array_ops.squeeze(net, [1, 2], name="SpatialSqueeze")
                    end_points[sc.name + "/spatial_squeeze"] = net
                end_points["predictions"] = more.softmax(net, scope="predictions")
            return net, end_points


def resnet_v1(inputs, blocks, num_classes=None, is_training=True, global_pool=True,
              output_stride=None, include_root_block=True, reuse=None, scope=None, *,
              spatial_squeeze=False, store_non_strided_activations=False):
    """A v1 ResNet of ``blocks``: returns ``(net, end_points)``, ``net`` being the logits
    ``[batch, 1, 1, num_classes]`` (or the features when ``num_classes`` is None)."""
    return _resnet(1, inputs, blocks, num_classes, is_training, global_pool, output_stride,
                   include_root_block, reuse, scope, spatial_squeeze,
                   store_non_strided_activations)


def resnet_v2(inputs, blocks, num_classes=None, is_training=True, global_pool=True,
              output_stride=None, include_root_block=True, reuse=None, scope=None, *,
              spatial_squeeze=False, store_non_strided_activations=False):
    """A v2 (pre-activation) ResNet of ``blocks``, ending in ``postnorm``; as resnet_v1."""
    return _resnet(2, inputs, blocks, num_classes, is_training, global_pool, output_stride,
                   include_root_block, reuse, scope, spatial_squeeze,
                   store_non_strided_activations)


resnet_v1.default_image_size = 224
resnet_v2.default_image_size = 224


def _block(unit_fn, scope, base_depth, num_units, stride):
    unit = {"depth": base_depth * 4, "depth_bottleneck": base_depth, "stride": 1}
    return Block(scope, unit_fn, [unit] * (num_units - 1) + [dict(unit, stride=stride)])


def resnet_v1_block(scope, base_depth, num_units, stride):
    """A block of ``num_units`` v1 bottlenecks of depth ``4 * base_depth``, the last one
    strided by ``stride``."""
    return _block(bottleneck_v1, scope, base_depth, num_units, stride)


def resnet_v2_block(scope, base_depth, num_units, stride):
    """A block of ``num_units`` v2 bottlenecks of depth ``4 * base_depth``, the last one
    strided by ``stride``."""
    return _block(bottleneck_v2, scope, base_depth, num_units, stride)


# units per block of the standard depths (block strides 2, 2, 2, 1)
_UNITS = {50: (3, 4, 6, 3), 101: (3, 4, 23, 3), 152: (3, 8, 36, 3), 200: (3, 24, 36, 3)}


def _standard(version, layers_count):
    make_block = resnet_v1_block if version == 1 else resnet_v2_block
    generator = resnet_v1 if version == 1 else resnet_v2
    name = f"resnet_v{version}_{layers_count}"

    def net_fn(inputs, num_classes=None, is_training=True, global_pool=True,
               output_stride=None, reuse=None, scope=name, *, spatial_squeeze=False,
               store_non_strided_activations=False):
        blocks = [make_block(f"block{i + 1}", base_depth=64 * 2 ** i, num_units=units,
                             stride=2 if i < 3 else 1)
                  for i, units in enumerate(_UNITS[layers_count])]
        return generator(inputs, blocks, num_classes, is_training, global_pool, output_stride,
                         include_root_block=True, reuse=reuse, scope=scope,
                         spatial_squeeze=spatial_squeeze,
                         store_non_strided_activations=store_non_strided_activations)

    net_fn.__name__ = net_fn.__qualname__ = name
    net_fn.__doc__ = (f"ResNet-{layers_count} (v{version}, blocks of "
                      f"{'/'.join(map(str, _UNITS[layers_count]))} units); see "
                      f"resnet_v{version}() for the arguments and the returned values.")
    net_fn.default_image_size = 224
    return net_fn


resnet_v1_50 = _standard(1, 50)
resnet_v1_101 = _standard(1, 101)
resnet_v1_152 = _standard(1, 152)
resnet_v1_200 = _standard(1, 200)
resnet_v2_50 = _standard(2, 50)
resnet_v2_101 = _standard(2, 101)
resnet_v2_152 = _standard(2, 152)
resnet_v2_200 = _standard(2, 200)


def _module(name, doc, members):
    module = types.ModuleType(f"tideflow.contrib.slim.nets.{name}", doc)
    for attr, value in members.items():
        setattr(module, attr, value)
    module.__all__ = sorted(members)
    return module


resnet_utils = _module("resnet_utils", "``slim.nets.resnet_utils``: ResNet building blocks.", {
    "Block": Block, "conv2d_same": conv2d_same, "resnet_arg_scope": resnet_arg_scope,
    "stack_blocks_dense": stack_blocks_dense, "subsample": subsample})
resnet_v1_module = _module("resnet_v1", "``slim.nets.resnet_v1``: ResNet v1 (50-200).", {
    "bottleneck": bottleneck_v1, "resnet_arg_scope": resnet_arg_scope, "resnet_utils":
    resnet_utils, "resnet_v1": resnet_v1, "resnet_v1_block": resnet_v1_block,
    "resnet_v1_50": resnet_v1_50, "resnet_v1_101": resnet_v1_101,
    "resnet_v1_152": resnet_v1_152, "resnet_v1_200": resnet_v1_200})
resnet_v2_module = _module("resnet_v2", "``slim.nets.resnet_v2``: pre-activation ResNet v2.", {
    "bottleneck": bottleneck_v2, "resnet_arg_scope": resnet_arg_scope, "resnet_utils":
    resnet_utils, "resnet_v2": resnet_v2, "resnet_v2_block": resnet_v2_block,
    "resnet_v2_50": resnet_v2_50, "resnet_v2_101": resnet_v2_101,
    "resnet_v2_152": resnet_v2_152, "resnet_v2_200": resnet_v2_200})
