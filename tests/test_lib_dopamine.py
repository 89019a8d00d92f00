"""What running Google's Dopamine (2.0.5 slim agents, 3.0.1 Keras agents) on tideflow relies on,
pinned with plain TF 1.x calls: StagingArea's put checks (worded as TF words them), the
online/target templates and the collection scope match its sync ops use, ``py_func`` sampling
into a staging prefetch, the distributional projection's static-shape errors and runtime
asserts, Saver's ``max_to_keep`` bookkeeping across a resume, and summaries under a variable
scope."""

import gzip
import os

import numpy as np
import pytest
from tideflow.contrib.staging import StagingArea

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


# ------------------------------------------------------------------------------------------
# StagingArea.put: the checks and TF 1.x's messages
# ------------------------------------------------------------------------------------------

def test_staging_put_messages_match_tf():
    area = StagingArea([tf.float32], shapes=[[2]])
    with pytest.raises(ValueError, match="Unexpected number of inputs '2' vs '1'"):
        area.put([tf.zeros([2]), tf.zeros([2])])
    with pytest.raises(ValueError, match=r"Datatypes do not match\. '<dtype: 'int32'>' != "
                                         r"'<dtype: 'float32'>'"):
        area.put([tf.zeros([2], tf.int32)])
    with pytest.raises(ValueError, match=r"Shapes \(3,\) and \(2,\) are incompatible"):
        area.put([tf.zeros([3])])
    with pytest.raises(ValueError, match="Staging areas must have names to enqueue a dictionary"):
        area.put({"a": tf.zeros([2])})
    named = StagingArea([tf.float32, tf.int32], names=["obs", "act"])
    with pytest.raises(ValueError, match="You must enqueue a dictionary in a staging area with "
                                         "names"):
        named.put([tf.zeros([2]), tf.constant(1)])
    # Python values are still converted to the area's dtypes.
    assert area.put([[1.0, 2.0]]).type == "Stage"


def test_staging_prefetch_of_py_func_samples():
    # A replay buffer samples in Python (py_func) and stages the batch; each training step
    # takes the staged batch while the next one is prefetched.
    counter = {"n": 0}

    def sample():
        counter["n"] += 1
        return (np.full((2, 3), counter["n"], np.float32), np.array([counter["n"]] * 2, np.int32))

    obs, act = tf.py_func(sample, [], [tf.float32, tf.int32], name="sample_replay")
    assert obs.shape.ndims is None
    obs.set_shape([2, 3])
    act.set_shape([2])
    area = StagingArea([tf.float32, tf.int32], shapes=[[2, 3], [2]])
    prefetch = area.put([obs, act])
    with tf.control_dependencies([prefetch]):
        staged = area.get()
    staged_obs = tf.identity(staged[0])
    assert staged_obs.shape.as_list() == [2, 3] and staged[1].dtype == tf.int32
    with tf.Session() as sess:
        sess.run(prefetch)
        assert sess.run(area.size()) == 1
        got = [sess.run(staged_obs)[0, 0] for _ in range(3)]
        assert got == [1.0, 2.0, 3.0] and counter["n"] == 4
        assert sess.run(area.size()) == 1


# ------------------------------------------------------------------------------------------
# Online/target templates and the sync ops built from collection scopes
# ------------------------------------------------------------------------------------------

def _net(state):
    with tf.variable_scope("fc"):
        w = tf.get_variable("w", [4, 3])
        return tf.nn.bias_add(tf.matmul(state, w), tf.get_variable("b", [3]))


