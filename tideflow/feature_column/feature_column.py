"""Feature columns (TF 1.x ``tf.feature_column``): how raw features become the dense input of
a network (``input_layer``) or the weighted sums of a linear model (``linear_model``).

Each column transforms its feature once per call through a ``_LazyBuilder`` cache. Dense
columns give a ``[batch, ...]`` float tensor; categorical columns give sparse ids (and
optional weights), ``[batch, n]`` ``SparseTensor``s, as in TF.
"""

import collections
import math

import numpy as np

from tideflow.framework import dtypes, ops, sparse_tensor, tensor_shape
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    fill_ops,
    gather_ops,
    init_ops,
    linalg_ops,
    lookup_ops,
    math_ops,
    nn_impl,
    parsing_ops,
    range_ops,
    reduction_ops,
    sparse_ops,
    string_hash_ops,
    string_ops,
    variable_scope,
)

_SparseTensor = sparse_tensor.SparseTensor


# ----------------------------------------------------------------------------------------
# the base classes
# ----------------------------------------------------------------------------------------


class _FeatureColumn:
    """A feature column: a name, a parse spec and a transformation."""

    # the class name (and field names) TF 1.15's repr shows: tf.feature_column's constructors
    # make its v2 classes there
    _tf_repr_name = None
    _tf_repr_fields = None

    def __repr__(self):
        name = type(self)._tf_repr_name
        if name is None or not hasattr(self, "_fields"):
            return super().__repr__()
        fields = type(self)._tf_repr_fields or self._fields
        return f"{name}({', '.join(f'{f}={v!r}' for f, v in zip(fields, self))})"

    @property
    def name(self):
        raise NotImplementedError

    @property
    def _var_scope_name(self):
        return self.name

    @property
    def _parse_example_spec(self):
        raise NotImplementedError

    @property
    def parse_example_spec(self):
        return self._parse_example_spec

    def _transform_feature(self, inputs):
        raise NotImplementedError


class _DenseColumn(_FeatureColumn):
    """A column with a dense ``[batch, *variable_shape]`` float representation."""

    @property
    def _variable_shape(self):
        raise NotImplementedError

    @property
    def variable_shape(self):
        return self._variable_shape

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        raise NotImplementedError


class _CategoricalColumn(_FeatureColumn):
    """A column of sparse ids in ``[0, num_buckets)``, with optional weights."""

    IdWeightPair = collections.namedtuple("IdWeightPair", ["id_tensor", "weight_tensor"])

    @property
    def _num_buckets(self):
        raise NotImplementedError

    @property
    def num_buckets(self):
        return self._num_buckets

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        return _CategoricalColumn.IdWeightPair(inputs.get(self), None)


# ----------------------------------------------------------------------------------------
# the lazy builder: raw features -> transformed ones, each computed once
# ----------------------------------------------------------------------------------------


def _to_tensor_or_sparse(value, key):
    if isinstance(value, (_SparseTensor, ops.Tensor)):
        return value
    if isinstance(value, sparse_tensor.SparseTensorValue):
        return _SparseTensor.from_value(value)
    try:
        return ops.convert_to_tensor(value, name=str(key))
    except (TypeError, ValueError) as e:
        raise ValueError(f"Feature (key: {key}) could not be converted to a Tensor: {e}") \
            from None


class _LazyBuilder:
    """Caches the raw features (rank 1 expanded to ``[batch, 1]``) and the columns'
    transformed features."""

    def __init__(self, features):
        if not isinstance(features, dict):
            raise TypeError(f"features should be a dictionary of `Tensor`s. Given type: "
                            f"{type(features)}")
        self._features = dict(features)
        self._cache = {}
        self._state = {}  # column -> the variable a layer made for it before the transforms

    def get(self, key):
        if key in self._cache:
            return self._cache[key]
        if isinstance(key, str):
            value = self._get_raw_feature(key)
        elif isinstance(key, _FeatureColumn):
            value = key._transform_feature(self)
            if value is None:
                raise ValueError(f"Column {key.name} is not supported.")
        else:
            raise TypeError(f'"key" must be either a "str" or "_FeatureColumn". Provided: {key}')
        self._cache[key] = value
        return value

    def _get_raw_feature(self, key):
        if key not in self._features:
            raise ValueError(f"Feature {key} is not in features dictionary.")
        t = _to_tensor_or_sparse(self._features[key], key)
        shape = t.dense_shape.get_shape() if isinstance(t, _SparseTensor) else t.get_shape()
        if isinstance(t, _SparseTensor):
            rank = shape.dims[0].value if shape.ndims == 1 else None
        else:
            rank = shape.ndims
        if rank == 0:
            raise ValueError(f"Feature (key: {key}) cannot have rank 0. Given: {t}")
        if rank == 1:
            if isinstance(t, _SparseTensor):
                return sparse_ops.sparse_reshape(t, [-1, 1])
            return array_ops.expand_dims(t, -1)
        if rank is None and not isinstance(t, _SparseTensor):
            # a rank known only when run: checked then, and a rank-1 value expanded then
            from tideflow.ops import cond

            r = array_ops.rank(t)
            with ops.control_dependencies([check_ops.assert_positive(
                    r, message=f"Feature (key: {key}) cannot have rank 0. Given: {t}")]):
                return cond.cond(math_ops.equal(1, r),
                                 lambda: array_ops.expand_dims(t, -1),
                                 lambda: array_ops.identity(t))
        return t


def _to_sparse_input_and_drop_ignore_values(t, ignore_value=None):
    """A dense ``t`` as a SparseTensor without its ``ignore_value`` entries ('' for strings,
    -1 for integers by default); a SparseTensor unchanged. TF 1.15's ops under
    ``to_sparse_input`` (a NaN ignore value, compared with NotEqual, drops nothing, as TF)."""
    if isinstance(t, _SparseTensor):
        return t
    with ops.name_scope(None, "to_sparse_input", [t]):
        if ignore_value is None:
            if t.dtype == dtypes.string:
                ignore_value = ""
            elif t.dtype.is_integer:
                ignore_value = -1
            else:
                ignore_value = t.dtype.as_numpy_dtype(np.nan)
        ignore = cast_ops.cast(ignore_value, t.dtype, name="ignore_value")
        indices = array_ops.where(math_ops.not_equal(t, ignore), name="indices")
        return _SparseTensor(indices=indices,
                             values=array_ops.gather_nd(t, indices, name="values"),
                             dense_shape=array_ops.shape(t, out_type=dtypes.int64,
                                                         name="dense_shape"))


def _assert_key_is_string(key):
    if not isinstance(key, str):
        raise ValueError(f"key must be a string. Got: type {type(key)}. Given key: {key}.")  # noqa: TRY004 - as TF


def _map_sparse_values(sp, fn):
    return _SparseTensor(indices=sp.indices, values=fn(sp.values), dense_shape=sp.dense_shape)


# ----------------------------------------------------------------------------------------
# numeric and bucketized
# ----------------------------------------------------------------------------------------


