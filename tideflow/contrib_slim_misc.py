"""``tf.contrib.slim``'s small helper modules: ``summaries`` (named summaries of tensors,
optionally printed), ``model_analyzer`` (sizes of variables and op outputs) and ``queues``
(``QueueRunners``: a context that runs the graph's queue runners)."""

import contextlib
import threading
import types

from tideflow.framework import ops


def _tf():
    import tideflow  # the public ops; loaded late (import order)

    return tideflow


# ------------------------------------------------------------------------------------------
# summaries
# ------------------------------------------------------------------------------------------


def _summary_name(tensor, name=None, prefix=None, postfix=None):
    name = name or tensor.op.name
    if prefix:
        name = f"{prefix}/{name}"
    if postfix:
        name = f"{name}/{postfix}"
    return name


def _printed(op, tensor, name, print_summary):
    # a printed summary is filed in SUMMARIES as its Print wrapper, so running it prints
    if print_summary:
        op = _tf().Print(op, [tensor], name)
        ops.add_to_collection(ops.GraphKeys.SUMMARIES, op)
    return op


def add_histogram_summary(tensor, name=None, prefix=None):
    """A histogram summary of ``tensor`` named ``prefix/name`` (name: the op's)."""
    return _tf().summary.histogram(_summary_name(tensor, name, prefix), tensor)


def add_image_summary(tensor, name=None, prefix=None, print_summary=False):
    """An image summary of ``tensor``; printed (and so also run) when ``print_summary``."""
    name = _summary_name(tensor, name, prefix)
    op = _tf().summary.image(name, tensor, collections=[] if print_summary else None)
    return _printed(op, tensor, name, print_summary)


def add_scalar_summary(tensor, name=None, prefix=None, print_summary=False):
    """A scalar summary of ``tensor``; printed (and so also run) when ``print_summary``."""
    name = _summary_name(tensor, name, prefix)
    op = _tf().summary.scalar(name, tensor, collections=[] if print_summary else None)
    return _printed(op, tensor, name, print_summary)


def add_zero_fraction_summary(tensor, name=None, prefix=None, print_summary=False):
    """A scalar summary of the fraction of zeros in ``tensor``
    (``<name>/Fraction_of_Zero_Values``)."""
    name = _summary_name(tensor, name, prefix, "Fraction_of_Zero_Values")
    return add_scalar_summary(_tf().nn.zero_fraction(tensor), name,
                              print_summary=print_summary)


def add_histogram_summaries(tensors, prefix=None):
    return [add_histogram_summary(t, prefix=prefix) for t in tensors]


def add_image_summaries(tensors, prefix=None):
    return [add_image_summary(t, prefix=prefix) for t in tensors]


def add_scalar_summaries(tensors, prefix=None, print_summary=False):
    return [add_scalar_summary(t, prefix=prefix, print_summary=print_summary) for t in tensors]


def add_zero_fraction_summaries(tensors, prefix=None):
    return [add_zero_fraction_summary(t, prefix=prefix) for t in tensors]


# ------------------------------------------------------------------------------------------
# model_analyzer
# ------------------------------------------------------------------------------------------


def tensor_description(var):
    """``(dtype d0xd1x...)``, e.g. ``(float32 3x3x64x64)``."""
    dims = "x".join(str(d) for d in var.get_shape())
    return f"({var.dtype.name} {dims})"


def analyze_ops(graph, print_info=False):
    """The total number of output elements of ``graph``'s ops (unknown shapes count 0),
    each op listed when ``print_info``."""
    if print_info:
        print("---------\nOperations: name -> (type shapes) [size]\n---------")
    total = 0
    for op in graph.get_operations():
        size = 0
        shapes = []
        for output in op.outputs:
            shape = output.get_shape()
            if shape:
                shapes.append(tensor_description(output))
            size += shape.num_elements() or 0
        if print_info:
            print(op.name, "\t->", ", ".join(shapes), f"[{size}]")
        total += size
    return total


def analyze_vars(variables, print_info=False):
    """``(elements, bytes)`` of ``variables``, each listed when ``print_info``."""
    if print_info:
        print("---------\nVariables: name (type shape) [size]\n---------")
    total_size = total_bytes = 0
    for var in variables:
        size = var.get_shape().num_elements() or 0
        nbytes = size * var.dtype.size
        total_size += size
        total_bytes += nbytes
        if print_info:
            print(var.name, tensor_description(var), f"[{size}, bytes: {nbytes}]")
    if print_info:
        print(f"Total size of variables: {total_size}")
        print(f"Total bytes of variables: {total_bytes}")
    return total_size, total_bytes


# ------------------------------------------------------------------------------------------
# queues
# ------------------------------------------------------------------------------------------

_QUEUE_RUNNER_LOCK = threading.Lock()


class NestedQueueRunnerError(Exception):
    """``QueueRunners`` entered while another one is running."""


@contextlib.contextmanager
def QueueRunners(session):
    """Runs the default graph's queue runners (daemon threads) in ``session`` for the body,
    then stops and joins them."""
    if not _QUEUE_RUNNER_LOCK.acquire(blocking=False):
        raise NestedQueueRunnerError("QueueRunners cannot be nested")
    try:
        coord = _tf().train.Coordinator()
        threads = []
        for runner in ops.get_collection(ops.GraphKeys.QUEUE_RUNNERS):
            threads.extend(runner.create_threads(session, coord=coord, daemon=True,
                                                 start=True))
        try:
            yield
        finally:
            coord.request_stop()
            try:
                coord.join(threads, stop_grace_period_secs=120)
            except RuntimeError:
                session.close()
    finally:
        _QUEUE_RUNNER_LOCK.release()


def _module(name, doc, members):
    module = types.ModuleType(f"tideflow.contrib.slim.{name}", doc)
    for attr in members:
        setattr(module, attr, globals()[attr])
    module.__all__ = sorted(members)
    return module


summaries = _module("summaries", "``slim.summaries``.", [
    "add_histogram_summaries", "add_histogram_summary", "add_image_summaries",
    "add_image_summary", "add_scalar_summaries", "add_scalar_summary",
    "add_zero_fraction_summaries", "add_zero_fraction_summary"])
model_analyzer = _module("model_analyzer", "``slim.model_analyzer``.",
                         ["analyze_ops", "analyze_vars", "tensor_description"])
queues = _module("queues", "``slim.queues``.", ["NestedQueueRunnerError", "QueueRunners"])
MODULES = (model_analyzer, queues, summaries)
