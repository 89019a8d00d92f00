"""More of ``tf.contrib.layers`` / ``tf.contrib.slim``: transposed and separable convolutions,
``repeat``/``stack``, ``unit_norm``, ``softmax``, ``bias_add``, ``linear``, ``optimize_loss``,
and slim's variable helpers (``variable``, ``local_variable``, ``assign_from_checkpoint_fn``).

Variable and scope names are TF's (``Conv2d_transpose/weights``,
``SeparableConv2d/depthwise_weights``, ``conv2/conv2_1/weights`` for ``repeat``), so
checkpoints written by TF-style model code line up."""

import collections.abc
import functools

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    concat_ops,
    constant_op,
    init_ops,
    reduction_ops,
    state_ops,
    unary_ops,
)
from tideflow.ops import contrib_layers as cl
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import xavier_initializer


def _nn():
    from tideflow import nn

    return nn


def _channels(inputs, data_format, who):
    shape = inputs.get_shape()
    if shape.ndims is not None and shape.ndims != 4:
        raise ValueError(f"{who}: inputs must have rank 4, got shape {shape}.")
    axis = 1 if data_format == "NCHW" else -1
    ch = shape[axis].value if shape.ndims is not None else None
    if ch is None:
        raise ValueError(f"{who}: the channel dimension of the inputs must be known, got shape "
                         f"{shape}.")
    return ch


def convolution2d_transpose(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                            data_format="NHWC", activation_fn=cl._RELU, normalizer_fn=None,
                            normalizer_params=None, weights_initializer=None,
                            weights_regularizer=None, biases_initializer=cl._ZEROS,
                            biases_regularizer=None, reuse=None, variables_collections=None,
                            outputs_collections=None, trainable=True, scope=None):
    """The transpose of a 2-D convolution: weights ``[kh, kw, num_outputs, in]``; SAME gives
    ``in * stride`` spatially, VALID ``in * stride + max(k - stride, 0)``."""
    cl._check_format(data_format)
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    kh, kw = cl._pair(kernel_size, "kernel_size")
    sh, sw = cl._pair(stride, "stride")
    padding = cl._layer_padding(padding)  # the core Conv2DTranspose layer: either case
    with vs.variable_scope(scope, "Conv2d_transpose", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        in_ch = _channels(inputs, data_format, "conv2d_transpose")
        dtype = inputs.dtype.base_dtype
        weights = cl._layer_variable(
            "weights", variables_collections, "weights", shape=[kh, kw, num_outputs, in_ch],
            dtype=dtype, initializer=weights_initializer,
            regularizer=cl._layer_regularizer(weights_regularizer, "kernel"),
            trainable=trainable)
        biases = cl._make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                                 num_outputs, dtype, variables_collections, trainable)
        # the core layer's ops in the scope's first name scope (that of a scope object)
        with ops.name_scope(sc.original_name_scope):
            h_axis, w_axis = (2, 3) if data_format == "NCHW" else (1, 2)
            # the output shape with the ops TF 1.15's core Conv2DTranspose layer builds for it
            dyn = array_ops.shape(inputs)
            static = inputs.get_shape().as_list()
            batch, height, width = dyn[0], dyn[h_axis], dyn[w_axis]

            def out_size(size, k, s):
                size = size * s
                return size if padding == "SAME" else size + max(k - s, 0)

            out_h = out_size(height, kh, sh)
            out_w = out_size(width, kw, sw)
            if data_format == "NCHW":
                out_shape = concat_ops.stack([batch, num_outputs, out_h, out_w])
                strides = [1, 1, sh, sw]
            else:
                out_shape = concat_ops.stack([batch, out_h, out_w, num_outputs])
                strides = [1, sh, sw, 1]
            out_shape[0]  # TF 1.15's Keras backend looks at it (one op, as TF's)
            # TF's op is then "conv2d_transpose_1" under the default scope
            cl.reserve_core_layer_name(sc.name)
            outputs = _nn().conv2d_transpose(inputs, weights, out_shape, strides=strides,
                                             padding=padding, data_format=data_format)
            sh_h = None if static[h_axis] is None else out_size(static[h_axis], kh, sh)
            sh_w = None if static[w_axis] is None else out_size(static[w_axis], kw, sw)
            if data_format == "NCHW":
                outputs.set_shape([static[0], num_outputs, sh_h, sh_w])
            else:
                outputs.set_shape([static[0], sh_h, sh_w, num_outputs])
        cl._core_layer_called()
        outputs = cl._finish(outputs, normalizer_fn, normalizer_params, biases, activation_fn,
                             data_format, sc.original_name_scope)
        return cl._collect_outputs(outputs_collections, sc.name, outputs)


