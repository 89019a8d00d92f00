"""TF 1.x programs' observable behaviour, compared with TF 1.15 (twentieth session, lead)."""

import sys

import pytest

import tideflow as tf


def test_flags_listing_has_the_flags_tensorflow_defines():
    # TF 1.15's import loads absl.app and absl's test module and defines a pfor flag: a
    # script dumping its parameters (sorted(FLAGS.__flags.items())) lists these too
    tf.flags.DEFINE_integer("lead20_batch_size", 64, "batch size")
    tf.flags.FLAGS(sys.argv[:1], known_only=True)
    names = set(tf.flags.FLAGS.__flags)
    assert {"lead20_batch_size", "only_check_args", "pdb", "pdb_post_mortem", "profile_file",
            "run_with_pdb", "run_with_profiling", "use_cprofile_for_profiling",
            "test_random_seed", "test_randomize_ordering_seed", "test_srcdir", "test_tmpdir",
            "xml_output_file", "op_conversion_fallback_to_while_loop", "log_dir",
            "logtostderr", "verbosity"} <= names
    assert tf.flags.FLAGS.op_conversion_fallback_to_while_loop is False
    assert tf.flags.FLAGS.test_random_seed == 301
    # redefining one of them fails at the DEFINE, as under TF
    with pytest.raises(tf.flags.DuplicateFlagError):
        tf.flags.DEFINE_string("pdb", "x", "clashes with absl.app's flag")


def test_mutable_hash_table_takes_name_fourth():
    # TF 1.15: MutableHashTable(key_dtype, value_dtype, default_value, name, checkpoint)
    with tf.Graph().as_default():
        table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, "vocab")
        assert table.name == "vocab"
        assert table.resource_handle.op.name == "vocab"
        keys = tf.constant(["a", "b"])
        with tf.Session() as sess:
            sess.run(table.insert(keys, tf.constant([3, 4], tf.int64)))
            assert sess.run(table.lookup(tf.constant(["b", "c"]))).tolist() == [4, -1]


def test_keras_optimizer_iterations_read_before_training():
    # TF 1.15: reading iterations before fit makes 'iter' alone in the current scope; the
    # hyperparameters come with the first step under training/Adam/ (printed by TF 1.15)
    import numpy as np

    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(4,))])
        m.compile(tf.keras.optimizers.Adam(0.01), "mse")
        assert m.optimizer.iterations.name == "iter:0"
        m.fit(np.ones((4, 4)), np.ones((4, 2)), verbose=0, epochs=1)
        assert m.optimizer.iterations.name == "iter:0"
        assert sorted(v.name for v in tf.global_variables()) == [
            "dense/bias:0", "dense/kernel:0", "iter:0", "training/Adam/beta_1:0",
            "training/Adam/beta_2:0", "training/Adam/decay:0", "training/Adam/dense/bias/m:0",
            "training/Adam/dense/bias/v:0", "training/Adam/dense/kernel/m:0",
            "training/Adam/dense/kernel/v:0", "training/Adam/learning_rate:0"]
        assert tf.keras.optimizers.SGD(0.1).iterations.name == "iter_1:0"
        with tf.name_scope("sc"):
            assert tf.keras.optimizers.RMSprop(0.1).iterations.name == "sc/iter:0"


def test_input_spec_repr_and_sequential_input_spec():
    # TF 1.15 prints only the fields that are set; a Sequential's spec is its first layer's
    with tf.Graph().as_default():
        m = tf.keras.Sequential([tf.keras.layers.Dense(3, input_shape=(4,))])
        assert repr(m.input_spec) == "InputSpec(min_ndim=2, axes={-1: 4})"
        assert repr(tf.nn.rnn_cell.LSTMCell(4).input_spec) == "InputSpec(ndim=2)"


def _experiment_run(tmp_path, **experiment_kw):
    import numpy as np

    x = np.random.RandomState(0).rand(64, 3).astype(np.float32)
    y = (x.sum(1) > 1.5).astype(np.int32)

    def model_fn(features, labels, mode, params):
        logits = tf.layers.dense(features["x"], 2,
                                 kernel_initializer=tf.glorot_uniform_initializer(seed=2))
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, tf.train.get_global_step())
        acc = tf.metrics.accuracy(labels, tf.argmax(logits, 1))
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          eval_metric_ops={"acc": acc})

    def experiment_fn(run_config, hparams):
        est = tf.estimator.Estimator(model_fn, config=run_config)
        train_in = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16,
                                                      num_epochs=None, shuffle=False)
        eval_in = tf.estimator.inputs.numpy_input_fn({"x": x}, y, batch_size=16,
                                                     num_epochs=1, shuffle=False)
        return tf.contrib.learn.Experiment(est, train_input_fn=train_in, eval_input_fn=eval_in,
                                           train_steps=12, eval_steps=2, **experiment_kw)

    rc = tf.contrib.learn.RunConfig(model_dir=str(tmp_path), tf_random_seed=3,
                                    save_checkpoints_steps=5, save_checkpoints_secs=None)
    result, exports = tf.contrib.learn.learn_runner.run(experiment_fn, run_config=rc)
    evals = {}
    for sub in tmp_path.iterdir():
        if sub.is_dir():
            evals[sub.name] = [e.step for ev in sorted(sub.iterdir())
                               for e in tf.train.summary_iterator(str(ev)) if e.summary.value]
    return result, exports, evals


