"""``tf.contrib.kernel_methods``: explicit kernel maps (random Fourier features for the RBF
kernel), the Crammer-Singer multiclass hinge loss, and ``KernelLinearClassifier`` (a
contrib.learn linear classifier over kernel-mapped real-valued columns)."""

import abc
import math

import numpy as np

from tideflow import contrib_learn as _learn
from tideflow import logging
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    check_ops,
    concat_ops,
    constant_op,
    gather_ops,
    linalg_ops,
    losses_impl,
    math_ops,
    nn_impl,
    range_ops,
    reduction_ops,
)

__all__ = ["KernelLinearClassifier", "RandomFourierFeatureMapper",
           "sparse_multiclass_hinge_loss"]


class InvalidShapeError(Exception):
    """A tensor's shape is not the one a kernel mapper expects."""


class DenseKernelMapper(abc.ABC):
    """A kernel mapper from dense inputs to dense outputs (``map``, ``name``,
    ``output_dim``)."""

    @abc.abstractmethod
    def map(self, input_tensor):
        """The mapped ``input_tensor``."""
        raise NotImplementedError(f"map is not implemented for {self}.")

    @property
    @abc.abstractmethod
    def name(self):
        """The mapper's name."""

    @property
    @abc.abstractmethod
    def output_dim(self):
        """The dimension of the mapped features."""


class RandomFourierFeatureMapper(DenseKernelMapper):
    """Random Fourier features (Rahimi and Recht, 2007) approximating the Gaussian kernel of
    width ``stddev``: ``sqrt(2 / output_dim) * cos(x @ omega + b)``, ``omega`` ~ N(0, 1/stddev^2)
    and ``b`` ~ U[0, 2 pi) drawn from NumPy's global generator seeded with ``seed`` each time
    ``map`` is called (so every map of one mapper uses the same ``omega`` and ``b``), stored in
    the graph as constants."""

    def __init__(self, input_dim, output_dim, stddev=1.0, seed=1, name=None):
        self._input_dim = input_dim
        self._output_dim = output_dim
        self._stddev = stddev
        self._seed = seed
        self._name = name

    @property
    def name(self):
        """The given name, else the object's id as a string."""
        return self._name or str(id(self))

    @property
    def input_dim(self):
        return self._input_dim

    @property
    def output_dim(self):
        return self._output_dim

    def map(self, input_tensor):
        """Maps each row of ``input_tensor`` [batch, input_dim] to [batch, output_dim]."""
        shape = input_tensor.get_shape()
        if len(shape) != 2:
            raise InvalidShapeError(f"The shape of the tensor should be 2. Got {len(shape)} "
                                    "instead.")
        if shape[1] != self._input_dim:
            raise InvalidShapeError(
                f"Invalid dimension: expected {self._input_dim} input features, got "
                f"{shape[1].value} instead.")
        # TF 1.15 reseeds NumPy's global generator here: the same draws on every call
        np.random.seed(self._seed)
        omega = constant_op.constant(
            np.random.normal(scale=1.0 / self._stddev, size=[self._input_dim, self._output_dim]),
            dtype=dtypes.float32)
        bias = constant_op.constant(
            np.random.uniform(low=0.0, high=2 * np.pi, size=[self._output_dim]),
            dtype=dtypes.float32)
        projected = math_ops.add(linalg_ops.matmul(input_tensor, omega), bias)
        return math.sqrt(2.0 / self._output_dim) * math_ops.cos(projected)


def sparse_multiclass_hinge_loss(labels, logits, weights=1.0, scope=None,
                                 loss_collection=ops.GraphKeys.LOSSES,
                                 reduction=losses_impl.Reduction.SUM_BY_NONZERO_WEIGHTS):
    """The Crammer-Singer multiclass hinge loss ``max(0, max_{c != y} logits_c - logits_y + 1)``
    per example (``labels`` [batch] or [batch, 1] class ids, ``logits`` [batch, classes]),
    weighted and reduced as ``tf.losses.compute_weighted_loss``."""
    with ops.name_scope(scope, "sparse_multiclass_hinge_loss", (logits, labels)) as name:
        logits_rank = logits.get_shape().ndims
        if logits_rank != 2:
            raise ValueError("logits should have rank 2 ([batch_size, num_classes]). Given "
                             f"rank is {logits_rank}")
        logits_shape = array_ops.shape(logits)
        batch_size, num_classes = logits_shape[0], logits_shape[1]
        logits = cast_ops.cast(logits, dtypes.float32)

        if labels.dtype != dtypes.int32 and labels.dtype != dtypes.int64:
            raise ValueError(f"Invalid dtype for labels: {labels.dtype}. Acceptable dtypes: "
                             "int32 and int64")
        labels_rank = labels.get_shape().ndims
        if labels_rank not in (1, 2):
            raise ValueError("labels should have rank 1 ([batch_size]) or 2 ([batch_size, 1]). "
                             f"Given rank is {labels_rank}")
        in_range = check_ops.assert_less(labels, cast_ops.cast(num_classes, labels.dtype))
        with ops.control_dependencies([in_range]):
            labels = array_ops.reshape(labels, shape=[-1])

        weights = ops.convert_to_tensor(weights)
        weights_rank = weights.get_shape().ndims
        if weights_rank not in (0, 1, 2):
            # TF 1.15's message reports the labels' rank here
            raise ValueError("non-scalar weights should have rank 1 ([batch_size]) or 2 "
                             f"([batch_size, 1]). Given rank is {labels_rank}")
        if weights_rank > 0:
            weights = array_ops.reshape(weights, shape=[-1])
            weights.get_shape().assert_is_compatible_with(labels.get_shape())

        # each example's logit of its own class
        rows = array_ops.reshape(range_ops.range(batch_size), shape=[batch_size, 1])
        indices = concat_ops.concat(
            [rows, array_ops.reshape(cast_ops.cast(labels, rows.dtype), shape=[batch_size, 1])],
            axis=1)
        label_logits = array_ops.reshape(gather_ops.gather_nd(params=logits, indices=indices),
                                         shape=[batch_size, 1])
        others = range_ops.one_hot(indices=labels, depth=num_classes, on_value=0.0,
                                   off_value=1.0)
        margin = nn_impl.relu(logits - label_logits + others)
        loss = reduction_ops.reduce_max(margin, axis=1)
        return losses_impl.compute_weighted_loss(loss, weights, name, loss_collection,
                                                 reduction=reduction)


