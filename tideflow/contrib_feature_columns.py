"""``tf.contrib.layers``' feature columns (TF 0.10-1.4: ``real_valued_column``,
``sparse_column_with_keys``, ``embedding_column``, ``input_from_feature_columns``, ...) as the
``tf.feature_column`` columns they became."""

from tideflow.feature_column import feature_column as _fc
from tideflow.framework import dtypes
from tideflow.framework import ops as _ops


def real_valued_column(column_name, dimension=1, default_value=None, dtype=dtypes.float32,
                       normalizer=None):
    """A dense column of ``dimension`` real values."""
    if dimension is None:
        raise NotImplementedError(
            "real_valued_column(dimension=None) (a variable-length sparse real column) is not "
            f"supported; give column {column_name!r} a fixed dimension")
    if not isinstance(dimension, int) or dimension < 1:
        raise TypeError(f"dimension must be an integer >= 1, got {dimension!r} "
                        f"(column {column_name!r})")
    return _fc.numeric_column(column_name, shape=(dimension,), default_value=default_value,
                              dtype=dtypes.as_dtype(dtype), normalizer_fn=normalizer)


def sparse_column_with_keys(column_name, keys, default_value=-1, combiner="sum",
                            dtype=dtypes.string):
    """Ids from a fixed list of ``keys`` (unknown keys get ``default_value``)."""
    return _fc.categorical_column_with_vocabulary_list(
        column_name, list(keys), dtype=dtypes.as_dtype(dtype), default_value=default_value)


def sparse_column_with_hash_bucket(column_name, hash_bucket_size, combiner="sum",
                                   dtype=dtypes.string, hash_keys=None):
    """Ids from hashing the feature's values into ``hash_bucket_size`` buckets."""
    return _fc.categorical_column_with_hash_bucket(column_name, hash_bucket_size,
                                                   dtype=dtypes.as_dtype(dtype))


def sparse_column_with_integerized_feature(column_name, bucket_size, combiner="sum",
                                           dtype=dtypes.int64):
    """Integer features used as ids in ``[0, bucket_size)``."""
    return _fc.categorical_column_with_identity(column_name, bucket_size)


def sparse_column_with_vocabulary_file(column_name, vocabulary_file, num_oov_buckets=0,
                                       vocab_size=None, default_value=-1, combiner="sum",
                                       dtype=dtypes.string):
    """Ids from a vocabulary file, one key a line."""
    return _fc.categorical_column_with_vocabulary_file(
        column_name, vocabulary_file, vocabulary_size=vocab_size,
        num_oov_buckets=num_oov_buckets,
        default_value=None if num_oov_buckets else default_value, dtype=dtypes.as_dtype(dtype))


def weighted_sparse_column(sparse_id_column, weight_column_name, dtype=dtypes.float32):
    """``sparse_id_column`` with a weight per id from ``weight_column_name``."""
    return _fc.weighted_categorical_column(sparse_id_column, weight_column_name, dtype=dtype)


def one_hot_column(sparse_id_column):
    """A multi-hot dense representation of ``sparse_id_column``."""
    return _fc.indicator_column(sparse_id_column)


def embedding_column(sparse_id_column, dimension, combiner="mean", initializer=None,
                     ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                     trainable=True):
    """A dense ``dimension``-wide embedding of ``sparse_id_column``."""
    return _fc.embedding_column(sparse_id_column, dimension, combiner=combiner,
                                initializer=initializer, ckpt_to_load_from=ckpt_to_load_from,
                                tensor_name_in_ckpt=tensor_name_in_ckpt, max_norm=max_norm,
                                trainable=trainable)


def shared_embedding_columns(sparse_id_columns, dimension, combiner="mean",
                             shared_embedding_name=None, initializer=None,
                             ckpt_to_load_from=None, tensor_name_in_ckpt=None, max_norm=None,
                             trainable=True):
    return _fc.shared_embedding_columns(
        sparse_id_columns, dimension, combiner=combiner,
        shared_embedding_collection_name=shared_embedding_name, initializer=initializer,
        ckpt_to_load_from=ckpt_to_load_from, tensor_name_in_ckpt=tensor_name_in_ckpt,
        max_norm=max_norm, trainable=trainable)


