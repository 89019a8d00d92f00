"""TF 1.x distributed and Estimator programs as users wrote them, run under tideflow: TF_CONFIG
driven RunConfig / train_and_evaluate on a real loopback cluster, and stateful kernels
(iterators, queues) that must survive across the steps of a grpc session."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tideflow as tf
from tests.distributed.cluster_procs import _env, cluster_spec
from tideflow.distributed.server import Server


def _config_with(monkeypatch, tf_config, **kw):
    monkeypatch.setenv("TF_CONFIG", json.dumps(tf_config))
    return tf.estimator.RunConfig(**kw)


CLUSTER = {"chief": ["host0:2222"], "worker": ["host1:2222", "host2:2222"],
           "ps": ["host3:2222", "host4:2222"]}


def test_run_config_reads_tf_config_for_each_task(monkeypatch):
    c = _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}})
    assert (c.task_type, c.task_id, c.is_chief) == ("worker", 1, False)
    assert c.master == "grpc://host2:2222"
    assert (c.num_ps_replicas, c.num_worker_replicas, c.global_id_in_cluster) == (2, 3, 2)
    assert c.cluster_spec.as_dict() == CLUSTER
    # TF's default session config in a cluster: only the ps tasks and this task are seen
    assert list(c.session_config.device_filters) == ["/job:ps", "/job:worker/task:1"]

    c = _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "chief", "index": 0}})
    assert (c.task_type, c.is_chief, c.master, c.global_id_in_cluster) == (
        "chief", True, "grpc://host0:2222", 0)
    c = _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "ps", "index": 1}},
                     session_config=tf.ConfigProto(log_device_placement=True))
    assert not c.is_chief and c.global_id_in_cluster == 4
    assert list(c.session_config.device_filters) == []  # the user's config is kept

    # the legacy "master" job is the chief
    c = _config_with(monkeypatch, {"cluster": {"master": ["m:1"], "worker": ["w:1"],
                                               "ps": ["p:1"]},
                                   "task": {"type": "master", "index": 0}})
    assert (c.is_chief, c.master, c.num_worker_replicas, c.num_ps_replicas) == (
        True, "grpc://m:1", 2, 1)

    # the evaluator is not part of the training cluster
    c = _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "evaluator",
                                                                "index": 0}})
    assert (c.task_type, c.is_chief, c.master, c.num_worker_replicas) == (
        "evaluator", False, "", 0)
    assert not c.cluster_spec


def test_run_config_rejects_bad_tf_config(monkeypatch):
    with pytest.raises(ValueError, match='must have one "chief" node'):
        _config_with(monkeypatch, {"cluster": {"worker": ["a:1"], "ps": ["b:1"]},
                                   "task": {"type": "worker", "index": 0}})
    with pytest.raises(ValueError, match="3 is not a valid task_id for task_type worker"):
        _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "worker", "index": 3}})
    with pytest.raises(ValueError, match="task type must be WORKER"):
        _config_with(monkeypatch, {"task": {"type": "ps", "index": 0}})
    with pytest.raises(ValueError, match="task_type `evaluator` is not supported"):
        _config_with(monkeypatch, {"cluster": {"master": ["a:1"], "ps": ["b:1"]},
                                   "task": {"type": "evaluator", "index": 0}})
    monkeypatch.delenv("TF_CONFIG")
    c = tf.estimator.RunConfig()
    assert (c.task_type, c.task_id, c.is_chief, c.master, c.num_ps_replicas) == (
        "worker", 0, True, "", 0)


def test_estimator_places_variables_on_the_ps_tasks(monkeypatch, tmp_path):
    config = _config_with(monkeypatch, {"cluster": CLUSTER, "task": {"type": "worker",
                                                                     "index": 0}})
    est = tf.estimator.Estimator(lambda features, labels, mode: None, model_dir=str(tmp_path),
                                 config=config)
    g = tf.Graph()
    with g.as_default(), g.device(est._device_fn):
        v = tf.get_variable("v", [2])
        w = tf.get_variable("w", [2])
        y = v + w
    assert {v.device, w.device} == {"/job:ps/task:0", "/job:ps/task:1"}
    assert y.device == "/job:worker/task:0"


_TRAINER = r'''
import numpy as np
import tideflow as tf
tf.logging.set_verbosity(tf.logging.INFO)

def model_fn(features, labels, mode):
    logits = tf.layers.dense(features["x"], 2)
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            "accuracy": tf.metrics.accuracy(labels, tf.argmax(logits, 1))})
    train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
        loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

rng = np.random.RandomState(0)
X = rng.randn(64, 3).astype(np.float32)
Y = (X[:, 0] > 0).astype(np.int32)

def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(8)

config = tf.estimator.RunConfig(model_dir=MODEL_DIR, save_checkpoints_steps=10,
                                experimental_max_worker_delay_secs=0)
est = tf.estimator.Estimator(model_fn, config=config)
out = tf.estimator.train_and_evaluate(
    est, tf.estimator.TrainSpec(input_fn, max_steps=30),
    tf.estimator.EvalSpec(lambda: tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).batch(32),
                          start_delay_secs=0, throttle_secs=1))
print("TASK", config.task_type, config.is_chief, "RESULT", out, flush=True)
'''


def test_train_and_evaluate_on_a_tf_config_cluster(tmp_path):
    """ps, chief, worker and evaluator processes each run the same program; the ps serves,
    the chief and the worker train the shared variables, the evaluator follows the chief's
    checkpoints until the last one."""
    ports = cluster_spec(chief=1, worker=1, ps=1)
    model_dir = str(tmp_path / "model")
    code = f"MODEL_DIR = {model_dir!r}\n" + _TRAINER
    procs = {}
    try:
        for job in ("ps", "chief", "worker", "evaluator"):
            env = _env({"TF_CONFIG": json.dumps({"cluster": ports,
                                                 "task": {"type": job, "index": 0}})})
            procs[job] = subprocess.Popen([sys.executable, "-c", code], env=env,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          text=True)
        outs = {}
        for job in ("chief", "worker", "evaluator"):
            out, err = procs[job].communicate(timeout=120)
            assert procs[job].returncode == 0, f"{job} failed:\n{out}\n{err}"
            outs[job] = (out, err)
        assert procs["ps"].poll() is None  # the ps serves until killed, as in TF
    finally:
        for p in procs.values():
            if p.poll() is None:
                p.kill()
            p.communicate()
    assert "TASK chief True RESULT None" in outs["chief"][0]
    assert "TASK worker False RESULT None" in outs["worker"][0]
    assert "TASK evaluator False RESULT None" in outs["evaluator"][0]
    # the worker trained (not only the chief) and did not save checkpoints
    assert "loss = " in outs["worker"][1]
    assert "Saving checkpoints" not in outs["worker"][1]
    assert "Saving checkpoints for" in outs["chief"][1]
    assert "Running training and evaluation locally" not in outs["chief"][1]
    step = tf.train.load_variable(model_dir, "global_step")
    assert step >= 30
    # the evaluator stopped after evaluating a checkpoint of the last step
    assert "Exiting evaluation, global_step=" in outs["evaluator"][1]
    assert os.listdir(os.path.join(model_dir, "eval"))


@pytest.fixture
def worker_and_ps():
    spec = cluster_spec(ps=1, worker=1)
    made = [Server(spec, job_name=job, task_index=0) for job in ("ps", "worker")]
    yield made[1]
    for s in made:
        s.stop()


def test_initializable_iterator_across_steps_of_a_grpc_session(worker_and_ps):
    """The Estimator's input pipeline: an iterator initialized in one step (one registered
    partition graph) is read by the following steps (other partition graphs)."""
    with tf.Graph().as_default():
        with tf.device(tf.train.replica_device_setter(worker_device="/job:worker/task:0",
                                                      ps_tasks=1)):
            it = tf.data.Dataset.range(10).batch(2).make_initializable_iterator()
            total = tf.Variable(0, dtype=tf.int64)
            add = tf.assign_add(total, tf.reduce_sum(it.get_next()))
        assert total.device == "/job:ps/task:0"
        with tf.Session(worker_and_ps.target) as sess:
            sess.run([it.initializer, total.initializer])
            got = [sess.run(add) for _ in range(5)]
            with pytest.raises(tf.errors.OutOfRangeError):
                sess.run(add)
            assert got == list(np.cumsum([1, 5, 9, 13, 17]))
            sess.run(it.initializer)  # re-initializing starts again
            assert sess.run(add) == got[-1] + 1


def test_queue_and_random_state_persist_across_steps_of_a_grpc_session(worker_and_ps):
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            q = tf.FIFOQueue(10, tf.int32)
            enq = q.enqueue_many([[1, 2, 3]])
            deq = q.dequeue()
            size = q.size()
            r = tf.random_uniform([4], seed=1, dtype=tf.float32)
        with tf.Session(worker_and_ps.target) as sess:
            sess.run(enq)
            assert sess.run(size) == 3
            assert [sess.run(deq) for _ in range(3)] == [1, 2, 3]
            a = sess.run(r)
            b = sess.run([r, size])[0]
            assert not np.array_equal(a, b)  # the generator advances, as in TF


def test_slots_of_a_partitioned_variable_are_saved_as_one_variable(tmp_path):
    """As TF's slot_creator: the slots of ``emb/part_i`` carry the primary's slice info, so
    the checkpoint holds ``emb/Adam`` [10, 4] (not ``emb/part_0/Adam``), and a graph with
    another partitioning restores them (the names real TF 1.x writes for this program)."""
    path = str(tmp_path / "m")
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(3))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, [1, 7, 9]))
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        mom = tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([train, mom])
            tf.train.Saver().save(sess, path)
            slot = np.concatenate(sess.run(
                [v for v in tf.global_variables() if v.op.name.endswith("/Momentum")]))
    assert tf.train.list_variables(path) == [
        ("beta1_power", []), ("beta2_power", []), ("emb", [10, 4]), ("emb/Adam", [10, 4]),
        ("emb/Adam_1", [10, 4]), ("emb/Momentum", [10, 4])]
    np.testing.assert_allclose(tf.train.load_variable(path, "emb/Momentum"), slot)
    assert np.count_nonzero(slot.any(axis=1)) == 3  # the three looked-up rows
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [10, 4], partitioner=tf.fixed_size_partitioner(2))
        loss = tf.reduce_sum(tf.nn.embedding_lookup(emb, [0]))
        tf.train.MomentumOptimizer(0.1, 0.9).minimize(loss)
        slots = [v for v in tf.global_variables() if v.op.name.endswith("/Momentum")]
        assert [s.shape.as_list() for s in slots] == [[5, 4], [5, 4]]
        with tf.Session() as sess:
            tf.train.Saver(var_list=[*list(emb), *slots]).restore(sess, path)
            np.testing.assert_allclose(np.concatenate(sess.run(slots)), slot)


def test_an_op_error_from_the_cluster_names_the_client_graph_node(worker_and_ps, tmp_path):
    """A failing kernel on a worker: the error's ``op`` is the client graph's op and the
    message points at the user's code (as TF's client does), not at the worker's copy."""
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            x = tf.placeholder(tf.int32, [None])
            bad = tf.gather(tf.constant([1, 2, 3]), x, name="my_gather")
        with tf.Session(worker_and_ps.target) as sess:
            assert list(sess.run(bad, {x: [0, 2]})) == [1, 3]
            with pytest.raises(tf.errors.InvalidArgumentError) as info:
                sess.run(bad, {x: [7]})
    assert info.value.op is bad.op
    assert "[[node my_gather (defined at " in info.value.message
    assert "test_programs_dist.py" in info.value.message
    assert "grpc" not in info.value.message.split("defined at")[-1]


