"""More of TF 1.x's ``tf.contrib.layers`` functions: ``conv2d_in_plane`` (one small kernel
shared by every channel), ``dense_to_sparse``, ``images_to_sequence``/``sequence_to_images``
(the image <-> sequence reshapes of OCR models) and ``spatial_softmax`` (expected feature
keypoints).

Each takes TF's arguments and defaults, names its scope and variables as TF does
(``ConvInPlane/weights``, ``spatial_softmax/temperature``, ...) and files its output in
``outputs_collections`` under the scope's name.
"""

from tideflow.framework import dtypes, ops
from tideflow.ops import array_ops, init_ops
from tideflow.ops import contrib_layers as cl
from tideflow.ops import variable_scope as vs
from tideflow.ops.layer_initializers import xavier_initializer
from tideflow.ops.layers_base import Layer


def _nn():
    from tideflow import nn

    return nn


def _math():
    import tideflow

    return tideflow


def convolution2d_in_plane(inputs, kernel_size, stride=1, padding="SAME",
                           activation_fn=cl._RELU, normalizer_fn=None, normalizer_params=None,
                           weights_initializer=None, weights_regularizer=None,
                           biases_initializer=cl._ZEROS, biases_regularizer=None, reuse=None,
                           variables_collections=None, outputs_collections=None,
                           trainable=True, scope=None):
    """Convolves every channel of an NHWC ``inputs`` with the same ``[kh, kw]`` kernel
    (``weights`` of shape ``[kh, kw, 1, 1]``); the output keeps the channel count, with one
    bias per channel."""
    if weights_initializer is None:
        weights_initializer = xavier_initializer()
    kh, kw = cl._pair(kernel_size, "kernel_size")
    sh, sw = cl._pair(stride, "stride")
    with vs.variable_scope(scope, "ConvInPlane", [inputs], reuse=reuse) as sc:
        inputs = ops.convert_to_tensor(inputs)
        shape = inputs.get_shape()
        if shape.ndims is None or shape.ndims < 4:
            raise ValueError(f"Invalid input: rank of inputs must be at least 4, got shape "
                             f"{shape}")
        channels = shape[-1].value
        if channels is None:
            raise ValueError(f"Inputs {inputs.name} has undefined last dimension {shape}.")
        dtype = inputs.dtype.base_dtype
        weights = cl.model_variable(
            "weights", shape=[kh, kw, 1, 1], dtype=dtype, initializer=weights_initializer,
            regularizer=weights_regularizer, trainable=trainable,
            collections=cl._collections(variables_collections, "weights"))
        depthwise = array_ops.tile(weights, [1, 1, channels, 1])
        outputs = _nn().depthwise_conv2d(inputs, depthwise, [1, sh, sw, 1], padding)
        if normalizer_fn is not None:
            outputs = normalizer_fn(outputs, **(normalizer_params or {}))
        elif biases_initializer is not None:
            biases = cl.model_variable(
                "biases", shape=[channels], dtype=dtype, initializer=biases_initializer,
                regularizer=biases_regularizer, trainable=trainable,
                collections=cl._collections(variables_collections, "biases"))
            outputs = _nn().bias_add(outputs, biases)
        if activation_fn is not None:
            outputs = activation_fn(outputs)
        return cl._collect_outputs(outputs_collections, sc.name, outputs)


def dense_to_sparse(tensor, eos_token=0, outputs_collections=None, scope=None):
    """A SparseTensor of the entries of ``tensor`` that differ from ``eos_token``."""
    from tideflow.framework.sparse_tensor import SparseTensor

    tf = _math()
    with vs.variable_scope(scope, "dense_to_sparse", [tensor]) as sc:
        tensor = ops.convert_to_tensor(tensor)
        indices = tf.where(tf.not_equal(tensor, tf.constant(eos_token, tensor.dtype)))
        values = tf.gather_nd(tensor, indices)
        shape = tf.shape(tensor, out_type=dtypes.int64)
        outputs = SparseTensor(indices, values, shape)
        return cl._collect_outputs(outputs_collections, sc.name, outputs)


