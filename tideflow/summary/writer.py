"""Event files for TensorBoard: ``tf.summary.FileWriter`` (and the 0.8 ``tf.train.SummaryWriter``)
appends ``Event`` records from a background thread; ``tf.summary.FileWriterCache`` shares one
writer per log directory.

Files are named ``events.out.tfevents.<seconds>.<hostname><suffix>``, TFRecord-framed, and open
with an Event carrying ``file_version: "brain.Event:2"``, as TensorFlow writes them.
"""

import atexit
import functools
import logging
import os
import queue
import socket
import threading
import time
import warnings
import weakref
from typing import ClassVar

from tideflow.framework import ops
from tideflow.framework.record_io import encode_record
from tideflow.protos import event_pb2, graph_pb2, meta_graph_pb2, summary_pb2

_logger = logging.getLogger("tensorflow")

FILE_VERSION = "brain.Event:2"


class EventFileWriter:
    """Writes ``Event`` protos to a new event file in ``logdir`` from a background thread.

    ``add_event`` only queues (it blocks once ``max_queue`` events wait); the thread flushes the
    file at least every ``flush_secs`` seconds while it holds unflushed events.
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = str(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        self._max_queue = max_queue
        self._flush_secs = flush_secs
        self._suffix = filename_suffix or ""
        self._lock = threading.Lock()  # guards the file between the worker and flush()
        self._file = None
        self._path = None
        self._closed = True
        self._error = None
        self._lost = None  # the event file, once found deleted
        self._open()

    def _open(self):
        self._queue = queue.Queue(self._max_queue)
        self._new_file()
        self._closed = False
        self._worker = threading.Thread(target=self._run, name="EventFileWriter", daemon=True)
        self._worker.start()
        # a program that never closes its writer still finds its events on disk when it ends
        # (TF's buffered file is flushed at exit); the daemon thread alone would drop them
        self._at_exit = functools.partial(_flush_at_exit, weakref.ref(self))
        atexit.register(self._at_exit)

    def _new_file(self):
        host = socket.gethostname()
        stamp = int(time.time())
        while True:
            path = os.path.join(self._logdir,
                                f"events.out.tfevents.{stamp:010d}.{host}{self._suffix}")
            # a second file in the same second (reopen) must not clobber the first; a later
            # stamp keeps files in the order TensorBoard reads them
            if not os.path.exists(path):
                break
            stamp += 1
        self._file = open(path, "wb")  # noqa: SIM115 - closed in close()
        self._path = path
        first = event_pb2.Event(wall_time=time.time(), file_version=FILE_VERSION)
        self._file.write(encode_record(first.SerializeToString()))
        self._file.flush()

    def get_logdir(self):
        return self._logdir

    @property
    def path(self):
        """The event file currently written."""
        return self._path

    def add_event(self, event):
        """Queues ``event`` (an ``Event`` proto, or its serialized bytes) for writing."""
        if not self._closed:
            self._queue.put(event)

    def _write(self, event):
        data = event if isinstance(event, bytes) else event.SerializeToString()
        with self._lock:
            self._file.write(encode_record(data))

    def _flush_file(self):
        with self._lock:
            if self._file is None:
                return
            self._file.flush()
            if self._path != self._lost and not os.path.exists(self._path):
                # deleted under us (a cleaned log directory, or an Estimator's cached writer
                # after the program removed its model_dir): TF 1.15 starts no new file, even
                # where the directory is there again, and says nothing; the events written
                # until close or reopen are lost (measured)
                self._lost = self._path
                _logger.debug("EventFileWriter: %s was deleted; its events are lost.",
                              self._path)

    def _run(self):
        q = self._queue
        next_flush = time.monotonic()  # as TF: the first event is on disk at once
        dirty = False
        while True:
            try:
                timeout = max(0.0, next_flush - time.monotonic()) if dirty else None
                event = q.get(timeout=timeout)
            except queue.Empty:
                event = None
            try:
                if event is _STOP:
                    return
                if event is not None:
                    self._write(event)
                    dirty = True
                if dirty and time.monotonic() >= next_flush:
                    self._flush_file()
                    dirty = False
                    next_flush = time.monotonic() + self._flush_secs
            except Exception as e:  # noqa: BLE001 - reported by the next flush() or close()
                self._error = e
            finally:
                if event is not None:
                    q.task_done()

    def _raise_pending(self):
        err, self._error = self._error, None
        if err is not None:
            raise err

    def flush(self):
        """Writes every queued event and flushes the file."""
        if self._closed:
            return
        self._queue.join()
        self._flush_file()
        self._raise_pending()

    def close(self):
        """Writes what is queued, closes the file and stops the thread."""
        if self._closed:
            return
        atexit.unregister(self._at_exit)
        self._queue.put(_STOP)
        self._queue.join()
        self._worker.join()
        with self._lock:
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            self._file = None
        self._closed = True
        self._raise_pending()

    def reopen(self):
        """After ``close``: starts a new event file in the same directory."""
        if self._closed:
            self._open()


_STOP = object()


def _flush_at_exit(ref):
    """Writes what an unclosed writer still holds (into its file, even one deleted since:
    at exit there is no one to start a new file for)."""
    writer = ref()
    if writer is None or writer._closed:
        return
    try:
        writer._queue.join()
        with writer._lock:
            if writer._file is not None:
                writer._file.flush()
    except Exception:  # noqa: BLE001, S110 - nothing left to report an error to at exit
        pass


class EventsWriter:
    """TF's synchronous event-file writer (``pywrap_tensorflow.EventsWriter``), which programs
    derived from OpenAI baselines' logger use directly: the file
    ``<file_prefix>.out.tfevents.<seconds>.<hostname><suffix>`` is created by the first write
    (or ``InitWithSuffix``), opening with the ``file_version`` event, and written in the
    caller's thread.
    """

    def __init__(self, file_prefix):
        self._prefix = os.fsdecode(file_prefix)
        self._suffix = ""
        self._path = ""
        self._file = None

    def InitWithSuffix(self, suffix):
        """Opens the event file now, its name ending in ``suffix``; returns True."""
        self._suffix = os.fsdecode(suffix)
        self._open()
        return True

    def _open(self):
        now = time.time()
        self._path = (f"{self._prefix}.out.tfevents.{int(now):010d}."
                      f"{socket.gethostname()}{self._suffix}")
        self._file = open(self._path, "wb")  # noqa: SIM115 - closed in Close()
        first = event_pb2.Event(wall_time=now, file_version=FILE_VERSION)
        self._file.write(encode_record(first.SerializeToString()))

    def FileName(self):
        """The event file's path ("" before the first write)."""
        return self._path

    def WriteEvent(self, event):
        """Appends ``event``, an ``Event`` proto."""
        if not isinstance(event, event_pb2.Event):
            raise TypeError(f"Expected an event_pb2.Event proto,  but got {type(event)}")
        return self._WriteSerializedEvent(event.SerializeToString())

    def _WriteSerializedEvent(self, data):
        if self._file is None or not os.path.exists(self._path):
            if self._file is not None:  # deleted under us: start a new file, as TF does
                self._file.close()
            self._open()
        self._file.write(encode_record(bytes(data)))

    def Flush(self):
        """Flushes what was written to the file; returns True."""
        if self._file is not None:
            self._file.flush()
        return True

    def Close(self):
        """Flushes and closes the file (the next write starts a new one); returns True."""
        if self._file is not None:
            self._file.close()
            self._file = None
        return True


