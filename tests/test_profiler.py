"""tf.profiler: FLOPs by TF's per-op rules, parameter counts, execution times from a trace."""

import numpy as np

import tideflow as tf


def _model():
    x = tf.placeholder(tf.float32, [8, 6, 6, 2], name="x")
    w = tf.Variable(np.ones((3, 3, 2, 4), np.float32), name="w")
    c = tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME", name="conv")
    b = tf.nn.bias_add(c, tf.Variable(np.zeros(4, np.float32), name="b"), name="bias")
    p = tf.nn.max_pool(b, [1, 2, 2, 1], [1, 2, 2, 1], "VALID", name="pool")
    f = tf.reshape(p, [8, 36])
    v = tf.Variable(np.ones((36, 5), np.float32), name="v", trainable=False)
    m = tf.matmul(f, v, name="mm")
    loss = tf.reduce_mean(tf.squared_difference(m, 1.0), name="loss")
    return x, loss


def test_float_operations_follow_tf_rules():
    with tf.Graph().as_default() as g:
        _model()
        opts = tf.profiler.ProfileOptionBuilder.float_operation()
        opts["output"] = "none"
        root = tf.profiler.profile(g, cmd="op", options=opts)
    by_type = {}
    node = root
    while node.children:  # TF 1.15's op view: a chain, each type the parent of the next
        (node,) = node.children
        by_type[node.name] = node.float_ops
    assert by_type["Conv2D"] == 8 * 6 * 6 * 4 * (3 * 3 * 2) * 2
    assert by_type["BiasAdd"] == 8 * 6 * 6 * 4
    assert by_type["MaxPool"] == 8 * 3 * 3 * 4 * 4
    assert by_type["MatMul"] == 2 * 36 * 8 * 5
    assert by_type["SquaredDifference"] == 2 * 40
    assert by_type["Mean"] == 40 + 1 * 0  # input elements + output * (1 - 1)
    assert root.total_float_ops == sum(by_type.values())


def test_unknown_shapes_count_zero_and_parameters_count_trainable_only(capsys):
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3])
        tf.matmul(x, tf.Variable(tf.ones([3, 2]), name="k"))
        root = tf.profiler.profile(g, options=tf.profiler.ProfileOptionBuilder.float_operation())
        assert root.total_float_ops == 0
    with tf.Graph().as_default() as g:
        _model()
        params = tf.profiler.profile(
            g, options=tf.profiler.ProfileOptionBuilder.trainable_variables_parameter())
    assert params.total_parameters == 3 * 3 * 2 * 4 + 4  # "v" is not trainable
    out = capsys.readouterr().out
    assert "_TFProfRoot" in out and "params" in out


def test_exec_micros_from_a_traced_step(tmp_path):
    with tf.Graph().as_default() as g:
        x, loss = _model()
        meta = tf.RunMetadata()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(loss, {x: np.ones((8, 6, 6, 2), np.float32)},
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
        prof = tf.profiler.Profiler(g)
        prof.add_step(0, meta)
        opts = (tf.profiler.ProfileOptionBuilder(
            tf.profiler.ProfileOptionBuilder.time_and_memory())
            .with_file_output(str(tmp_path / "report.txt")).build())
        root = prof.profile_operations(opts)
        assert root.total_run_count > 0
        assert (tmp_path / "report.txt").read_text().startswith("\nDoc:\nop: The nodes are")
        tf.profiler.write_op_log(g, str(tmp_path / "log"))
        from tideflow.core.profiler import tfprof_log_pb2

        log = tfprof_log_pb2.OpLogProto.FromString((tmp_path / "log" / "tfprof_log").read_bytes())
        entries = {e.name: e for e in log.log_entries}
        assert entries["conv"].float_ops > 0
