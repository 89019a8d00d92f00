"""Partitioned variables: get_variable with a partitioner, the partitioners, PartitionedVariable
(conversion, reuse, assign), embedding lookups and optimizers over the parts."""

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops.partitioned_variables import (
    PartitionedVariable,
    create_partitioned_variables,
    fixed_size_partitioner,
    min_max_variable_partitioner,
    variable_axis_size_partitioner,
)
from tideflow.train.device_setter import replica_device_setter

FULL = np.arange(30, dtype=np.float32).reshape(10, 3)


@pytest.fixture(autouse=True)
def fresh_graph():
    with tf.Graph().as_default() as g:
        yield g


def _pv(name="w", shards=3, initializer=None, **kwargs):
    return tf.get_variable(name, initializer=tf.constant(FULL) if initializer is None
                           else initializer, partitioner=fixed_size_partitioner(shards),
                           **kwargs)


def test_parts_names_and_slice_info():
    with tf.variable_scope("s"):
        pv = _pv()
    assert isinstance(pv, PartitionedVariable)
    assert pv.name == "s/w" and pv.dtype == tf.float32
    assert pv.get_shape().as_list() == [10, 3] and pv.shape.as_list() == [10, 3]
    parts = list(pv)
    assert [v.name for v in parts] == ["s/w/part_0:0", "s/w/part_1:0", "s/w/part_2:0"]
    assert parts == pv._get_variable_list() and len(pv) == 3
    assert pv._get_partitions() == [3, 1]
    infos = [v._get_save_slice_info() for v in parts]
    assert [i.full_name for i in infos] == ["s/w"] * 3
    assert [i.full_shape for i in infos] == [[10, 3]] * 3
    assert [i.var_offset for i in infos] == [[0, 0], [4, 0], [7, 0]]
    assert [i.var_shape for i in infos] == [[4, 3], [3, 3], [3, 3]]
    assert infos[1].spec == "10 3 4,3:0,3"
    assert isinstance(infos[0], tf.Variable.SaveSliceInfo)
    # the parts are what the collections hold
    assert tf.trainable_variables() == parts and tf.global_variables() == parts


def test_value_concatenates_parts():
    pv = _pv()
    t = tf.convert_to_tensor(pv)
    assert t.name == "w:0" and t.get_shape().as_list() == [10, 3]
    doubled = tf.multiply(pv, 2.0)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(pv.as_tensor()), FULL)
        np.testing.assert_array_equal(s.run(t), FULL)
        np.testing.assert_array_equal(s.run(doubled), FULL * 2)
        np.testing.assert_array_equal(s.run(list(pv))[1], FULL[4:7])
    with pytest.raises(ValueError, match="Incompatible type conversion"):
        tf.convert_to_tensor(pv, dtype=tf.int32)


def test_single_part_and_scalar():
    pv = _pv("one", shards=1)
    assert len(list(pv)) == 1 and pv.as_tensor().name == "one:0"
    # a scalar is never partitioned
    s = tf.get_variable("s", [], partitioner=fixed_size_partitioner(3))
    assert isinstance(s, tf.Variable)
    # more shards than rows: one row per part
    few = tf.get_variable("few", [2, 4], partitioner=fixed_size_partitioner(5))
    assert [v.get_shape().as_list() for v in few] == [[1, 4], [1, 4]]


def test_axis_one_partitioning():
    pv = tf.get_variable("cols", initializer=tf.constant(FULL),
                         partitioner=fixed_size_partitioner(2, axis=1))
    assert [v.get_shape().as_list() for v in pv] == [[10, 2], [10, 1]]
    assert pv._get_partitions() == [1, 2]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(pv.as_tensor()), FULL)


def test_initializer_sees_partition_info():
    seen = []

    def init(shape, dtype=None, partition_info=None):
        seen.append((list(shape), partition_info.full_shape, partition_info.var_offset,
                     partition_info.single_offset(shape)))
        return tf.zeros(shape, dtype)

    tf.get_variable("w", [7, 2], initializer=init, partitioner=fixed_size_partitioner(2))
    assert seen == [([4, 2], [7, 2], [0, 0], 0), ([3, 2], [7, 2], [4, 0], 4)]
    # glorot scales by the full shape: the parts' values come from one distribution
    g = tf.get_variable("g", [1000, 10], partitioner=fixed_size_partitioner(4))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        vals = s.run(g.as_tensor())
    limit = np.sqrt(6.0 / (1000 + 10))
    assert np.abs(vals).max() <= limit and np.abs(vals).max() > 0.9 * limit


