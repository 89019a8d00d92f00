"""TF 1.x top-level framework names: versions, the eager/v2 switches, static values,
custom_gradient, py_function, ensure_shape, switch_case, unconnected gradients, and the
tf.debugging / tf.dtypes / tf.config / tf.sysconfig / tf.resource_loader / tf.compat helpers."""

import logging
import os

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def test_versions_look_like_tf1():
    assert tf.__version__ == tf.VERSION == tf.version.VERSION
    assert tf.VERSION.startswith("1.")
    assert tf.GRAPH_DEF_VERSION == tf.version.GRAPH_DEF_VERSION
    assert tf.GRAPH_DEF_VERSION >= tf.GRAPH_DEF_VERSION_MIN_CONSUMER
    # graphs we write carry the producer version we announce
    assert tf.get_default_graph().as_graph_def().versions.producer == tf.GRAPH_DEF_VERSION
    assert isinstance(tf.GIT_VERSION, str) and isinstance(tf.COMPILER_VERSION, str)


def test_mode_switches():
    assert tf.executing_eagerly() is False
    for f in (tf.disable_eager_execution, tf.disable_v2_behavior, tf.disable_resource_variables,
              tf.disable_control_flow_v2, tf.disable_v2_tensorshape,
              tf.disable_tensor_equality):
        assert f() is None
    assert tf.resource_variables_enabled() is False
    assert tf.control_flow_v2_enabled() is False
    with pytest.raises(ValueError, match="graph mode only"):
        tf.enable_eager_execution()
    with pytest.raises(ValueError, match="graph mode only"):
        tf.enable_v2_behavior()
    assert tf.get_logger() is logging.getLogger("tensorflow")


def test_is_tensor_and_static_values():
    x = tf.placeholder(tf.float32, [None, 3])
    sp = tf.SparseTensor([[0]], [1.0], [2])
    assert tf.is_tensor(x) and tf.is_tensor(sp) and tf.is_tensor(tf.Variable(1.0))
    assert not tf.is_tensor(np.zeros(2)) and not tf.is_tensor(1.0)
    np.testing.assert_array_equal(tf.get_static_value(tf.constant([1, 2])), [1, 2])
    assert tf.get_static_value(tf.shape(x)) is None
    assert tf.get_static_value(x) is None
    z = tf.zeros([2, 3])
    # TF 1.15's constant_value does not fold arithmetic (measured: None, None)
    assert tf.get_static_value(tf.shape(z) * 2 + 1) is None
    v = tf.get_static_value(tf.concat([tf.shape(z), [4]], 0))
    np.testing.assert_array_equal(v, [2, 3, 4])
    assert v.dtype == np.int32
    assert tf.get_static_value(tf.reduce_prod(tf.shape(z))) is None
    a = tf.constant(3) * 2
    assert tf.get_static_value(a) is None
    with tf.Session() as s:
        assert s.run(a, {a: 7}) == 7  # so it stays feedable (TF 1.15: 7)
    assert tf.get_static_value(tf.shape(x)[1] + 1) is None  # TF 1.15: no constant
    assert tf.get_static_value(3) == 3


def test_dimension_helpers_and_conversions():
    x = tf.placeholder(tf.float32, [None, 3])
    assert tf.dimension_value(x.shape[0]) is None
    assert tf.dimension_value(x.shape[1]) == 3 == tf.compat.dimension_value(3)
    assert tf.dimension_at_index(x.shape, 1).value == 3
    assert tf.compat.dimension_at_index(tf.TensorShape(None), 1).value is None
    sl = tf.IndexedSlices(tf.constant([[1.0]]), tf.constant([0]), tf.constant([2, 1]))
    assert tf.convert_to_tensor_or_indexed_slices(sl) is sl
    assert isinstance(tf.convert_to_tensor_or_indexed_slices([1.0]), tf.Tensor)
    spv = tf.SparseTensorValue([[0]], [1.0], [2])
    assert isinstance(tf.convert_to_tensor_or_sparse_tensor(spv), tf.SparseTensor)
    with pytest.raises(ValueError):
        tf.convert_to_tensor_or_indexed_slices(sl, dtype=tf.int32)


