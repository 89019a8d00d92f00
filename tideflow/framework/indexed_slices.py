"""``tf.IndexedSlices``: a sparse slice of rows of a dense tensor (sparse gradients)."""

import collections

from tideflow.framework.ops import IndexedSlicesBase


class IndexedSlices(IndexedSlicesBase):
    """Rows ``values[i]`` of a tensor of shape ``dense_shape`` at row ``indices[i]``."""

    def __init__(self, values, indices, dense_shape=None):
        self._values = values
        self._indices = indices
        self._dense_shape = dense_shape

    @property
    def values(self):
        return self._values

    @property
    def indices(self):
        return self._indices

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def name(self):
        return self._values.name

    @property
    def device(self):
        return self._values.device

    @property
    def op(self):
        return self._values.op

    def consumers(self):
        """The ops that read any of this value's tensors (TF 1.15's ``IndexedSlices.consumers``)."""
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)
        seen, out = set(), []
        for t in parts:
            for op in t.consumers():
                if id(op) not in seen:
                    seen.add(id(op))
                    out.append(op)
        return out

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def graph(self):
        return self._values.graph

    def get_shape(self):
        from tideflow.framework import ops
        from tideflow.framework.tensor_shape import as_shape, unknown_shape

        v = ops.constant_value(self._dense_shape) if self._dense_shape is not None else None
        if v is not None:
            return as_shape([int(d) for d in v])
        vs = self._values.get_shape()
        if vs.ndims is None:
            return unknown_shape()
        return unknown_shape(1).concatenate(vs[1:])

    @property
    def shape(self):
        return self.get_shape()

    def __str__(self):
        return (f"IndexedSlices(indices={self._indices}, values={self._values}"
                + (f", dense_shape={self._dense_shape})" if self._dense_shape is not None else ")"))

    def __neg__(self):
        from tideflow.ops import math_ops

        return IndexedSlices(math_ops.negative(self._values), self._indices, self._dense_shape)

    # fetching an IndexedSlices gives an IndexedSlicesValue
    def _tf_fetch_components(self):
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)

        def rebuild(vals):
            return IndexedSlicesValue(vals[0], vals[1], vals[2] if len(vals) > 2 else None)

        return parts, rebuild

    # feed_dict protocol: an IndexedSlices key is fed (values, indices[, dense_shape])
    def _tf_feed_components(self):
        parts = [self._values, self._indices]
        if self._dense_shape is not None:
            parts.append(self._dense_shape)

        def split(value):
            if isinstance(value, IndexedSlices):
                raise TypeError("The value of a feed cannot be a tf.IndexedSlices object.")
            return list(value)

        return parts, split


IndexedSlicesValue = collections.namedtuple("IndexedSlicesValue",
                                            ["values", "indices", "dense_shape"])