def separable_convolution2d(inputs, num_outputs, kernel_size, depth_multiplier=1, stride=1,
                            padding="SAME", data_format="NHWC", rate=1, activation_fn=cl._RELU,
                            normalizer_fn=None, normalizer_params=None, weights_initializer=None,
                            pointwise_initializer=None, weights_regularizer=None,
                            biases_initializer=cl._ZEROS, biases_regularizer=None, reuse=None,
                            variables_collections=None, outputs_collections=None,
                            trainable=True, scope=None):
    """A depthwise convolution (``depthwise_weights [kh, kw, in, depth_multiplier]``)
    followed, when ``num_outputs`` is not None, by a 1x1 pointwise one
    (``pointwise_weights [1, 1, in * depth_multiplier, num_outputs]``)."""
    cl._check_format(data_format)
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    if pointwise_initializer is None:
        pointwise_initializer = weights_initializer
    kh, kw = cl._pair(kernel_size, "kernel_size")
    sh, sw = cl._pair(stride, "stride")
    rh, rw = cl._pair(rate, "rate")
    with vs.variable_scope(scope, "SeparableConv2d", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        in_ch = _channels(inputs, data_format, "separable_conv2d")
        dtype = inputs.dtype.base_dtype
        # with pointwise weights TF runs the core SeparableConv2D (penalties named after its
        # depthwise_kernel/pointwise_kernel/bias); depthwise only, its own variables
        core = num_outputs is not None
        if core:
            padding = cl._layer_padding(padding)  # the core layer takes either case
        depthwise = cl.model_variable(
            "depthwise_weights", shape=[kh, kw, in_ch, depth_multiplier], dtype=dtype,
            initializer=weights_initializer,
            regularizer=cl._layer_regularizer(weights_regularizer, "depthwise_kernel")
            if core else weights_regularizer,
            trainable=trainable,
            collections=cl._collections(variables_collections, "weights"))
        if data_format == "NCHW":
            strides = [1, 1, sh, sw]
        else:
            strides = [1, sh, sw, 1]
        if num_outputs is not None:
            pointwise = cl.model_variable(
                "pointwise_weights", shape=[1, 1, in_ch * depth_multiplier, num_outputs],
                dtype=dtype, initializer=pointwise_initializer,
                regularizer=cl._layer_regularizer(weights_regularizer, "pointwise_kernel"),
                trainable=trainable,
                collections=cl._collections(variables_collections, "weights"))
            # the core layer makes its bias with its kernels, before the convolution
            biases = cl._make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                                     num_outputs, dtype, variables_collections, trainable)
            with ops.name_scope(sc.original_name_scope):  # (the core layer's, as above)
                cl.reserve_core_layer_name(sc.name)
                outputs = _nn().separable_conv2d(inputs, depthwise, pointwise, strides=strides,
                                                 padding=padding, rate=[rh, rw],
                                                 data_format=data_format)
            cl._core_layer_called()
        else:
            outputs = _nn().depthwise_conv2d(inputs, depthwise, strides=strides,
                                             padding=padding, rate=[rh, rw],
                                             data_format=data_format)
            # depthwise only: TF makes the biases after the convolution
            biases = cl._make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                                     in_ch * depth_multiplier, dtype, variables_collections,
                                     trainable, bias_name=None)
        outputs = cl._finish(outputs, normalizer_fn, normalizer_params, biases, activation_fn,
                             data_format, sc.original_name_scope if core else None)
        return cl._collect_outputs(outputs_collections, sc.name, outputs)


def _layer_name(layer):
    if hasattr(layer, "__name__"):
        return layer.__name__
    if hasattr(layer, "func") and hasattr(layer.func, "__name__"):  # functools.partial
        return layer.func.__name__
    return None


def repeat(inputs, repetitions, layer, *args, **kwargs):
    """Applies ``layer(outputs, *args, **kwargs)`` ``repetitions`` times, the i-th call under
    the scope ``<scope>_<i>`` inside ``scope`` (default: the layer function's name)."""
    scope = kwargs.pop("scope", None)
    with vs.variable_scope(scope, "Repeat", [inputs]):
        outputs = ops.convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer) or "repeat"
        for i in range(repetitions):
            kwargs["scope"] = f"{scope}_{i + 1}"
            outputs = layer(outputs, *args, **kwargs)
        return outputs


