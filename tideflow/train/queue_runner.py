"""``tf.train.QueueRunner``: threads that keep running a queue's enqueue ops, closing the queue
when they are done; ``add_queue_runner`` and ``start_queue_runners``."""

import threading
import weakref

from tideflow import logging
from tideflow.framework import errors, ops
from tideflow.protos import queue_runner_pb2


def _prepend_name_scope(name, import_scope):
    if not import_scope:
        return name
    return f"{import_scope.rstrip('/')}/{name}"


def _strip_name_scope(name, export_scope):
    if not export_scope:
        return name
    prefix = export_scope.rstrip("/") + "/"
    return name.removeprefix(prefix)


class QueueRunner:
    """Holds a list of enqueue ops for a queue, each to be run in its own thread.

    When every enqueue thread has stopped on a "queue closed" error (by default OutOfRangeError,
    e.g. an epoch-limited input ran out), the queue is closed so its consumers drain it; on any
    other error, or a coordinator stop, it is closed with its pending enqueues cancelled.
    """

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 queue_closed_exception_types=None, queue_runner_def=None, import_scope=None):
        if queue_runner_def:
            if queue or enqueue_ops:
                raise ValueError("queue_runner_def and queue are mutually exclusive.")
            self._init_from_proto(queue_runner_def, import_scope=import_scope)
        else:
            self._init_from_args(queue, enqueue_ops, close_op, cancel_op,
                                 queue_closed_exception_types)
        self._lock = threading.Lock()
        # the number of live enqueue threads per session
        self._runs_per_session = weakref.WeakKeyDictionary()
        self._exceptions_raised = []

    def _init_from_args(self, queue, enqueue_ops, close_op, cancel_op,
                        queue_closed_exception_types):
        if not queue or not enqueue_ops:
            raise ValueError("Must provide queue and enqueue_ops.")
        self._queue = queue
        self._enqueue_ops = list(enqueue_ops)
        self._close_op = close_op
        self._cancel_op = cancel_op
        if queue_closed_exception_types is not None and (
            not isinstance(queue_closed_exception_types, tuple)
            or not queue_closed_exception_types
            or not all(isinstance(t, type) and issubclass(t, errors.OpError)
                       for t in queue_closed_exception_types)
        ):
            raise TypeError(
                "queue_closed_exception_types, when provided, must be a tuple of tf.error types, "
                f"but saw: {queue_closed_exception_types}")
        if self._close_op is None:
            self._close_op = self._queue.close()
        if self._cancel_op is None:
            self._cancel_op = self._queue.close(cancel_pending_enqueues=True)
        self._queue_closed_exception_types = (
            tuple(queue_closed_exception_types) if queue_closed_exception_types
            else (errors.OutOfRangeError,))

    def _init_from_proto(self, queue_runner_def, import_scope=None):
        if isinstance(queue_runner_def, bytes):
            queue_runner_def = queue_runner_pb2.QueueRunnerDef.FromString(queue_runner_def)
        g = ops.get_default_graph()

        def element(name):
            return g.as_graph_element(_prepend_name_scope(name, import_scope))

        self._queue = element(queue_runner_def.queue_name)
        self._enqueue_ops = [element(n) for n in queue_runner_def.enqueue_op_name]
        self._close_op = element(queue_runner_def.close_op_name)
        self._cancel_op = element(queue_runner_def.cancel_op_name)
        self._queue_closed_exception_types = tuple(
            errors.exception_type_from_error_code(code)
            for code in queue_runner_def.queue_closed_exception_types
        ) or (errors.OutOfRangeError,)

    @property
    def queue(self):
        return self._queue

    @property
    def enqueue_ops(self):
        return self._enqueue_ops

    @property
    def close_op(self):
        return self._close_op

    @property
    def cancel_op(self):
        return self._cancel_op

    @property
    def queue_closed_exception_types(self):
        return self._queue_closed_exception_types

    @property
    def exceptions_raised(self):
        """Exceptions raised by the threads when no coordinator was given."""
        return self._exceptions_raised

    @property
    def name(self):
        """The name of the queue."""
        return self._queue.name

    def _run(self, sess, enqueue_op, coord=None):
        """One enqueue thread: runs ``enqueue_op`` until the queue closes or a stop."""
        self._enqueue_loop(sess, lambda: sess.make_callable(enqueue_op), coord,
                           self._queue_closed_exception_types)

    def _enqueue_loop(self, sess, make_step, coord, closed_types):
        """Calls the step ``make_step()`` returns until it raises one of ``closed_types``
        (the last thread to end closes the queue) or the coordinator stops."""
        decremented = False
        try:
            step = make_step()
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    step()
                except closed_types:
                    with self._lock:
                        self._runs_per_session[sess] -= 1
                        decremented = True
                        if self._runs_per_session[sess] == 0:
                            try:
                                sess.run(self._close_op)
                            except Exception as e:  # noqa: BLE001 - closing is best effort
                                logging.debug("Ignored exception: %s", e)
                    return
        except Exception as e:
            if coord:
                coord.request_stop(e)
            else:
                logging.error("Exception in QueueRunner: %s", e)
                with self._lock:
                    self._exceptions_raised.append(e)
                raise
        finally:
            if not decremented:
                with self._lock:
                    self._runs_per_session[sess] -= 1

    def _close_on_stop(self, sess, cancel_op, coord):
        """Closes the queue (cancelling pending enqueues) once the coordinator stops."""
        coord.wait_for_stop()
        try:
            sess.run(cancel_op)
        except Exception as e:  # noqa: BLE001 - closing is best effort
            logging.debug("Ignored exception: %s", e)

    def _thread_args(self, sess, coord):
        """The arguments of ``_run`` for each enqueue thread."""
        return [(sess, op, coord) for op in self._enqueue_ops]

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The threads running the enqueue ops in ``sess`` (plus, with ``coord``, one that
        closes the queue on a stop). Returns [] if threads already run for this session."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [
            threading.Thread(target=self._run, args=args,
                             name=f"QueueRunnerThread-{self.name}-{args[1].name}")
            for args in self._thread_args(sess, coord)
        ]
        if coord:
            threads.append(threading.Thread(
                target=self._close_on_stop, args=(sess, self._cancel_op, coord),
                name=f"QueueRunnerThread-{self.name}-close_on_stop"))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def to_proto(self, export_scope=None):
        """A QueueRunnerDef naming this runner's ops (None if outside ``export_scope``)."""
        if export_scope is not None and not self.queue.name.startswith(export_scope):
            return None
        qr = queue_runner_pb2.QueueRunnerDef()
        qr.queue_name = _strip_name_scope(self.queue.name, export_scope)
        qr.enqueue_op_name.extend(_strip_name_scope(op.name, export_scope)
                                  for op in self.enqueue_ops)
        qr.close_op_name = _strip_name_scope(self.close_op.name, export_scope)
        qr.cancel_op_name = _strip_name_scope(self.cancel_op.name, export_scope)
        qr.queue_closed_exception_types.extend(
            errors.error_code_from_exception_type(c) for c in self._queue_closed_exception_types)
        return qr

    @staticmethod
    def from_proto(queue_runner_def, import_scope=None):
        """A QueueRunner over the ops a QueueRunnerDef names in the default graph."""
        return QueueRunner(queue_runner_def=queue_runner_def, import_scope=import_scope)


