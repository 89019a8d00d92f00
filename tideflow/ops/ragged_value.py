"""``tf.ragged.RaggedTensorValue`` (a fetched RaggedTensor: NumPy values and row splits) and
``tf.RaggedTensorSpec`` (the type of a RaggedTensor)."""

import numpy as np

from tideflow.framework import dtypes
from tideflow.framework.tensor_shape import as_shape, unknown_shape


class RowPartitioned:
    """What a ragged tensor and its fetched value share: ``_values`` (dense, or ragged again)
    partitioned into rows by ``_row_splits``."""

    @property
    def flat_values(self):
        v = self._values
        while isinstance(v, RowPartitioned):
            v = v._values
        return v

    @property
    def nested_row_splits(self):
        splits = [self._row_splits]
        v = self._values
        while isinstance(v, RowPartitioned):
            splits.append(v._row_splits)
            v = v._values
        return tuple(splits)


class RaggedTensorValue(RowPartitioned):
    """A fetched ``RaggedTensor``: NumPy ``values`` (or a nested value) and ``row_splits``."""

    def __init__(self, values, row_splits):
        if not (isinstance(row_splits, (np.ndarray, np.generic))
                and row_splits.dtype in (np.int64, np.int32) and row_splits.ndim == 1):
            raise TypeError("row_splits must be a 1D int32 or int64 numpy array")
        if not isinstance(values, (np.ndarray, np.generic, RaggedTensorValue)):
            raise TypeError("values must be a numpy array or a RaggedTensorValue")
        if isinstance(values, RaggedTensorValue) and row_splits.dtype != values.row_splits.dtype:
            raise ValueError("row_splits and values.row_splits must have the same dtype")
        self._values = values
        self._row_splits = row_splits

    row_splits = property(lambda self: self._row_splits)
    values = property(lambda self: self._values)

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def ragged_rank(self):
        v = self._values
        return v.ragged_rank + 1 if isinstance(v, RaggedTensorValue) else 1

    @property
    def shape(self):
        return (self._row_splits.shape[0] - 1,) + (None,) + tuple(self._values.shape[1:])

    def to_list(self):
        """The nested Python list this value stands for."""
        values = self._values.to_list() if isinstance(self._values, RaggedTensorValue) else (
            self._values.tolist())
        s = self._row_splits.tolist()
        return [values[s[i]:s[i + 1]] for i in range(len(s) - 1)]

    def __str__(self):
        return f"<tf.RaggedTensorValue {self.to_list()}>"

    def __repr__(self):
        return f"tf.RaggedTensorValue(values={self._values!r}, row_splits={self._row_splits!r})"


class RaggedTensorSpec:
    """The type of a ``RaggedTensor``: shape, dtype, ragged rank and splits dtype."""

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64):
        self._shape = unknown_shape() if shape is None else as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        rank = self._shape.ndims
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if not isinstance(ragged_rank, int):
            raise TypeError(f"ragged_rank must be an int, got {ragged_rank!r}")
        if rank is not None and ragged_rank >= rank:
            raise ValueError(f"ragged_rank must be less than rank ({rank}); got {ragged_rank}")
        self._ragged_rank = ragged_rank

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    @property
    def value_type(self):
        from tideflow.ops.ragged_tensor import RaggedTensor

        return RaggedTensor

    def _key(self):
        return (self._shape.as_list() if self._shape.ndims is not None else None, self._dtype,
                self._ragged_rank, self._row_splits_dtype)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        k = self._key()
        return hash((None if k[0] is None else tuple(k[0]),) + k[1:])

    def is_compatible_with(self, spec_or_value):
        from tideflow.ops.ragged_tensor import RaggedTensor

        if isinstance(spec_or_value, RaggedTensor):
            spec_or_value = spec_or_value._type_spec
        if not isinstance(spec_or_value, RaggedTensorSpec):
            return False
        return (self._dtype.is_compatible_with(spec_or_value.dtype)
                and self._shape.is_compatible_with(spec_or_value.shape)
                and self._ragged_rank == spec_or_value.ragged_rank
                and self._row_splits_dtype == spec_or_value.row_splits_dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype, value.ragged_rank, value.row_splits.dtype)

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")