"""``tf.contrib.estimator.DNNClassifierWithLayerAnnotations`` and
``DNNRegressorWithLayerAnnotations``: the canned DNNs as plain ``Estimator``s. TF 1.15 meant
them to file the input layer's features and columns in ``layer_annotations/...`` collections,
but its hook replaces an input-layer function 1.15's DNN no longer calls: the collections
stay empty and the models are the DNNs', as here."""

from tideflow.estimator.canned import dnn
from tideflow.estimator.estimator import Estimator
from tideflow.ops import losses_impl, nn_impl


class LayerAnnotationsCollectionNames:
    """The collections' names (TF's, its "annotatons" typo included)."""

    UNPROCESSED_FEATURES = "layer_annotations/unprocessed_features"
    PROCESSED_FEATURES = "layer_annotatons/processed_features"
    FEATURE_COLUMNS = "layer_annotations/feature_columns"

    @classmethod
    def keys(cls, collection_name):
        return f"{collection_name}/keys"

    @classmethod
    def values(cls, collection_name):
        return f"{collection_name}/values"


def _wrapped(original, model_dir, config, warm_start_from):
    def model_fn(features, labels, mode, config):
        return original.model_fn(features, labels, mode, config)

    return Estimator(model_fn=model_fn, model_dir=model_dir, config=config,
                     warm_start_from=warm_start_from)


def DNNClassifierWithLayerAnnotations(hidden_units, feature_columns, model_dir=None,
                                      n_classes=2, weight_column=None, label_vocabulary=None,
                                      optimizer="Adagrad", activation_fn=nn_impl.relu,
                                      dropout=None, input_layer_partitioner=None, config=None,
                                      warm_start_from=None,
                                      loss_reduction=losses_impl.Reduction.SUM):
    """A ``DNNClassifier``'s model as an ``Estimator``."""
    original = dnn.DNNClassifier(
        hidden_units=hidden_units, feature_columns=feature_columns, model_dir=model_dir,
        n_classes=n_classes, weight_column=weight_column, label_vocabulary=label_vocabulary,
        optimizer=optimizer, activation_fn=activation_fn, dropout=dropout,
        input_layer_partitioner=input_layer_partitioner, config=config,
        warm_start_from=warm_start_from, loss_reduction=loss_reduction)
    return _wrapped(original, model_dir, config, warm_start_from)


def DNNRegressorWithLayerAnnotations(hidden_units, feature_columns, model_dir=None,
                                     label_dimension=1, weight_column=None,
                                     optimizer="Adagrad", activation_fn=nn_impl.relu,
                                     dropout=None, input_layer_partitioner=None, config=None,
                                     warm_start_from=None,
                                     loss_reduction=losses_impl.Reduction.SUM):
    """A ``DNNRegressor``'s model as an ``Estimator``."""
    original = dnn.DNNRegressor(
        hidden_units=hidden_units, feature_columns=feature_columns, model_dir=model_dir,
        label_dimension=label_dimension, weight_column=weight_column, optimizer=optimizer,
        activation_fn=activation_fn, dropout=dropout,
        input_layer_partitioner=input_layer_partitioner, config=config,
        warm_start_from=warm_start_from, loss_reduction=loss_reduction)
    return _wrapped(original, model_dir, config, warm_start_from)


__all__ = ["DNNClassifierWithLayerAnnotations", "DNNRegressorWithLayerAnnotations"]
