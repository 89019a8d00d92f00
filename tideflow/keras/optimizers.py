"""``tf.keras.optimizers``: SGD, Adam, RMSprop, Adagrad, Adadelta, Adamax, Nadam and Ftrl with
Keras's argument names and defaults (``learning_rate``, alias ``lr``; ``decay`` divides the
rate by ``1 + decay * iterations``; ``clipnorm``/``clipvalue``).

The learning rate is a variable (``optimizer.lr``), so ``K.set_value(model.optimizer.lr, x)``
and the LearningRateScheduler callback change it between steps. The updates run on our fused
``tf.train`` optimizers where Keras's rule matches one; ``iterations`` counts the steps.
"""

import inspect
import sys

import tideflow as tf
from tideflow.framework import ops
from tideflow.keras import backend as K
from tideflow.keras import optimizer_schedules as schedules
from tideflow.ops import training_ops
from tideflow.train.contrib_opt import AdaMaxOptimizer
from tideflow.train.optimizer import _var_key


class Optimizer:
    """Base class: ``get_updates(loss, params)`` returns the ops of one training step."""

    _HYPER = ()

    def __init__(self, name=None, **kwargs):
        # (``name`` is positional, as OptimizerV2's: ``super().__init__(name, **kwargs)``)
        if name is not None:
            kwargs["name"] = name
        allowed = {"clipnorm", "clipvalue", "lr", "decay", "name"}
        for k in kwargs:
            if k not in allowed:
                raise TypeError(f"Unexpected keyword argument passed to optimizer: {k}")
        for key in ("clipnorm", "clipvalue"):
            if kwargs.get(key) is not None and kwargs[key] < 0:
                raise ValueError(f"Expected {key} >= 0, received: {kwargs[key]}")
        self.clipnorm = kwargs.get("clipnorm")
        self.clipvalue = kwargs.get("clipvalue")
        self.initial_decay = float(kwargs.get("decay", 0.0))
        if self.initial_decay < 0:
            raise ValueError(f"decay cannot be less than 0: {self.initial_decay}")
        self._name = kwargs.get("name") or type(self).__name__
        self._vars = {}  # per graph: {"lr": var, "iterations": var, "decay": var}
        self._values = {}
        self._weights = []

    def _init(self, learning_rate, default_lr, name, kwargs, **hypers):
        """The subclasses' common constructor: the learning rate (``lr`` is an alias of
        ``learning_rate``), the base class's arguments, then the hyperparameters ``hypers``."""
        lr = _lr(learning_rate, kwargs, default_lr)
        Optimizer.__init__(self, name=name, **kwargs)
        self._set_hyper("lr", lr)
        for key, value in hypers.items():
            self._set_hyper(key, value)

    def _set_hyper(self, name, value):
        self._values["lr" if name == "learning_rate" else name] = value

    def _get_hyper(self, name, dtype=None):
        """A hyperparameter as a tensor (its variable, for the learning rate and the
        built-in optimizers' hyperparameters), cast to ``dtype`` if given."""
        name = "lr" if name == "learning_rate" else name
        if name == "lr":
            value = self._lr_t()
        elif name in self._HYPER:
            value = self._graph_vars()[name]
        else:
            value = self._values[name]
            if isinstance(value, schedules.LearningRateSchedule):
                return value  # as TF, as it is (to call with a step), whatever ``dtype``
            if callable(value):
                value = value()
        return value if dtype is None else tf.cast(value, dtype)

    def _graph_vars(self):
        """This graph's ``iterations`` and hyperparameter variables (made on first use, in
        the optimizer's name scope)."""
        got = self._vars.get(ops.get_default_graph())
        if got is None or "iterations" not in got:
            with ops.name_scope(self._name):
                got = self._make_graph_vars()
        return got

    def _hyper_vars(self):
        """The hyperparameter variables, as reading one (``optimizer.lr``) makes them before
        any training: in the current scope (TF 1.15's 'learning_rate', 'decay'...), without
        ``iterations`` (made with the first training step's other variables)."""
        got = self._vars.get(ops.get_default_graph())
        if got is None:
            got = self._make_graph_vars(iterations=False)
        return got

    def _new_iterations(self):
        # (model_to_estimator's clone counts in the global step, as TF 1.15's)
        given = self.__dict__.get("_step_counter")
        if given is None:
            given = self.__dict__.get("_early_iterations", {}).pop(ops.get_default_graph(), None)
        return given if given is not None else K.variable(0, dtype="int64", name="iter")

    def _iterations(self):
        """``iterations`` read before any training made it: as TF 1.15's lazy weight, made
        alone in the current name scope ('iter', not '<optimizer>/iter'); the
        hyperparameters are still made with the first training step's variables."""
        got = self._vars.get(ops.get_default_graph())
        if got is not None and "iterations" in got:
            return got["iterations"]
        early = self.__dict__.setdefault("_early_iterations", {})
        graph = ops.get_default_graph()
        if graph not in early:
            if got is not None:  # the hyperparameters exist: it joins them
                return self._make_graph_vars()["iterations"]
            early[graph] = self._new_iterations()
        return early[graph]

    def _make_graph_vars(self, iterations=True):
        """In the current name scope, as Keras's OptimizerV2: ``iter`` (int64), then the
        hyperparameters sorted by name (``beta_1``, ``beta_2``, ``decay``,
        ``learning_rate``...), so a graph's variables are ``training/Adam/iter`` etc. (only
        ``iter`` when the hyperparameters were made before)."""
        graph = ops.get_default_graph()
        got = self._vars.get(graph)
        if got is not None:
            if iterations and "iterations" not in got:
                got["iterations"] = self._new_iterations()
            return got
        got = {"iterations": self._new_iterations()} if iterations else {}
        keys = {("learning_rate" if k == "lr" else k): k for k in ("lr",) + self._HYPER +
                ("decay",)}
        for var_name in sorted(keys):
            key = keys[var_name]
            if key != "decay" and key not in self._values:  # (a user subclass's)
                continue
            value = self.initial_decay if key == "decay" else self._values[key]
            if callable(value) or isinstance(value, ops.Tensor):
                got[key] = value
            else:
                got[key] = K.variable(float(value), name=var_name)
        self._vars[graph] = got
        return got

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name == "learning_rate":
            name = "lr"
        if name == "iterations":
            return self._iterations()
        if name in ("lr", "decay") + tuple(self._HYPER):
            return self._hyper_vars()[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        if name in ("lr", "learning_rate") and "_values" in self.__dict__:
            self._values["lr"] = value
            self._vars.clear()
            return
        if name == "iterations" and "_vars" in self.__dict__:
            # OptimizerV2's setter: the step counter its updates increment (an estimator's
            # model_fn sets the global step), only before the optimizer made its own
            got = self._vars.get(ops.get_default_graph())
            if got is not None and "iterations" in got:
                raise RuntimeError("Cannot set `iterations` to a new Variable after the "
                                   "Optimizer weights have been created")
            self.__dict__["_step_counter"] = value
            return
        object.__setattr__(self, name, value)

    def _lr_t(self):
        v = self._graph_vars()
        lr = v["lr"]
        if isinstance(lr, schedules.LearningRateSchedule):
            lr = lr(v["iterations"])
        elif callable(lr) and not isinstance(lr, (ops.Tensor, tf.Variable)):
            lr = lr()
        if self.initial_decay > 0:
            it = tf.cast(v["iterations"], K.floatx())
            lr = lr * (1.0 / (1.0 + v["decay"] * it))
        return lr

    @property
    def _initial_decay(self):
        """OptimizerV2's name of ``initial_decay`` (subclasses pass it to ``_set_hyper``)."""
        return self.initial_decay

    def _decayed_lr(self, var_dtype):
        """OptimizerV2's learning rate of this step (its schedule at ``iterations``, divided
        by ``1 + decay * iterations``) as a ``var_dtype`` tensor, for subclasses' rules."""
        return tf.cast(self._lr_t(), var_dtype)

    def _serialize_hyperparameter(self, name):
        """A hyperparameter's value for ``get_config``: a schedule serialized, a callable
        called, a tensor or variable evaluated."""
        value = self._values["lr" if name == "learning_rate" else name]
        if isinstance(value, schedules.LearningRateSchedule):
            return {"class_name": type(value).__name__, "config": value.get_config()}
        if callable(value):
            value = value()
        if isinstance(value, (ops.Tensor, tf.Variable)):
            return K.get_value(value)
        return value

    def minimize(self, loss, var_list, grad_loss=None, name=None):
        """TF 1.15's OptimizerV2 spelling: the gradients of ``loss`` (a callable returning
        the loss, or the loss tensor) for ``var_list`` applied by ``apply_gradients``."""
        loss = loss() if callable(loss) else loss
        var_list = var_list() if callable(var_list) else list(var_list)
        grads = tf.gradients(loss, var_list, grad_ys=grad_loss)
        return self.apply_gradients(list(zip(grads, var_list)), name=name)

    def apply_gradients(self, grads_and_vars, name=None):
        """One step of the update rule with the given gradients (clipped as configured), and
        ``iterations += 1``; the pairs whose gradient is None are left out, as TF's."""
        grads_and_vars = list(grads_and_vars)
        pairs = [(g, v) for g, v in grads_and_vars if g is not None]
        if not grads_and_vars:  # as TF: no variables, a step that only counts itself
            with ops.name_scope(self._name):
                return tf.assign_add(self._graph_vars()["iterations"], 1, name=name).op
        if not pairs:
            raise ValueError("No gradients provided for any variable: "
                             f"{[v.name for _, v in grads_and_vars]}.")
        self.__dict__["_given_grads"] = [g for g, _ in pairs]
        try:
            updates = self.get_updates(None, [v for _, v in pairs])
        finally:
            self.__dict__["_given_grads"] = None
        if len(updates) == 1:
            return updates[0]  # as OptimizerV2: the step's op itself (the increment)
        return tf.group(*updates, name=name)

    def get_gradients(self, loss, params):
        given = self.__dict__.get("_given_grads")
        # (as OptimizerV2: under '<name>/gradients', so 'training/SGD/gradients/gradients/...')
        with ops.name_scope(self._name + "/gradients"):
            grads = given if given is not None else tf.gradients(loss, params)
            if any(g is None for g in grads):
                missing = [p.name for p, g in zip(params, grads) if g is None]
                raise ValueError("An operation has `None` for gradient. Please make sure that "
                                 "all of your ops have a gradient defined (i.e. are "
                                 f"differentiable). Variables without a gradient: {missing}")
            if self.clipnorm is not None and self.clipnorm > 0:
                grads = [tf.clip_by_norm(g, self.clipnorm) for g in grads]
            if self.clipvalue is not None and self.clipvalue > 0:
                grads = [tf.clip_by_value(g, -self.clipvalue, self.clipvalue) for g in grads]
        return grads

    def _tf_optimizer(self, lr):
        raise NotImplementedError

    def _tf_extra_step_ops(self):
        """The ops TF 1.15 makes for a step beyond ours (0 where not known)."""
        return 0

    def get_updates(self, loss, params):
        """The ops of one step: gradients (clipped), the update rule, ``iterations += 1``.
        The slots are Keras's: ``<scope>/<variable>/<slot>`` (``training/Adam/dense/kernel/m``),
        every weight's first slot, then every weight's second, ..."""
        grads = self.get_gradients(loss, params)
        if (type(self).apply_gradients is not Optimizer.apply_gradients
                and self.__dict__.get("_given_grads") is None):
            # as OptimizerV2: the step is ``apply_gradients``, which this subclass overrides
            return [self.apply_gradients(list(zip(grads, params)))]
        if type(self)._resource_apply_dense is not Optimizer._resource_apply_dense:
            return self._apply_rule(list(zip(grads, params)))
        with ops.name_scope(self._name) as scope:
            v = self._make_graph_vars()
            opt = self._tf_optimizer(self._lr_t())
            # (the slots of this graph's earlier steps: a step made again, after sample
            # weights are first fed, updates the same ones, as TF 1.15's)
            opt._slots = self.__dict__.setdefault("_tf_slots", {}).setdefault(
                ops.get_default_graph(), {})
            opt._keras_scope = scope
            opt._keras_iterations = v["iterations"]
            op = opt.apply_gradients(list(zip(grads, params)), global_step=v["iterations"])
            # TF 1.15's OptimizerV2 makes more ops for a step than the fused tf.train update
            # we run (the hyperparameters' reads and their coefficients, made once a step):
            # their ids are skipped, so the ops made after (a second model's initializers)
            # number as TF's
            if isinstance(self._values.get("lr"), (int, float)):
                extra = self._tf_extra_step_ops() - getattr(opt, "_keras_prepared_ops", 0)
                ops.get_default_graph()._skip_op_ids(max(extra, 0))
        slots = getattr(opt, "_keras_slot_list", [])
        self._weights = [v["iterations"]] + slots
        return [op]

    # -- TF 1.15's OptimizerV2 protocol, for subclasses that write their own update rule --
    _use_locking = True

    def _create_slots(self, var_list):
        """Makes the slots of ``var_list`` (``add_slot``), once per variable."""

    def _prepare(self, var_list):
        """Computes what the updates of this step share (before ``_resource_apply_*``)."""

    def _resource_apply_dense(self, grad, var):
        raise NotImplementedError("Must be implemented in subclasses.")

    def _resource_apply_sparse(self, grad, var, indices):
        raise NotImplementedError("Must be implemented in subclasses.")

    def add_slot(self, var, slot_name, initializer="zeros"):
        """The slot ``slot_name`` of ``var`` (made on first call): a non-trainable variable
        of ``var``'s shape and dtype, named ``<optimizer scope>/<var>/<slot_name>``."""
        slots = self.__dict__.setdefault("_slots", {}).setdefault(_var_key(var), {})
        if slot_name not in slots:
            from tideflow.keras import initializers

            shape, dtype = var.get_shape().as_list(), var.dtype.base_dtype
            if isinstance(initializer, (ops.Tensor, tf.Variable)) or not (
                    isinstance(initializer, str) or callable(initializer)):
                init_value = initializer
            else:  # (made by the variable, as TF's: '<var>/<slot>/Initializer/zeros')
                init = initializers.get(initializer)

                def init_value():
                    return init(shape, dtype=dtype)
            # (TF 1.15's slots are resource variables; a ref variable's, which TF 1.15's
            # Keras optimizers cannot update, are ref ones here, so one fused op updates both)
            resource = getattr(var, "_resource", True) is not False
            with ops.colocate_with(var):  # (in the optimizer's scope, as Keras's slots)
                slot = tf.Variable(init_value, name=f"{var.op.name}/{slot_name}", dtype=dtype,
                                   trainable=False, use_resource=resource)
            K._track_variable(slot)
            slots[slot_name] = slot
        return slots[slot_name]

    def get_slot(self, var, slot_name):
        return self.__dict__.get("_slots", {})[_var_key(var)][slot_name]

    def get_slot_names(self):
        return sorted({n for slots in self.__dict__.get("_slots", {}).values() for n in slots})

    def _resource_scatter_add(self, x, i, v):
        return tf.scatter_add(x, i, v, use_locking=self._use_locking)

    def _resource_scatter_update(self, x, i, v):
        return tf.scatter_update(x, i, v, use_locking=self._use_locking)

    def _apply_rule(self, grads_and_vars):
        """A user subclass's step: ``_create_slots``, ``_prepare``, then its
        ``_resource_apply_dense``/``_resource_apply_sparse`` per variable, then
        ``iterations += 1``."""
        var_list = [v for _, v in grads_and_vars]
        with ops.name_scope(self._name):
            iterations = self._graph_vars()["iterations"]
            self._create_slots(var_list)
            self._prepare(var_list)
            updates = []
            for grad, var in grads_and_vars:
                with ops.name_scope("update_" + var.op.name.replace(":", "_")):
                    if isinstance(grad, tf.IndexedSlices):
                        op = self._resource_apply_sparse(grad.values, var, grad.indices)
                    else:
                        op = self._resource_apply_dense(grad, var)
                updates.append(op)
            with ops.control_dependencies([u for u in updates if u is not None]):
                step = tf.assign_add(iterations, 1)
        slots = [s for v in var_list
                 for s in self.__dict__.get("_slots", {}).get(_var_key(v), {}).values()]
        self._weights = [iterations] + slots
        return [step]

    @property
    def weights(self):
        """The optimizer's state variables (``iterations`` first), once it has made them (a
        property, as OptimizerV2's: a subclass may override it)."""
        return self._weights

    @weights.setter
    def weights(self, value):
        self._weights = value

    def variables(self):
        return self.weights

    def get_weights(self):
        return K.batch_get_value(self.weights)

    def set_weights(self, weights):
        if len(weights) != len(self.weights):
            raise ValueError(f"Length of the specified weight list ({len(weights)}) does not "
                             f"match the number of weights of the optimizer "
                             f"({len(self.weights)})")
        K.batch_set_value(list(zip(self.weights, weights)))

    def get_config(self):
        config = {"name": self._name}
        # (TF 1.15's order: the clipping first, then the learning rate and decay)
        if self.clipnorm is not None:
            config["clipnorm"] = self.clipnorm
        if self.clipvalue is not None:
            config["clipvalue"] = self.clipvalue
        # (as TF 1.15: once this graph holds the hyperparameters' variables, their values
        # as read back, float32 scalars)
        made = self._vars.get(ops.get_default_graph(), {})

        def value(key, given):
            var = made.get(key)
            return K.get_value(var) if isinstance(var, tf.Variable) else given

        lr = self._values.get("lr")
        if lr is not None:  # (as TF: a subclass without a learning rate has only its name)
            if isinstance(lr, schedules.LearningRateSchedule):
                config["learning_rate"] = self._serialize_hyperparameter("learning_rate")
            elif not callable(lr) and not isinstance(lr, ops.Tensor):
                config["learning_rate"] = value("lr", float(lr))
            config["decay"] = value("decay", self.initial_decay)
        for name in self._HYPER:
            config[name] = value(name, self._values[name])
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):  # (a serialized schedule)
            config["learning_rate"] = schedules.deserialize(config["learning_rate"],
                                                            custom_objects=custom_objects)
        return cls(**config)


