"""TF 1.15 parity fixes of the twenty-first session (lead), each expectation taken from running
the same program under TF 1.15: object-based checkpoints carry their object graph."""

import os

import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import trackable_object_graph_pb2


class Net(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.d1 = tf.keras.layers.Dense(3)
        self.d2 = tf.keras.layers.Dense(2)

    def call(self, x):
        return self.d2(self.d1(x))


def _object_graph(path):
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(tf.train.load_checkpoint(path).get_tensor(
        "_CHECKPOINTABLE_OBJECT_GRAPH"))
    return graph


def test_checkpoint_writes_object_graph_in_a_second_shard(tmp_path):
    tf.keras.backend.clear_session()
    net = Net()
    y = net(tf.constant(np.ones((2, 4), np.float32)))
    opt = tf.train.AdamOptimizer(0.1)
    step = tf.train.get_or_create_global_step()
    train = opt.minimize(tf.reduce_sum(y * y), global_step=step)
    w = tf.get_variable("free/w", [2])
    ckpt = tf.train.Checkpoint(model=net, optimizer=opt, step=step, w=w)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        path = ckpt.save(str(tmp_path / "ck"), session=sess)
    # TF 1.15: the variables' shard and the object graph's (placed on the CPU)
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint", "ck-1.data-00000-of-00002", "ck-1.data-00001-of-00002", "ck-1.index"]
    assert tf.train.list_variables(path)[0] == ("_CHECKPOINTABLE_OBJECT_GRAPH", [])
    assert type(ckpt.save_counter).__name__ == "ResourceVariable"
    g = _object_graph(path)
    # TF 1.15's graph of this program, node for node
    assert [[(c.node_id, c.local_name) for c in n.children] for n in g.nodes[:8]] == [
        [(1, "model"), (2, "optimizer"), (3, "step"), (4, "w"), (5, "save_counter")],
        [(6, "d1"), (7, "d2")], [(8, "beta1_power"), (9, "beta2_power")], [], [], [],
        [(10, "kernel"), (11, "bias")], [(12, "kernel"), (13, "bias")]]
    assert len(g.nodes) == 22
    assert [(s.original_variable_node_id, s.slot_name, s.slot_variable_node_id)
            for s in g.nodes[2].slot_variables] == [
        (10, "m", 14), (11, "m", 15), (12, "m", 16), (13, "m", 17),
        (10, "v", 18), (11, "v", 19), (12, "v", 20), (13, "v", 21)]
    attrs = [(a.name, a.full_name, a.checkpoint_key) for n in g.nodes for a in n.attributes]
    assert attrs[0] == ("VARIABLE_VALUE", "global_step", "step/.ATTRIBUTES/VARIABLE_VALUE")
    assert attrs[5] == ("VARIABLE_VALUE", "net/dense/kernel",
                        "model/d1/kernel/.ATTRIBUTES/VARIABLE_VALUE")
    assert attrs[-1] == ("VARIABLE_VALUE", "net/dense_1/bias/Adam_1",
                         "model/d2/bias/.OPTIMIZER_SLOT/optimizer/v/.ATTRIBUTES/VARIABLE_VALUE")


def test_keras_save_weights_tf_format_has_the_object_graph(tmp_path):
    tf.keras.backend.clear_session()
    m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,)),
                             tf.keras.layers.Dense(1)])
    m.compile(tf.keras.optimizers.Adam(0.01), "mse")
    m.fit(np.ones((8, 4), np.float32), np.ones((8, 1), np.float32), verbose=0)
    m.save_weights(str(tmp_path / "w"))
    assert sorted(os.listdir(tmp_path)) == [
        "checkpoint", "w.data-00000-of-00002", "w.data-00001-of-00002", "w.index"]
    keys = {a.checkpoint_key: a.full_name for n in _object_graph(str(tmp_path / "w")).nodes
            for a in n.attributes}
    assert keys["layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE"] == "dense_1/kernel"
    assert keys["optimizer/iter/.ATTRIBUTES/VARIABLE_VALUE"] == "training/Adam/iter"


