"""``tf.contrib.summary``: TF 1.x's writer-based summary API (TF 2's ``tf.summary`` in graph
mode). A ``SummaryWriter`` resource op names a writer in the device's resource manager,
``CreateSummaryFileWriter`` opens its event file (``events.out.tfevents.*.v2``), and the
``Write*Summary`` ops append ``Event``s carrying the step; recording is gated by
``always_record_summaries``/``record_summaries_every_n_global_steps`` as in TF 1.15.
"""

import contextlib
import os
import threading
import time

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.queue_ops import resource_name
from tideflow.protos import event_pb2, graph_pb2, summary_pb2
from tideflow.summary import summary_ops as _kernels
from tideflow.summary.summary import _SummaryScope

_SUMMARY_COLLECTION = "_SUMMARY_V2"
_SUMMARY_WRITER_INIT_COLLECTION_NAME = "_SUMMARY_WRITER_V2"

# ------------------------------------------------------------------------------------------
# the writer resource and the ops
# ------------------------------------------------------------------------------------------


class _WriterResource:
    """A named writer; its event file opens when CreateSummaryFileWriter first runs."""

    def __init__(self, name):
        self.name = name
        self.events = None
        self._lock = threading.Lock()

    def open(self, logdir, max_queue, flush_millis, suffix):
        from tideflow.summary.writer import EventFileWriter

        with self._lock:
            if self.events is None:
                self.events = EventFileWriter(logdir, max_queue=max(1, int(max_queue)),
                                              flush_secs=max(flush_millis, 1) / 1000.0,
                                              filename_suffix=suffix)

    def writer(self, op_name):
        if self.events is None:
            raise errors.FailedPreconditionError(
                None, None, f"{op_name}: summary writer '{self.name}' is not initialized; run "
                "tf.contrib.summary.summary_writer_initializer_op() (or initialize()) first")
        return self.events

    def write(self, op_name, step, **fields):
        self.writer(op_name).add_event(event_pb2.Event(wall_time=time.time(), step=int(step),
                                                       **fields))

    def close_resource(self):
        with self._lock:
            if self.events is not None:
                self.events.close()
                self.events = None


def _writer_factory(ctx):
    container = ctx.op._attrs.get("container") or ""
    name = resource_name(ctx)

    def run():
        r = ctx.resource_mgr.lookup_or_create(container, name, lambda: _WriterResource(name))
        if not isinstance(r, _WriterResource):
            raise errors.InvalidArgumentError(
                None, ctx.op, f"Shared resource '{name}' is not a summary writer")
        return r

    return run


def _handle(writer):
    if not isinstance(writer, _WriterResource):
        raise errors.InvalidArgumentError(
            None, None, f"Expected a summary writer handle, got {type(writer).__name__}")
    return writer


def _str(x):
    x = np.asarray(x).reshape(-1)[0] if np.ndim(x) else np.asarray(x).item()
    return x.decode() if isinstance(x, bytes) else str(x)


def _scalar_int(x, what):
    a = np.asarray(x)
    if a.ndim != 0:
        raise errors.InvalidArgumentError(None, None, f"{what} must be a scalar, got shape "
                                          f"{list(a.shape)}")
    return int(a)


def _create_file_writer(writer, logdir, max_queue, flush_millis, filename_suffix):
    _handle(writer).open(_str(logdir), _scalar_int(max_queue, "max_queue"),
                         _scalar_int(flush_millis, "flush_millis"), _str(filename_suffix))


def _parse(serialized):
    return summary_pb2.Summary.FromString(np.asarray(serialized, dtype=object).item())


def _write_scalar(writer, step, tag, value):
    # as TF's kernel, a tensor of any shape writes its first element
    value = np.asarray(value).reshape(-1)
    if value.size == 0:
        raise errors.InvalidArgumentError(
            None, None, f"WriteScalarSummary: value for tag '{_str(tag)}' is empty")
    s = summary_pb2.Summary()
    s.value.add(tag=_str(tag), simple_value=float(value[0]))
    _handle(writer).write("WriteScalarSummary", _scalar_int(step, "step"), summary=s)