def _global_variable_ids():
    return {id(x) for x in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}


def _lr(learning_rate, kwargs, default):
    if "lr" in kwargs:
        learning_rate = kwargs.pop("lr")
    return default if learning_rate is None else learning_rate


class _KerasSlots:
    """Mixed into the ``tf.train`` optimizers that run Keras's update rules: their slot
    variables are named and ordered as Keras's OptimizerV2 makes them, ``<scope><variable>/
    <slot>`` (``training/Adam/dense/kernel/m``), each slot for every variable before the
    next slot. ``get_updates`` sets ``_keras_scope`` and ``_keras_iterations``."""

    _keras_scope = ""
    _keras_iterations = None
    _STEP_READ = True  # (OptimizerV2's iterations.assign_add reads the step after it)

    def _slot_table(self):
        """``(tf.train slot name, Keras slot name, initial value)`` in Keras's order."""
        return ()

    def _slots_in_order(self, var_list):
        """``(variable, tf.train slot name, Keras slot name, initial value)`` in the order
        Keras makes the slots: each slot for every variable before the next slot."""
        for tf_name, keras_name, value in self._slot_table():
            for var in var_list:
                yield var, tf_name, keras_name, value

    def _create_slots(self, var_list):
        self._keras_slot_list = []
        made = []
        for var, tf_name, keras_name, value in self._slots_in_order(var_list):
            named = self._slot_dict(tf_name)
            key = _var_key(var)
            if key not in named:  # (a step made again keeps the slots, as OptimizerV2's)
                with ops.name_scope(self._keras_scope or None), ops.colocate_with(var):
                    named[key] = tf.Variable(
                        _slot_initial_value(var, keras_name, value),
                        name=f"{var.op.name}/{keras_name}", trainable=False,
                        dtype=var.dtype.base_dtype,
                        use_resource=getattr(var, "_resource", True) is not False)
                made.append(named[key])
            self._keras_slot_list.append(named[key])
        for slot in made:
            K._track_variable(slot)


