"""``tf.estimator.ModeKeys`` and ``EstimatorSpec``: what a ``model_fn`` returns, checked as TF
checks it."""

import collections

from tideflow.framework import nest, ops
from tideflow.train import monitored_session, session_run_hook

LOSS_METRIC_KEY = "loss"
AVERAGE_LOSS_METRIC_KEY = "average_loss"


class ModeKeys:
    """The three modes a ``model_fn`` is called in."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


def _check_is_tensor_or_operation(x, name):
    # as TF, a Variable passes as a Tensor (its op is then the train_op)
    if not (isinstance(x, ops.Operation) or ops.is_dense_tensor_like(x)):
        raise TypeError(f"{name} must be Operation or Tensor, given: {x}")
    return x


def _check_is_tensor(x, name):
    if not ops.is_dense_tensor_like(x):
        raise TypeError(f"{name} must be Tensor, given: {x}")
    return x


def _check_hooks(hooks):
    hooks = tuple(hooks or [])
    for h in hooks:
        if not isinstance(h, session_run_hook.SessionRunHook):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h}")
    return hooks


def _check_graph(x, what, graph, key=None):
    """TF 1.15's check that ``x`` (``what``, under ``key`` of a dict) is in the model_fn's
    graph; as TF, an object without a graph is an AttributeError here."""
    if x.graph is not graph:
        name = x.name if key is None else f"{key}: {x.name}"
        raise ValueError(f'{what} with "{name}" must be from the default graph. Possible causes '
                         f"of this error include: \n\n1) {what} was created outside the context "
                         f"of the default graph.\n\n2) The object passed through to "
                         f'EstimatorSpec was not created in the most recent call to "model_fn".')


def _is_metric_object(value):
    from tideflow.keras import metrics as keras_metrics

    return isinstance(value, keras_metrics.Metric)


def metric_value_and_update(value):
    """``(value, update_op)`` for an ``eval_metric_ops`` entry: a tuple as given, or a Keras
    metric object's ``result()`` and its recorded updates grouped."""
    if _is_metric_object(value):
        from tideflow.ops import control_flow_ops

        return value.result(), control_flow_ops.group(*value.updates)
    return value


class EstimatorSpec(collections.namedtuple(
        "EstimatorSpec", ["mode", "predictions", "loss", "train_op", "eval_metric_ops",
                          "export_outputs", "training_chief_hooks", "training_hooks",
                          "scaffold", "evaluation_hooks", "prediction_hooks"])):
    """The ops and objects a ``model_fn`` returns for one mode."""

    def __new__(cls, mode, predictions=None, loss=None, train_op=None, eval_metric_ops=None,
                export_outputs=None, training_chief_hooks=None, training_hooks=None,
                scaffold=None, evaluation_hooks=None, prediction_hooks=None):
        from tideflow.estimator import export as export_lib

        graph = ops.get_default_graph()

        # train_op
        if train_op is None:
            if mode == ModeKeys.TRAIN:
                raise ValueError("Missing train_op.")
        else:
            train_op = _check_is_tensor_or_operation(train_op, "train_op")
            from tideflow.ops import variables

            if isinstance(train_op, variables.Variable):
                train_op = train_op.op
            _check_graph(train_op, "train_op", graph)

        # loss
        if loss is None:
            if mode in (ModeKeys.TRAIN, ModeKeys.EVAL):
                raise ValueError("Missing loss.")
        else:
            loss = _check_is_tensor(loss, "loss")
            shape = loss.shape
            if shape.num_elements() not in (None, 1):
                raise ValueError(f"Loss must be scalar, given: {loss}")
            if shape.ndims is not None and shape.ndims != 0:
                from tideflow.ops import array_ops

                loss = array_ops.reshape(loss, [])
            _check_graph(loss, "loss", graph)

        # predictions
        if predictions is None:
            if mode == ModeKeys.PREDICT:
                raise ValueError("Missing predictions.")
            predictions = {}
        elif isinstance(predictions, dict):
            predictions = dict(predictions)
            for k, v in predictions.items():
                _check_is_tensor(v, f"predictions[{k}]")
            for k, v in predictions.items():
                _check_graph(v, "prediction values", graph, k)
        else:
            _check_is_tensor(predictions, "predictions")
            _check_graph(predictions, "prediction values", graph)

        # eval_metric_ops
        if eval_metric_ops is None:
            eval_metric_ops = {}
        else:
            if not isinstance(eval_metric_ops, dict):
                raise TypeError(f"eval_metric_ops must be a dict, given: {eval_metric_ops}")
            converted = {}
            for key, value in eval_metric_ops.items():
                if _is_metric_object(value):
                    # A Keras metric object: it must have been updated (TF 1.x runs its
                    # update ops); its variables join the local and metric collections.
                    if not value.updates:
                        raise ValueError(f'Please call update_state(...) on the "{value.name}" '
                                         "metric")
                    for v in value.variables:
                        _check_graph(v, "eval_metric_ops", graph, key)
                        for c in (ops.GraphKeys.LOCAL_VARIABLES, ops.GraphKeys.METRIC_VARIABLES):
                            if v not in ops.get_collection(c):
                                ops.add_to_collection(c, v)
                    # as TF 1.15, the spec holds its (result, update op) tuple
                    updates = value.updates
                    if len(updates) == 1:
                        converted[key] = (value.result(), updates[0])
                    else:
                        converted[key] = metric_value_and_update(value)
                    continue
                if not isinstance(value, tuple) or len(value) != 2:
                    raise TypeError("Values of eval_metric_ops must be (metric_value, "
                                    f"update_op) tuples, given: {value} for key: {key}")
                # the value may be a nested structure of tensors (as TF's nest.flatten)
                for t in nest.flatten(value):
                    _check_graph(t, "eval_metric_ops", graph, key)
            eval_metric_ops = dict(eval_metric_ops)
            eval_metric_ops.update(converted)

        # export_outputs
        if mode == ModeKeys.PREDICT:
            export_outputs = export_lib.get_export_outputs(export_outputs, predictions)
        elif export_outputs is not None:
            export_lib.check_export_outputs(export_outputs)

        training_chief_hooks = _check_hooks(training_chief_hooks)
        training_hooks = _check_hooks(training_hooks)
        evaluation_hooks = _check_hooks(evaluation_hooks)
        prediction_hooks = _check_hooks(prediction_hooks)

        scaffold = scaffold or monitored_session.Scaffold()
        if not isinstance(scaffold, monitored_session.Scaffold):
            raise TypeError(f"scaffold must be tf.train.Scaffold. Given: {scaffold}")

        return super().__new__(
            cls, mode=mode, predictions=predictions, loss=loss, train_op=train_op,
            eval_metric_ops=eval_metric_ops, export_outputs=export_outputs,
            training_chief_hooks=training_chief_hooks, training_hooks=training_hooks,
            scaffold=scaffold, evaluation_hooks=evaluation_hooks,
            prediction_hooks=prediction_hooks)

    def _replace(self, **kwds):
        if "mode" in kwds and self.mode != kwds["mode"]:
            raise ValueError("mode of EstimatorSpec cannot be changed.")
        fields = self._asdict()
        fields.update(kwds)
        return EstimatorSpec(**fields)