def _write_histogram(writer, step, tag, values):
    s = summary_pb2.Summary()
    s.value.add(tag=_str(tag), histo=_kernels.histogram_proto(values, _str(tag)))
    _handle(writer).write("WriteHistogramSummary", _scalar_int(step, "step"), summary=s)


def _write_image(writer, step, tag, tensor, bad_color, *, max_images):
    s = _parse(_kernels._image_summary_kernel(tag, tensor, max_images=max_images,
                                              bad_color=np.asarray(bad_color)))
    _handle(writer).write("WriteImageSummary", _scalar_int(step, "step"), summary=s)


def _write_audio(writer, step, tag, tensor, sample_rate, *, max_outputs):
    s = _parse(_kernels._audio_summary(tag, tensor, float(np.asarray(sample_rate)),
                                       max_outputs))
    _handle(writer).write("WriteAudioSummary", _scalar_int(step, "step"), summary=s)


def _write_summary(writer, step, tensor, tag, summary_metadata):
    s = _parse(_kernels._tensor_summary_v2_kernel(tag, tensor, summary_metadata))
    if not np.asarray(summary_metadata, dtype=object).reshape(-1)[0]:
        s.value[0].ClearField("metadata")  # TF writes no metadata for an empty one
    _handle(writer).write("WriteSummary", _scalar_int(step, "step"), summary=s)


def _write_graph(writer, step, tensor):
    _handle(writer).write("WriteGraphSummary", _scalar_int(step, "step"),
                          graph_def=np.asarray(tensor, dtype=object).item())


def _import_event(writer, event):
    w = _handle(writer).writer("ImportEvent")
    for data in np.asarray(event, dtype=object).reshape(-1).tolist():
        data = data if isinstance(data, bytes) else str(data).encode()
        try:
            e = event_pb2.Event.FromString(data)
        except Exception:  # noqa: BLE001 - protobuf's DecodeError
            raise errors.InvalidArgumentError(None, None,
                                              "ImportEvent: could not parse an Event") from None
        w.add_event(e)


def _flush(writer):
    r = _handle(writer)
    if r.events is not None:
        r.events.flush()


def _close(writer):
    _handle(writer).close_resource()


_W = ["writer: resource"]
op_registry.declare("SummaryWriter", outputs=["writer: resource"],
                    attrs=["shared_name: string = ''", "container: string = ''"],
                    shape=lambda op: [TensorShape([])], kernel_factory=_writer_factory,
                    differentiable=False, stateful=True)
op_registry.declare("CreateSummaryFileWriter",
                    inputs=_W + ["logdir: string", "max_queue: int32", "flush_millis: int32",
                                 "filename_suffix: string"],
                    kernel=_create_file_writer, differentiable=False, stateful=True)
op_registry.declare("WriteScalarSummary",
                    inputs=_W + ["step: int64", "tag: string", "value: T"],
                    attrs=["T: realnumbertype"], kernel=_write_scalar, differentiable=False,
                    stateful=True)
op_registry.declare("WriteHistogramSummary",
                    inputs=_W + ["step: int64", "tag: string", "values: T"],
                    attrs=["T: realnumbertype = DT_FLOAT"], kernel=_write_histogram,
                    differentiable=False, stateful=True)
op_registry.declare("WriteImageSummary",
                    inputs=_W + ["step: int64", "tag: string", "tensor: T", "bad_color: uint8"],
                    attrs=["max_images: int >= 1 = 3", "T: {uint8, float, half} = DT_FLOAT"],
                    kernel=_write_image, differentiable=False, stateful=True)
op_registry.declare("WriteAudioSummary",
                    inputs=_W + ["step: int64", "tag: string", "tensor: float",
                                 "sample_rate: float"],
                    attrs=["max_outputs: int >= 1 = 3"], kernel=_write_audio,
                    differentiable=False, stateful=True)
op_registry.declare("WriteSummary",
                    inputs=_W + ["step: int64", "tensor: T", "tag: string",
                                 "summary_metadata: string"],
                    attrs=["T: type"], kernel=_write_summary, differentiable=False,
                    stateful=True)
op_registry.declare("WriteGraphSummary", inputs=_W + ["step: int64", "tensor: string"],
                    kernel=_write_graph, differentiable=False, stateful=True)
