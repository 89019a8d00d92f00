"""Differential fuzzing of tf.data pipelines against TF 1.15 (session 29, helper h323): the
minimal cases where tideflow differed from TF 1.15 (values, order, static specs, errors and
the get_next at which they come), with TF 1.15's behaviour as measured, and a small seeded fuzz
run checking random pipelines (sources, map/filter/batch/padded_batch/shuffle-free transforms,
zip, concatenate, flat_map, interleave, window, unbatch, enumerate, scan, take/skip/shard,
repeat) against an independent pure-Python evaluation of the same pipeline."""

# ruff: noqa: B023  (the builders' lambdas are traced in the iteration that makes them)
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _pull(ds, n=50, init=False):
    """Elements (or (error class, message) pairs) up to the end, as TF's get_next gives them."""
    out = []
    with tf.Session() as s:
        if init:
            it = ds.make_initializable_iterator()
            nxt = it.get_next()
            s.run(it.initializer)
        else:
            nxt = ds.make_one_shot_iterator().get_next()
        for _ in range(n):
            try:
                out.append(s.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.OpError as e:
                out.append((type(e).__name__, e.message.split("\n")[0]))
    return out


# ---- minimal cases (TF 1.15's behaviour measured) --------------------------------------------

@pytest.mark.parametrize("cycle,block,calls,msg", [
    (1, 1, 3, "num_parallel_calls must less than or equal to cycle_length."),
    (0, 1, 1, "`cycle_length` must be > 0"),
    (-2, 1, 1, "`cycle_length` must be > 0"),
    (0, 1, 0, "`cycle_length` must be > 0"),
    (2, 0, 1, "`block_length` must be > 0"),
    (2, 1, 0, "num_parallel_calls must be greater than zero."),
    (2, 1, -2, "num_parallel_calls must be greater than zero."),
])
def test_parallel_interleave_checks_its_arguments(cycle, block, calls, msg):
    # TF 1.15's ParallelInterleaveDatasetV2 (interleave with num_parallel_calls) refuses more
    # calls than the cycle: the initializer fails, a one-shot iterator fails each get_next
    ds = tf.data.Dataset.range(3).interleave(
        lambda x: tf.data.Dataset.from_tensors(x), cycle_length=cycle, block_length=block,
        num_parallel_calls=calls)
    it = ds.make_initializable_iterator()
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(it.initializer)
    assert e.value.message.split("\n")[0] == msg
    assert _pull(ds, 2) == [("InvalidArgumentError", "[_Derived_]" + msg),
                            ("InvalidArgumentError", msg)]


def test_parallel_interleave_within_limits_and_autotune():
    f = lambda x: tf.data.Dataset.from_tensors(x)
    ds = tf.data.Dataset.range(3).interleave(f, cycle_length=2, num_parallel_calls=2)
    assert _pull(ds) == [0, 1, 2]
    ds = tf.data.Dataset.range(3).interleave(f, cycle_length=2, num_parallel_calls=-1)
    assert _pull(ds) == [0, 1, 2]


@pytest.mark.parametrize("cycle,block,msg", [
    (0, 1, "`cycle_length` must be > 0"),
    (2, 0, "`block_length` must be > 0"),
    (-1, 1, "`cycle_length` must be > 0"),
])
def test_experimental_parallel_interleave_checks_lengths_first(cycle, block, msg):
    # TF 1.15's ParallelInterleaveDataset checks the lengths before the buffer sizes (whose
    # defaults come from them)
    ds = tf.data.Dataset.range(3).apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.from_tensors(x), cycle_length=cycle, block_length=block))
    it = ds.make_initializable_iterator()
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        s.run(it.initializer)


