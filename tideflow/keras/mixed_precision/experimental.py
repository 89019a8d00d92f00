"""``tf.keras.mixed_precision.experimental`` as TF 1.15 has it: dtype policies (``Policy``,
``global_policy``, ``set_policy``) and the Keras ``LossScaleOptimizer``. In TF 1.x graph mode
the global policy stays an "infer" one; a layer takes a policy through its ``dtype``."""

import tideflow as tf
from tideflow import logging as tf_logging
from tideflow.framework import dtypes, ops
from tideflow.keras import backend as K
from tideflow.keras.optimizers import Optimizer
from tideflow.ops import control_flow_ops
from tideflow.ops.cond import cond
from tideflow.train import experimental as loss_scale_module

_USE_DEFAULT = "USE_DEFAULT"


class Policy:
    """A layer's dtypes: ``compute_dtype`` (its computations) and ``variable_dtype`` (its
    weights), parsed from ``'<dtype>'``, ``'<dtype>_with_float32_vars'``, ``'mixed_float16'``,
    ``'mixed_bfloat16'`` or ``'infer'``; ``mixed_float16`` brings a dynamic loss scale."""

    def __init__(self, name, loss_scale=_USE_DEFAULT):
        if isinstance(name, dtypes.DType):
            raise TypeError("'name' must be a string, not a DType. Instead, pass DType.name. "
                            f"Got: {name.name}")
        if not isinstance(name, str):
            raise TypeError(f"'name' must be a string, but got: {name}")
        name = {"infer_float32_vars": "infer_with_float32_vars",
                "float32_with_float32_vars": "float32"}.get(name, name)
        self._name = name
        self._compute_dtype, self._variable_dtype = _parse_policy_name(name)
        if loss_scale == _USE_DEFAULT:
            loss_scale = "dynamic" if name == "mixed_float16" else None
        if loss_scale and self._compute_dtype not in (None, "float16"):
            tf_logging.warn(f"Creating a Policy with a loss scale is only useful for float16 "
                            f"policies. You passed loss_scale={loss_scale!r} for policy "
                            f"{name}. Consider not passing any loss_scale instead.")
        self._loss_scale = loss_scale_module._as_loss_scale(loss_scale)

    @property
    def variable_dtype(self):
        return self._variable_dtype

    @property
    def compute_dtype(self):
        return self._compute_dtype

    @property
    def should_cast_variables(self):
        return self.variable_dtype != self.compute_dtype

    @property
    def loss_scale(self):
        return self._loss_scale

    @property
    def name(self):
        return self._name

    def __repr__(self):
        return f'<Policy "{self._name}", loss_scale={self.loss_scale}>'


def _parse_policy_name(name):
    if name == "mixed_float16":
        return "float16", "float32"
    if name == "mixed_bfloat16":
        return "bfloat16", "float32"
    float32_vars = name.endswith("_with_float32_vars")
    base_name = name[:-len("_with_float32_vars")] if float32_vars else name
    if base_name == "infer":
        base_dtype = None
    else:
        try:
            base_dtype = dtypes.as_dtype(base_name).name
        except TypeError:
            error = (f"Cannot convert value {name} to a mixed precision Policy. Valid policies "
                     f'include include those in the form "<dtype>" and '
                     f'"<dtype>_with_float32_vars", where <dtype> is the name of a dtype.')
            if float32_vars:
                error += (f" The value {name} ends with _with_float32_vars, but {base_name} "
                          "cannot be converted to a DType")
            raise ValueError(error) from None
    return base_dtype, ("float32" if float32_vars else base_dtype)


_global_policy = None


def global_policy():
    """The policy set by ``set_policy``; in TF 1.x graph mode an "infer" one by default."""
    return Policy("infer") if _global_policy is None else _global_policy


def set_policy(policy):
    """Sets the global policy: in TF 1.x only one with no compute dtype ("infer", or
    "infer_with_float32_vars"), or None."""
    global _global_policy
    if policy is not None and not isinstance(policy, Policy):
        policy = Policy(policy)
    if policy and policy.compute_dtype:
        raise ValueError("The global policy can only be set to a non-infer policy in "
                         "TensorFlow 2")
    _global_policy = policy


