"""Regressions found by running TF 1.x infrastructure programs (input pipelines, sessions,
saving, control flow, debugging aids, error handling) under tideflow and under real TF."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def test_tensor_str_omits_unknown_shape_and_shows_device():
    # TF 1.x: Tensor("b:0", dtype=float32) for an unknown rank; ", device=..." when placed.
    with tf.device("/cpu:0"):
        a = tf.constant(1.0, name="a")
    b = tf.placeholder(tf.float32, name="b")
    c = tf.placeholder(tf.int32, [None, 2], name="c")
    assert str(a) == 'Tensor("a:0", shape=(), dtype=float32, device=/device:CPU:0)'
    assert str(b) == 'Tensor("b:0", dtype=float32)'
    assert str(c) == 'Tensor("c:0", shape=(?, 2), dtype=int32)'
    assert repr(b) == "<tf.Tensor 'b:0' shape=<unknown> dtype=float32>"


def test_while_loop_returns_the_body_structure_and_tensor_array_shapes():
    # TF's BuildLoop packs the outputs as the body returned them: loop_vars given as a list and
    # a body returning a tuple give a tuple, and a TensorArray written in the body keeps the
    # element shape it inferred (real TF 1.x: stack() -> (?, 4, 3)).
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)

    def body(k, ta):
        return k + 1, ta.write(k, tf.ones([4, 3]) * tf.cast(k, tf.float32))

    out = tf.while_loop(lambda k, ta: k < 4, body, [0, ta])
    assert isinstance(out, tuple)
    stacked = out[1].stack()
    assert stacked.get_shape().as_list() == [None, 4, 3]
    assert out[1].read(0).get_shape().as_list() == [4, 3]
    with tf.Session() as s:
        v = s.run(stacked)
    assert v.shape == (4, 4, 3)
    assert (v[:, 0, 0] == [0, 1, 2, 3]).all()


def test_ref_variable_methods_and_tf115_constructor_arguments():
    # tf.Variable (a RefVariable in TF 1.15) has count_up_to, the scatter_* family and accepts
    # synchronization/aggregation/shape/use_resource=False.
    c = tf.Variable(0, name="counter", trainable=False,
                    synchronization=tf.VariableSynchronization.AUTO,
                    aggregation=tf.VariableAggregation.MEAN, use_resource=False)
    assert c.aggregation == tf.VariableAggregation.MEAN
    assert c.synchronization == tf.VariableSynchronization.AUTO
    up = c.count_up_to(2)
    v = tf.Variable([1.0, 5.0, 3.0])
    mx = v.scatter_max(tf.IndexedSlices(tf.constant([4.0, 4.0]), tf.constant([0, 1])))
    nd = v.scatter_nd_add([[2]], [10.0])
    dyn = tf.Variable(tf.zeros([2]), shape=tf.TensorShape([None]), validate_shape=False)
    assert dyn.get_shape().as_list() == [None]
    with pytest.raises(ValueError, match="aggregation"):
        tf.Variable(1.0, aggregation="sum")
    res = tf.Variable(1.0, use_resource=True)  # runs as a reference variable
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert [s.run(up), s.run(up)] == [0, 1]
        assert s.run(res.assign_add(2.0)) == 3.0
        with pytest.raises(tf.errors.OutOfRangeError, match="Reached limit of 2"):
            s.run(up)
        assert s.run(mx).tolist() == [4.0, 5.0, 3.0]
        assert s.run(nd).tolist() == [4.0, 5.0, 13.0]


def test_reshape_of_partly_known_shape_checks_divisibility_at_graph_build():
    # TF 1.x's shape function: "Dimension size must be evenly divisible by 3 but is 5 for
    # 'Reshape' (op: 'Reshape') with input shapes: [?,3], [1]."
    x = tf.placeholder(tf.float32, [None, 3])
    with pytest.raises(ValueError, match="Dimension size must be evenly divisible by 3 but is 5"):
        tf.reshape(x, [5])
    assert tf.reshape(x, [6]).get_shape().as_list() == [6]
    assert tf.reshape(x, [-1, 2]).get_shape().as_list() == [None, 2]


def _all(dataset, limit=50):
    nxt = dataset.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        try:
            for _ in range(limit):
                v = s.run(nxt)
                out.append(tuple(c.tolist() for c in v) if isinstance(v, tuple) else v.tolist())
        except tf.errors.OutOfRangeError:
            pass
    return out


def test_dataset_window_flat_map():
    # the windows real TF gives (the documented examples of Dataset.window)
    r = tf.data.Dataset.range(7)
    assert _all(r.window(3, shift=2).flat_map(lambda w: w.batch(3))) == [
        [0, 1, 2], [2, 3, 4], [4, 5, 6], [6]]
    assert _all(r.window(3, shift=2, drop_remainder=True).flat_map(lambda w: w.batch(3))) == [
        [0, 1, 2], [2, 3, 4], [4, 5, 6]]
    assert _all(r.window(3, shift=1, stride=2).flat_map(lambda w: w.batch(3))) == [
        [0, 2, 4], [1, 3, 5], [2, 4, 6], [3, 5], [4, 6], [5], [6]]
    assert _all(r.window(2, shift=4).flat_map(lambda w: w.batch(2))) == [[0, 1], [4, 5]]
    # a tuple element gives a tuple of window datasets, one per component
    z = tf.data.Dataset.zip((r, r.map(lambda v: v * 10)))
    w = z.window(2, 1, drop_remainder=True).flat_map(
        lambda a, b: tf.data.Dataset.zip((a.batch(2), b.batch(2))))
    assert w.output_types == (tf.int64, tf.int64)
    assert _all(w, 2) == [([0, 1], [0, 10]), ([1, 2], [10, 20])]


def test_cond_branch_returning_none_names_the_branch():
    # TF 1.x: ValueError("true_fn must have a return value.")
    p = tf.placeholder(tf.bool, [])
    with pytest.raises(ValueError, match=r"^true_fn must have a return value\.$"):
        tf.cond(p, lambda: None, lambda: tf.constant(1))
    with pytest.raises(ValueError, match=r"^false_fn must have a return value\.$"):
        tf.cond(p, lambda: tf.constant(1), lambda: None)
    # an Operation is a value (tf.cond(p, lambda: tf.no_op(), ...) is common)
    op = tf.cond(p, lambda: tf.no_op(), lambda: tf.no_op())
    assert isinstance(op, tf.Tensor) and op.dtype == tf.bool  # TF 1.x: cond/Merge, the pred


def test_graph_tensor_is_never_iterable():
    # TF 1.15: OperatorNotAllowedInGraphError (a TypeError) "iterating over `tf.Tensor` is not
    # allowed in Graph execution" -- raised by iter() itself, so code probing
    # ``try: iter(x) except TypeError`` treats a tensor as one value, whatever its shape.
    def as_list(x):
        try:
            return list(iter(x))
        except TypeError:
            return [x]

    t = tf.constant([1.0, 2.0, 3.0])
    assert as_list(t) == [t]
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError,
                       match="^iterating over `tf.Tensor` is not allowed in Graph execution"):
        _a, _b, _c = t
    with pytest.raises(TypeError, match="as a Python `bool` is not allowed in Graph execution"):
        bool(t)


def test_iterator_op_names_as_tf():
    d = tf.data.Dataset.range(3)
    one = d.make_one_shot_iterator()
    init = d.make_initializable_iterator()
    re = tf.data.Iterator.from_structure(d.output_types, d.output_shapes)
    assert one._iterator_resource.op.name == "OneShotIterator"
    assert init._iterator_resource.op.name == "IteratorV2"
    assert init.initializer.name == "MakeIterator"
    assert re._iterator_resource.op.name == "IteratorV2_1"
    assert re.make_initializer(d).name == "make_initializer"


def test_saver_saves_and_restores_an_iterator_position(tmp_path):
    it = tf.data.Dataset.range(10).map(lambda x: x * 2).make_initializable_iterator()
    nxt = it.get_next()
    tf.add_to_collection(tf.GraphKeys.SAVEABLE_OBJECTS,
                         tf.data.experimental.make_saveable_from_iterator(it))
    v = tf.Variable(1.0)
    saver = tf.train.Saver()
    with tf.Session() as s:
        s.run([it.initializer, v.initializer])
        assert [s.run(nxt) for _ in range(3)] == [0, 2, 4]
        path = saver.save(s, str(tmp_path / "ckpt"))
        assert [s.run(nxt) for _ in range(2)] == [6, 8]
        saver.restore(s, path)
        assert [s.run(nxt) for _ in range(2)] == [6, 8]
    with tf.Session() as s:  # a new session: the iterator initialized, then restored
        s.run(it.initializer)
        saver.restore(s, path)
        assert s.run(nxt) == 6
    with tf.Session() as s, pytest.raises(tf.errors.FailedPreconditionError,
                                          match="initialized"):
        saver.restore(s, path)


def test_lists_holding_variables_autopack():
    # TF packs a list holding Variables (is_dense_tensor_like): tf.argmax([v, w]),
    # tf.reduce_sum([v, 3.0]), a loss built from [[v, 1.0], [2.0, w]] -- and its gradients.
    v = tf.Variable(1.0)
    w = tf.Variable(2.0)
    am = tf.argmax([v, w])
    m = tf.convert_to_tensor([[v, 1.0], [2.0, w]])
    assert m.get_shape().as_list() == [2, 2]
    loss = tf.reduce_sum(tf.convert_to_tensor([v, w]) * [3.0, 4.0])
    grads = tf.gradients(loss, [v, w])
    with pytest.raises(TypeError, match="Cannot convert a list containing a tensor of dtype"):
        tf.convert_to_tensor([v, tf.constant(1)])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(am) == 1
        assert s.run(m).tolist() == [[1.0, 1.0], [2.0, 2.0]]
        assert s.run(grads) == [3.0, 4.0]


def test_tile_multiples_length_error_names_the_ranks_as_tf():
    # TF: "Shape must be rank 2 but is rank 1 for 'Tile' (op: 'Tile') with input shapes:
    # [2,3], [1]." -- the multiples must have the input's rank (2).
    with pytest.raises(ValueError, match="Shape must be rank 2 but is rank 1"):
        tf.tile(tf.ones([2, 3]), [2])


def _example(words, label):
    return tf.train.Example(features=tf.train.Features(feature={
        "words": tf.train.Feature(int64_list=tf.train.Int64List(value=words)),
        "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[label]))}))


def test_queue_batching_of_var_len_features(tmp_path):
    # the classic pipeline: TFRecordReader -> parse_single_example with a VarLenFeature (a
    # SparseTensor) -> tf.train.batch / shuffle_batch; TF stores each SparseTensor in a
    # SparseTensorsMap and returns a batched SparseTensor (rank + 1).
    path = str(tmp_path / "r.tfrecords")
    rows = [[0], [0, 1], [0, 1, 2], [7]]
    with tf.python_io.TFRecordWriter(path) as w:
        for i, r in enumerate(rows):
            w.write(_example(r, i).SerializeToString())
    q = tf.train.string_input_producer([path], shuffle=False)
    _, ser = tf.TFRecordReader().read(q)
    f = tf.parse_single_example(ser, {"words": tf.VarLenFeature(tf.int64),
                                      "label": tf.FixedLenFeature([], tf.int64)})
    b = tf.train.batch(f, batch_size=3)
    assert isinstance(b["words"], tf.SparseTensor)
    assert b["words"].indices.get_shape().as_list() == [None, 2]
    assert b["words"].dense_shape.get_shape().as_list() == [2]
    dense = tf.sparse_tensor_to_dense(b["words"], default_value=-1)
    many = tf.train.batch([tf.SparseTensor([[0, 0], [1, 1], [2, 0]], [1.0, 2.0, 3.0], [3, 2])],
                          2, enqueue_many=True)
    with tf.Session() as s:
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(s, coord)
        v, d = s.run([b, dense])
        m = s.run(many)
        coord.request_stop()
        coord.join(threads)
    assert v["label"].tolist() == [0, 1, 2]
    assert d.tolist() == [[0, -1, -1], [0, 1, -1], [0, 1, 2]]
    assert m.dense_shape.tolist() == [2, 2] and m.indices.tolist() == [[0, 0], [1, 1]]


def test_eval_and_run_with_a_session_of_another_graph():
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1)
        op = tf.no_op()
    b = tf.constant(2)
    with tf.Session(graph=g) as sg:
        with pytest.raises(ValueError, match="^Cannot use the given session to evaluate tensor: "
                                             "the tensor's graph is different"):
            b.eval(session=sg)
        with pytest.raises(ValueError, match="^Cannot use the given session to execute "
                                             "operation"):
            b.op.run(session=sg)
        with sg.as_default():
            assert a.eval() == 1
            op.run()
            with pytest.raises(ValueError, match="^Cannot use the default session to evaluate"):
                b.eval()


def test_batch_of_differently_shaped_elements_names_the_component():
    # TF 1.15 (sizes differ): "Cannot add tensor to the batch: number of elements does not
    # match. Shapes are: [tensor]: [1], [batch]: [0]" (was an internal numpy error for empty
    # arrays)
    d = tf.data.Dataset.range(3).map(lambda x: (x, tf.fill([x], x))).batch(2)
    nxt = d.make_one_shot_iterator().get_next()
    with tf.Session() as s, pytest.raises(
            tf.errors.InvalidArgumentError,
            match=r"^Cannot add tensor to the batch: number of elements does not match\. "
                  r"Shapes are: \[tensor\]: \[1\], \[batch\]: \[0\]"):
        s.run(nxt)


def test_from_generator_errors_as_tf():
    # as TF's py_func-run generator: "ValueError: gen broke" (the exception's class and
    # message), and TF 1.x's shape check wording
    def broken():
        yield 1
        raise ValueError("gen broke")

    a = tf.data.Dataset.from_generator(broken, tf.int32).make_one_shot_iterator().get_next()
    b = tf.data.Dataset.from_generator(lambda: iter([[1], [1, 2]]), tf.int32,
                                       tf.TensorShape([1])).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert s.run(a) == 1
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"^ValueError: gen broke\n"):
            s.run(a)
        assert s.run(b).tolist() == [1]
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"^ValueError: `generator` yielded an element of shape \(2,\) "
                                 r"where an element of shape \(1,\) was expected\.\n"):
            s.run(b)


def test_from_tensor_slices_of_unequal_lengths():
    with pytest.raises(ValueError, match="^Dimensions 2 and 3 are not compatible$"):
        tf.data.Dataset.from_tensor_slices(([1, 2], [1, 2, 3]))


def test_tf_print_to_a_file(tmp_path):
    # tf.print(..., output_stream="file:///path") appends each print to that file
    path = tmp_path / "out.txt"
    p = tf.print("step", tf.constant([1, 2]), output_stream="file://" + str(path))
    with tf.Session() as s:
        s.run(p)
        s.run(p)
    assert path.read_text() == "step [1 2]\nstep [1 2]\n"
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream="stdout")


def test_sliced_variable_assign():
    # TF 1.x: v[0, 1].assign(20), v[1, :].assign([...]); a plain tensor has no assign, and
    # TF 1.15 gives a slice of one an assign that refuses (TF 2 drops it)
    v = tf.Variable([[1, 2, 3], [4, 5, 6]])
    a1 = v[0, 1].assign(20)
    a2 = v[1, :].assign([7, 8, 9])
    assert not hasattr(tf.constant(1), "assign")
    with pytest.raises(ValueError, match="Sliced assignment is only supported for variables"):
        v.value()[0].assign([0, 0, 0])
    with tf.Session() as s:
        s.run(v.initializer)
        s.run(a1)
        assert s.run(a2).tolist() == [[1, 20, 3], [7, 8, 9]]
        assert s.run(v[1]).tolist() == [7, 8, 9]


def test_session_manager_logs_local_init_as_tf():
    # TF 1.x logs "Running local_init_op." / "Done running local_init_op." around it
    import logging as py_logging

    records = []

    class Keep(py_logging.Handler):
        def emit(self, record):
            records.append(record.getMessage())

    logger = tf.logging.get_logger()
    handler = Keep()
    logger.addHandler(handler)
    old = tf.logging.get_verbosity()
    tf.logging.set_verbosity(tf.logging.INFO)
    try:
        tf.train.get_or_create_global_step()
        with tf.train.MonitoredSession() as s:
            s.run(tf.train.get_global_step())
    finally:
        logger.removeHandler(handler)
        tf.logging.set_verbosity(old)
    i = records.index("Running local_init_op.")
    assert records[i + 1] == "Done running local_init_op."


def test_seeded_dataset_shuffle_gives_tfs_order():
    # orders observed from real TF 1.15: a Philox word modulo the ring buffer's fill picks
    # each element; TF 1.15 fuses a reshuffling shuffle read by a repeat (its default
    # shuffle_and_repeat_fusion), whose one stream of (seed, seed2) runs through both epochs
    # (TF 2.x's fused op reseeds each epoch instead: [1, 4, 3, 2, 5, 6, 9, 8, 0, 7, ...])
    tf.set_random_seed(42)
    d = tf.data.Dataset.range(10).shuffle(5, seed=3).repeat(2)
    fixed = tf.data.Dataset.range(10).shuffle(5, seed=3, reshuffle_each_iteration=False)
    assert _all(d, 20) == [0, 3, 1, 2, 8, 6, 5, 9, 7, 4, 1, 5, 3, 7, 4, 6, 8, 2, 9, 0]
    # without reshuffling the stage's own seeds are used, every pass (a permutation)
    once = _all(fixed.repeat(2), 20)
    assert once[:10] == once[10:] and sorted(once[:10]) == list(range(10))


def test_random_dataset_and_sample_from_datasets_give_tfs_draws():
    # values observed from real TF (compat.v1 graph mode): RandomDataset yields the 32-bit
    # Philox words of (seed, seed2) as int64; sample_from_datasets picks with
    # stateless_multinomial (TF's doubles from the seed's stream) seeded by pairs of them
    r = tf.data.experimental.RandomDataset(seed=4).batch(2)
    assert _all(r, 2) == [[3128586565, 2023892699], [452966358, 4293674553]]
    m = tf.random.stateless_multinomial(tf.constant([[1.0, 1.0, 1.0]]), 5, seed=[1, 2])
    with tf.Session() as s:
        assert s.run(m).tolist() == [[2, 2, 0, 2, 1]]
    pick = tf.data.experimental.sample_from_datasets(
        [tf.data.Dataset.from_tensors(0).repeat(), tf.data.Dataset.from_tensors(1).repeat()],
        seed=4)
    assert _all(pick, 12) == [0, 1, 0, 0, 1, 1, 1, 0, 1, 1, 0, 0]


def test_resource_variables_run_as_reference_variables():
    tf.enable_resource_variables()
    try:
        assert tf.resource_variables_enabled()
        v = tf.get_variable("rv", [2], initializer=tf.constant_initializer([1.0, 2.0]),
                            use_resource=True)
        train = tf.train.GradientDescentOptimizer(0.5).minimize(tf.reduce_sum(v * v))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train)
            np.testing.assert_allclose(s.run(v), [0.0, 0.0])
    finally:
        tf.disable_resource_variables()
    assert not tf.resource_variables_enabled()


def test_python_client_device_lib_and_timeline_modules():
    from tideflow.python.client import device_lib, timeline

    devices = device_lib.list_local_devices()
    names = [d.name for d in devices]
    assert "/device:CPU:0" in names
    assert all(d.incarnation and d.device_type in ("CPU", "XLA_CPU", "GPU") for d in devices)
    gpus = [d.name for d in devices if d.device_type == "GPU"]
    assert len(gpus) == len(tf.config.list_physical_devices("GPU"))
    x = tf.constant(2.0) * 3.0
    meta = tf.RunMetadata()
    with tf.Session() as s:
        s.run(x, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE), run_metadata=meta)
    assert '"traceEvents"' in timeline.Timeline(meta.step_stats).generate_chrome_trace_format()