class _NumericColumn(_DenseColumn, collections.namedtuple(
        "_NumericColumn", ["key", "shape", "default_value", "dtype", "normalizer_fn"])):
    """A dense float feature of a fixed shape."""

    _tf_repr_name = "NumericColumn"

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.FixedLenFeature(self.shape, self.dtype,
                                                      self.default_value)}

    def _transform_feature(self, inputs):
        t = inputs.get(self.key)
        if isinstance(t, _SparseTensor):
            raise ValueError("The corresponding Tensor of numerical column must be a Tensor. "  # noqa: TRY004 - as TF
                             f"SparseTensor is not supported. key: {self.key}")
        if self.normalizer_fn is not None:
            t = self.normalizer_fn(t)
        return cast_ops.cast(t, dtypes.float32)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(self.shape)

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


def _check_shape(shape, key):
    if isinstance(shape, int):
        shape = (shape,)
    shape = tuple(shape)
    for d in shape:
        if not isinstance(d, (int, np.integer)):
            raise TypeError(f"shape dimensions must be integer. shape: {shape}, key: {key}")
        if d < 1:
            raise ValueError(f"shape dimensions must be greater than 0. shape: {shape}, "
                             f"key: {key}")
    return tuple(int(d) for d in shape)


def numeric_column(key, shape=(1,), default_value=None, dtype=dtypes.float32,
                   normalizer_fn=None):
    """A real-valued column of ``shape`` (``normalizer_fn`` applied before the cast to
    float32)."""
    shape = _check_shape(shape, key)
    _assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    if not (dtype.is_integer or dtype.is_floating):
        raise ValueError(f"dtype must be convertible to float. dtype: {dtype}, key: {key}")
    if default_value is not None:
        kind = np.asarray(default_value).dtype.kind
        if kind not in ("iu" if dtype.is_integer else "iuf"):
            raise TypeError(f"default_value must be compatible with dtype. default_value: "
                            f"{default_value}, dtype: {dtype}, key: {key}")
        arr = np.asarray(default_value, dtype=dtype.as_numpy_dtype)
        if arr.ndim == 0:
            default_value = tuple([arr.item()] * int(np.prod(shape)))
            default_value = np.reshape(default_value, shape).tolist()
            default_value = _nested_tuple(default_value)
        else:
            if arr.shape != shape:
                raise ValueError(f"The shape of default_value must be equal to given shape. "
                                 f"default_value: {default_value}, shape: {shape}, key: {key}")
            default_value = _nested_tuple(arr.tolist())
    if normalizer_fn is not None and not callable(normalizer_fn):
        raise TypeError(f"normalizer_fn must be a callable. Given: {normalizer_fn}")
    return _NumericColumn(key, shape, default_value, dtype, normalizer_fn)


def _nested_tuple(x):
    return tuple(_nested_tuple(v) for v in x) if isinstance(x, list) else x


def _bucketize(x, boundaries):
    """TF's Bucketize op (``math_ops._bucketize``): the number of boundaries <= x, as int32."""
    from tideflow.ops.counting_ops import _bucketize as bucketize

    return bucketize(x, boundaries)


class _BucketizedColumn(_DenseColumn, _CategoricalColumn, collections.namedtuple(
        "_BucketizedColumn", ["source_column", "boundaries"])):
    """A numeric column split into ranges by ``boundaries``."""

    _tf_repr_name = "BucketizedColumn"

    @property
    def name(self):
        return f"{self.source_column.name}_bucketized"

    @property
    def _parse_example_spec(self):
        return self.source_column._parse_example_spec

    def _transform_feature(self, inputs):
        return _bucketize(inputs.get(self.source_column), self.boundaries)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape(tuple(self.source_column.shape)
                                        + (len(self.boundaries) + 1,))

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return array_ops.one_hot(cast_ops.cast(inputs.get(self), dtypes.int64),
                                 depth=len(self.boundaries) + 1, on_value=1.0, off_value=0.0)

    @property
    def _num_buckets(self):
        return int(np.prod(self.source_column.shape)) * (len(self.boundaries) + 1)

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        # TF 1.15's ops: row and column indices of each bucket, ids offset per column
        t = inputs.get(self)
        batch = array_ops.shape(t)[0]
        dim = int(self.source_column.shape[0])
        rows = array_ops.reshape(array_ops.tile(array_ops.expand_dims(
            range_ops.range(0, batch), 1), [1, dim]), (-1,))
        cols = array_ops.tile(range_ops.range(0, dim), [batch])
        ids = array_ops.reshape(t, (-1,)) + (len(self.boundaries) + 1) * cols
        indices = cast_ops.cast(array_ops.transpose(array_ops.stack((rows, cols))),
                                dtypes.int64)
        dense_shape = cast_ops.cast(array_ops.stack([batch, dim]), dtypes.int64)
        sp = _SparseTensor(indices=indices, values=ids, dense_shape=dense_shape)
        return _CategoricalColumn.IdWeightPair(sp, None)


def bucketized_column(source_column, boundaries):
    """Buckets of a numeric column: ``(-inf, b0), [b0, b1), ..., [bn, inf)``."""
    if not isinstance(source_column, _NumericColumn):
        raise ValueError("source_column must be a column generated with numeric_column(). "  # noqa: TRY004 - as TF
                         f"Given: {source_column}")
    if len(source_column.shape) > 1:
        raise ValueError("source_column must be one-dimensional column. "
                         f"Given: {source_column}")
    if not boundaries or not isinstance(boundaries, (list, tuple)):
        raise ValueError("boundaries must be a sorted list.")
    for i in range(len(boundaries) - 1):
        if boundaries[i] >= boundaries[i + 1]:
            raise ValueError("boundaries must be a sorted list.")
    return _BucketizedColumn(source_column, tuple(boundaries))


# ----------------------------------------------------------------------------------------
# categorical columns
# ----------------------------------------------------------------------------------------


def _assert_string_or_int(dtype, prefix):
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"{prefix} dtype must be string or integer. dtype: {dtype}.")


def _sparse_input(inputs, key, dtype, string_or_int_first=False):
    t = _to_sparse_input_and_drop_ignore_values(inputs.get(key))
    if string_or_int_first:
        _assert_string_or_int(t.dtype, f"column_name: {key} input_tensor")
    if dtype.is_integer != t.dtype.is_integer or (dtype == dtypes.string) != (
            t.dtype == dtypes.string):
        raise ValueError(f"Column dtype and SparseTensors dtype must be compatible. key: "
                         f"{key}, column dtype: {dtype}, tensor dtype: {t.dtype}")
    return t


class _VarLenKeyColumn:
    """A column of the feature ``key``, parsed as a ``VarLenFeature`` of the column's
    ``dtype``."""

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(self.dtype)}


def _lookup_keys(inputs, key, dtype):
    """The sparse feature ``key`` and the key dtype of a vocabulary lookup of it (integer
    values as int64)."""
    t = _sparse_input(inputs, key, dtype)
    if t.dtype.is_integer:
        return _map_sparse_values(t, lambda v: cast_ops.cast(v, dtypes.int64)), dtypes.int64
    return t, dtype


def _check_oov(key, num_oov_buckets, default_value_given):
    if num_oov_buckets:
        if default_value_given:
            raise ValueError(f"Can't specify both num_oov_buckets and default_value in {key}.")
        if num_oov_buckets < 0:
            raise ValueError(f"Invalid num_oov_buckets {num_oov_buckets} in {key}.")