class LossScaleOptimizer(Optimizer):
    """Wraps a Keras optimizer: the loss is multiplied by the loss scale before its gradients
    are taken and they are divided by it; with a dynamic scale a step whose gradients are not
    all finite applies none (as TF 1.15's)."""

    def __init__(self, opt, loss_scale):  # (TF's: the base class's constructor is not run)
        if not isinstance(opt, Optimizer):
            raise ValueError(  # noqa: TRY004 - as TF
                f'"opt" must be an instance of OptimizerV2, but got: {opt}')
        if opt.clipnorm is not None:
            raise ValueError(f"LossScaleOptimizer does not support wrapping optimizers with a "
                             f"clipnorm. Optimizer {opt} has clipnorm {opt.clipnorm}")
        if opt.clipvalue is not None:
            raise ValueError(f"LossScaleOptimizer does not support wrapping optimizers with a "
                             f"clipvalue. Optimizer {opt} has clipvalue {opt.clipvalue}")
        object.__setattr__(self, "_optimizer", opt)
        object.__setattr__(self, "_loss_scale", loss_scale_module._as_loss_scale(loss_scale))
        for weight in (getattr(self._loss_scale, "_scale", None),
                       getattr(self._loss_scale, "_good", None)):
            if weight is not None:  # (a dynamic scale's variables, which Keras initializes)
                K.track_variable(weight)

    @property
    def loss_scale(self):
        return self._loss_scale

    def get_scaled_loss(self, loss):
        """``loss`` times the loss scale (a callable: one returning that)."""
        loss_scale = self._loss_scale()
        if callable(loss):
            def new_loss():
                value = loss()
                return value * tf.cast(loss_scale, value.dtype)

            return new_loss
        return loss * tf.cast(loss_scale, loss.dtype)

    def get_unscaled_gradients(self, grads):
        """Each gradient divided by the loss scale (None stays None)."""
        reciprocal = 1.0 / self._loss_scale()
        return [g * tf.cast(reciprocal, g.dtype) if g is not None else None
                for g in grads]

    def get_gradients(self, loss, params):
        grads = self._optimizer.get_gradients(self.get_scaled_loss(loss), params)
        return self.get_unscaled_gradients(grads)

    def minimize(self, loss, var_list, grad_loss=None, name=None):
        from tideflow.ops import gradients

        loss = self.get_scaled_loss(loss() if callable(loss) else loss)
        var_list = var_list() if callable(var_list) else list(var_list)
        grads = self.get_unscaled_gradients(gradients.gradients(loss, var_list,
                                                                grad_ys=grad_loss))
        return self.apply_gradients(list(zip(grads, var_list)), name=name)

    def apply_gradients(self, grads_and_vars, name=None):
        grads_and_vars = tuple(grads_and_vars)
        update, should_apply = self._loss_scale.update([g for g, _ in grads_and_vars])

        def apply_fn():
            op = self._optimizer.apply_gradients(list(grads_and_vars), name)
            # (the variables the step makes in the branch, named under its cond as TF
            # 1.15's, are the model graph's: ``iterations`` is read there after)
            graph = ops.get_default_graph()
            made = self._optimizer._vars.get(graph)
            if made is not None:
                self._optimizer._vars.setdefault(getattr(graph, "_root", graph), made)
            return op

        # (as TF's smart_cond: a fixed scale's Python True applies them directly)
        applied = (apply_fn() if isinstance(should_apply, bool)
                   else cond(should_apply, apply_fn, control_flow_ops.no_op))
        return control_flow_ops.group(applied, update)

    def get_updates(self, loss, params):
        grads = self.get_gradients(loss, params)
        return [self.apply_gradients(list(zip(grads, params)))]

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._optimizer, name)

    def __setattr__(self, name, value):
        if name in ("lr", "learning_rate", "iterations"):
            setattr(self._optimizer, name, value)
            return
        object.__setattr__(self, name, value)

    @property
    def weights(self):
        return self._optimizer.weights

    def get_weights(self):
        return self._optimizer.get_weights()

    def set_weights(self, weights):
        self._optimizer.set_weights(weights)

    def get_slot_names(self):
        return self._optimizer.get_slot_names()

    def get_config(self):
        raise NotImplementedError("get_config() is not yet implemented for "
                                  "LossScaleOptimizers")

    @classmethod
    def from_config(cls, config, custom_objects=None):
        raise NotImplementedError("from_config() is not yet implemented for "
                                  "LossScaleOptimizers")


__all__ = ["LossScaleOptimizer", "Policy", "global_policy", "set_policy"]
