"""Differences found by running TensorFlow's tf_cnn_benchmarks (the TF 1.x image-model trainer)
against tideflow, each reduced to the plain TF 1.x calls the trainer makes: its module imports
(``tensorflow.python.distribute.all_reduce``, ``framework.indexed_slices``,
``framework.tensor_conversion_registry``), the shuffle all-reduce of ``--all_reduce_spec=pscpu``
(an n-ary reduction op, ``tf.add_n``) and ``tf.test.TestCase`` sessions (soft placement, as TF's
test sessions, so a test's ``/gpu:N`` ops run on a CPU-only machine)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ----------------------------------------------------------------------------------------
# module paths the trainer imports
# ----------------------------------------------------------------------------------------


def test_python_distribute_all_reduce_is_contrib_all_reduce():
    from tideflow.python.distribute import all_reduce

    assert all_reduce.build_shuffle_all_reduce is tf.contrib.all_reduce.build_shuffle_all_reduce
    assert all_reduce.build_ring_all_reduce is tf.contrib.all_reduce.build_ring_all_reduce
    assert all_reduce.build_nccl_all_reduce is tf.contrib.all_reduce.build_nccl_all_reduce


def test_framework_indexed_slices_and_conversion_registry_modules():
    from tideflow.python.framework import indexed_slices, tensor_conversion_registry

    assert indexed_slices.IndexedSlices is tf.IndexedSlices
    values = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    s = indexed_slices.IndexedSlices(values, tf.constant([0, 2]), tf.constant([3, 2]))
    dense = tf.convert_to_tensor(s)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(dense), [[1.0, 2.0], [0.0, 0.0], [3.0, 4.0]])

    class Boxed:
        def __init__(self, value):
            self.value = value

    def convert(box, dtype=None, name=None, as_ref=False):
        del as_ref
        return tf.constant(box.value, dtype=dtype, name=name)

    tensor_conversion_registry.register_tensor_conversion_function(Boxed, convert)
    doubled = tf.add(Boxed(2.5), 1.0)
    with tf.Session() as sess:
        assert sess.run(doubled) == 3.5


# ----------------------------------------------------------------------------------------
# shuffle all-reduce: red_op takes the list of pieces
# ----------------------------------------------------------------------------------------

_THREE_CPUS = tf.ConfigProto(device_count={"CPU": 3})


def test_shuffle_all_reduce_calls_red_op_on_the_list_of_pieces():
    ar = tf.contrib.all_reduce
    vals = [np.arange(7.0) * (k + 1) for k in range(3)]
    ins = []
    for k, v in enumerate(vals):
        with tf.device(f"/cpu:{k}"):
            ins.append(tf.constant(v))
    calls = []

    def red_n(parts):
        calls.append(len(parts))
        return tf.add_n(parts)

    out = ar.build_shuffle_all_reduce(ins, ["/cpu:0", "/cpu:2"], red_n, lambda t: t / 3.0)
    # one n-ary call per gather device, each over the three inputs' pieces
    assert calls == [3, 3]
    assert [t.device for t in out] == [f"/device:CPU:{k}" for k in range(3)]
    with tf.Session(config=_THREE_CPUS) as sess:
        for got in sess.run(out):
            np.testing.assert_allclose(got, np.mean(vals, 0))


def test_shuffle_all_reduce_with_a_binary_op_fails_as_tf():
    ar = tf.contrib.all_reduce
    ins = [tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])]
    with pytest.raises(TypeError):
        ar.build_shuffle_all_reduce(ins, ["/cpu:0"], tf.add)


def test_shuffle_all_reduce_of_matrices_on_one_gather_device():
    # the trainer's replicated mode: per-tower gradients, pscpu gathering on one CPU
    from tideflow.python.distribute import all_reduce

    grads = [np.full((2, 3), 1.5), np.arange(6.0).reshape(2, 3)]
    ins = [tf.constant(g) for g in grads]
    out = all_reduce.build_shuffle_all_reduce(ins, ["/job:localhost/cpu:0"], tf.add_n)
    assert all(t.get_shape().as_list() == [2, 3] for t in out)
    with tf.Session() as sess:
        for got in sess.run(out):
            np.testing.assert_allclose(got, grads[0] + grads[1])


# ----------------------------------------------------------------------------------------
# tf.test.TestCase sessions place softly, as TF's
# ----------------------------------------------------------------------------------------


def _case():
    """A TestCase instance (made here so pytest does not collect its helpers as tests)."""

    class GpuNamedOps(tf.test.TestCase):
        def runTest(self):
            pass

        def build(self):
            with tf.device("/job:localhost/device:GPU:1"):
                v = tf.Variable([1.0, 2.0], name="v_gpu1")
                w = v * 3.0
            return v, w

    return GpuNamedOps()


def test_test_case_sessions_soft_place_gpu_ops_on_cpu():
    case = _case()
    case.setUp()
    try:
        v, w = case.build()
        with case.test_session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(w), [3.0, 6.0])
        with case.session() as sess:
            sess.run(v.initializer)
            np.testing.assert_array_equal(sess.run(w), [3.0, 6.0])
        with case.cached_session() as sess:
            assert sess.run(tf.reduce_sum(w)) == 9.0
    finally:
        case.tearDown()


def test_test_case_session_keeps_a_given_config_and_force_gpu_turns_soft_placement_off():
    case = _case()
    case.setUp()
    try:
        v, _ = case.build()
        placing = pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device")
        hard = tf.ConfigProto(allow_soft_placement=False)
        with case.session(config=hard) as sess, placing:
            sess.run(v.initializer)
        placing = pytest.raises(tf.errors.InvalidArgumentError, match="Cannot assign a device")
        soft = tf.ConfigProto(allow_soft_placement=True)
        with case.session(config=soft, force_gpu=True) as sess, placing:
            sess.run(v.initializer)
        assert soft.allow_soft_placement  # the caller's config is left as it was
    finally:
        case.tearDown()


# ----------------------------------------------------------------------------------------
# the two-level builders behind --all_reduce_spec=nccl/xring, nccl/rechd, nccl/pscpu,
# pscpu/pscpu (graph structure here; values on a real cluster in tests/distributed)
# ----------------------------------------------------------------------------------------


def test_all_reduce_hybrid_builders_are_public():
    from tideflow.python.distribute import all_reduce

    for name in ("build_nccl_then_ring", "build_nccl_then_recursive_hd",
                 "build_nccl_then_shuffle", "build_shuffle_then_ring",
                 "build_shuffle_then_shuffle"):
        assert getattr(tf.contrib.all_reduce, name) is getattr(all_reduce, name)
        assert name in tf.contrib.all_reduce.__all__


def test_hybrid_outputs_are_grouped_by_task_and_keep_the_shape():
    ar = tf.contrib.all_reduce
    devices = ["/job:worker/replica:0/task:1/device:CPU:0",
               "/job:worker/replica:0/task:0/device:CPU:0",
               "/job:worker/replica:0/task:1/device:CPU:1"]
    ins = []
    for dev in devices:
        with tf.device(dev):
            ins.append(tf.zeros([3, 2]))
    out = ar.build_shuffle_then_shuffle(ins, ["/job:worker/task:1/cpu:0",
                                              "/job:worker/task:0/cpu:0"],
                                        ["/job:worker/task:0/cpu:0"], tf.add_n)
    assert [t.device for t in out] == [devices[0], devices[2], devices[1]]
    assert [t.get_shape().as_list() for t in out] == [[3, 2]] * 3
    out = ar.build_nccl_then_ring(ins, 1, tf.add)
    assert [t.device for t in out] == [devices[0], devices[2], devices[1]]


def test_hybrid_builders_reject_what_tf_rejects():
    ar = tf.contrib.all_reduce
    with tf.device("/job:worker/task:0/cpu:0"):
        a = tf.ones([2])
    with tf.device("/job:worker/task:1/cpu:0"):
        b = tf.ones([2])
    with pytest.raises(ValueError, match="one device per worker"):
        ar.build_shuffle_then_shuffle([a, b], ["/cpu:0"], ["/cpu:0"], tf.add_n)
    with tf.device("/cpu:0"):
        local = tf.ones([2])
    # devices without a task (a local graph) cannot be grouped by task, as in TF
    with pytest.raises(AssertionError, match="failed to parse device /device:CPU:0"):
        ar.build_nccl_then_recursive_hd([local, local], tf.add)


def test_hybrid_with_a_single_task_value_only_applies_un_op():
    ar = tf.contrib.all_reduce
    with tf.device("/job:localhost/replica:0/task:0/device:CPU:0"):
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    (out,) = ar.build_shuffle_then_shuffle([x], ["/cpu:0"], ["/cpu:0"], tf.add_n,
                                           lambda t: t * 2.0)
    (ring,) = ar.build_nccl_then_ring([x], 1, tf.add, lambda t: t - 1.0)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [[2.0, 4.0], [6.0, 8.0]])
        np.testing.assert_array_equal(sess.run(ring), [[0.0, 1.0], [2.0, 3.0]])


# ----------------------------------------------------------------------------------------
# the real-data pipeline's color distortion module path
# ----------------------------------------------------------------------------------------


def test_contrib_image_python_ops_module_paths():
    from tideflow.contrib.image.python.ops import dense_image_warp, distort_image_ops, image_ops

    assert distort_image_ops.random_hsv_in_yiq is tf.contrib.image.random_hsv_in_yiq
    assert distort_image_ops.adjust_hsv_in_yiq is tf.contrib.image.adjust_hsv_in_yiq
    assert image_ops.transform is tf.contrib.image.transform
    assert dense_image_warp.dense_image_warp is tf.contrib.image.dense_image_warp
    image = tf.constant(np.full((2, 2, 3), 0.25, np.float32))
    # a grey image keeps its value under any hue rotation and saturation scale
    out = distort_image_ops.random_hsv_in_yiq(image, lower_saturation=0.5,
                                              upper_saturation=1.5, max_delta_hue=0.6)
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out), np.full((2, 2, 3), 0.25), atol=1e-5)


# ----------------------------------------------------------------------------------------
# a tf.data function's collections are its own (tf_cnn_benchmarks' image summaries inside
# the map function of each task's input pipeline)
# ----------------------------------------------------------------------------------------


def test_dataset_function_collections_do_not_leak_into_the_graph():
    tf.summary.scalar("outer", tf.constant(1.0))
    seen = {}

    def per_element(x):
        tf.summary.scalar("per_element", tf.cast(x, tf.float32))
        tf.add_to_collection("mine", x)
        tf.add_to_collection(tf.GraphKeys.UPDATE_OPS, tf.no_op())
        # the function reads the enclosing graph's collections, and its own additions
        seen["summaries"] = len(tf.get_collection(tf.GraphKeys.SUMMARIES))
        seen["mine"] = len(tf.get_collection("mine"))
        return x * 2

    ds = tf.data.Dataset.range(3).map(per_element)
    assert seen == {"summaries": 2, "mine": 1}
    assert [t.op.name for t in tf.get_collection(tf.GraphKeys.SUMMARIES)] == ["outer"]
    assert tf.get_collection("mine") == []
    assert tf.get_collection(tf.GraphKeys.UPDATE_OPS) == []
    merged = tf.summary.merge_all()
    nxt = tf.data.make_one_shot_iterator(ds).get_next()
    with tf.Session() as sess:
        assert [sess.run(nxt) for _ in range(3)] == [0, 2, 4]
        assert isinstance(sess.run(merged), bytes)


def test_two_pipelines_with_summaries_merge_all_in_the_outer_graph():
    def parse(x):
        image = tf.fill([2, 2, 1], tf.cast(x, tf.float32))
        tf.summary.image("img", tf.expand_dims(image, 0))
        return image

    its = []
    for task in range(2):
        with tf.name_scope(f"input_processing_{task}"):
            ds = tf.data.Dataset.range(4).map(parse).batch(2)
            its.append(tf.data.make_one_shot_iterator(ds).get_next())
    tf.summary.scalar("loss", tf.reduce_sum(its[0]) + tf.reduce_sum(its[1]))
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        summary = tf.Summary.FromString(sess.run(merged))
    assert [v.tag for v in summary.value] == ["loss"]
    assert summary.value[0].simple_value == 8.0



# ----------------------------------------------------------------------------------------
# data_flow_ops.RecordInput (the trainer's --use_datasets=false input path)
# ----------------------------------------------------------------------------------------


def _record_files(tmp_path, n_files=3, per_file=4, options=None):
    for f in range(n_files):
        path = str(tmp_path / f"train-{f:05d}-of-{n_files:05d}")
        with tf.python_io.TFRecordWriter(path, options=options) as w:
            for r in range(per_file):
                w.write(f"f{f}r{r}".encode())
    return str(tmp_path / "train-*")


def test_record_input_yields_each_record_once_per_epoch(tmp_path):
    from tideflow.python.ops import data_flow_ops

    pattern = _record_files(tmp_path)
    out = data_flow_ops.RecordInput(pattern, batch_size=4, buffer_size=5, seed=11,
                                    parallelism=2).get_yield_op()
    assert out.get_shape().as_list() == [4]
    everything = sorted(f"f{f}r{r}".encode() for f in range(3) for r in range(4))
    with tf.Session() as sess:
        epochs = [sorted(np.concatenate([sess.run(out) for _ in range(3)]).tolist())
                  for _ in range(3)]
    assert epochs == [everything] * 3


def test_record_input_batches_and_static_shapes(tmp_path):
    pattern = _record_files(tmp_path, n_files=1, per_file=6)
    ri = tf.python.ops.data_flow_ops.RecordInput(pattern, batch_size=2, batches=3,
                                                 buffer_size=1, name="ri")
    lists = ri.get_yield_op()
    assert [len(b) for b in lists] == [2, 2, 2]
    assert all(t.get_shape().as_list() == [] and t.dtype == tf.string
               for b in lists for t in b)
    with tf.Session() as sess:
        got = sess.run(lists)
    flat = sorted(r for b in got for r in b)
    assert flat == sorted(f"f0r{r}".encode() for r in range(6))


def test_record_input_shift_ratio_starts_on_another_file_and_reads_compressed(tmp_path):
    from tideflow.ops.data_flow_ops import RecordInput

    pattern = _record_files(tmp_path, n_files=2, per_file=3, options="GZIP")
    firsts = []
    for ratio in (0.0, 0.5):
        with tf.Graph().as_default():
            out = RecordInput(pattern, batch_size=3, buffer_size=1, seed=3, shift_ratio=ratio,
                              compression_type=tf.python_io.TFRecordCompressionType.GZIP
                              ).get_yield_op()
            with tf.Session() as sess:
                firsts.append({r[:2] for r in sess.run(out).tolist()})
    # a buffer of one keeps file order: each batch is one whole file, a different one
    assert len(firsts[0]) == 1 and len(firsts[1]) == 1 and firsts[0] != firsts[1]


def test_record_input_without_files_is_not_found(tmp_path):
    from tideflow.ops.data_flow_ops import RecordInput

    out = RecordInput(str(tmp_path / "nothing-*"), batch_size=2).get_yield_op()
    with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError, match="Found no files"):
        sess.run(out)


# ----------------------------------------------------------------------------------------
# tf.profiler.Profiler.serialize_to_string (the trainer's --tfprof_file)
# ----------------------------------------------------------------------------------------


def test_profiler_serialize_to_string_is_a_profile_proto():
    from tideflow.core.profiler import tfprof_log_pb2

    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable(np.ones((3, 4), np.float32), name="w")
    y = tf.matmul(x, w, name="y")
    loss = tf.reduce_sum(y, name="loss")
    profiler = tf.profiler.Profiler()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    with tf.Session() as sess:
        sess.run(w.initializer)
        for step in (0, 1):
            meta = tf.RunMetadata()
            sess.run(loss, {x: np.ones((2, 3))}, options=opts, run_metadata=meta)
            profiler.add_step(step, meta)
    proto = tfprof_log_pb2.ProfileProto.FromString(profiler.serialize_to_string())
    assert list(proto.steps) == [0, 1]
    by_name = {n.name: n for n in proto.nodes.values()}
    assert set(by_name) >= {"x", "w", "y", "loss"}
    assert all(proto.nodes[i].id == i for i in proto.nodes)
    matmul = by_name["y"]
    assert matmul.op == "MatMul" and matmul.float_ops == 2 * 2 * 3 * 4
    assert [proto.nodes[matmul.inputs[i]].name for i in (0, 1)] == ["x", "w/read"]
    assert list(matmul.output_shapes[0].int64_values) == [2, 4]
    assert list(matmul.shape) == []  # TF 1.15's tfprof: only a shape attr gives a node one
    assert "_trainable_variables" in by_name["w"].op_types
    for step in (0, 1):
        run = matmul.execs[step]
        assert run.run_count == 1
        assert run.latest_end_micros >= run.all_start_micros > 0
        (device,) = run.cpu_execs
        (start_and_micros,) = run.cpu_execs[device].times
        assert len(start_and_micros.int64_values) == 2


def test_write_op_log_writes_an_op_log_proto(tmp_path):
    from tideflow.core.profiler import tfprof_log_pb2

    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.Variable(np.ones((3, 4), np.float32), name="w")
    tf.matmul(x, w, name="y")
    extra = tfprof_log_pb2.OpLogProto()
    extra.log_entries.add(name="y", types=["my_type"])
    tf.profiler.write_op_log(tf.get_default_graph(), str(tmp_path), op_log=extra,
                             add_trace=False)
    log = tfprof_log_pb2.OpLogProto.FromString((tmp_path / "tfprof_log").read_bytes())
    got = sorted((e.name, e.float_ops, tuple(e.types)) for e in log.log_entries)
    # without traces, only the ops with something to log: FLOPs or types
    assert got == [("w", 0, ("_trainable_variables",)), ("y", 48, ("my_type",))]