def test_reuse():
    with tf.variable_scope("s"):
        pv = _pv()
    with tf.variable_scope("s", reuse=True):
        assert tf.get_variable("w") is pv
        assert tf.get_variable("w", [10, 3], partitioner=fixed_size_partitioner(3)) is pv
        with pytest.raises(ValueError, match="specified partitions \\[2, 1\\]"):
            tf.get_variable("w", [10, 3], partitioner=fixed_size_partitioner(2))
        with pytest.raises(ValueError, match="specified shape"):
            tf.get_variable("w", [11, 3], partitioner=fixed_size_partitioner(3))
        with pytest.raises(ValueError, match="PartitionedVariable s/nope does not exist"):
            tf.get_variable("nope", [4, 2], partitioner=fixed_size_partitioner(2))
    with tf.variable_scope("s"), pytest.raises(ValueError, match="already exists"):
        _pv()
    with tf.variable_scope("s", reuse=tf.AUTO_REUSE):
        assert _pv() is pv
    tf.get_variable("plain", [4, 2])
    with pytest.raises(ValueError, match="unpartitioned version of the variable was found"):
        tf.get_variable("plain", [4, 2], partitioner=fixed_size_partitioner(2))
    with pytest.raises(ValueError, match="a partitioned version of the variable was found"):
        tf.get_variable("s/w", [10, 3])


def test_partitioner_errors():
    with pytest.raises(ValueError, match="Partitioner must be callable"):
        tf.get_variable("a", [4], partitioner=3)
    with pytest.raises(ValueError, match="does not match the Variable's rank"):
        tf.get_variable("b", [4, 2], partitioner=lambda shape, dtype: [2])
    with pytest.raises(ValueError, match="zero partitions"):
        tf.get_variable("c", [4, 2], partitioner=lambda shape, dtype: [0, 1])
    with pytest.raises(ValueError, match="only slice a variable along one dimension"):
        tf.get_variable("d", [4, 2], partitioner=lambda shape, dtype: [2, 2])
    with pytest.raises(ValueError, match="must be fully defined"):
        tf.get_variable("e", [None, 2], partitioner=fixed_size_partitioner(2))


def test_variable_scope_partitioner():
    with tf.variable_scope("emb", partitioner=fixed_size_partitioner(2)):
        pv = tf.get_variable("table", [6, 4])
        bias = tf.get_variable("bias", [])
    assert isinstance(pv, PartitionedVariable)
    assert [v.op.name for v in pv] == ["emb/table/part_0", "emb/table/part_1"]
    assert isinstance(bias, tf.Variable)


def test_min_max_variable_partitioner():
    shape = tf.TensorShape([1024, 256])  # 1 MiB of float32
    p = min_max_variable_partitioner(max_partitions=100)
    assert p(shape, tf.float32) == [4, 1]  # at least 256 KiB per slice
    assert min_max_variable_partitioner(max_partitions=2)(shape, tf.float32) == [2, 1]
    assert min_max_variable_partitioner()(shape, tf.float32) == [1, 1]
    assert min_max_variable_partitioner(100, min_slice_size=1)(
        tf.TensorShape([3, 8]), tf.float32) == [3, 1]
    assert min_max_variable_partitioner(100, axis=1, min_slice_size=64)(
        tf.TensorShape([4, 16]), tf.float64) == [1, 8]
    # strings count bytes_per_string_element each
    assert min_max_variable_partitioner(100, min_slice_size=160)(
        tf.TensorShape([100]), tf.string) == [10]
    with pytest.raises(ValueError, match="Cannot partition variable along axis 2"):
        min_max_variable_partitioner(axis=2)(shape, tf.float32)


def test_variable_axis_size_partitioner():
    shape = tf.TensorShape([100, 10])  # 40 bytes per row
    assert variable_axis_size_partitioner(400)(shape, tf.float32) == [10, 1]
    assert variable_axis_size_partitioner(401)(shape, tf.float32) == [10, 1]
    assert variable_axis_size_partitioner(399)(shape, tf.float32) == [12, 1]
    assert variable_axis_size_partitioner(400, max_shards=3)(shape, tf.float32) == [3, 1]
    assert variable_axis_size_partitioner(1)(shape, tf.float32) == [100, 1]
    # along axis 1 a slice is a column of 100 floats
    assert variable_axis_size_partitioner(1200, axis=1)(shape, tf.float32) == [1, 4]
    assert variable_axis_size_partitioner(32)(tf.TensorShape([8]), tf.string) == [4]
    with pytest.raises(ValueError, match="must be positive"):
        variable_axis_size_partitioner(0)
    with pytest.raises(ValueError, match="max_shards must be positive"):
        variable_axis_size_partitioner(10, max_shards=-1)
    with pytest.raises(ValueError, match="not fully defined"):
        variable_axis_size_partitioner(10)(tf.TensorShape([None, 2]), tf.float32)
    pv = tf.get_variable("v", [100, 10], partitioner=variable_axis_size_partitioner(1600))
    assert len(list(pv)) == 3


