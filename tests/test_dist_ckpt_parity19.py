"""Distributed training, checkpoints and summaries as TF 1.x programs use them, against TF 1.15's
own answers (the same programs run under real TF 1.15; its printed results are the literals)."""

import tideflow as tf


def _graph():
    return tf.Graph().as_default()


def test_partitioned_embedding_lookup_of_constant_ids_knows_its_rows():
    # TF 1.15's shape inference evaluates the constant Range -> DynamicPartition subgraph, so
    # the stitched lookup is (3, 3) and its Reshape gradient reads a Const shape
    with _graph():
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            emb = tf.get_variable("emb", [6, 3])
        x = tf.nn.embedding_lookup(emb, [0, 3, 5])
        g = tf.get_default_graph()
        assert g.get_tensor_by_name("embedding_lookup:0").get_shape().as_list() == [3, 3]
        assert x.get_shape().as_list() == [3, 3]
        assert g.get_tensor_by_name("embedding_lookup/DynamicPartition:0").get_shape(
        ).as_list() == [None]
        tf.gradients(tf.reduce_sum(x), list(emb))
        assert g.get_operation_by_name("gradients/embedding_lookup/Reshape_1_grad/Shape"
                                       ).type == "Const"
        ids = tf.placeholder(tf.int32, [None])
        assert tf.nn.embedding_lookup(emb, ids).get_shape().as_list() == [None, 3]


def test_saver_reads_partitioned_slices_through_their_read_ops():
    # TF 1.15 saves a ref variable's slices through the Variable (its "<part>/read" value),
    # a whole variable through its ref tensor
    with _graph():
        with tf.variable_scope("m", partitioner=tf.fixed_size_partitioner(2)):
            tf.get_variable("emb", [6, 3])
        tf.get_variable("w", [3, 1])
        tf.train.Saver()
        save = tf.get_default_graph().get_operation_by_name("save/SaveV2")
        assert [t.name for t in save.inputs][3:] == ["m/emb/part_0/read:0",
                                                     "m/emb/part_1/read:0", "w:0"]


def _op_error_of(fn):
    try:
        fn()
    except tf.errors.OpError as e:
        return e
    raise AssertionError("no error")


def _op_error(fetch, config=None):
    return _op_error_of(lambda: tf.Session(config=config).run(fetch))


def test_soft_placement_drops_only_the_device_type_and_index():
    # TF 1.15: allow_soft_placement relaxes "/device:CPU:3" or a GPU, never a job, replica or
    # task the session lacks; the error names the add, not the Const it reads
    soft = tf.ConfigProto(allow_soft_placement=True)
    for dev in ("/job:foo", "/job:localhost/task:2", "/job:localhost/replica:1",
                "/job:foo/device:CPU:0"):
        with _graph():
            with tf.device(dev):
                z = tf.add(tf.constant(1.0), 1, name="zz")
            e = _op_error(z, soft)
            assert type(e) is tf.errors.InvalidArgumentError
            assert str(e).startswith("Cannot assign a device for operation zz: node zz ")
            assert f"was explicitly assigned to {dev} but available devices are" in str(e)
            assert str(e).endswith("refers to a valid device.\n\t [[zz]]")
    for dev in ("/device:CPU:3", "/job:localhost/device:GPU:0"):
        with _graph():
            with tf.device(dev):
                z = tf.add(tf.constant(1.0), 1, name="zz")
            assert tf.Session(config=soft).run(z) == 2.0


def test_an_uninitialized_ref_fails_in_the_op_that_reads_it():
    # TF 1.15's executor fails the reader ("v/read", an AssignAdd); a ref fetched as it is
    # fails in its _retval, an error without an op
    with _graph():
        v = tf.Variable(1.0, name="v")
        for fetch, name in ((v * 2, "v/read"), (v.read_value(), "read"),
                            (tf.assign_add(v, 1.0), "AssignAdd"), ([v * 3, v + 1], "v/read")):
            e = _op_error(fetch)
            assert type(e) is tf.errors.FailedPreconditionError
            assert e.op.name == name and e.node_def.name == name
            assert str(e).startswith(f"Attempting to use uninitialized value v\n\t [[node {name} ")
        e = _op_error(v)
        assert e.op is None and str(e).startswith("Attempting to use uninitialized value v")


