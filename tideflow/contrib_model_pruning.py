"""``tf.contrib.model_pruning``: magnitude pruning (Zhu & Gupta, 2017) as TF 1.15 does it: a
``mask`` and a ``threshold`` variable beside each pruned weight, a gradual sparsity schedule,
and mask updates (element-wise or by pooled blocks) every ``pruning_frequency`` steps."""

import re

import numpy as np

from tideflow import logging
from tideflow.framework import dtypes, graph_util_impl, ops, tensor_util
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    control_flow_ops,
    conv_ops,
    init_ops,
    linalg_ops,
    math_ops,
    nn_impl,
    pooling_ops,
    rnn_cell_impl,
    state_ops,
    variable_scope,
)
from tideflow.ops import contrib_layers as _layers
from tideflow.ops.layer_initializers import xavier_initializer
from tideflow.ops.partitioned_variables import PartitionedVariable
from tideflow.summary import summary
from tideflow.train import training_util
from tideflow.train.hparams import HParams

MASK_COLLECTION = "masks"
THRESHOLD_COLLECTION = "thresholds"
MASKED_WEIGHT_COLLECTION = "masked_weights"
WEIGHT_COLLECTION = "kernel"
# made in the weights' name scope, where the quantization rewrites look for it
MASKED_WEIGHT_NAME = "weights/masked_weight"


# -- the variables and collections ------------------------------------------------------
def weight_mask_variable(var, scope):
    """The all-ones ``mask`` variable, shaped as ``var``, under variable scope ``scope``."""
    with variable_scope.variable_scope(scope):
        return variable_scope.get_variable("mask", var.get_shape(),
                                           initializer=init_ops.ones_initializer(),
                                           trainable=False, dtype=var.dtype)


def weight_threshold_variable(var, scope):
    """The scalar ``threshold`` variable (0 at first) under variable scope ``scope``."""
    with variable_scope.variable_scope(scope):
        return variable_scope.get_variable("threshold", [],
                                           initializer=init_ops.zeros_initializer(),
                                           trainable=False, dtype=var.dtype)


def _register(mask, masked_weights, threshold, weights):
    ops.add_to_collection(MASK_COLLECTION, mask)
    ops.add_to_collection(MASKED_WEIGHT_COLLECTION, masked_weights)
    ops.add_to_collection(THRESHOLD_COLLECTION, threshold)
    ops.add_to_collection(WEIGHT_COLLECTION, weights)


def apply_mask(x, scope=""):
    """``mask * x``, the mask and threshold made under variable scope ``scope`` and the four
    filed in the pruning collections (once per mask)."""
    mask = weight_mask_variable(x, scope)
    threshold = weight_threshold_variable(x, scope)
    masked_weights = math_ops.multiply(mask, x, MASKED_WEIGHT_NAME)
    if not any(mask is m for m in ops.get_collection_ref(MASK_COLLECTION)):
        ops.add_to_collection(THRESHOLD_COLLECTION, threshold)
        ops.add_to_collection(MASK_COLLECTION, mask)
        ops.add_to_collection(MASKED_WEIGHT_COLLECTION, masked_weights)
        ops.add_to_collection(WEIGHT_COLLECTION, x)
    return masked_weights


def get_masked_weights():
    return ops.get_collection(MASKED_WEIGHT_COLLECTION)


def get_masks():
    return ops.get_collection(MASK_COLLECTION)


def get_thresholds():
    return ops.get_collection(THRESHOLD_COLLECTION)


def get_weights():
    return ops.get_collection(WEIGHT_COLLECTION)


def get_weight_sparsity():
    """The fraction of zeros of each mask."""
    return [nn_impl.zero_fraction(mask) for mask in get_masks()]