class _VocabularyListColumn(_VarLenKeyColumn, _CategoricalColumn, collections.namedtuple(
        "_VocabularyListColumn", ["key", "vocabulary_list", "dtype", "default_value",
                                  "num_oov_buckets"])):
    """Ids by position in an in-memory vocabulary."""

    _tf_repr_name = "VocabularyListCategoricalColumn"

    def _transform_feature(self, inputs):
        t, key_dtype = _lookup_keys(inputs, self.key, self.dtype)
        table = lookup_ops.index_table_from_tensor(
            list(self.vocabulary_list), num_oov_buckets=self.num_oov_buckets,
            default_value=self.default_value, dtype=key_dtype,
            name=f"{self.key}_lookup")
        return table.lookup(t)

    @property
    def _num_buckets(self):
        return len(self.vocabulary_list) + self.num_oov_buckets


def categorical_column_with_vocabulary_list(key, vocabulary_list, dtype=None,
                                            default_value=-1, num_oov_buckets=0):
    """Ids by position in ``vocabulary_list``; out-of-vocabulary values get
    ``default_value`` or one of ``num_oov_buckets`` hash buckets after the vocabulary."""
    if vocabulary_list is None or len(vocabulary_list) < 1:
        raise ValueError(f"vocabulary_list {vocabulary_list} must be non-empty, column_name: "
                         f"{key}")
    if len(set(vocabulary_list)) != len(vocabulary_list):
        raise ValueError(f"Duplicate keys in vocabulary_list {vocabulary_list}, column_name: "
                         f"{key}")
    kind = np.asarray(vocabulary_list).dtype.kind
    vocab_dtype = (dtypes.int64 if kind in "iu" else dtypes.string if kind in "SUO"
                   else dtypes.as_dtype(np.asarray(vocabulary_list).dtype))
    _check_oov(key, num_oov_buckets, default_value != -1)
    _assert_string_or_int(vocab_dtype, f"column_name: {key} vocabulary")
    if dtype is None:
        dtype = vocab_dtype
    else:
        dtype = dtypes.as_dtype(dtype)
        if dtype.is_integer != vocab_dtype.is_integer:
            raise ValueError(f"dtype {dtype} and vocabulary dtype {vocab_dtype} do not match, "
                             f"column_name: {key}")
    _assert_string_or_int(dtype, f"column_name: {key}")
    _assert_key_is_string(key)
    if vocab_dtype == dtypes.string:
        vocab = tuple(v if isinstance(v, str) else v.decode() if isinstance(v, bytes) else str(v)
                      for v in vocabulary_list)
    else:
        vocab = tuple(int(v) for v in vocabulary_list)
    return _VocabularyListColumn(key, vocab, dtype, default_value, num_oov_buckets)


class _VocabularyFileColumn(_VarLenKeyColumn, _CategoricalColumn, collections.namedtuple(
        "_VocabularyFileColumn", ["key", "vocabulary_file", "vocabulary_size",
                                  "num_oov_buckets", "dtype", "default_value"])):
    """Ids by line number in a vocabulary file."""

    _tf_repr_name = "VocabularyFileCategoricalColumn"

    def _transform_feature(self, inputs):
        t, key_dtype = _lookup_keys(inputs, self.key, self.dtype)
        table = lookup_ops.index_table_from_file(
            vocabulary_file=self.vocabulary_file, num_oov_buckets=self.num_oov_buckets,
            vocab_size=self.vocabulary_size, default_value=self.default_value,
            key_dtype=key_dtype, name=f"{self.key}_lookup")
        return table.lookup(t)

    @property
    def _num_buckets(self):
        return self.vocabulary_size + self.num_oov_buckets


def categorical_column_with_vocabulary_file(key, vocabulary_file, vocabulary_size=None,
                                            num_oov_buckets=0, default_value=None,
                                            dtype=dtypes.string):
    """Ids by line number in ``vocabulary_file`` (its first ``vocabulary_size`` lines)."""
    if not vocabulary_file:
        raise ValueError(f"Missing vocabulary_file in {key}.")
    if vocabulary_size is None:
        import os

        if not os.path.exists(vocabulary_file):
            raise ValueError(f"vocabulary_file in {key} does not exist.")
        with open(vocabulary_file, "rb") as f:
            vocabulary_size = sum(1 for _ in f)
    if vocabulary_size < 1:
        raise ValueError(f"Invalid vocabulary_size in {key}.")
    _check_oov(key, num_oov_buckets, default_value is not None)
    dtype = dtypes.as_dtype(dtype)
    _assert_string_or_int(dtype, f"column_name: {key}")
    _assert_key_is_string(key)
    return _VocabularyFileColumn(key, vocabulary_file, vocabulary_size, num_oov_buckets,
                                 dtype, -1 if default_value is None else default_value)


class _IdentityCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "_IdentityCategoricalColumn", ["key", "num_buckets", "default_value"])):
    """Integer features used as ids directly."""

    _tf_repr_name = "IdentityCategoricalColumn"
    _tf_repr_fields = ("key", "number_buckets", "default_value")

    @property
    def name(self):
        return self.key

    @property
    def _parse_example_spec(self):
        return {self.key: parsing_ops.VarLenFeature(dtypes.int64)}

    # the field, not _CategoricalColumn's property of the same name
    num_buckets = property(lambda self: tuple.__getitem__(self, 1))

    @property
    def _num_buckets(self):
        return self.num_buckets

    def _transform_feature(self, inputs):
        t = _to_sparse_input_and_drop_ignore_values(inputs.get(self.key))
        if not t.dtype.is_integer:
            raise ValueError(f"Invalid input, not integer. key: {self.key} dtype: {t.dtype}")
        # TF 1.15's ops: the values and bounds cast to int64, then run-time asserts (or the
        # default for out-of-range ids)
        values = cast_ops.cast(t.values, dtypes.int64, name="values")
        num_buckets = cast_ops.cast(self.num_buckets, dtypes.int64, name="num_buckets")
        zero = cast_ops.cast(0, dtypes.int64, name="zero")
        if self.default_value is None:
            less = check_ops.assert_less(
                values, num_buckets, data=(values, num_buckets),
                message=f"Bucket index for categorical column \"{self.key}\" exceeds number "
                        "of buckets",
                name="assert_less_than_num_buckets")
            greater = check_ops.assert_greater_equal(
                values, zero, data=(values,),
                message=f"Negative bucket index for categorical column \"{self.key}\"",
                name="assert_greater_or_equal_0")
            with ops.control_dependencies((less, greater)):
                values = array_ops.identity(values)
        else:
            values = gather_ops.where_v2(
                math_ops.logical_or(values < zero, values >= num_buckets, name="out_of_range"),
                fill_ops.fill(array_ops.shape(values),
                              cast_ops.cast(self.default_value, dtypes.int64),
                              name="default_values"), values)
        return _SparseTensor(indices=t.indices, values=values, dense_shape=t.dense_shape)


def categorical_column_with_identity(key, num_buckets, default_value=None):
    """Integer ids in ``[0, num_buckets)``; others become ``default_value`` (or fail)."""
    if num_buckets < 1:
        raise ValueError(f"num_buckets {num_buckets} < 1, column_name {key}")
    if default_value is not None and (default_value < 0 or default_value >= num_buckets):
        raise ValueError(f"default_value {default_value} not in range [0, {num_buckets}), "
                         f"column_name {key}")
    _assert_key_is_string(key)
    return _IdentityCategoricalColumn(key, int(num_buckets), default_value)