def test_custom_gradient_matches_finite_differences():
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    x0 = np.array([-2.0, 0.0, 1.5, 30.0])
    x = tf.placeholder(tf.float64, [4])
    y = log1pexp(x)
    w = np.array([0.5, -1.0, 2.0, 1.0])
    (g,) = tf.gradients(tf.reduce_sum(y * w), x)
    with tf.Session() as sess:
        yv, gv = sess.run([y, g], {x: x0})
        eps = 1e-6
        fd = [(sess.run(tf.reduce_sum(y * w), {x: x0 + eps * e}) -
               sess.run(tf.reduce_sum(y * w), {x: x0 - eps * e})) / (2 * eps)
              for e in np.eye(4)]
    np.testing.assert_allclose(yv, np.log1p(np.exp(x0)))
    np.testing.assert_allclose(gv, fd, rtol=1e-6)


def test_custom_gradient_overrides_forward_ops_and_takes_variables():
    @tf.custom_gradient
    def clip_grad(a, b):
        def grad(dy):
            return [tf.clip_by_value(dy, -0.1, 0.1), 7.0 * tf.ones_like(b)]

        return a * b, grad

    a = tf.constant([1.0, 2.0])
    b = tf.constant([3.0, 4.0])
    ga, gb = tf.gradients(clip_grad(a, b) * 5.0, [a, b])

    @tf.custom_gradient
    def scale(x):
        v = tf.get_variable("v", initializer=2.0, use_resource=True)  # TF 1.15 requires it

        def grad(dy, variables=None):
            assert [vv.name for vv in variables] == ["v:0"]
            return dy * v, [tf.reduce_sum(dy * x) * 10.0]

        return x * v, grad

    x = tf.constant([1.0, 3.0])
    y = scale(x)
    gx, gv = tf.gradients(y, [x, tf.trainable_variables()[0]])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run(ga), [0.1, 0.1])
        np.testing.assert_allclose(sess.run(gb), [7.0, 7.0])
        np.testing.assert_allclose(sess.run(gx), [2.0, 2.0])
        np.testing.assert_allclose(sess.run(gv), 40.0)

    @tf.custom_gradient
    def bad(x):
        tf.get_variable("w", initializer=1.0)
        return x, lambda dy: dy

    with pytest.raises(TypeError, match="variables"):
        bad(tf.constant(1.0))


def test_unconnected_gradients():
    v = tf.constant(1.0)
    u = tf.constant([2.0, 3.0])
    y = v * 3.0
    assert tf.gradients(y, [u])[0] is None
    (gz,) = tf.gradients(y, [u], unconnected_gradients=tf.UnconnectedGradients.ZERO)
    (gs,) = tf.gradients(y, [u], unconnected_gradients="zero")
    with pytest.raises(ValueError, match="unconnected_gradients"):
        tf.gradients(y, [u], unconnected_gradients="bogus")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(gz), [0.0, 0.0])
        np.testing.assert_array_equal(sess.run(gs), [0.0, 0.0])
    assert tf.AggregationMethod.DEFAULT == tf.AggregationMethod.ADD_N


def test_no_gradient():
    tf.no_gradient("TideflowTestNoGradOp")
    from tideflow.framework import op_registry

    assert op_registry.gradient_function("TideflowTestNoGradOp") is None


def test_py_function_passes_numpy_capable_values():
    x = tf.constant([1.0, 2.0])
    y = tf.py_function(lambda a: a.numpy() * 2, [x], tf.float32)
    outs = tf.py_function(lambda a, b: (a + 1, b.numpy().sum()), [x, tf.constant(3)],
                          [tf.float32, tf.int32])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), [2.0, 4.0])
        a, b = sess.run(outs)
        np.testing.assert_array_equal(a, [2.0, 3.0])
        assert b == 3


def test_ensure_shape_and_timestamp():
    x = tf.placeholder(tf.float32, [None, 2])
    y = tf.ensure_shape(x, [3, None])
    assert y.shape.as_list() == [3, 2]
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):  # TF 1.15's
        tf.ensure_shape(x, [3])
    t0 = tf.timestamp()
    assert t0.dtype == tf.float64 and t0.shape.ndims == 0
    with tf.Session() as sess:
        assert sess.run(y, {x: np.ones([3, 2])}).shape == (3, 2)
        with pytest.raises(tf.errors.InvalidArgumentError, match=r"\[4,2\] is not compatible"):
            sess.run(y, {x: np.ones([4, 2])})
        a = sess.run(t0)
        b = sess.run(t0)
    assert b >= a > 1.5e9


