"""``tf.train.Supervisor`` (the 0.8-era training loop manager): prepares or waits for a
session, and on the chief runs background threads that save checkpoints, write summaries and
count steps, all stopped through one Coordinator."""

import contextlib
import os
import threading
import time

from tideflow import logging
from tideflow.framework import dtypes, ops
from tideflow.framework.graph_io import write_graph
from tideflow.ops import control_flow_ops
from tideflow.ops import variables as variables_lib
from tideflow.protos.event_pb2 import SessionLog
from tideflow.protos.summary_pb2 import Summary
from tideflow.summary import summary as summary_lib
from tideflow.summary.writer import FileWriter
from tideflow.train import coordinator, training_util
from tideflow.train import saver as saver_lib
from tideflow.train import session_manager as session_manager_lib


class Supervisor:
    """Manages a training run: initialization or recovery from ``logdir``, checkpoints every
    ``save_model_secs``, summaries every ``save_summaries_secs``, queue runners, and a clean
    stop of every thread."""

    # a value meaning "take it from the graph's collection, or build the default"
    USE_DEFAULT = 0

    def __init__(self, graph=None, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT,
                 is_chief=True, init_op=USE_DEFAULT, init_feed_dict=None,
                 local_init_op=USE_DEFAULT, logdir=None, summary_op=USE_DEFAULT,
                 saver=USE_DEFAULT, global_step=USE_DEFAULT, save_summaries_secs=120,
                 save_model_secs=600, recovery_wait_secs=30, stop_grace_secs=120,
                 checkpoint_basename="model.ckpt", session_manager=None,
                 summary_writer=USE_DEFAULT, init_fn=None, local_init_run_options=None):
        if graph is None:
            graph = ops.get_default_graph()
        self._graph = graph
        with graph.as_default():
            self._init_ready_op(ready_op=ready_op,
                                ready_for_local_init_op=ready_for_local_init_op)
            self._init_init_op(init_op=init_op, init_feed_dict=init_feed_dict)
            self._init_local_init_op(local_init_op=local_init_op)
            self._init_saver(saver=saver)
            self._init_summary_op(summary_op=summary_op)
            self._init_global_step(global_step=global_step)
            self._meta_graph_def = self._make_meta_graph_def()
        self._is_chief = is_chief
        self._coord = coordinator.Coordinator()
        # set once the line that follows starting the standard services is logged (the step
        # counter's first "global_step/sec" waits for it, as TF's comes after it)
        self._services_announced = threading.Event()
        self._recovery_wait_secs = recovery_wait_secs
        self._stop_grace_secs = stop_grace_secs
        self._init_fn = init_fn
        self._local_init_run_options = local_init_run_options
        # only the chief writes checkpoints and events
        self._logdir = None
        self._save_summaries_secs = None
        self._save_model_secs = None
        self._save_path = None
        self._summary_writer = None
        self._graph_added_to_summary = False
        if self._is_chief:
            self._logdir = logdir
            self._save_summaries_secs = save_summaries_secs
            self._save_model_secs = save_model_secs
            if self._logdir:
                self._save_path = os.path.join(self._logdir, checkpoint_basename)
            if summary_writer is Supervisor.USE_DEFAULT:
                if self._logdir:
                    self._summary_writer = FileWriter(self._logdir)
            else:
                self._summary_writer = summary_writer
        self._init_session_manager(session_manager=session_manager)
        self._verify_setup()
        graph.finalize()

    # -- construction --------------------------------------------------------------------------
    def _make_meta_graph_def(self):
        saver_def = self._saver.saver_def if self._saver else None
        return saver_lib.export_meta_graph(
            graph_def=self._graph.as_graph_def(add_shapes=True), saver_def=saver_def,
            graph=self._graph)

    def _init_session_manager(self, session_manager=None):
        if session_manager is None:
            self._session_manager = session_manager_lib.SessionManager(
                local_init_op=self._local_init_op, ready_op=self._ready_op,
                ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
                recovery_wait_secs=self._recovery_wait_secs,
                local_init_run_options=self._local_init_run_options)
        else:
            self._session_manager = session_manager

    def _get_first_op_from_collection(self, key):
        try:
            items = ops.get_collection(key)
            if items:
                if len(items) > 1:
                    logging.info("Found %d %s operations. Returning the first one.",
                                 len(items), key)
                return items[0]
        except LookupError:
            pass
        return None

    def _init_ready_op(self, ready_op=USE_DEFAULT, ready_for_local_init_op=USE_DEFAULT):
        if ready_op is Supervisor.USE_DEFAULT:
            ready_op = self._get_first_op_from_collection(ops.GraphKeys.READY_OP)
            if ready_op is None:
                ready_op = variables_lib.report_uninitialized_variables()
                ops.add_to_collection(ops.GraphKeys.READY_OP, ready_op)
        self._ready_op = ready_op
        if ready_for_local_init_op is Supervisor.USE_DEFAULT:
            ready_for_local_init_op = self._get_first_op_from_collection(
                ops.GraphKeys.READY_FOR_LOCAL_INIT_OP)
        self._ready_for_local_init_op = ready_for_local_init_op

    def _init_init_op(self, init_op=USE_DEFAULT, init_feed_dict=None):
        if init_op is Supervisor.USE_DEFAULT:
            init_op = self._get_first_op_from_collection(ops.GraphKeys.INIT_OP)
            if init_op is None:
                init_op = variables_lib.global_variables_initializer()
                ops.add_to_collection(ops.GraphKeys.INIT_OP, init_op)
        self._init_op = init_op
        self._init_feed_dict = init_feed_dict

    def _init_local_init_op(self, local_init_op=USE_DEFAULT):
        if local_init_op is Supervisor.USE_DEFAULT:
            local_init_op = self._get_first_op_from_collection(ops.GraphKeys.LOCAL_INIT_OP)
            if local_init_op is None:
                parts = [variables_lib.local_variables_initializer()]
                tables = ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
                if tables:
                    parts.append(control_flow_ops.group(*tables, name="init_all_tables"))
                local_init_op = control_flow_ops.group(*parts)
                ops.add_to_collection(ops.GraphKeys.LOCAL_INIT_OP, local_init_op)
        self._local_init_op = local_init_op

    def _init_saver(self, saver=USE_DEFAULT):
        if saver is Supervisor.USE_DEFAULT:
            saver = self._get_first_op_from_collection(ops.GraphKeys.SAVERS)
            if saver is None and variables_lib.global_variables():
                saver = saver_lib.Saver()
                ops.add_to_collection(ops.GraphKeys.SAVERS, saver)
        self._saver = saver

    def _init_summary_op(self, summary_op=USE_DEFAULT):
        if summary_op is Supervisor.USE_DEFAULT:
            summary_op = self._get_first_op_from_collection(ops.GraphKeys.SUMMARY_OP)
            if summary_op is None:
                summary_op = summary_lib.merge_all()
                if summary_op is not None:
                    ops.add_to_collection(ops.GraphKeys.SUMMARY_OP, summary_op)
        self._summary_op = summary_op

    def _init_global_step(self, global_step=USE_DEFAULT):
        if global_step is Supervisor.USE_DEFAULT:
            global_step = self._get_first_op_from_collection(ops.GraphKeys.GLOBAL_STEP)
            if global_step is None:
                global_step = self._default_global_step_tensor()
                if global_step is not None:
                    ops.add_to_collection(ops.GraphKeys.GLOBAL_STEP, global_step)
        self._global_step = global_step

    def _default_global_step_tensor(self):
        try:
            gs = ops.get_default_graph().get_tensor_by_name("global_step:0")
        except KeyError:
            return None
        if gs.dtype.base_dtype in (dtypes.int32, dtypes.int64):
            return gs
        logging.warning("Found 'global_step' is not an int type: %s", gs.dtype)
        return None

    def _verify_setup(self):
        if not self._is_chief:
            for op in self._graph.get_operations():
                if op.type in ("Variable", "VariableV2") and not op.device:
                    raise ValueError("When using replicas, all Variables must have their "
                                     f"device set: {op}")

    # -- properties ----------------------------------------------------------------------------
    @property
    def session_manager(self):
        return self._session_manager

    @property
    def coord(self):
        return self._coord

    @property
    def init_op(self):
        return self._init_op

    @property
    def init_feed_dict(self):
        return self._init_feed_dict

    @property
    def ready_op(self):
        return self._ready_op

    @property
    def ready_for_local_init_op(self):
        return self._ready_for_local_init_op

    @property
    def summary_writer(self):
        return self._summary_writer

    @property
    def summary_op(self):
        return self._summary_op

    @property
    def save_summaries_secs(self):
        return self._save_summaries_secs

    @property
    def global_step(self):
        return self._global_step

    @property
    def saver(self):
        return self._saver

    @property
    def save_model_secs(self):
        return self._save_model_secs

    @property
    def save_path(self):
        return self._save_path

    @property
    def is_chief(self):
        return self._is_chief

    # -- sessions ------------------------------------------------------------------------------
    def _write_graph(self):
        if self._is_chief and self._logdir:
            write_graph(self._graph.as_graph_def(add_shapes=True), self._logdir, "graph.pbtxt")
        if self._summary_writer and not self._graph_added_to_summary:
            self._summary_writer.add_graph(self._graph)
            self._summary_writer.add_meta_graph(self._meta_graph_def)
            self._graph_added_to_summary = True

    def _announce_services(self):
        """The line that follows starting the standard services is logged: the step counter's
        first "global_step/sec" may follow it (slim's train calls it too)."""
        self._services_announced.set()

    def start_standard_services(self, sess):
        """Starts the checkpoint, summary and step-counter threads (chief only)."""
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services. Because only "
                               "chief supervisors can write events.")
        if not self._logdir:
            logging.warning("Standard services need a 'logdir' passed to the SessionManager")
            return None
        if self._global_step is not None and self._summary_writer:
            current_step = training_util.global_step(sess, self._global_step)
            self._summary_writer.add_session_log(SessionLog(status=SessionLog.START),
                                                 current_step)
        self._services_announced.clear()
        threads = []
        if self._save_summaries_secs and self._summary_writer:
            if self._summary_op is not None:
                threads.append(SVSummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(SVStepCounterThread(self, sess))
        if self.saver and self._save_model_secs:
            threads.append(SVTimerCheckpointThread(self, sess))
        # the checkpoint thread starts first: its "Saving checkpoint to path" line comes before
        # the step counter's "global_step/sec" in TF, whose counter waits on a session run
        # outside the GIL first (a Python step here would let the counter log first)
        for t in sorted(threads, key=lambda t: not isinstance(t, SVTimerCheckpointThread)):
            t.start()
        return threads

    def prepare_or_wait_for_session(self, master="", config=None, wait_for_checkpoint=False,
                                    max_wait_secs=7200, start_standard_services=True):
        """The chief initializes or restores from ``logdir``; others wait until it did."""
        # a session made again after stop(): let the coordinator's threads run again
        self._coord.clear_stop()
        if self._summary_writer:
            self._summary_writer.reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self.init_op, saver=self.saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                logging.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            logging.info("Starting queue runners.")
            self._announce_services()
            self.start_queue_runners(sess)
        return sess

    def start_queue_runners(self, sess, queue_runners=None):
        """Starts the graph's queue runners (or ``queue_runners``) under this coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(ops.GraphKeys.QUEUE_RUNNERS)
        threads = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a thread calling ``target(*args, **kwargs)`` every interval until stopped."""
        looper = coordinator.LooperThread(self._coord, timer_interval_secs, target=target,
                                          args=args, kwargs=kwargs)
        looper.start()
        return looper

    def stop(self, threads=None, close_summary_writer=True, ignore_live_threads=False):
        """Stops the services and threads, waits for them, and closes the summary writer.

        Raises the exception a thread reported to the coordinator, if any.
        """
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer:
                self._summary_writer.add_session_log(SessionLog(status=SessionLog.STOP))
                self._summary_writer.close()
                self._graph_added_to_summary = False

    def request_stop(self, ex=None):
        """Asks the threads to stop; ``ex`` is reported by ``stop``."""
        self._coord.request_stop(ex=ex)

    def should_stop(self):
        """True once a stop was requested."""
        return self._coord.should_stop()

    def stop_on_exception(self):
        """A context in which any exception requests a stop."""
        return self._coord.stop_on_exception()

    def wait_for_stop(self):
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    def summary_computed(self, sess, summary, global_step=None):
        """Writes a computed summary (serialized ``Summary``) at ``global_step``."""
        if not self._summary_writer:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self.global_step is not None:
            global_step = training_util.global_step(sess, self.global_step)
        self._summary_writer.add_summary(summary, global_step)

    @contextlib.contextmanager
    def managed_session(self, master="", config=None, start_standard_services=True,
                        close_summary_writer=True):
        """A context yielding a ready session; on exit stops every thread and closes it.

        An exception in the block stops the threads and is raised again after they stopped
        (OutOfRangeError, the end of the input, is swallowed).
        """
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - reported by stop() below, as in TF
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                # closing also cancels enqueue/dequeue calls still blocked
                if sess is not None:
                    with contextlib.suppress(Exception):
                        sess.close()

    # the 0.8 CamelCase names
    PrepareSession = prepare_or_wait_for_session
    StartQueueRunners = start_queue_runners
    StartStandardServices = start_standard_services
    Stop = stop
    RequestStop = request_stop
    Loop = loop
    ShouldStop = should_stop
    StopOnException = stop_on_exception
    WaitForStop = wait_for_stop
    SummaryComputed = summary_computed


class SVSummaryThread(coordinator.LooperThread):
    """Runs the summary op every ``save_summaries_secs`` and writes the result."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        if self._sv.global_step is not None:
            summary_strs, global_step = self._sess.run([self._sv.summary_op,
                                                        self._sv.global_step])
        else:
            summary_strs = self._sess.run(self._sv.summary_op)
            global_step = None
        if self._sv.summary_writer:
            logging.info("Recording summary at step %s.", global_step)
            self._sv.summary_writer.add_summary(summary_strs, global_step)


class SVStepCounterThread(coordinator.LooperThread):
    """Writes "<global step>/sec" every ``save_summaries_secs``."""

    def __init__(self, sv, sess, step_counter=None):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self._sv = sv
        self._sess = sess
        self._last_time = 0.0
        self._last_step = 0
        step_counter = sv.global_step if step_counter is None else step_counter
        self._step_counter = step_counter
        self._summary_tag = f"{self._step_counter.op.name}/sec"

    def start_loop(self):
        self._last_time = time.time()
        self._last_step = training_util.global_step(self._sess, self._step_counter)
        self._logged = False

    def run_loop(self):
        current_time = time.time()
        current_step = training_util.global_step(self._sess, self._step_counter)
        added_steps = current_step - self._last_step
        self._last_step = current_step
        elapsed_time = current_time - self._last_time
        self._last_time = current_time
        steps_per_sec = added_steps / elapsed_time if elapsed_time > 0 else float("inf")
        summary = Summary(value=[Summary.Value(tag=self._summary_tag,
                                               simple_value=steps_per_sec)])
        if self._sv.summary_writer:
            self._sv.summary_writer.add_summary(summary, current_step)
        if not self._logged:
            # TF's counter reads the step in session runs that leave the GIL, so the thread
            # that started it logs its next line ("Starting queue runners.", slim's "Starting
            # Queues.") before the first "global_step/sec"; here the first line waits for that
            # one (a moment at most where nothing follows: services started by hand)
            self._logged = True
            self._sv._services_announced.wait(0.05)
        logging.log_first_n(logging.INFO, "%s: %g", 10, self._summary_tag, steps_per_sec)


class SVTimerCheckpointThread(coordinator.LooperThread):
    """Saves a checkpoint every ``save_model_secs``."""

    def __init__(self, sv, sess):
        super().__init__(sv.coord, sv.save_model_secs)
        self._sv = sv
        self._sess = sess

    def run_loop(self):
        logging.info("Saving checkpoint to path %s", self._sv.save_path)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=self._sv.global_step)
        if self._sv.summary_writer and self._sv.global_step is not None:
            current_step = training_util.global_step(self._sess, self._sv.global_step)
            self._sv.summary_writer.add_session_log(
                SessionLog(status=SessionLog.CHECKPOINT, checkpoint_path=self._sv.save_path),
                current_step)
