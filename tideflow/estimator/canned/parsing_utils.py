"""``classifier_parse_example_spec`` / ``regressor_parse_example_spec``: the parse spec of
the feature columns plus the label (and weight) feature."""

from tideflow.feature_column import feature_column as fc
from tideflow.framework import dtypes
from tideflow.ops import parsing_ops


def _add_label_and_weight(spec, label_key, label_spec, weight_column):
    if label_key in spec:
        raise ValueError(f"label should not be used as feature. label_key: {label_key}, "
                         f"features: {sorted(spec)}")
    spec[label_key] = label_spec
    if weight_column is not None:
        if isinstance(weight_column, str):
            weight_column = fc.numeric_column(weight_column)
        spec.update(weight_column._parse_example_spec)
    return spec


def classifier_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.int64,
                                  label_default=None, weight_column=None):
    """The parse spec for a classifier's features, label and weight."""
    spec = fc.make_parse_example_spec(feature_columns)
    label_dtype = dtypes.as_dtype(label_dtype)
    if label_default is not None and label_dtype == dtypes.string and not isinstance(
            label_default, str):
        raise ValueError(f"label dtype and label_default mismatch. label_dtype: "
                         f"{label_dtype}; label_default: {label_default}")
    return _add_label_and_weight(spec, label_key, parsing_ops.FixedLenFeature(
        (1,), label_dtype, label_default), weight_column)


def regressor_parse_example_spec(feature_columns, label_key, label_dtype=dtypes.float32,
                                 label_default=None, label_dimension=1, weight_column=None):
    """The parse spec for a regressor's features, label and weight."""
    spec = fc.make_parse_example_spec(feature_columns)
    return _add_label_and_weight(spec, label_key, parsing_ops.FixedLenFeature(
        (label_dimension,), dtypes.as_dtype(label_dtype), label_default), weight_column)


__all__ = ["classifier_parse_example_spec", "regressor_parse_example_spec"]