def get_pruning_hparams():
    """The pruning hyperparameters with TF 1.15's defaults. The sparsity at a step is
    ``target + (initial - target) * (1 - p) ** exponent``, ``p`` the clipped fraction of
    ``[sparsity_function_begin_step, sparsity_function_end_step]`` passed."""
    return HParams(name="model_pruning", begin_pruning_step=0, end_pruning_step=-1,
                   weight_sparsity_map=[""], block_dims_map=[""], threshold_decay=0.0,
                   pruning_frequency=10, nbins=256, block_height=1, block_width=1,
                   block_pooling_function="AVG", initial_sparsity=0.0, target_sparsity=0.5,
                   sparsity_function_begin_step=0, sparsity_function_end_step=100,
                   sparsity_function_exponent=3.0, use_tpu=False)


# -- pruning_utils ----------------------------------------------------------------------------
def kronecker_product(mat1, mat2):
    """The Kronecker product of two matrices of static shapes."""
    m1, n1 = mat1.get_shape().as_list()
    m2, n2 = mat2.get_shape().as_list()
    product = (array_ops.reshape(mat1, [m1, 1, n1, 1])
               * array_ops.reshape(mat2, [1, m2, 1, n2]))
    return array_ops.reshape(product, [m1 * m2, n1 * n2])


def expand_tensor(tensor, block_dims):
    """A rank-2 ``tensor`` with each entry repeated over a ``block_dims`` block (its
    Kronecker product with a block of ones)."""
    if tensor.get_shape().ndims != 2:
        raise ValueError("Input tensor must be rank 2")
    if len(block_dims) != 2:
        raise ValueError("block_dims must have 2 elements")
    height, width = tensor.get_shape().as_list()
    block_height, block_width = (int(d) for d in block_dims)
    out = tensor
    if block_height > 1 or block_width > 1:
        ones = array_ops.ones([1, max(block_height, 1), 1, max(block_width, 1)],
                              dtype=tensor.dtype)
        out = array_ops.reshape(array_ops.reshape(tensor, [height, 1, width, 1]) * ones,
                                [height * max(block_height, 1), width * max(block_width, 1)])
    return out


def factorized_pool(input_tensor, window_shape, pooling_type, strides, padding, name=None):
    """An ``m x n`` pooling of a rank-2 tensor as a ``1 x m`` then a ``1 x n`` pooling."""
    if input_tensor.get_shape().ndims != 2:
        raise ValueError("factorized_pool() accepts tensors of rank 2 only")
    height, width = input_tensor.get_shape().as_list()
    with ops.name_scope(name, "factorized_pool"):
        aligned = array_ops.reshape(input_tensor, [1, 1, height, width],
                                    name=input_tensor.op.name + "_aligned")
        rows = pooling_ops.pool(aligned, window_shape=[1, window_shape[0]],
                                pooling_type=pooling_type, strides=[1, strides[0]],
                                padding=padding)
        swapped = array_ops.transpose(rows, perm=[0, 1, 3, 2])
        cols = pooling_ops.pool(swapped, window_shape=[1, window_shape[1]],
                                pooling_type=pooling_type, strides=[1, strides[1]],
                                padding=padding)
    return array_ops.squeeze(array_ops.transpose(cols, perm=[0, 1, 3, 2]), axis=[0, 1])


def determine_partitioned_axis(partitioned_variable):
    axis = 0
    full_shape = partitioned_variable.get_shape()
    for partition in partitioned_variable:
        smaller = np.less(partition.get_shape().as_list(), full_shape.as_list())
        if np.count_nonzero(smaller) != 1:
            raise ValueError(f"Number of partitioned axes {np.count_nonzero(smaller)} not "
                             f"equal to 1")
        axis = int(np.where(smaller)[0][0])
    return axis


def variable_assign(var, new_value):
    return state_ops.assign(var, new_value, name=var.op.name + "_assign")


def partitioned_variable_assign(partitioned_var, new_value):
    """One assign per slice of ``partitioned_var``, grouped."""
    parts = list(partitioned_var)
    axis = 0 if len(parts) == 1 else determine_partitioned_axis(partitioned_var)
    sizes = [p.get_shape().as_list()[axis] for p in parts]
    values = concat_ops.split(new_value, ops.convert_to_tensor(np.array(sizes, np.int32)),
                              axis=axis)
    assigns = [variable_assign(p, v) for p, v in zip(parts, values, strict=True)]
    return control_flow_ops.group(*assigns, name=partitioned_var.name + "_group_assign")


