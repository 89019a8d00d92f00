"""``tf.contrib.layers`` functional layers: ``fully_connected``, ``conv2d``, ``flatten``,
``batch_norm``, with TF's variable names (``fully_connected/weights``, ``Conv/biases``,
``BatchNorm/moving_mean``, ...), model-variable collections, and
``variables_collections``/``outputs_collections`` handling."""

import contextlib
import functools

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    constant_op,
    init_ops,
    layers_core,
    linalg_ops,
)
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import xavier_initializer
from tideflow.ops.layers_base import smart_cond, static_bool


def _nn():
    # tf.nn is filled by the nn op modules; import late so this module loads without them
    from tideflow import nn

    return nn


class _Relu:
    """The default ``activation_fn``: ``tf.nn.relu`` looked up when called."""

    def __call__(self, x, name=None):
        return _nn().relu(x, name=name)


_RELU = _Relu()
_ZEROS = init_ops.zeros_initializer()


def _layer_padding(padding):
    """``padding`` as the core layers take it (either case; TF's normalize_padding)."""
    value = padding.upper() if isinstance(padding, str) else padding
    if value not in ("SAME", "VALID"):
        raise ValueError('The `padding` argument must be a list/tuple or one of "valid", '
                         '"same" (or "causal", only for `Conv1D). Received: '
                         f"{padding.lower() if isinstance(padding, str) else padding}")
    return value


def _check_format(data_format):
    if data_format not in ("NHWC", "NCHW"):
        raise ValueError("data_format has to be either NCHW or NHWC.")


def _collections(variables_collections, name):
    if variables_collections is None:
        return []
    if isinstance(variables_collections, dict):
        got = variables_collections.get(name)
        if got is None:
            return []
        return [got] if isinstance(got, str) else list(got)
    if isinstance(variables_collections, str):
        return [variables_collections]
    return list(variables_collections)


def model_variable(name, shape=None, dtype=dtypes.float32, initializer=None, regularizer=None,
                   trainable=True, collections=None, caching_device=None, device=None,
                   partitioner=None, custom_getter=None, use_resource=None,
                   synchronization=vs._SYNC_AUTO, aggregation=vs._AGG_NONE):
    """``slim.variable`` (on ``device``) that also files the variable in
    ``MODEL_VARIABLES`` (``synchronization``/``aggregation`` are accepted and unused: only a
    distribution strategy's mirrored variables read them)."""
    del synchronization, aggregation
    from tideflow.ops.contrib_layers_more import variable

    colls = [ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES]
    colls += [c for c in (collections or []) if c not in colls]
    return variable(name, shape=shape, dtype=dtype, initializer=initializer,
                    regularizer=regularizer, trainable=trainable, collections=colls,
                    caching_device=caching_device, device=device, partitioner=partitioner,
                    custom_getter=custom_getter, use_resource=use_resource)


def _layer_variable(name, variables_collections, key, **kwargs):
    """A layer's model variable, then filed in its ``variables_collections`` entry ``key``
    afterwards, as TF's contrib layers file the core layer's ``kernel``/``bias``: so what a
    scope's custom getter returned (a spectrally normalized tensor, say) is what the
    collection holds, and a reused layer files nothing twice."""
    variable = model_variable(name, **kwargs)
    colls = _collections(variables_collections, key)
    if colls:
        from tideflow.ops.partitioned_variables import PartitionedVariable

        parts = list(variable) if isinstance(variable, PartitionedVariable) else [variable]
        for coll in colls:
            held = ops.get_collection(coll)
            for part in parts:
                if not any(part is h for h in held):
                    ops.add_to_collection(coll, part)
    return variable


# the end-point names slim layers give their outputs, read back as ``tensor.aliases`` (as TF)
# and by slim.utils.convert_collection_to_dict
TENSOR_ALIASES = ops.TENSOR_ALIASES


def _collect_outputs(outputs_collections, alias, outputs):
    if outputs_collections:
        alias = alias.removesuffix("/")
        TENSOR_ALIASES.setdefault(outputs, []).append(alias)
        colls = [outputs_collections] if isinstance(outputs_collections, str) else list(
            outputs_collections)
        ops.add_to_collections(colls, outputs)
    return outputs


def _layer_regularizer(regularizer, weight_name):
    """``regularizer`` run under ``<layer name scope>/<weight_name>/Regularizer`` (TF 1.x
    builds these contrib layers on the core layers, whose penalties are named after their
    ``kernel``/``bias`` weights although the variables are ``weights``/``biases``)."""
    if regularizer is None:
        return None
    current = ops.get_default_graph().get_name_scope()
    scope = f"{current}/{weight_name}/Regularizer/" if current else \
        f"{weight_name}/Regularizer/"

    def regularize(weights):
        with ops.name_scope(scope):
            return regularizer(weights)

    return regularize


def _make_biases(normalizer_fn, biases_initializer, biases_regularizer, num_outputs, dtype,
                 variables_collections, trainable, bias_name="bias"):
    """The layer's ``biases`` (None with a normalizer or no initializer), made right after its
    weights and before its main op, as TF 1.15's core layers build both in ``build``."""
    if normalizer_fn is not None or biases_initializer is None:
        return None
    if bias_name is not None:
        biases_regularizer = _layer_regularizer(biases_regularizer, bias_name)
    return _layer_variable("biases", variables_collections, "biases", shape=[num_outputs],
                           dtype=dtype, initializer=biases_initializer,
                           regularizer=biases_regularizer, trainable=trainable)


