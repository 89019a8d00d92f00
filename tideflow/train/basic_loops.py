"""``tf.train.basic_train_loop``: the simplest loop around a ``Supervisor``, retried when a
distributed server restarts (AbortedError)."""

from tideflow.framework import errors


def basic_train_loop(supervisor, train_step_fn, args=None, kwargs=None, master=""):
    """Calls ``train_step_fn(sess, *args, **kwargs)`` until ``supervisor`` should stop."""
    args = [] if args is None else args
    kwargs = {} if kwargs is None else kwargs
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            # a server of the cluster restarted: start over with a new session
            should_retry = True