# -- the pruning schedule and mask updates ------------------------------------------------
class Pruning:
    """The pruning of every weight in the pruning collections by ``spec`` (an HParams from
    ``get_pruning_hparams``), its sparsity from the spec's schedule unless ``sparsity`` (a
    scalar tensor) is given."""

    def __init__(self, spec=None, global_step=None, sparsity=None):
        self._spec = spec if spec else get_pruning_hparams()
        self._validate_spec()
        self._global_step = self._setup_global_step(global_step)
        self._sparsity = sparsity if sparsity is not None else self._setup_sparsity()
        self._assign_ops = []
        self._last_update_step = self._setup_last_update_step()
        self._block_dims = [self._spec.block_height, self._spec.block_width]
        self._block_pooling_function = self._spec.block_pooling_function
        self._block_dims_map = self._get_block_dims_map()
        self._weight_sparsity_map = self._get_weight_sparsity_map()

    def _validate_spec(self):
        spec = self._spec
        if spec.begin_pruning_step < 0:
            raise ValueError("Illegal value for begin_pruning_step")
        if spec.begin_pruning_step >= spec.end_pruning_step and spec.end_pruning_step != -1:
            # TF's words, its missing spaces included
            raise ValueError(f"Pruning must begin before it can end. "
                             f"begin_step={spec.begin_pruning_step}, "
                             f"end_step={spec.end_pruning_step}.Set end_pruning_step to -1 if "
                             f"pruning is required till trainingstops")
        if spec.sparsity_function_begin_step < 0:
            raise ValueError("Illegal value for sparsity_function_begin_step")
        if spec.sparsity_function_begin_step >= spec.sparsity_function_end_step:
            raise ValueError("Sparsity function requires begin_step < end_step")
        if not 0.0 <= spec.threshold_decay < 1.0:
            raise ValueError("threshold_decay must be in range [0,1)")
        if not 0.0 <= spec.initial_sparsity < 1.0:
            raise ValueError("initial_sparsity must be in range [0,1)")
        if not 0.0 <= spec.target_sparsity < 1.0:
            raise ValueError("target_sparsity must be in range [0,1)")

    def _setup_global_step(self, global_step):
        if global_step is None:
            global_step = training_util.get_global_step()
        return cast_ops.cast(global_step, dtypes.int32)

    def _setup_sparsity(self):
        spec = self._spec
        begin, end = spec.sparsity_function_begin_step, spec.sparsity_function_end_step
        with ops.name_scope(spec.name):
            p = math_ops.minimum(1.0, math_ops.maximum(0.0, math_ops.div(
                cast_ops.cast(self._global_step - begin, dtypes.float32), end - begin)))
            return math_ops.add(
                math_ops.multiply(spec.initial_sparsity - spec.target_sparsity,
                                  math_ops.pow(1 - p, spec.sparsity_function_exponent)),
                spec.target_sparsity, name="sparsity")

    def _setup_last_update_step(self):
        with variable_scope.variable_scope(self._spec.name,
                                           use_resource=self._spec.use_tpu) as scope:
            try:
                return variable_scope.get_variable(
                    "last_mask_update_step", [], initializer=init_ops.zeros_initializer(),
                    trainable=False, dtype=dtypes.int32)
            except ValueError:
                scope.reuse_variables()
                return variable_scope.get_variable("last_mask_update_step",
                                                   dtype=dtypes.int32)

    def _get_block_dims_map(self):
        block_dims_map = {}
        for value in (v for v in self._spec.block_dims_map if v):
            weight_name, dims = value.split(":")
            dims = dims.split("x")
            if len(dims) != 2:
                raise ValueError(f"Expected 2 values for block dim for {weight_name}, got "
                                 f"{dims}")
            block_dims_map[re.compile(weight_name)] = [int(dims[0]), int(dims[1])]
        return block_dims_map

    def _get_block_dims(self, weight_name):
        found = [d for r, d in self._block_dims_map.items() if r.search(weight_name)]
        if not found:
            return list(self._block_dims)
        if len(found) > 1:
            raise ValueError(f"Multiple matches in block_dims_map for weight {weight_name}")
        return list(found[0])

    def _get_weight_sparsity_map(self):
        weight_sparsity_map = {}
        for value in (v for v in self._spec.weight_sparsity_map if v):
            weight_name, sparsity = value.split(":")
            if float(sparsity) >= 1.0:
                raise ValueError("Weight sparsity can not exceed 1.0")
            weight_sparsity_map[re.compile(weight_name)] = float(sparsity)
        return weight_sparsity_map

    def _get_sparsity(self, weight_name):
        found = [s for r, s in self._weight_sparsity_map.items() if r.search(weight_name)]
        if not found:
            return self._sparsity
        if len(found) > 1:
            raise ValueError(f"Multiple matches in weight_sparsity_map for weight "
                             f"{weight_name}")
        return math_ops.multiply(self._sparsity,
                                 math_ops.div(found[0], self._spec.target_sparsity))

    def _update_mask(self, weights, threshold):
        """``(the smoothed threshold, the new mask)``: the threshold below which the
        schedule's fraction of ``|weights|`` falls, averaged with ``threshold`` by the
        spec's decay; the mask is 1 where ``|weights|`` reaches it."""
        if self._sparsity is None:
            raise ValueError("Sparsity variable undefined")
        sparsity = self._get_sparsity(weights.op.name)
        with ops.name_scope(weights.op.name + "_pruning_ops"):
            abs_weights = math_ops.abs(weights)
            k = cast_ops.cast(math_ops.round(
                cast_ops.cast(array_ops.size(abs_weights), dtypes.float32) * (1 - sparsity)),
                dtypes.int32)
            values, _ = nn_impl.top_k(array_ops.reshape(abs_weights, [-1]),
                                      k=array_ops.size(abs_weights))
            current = array_ops.gather(values, k - 1)
            decay = self._spec.threshold_decay
            smoothed = math_ops.add_n([math_ops.multiply(current, 1 - decay),
                                       math_ops.multiply(threshold, decay)])
            new_mask = cast_ops.cast(math_ops.greater_equal(abs_weights, smoothed),
                                     dtypes.float32)
        return smoothed, new_mask

    def _maybe_update_block_mask(self, weights, threshold):
        """``_update_mask`` over pooled blocks of a (squeezed) rank-2 weight whose block
        dims are not ``[1, 1]``; element-wise otherwise."""
        block_dims = self._get_block_dims(weights.op.name)
        squeezed = array_ops.squeeze(weights)
        if squeezed.get_shape().ndims != 2 or block_dims == [1, 1]:
            return self._update_mask(weights, threshold)
        rows, cols = squeezed.get_shape().as_list()
        for i, full in enumerate((rows, cols)):
            if block_dims[i] == -1:
                block_dims[i] = full
        if self._block_pooling_function not in ("AVG", "MAX"):
            raise ValueError(f"Unknown pooling function for block sparsity: "
                             f"{self._block_pooling_function}")
        with ops.name_scope(weights.op.name + "_pruning_ops"):
            abs_weights = math_ops.abs(squeezed)
            if self._spec.use_tpu:
                pooled = factorized_pool(abs_weights, window_shape=block_dims,
                                         pooling_type=self._block_pooling_function,
                                         strides=block_dims, padding="SAME",
                                         name=weights.op.name + "_pooled")
            else:
                pooled = pooling_ops.pool(
                    array_ops.reshape(abs_weights, [1, rows, cols, 1]),
                    window_shape=block_dims, pooling_type=self._block_pooling_function,
                    strides=block_dims, padding="SAME", name=weights.op.name + "_pooled")
                if pooled.get_shape().ndims != 2:
                    pooled = array_ops.squeeze(pooled, axis=[0, 3])
            smoothed, new_mask = self._update_mask(pooled, threshold)
            expanded = expand_tensor(new_mask, block_dims)
            sliced = array_ops.slice(expanded, [0, 0], [rows, cols])
        return smoothed, array_ops.reshape(sliced, array_ops.shape(weights))

    def _get_mask_assign_ops(self):
        if self._assign_ops:
            raise ValueError("Assign op list not empty. _get_mask_assign_ops() called twice?")
        masks, weights, thresholds = get_masks(), get_weights(), get_thresholds()
        if len(masks) != len(thresholds):
            raise ValueError(f"Number of masks {len(masks)} and number of thresholds "
                             f"{len(thresholds)} mismatch")
        for index, mask in enumerate(masks):
            threshold, weight = thresholds[index], weights[index]
            partitioned = isinstance(weight, PartitionedVariable)
            if partitioned:
                weight = weight.as_tensor()
            new_threshold, new_mask = self._maybe_update_block_mask(weight, threshold)
            self._assign_ops.append(variable_assign(threshold, new_threshold))
            self._assign_ops.append(partitioned_variable_assign(mask, new_mask) if partitioned
                                    else variable_assign(mask, new_mask))

    def mask_update_op(self):
        """An op updating every mask and threshold now (and the last update step)."""
        with ops.name_scope(self._spec.name):
            if not self._assign_ops:
                self._get_mask_assign_ops()
            step = state_ops.assign(self._last_update_step, self._global_step,
                                    name="last_mask_update_step_assign")
            with ops.control_dependencies([step]), \
                    ops.control_dependencies(self._assign_ops):
                logging.info("Updating masks.")
                return control_flow_ops.no_op("mask_update")

    def conditional_mask_update_op(self):
        """``mask_update_op`` when the step is in ``[begin_pruning_step,
        end_pruning_step]`` and ``pruning_frequency`` steps have passed since the last
        update; a no-op otherwise."""
        spec = self._spec

        def should_update():
            with ops.name_scope(spec.name):
                in_range = math_ops.logical_and(
                    math_ops.greater_equal(self._global_step, spec.begin_pruning_step),
                    math_ops.logical_or(
                        math_ops.less_equal(self._global_step, spec.end_pruning_step),
                        math_ops.less(spec.end_pruning_step, 0)))
                due = math_ops.less_equal(
                    math_ops.add(self._last_update_step, spec.pruning_frequency),
                    self._global_step)
                return math_ops.logical_and(in_range, due)

        from tideflow.ops.cond import cond

        return cond(should_update(), self.mask_update_op, control_flow_ops.no_op)

    def add_pruning_summaries(self):
        """Scalar summaries of the sparsity, the last update step and each mask's sparsity
        and threshold."""
        with ops.name_scope(self._spec.name + "_summaries"):
            summary.scalar("sparsity", self._sparsity)
            summary.scalar("last_mask_update_step", self._last_update_step)
            for mask, threshold in zip(get_masks(), get_thresholds(), strict=False):
                summary.scalar(mask.op.name + "/sparsity", nn_impl.zero_fraction(mask))
                summary.scalar(threshold.op.name + "/threshold", threshold)

    def print_hparams(self):
        logging.info(self._spec.to_json())


