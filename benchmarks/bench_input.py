"""Input pipeline throughput (issue: tf.data), each figure against a baseline of the same run.

* Example parsing: examples/s of a ``tf.data`` pipeline reading ``tf.train.Example`` records
  (a 28x28 float image and an int64 label each) from a TFRecord file, parsed by
  ``parse_single_example`` in ``map`` and batched by 64, against the examples/s the CNN of
  ``bench_training.cnn_tideflow()`` consumes (batch 64); target >= 5x. The batch-then-
  ``parse_example`` form of the same pipeline is reported beside it.
* TFRecord reading: MB/s of 1 KiB and 100 KiB records through ``TFRecordDataset`` (batched by
  256, one ``Session.run`` per batch) and through ``record_io.tf_record_iterator``, against
  plain Python reads of the same file's bytes: ``f.read()`` of each record's header, payload
  and footer (no framing checks), and the whole file in 1 MiB chunks; target >= 0.5x.

Run: ``python benchmarks/bench_input.py`` (``--json FILE`` saves the figures).
"""

import argparse
import json
import os
import statistics
import struct
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from benchmarks.bench_training import BATCH_CNN, cnn_tideflow

BATCH = 64


def _best(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), statistics.median(times)


def write_examples(path, n):
    import tideflow as tf
    from tideflow.framework.record_io import TFRecordWriter

    rng = np.random.RandomState(0)
    with TFRecordWriter(path) as w:
        for i in range(n):
            ex = tf.train.Example(features=tf.train.Features(feature={
                "image": tf.train.Feature(float_list=tf.train.FloatList(
                    value=rng.uniform(size=784).astype(np.float32))),
                "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 10])),
            }))
            w.write(ex.SerializeToString())


def pipeline_examples_per_sec(path, n, batched_parse=False, parallel=None):
    """Examples/s delivered by get_next() of the parsing pipeline over ``n`` records."""
    import tideflow as tf
    from tideflow import data

    features = {"image": tf.FixedLenFeature([28, 28, 1], tf.float32),
                "label": tf.FixedLenFeature([], tf.int64)}
    g = tf.Graph()
    with g.as_default():
        d = data.TFRecordDataset(path)
        if batched_parse:
            d = d.batch(BATCH).map(lambda s: tf.parse_example(s, features),
                                   num_parallel_calls=parallel)
        else:
            d = d.map(lambda s: tf.parse_single_example(s, features),
                      num_parallel_calls=parallel).batch(BATCH)
        d = d.prefetch(2)
        it = d.make_initializable_iterator()
        nxt = it.get_next()
        sess = tf.Session(graph=g)

    def epoch():
        sess.run(it.initializer)
        count = 0
        try:
            while True:
                count += len(sess.run(nxt)["label"])
        except tf.errors.OutOfRangeError:
            pass
        assert count == n

    epoch()
    best, _ = _best(epoch, 3)
    sess.close()
    return n / best


def _write_records(path, size, total_bytes):
    from tideflow.framework.record_io import TFRecordWriter

    payload = np.random.RandomState(1).bytes(size)
    count = max(1, total_bytes // size)
    with TFRecordWriter(path) as w:
        for _ in range(count):
            w.write(payload)
    return count, count * size


def _plain_record_reads(path):
    u64 = struct.Struct("<Q").unpack
    n = 0
    with open(path, "rb") as f:
        while True:
            header = f.read(12)
            if not header:
                return n
            data = f.read(u64(header[:8])[0])
            f.read(4)
            n += len(data)


def _plain_chunk_reads(path):
    n = 0
    with open(path, "rb") as f:
        while True:
            chunk = f.read(1 << 20)
            if not chunk:
                return n
            n += len(chunk)


def tfrecord_throughput(path, payload_bytes):
    import tideflow as tf
    from tideflow import data
    from tideflow.framework.record_io import tf_record_iterator

    g = tf.Graph()
    with g.as_default():
        it = data.TFRecordDataset(path).batch(256).make_initializable_iterator()
        nxt = it.get_next()
        sess = tf.Session(graph=g)

    def via_dataset():
        sess.run(it.initializer)
        got = 0
        try:
            while True:
                got += sum(len(r) for r in sess.run(nxt))
        except tf.errors.OutOfRangeError:
            pass
        assert got == payload_bytes

    def via_iterator():
        assert sum(len(r) for r in tf_record_iterator(path)) == payload_bytes

    out = {}
    for name, fn in (("dataset", via_dataset), ("tf_record_iterator", via_iterator),
                     ("plain_record_reads", lambda: _plain_record_reads(path)),
                     ("plain_chunk_reads", lambda: _plain_chunk_reads(path))):
        fn()  # warm the page cache and the plans
        best, _ = _best(fn)
        out[name] = payload_bytes / best / 1e6
    sess.close()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--examples", type=int, default=4096)
    ap.add_argument("--mb", type=int, default=64, help="size of each TFRecord test file")
    args = ap.parse_args()
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        ex_path = os.path.join(tmp, "examples.tfrecord")
        write_examples(ex_path, args.examples)
        results["pipeline_examples_per_s"] = pipeline_examples_per_sec(ex_path, args.examples)
        results["pipeline_parallel4_examples_per_s"] = pipeline_examples_per_sec(
            ex_path, args.examples, parallel=4)
        results["pipeline_batch_then_parse_examples_per_s"] = pipeline_examples_per_sec(
            ex_path, args.examples, batched_parse=True)
        cnn_steps = cnn_tideflow()
        results["cnn_steps_per_s"] = cnn_steps
        results["cnn_examples_per_s"] = cnn_steps * BATCH_CNN
        results["pipeline_vs_cnn"] = results["pipeline_examples_per_s"] / (
            cnn_steps * BATCH_CNN)
        for size, label in ((1024, "1k"), (100 * 1024, "100k")):
            path = os.path.join(tmp, f"r{label}.tfrecord")
            _, payload = _write_records(path, size, args.mb << 20)
            figs = tfrecord_throughput(path, payload)
            for k, v in figs.items():
                results[f"tfrecord_{label}_{k}_mb_per_s"] = v
            for k in ("dataset", "tf_record_iterator"):
                for base in ("plain_record_reads", "plain_chunk_reads"):
                    results[f"tfrecord_{label}_{k}_vs_{base}"] = figs[k] / figs[base]
            os.remove(path)
    print(json.dumps({k: round(v, 3) for k, v in results.items()}, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=2)


if __name__ == "__main__":
    main()