def test_map_and_batch_dropped_partial_batch_still_checks_shapes():
    # TF 1.15's MapAndBatch copies each result into its batch as it comes: the last, partial
    # batch fails on a shape differing from its first element's, then the input ends
    ds = tf.data.experimental.Counter(3, 2).take(2).apply(tf.data.experimental.map_and_batch(
        lambda x: tf.range(x % 5), 3, drop_remainder=True))
    # (which element's shape TF calls the batch's is the first call done: thread order)
    msg = ("Cannot add tensor to the batch: number of elements does not match. Shapes are: "
           "[tensor]: [0], [batch]: [3]")
    got = _pull(ds)
    assert len(got) == 1 and got[0][0] == "InvalidArgumentError" and got[0][1][:90] == msg[:90]
    assert "[0]" in got[0][1] and "[3]" in got[0][1]
    # same shapes: the partial batch is dropped quietly
    ds = tf.data.Dataset.range(4).apply(tf.data.experimental.map_and_batch(
        lambda x: tf.fill([2], x), 3, drop_remainder=True))
    out = _pull(ds)
    assert len(out) == 1 and out[0].tolist() == [[0, 0], [1, 1], [2, 2]]


def _order(ds):
    return [v.tolist() for v in _pull(ds, 60)]


def test_shuffle_makes_an_unread_input_iterator_after_each_pass():
    # TF 1.15's shuffle (and finite repeat, and shuffle_and_repeat after its last pass) makes
    # one more input iterator when its input ends: a reshuffling shuffle inside draws seeds
    # for it, so the next pass's order is the one after (orders measured in TF 1.15)
    R, SR = tf.data.Dataset.range, tf.data.experimental.shuffle_and_repeat
    tf.set_random_seed(44)
    assert _order(R(8).shuffle(5, seed=7).shuffle(3, seed=23).apply(SR(1, 2, seed=39))) == [
        4, 0, 3, 2, 1, 7, 6, 5, 0, 5, 6, 1, 4, 2, 3, 7]
    # shuffle then repeat is fused as TF's default shuffle_and_repeat_fusion does
    assert _order(R(8).shuffle(5, seed=7).shuffle(3, seed=23).shuffle(2, seed=2).repeat(2)) \
        == [4, 3, 2, 0, 7, 1, 6, 5, 5, 0, 1, 4, 6, 3, 2, 7]
    assert _order(R(6).shuffle(5, seed=7).map(lambda x: x + 0).repeat(2).map(
        lambda x: x + 0).repeat(2)) == [4, 3, 2, 5, 1, 0, 3, 5, 1, 2, 0, 4, 1, 3, 0, 2, 4, 5,
                                        0, 3, 5, 2, 1, 4]
    zipped = tf.data.Dataset.zip((R(6).shuffle(4, seed=7), R(6).shuffle(3, seed=1)))
    assert _order(zipped.map(lambda a, b: a * 10 + b).shuffle(2, seed=3).repeat(3)) == [
        1, 22, 55, 30, 13, 44, 11, 43, 50, 32, 25, 4, 40, 2, 54, 31, 15, 23]
    assert _order(R(3).shuffle(4, seed=7).concatenate(R(3).shuffle(3, seed=1)).shuffle(
        2, seed=3).repeat(3)) == [1, 2, 1, 0, 0, 2, 0, 2, 1, 0, 1, 2, 2, 0, 1, 2, 0, 1]


def test_file_cache_writer_retries_the_lockfile(tmp_path):
    # TF 1.15's cache writer checks the lockfile on every call: once the first writer is
    # done, a second iterator that failed with AlreadyExistsError reads its input
    ds = tf.data.Dataset.from_tensor_slices([-6, 12]).cache(str(tmp_path / "c"))
    a = ds.make_one_shot_iterator().get_next()
    b = ds.make_initializable_iterator()
    bn = b.get_next()

    def get(s, t):
        try:
            return s.run(t).tolist()
        except tf.errors.OpError as e:
            return type(e).__name__

    with tf.Session() as s:
        s.run(b.initializer)
        got = [get(s, t) for t in (a, bn, bn, a, bn, a, bn, bn, bn)]
    ex = "AlreadyExistsError"
    assert got == [-6, ex, ex, 12, ex, "OutOfRangeError", -6, 12, "OutOfRangeError"]