def test_switch_case():
    i = tf.placeholder(tf.int32, [])
    calls = []

    def branch(v):
        def fn():
            calls.append(v)
            return tf.constant(v)
        return fn

    r = tf.switch_case(i, [branch(10), branch(20), branch(30)])
    d = tf.switch_case(i, {1: branch(1), 0: branch(0)}, default=branch(-1))
    with tf.Session() as sess:
        assert [sess.run(r, {i: k}) for k in (0, 1, 2, 5, -1)] == [10, 20, 30, 30, 30]
        assert [sess.run(d, {i: k}) for k in (1, 0, 4, -1)] == [1, 0, -1, -1]
    with pytest.raises(TypeError, match="branch_index must an integer Tensor"):
        tf.switch_case(tf.constant(1.0), [branch(1)])
    with pytest.raises(ValueError, match="must form contiguous range of"):  # as TF
        tf.switch_case(i, {1: branch(1), 4: branch(4)})
    with pytest.raises(ValueError):
        tf.switch_case(i, [])


def test_debugging_namespace():
    x = tf.zeros([2, 3])
    y = tf.zeros([3])
    assert tf.debugging.assert_equal is tf.assert_equal
    tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("Q",))])
    with pytest.raises(ValueError, match="must have size 2"):
        tf.debugging.assert_shapes([(x, ("N", "Q")), (y, ("N",))])
    with pytest.raises(ValueError, match="dimension 1 must have size 4"):
        tf.debugging.assert_shapes([(x, (2, 4))])
    tf.debugging.assert_shapes({x: ("*", 3)})
    with pytest.raises(ValueError, match="rank in"):
        tf.debugging.assert_rank_in(x, (0, 1))
    tf.assert_rank_in(x, (1, 2))
    p = tf.placeholder(tf.float32, [None, 4])
    chk = tf.debugging.assert_shapes([(p, ("N", 4)), (x, ("N", 3))])
    rk = tf.debugging.assert_rank_in(tf.placeholder_with_default(p, None), (1, 3))
    q = tf.placeholder(tf.float32)
    fin = tf.debugging.assert_all_finite(q, "bad values")
    with tf.Session() as sess:
        sess.run(chk, {p: np.ones([2, 4])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="must have size"):
            sess.run(chk, {p: np.ones([1, 4])})
        with pytest.raises(tf.errors.InvalidArgumentError, match="rank in"):
            sess.run(rk, {p: np.ones([1, 4])})
        assert sess.run(fin, {q: 1.0}) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad values"):
            sess.run(fin, {q: np.nan})
    tf.debugging.set_log_device_placement(True)
    assert tf.debugging.get_log_device_placement() is True
    tf.debugging.set_log_device_placement(False)


def test_dtypes_queue_manip_namespaces():
    assert tf.dtypes.float32 is tf.float32 and tf.dtypes.as_dtype("int64") is tf.int64
    assert tf.dtypes.cast is tf.cast and tf.dtypes.DType is tf.DType
    assert tf.qint8 in tf.dtypes.QUANTIZED_DTYPES and tf.float32 not in tf.QUANTIZED_DTYPES
    assert tf.queue.FIFOQueue is tf.FIFOQueue
    assert tf.manip.reshape is tf.reshape


def test_config_sysconfig_resource_loader_compat(tmp_path):
    cpus = tf.config.list_physical_devices("CPU")
    assert cpus and cpus[0].device_type == "CPU"
    assert tf.config.experimental.list_physical_devices() == tf.config.list_physical_devices()
    assert tf.config.list_logical_devices("CPU")[0].name == (
        "/job:localhost/replica:0/task:0/device:CPU:0")  # TF 1.15's full name
    assert tf.config.experimental_list_devices() == [
        "/job:localhost/replica:0/task:0/device:CPU:0",
        "/job:localhost/replica:0/task:0/device:XLA_CPU:0"]  # (TF 1.15's CPU build lists it)
    tf.config.set_soft_device_placement(False)
    assert tf.config.get_soft_device_placement() is False
    tf.config.set_soft_device_placement(True)
    tf.config.threading.set_intra_op_parallelism_threads(2)
    assert tf.config.threading.get_intra_op_parallelism_threads() == 2
    tf.config.threading.set_intra_op_parallelism_threads(0)
    with pytest.raises(ValueError, match="not a GPU"):
        tf.config.experimental.set_memory_growth(cpus[0], True)
    with pytest.raises(ValueError, match="Unrecognized device"):
        tf.config.experimental.set_memory_growth("GPU:0", True)
    assert os.path.isdir(tf.sysconfig.get_lib())
    assert tf.sysconfig.get_build_info()["is_cuda_build"] is False
    assert tf.resource_loader.get_data_files_path() == os.path.dirname(os.path.abspath(__file__))
    assert tf.resource_loader.get_path_to_datafile("x.txt") == os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "x.txt")
    assert tf.resource_loader.load_resource("tideflow/version.py").startswith(b'"""')
    with pytest.raises(IOError):
        tf.resource_loader.load_resource("tideflow/no_such_file")
    assert tf.compat.forward_compatible(2019, 1, 1)
    with tf.compat.forward_compatibility_horizon(2030, 1, 1):
        assert tf.compat.forward_compatible(2029, 1, 1)
    assert not tf.compat.forward_compatible(2029, 1, 1)
    assert tf.MetaGraphDef().__class__.__name__ == "MetaGraphDef"
    assert tf.TensorInfo(name="x:0").name == "x:0"
    assert tf.SummaryMetadata is not None and tf.LogMessage.INFO is not None