def stack(inputs, layer, stack_args, **kwargs):
    """Applies ``layer`` once per entry of ``stack_args`` (a tuple entry is spread as
    positional arguments), the i-th call under the scope ``<scope>_<i>``."""
    scope = kwargs.pop("scope", None)
    if not isinstance(stack_args, (list, tuple)):
        raise ValueError("stack_args need to be a list or tuple")  # noqa: TRY004 - TF's class
    with vs.variable_scope(scope, "Stack", [inputs]):
        outputs = ops.convert_to_tensor(inputs)
        if scope is None:
            scope = _layer_name(layer) or "stack"
        for i, args in enumerate(stack_args):
            kwargs["scope"] = f"{scope}_{i + 1}"
            if isinstance(args, (list, tuple)):
                outputs = layer(outputs, *args, **kwargs)
            else:
                outputs = layer(outputs, args, **kwargs)
        return outputs


def unit_norm(inputs, dim, epsilon=1e-7, scope=None):
    """``inputs / sqrt(epsilon + sum(inputs ** 2, dim))``: unit length along ``dim``."""
    with vs.variable_scope(scope, "UnitNorm", [inputs]):
        from tideflow.ops import fill_ops, math_ops, pad_ops, slicing_ops

        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank is None:
            raise ValueError("The input rank must be known.")
        if dim < 0 or dim >= rank:
            raise ValueError("dim must be positive but smaller than the input rank.")
        lengths = unary_ops.sqrt(epsilon + reduction_ops.reduce_sum(unary_ops.square(inputs), dim,
                                                                    keepdims=True))
        # TF 1.15's ops: the lengths tiled back to the inputs' shape, then divided
        multiples = []
        if dim > 0:
            multiples.append(fill_ops.ones([dim], dtypes.int32))
        multiples.append(slicing_ops.strided_slice(array_ops.shape(inputs), [dim], [dim + 1]))
        if dim < rank - 1:
            multiples.append(fill_ops.ones([rank - 1 - dim], dtypes.int32))
        multiples = concat_ops.concat(multiples, 0)
        return math_ops.div(inputs, pad_ops.tile(lengths, multiples))


def softmax(logits, scope=None):
    """Softmax over the last dimension of ``logits`` of any rank >= 2."""
    with vs.variable_scope(scope, "softmax", [logits]):
        logits = ops.convert_to_tensor(logits)
        shape = logits.get_shape()
        # TF's utils.last_dimension(shape, min_rank=2) checks
        if shape.ndims is None:
            raise ValueError("dims of shape must be known but is None")
        if shape.ndims < 2:
            raise ValueError(f"rank of shape must be at least 2 not: {shape.ndims}")
        if shape[-1].value is None:
            raise ValueError(f"dimension -1 of shape must be known but is None: {shape}")
        # as TF 1.15: through a 2-D view and back, so the result is named <scope>/Reshape_1
        probs = _nn().softmax(array_ops.reshape(logits, [-1, shape[-1].value]))
        probs = array_ops.reshape(probs, array_ops.shape(logits))
        probs.set_shape(shape)
        return probs


