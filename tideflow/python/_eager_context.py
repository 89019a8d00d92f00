"""``tensorflow.python.eager.context`` for a graph-only runtime: every query answers graph
mode (``executing_eagerly()`` is False, ``in_graph_mode()`` True), ``graph_mode()`` is a
context that changes nothing, and ``eager_mode()`` raises tideflow's eager-execution error."""

import contextlib

from tideflow.ops.misc_ops import (  # noqa: F401
    enable_eager_execution,
    executing_eagerly,
    executing_eagerly_outside_functions,
)

GRAPH_MODE = 0
EAGER_MODE = 1
SYNC = 0
ASYNC = 1
DEVICE_PLACEMENT_EXPLICIT = 0
DEVICE_PLACEMENT_WARN = 1
DEVICE_PLACEMENT_SILENT = 2
DEVICE_PLACEMENT_SILENT_FOR_INT32 = 3


def executing_eagerly_v1():
    return False


def in_graph_mode():
    """Always True: tideflow builds graphs."""
    return True


is_in_graph_mode = in_graph_mode


def in_eager_mode():
    return False


def default_execution_mode():
    return GRAPH_MODE


@contextlib.contextmanager
def graph_mode():
    """Graph mode is the only mode: the block runs unchanged."""
    yield


def eager_mode():
    """Raises ValueError: tideflow cannot execute eagerly."""
    raise ValueError("tensorflow.python.eager.context.eager_mode: tideflow implements TF 1.x "
                     "graph mode only and cannot enable eager execution; build a graph and run "
                     "it in a tf.Session.")


def context():
    """No eager context exists in a graph-only runtime."""
    raise ValueError("tensorflow.python.eager.context.context: tideflow has no eager context "
                     "(it runs graphs in tf.Session only).")


context_safe = context


def ensure_initialized():
    """Nothing to initialize without an eager context."""


def num_gpus():
    from tideflow.python.client import device_lib

    return sum(1 for d in device_lib.list_local_devices() if d.device_type == "GPU")