def _slot_initial_value(var, keras_name, value):
    """A slot's initial value as Keras's OptimizerV2 makes it, under the slot's
    'Initializer' scope: the 'zeros' initializer (a Const, or a Fill when large), an
    accumulator's constant initializer ('Const')."""
    shape, dtype = var.get_shape(), var.dtype.base_dtype
    if not shape.is_fully_defined():
        return tf.fill(tf.shape(var), tf.constant(value, dtype))
    dims = shape.as_list()
    if keras_name == "accumulator" or value != 0:
        return lambda: tf.constant(value, dtype, shape=dims)
    return lambda: tf.zeros(dims, dtype)


class _KerasSGD(_KerasSlots, tf.train.GradientDescentOptimizer):
    def _apply_sparse_duplicate_indices(self, grad, var):
        if getattr(var, "_resource", False) is True:
            # as Keras's SGD: -grad times the learning rate read once for the step (no
            # read of its variable here)
            return tf.scatter_add(var._ref(), grad.indices,
                                  -grad.values * self._learning_rate_tensor,
                                  name="ResourceScatterAdd")
        return super()._apply_sparse_duplicate_indices(grad, var)


class _KerasMomentum(_KerasSlots, tf.train.MomentumOptimizer):
    """Keras's momentum, whose accumulator holds the step: ``a = momentum * a - lr * g``,
    ``w += a`` (Nesterov: ``w += momentum * a - lr * g``), run on the fused kernel as
    ``ApplyMomentum(w, a, lr=-1, grad=-lr * g)`` (tf.train's ``a`` is ``-a / lr``)."""

    def _slot_table(self):
        return (("momentum", "momentum", 0.0),)

    def _prepare(self):
        super()._prepare()
        self._keras_consts = {}  # per dtype: (-1, -lr, momentum), made once a step

    def _keras_inputs(self, grad, var):
        dt = var.dtype.base_dtype
        consts = self._keras_consts.get(dt)
        if consts is None:
            lr, momentum = self._hyper(var)
            with ops.get_default_graph().aside_ids():  # TF's fused kernel makes none of these
                consts = self._keras_consts[dt] = (tf.constant(-1.0, dt), -lr, momentum)
        minus_one, minus_lr, momentum = consts
        with ops.get_default_graph().aside_ids():
            step = grad * minus_lr
        return minus_one, step, momentum

    def _finish(self, update_ops, name_scope):
        with ops.get_default_graph().aside_ids():  # OptimizerV2 groups nothing here
            return super()._finish(update_ops, name_scope)

    def _apply_dense(self, grad, var):
        minus_one, step, momentum = self._keras_inputs(grad, var)
        return training_ops.as_op(training_ops.apply_momentum(
            var, self.get_slot(var, "momentum"), minus_one, step, momentum,
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))

    def _apply_sparse(self, grad, var):
        minus_one, step, momentum = self._keras_inputs(grad.values, var)
        return training_ops.as_op(training_ops.sparse_apply_momentum(
            var, self.get_slot(var, "momentum"), minus_one, step, grad.indices, momentum,
            use_locking=self._use_locking, use_nesterov=self._use_nesterov))


