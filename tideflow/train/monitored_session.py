"""``tf.train.MonitoredSession`` and ``MonitoredTrainingSession``: a session that initializes or
restores the model, runs hooks around each step, drives queue runners with a Coordinator, and
recreates itself from the last checkpoint when a step is aborted (a lost worker or PS).

The session is built in layers, as in TF: ``_RecoverableSession`` (recreates on Aborted /
Unavailable) over ``_CoordinatedSession`` (joins the coordinator's threads) over
``_HookedSession`` (merges the hooks' fetches and feeds) over a ``tf.Session``.
"""

import contextlib
import inspect
import time

from tideflow import logging
from tideflow.framework import errors, ops
from tideflow.ops import control_flow_ops
from tideflow.ops import variables as variables_lib
from tideflow.protos import config_pb2
from tideflow.summary import summary as summary_lib
from tideflow.train import basic_hooks, coordinator, queue_runner, session_run_hook
from tideflow.train import saver as saver_lib
from tideflow.train import session_manager as sm

# errors that mean "a peer went away": the session is recreated instead of failing
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

USE_DEFAULT = object()
_BLOCKED_THREAD_WAIT_S = 1.0  # how long closing waits for threads before closing the session


def _tables_initializer(name="init_all_tables"):
    tables = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    if tables:
        return control_flow_ops.group(*tables, name=name)
    return control_flow_ops.no_op(name=name)


def _get_saver_or_default():
    """The saver of the SAVERS collection, or a new sharded one added to it."""
    savers = ops.get_collection(ops.GraphKeys.SAVERS)
    if savers:
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {ops.GraphKeys.SAVERS}. "
                               "Please indicate which one to use by passing it to the "
                               "constructor.")
        return savers[0]
    saver = saver_lib.Saver(sharded=True, allow_empty=True)
    ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
    return saver


