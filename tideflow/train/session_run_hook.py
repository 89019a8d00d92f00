"""``tf.train.SessionRunHook`` and the records passed to hooks around each ``run`` of a
monitored session: ``SessionRunArgs``, ``SessionRunContext`` and ``SessionRunValues``."""

import collections


class SessionRunHook:
    """Extends a ``MonitoredSession``'s ``run`` calls; every method is optional.

    Order of calls: ``begin`` (graph still mutable), ``after_create_session`` (graph final,
    session ready, called again after each recovery), then per step ``before_run`` and
    ``after_run``, and ``end`` when the session closes without an error.
    """

    def begin(self):
        """Called once before the session is used; the graph may still be changed here."""

    def after_create_session(self, session, coord):
        """Called when a new session was created (also after a recovery)."""

    def before_run(self, run_context):
        """Called before each ``run``; may return ``SessionRunArgs`` to fetch or feed more."""

    def after_run(self, run_context, run_values):
        """Called after each successful ``run`` with the results this hook asked for."""

    def end(self, session):
        """Called at the end of the session (not when it ends with an exception)."""


class SessionRunArgs(collections.namedtuple("SessionRunArgs",
                                            ["fetches", "feed_dict", "options"])):
    """What a hook adds to a ``run`` call: fetches, a feed dict and ``RunOptions``."""

    __slots__ = ()

    def __new__(cls, fetches, feed_dict=None, options=None):
        return super().__new__(cls, fetches, feed_dict, options)


class SessionRunContext:
    """The ``run`` call a hook sees: the caller's arguments, the session, and a stop flag."""

    def __init__(self, original_args, session):
        self._original_args = original_args
        self._session = session
        self._stop_requested = False

    @property
    def original_args(self):
        """The ``SessionRunArgs`` the caller passed to ``run``."""
        return self._original_args

    @property
    def session(self):
        """The session the step runs in (use it for extra runs, not for ``run`` hooks)."""
        return self._session

    @property
    def stop_requested(self):
        """True once some hook called ``request_stop``."""
        return self._stop_requested

    def request_stop(self):
        """Asks the monitored session to stop after this step."""
        self._stop_requested = True


class SessionRunValues(collections.namedtuple("SessionRunValues",
                                              ["results", "options", "run_metadata"])):
    """What a hook gets back: the results of its fetches, the options and the run metadata."""

    __slots__ = ()