class _KerasAdam(_KerasSlots, tf.train.AdamOptimizer):
    """Adam with Keras's state: no ``beta1_power``/``beta2_power`` variables, the powers are
    ``beta ** (iterations + 1)``."""

    def _slot_table(self):
        return (("m", "m", 0.0), ("v", "v", 0.0))

    def _prepare(self):
        super()._prepare()
        step = tf.cast(self._keras_iterations + 1, tf.float32)
        self._keras_powers = (tf.pow(tf.cast(self._beta1_t, tf.float32), step),
                              tf.pow(tf.cast(self._beta2_t, tf.float32), step))
        self._keras_coef = {}
        self._keras_prepared_ops = 0

    def _get_beta_accumulators(self):
        return self._keras_powers

    def _keras_coefficients(self, var):
        """Keras's step coefficients in the variable's dtype, made once a step (as its
        ``_prepare_local``): lr * (sqrt(1 - beta_2^t) / (1 - beta_1^t)), the betas, one
        minus each, epsilon."""
        dt = var.dtype.base_dtype
        got = self._keras_coef.get(dt)
        if got is None:
            graph = ops.get_default_graph()
            first = graph._next_id
            p1, p2 = (tf.cast(p, dt) for p in self._keras_powers)
            lr = tf.cast(self._lr_t, dt) * (tf.sqrt(1 - p2) / (1 - p1))
            b1, b2 = tf.cast(self._beta1_t, dt), tf.cast(self._beta2_t, dt)
            got = self._keras_coef[dt] = (lr, b1, b2, 1 - b1, 1 - b2,
                                          tf.cast(self._epsilon_t, dt))
            self._keras_prepared_ops += graph._next_id - first
        return got

    def _apply_sparse(self, grad, var):
        """Keras's sparse Adam: the moments decayed, the gradient rows added into them,
        then the step on the whole variable (TF 1.15's ops; its reads of the moments after
        their scatters are counted)."""
        lr, b1, b2, one_minus_b1, one_minus_b2, eps = self._keras_coefficients(var)
        values, indices = grad.values, grad.indices
        graph = ops.get_default_graph()
        m = self.get_slot(var, "m")
        m_scaled = values * one_minus_b1
        m_t = tf.assign(m, m * b1, use_locking=self._use_locking)
        with tf.control_dependencies([m_t]):
            m_t = tf.scatter_add(m, indices, m_scaled, use_locking=self._use_locking)
        if not getattr(m, "_resource", False):  # (a resource slot's scatter reads it itself)
            graph._skip_op_ids(1)
        v = self.get_slot(var, "v")
        v_scaled = (values * values) * one_minus_b2
        v_t = tf.assign(v, v * b2, use_locking=self._use_locking)
        with tf.control_dependencies([v_t]):
            v_t = tf.scatter_add(v, indices, v_scaled, use_locking=self._use_locking)
        if not getattr(v, "_resource", False):
            graph._skip_op_ids(1)
        update = tf.assign_sub(var, lr * m_t / (tf.sqrt(v_t) + eps),
                               use_locking=self._use_locking)
        return tf.group(update, m_t, v_t)

    def _finish(self, update_ops, name_scope):
        return tf.group(*update_ops, name=name_scope)


