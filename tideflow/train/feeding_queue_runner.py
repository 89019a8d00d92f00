"""``tf.contrib.training.FeedingQueueRunner``: a ``QueueRunner`` whose enqueue threads each call
a feed function before every enqueue (``sess.run(enqueue_op, feed_dict=feed_fn())``), so Python
data (arrays, generators) can fill a queue; TF 1.x's pandas/numpy input functions are built on
it. A feed function that raises ``OutOfRangeError`` ends its thread as a closed queue does."""

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
        def make_step():
            def step():
                sess.run(enqueue_op, feed_dict=None if feed_fn is None else feed_fn())
            return step

        self._enqueue_loop(sess, make_step, coord,
                           (*self._queue_closed_exception_types, errors.CancelledError))

    def _thread_args(self, sess, coord):
        return [(sess, op, fn, coord)
                for op, fn in zip(self._enqueue_ops, self._feed_fns, strict=True)]

    def _init_from_proto(self, queue_runner_def, import_scope=None):
        raise NotImplementedError(f"{type(self).__name__} does not support initialization "
                                  "from proto.")


__all__ = ["FeedingQueueRunner"]