def test_templates_under_name_scopes_and_scope_filtered_sync():
    outs = []
    for i in range(2):
        with tf.name_scope(f"agent_{i}"):
            ph = tf.placeholder(tf.float32, [1, 4], name="state")
            online = tf.make_template("Online", _net)
            target = tf.make_template("Target", _net)
            outs.append((online(ph), online(ph), target(ph)))
    assert [t.name for t in outs[1]] == [
        "agent_1/Online/fc/BiasAdd:0", "agent_1/Online_1/fc/BiasAdd:0",
        "agent_1/Target/fc/BiasAdd:0"]
    names = [v.op.name for v in tf.global_variables()]
    assert names == ["Online/fc/w", "Online/fc/b", "Target/fc/w", "Target/fc/b",
                     "Online_1/fc/w", "Online_1/fc/b", "Target_1/fc/w", "Target_1/fc/b"]
    # The scope filter is a prefix match: 'Online' also takes 'Online_1/...'.
    online = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="Online")
    assert [v.op.name for v in online] == ["Online/fc/w", "Online/fc/b", "Online_1/fc/w",
                                           "Online_1/fc/b"]
    assert tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="agent_1/Online") == []
    target = tf.get_collection(tf.GraphKeys.TRAINABLE_VARIABLES, scope="Target")
    sync = [t.assign(o, use_locking=True) for o, t in zip(online, target)]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(sync)
        a, b = sess.run([online[0], target[0]])
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------------------------
# The C51 projection's checks: static shapes at build time, tf.Assert at run time
# ------------------------------------------------------------------------------------------

def _project_checks(supports, weights, target_support, validate):
    # The order of the C51 projection's checks: slicing the deltas first (a scalar support
    # fails on the slice, a [[x]] support on taking delta 0), then static shapes, then asserts.
    deltas = target_support[1:] - target_support[:-1]
    delta_z = deltas[0]
    supports.shape.assert_is_compatible_with(weights.shape)
    supports[0].shape.assert_is_compatible_with(target_support.shape)
    target_support.shape.assert_has_rank(1)
    if not validate:
        return deltas
    checks = [tf.Assert(tf.reduce_all(tf.equal(tf.shape(supports), tf.shape(weights))),
                        [supports, weights]),
              tf.Assert(tf.reduce_all(tf.equal(tf.shape(supports)[1], tf.shape(target_support))),
                        [supports, target_support]),
              tf.Assert(tf.equal(tf.size(tf.shape(target_support)), 1), [target_support]),
              tf.Assert(tf.reduce_all(deltas > 0), [target_support]),
              tf.Assert(tf.reduce_all(tf.equal(deltas, delta_z)), [target_support])]
    with tf.control_dependencies(checks):
        return tf.identity(deltas)


def test_projection_static_shape_errors():
    supports = tf.constant([[0, 2, 4, 6, 8], [3, 4, 5, 6, 7]], tf.float32)
    with pytest.raises(ValueError, match="are incompatible"):
        _project_checks(supports, tf.zeros([2, 4]), tf.constant([4.0, 5, 6, 7, 8]), False)
    with pytest.raises(ValueError, match="are incompatible"):
        _project_checks(supports, tf.zeros([2, 5]), tf.constant([4.0, 5, 6]), False)
    with pytest.raises(ValueError, match="Index out of range"):
        _project_checks(supports, tf.zeros([2, 5]), tf.constant(3.0), False)
    with pytest.raises(ValueError, match="out of bounds"):
        _project_checks(supports, tf.zeros([2, 5]), tf.constant([[3.0]]), False)


def test_projection_runtime_asserts_with_unknown_shapes():
    s, w, t = (tf.placeholder(tf.float32, None) for _ in range(3))
    out = _project_checks(s, w, t, True)
    feed = {s: [[0, 2, 4, 6, 8]], w: [[0.2] * 5]}
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(out, {**feed, t: [4, 5, 6, 7, 8]}), [1, 1, 1, 1])
        with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
            sess.run(out, {**feed, t: [3, 4, 6, 7, 8]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
            sess.run(out, {**feed, t: [8, 7, 6, 5, 4]})
        with pytest.raises(tf.errors.InvalidArgumentError, match="assertion failed"):
            sess.run(out, {**feed, t: [4, 5, 6]})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {**feed, t: 3})
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(out, {**feed, t: [[3]]})


# ------------------------------------------------------------------------------------------
# Checkpoint and resume: Saver bookkeeping, gzip'd numpy state through gfile, summaries
# ------------------------------------------------------------------------------------------

def test_saver_max_to_keep_then_resume_from_latest(tmp_path):
    d = str(tmp_path)
    v = tf.get_variable("q", [2], initializer=tf.zeros_initializer())
    inc = tf.assign_add(v, [1.0, 1.0])
    saver = tf.train.Saver(max_to_keep=4)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(6):
            sess.run(inc)
            saver.save(sess, os.path.join(d, "tf_ckpt"), global_step=i)
    state = tf.train.get_checkpoint_state(d)
    assert [os.path.basename(p) for p in state.all_model_checkpoint_paths] == [
        "tf_ckpt-2", "tf_ckpt-3", "tf_ckpt-4", "tf_ckpt-5"]
    assert not tf.train.checkpoint_exists(os.path.join(d, "tf_ckpt-1"))
    assert tf.train.latest_checkpoint(d) == os.path.join(d, "tf_ckpt-5")
    with tf.Graph().as_default():
        v2 = tf.get_variable("q", [2])
        saver2 = tf.train.Saver(max_to_keep=4)
        with tf.Session() as sess:
            saver2.restore(sess, os.path.join(d, "tf_ckpt-3"))
            np.testing.assert_array_equal(sess.run(v2), [4.0, 4.0])
        reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(d))
        np.testing.assert_array_equal(reader.get_tensor("q"), [6.0, 6.0])
        assert [n for n, _ in tf.train.list_variables(d)] == ["q"]