class _KerasAdamAmsgrad(_KerasAdam):
    """Adam with ``amsgrad``: the largest second moment so far (slot ``vhat``) divides the
    step, one fused update per variable as TF 1.15's ResourceApplyAdamWithAmsgrad."""

    def _slot_table(self):
        return (("m", "m", 0.0), ("v", "v", 0.0), ("vhat", "vhat", 0.0))

    def _apply_dense(self, grad, var):
        dt = var.dtype.base_dtype
        p1, p2 = self._keras_powers
        return training_ops.as_op(training_ops.apply_adam_with_amsgrad(
            var, self.get_slot(var, "m"), self.get_slot(var, "v"), self.get_slot(var, "vhat"),
            tf.cast(p1, dt), tf.cast(p2, dt), tf.cast(self._lr_t, dt),
            tf.cast(self._beta1_t, dt), tf.cast(self._beta2_t, dt),
            tf.cast(self._epsilon_t, dt), grad, use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        # (the rows summed into a dense gradient: the same step, its zero rows only decaying)
        return self._apply_dense(ops.convert_to_tensor(grad), var)


class _KerasAdamax(_KerasSlots, AdaMaxOptimizer):
    """Adamax with Keras's state: slots ``m`` and ``v``, no ``beta1_power`` variable (the
    power is ``beta_1 ** (iterations + 1)``), the fused ApplyAdaMax step as TF 1.15's."""

    def _slot_table(self):
        return (("m", "m", 0.0), ("v", "v", 0.0))

    def _prepare(self):
        super()._prepare()
        step = tf.cast(self._keras_iterations + 1, tf.float32)
        self._keras_power = tf.pow(tf.cast(self._beta1_t, tf.float32), step)

    def _get_beta_accumulators(self):
        return self._keras_power

    def _finish(self, update_ops, name_scope):
        return tf.group(*update_ops, name=name_scope)


class _KerasAdagrad(_KerasSlots, tf.train.AdagradOptimizer):
    """Keras's Adagrad: ``acc += g**2; w -= lr * g / (sqrt(acc) + epsilon)`` (epsilon in
    the denominator, so an accumulator starting at zero is allowed, as TF 1.15's)."""

    def __init__(self, learning_rate, initial_accumulator_value=0.1, epsilon=1e-7, name=None):
        super().__init__(learning_rate, initial_accumulator_value=1.0, name=name)
        self._initial_accumulator_value = initial_accumulator_value
        self._keras_epsilon = epsilon

    def _slot_table(self):
        return (("accumulator", "accumulator", self._initial_accumulator_value),)

    def _prepare(self):
        super()._prepare()
        self._keras_eps = {}  # per dtype, made once a step

    def _eps(self, var):
        dt = var.dtype.base_dtype
        got = self._keras_eps.get(dt)
        if got is None:
            got = self._keras_eps[dt] = tf.constant(self._keras_epsilon, dt)
        return got

    def _apply_dense(self, grad, var):
        lr = tf.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return training_ops.as_op(training_ops.apply_adagrad_v2(
            var, self.get_slot(var, "accumulator"), lr, self._eps(var), grad,
            use_locking=self._use_locking))

    def _apply_sparse(self, grad, var):
        lr = tf.cast(self._learning_rate_tensor, var.dtype.base_dtype)
        return training_ops.as_op(training_ops.sparse_apply_adagrad_v2(
            var, self.get_slot(var, "accumulator"), lr, self._eps(var), grad.values,
            grad.indices, use_locking=self._use_locking))


class _KerasAdadelta(_KerasSlots, tf.train.AdadeltaOptimizer):
    def _slot_table(self):
        return (("accum", "accum_grad", 0.0), ("accum_update", "accum_var", 0.0))


class SGD(Optimizer):
    """Gradient descent with optional (Nesterov) momentum; default learning rate 0.01."""

    _HYPER = ("momentum",)

    def _tf_extra_step_ops(self):
        # TF 1.15 reads lr (and momentum) through an Identity each, unless it decays lr; with
        # momentum, the ops its fused kernel does not need take ids set aside (_KerasMomentum)
        return 0 if self.initial_decay else 2

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, name="SGD", **kwargs):
        self._init(learning_rate, 0.01, name, kwargs, momentum=momentum)
        if isinstance(momentum, (int, float)) and (momentum < 0 or momentum > 1):
            raise ValueError("`momentum` must be between [0, 1].")
        self.nesterov = nesterov

    def _tf_optimizer(self, lr):
        if self._values["momentum"] == 0 and not self.nesterov:
            return _KerasSGD(lr, name=self._name)
        return _KerasMomentum(lr, self._graph_vars()["momentum"], use_nesterov=self.nesterov,
                              name=self._name)

    def get_config(self):
        config = super().get_config()
        config["nesterov"] = self.nesterov
        return config


class Adam(Optimizer):
    """Adam (``learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7``)."""

    _HYPER = ("beta_1", "beta_2")

    def _tf_extra_step_ops(self):
        return 11 if self.initial_decay else 13

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, name="Adam", **kwargs):
        self._init(learning_rate, 0.001, name, kwargs, beta_1=beta_1, beta_2=beta_2)
        self.epsilon = epsilon if epsilon is not None else K.epsilon()
        self.amsgrad = amsgrad

    def _tf_optimizer(self, lr):
        v = self._graph_vars()
        return (_KerasAdamAmsgrad if self.amsgrad else _KerasAdam)(
            lr, beta1=v["beta_1"], beta2=v["beta_2"], epsilon=self.epsilon, name=self._name)

    def get_config(self):
        config = super().get_config()
        config.update(epsilon=self.epsilon, amsgrad=self.amsgrad)
        return config


class RMSprop(Optimizer):
    """RMSprop (``learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7``)."""

    _HYPER = ("rho", "momentum")

    def _tf_extra_step_ops(self):
        m = self._values["momentum"]
        if not isinstance(m, (int, float)) or self.centered or self.initial_decay:
            return 0
        return 5 if m > 0 else 3

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7, centered=False,
                 name="RMSprop", **kwargs):
        self._init(learning_rate, 0.001, name, kwargs, rho=rho, momentum=momentum)
        self.epsilon = epsilon if epsilon is not None else K.epsilon()
        self.centered = centered

    def _tf_optimizer(self, lr):
        return _ZeroRMSProp(lr, decay=self._values["rho"],
                                         momentum=self._values["momentum"],
                                         epsilon=self.epsilon, centered=self.centered,
                                         name=self._name)

    def get_config(self):
        config = super().get_config()
        config.update(epsilon=self.epsilon, centered=self.centered)
        return config