def bias_add(inputs, activation_fn=None, initializer=cl._ZEROS, regularizer=None, reuse=None,
             variables_collections=None, outputs_collections=None, trainable=True,
             data_format="NHWC", scope=None):
    """Adds a ``biases`` variable over the channel dimension, then ``activation_fn``."""
    cl._check_format(data_format)
    with vs.variable_scope(scope, "BiasAdd", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        if shape.ndims is None or shape.ndims < 2:
            raise ValueError(f"Dims of shape must be known but is None or < 2: {shape}.")
        axis = 1 if (data_format == "NCHW" and shape.ndims > 2) else -1
        channels = shape[axis].value
        if channels is None:
            raise ValueError(f"bias_add: the channel dimension must be known, got {shape}.")
        biases = cl.model_variable(
            "biases", shape=[channels], dtype=inputs.dtype.base_dtype, initializer=initializer,
            regularizer=regularizer, trainable=trainable,
            collections=cl._collections(variables_collections, "biases"))
        fmt = data_format if shape.ndims > 2 else None
        outputs = _nn().bias_add(inputs, biases, data_format=fmt)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return cl._collect_outputs(outputs_collections, sc.name, outputs)


# ------------------------------------------------------------------------------------------
# slim.variables
# ------------------------------------------------------------------------------------------


def variable(name, shape=None, dtype=None, initializer=None, regularizer=None, trainable=True,
             collections=None, caching_device=None, device=None, partitioner=None,
             custom_getter=None, use_resource=None, synchronization=vs._SYNC_AUTO,
             aggregation=vs._AGG_NONE):
    """``get_variable`` filed in ``collections`` (default GLOBAL_VARIABLES), on ``device``."""
    del caching_device, use_resource, synchronization, aggregation
    colls = list(dict.fromkeys(collections or [ops.GraphKeys.GLOBAL_VARIABLES]))
    if dtype is not None:
        dtype = dtypes.as_dtype(dtype)
    elif not isinstance(initializer, ops.Tensor):
        dtype = dtypes.float32  # a tensor initializer gives its own dtype, as get_variable's
    with ops.device(device or ""):
        return vs.get_variable(name, shape=shape, dtype=dtype, initializer=initializer,
                               regularizer=regularizer, trainable=trainable, collections=colls,
                               partitioner=partitioner, custom_getter=custom_getter)


class VariableDeviceChooser:
    """A ``device`` function for ``slim.variable``/``model_variable`` (via ``arg_scope``):
    with ``num_tasks`` > 0 it places variables round-robin on ``/job:<job_name>/task:<i>``;
    otherwise on ``/device:<device_type>:<device_index>`` (optionally of ``replica``)."""

    def __init__(self, num_tasks=0, job_name="ps", device_type="CPU", device_index=0,
                 replica=None):
        self._job_name = job_name
        self._device_type = device_type
        self._device_index = device_index
        self._replica = replica
        self._num_tasks = num_tasks
        self._next_task_id = 0

    def __call__(self, op):
        from tideflow.framework.device import DeviceSpec

        spec = DeviceSpec(replica=self._replica, device_type=self._device_type,
                          device_index=self._device_index)
        if self._num_tasks > 0:
            task_id = self._next_task_id
            self._next_task_id = (self._next_task_id + 1) % self._num_tasks
            spec = DeviceSpec(job=self._job_name, replica=self._replica, task=task_id,
                              device_type=self._device_type, device_index=self._device_index)
        return spec.to_string()


def local_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in ``LOCAL_VARIABLES`` initialized to ``initial_value``."""
    del use_resource
    from tideflow.ops.variables import Variable

    return Variable(initial_value, trainable=False,
                    collections=[ops.GraphKeys.LOCAL_VARIABLES], validate_shape=validate_shape,
                    name=name)


def global_variable(initial_value, validate_shape=True, name=None, use_resource=None):
    """A non-trainable variable in ``GLOBAL_VARIABLES`` initialized to ``initial_value``."""
    del use_resource
    from tideflow.ops.variables import Variable

    return Variable(initial_value, trainable=False,
                    collections=[ops.GraphKeys.GLOBAL_VARIABLES], validate_shape=validate_shape,
                    name=name)


def _var_key(var):
    return var.op.name


def _names_to_vars(var_list):
    if isinstance(var_list, dict):
        return dict(var_list)
    out = {}
    for var in var_list:
        key = _var_key(var)
        if key in out:
            raise ValueError(f"Variable {key} appears twice in var_list.")
        out[key] = var
    return out


def assign_from_values(var_names_to_values):
    """``(assign_op, feed_dict)`` that sets each named model variable to its NumPy value."""
    feed_dict = {}
    assign_ops = []
    for name, value in var_names_to_values.items():
        matches = cl.get_variables(name)
        var = next((v for v in matches if v.op.name == name), None)
        if var is None:
            raise ValueError(f"Variable {name} wasn't found")
        value = np.asarray(value)
        placeholder = constant_op.placeholder(var.dtype.base_dtype, shape=value.shape,
                                            name="placeholder/" + name)
        assign_ops.append(state_ops.assign(var, placeholder))
        feed_dict[placeholder] = value.reshape(var.get_shape().as_list()
                                               if var.get_shape().is_fully_defined()
                                               else value.shape)
    from tideflow.ops import control_flow_ops

    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_values_fn(var_names_to_values):
    """A function ``fn(session)`` running ``assign_from_values``."""
    assign_op, feed_dict = assign_from_values(var_names_to_values)

    def callback(session):
        return session.run(assign_op, feed_dict)

    return callback


def filter_variables(var_list, include_patterns=None, exclude_patterns=None, reg_search=True):
    """The variables of ``var_list`` whose names match any ``include_patterns`` (all when
    None) and none of ``exclude_patterns``; patterns are regexes searched anywhere in the
    name (``re.search``), or matched from its start with ``reg_search=False``."""
    import re

    find = re.search if reg_search else re.match
    included = list(var_list) if include_patterns is None else [
        v for v in var_list if any(find(p, v.name) for p in include_patterns)]
    if exclude_patterns is None:
        return included
    return [v for v in included if not any(find(p, v.name) for p in exclude_patterns)]


def zero_initializer(ref, use_locking=True, name="zero_initializer"):
    """TF 1.15's ZeroInitializer op: zeros into the variable ``ref`` (of its static shape)
    when it has never been set; running it on an initialized variable fails with 'input is
    already initialized'."""
    del use_locking
    if hasattr(ref, "_ref"):
        ref = ref._ref()
    return ops.apply_op("ZeroInitializer", [ref], name=name)._outputs[0]


def get_variable_full_name(var):
    """The checkpoint name of ``var``: its op name, or for a slice of a partitioned variable
    the whole variable's name (the same for every part)."""
    info = getattr(var, "_save_slice_info", None)
    return info.full_name if info else var.op.name


def assign_from_checkpoint(model_path, var_list, ignore_missing_vars=False):
    """``(assign_op, feed_dict)`` loading ``var_list`` from the checkpoint at ``model_path``:
    a list of variables (keyed by their full names, partitions grouped) or a dict from a
    checkpoint name to a variable or a list of variables (each part of a partitioned variable
    gets its slice of the saved tensor)."""
    from tideflow.ops import control_flow_ops
    from tideflow.train import checkpoint_utils

    grouped = {}
    if isinstance(var_list, (tuple, list)):
        for var in var_list:
            grouped.setdefault(get_variable_full_name(var), []).append(var)
    else:
        for ckpt_name, value in var_list.items():
            grouped[ckpt_name] = list(value) if isinstance(value, (tuple, list)) else [value]
    reader = checkpoint_utils.load_checkpoint(model_path)
    feed_dict = {}
    assign_ops = []
    for ckpt_name, variables_ in grouped.items():
        if not reader.has_tensor(ckpt_name):
            if ignore_missing_vars:
                from tideflow import logging

                logging.warning("Checkpoint is missing variable [%s]", ckpt_name)
                continue
            raise ValueError(f"Checkpoint is missing variable [{ckpt_name}]")
        value = reader.get_tensor(ckpt_name)
        for var in variables_:
            placeholder = constant_op.placeholder(var.dtype.base_dtype, shape=var.get_shape(),
                                                name="placeholder/" + var.op.name)
            assign_ops.append(state_ops.assign(var, placeholder))
            info = getattr(var, "_save_slice_info", None)
            if info:
                index = tuple(slice(start, start + size)
                              for start, size in zip(info.var_offset, info.var_shape,
                                                     strict=True))
                feed_dict[placeholder] = value[index].reshape(info.var_shape)
            else:
                if var.get_shape().is_fully_defined() and \
                        tuple(var.get_shape().as_list()) != tuple(value.shape):
                    raise ValueError(
                        f"Total size of new array must be unchanged for {ckpt_name} "
                        f"lh_shape: [{value.shape}], rh_shape: [{var.get_shape()}]")
                feed_dict[placeholder] = value
    return control_flow_ops.group(*assign_ops), feed_dict


def assign_from_checkpoint_fn(model_path, var_list, ignore_missing_vars=False,
                              reshape_variables=False):
    """A function ``fn(session)`` restoring ``var_list`` from ``model_path`` with a Saver
    (missing variables skipped, with a warning, when ``ignore_missing_vars``)."""
    from tideflow import logging
    from tideflow.train import checkpoint_utils
    from tideflow.train.saver import Saver

    if not var_list:
        raise ValueError("var_list cannot be empty")
    names = _names_to_vars(var_list)
    if ignore_missing_vars:
        reader = checkpoint_utils.load_checkpoint(model_path)
        kept = {}
        for name, var in names.items():
            if reader.has_tensor(name):
                kept[name] = var
            else:
                logging.warning("Variable %s missing in checkpoint %s", name, model_path)
        names = kept
    if not names:
        logging.warning("No Variables to restore")
        return None
    # as TF 1.15, a list goes to the Saver as it is, which keys the parts of a partitioned
    # variable by its full name (so they restore from any partitioning)
    to_save = names if ignore_missing_vars or isinstance(var_list, dict) else list(var_list)
    saver = Saver(to_save, reshape=reshape_variables)

    def callback(session):
        saver.restore(session, model_path)

    return callback


# ------------------------------------------------------------------------------------------
# optimize_loss
# ------------------------------------------------------------------------------------------

class _OptimizerNames(collections.abc.MutableMapping):
    """TF's ``OPTIMIZER_CLS_NAMES`` dict (name -> optimizer class or ``fn(learning_rate)``),
    filled on first use: the optimizers live in ``tideflow.train``, a layer below this one."""

    def __init__(self):
        self._table = None

    def _classes(self):
        if self._table is None:
            from tideflow import train

            self._table = {
                "Adagrad": train.AdagradOptimizer, "Adam": train.AdamOptimizer,
                "Ftrl": train.FtrlOptimizer,
                "Momentum": functools.partial(train.MomentumOptimizer, momentum=0.9),
                "RMSProp": train.RMSPropOptimizer, "SGD": train.GradientDescentOptimizer}
        return self._table

    def __getitem__(self, name):
        return self._classes()[name]

    def __setitem__(self, name, cls):
        self._classes()[name] = cls

    def __delitem__(self, name):
        del self._classes()[name]

    def __iter__(self):
        return iter(self._classes())

    def __len__(self):
        return len(self._classes())

    def __repr__(self):
        return repr(self._classes())


OPTIMIZER_CLS_NAMES = _OptimizerNames()
OPTIMIZER_SUMMARIES = ["learning_rate", "loss", "gradients", "gradient_norm",
                       "global_gradient_norm"]


def _multiply_gradients(grads_and_vars, gradient_multipliers):
    """Each gradient whose variable (or its tensor name, 'w:0') has a multiplier, times it:
    a dense gradient's multiplier cast to its dtype, an IndexedSlices' values as given (as
    TF 1.15's optimize_loss; an op name such as 'w' is slim's key, not this one's)."""
    from tideflow.ops import cast_ops

    out = []
    for grad, var in grads_and_vars:
        key = next((k for k in (var, var.name) if k in gradient_multipliers), None)
        if grad is not None and key is not None:
            multiplier = gradient_multipliers[key]
            if isinstance(grad, ops.IndexedSlices):
                grad = ops.IndexedSlices(grad.values * multiplier, grad.indices,
                                         grad.dense_shape)
            else:
                grad = grad * cast_ops.cast(multiplier, grad.dtype)
        out.append((grad, var))
    return out


def optimize_loss(loss, global_step, learning_rate, optimizer, gradient_noise_scale=None,
                  gradient_multipliers=None, clip_gradients=None, learning_rate_decay_fn=None,
                  update_ops=None, variables=None, name=None, summaries=None,
                  colocate_gradients_with_ops=False, increment_global_step=True):
    """Builds a training op: the optimizer (a name of ``OPTIMIZER_CLS_NAMES``, a class, an
    instance or ``fn(lr)``), optional gradient clipping (a norm or a function), noise and
    multipliers, with the ``UPDATE_OPS`` run first; returns ``loss`` after the update."""
    from tideflow import summary, train
    from tideflow.ops import clip_ops, control_flow_ops, random_ops

    loss = ops.convert_to_tensor(loss)
    if global_step is None:
        global_step = train.get_global_step()
    elif not global_step.dtype.base_dtype.is_integer:
        raise TypeError(f'Existing "global_step" does not have integer type: '
                        f"{global_step.dtype}")
    with vs.variable_scope(name, "OptimizeLoss", [loss, global_step]):
        if update_ops is None:
            update_ops = set(ops.get_collection(ops.GraphKeys.UPDATE_OPS))
        if update_ops:
            with ops.control_dependencies(list(update_ops)):
                loss = control_flow_ops.with_dependencies(list(update_ops), loss)
        lr = None
        if learning_rate is not None:
            # as TF 1.15: a scalar Tensor or a Python float (not an int, not a Variable)
            if isinstance(learning_rate, ops.Tensor) and learning_rate.get_shape().ndims == 0:
                lr = learning_rate
            elif isinstance(learning_rate, float):
                if learning_rate < 0.0:
                    # TF 1.15's (its arguments as given: the message is the pair)
                    raise ValueError("Invalid learning_rate %s.", learning_rate)
                lr = vs.get_variable("learning_rate", [], trainable=False,
                                     initializer=init_ops.constant_initializer(learning_rate))
            else:
                raise ValueError("Learning rate should be 0d Tensor or float. Got "
                                 f"{learning_rate} of type {type(learning_rate)}")
        # TF's default: the loss, the (decayed) learning rate and the global gradient norm
        summaries = (["loss", "learning_rate", "global_gradient_norm"] if summaries is None
                     else summaries)
        for s in summaries:
            if s not in OPTIMIZER_SUMMARIES:
                raise ValueError(f"Summaries should be one of [{', '.join(OPTIMIZER_SUMMARIES)}]"
                                 f", you provided {s}.")
        if learning_rate is not None and learning_rate_decay_fn is not None:
            if global_step is None:
                raise ValueError("global_step is required for learning_rate_decay_fn.")
            lr = learning_rate_decay_fn(lr, global_step)
            if "learning_rate" in summaries:
                summary.scalar("learning_rate", lr)

        if isinstance(optimizer, str):
            if lr is None:
                raise ValueError(f"Learning rate is None, but should be specified if optimizer "
                                 f"is string ({optimizer}).")
            if optimizer not in OPTIMIZER_CLS_NAMES:
                raise ValueError(f"Optimizer name should be one of "
                                 f"[{', '.join(OPTIMIZER_CLS_NAMES)}], you provided {optimizer}.")
            opt = OPTIMIZER_CLS_NAMES[optimizer](learning_rate=lr)
        elif isinstance(optimizer, type) and issubclass(optimizer, train.Optimizer):
            if lr is None:
                raise ValueError(f"Learning rate is None, but should be specified if optimizer "
                                 f"is class ({optimizer}).")
            opt = optimizer(learning_rate=lr)
        elif isinstance(optimizer, train.Optimizer):
            opt = optimizer
        elif callable(optimizer):
            opt = optimizer(lr) if learning_rate is not None else optimizer()
            if not isinstance(opt, train.Optimizer):
                raise ValueError(  # noqa: TRY004 - TF raises ValueError
                    f"Unrecognized optimizer: function should return subclass of "
                                 f"Optimizer. Got {opt}.")
        else:
            raise ValueError(  # noqa: TRY004 - TF raises ValueError
                f"Unrecognized optimizer: should be string, subclass of Optimizer, "
                             f"instance of subclass of Optimizer or function with one argument. "
                             f"Got {optimizer}.")

        if variables is None:
            variables = ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)
        grads_and_vars = opt.compute_gradients(
            loss, variables, colocate_gradients_with_ops=colocate_gradients_with_ops)
        if gradient_noise_scale is not None:
            noisy = []
            for g, v in grads_and_vars:
                if g is not None:
                    # as TF 1.15: noise of the variable's full shape (an IndexedSlices
                    # gradient's dense_shape; a dense one's static shape), and the sum dense
                    shape = g.dense_shape if isinstance(g, ops.IndexedSlices) else g.get_shape()
                    noise = random_ops.truncated_normal(shape) * gradient_noise_scale
                    g = g + noise
                noisy.append((g, v))
            grads_and_vars = noisy
        if gradient_multipliers is not None:
            grads_and_vars = _multiply_gradients(grads_and_vars, gradient_multipliers)
        if "global_gradient_norm" in summaries or "gradient_norm" in summaries:
            summary.scalar("global_norm/gradient_norm",
                           clip_ops.global_norm([g for g, _ in grads_and_vars if g is not None]))
        if isinstance(clip_gradients, float):  # (TF 1.15 refuses an int: "Unknown type")
            gs, vs_ = zip(*[(g, v) for g, v in grads_and_vars if g is not None], strict=True)
            clipped, _ = clip_ops.clip_by_global_norm(list(gs), clip_gradients)
            grads_and_vars = list(zip(clipped, vs_, strict=True))
        elif callable(clip_gradients):
            grads_and_vars = clip_gradients(grads_and_vars)
        elif clip_gradients is not None:
            raise ValueError(f"Unknown type {type(clip_gradients)} for clip_gradients")
        if "loss" in summaries:
            summary.scalar("loss", loss)
        for g, v in grads_and_vars:
            if g is None:
                continue
            values = g.values if hasattr(g, "indices") else g
            var_name = v.name.replace(":", "_")  # TF's tags: gradients/w_0
            if "gradients" in summaries:
                summary.histogram("gradients/" + var_name, values)
            if "gradient_norm" in summaries:
                summary.scalar("gradient_norm/" + var_name, clip_ops.global_norm([values]))
        if clip_gradients is not None and ("global_gradient_norm" in summaries
                                           or "gradient_norm" in summaries):
            summary.scalar("global_norm/clipped_gradient_norm",
                           clip_ops.global_norm([g for g, _ in grads_and_vars]))
        grad_updates = opt.apply_gradients(
            grads_and_vars, global_step=global_step if increment_global_step else None,
            name="train")
        return control_flow_ops.with_dependencies([grad_updates], loss)