class _HashedCategoricalColumn(_VarLenKeyColumn, _CategoricalColumn, collections.namedtuple(
        "_HashedCategoricalColumn", ["key", "hash_bucket_size", "dtype"])):
    """Ids as ``Fingerprint64(str(value)) % hash_bucket_size``."""

    _tf_repr_name = "HashedCategoricalColumn"

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _transform_feature(self, inputs):
        t = _sparse_input(inputs, self.key, self.dtype, string_or_int_first=True)
        values = t.values
        if values.dtype != dtypes.string:
            values = string_ops.as_string(values)
        ids = string_hash_ops.string_to_hash_bucket_fast(values, self.hash_bucket_size,
                                                         name="lookup")
        return _SparseTensor(indices=t.indices, values=ids, dense_shape=t.dense_shape)


def categorical_column_with_hash_bucket(key, hash_bucket_size, dtype=dtypes.string):
    """Ids by hashing the (string or integer) values into ``hash_bucket_size`` buckets."""
    if hash_bucket_size is None:
        raise ValueError(f"hash_bucket_size must be set. key: {key}")
    if hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be at least 1. hash_bucket_size: "
                         f"{hash_bucket_size}, key: {key}")
    _assert_key_is_string(key)
    dtype = dtypes.as_dtype(dtype)
    if dtype != dtypes.string and not dtype.is_integer:
        raise ValueError(f"column_name: {key} dtype must be string or integer. dtype: {dtype}.")
    return _HashedCategoricalColumn(key, int(hash_bucket_size), dtype)


class _WeightedCategoricalColumn(_CategoricalColumn, collections.namedtuple(
        "_WeightedCategoricalColumn", ["categorical_column", "weight_feature_key", "dtype"])):
    """A categorical column whose ids carry the weights of another feature."""

    _tf_repr_name = "WeightedCategoricalColumn"

    @property
    def name(self):
        return f"{self.categorical_column.name}_weighted_by_{self.weight_feature_key}"

    @property
    def _parse_example_spec(self):
        spec = dict(self.categorical_column._parse_example_spec)
        if self.weight_feature_key in spec:
            raise ValueError(f"Parse config {spec[self.weight_feature_key]} already exists "
                             f"for {self.weight_feature_key}.")
        spec[self.weight_feature_key] = parsing_ops.VarLenFeature(self.dtype)
        return spec

    @property
    def _num_buckets(self):
        return self.categorical_column._num_buckets

    def _transform_feature(self, inputs):
        weights = inputs.get(self.weight_feature_key)
        if weights.dtype.base_dtype != self.dtype:
            raise ValueError(f"Bad dtype, expected {self.dtype}, but got {weights.dtype}.")
        if not isinstance(weights, _SparseTensor):
            weights = _to_sparse_input_and_drop_ignore_values(weights, ignore_value=0.0)
        if not weights.dtype.is_floating:
            weights = _map_sparse_values(weights, lambda v: cast_ops.cast(v, dtypes.float32))
        ids = self.categorical_column._get_sparse_tensors(inputs).id_tensor
        return ids, weights

    def _get_sparse_tensors(self, inputs, weight_collections=None, trainable=None):
        ids, weights = inputs.get(self)
        return _CategoricalColumn.IdWeightPair(ids, weights)


def weighted_categorical_column(categorical_column, weight_feature_key, dtype=dtypes.float32):
    """``categorical_column`` with each id weighted by ``features[weight_feature_key]``."""
    if dtype is None or not (dtypes.as_dtype(dtype).is_integer
                             or dtypes.as_dtype(dtype).is_floating):
        raise ValueError(f"dtype {dtype} is not convertible to float.")
    dtype = dtypes.as_dtype(dtype)
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: "  # noqa: TRY004 - as TF
                         f"{categorical_column}")
    return _WeightedCategoricalColumn(categorical_column, weight_feature_key, dtype)


class _CrossedColumn(_CategoricalColumn, collections.namedtuple(
        "_CrossedColumn", ["keys", "hash_bucket_size", "hash_key"])):
    """Hashed crosses of raw string/integer features and categorical columns."""

    _tf_repr_name = "CrossedColumn"

    @property
    def name(self):
        # the leaf keys of nested crosses, sorted: the name ignores how the cross was nested
        names = [k if isinstance(k, str) else k.name for k in self._leaves()]
        return "_X_".join(sorted(names))

    @property
    def _parse_example_spec(self):
        spec = {}
        for key in self.keys:
            if isinstance(key, str):
                spec[key] = parsing_ops.VarLenFeature(dtypes.string)
            else:
                spec.update(key._parse_example_spec)
        return spec

    @property
    def _num_buckets(self):
        return self.hash_bucket_size

    def _leaves(self):
        for key in self.keys:
            if isinstance(key, _CrossedColumn):
                yield from key._leaves()
            else:
                yield key

    def _transform_feature(self, inputs):
        from tideflow.feature_column import sparse_cross

        tensors = []
        for key in self._leaves():
            if isinstance(key, str):
                t = inputs.get(key)
                if not isinstance(t, _SparseTensor) and t.dtype.is_integer and (
                        t.dtype != dtypes.int64):
                    t = cast_ops.cast(t, dtypes.int64)
                elif isinstance(t, _SparseTensor) and t.values.dtype.is_integer and (
                        t.values.dtype != dtypes.int64):
                    t = _map_sparse_values(t, lambda v: cast_ops.cast(v, dtypes.int64))
                tensors.append(t)
            else:
                pair = key._get_sparse_tensors(inputs)
                if pair.weight_tensor is not None:
                    raise ValueError("crossed_column does not support weight_tensor, but the "
                                     f"given column populates weight_tensor. Given column: "
                                     f"{key.name}")
                tensors.append(_map_sparse_values(
                    pair.id_tensor, lambda v: cast_ops.cast(v, dtypes.int64)))
        return sparse_cross.sparse_cross_hashed(tensors, num_buckets=self.hash_bucket_size,
                                                hash_key=self.hash_key)


def crossed_column(keys, hash_bucket_size, hash_key=None):
    """Crosses of ``keys`` (feature names or categorical columns), hashed into
    ``hash_bucket_size`` buckets with TF's ``SparseCrossHashed`` fingerprints."""
    if not hash_bucket_size or hash_bucket_size < 1:
        raise ValueError(f"hash_bucket_size must be > 1. hash_bucket_size: {hash_bucket_size}")
    if not keys or len(keys) < 2:
        raise ValueError(f"keys must be a list with length > 1. Given: {keys}")
    for key in keys:
        if not isinstance(key, (str, _CategoricalColumn)):
            raise ValueError(f"Unsupported key type. All keys must be either string, or "  # noqa: TRY004 - as TF
                             f"categorical column except HashedCategoricalColumn. Given: {key}")
        if isinstance(key, _HashedCategoricalColumn):
            raise ValueError("categorical_column_with_hash_bucket is not supported for "  # noqa: TRY004 - as TF
                             "crossing. Hashing before crossing will increase probability of "
                             "collision. Instead, use the feature name as a string. Given: "
                             f"{key}")
    return _CrossedColumn(tuple(keys), int(hash_bucket_size), hash_key)


# ----------------------------------------------------------------------------------------
# dense columns over categorical ones
# ----------------------------------------------------------------------------------------