def test_init_from_checkpoint_restores_on_the_variables_task_cpu(tmp_path):
    # TF 1.15: RestoreV2 under device(var.device) then device("/cpu:0"); the initializer is
    # the saveable's restore: the Assign's output tensor for a ref variable, the
    # AssignVariableOp (an Operation) for a resource one
    with _graph():
        tf.get_variable("w", [2])
        tf.get_variable("e", [4, 2], partitioner=tf.fixed_size_partitioner(2))
        tf.get_variable("r", [2], use_resource=True)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            tf.train.Saver().save(s, str(tmp_path / "m"))
    with _graph():
        with tf.device(tf.train.replica_device_setter(ps_tasks=2)):
            w = tf.get_variable("w", [2])
            e = tf.get_variable("e", [4, 2], partitioner=tf.fixed_size_partitioner(2))
            tf.train.init_from_checkpoint(str(tmp_path), {"w": "w", "e": "e"})
        g = tf.get_default_graph()
        assert [(op.name, op.device) for op in g.get_operations() if op.type == "RestoreV2"] == [
            ("checkpoint_initializer", "/job:ps/task:1/device:CPU:0"),
            ("checkpoint_initializer_1", "/job:ps/task:0/device:CPU:0"),
            ("checkpoint_initializer_2", "/job:ps/task:0/device:CPU:0")]
        assert isinstance(w.initializer, tf.Tensor) and w.initializer.name == "Assign_2:0"
        assert [v.initializer.name for v in e] == ["Assign:0", "Assign_1:0"]
        assert w.initial_value.device == "/job:ps/task:0/device:CPU:0"
        assert w.to_proto().initializer_name == "Assign_2:0"
    with _graph():
        r = tf.get_variable("r", [2], use_resource=True)
        tf.train.init_from_checkpoint(str(tmp_path), {"r": "r"})
        assert isinstance(r.initializer, tf.Operation)
        assert r.initializer.name == "AssignVariableOp"


def test_a_grpc_session_runs_nodes_named_like_an_earlier_name_scope():
    # TF 1.15's master extends its graph by name: a PartitionedVariable's as_tensor() made
    # after the first run is the Identity "emb/t" beside "emb/t/part_0", and runs
    srv = tf.train.Server.create_local_server()
    with _graph():
        with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(2)):
            table = tf.get_variable("t", [4, 2], initializer=tf.ones_initializer())
        with tf.Session(srv.target) as s:
            s.run(tf.global_variables_initializer())
            x = table.as_tensor()
            assert x.name == "emb/t:0"
            assert s.run(x).tolist() == [[1.0, 1.0]] * 4


def test_restoring_more_than_the_saved_slices_is_invalid_argument(tmp_path):
    # TF 1.15 (reader and RestoreV2): "Does not have sufficient slices ..." naming the
    # requested slice spec, "-:-" for a whole read; the Saver's reason is a mismatch
    path = str(tmp_path / "b")
    with _graph():
        with tf.variable_scope("q", partitioner=tf.fixed_size_partitioner(2, axis=0)):
            q = tf.get_variable("t", [4, 6])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            tf.train.Saver([list(q)[1]]).save(s, path)
    e = _op_error_of(lambda: tf.train.NewCheckpointReader(path).get_tensor("q/t"))
    assert type(e) is tf.errors.InvalidArgumentError and str(e) == (
        "Does not have sufficient slices for partitioned tensor q/t to restore in slice_spec: -:-")
    with _graph():
        with tf.variable_scope("q", partitioner=tf.fixed_size_partitioner(2, axis=0)):
            q2 = tf.get_variable("t", [4, 6])
        with tf.Session() as s:
            tf.train.Saver([list(q2)[1]]).restore(s, path)
            e = _op_error_of(lambda: tf.train.Saver([next(iter(q2))]).restore(s, path))
        assert type(e) is tf.errors.InvalidArgumentError and e.op.name == "save_1/RestoreV2"
        assert "due to a mismatch between the current graph and the graph" in str(e)
        assert ("Original error:\n\nDoes not have sufficient slices for partitioned tensor q/t to "
                "restore in slice_spec: 0,2:0,6\n") in str(e)