def _adaptive_max_norm(norm, std_factor, decay, global_step, epsilon, name):
    """Moving averages of log(norm) and its square (variables ``AdaptiveMaxNorm/mean`` and
    ``sq_mean``); returns ``exp(mean + std_factor * std)`` and the updated mean."""
    from tideflow import math as tfmath
    from tideflow.ops import cast_ops
    from tideflow.train.moving_averages import assign_moving_average

    with vs.variable_scope(name, "AdaptiveMaxNorm", [norm]):
        log_norm = tfmath.log(norm + epsilon)

        def average(var_name, value, rate):
            var = vs.get_variable(var_name, shape=value.get_shape(), dtype=value.dtype,
                                  initializer=init_ops.zeros_initializer(), trainable=False)
            return assign_moving_average(var, value, rate, zero_debias=False)

        if global_step is not None:  # adapt faster over the first steps
            n = cast_ops.cast(global_step, dtypes.float32)
            decay = tfmath.minimum(decay, n / (n + 1.0))
        mean = average("mean", log_norm, decay)
        sq_mean = average("sq_mean", tfmath.square(log_norm), decay)
        std = tfmath.sqrt(tfmath.maximum(epsilon, sq_mean - tfmath.square(mean)))
        return tfmath.exp(mean + std_factor * std), mean


