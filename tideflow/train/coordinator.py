"""``tf.train.Coordinator``: stops a set of threads together and reports their first exception;
``tf.train.LooperThread`` runs a function repeatedly until the coordinator stops."""

import contextlib
import sys
import threading
import time

from tideflow import logging
from tideflow.framework import errors

_POLL_SECS = 0.05  # how often join() looks at its threads


def _exc_info_of(ex):
    """(type, value, traceback) for ``ex``: an exc_info tuple as is; for an exception instance,
    TF 1.15 records ``sys.exc_info()``, the exception being handled (whichever it is, and
    (None, None, None) outside an ``except`` block)."""
    if isinstance(ex, tuple):
        return ex
    return sys.exc_info()


def _reraise(exc_info):
    # as six.reraise: a missing value is made by calling the type (so (None, None, None) fails
    # with TypeError, as in TF)
    value = exc_info[1]
    if value is None:
        value = exc_info[0]()
    raise value.with_traceback(exc_info[2])


class Coordinator:
    """A coordinator for threads: ``should_stop``, ``request_stop``, ``join``.

    ``clean_stop_exception_types`` (default ``(tf.errors.OutOfRangeError,)``) are exceptions
    that stop the threads without being reported: an input queue running out is how an
    epoch-limited pipeline ends.
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        value = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(value, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; ``ex`` (an exception or exc_info tuple) is reported by join.

        After ``join`` has returned, an exception passed here is raised at once.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined and ex is not None:
                _reraise(_exc_info_of(ex))
            if not self._stop_event.is_set():
                if ex is not None and self._exc_info_to_raise is None:
                    info = _exc_info_of(ex)
                    if isinstance(ex, tuple):  # TF's two lines: with the traceback, or the type
                        logging.info("Error reported to Coordinator: %s", info[1], exc_info=info)
                    else:
                        logging.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                    self._exc_info_to_raise = info
                    if len(info) != 3 or info[0] is None or info[1] is None:
                        if len(info) == 3:
                            # TF 1.15 %-formats its message with the 3-tuple itself, which
                            # fails before the stop is set (an exception passed outside an
                            # except block); the empty exc_info stays recorded
                            raise TypeError("not all arguments converted during string "
                                            "formatting")
                        try:
                            raise ValueError(
                                "ex must be a tuple or sys.exc_info must return the current "
                                f"exception: {info}")
                        except ValueError:
                            self._exc_info_to_raise = sys.exc_info()
                self._stop_event.set()

    def clear_stop(self):
        """Clears the stop flag (and any reported exception) so the threads can run again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A context in which any exception requests a stop (and is reported by ``join``)."""
        try:
            yield
        except:  # noqa: E722 - TF reports every exception, including SystemExit
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested; True if it was, False on timeout."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds ``thread`` to the threads ``join`` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads to finish (or a stop request, then a grace period).

        Raises the first exception reported with ``request_stop``; otherwise RuntimeError if
        threads are still alive after the grace period (unless ``ignore_live_threads``).
        """
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)

        while any(t.is_alive() for t in threads) and not self.wait_for_stop(_POLL_SECS):
            pass

        grace = stop_grace_period_secs
        wait = 0.001
        while any(t.is_alive() for t in threads) and grace >= 0.0:
            time.sleep(wait)
            grace -= wait
            wait = max(min(2 * wait, grace), 0.001)

        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _reraise(self._exc_info_to_raise)
            elif stragglers:
                if ignore_live_threads:
                    logging.info("Coordinator stopped with threads still running: %s",
                                 " ".join(stragglers))
                else:
                    raise RuntimeError(
                        "Coordinator stopped with threads still running: "
                        + " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Raises the exception reported with ``request_stop``, if any."""
        with self._lock:
            if self._exc_info_to_raise:
                _reraise(self._exc_info_to_raise)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling ``target(*args, **kwargs)`` every interval."""
        looper = LooperThread(self, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper


class LooperThread(threading.Thread):
    """A thread that runs code repeatedly, optionally on a timer, until its coordinator stops.

    Subclasses override ``run_loop`` (and optionally ``start_loop``/``stop_loop``); or pass
    ``target``.
    """

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(  # noqa: TRY004 - TF's error class
                f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once before the loop."""

    def stop_loop(self):
        """Called once after the loop."""

    def run_loop(self):
        """One iteration of the loop."""
        if self._target:
            self._target(*self._args, **self._kwargs)
