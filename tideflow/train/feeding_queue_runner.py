"""``tf.contrib.training.FeedingQueueRunner``: a ``QueueRunner`` whose enqueue threads each call
a feed function before every enqueue (``sess.run(enqueue_op, feed_dict=feed_fn())``), so Python
data (arrays, generators) can fill a queue; TF 1.x's pandas/numpy input functions are built on
it. A feed function that raises ``OutOfRangeError`` ends its thread as a closed queue does."""

import threading

from tideflow import logging
from tideflow.framework import errors
from tideflow.train.queue_runner import QueueRunner


class FeedingQueueRunner(QueueRunner):
    """``QueueRunner`` with one optional feed function per enqueue op."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 feed_fns=None, queue_closed_exception_types=None):
        super().__init__(queue, enqueue_ops, close_op, cancel_op,
                         queue_closed_exception_types=queue_closed_exception_types)
        if feed_fns is None:
            self._feed_fns = [None] * len(self._enqueue_ops)
        else:
            if len(feed_fns) != len(self._enqueue_ops):
                raise ValueError("If feed_fns is not None, it must have the same length as "
                                 "enqueue_ops.")
            self._feed_fns = list(feed_fns)

    def _run(self, sess, enqueue_op, feed_fn, coord=None):
        """One enqueue thread: feeds and runs ``enqueue_op`` until the queue closes, the feed
        runs out or the coordinator stops; the last thread to finish closes the queue."""
        decremented = False
        try:
            while True:
                if coord and coord.should_stop():
                    break
                try:
                    sess.run(enqueue_op, feed_dict=None if feed_fn is None else feed_fn())
                except (errors.OutOfRangeError, errors.CancelledError):
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

    def create_threads(self, sess, coord=None, daemon=False, start=False):
        """The feeding enqueue threads for ``sess`` (plus, with ``coord``, one that closes the
        queue on a stop); [] if they already run for this session."""
        with self._lock:
            if self._runs_per_session.get(sess, 0) > 0:
                return []
            self._runs_per_session[sess] = len(self._enqueue_ops)
            self._exceptions_raised = []
        threads = [threading.Thread(target=self._run, args=(sess, op, fn, coord))
                   for op, fn in zip(self._enqueue_ops, self._feed_fns, strict=True)]
        if coord:
            threads.append(threading.Thread(target=self._close_on_stop,
                                            args=(sess, self._cancel_op, coord)))
        for t in threads:
            if coord:
                coord.register_thread(t)
            if daemon:
                t.daemon = True
            if start:
                t.start()
        return threads

    def _init_from_proto(self, queue_runner_def, import_scope=None):
        raise NotImplementedError(f"{type(self).__name__} does not support initialization "
                                  "from proto.")


__all__ = ["FeedingQueueRunner"]