def test_saver_restores_an_object_based_checkpoint_by_variable_names(tmp_path):
    with tf.Graph().as_default():
        v = tf.get_variable("w", initializer=tf.constant([1.0, 2.0]))
        u = tf.get_variable("scope/u", initializer=tf.constant(3.0))
        ck = tf.train.Checkpoint(a=v, b=u)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            path = ck.save(str(tmp_path / "obj"), session=s)
    with tf.Graph().as_default():
        v = tf.get_variable("w", initializer=tf.constant([0.0, 0.0]))
        u = tf.get_variable("scope/u", initializer=tf.constant(0.0))
        with tf.Session() as s:
            tf.train.Saver().restore(s, path)  # TF 1.15: [1, 2], 3.0
            np.testing.assert_array_equal(s.run(v), [1.0, 2.0])
            assert s.run(u) == 3.0
    with tf.Graph().as_default():
        tf.get_variable("w", [2])
        tf.get_variable("other", [1])
        with tf.Session() as s, pytest.raises(tf.errors.NotFoundError,
                           match="Existing variables not in the checkpoint: other"):
            tf.train.Saver().restore(s, path)


def _name_based_checkpoint(path, save_counter=None):
    """A tf.train.Saver checkpoint of w = [5, 6] (and a 'save_counter' variable if given)."""
    with tf.Graph().as_default():
        tf.get_variable("w", initializer=tf.constant([5.0, 6.0]))
        if save_counter is not None:
            tf.Variable(np.int64(save_counter), name="save_counter")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            return tf.train.Saver().save(s, path)


def test_checkpoint_restore_of_a_name_based_checkpoint(tmp_path):
    path = _name_based_checkpoint(str(tmp_path / "name"))
    with tf.Graph().as_default():
        v = tf.get_variable("w", initializer=tf.constant([0.0, 0.0]))
        ck = tf.train.Checkpoint(a=v)
        with tf.Session() as s:
            status = ck.restore(path)
            assert type(status).__name__ == "NameBasedSaverStatus"
            # TF 1.15 restores by graph names, the save counter's too, which this lacks
            with pytest.raises(tf.errors.NotFoundError,
                               match="Key save_counter not found in checkpoint"):
                status.run_restore_ops(s)
            assert status.assert_consumed() is status
            with pytest.raises(ValueError, match="No variables to save"):
                status.initialize_or_restore(s)
    # a name-based checkpoint that has a 'save_counter' restores everything by name
    path = _name_based_checkpoint(str(tmp_path / "name2"), save_counter=4)
    with tf.Graph().as_default():
        v = tf.get_variable("w", initializer=tf.constant([0.0, 0.0]))
        ck = tf.train.Checkpoint(a=v)
        with tf.Session() as s:
            ck.restore(path).run_restore_ops(s)
            np.testing.assert_array_equal(s.run(v), [5.0, 6.0])
            assert s.run(ck.save_counter) == 4


def test_checkpoint_restore_is_deferred_to_variables_made_later(tmp_path):
    # TF 1.15: restore() before the model is built; the status's ops restore what exists then
    x = np.ones((2, 3), np.float32)
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(2)])
        m(tf.constant(x))
        ck = tf.train.Checkpoint(model=m)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(m.layers[0].kernel.assign(tf.fill([3, 2], 7.0)))
            s.run(m.layers[0].bias.assign([1.0, 2.0]))
            path = ck.save(str(tmp_path / "c"), session=s)
    for how in ("initialize_or_restore", "run_restore_ops"):
        with tf.Graph().as_default():
            m = tf.keras.Sequential([tf.keras.layers.Dense(2)])
            ck = tf.train.Checkpoint(model=m)
            status = ck.restore(path)
            y = m(tf.constant(x))
            with tf.Session() as s:
                if how == "run_restore_ops":
                    s.run(tf.global_variables_initializer())
                getattr(status, how)(s)
                np.testing.assert_array_equal(s.run(y), [[22.0, 23.0]] * 2)
                assert status.assert_consumed() is status


