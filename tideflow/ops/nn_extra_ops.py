"""The rest of ``tf.nn``: swish, weighted moments, sparse embedding lookups, conv/pool
wrappers, the unigram and all-candidates samplers, loss scaling and ``tf.nn.experimental``'s
dropouts."""

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    conv_ops,
    embedding_ops,
    gather_ops,
    math_ops,
    nn_impl,
    philox,
    pooling_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.array_ops import _np

# ------------------------------------------------------------------------------------------
# activations, moments, losses
# ------------------------------------------------------------------------------------------


def silu(features, beta=1.0, name=None):
    """``features * sigmoid(beta * features)`` (TF 2's swish/silu, with ``beta``)."""
    with ops.name_scope(name, "swish", [features]):
        features = ops.convert_to_tensor(features, name="features")
        beta = ops.convert_to_tensor(beta, features.dtype, name="beta")
        return features * math_ops.sigmoid(beta * features)


def _swish_1(features):
    from tideflow.ops import misc_ops

    @misc_ops.custom_gradient
    def swish(features):
        features = ops.convert_to_tensor(features, name="features")

        def grad(dy):
            with ops.control_dependencies([dy]):
                sigmoid_features = math_ops.sigmoid(features)
            activation_grad = sigmoid_features * (1.0 + features * (1.0 - sigmoid_features))
            return dy * activation_grad

        return features * math_ops.sigmoid(features), grad

    return swish(features)


def swish(features, beta=1.0, name=None):
    """``features * sigmoid(features)``: as TF 1.15, a custom_gradient function (its ops
    Sigmoid, mul, Identity, IdentityN unscoped, its own gradient); with ``beta`` or ``name``
    (TF 2's arguments), ``silu``."""
    if name is None and isinstance(beta, (int, float)) and beta == 1.0:
        return _swish_1(features)
    return silu(features, beta, name)


