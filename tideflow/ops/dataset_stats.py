"""``tf.data.experimental``'s statistics: ``StatsAggregator``, ``latency_stats`` and
``bytes_produced_stats``.

A stats stage records one value per element it passes (the microseconds its input took to
produce the element, or the element's size in bytes) into the aggregator the dataset's options
name (``options.experimental_stats.aggregator``), under its tag (``<prefix>::<tag>`` with a
prefix). ``StatsAggregator.get_summary()`` is a string tensor: a serialized Summary with one
histogram per tag, in tag order, as TF's default histograms bucket them. An aggregator is a
process-wide object (TF's is a per-session resource): every session iterating a dataset with
it adds to it.
"""

import itertools
import threading
import time
import weakref

import numpy as np

from tideflow.framework import dtypes, op_registry, ops
from tideflow.framework.tensor_shape import scalar
from tideflow.ops import dataset_values as dv
from tideflow.ops.dataset_kernels import _OUT, _declare, _int, _str
from tideflow.ops.dataset_ops import _OpDataset

_AGGREGATORS = weakref.WeakValueDictionary()
_IDS = itertools.count(1)


class StatsAggregator:
    """Collects the values the stats stages of datasets using it record (see the module
    docstring); ``get_summary()`` reports them."""

    def __init__(self):
        self._id = next(_IDS)
        self._values = {}
        self._lock = threading.Lock()
        _AGGREGATORS[self._id] = self

    def _record(self, tag, value):
        with self._lock:
            self._values.setdefault(tag, []).append(float(value))

    def _summary_bytes(self):
        from tideflow.protos import summary_pb2
        from tideflow.summary.summary_ops import histogram_proto

        summary = summary_pb2.Summary()
        with self._lock:
            items = sorted((tag, list(v)) for tag, v in self._values.items())
        for tag, values in items:
            summary.value.add(tag=tag).histo.CopyFrom(histogram_proto(np.array(values), tag))
        return summary.SerializeToString()

    def get_summary(self):
        """A scalar string tensor: the serialized Summary of what was recorded so far."""
        agg_id = ops.convert_to_tensor(np.int64(self._id), name="stats_aggregator")
        return ops.apply_op("StatsAggregatorSummary", [agg_id], {},
                            name="StatsAggregatorSummary").outputs[0]


def _summary_kernel(agg_id):
    agg = _AGGREGATORS.get(int(agg_id))
    return np.array(b"" if agg is None else agg._summary_bytes(), dtype=object)


op_registry.declare(
    "StatsAggregatorSummary", inputs=["iterator: int64"], outputs=["summary: string"],
    shape=lambda op: [scalar()], kernel=_summary_kernel, differentiable=False, stateful=True)


class _StatsRuntime:
    """The iterator's runtime as the stages under a SetStatsAggregator see it: with the
    aggregator and tag prefix to record into."""

    def __init__(self, rt, aggregator, prefix):
        self._rt, self.stats_aggregator, self.stats_prefix = rt, aggregator, prefix

    def __getattr__(self, name):
        return getattr(self._rt, name)


def _element_bytes(elem):
    total = 0
    for c in elem:
        a = c if isinstance(c, np.ndarray) else np.asarray(c)
        if a.dtype.kind in "OSU":
            # a string's bytes and its 8-byte header, as TF 1.15 counts them
            total += sum(len(s) + 8 for s in a.ravel())
        else:
            total += int(a.nbytes)
    return total


class _Stats(dv.DatasetValue):
    """Records, for each element of ``input_``, ``measure(element, seconds taken)``."""

    def __init__(self, input_, tag, measure):
        self.input, self.tag, self.measure = input_, tag, measure

    def iterate(self, rt):
        agg = getattr(rt, "stats_aggregator", None)
        src = self.input.iterate(rt)
        if agg is None:
            yield from src
            return
        prefix = getattr(rt, "stats_prefix", "")
        tag = f"{prefix}::{self.tag}" if prefix else self.tag
        while True:
            start = time.perf_counter()
            try:
                elem = next(src)
            except StopIteration:
                return
            agg._record(tag, self.measure(elem, time.perf_counter() - start))
            yield elem


class _SetAggregator(dv.DatasetValue):
    def __init__(self, input_, aggregator, prefix):
        self.input, self.aggregator, self.prefix = input_, aggregator, prefix

    def iterate(self, rt):
        if self.aggregator is None:
            return self.input.iterate(rt)
        return self.input.iterate(_StatsRuntime(rt, self.aggregator, self.prefix))


_declare("LatencyStatsDataset", ["input_dataset: variant", "tag: string"],
         lambda ctx, d, tag: _Stats(d, _str(tag), lambda e, s: s * 1e6), _OUT)
_declare("BytesProducedStatsDataset", ["input_dataset: variant", "tag: string"],
         lambda ctx, d, tag: _Stats(d, _str(tag), lambda e, s: _element_bytes(e)), _OUT)
_declare("SetStatsAggregatorDataset",
         ["input_dataset: variant", "stats_aggregator: int64", "tag: string",
          "counter_prefix: string"],
         lambda ctx, d, agg, tag, counter_prefix: _SetAggregator(
             d, _AGGREGATORS.get(_int(agg)), _str(tag)), _OUT)


def _stats_transformation(op_type, tag):
    def apply(dataset):
        t = ops.convert_to_tensor(tag, dtype=dtypes.string, name="tag")
        return _OpDataset(op_type, [dataset, t], dataset._specs)

    return apply


def latency_stats(tag):
    """A transformation recording, per element, the microseconds its input took to make it
    (into the aggregator of the dataset's options, under ``tag``)."""
    return _stats_transformation("LatencyStatsDataset", tag)


def bytes_produced_stats(tag):
    """A transformation recording, per element, its size in bytes (into the aggregator of the
    dataset's options, under ``tag``)."""
    return _stats_transformation("BytesProducedStatsDataset", tag)


def set_stats_aggregator(dataset, aggregator, prefix="", counter_prefix=""):
    """``dataset`` whose stats stages record into ``aggregator`` (what a dataset's options
    with ``experimental_stats.aggregator`` apply)."""
    agg_id = ops.convert_to_tensor(np.int64(aggregator._id), name="stats_aggregator")
    return _OpDataset("SetStatsAggregatorDataset",
                      [dataset, agg_id,
                       ops.convert_to_tensor(prefix or "", dtypes.string, name="tag"),
                       ops.convert_to_tensor(counter_prefix or "", dtypes.string,
                                             name="counter_prefix")],
                      dataset._specs)


__all__ = ["StatsAggregator", "bytes_produced_stats", "latency_stats"]