class Scaffold:
    """The pieces a training session needs (init, ready and local-init ops, summary op,
    saver), taken from the graph's collections or created by ``finalize``."""

    def __init__(self, init_op=None, init_feed_dict=None, init_fn=None, ready_op=None,
                 ready_for_local_init_op=None, local_init_op=None, summary_op=None,
                 saver=None, copy_from_scaffold=None):
        if copy_from_scaffold is not None:
            if not isinstance(copy_from_scaffold, Scaffold):
                raise TypeError("copy_from_scaffold is not a Scaffold instance.")

            def coalesce(a, b):
                return a if a is not None else b

            src = copy_from_scaffold
            init_op = coalesce(init_op, src.init_op)
            init_feed_dict = coalesce(init_feed_dict, src.init_feed_dict)
            init_fn = coalesce(init_fn, src._user_init_fn)
            ready_op = coalesce(ready_op, src.ready_op)
            ready_for_local_init_op = coalesce(ready_for_local_init_op,
                                               src.ready_for_local_init_op)
            local_init_op = coalesce(local_init_op, src.local_init_op)
            summary_op = coalesce(summary_op, src.summary_op)
            saver = coalesce(saver, src.saver)
        self._user_init_fn = init_fn
        # TF calls init_fn(scaffold, session): the scaffold gives access to the saver
        self._init_fn = (lambda sess: init_fn(self, sess)) if init_fn else None
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._local_init_op = local_init_op
        self._summary_op = summary_op
        self._saver = saver

    def finalize(self):
        """Creates the missing pieces, then finalizes the default graph."""
        from tideflow.ops import concat_ops
        from tideflow.python.ops import resources

        if self._init_op is None:
            # as TF: the variables' initializer and the shared resources' ("init_1", a no-op
            # when there are none)
            self._init_op = Scaffold.get_or_default(
                "init_op", ops.GraphKeys.INIT_OP,
                lambda: control_flow_ops.group(
                    variables_lib.global_variables_initializer(),
                    resources.initialize_resources(resources.shared_resources())))

        if self._ready_op is None:
            # as TF: uninitialized variables and resources, one string vector ("concat")
            self._ready_op = Scaffold.get_or_default(
                "ready_op", ops.GraphKeys.READY_OP,
                lambda: concat_ops.concat([variables_lib.report_uninitialized_variables(),
                                           resources.report_uninitialized_resources()], 0))
        if self._ready_for_local_init_op is None:
            self._ready_for_local_init_op = Scaffold.get_or_default(
                "ready_for_local_init_op", ops.GraphKeys.READY_FOR_LOCAL_INIT_OP,
                lambda: concat_ops.concat(
                    [variables_lib.report_uninitialized_variables(
                        variables_lib.global_variables()),
                     resources.report_uninitialized_resources(resources.shared_resources())],
                    0))
        if self._local_init_op is None:
            self._local_init_op = Scaffold.get_or_default(
                "local_init_op", ops.GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if self._summary_op is None:
            self._summary_op = Scaffold.get_or_default(
                "summary_op", ops.GraphKeys.SUMMARY_OP, summary_lib.merge_all)
        if self._saver is None:
            self._saver = _get_saver_or_default()
        self._saver.build()
        ops.get_default_graph().finalize()
        logging.info("Graph was finalized.")
        return self

    @property
    def init_fn(self):
        return self._init_fn

    @property
    def init_op(self):
        return self._init_op

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def local_init_op(self):
        return self._local_init_op

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def saver(self):
        return self._saver

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @staticmethod
    def get_or_default(arg_name, collection_key, default_constructor):
        """The single item of ``collection_key``, or a new default added to it."""
        elements = ops.get_collection(collection_key)
        if elements:
            if len(elements) > 1:
                raise RuntimeError(
                    f'More than one item in the collection "{collection_key}". Please indicate '
                    "which one to use by passing it to the tf.Scaffold constructor as:  "
                    f"tf.Scaffold({arg_name}=item to use)")
            return elements[0]
        op = default_constructor()
        if op is not None:
            ops.add_to_collection(collection_key, op)
        return op

    @staticmethod
    def default_local_init_op():
        """Local variables' and tables' initializers, grouped."""
        from tideflow.python.ops import resources

        return control_flow_ops.group(variables_lib.local_variables_initializer(),
                                      _tables_initializer(),
                                      resources.initialize_resources(resources.local_resources()))


# ------------------------------------------------------------------------------------------
# session creators
# ------------------------------------------------------------------------------------------


class SessionCreator:
    """A factory of ``tf.Session``s."""

    def create_session(self):
        raise NotImplementedError(f"create_session is not implemented for {self}.")


class _ScaffoldedCreator(SessionCreator):
    def _get_session_manager(self):
        if self._session_manager is None:
            self._session_manager = sm.SessionManager(
                local_init_op=self._scaffold.local_init_op,
                ready_op=self._scaffold.ready_op,
                ready_for_local_init_op=self._scaffold.ready_for_local_init_op,
                graph=ops.get_default_graph())
        return self._session_manager


class ChiefSessionCreator(_ScaffoldedCreator):
    """Creates sessions for the chief: restores the last checkpoint or initializes."""

    def __init__(self, scaffold=None, master="", config=None, checkpoint_dir=None,
                 checkpoint_filename_with_path=None):
        self._checkpoint_dir = checkpoint_dir
        self._checkpoint_filename_with_path = checkpoint_filename_with_path
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().prepare_session(
            self._master, saver=self._scaffold.saver, checkpoint_dir=self._checkpoint_dir,
            checkpoint_filename_with_path=self._checkpoint_filename_with_path,
            config=self._config, init_op=self._scaffold.init_op,
            init_feed_dict=self._scaffold.init_feed_dict, init_fn=self._scaffold.init_fn)


class WorkerSessionCreator(_ScaffoldedCreator):
    """Creates sessions for non-chief workers: waits until the chief made the model ready."""

    def __init__(self, scaffold=None, master="", config=None, max_wait_secs=30 * 60):
        self._scaffold = scaffold or Scaffold()
        self._session_manager = None
        self._master = master
        self._config = config
        self._max_wait_secs = max_wait_secs

    def create_session(self):
        self._scaffold.finalize()
        return self._get_session_manager().wait_for_session(
            self._master, config=self._config, max_wait_secs=self._max_wait_secs)


# ------------------------------------------------------------------------------------------
# the public sessions
# ------------------------------------------------------------------------------------------


class _MonitoredSession:
    """What ``MonitoredSession`` and ``SingularMonitoredSession`` share."""

    def __init__(self, session_creator, hooks, should_recover, stop_grace_period_secs=120):
        self._graph_was_finalized = ops.get_default_graph().finalized
        self._hooks = list(hooks or [])
        for h in self._hooks:
            h.begin()
        self._coordinated_creator = self._CoordinatedSessionCreator(
            session_creator=session_creator or ChiefSessionCreator(), hooks=self._hooks,
            stop_grace_period_secs=stop_grace_period_secs)
        try:
            if should_recover:
                self._sess = _RecoverableSession(self._coordinated_creator)
            else:
                self._sess = self._coordinated_creator.create_session()
        except BaseException:
            # as TF 1.15: a session that was never made is never closed, so the graph its
            # scaffold finalized stays finalized
            self._sess = None
            raise

    @property
    def graph(self):
        """The graph launched in this session (None once closed)."""
        sess = self._tf_sess()
        return None if sess is None else sess.graph

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Like ``tf.Session.run``, with the hooks run around the step (once closed, TF's
        AttributeError: its wrapped session is None)."""
        return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                              run_metadata=run_metadata)

    def run_step_fn(self, step_fn):
        """Runs ``step_fn(step_context)``: it may use the raw session, run with hooks, or stop.

        A ``step_context.request_stop()`` raises StopIteration, which the ``with`` block of
        the session swallows (closing it, so ``should_stop()`` is then True); outside a ``with``
        block the session is left as it was, as TF's.
        """
        params = tuple(inspect.signature(step_fn).parameters)
        if params not in (("step_context",), ("self", "step_context")):
            raise ValueError("`step_fn` may either have one `step_context` argument, or `self` "
                             "and `step_context` arguments if it's an instance method. Got "
                             f"{params} instead.")
        return self._sess.run_step_fn(step_fn, self._tf_sess(), run_with_hooks=None)

    class StepContext:
        """What a ``step_fn`` gets: the raw session, ``run_with_hooks`` and ``request_stop``."""

        def __init__(self, session, run_with_hooks_fn):
            self._session = session
            self._run_with_hooks_fn = run_with_hooks_fn

        @property
        def session(self):
            return self._session

        def run_with_hooks(self, *args, **kwargs):
            """Same as ``MonitoredSession.run``."""
            return self._run_with_hooks_fn(*args, **kwargs)

        def request_stop(self):
            """Ends the training loop (raises StopIteration)."""
            raise StopIteration("step_fn has requested the iterations to stop.")

    def should_stop(self):
        """True when a hook, the coordinator or a step function asked to stop, or when closed."""
        return self._sess is None or self._sess.should_stop()

    def close(self):
        """Calls the hooks' ``end``, stops the threads and closes the session."""
        self._close_internal()

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception_value, traceback):
        # running out of input (or a step_fn's stop) is how a loop ends normally
        if exception_type is not None and issubclass(exception_type,
                                                     (errors.OutOfRangeError, StopIteration)):
            exception_type = None
        self._close_internal(exception_type)
        return exception_type is None

    class _CoordinatedSessionCreator(SessionCreator):
        """Creates the coordinated, hooked session (again after each recovery)."""

        def __init__(self, session_creator, hooks, stop_grace_period_secs):
            self._session_creator = session_creator
            self._hooks = hooks
            self.coord = None
            self.tf_sess = None
            self._stop_grace_period_secs = stop_grace_period_secs

        def create_session(self):
            self.tf_sess = self._session_creator.create_session()
            # a coordinator that reports every exception, OutOfRange included
            self.coord = coordinator.Coordinator(clean_stop_exception_types=[])
            if ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
                queue_runner.start_queue_runners(sess=self.tf_sess, coord=self.coord)
            for hook in self._hooks:
                hook.after_create_session(self.tf_sess, self.coord)
            return _CoordinatedSession(_HookedSession(self.tf_sess, self._hooks), self.coord,
                                       self._stop_grace_period_secs)

    def _close_internal(self, exception_type=None):
        try:
            if not exception_type:
                for h in self._hooks:
                    h.end(self._coordinated_creator.tf_sess)
        finally:
            try:
                if self._sess is None:
                    raise RuntimeError("Session is already closed.")
                self._sess.close()
            finally:
                self._sess = None
                self._coordinated_creator.tf_sess = None
                self._coordinated_creator.coord = None
                if not self._graph_was_finalized:
                    ops.get_default_graph()._unsafe_unfinalize()

    def _is_closed(self):
        return self._coordinated_creator.tf_sess is None

    def _tf_sess(self):
        return self._coordinated_creator.tf_sess