def test_keras_sequential_from_its_own_config():
    """``tf.keras.Sequential.from_config(model.get_config())`` (and the bare layer list of
    older Keras) rebuilds the stack, with the weights of the original loadable into it."""
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu", input_shape=(4,)),
                                 tf.keras.layers.Dense(2, activation="softmax")], name="net")
        m2 = tf.keras.Sequential.from_config(m.get_config())
        m3 = tf.keras.Sequential.from_config(m.get_config()["layers"])
        assert m2.name == "net"
        assert [type(la).__name__ for la in m2.layers] == ["Dense", "Dense"]
        assert m2.count_params() == m.count_params() == m3.count_params() == 58
        m2.set_weights(m.get_weights())
        x = np.random.RandomState(0).randn(3, 4).astype(np.float32)
        np.testing.assert_allclose(m2.predict(x), m.predict(x), rtol=1e-6)


def test_keras_tensorboard_histograms_over_the_validation_data(tmp_path):
    """TF 1.x's ``TensorBoard(histogram_freq=1)``: every epoch, one histogram summary per
    validation batch of each weight (``dense/kernel_0``) and layer output (``dense_out``)."""
    log_dir = str(tmp_path / "tb")
    with tf.Graph().as_default(), tf.Session().as_default() as sess:
        tf.keras.backend.set_session(sess)
        rng = np.random.RandomState(0)
        x, y = rng.randn(40, 3).astype(np.float32), rng.randn(40, 1).astype(np.float32)
        m = tf.keras.Sequential([tf.keras.layers.Dense(4, input_shape=(3,)),
                                 tf.keras.layers.Dense(1)])
        m.compile(tf.train.GradientDescentOptimizer(0.1), "mse")
        m.fit(x, y, epochs=2, batch_size=10, validation_data=(x[:25], y[:25]), verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(log_dir, histogram_freq=1,
                                                        batch_size=10)])
        kernel = sess.run(m.layers[0].kernel)
        with pytest.raises(ValueError, match="validation_data must be provided"):
            m.fit(x, y, epochs=1, verbose=0,
                  callbacks=[tf.keras.callbacks.TensorBoard(log_dir, histogram_freq=1)])
    tags = {}
    for f in sorted(os.listdir(log_dir))[:1]:
        for e in tf.train.summary_iterator(os.path.join(log_dir, f)):
            for v in e.summary.value:
                tags.setdefault(v.tag, []).append((e.step, v))
    histos = {"dense/kernel_0", "dense/bias_0", "dense_1/kernel_0", "dense_1/bias_0",
              "dense_out", "dense_1_out"}
    assert histos <= set(tags)
    for t in histos:  # 3 validation batches (10, 10, 5) in each of the 2 epochs, each at
        # the count of validation batches seen (TF 1.15's callbacks_v1 _fetch_callback)
        assert [s for s, _ in tags[t]] == [0, 1, 2, 3, 4, 5]
    last = tags["dense/kernel_0"][-1][1].histo
    assert last.num == 12
    np.testing.assert_allclose([last.min, last.max, last.sum],
                               [kernel.min(), kernel.max(), kernel.sum()], rtol=1e-5)
    assert tags["dense_out"][2][1].histo.num == 5 * 4  # the last, short batch
    assert {"epoch_loss", "epoch_val_loss"} <= set(tags)  # TF 1.15's epoch_ prefix