# -- masked layers ----------------------------------------------------------------------------
def _masked_weights(scope, shape, dtype, initializer, regularizer, trainable, mask_first,
                    variables_collections):
    """The layer's ``mask``, ``weights`` and ``threshold`` model variables (the mask first
    for a convolution, after the weights for a dense layer, as TF's layers make them) and
    ``mask * weights``."""
    def mask():
        return _layers.model_variable("mask", shape=shape, dtype=dtype,
                                      initializer=init_ops.ones_initializer(),
                                      trainable=False)

    mask_var = mask() if mask_first else None
    weights = _layers._layer_variable(
        "weights", variables_collections, "weights", shape=shape, dtype=dtype,
        initializer=initializer, regularizer=_layers._layer_regularizer(regularizer, "kernel"),
        trainable=trainable)
    if mask_var is None:
        mask_var = mask()
    threshold = _layers.model_variable("threshold", shape=[], dtype=dtype,
                                       initializer=init_ops.zeros_initializer(),
                                       trainable=False)
    with ops.name_scope(scope.original_name_scope):
        masked = math_ops.multiply(mask_var, weights, MASKED_WEIGHT_NAME)
    _register(mask_var, masked, threshold, weights)
    return masked


def masked_convolution(inputs, num_outputs, kernel_size, stride=1, padding="SAME",
                       data_format=None, rate=1, activation_fn=nn_impl.relu,
                       normalizer_fn=None, normalizer_params=None,
                       weights_initializer=None, weights_regularizer=None,
                       biases_initializer=_layers._ZEROS,
                       biases_regularizer=None, reuse=None, variables_collections=None,
                       outputs_collections=None, trainable=True, scope=None):
    """``contrib.layers.conv2d`` over ``mask * weights`` (rank-4 inputs only, as TF's)."""
    if data_format not in (None, "NWC", "NCW", "NHWC", "NCHW", "NDHWC", "NCDHW"):
        raise ValueError(f"Invalid data_format: {data_format!r}")
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with variable_scope.variable_scope(scope, "Conv", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        rank = inputs.get_shape().ndims
        if rank != 4:
            raise ValueError("Sparse Convolution not supported for input with rank", rank)
        if data_format is None or data_format == "NHWC":
            data_format = "NHWC"
        elif data_format != "NCHW":
            raise ValueError("Unsupported data format", data_format)
        kh, kw = _layers._pair(kernel_size, "kernel_size")
        strides = _layers._pair(stride, "stride")
        rates = _layers._pair(rate, "rate")
        channel = inputs.get_shape()[1 if data_format == "NCHW" else -1].value
        if channel is None:
            raise ValueError("The channel dimension of the inputs should be defined. "
                             "Found `None`.")
        dtype = inputs.dtype.base_dtype
        masked = _masked_weights(sc, [kh, kw, channel, num_outputs], dtype,
                                 weights_initializer, weights_regularizer, trainable, True,
                                 variables_collections)
        biases = _layers._make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                                      num_outputs, dtype, variables_collections, trainable)
        with ops.name_scope(sc.original_name_scope):
            outputs = conv_ops.convolution(inputs, masked, padding=_layers._layer_padding(padding),
                                           strides=strides, dilation_rate=rates,
                                           data_format=data_format)
        outputs = _layers._finish(outputs, normalizer_fn, normalizer_params, biases,
                                  activation_fn, data_format, sc.original_name_scope)
        return _layers._collect_outputs(outputs_collections, sc.name, outputs)