def _core_layer_called():
    """What TF 1.15's core layers leave behind once called (the contrib layers built on them
    included): an ``update_ops`` collection key, empty as it may be."""
    ops.get_collection_ref(ops.GraphKeys.UPDATE_OPS)


def _finish(outputs, normalizer_fn, normalizer_params, biases, activation_fn, data_format,
            layer_scope=None):
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    elif biases is not None and layer_scope is not None:
        with ops.name_scope(layer_scope):
            outputs = _nn().bias_add(outputs, biases, data_format=data_format)
    elif biases is not None:
        outputs = _nn().bias_add(outputs, biases, data_format=data_format)
    if activation_fn is not None:
        outputs = activation_fn(outputs)
    return outputs


def fully_connected(inputs, num_outputs, activation_fn=_RELU, normalizer_fn=None,
                    normalizer_params=None, weights_initializer=None, weights_regularizer=None,
                    biases_initializer=_ZEROS, biases_regularizer=None,
                    reuse=None, variables_collections=None, outputs_collections=None,
                    trainable=True, scope=None):
    """``activation_fn(inputs @ weights + biases)`` over the last axis of ``inputs``
    (rank >= 2); with ``normalizer_fn`` the normalizer replaces the biases."""
    if not isinstance(num_outputs, int):  # TF raises ValueError here
        raise ValueError(  # noqa: TRY004
            f"num_outputs type should be one of {[int]}, got {type(num_outputs)}.")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with vs.variable_scope(scope, "fully_connected", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        # TF 1.15's words (its core Dense layer, named as the scope, checks the input)
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError(f"Input 0 of layer {sc.name.rsplit('/', 1)[-1]} is incompatible "
                             f"with the layer: : expected min_ndim=2, found ndim={shape.ndims}. "
                             f"Full shape received: {shape.as_list()}")
        in_dim = shape[-1].value if shape.ndims is not None else None
        if in_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        dtype = inputs.dtype.base_dtype
        weights = _layer_variable("weights", variables_collections, "weights",
                                  shape=[in_dim, num_outputs], dtype=dtype,
                                  initializer=weights_initializer,
                                  regularizer=_layer_regularizer(weights_regularizer, "kernel"),
                                  trainable=trainable)
        biases = _make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                              num_outputs, dtype, variables_collections, trainable)
        # TF's core layer makes its ops in its scope's first name scope: that of a scope
        # given as an object ("h/"), not the one entering it opens ("h/h/"), where the
        # normalizer and the activation go
        with ops.name_scope(sc.original_name_scope):
            reserve_core_layer_name(sc.name)
            if shape.ndims == 2:
                outputs = linalg_ops.matmul(inputs, weights)
            else:  # as that layer: a tensordot over the last axis (its ops named Tensordot)
                outputs = linalg_ops.tensordot(inputs, weights, [[shape.ndims - 1], [0]])
                outputs.set_shape(shape[:-1].concatenate([num_outputs]))
        _core_layer_called()
        outputs = _finish(outputs, normalizer_fn, normalizer_params, biases, activation_fn,
                          None, sc.original_name_scope)
        return _collect_outputs(outputs_collections, sc.name, outputs)


def _pair(value, name):
    if isinstance(value, int):
        return [value, value]
    value = list(value)
    if len(value) != 2:
        raise ValueError(f"conv2d: {name} must be an int or a pair of ints, got {value}.")
    return [int(v) for v in value]


def convolution2d(inputs, num_outputs, kernel_size, stride=1, padding="SAME", data_format=None,
                  rate=1, activation_fn=_RELU, normalizer_fn=None, normalizer_params=None,
                  weights_initializer=None, weights_regularizer=None,
                  biases_initializer=_ZEROS, biases_regularizer=None,
                  reuse=None, variables_collections=None, outputs_collections=None,
                  trainable=True, scope=None):
    """A 2-D convolution layer with weights ``[kh, kw, in, num_outputs]`` and biases."""
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    # TF 1.15 reads any "NC..." format as channels first, the rest as channels last
    data_format = "NCHW" if data_format and data_format.startswith("NC") else "NHWC"
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    padding = _layer_padding(padding)  # TF runs the core Conv2D layer: either case
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(stride, "stride")
    rh, rw = _pair(rate, "rate")
    with vs.variable_scope(scope, "Conv", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        if shape.ndims is not None and shape.ndims != 4:
            raise ValueError(f"Convolution expects input with rank 4, got {shape.ndims}")
        channel_axis = 1 if data_format == "NCHW" else -1
        in_ch = shape[channel_axis].value if shape.ndims is not None else None
        if in_ch is None:
            raise ValueError(f"conv2d: the channel dimension of the inputs must be known, "
                             f"got shape {shape}.")
        dtype = inputs.dtype.base_dtype
        weights = _layer_variable("weights", variables_collections, "weights",
                                  shape=[kh, kw, in_ch, num_outputs], dtype=dtype,
                                  initializer=weights_initializer,
                                  regularizer=_layer_regularizer(weights_regularizer, "kernel"),
                                  trainable=trainable)
        biases = _make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                              num_outputs, dtype, variables_collections, trainable)
        if (rh, rw) != (1, 1) and (sh, sw) != (1, 1):
            # TF 1.15's core layer checks this when it builds its convolution, after the
            # variables
            raise ValueError("strides > 1 not supported in conjunction with dilation_rate > 1")
        # TF 1.15 runs the core Conv2D layer, whose build makes this constant (its ops in
        # its scope's first name scope, as fully_connected's)
        with ops.name_scope(sc.original_name_scope):
            reserve_core_layer_name(sc.name)
            rate_t = ops.convert_to_tensor(np.array([rh, rw], np.int32), name="dilation_rate")
            outputs = None
            if (rh, rw) != (1, 1) and data_format == "NHWC":
                # as that layer: SpaceToBatchND, the plain convolution, BatchToSpaceND
                from tideflow.ops import conv_ops

                outputs = conv_ops.space_to_batch_convolution(
                    inputs, weights, padding, [rh, rw], _tf_constants="no_rate",
                    _rate_tensor=rate_t)
            if outputs is None:
                if data_format == "NCHW":
                    strides, dilations = [1, 1, sh, sw], [1, 1, rh, rw]
                else:
                    strides, dilations = [1, sh, sw, 1], [1, rh, rw, 1]
                outputs = _nn().conv2d(inputs, weights, strides=strides, padding=padding,
                                       data_format=data_format, dilations=dilations)
        _core_layer_called()
        outputs = _finish(outputs, normalizer_fn, normalizer_params, biases, activation_fn,
                          data_format, sc.original_name_scope)
        return _collect_outputs(outputs_collections, sc.name, outputs)