class MonitoredSession(_MonitoredSession):
    """A session that initializes or restores the model, runs hooks, and recovers from
    Aborted/Unavailable errors by recreating itself (``tf.train.MonitoredSession``)."""

    def __init__(self, session_creator=None, hooks=None, stop_grace_period_secs=120):
        super().__init__(session_creator, hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A chief-only monitored session without recovery, whose raw session is accessible."""

    def __init__(self, hooks=None, scaffold=None, master="", config=None, checkpoint_dir=None,
                 stop_grace_period_secs=120, checkpoint_filename_with_path=None):
        creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self):
        """The underlying ``tf.Session``."""
        return self._tf_sess()


def MonitoredTrainingSession(master="", is_chief=True, checkpoint_dir=None,
                             scaffold=None, hooks=None, chief_only_hooks=None,
                             save_checkpoint_secs=USE_DEFAULT, save_summaries_steps=USE_DEFAULT,
                             save_summaries_secs=USE_DEFAULT, config=None,
                             stop_grace_period_secs=120, log_step_count_steps=100,
                             max_wait_secs=7200, save_checkpoint_steps=USE_DEFAULT,
                             summary_dir=None):
    """A ``MonitoredSession`` for training, with the standard hooks.

    The chief restores from (and checkpoints to) ``checkpoint_dir``, every 600 s unless
    ``save_checkpoint_secs``/``save_checkpoint_steps`` say otherwise, writes summaries every
    100 steps and "global_step/sec" every ``log_step_count_steps`` to ``summary_dir`` (default
    ``checkpoint_dir``). Other workers wait for the chief to make the model ready.
    """
    if save_summaries_steps is USE_DEFAULT and save_summaries_secs is USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_secs is USE_DEFAULT:
        save_summaries_secs = None
    elif save_summaries_steps is USE_DEFAULT:
        save_summaries_steps = None
    if save_checkpoint_steps is USE_DEFAULT and save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_steps, save_checkpoint_secs = None, 600
    elif save_checkpoint_secs is USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is USE_DEFAULT:
        save_checkpoint_steps = None

    scaffold = scaffold or Scaffold()
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                       max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=hooks or [],
                                stop_grace_period_secs=stop_grace_period_secs)

    all_hooks = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, checkpoint_dir=checkpoint_dir,
                                  master=master, config=config)
    summary_dir = summary_dir or checkpoint_dir
    if summary_dir:
        if log_step_count_steps and log_step_count_steps > 0:
            all_hooks.append(basic_hooks.StepCounterHook(output_dir=summary_dir,
                                                         every_n_steps=log_step_count_steps))
        if (save_summaries_steps and save_summaries_steps > 0) or (
                save_summaries_secs and save_summaries_secs > 0):
            all_hooks.append(basic_hooks.SummarySaverHook(
                scaffold=scaffold, save_steps=save_summaries_steps,
                save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0) or (
            save_checkpoint_steps and save_checkpoint_steps > 0)):
        # both given: TF 1.15's hook raises (its docstring's "secs win" is not what it does)
        all_hooks.append(basic_hooks.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs,
            scaffold=scaffold))
    if hooks:
        all_hooks.extend(hooks)
    return MonitoredSession(session_creator=creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)


# ------------------------------------------------------------------------------------------
# the layers
# ------------------------------------------------------------------------------------------


class _WrappedSession:
    """A session wrapper with ``should_stop``, whose ``close`` never raises preemptions."""

    def __init__(self, sess):
        self._sess = sess
        self._wrapped_is_stoppable = isinstance(self._sess, _WrappedSession)

    @property
    def graph(self):
        return self._sess.graph

    @property
    def sess_str(self):
        return self._sess.sess_str

    def should_stop(self):
        """True if this session should not be used any more (always once closed)."""
        if self._check_stop():
            return True
        if self._sess:
            return self._wrapped_is_stoppable and self._sess.should_stop()
        return True

    def _check_stop(self):
        return False

    def close(self):
        if self._sess:
            try:
                self._sess.close()
            except _PREEMPTION_ERRORS as e:
                logging.warning("An error occurred when attempting to close the session. This "
                                "may be due to a preemption in a connected worker or parameter "
                                "server. Error: %s", e)
            finally:
                self._sess = None

    def run(self, *args, **kwargs):
        return self._sess.run(*args, **kwargs)

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        run_with_hooks = run_with_hooks or self.run
        return step_fn(_MonitoredSession.StepContext(raw_session, run_with_hooks))


# TF 1.15's log lines (word for word: programs' logs are compared)
_GRPC_HINT = (
    "This error may also occur due to a gRPC failure caused by high memory or network "
    "bandwidth usage in the parameter servers. If this error occurs repeatedly, try increasing "
    "the number of parameter servers assigned to the job. Error: %s")
_RECOVERY_MESSAGE = (
    "An error was raised. This may be due to a preemption in a connected worker or parameter "
    "server. The current session will be closed and a new session will be created. "
    + _GRPC_HINT)
_CHECK_STOP_RECOVERY_MESSAGE = (
    "An error was raised while considering whether the session is complete. This may be due "
    "to a preemption in a connected worker or parameter server. The current session will be "
    "closed and a new session will be created. " + _GRPC_HINT)
_CREATE_RECOVERY_MESSAGE = (
    "An error was raised while a session was being created. This may be due to a preemption "
    "of a connected worker or parameter server. A new session will be created. " + _GRPC_HINT)


class _RecoverableSession(_WrappedSession):
    """Recreates the wrapped session (through its creator) on Aborted or Unavailable errors."""

    def __init__(self, sess_creator):
        self._sess_creator = sess_creator
        _WrappedSession.__init__(self, self._create_session())

    def _create_session(self):
        while True:
            try:
                return self._sess_creator.create_session()
            except _PREEMPTION_ERRORS as e:
                logging.info(_CREATE_RECOVERY_MESSAGE, e)

    def _check_stop(self):
        try:
            if self._sess:
                return self._sess._check_stop()
            return True
        except _PREEMPTION_ERRORS as e:
            logging.info(_CHECK_STOP_RECOVERY_MESSAGE, e)
            self.close()
            self._sess = self._create_session()
            # a fresh session: the computation goes on
            return False
        except Exception:  # noqa: BLE001 - should_stop answers, it does not raise
            return True

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                return self._sess.run(fetches, feed_dict=feed_dict, options=options,
                                      run_metadata=run_metadata)
            except _PREEMPTION_ERRORS as e:
                logging.info(_RECOVERY_MESSAGE, e)
                self.close()
                self._sess = None

    def run_step_fn(self, step_fn, raw_session, run_with_hooks):
        while True:
            try:
                if not self._sess:
                    self._sess = self._create_session()
                    raw_session = self._sess_creator.tf_sess
                return self._sess.run_step_fn(step_fn, raw_session, self._sess.run)
            except _PREEMPTION_ERRORS as e:
                logging.info(_RECOVERY_MESSAGE, e)
                self.close()
                self._sess = None


class _CoordinatedSession(_WrappedSession):
    """Reports errors to the coordinator; closing stops and joins the coordinator's threads."""

    def __init__(self, sess, coord, stop_grace_period_secs=120):
        _WrappedSession.__init__(self, sess)
        self._coord = coord
        self._stop_grace_period_secs = stop_grace_period_secs

    def _check_stop(self):
        # an exception a thread reported surfaces here, in the training loop
        self._coord.raise_requested_exception()
        return self._coord.should_stop()

    def close(self):
        self._coord.request_stop()
        try:
            # a thread blocked inside a step of this session (the chief's SyncReplicas queue
            # runner waiting for gradients no worker will send any more) ends only when the
            # session closes: after a short wait, close the session first, then join
            threads = list(self._coord._registered_threads)
            end = time.monotonic() + min(self._stop_grace_period_secs, _BLOCKED_THREAD_WAIT_S)
            for t in threads:
                t.join(max(0.0, end - time.monotonic()))
            if any(t.is_alive() for t in threads):
                with contextlib.suppress(Exception):
                    _WrappedSession.close(self)
            self._coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                             ignore_live_threads=True)
        finally:
            # join already reported the useful error
            with contextlib.suppress(Exception):
                _WrappedSession.close(self)

    def run(self, *args, **kwargs):
        try:
            return self._sess.run(*args, **kwargs)
        except _PREEMPTION_ERRORS:
            raise
        except Exception:
            # a thread's preemption error is the root cause of this one: raise that instead
            cause = _requested_preemption(self._coord)
            if cause is not None:
                raise cause from None
            raise