class _ZeroRMSProp(_KerasSlots, tf.train.RMSPropOptimizer):
    """RMSProp whose mean square starts at zero, as Keras's does (tf.train's starts at
    one). Without momentum it updates as Keras's RMSprop does, with no momentum slot:
    ``var -= lr * g / (sqrt(rms) + epsilon)`` (the ApplyRMSProp kernel takes
    ``sqrt(rms + epsilon)``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        m = self._momentum
        self._keras_rule = not (isinstance(m, (tf.Tensor, tf.Variable)) or callable(m) or m > 0)

    def _slot_table(self):
        return ((("rms", "rms", 0.0),) +
                ((("momentum", "momentum", 0.0),) if not self._keras_rule else ()) +
                ((("mg", "mg", 0.0),) if self._centered else ()))

    def _prepare(self):
        super()._prepare()
        self._keras_one_minus_rho = {}  # per dtype: 1 - rho, made once a step (as Keras's)

    def _one_minus_rho(self, rho, var):
        dt = var.dtype.base_dtype
        got = self._keras_one_minus_rho.get(dt)
        if got is None:
            got = self._keras_one_minus_rho[dt] = 1.0 - rho
        return got

    def _denominator(self, rms_t, grad, var, rho, sparse_indices=None):
        if not self._centered:
            return rms_t
        mg = self.get_slot(var, "mg")
        one_minus_rho = self._one_minus_rho(rho, var)
        if sparse_indices is None:
            mg_t = tf.assign(mg, rho * mg + one_minus_rho * grad, use_locking=self._use_locking)
            return rms_t - tf.square(mg_t)
        mg_t = tf.assign(mg, mg * rho, use_locking=self._use_locking)
        with tf.control_dependencies([mg_t]):
            mg_t = tf.scatter_add(mg, sparse_indices, one_minus_rho * grad,
                                  use_locking=self._use_locking)
        return rms_t - tf.square(tf.gather(mg_t, sparse_indices))

    def _apply_dense(self, grad, var):
        if not self._keras_rule:
            return super()._apply_dense(grad, var)
        lr, rho, _, eps = self._hyper(var)
        rms = self.get_slot(var, "rms")
        rms_t = tf.assign(rms, rho * rms + self._one_minus_rho(rho, var) * tf.square(grad),
                          use_locking=self._use_locking)
        denom = self._denominator(rms_t, grad, var, rho)
        step = lr * grad
        # (TF 1.15 reads the mean square once more for its square root: that id is skipped)
        ops.get_default_graph()._skip_op_ids(1)
        return tf.assign(var, var - step / (tf.sqrt(denom) + eps),
                         use_locking=self._use_locking).op

    def _apply_sparse(self, grad, var):
        if not self._keras_rule:
            return super()._apply_sparse(grad, var)
        lr, rho, _, eps = self._hyper(var)
        rms = self.get_slot(var, "rms")
        values, indices = grad.values, grad.indices
        # as Keras: every row's mean square decays, the gradient rows are added
        rms_t = tf.assign(rms, rms * rho, use_locking=self._use_locking)
        with tf.control_dependencies([rms_t]):
            rms_t = tf.scatter_add(rms, indices,
                                   self._one_minus_rho(rho, var) * tf.square(values),
                                   use_locking=self._use_locking)
            rms_rows = tf.gather(rms_t, indices)
        denom = self._denominator(rms_rows, values, var, rho, sparse_indices=indices)
        update = tf.scatter_add(var, indices, -lr * values / (tf.sqrt(denom) + eps),
                                use_locking=self._use_locking)
        return tf.group(update, rms_t)


class Adagrad(Optimizer):
    """Adagrad (``learning_rate=0.001, initial_accumulator_value=0.1``)."""

    def _tf_extra_step_ops(self):
        return 0 if self.initial_decay else 2

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 name="Adagrad", **kwargs):
        self._init(learning_rate, 0.001, name, kwargs)
        self.initial_accumulator_value = initial_accumulator_value
        self.epsilon = epsilon

    def _tf_optimizer(self, lr):
        return _KerasAdagrad(lr, initial_accumulator_value=self.initial_accumulator_value,
                             epsilon=self.epsilon, name=self._name)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        # as TF 1.15: a config without the accumulator's start (the name 'adagrad' given to
        # compile) starts it at zero
        config = dict(config)
        config.setdefault("initial_accumulator_value", 0.0)
        return cls(**config)

    def get_config(self):
        config = super().get_config()
        config.update(initial_accumulator_value=self.initial_accumulator_value,
                      epsilon=self.epsilon)
        return config


class Adadelta(Optimizer):
    """Adadelta (``learning_rate=0.001, rho=0.95, epsilon=1e-7``)."""

    _HYPER = ("rho",)

    def _tf_extra_step_ops(self):
        return 0 if self.initial_decay else 1

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, name="Adadelta", **kwargs):
        self._init(learning_rate, 0.001, name, kwargs, rho=rho)
        self.epsilon = epsilon

    def _tf_optimizer(self, lr):
        return _KerasAdadelta(lr, rho=self._graph_vars()["rho"], epsilon=self.epsilon,
                              name=self._name)

    def get_config(self):
        config = super().get_config()
        config.update(epsilon=self.epsilon)
        return config


class _KerasFtrl(_KerasSlots, tf.train.FtrlOptimizer):
    """FTRL with Keras's slots, made variable by variable (``accumulator`` then ``linear``
    for each weight, as Keras's Ftrl adds them)."""

    def _slot_table(self):
        return (("accum", "accumulator", self._initial_accumulator_value),
                ("linear", "linear", 0.0))

    def _slots_in_order(self, var_list):
        for var in var_list:
            for tf_name, keras_name, value in self._slot_table():
                yield var, tf_name, keras_name, value


class Ftrl(Optimizer):
    """FTRL-Proximal (``learning_rate=0.001, learning_rate_power=-0.5,
    initial_accumulator_value=0.1``, no regularization by default), as Keras's Ftrl of
    TF 1.15; the update is ``tf.train.FtrlOptimizer``'s."""

    _HYPER = ("learning_rate_power", "l1_regularization_strength",
              "l2_regularization_strength")

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, name="Ftrl",
                 l2_shrinkage_regularization_strength=0.0, **kwargs):
        for value, what in ((initial_accumulator_value, "initial_accumulator_value"),
                            (l1_regularization_strength, "l1_regularization_strength"),
                            (l2_regularization_strength, "l2_regularization_strength"),
                            (l2_shrinkage_regularization_strength,
                             "l2_shrinkage_regularization_strength")):
            if value < 0.0:
                raise ValueError(f"{what} {value:f} needs to be positive or zero")
        if learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be "
                             "negative or zero")
        self._init(learning_rate, 0.001, name, kwargs,
                   learning_rate_power=learning_rate_power,
                   l1_regularization_strength=l1_regularization_strength,
                   l2_regularization_strength=l2_regularization_strength)
        self.initial_accumulator_value = initial_accumulator_value
        self.l2_shrinkage_regularization_strength = l2_shrinkage_regularization_strength

    def _tf_optimizer(self, lr):
        opt = _KerasFtrl(lr, initial_accumulator_value=self.initial_accumulator_value,
                         l2_shrinkage_regularization_strength=(
                             self.l2_shrinkage_regularization_strength),
                         name=self._name)
        v = self._graph_vars()
        opt._learning_rate_power = v["learning_rate_power"]
        opt._l1_regularization_strength = v["l1_regularization_strength"]
        opt._l2_regularization_strength = v["l2_regularization_strength"]
        return opt

    def get_config(self):
        config = super().get_config()
        config.update(initial_accumulator_value=self.initial_accumulator_value,
                      l2_shrinkage_regularization_strength=(
                          self.l2_shrinkage_regularization_strength))
        return config