def test_checkpoint_keyword_must_be_trackable_itself():
    v = tf.Variable(1.0)
    # TF 1.15: a dict (or a plain object holding variables) is not a TrackableBase
    with pytest.raises(ValueError, match="expecting a trackable object .an object derived "
                                         "from `TrackableBase`., got {'u'"):
        tf.train.Checkpoint(b={"u": v})

    class Holder:
        pass

    h = Holder()
    h.v = v
    with pytest.raises(ValueError, match="expecting a trackable object"):
        tf.train.Checkpoint(h=h)
    ck = tf.train.Checkpoint(v=v)
    ck.d = {"u": v}  # an attribute is tracked, as TF's wrapped dict
    assert ck.d == {"u": v}


def test_step_reports_the_last_created_failing_source_as_tf():
    # TF 1.15 starts a step's placeholders and variables concurrently; of several failing
    # ones it reports (in these programs, every time) the one created last
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable(tf.ones([2, 3]), name="W")
        b = tf.Variable(tf.zeros([3]), name="b")
        y = tf.matmul(x, w) + b
        train = tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_mean(y))
        with tf.Session() as s:
            for fetch in (y, train):
                with pytest.raises(tf.errors.FailedPreconditionError,
                                   match="^Attempting to use uninitialized value b\n\t \\[\\[node b/read "):
                    s.run(fetch)
            with pytest.raises(tf.errors.FailedPreconditionError, match="value b\n"):
                s.run(y, {x: [[1, 2]]})
            s.run(w.initializer)
            with pytest.raises(tf.errors.FailedPreconditionError, match="value b\n"):
                s.run(y, {x: [[1, 2]]})
            s.run(b.initializer)
            with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder tensor 'x'"):
                s.run(y)
            np.testing.assert_allclose(s.run(y, {x: [[1, 2]]}), [[3, 3, 3]])
    with tf.Graph().as_default():
        a = tf.placeholder(tf.float32, name="a")
        c = tf.placeholder(tf.float32, name="c")
        with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                              match="placeholder tensor 'c' with dtype float\n"):
            s.run(a + c)
    with tf.Graph().as_default():
        vs = [tf.Variable(float(i), name=n) for i, n in enumerate("pqr")]
        with tf.Session() as s:
            with pytest.raises(tf.errors.FailedPreconditionError, match="value r(\n|$)"):
                s.run(vs)
            s.run(vs[2].initializer)  # an initializer alone is no read
            assert s.run([v.initializer for v in vs[:2]]) == [None, None]
            assert s.run(vs) == [0.0, 1.0, 2.0]


def test_contrib_optimizer_v2_as_tf():
    # TF 1.15's tf.contrib.optimizer_v2: tf.train's slots and names; its RMSProp starts "rms"
    # at epsilon and adds no epsilon in the update (values from TF 1.15, 5 steps each)
    O = tf.contrib.optimizer_v2
    assert issubclass(O.AdamOptimizer, O.OptimizerV2)
    assert issubclass(O.OptimizerV2, tf.train.Optimizer)
    want = {"rms": [[0.5499226, -0.4138548], [0.2499227, -0.0138547], [-0.3500773, 0.5861453]],
            "adam": [[0.5105363, -0.7334036], [0.2105362, -0.3334037], [-0.3894638, 0.2665963]]}
    got = {}
    for key, make in (("rms", lambda: O.RMSPropOptimizer(0.01, centered=True)),
                      ("adam", lambda: O.AdamOptimizer(0.1))):
        with tf.Graph().as_default():
            w = tf.Variable([[0.5, -0.3], [0.2, 0.1], [-0.4, 0.7]], name="w")
            loss = tf.reduce_sum(tf.square(tf.matmul(tf.constant([[1., 2., 3.]]), w)))
            opt = make()
            train = opt.minimize(loss)
            names = sorted(v.op.name for v in tf.global_variables())
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                for _ in range(5):
                    s.run(train)
                got[key] = s.run(w)
        if key == "rms":
            assert sorted(opt.get_slot_names()) == ["mg", "momentum", "rms"]
            assert names == ["w", "w/RMSProp", "w/RMSProp_1", "w/RMSProp_2"]
    for key, value in want.items():
        np.testing.assert_allclose(got[key], value, rtol=1e-4, atol=1e-5)


