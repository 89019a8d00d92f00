"""``tf.keras.layers.DenseFeatures``: the dense tensor of feature columns (as
``tf.feature_column.input_layer``) as a Keras layer, TF 1.15's v1 layer.

Its input is a dict of feature tensors (dense or sparse); its output is the columns' dense
tensors, in the order of the columns' names, each flattened to [batch, size], concatenated.
Variables the columns make (embeddings) live under the layer's name
(``dense_features/<column>_embedding/embedding_weights``), are made on the first call and
reused by later ones, and are the layer's weights (so ``fit`` trains them)."""

import contextlib

from tideflow.feature_column import feature_column as fc
from tideflow.framework import ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import Layer
from tideflow.ops import array_ops, variable_scope


class DenseFeatures(Layer):
    """``DenseFeatures(feature_columns, trainable=True, name=None)``; call it on a dict of
    features (``layer(features, cols_to_output_tensors=None)``)."""

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        super().__init__(name=name, trainable=trainable, **kwargs)
        columns = fc._normalize_feature_columns(feature_columns)
        for column in columns:
            if not isinstance(column, fc._DenseColumn):
                raise ValueError("Items of feature_columns must be a DenseColumn. You can wrap "  # noqa: TRY004 - as TF
                                 "a categorical column with an embedding_column or "
                                 f"indicator_column. Given: {column}")
        self._feature_columns = columns
        self._var_scope = None
        self._made_weights = False

    def build(self, input_shape):
        self.built = True

    def _layer_scope(self):
        """The layer's variable scope (made on the first call, reused after), without a new
        name scope."""
        scope = self._var_scope or self.name
        vs = variable_scope.variable_scope(scope, reuse=variable_scope.AUTO_REUSE,
                                           auxiliary_name_scope=False)
        return vs

    def _track_new_variables(self, before):
        """The variables the first call made become the layer's weights."""
        if self._made_weights:
            return
        trainable = set(ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES))
        for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES):
            if v in before:
                continue
            K._track_variable(v)
            (self._trainable_weights if v in trainable else
             self._non_trainable_weights).append(v)
        self._made_weights = True

    @contextlib.contextmanager
    def _columns_scope(self, features):
        """Checks ``features`` is a dict, enters the layer's scope and yields the columns'
        builder; after, the variables made become the layer's weights."""
        if not isinstance(features, dict):
            raise ValueError("We expected a dictionary here. Instead we got: ", features)  # noqa: TRY004 - as TF
        before = set(ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES))
        with self._layer_scope() as vs:
            self._var_scope = vs
            yield fc._LazyBuilder(features)
        self._track_new_variables(before)

    def call(self, features, cols_to_output_tensors=None):
        outputs = []
        with self._columns_scope(features) as builder:
            # as TF 1.15's layer: every embedding column's table first (resource variables, in
            # the columns' order), then the transforms, each under its column's name scope
            with variable_scope.variable_scope(variable_scope.get_variable_scope(),
                                               use_resource=True,
                                               auxiliary_name_scope=False):
                fc._make_layer_state(builder, self._feature_columns,
                                     fc._weight_collections(None), self.trainable)
            layer_scope = ops.get_default_graph().get_name_scope()
            for column in self._feature_columns:
                with variable_scope.variable_scope(column._var_scope_name,
                                                   auxiliary_name_scope=False), \
                        ops.name_scope(f"{layer_scope}/{column.name}/"):
                    tensor = column._get_dense_tensor(
                        builder, weight_collections=fc._weight_collections(None),
                        trainable=self.trainable)
                    out = fc._flat_dense(column, tensor)
                    outputs.append(out)
                    if cols_to_output_tensors is not None:
                        cols_to_output_tensors[column] = out
        return array_ops.concat(outputs, -1)

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict):
            input_shape = next(iter(input_shape.values()), None)
        batch = TensorShape(input_shape).as_list()[0] if input_shape is not None and \
            TensorShape(input_shape).ndims else None
        total = sum(c._variable_shape.num_elements() for c in self._feature_columns)
        return TensorShape([batch, total])

    def get_config(self):
        config = {"feature_columns": [serialize_feature_column(c)
                                      for c in self._feature_columns]}
        config.update(super().get_config())
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        config["feature_columns"] = [deserialize_feature_column(c, custom_objects)
                                     for c in config["feature_columns"]]
        return cls(**config)