class _IndicatorColumn(_DenseColumn, collections.namedtuple(
        "_IndicatorColumn", ["categorical_column"])):
    """Multi-hot counts (or summed weights) of a categorical column's ids."""

    _tf_repr_name = "IndicatorColumn"

    @property
    def name(self):
        return f"{self.categorical_column.name}_indicator"

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([1, self.categorical_column._num_buckets])

    def _transform_feature(self, inputs):
        pair = self.categorical_column._get_sparse_tensors(inputs)
        n = self.categorical_column._num_buckets
        ids = pair.id_tensor
        if pair.weight_tensor is not None:
            # TF 1.15's ops: the weights merged at [row, id], then scattered (repeated ids add)
            from tideflow.ops import sparse_extra_ops

            merged = sparse_extra_ops.sparse_merge(sp_ids=ids, sp_values=pair.weight_tensor,
                                                   vocab_size=n)
            merged = sparse_ops.sparse_slice(merged, [0, 0], merged.dense_shape)
            # (its static shape is known where TF's shape inference can evaluate the sliced
            # shape: ids and weights computed from constants alone, not a table or a feed)
            return gather_ops.scatter_nd(merged.indices, merged.values, merged.dense_shape)
        # TF 1.15's ops: the ids dense (-1 where none), one-hot, summed over the ids' axis
        dense = sparse_ops.sparse_tensor_to_dense(ids, default_value=-1)
        hot = array_ops.one_hot(dense, depth=n, on_value=1.0, off_value=0.0)
        return reduction_ops.reduce_sum(hot, axis=[-2])

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        return inputs.get(self)


def indicator_column(categorical_column):
    """A multi-hot representation of ``categorical_column`` (counts of repeated ids)."""
    # as TF 1.15, not checked here (an error when the column is used)
    return _IndicatorColumn(categorical_column)


def _add_to_collections(var, weight_collections):
    """Adds ``var`` (or a partitioned variable's parts) to ``weight_collections`` besides the
    global one it is already in."""
    for key in weight_collections or ():
        if key == ops.GraphKeys.GLOBAL_VARIABLES:
            continue
        for part in _var_parts(var):
            if part not in ops.get_collection(key):
                ops.add_to_collection(key, part)


def _combined_lookup(params, sp_ids, sp_weights, combiner, max_norm=None, name=None):
    """Per row of ``sp_ids``: the ``combiner`` of ``params[id]`` weighted by ``sp_weights``
    (ids < 0 left out, weights <= 0 too unless the combiner is "sum"; an empty row gives
    zeros), as TF's ``safe_embedding_lookup_sparse``. Ids of rank > 2 combine along their
    last dimension: the result is ``dense_shape[:-1] + [dimension]``."""
    rank = sp_ids.dense_shape.get_shape().dims
    rank = None if rank is None else rank[0].value
    if rank == 2:
        return _combined_lookup_2d(params, sp_ids, sp_weights, combiner, max_norm, name)
    with ops.name_scope(name, "embedding_lookup_sparse"):
        shape = sp_ids.dense_shape
        lead = shape[:-1]
        flat_shape = array_ops.stack([reduction_ops.reduce_prod(lead), shape[-1]])
        sp_ids = sparse_ops.sparse_reshape(sp_ids, flat_shape)
        if sp_weights is not None:
            sp_weights = sparse_ops.sparse_reshape(sp_weights, flat_shape)
        flat = _combined_lookup_2d(params, sp_ids, sp_weights, combiner, max_norm, None)
        out = array_ops.reshape(flat, array_ops.concat(
            [cast_ops.cast(lead, dtypes.int32), array_ops.shape(flat)[1:]], 0))
        lead_dims = None if rank is None else [None] * (rank - 1)
        out.set_shape(tensor_shape.TensorShape(lead_dims).concatenate(flat.get_shape()[1:]))
        return out


def _as_batch_rows(sp):
    """``sp`` as ``[batch, -1]`` (its rank known to be 2, unchanged), as TF's linear model
    reshapes categorical ids before combining them."""
    dims = sp.dense_shape.get_shape().dims
    if dims is not None and dims[0].value == 2:
        return sp
    return sparse_ops.sparse_reshape(sp, array_ops.stack([sp.dense_shape[0], -1]))


def _combined_lookup_2d(params, sp_ids, sp_weights, combiner, max_norm=None, name=None):
    if sp_weights is not None:
        # the weights pair with the ids by position (TF rebuilds them on the ids' indices)
        n_ids, n_weights = sp_ids.indices.get_shape(), sp_weights.values.get_shape()
        if n_ids.ndims and n_weights.ndims:
            n_ids.dims[0].merge_with(n_weights.dims[0])
    with ops.name_scope(name, "embedding_lookup_sparse"):
        ids = cast_ops.cast(sp_ids.values, dtypes.int64)
        if sp_weights is not None:
            w = cast_ops.cast(sp_weights.values, dtypes.float32)
        else:
            w = array_ops.ones_like(ids, dtype=dtypes.float32)
        valid = math_ops.greater_equal(ids, 0)
        if sp_weights is not None and combiner != "sum":
            # as TF's safe_embedding_lookup_sparse: weights <= 0 are pruned only when the
            # combiner divides by them; a "sum" keeps negative weights
            valid = math_ops.logical_and(valid, math_ops.greater(w, 0.0))
        w = array_ops.where(valid, w, array_ops.zeros_like(w))
        safe_ids = array_ops.where(valid, ids, array_ops.zeros_like(ids))
        emb = gather_ops.gather(params, safe_ids)
        if max_norm is not None:
            from tideflow.ops import clip_ops

            emb = clip_ops.clip_by_norm(emb, max_norm, axes=[1])
        rows = cast_ops.cast(sp_ids.indices[:, 0], dtypes.int32)
        batch = cast_ops.cast(sp_ids.dense_shape[0], dtypes.int32)
        summed = reduction_ops.unsorted_segment_sum(emb * array_ops.expand_dims(w, 1), rows, batch)
        if combiner == "sum":
            return summed
        if combiner == "mean":
            denom = reduction_ops.unsorted_segment_sum(w, rows, batch)
        elif combiner == "sqrtn":
            denom = math_ops.sqrt(reduction_ops.unsorted_segment_sum(w * w, rows, batch))
        else:
            raise ValueError(f"combiner must be one of 'mean', 'sqrtn' or 'sum', got "
                             f"{combiner!r}")
        nonzero = math_ops.greater(denom, 0.0)
        safe = array_ops.where(nonzero, denom, array_ops.ones_like(denom))
        return summed / array_ops.expand_dims(safe, 1)


class _EmbeddingBase(_DenseColumn):
    """What the embedding columns share: the categorical column's ids looked up in a
    ``[num_buckets, dimension]`` table, combined per example."""

    @property
    def _parse_example_spec(self):
        return self.categorical_column._parse_example_spec

    def _transform_feature(self, inputs):
        return inputs.get(self.categorical_column)

    @property
    def _variable_shape(self):
        return tensor_shape.TensorShape([self.dimension])

    def _load_checkpoint(self, weights):
        """Initializes the table ``weights`` from the checkpoint, when the column names one."""
        if self.ckpt_to_load_from is not None:
            from tideflow.train import checkpoint_utils

            checkpoint_utils.init_from_checkpoint(self.ckpt_to_load_from,
                                                  {self.tensor_name_in_ckpt: weights})

    def _lookup(self, weights, pair):
        """The ``combiner`` of the embeddings of ``pair``'s ids in the table ``weights``."""
        from tideflow.ops import nn_extra_ops

        return nn_extra_ops.safe_embedding_lookup_sparse(
            weights, pair.id_tensor, sparse_weights=pair.weight_tensor, combiner=self.combiner,
            name=f"{self.name}_weights", max_norm=self.max_norm)