@pytest.mark.parametrize("make", [
    lambda: tf.data.Dataset.range(3).shuffle(2, seed=1).repeat(0),
    lambda: tf.data.Dataset.range(3).shuffle(2, seed=1).repeat(-2),
    lambda: tf.data.Dataset.range(3).apply(
        tf.data.experimental.shuffle_and_repeat(2, 0, seed=1)),
])
def test_shuffle_and_repeat_refuses_a_count_below_one(make):
    # TF 1.15's ShuffleAndRepeatDataset (also the one its default fusion makes of a
    # reshuffling shuffle's repeat) refuses counts other than -1 and positive ones
    msg = "count must be greater than zero or equal to -1."
    assert _pull(make(), 1) == [("InvalidArgumentError", "[_Derived_]" + msg)]
    # without reshuffling nothing is fused: repeat(0) is empty
    ds = tf.data.Dataset.range(3).shuffle(2, seed=1, reshuffle_each_iteration=False).repeat(0)
    assert _pull(ds) == []

def test_take_reads_no_element_past_its_count(tmp_path):
    # TF 1.15's take stops asking its input at the count (a py_func sees 2 calls) and drops
    # the input's iterator on the call after its last element: a file cache's writer lets its
    # lockfile go, and a second writer can then read (measured)
    seen = []

    def f(v):
        seen.append(int(v))
        return v

    ds = tf.data.Dataset.range(10).map(lambda x: tf.py_func(f, [x], tf.int64)).take(2)
    assert [v.tolist() for v in _pull(ds)] == [0, 1] and seen == [0, 1]
    ds = tf.data.Dataset.range(5).cache(str(tmp_path / "c"))
    a = ds.take(2).make_one_shot_iterator().get_next()
    b = ds.make_one_shot_iterator().get_next()

    def get(s, t):
        try:
            return s.run(t).tolist()
        except tf.errors.OpError as e:
            return type(e).__name__

    with tf.Session() as s:
        got = [get(s, t) for t in (a, a, b, a, b, b)]
    assert got == [0, 1, "AlreadyExistsError", "OutOfRangeError", 0, 1]


def test_shuffle_and_repeat_of_errors_repeats_them():
    # TF 1.15 repeats forever an input that gave errors (not an empty one)
    MB = tf.data.experimental.map_and_batch
    d = tf.data.experimental.Counter(-1, -1).take(5).apply(MB(lambda x: tf.range(x % 5), 4))
    d = d.apply(MB(lambda x: tf.range(tf.reduce_sum(x) % 5), 2))
    d = d.apply(tf.data.experimental.shuffle_and_repeat(1, 2, seed=45))
    d = d.apply(tf.data.experimental.shuffle_and_repeat(3, None, seed=57))
    got = _pull(d, 6)
    assert len(got) == 6 and all(g[0] == "InvalidArgumentError" for g in got)


_SIZES = "Input element must have the same batch size in each component. Component 0 had "


@pytest.mark.parametrize("parts,msg", [
    ((3, 2, 3), _SIZES + "size 3 but component 1 had size, 2."),
    ((3, 3, 5), _SIZES + "size 3 but component 2 had size, 5."),
    ((3, None), "Input element must have a non-scalar value in each component."),
    ((None, 3), "Input element must have a non-scalar value in each component."),
])
def test_unbatch_errors_name_the_component(parts, msg):
    # TF 1.15's UnbatchDataset words (measured)
    elem = tuple(3 if n is None else list(range(n)) for n in parts)
    ds = tf.data.Dataset.from_generator(lambda: iter([elem]), (tf.int64,) * len(parts))
    assert _pull(ds.apply(tf.data.experimental.unbatch())) == [("InvalidArgumentError", msg)]