class SequenceFeatures(DenseFeatures):
    """``tf.keras.experimental.SequenceFeatures``: sequence feature columns (sequence numeric
    columns; embedding or indicator columns of sequence categorical columns) as
    ``(sequence_input [batch, steps, depth], sequence_length [batch])``, the columns in the
    order of their names, concatenated on the last axis."""

    def __init__(self, feature_columns, trainable=True, name=None, **kwargs):
        from tideflow.feature_column import sequence_feature_column as sfc

        columns = fc._normalize_feature_columns(feature_columns)
        for column in columns:
            cat = getattr(column, "categorical_column", None)
            if not (isinstance(column, sfc._SequenceDenseColumn) or
                    isinstance(cat, sfc._SequenceCategoricalColumn)):
                raise ValueError("Items of feature_columns must be a SequenceDenseColumn. You "  # noqa: TRY004 - as TF
                                 "can wrap a sequence_categorical_column with an "
                                 f"embedding_column or indicator_column. Given: {column}")
        Layer.__init__(self, name=name, trainable=trainable, **kwargs)
        self._feature_columns = columns
        self._var_scope = None
        self._made_weights = False

    def call(self, features):
        from tideflow.feature_column import sequence_feature_column as sfc

        outputs, lengths = [], []
        with self._columns_scope(features) as builder:
            for column in self._feature_columns:
                with variable_scope.variable_scope(column._var_scope_name):
                    dense, length = sfc._sequence_dense_of(
                        column, builder, fc._weight_collections(None), self.trainable)
                    outputs.append(sfc._sequence_3d(column, dense))
                    lengths.append(length)
        return list(sfc._joined(outputs, lengths))

    def compute_output_shape(self, input_shape):
        if isinstance(input_shape, dict):
            input_shape = next(iter(input_shape.values()), None)
        batch = TensorShape(input_shape).as_list()[0] if input_shape is not None and \
            TensorShape(input_shape).ndims else None
        return [TensorShape([batch, None, None]), TensorShape([batch])]


# -- feature columns in a layer's config (as TF's feature_column serialization) ------------------

def _column_classes():
    from tideflow.feature_column import sequence_feature_column as sfc

    return {
        "NumericColumn": fc._NumericColumn, "BucketizedColumn": fc._BucketizedColumn,
        "VocabularyListCategoricalColumn": fc._VocabularyListColumn,
        "VocabularyFileCategoricalColumn": fc._VocabularyFileColumn,
        "IdentityCategoricalColumn": fc._IdentityCategoricalColumn,
        "HashedCategoricalColumn": fc._HashedCategoricalColumn,
        "WeightedCategoricalColumn": fc._WeightedCategoricalColumn,
        "CrossedColumn": fc._CrossedColumn, "IndicatorColumn": fc._IndicatorColumn,
        "EmbeddingColumn": fc._EmbeddingColumn,
        "SequenceNumericColumn": sfc._SequenceNumericColumn,
        "SequenceCategoricalColumn": sfc._SequenceCategoricalColumn,
    }


def _serialize_value(value):
    from tideflow.framework import dtypes

    if isinstance(value, fc._FeatureColumn):
        return serialize_feature_column(value)
    if isinstance(value, dtypes.DType):
        return value.name
    if isinstance(value, (list, tuple)):
        return [_serialize_value(v) for v in value]
    if hasattr(value, "get_config") and not isinstance(value, type):
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if callable(value):
        return getattr(value, "__name__", None)
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        return value.item()  # NumPy scalars
    return value


def serialize_feature_column(column):
    """``{'class_name': TF's class name (NumericColumn...), 'config': the fields}``."""
    names = {cls: name for name, cls in _column_classes().items()}
    name = names.get(type(column))
    if name is None:
        raise ValueError(f"Cannot serialize the feature column {column} in a layer config.")
    return {"class_name": name,
            "config": {f: _serialize_value(getattr(column, f)) for f in column._fields}}


def deserialize_feature_column(config, custom_objects=None):
    """The feature column of ``serialize_feature_column`` (a column passes as it is);
    ``normalizer_fn`` names come from ``custom_objects`` or Keras's custom objects."""
    from tideflow.framework import dtypes
    from tideflow.keras.utils import get_custom_objects
    from tideflow.ops import init_ops

    if isinstance(config, fc._FeatureColumn):
        return config
    cls = _column_classes().get(config.get("class_name"))
    if cls is None:
        raise ValueError(f"Unknown feature column: {config.get('class_name')}")
    fields = dict(config["config"])
    for key, value in fields.items():
        if isinstance(value, dict) and "class_name" in value:
            if value["class_name"] in _column_classes():
                fields[key] = deserialize_feature_column(value, custom_objects)
            else:  # an initializer
                init_cls = getattr(init_ops, value["class_name"])
                init_config = {k: v for k, v in value["config"].items()}
                fields[key] = init_cls(**init_config)
        elif key == "dtype" and value is not None:
            fields[key] = dtypes.as_dtype(value)
        elif key == "normalizer_fn" and value is not None:
            fn = (custom_objects or {}).get(value) or get_custom_objects().get(value)
            if fn is None:
                raise ValueError(f"Unknown normalizer_fn {value!r}: pass it in "
                                 "custom_objects.")
            fields[key] = fn
        elif key == "keys":
            fields[key] = tuple(deserialize_feature_column(v, custom_objects)
                                if isinstance(v, dict) else v for v in value)
        elif isinstance(value, list):
            fields[key] = tuple(tuple(v) if isinstance(v, list) else v for v in value)
    return cls(**fields)