masked_conv2d = masked_convolution


def masked_fully_connected(inputs, num_outputs, activation_fn=nn_impl.relu,
                           normalizer_fn=None, normalizer_params=None,
                           weights_initializer=None, weights_regularizer=None,
                           biases_initializer=_layers._ZEROS,
                           biases_regularizer=None, reuse=None, variables_collections=None,
                           outputs_collections=None, trainable=True, scope=None):
    """``contrib.layers.fully_connected`` over ``mask * weights``."""
    if not isinstance(num_outputs, int):
        raise ValueError(f"num_outputs should be int or long, got {num_outputs}.")  # noqa: TRY004 - as TF
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    with variable_scope.variable_scope(scope, "fully_connected", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        in_dim = shape[-1].value if shape.ndims is not None else None
        if in_dim is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")
        dtype = inputs.dtype.base_dtype
        masked = _masked_weights(sc, [in_dim, num_outputs], dtype, weights_initializer,
                                 weights_regularizer, trainable, False, variables_collections)
        biases = _layers._make_biases(normalizer_fn, biases_initializer, biases_regularizer,
                                      num_outputs, dtype, variables_collections, trainable)
        with ops.name_scope(sc.original_name_scope):
            if shape.ndims == 2:
                outputs = linalg_ops.matmul(inputs, masked)
            else:
                outputs = linalg_ops.tensordot(inputs, masked, [[shape.ndims - 1], [0]])
                outputs.set_shape(shape[:-1].concatenate([num_outputs]))
        outputs = _layers._finish(outputs, normalizer_fn, normalizer_params, biases,
                                  activation_fn, None, sc.original_name_scope)
        return _layers._collect_outputs(outputs_collections, sc.name, outputs)


class _MaskedCell:
    """Adds a ``mask`` and a ``threshold`` beside an LSTM cell's ``kernel`` and runs the cell
    on ``mask * kernel``."""

    def build(self, inputs_shape):
        super().build(inputs_shape)
        self.built = False
        depth = inputs_shape[1].value if hasattr(inputs_shape[1], "value") \
            else inputs_shape[1]
        units = self._num_units
        self._mask = self.add_weight("mask", shape=[depth + units, 4 * units],
                                     initializer=init_ops.ones_initializer(), trainable=False)
        self._threshold = self.add_weight("threshold", shape=[],
                                          initializer=init_ops.zeros_initializer(),
                                          trainable=False)
        self._unmasked_kernel = self._kernel
        self._masked_kernel = math_ops.multiply(self._mask, self._kernel, MASKED_WEIGHT_NAME)
        if not any(self._mask is m for m in ops.get_collection_ref(MASK_COLLECTION)):
            _register(self._mask, self._masked_kernel, self._threshold, self._kernel)
        self.built = True

    def call(self, inputs, state):
        self._kernel = self._masked_kernel
        try:
            return super().call(inputs, state)
        finally:
            self._kernel = self._unmasked_kernel


class MaskedBasicLSTMCell(_MaskedCell, rnn_cell_impl.BasicLSTMCell):
    """``BasicLSTMCell`` over ``mask * kernel``."""

    def __init__(self, num_units, forget_bias=1.0, state_is_tuple=True, activation=None,
                 reuse=None, name=None):
        super().__init__(num_units, forget_bias=forget_bias, state_is_tuple=state_is_tuple,
                         activation=activation, reuse=reuse, name=name)


class MaskedLSTMCell(_MaskedCell, rnn_cell_impl.LSTMCell):
    """``LSTMCell`` over ``mask * kernel``."""

    def __init__(self, num_units, use_peepholes=False, cell_clip=None, initializer=None,
                 num_proj=None, proj_clip=None, num_unit_shards=None, num_proj_shards=None,
                 forget_bias=1.0, state_is_tuple=True, activation=None, reuse=None):
        super().__init__(num_units, use_peepholes=use_peepholes, cell_clip=cell_clip,
                         initializer=initializer, num_proj=num_proj, proj_clip=proj_clip,
                         num_unit_shards=num_unit_shards, num_proj_shards=num_proj_shards,
                         forget_bias=forget_bias, state_is_tuple=state_is_tuple,
                         activation=activation, reuse=reuse)


# -- training and export ---------------------------------------------------------------------
def train(train_op, logdir, mask_update_op, train_step_fn=None, train_step_kwargs=None,
          log_every_n_steps=1, graph=None, master="", is_chief=True, global_step=None,
          number_of_steps=None, init_op=None, init_feed_dict=None, local_init_op=None,
          init_fn=None, ready_op=None, summary_op=None, save_summaries_secs=600,
          summary_writer=None, startup_delay_steps=0, saver=None, save_interval_secs=600,
          sync_optimizer=None, session_config=None, trace_every_n_steps=None):
    """``slim.learning.train`` running ``mask_update_op`` after every training step; the
    final loss. Arguments left None take slim's defaults."""
    from tideflow.train import slim_learning

    step_fn = train_step_fn or slim_learning.train_step

    def train_step_with_pruning_fn(sess, op, step, kwargs):
        total_loss, should_stop = step_fn(sess, op, step, kwargs)
        sess.run(mask_update_op)
        return total_loss, should_stop

    defaults = {"train_step_kwargs": train_step_kwargs, "init_op": init_op,
                "local_init_op": local_init_op, "ready_op": ready_op,
                "summary_op": summary_op, "summary_writer": summary_writer}
    given = {k: v for k, v in defaults.items() if v is not None}
    total_loss, _ = _split_result(slim_learning.train(
        train_op, logdir, train_step_fn=train_step_with_pruning_fn,
        log_every_n_steps=log_every_n_steps, graph=graph, master=master, is_chief=is_chief,
        global_step=global_step, number_of_steps=number_of_steps,
        init_feed_dict=init_feed_dict, init_fn=init_fn,
        save_summaries_secs=save_summaries_secs, startup_delay_steps=startup_delay_steps,
        saver=saver, save_interval_secs=save_interval_secs, sync_optimizer=sync_optimizer,
        session_config=session_config, trace_every_n_steps=trace_every_n_steps, **given))
    return total_loss


def _split_result(result):
    # slim's train returns the final loss; TF's pruning train unpacks a pair from it, which
    # only works as the loss is returned as a tuple-like value there: keep the loss
    if isinstance(result, tuple):
        return result
    return result, None


def strip_pruning_vars_fn(input_graph_def, output_node_names):
    """``input_graph_def`` (its variables already constants) with every ``masked_weight``
    node replaced by its value, pruned to what ``output_node_names`` need: no masks left."""
    from tideflow.framework import importer
    from tideflow.protos import graph_pb2
    from tideflow.runtime.session import Session

    masked = {}
    graph = ops.Graph()
    with graph.as_default():
        importer.import_graph_def(input_graph_def, name="")
        with Session(graph=graph) as sess:
            for node in input_graph_def.node:
                if "masked_weight" in node.name:
                    value = sess.run(graph.get_tensor_by_name(node.name + ":0"))
                    zeros = 100 - float(100 * np.count_nonzero(value)) / np.size(value)
                    logging.info("%s has %d values, %1.2f%% zeros \n", node.name,
                                 np.size(value), zeros)
                    masked[node.name] = value
    pruned = graph_pb2.GraphDef()
    for node in input_graph_def.node:
        out = pruned.node.add()
        if "masked_weight" in node.name:
            out.op = "Const"
            out.name = node.name
            out.attr["dtype"].CopyFrom(node.attr["T"])
            out.attr["value"].tensor.CopyFrom(tensor_util.make_tensor_proto(masked[node.name]))
        else:
            out.CopyFrom(node)
    return graph_util_impl.extract_sub_graph(pruned, output_node_names)


def graph_def_from_checkpoint(checkpoint_dir, output_node_names):
    """The latest checkpoint's graph with its variables as constants."""
    from tideflow.runtime.session import Session
    from tideflow.train import checkpoint_management, saver

    path = checkpoint_management.latest_checkpoint(checkpoint_dir)
    if path is None:
        raise ValueError(f"Could not find a checkpoint at: {checkpoint_dir}.")
    restorer = saver.import_meta_graph(path + ".meta", clear_devices=True)
    with Session() as sess:
        restorer.restore(sess, path)
        graph_def = ops.get_default_graph().as_graph_def()
        return graph_util_impl.convert_variables_to_constants(sess, graph_def,
                                                              output_node_names)


__all__ = ["MaskedBasicLSTMCell", "MaskedLSTMCell", "Pruning", "apply_mask",
           "get_masked_weights", "get_masks", "get_pruning_hparams", "get_thresholds",
           "get_weight_sparsity", "get_weights", "graph_def_from_checkpoint",
           "masked_conv2d", "masked_convolution", "masked_fully_connected",
           "strip_pruning_vars_fn", "train"]
