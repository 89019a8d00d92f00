"""``LinearClassifier``, ``LinearRegressor`` and ``LinearEstimator``: ``linear_model`` over
feature columns (variables under ``linear/linear_model/``), trained with FTRL by default."""

import math

from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys
from tideflow.feature_column import feature_column as fc
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    losses_impl,
    math_ops,
    nn_impl,
    partitioned_variables,
    variable_scope,
)
from tideflow.summary import summary as summary_lib
from tideflow.train import training_util

_LEARNING_RATE = 0.2


def linear_learning_rate(num_feature_columns, cap=_LEARNING_RATE):
    return min(cap, 1.0 / math.sqrt(num_feature_columns))


def _compute_fraction_of_zero(variables):
    """The fraction of zeros among all the entries of ``variables`` (each a variable or a list
    of a partitioned variable's parts), as one float32 scalar, built as TF 1.15's: per part a
    cond that skips empty parts, the sum over the total size."""
    from tideflow.ops.cond import cond

    parts = []
    for v in variables:
        parts.extend(v if isinstance(v, (list, tuple)) else fc._var_parts(v))
    with ops.name_scope("zero_fraction"):
        with ops.name_scope("total_size"):
            sizes = [array_ops.size(p, out_type=dtypes.int64) for p in parts]
            total_size = math_ops.add_n(sizes)
        with ops.name_scope("total_zero"):
            total_zero = math_ops.add_n([
                cond(math_ops.equal(size, ops.convert_to_tensor(0, dtype=dtypes.int64)),
                     lambda: ops.convert_to_tensor(0.0, dtype=dtypes.float32),
                     lambda p=p, size=size: (nn_impl.zero_fraction(p)
                                             * cast_ops.to_float(size)),
                     name="zero_count")
                for p, size in zip(parts, sizes)])
        with ops.name_scope("compute"):
            fraction = total_zero / cast_ops.cast(total_size, dtypes.float32,
                                                  name="float32_size")
        return array_ops.identity(fraction, name="zero_fraction_or_nan")


def linear_logit_fn_builder(units, feature_columns, sparse_combiner="sum"):
    """A ``logit_fn(features)``: ``linear_model`` (variables under ``linear_model/``) with
    TF's summaries of the bias and of the fraction of zero weights."""

    def linear_logit_fn(features):
        cols_to_vars = {}
        # TF 1.15's canned linear models are its Keras LinearModel (on its v2 columns)
        logits = fc.linear_model(features, list(feature_columns), units=units,
                                 sparse_combiner=sparse_combiner, cols_to_vars=cols_to_vars,
                                 _keras_layout=True)
        bias = cols_to_vars.pop("bias")  # its parts, as TF's
        if units > 1:
            summary_lib.histogram("bias", bias)
        else:
            summary_lib.scalar("bias", bias[0][0])
        summary_lib.scalar("fraction_of_zero_weights",
                           _compute_fraction_of_zero(cols_to_vars.values()))
        return logits

    return linear_logit_fn


def linear_logits(features, feature_columns, units, sparse_combiner, scope="linear",
                  return_name_scope=False, partitioner=None):
    """The logits under variable scope ``scope`` (its variables split by ``partitioner``);
    with ``return_name_scope`` also the name scope that opened (``"linear/"``), where TF 1.x
    builds the head."""
    from tideflow.estimator.canned.dnn import _layer_summaries

    with variable_scope.variable_scope(scope, values=list(features.values()),
                                       partitioner=partitioner) as vs:
        logits = linear_logit_fn_builder(units, feature_columns, sparse_combiner)(features)
        # as TF 1.15's wide-and-deep model (this function's user): the linear logits'
        # fraction of zeros and histogram, tagged by the variable scope
        _layer_summaries(vs.name, logits)
        name_scope = ops.get_default_graph().get_name_scope() + "/"
    return (logits, name_scope) if return_name_scope else logits


def _linear_model_fn(features, labels, mode, head, feature_columns, optimizer,
                     sparse_combiner, partitioner=None):
    if not isinstance(features, dict):
        raise ValueError(f"features should be a dictionary of `Tensor`s. Given type: "  # noqa: TRY004 - as TF
                         f"{type(features)}")
    from tideflow.contrib_linear_optimizer import LinearSDCA, core_sdca_model_fn

    if isinstance(optimizer, LinearSDCA):  # trained by dual coordinate ascent
        return core_sdca_model_fn(features, labels, mode, head, feature_columns, optimizer,
                                  partitioner)
    # as TF 1.x, the head (its ops linear/head/...) and the optimizer's slots
    # (linear/<variable>/<slot>) are built inside the model's variable scope
    with variable_scope.variable_scope("linear", values=list(features.values()),
                                       partitioner=partitioner):
        logits = linear_logit_fn_builder(head.logits_dimension, feature_columns,
                                         sparse_combiner)(features)
        opt = None
        if mode == ModeKeys.TRAIN:
            opt = head_lib.get_optimizer_instance(
                optimizer, learning_rate=linear_learning_rate(len(feature_columns)))

        def train_op_fn(loss):
            return opt.minimize(loss, global_step=training_util.get_global_step())

        return head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                          labels=labels,
                                          train_op_fn=train_op_fn if opt is not None else None)


def _check(feature_columns, sparse_combiner):
    # as TF 1.15, neither no columns nor sparse_combiner is checked here: the linear model
    # rejects them when it is built ("feature_columns must not be empty.", a categorical
    # column's lookup)
    return tuple(feature_columns or [])


class LinearEstimator(Estimator):
    """A linear model with a given head."""

    def __init__(self, head, feature_columns, model_dir=None, optimizer="Ftrl", config=None,
                 partitioner=None, sparse_combiner="sum", warm_start_from=None):
        columns = _check(feature_columns, sparse_combiner)

        def model_fn(features, labels, mode, config):
            # as TF: without a partitioner, variables of over 64MB split across the ps tasks
            # (a single part, "<name>/part_0", when there are none)
            num_ps = config.num_ps_replicas if config else 0
            part = partitioner or partitioned_variables.min_max_variable_partitioner(
                max_partitions=num_ps, min_slice_size=64 << 20)
            return _linear_model_fn(features, labels, mode, head, columns, optimizer,
                                    sparse_combiner, part)

        super().__init__(model_fn=model_fn, model_dir=model_dir, config=config,
                         warm_start_from=warm_start_from)


class LinearClassifier(LinearEstimator):
    """A linear classifier (logistic regression for 2 classes, softmax above)."""

    def __init__(self, feature_columns, model_dir=None, n_classes=2, weight_column=None,
                 label_vocabulary=None, optimizer="Ftrl", config=None, partitioner=None,
                 warm_start_from=None, loss_reduction=losses_impl.Reduction.SUM,
                 sparse_combiner="sum"):
        head = head_lib.classification_head(n_classes, weight_column, label_vocabulary,
                                            loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, partitioner,
                         sparse_combiner, warm_start_from)


class LinearRegressor(LinearEstimator):
    """A linear regressor (squared loss)."""

    def __init__(self, feature_columns, model_dir=None, label_dimension=1, weight_column=None,
                 optimizer="Ftrl", config=None, partitioner=None, warm_start_from=None,
                 loss_reduction=losses_impl.Reduction.SUM, sparse_combiner="sum"):
        head = head_lib.RegressionHead(label_dimension, weight_column, loss_reduction)
        super().__init__(head, feature_columns, model_dir, optimizer, config, partitioner,
                         sparse_combiner, warm_start_from)


__all__ = ["LinearClassifier", "LinearEstimator", "LinearRegressor"]