def test_gzip_numpy_state_through_gfile_text_mode(tmp_path):
    # The replay memory writes np.save output into a GzipFile over a GFile opened 'w'.
    path = os.path.join(str(tmp_path), "add_count_ckpt.3.gz")
    with tf.gfile.GFile(path, "w") as f, gzip.GzipFile(fileobj=f, mode="wb") as out:
        np.save(out, np.arange(6, dtype=np.int32).reshape(2, 3), allow_pickle=False)
    with tf.gfile.Open(path, "rb") as f, gzip.GzipFile(fileobj=f) as inp:
        np.testing.assert_array_equal(np.load(inp, allow_pickle=False),
                                      np.arange(6).reshape(2, 3))
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.Remove(path + ".missing")


def test_scalar_summary_under_variable_scope_and_manual_summary(tmp_path):
    loss = tf.placeholder(tf.float32, [None])
    with tf.variable_scope("Losses"):
        tf.summary.scalar("HuberLoss", tf.reduce_mean(loss))
    merged = tf.summary.merge_all()
    writer = tf.summary.FileWriter(str(tmp_path))
    with tf.Session() as sess:
        writer.add_summary(sess.run(merged, {loss: [1.0, 3.0]}), 10)
    manual = tf.Summary(value=[tf.Summary.Value(tag="Train/AverageReturns", simple_value=9.5)])
    writer.add_summary(manual, 1)
    writer.flush()
    seen = {}
    for f in os.listdir(str(tmp_path)):
        for e in tf.train.summary_iterator(os.path.join(str(tmp_path), f)):
            for val in e.summary.value:
                seen[val.tag] = (e.step, val.simple_value)
    assert seen == {"Losses/HuberLoss": (10, 2.0), "Train/AverageReturns": (1, 9.5)}


def test_gfile_not_a_directory_is_failed_precondition(tmp_path):
    # TF maps ENOTDIR as it maps EISDIR (FAILED_PRECONDITION), not as a missing file.
    afile = os.path.join(str(tmp_path), "afile")
    with tf.gfile.GFile(afile, "w") as f:
        f.write("x")
    under = os.path.join(afile, "sub")
    with pytest.raises(tf.errors.FailedPreconditionError, match="Not a directory"):
        tf.gfile.GFile(under, "r").read()
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.gfile.Stat(under)
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.gfile.Remove(under)
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.gfile.MakeDirs(os.path.join(under, "deeper"))
    assert not tf.gfile.Exists(under)
    with pytest.raises(tf.errors.NotFoundError):
        tf.gfile.ListDirectory(afile)


def test_gfile_makedirs_names_the_component_it_could_not_create(tmp_path):
    # A missing parent under a file: the error names the first directory MakeDirs tried.
    base = os.path.join(str(tmp_path), "f")
    with tf.gfile.GFile(base, "w") as f:
        f.write("x")
    with pytest.raises(tf.errors.FailedPreconditionError) as info:
        tf.gfile.MakeDirs(os.path.join(base, "a", "b"))
    assert os.path.join(base, "a") + ";" in str(info.value)


def test_gfile_delete_recursively_missing_reports_not_found(tmp_path):
    missing = os.path.join(str(tmp_path), "gone")
    with pytest.raises(tf.errors.NotFoundError, match=f"^{missing} not found$"):
        tf.gfile.DeleteRecursively(missing)
