"""``tf.keras.layers.Attention`` (Luong dot-product) and ``AdditiveAttention`` (Bahdanau) of
TF 1.15: called on ``[query, value]`` or ``[query, value, key]`` ([batch, Tq, dim] and
[batch, Tv, dim]), they return ``softmax(scores) @ value`` of shape [batch, Tq, dim]; a value
mask (``mask=[query_mask, value_mask]`` or Keras masks) keeps padded values out, ``causal``
keeps each query from later positions, and a query mask zeroes the padded query rows."""

import tideflow as tf
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import Layer


def _lower_triangular_mask(shape):
    """A bool mask of ``shape`` (a tensor) that is True on and below the diagonal."""
    row = tf.cumsum(tf.ones(shape=shape, dtype=tf.int32), axis=-2)
    col = tf.cumsum(tf.ones(shape=shape, dtype=tf.int32), axis=-1)
    return tf.greater_equal(row, col)


def _merge_masks(x, y):
    if x is None:
        return y
    if y is None:
        return x
    return tf.logical_and(x, y)


class BaseDenseAttention(Layer):
    """Scores of queries against keys (``_calculate_scores``), softmax over the keys, and the
    weighted sum of the values."""

    def __init__(self, causal=False, **kwargs):
        super().__init__(**kwargs)
        self.causal = causal
        self.supports_masking = True

    def _calculate_scores(self, query, key):
        raise NotImplementedError

    def _apply_scores(self, scores, value, scores_mask=None):
        if scores_mask is not None:
            # a large negative bias: padded positions get no attention
            scores -= 1.0e9 * tf.cast(tf.logical_not(scores_mask), dtype=K.floatx())
        return tf.matmul(tf.nn.softmax(scores), value)

    def call(self, inputs, mask=None):
        self._validate_call_args(inputs=inputs, mask=mask)
        q, v = inputs[0], inputs[1]
        k = inputs[2] if len(inputs) > 2 else v
        q_mask = mask[0] if mask else None
        v_mask = mask[1] if mask else None
        scores = self._calculate_scores(query=q, key=k)
        if v_mask is not None:
            v_mask = tf.expand_dims(v_mask, axis=-2)  # [batch, 1, Tv]
        causal_mask = None
        if self.causal:
            scores_shape = tf.shape(scores)
            causal_shape = tf.concat([tf.ones_like(scores_shape[:-2]), scores_shape[-2:]], 0)
            causal_mask = _lower_triangular_mask(causal_shape)  # [1, Tq, Tv]
        result = self._apply_scores(scores=scores, value=v,
                                    scores_mask=_merge_masks(v_mask, causal_mask))
        if q_mask is not None:
            result *= tf.cast(tf.expand_dims(q_mask, axis=-1), dtype=result.dtype)
        return result

    def compute_mask(self, inputs, mask=None):
        self._validate_call_args(inputs=inputs, mask=mask)
        if mask and mask[0] is not None:
            return tf.convert_to_tensor(mask[0])
        return None

    def compute_output_shape(self, input_shape):
        q = TensorShape(input_shape[0]).as_list()
        v = TensorShape(input_shape[1]).as_list()
        return TensorShape(q[:-1] + v[-1:])

    def _validate_call_args(self, inputs, mask):
        name = type(self).__name__
        if not isinstance(inputs, list):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely "  # noqa: TRY004
                             "[query, value] or [query, value, key].")
        if len(inputs) < 2 or len(inputs) > 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                             f"[query, value] or [query, value, key]. Given length: "
                             f"{len(inputs)}")
        if mask:
            if not isinstance(mask, list):
                raise ValueError(f"{name} layer mask must be a list, namely "
                                 "[query_mask, value_mask].")
            if len(mask) != 2:
                raise ValueError(f"{name} layer mask must be a list of length 2, namely "
                                 f"[query_mask, value_mask]. Given length: {len(mask)}")

    def get_config(self):
        config = super().get_config()
        config["causal"] = self.causal
        return config


class Attention(BaseDenseAttention):
    """Dot-product attention: ``scores = query @ key^T`` (times a trained scalar ``scale``
    with ``use_scale``)."""

    def __init__(self, use_scale=False, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(),
                                         initializer=tf.ones_initializer(), dtype=self.dtype,
                                         trainable=True)
        self.built = True

    def _calculate_scores(self, query, key):
        scores = tf.matmul(query, key, transpose_b=True)
        if self.scale is not None:
            scores *= self.scale
        return scores

    def get_config(self):
        config = super().get_config()
        config["use_scale"] = self.use_scale
        return config


class AdditiveAttention(BaseDenseAttention):
    """Additive attention: ``scores = reduce_sum(scale * tanh(query + key), -1)`` over
    broadcast [batch, Tq, Tv, dim] (``scale`` a trained [dim] vector with ``use_scale``)."""

    def __init__(self, use_scale=True, **kwargs):
        super().__init__(**kwargs)
        self.use_scale = use_scale

    def build(self, input_shape):
        dim = TensorShape(input_shape[1])[-1].value
        self.scale = None
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=[dim],
                                         initializer=tf.glorot_uniform_initializer(),
                                         dtype=self.dtype, trainable=True)
        self.built = True

    def _calculate_scores(self, query, key):
        q = tf.expand_dims(query, axis=-2)  # [batch, Tq, 1, dim]
        k = tf.expand_dims(key, axis=-3)  # [batch, 1, Tv, dim]
        scale = self.scale if self.use_scale else 1.0
        return tf.reduce_sum(scale * tf.tanh(q + k), axis=-1)

    def get_config(self):
        config = super().get_config()
        config["use_scale"] = self.use_scale
        return config


__all__ = ["AdditiveAttention", "Attention"]