def bucketized_column(source_column, boundaries):
    """``source_column`` (real-valued) bucketized at ``boundaries``."""
    return _fc.bucketized_column(source_column, list(boundaries))


class _ContribCrossedColumn(_fc._CrossedColumn):
    """contrib.layers' crossed column: its sparse columns' raw values (a bucketized column's
    bucket ids) crossed in the order of the columns' names by ``SparseFeatureCross`` (TF's
    ``HashCombine`` chain without a ``hash_key``, ``FingerprintCat64`` with one)."""

    def _transform_feature(self, inputs):
        from tideflow.ops.sparse_feature_cross_ops import sparse_feature_cross

        tensors = []
        for key in self._leaves():
            if isinstance(key, _fc._BucketizedColumn):
                tensors.append(key._get_sparse_tensors(inputs).id_tensor)
            else:
                tensors.append(inputs.get(key if isinstance(key, str) else key.key))
        return sparse_feature_cross(tensors, hashed_output=True,
                                    num_buckets=self.hash_bucket_size, hash_key=self.hash_key,
                                    name="cross")


def crossed_column(columns, hash_bucket_size, combiner="sum", ckpt_to_load_from=None,
                   tensor_name_in_ckpt=None, hash_key=None):
    """The hashed cross of ``columns`` (sparse, bucketized or crossed columns), as TF 1.x's
    contrib cross: the sparse columns' raw values, in the order of the columns' names."""
    columns = list(columns)
    for c in columns:
        if not isinstance(c, (_fc._CategoricalColumn, _fc._BucketizedColumn)) or isinstance(
                c, _fc._WeightedCategoricalColumn):
            raise TypeError("columns must be a set of _SparseColumn, _CrossedColumn, or "
                            f"_BucketizedColumn instances. (column {c} is a "
                            f"{type(c).__name__})")
    if len(columns) < 2:
        raise ValueError(f"columns must contain at least 2 elements. columns: {columns}")
    if hash_bucket_size < 2:
        raise ValueError(f"hash_bucket_size must be at least 2. hash_bucket_size: "
                         f"{hash_bucket_size}")
    ordered = tuple(sorted(columns, key=lambda c: c.name))
    return _ContribCrossedColumn(ordered, int(hash_bucket_size), hash_key)


def input_from_feature_columns(columns_to_tensors, feature_columns, weight_collections=None,
                               trainable=True, scope=None, cols_to_outs=None):
    """The dense input layer of ``feature_columns`` (``tf.feature_column.input_layer``)."""
    with _variable_scope(scope, "input_from_feature_columns", columns_to_tensors):
        if _real_valued_only(columns_to_tensors, feature_columns):
            return _real_valued_input_layer(columns_to_tensors, feature_columns, cols_to_outs)
        return _fc.input_layer(columns_to_tensors, list(feature_columns),
                               weight_collections=weight_collections, trainable=trainable)


def _real_valued_only(columns_to_tensors, feature_columns):
    """True for real-valued columns of dense [batch] or [batch, dimension] tensors: the input
    layer is then built with TF 1.15's contrib ops (its op count, hence later seeds)."""
    if not isinstance(columns_to_tensors, dict) or not feature_columns:
        return False
    for col in feature_columns:
        if not isinstance(col, _fc._NumericColumn) or len(col.shape) != 1:
            return False
        t = columns_to_tensors.get(col.key)
        if not isinstance(t, _ops.Tensor):
            return False
        shape = t.get_shape()
        if shape.ndims == 1 and col.shape[0] == 1:
            continue
        if shape.ndims != 2 or shape[1].value != col.shape[0]:
            return False
    return True