op_registry.declare("ImportEvent", inputs=_W + ["event: string"], kernel=_import_event,
                    differentiable=False, stateful=True)
op_registry.declare("FlushSummaryWriter", inputs=_W, kernel=_flush, differentiable=False,
                    stateful=True)
op_registry.declare("CloseSummaryWriter", inputs=_W, kernel=_close, differentiable=False,
                    stateful=True)


def _op(op_type, inputs, attrs=None, name=None):
    return ops.apply_op(op_type, inputs, attrs or {}, name=name)


# ------------------------------------------------------------------------------------------
# the Python API
# ------------------------------------------------------------------------------------------


class _State(threading.local):
    def __init__(self):
        self.writer = None
        self.is_recording = None


_state = _State()


class SummaryWriter:
    """A summary writer: ``as_default()`` makes it the target of the summary functions;
    ``init``/``flush``/``close`` return ops (run them in a session)."""

    def __init__(self, resource, init_op_fn=None):
        self._resource = resource
        self._init_op_fn = init_op_fn

    def set_as_default(self):
        """Makes this the default writer from now on (this thread)."""
        _state.writer = self

    @contextlib.contextmanager
    def as_default(self):
        """The default writer inside the ``with`` block."""
        old = _state.writer
        try:
            _state.writer = self
            yield self
            # as TF's, a normal exit builds a flush op (unrun in graph mode, but counted)
            if self._resource is not None:
                self.flush()
        finally:
            _state.writer = old

    def init(self):
        """An op (re)running the writer's initializer."""
        if self._resource is None:
            return _no_op()
        return self._init_op_fn()

    def flush(self):
        """An op flushing the writer's queued events to its file."""
        if self._resource is None:
            return _no_op()
        with ops.device("cpu:0"):
            return _op("FlushSummaryWriter", [self._resource])

    def close(self):
        """An op flushing and closing the event file (a later ``init`` opens a new one)."""
        if self._resource is None:
            return _no_op()
        with ops.device("cpu:0"):
            return _op("CloseSummaryWriter", [self._resource])


def _no_op():
    from tideflow.ops.control_flow_ops import no_op

    return no_op()


def _const(value, dtype):
    from tideflow.ops import constant_op

    return constant_op.constant(value, dtype=dtype)


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """A writer of event files in ``logdir`` (``None``: a writer that writes nothing). Its
    initializer joins ``summary_writer_initializer_op()``."""
    if logdir is None:
        return SummaryWriter(None)
    logdir = str(logdir)
    # TF's ops and order: the defaults as constants, the writer, then the initializer, which
    # converts the given values itself ("CreateSummaryFileWriter/logdir")
    with ops.device("cpu:0"):
        max_queue = _const(10, dtypes.int32) if max_queue is None else max_queue
        flush_millis = _const(120000, dtypes.int32) if flush_millis is None else flush_millis
        suffix = _const(".v2", dtypes.string) if filename_suffix is None else filename_suffix
        resource = _op("SummaryWriter", [], {"shared_name": name or "logdir:" + logdir,
                                             "container": ""}).outputs[0]

        def init_op_fn():
            return _op("CreateSummaryFileWriter",
                       [resource, logdir, max_queue, flush_millis, suffix])

        init = init_op_fn()
    ops.add_to_collection(_SUMMARY_WRITER_INIT_COLLECTION_NAME, init)
    return SummaryWriter(resource, init_op_fn)


def create_summary_file_writer(*args, **kwargs):
    """The TF 1.5-1.6 name of ``create_file_writer``."""
    return create_file_writer(*args, **kwargs)


def create_db_writer(db_uri, experiment_name=None, run_name=None, user_name=None, name=None):
    """TF's SQLite summary database writer: not supported here."""
    raise NotImplementedError(
        "tf.contrib.summary.create_db_writer: SQLite summary databases are not supported; use "
        f"create_file_writer (event files) instead (db_uri={db_uri!r})")


def summary_writer_initializer_op():
    """The initializer ops of the writers created in this graph."""
    return ops.get_collection(_SUMMARY_WRITER_INIT_COLLECTION_NAME)