def adaptive_clipping_fn(std_factor=2.0, decay=0.95, static_max_norm=None, global_step=None,
                         report_summary=False, epsilon=1e-8, name=None):
    """A ``clip_gradients`` function for ``optimize_loss`` that adapts the clipping norm:
    it tracks the mean and std of log(global gradient norm), and when the norm exceeds
    ``exp(mean + std_factor * std)`` rescales every gradient so the global norm becomes
    ``exp(mean)`` (also capped by ``static_max_norm`` when given)."""
    from tideflow import math as tfmath
    from tideflow import summary
    from tideflow.ops import clip_ops

    def gradient_clipping(grads_and_vars):
        grads, variables_ = zip(*grads_and_vars, strict=True)
        norm = clip_ops.global_norm(grads)
        max_norm, log_mean = _adaptive_max_norm(norm, std_factor, decay, global_step,
                                                epsilon, name)
        if report_summary:
            summary.scalar("global_norm/adaptive_max_gradient_norm", max_norm)
        factor = array_ops.where(norm < max_norm, array_ops.ones_like(norm),
                                 tfmath.exp(log_mean) / norm)
        if static_max_norm is not None:
            factor = tfmath.minimum(static_max_norm / norm, factor)
        clipped = []
        for grad in grads:
            if grad is None:
                clipped.append(None)
            elif isinstance(grad, ops.IndexedSlices):
                clipped.append(ops.IndexedSlices(grad.values * factor, grad.indices,
                                                 grad.dense_shape))
            else:
                clipped.append(grad * factor)
        return list(zip(clipped, variables_, strict=True))

    return gradient_clipping


convolution2d_transpose = conv2d_transpose = cl.add_arg_scope(convolution2d_transpose)
separable_convolution2d = separable_conv2d = cl.add_arg_scope(separable_convolution2d)
repeat = cl.add_arg_scope(repeat)
stack = cl.add_arg_scope(stack)
unit_norm = cl.add_arg_scope(unit_norm)
softmax = cl.add_arg_scope(softmax)
bias_add = cl.add_arg_scope(bias_add)
variable = cl.add_arg_scope(variable)
linear = functools.partial(cl.fully_connected, activation_fn=None)
relu = functools.partial(cl.fully_connected, activation_fn=lambda x: _nn().relu(x))
relu6 = functools.partial(cl.fully_connected, activation_fn=lambda x: _nn().relu6(x))

__all__ = ["OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES", "assign_from_checkpoint",
           "assign_from_checkpoint_fn", "assign_from_values", "assign_from_values_fn",
           "bias_add", "conv2d_transpose", "convolution2d_transpose", "global_variable",
           "linear", "local_variable", "optimize_loss", "relu", "relu6", "repeat",
           "separable_conv2d", "separable_convolution2d", "softmax", "stack", "unit_norm",
           "variable"]