def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The frequency-weighted mean and variance of ``x`` over ``axes``."""
    if keepdims is not None:
        if keep_dims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keep_dims = keepdims
    keep_dims = bool(keep_dims)
    with ops.name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = ops.convert_to_tensor(x, name="x")
        w = ops.convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16
        if needs_cast:
            x = cast_ops.cast(x, dtypes.float32)
        if w.dtype != x.dtype:
            w = cast_ops.cast(w, x.dtype)
        # TF 1.15's ops and names (the mean is not a stop_gradient here, unlike moments)
        weighted_sum = reduction_ops.reduce_sum(w * x, axes, name="weighted_input_sum",
                                                keepdims=True)
        broadcast_w = w + array_ops.zeros_like(x)
        sum_w = reduction_ops.reduce_sum(broadcast_w, axes, name="sum_of_weights",
                                         keepdims=True)
        divisor = unary_ops.reciprocal(sum_w, name="inv_weight_sum")
        mean = math_ops.multiply(weighted_sum, divisor)
        var = math_ops.multiply(reduction_ops.reduce_sum(
            w * math_ops.squared_difference(x, mean), axes, name="weighted_distsq",
            keepdims=True), divisor)
        if not keep_dims:
            mean = array_ops.squeeze(mean, axes)
            var = array_ops.squeeze(var, axes)
        if needs_cast:
            mean = cast_ops.cast(mean, dtypes.float16)
            var = cast_ops.cast(var, dtypes.float16)
        return mean, var


def batch_norm_with_global_normalization(t=None, m=None, v=None, beta=None, gamma=None,
                                         variance_epsilon=None, scale_after_normalization=None,
                                         name=None, input=None, mean=None, variance=None):
    """Batch normalization with given statistics (the old BatchNormWithGlobalNormalization):
    ``gamma`` applies only when ``scale_after_normalization``."""
    t = conv_ops._alias(t, input, "t", "input")
    m = conv_ops._alias(m, mean, "m", "mean")
    v = conv_ops._alias(v, variance, "v", "variance")
    # one scope, batch_normalization's own (batchnorm/add_1, as TF)
    return nn_impl.batch_normalization(t, m, v, beta,
                                       gamma if scale_after_normalization else None,
                                       variance_epsilon, name)


def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """The sum of (weighted) per-example losses divided by the global batch size (the first
    dimension's size unless given)."""
    with ops.name_scope(None, "compute_average_loss", [per_example_loss]):
        loss = ops.convert_to_tensor(per_example_loss, name="per_example_loss")
        if not loss.dtype.is_floating:
            raise TypeError(f"compute_average_loss: per_example_loss must be floating point, "
                            f"got {loss.dtype.name}")
        if sample_weight is not None:
            w = ops.convert_to_tensor(sample_weight, loss.dtype, name="sample_weight")
            wr = w.get_shape().ndims
            lr = loss.get_shape().ndims
            while wr is not None and lr is not None and wr < lr:
                w = array_ops.expand_dims(w, -1)
                wr += 1
            loss = loss * w
        if global_batch_size is None:
            global_batch_size = array_ops.shape(loss, out_type=dtypes.int64)[0]
        n = cast_ops.cast(ops.convert_to_tensor(global_batch_size), loss.dtype)
        zero = math_ops.equal(n, 0)  # an empty batch averages to 0, as TF's div_no_nan
        total = reduction_ops.reduce_sum(loss)
        return gather_ops.where(zero, array_ops.zeros_like(total),
                                total / gather_ops.where(zero, array_ops.ones_like(n), n))


def scale_regularization_loss(regularization_loss):
    """The summed regularization loss divided by the number of replicas (one here)."""
    with ops.name_scope(None, "scale_regularization_loss", [regularization_loss]):
        return reduction_ops.reduce_sum(ops.convert_to_tensor(regularization_loss))


# ------------------------------------------------------------------------------------------
# sparse embedding lookups
# ------------------------------------------------------------------------------------------


def embedding_lookup_sparse(params, sp_ids, sp_weights, partition_strategy="mod", name=None,
                            combiner=None, max_norm=None, allow_fast_lookup=False):
    """Per row of the SparseTensor ``sp_ids``, the combination (``"mean"``, ``"sqrtn"`` or
    ``"sum"``, optionally weighted by ``sp_weights``) of the embeddings of its ids; rows up to
    the last non-empty one."""
    del allow_fast_lookup
    from tideflow.ops import concat_ops, fill_ops, sparse_rows_ops

    if combiner is None:
        combiner = "mean"
    if combiner not in ("mean", "sqrtn", "sum"):
        raise ValueError("combiner must be one of 'mean', 'sqrtn' or 'sum'")  # (TF's words)
    if not isinstance(sp_ids, SparseTensor):  # (TF's words)
        raise TypeError("sp_ids must be SparseTensor")
    if sp_weights is not None:
        if not isinstance(sp_weights, SparseTensor):
            raise TypeError("sp_weights must be either None or SparseTensor")
        # as TF: the weights' parts must match the ids' statically
        for a, b in ((sp_ids.values, sp_weights.values), (sp_ids.indices, sp_weights.indices),
                     (sp_ids.dense_shape, sp_weights.dense_shape)):
            a.get_shape().assert_is_compatible_with(b.get_shape())
    if not isinstance(params, (list, tuple)) and not hasattr(params, "_get_variable_list"):
        params = [params]
    with ops.name_scope(name, "embedding_lookup_sparse", [sp_ids]) as scope:
        segment_ids = sp_ids.indices[:, 0]
        if segment_ids.dtype != dtypes.int32:
            segment_ids = cast_ops.cast(segment_ids, dtypes.int32)
        ids, idx = gather_ops.unique(sp_ids.values)
        embeddings = embedding_ops.embedding_lookup(params, ids,
                                                    partition_strategy=partition_strategy,
                                                    max_norm=max_norm)
        if embeddings.dtype in (dtypes.float16, dtypes.bfloat16):
            embeddings = cast_ops.cast(embeddings, dtypes.float32)
        if sp_weights is None:
            fn = {"sum": sparse_rows_ops.sparse_segment_sum,
                  "mean": sparse_rows_ops.sparse_segment_mean,
                  "sqrtn": sparse_rows_ops.sparse_segment_sqrt_n}[combiner]
            return fn(embeddings, idx, segment_ids, name=scope)
        weights = sp_weights.values
        if weights.dtype != embeddings.dtype:
            weights = cast_ops.cast(weights, embeddings.dtype)
        embeddings = gather_ops.gather(embeddings, idx)
        # the weights as [n, 1, ...]: broadcast over the embedding's trailing dimensions
        ones = fill_ops.fill(array_ops.expand_dims(array_ops.rank(embeddings) - 1, 0), 1)
        bcast_shape = concat_ops.concat([array_ops.shape(weights), ones], 0)
        weights_shape = weights.get_shape()
        weights = array_ops.reshape(weights, bcast_shape)
        if embeddings.get_shape().ndims is not None:
            weights.set_shape(weights_shape.concatenate(
                [1] * (embeddings.get_shape().ndims - 1)))
        embeddings = embeddings * weights
        if combiner == "sum":
            return reduction_ops.segment_sum(embeddings, segment_ids, name=scope)
        summed = reduction_ops.segment_sum(embeddings, segment_ids)
        if combiner == "mean":
            denom = reduction_ops.segment_sum(weights, segment_ids)
        else:
            denom = unary_ops.sqrt(reduction_ops.segment_sum(math_ops.pow(weights, 2),
                                                             segment_ids))
        return math_ops.div(summed, denom, name=scope)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner="mean", default_id=None, name=None,
                                 partition_strategy="div", max_norm=None,
                                 allow_fast_lookup=False):
    """:func:`embedding_lookup_sparse` that drops invalid ids (< 0) and non-positive weights
    and returns every row of ``sparse_ids``: empty rows get the ``default_id`` embedding, or
    zeros. ``sparse_ids`` of rank > 2 keep their leading dimensions."""
    del allow_fast_lookup
    from tideflow.ops import concat_ops, fill_ops, pad_ops, slicing_ops, sparse_ops, sparse_rows_ops

    if embedding_weights is None:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    if isinstance(embedding_weights, (list, tuple)) and not embedding_weights:
        raise ValueError(f"Missing embedding_weights {embedding_weights}.")
    from tideflow.ops.partitioned_variables import PartitionedVariable

    if isinstance(embedding_weights, PartitionedVariable):
        embedding_weights = list(embedding_weights)  # its parts, the shards
    weights_list = (list(embedding_weights) if isinstance(embedding_weights, (list, tuple))
                    else [embedding_weights])
    # as TF, the shards take the weights' dtype: a variable of that dtype stays a variable (its
    # gradient stays sparse), anything else converts (a float64 shard with float32 weights is a
    # ValueError)
    dtype = sparse_weights.dtype if sparse_weights is not None else None
    weights_list = [w if hasattr(w, "sparse_read") and dtype in (None, w.dtype.base_dtype)
                    else ops.convert_to_tensor(w, dtype=dtype) for w in weights_list]
    with ops.name_scope(name, "embedding_lookup", [sparse_ids]) as scope:
        # TF 1.15's ops, in its order: the ids flattened to 2-D, invalid ids (and for a
        # dividing combiner, non-positive weights) dropped, empty rows filled, combined, the
        # filled rows zeroed and the leading dimensions restored
        original_shape = sparse_ids.dense_shape
        rank_dim = original_shape.get_shape()[0].value if original_shape.get_shape().ndims \
            else None
        rank = array_ops.size(original_shape) if rank_dim is None else rank_dim
        sparse_ids = sparse_ops.sparse_reshape(sparse_ids, [
            reduction_ops.reduce_prod(slicing_ops.slice(original_shape, [0], [rank - 1])),
            gather_ops.gather(original_shape, rank - 1)])
        if sparse_weights is not None:
            sparse_weights = SparseTensor(sparse_ids.indices, sparse_weights.values,
                                          sparse_ids.dense_shape)
        valid = math_ops.greater_equal(sparse_ids.values, 0)
        if sparse_weights is not None:
            valid = math_ops.logical_and(valid, fill_ops.ones_like(sparse_weights.values,
                                                                   dtype=dtypes.bool))
        sparse_ids = sparse_rows_ops.sparse_retain(sparse_ids, valid)
        if sparse_weights is not None:
            sparse_weights = sparse_rows_ops.sparse_retain(sparse_weights, valid)
            if combiner != "sum":
                positive = math_ops.greater(sparse_weights.values, 0)
                sparse_ids = sparse_rows_ops.sparse_retain(sparse_ids, positive)
                sparse_weights = sparse_rows_ops.sparse_retain(sparse_weights, positive)
        sparse_ids, empty = sparse_rows_ops.sparse_fill_empty_rows(sparse_ids, default_id or 0)
        if sparse_weights is not None:
            sparse_weights, _ = sparse_rows_ops.sparse_fill_empty_rows(sparse_weights, 1.0)
        result = embedding_lookup_sparse(weights_list, sparse_ids, sparse_weights,
                                         combiner=combiner,
                                         partition_strategy=partition_strategy,
                                         name=None if default_id is None else scope,
                                         max_norm=max_norm)
        if default_id is None:
            empty = pad_ops.tile(array_ops.reshape(empty, [-1, 1]),
                                 array_ops.stack([1, array_ops.shape(result)[1]]))
            result = gather_ops.where(empty, fill_ops.zeros_like(result), result, name=scope)
        out = array_ops.reshape(result, concat_ops.concat([
            slicing_ops.slice(cast_ops.cast(original_shape, dtypes.int32), [0], [rank - 1]),
            slicing_ops.slice(array_ops.shape(result), [1], [-1])], 0))
        lead = None if rank_dim is None else [None] * (rank_dim - 1)
        out.set_shape(TensorShape(lead).concatenate(result.get_shape()[1:]))
        return out