def _meta_graph_of(graph_def):
    # as TF: create_meta_graph_def's meta info (stripped op list, versions) and the default
    # graph's collections
    from tideflow.framework import meta_graph
    from tideflow.train import saver

    # TF registers the proto functions of the variable / saver / queue-runner collections when
    # its saver module is imported; without them a Saver in the savers collection would not
    # serialize (and the collection would be dropped with a warning)
    saver._register_protos()
    return meta_graph.create_meta_graph_def(graph_def=graph_def)


# where add_graph writes the graph's plugin assets, under the log directory (TF's name)
_PLUGINS_DIR = "plugins"

def _warn_closed():
    # one place of issue, as TF's: Python shows the UserWarning once per process, with the
    # source line of the call (written as TF's is)
    warnings.warn("Attempting to use a closed FileWriter. "
                  "The operation will be a noop unless the FileWriter is explicitly reopened.")


class FileWriter:
    """``tf.summary.FileWriter``: writes summaries, graphs, run metadata and session logs to an
    event file in ``logdir`` for TensorBoard.

    With ``graph`` (or the deprecated ``graph_def``) the graph and a meta graph holding it are
    written first. ``session`` is accepted for signature compatibility; events are always
    written by this writer's own thread.
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        self.event_writer = EventFileWriter(logdir, max_queue, flush_secs, filename_suffix)
        self._closed = False
        self._seen_summary_tags = set()
        self._session_run_tags = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            if isinstance(graph, ops.Graph):
                gd = graph.as_graph_def(add_shapes=True)
            elif isinstance(graph, graph_pb2.GraphDef):
                gd = graph
            elif isinstance(graph_def, ops.Graph):
                gd = graph_def.as_graph_def(add_shapes=True)
            else:
                gd = graph_def
            self.add_meta_graph(_meta_graph_of(gd))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def get_logdir(self):
        """The directory the event files are written to."""
        return self.event_writer.get_logdir()

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def add_event(self, event):
        """Writes an ``Event`` proto as is (a closed writer drops it with a warning)."""
        if self._closed:
            _warn_closed()
            return
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Writes a ``Summary`` (proto or the serialized string a summary op returns).

        Plugin metadata is kept only on the first value of each tag, as TensorBoard expects.
        """
        if isinstance(summary, bytes):
            summ = summary_pb2.Summary.FromString(summary)
        elif isinstance(summary, summary_pb2.Summary):
            summ = summary_pb2.Summary()
            summ.CopyFrom(summary)
        else:
            data = getattr(summary, "SerializeToString", None)
            if data is None:
                raise TypeError(f"add_summary expects a Summary or its serialized bytes, got "
                                f"{type(summary).__name__}")
            summ = summary_pb2.Summary.FromString(data())
        for value in summ.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        event = event_pb2.Event(summary=summ)
        self._add_event(event, global_step)

    def add_session_log(self, session_log, global_step=None):
        """Writes a ``SessionLog`` (START, STOP, CHECKPOINT)."""
        self._add_event(event_pb2.Event(session_log=session_log), global_step)

    def _add_graph_def(self, graph_def, global_step=None):
        event = event_pb2.Event(graph_def=graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Writes ``graph`` (a ``Graph``; a ``GraphDef`` is accepted but deprecated) for
        TensorBoard's graph dashboard."""
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, ops.Graph) or isinstance(graph_def, ops.Graph):
            if not isinstance(graph, ops.Graph):
                _logger.warning("When passing a `Graph` object, please use the `graph` named "
                                "argument instead of `graph_def`.")
                graph = graph_def
            true_graph_def = graph.as_graph_def(add_shapes=True)
            self._write_plugin_assets(graph)
        elif isinstance(graph, graph_pb2.GraphDef) or isinstance(graph_def, graph_pb2.GraphDef):
            _logger.warning("Passing a `GraphDef` to the SummaryWriter is deprecated. Pass a "
                            "`Graph` object instead, such as `sess.graph`.")
            true_graph_def = graph if graph is not None else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                            "`GraphDef`")
        self._add_graph_def(true_graph_def, global_step)

    def _write_plugin_assets(self, graph):
        from tideflow.summary import plugin_asset

        logdir = self.event_writer.get_logdir()
        for asset in plugin_asset.get_all_plugin_assets(graph):
            plugin_dir = os.path.join(logdir, _PLUGINS_DIR, asset.plugin_name)
            os.makedirs(plugin_dir, exist_ok=True)
            for name, content in asset.assets().items():
                mode = "wb" if isinstance(content, bytes) else "w"
                with open(os.path.join(plugin_dir, name), mode) as f:
                    f.write(content)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Writes a ``MetaGraphDef``."""
        if not isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            raise TypeError(f"meta_graph_def must be type MetaGraphDef, saw type: "
                            f"{type(meta_graph_def)}")
        event = event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Writes a ``RunMetadata`` (step stats, partition graphs) under ``tag``."""
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags.add(tag)
        tagged = event_pb2.TaggedRunMetadata(tag=tag,
                                             run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def flush(self):
        """Writes every pending event to disk."""
        if self._closed:
            _warn_closed()
            return
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file; ``reopen`` starts a new one."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """Reopens a closed writer: later events go to a new event file in the same logdir."""
        self.event_writer.reopen()
        self._closed = False


class SummaryWriter(FileWriter):
    """``tf.train.SummaryWriter`` (0.8 name of ``tf.summary.FileWriter``)."""

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None):
        super().__init__(logdir, graph=graph, max_queue=max_queue, flush_secs=flush_secs,
                         graph_def=graph_def)


class FileWriterCache:
    """``tf.summary.FileWriterCache``: one shared ``FileWriter`` per log directory."""

    _cache: ClassVar[dict] = {}
    _lock = threading.RLock()

    @staticmethod
    def get(logdir):
        """The cached writer for ``logdir``, created (with the default graph) if needed."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=ops.get_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}