def test_experimental_source_datasets_print_their_v1_class(tmp_path):
    # TF 1.15's RandomDatasetV1, CsvDatasetV1 and SqlDatasetV1 are classes of their own, as
    # the file readers' (their reprs measured)
    path = tmp_path / "x.csv"
    path.write_text("1,2\n")
    E = tf.data.experimental
    assert repr(E.RandomDataset(1)) == "<RandomDatasetV1 shapes: (), types: tf.int64>"
    assert repr(E.CsvDataset(str(path), [tf.int32, tf.int32])) == (
        "<CsvDatasetV1 shapes: ((), ()), types: (tf.int32, tf.int32)>")
    sql = E.SqlDataset("sqlite", str(tmp_path / "db"), "SELECT 1", (tf.int32,))
    assert type(sql).__name__ == "SqlDatasetV1"
    assert repr(sql) == "<SqlDatasetV1 shapes: ((),), types: (tf.int32,)>"
    assert repr(E.Counter()) == "<DatasetV1Adapter shapes: (), types: tf.int64>"
    assert repr(E.RandomDataset(1).take(2)) == "<DatasetV1Adapter shapes: (), types: tf.int64>"

def test_group_by_window_keeps_a_group_whose_reduce_fails():
    # TF 1.15's GroupByWindow erases a group only once reduce_func made its dataset: here
    # pad_to_bucket_boundary's assertion fails for the longest bucket, whose group then stays
    # (its window never fills again) and fails on every call after the input's end (measured)
    ds = tf.data.Dataset.range(12).map(lambda x: tf.range((x * 7) % 6))
    ds = ds.apply(tf.data.experimental.bucket_by_sequence_length(
        lambda x: tf.cast(tf.shape(x)[0], tf.int32), [2, 4], [2, 3, 2],
        pad_to_bucket_boundary=True))
    got = [g if isinstance(g, tuple) else g.tolist() for g in _pull(ds, 10)]
    msg = (" assertion failed: [When pad_to_bucket_boundary=True, elements must have length "
           "< max(bucket_boundaries).]")
    err = ("InvalidArgumentError", msg)
    got = [g[:1] + (g[1][:len(err[1])],) if isinstance(g, tuple) else g for g in got]
    assert got == [[[0], [0]], err, [[0], [0]], [[0, 1, 0], [0, 1, 2], [0, 1, 0]], [[0, 1, 2]],
                   err, err, err, err, err]

def _failing_map(ds, **kw):
    def f(v):
        if v == 1:
            raise ValueError("bad")
        return v

    return ds.map(lambda x: tf.py_func(f, [x], tf.int64), **kw)


def _as_lists(got):
    return [g[0] if isinstance(g, tuple) else g.tolist() for g in got]


def test_batch_of_a_map_fails_whole_batches_as_map_and_batch():
    # TF 1.15 fuses map + batch into MapAndBatch: a failed element fails its whole batch
    # (the batch's other elements are used up); with the fusion off (options), or another
    # stage between, BatchDataset drops only the batch begun (measured)
    R = tf.data.Dataset.range
    fused = ["InvalidArgumentError", [3, 4, 5], [6, 7]]
    unfused = ["InvalidArgumentError", [2, 3, 4], [5, 6, 7]]
    assert _as_lists(_pull(_failing_map(R(8)).batch(3))) == fused
    assert _as_lists(_pull(_failing_map(R(8), num_parallel_calls=2).batch(3))) == fused
    assert _as_lists(_pull(_failing_map(R(8)).prefetch(1).batch(3))) == unfused
    ignored = _failing_map(R(8)).batch(3).apply(tf.data.experimental.ignore_errors())
    assert _as_lists(_pull(ignored)) == [[3, 4, 5], [6, 7]]
    o = tf.data.Options()
    o.experimental_optimization.map_and_batch_fusion = False
    assert _as_lists(_pull(_failing_map(R(8)).with_options(o).batch(3))) == unfused
    assert _as_lists(_pull(_failing_map(R(8)).batch(3).with_options(o))) == unfused
    # the dropped partial batch of a fused map still checks its shapes
    ds = R(5).map(lambda x: tf.range(x % 4)).batch(3, drop_remainder=True)
    assert _as_lists(_pull(ds)) == ["InvalidArgumentError", "InvalidArgumentError"]
    ds = R(7).map(lambda x: tf.range(x % 3)).batch(3, drop_remainder=True).with_options(o)
    assert _as_lists(_pull(ds)) == ["InvalidArgumentError", "InvalidArgumentError"]


