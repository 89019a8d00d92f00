"""``tf.logging``: TF 1.x's logging functions on top of Python's ``logging`` ("tensorflow")."""

import logging as _logging
import sys as _sys

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

# the logger TF 1.x programs configure (logging.getLogger("tensorflow").setLevel(...)) and
# whose lines they expect ("INFO:tensorflow:...")
LOGGER_NAME = "tensorflow"


_logger = _logging.getLogger(LOGGER_NAME)


def _add_handler():
    """TF 1.x's rule, decided once when it first builds its logger (at import): the
    "tensorflow" logger gets its own "INFO:tensorflow:..." handler only if the root logger
    has no handler yet. A root handler added later (``logging.basicConfig``, absl's
    ``app.run``) then prints each record a second time, by propagation, as in TF. In an
    interactive interpreter the handler writes to stdout and the level is INFO."""
    if _logging.getLogger().handlers or getattr(_logger, "_tideflow_handler", None):
        return
    try:
        interactive = bool(_sys.ps1)
    except AttributeError:
        interactive = bool(_sys.flags.interactive)
    if interactive:
        _logger.setLevel(INFO)
    handler = _logging.StreamHandler(_sys.stdout if interactive else _sys.stderr)
    handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))
    _logger.addHandler(handler)
    _logger._tideflow_handler = handler
    # otherwise TF leaves the level unset: WARNING through the root logger unless a program
    # sets one


_add_handler()
_log_counts = {}


def get_logger():
    return _logger


def set_verbosity(v):
    _logger.setLevel(v)


def get_verbosity():
    return _logger.getEffectiveLevel()


def vlog(level, msg, *args, **kwargs):
    """Logs at the numeric ``level`` itself, as TF's (``vlog(1, ...)`` shows only at verbosity
    1 or below, as "Level 1:tensorflow:...")."""
    kwargs.setdefault("stacklevel", 2)
    _logger.log(level, msg, *args, **kwargs)


def flush():
    """Flushes the handlers of the logger."""
    for handler in _logger.handlers:
        handler.flush()


def TaskLevelStatusMessage(msg):
    """Logs ``msg`` at ERROR level (TF's task status line)."""
    _logger.error(msg)


def log(level, msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)  # the record names the caller's line, as TF's
    _logger.log(level, msg, *args, **kwargs)


def debug(msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)
    _logger.debug(msg, *args, **kwargs)


def info(msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)
    _logger.info(msg, *args, **kwargs)


def warning(msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)
    _logger.warning(msg, *args, **kwargs)


warn = warning


def error(msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)
    _logger.error(msg, *args, **kwargs)


def fatal(msg, *args, **kwargs):
    kwargs.setdefault("stacklevel", 2)
    _logger.fatal(msg, *args, **kwargs)


def _next_count():
    # TF keys its counters by the first frame outside the file of log_every_n's caller, so
    # every call made from one single-file script shares the key ("<unknown>", 0)
    f = _sys._getframe(2)
    own = f.f_code.co_filename
    f = f.f_back
    while f is not None and f.f_code.co_filename == own:
        f = f.f_back
    key = ("<unknown>", 0) if f is None else (f.f_code.co_filename, f.f_lineno)
    count = _log_counts.get(key, -1) + 1
    _log_counts[key] = count
    return count


def log_every_n(level, msg, n, *args):
    """Logs the 1st, (n+1)-th, (2n+1)-th ... call (TF's counting, shared per call site)."""
    if not _next_count() % n:
        _logger.log(level, msg, *args, stacklevel=2)


def log_first_n(level, msg, n, *args):
    """Logs the first n calls (TF's counting, shared per call site)."""
    if _next_count() < n:
        _logger.log(level, msg, *args, stacklevel=2)


def log_if(level, msg, condition, *args):
    if condition:
        _logger.log(level, msg, *args)