def images_to_sequence(inputs, data_format="NHWC", outputs_collections=None, scope=None):
    """``[batch, height, width, depth]`` images (NHWC or NCHW) as a ``[width, batch * height,
    depth]`` sequence running along the width."""
    cl._check_format(data_format)
    with ops.name_scope(scope, "ImagesToSequence", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        if data_format == "NCHW":
            inputs = array_ops.transpose(inputs, [0, 2, 3, 1])
        _, _, width, depth = inputs.get_shape().as_list()
        dynamic = array_ops.shape(inputs)
        transposed = array_ops.transpose(inputs, [2, 0, 1, 3])
        outputs = array_ops.reshape(
            transposed, [width if width is not None else -1, dynamic[0] * dynamic[1],
                         depth if depth is not None else dynamic[3]])
        return cl._collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def sequence_to_images(inputs, height, output_data_format="channels_last",
                       outputs_collections=None, scope=None):
    """The inverse of ``images_to_sequence``: a ``[width, batch * height, depth]`` sequence as
    ``[batch, height, width, depth]`` images (``[batch, depth, height, width]`` for
    ``channels_first``)."""
    with ops.name_scope(scope, "SequenceToImages", [inputs]) as sc:
        inputs = ops.convert_to_tensor(inputs)
        width, num_batches, depth = inputs.get_shape().as_list()
        num_batches = -1 if num_batches is None else num_batches // height
        dynamic = array_ops.shape(inputs)
        reshaped = array_ops.reshape(
            inputs, [dynamic[0] if width is None else width, num_batches, height,
                     dynamic[2] if depth is None else depth])
        perm = [1, 3, 2, 0] if output_data_format == "channels_first" else [1, 2, 0, 3]
        outputs = array_ops.transpose(reshaped, perm)
        return cl._collect_outputs(outputs_collections, sc.rstrip("/"), outputs)


def spatial_softmax(features, temperature=None, name=None, variables_collections=None,
                    trainable=True, data_format="NHWC"):
    """The expected (x, y) position, each in [-1, 1], of every channel of ``features`` under
    a softmax over its height * width positions (divided by a learned ``temperature``,
    initially ``temperature`` or 1): a ``[batch, 2 * channels]`` tensor of (x, y) pairs, x
    running along the height as in TF."""
    tf = _math()
    with vs.variable_scope(name, "spatial_softmax"):  # (TF 1.15: its variable inside)
        features = ops.convert_to_tensor(features)
        shape = array_ops.shape(features)
        static = features.get_shape()
        if data_format == "NCHW":
            height, width, channels = shape[2], shape[3], static[1].value
        elif data_format == "NHWC":
            height, width, channels = shape[1], shape[2], static[3].value
        else:
            raise ValueError("data_format has to be either NCHW or NHWC.")
        if channels is None:
            raise ValueError("The num_channels dimension of the inputs to `spatial_softmax` "
                             "should be defined. Found `None`.")
        with ops.name_scope("spatial_softmax_op", "spatial_softmax_op", [features]):
            pos_x, pos_y = tf.meshgrid(tf.lin_space(-1.0, 1.0, num=height),
                                       tf.lin_space(-1.0, 1.0, num=width), indexing="ij")
            pos_x = array_ops.reshape(pos_x, [height * width])
            pos_y = array_ops.reshape(pos_y, [height * width])
            initializer = (init_ops.ones_initializer() if temperature is None
                           else init_ops.constant_initializer(temperature))
            colls = cl._collections(variables_collections, "temperature") if trainable else None
            temp = cl.model_variable("temperature", shape=(), dtype=dtypes.float32,
                                     initializer=initializer, collections=colls,
                                     trainable=trainable)
            if data_format == "NHWC":
                features = array_ops.transpose(features, [0, 3, 1, 2])
            flat = array_ops.reshape(features, [-1, height * width])
            attention = _nn().softmax(flat / temp)
            expected_x = tf.reduce_sum(pos_x * attention, [1], keepdims=True)
            expected_y = tf.reduce_sum(pos_y * attention, [1], keepdims=True)
            expected_xy = tf.concat([expected_x, expected_y], 1)
            keypoints = array_ops.reshape(expected_xy, [-1, channels * 2])
            keypoints.set_shape([None, channels * 2])
    return keypoints


def scale_gradient(inputs, gradient_multiplier):
    """``inputs`` unchanged going forward; the gradient flowing back through it is multiplied
    by ``gradient_multiplier`` (which itself gets no gradient)."""
    from tideflow.ops.misc_ops import custom_gradient

    inputs = ops.convert_to_tensor(inputs)
    multiplier = ops.convert_to_tensor(gradient_multiplier, dtype=inputs.dtype.base_dtype)

    @custom_gradient
    def _scaled(x):
        def grad(dy):
            return dy * multiplier

        return array_ops.identity(x), grad

    return _scaled(inputs)


def poincare_normalize(x, axis=1, epsilon=1e-5, name=None):
    """Projects ``x`` into the Poincare ball: slices along ``axis`` (an int or a list) whose
    norm is at least ``1 - epsilon`` are scaled to norm ``1 - epsilon``; others are kept."""
    tf = _math()
    with ops.name_scope(name, "poincare_normalize", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        square_sum = tf.reduce_sum(tf.square(x), axis, keepdims=True)
        inv_norm = tf.minimum((1.0 - epsilon) * tf.rsqrt(square_sum), 1.0)
        return tf.multiply(x, inv_norm, name=scope)


def legacy_fully_connected(x, num_output_units, activation_fn=None, weight_init=None,
                           bias_init=cl._ZEROS, name=None,
                           weight_collections=(ops.GraphKeys.WEIGHTS,),
                           bias_collections=(ops.GraphKeys.BIASES,),
                           output_collections=(ops.GraphKeys.ACTIVATIONS,), trainable=True,
                           weight_regularizer=None, bias_regularizer=None):
    """The TF 0.x fully connected layer: ``weights`` (in ``weight_collections``) and ``bias``
    (in ``bias_collections``, none when ``bias_init`` is None) over the last axis of ``x``;
    the output goes to ``output_collections`` and ``activations``."""
    if weight_init is None:
        weight_init = xavier_initializer()
    with vs.variable_scope(name, "fully_connected", [x]):
        x = ops.convert_to_tensor(x)
        dims = x.get_shape().dims
        if dims is None:
            raise ValueError("dims of x must be known but is None")
        if len(dims) < 2:
            raise ValueError(f"rank of x must be at least 2 not: {len(dims)}")
        num_input_units = dims[-1].value
        if num_input_units is None:
            raise ValueError("last dimension of x must be known but is None")
        dtype = x.dtype.base_dtype

        def colls(given):
            out = list(given or [])
            return out if ops.GraphKeys.GLOBAL_VARIABLES in out else [
                *out, ops.GraphKeys.GLOBAL_VARIABLES]

        w = vs.get_variable("weights", shape=[num_input_units, num_output_units], dtype=dtype,
                            initializer=weight_init, collections=colls(weight_collections),
                            regularizer=weight_regularizer, trainable=trainable)
        x_2d = x if len(dims) <= 2 else array_ops.reshape(x, [-1, num_input_units])
        tf = _math()
        y = tf.matmul(x_2d, w)
        if bias_init is not None:
            b = vs.get_variable("bias", shape=[num_output_units], dtype=dtype,
                                initializer=bias_init, collections=colls(bias_collections),
                                regularizer=bias_regularizer, trainable=trainable)
            y = _nn().bias_add(y, b)
        if len(dims) > 2:
            out_shape = tf.unstack(tf.shape(x))
            out_shape[-1] = num_output_units
            y = array_ops.reshape(y, tf.stack(out_shape))
            static = x.get_shape().as_list()
            static[-1] = num_output_units
            y.set_shape(static)
        if activation_fn is not None:
            y = activation_fn(y)
        ops.add_to_collections(list(output_collections or []) + [ops.GraphKeys.ACTIVATIONS], y)
        return y


def legacy_relu(x, num_output_units, **kwargs):
    """``legacy_fully_connected`` with ``activation_fn=tf.nn.relu``."""
    return legacy_fully_connected(x, num_output_units, activation_fn=_nn().relu, **kwargs)


def legacy_linear(x, num_output_units, **kwargs):
    """``legacy_fully_connected`` without an activation."""
    return legacy_fully_connected(x, num_output_units, activation_fn=None, **kwargs)


def _lower_bound(inputs, bound):
    """``max(inputs, bound)`` whose gradient still flows where it would raise ``inputs``
    above the bound (GDN's reparameterization bound)."""
    from tideflow.ops.misc_ops import custom_gradient

    tf = _math()

    @custom_gradient
    def bounded(x):
        def grad(dy):
            keep = tf.logical_or(x >= bound, dy < 0)
            return dy * tf.cast(keep, dy.dtype)

        return tf.maximum(x, bound), grad

    # read a variable first: the bound acts on its value
    return bounded(tf.identity(inputs))


class GDN(Layer):
    """Generalized divisive normalization (Balle et al.): ``y_i = x_i / sqrt(beta_i +
    sum_j gamma[j, i] x_j^2)`` over the channels (``x * sqrt(...)`` when ``inverse``), with
    ``reparam_beta``/``reparam_gamma`` variables kept above their bounds by TF's
    reparameterization; inputs of rank 3 to 5."""

    def __init__(self, inverse=False, beta_min=1e-6, gamma_init=0.1,
                 reparam_offset=2 ** -18, data_format="channels_last",
                 activity_regularizer=None, trainable=True, name=None, **kwargs):
        super().__init__(trainable=trainable, name=name,
                         activity_regularizer=activity_regularizer, **kwargs)
        if data_format not in ("channels_first", "channels_last"):
            raise ValueError(f"data_format must be 'channels_first' or 'channels_last', "
                             f"got {data_format!r}")
        self.inverse = bool(inverse)
        self._beta_min = float(beta_min)
        self._gamma_init = float(gamma_init)
        self._reparam_offset = float(reparam_offset)
        self.data_format = data_format

    def _channel_axis(self):
        return 1 if self.data_format == "channels_first" else -1

    def build(self, input_shape):
        from tideflow.framework.tensor_shape import TensorShape

        tf = _math()
        input_shape = TensorShape(input_shape)
        if input_shape.ndims is None or not 3 <= input_shape.ndims <= 5:
            raise ValueError(f"Input tensor must have rank 3, 4 or 5, got shape "
                             f"{input_shape}")
        channels = input_shape[self._channel_axis()].value
        if channels is None:
            raise ValueError("The channel dimension of the inputs to `GDN` must be "
                             "defined.")
        self._input_rank = input_shape.ndims
        offset = self._reparam_offset
        dtype = self.dtype or "float32"
        pedestal = tf.constant(offset ** 2, dtype=dtype)

        def beta_init(shape, dtype=None, partition_info=None):
            return tf.sqrt(tf.ones(shape, dtype=dtype) + offset ** 2)

        def gamma_init(shape, dtype=None, partition_info=None):
            return tf.sqrt(self._gamma_init * tf.eye(shape[0], dtype=dtype) + offset ** 2)

        beta = self.add_weight("reparam_beta", shape=[channels], initializer=beta_init,
                               dtype=dtype, trainable=True)
        beta = _lower_bound(beta, tf.constant((self._beta_min + offset ** 2) ** 0.5,
                                              dtype=dtype))
        self.beta = tf.square(beta) - pedestal
        gamma = self.add_weight("reparam_gamma", shape=[channels, channels],
                                initializer=gamma_init, dtype=dtype, trainable=True)
        gamma = _lower_bound(gamma, tf.constant(offset, dtype=dtype))
        self.gamma = tf.square(gamma) - pedestal
        self.built = True

    def call(self, inputs):
        tf = _math()
        inputs = ops.convert_to_tensor(inputs, dtype=self.dtype)
        rank = self._input_rank
        squared = tf.square(inputs)
        if self.data_format == "channels_first":
            perm = [0, *range(2, rank), 1]
            squared = tf.transpose(squared, perm)
        # norm_i = beta_i + sum_j gamma[j, i] * x_j^2 (TF's 1x1 convolution)
        norm = tf.tensordot(squared, self.gamma, [[rank - 1], [0]]) + self.beta
        if self.data_format == "channels_first":
            norm = tf.transpose(norm, [0, rank - 1, *range(1, rank - 1)])
        norm = tf.sqrt(norm)
        outputs = inputs * norm if self.inverse else inputs / norm
        outputs.set_shape(inputs.get_shape())
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape



def gdn(inputs, inverse=False, beta_min=1e-6, gamma_init=0.1, reparam_offset=2 ** -18,
        data_format="channels_last", activity_regularizer=None, trainable=True, name=None,
        reuse=None):
    """Functional ``GDN``: the layer built and applied to ``inputs``."""
    inputs = ops.convert_to_tensor(inputs)
    layer = GDN(inverse=inverse, beta_min=beta_min, gamma_init=gamma_init,
                reparam_offset=reparam_offset, data_format=data_format,
                activity_regularizer=activity_regularizer, trainable=trainable, name=name,
                dtype=inputs.dtype.base_dtype, _scope=name, _reuse=reuse)
    return layer.apply(inputs)


def safe_embedding_lookup_sparse(embedding_weights, sparse_ids, sparse_weights=None,
                                 combiner=None, default_id=None, name=None,
                                 partition_strategy="div", max_norm=None):
    """``tf.contrib.layers.safe_embedding_lookup_sparse``: ``tf.nn``'s lookup that drops
    invalid (negative) ids and non-positive weights and gives empty rows ``default_id``'s
    embedding (or zeros); ``combiner`` None means "mean" (TF warns)."""
    from tideflow import logging
    from tideflow.ops.nn_extra_ops import safe_embedding_lookup_sparse as lookup

    if combiner is None:
        logging.warning("The default value of combiner will change from \"mean\" "
                        "to \"sqrtn\" after 2016/11/01.")
        combiner = "mean"
    return lookup(embedding_weights, sparse_ids, sparse_weights=sparse_weights,
                  combiner=combiner, default_id=default_id, name=name,
                  partition_strategy=partition_strategy, max_norm=max_norm)


def embedding_lookup_unique(params, ids, partition_strategy="mod", name=None):
    """``tf.nn.embedding_lookup`` of the unique ``ids`` (of any shape), gathered back: each
    distinct id is looked up once."""
    tf = _math()
    with ops.name_scope(name, "EmbeddingLookupUnique", [params, ids]):
        ids = ops.convert_to_tensor(ids)
        shape = tf.shape(ids)
        flat = tf.reshape(ids, tf.reduce_prod(shape, keepdims=True))
        unique_ids, idx = tf.unique(flat)
        unique_embeddings = tf.nn.embedding_lookup(params, unique_ids,
                                                   partition_strategy=partition_strategy)
        embeds_flat = tf.gather(unique_embeddings, idx)
        embed_shape = tf.concat([shape, tf.shape(unique_embeddings)[1:]], 0)
        embeds = tf.reshape(embeds_flat, embed_shape)
        embeds.set_shape(ids.get_shape().concatenate(unique_embeddings.get_shape()[1:]))
        return embeds


def _inner_flatten(inputs, new_rank, output_collections=None, scope=None):
    """``inputs`` (dense or sparse) with its dimensions from ``new_rank - 1`` on merged into
    one, so the result has rank ``new_rank`` (TF's private contrib helper)."""
    tf = _math()
    with ops.name_scope(scope, "InnerFlatten", [inputs, new_rank]) as sc:
        if isinstance(inputs, tf.SparseTensor):
            rank = inputs.dense_shape.get_shape().as_list()[0]
            if rank is not None and rank < new_rank:
                raise ValueError(f"Inputs has rank less than new_rank. {inputs} must have rank "
                                 f"at least {new_rank}. Received rank {rank}")
            outer = inputs.dense_shape[:new_rank - 1]
            inner = tf.reduce_prod(inputs.dense_shape[new_rank - 1:], keepdims=True)
            flattened = tf.sparse_reshape(inputs, tf.concat([outer, inner], 0))
        else:
            inputs = ops.convert_to_tensor(inputs)
            static = inputs.get_shape()
            if static.ndims is not None and static.ndims < new_rank:
                raise ValueError(f"inputs has rank less than new_rank: {inputs.name} has rank "
                                 f"{static.ndims}, new_rank is {new_rank}")
            outer = tf.shape(inputs)[:new_rank - 1]
            flattened = tf.reshape(inputs, tf.concat([outer, [-1]], 0))
            if static.ndims is not None:
                dims = static.as_list()
                inner = 1
                for d in dims[new_rank - 1:]:
                    inner = None if d is None or inner is None else inner * d
                flattened.set_shape(dims[:new_rank - 1] + [inner])
        return cl._collect_outputs(output_collections, sc.rstrip("/"), flattened)


_sparse_inner_flatten_v2 = _inner_flatten


convolution2d_in_plane = conv2d_in_plane = cl.add_arg_scope(convolution2d_in_plane)
dense_to_sparse = cl.add_arg_scope(dense_to_sparse)
images_to_sequence = cl.add_arg_scope(images_to_sequence)
sequence_to_images = cl.add_arg_scope(sequence_to_images)

__all__ = ["GDN", "conv2d_in_plane", "convolution2d_in_plane", "dense_to_sparse",
           "embedding_lookup_unique", "gdn", "images_to_sequence", "legacy_fully_connected",
           "legacy_linear", "legacy_relu", "poincare_normalize", "safe_embedding_lookup_sparse",
           "scale_gradient", "sequence_to_images", "spatial_softmax"]