def test_padded_batch_goes_on_after_a_padding_error():
    # TF 1.15's PaddedBatch fails the batch with an element longer than its padded shape
    # (DataLossError) and goes on with the next one (measured)
    d = tf.data.Dataset.range(7).map(lambda x: tf.range(x % 5))
    got = _as_lists(_pull(d.padded_batch(2, [3], padding_values=tf.constant(9, tf.int64))))
    assert got == [[[9, 9, 9], [0, 9, 9]], [[0, 1, 9], [0, 1, 2]], "DataLossError",
                   [[0, 9, 9]]]
    w = d.padded_batch(2, [3]).window(2, drop_remainder=True).flat_map(lambda x: x.batch(2))
    assert _as_lists(_pull(w)) == [[[[0, 0, 0], [0, 0, 0]], [[0, 1, 0], [0, 1, 2]]],
                                   "DataLossError"]

def test_from_string_handle_op_is_named_after_its_type():
    # TF 1.15's Iterator.from_string_handle names no op: IteratorFromStringHandleV2, _1...
    d = tf.data.Dataset.range(3)
    h = tf.placeholder(tf.string, [])
    it = tf.data.Iterator.from_string_handle(h, d.output_types, d.output_shapes)
    it2 = tf.data.Iterator.from_string_handle(h, d.output_types, d.output_shapes)
    assert it._iterator_resource.op.name == "IteratorFromStringHandleV2"
    assert it2._iterator_resource.op.name == "IteratorFromStringHandleV2_1"
    assert it.get_next().name == "IteratorGetNext:0"

def test_make_initializer_reduce_and_single_element_run_unoptimized():
    # TF 1.15 applies a dataset's default optimizations (shuffle_and_repeat and map_and_batch
    # fusion...) only in make_one_shot_iterator/make_initializable_iterator: an iterator
    # from_structure's make_initializer, reduce and get_single_element run the plain ops
    # (orders measured in TF 1.15)
    def shuffled():
        return tf.data.Dataset.range(6).shuffle(4, seed=3).repeat(2)

    fused = [3, 4, 2, 5, 0, 1, 0, 1, 3, 5, 4, 2]
    plain = [0, 3, 2, 1, 4, 5, 0, 4, 1, 5, 3, 2]
    assert [v.tolist() for v in _pull(shuffled(), init=True)] == fused
    d = shuffled()
    it = tf.data.Iterator.from_structure(d.output_types, d.output_shapes)
    nxt, init = it.get_next(), it.make_initializer(d)
    with tf.Session() as s:
        s.run(init)
        assert [s.run(nxt).tolist() for _ in range(12)] == plain
        one = tf.data.experimental.get_single_element(shuffled().take(1))
        assert s.run(one) == 0
        total = shuffled().reduce(tf.constant(0, tf.int64), lambda t, x: t * 7 + x)
        assert s.run(total) == 937790394
    d = _failing_map(tf.data.Dataset.range(8)).batch(3)
    it = tf.data.Iterator.from_structure(d.output_types, d.output_shapes)
    nxt, init = it.get_next(), it.make_initializer(d)
    with tf.Session() as s:
        s.run(init)
        got = []
        for _ in range(3):
            try:
                got.append(s.run(nxt).tolist())
            except tf.errors.InvalidArgumentError:
                got.append("InvalidArgumentError")
    assert got == ["InvalidArgumentError", [2, 3, 4], [5, 6, 7]]