def test_experiment_trains_in_one_run_and_evaluates_new_checkpoints(tmp_path):
    # TF 1.15: train_and_evaluate trains to train_steps in one input pass (it did 3+3+3+3
    # with the input restarted each time); a ValidationMonitor evaluates each new checkpoint
    # every min_eval_frequency steps; checkpoint_and_export evaluates each saved checkpoint
    import numpy as np

    result, exports, evals = _experiment_run(tmp_path / "a", min_eval_frequency=3,
                                             check_interval_secs=0)
    assert result["global_step"] == 12 and exports == []
    np.testing.assert_allclose([result["acc"], result["loss"]], [0.5625, 0.6517248], rtol=1e-6)
    assert evals == {"eval": [0, 0, 5, 5, 10, 10, 12, 12]}
    _, _, evals = _experiment_run(tmp_path / "b", min_eval_frequency=0)
    assert evals == {"eval": [12, 12]}
    result, _, evals = _experiment_run(tmp_path / "c", checkpoint_and_export=True)
    assert result["global_step"] == 12
    assert evals == {"eval_intermediate_export": [0, 0, 5, 5, 10, 10, 12, 12]}


def test_variable_classes_are_tf_1_15s():
    # TF 1.15: type(v) is RefVariable, or ResourceVariable with use_resource (Keras's and a
    # distribution strategy's variables are resource ones); both are tf.Variable
    from tideflow.python.ops import resource_variable_ops

    with tf.Graph().as_default():
        a = tf.Variable(1.0)
        b = tf.get_variable("b", [])
        c = tf.get_variable("c", [], use_resource=True)
        d = tf.Variable(1.0, use_resource=True)
        e = tf.keras.backend.variable(1.0)
        f = resource_variable_ops.ResourceVariable(2.0)
        with tf.distribute.OneDeviceStrategy("/cpu:0").scope():
            g = tf.Variable(3.0)
        names = [type(v).__name__ for v in (a, b, c, d, e, f, g)]
        assert names == ["RefVariable", "RefVariable", "ResourceVariable", "ResourceVariable",
                         "ResourceVariable", "ResourceVariable", "ResourceVariable"]
        assert all(isinstance(v, tf.Variable) for v in (a, b, c, d, e, f, g))
        assert repr(f) == "<tf.Variable 'Variable_3:0' shape=() dtype=float32>"  # (TF 1.15's)
        assert [resource_variable_ops.is_resource_variable(v) for v in (a, f)] == [False, True]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run([a, f, g]) == [1.0, 2.0, 3.0]


def test_stop_at_step_and_validation_monitor_are_callback_monitors(tmp_path):
    # TF 1.15: both are BaseMonitors run by the adapter hook (ValidationMonitor an EveryN);
    # the figures below were printed by TF 1.15 for this program
    import numpy as np

    monitors = tf.contrib.learn.monitors

    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(features["x"] * w - labels))
        step = tf.train.get_or_create_global_step()
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train)

    def input_fn():
        x = np.array([1.0, 2.0, 3.0], np.float32)
        return {"x": tf.constant(x)}, tf.constant(2.0 * x)

    est = tf.estimator.Estimator(model_fn, config=tf.estimator.RunConfig(
        model_dir=str(tmp_path), save_checkpoints_steps=2))
    stop = monitors.StopAtStep(num_steps=3)
    vm = monitors.ValidationMonitor(input_fn=input_fn, every_n_steps=2, eval_steps=1,
                                    check_interval_secs=None, early_stopping_rounds=3)
    assert isinstance(stop, monitors.BaseMonitor) and isinstance(vm, monitors.EveryN)
    assert (stop.run_on_all_workers, vm.run_on_all_workers) == (True, False)
    est.train(input_fn, steps=100, hooks=monitors.replace_monitors_with_hooks([stop, vm], est))
    assert est.get_variable_value("global_step") == 3
    assert vm.best_step == 2 and round(float(vm.best_value), 5) == 0.00037
    assert sorted(vm.best_metrics) == ["global_step", "loss"] and not vm.early_stopped
    vm2 = monitors.ValidationMonitor(input_fn=input_fn, every_n_steps=1, eval_steps=1,
                                     check_interval_secs=None, early_stopping_rounds=1,
                                     early_stopping_metric_minimize=False)
    est.train(input_fn, steps=100, hooks=monitors.replace_monitors_with_hooks([vm2], est))
    assert est.get_variable_value("global_step") == 5
    assert vm2.best_step == 4 and vm2.early_stopped
    with pytest.raises(ValueError, match="One of num_steps or last_step must be specified"):
        monitors.StopAtStep()


def test_fetched_identity_of_a_feed_is_a_new_array():
    # TF 1.15: an Identity (or any op) of a fed array comes back as a new array, so refilling
    # the feed buffer leaves the result alone; a fed tensor fetched itself is the fed object
    import numpy as np

    with tf.Graph().as_default():
        ph = tf.placeholder(tf.float32, [3])
        ph2 = tf.placeholder(tf.int32, [2])
        outs = [tf.identity(ph), ph, tf.cast(ph, tf.float32), tf.stop_gradient(ph),
                tf.identity(ph2)]
        arr = np.array([1., 2., 3.], np.float32)
        a2 = np.array([4, 5], np.int32)
        with tf.Session() as sess:
            r = sess.run(outs, {ph: arr, ph2: a2})
            assert [x is arr for x in r] == [False, True, True, False, False]
            arr[0] = -9
            a2[0] = -9
            assert [x.tolist() for x in r] == [[1, 2, 3], [-9, 2, 3], [-9, 2, 3], [1, 2, 3],
                                               [4, 5]]