def all_summary_ops():
    """The summary ops created in this graph (run them to record)."""
    return ops.get_collection(_SUMMARY_COLLECTION)


@contextlib.contextmanager
def record_summaries_if(condition):
    """Summaries record where ``condition`` (a bool, bool tensor or callable) holds."""
    old = _state.is_recording
    try:
        _state.is_recording = condition
        yield
    finally:
        _state.is_recording = old


def always_record_summaries():
    """Summaries in the block always record (with a default writer)."""
    return record_summaries_if(True)


def never_record_summaries():
    """Summaries in the block never record."""
    return record_summaries_if(False)


def record_summaries_every_n_global_steps(n, global_step=None):
    """Summaries in the block record when ``global_step % n == 0``."""
    from tideflow.ops import math_ops
    from tideflow.train import training_util

    if global_step is None:
        global_step = training_util.get_or_create_global_step()
    with ops.device("cpu:0"):
        should = math_ops.equal(global_step % n, 0)
    return record_summaries_if(should)


def _should_record():
    """(bool tensor, its value when known): TF's ``logical_and(True, condition)`` (the
    distribution strategy's condition and the recording one), the ops TF builds."""
    from tideflow.ops import math_ops

    should = _state.is_recording
    if should is None:
        should = False
    if callable(should):
        should = should()
    known = should if isinstance(should, bool) else None
    return math_ops.logical_and(True, should), known


def should_record_summaries():
    """A bool tensor: whether summaries record here."""
    return _should_record()[0]


def eval_dir(model_dir, name=None):
    """``model_dir/eval`` (or ``eval_<name>``), where evaluation summaries go."""
    return os.path.join(model_dir, "eval" if not name else "eval_" + name)


def _choose_step(step):
    from tideflow.ops import cast_ops
    from tideflow.train import training_util

    if step is None:
        step = training_util.get_or_create_global_step()
    step = ops.convert_to_tensor(step, dtype=None if isinstance(step, ops.Tensor) else
                                 dtypes.int64)
    if step.dtype.base_dtype != dtypes.int64:
        step = cast_ops.cast(step, dtypes.int64)
    return step


def summary_writer_function(name, tensor, function, family=None):
    """Builds ``function(tag, scope)`` under ``should_record_summaries()``; returns the op
    (True when it wrote), or a no-op without a default writer."""
    from tideflow.ops.layers_base import smart_cond

    outer = ops.get_name_scope()
    outer = outer + "/" if outer else ""

    def record():
        with ops.name_scope(outer or None), _SummaryScope(name, family,
                                                           values=[tensor]) as (tag, scope), \
                ops.control_dependencies([function(tag, scope)]):
            return _const(True, dtypes.bool)

    def nothing():
        return _const(False, dtypes.bool)

    if _state.writer is None or _state.writer._resource is None:
        return _no_op()
    with ops.device("cpu:0"):
        pred, known = _should_record()
        if known is not None:  # TF's smart_cond evaluates the constant condition
            op = record() if known else nothing()
        else:
            op = smart_cond(pred, record, nothing, name="")
        ops.add_to_collection(_SUMMARY_COLLECTION, op)
    return op


def _writer_resource():
    return _state.writer._resource


def _identity(x):
    from tideflow.ops import array_ops

    return array_ops.identity(x)