class _EmbeddingColumn(_EmbeddingBase, collections.namedtuple(
        "_EmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                             "ckpt_to_load_from", "tensor_name_in_ckpt", "max_norm",
                             "trainable"])):
    """A learned ``dimension``-vector per id, combined per example."""

    _tf_repr_name = "EmbeddingColumn"

    @property
    def name(self):
        return f"{self.categorical_column.name}_embedding"

    def _create_weights(self, weight_collections=None, trainable=None):
        weights = variable_scope.get_variable(
            name="embedding_weights",
            shape=(self.categorical_column._num_buckets, self.dimension),
            dtype=dtypes.float32, initializer=self.initializer,
            trainable=self.trainable and (trainable is None or trainable))
        _add_to_collections(weights, weight_collections)
        self._load_checkpoint(weights)
        return weights

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        pair = self.categorical_column._get_sparse_tensors(
            inputs, weight_collections=weight_collections, trainable=trainable)
        weights = inputs._state.get(self) if isinstance(inputs, _LazyBuilder) else None
        if weights is None:
            weights = self._create_weights(weight_collections, trainable)
        return self._lookup(weights, pair)


def _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt):
    if dimension is None or dimension < 1:
        raise ValueError(f"Invalid dimension {dimension}.")
    if (ckpt_to_load_from is None) != (tensor_name_in_ckpt is None):
        raise ValueError("Must specify both `ckpt_to_load_from` and `tensor_name_in_ckpt` or "
                         "none of them.")


def _default_embedding_initializer(initializer, dimension):
    """``initializer``, or TF's default: a truncated normal of stddev ``1/sqrt(dimension)``."""
    if initializer is None:
        return init_ops.truncated_normal_initializer(mean=0.0, stddev=1 / math.sqrt(dimension))
    return initializer


def embedding_column(categorical_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A dense embedding of ``categorical_column`` (initialized from a truncated normal of
    stddev ``1/sqrt(dimension)`` unless ``initializer`` says otherwise)."""
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified. Embedding of column_name: "
                         f"{categorical_column.name}")
    if not isinstance(categorical_column, _CategoricalColumn):
        raise ValueError(f"categorical_column must be a categorical column. Given: "  # noqa: TRY004 - as TF
                         f"{categorical_column}")
    initializer = _default_embedding_initializer(initializer, dimension)
    return _EmbeddingColumn(categorical_column, int(dimension), combiner, initializer,
                            ckpt_to_load_from, tensor_name_in_ckpt, max_norm, trainable)


class _SharedEmbeddingColumn(_EmbeddingBase, collections.namedtuple(
        "_SharedEmbeddingColumn", ["categorical_column", "dimension", "combiner", "initializer",
                                   "shared_embedding_collection_name", "ckpt_to_load_from",
                                   "tensor_name_in_ckpt", "max_norm", "trainable"])):
    """An embedding whose table is shared with other columns (one variable per graph, kept in
    the collection ``shared_embedding_collection_name``)."""

    @property
    def name(self):
        return f"{self.categorical_column.name}_shared_embedding"

    @property
    def _var_scope_name(self):
        return self.shared_embedding_collection_name

    def _get_dense_tensor(self, inputs, weight_collections=None, trainable=None):
        # as TF 1.15: under a name scope of the column's own name
        with ops.name_scope(None, default_name=self.name):
            pair = self.categorical_column._get_sparse_tensors(
                inputs, weight_collections=weight_collections, trainable=trainable)
            shape = (self.categorical_column._num_buckets, self.dimension)
            shared = ops.get_collection(self.shared_embedding_collection_name)
            if shared:
                if len(shared) > 1:
                    raise ValueError(f"Collection {self.shared_embedding_collection_name} can only "
                                     f"contain one variable. Suggested fix A: Choose a unique name "
                                     f"for this collection. Suggested fix B: Do not add any "
                                     f"variables to this collection. The feature_column library "
                                     f"already adds a variable under the hood.")
                weights = shared[0]
                if weights.get_shape().as_list() != list(shape):
                    raise ValueError(f"Shared embedding variable has shape "
                                     f"{weights.get_shape()}, expected {shape}.")
            else:
                weights = variable_scope.get_variable(
                    name="embedding_weights", shape=shape, dtype=dtypes.float32,
                    initializer=self.initializer,
                    trainable=self.trainable and (trainable is None or trainable))
                _add_to_collections(weights, weight_collections)
                ops.add_to_collection(self.shared_embedding_collection_name, weights)
                self._load_checkpoint(weights)
            return self._lookup(weights, pair)


def _unwrap_categorical(column):
    """The column a weighted (or sequence) categorical column wraps, all the way down."""
    while isinstance(column, _WeightedCategoricalColumn) or (
            type(column).__name__ == "_SequenceCategoricalColumn"):
        column = column.categorical_column
    return column


def shared_embedding_columns(categorical_columns, dimension, combiner="mean",
                             initializer=None, shared_embedding_collection_name=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                             trainable=True):
    """Embedding columns of ``categorical_columns`` (of equal ``num_buckets``) sharing one
    table."""
    _check_embedding_args(dimension, ckpt_to_load_from, tensor_name_in_ckpt)
    if initializer is not None and not callable(initializer):
        raise ValueError("initializer must be callable if specified.")
    initializer = _default_embedding_initializer(initializer, dimension)
    columns = list(categorical_columns)
    if not columns:
        raise ValueError("categorical_columns must not be empty.")
    # as TF: checked in name order; weighted and sequence columns count as the column they wrap
    ordered = sorted(columns, key=lambda c: c.name)
    first = ordered[0]
    num_buckets = first._num_buckets
    if not isinstance(first, _CategoricalColumn):
        raise ValueError(f"All categorical_columns must be subclasses of _CategoricalColumn. "  # noqa: TRY004 - as TF
                         f"Given: {first}, of type: {type(first)}")
    first = _unwrap_categorical(first)
    for c in ordered[1:]:
        inner = _unwrap_categorical(c)
        if not isinstance(inner, type(first)):
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "  # noqa: TRY004 - as TF
                             f"have the same type, or be weighted_categorical_column of the "
                             f"same type. Given column: {first} of type: "
                             f"{type(first)} does not match given column: {inner} of type: "
                             f"{type(inner)}")
        if num_buckets != inner._num_buckets:
            raise ValueError(f"To use shared_embedding_column, all categorical_columns must "
                             f"have the same number of buckets. Given column: {first} with "
                             f"buckets: {num_buckets} does  not match column: {inner} with "
                             f"buckets: {inner._num_buckets}")
    if not shared_embedding_collection_name:
        names = sorted(c.name for c in columns)
        shared_embedding_collection_name = "_".join(names) + "_shared_embedding"
    return [_SharedEmbeddingColumn(c, int(dimension), combiner, initializer,
                                   shared_embedding_collection_name, ckpt_to_load_from,
                                   tensor_name_in_ckpt, max_norm, trainable) for c in columns]


# ----------------------------------------------------------------------------------------
# input_layer, linear_model, make_parse_example_spec
# ----------------------------------------------------------------------------------------


def _normalize_feature_columns(feature_columns):
    if isinstance(feature_columns, _FeatureColumn):
        feature_columns = [feature_columns]
    if isinstance(feature_columns, collections.abc.Iterator):
        feature_columns = list(feature_columns)
    if isinstance(feature_columns, dict):
        raise ValueError("Expected feature_columns to be iterable, found dict.")  # noqa: TRY004 - as TF
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"Items of feature_columns must be a _FeatureColumn. Given "  # noqa: TRY004 - as TF
                             f"(type {type(column)}): {column}.")
    if not feature_columns:
        raise ValueError("feature_columns must not be empty.")
    by_name = {}
    for column in feature_columns:
        if column.name in by_name:
            raise ValueError(f"Duplicate feature column name found for columns: "
                             f"{column} and {by_name[column.name]}. This usually means that "
                             "these columns refer to same base feature. Either one must be "
                             "discarded or a duplicated but renamed item must be inserted in "
                             "features dict.")
        by_name[column.name] = column
    return sorted(feature_columns, key=lambda c: c.name)


def _weight_collections(weight_collections):
    cols = list(weight_collections or [])
    for c in (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.MODEL_VARIABLES):
        if c not in cols:
            cols.append(c)
    return cols


def _var_parts(var):
    """``[var]``, or a partitioned variable's parts (as ``cols_to_vars`` lists them)."""
    return var._get_variable_list() if hasattr(var, "_get_variable_list") else [var]


def _vars_created(before):
    return [v for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) if v not in before]