class Adamax(Optimizer):
    """Adamax (``learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7``)."""

    _HYPER = ("beta_1", "beta_2")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Adamax", **kwargs):
        self._init(learning_rate, 0.001, name, kwargs, beta_1=beta_1, beta_2=beta_2)
        self.epsilon = epsilon

    def _tf_optimizer(self, lr):
        return _KerasAdamax(lr, self._graph_vars()["beta_1"], self._graph_vars()["beta_2"],
                            epsilon=self.epsilon, name=self._name)

    def _tf_extra_step_ops(self):
        return 0 if self.initial_decay else 9

    def get_config(self):
        config = super().get_config()
        config["epsilon"] = self.epsilon
        return config


class Nadam(Optimizer):
    """Nesterov Adam (``learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7``)."""

    _HYPER = ("beta_1", "beta_2")

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 name="Nadam", **kwargs):
        # as TF 1.15: `decay` is the momentum schedule's (schedule_decay, 0.004); the
        # learning rate itself is not decayed
        kwargs["decay"] = kwargs.pop("schedule_decay", 0.004)
        self._init(learning_rate, 0.001, name, kwargs, beta_1=beta_1, beta_2=beta_2)
        self.epsilon = epsilon

    def _lr_t(self):
        lr = self._graph_vars()["lr"]
        if isinstance(lr, schedules.LearningRateSchedule):
            return lr(self._graph_vars()["iterations"])
        return lr() if callable(lr) and not isinstance(lr, (ops.Tensor, tf.Variable)) else lr

    def get_config(self):
        config = super().get_config()
        config["epsilon"] = self.epsilon
        return config

    def get_updates(self, loss, params):
        """TF 1.15's OptimizerV2 Nadam step, op for op: the momentum cache and the slots,
        the step's coefficients once per dtype (the cache advanced first), then each
        variable's update in ``<name>/update_<variable>``, then ``iterations += 1``."""
        grads = self.get_gradients(loss, params)
        with ops.name_scope(self._name):
            v = self._make_graph_vars()
            caches = self.__dict__.setdefault("_m_caches", {})  # (one per graph, kept)
            m_cache = caches.get(ops.get_default_graph())
            if m_cache is None:
                m_cache = caches[ops.get_default_graph()] = K.variable(1.0,
                                                                       name="momentum_cache")
            slots = {name: [self.add_slot(p, name) for p in params] for name in ("m", "v")}
            m_cache_read = tf.identity(m_cache)
            coefficients = {}
            for p in params:
                dtype = p.dtype.base_dtype
                if dtype not in coefficients:
                    coefficients[dtype] = self._step_coefficients(v, dtype, m_cache,
                                                                  m_cache_read)
            updates = []
            with ops.name_scope(self._name):  # ('training/Nadam/Nadam/update_dense/kernel')
                for i, (p, g) in enumerate(zip(params, grads)):
                    with ops.name_scope("update_" + p.op.name):
                        c = coefficients[p.dtype.base_dtype]
                        if isinstance(g, tf.IndexedSlices):
                            # as TF 1.15: an embedding's rows (duplicates summed) step alone
                            updates.append(self._update_sparse(
                                p, g, slots["m"][i], slots["v"][i], c))
                        else:
                            updates.append(self._update(p, g, slots["m"][i], slots["v"][i], c))
                with ops.control_dependencies(updates):
                    step = tf.assign_add(v["iterations"], 1)
        self._weights = [v["iterations"], m_cache] + slots["m"] + slots["v"]
        return [step]

    def _step_coefficients(self, v, dtype, m_cache, m_cache_read):
        lr_t = tf.identity(tf.cast(self._lr_t(), dtype))
        beta_1_t = tf.identity(tf.cast(v["beta_1"], dtype))
        beta_2_t = tf.identity(tf.cast(v["beta_2"], dtype))
        local_step = tf.cast(v["iterations"] + 1, dtype)
        next_step = tf.cast(v["iterations"] + 2, dtype)
        decay_base = tf.cast(0.96, dtype)
        m_t = beta_1_t * (1. - 0.5 * tf.pow(decay_base, self.initial_decay * local_step))
        m_t_1 = beta_1_t * (1. - 0.5 * tf.pow(decay_base, self.initial_decay * next_step))
        m_schedule_new = tf.cast(m_cache_read, dtype) * m_t
        if dtype == m_cache.dtype.base_dtype:  # (as TF: a cache of another dtype stays)
            m_schedule_new = _assigned(m_cache, m_schedule_new, tf.identity)
        m_schedule_next = m_schedule_new * m_t_1
        return {
            "lr_t": lr_t, "neg_lr_t": -lr_t,
            "epsilon": ops.convert_to_tensor(self.epsilon, dtype),
            "beta_1_t": beta_1_t, "beta_2_t": beta_2_t, "m_t": m_t, "m_t_1": m_t_1,
            "one_minus_beta_1_t": 1 - beta_1_t, "one_minus_beta_2_t": 1 - beta_2_t,
            "one_minus_m_t": 1. - m_t, "one_minus_m_schedule_new": 1. - m_schedule_new,
            "one_minus_m_schedule_next": 1. - m_schedule_next,
            "v_t_prime_denominator": 1. - tf.pow(beta_2_t, local_step)}

    def _update(self, var, grad, m, v, c):
        g_prime = grad / c["one_minus_m_schedule_new"]
        m_t = _assigned(m, c["beta_1_t"] * m + c["one_minus_beta_1_t"] * grad)
        m_t_prime = m_t / c["one_minus_m_schedule_next"]
        v_t = _assigned(v, c["beta_2_t"] * v + c["one_minus_beta_2_t"] * tf.square(grad))
        v_t_prime = v_t / c["v_t_prime_denominator"]
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * m_t_prime
        var_t = var - c["lr_t"] * m_t_bar / (tf.sqrt(v_t_prime) + c["epsilon"])
        return tf.assign(var, var_t).op


    def _update_sparse(self, var, grad, m, v, c):
        """TF 1.15's sparse Nadam: the moments of every row decay, the gradient rows are
        added into them, and only those rows of ``var`` move (a row seen in an earlier step
        keeps its value, though its moments are not zero)."""
        from tideflow.train.optimizer import _deduplicate_indexed_slices

        values, indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        g_prime = values / c["one_minus_m_schedule_new"]
        m_scaled = values * c["one_minus_beta_1_t"]
        m_t = tf.assign(m, m * c["beta_1_t"])
        with ops.control_dependencies([m_t]):
            m_t = tf.gather(tf.scatter_add(m, indices, m_scaled), indices)
        m_t_bar = c["one_minus_m_t"] * g_prime + c["m_t_1"] * (
            m_t / c["one_minus_m_schedule_next"])
        v_scaled = (values * values) * c["one_minus_beta_2_t"]
        v_t = tf.assign(v, v * c["beta_2_t"])
        with ops.control_dependencies([v_t]):
            v_t = tf.scatter_add(v, indices, v_scaled)
            v_rows = tf.gather(v_t, indices)
        denom = tf.sqrt(v_rows / c["v_t_prime_denominator"]) + c["epsilon"]
        update = tf.scatter_add(var, indices, c["neg_lr_t"] * m_t_bar / denom)
        return tf.group(update, m_t_bar, v_t)