def _requested_preemption(coord):
    """The preemption error a thread reported to ``coord``, if that is what it reported."""
    try:
        coord.raise_requested_exception()
    except _PREEMPTION_ERRORS as e:
        return e
    except Exception:  # noqa: BLE001 - only a preemption takes precedence
        return None
    return None


class _HookedSession(_WrappedSession):
    """Calls the hooks' ``before_run``/``after_run`` around each ``run``."""

    def __init__(self, sess, hooks):
        _WrappedSession.__init__(self, sess)
        self._hooks = hooks
        self._should_stop = False

    def _check_stop(self):
        return self._should_stop

    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self.should_stop():
            raise RuntimeError("Run called even after should_stop requested.")
        actual_fetches = {"caller": fetches}
        run_context = session_run_hook.SessionRunContext(
            original_args=session_run_hook.SessionRunArgs(fetches, feed_dict),
            session=self._sess)
        options = options or config_pb2.RunOptions()
        feed_dict = self._call_hook_before_run(run_context, actual_fetches, feed_dict, options)
        run_metadata = run_metadata or config_pb2.RunMetadata()
        outputs = _WrappedSession.run(self, fetches=actual_fetches, feed_dict=feed_dict,
                                      options=options, run_metadata=run_metadata)
        for hook in self._hooks:
            hook.after_run(run_context, session_run_hook.SessionRunValues(
                results=outputs.get(hook), options=options, run_metadata=run_metadata))
        self._should_stop = self._should_stop or run_context.stop_requested
        return outputs["caller"]

    def _call_hook_before_run(self, run_context, fetch_dict, user_feed_dict, options):
        hook_feeds = {}
        for hook in self._hooks:
            request = hook.before_run(run_context)
            if request is None:
                continue
            if request.fetches is not None:
                fetch_dict[hook] = request.fetches
            if request.feed_dict:
                _raise_if_feeds_intersect(hook_feeds, request.feed_dict,
                                          "Same tensor is fed by two hooks.")
                hook_feeds.update(request.feed_dict)
            if request.options:
                _merge_run_options(options, request.options)
        if not hook_feeds:
            return user_feed_dict
        if not user_feed_dict:
            return hook_feeds
        _raise_if_feeds_intersect(user_feed_dict, hook_feeds,
                                  "Same tensor is fed by a SessionRunHook and user.")
        hook_feeds.update(user_feed_dict)
        return hook_feeds


def _raise_if_feeds_intersect(feeds1, feeds2, message):
    both = set(feeds1) & set(feeds2)
    if both:
        raise RuntimeError(f"{message} Conflict(s): {list(both)}")


def _merge_run_options(options, incoming):
    """Merges ``incoming`` into ``options``: maxima of numbers, OR of flags."""
    options.trace_level = max(options.trace_level, incoming.trace_level)
    options.timeout_in_ms = max(options.timeout_in_ms, incoming.timeout_in_ms)
    options.inter_op_thread_pool = max(options.inter_op_thread_pool,
                                       incoming.inter_op_thread_pool)
    options.output_partition_graphs = (options.output_partition_graphs
                                       or incoming.output_partition_graphs)
    options.debug_options.debug_tensor_watch_opts.extend(
        incoming.debug_options.debug_tensor_watch_opts)
    options.debug_options.reset_disk_byte_usage = (
        options.debug_options.reset_disk_byte_usage
        or incoming.debug_options.reset_disk_byte_usage)
    options.report_tensor_allocations_upon_oom = (
        options.report_tensor_allocations_upon_oom
        or incoming.report_tensor_allocations_upon_oom)
