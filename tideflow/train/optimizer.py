"""``tf.train.Optimizer``: the base class of the optimizers. ``minimize`` is
``compute_gradients`` (``tf.gradients`` of the loss) followed by ``apply_gradients`` (one update
op per variable, dense or sparse, then an optional ``global_step`` increment)."""

import collections.abc
import sys

from tideflow.framework import dtypes, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import array_ops, control_flow_ops, gather_ops, reduction_ops, state_ops
from tideflow.ops import variables as variables_lib
from tideflow.train import slot_creator


def _deduplicate_indexed_slices(values, indices):
    """Sums the rows of ``values`` that share an index: (summed_values, unique_indices)."""
    unique_indices, positions = gather_ops.unique(indices)
    summed = reduction_ops.unsorted_segment_sum(values, positions,
                                                array_ops.shape(unique_indices)[0])
    return summed, unique_indices


def _var_key(var):
    var = var.primary if getattr(var, "_is_mirrored_variable", False) else var
    return (var.op.graph, var.op.name)


def _distribute():
    """tf.distribute's optimizer module when a program has loaded tf.distribute (else None)."""
    return sys.modules.get("tideflow.distribute.updates")


def _is_variable(v):
    return isinstance(v, variables_lib.Variable)


class _RefVariableProcessor:
    """Updates a ``tf.Variable`` (dense gradients, or IndexedSlices with summed duplicates)."""

    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v._ref()

    def update_op(self, optimizer, g):
        if isinstance(g, ops.Tensor):
            if _resource_form(type(optimizer), "_apply_dense", "_resource_apply_dense"):
                update_op = optimizer._resource_apply_dense(g, self._v)
            else:
                update_op = optimizer._apply_dense(g, self._v)
            if self._v.constraint is not None:
                with ops.control_dependencies([update_op]):
                    return self._v.assign(self._v.constraint(self._v))
            return update_op
        if not isinstance(g, IndexedSlices):
            raise TypeError(f"Gradient {g} is neither a tensor nor IndexedSlices.")
        if self._v.constraint is not None:
            raise RuntimeError("Cannot use a constraint function on a sparse variable.")
        if _resource_form(type(optimizer), "_apply_sparse", "_resource_apply_sparse"):
            return optimizer._resource_apply_sparse_duplicate_indices(g.values, self._v,
                                                                      g.indices)
        return optimizer._apply_sparse_duplicate_indices(g, self._v)


_RESOURCE_FORM = {}


def _resource_form(cls, ref_name, resource_name):
    """Whether an optimizer class updates through its resource-variable method: the class
    nearest in its MRO that defines either method defines only the resource one (an optimizer
    written for resource variables alone; tideflow's variables take both forms)."""
    key = (cls, ref_name)
    found = _RESOURCE_FORM.get(key)
    if found is None:
        found = False
        for klass in cls.__mro__:
            if ref_name in klass.__dict__:
                break
            if resource_name in klass.__dict__:
                found = klass is not Optimizer
                break
        _RESOURCE_FORM[key] = found
    return found


class _TensorProcessor:
    """A plain tensor: gradients can be computed for it, but it cannot be updated."""

    def __init__(self, v):
        self._v = v

    def target(self):
        return self._v

    def update_op(self, optimizer, g):
        raise NotImplementedError("Trying to update a Tensor ", self._v)


def _get_processor(v):
    if _is_variable(v):
        return _RefVariableProcessor(v)
    if isinstance(v, ops.Tensor):
        return _TensorProcessor(v)
    raise NotImplementedError("Trying to optimize unsupported type ", v)


def _flatten(x):
    # TF's nest.flatten: a dict gives its values in key order; dict views
    # (d.values(), d.keys()) are sequences too.
    if isinstance(x, dict):
        x = [x[k] for k in sorted(x)]
    if isinstance(x, (list, tuple, collections.abc.MappingView)):
        out = []
        for e in x:
            out.extend(_flatten(e))
        return out
    if hasattr(x, "_get_variable_list") and not _is_variable(x):
        return list(x._get_variable_list())  # a PartitionedVariable: its parts
    return [x]


