"""``tf.SparseTensor``: indices [N, rank] int64, values [N], dense_shape [rank] int64.

Fetching one gives a ``SparseTensorValue``; feeding one (as a feed_dict key) takes a
``SparseTensorValue`` or an (indices, values, dense_shape) tuple, as TF does.
"""

import collections

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import as_shape, unknown_shape

SparseTensorValue = collections.namedtuple("SparseTensorValue",
                                           ["indices", "values", "dense_shape"])


class SparseTensor:
    """A sparse tensor: the values at ``indices`` of a tensor of shape ``dense_shape``."""

    @classmethod
    def from_value(cls, sparse_tensor_value):
        if isinstance(sparse_tensor_value, SparseTensor):
            return sparse_tensor_value
        return cls(sparse_tensor_value.indices, sparse_tensor_value.values,
                   sparse_tensor_value.dense_shape)

    def __init__(self, indices, values, dense_shape=None, shape=None):
        if shape is not None:  # 0.x's name for dense_shape
            if dense_shape is not None:
                raise ValueError("Cannot specify both 'dense_shape' and 'shape'")
            dense_shape = shape
        if dense_shape is None:
            raise TypeError("SparseTensor() missing required argument: 'dense_shape'")
        with ops.name_scope(None, "SparseTensor", [indices, values, dense_shape]):
            self._indices = ops.convert_to_tensor(indices, dtype=dtypes.int64, name="indices")
            self._values = ops.convert_to_tensor(values, name="values")
            self._dense_shape = ops.convert_to_tensor(dense_shape, dtype=dtypes.int64,
                                                      name="dense_shape")
        # (TF's words: "Shape (2,) must have rank 2")
        self._indices.get_shape().with_rank(2)
        self._values.get_shape().with_rank(1)
        self._dense_shape.get_shape().with_rank(1)
        self._indices.set_shape(unknown_shape(2))
        self._values.set_shape(unknown_shape(1))
        self._dense_shape.set_shape(unknown_shape(1))
        # as TF: one index row per value, one index column per dense dimension
        ind = self._indices.get_shape()
        ind.dims[0].merge_with(self._values.get_shape().dims[0])
        ind.dims[1].merge_with(self._dense_shape.get_shape().dims[0])

    @property
    def indices(self):
        return self._indices

    @property
    def values(self):
        return self._values

    @property
    def dense_shape(self):
        return self._dense_shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def op(self):
        return self._values.op

    def consumers(self):
        """The ops that use any of the indices, values or dense_shape tensors (each once)."""
        seen = {}
        for component in (self._indices, self._values, self._dense_shape):
            for op in component.consumers():
                seen.setdefault(id(op), op)
        return list(seen.values())

    @property
    def graph(self):
        return self._indices.graph

    def get_shape(self):
        value = ops.constant_value(self._dense_shape)
        if value is not None:
            return as_shape([int(d) for d in value])
        rank = self._dense_shape.get_shape()
        n = rank[0].value if rank.ndims else None
        if n is not None:
            # the known entries of a partly computed shape (concat of a fed prefix and a
            # constant size), as TF's constant_value_as_shape finds them
            from tideflow.ops.array_ops import constant_value_as_shape

            return unknown_shape(n).merge_with(constant_value_as_shape(self._dense_shape))
        return unknown_shape(n)

    @property
    def shape(self):
        return self.get_shape()

    def eval(self, feed_dict=None, session=None):
        session = session or ops.get_default_session()
        return session.run(self, feed_dict)

    def __str__(self):  # as TF: the components' str(), Tensor("...", shape=..., dtype=...)
        return (f"SparseTensor(indices={self._indices}, values={self._values}, "
                f"dense_shape={self._dense_shape})")

    # repr: TF 1.15's SparseTensor has none of its own (<...SparseTensor object at 0x...>)

    # Session.run protocol: one fetch made of three tensors
    def _tf_fetch_components(self):
        return [self._indices, self._values, self._dense_shape], (
            lambda vals: SparseTensorValue(*vals)
        )

    # feed_dict protocol: a SparseTensor key is fed (indices, values, dense_shape)
    def _tf_feed_components(self):
        def split(value):
            if isinstance(value, SparseTensor):
                raise TypeError("The value of a feed cannot be a tf.SparseTensor object.")
            # as TF, the parts are zipped with (indices, values, dense_shape): a shorter value
            # leaves the rest unfed
            return list(value)

        return [self._indices, self._values, self._dense_shape], split


def is_sparse(x):
    """Whether ``x`` is a SparseTensor or a SparseTensorValue."""
    return isinstance(x, (SparseTensor, SparseTensorValue))


def convert_to_tensor_or_sparse_tensor(value, dtype=None, name=None):
    """SparseTensors and SparseTensorValues stay sparse; anything else becomes a Tensor."""
    if isinstance(value, SparseTensorValue):
        value = SparseTensor.from_value(value)
    if isinstance(value, SparseTensor):
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(value.dtype):
            raise RuntimeError(f"Sparse dtype: requested = {dtype}, actual = {value.dtype}")
        return value
    return ops.convert_to_tensor(value, dtype=dtype, name=name)