def _assigned(var, value, read=None):
    """``var = value``, then ``var`` read again after it (by ``read``): what a use of TF
    1.15's resource ``assign`` result reads (its op ids as TF's)."""
    assign = tf.assign(var, value)
    with ops.control_dependencies([assign]):
        return var.value() if read is None else read(var)


class TFOptimizer(Optimizer):
    """Wraps a ``tf.train`` optimizer so ``compile`` can use it."""

    def __init__(self, optimizer, iterations=None):
        super().__init__(name=getattr(optimizer, "_name", "TFOptimizer"))
        self.optimizer = optimizer
        self._values["lr"] = getattr(optimizer, "_learning_rate", 0.001)
        if iterations is None:  # as TF 1.15: made with the wrapper ('TFOptimizer/iterations')
            with ops.name_scope("TFOptimizer"):
                iterations = K.variable(0, dtype="int64", name="iterations")
        self.__dict__["iterations"] = iterations

    def _graph_vars(self):
        got = super()._graph_vars()
        it = self.__dict__.get("iterations")
        if it is not None and getattr(it, "graph", None) is ops.get_default_graph():
            got["iterations"] = it
        return got

    def _iterations_var(self):
        it = self.__dict__.get("iterations")
        if it is not None and getattr(it, "graph", None) is ops.get_default_graph():
            return it
        return self._graph_vars()["iterations"]

    def get_updates(self, loss, params):
        # (only the step counter: the wrapped optimizer keeps its own hyperparameters)
        v = {"iterations": self._iterations_var()}
        before = _global_variable_ids()
        grads_and_vars = self.optimizer.compute_gradients(loss, params)
        step = v["iterations"]
        if any(getattr(p, "_is_mirrored_variable", False) for p in params or ()):
            # as TF 1.15's under a distribution strategy: the graph's global step (None when
            # there is none), not ``iterations``
            from tideflow.train import training_util

            step = training_util.get_global_step()
        op = self.optimizer.apply_gradients(grads_and_vars, global_step=step)
        # ``weights``: ``iterations`` and the variables the tf.train optimizer made, which
        # Keras's session initializes
        new_vars = [x for x in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)
                    if id(x) not in before]
        for x in new_vars:
            K._track_variable(x)
        self._weights = [v["iterations"]] + new_vars
        return [op]

    def __getattr__(self, name):
        # as TF 1.15: the wrapper has no learning rate or decay of its own (so the learning
        # rate callbacks refuse it)
        if name in ("lr", "learning_rate", "decay"):
            raise AttributeError(f"'TFOptimizer' object has no attribute '{name}'")
        return super().__getattr__(name)

    # as TF 1.15: a tf.train optimizer's state and configuration are not Keras's to expose
    @property
    def weights(self):
        raise NotImplementedError

    @property
    def variables(self):
        # (TF 1.15's TFOptimizer is Keras's old Optimizer: no ``variables`` at all)
        raise AttributeError("'TFOptimizer' object has no attribute 'variables'")

    def get_config(self):
        raise NotImplementedError

    @classmethod
    def from_config(cls, config):
        raise NotImplementedError


# `from tideflow.keras.optimizers.schedules import ExponentialDecay` works as with TF
sys.modules.setdefault(__name__ + ".schedules", schedules)

sgd = SGD
adam = Adam
rmsprop = RMSprop
adagrad = Adagrad
adadelta = Adadelta
adamax = Adamax
nadam = Nadam

_TABLE = {"sgd": SGD, "adam": Adam, "rmsprop": RMSprop, "adagrad": Adagrad,
          "adadelta": Adadelta, "adamax": Adamax, "nadam": Nadam, "ftrl": Ftrl}


def serialize(optimizer):
    return {"class_name": type(optimizer).__name__, "config": optimizer.get_config()}


def deserialize(config, custom_objects=None):
    """The optimizer ``serialize`` described: a built-in one, or a class among
    ``custom_objects`` and the registered custom objects, made by its ``from_config``."""
    from tideflow.keras.utils import CustomObjectScope, get_custom_objects

    name = config["class_name"]
    custom = {**get_custom_objects(), **(custom_objects or {})}
    cls = custom.get(name) or _TABLE.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: {name}")
    conf = config.get("config", {})
    if "custom_objects" in inspect.signature(cls.from_config).parameters:
        return cls.from_config(conf, custom_objects=custom)
    with CustomObjectScope(custom_objects or {}):
        return cls.from_config(conf)


def get(identifier):
    """An optimizer from a name (``'sgd'``, ``'adam'``, ``'rmsprop'``...), a config, a Keras
    optimizer, or a ``tf.train`` optimizer (wrapped)."""
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, tf.train.Optimizer):
        return TFOptimizer(identifier)
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _TABLE.get(identifier.lower())
        if cls is None:
            raise ValueError(f"Unknown optimizer: {identifier}")
        return cls.from_config({})  # as TF 1.15 (Adagrad's accumulator then starts at 0)
    raise ValueError(f"Could not interpret optimizer identifier: {identifier}")


# TF 1.x's ``tensorflow.python.keras.optimizer_v2`` package (``optimizer_v2.adam.Adam``, ...):
# module objects holding tf.keras.optimizers' classes, one module per optimizer as in TF.
def _add_optimizer_v2_modules():
    import importlib.machinery
    import importlib.util

    from tideflow.keras import optimizer_schedules

    root = __name__.rsplit(".", 1)[0] + ".optimizer_v2"
    package = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(
        root, None, is_package=True))
    package.__path__ = []
    package.__doc__ = "``tensorflow.python.keras.optimizer_v2``: tf.keras's optimizers."
    package = sys.modules.setdefault(root, package)
    members = {
        "gradient_descent": {"SGD": SGD}, "adam": {"Adam": Adam},
        "adagrad": {"Adagrad": Adagrad}, "adadelta": {"Adadelta": Adadelta},
        "adamax": {"Adamax": Adamax}, "nadam": {"Nadam": Nadam},
        "rmsprop": {"RMSprop": RMSprop}, "ftrl": {"Ftrl": Ftrl},
        "optimizer_v2": {"OptimizerV2": Optimizer},
        "learning_rate_schedule": vars(optimizer_schedules),
    }
    for short, names in members.items():
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(
            f"{root}.{short}", None))
        module.__doc__ = f"``optimizer_v2.{short}`` (TF's module)."
        for name, value in names.items():
            if not name.startswith("__"):
                setattr(module, name, value)
        setattr(package, short, sys.modules.setdefault(f"{root}.{short}", module))


_add_optimizer_v2_modules()