def _verify_static_batch_size_equality(tensors, columns):
    """Raises TF's ValueError when two of ``tensors`` have known, different first dims."""
    first = None
    for column, tensor in zip(columns, tensors):
        shape = tensor.get_shape()
        if shape.ndims is None or shape.dims[0].value is None:
            continue
        if first is None:
            first = (column, shape.dims[0])
        elif not first[1].is_compatible_with(shape.dims[0]):
            raise ValueError(f"Batch size (first dimension) of each feature must be same. "
                             f"Batch size of columns ({first[0].name}, {column.name}): "
                             f"({first[1]}, {shape.dims[0]})")


def _flat_dense(column, tensor):
    """A dense column's tensor as ``[batch, the column's size]`` (its static batch kept), as
    ``input_layer`` and Keras' ``DenseFeatures`` join them."""
    n = column._variable_shape.num_elements()
    batch = array_ops.shape(tensor)[0]
    out = array_ops.reshape(tensor, (batch, n))
    out.set_shape([tensor.get_shape()[:1].dims[0] if tensor.get_shape().ndims else None, n])
    return out


def _make_layer_state(builder, columns, weight_collections=None, trainable=True):
    """Makes each embedding column's table first, in the columns' order, each under a
    variable scope of the column's name, and keeps it in ``builder`` for the transforms that
    follow: what TF 1.15's ``DenseFeatures`` layer does when it builds."""
    for column in columns:
        if isinstance(column, _EmbeddingColumn):
            with variable_scope.variable_scope(column._var_scope_name):
                builder._state[column] = column._create_weights(weight_collections, trainable)


def input_layer(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None):
    """The dense ``[batch, sum of the columns' sizes]`` input: the dense columns' tensors,
    in the order of the columns' names, concatenated."""
    return dense_input(features, feature_columns, weight_collections, trainable, cols_to_vars,
                       cols_to_output_tensors, scope_name="input_layer")


def dense_input(features, feature_columns, weight_collections=None, trainable=True,
                cols_to_vars=None, cols_to_output_tensors=None, scope_name="input_layer",
                state_first=False):
    """``input_layer`` under a variable scope named after ``scope_name`` (made unique), for
    layers such as Keras' ``DenseFeatures`` whose variables live under their own name. With
    ``state_first``, as TF 1.15's ``DenseFeatures`` layer (which the canned estimators build
    over ``tf.feature_column``'s columns): every embedding column's table is made first (in
    the columns' name order), then the columns are transformed under name scopes."""
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, _DenseColumn):
            raise ValueError("Items of feature_columns must be a _DenseColumn. You can wrap a "  # noqa: TRY004 - as TF
                             "categorical column with an embedding_column or "
                             f"indicator_column. Given: {column}")
    weight_collections = _weight_collections(weight_collections)
    # TF 1.15 takes shared embedding columns as v1 columns: its estimators then build the v1
    # input layer (ref variables, each made with its column's transform)
    use_resource = None
    if state_first and any(isinstance(c, _SharedEmbeddingColumn) for c in columns):
        state_first, use_resource = False, False
    with variable_scope.variable_scope(None, default_name=scope_name,
                                       values=list(features.values()),
                                       use_resource=use_resource):
        builder = _LazyBuilder(features)
        outputs = []
        if state_first:
            _make_layer_state(builder, columns, weight_collections, trainable)
        layer_scope = ops.get_default_graph().get_name_scope()
        for column in columns:
            before = set(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
            scope = (ops.name_scope(f"{layer_scope}/{column.name}/") if state_first
                     else variable_scope.variable_scope(None,
                                                        default_name=column._var_scope_name))
            with scope:
                tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                                  trainable=trainable)
                out = _flat_dense(column, tensor)
                outputs.append(out)
                if cols_to_vars is not None:
                    cols_to_vars[column] = (_var_parts(builder._state[column])
                                            if column in builder._state
                                            else _vars_created(before))
                if cols_to_output_tensors is not None:
                    cols_to_output_tensors[column] = out
        _verify_static_batch_size_equality(outputs, columns)
        return array_ops.concat(outputs, 1)


def linear_model(features, feature_columns, units=1, sparse_combiner="sum",
                 weight_collections=None, trainable=True, cols_to_vars=None, _keras_layout=False):
    """``sum_c column_c @ weights_c + bias``: a linear model's ``[batch, units]`` logits.
    Categorical columns contribute the ``sparse_combiner`` of their ids' weight rows.

    ``_keras_layout`` builds the graph of TF 1.15's Keras ``LinearModel`` (what its canned
    linear estimators use): every weight made first, the ops under
    ``linear_model/linear_model/linear_model``, no MODEL_VARIABLES."""
    # (an unknown sparse_combiner fails in a categorical column's lookup, as TF's)
    columns = _normalize_feature_columns(feature_columns)
    for column in columns:
        if not isinstance(column, (_DenseColumn, _CategoricalColumn)):
            raise ValueError("Items of feature_columns must be either a _DenseColumn or "  # noqa: TRY004 - as TF
                             f"_CategoricalColumn. Given: {column}")
    if _keras_layout:
        weight_collections = [ops.GraphKeys.GLOBAL_VARIABLES]
        with variable_scope.variable_scope("linear_model", values=list(features.values()),
                                           use_resource=True):
            ordered = sorted(columns, key=lambda c: c.name)
            builder = _LazyBuilder(features)
            weights = {}
            for column in ordered:
                # (an embedding column's table first, as the layer's build makes it)
                _make_layer_state(builder, [column], weight_collections, trainable)
                with variable_scope.variable_scope(column._var_scope_name):
                    weights[column] = _linear_weight(column, units, trainable)
            bias = _linear_bias(units, trainable)
            with ops.name_scope("linear_model"), ops.name_scope("linear_model"):
                sums = []
                for column in ordered:
                    with ops.name_scope(column._var_scope_name):
                        sums.append(_linear_column_sum(column, builder, weights[column], units,
                                                       weight_collections, trainable,
                                                       sparse_combiner))
                return _linear_output(sums, ordered, bias, weights, cols_to_vars)
    weight_collections = _weight_collections(weight_collections)
    # TF 1.15 builds a Keras model of one layer per column: the model's and the layers' names
    # are taken first (scopes with no ops), the call runs under a new "linear_model_1" name
    # scope, and each column's (resource) weights are made just before its weighted sum
    with variable_scope.variable_scope(None, default_name="linear_model",
                                       values=list(features.values())) as vs:
        model_name = vs.name.rsplit("/", 1)[-1]
    layer_names = {}
    for column in columns:
        with variable_scope.variable_scope(None, default_name=column._var_scope_name) as vs:
            layer_names[column] = vs.name.rsplit("/", 1)[-1]
    with ops.name_scope(None, default_name=model_name), \
            variable_scope.variable_scope(model_name, use_resource=True):
        builder = _LazyBuilder(features)
        sums = []
        weights = {}
        ordered = sorted(columns, key=lambda c: layer_names[c])
        for column in ordered:
            with variable_scope.variable_scope(layer_names[column]):
                weights[column] = _linear_weight(column, units, trainable)
                _add_to_collections(weights[column], weight_collections)
                sums.append(_linear_column_sum(column, builder, weights[column], units,
                                               weight_collections, trainable, sparse_combiner))

        def bias():  # made after the sum of the columns', as TF's
            var = _linear_bias(units, trainable)
            _add_to_collections(var, weight_collections)
            # its bias layer (a tf.layers Layer) leaves an empty UPDATE_OPS collection
            ops.get_collection_ref(ops.GraphKeys.UPDATE_OPS)
            return var

        return _linear_output(sums, ordered, bias, weights, cols_to_vars)