def test_keras_model_exported_as_a_saved_model_and_loaded_back(tmp_path):
    """TF 1.14's ``tf.keras.experimental.export_saved_model`` / ``load_from_saved_model`` and
    TF 1.12's ``tf.contrib.saved_model.save_keras_model`` (a timestamped folder): a
    ``serving_default`` predict signature keyed by the Keras input/output names, loadable by
    ``tf.saved_model.loader``, and the model rebuilt with its weights."""
    x = np.random.RandomState(0).rand(5, 2).astype(np.float32)
    with tf.Graph().as_default(), tf.Session().as_default() as sess:
        tf.keras.backend.set_session(sess)
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(2,), activation="relu"),
                                 tf.keras.layers.Dense(1)])
        m.compile(tf.train.AdamOptimizer(0.01), "mse")
        m.fit(x, x[:, :1], epochs=2, verbose=0)
        ref = m.predict(x)
        path = str(tmp_path / "sm")
        assert tf.keras.experimental.export_saved_model(m, path) is None
        with pytest.raises(AssertionError, match="Export directory already exists"):
            tf.keras.experimental.export_saved_model(m, path)
        m2 = tf.keras.experimental.load_from_saved_model(path)
        np.testing.assert_allclose(m2.predict(x), ref, rtol=1e-6)
        stamped = tf.contrib.saved_model.save_keras_model(m, str(tmp_path / "c"))
        assert isinstance(stamped, bytes)
        assert os.path.dirname(stamped) == str(tmp_path / "c").encode()
        m3 = tf.contrib.saved_model.load_keras_model(stamped)
        np.testing.assert_allclose(m3.predict(x), ref, rtol=1e-6)
    with tf.Graph().as_default(), tf.Session() as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serving_default"]
        assert sig.method_name == "tensorflow/serving/predict"
        assert list(sig.inputs) == ["dense_input"] and list(sig.outputs) == ["dense_1"]
        got = sess.run(sig.outputs["dense_1"].name, {sig.inputs["dense_input"].name: x})
        np.testing.assert_allclose(got, ref, rtol=1e-6)


def test_session_handles_across_steps_of_a_grpc_session(worker_and_ps):
    """``tf.get_session_handle``: the fetched handle is a TensorHandle (``.handle``,
    ``.eval()``, ``.delete()``) and the tensor it names outlives the step that stored it."""
    with tf.Graph().as_default():
        with tf.device("/job:worker/task:0"):
            h_op = tf.get_session_handle(tf.constant([5, 6]) * 2)
        with tf.Session(worker_and_ps.target) as sess:
            h = sess.run(h_op)
            assert type(h).__name__ == "TensorHandle" and isinstance(h, bytes)
            assert h.handle.startswith("GetSessionHandle")
            np.testing.assert_array_equal(h.eval(), [10, 12])
            p, t = tf.get_session_tensor(h.handle, tf.int32)
            np.testing.assert_array_equal(sess.run(t + 1, {p: h.handle}), [11, 13])
            h.delete()
            with pytest.raises(tf.errors.OpError, match="no tensor with handle"):
                sess.run(t, {p: h.handle})