def scalar(name, tensor, family=None, step=None):
    """Records a scalar under ``name`` at ``step`` (default: the global step)."""
    def function(tag, scope):
        return _op("WriteScalarSummary", [_writer_resource(), _choose_step(step),
                                          tag, _identity(tensor)],
                   name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def histogram(name, tensor, family=None, step=None):
    """Records a histogram of ``tensor``'s values."""
    def function(tag, scope):
        return _op("WriteHistogramSummary", [_writer_resource(), _choose_step(step),
                                             tag, _identity(tensor)],
                   name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def image(name, tensor, bad_color=None, max_images=3, family=None, step=None):
    """Records up to ``max_images`` images of a [batch, height, width, 1|3|4] tensor."""
    def function(tag, scope):
        bad = (_const([255, 0, 0, 255], dtypes.uint8) if bad_color is None
               else ops.convert_to_tensor(bad_color, dtype=dtypes.uint8))
        return _op("WriteImageSummary", [_writer_resource(), _choose_step(step),
                                         tag, _identity(tensor), bad],
                   {"max_images": max_images}, name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def audio(name, tensor, sample_rate, max_outputs, family=None, step=None):
    """Records up to ``max_outputs`` clips of a [batch, frames(, channels)] float tensor."""
    def function(tag, scope):
        return _op("WriteAudioSummary", [_writer_resource(), _choose_step(step), tag,
                                         _identity(tensor), sample_rate],
                   {"max_outputs": max_outputs}, name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def generic(name, tensor, metadata=None, family=None, step=None):
    """Records ``tensor`` itself with ``metadata`` (a SummaryMetadata or its bytes)."""
    def function(tag, scope):
        if metadata is None:
            meta = _const("", dtypes.string)
        elif hasattr(metadata, "SerializeToString"):
            meta = _const(metadata.SerializeToString(), dtypes.string)
        else:
            meta = ops.convert_to_tensor(metadata, dtype=dtypes.string)
        return _op("WriteSummary", [_writer_resource(), _choose_step(step), _identity(tensor),
                                    tag, meta], name=scope)
    return summary_writer_function(name, tensor, function, family=family)


def _serialize_graph(arbitrary_graph):
    if isinstance(arbitrary_graph, ops.Graph):
        return arbitrary_graph.as_graph_def(add_shapes=True).SerializeToString()
    return arbitrary_graph.SerializeToString()


def graph(param, step=None, name=None):
    """Writes a graph (a string tensor holding a serialized GraphDef, or a Graph/GraphDef)."""
    if not isinstance(param, (ops.Tensor, ops.Graph, graph_pb2.GraphDef)):
        raise TypeError(f"graph() needs a tf.Tensor (e.g. tf.placeholder) in graph mode, but "
                        f"was: {type(param)}")
    if _state.writer is None or _state.writer._resource is None:
        return _no_op()
    with ops.device("cpu:0"):
        if isinstance(param, (ops.Graph, graph_pb2.GraphDef)):
            tensor = _const(_serialize_graph(param), dtypes.string)
        else:
            tensor = _identity(param)
        return _op("WriteGraphSummary", [_writer_resource(), _choose_step(step), tensor],
                   name=name)


def import_event(tensor, name=None):
    """Writes serialized ``Event`` protos (a string tensor) as they are."""
    if _state.writer is None or _state.writer._resource is None:
        return _no_op()
    return _op("ImportEvent", [_writer_resource(), ops.convert_to_tensor(tensor,
                                                                        dtypes.string)],
               name=name)


def flush(writer=None, name=None):
    """An op flushing ``writer`` (a SummaryWriter or a writer resource tensor; default: the
    default writer)."""
    if writer is None:
        writer = _state.writer
        if writer is None:
            return _no_op()
    resource = writer._resource if isinstance(writer, SummaryWriter) else writer
    if resource is None:
        return _no_op()
    with ops.device("cpu:0"):
        return _op("FlushSummaryWriter", [resource], name=name)


def initialize(graph=None, session=None):
    """Runs the writers' initializers in ``session`` (default: the default session) and, with
    ``graph``, writes it to the default writer at step 0."""
    from tideflow.ops import constant_op

    if _state.writer is None:
        raise RuntimeError("No default tf.contrib.summary.SummaryWriter found")
    if session is None:
        session = ops.get_default_session()
        if session is None:
            raise ValueError("session must be passed if no default session exists")
    session.run(summary_writer_initializer_op())
    if graph is not None:
        data = _serialize_graph(graph)
        x = constant_op.placeholder(dtypes.string)
        session.run(_op("WriteGraphSummary", [_writer_resource(),
                                              _const(0, dtypes.int64), x]),
                    feed_dict={x: data})


__all__ = ["SummaryWriter", "all_summary_ops", "always_record_summaries", "audio",
           "create_db_writer", "create_file_writer", "create_summary_file_writer", "eval_dir",
           "flush", "generic", "graph", "histogram", "image", "import_event", "initialize",
           "never_record_summaries", "record_summaries_every_n_global_steps", "scalar",
           "should_record_summaries", "summary_writer_initializer_op"]
