"""``tf.logging``: TF 1.x's logging functions on top of Python's ``logging`` ("tensorflow")."""

import logging as _logging

DEBUG = _logging.DEBUG
INFO = _logging.INFO
WARN = _logging.WARNING
ERROR = _logging.ERROR
FATAL = _logging.FATAL

# the logger TF 1.x programs configure (logging.getLogger("tensorflow").setLevel(...)) and
# whose lines they expect ("INFO:tensorflow:...")
LOGGER_NAME = "tensorflow"


class _StderrUnlessRootConfigured(_logging.StreamHandler):
    """TF 1.x's rule: the "tensorflow" logger prints its own lines only while the root logger
    is not configured; once it is (``logging.basicConfig``, absl's ``app.run``), the records
    reach it by propagation alone, in its format and at its level (no line printed twice)."""

    def emit(self, record):
        if _logger.propagate and _logging.getLogger().handlers:
            return
        super().emit(record)


_logger = _logging.getLogger(LOGGER_NAME)
if not any(isinstance(h, _StderrUnlessRootConfigured) for h in _logger.handlers):
    _handler = _StderrUnlessRootConfigured()
    _handler.setFormatter(_logging.Formatter(_logging.BASIC_FORMAT))  # "INFO:tensorflow:..."
    _logger.addHandler(_handler)
    # TF leaves the level unset: WARNING through the root logger unless a program sets one

_log_counts = {}


def get_logger():
    return _logger


def set_verbosity(v):
    _logger.setLevel(v)


def get_verbosity():
    return _logger.getEffectiveLevel()


def vlog(level, msg, *args, **kwargs):
    """Verbose logging: shown at DEBUG verbosity."""
    _logger.log(_logging.DEBUG, msg, *args, **kwargs)


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


def log_every_n(level, msg, n, *args):
    """Logs the first call and then every n-th call from the same place."""
    key = (msg, level)
    count = _log_counts.get(key, 0)
    _log_counts[key] = count + 1
    if count % n == 0:
        _logger.log(level, msg, *args)


def log_first_n(level, msg, n, *args):
    key = (msg, level, "first")
    count = _log_counts.get(key, 0)
    _log_counts[key] = count + 1
    if count < n:
        _logger.log(level, msg, *args)


def log_if(level, msg, condition, *args):
    if condition:
        _logger.log(level, msg, *args)