def test_keras_hdf5_matrix_as_tf(tmp_path):
    h5py = pytest.importorskip("h5py")
    path = str(tmp_path / "data.h5")
    rng = np.random.RandomState(0)
    x, y = rng.rand(40, 4).astype(np.float32), rng.rand(40, 1).astype(np.float32)
    with h5py.File(path, "w") as f:
        f["x"], f["y"] = x, y
    H = tf.keras.utils.HDF5Matrix
    xt, yt = H(path, "x", end=32), H(path, "y", end=32)
    xv = H(path, "x", start=32, normalizer=lambda a: a * 2)
    # TF 1.15: (32, 4) float32 2 128, then 8 (8, 4)
    assert (len(xt), xt.shape, xt.dtype, xt.ndim, xt.size) == (32, (32, 4), np.float32, 2, 128)
    assert (len(xv), xv.shape) == (8, (8, 4))
    np.testing.assert_array_equal(xv[0], x[32] * 2)
    assert xv[1:3].shape == (2, 4) and xt[[1, 5]].shape == (2, 4)
    np.testing.assert_array_equal(xt[np.array([2, 3])][0], x[2])
    for bad in (lambda: xv[8], lambda: xt[30:40]):
        with pytest.raises(IndexError):
            bad()
    np.testing.assert_array_equal(np.asarray(xv), x[32:] * 2)
    m = tf.keras.Sequential([tf.keras.layers.Dense(1, input_shape=(4,))])
    m.compile(tf.keras.optimizers.SGD(0.1), "mse")
    hist = m.fit(xt, yt, batch_size=8, epochs=2, shuffle="batch", verbose=0)
    assert len(hist.history["loss"]) == 2
    assert m.predict(xv).shape == (8, 1)
    # TF 1.15 reads each batch from the file: out-of-order indices are refused
    with pytest.raises(TypeError, match='If using HDF5 input data, pass shuffle="batch"'):
        m.fit(xt, yt, batch_size=8, epochs=1, shuffle=True, verbose=0)


def test_shape_inference_folds_a_size_deeper_in_the_evaluated_subgraph():
    # TF 1.15: range(Size(x)) of a known-shape x stays (?,) (a Size read directly is not
    # folded from x's shape), but zeros(Size(x)) reshapes it to a vector first and folds: (6,)
    x = tf.placeholder(tf.float32, [3, 2])
    size = tf.raw_ops.Size(input=x)
    assert tf.range(size).get_shape().as_list() == [None]
    assert tf.zeros(size).get_shape().as_list() == [6]
    assert tf.reshape(x, [size]).get_shape().as_list() == [6]
    assert tf.range(size + 0).get_shape().as_list() == [6]


def test_a_failed_step_still_runs_what_does_not_depend_on_the_failure():
    # TF 1.15's executor stops only the failed op's dependents: on the step whose input ends,
    # the counter's assign (independent of the input) still runs: [7, 6.0]
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_generator(lambda: iter([1.0, 2.0]), tf.float32,
                                            tf.TensorShape([]))
        x = ds.make_one_shot_iterator().get_next()
        acc, counter = tf.Variable(0.0), tf.Variable(0)
        step = tf.group(tf.assign_add(acc, x * 2), tf.assign(counter, counter * 2 + 1))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(3):
                    s.run(step)
            assert s.run([counter, acc]) == [7, 6.0]
    # sparse Adam decays its moments on that step too (TF 1.15's moments: 0.18 and 0.162)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(np.array([[1, 2], [3, 0]], np.int64)).batch(1)
        ids = ds.make_one_shot_iterator().get_next()
        emb = tf.get_variable("emb", [4, 2], initializer=tf.ones_initializer())
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, ids) ** 2)
        gs = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.1).minimize(loss, global_step=gs)
        m = tf.get_default_graph().get_tensor_by_name("emb/Adam:0")
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(3):
                    s.run(train)
            assert s.run(gs) == 2
            np.testing.assert_allclose(s.run(m)[:, 0], [0.18, 0.162, 0.162, 0.18], rtol=1e-6)
            np.testing.assert_allclose(s.run(emb)[:, 0], [0.92559, 0.83299, 0.83299, 0.92559],
                                       rtol=1e-5)