def _linear_weight(column, units, trainable):
    """A column's ``weights`` variable: a row per bucket or per dense element, zeros."""
    if isinstance(column, _CategoricalColumn):
        shape = (column._num_buckets, units)
    else:
        shape = [column._variable_shape.num_elements(), units]
    return variable_scope.get_variable(name="weights", shape=shape,
                                       initializer=init_ops.zeros_initializer(),
                                       trainable=trainable)


def _linear_bias(units, trainable):
    return variable_scope.get_variable("bias_weights", shape=[units],
                                       initializer=init_ops.zeros_initializer(),
                                       trainable=trainable)


def _linear_column_sum(column, builder, weight, units, weight_collections, trainable,
                       sparse_combiner):
    """A column's ``[batch, units]`` contribution to the logits."""
    if isinstance(column, _CategoricalColumn):
        return _categorical_weighted_sum(column, builder, weight, weight_collections,
                                         trainable, sparse_combiner)
    tensor = column._get_dense_tensor(builder, weight_collections=weight_collections,
                                      trainable=trainable)
    batch = array_ops.shape(tensor)[0]
    tensor = array_ops.reshape(tensor, (batch, column._variable_shape.num_elements()))
    return linalg_ops.matmul(tensor, weight, name="weighted_sum")


def _linear_output(sums, columns, bias, weights, cols_to_vars):
    """The sums plus the bias (``weighted_sum``; ``bias`` a variable, or a function making it
    once the sums are added); fills ``cols_to_vars``."""
    _verify_static_batch_size_equality(sums, columns)
    no_bias = math_ops.add_n(sums, name="weighted_sum_no_bias")
    if callable(bias):
        bias = bias()
    if cols_to_vars is not None:
        for column in columns:
            cols_to_vars[column] = _var_parts(weights[column])
        cols_to_vars["bias"] = _var_parts(bias)
    return nn_impl.bias_add(no_bias, bias, name="weighted_sum")


def _categorical_weighted_sum(column, builder, weight, weight_collections, trainable,
                              sparse_combiner):
    """A categorical column's ``sparse_combiner`` of its ids' weight rows (TF 1.15's ops: the
    ids reshaped to ``[batch, -1]``, then a safe embedding lookup)."""
    from tideflow.ops import nn_extra_ops

    pair = column._get_sparse_tensors(builder, weight_collections=weight_collections,
                                      trainable=trainable)
    ids = sparse_ops.sparse_reshape(pair.id_tensor,
                                    [array_ops.shape(pair.id_tensor)[0], -1])
    weights = pair.weight_tensor
    if weights is not None:
        weights = sparse_ops.sparse_reshape(weights, [array_ops.shape(weights)[0], -1])
    return nn_extra_ops.safe_embedding_lookup_sparse(weight, ids, sparse_weights=weights,
                                                     combiner=sparse_combiner,
                                                     name="weighted_sum")


def make_parse_example_spec(feature_columns):
    """The ``tf.parse_example`` features dict that all the columns need."""
    result = {}
    for column in feature_columns:
        if not isinstance(column, _FeatureColumn):
            raise ValueError(f"All feature_columns must be _FeatureColumn instances. Given: "  # noqa: TRY004 - as TF
                             f"{column}")
        for key, value in column._parse_example_spec.items():
            if key in result and result[key] != value:
                raise ValueError(f"feature_columns contain different parse_spec for key {key}. "
                                 f"Given {value} and {result[key]}")
        result.update(column._parse_example_spec)
    return result


def _transform_features(features, feature_columns):
    """Each column's transformed feature (TF's internal helper): ``{column: tensor}``."""
    columns = _normalize_feature_columns(feature_columns)
    outputs = {}
    with ops.name_scope(None, default_name="transform_features", values=features.values()):
        builder = _LazyBuilder(features)
        for column in sorted(columns, key=lambda c: c.name):
            with ops.name_scope(None, default_name=column.name):
                outputs[column] = builder.get(column)
    return outputs


# TF 1.15 keeps the v1 constructors under these private names (its public ones are v2's).
_numeric_column = numeric_column
_bucketized_column = bucketized_column
_categorical_column_with_hash_bucket = categorical_column_with_hash_bucket
_categorical_column_with_vocabulary_file = categorical_column_with_vocabulary_file
_categorical_column_with_vocabulary_list = categorical_column_with_vocabulary_list
_categorical_column_with_identity = categorical_column_with_identity
_weighted_categorical_column = weighted_categorical_column
_crossed_column = crossed_column
_embedding_column = embedding_column
_shared_embedding_columns = shared_embedding_columns
_indicator_column = indicator_column


def _public_name(cls, name):
    """TF 1.15's ``tf.feature_column`` constructors return its v2 classes, named without the
    underscore (``type(column).__name__`` prints so); the module keeps the name bound too, so
    a pickled column finds its class."""
    cls.__name__ = cls.__qualname__ = name
    globals()[name] = cls


for _cls, _name in ((_NumericColumn, "NumericColumn"), (_BucketizedColumn, "BucketizedColumn"),
                    (_VocabularyListColumn, "VocabularyListCategoricalColumn"),
                    (_VocabularyFileColumn, "VocabularyFileCategoricalColumn"),
                    (_IdentityCategoricalColumn, "IdentityCategoricalColumn"),
                    (_HashedCategoricalColumn, "HashedCategoricalColumn"),
                    (_WeightedCategoricalColumn, "WeightedCategoricalColumn"),
                    (_CrossedColumn, "CrossedColumn"), (_IndicatorColumn, "IndicatorColumn"),
                    (_EmbeddingColumn, "EmbeddingColumn")):
    _public_name(_cls, _name)
del _cls, _name
