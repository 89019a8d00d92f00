"""``tf.train.SyncReplicasOptimizer``: synchronous data-parallel training with backup workers.

Each replica pushes its gradients into one conditional accumulator per variable (on the
variable's device, shared by name across replicas), tagged with the replica's local step. The
chief's queue runner takes ``replicas_to_aggregate`` fresh gradients from every accumulator,
applies their mean with the wrapped optimizer, advances the global step and releases tokens;
a replica waits for a token (carrying the new global step) before its next step. Gradients
computed at an older step than the global step are dropped by the accumulators, so with
``total_num_replicas > replicas_to_aggregate`` the slowest workers (backups) never hold a step
back.
"""

from tideflow import logging
from tideflow.framework import dtypes, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.ops import accumulator_ops, control_flow_ops, data_flow_ops, fill_ops, state_ops
from tideflow.ops import variables as variables_lib
from tideflow.train import queue_runner
from tideflow.train.optimizer import Optimizer
from tideflow.train.session_run_hook import SessionRunHook

__all__ = ["SyncReplicasOptimizer", "SyncReplicasOptimizerV2"]


class SyncReplicasOptimizer(Optimizer):
    """Wraps ``opt`` so that each update applies the mean of ``replicas_to_aggregate``
    replicas' gradients.

    ``SyncReplicasOptimizer(opt, replicas_to_aggregate, total_num_replicas=None,
    variable_averages=None, variables_to_average=None, use_locking=False,
    name='sync_replicas')``. ``total_num_replicas`` defaults to ``replicas_to_aggregate``; more
    replicas than that are backups. Each replica calls ``apply_gradients`` (with a global
    step) and runs the returned train op; the chief also runs ``get_chief_queue_runner()``,
    ``chief_init_op`` and ``get_init_tokens_op()`` once, the others ``local_step_init_op``
    (``make_session_run_hook(is_chief)`` does all of this in a monitored session).
    """

    def __init__(self, opt, replicas_to_aggregate, total_num_replicas=None,
                 variable_averages=None, variables_to_average=None, use_locking=False,
                 name="sync_replicas"):
        if total_num_replicas is None:
            total_num_replicas = replicas_to_aggregate
        super().__init__(use_locking, name)
        logging.info("SyncReplicasV2: replicas_to_aggregate=%s; total_num_replicas=%s",
                     replicas_to_aggregate, total_num_replicas)
        self._opt = opt
        self._replicas_to_aggregate = replicas_to_aggregate
        self._gradients_applied = False
        self._variable_averages = variable_averages
        self._variables_to_average = variables_to_average
        self._total_num_replicas = total_num_replicas
        self._tokens_per_step = max(total_num_replicas, replicas_to_aggregate)
        self._global_step = None
        self._sync_token_queue = None
        self._chief_queue_runner = None
        self._local_step = None
        # (accumulator, device) pairs: the chief sets each accumulator's global step
        self._accumulator_list = []
        self.local_step_init_op = None
        self.chief_init_op = None
        self.ready_for_local_init_op = None

    def compute_gradients(self, *args, **kwargs):
        """The wrapped optimizer's ``compute_gradients`` (gradients may be clipped per replica
        before ``apply_gradients`` aggregates them)."""
        return self._opt.compute_gradients(*args, **kwargs)

    def apply_gradients(self, grads_and_vars, global_step=None, name=None):
        """Builds this replica's train op (push the gradients, then wait for a token) and the
        chief's aggregated update. Returns the train op.

        Raises ValueError when ``grads_and_vars`` is empty or ``global_step`` is None (the
        staleness of gradients is judged against it).
        """
        grads_and_vars = list(grads_and_vars)
        if not grads_and_vars:
            raise ValueError("Must supply at least one variable")
        if global_step is None:
            raise ValueError("Global step is required to check staleness")
        self._global_step = global_step
        train_ops = []
        aggregated_grad = []
        var_list = []

        # the local step lives on this replica's worker, not on a parameter server
        local_anchor = control_flow_ops.no_op()
        with ops.colocate_with(local_anchor):
            self._local_step = variables_lib.Variable(
                initial_value=0, trainable=False, collections=[ops.GraphKeys.LOCAL_VARIABLES],
                dtype=global_step.dtype.base_dtype, name="sync_rep_local_step")
        self.local_step_init_op = state_ops.assign(self._local_step, global_step)
        chief_init_ops = [self.local_step_init_op]
        self.ready_for_local_init_op = variables_lib.report_uninitialized_variables(
            variables_lib.global_variables())

        with ops.name_scope(None, self._name):
            for grad, var in grads_and_vars:
                var_list.append(var)
                with ops.device(var.device):
                    if grad is None:
                        aggregated_grad.append(None)  # passed through
                        continue
                    if isinstance(grad, ops.Tensor):
                        accum = accumulator_ops.ConditionalAccumulator(
                            grad.dtype, shape=var.get_shape(),
                            shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_grad(grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_grad(self._replicas_to_aggregate))
                    elif isinstance(grad, IndexedSlices):
                        accum = accumulator_ops.SparseConditionalAccumulator(
                            grad.dtype, shape=(), shared_name=var.name + "/grad_accum")
                        train_ops.append(accum.apply_indexed_slices_grad(
                            grad, local_step=self._local_step))
                        aggregated_grad.append(accum.take_indexed_slices_grad(
                            self._replicas_to_aggregate))
                    else:
                        raise ValueError("Unknown grad type!")  # noqa: TRY004 - TF's error class
                    self._accumulator_list.append((accum, var.device))

            aggregated_grads_and_vars = list(zip(aggregated_grad, var_list))

            # the aggregated update and the token queue live with the global step
            with ops.device(global_step.device), ops.name_scope(""):
                update_op = self._opt.apply_gradients(aggregated_grads_and_vars, global_step)
                sync_token_queue = data_flow_ops.FIFOQueue(
                    -1, global_step.dtype.base_dtype, shapes=(), name="sync_token_q",
                    shared_name="sync_token_q")
                self._sync_token_queue = sync_token_queue
                # the chief's queue runner gets a dummy queue: closing it (on a stop) must
                # not close the real token queue on the parameter server
                dummy_queue = data_flow_ops.FIFOQueue(
                    1, dtypes.int32, shapes=(), name="dummy_queue", shared_name="dummy_queue")

                # a replica waits for a token before its next step
                with ops.control_dependencies(train_ops):
                    token = sync_token_queue.dequeue()
                train_op = state_ops.assign(self._local_step, token)

                with ops.control_dependencies([update_op]):
                    # as TF: the global step itself (a ref variable's read shows the update
                    # made before the fill; a resource variable's is a fresh read after it)
                    tokens = fill_ops.fill([self._tokens_per_step], global_step)
                    sync_op = sync_token_queue.enqueue_many((tokens,))
                if self._variable_averages is not None:
                    with ops.control_dependencies([sync_op]), ops.name_scope(""):
                        sync_op = self._variable_averages.apply(self._variables_to_average)
                self._chief_queue_runner = queue_runner.QueueRunner(dummy_queue, [sync_op])

            for accum, dev in self._accumulator_list:
                with ops.device(dev):
                    chief_init_ops.append(
                        accum.set_global_step(global_step, name="SetGlobalStep"))
            self.chief_init_op = control_flow_ops.group(*chief_init_ops)
            self._gradients_applied = True
            return train_op

    def get_chief_queue_runner(self):
        """The QueueRunner the chief runs: take the aggregated gradients, apply them, advance
        the global step and release the next step's tokens."""
        if not self._gradients_applied:
            raise ValueError("Should be called after apply_gradients().")
        return self._chief_queue_runner

    def get_slot(self, *args, **kwargs):
        """The wrapped optimizer's slot (``get_slot(var, name)``)."""
        return self._opt.get_slot(*args, **kwargs)

    def variables(self):
        """The wrapped optimizer's variables (not this optimizer's local step)."""
        return self._opt.variables()

    def get_slot_names(self, *args, **kwargs):
        """The wrapped optimizer's slot names."""
        return self._opt.get_slot_names(*args, **kwargs)

    def get_init_tokens_op(self, num_tokens=-1):
        """An op putting ``num_tokens`` tokens (default: ``replicas_to_aggregate``) in the token
        queue, for the chief to run once at the start.

        Raises ValueError when called before ``apply_gradients`` or with fewer tokens than
        ``replicas_to_aggregate - total_num_replicas`` (the first step could never finish).
        """
        if not self._gradients_applied:
            raise ValueError("get_init_tokens_op() should be called after apply_gradients().")
        tokens_needed = self._replicas_to_aggregate - self._total_num_replicas
        if num_tokens == -1:
            num_tokens = self._replicas_to_aggregate
        elif num_tokens < tokens_needed:
            raise ValueError(
                f"Too few tokens to finish the first step: {num_tokens} (given) vs "
                f"{tokens_needed} (needed)"
            )
        if num_tokens > 0:
            with ops.device(self._global_step.device), ops.name_scope(""):
                tokens = fill_ops.fill([num_tokens], self._global_step)
                return self._sync_token_queue.enqueue_many((tokens,))
        return control_flow_ops.no_op(name="no_init_tokens")

    def make_session_run_hook(self, is_chief, num_tokens=-1):
        """A SessionRunHook running this optimizer's initialization (and, on the chief, its
        queue runner) when a monitored session is created."""
        return _SyncReplicasOptimizerHook(self, is_chief, num_tokens)


# the 0.12 name of the same optimizer
SyncReplicasOptimizerV2 = SyncReplicasOptimizer


class _SyncReplicasOptimizerHook(SessionRunHook):
    """Runs the local (or chief) init op once the model is initialized, then the init tokens
    op and the chief queue runner on the chief."""

    def __init__(self, sync_optimizer, is_chief, num_tokens):
        self._sync_optimizer = sync_optimizer
        self._is_chief = is_chief
        self._num_tokens = num_tokens

    def begin(self):
        opt = self._sync_optimizer
        if not opt._gradients_applied:
            raise ValueError(
                "SyncReplicasOptimizer.apply_gradient should be called before using the hook.")
        self._ready_for_local_init_op = opt.ready_for_local_init_op
        if self._is_chief:
            self._local_init_op = opt.chief_init_op
            self._q_runner = opt.get_chief_queue_runner()
            self._init_tokens_op = opt.get_init_tokens_op(self._num_tokens)
        else:
            self._local_init_op = opt.local_step_init_op
            self._q_runner = None
            self._init_tokens_op = None

    def after_create_session(self, session, coord):
        not_ready = session.run(self._ready_for_local_init_op)
        if getattr(not_ready, "size", 0):
            names = ", ".join(n.decode() if isinstance(n, bytes) else str(n)
                              for n in not_ready.reshape(-1))
            raise RuntimeError(
                "Init operations did not make model ready for SyncReplicasOptimizer local_init. "
                f"Init op: {self._local_init_op.name}, error: Variables not initialized: {names}"
            )
        session.run(self._local_init_op)
        if self._init_tokens_op is not None:
            session.run(self._init_tokens_op)
        if self._q_runner is not None:
            self._q_runner.create_threads(session, coord=coord, daemon=True, start=True)