def test_custom_gradient_sees_variables_read_inside():
    w = tf.get_variable("w", initializer=3.0)

    @tf.custom_gradient
    def scaled(x):
        def grad(dy, variables=None):
            assert [v.name for v in variables] == ["w:0"]
            return dy * 0.0, [tf.reduce_sum(dy) * 100.0]

        return x * w, grad

    x = tf.constant([1.0, 2.0])
    gx, gw = tf.gradients(scaled(x), [x, w])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        np.testing.assert_allclose(sess.run([gx, gw])[0], [0.0, 0.0])
        assert sess.run(gw) == 200.0


def test_recompute_grad_and_grad_pass_through():
    def block(x):
        w = tf.get_variable("w", dtype=tf.float64,
                            initializer=np.array([[0.5, -1.0], [2.0, 0.25]]))
        return tf.tanh(tf.matmul(x, w))

    x = tf.constant(np.array([[0.3, -0.2], [1.0, 0.5]]))
    with tf.variable_scope("plain"):
        y_plain = block(x)
    # TF 1.15's custom_gradient takes only resource variables made inside it
    with tf.variable_scope("re", use_resource=True):
        y_re = tf.recompute_grad(block)(x)
    g_plain = tf.gradients(tf.reduce_sum(y_plain ** 2), [x] + tf.trainable_variables("plain"))
    g_re = tf.gradients(tf.reduce_sum(y_re ** 2), [x] + tf.trainable_variables("re"))
    assert len(tf.trainable_variables("re")) == 1  # the recomputation reuses the variable
    rounded = tf.grad_pass_through(tf.round)
    z = tf.constant([0.4, 1.6])
    (gz,) = tf.gradients(rounded(z) * 3.0, z)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for a, b in zip(sess.run(g_plain), sess.run(g_re)):
            np.testing.assert_allclose(a, b, rtol=1e-12)
        np.testing.assert_allclose(sess.run(gz), [3.0, 3.0])
        np.testing.assert_allclose(sess.run(rounded(z)), [0.0, 2.0])