@pytest.mark.parametrize("make,name", [
    (lambda f: _R3().apply(tf.data.experimental.map_and_batch(f, 2)),
     "tf_data_experimental_map_and_batch"),
    (lambda f: _R3().apply(tf.data.experimental.scan(np.int64(0), lambda s, x: (s + f(x), s))),
     "tf_data_experimental_scan"),
    (lambda f: _R3().apply(tf.data.experimental.take_while(lambda x: tf.equal(f(x), 0))),
     "tf_data_experimental_take_while"),
    (lambda f: _R3().apply(tf.data.experimental.group_by_reducer(f, tf.data.experimental.Reducer(
        lambda k: np.int64(0), lambda s, x: s + x, lambda s: s))),
     "tf_data_experimental_group_by_reducer"),
    (lambda f: _R3().apply(tf.data.experimental.parallel_interleave(
        lambda x: tf.data.Dataset.range(f(x)), 1)), "tf_data_experimental_parallel_interleave"),
    (lambda f: _R3().map(f), "Dataset_map"),
])
def test_function_errors_name_tf_transformation(make, name):
    # a failing function's error names it "__inference_<TF's transformation name>_<fn>_<n>"
    # (measured in TF 1.15)
    def bad(v):
        raise ValueError("x")

    ds = make(lambda x: tf.reshape(tf.py_func(bad, [x], tf.int64), []))
    got = _pull(ds, 1)
    assert got[0][0] == "InvalidArgumentError"
    assert got[0][1].startswith("{{function_node __inference_" + name + "_<lambda>_"), got


def _R3():
    return tf.data.Dataset.range(3)


def test_reduce_function_errors_name_reduce():
    def bad(v):
        raise ValueError("x")

    r = _R3().reduce(np.int64(0), lambda s, x: s + tf.reshape(tf.py_func(bad, [x], tf.int64), []))
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError) as e:
        s.run(r)
    assert e.value.message.startswith("{{function_node __inference_reduce_<lambda>_")

def test_dense_to_sparse_batch_checks_each_element_as_it_reads_it():
    # TF 1.15's DenseToSparseBatch fails a batch at its first element larger than the row
    # shape (DataLossError); the next batch starts after that element (measured)
    ds = tf.data.Dataset.range(6).map(lambda x: tf.range(x % 3)).apply(
        tf.data.experimental.dense_to_sparse_batch(2, [1]))
    got = [g[0] if type(g) is tuple else (g.indices.tolist(), g.values.tolist(),
                                          g.dense_shape.tolist()) for g in _pull(ds)]
    ok = ([[1, 0]], [0], [2, 1])
    assert got == [ok, "DataLossError", ok, "DataLossError"]

# ---- seeded fuzz run against a pure-Python evaluation ---------------------------------------
# Element kinds: "S" an int64 scalar (Python int), "P" a pair of them, "V" an int64 vector
# (list), "B" a batched pair (two lists), "M" a padded batch of vectors (list of lists). Each
# step is (name, args); _build makes the tf.data pipeline, _evaluate the Python lists.

def _windows(xs, size, shift, stride, drop):
    out, start = [], 0
    while start < len(xs):
        w = xs[start:start + (size - 1) * stride + 1:stride][:size]
        if len(w) == size or not drop:
            out.append(w)
        start += shift
    return out


def _interleave(xs, fn, cycle, block):
    # TF 1.15's InterleaveDataset: a ring of slots, an empty slot opening the next input
    src, slots, out = iter(xs), [None] * cycle, []
    i = k = n_open = 0
    end = False
    while not end or n_open:
        if slots[i] is not None:
            try:
                out.append(next(slots[i]))
                k += 1
                if k == block:
                    i, k = (i + 1) % cycle, 0
            except StopIteration:
                slots[i] = None
                n_open -= 1
                i, k = (i + 1) % cycle, 0
        elif not end:
            try:
                slots[i] = iter(fn(next(src)))
                n_open += 1
            except StopIteration:
                end = True
        else:
            i, k = (i + 1) % cycle, 0
    return out