def embedding_lookup_sparse_v2(params, sp_ids, sp_weights, combiner=None, max_norm=None,
                               name=None, allow_fast_lookup=False):
    """TF 2's ``embedding_lookup_sparse``: sharded ``params`` are 'div'-partitioned."""
    return embedding_lookup_sparse(params, sp_ids, sp_weights, "div", name, combiner, max_norm,
                                   allow_fast_lookup)


def safe_embedding_lookup_sparse_v2(embedding_weights, sparse_ids, sparse_weights=None,
                                    combiner="mean", default_id=None, max_norm=None, name=None,
                                    allow_fast_lookup=False):
    """TF 2's ``safe_embedding_lookup_sparse`` ('div'-partitioned shards)."""
    return safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights, combiner,
                                        default_id, name, "div", max_norm, allow_fast_lookup)


# ------------------------------------------------------------------------------------------
# conv / pool wrappers
# ------------------------------------------------------------------------------------------


def depthwise_conv2d_backprop_input(input_sizes, filter, out_backprop, strides, padding,
                                    data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d with respect to its input."""
    return conv_ops.depthwise_conv2d_native_backprop_input(
        input_sizes, filter, out_backprop, strides, padding, data_format, list(dilations), name)


def depthwise_conv2d_backprop_filter(input, filter_sizes, out_backprop, strides, padding,
                                     data_format="NHWC", dilations=(1, 1, 1, 1), name=None):
    """The gradient of depthwise_conv2d with respect to its filter."""
    return conv_ops.depthwise_conv2d_native_backprop_filter(
        input, filter_sizes, out_backprop, strides, padding, data_format, list(dilations), name)


def conv3d_backprop_filter_v2(input, filter_sizes, out_backprop, strides, padding,
                              data_format="NDHWC", dilations=(1, 1, 1, 1, 1), name=None):
    """The gradient of conv3d with respect to its filter (of shape ``filter_sizes``)."""
    attrs = conv_ops.conv3d_attrs("conv3d_backprop_filter_v2", strides, padding, data_format,
                                  list(dilations))
    # (the sizes reach the op as given, a Python list as its "filter_sizes" Const)
    return conv_ops._apply("Conv3DBackpropFilterV2", [input, filter_sizes, out_backprop],
                           attrs, name)


conv3d_backprop_filter = conv3d_backprop_filter_v2


def conv1d_transpose(input, filters, output_shape, strides, padding="SAME", data_format="NWC",
                     dilations=None, name=None):
    """The transpose of conv1d: conv2d_transpose on an added height of 1."""
    with ops.name_scope(name, "conv1d_transpose", [input, filters, output_shape]) as scope:
        if data_format in (None, "NWC"):
            fmt, axis = "NHWC", 1
        elif data_format == "NCW":
            fmt, axis = "NCHW", 2
        else:
            raise ValueError(f"data_format must be 'NWC' or 'NCW', got {data_format}")
        strides = [1] + conv_ops.get_sequence(strides, 1, 3, fmt.replace("H", ""), "stride")
        dil = [1] + conv_ops.get_sequence(dilations, 1, 3, fmt.replace("H", ""), "dilations")
        input = array_ops.expand_dims(ops.convert_to_tensor(input, name="input"), axis)
        filters = array_ops.expand_dims(ops.convert_to_tensor(filters, name="filters"), 0)
        from tideflow.ops.concat_ops import concat

        # a Python shape is sliced in Python (TF's three constants), a tensor by StridedSlice
        if not isinstance(output_shape, ops.Tensor):
            output_shape = list(output_shape)
        shape2 = concat([output_shape[:axis], [1], output_shape[axis:]], 0)
        attrs = conv_ops._conv_attrs(strides, padding, fmt, dil)
        out = conv_ops._apply("Conv2DBackpropInput", [shape2, filters, input], attrs, scope)
        return array_ops.squeeze(out, [axis])


def conv_transpose(input, filters, output_shape, strides, padding="SAME", data_format=None,
                   dilations=None, name=None):
    """The transpose of a 1-, 2- or 3-D convolution, chosen by ``output_shape``'s length."""
    with ops.name_scope(name, "conv_transpose", [input, filters, output_shape]) as scope:
        if isinstance(output_shape, ops.Tensor):
            n = output_shape.get_shape()[0].value
        else:
            n = len(output_shape)
        if n is None or n not in (3, 4, 5):
            raise ValueError(f"output_shape must be of length 3, 4 or 5 but was {n}.")
        if n == 3:
            return conv1d_transpose(input, filters, output_shape, strides, padding,
                                    data_format or "NWC", dilations, name=scope)
        if n == 4:
            fmt = data_format or "NHWC"
            strides = conv_ops.get_sequence(strides, 2, 4, fmt, "strides")
            dil = conv_ops.get_sequence(dilations, 2, 4, fmt, "dilations")
            shape_t = ops.convert_to_tensor(output_shape, dtypes.int32, name="output_shape")
            attrs = conv_ops._conv_attrs(strides, padding, fmt, dil)
            return conv_ops._apply("Conv2DBackpropInput", [shape_t, filters, input], attrs,
                                   scope)
        fmt = data_format or "NDHWC"
        strides = conv_ops.get_sequence(strides, 3, 5, fmt, "strides")
        dil = conv_ops.get_sequence(dilations, 3, 5, fmt, "dilations")
        return conv_ops.conv3d_transpose(input, filters, output_shape, strides, padding, fmt,
                                         name=scope, dilations=dil)


def conv2d_transpose_v2(input, filters, output_shape, strides, padding="SAME",
                        data_format="NHWC", dilations=None, name=None):
    """``tf.nn.conv2d_transpose`` of TF 2 (``input``/``filters``; strides may be one int)."""
    return conv_transpose(input, filters, output_shape, strides, padding, data_format,
                          dilations, name or "conv2d_transpose")


def conv3d_transpose_v2(input, filters, output_shape, strides, padding="SAME",
                        data_format="NDHWC", dilations=None, name=None):
    """``tf.nn.conv3d_transpose`` of TF 2 (``input``/``filters``; strides may be one int)."""
    return conv_transpose(input, filters, output_shape, strides, padding, data_format,
                          dilations, name or "conv3d_transpose")


def _pool_v2(input, ksize, strides, padding, data_format, name, kind):
    x = ops.convert_to_tensor(input, name="input")
    rank = x.get_shape().ndims
    if rank is None:
        raise ValueError(f"{kind}_pool_v2: the rank of input must be known")
    nsp = rank - 2
    if nsp not in (1, 2, 3):
        raise ValueError(f"Input tensor must be of rank 3, 4 or 5 but was {rank}.")
    fn = {("avg", 1): pooling_ops.avg_pool1d, ("avg", 2): pooling_ops.avg_pool2d,
          ("avg", 3): pooling_ops.avg_pool3d, ("max", 1): pooling_ops.max_pool1d,
          ("max", 2): pooling_ops.max_pool2d, ("max", 3): pooling_ops.max_pool3d}[(kind, nsp)]
    default = {1: "NWC", 2: "NHWC", 3: "NDHWC"}[nsp]
    return fn(x, ksize, strides, padding, data_format=data_format or default, name=name)


def avg_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """Average pooling of a 3-, 4- or 5-D input (1-, 2- or 3-D pooling by rank)."""
    return _pool_v2(input, ksize, strides, padding, data_format, name, "avg")


def max_pool_v2(input, ksize, strides, padding, data_format=None, name=None):
    """Max pooling of a 3-, 4- or 5-D input (1-, 2- or 3-D pooling by rank)."""
    return _pool_v2(input, ksize, strides, padding, data_format, name, "max")


def with_space_to_batch(input, dilation_rate, padding, op, filter_shape=None, spatial_dims=None,
                        data_format=None, _tf_constants=False, _rate_tensor=None):
    """Runs ``op(converted_input, num_spatial_dims, padding)`` on ``input`` turned into a
    batch of non-dilated inputs (space_to_batch_nd by ``dilation_rate``), then back."""
    from tideflow.ops import space_ops

    x = ops.convert_to_tensor(input, name="input")
    rate = np.asarray(dilation_rate, np.int64).reshape(-1)
    nsp = rate.size
    if nsp == 0:
        raise ValueError("dilation_rate must not be empty")
    if (rate < 1).any():
        raise ValueError(f"dilation_rate must be positive, got {rate.tolist()}")
    if padding not in ("SAME", "VALID"):
        raise ValueError(f"padding must be 'SAME' or 'VALID', got {padding}")
    first = data_format is not None and data_format.startswith("NC")
    if spatial_dims is None:
        start = 2 if first else 1
        spatial_dims = list(range(start, start + nsp))
    spatial_dims = list(spatial_dims)
    if sorted(spatial_dims) != spatial_dims or len(spatial_dims) != nsp:
        raise ValueError("spatial_dims must be a sorted list of one entry per dilation rate")
    if (rate == 1).all():
        return op(x, nsp, padding)
    if spatial_dims != list(range(1, nsp + 1)):
        raise NotImplementedError("with_space_to_batch: dilation needs the spatial dimensions "
                                  "right after the batch dimension")
    # with _tf_constants (tf.nn.convolution's callers), TF 1.15's constants in its order
    # (dilation_rate, filter_shape, the base paddings' stack, required_space_to_batch_paddings'
    # own); the ops read their values from NumPy below. The layers make theirs themselves.
    from tideflow.ops import constant_op

    rate_t = _rate_tensor  # (a layer makes its own at build)
    # "made": a Keras layer made TF's constants at its build (over known sizes): none here
    made = _tf_constants == "made"
    if made:
        _tf_constants = False
    if _tf_constants and _tf_constants != "no_rate":
        rate_t = constant_op.constant(rate.astype(np.int32), name="dilation_rate")
    base_t = None
    if padding == "SAME":
        if filter_shape is None:
            raise ValueError("filter_shape must be specified for SAME padding")
        fs = np.asarray(filter_shape if made else ops.constant_value(ops.convert_to_tensor(
            filter_shape, name="filter_shape" if _tf_constants else None)), np.int64)
        fs = fs[:nsp]  # TF's filter_shape may be the whole filter's: its leading dims count
        eff = (fs - 1) * rate + 1
        total = eff - 1
        base = np.stack([total // 2, total - total // 2], 1)
        if _tf_constants:
            base_t = constant_op.constant(base.astype(np.int32), name="stack")
    else:
        base = np.zeros((nsp, 2), np.int64)
    shape = x.get_shape()
    dims = [shape[d].value for d in spatial_dims] if shape.ndims is not None else [None] * nsp
    if any(d is None for d in dims):
        in_shape = array_ops.shape(x)
        sizes = array_ops.stack([in_shape[d] for d in spatial_dims])
    if any(d is None for d in dims) and _tf_constants and rate_t is not None:
        # TF 1.15's ops: required_space_to_batch_paddings over the sizes, then the paddings'
        # and crops' spatial rows (a one-part concat)
        from tideflow.ops import concat_ops
        from tideflow.ops.tf1_misc_ops import required_space_to_batch_paddings

        pads_t, crops_t = required_space_to_batch_paddings(
            sizes, rate_t, base_paddings=base_t if base_t is not None else base.astype(np.int32))
        pads = concat_ops.concat([pads_t[0:nsp]], 0)
        crops = concat_ops.concat([crops_t[0:nsp]], 0)
    elif any(d is None for d in dims):
        full = sizes + base.sum(1).astype(np.int32)
        extra = (rate.astype(np.int32) - full % rate.astype(np.int32)) % rate.astype(np.int32)
        pads = array_ops.stack([base[:, 0].astype(np.int32), base[:, 1].astype(np.int32) + extra],
                               1)
        crops = array_ops.stack([np.zeros(nsp, np.int32), extra], 1)
    else:
        full = np.array(dims) + base.sum(1)
        extra = (rate - full % rate) % rate
        pads = np.stack([base[:, 0], base[:, 1] + extra], 1).astype(np.int32)
        crops = np.stack([np.zeros(nsp, np.int64), extra], 1).astype(np.int32)
        if _tf_constants:
            # TF's required_space_to_batch_paddings folds these from Consts of its own
            with ops.name_scope(None, "required_space_to_batch_paddings"):
                constant_op.constant(np.array(dims, np.int32), name="input_shape")
                if padding != "SAME":
                    constant_op.constant(base.astype(np.int32), name="base_paddings")
                constant_op.constant(pads, name="paddings")
                constant_op.constant(crops, name="crops")
    y = space_ops.space_to_batch_nd(x, rate.astype(np.int32), pads)
    y = op(y, nsp, "VALID")
    return space_ops.batch_to_space_nd(y, rate.astype(np.int32), crops)


# ------------------------------------------------------------------------------------------
# candidate samplers: fixed unigram, learned unigram, all candidates
# ------------------------------------------------------------------------------------------


def _weighted_draw(weights):
    cdf = np.cumsum(weights)
    total = cdf[-1]

    def draw(gen, n, range_max):
        del range_max
        return np.minimum(np.searchsorted(cdf, gen.random(n) * total, side="right"),
                          len(cdf) - 1).astype(np.int64)

    return draw


def _fixed_unigram_weights(attrs):
    """The float32 weights of TF's FixedUnigramSampler: the reserved ids of this shard (weight
    0), then each unigram of this shard raised to ``distortion``. As TF, the unigrams' ids
    start at the number of weights kept so far, and the sampler's range must equal the number
    of weights kept."""
    range_max = attrs["range_max"]
    unigrams = list(attrs["unigrams"])
    vocab = attrs["vocab_file"]
    # TF's kernel constructor checks, in its words
    if not vocab and not unigrams:
        raise errors.InvalidArgumentError(None, None,
                                          "Must provide either vocab_file or unigrams.")
    if vocab and unigrams:
        raise errors.InvalidArgumentError(None, None,
                                          "Must only provide one of vocab_file and unigrams.")
    if vocab:
        from tideflow import gfile

        with gfile.GFile(vocab.decode() if isinstance(vocab, bytes) else vocab) as f:
            unigrams = [float(line.strip().split(",")[-1]) for line in f if line.strip()]
    shards, shard = attrs["num_shards"], attrs["shard"]
    kept = [0.0 for i in range(attrs["num_reserved_ids"]) if i % shards == shard]
    first = len(kept)
    kept += [u for i, u in enumerate(unigrams, first) if i % shards == shard]
    w = np.asarray(kept, np.float32)
    w[first:] = np.power(w[first:].astype(np.float64),
                         float(np.float32(attrs["distortion"]))).astype(np.float32)
    if w.size != range_max:
        raise errors.InvalidArgumentError(
            None, None, f"FixedUnigramCandidateSampler: range_max ({range_max}) must equal the "
            f"number of weights of shard {shard} of {shards} ({w.size}: num_reserved_ids "
            f"{attrs['num_reserved_ids']} and {len(unigrams)} unigrams)")
    if not (w.sum(dtype=np.float64) > 0):
        raise errors.InvalidArgumentError(None, None, "FixedUnigramCandidateSampler: the "
                                          "distribution has no positive weight")
    return w


def _alias_table(weights):
    """Walker's alias table (prob, alt) as TF's DistributionSampler builds it from float32
    ``weights``: scaled weights in double, low and high items paired from the back of their
    stacks, the leftovers given probability 1 and themselves as alias."""
    n = weights.size
    total = float(np.sum(weights.astype(np.float64)))
    scaled = ((weights * np.float32(n)).astype(np.float64) / total).tolist()
    alt = [-1] * n
    low = [i for i in range(n) if scaled[i] < 1.0]
    high = [i for i in range(n) if scaled[i] >= 1.0]
    while high and low:
        lo, hi = low.pop(), high.pop()
        alt[lo] = hi
        scaled[hi] -= 1.0 - scaled[lo]
        (low if scaled[hi] < 1.0 else high).append(hi)
    prob = np.asarray(scaled, np.float32)
    alt = np.asarray(alt, np.int64)
    for i in high + low:
        prob[i], alt[i] = 1.0, i
    return prob, alt


def _exact_uniform(words, bound):
    """One draw of TF's ExactUniformInt<uint32>(bound) (rejection below 2^32 mod bound)."""
    if bound & (bound - 1) == 0:
        return int(words.take(1)[0]) & (bound - 1)
    rem = (0xFFFFFFFF % bound) + 1
    while True:
        v = int(words.take(1)[0])
        if v >= rem:
            return v % bound


def _tf_alias_draw(prob, alt):
    """TF's DistributionSampler::Sample over SimplePhilox words: a float, then a uniform item
    index; the item if the float is below its probability, else its alias."""
    n_items = prob.size
    power_of_two = n_items & (n_items - 1) == 0
    rem = (0xFFFFFFFF % n_items) + 1

    def draw(words, n, range_max):
        del range_max
        w = words.take(2 * n)
        idx = w[1::2]
        if not power_of_two and (idx < rem).any():
            words.rewind(2 * n)  # a rejected index: replay these draws one by one
            out = np.empty(n, np.int64)
            for k in range(n):
                r = philox._float01(words.take(1))[0]
                i = _exact_uniform(words, n_items)
                out[k] = i if r < prob[i] else alt[i]
            return out
        idx = (idx & np.uint32(n_items - 1)) if power_of_two else idx % np.uint32(n_items)
        idx = idx.astype(np.int64)
        return np.where(philox._float01(w[0::2]) < prob[idx], idx, alt[idx])

    return draw


def _tf_picker_draw(counts):
    """TF's WeightedPicker::Pick over integer ``counts``: an unbiased uniform position in the
    total weight, and the item whose running total first passes it."""
    cdf = np.cumsum(counts)
    total = int(cdf[-1])

    def draw(words, n, range_max):
        del range_max
        pos = np.array([_exact_uniform(words, total) for _ in range(n)], np.int64)
        return np.searchsorted(cdf, pos, side="right").astype(np.int64)

    return draw


def _unigram_factory(learned):
    from tideflow.ops.candidate_sampling_ops import (
        _expected_count,
        _sample_unique,
        _TFWords,
        check_true_classes,
    )
    from tideflow.ops.random_ops import _generator, _philox_stream

    def factory(ctx):
        gen = _generator(ctx)
        stream = _philox_stream(ctx)
        attrs = ctx.op._attrs
        num_true, num_sampled = attrs["num_true"], attrs["num_sampled"]
        unique, range_max = attrs["unique"], attrs["range_max"]
        if learned:
            state = ctx.node_state("unigram_counts",
                                   lambda: {"w": np.ones(range_max, np.int64)})
        else:
            fixed = _fixed_unigram_weights(attrs)
            # TF sums the weights one by one in float32
            fixed_p = fixed / np.cumsum(fixed, dtype=np.float32)[-1]
            table = _alias_table(fixed) if stream is not None else None

        def run(true_classes):
            tc = _np(true_classes)
            check_true_classes(tc, num_true)
            if unique and num_sampled > range_max:
                raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
            if learned:
                w = state["w"]
                p = w.astype(np.float32) / np.float32(w.sum())
            else:
                w, p = fixed, fixed_p
            if stream is not None:  # seeded: TF's draws (SimplePhilox over its reservation)
                src = _TFWords(stream, num_sampled)
                draw = _tf_picker_draw(w) if learned else _tf_alias_draw(*table)
            else:
                src, draw = gen, _weighted_draw(w)
            if unique:
                sampled, tries = _sample_unique(src, draw, num_sampled, range_max)
            else:
                sampled, tries = draw(src, num_sampled, range_max), num_sampled
            inside = (tc >= 0) & (tc < range_max)
            true_ec = _expected_count(np.where(inside, p[np.clip(tc, 0, range_max - 1)], 0.0),
                                      num_sampled, tries)
            sampled_ec = _expected_count(p[sampled], num_sampled, tries)
            if learned:  # the distribution learns from the true classes seen, after sampling
                np.add.at(state["w"], np.clip(tc.reshape(-1), 0, range_max - 1), 1)
            return sampled, true_ec.astype(np.float32), sampled_ec.astype(np.float32)

        return run

    return factory


def _all_sampler_kernel(true_classes, *, num_true, num_sampled):
    from tideflow.ops.candidate_sampling_ops import check_true_classes

    tc = _np(true_classes)
    check_true_classes(tc, num_true)
    return (np.arange(num_sampled, dtype=np.int64), np.ones(tc.shape, np.float32),
            np.ones(num_sampled, np.float32))


def _declare_samplers():
    from tideflow.ops.candidate_sampling_ops import _SAMPLER_ATTRS, _sampler_shape

    outputs = ["sampled_candidates: int64", "true_expected_count: float",
               "sampled_expected_count: float"]
    op_registry.declare(
        "FixedUnigramCandidateSampler", inputs=["true_classes: int64"], outputs=outputs,
        attrs=_SAMPLER_ATTRS + ["vocab_file: string = ''", "distortion: float = 1",
                                "num_reserved_ids: int = 0", "num_shards: int >= 1 = 1",
                                "shard: int >= 0 = 0", "unigrams: list(float) = []"],
        shape=_sampler_shape, kernel_factory=_unigram_factory(False), differentiable=False,
        stateful=True, is_random=True)
    op_registry.declare(
        "LearnedUnigramCandidateSampler", inputs=["true_classes: int64"], outputs=outputs,
        attrs=_SAMPLER_ATTRS, shape=_sampler_shape, kernel_factory=_unigram_factory(True),
        differentiable=False, stateful=True, is_random=True)
    op_registry.declare(
        "AllCandidateSampler", inputs=["true_classes: int64"], outputs=outputs,
        attrs=["num_true: int >= 1", "num_sampled: int >= 1", "unique: bool",
               "seed: int = 0", "seed2: int = 0"],
        shape=_sampler_shape, kernel=_all_sampler_kernel, differentiable=False,
        stateful=True, is_random=True)


_declare_samplers()


def _sampler(op_type, true_classes, attrs, seed, name):
    from tideflow.ops.candidate_sampling_ops import _seeds

    s1, s2 = _seeds(seed)
    attrs = dict(attrs, seed=s1, seed2=s2)
    from tideflow.ops.candidate_sampling_ops import sampler_output

    return sampler_output(op_type, ops.apply_op(op_type, [true_classes], attrs, name=name))


def fixed_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                    vocab_file="", distortion=1.0, num_reserved_ids=0,
                                    num_shards=1, shard=0, unigrams=(), seed=None, name=None):
    """Samples classes from a fixed unigram distribution (``unigrams`` or a ``vocab_file`` of
    CSV lines ending in counts), raised to ``distortion``; the first ``num_reserved_ids``
    classes have weight 0, and only ids ``% num_shards == shard`` are drawn."""
    return _sampler("FixedUnigramCandidateSampler", true_classes, {
        "num_true": num_true, "num_sampled": num_sampled, "unique": unique,
        "range_max": range_max, "vocab_file": vocab_file, "distortion": distortion,
        "num_reserved_ids": num_reserved_ids, "num_shards": num_shards, "shard": shard,
        "unigrams": [float(u) for u in unigrams]}, seed, name)


def learned_unigram_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                      seed=None, name=None):
    """Samples classes from a unigram distribution learned from the true classes seen so far
    (every class starts with a count of one)."""
    return _sampler("LearnedUnigramCandidateSampler", true_classes, {
        "num_true": num_true, "num_sampled": num_sampled, "unique": unique,
        "range_max": range_max}, seed, name)


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Returns every class ``0 .. num_sampled - 1`` with expected counts of one."""
    return _sampler("AllCandidateSampler", true_classes, {
        "num_true": num_true, "num_sampled": num_sampled, "unique": unique}, seed, name)


# ------------------------------------------------------------------------------------------
# tf.nn.experimental: dropout from a given uniform sampler
# ------------------------------------------------------------------------------------------


def general_dropout(x, rate, uniform_sampler, noise_shape=None, name=None):
    """Dropout keeping the elements where ``uniform_sampler(shape=..., dtype=...) >= rate``,
    scaled by ``1 / (1 - rate)``."""
    import numbers

    from tideflow.ops.nn_impl import _noise_shape

    with ops.name_scope(name, "dropout", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError(f"x has to be a floating point tensor since it's going to be "
                             f"scaled. Got a {x.dtype.name} tensor instead.")
        if isinstance(rate, numbers.Real):
            if not 0 <= rate < 1:
                raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                                 f"got {rate:g}")
            if rate == 0:
                return array_ops.identity(x, name=scope)
        rate = ops.convert_to_tensor(rate, x.dtype, name="rate")
        rate.get_shape().assert_is_compatible_with(TensorShape([]))
        random = uniform_sampler(shape=_noise_shape(x, noise_shape), dtype=x.dtype)
        keep = cast_ops.cast(math_ops.greater_equal(random, rate), x.dtype)
        ret = math_ops.multiply(x * (1 / (1 - rate)), keep, name=scope)
        ret.set_shape(x.get_shape())
        return ret


def stateless_dropout(x, rate, seed, rng_alg=None, noise_shape=None, name=None):
    """Dropout whose mask is ``tf.random.stateless_uniform(..., seed)``: the same seed gives
    the same mask."""
    from tideflow.ops.stateless_random_ops import stateless_random_uniform

    def sampler(shape, dtype):
        return stateless_random_uniform(shape, seed=seed, dtype=dtype,
                                        alg=rng_alg or "auto_select")

    return general_dropout(x, rate, sampler, noise_shape, name or "stateless_dropout")


class Convolution:
    """TF's ``nn_ops.Convolution``: a convolution fixed by the static shapes of its input and
    filter (Keras-style layers build one and call it with ``(input, filter)``)."""

    def __init__(self, input_shape, filter_shape, padding, strides=None, dilation_rate=None,
                 name=None, data_format=None):
        filter_shape = TensorShape(filter_shape)
        input_shape = TensorShape(input_shape)
        conv_ops._spatial_rank(filter_shape, input_shape)  # checked as convolution checks
        self.input_shape, self.filter_shape = input_shape, filter_shape
        self.padding, self.strides, self.dilation_rate = padding, strides, dilation_rate
        self.name, self.data_format = name, data_format

    def __call__(self, inp, filter):
        return conv_ops.convolution(inp, filter, self.padding, strides=self.strides,
                                    dilation_rate=self.dilation_rate, name=self.name,
                                    data_format=self.data_format)