def _real_valued_input_layer(columns_to_tensors, feature_columns, cols_to_outs):
    """TF 1.15's contrib input layer of real-valued columns: per column (by key, each in a
    scope of its name) the normalizer, a cast to float32 and, for a [batch] tensor, an
    expand_dims; then one concat."""
    from tideflow.ops import array_ops, cast_ops, concat_ops
    from tideflow.ops import variable_scope as vs

    outs = []
    for col in sorted(set(feature_columns), key=lambda c: c.key):
        with vs.variable_scope(None, default_name=col.name,
                               values=list(columns_to_tensors.values())):
            t = columns_to_tensors[col.key]
            if col.normalizer_fn is not None:
                t = col.normalizer_fn(t)
            t = cast_ops.cast(t, dtypes.float32)
            if t.get_shape().ndims == 1:
                t = array_ops.expand_dims(t, -1, name="expand_dims")
            outs.append(t)
        if cols_to_outs is not None:
            cols_to_outs[col] = outs[-1]
    return concat_ops.concat(outs, 1)


def weighted_sum_from_feature_columns(columns_to_tensors, feature_columns, num_outputs,
                                      weight_collections=None, trainable=True, scope=None):
    """``(predictions, column_to_variables, bias)`` of a linear model on
    ``feature_columns``."""
    cols_to_vars = {}
    with _variable_scope(scope, "weighted_sum_from_feature_columns", columns_to_tensors):
        out = _fc.linear_model(columns_to_tensors, list(feature_columns), units=num_outputs,
                               weight_collections=weight_collections, trainable=trainable,
                               cols_to_vars=cols_to_vars)
    bias = cols_to_vars.pop("bias", None)
    if isinstance(bias, list) and len(bias) == 1:
        bias = bias[0]
    return out, cols_to_vars, bias


def create_feature_spec_for_parsing(feature_columns):
    """The ``parse_example`` spec the columns need (a fixed-length feature's shape a list,
    as TF 1.15's contrib columns give it: ``FixedLenFeature(shape=[3], ...)``)."""
    from tideflow.ops.parsing_ops import FixedLenFeature

    spec = _fc.make_parse_example_spec(list(feature_columns))
    return {k: v._replace(shape=list(v.shape)) if isinstance(v, FixedLenFeature) else v
            for k, v in spec.items()}


def parse_feature_columns_from_examples(serialized, feature_columns, name=None,
                                        example_names=None):
    """Parses ``tf.Example`` protos into the features ``feature_columns`` read."""
    from tideflow.ops import parsing_ops

    return parsing_ops.parse_example(serialized, create_feature_spec_for_parsing(
        feature_columns), name=name, example_names=example_names)


def infer_real_valued_columns(features):
    """One real-valued column per dense feature tensor (a bare tensor is the column "")."""
    if not isinstance(features, dict):
        features = {"": features}
    out = []
    for key, t in sorted(features.items()):
        t = _ops.convert_to_tensor(t)
        out.append(_fc.numeric_column(key, shape=t.get_shape()[1:].as_list() or (1,)))
    return out


def transform_features(features, feature_columns):
    """``{column: transformed tensor}`` for ``feature_columns`` (ids for sparse columns,
    bucket ids for bucketized ones), each column transformed once."""
    return _fc._transform_features(features, list(feature_columns))


def _variable_scope(scope, default_name, values):
    from tideflow.ops import variable_scope

    values = list(values.values()) if isinstance(values, dict) else None
    return variable_scope.variable_scope(scope, default_name=default_name, values=values)


__all__ = ["bucketized_column", "create_feature_spec_for_parsing", "crossed_column",
           "embedding_column", "infer_real_valued_columns", "input_from_feature_columns",
           "one_hot_column", "parse_feature_columns_from_examples", "real_valued_column",
           "shared_embedding_columns", "sparse_column_with_hash_bucket",
           "sparse_column_with_integerized_feature", "sparse_column_with_keys",
           "sparse_column_with_vocabulary_file", "transform_features",
           "weighted_sparse_column", "weighted_sum_from_feature_columns"]