def _evaluate(steps):
    (src, a), rest = steps[0], steps[1:]
    if src == "range":
        xs = list(range(*a))
    elif src == "slices":
        xs = list(a)
    else:  # zip of a range and slices
        xs = list(zip(range(*a[0]), a[1]))
    for name, a in rest:
        if name == "lin":
            xs = [x * a[0] + a[1] for x in xs]
        elif name == "pair":
            xs = [(x, x * a) for x in xs]
        elif name == "vec":
            xs = [list(range(x % 5)) for x in xs]
        elif name == "sum":
            xs = [sum(x) for x in xs]
        elif name == "swap":
            xs = [(b, c) for c, b in xs]
        elif name == "add":
            xs = [b + c for b, c in xs]
        elif name == "filter":
            key = (lambda x: x) if isinstance(xs[0] if xs else 0, int) else _key
            xs = [x for x in xs if key(x) % a[0] == a[1]]
        elif name == "batch":
            n, drop = a
            chunks = [xs[i:i + n] for i in range(0, len(xs), n)]
            chunks = [c for c in chunks if len(c) == n or not drop]
            xs = [([e[0] for e in c], [e[1] for e in c]) if isinstance(c[0], tuple) else c
                  for c in chunks]
        elif name == "padded":
            n, drop = a
            chunks = [xs[i:i + n] for i in range(0, len(xs), n)]
            chunks = [c for c in chunks if len(c) == n or not drop]
            xs = [[r + [0] * (max(map(len, c)) - len(r)) for r in c] for c in chunks]
        elif name == "unbatch":
            xs = [e for x in xs for e in (list(zip(*x)) if isinstance(x, tuple) else x)]
        elif name == "take":
            xs = xs[:a] if a >= 0 else xs
        elif name == "skip":
            xs = xs[a:] if a >= 0 else []
        elif name == "shard":
            xs = xs[a[1]::a[0]]
        elif name == "repeat":
            xs = xs * a
        elif name == "flat_map":
            xs = [e for x in xs for e in range(x % 4)]
        elif name == "interleave":
            xs = _interleave(xs, lambda x: range(x % 4), *a)
        elif name == "window":
            xs = _windows(xs, *a)
        elif name == "enumerate":
            xs = [(a + i, x) for i, x in enumerate(xs)]
        elif name == "scan":
            st, out = a, []
            for x in xs:
                out.append((st, x))
                st += x
            xs = out
        elif name == "concat":
            xs = xs + list(range(*a))
    return xs


def _key(x):
    return x[0] if isinstance(x, tuple) else sum(x)


def _build(steps):
    (src, a), rest = steps[0], steps[1:]
    D = tf.data.Dataset
    if src == "range":
        ds = D.range(*a)
    elif src == "slices":
        ds = D.from_tensor_slices(np.array(a, np.int64).reshape(-1))
    else:
        ds = D.zip((D.range(*a[0]), D.from_tensor_slices(np.array(a[1], np.int64).reshape(-1))))
    for name, a in rest:
        if name == "lin":
            ds = ds.map(lambda x: x * a[0] + a[1])
        elif name == "pair":
            ds = ds.map(lambda x: (x, x * a), num_parallel_calls=2)
        elif name == "vec":
            ds = ds.map(lambda x: tf.range(x % 5))
        elif name == "sum":
            ds = ds.map(lambda x: tf.reduce_sum(x))
        elif name == "swap":
            ds = ds.map(lambda b, c: (c, b))
        elif name == "add":
            ds = ds.map(lambda b, c: b + c)
        elif name == "filter":
            if isinstance(ds.output_types, tuple):
                ds = ds.filter(lambda b, c: tf.equal(b % a[0], a[1]))
            elif ds.output_shapes.ndims:
                ds = ds.filter(lambda x: tf.equal(tf.reduce_sum(x) % a[0], a[1]))
            else:
                ds = ds.filter(lambda x: tf.equal(x % a[0], a[1]))
        elif name == "batch":
            ds = ds.batch(a[0], drop_remainder=a[1])
        elif name == "padded":
            ds = ds.padded_batch(a[0], [-1], drop_remainder=a[1])
        elif name == "unbatch":
            ds = ds.apply(tf.data.experimental.unbatch())
        elif name == "take":
            ds = ds.take(a)
        elif name == "skip":
            ds = ds.skip(a)
        elif name == "shard":
            ds = ds.shard(*a)
        elif name == "repeat":
            ds = ds.repeat(a)
        elif name == "flat_map":
            ds = ds.flat_map(lambda x: D.range(x % 4))
        elif name == "interleave":
            ds = ds.interleave(lambda x: D.range(x % 4), cycle_length=a[0], block_length=a[1])
        elif name == "window":
            size, shift, stride, drop = a
            ds = ds.window(size, shift, stride, drop).flat_map(lambda w: w.batch(size))
        elif name == "enumerate":
            ds = ds.apply(tf.data.experimental.enumerate_dataset(a))
        elif name == "scan":
            ds = ds.apply(tf.data.experimental.scan(
                tf.constant(a, tf.int64), lambda st, x: (st + x, (st, x))))
        elif name == "concat":
            ds = ds.concatenate(D.range(*a))
        elif name == "prefetch":
            ds = ds.prefetch(a)
        elif name == "cache":
            ds = ds.cache()
    return ds