class Optimizer:
    """Base class of the optimizers: subclasses define ``_create_slots``, ``_prepare``,
    ``_apply_dense``, ``_apply_sparse`` and optionally ``_finish``."""

    GATE_NONE = 0
    GATE_OP = 1
    GATE_GRAPH = 2
    # a resource global step's increment is read after it (Keras's OptimizerV2 iterations,
    # which the Keras optimizers built on these emulate); tf.train's own is the bare op
    _STEP_READ = False

    def __init__(self, use_locking, name):
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = use_locking
        self._name = name
        # slot name -> {(graph, var name): slot variable}
        self._slots = {}
        # (name, graph) -> variable not tied to one variable (Adam's beta powers)
        self._non_slot_dict = {}

    def get_name(self):
        return self._name

    # -- the three steps ---------------------------------------------------------------------
    def minimize(self, loss, global_step=None, var_list=None, gate_gradients=GATE_OP,
                 aggregation_method=None, colocate_gradients_with_ops=False, name=None,
                 grad_loss=None):
        """Adds ops that update ``var_list`` to decrease ``loss``; returns the train op."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss,
        )
        return self._apply_minimizing(loss, grads_and_vars, global_step, name)

    def _apply_minimizing(self, loss, grads_and_vars, global_step, name):
        """``minimize``'s second half: TF's error where no variable got a gradient, then the
        update ops."""
        vars_with_grad = [v for g, v in grads_and_vars if g is not None]
        if not vars_with_grad:
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do not "
                f"support gradients, between variables {[str(v) for _, v in grads_and_vars]} "
                f"and loss {loss}."
            )
        return self.apply_gradients(grads_and_vars, global_step=global_step, name=name)

    def compute_gradients(self, loss, var_list=None, gate_gradients=GATE_OP,
                          aggregation_method=None, colocate_gradients_with_ops=False,
                          grad_loss=None):
        """A list of (gradient, variable) pairs; a gradient is a Tensor, IndexedSlices or None."""
        return self._gradients_of(loss, var_list, gate_gradients, aggregation_method,
                                  colocate_gradients_with_ops, grad_loss)

    def _gradients_of(self, loss, var_list, gate_gradients, aggregation_method,
                      colocate_gradients_with_ops, grad_loss, stop_gradients=None):
        from tideflow.ops import gradients as gradients_lib

        if callable(loss):
            loss = loss()
        if _distribute() is not None:
            loss = _distribute().scale_loss(loss)
        if gate_gradients not in (Optimizer.GATE_NONE, Optimizer.GATE_OP, Optimizer.GATE_GRAPH):
            raise ValueError(
                "gate_gradients must be one of: Optimizer.GATE_NONE, Optimizer.GATE_OP, "
                f"Optimizer.GATE_GRAPH.  Not {gate_gradients}"
            )
        self._assert_valid_dtypes([loss])
        if grad_loss is not None:
            self._assert_valid_dtypes([grad_loss])
        if var_list is None:
            var_list = (variables_lib.trainable_variables()
                        + ops.get_collection(ops.GraphKeys.TRAINABLE_RESOURCE_VARIABLES))
        else:
            var_list = _flatten(var_list)
        var_list = var_list + ops.get_collection(ops.GraphKeys._STREAMING_MODEL_PORTS)
        processors = [_get_processor(v) for v in var_list]
        if not var_list:
            raise ValueError("No variables to optimize.")
        var_refs = [p.target() for p in processors]
        grads = gradients_lib.gradients(
            loss, var_refs, grad_ys=grad_loss,
            gate_gradients=(gate_gradients == Optimizer.GATE_OP),
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops,
            stop_gradients=stop_gradients,
        )
        if gate_gradients == Optimizer.GATE_GRAPH:
            grads = control_flow_ops.tuple(grads)
        grads_and_vars = list(zip(grads, var_list))
        self._assert_valid_dtypes(
            [v for g, v in grads_and_vars if g is not None and v.dtype != dtypes.resource]
        )
        return grads_and_vars

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Adds the update ops for ``grads_and_vars`` (and ``global_step += 1`` after them).

        Returns the train op, named ``name`` (default: the optimizer's name).
        """
        grads_and_vars = tuple(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("No variables provided.")
        if _distribute() is not None:  # in a tf.distribute replica: all-reduced updates
            train_op = _distribute().optimizer_apply(self, grads_and_vars, global_step, name)
            if train_op is not None:
                return train_op
        converted = []
        for g, v in grads_and_vars:
            if g is not None:
                try:
                    g = ops.convert_to_tensor_or_indexed_slices(g)
                except TypeError:
                    raise TypeError(
                        f"Gradient must be convertible to a Tensor or IndexedSlices, or None: {g}"
                    ) from None
                if not isinstance(g, (ops.Tensor, IndexedSlices)):
                    raise TypeError(f"Gradient must be a Tensor, IndexedSlices, or None: {g}")
            converted.append((g, v, _get_processor(v)))
        var_list = [v for g, v, _ in converted if g is not None]
        if not var_list:
            raise ValueError(
                f"No gradients provided for any variable: {[str(v) for _, v, _ in converted]}."
            )
        with ops.control_dependencies(None):
            self._create_slots(var_list)
        update_ops = []
        with ops.name_scope(name, self._name) as scope:
            self._prepare()
            for grad, var, processor in converted:
                if grad is None:
                    continue
                with ops.name_scope("update_" + var.op.name), ops.colocate_with(var):
                    update_ops.append(processor.update_op(self, grad))
            if global_step is None:
                apply_updates = self._finish(update_ops, scope)
            else:
                with ops.control_dependencies([self._finish(update_ops, "update")]), \
                        ops.colocate_with(global_step):
                    if getattr(global_step, "_resource", False) and not self._STEP_READ:
                        # as TF 1.15: a resource step's increment is the op itself (named
                        # after the scope, its 1 a Const beside it), with no read after it
                        one = ops.convert_to_tensor(1, dtype=global_step.dtype.base_dtype)
                        apply_updates = global_step.assign_add(one, name=scope,
                                                               read_value=False)
                    else:
                        apply_updates = state_ops.assign_add(global_step, 1, name=scope)
                        if self._STEP_READ and getattr(global_step, "_resource", False):
                            # as OptimizerV2's ``iterations.assign_add(1).op``: the step is
                            # the increment itself (its read after it stays in the graph)
                            apply_updates = next(
                                (c for c in apply_updates.op.control_inputs
                                 if c.type == "AssignAddVariableOp"), apply_updates)
        if isinstance(apply_updates, ops.Tensor):
            apply_updates = apply_updates.op
        train_op = ops.get_collection_ref(ops.GraphKeys.TRAIN_OP)
        if apply_updates not in train_op:
            train_op.append(apply_updates)
        return apply_updates

    # -- slots -------------------------------------------------------------------------------
    def get_slot(self, var, name):
        """The slot ``name`` made for ``var`` (e.g. "momentum", "m"), or None."""
        named_slots = self._slots.get(name)
        if not named_slots:
            return None
        return named_slots.get(_var_key(var))

    def get_slot_names(self):
        """The names of the slots this optimizer makes, sorted."""
        return sorted(self._slots)

    def variables(self):
        """The optimizer's own variables in the default graph (slots and others), by name."""
        current = ops.get_default_graph()
        out = [v for v in self._non_slot_variables() if v.op.graph is current]
        for slots in self._slots.values():
            out.extend(v for v in slots.values() if v.op.graph is current)
        return sorted(out, key=lambda v: v.name)

    def _slot_dict(self, slot_name):
        return self._slots.setdefault(slot_name, {})

    def _get_or_make_slot(self, var, val, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named_slots:
            named_slots[key] = slot_creator.create_slot(var, val, op_name)
        return named_slots[key]

    def _get_or_make_slot_with_initializer(self, var, initializer, shape, dtype, slot_name,
                                           op_name):
        named_slots = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named_slots:
            named_slots[key] = slot_creator.create_slot_with_initializer(
                var, initializer, shape, dtype, op_name)
        return named_slots[key]

    def _zeros_slot(self, var, slot_name, op_name):
        named_slots = self._slot_dict(slot_name)
        key = _var_key(var)
        if key not in named_slots:
            named_slots[key] = slot_creator.create_zeros_slot(var, op_name)
        return named_slots[key]

    def _create_non_slot_variable(self, initial_value, name, colocate_with):
        graph = colocate_with.graph
        key = (name, graph)
        v = self._non_slot_dict.get(key)
        if v is None:
            # a resource variable beside resource variables, as TF 1.15 makes it (its
            # VarHandleOp, IsInitialized, Assign and Read ops)
            use_resource = bool(getattr(colocate_with, "_resource", False))
            with graph.as_default(), ops.colocate_with(colocate_with):
                v = variables_lib.Variable(initial_value, name=name, trainable=False,
                                           use_resource=use_resource)
            self._non_slot_dict[key] = v
        return v

    def _get_non_slot_variable(self, name, graph=None):
        graph = graph or ops.get_default_graph()
        # a cond branch or loop body sits in its enclosing graph (TF 1.x), whose variables these are
        graph = getattr(graph, "_root", None) or graph
        return self._non_slot_dict.get((name, graph))

    def _non_slot_variables(self):
        return list(self._non_slot_dict.values())

    # -- for subclasses ----------------------------------------------------------------------
    def _valid_dtypes(self):
        return {dtypes.float16, dtypes.bfloat16, dtypes.float32, dtypes.float64}

    def _assert_valid_dtypes(self, tensors):
        valid = self._valid_dtypes()
        for t in tensors:
            dtype = t.dtype.base_dtype
            if dtype not in valid:
                # the set's own order, as TF lists it (DTypes hash by their enum, as TF's)
                raise ValueError(
                    f"Invalid type {dtype!r} for {t.name}, expected: {list(valid)}."
                )

    def _create_slots(self, var_list):
        """Creates the slots of every variable of ``var_list`` (none by default)."""

    def _prepare(self):
        """Converts hyper-parameters to tensors, once per ``apply_gradients``."""

    def _apply_dense(self, grad, var):
        raise NotImplementedError()

    def _apply_sparse_duplicate_indices(self, grad, var):
        """Sums the rows of ``grad`` that share an index, then calls ``_apply_sparse``."""
        summed, unique_indices = _deduplicate_indexed_slices(grad.values, grad.indices)
        return self._apply_sparse(IndexedSlices(summed, unique_indices, grad.dense_shape), var)

    def _apply_sparse(self, grad, var):
        raise NotImplementedError()

    def _resource_apply_dense(self, grad, handle):
        """The update for a resource variable (``handle`` is the variable itself here): the
        reference-variable update, which tideflow's variables also take."""
        if type(self)._apply_dense is Optimizer._apply_dense:
            raise NotImplementedError()
        return self._apply_dense(grad, handle)

    def _resource_apply_sparse_duplicate_indices(self, grad, handle, indices):
        """Sums the rows of ``grad`` that share an index, then calls ``_resource_apply_sparse``."""
        summed, unique_indices = _deduplicate_indexed_slices(grad, indices)
        return self._resource_apply_sparse(summed, handle, unique_indices)

    def _resource_apply_sparse(self, grad, handle, indices):
        """The sparse update for a resource variable: the reference-variable one."""
        if type(self)._apply_sparse is Optimizer._apply_sparse:
            raise NotImplementedError()
        return self._apply_sparse(
            IndexedSlices(grad, indices, array_ops.shape(handle, out_type=indices.dtype)),
            handle)

    def _finish(self, update_ops, name_scope):
        """The op that runs after every update (a group of them by default)."""
        return control_flow_ops.group(*update_ops, name=name_scope)

    @staticmethod
    def _call_if_callable(param):
        return param() if callable(param) else param

    @staticmethod
    def _scale_loss(loss_value):
        """The loss divided by the number of replicas in a tf.distribute replica context."""
        if callable(loss_value):
            loss_value = loss_value()
        if _distribute() is not None:
            return _distribute().scale_loss(loss_value)
        return loss_value