def test_more_top_level_helpers():
    v = tf.Variable(np.arange(24, dtype=np.float32).reshape(2, 3, 4))
    idx = tf.constant([[[0, 2], [3, 1], [1, 1]], [[2, 2], [0, 0], [3, 3]]])
    upd = -np.arange(12, dtype=np.float32).reshape(2, 3, 2) - 1
    up = tf.batch_scatter_update(v, idx, upd)
    pads, crops = tf.required_space_to_batch_paddings([5, 7], [2, 3],
                                                      base_paddings=[[1, 0], [0, 2]])
    vm = tf.vectorized_map(lambda r: tf.reduce_sum(r) * 2, tf.constant([[1, 2], [3, 4]]))
    sm = tf.sparse_matmul([[1.0, 2.0], [3.0, 4.0]], [[1.0, 0.0], [2.0, 1.0]], transpose_a=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(up)
        want = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
        for i in range(2):
            for j in range(3):
                for k in range(2):
                    want[i, j, sess.run(idx)[i, j, k]] = upd[i, j, k]
        np.testing.assert_array_equal(got, want)
        assert sess.run(pads).tolist() == [[1, 0], [0, 2]]
        assert sess.run(crops).tolist() == [[0, 0], [0, 0]]
        assert sess.run(vm).tolist() == [6, 14]
        np.testing.assert_allclose(sess.run(sm), [[7.0, 3.0], [10.0, 4.0]])
    assert tf.is_symbolic_tensor(vm) and not tf.is_symbolic_tensor(3)
    assert tf.no_regularizer(vm) is None
    assert tf.VariableAggregation.MEAN.value == 2 and tf.VariableSynchronization.ON_READ.value == 3
    with pytest.raises(tf.errors.UnimplementedError, match="C\\+\\+"):
        tf.load_op_library("/tmp/zero_out.so")
    assert tf.OpError is tf.errors.OpError and tf.get_seed(None) == (None, None)


def test_module_collects_variables_and_scopes():
    class Dense(tf.Module):
        def __init__(self, n, name=None):
            super().__init__(name=name)
            with self.name_scope:
                self.w = tf.Variable(tf.ones([2, n]), name="w")
                self.b = tf.Variable(tf.zeros([n]), name="b", trainable=False)

        @tf.Module.with_name_scope
        def __call__(self, x):
            return tf.matmul(x, self.w) + self.b

    class MyNet(tf.Module):
        def __init__(self):
            super().__init__()
            self.layers = [Dense(2), Dense(2, name="second")]
            self.extra = {"d": Dense(3)}
            self.same = self.layers[0]  # seen twice, listed once

    net = MyNet()
    assert net.name == "my_net" and net.name_scope.name == "my_net/"
    # the module's own attributes (sorted: extra, layers, same) first, then its submodules'
    assert [v.name for v in net.variables] == ["dense_1/b:0", "dense_1/w:0", "dense/b:0",
                                               "dense/w:0", "second/b:0", "second/w:0"]
    assert [v.name for v in net.trainable_variables] == ["dense_1/w:0", "dense/w:0",
                                                         "second/w:0"]
    assert [m.name for m in net.submodules] == ["dense", "dense", "second"]
    assert net.layers[0](tf.ones([1, 2])).name == "dense/add:0"
    with pytest.raises(ValueError, match="valid module name"):
        tf.Module(name="bad name")


def test_tensor_spec_function_and_batch_function():
    s = tf.TensorSpec([None, 3], tf.float32, name="x")
    assert repr(s) == "TensorSpec(shape=(?, 3), dtype=tf.float32, name='x')"
    assert s == tf.TensorSpec([None, 3], tf.float32, "x") and s != tf.TensorSpec([None, 3])
    assert s.is_compatible_with(tf.zeros([2, 3])) and not s.is_compatible_with(tf.zeros([2]))
    assert tf.TensorSpec.from_tensor(tf.zeros([2, 3], name="z")).name == "z"

    @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
    def double(x):
        return x * 2

    y = double([1.0, 2.0])
    with pytest.raises(ValueError, match="not compatible"):
        double([[1.0]])

    @tf.nondifferentiable_batch_function(1, 4, 100)
    def square(x):
        return x * x

    x = tf.constant([3.0])
    sq = square(x)
    assert tf.gradients(sq, x) == [None]
    with tf.Session() as sess:
        assert sess.run(y).tolist() == [2.0, 4.0]
        assert sess.run(sq).tolist() == [9.0]


def test_type_specs():
    assert repr(tf.SparseTensorSpec([None, 3], tf.int64)) == (
        "SparseTensorSpec(TensorShape([Dimension(None), Dimension(3)]), tf.int64)")
    assert tf.SparseTensorSpec([None, 3], tf.int64) == tf.SparseTensorSpec([None, 3], tf.int64)
    assert repr(tf.type_spec_from_value(tf.zeros([2]))) == (
        "TensorSpec(shape=(2,), dtype=tf.float32, name=None)")
    assert repr(tf.type_spec_from_value(tf.SparseTensor([[0]], [1.0], [3]))) == (
        "SparseTensorSpec(TensorShape([Dimension(3)]), tf.float32)")
    sl = tf.IndexedSlices(tf.zeros([1, 2]), tf.constant([0]), tf.constant([4, 2]))
    assert repr(tf.type_spec_from_value(sl)) == (
        "IndexedSlicesSpec(TensorShape([Dimension(4), Dimension(2)]), tf.float32, tf.int32, "
        "tf.int32, TensorShape([Dimension(1)]))")
    assert tf.type_spec_from_value(3).dtype == tf.int32
    with pytest.raises(TypeError, match="TypeSpec"):
        tf.type_spec_from_value(object())


def test_raw_ops_take_keyword_arguments():
    r = tf.raw_ops
    a = r.Add(x=tf.constant([1.0, 2.0]), y=tf.constant(3.0))
    u = r.Unique(x=tf.constant([3, 1, 3]))
    assert u._fields == ("y", "idx")
    parts = r.Split(split_dim=0, value=tf.constant([1, 2, 3, 4]), num_split=2)
    m = r.MatMul(a=tf.ones([2, 3]), b=tf.ones([2, 3]), transpose_b=True, name="mm")
    assert m.name == "mm:0" and m.shape.as_list() == [2, 2]
    check = r.Assert(condition=tf.constant(True), data=[tf.constant(1)])
    assert isinstance(check, tf.Operation)
    with pytest.raises(TypeError, match="keyword"):
        r.Add(tf.constant(1.0), tf.constant(2.0))
    with pytest.raises(TypeError, match="missing"):
        r.Add(x=tf.constant(1.0))
    with pytest.raises(TypeError, match="unexpected"):
        r.Add(x=tf.constant(1.0), y=tf.constant(1.0), bogus=1)
    with pytest.raises(AttributeError):
        r.NoSuchOpAnywhere  # noqa: B018
    with tf.Session() as sess:
        got = sess.run([a, u.y, u.idx, parts])
    assert got[0].tolist() == [4.0, 5.0] and got[1].tolist() == [3, 1]
    assert got[2].tolist() == [0, 1, 0] and [p.tolist() for p in got[3]] == [[1, 2], [3, 4]]


def test_top_level_string_aliases_match_tf():
    x = tf.constant(["hello", " a b ", "", "tideflow"])
    outs = [tf.string_to_hash_bucket(x, 1000), tf.string_to_hash_bucket_strong(x, 1000, [1, 2]),
            tf.string_strip(x)]
    with tf.Session() as sess:
        weak, strong, stripped = sess.run(outs)
    # the values TF 2.21 gives
    assert weak.tolist() == [938, 786, 899, 508]
    assert strong.tolist() == [622, 428, 435, 636]
    assert stripped.tolist() == [b"hello", b"a b", b"", b"tideflow"]


def test_critical_section_serializes_concurrent_runs():
    import threading
    import time

    v = tf.Variable(0.0)
    cs = tf.CriticalSection(name="cs")

    def body():
        r = v.read_value()
        # a slow read-modify-write: without the lock, concurrent runs lose updates
        slow = tf.py_func(lambda a: (time.sleep(0.005), a)[1], [r], tf.float32)
        return tf.assign(v, tf.reshape(slow, []) + 1.0)

    inc = cs.execute(body)
    assert inc.op.type == "Identity"
    nested = cs.execute(lambda: cs.execute(lambda: tf.constant(1.0)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

        def worker():
            for _ in range(5):
                sess.run(inc)

        threads = [threading.Thread(target=worker) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(v) == 20.0
        with pytest.raises(tf.errors.InvalidArgumentError, match="already holds"):
            sess.run(nested)
        # a failed step released the lock: the section still runs
        assert sess.run(inc) == 21.0


def test_py_func_scalar_result_stays_scalar():
    x = tf.py_func(lambda a: a, [tf.constant(1.0)], tf.float32)
    with tf.Session() as sess:
        assert np.shape(sess.run(x)) == ()


def test_critical_section_released_by_a_failed_step_kept_alive():
    import threading

    p = tf.placeholder(tf.float32, [None])
    cs = tf.CriticalSection()
    out = cs.execute(lambda: tf.check_numerics(p, "bad") * 2.0)
    with tf.Session() as sess:
        kept = []
        try:
            sess.run(out, {p: [np.nan]})
        except tf.errors.InvalidArgumentError as e:
            kept.append(e)  # the exception (and its traceback) stays alive
        assert kept
        res = []
        t = threading.Thread(target=lambda: res.append(sess.run(out, {p: [1.0]})), daemon=True)
        t.start()
        t.join(10)
        assert res and res[0].tolist() == [2.0], "the failed step left the section locked"