_NEXT = {  # kind -> [(step, its args' maker, the kind it makes)]
    "S": [("lin", lambda r: (int(r.randint(-2, 3)), int(r.randint(-3, 4))), "S"),
          ("pair", lambda r: int(r.randint(-2, 3)), "P"), ("vec", None, "V"),
          ("filter", None, "S"), ("batch", None, "V"), ("flat_map", None, "S"),
          ("interleave", lambda r: (int(r.randint(1, 4)), int(r.randint(1, 3))), "S"),
          ("window", lambda r: (int(r.randint(1, 4)), int(r.randint(1, 3)),
                                int(r.randint(1, 3)), bool(r.randint(2))), "V"),
          ("enumerate", lambda r: int(r.randint(0, 3)), "P"),
          ("scan", lambda r: int(r.randint(-2, 3)), "P"),
          ("concat", lambda r: (int(r.randint(0, 3)), int(r.randint(2, 6))), "S")],
    "P": [("add", None, "S"), ("swap", None, "P"), ("filter", None, "P"), ("batch", None, "B")],
    "V": [("sum", None, "S"), ("filter", None, "V"), ("unbatch", None, "S"),
          ("padded", None, "M")],
    "B": [("unbatch", None, "P"), ("add", None, "V")],
    "M": [("unbatch", None, "V")],
}
_ANY = [("take", lambda r: int(r.randint(-1, 9)), None),
        ("skip", lambda r: int(r.choice([-1, 0, 1, 1, 2, 3])), None),
        ("shard", lambda r: (2, int(r.randint(0, 2))), None),
        ("repeat", lambda r: int(r.choice([0, 1, 2, 2, 3])), None), ("prefetch", lambda r: 2, None),
        ("cache", None, None)]


def _random_pipeline(seed):
    r = np.random.RandomState(seed)
    c = r.randint(3)
    if c == 0:
        steps, kind = [("range", (int(r.randint(-3, 4)), int(r.randint(4, 16)),
                                  int(r.choice([1, 1, 2, 3]))))], "S"
    elif c == 1:
        steps, kind = [("slices", [int(v) for v in r.randint(-5, 20, r.randint(1, 10))])], "S"
    else:
        n = int(r.randint(1, 8))
        steps, kind = [("zip", ((0, n), [int(v) for v in r.randint(0, 9, n)]))], "P"
    for _ in range(r.randint(1, 6)):
        opts = _NEXT[kind] + _ANY
        name, mk, to = opts[r.randint(len(opts))]
        if name in ("batch", "padded"):
            args = (int(r.randint(1, 4)), bool(r.randint(2)))
        elif name == "filter":
            m = int(r.randint(2, 4))
            args = (m, int(r.randint(m)))
        else:
            args = mk(r) if mk else None
        steps.append((name, args))
        kind = to or kind
    return steps


def _as_python(v):
    if isinstance(v, tuple):
        return tuple(_as_python(x) for x in v)
    return np.asarray(v).tolist()


@pytest.mark.parametrize("chunk", range(3))
def test_seeded_pipelines_match_a_python_evaluation(chunk):
    for seed in range(chunk * 15, chunk * 15 + 15):
        steps = _random_pipeline(seed)
        want = _evaluate(steps)
        with tf.Graph().as_default():
            got = [_as_python(v) for v in _pull(_build(steps), 60, init=seed % 2 == 1)]
        want = [tuple(w) if isinstance(w, tuple) else w for w in want][:60]
        assert got == want, (seed, steps)