conv2d = convolution2d


def flatten(inputs, outputs_collections=None, scope=None):
    """Reshapes ``[batch, ...]`` to ``[batch, k]``, keeping the batch dimension: tf.layers'
    flatten under the ``Flatten`` name scope, as TF 1.15's."""
    with ops.name_scope(scope, "Flatten", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        outputs = layers_core.flatten(inputs)
        _core_layer_called()
        return _collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def batch_norm(inputs, decay=0.999, center=True, scale=False, epsilon=0.001, activation_fn=None,
               param_initializers=None, param_regularizers=None,
               updates_collections=ops.GraphKeys.UPDATE_OPS, is_training=True, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               batch_weights=None, fused=None, data_format="NHWC",
               zero_debias_moving_mean=False, scope=None, renorm=False, renorm_clipping=None,
               renorm_decay=0.99, adjustment=None):
    """Batch normalization over every axis but the channels (last, or 1 for NCHW).

    Training normalizes with the batch statistics and updates ``moving_mean`` and
    ``moving_variance`` (``v -= (1 - decay) * (v - batch_stat)``), whose update ops go to
    ``updates_collections`` (or run with the output when it is None); inference uses the
    moving statistics. Rank-2 and rank-4 inputs use the fused kernel, whose moving variance
    takes the unbiased batch variance, as TF's.
    """
    if renorm or adjustment is not None:
        # TF runs these through the core layer, which takes neither batch weights, other
        # update collections nor a zero-debiased moving mean
        if (batch_weights is not None or zero_debias_moving_mean
                or updates_collections != ops.GraphKeys.UPDATE_OPS):
            raise ValueError("renorm is not supported with batch_weights, updates_collections "
                             "or zero_debias_moving_mean")
        return _layer_batch_norm(
            inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
            param_regularizers, is_training, reuse, variables_collections, outputs_collections,
            trainable, data_format, scope, renorm, renorm_clipping, renorm_decay, adjustment)
    # TF 1.15 hands the default case (no batch weights, the UPDATE_OPS collection, no zero
    # debiasing) to the core layer, unless its own fused path takes it (a rank-2 input); its
    # ops (and so their count) are then the core layer's
    rank = ops.convert_to_tensor(inputs).get_shape().ndims
    to_fused = fused is not False and batch_weights is None and rank in (2, 4) and (
        zero_debias_moving_mean or rank == 2 or updates_collections != ops.GraphKeys.UPDATE_OPS)
    if (not to_fused and batch_weights is None and not zero_debias_moving_mean
            and updates_collections == ops.GraphKeys.UPDATE_OPS):
        return _layer_batch_norm(
            inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
            param_regularizers, is_training, reuse, variables_collections, outputs_collections,
            trainable, data_format, scope, renorm, renorm_clipping, renorm_decay, adjustment,
            fused=fused)
    _check_format(data_format)
    param_initializers = param_initializers or {}
    param_regularizers = param_regularizers or {}
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        rank = shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        channel_axis = 1 if (data_format == "NCHW" and rank > 2) else rank - 1
        channels = shape[channel_axis].value
        if channels is None:
            raise ValueError(f"Inputs {inputs.name} has undefined channels dimension {shape}.")
        dtype = inputs.dtype.base_dtype
        pshape = [channels]
        if batch_weights is not None:
            # one weight per example, broadcast over the other axes (TF's weighted moments)
            batch_weights = ops.convert_to_tensor(batch_weights)
            shape[0:1].assert_is_compatible_with(batch_weights.get_shape())
            batch_weights = array_ops.reshape(batch_weights, [-1] + [1] * (rank - 1))
        # the fused kernel takes half and single floats only (TF falls back the same way), and
        # no batch weights
        use_fused = (fused is not False and rank in (2, 4) and batch_weights is None
                     and dtype in (dtypes.float16, dtypes.bfloat16, dtypes.float32))
        # half-float inputs keep single-float parameters (the fused kernel's, as TF's layer)
        param_dtype = dtypes.float32 if use_fused else dtype

        def var(name, default_init, trainable_var, regularizer=None):
            return model_variable(
                name, shape=pshape, dtype=param_dtype,
                initializer=param_initializers.get(name, default_init), regularizer=regularizer,
                trainable=trainable_var, collections=_collections(variables_collections, name))

        # TF 1.x hands the default case (UPDATE_OPS, no zero-debiasing, not a fused rank-2
        # input) to the core layer, which creates gamma before beta; the rest beta first
        core_layer = (updates_collections == ops.GraphKeys.UPDATE_OPS
                      and not (fused is not False and rank == 2))

        def make_beta():
            return var("beta", init_ops.zeros_initializer(), trainable,
                       param_regularizers.get("beta")) if center else None

        def make_gamma():
            return var("gamma", init_ops.ones_initializer(), trainable,
                       param_regularizers.get("gamma")) if scale else None

        reshaped = None
        if use_fused and rank == 2:  # TF reshapes to 4-D first, then makes the variables
            reshaped = array_ops.reshape(
                inputs, [-1, channels, 1, 1] if data_format == "NCHW" else [-1, 1, 1, channels])
        if core_layer:
            gamma = make_gamma()
            beta = make_beta()
        else:
            beta = make_beta()
            if beta is None and use_fused:  # TF's constant stands in, made in its place
                beta = constant_op.constant(0.0, param_dtype, [channels])
            gamma = make_gamma()
            if gamma is None and use_fused:
                gamma = constant_op.constant(1.0, param_dtype, [channels])
        # the moving statistics are never partitioned (TF clears the scope's partitioner for
        # them: their moving-average updates take whole variables)
        cur = vs.get_variable_scope()
        partitioner = cur.partitioner
        cur.set_partitioner(None)
        try:
            moving_mean = var("moving_mean", init_ops.zeros_initializer(), False)
            moving_variance = var("moving_variance", init_ops.ones_initializer(), False)
        finally:
            cur.set_partitioner(partitioner)

        if use_fused:
            outputs, updates = _fused(inputs, rank, data_format, beta, gamma, moving_mean,
                                      moving_variance, epsilon, decay, is_training,
                                      param_dtype, zero_debias_moving_mean, reshaped,
                                      updates_collections is None)
        else:
            before = set(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
            outputs, updates = _plain(inputs, rank, channel_axis, beta, gamma, moving_mean,
                                      moving_variance, epsilon, decay, is_training,
                                      batch_weights, zero_debias_moving_mean,
                                      updates_collections is None)
            # TF builds this path under a model-variable getter: the zero-debias helpers
            # (<scope>/<moving_mean>/biased, local_step) are model variables too
            for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES):
                if v not in before:
                    ops.add_to_collection(ops.GraphKeys.MODEL_VARIABLES, v)
        if updates:
            if updates_collections is None:
                with ops.control_dependencies(updates):
                    outputs = array_ops.identity(outputs)
            else:
                colls = [updates_collections] if isinstance(updates_collections, str) else list(
                    updates_collections)
                for u in updates:
                    ops.add_to_collections(colls, u)
        if use_fused and rank == 2:
            # as TF: after the forced updates' Identity ("BatchNorm/Reshape_1" is the output)
            outputs = array_ops.reshape(outputs, array_ops.shape(inputs))
        outputs.set_shape(shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_outputs(outputs_collections, sc.name, outputs)


def _layer_batch_norm(inputs, decay, center, scale, epsilon, activation_fn, param_initializers,
                      param_regularizers, is_training, reuse, variables_collections,
                      outputs_collections, trainable, data_format, scope, renorm,
                      renorm_clipping, renorm_decay, adjustment, fused=None):
    """batch_norm through ``tf.layers.BatchNormalization`` (renorm, adjustment), its variables
    filed as model variables and in ``variables_collections`` as TF's."""
    from tideflow.ops.layers_norm import BatchNormalization

    _check_format(data_format)
    param_initializers = param_initializers or {}
    param_regularizers = param_regularizers or {}
    with vs.variable_scope(scope, "BatchNorm", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        layer = BatchNormalization(
            axis=1 if data_format == "NCHW" else -1, momentum=decay, epsilon=epsilon,
            center=center, scale=scale,
            beta_initializer=param_initializers.get("beta", init_ops.zeros_initializer()),
            gamma_initializer=param_initializers.get("gamma", init_ops.ones_initializer()),
            moving_mean_initializer=param_initializers.get("moving_mean",
                                                           init_ops.zeros_initializer()),
            moving_variance_initializer=param_initializers.get("moving_variance",
                                                               init_ops.ones_initializer()),
            beta_regularizer=param_regularizers.get("beta"),
            gamma_regularizer=param_regularizers.get("gamma"), trainable=trainable,
            renorm=renorm, renorm_clipping=renorm_clipping, renorm_momentum=renorm_decay,
            adjustment=adjustment, fused=fused, name=sc.name, _scope=sc, _reuse=reuse)
        outputs = layer.apply(inputs, training=is_training)
        for v in layer.variables:
            if v not in ops.get_collection(ops.GraphKeys.MODEL_VARIABLES):
                ops.add_to_collection(ops.GraphKeys.MODEL_VARIABLES, v)
        for name in ("moving_mean", "moving_variance", "beta", "gamma"):
            v = getattr(layer, name, None)
            if v is not None:
                ops.add_to_collections(_collections(variables_collections, name), v)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_outputs(outputs_collections, sc.name, outputs)


def _pool(kind, default_scope, inputs, kernel_size, stride, padding, data_format,
          outputs_collections, scope):
    _check_format(data_format)
    padding = _layer_padding(padding)  # TF runs the core pooling layers: either case
    kh, kw = _pair(kernel_size, "kernel_size")
    sh, sw = _pair(stride, "stride")
    if data_format == "NCHW":
        ksize, strides = [1, 1, kh, kw], [1, 1, sh, sw]
    else:
        ksize, strides = [1, kh, kw, 1], [1, sh, sw, 1]
    with ops.name_scope(scope, default_scope, [inputs]) as sc:
        fn = getattr(_nn(), kind)
        outputs = fn(ops.convert_to_tensor(inputs), ksize, strides, padding,
                     data_format=data_format)
        _core_layer_called()
        return _collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def max_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """2-D max pooling over ``kernel_size`` windows (default stride 2, VALID padding)."""
    return _pool("max_pool", "MaxPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


def avg_pool2d(inputs, kernel_size, stride=2, padding="VALID", data_format="NHWC",
               outputs_collections=None, scope=None):
    """2-D average pooling over ``kernel_size`` windows (default stride 2, VALID padding)."""
    return _pool("avg_pool", "AvgPool2D", inputs, kernel_size, stride, padding, data_format,
                 outputs_collections, scope)


def reserve_core_layer_name(scope_name):
    """Takes, in the current name scope, the name a TF 1.15 core layer behind a contrib layer
    takes before its ops: the last part of its variable scope's name. Under "d0/Dropout"
    tf.nn.dropout's ops then go to "d0/Dropout/dropout_1" (names match whatever their case),
    under "Dropout_1" to "Dropout_1/dropout"; a layer scoped "MatMul" makes "MatMul_1"."""
    ops.get_default_graph().unique_name(scope_name.rsplit("/", 1)[-1])


def dropout(inputs, keep_prob=0.5, noise_shape=None, is_training=True, outputs_collections=None,
            scope=None, seed=None):
    """``tf.nn.dropout`` while ``is_training`` (a Python bool or a bool tensor), else identity."""
    # TF 1.15 runs the core Dropout layer named after the variable scope: its ops go to the
    # scope's first name scope ("d/" for a scope object)
    with vs.variable_scope(scope, "Dropout", [inputs]) as vsc, \
            ops.name_scope(vsc.original_name_scope):
        sc = vsc.name
        inputs = ops.convert_to_tensor(inputs)
        flag = _training_flag(is_training)
        reserve_core_layer_name(vsc.name)

        def drop():
            shape = noise_shape
            if shape is not None:
                # as TF 1.15's Keras Dropout: the input's shape fills the None entries and
                # the list becomes one tensor ("Shape", then "Const" or "packed")
                dynamic = array_ops.shape(inputs)
                shape = ops.convert_to_tensor(
                    [dynamic[i] if size is None else size for i, size in enumerate(shape)])
            return _nn().dropout(inputs, keep_prob, noise_shape=shape, seed=seed)

        def keep():
            return array_ops.identity(inputs)

        if flag is True:
            outputs = drop()
        elif flag is False:
            outputs = keep()
        else:
            outputs = smart_cond(flag, drop, keep)
        _core_layer_called()
        return _collect_outputs(outputs_collections, sc, outputs)


def layer_norm(inputs, center=True, scale=True, activation_fn=None, reuse=None,
               variables_collections=None, outputs_collections=None, trainable=True,
               begin_norm_axis=1, begin_params_axis=-1, scope=None):
    """Layer normalization: each example is normalized over axes ``begin_norm_axis..`` (with
    TF's variance epsilon 1e-12, 1e-3 for float16), then scaled by ``gamma`` and shifted by ``beta`` of shape
    ``inputs.shape[begin_params_axis:]``."""
    with vs.variable_scope(scope, "LayerNorm", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        rank = shape.ndims
        if rank is None:
            raise ValueError(f"Inputs {inputs.name} has undefined rank.")
        if begin_norm_axis < 0:
            begin_norm_axis = rank + begin_norm_axis
        if begin_params_axis >= rank or begin_norm_axis >= rank:
            raise ValueError(f"begin_params_axis ({begin_params_axis}) and begin_norm_axis "
                             f"({begin_norm_axis}) must be < rank(inputs) ({rank})")
        params_shape = shape[begin_params_axis:]
        if not params_shape.is_fully_defined():
            raise ValueError(f"Inputs {inputs.name}: shape(inputs)[{begin_params_axis}:] is not "
                             f"fully defined: {shape}")
        dtype = inputs.dtype.base_dtype
        beta = gamma = None
        if center:
            beta = model_variable("beta", shape=params_shape.as_list(), dtype=dtype,
                                  initializer=init_ops.zeros_initializer(), trainable=trainable,
                                  collections=_collections(variables_collections, "beta"))
        if scale:
            gamma = model_variable("gamma", shape=params_shape.as_list(), dtype=dtype,
                                   initializer=init_ops.ones_initializer(), trainable=trainable,
                                   collections=_collections(variables_collections, "gamma"))
        nn = _nn()
        mean, variance = nn.moments(inputs, list(range(begin_norm_axis, rank)), keep_dims=True)
        # half floats cannot hold 1e-12: TF raises the epsilon to 1e-3 for them
        epsilon = 1e-3 if dtype == dtypes.float16 else 1e-12
        outputs = nn.batch_normalization(inputs, mean, variance, offset=beta, scale=gamma,
                                         variance_epsilon=epsilon)
        outputs.set_shape(shape)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return _collect_outputs(outputs_collections, sc.name, outputs)


def one_hot_encoding(labels, num_classes, on_value=1.0, off_value=0.0, outputs_collections=None,
                     scope=None):
    """``labels`` as float one-hot rows of length ``num_classes``."""
    from tideflow.ops.range_ops import one_hot

    with ops.name_scope(scope, "OneHotEncoding", [labels, num_classes]) as sc:
        labels = ops.convert_to_tensor(labels)
        if labels.dtype.base_dtype == dtypes.int32:
            from tideflow.ops.cast_ops import to_int64

            labels = to_int64(labels)
        outputs = one_hot(labels, num_classes, on_value=on_value, off_value=off_value)
        return _collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):
    """Looks ``ids`` ([batch, doc_length]) up in an ``[vocab_size, embed_dim]`` variable
    ``EmbedSequence/embeddings``, giving ``[batch, doc_length, embed_dim]``."""
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. "
                         f"Got vocab_size={vocab_size} and embed_dim={embed_dim}")
    from tideflow.ops.embedding_ops import embedding_lookup

    with vs.variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim] if not reuse else None
        # a model variable, as TF 1.15's (so get_model_variables lists it)
        embeddings = model_variable("embeddings", shape=shape, initializer=initializer,
                                    regularizer=regularizer, trainable=trainable)
        return embedding_lookup(embeddings, ids)


def bow_encoder(ids, vocab_size, embed_dim, sparse_lookup=True, initializer=None,
                regularizer=None, trainable=True, scope=None, reuse=None):
    """Bag of words: the mean of the embeddings of ``ids`` ([batch, doc_length]) from a
    ``bow_encoder/embeddings`` model variable, giving ``[batch, embed_dim]``. With
    ``sparse_lookup`` (TF's default) id 0 counts as padding and is left out of the mean; a row
    of nothing but padding gets embedding 0's vector."""
    from tideflow.framework.sparse_tensor import SparseTensor
    from tideflow.ops.embedding_ops import embedding_lookup
    from tideflow.ops.gather_ops import gather_nd, where
    from tideflow.ops.math_ops import not_equal
    from tideflow.ops.nn_extra_ops import safe_embedding_lookup_sparse
    from tideflow.ops.reduction_ops import reduce_mean

    with vs.variable_scope(scope, "bow_encoder", [ids], reuse=reuse):
        embeddings = model_variable("embeddings", shape=[vocab_size, embed_dim],
                                    initializer=initializer, regularizer=regularizer,
                                    trainable=trainable)
        if not sparse_lookup:
            if isinstance(ids, SparseTensor):
                raise TypeError("ids are expected to be a dense Tensor.")
            return reduce_mean(embedding_lookup(embeddings, ids), axis=1)
        if isinstance(ids, SparseTensor):
            sparse_ids = ids
        else:
            ids = ops.convert_to_tensor(ids)
            indices = where(not_equal(ids, array_ops.zeros([], ids.dtype)))
            sparse_ids = SparseTensor(indices, gather_nd(ids, indices),
                                      array_ops.shape(ids, out_type=dtypes.int64))
        return safe_embedding_lookup_sparse([embeddings], sparse_ids, combiner="mean",
                                            default_id=0)


def _update(variable, value, decay, zero_debias=False):
    """TF's moving_averages.assign_moving_average (its ops: the decay constant, sub, mul,
    AssignSub named after the scope; with ``zero_debias`` the helper variables
    <moving_mean>/biased and /local_step under the layer's variable scope)."""
    from tideflow.train.moving_averages import assign_moving_average

    return assign_moving_average(variable, value, decay, zero_debias=zero_debias)


def _training_flag(is_training):
    if isinstance(is_training, bool):
        return is_training
    return ops.convert_to_tensor(is_training, dtypes.bool)


def _fused(inputs, rank, data_format, beta, gamma, moving_mean, moving_variance, epsilon, decay,
           is_training, dtype, zero_debias=False, reshaped=None, forced=False):
    nn = _nn()
    x = inputs
    fmt = data_format
    if rank == 2:
        x = reshaped if reshaped is not None else array_ops.reshape(
            inputs, [-1, 1, 1, inputs.get_shape()[1].value])
        fmt = data_format if reshaped is not None else "NHWC"
    channels = moving_mean.get_shape()[0].value
    offset = beta if beta is not None else constant_op.constant(0.0, dtype, [channels])
    scale = gamma if gamma is not None else constant_op.constant(1.0, dtype, [channels])
    flag = _training_flag(is_training)
    value = static_bool(flag)

    def train():
        return nn.fused_batch_norm(x, scale, offset, epsilon=epsilon, data_format=fmt,
                                   is_training=True)

    def infer():
        y, _, _ = nn.fused_batch_norm(x, scale, offset, mean=moving_mean, variance=moving_variance,
                                      epsilon=epsilon, data_format=fmt, is_training=False)
        # the snapshots, not fresh reads of the refs: a branch reading refs would tie the cond
        # to their devices (two parameter servers could not both hold it)
        return y, moving_mean.value(), moving_variance.value()

    updates = []
    if value is False:
        y = infer()[0]
    elif value is True:
        y, mean, var = train()
        updates = [_update(moving_mean, mean, decay, zero_debias),
                   _update(moving_variance, var, decay)]
    else:
        y, mean, var = smart_cond(flag, train, infer)

        def make_updates():
            return (_update(moving_mean, mean, decay, zero_debias),
                    _update(moving_variance, var, decay))

        if zero_debias:
            # the helper variables move only in training: the updates in a real cond, as TF's
            if forced:
                def force_updates():
                    with ops.control_dependencies(make_updates()):
                        return array_ops.identity(y)

                return smart_cond(flag, force_updates, lambda: y), []
            return y, list(smart_cond(flag, make_updates, lambda: infer()[1:]))
        # at inference the "batch" statistics are the moving ones, so the update is a no-op.
        # TF 1.15 makes the updates inside a second cond (22 ops with its Switch and Merge
        # ops, and the output's Identity when they are forced): tideflow's ops there take
        # TF's first ids and names, the cond's results are Identities named as its Merges,
        # and the rest of its ids are skipped (TF's op count)
        g = ops.get_default_graph()
        g._skip_op_ids(4)
        with ops.name_scope(None, "cond"):
            updates = make_updates()
            if forced:
                g._skip_op_ids(9)
                with ops.control_dependencies(updates):
                    return array_ops.identity(y, name="Merge"), []
            g._skip_op_ids(8)
            return y, [array_ops.identity(u, name="Merge") for u in updates]
    return y, updates  # (a 2-D input's 4-D result: the caller reshapes it back)


def _plain(inputs, rank, channel_axis, beta, gamma, moving_mean, moving_variance, epsilon, decay,
           is_training, batch_weights=None, zero_debias=False, forced=False):
    """TF 1.x's own (non-layer) batch norm: the batch moments, then the moving averages'
    updates in a cond on ``is_training``: ``forced`` (no updates collection), the cond yields
    the moments behind the updates; otherwise it yields the updates (returned for the
    collection) and a second cond picks the moments or the moving statistics."""
    nn = _nn()
    axes = [a for a in range(rank) if a != channel_axis]
    bshape = [1] * rank
    bshape[channel_axis] = moving_mean.get_shape()[0].value

    def norm(mean, var):
        if channel_axis == rank - 1:  # [channels] broadcasts as it is (no Reshape, as TF's)
            return nn.batch_normalization(inputs, mean, var, beta, gamma, epsilon)
        r = (lambda t: None if t is None else array_ops.reshape(t, bshape))
        return nn.batch_normalization(inputs, r(mean), r(var), r(beta), r(gamma), epsilon)

    flag = _training_flag(is_training)
    value = static_bool(flag)

    def infer():
        return moving_mean.value(), moving_variance.value()  # snapshots, as in _fused

    if value is False:
        return norm(*infer()), []
    if batch_weights is not None:
        batch_mean, batch_var = nn.weighted_moments(inputs, axes, batch_weights)
    else:
        batch_mean, batch_var = nn.moments(inputs, axes)
    def updates():
        return (_update(moving_mean, batch_mean, decay, zero_debias),
                _update(moving_variance, batch_var, decay))

    if forced:
        def force_updates():
            with ops.control_dependencies(updates()):
                return array_ops.identity(batch_mean), array_ops.identity(batch_var)

        mean, var = smart_cond(flag, force_updates, infer)
        return norm(mean, var), []
    update_mean, update_var = smart_cond(flag, updates, infer)
    mean, var = smart_cond(flag, lambda: (batch_mean, batch_var), infer)
    return norm(mean, var), [update_mean, update_var]


# ------------------------------------------------------------------------------------------
# arg_scope (tf.contrib.framework)
# ------------------------------------------------------------------------------------------

_ARG_STACK = [{}]


def _key_op(op):
    return getattr(op, "_key_op", f"{op.__module__}.{op.__name__}")


def has_arg_scope(func):
    """Whether ``func`` was decorated with ``add_arg_scope``."""
    return getattr(func, "_key_op", None) is not None


def arg_scope_func_key(op):
    """The key ``arg_scope`` files ``op``'s defaults under."""
    return _key_op(op)


def current_arg_scope():
    """The innermost arg scope: ``{op key: {kwarg: default}}``."""
    return _ARG_STACK[-1]


def add_arg_scope(func):
    """Lets ``arg_scope`` supply default keyword arguments to ``func``."""
    key = _key_op(func)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        merged = dict(_ARG_STACK[-1].get(key, {}))
        merged.update(kwargs)
        return func(*args, **merged)

    wrapper._key_op = key
    # the keyword arguments (those with defaults) an arg_scope may set, as TF records them
    defaults = getattr(func, "__defaults__", None) or ()
    code = getattr(func, "__code__", None)
    names = code.co_varnames[:code.co_argcount] if code is not None else ()
    wrapper._arg_scoped_arguments = tuple(names[len(names) - len(defaults):]) if defaults else ()
    return wrapper


def arg_scoped_arguments(func):
    """The names of ``func``'s keyword arguments (those with defaults) that ``arg_scope``
    can set; ``func`` must be decorated with ``add_arg_scope``."""
    if not has_arg_scope(func):
        raise AssertionError(f"{func} is not decorated with @add_arg_scope")
    return getattr(func, "_arg_scoped_arguments", ())


@contextlib.contextmanager
def arg_scope(list_ops_or_scope, **kwargs):
    """Sets default keyword arguments of the listed ``add_arg_scope`` functions; a scope
    dict yielded by an outer ``arg_scope`` can be re-entered instead."""
    if isinstance(list_ops_or_scope, dict):
        if kwargs:
            # TF 1.15's message, its missing space included
            raise ValueError("When attempting to re-use a scope by suppling adictionary, "
                             "kwargs must be empty.")
        scope = list_ops_or_scope
    else:
        if not isinstance(list_ops_or_scope, (list, tuple)):
            raise TypeError("list_ops_or_scope must either be a list/tuple or reused scope "
                            "(i.e. dict)")
        scope = {k: dict(v) for k, v in _ARG_STACK[-1].items()}
        for op in list_ops_or_scope:
            if not has_arg_scope(op):
                # TF 1.15 passes the format and its argument separately, so they print
                # as a tuple: ('%s is not decorated ...', ('module', 'name'))
                raise ValueError("%s is not decorated with @add_arg_scope",
                                 (getattr(op, "__module__", None), getattr(op, "__name__", op)))
            scope.setdefault(_key_op(op), {}).update(kwargs)
    _ARG_STACK.append(scope)
    try:
        yield scope
    finally:
        _ARG_STACK.pop()


# ------------------------------------------------------------------------------------------
# variable queries (tf.contrib.framework)
# ------------------------------------------------------------------------------------------


def get_variables(scope=None, suffix=None, collection=ops.GraphKeys.GLOBAL_VARIABLES):
    """The variables of ``collection`` whose names match the ``scope`` regex (from the start)
    and end in ``suffix``."""
    if isinstance(scope, vs.VariableScope):
        scope = scope.name
    if suffix is not None:
        if ":" not in suffix:
            suffix += ":"
        scope = (scope or "") + ".*" + suffix
    return ops.get_collection(collection, scope)


def get_model_variables(scope=None, suffix=None):
    """``get_variables`` over ``MODEL_VARIABLES``."""
    return get_variables(scope, suffix, ops.GraphKeys.MODEL_VARIABLES)


def get_local_variables(scope=None, suffix=None):
    """``get_variables`` over ``LOCAL_VARIABLES``."""
    return get_variables(scope, suffix, ops.GraphKeys.LOCAL_VARIABLES)


def get_trainable_variables(scope=None, suffix=None):
    """``get_variables`` over ``TRAINABLE_VARIABLES``."""
    return get_variables(scope, suffix, ops.GraphKeys.TRAINABLE_VARIABLES)


def get_variables_to_restore(include=None, exclude=None):
    """The global variables under the ``include`` scopes (all when None), less those under
    the ``exclude`` scopes."""
    if include is None:
        chosen = get_variables()
    else:
        if not isinstance(include, (list, tuple)):
            raise TypeError("include is provided but is not a list or a tuple.")
        chosen = [v for scope in include for v in get_variables(scope)]
    excluded = set()
    if exclude is not None:
        if not isinstance(exclude, (list, tuple)):
            raise TypeError("exclude is provided but is not a list or a tuple.")
        excluded = {id(v) for scope in exclude for v in get_variables(scope)}
    return [v for v in chosen if id(v) not in excluded]


def get_variables_by_suffix(suffix, scope=None):
    """The global variables whose names end in ``suffix``."""
    return get_variables(scope=scope, suffix=suffix)


def get_variables_by_name(given_name, scope=None):
    """The global variables whose last name component is ``given_name``."""
    suffix = "/" + given_name + ":|^" + given_name + ":"
    return get_variables(scope=scope, suffix=suffix)


def get_unique_variable(var_op_name):
    """The one global variable whose op is named ``var_op_name``; ValueError otherwise."""
    candidates = get_variables(scope=var_op_name)
    if not candidates:
        raise ValueError(f"Couldn't find variable {var_op_name}")
    for candidate in candidates:
        if candidate.op.name == var_op_name:
            return candidate
    raise ValueError(f"Variable {var_op_name} does not uniquely identify a variable")


fully_connected = add_arg_scope(fully_connected)
convolution2d = conv2d = add_arg_scope(convolution2d)
flatten = add_arg_scope(flatten)
batch_norm = add_arg_scope(batch_norm)
max_pool2d = add_arg_scope(max_pool2d)
avg_pool2d = add_arg_scope(avg_pool2d)
dropout = add_arg_scope(dropout)
layer_norm = add_arg_scope(layer_norm)
one_hot_encoding = add_arg_scope(one_hot_encoding)
embed_sequence = add_arg_scope(embed_sequence)
bow_encoder = add_arg_scope(bow_encoder)
model_variable = add_arg_scope(model_variable)

__all__ = ["add_arg_scope", "arg_scope", "arg_scope_func_key", "avg_pool2d", "batch_norm",
           "bow_encoder", "conv2d", "convolution2d", "current_arg_scope", "dropout", "embed_sequence", "flatten",
           "fully_connected", "get_local_variables", "get_model_variables",
           "get_trainable_variables", "get_unique_variable", "get_variables",
           "get_variables_by_name", "get_variables_by_suffix", "get_variables_to_restore",
           "has_arg_scope", "layer_norm", "max_pool2d", "model_variable", "one_hot_encoding"]