def add_queue_runner(qr, collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Adds ``qr`` to ``collection`` of the default graph."""
    ops.add_to_collection(collection, qr)


def start_queue_runners(sess=None, coord=None, daemon=True, start=True,
                        collection=ops.GraphKeys.QUEUE_RUNNERS):
    """Starts the threads of every QueueRunner in ``collection``; returns the threads."""
    if sess is None:
        sess = ops.get_default_session()
        if not sess:
            raise ValueError(
                "Cannot start queue runners: No default session is registered. Use `with "
                "sess.as_default()` or pass an explicit session to "
                "tf.start_queue_runners(sess=sess)")
    if not hasattr(sess, "run") or not hasattr(sess, "graph"):
        raise TypeError(f"sess must be a `tf.Session` object. Given class: {sess.__class__}")
    if type(sess).__name__ in ("MonitoredSession", "SingularMonitoredSession"):
        return []  # a monitored session starts its own queue runners
    with sess.graph.as_default():
        runners = ops.get_collection(collection)
        if not runners:
            logging.warning(
                "`tf.train.start_queue_runners()` was called when no queue runners were "
                "defined. You can safely remove the call to this deprecated function.")
        threads = []
        for qr in runners:
            threads.extend(qr.create_threads(sess, coord=coord, daemon=daemon, start=start))
    return threads