def test_create_partitioned_variables():
    parts = create_partitioned_variables([10, 3], [3, 1], tf.constant_initializer(1.0),
                                         name="legacy")
    assert [v.op.name for v in parts] == [f"legacy/part_{i}" for i in range(3)]
    assert [v.get_shape().as_list() for v in parts] == [[4, 3], [3, 3], [3, 3]]
    with pytest.raises(ValueError, match="must have the length"):
        create_partitioned_variables([10, 3], [3], tf.zeros_initializer())


@pytest.mark.parametrize("strategy", ["div", "mod"])
def test_embedding_lookup(strategy):
    pv = _pv(shards=3)
    ids = np.array([[0, 9], [4, 3], [7, 7]])
    looked = tf.nn.embedding_lookup(pv, ids, partition_strategy=strategy)
    assert looked.get_shape().as_list() == [3, 2, 3]
    parts = [FULL[:4], FULL[4:7], FULL[7:]]
    if strategy == "div":
        want = FULL[ids]  # the parts are contiguous row blocks: 'div' sees the full table
    else:
        want = np.stack([[parts[i % 3][i // 3] for i in row] for row in ids])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        np.testing.assert_array_equal(s.run(looked), want)


def test_optimizer_updates_each_part():
    pv = _pv(shards=3)
    ids = tf.constant([0, 5, 9])
    loss = tf.reduce_sum(tf.nn.embedding_lookup(pv, ids, partition_strategy="div"))
    opt = tf.train.GradientDescentOptimizer(1.0)
    gv = opt.compute_gradients(loss, var_list=[pv])
    assert [v for _, v in gv] == list(pv)
    assert [v for _, v in opt.compute_gradients(loss, var_list=pv)] == list(pv)
    train = opt.apply_gradients(gv)
    dense_loss = tf.reduce_sum(pv.as_tensor() * 2.0)
    dense_train = tf.train.GradientDescentOptimizer(0.5).minimize(dense_loss)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        want = FULL.copy()
        want[[0, 5, 9]] -= 1.0
        np.testing.assert_array_equal(s.run(pv.as_tensor()), want)
        s.run(dense_train)  # gradients through the concat reach every part
        np.testing.assert_array_equal(s.run(pv.as_tensor()), want - 1.0)


def test_assign_splits_the_value():
    pv = _pv(shards=3)
    new = np.full([10, 3], 7.0, np.float32)
    ops_ = pv.assign(new)
    adds = pv.assign_add(tf.ones([10, 3]))
    assert len(ops_) == 3
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(ops_)
        s.run(adds)
        np.testing.assert_array_equal(s.run(pv.as_tensor()), new + 1)


def test_regularizer_per_part():
    tf.get_variable("r", [6, 2], regularizer=lambda v: tf.reduce_sum(v),
                    partitioner=fixed_size_partitioner(3))
    losses = tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES)
    assert len(losses) == 3


def test_parts_spread_over_parameter_servers():
    with tf.device(replica_device_setter(ps_tasks=2)):
        pv = tf.get_variable("emb", [9, 4], partitioner=fixed_size_partitioner(3))
        looked = tf.nn.embedding_lookup(pv, tf.constant([1, 8]))
    assert [v.device for v in pv] == ["/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0"]
    gathers = [op for op in tf.get_default_graph().get_operations() if op.type == "GatherV2"]
    assert sorted(op.device for op in gathers) == sorted(v.device for v in pv)
    assert looked.device == "/job:worker"


def test_variable_def_keeps_slice_info():
    pv = _pv(shards=2)
    part = list(pv)[1]
    vd = part.to_proto()
    assert vd.save_slice_info_def.full_name == "w"
    assert list(vd.save_slice_info_def.var_offset) == [5, 0]
    back = tf.Variable.from_proto(vd)
    info = back._get_save_slice_info()
    assert (info.full_name, info.full_shape, info.var_offset, info.var_shape) == (
        "w", [10, 3], [5, 0], [5, 3])
    scoped = tf.Variable.from_proto(vd, import_scope=None)
    assert scoped._get_save_slice_info().spec == "10 3 5,5:0,3"