def _is_real_valued(column):
    from tideflow.feature_column import feature_column as fc

    return isinstance(column, fc._NumericColumn)


def _mapped_columns(kernel_mappers):
    """The ``<name>_MAPPED`` real-valued columns the kernel mappers produce, and a function
    adding their features (each column's mapped tensors, concatenated) to a features dict."""
    from tideflow.contrib_feature_columns import real_valued_column

    plan = []
    for column, mappers in (kernel_mappers or {}).items():
        if not _is_real_valued(column):
            logging.warning("Updates are currently supported on RealValuedColumns only. "
                            f"Metadata for FeatureColumn {column.name} will not be updated.")
            continue
        plan.append((column.name, column.name + "_MAPPED", list(mappers)))
    columns = [real_valued_column(mapped, sum(m.output_dim for m in mappers))
               for _, mapped, mappers in plan]

    def add_features(features, labels):
        if not plan:
            return features, labels
        features = dict(features)
        for name, mapped, mappers in plan:
            features[mapped] = concat_ops.concat([m.map(features[name]) for m in mappers], 1)
        return features, labels

    return columns, add_features


class KernelLinearClassifier(_learn.LinearClassifier):
    """A contrib.learn linear classifier whose real-valued columns may first be mapped by
    explicit kernel mappers: ``kernel_mappers`` maps a column to a list of
    ``DenseKernelMapper``s whose outputs, concatenated, form the column ``<name>_MAPPED``
    (the original column is used too only when it is in ``feature_columns``)."""

    def __init__(self, feature_columns=None, model_dir=None, n_classes=2,
                 weight_column_name=None, optimizer=None, kernel_mappers=None, config=None):
        if not feature_columns and not kernel_mappers:
            raise ValueError("You should set at least one of feature_columns, "
                             "kernel_mappers.")
        for mappers in (kernel_mappers or {}).values():
            if not all(isinstance(m, DenseKernelMapper) for m in mappers):
                raise ValueError("Invalid kernel mappers.")
        if n_classes < 2:
            raise ValueError(f"n_classes must be > 1 for classification: {n_classes}.")
        mapped, map_features = _mapped_columns(kernel_mappers)
        columns = list(feature_columns or [])
        columns += [c for c in mapped if c not in columns]

        def add_features(features, labels):
            # as TF's model_fn, which puts the mapped columns into its params
            self.params["feature_columns"] = set(feature_columns or []) | set(mapped)
            return map_features(features, labels)

        super().__init__(columns, model_dir=model_dir, n_classes=n_classes,
                         weight_column_name=weight_column_name, optimizer=optimizer,
                         config=config, feature_engineering_fn=add_features)
        from tideflow.estimator.canned import head

        self.params = {"head": head.classification_head(n_classes, weight_column_name),
                       "feature_columns": feature_columns or [], "optimizer": optimizer,
                       "kernel_mappers": kernel_mappers}

    def predict(self, x=None, input_fn=None, batch_size=None, outputs=None,
                as_iterable=True):
        """The prediction dicts (all keys, or ``outputs``), as a plain contrib.learn
        ``Estimator`` gives them."""
        return _learn.Estimator.predict(self, x, input_fn, batch_size, outputs, as_iterable)

    def predict_classes(self, input_fn=None):
        """A generator of each example's predicted class id."""
        return self._one(_learn.PredictionKey.CLASSES, None, input_fn, None, True)

    def predict_proba(self, input_fn=None):
        """A generator of each example's class probabilities."""
        return self._one(_learn.PredictionKey.PROBABILITIES, None, input_fn, None, True)
