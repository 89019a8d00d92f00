"""tf.train and tf.summary behaviour that TF 1.15's own training tests exercise and tideflow
differed on: internal import paths those tests (and user programs) use, optimizers on
variables of unknown static shape, and the other parity points found while running them."""

import numpy as np
import pytest

import tideflow as tf


def test_internal_paths_for_training_programs():
    from tideflow.python.framework import ops
    from tideflow.python.ops import gradients_util
    from tideflow.python.training import training_ops

    assert ops.IndexedSlices is tf.IndexedSlices
    assert gradients_util.AggregationMethod is tf.AggregationMethod
    with tf.Graph().as_default():
        var = tf.Variable([1.0, 2.0])
        out = training_ops.apply_gradient_descent(var, 0.5, tf.constant([2.0, -4.0]))
        with tf.Session() as sess:
            sess.run(var.initializer)
            np.testing.assert_allclose(sess.run(out), [0.0, 4.0])


def test_get_variable_with_argumentless_callable_and_unknown_shape():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=lambda: tf.zeros([3]) + 2.0, validate_shape=False)
        assert v.shape.ndims is None
        with tf.Session() as sess:
            sess.run(v.initializer)
            np.testing.assert_allclose(sess.run(v), [2.0, 2.0, 2.0])
        # a zero-argument initializer with no shape is also accepted when validate_shape holds
        w = tf.get_variable("w", initializer=lambda: tf.ones([2, 2]))
        assert w.shape.as_list() == [2, 2]
        with pytest.raises(ValueError, match="fully defined"):
            tf.get_variable("x", initializer=tf.zeros_initializer())


def test_adagrad_on_variable_of_unknown_shape():
    with tf.Graph().as_default():
        init = tf.placeholder(tf.float32)
        var = tf.get_variable("var", initializer=init, validate_shape=False)
        opt = tf.train.AdagradOptimizer(3.0, initial_accumulator_value=0.1)
        step = opt.apply_gradients([(tf.constant([0.1, 0.2]), var)])
        accum = opt.get_slot(var, "accumulator")
        assert accum.op.name == "var/Adagrad"
        assert accum.shape.ndims is None
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer(), {init: [1.0, 2.0]})
            np.testing.assert_allclose(sess.run(accum), [0.1, 0.1])
            var_np, acc_np = np.array([1.0, 2.0]), np.array([0.1, 0.1])
            g = np.array([0.1, 0.2])
            for _ in range(3):
                sess.run(step)
                acc_np = acc_np + g * g
                var_np = var_np - 3.0 * g / np.sqrt(acc_np)
            np.testing.assert_allclose(sess.run(var), var_np, rtol=1e-6)
            np.testing.assert_allclose(sess.run(accum), acc_np, rtol=1e-6)


def test_more_internal_paths():
    from tideflow.python.training.checkpoint_state_pb2 import CheckpointState
    from tideflow.python.training.tracking import util

    from tideflow.python.ops import variables
    from tideflow.python.platform import googletest
    from tideflow.python.training import checkpoint_management, learning_rate_decay

    assert variables.VariableV1 is tf.Variable
    assert googletest.main is tf.test.main
    assert googletest.GetTempDir() == tf.test.get_temp_dir()
    assert learning_rate_decay.noisy_linear_cosine_decay is tf.train.noisy_linear_cosine_decay
    from tideflow.protos import checkpoint_state_pb2

    assert CheckpointState is checkpoint_state_pb2.CheckpointState
    assert util.Checkpoint is tf.train.Checkpoint
    assert checkpoint_management.CheckpointManager is tf.train.CheckpointManager


def test_generate_checkpoint_state_appends_to_the_callers_list():
    # TF appends the model path to the list passed in when the list does not end with it
    paths = ["/ckpt/model-2"]
    state = tf.train.generate_checkpoint_state_proto("/ckpt", "/ckpt/model-0",
                                                     all_model_checkpoint_paths=paths)
    assert paths == ["/ckpt/model-2", "/ckpt/model-0"]
    assert list(state.all_model_checkpoint_paths) == paths
    same = ["/ckpt/model-0"]
    tf.train.generate_checkpoint_state_proto("/ckpt", "/ckpt/model-0",
                                             all_model_checkpoint_paths=same)
    assert same == ["/ckpt/model-0"]


class _DecoratedCase(tf.test.TestCase):
    from tideflow.python.framework import test_util as _tu

    @_tu.run_in_graph_and_eager_modes
    def test_graph_half_has_a_default_session(self):
        assert tf.get_default_session() is not None
        assert tf.get_default_session().graph is tf.get_default_graph()

    @_tu.run_in_graph_and_eager_modes
    @_tu.run_v1_only("stacked")
    def test_stacked_decorators_share_the_graph(self):
        v = tf.Variable(3.0)
        self.evaluate(tf.global_variables_initializer())
        assert self.evaluate(v) == 3.0


def test_run_in_graph_and_eager_modes_runs_inside_a_session():
    import unittest

    suite = unittest.TestLoader().loadTestsFromTestCase(_DecoratedCase)
    result = unittest.TestResult()
    suite.run(result)
    assert result.wasSuccessful(), result.errors + result.failures
    assert result.testsRun >= 2


def test_weighted_moving_average():
    from tideflow.python.training import moving_averages

    with tf.Graph().as_default():
        value = tf.placeholder(tf.float32, [])
        weight = tf.placeholder(tf.float32, [])
        wma = moving_averages.weighted_moving_average(value, 0.5, weight)
        assert wma.op.name == "WeightedMovingAvg/WeightedMovingAvg"
        assert sorted(v.op.name for v in tf.global_variables()) == [
            "WeightedMovingAvg/value_x_weight", "WeightedMovingAvg/weight"]
        num = den = 0.0
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for v, w in [(3.0, 4.0), (11.0, 22.0), (-2.0, 1.0)]:
                num = num * 0.5 + v * w * 0.5
                den = den * 0.5 + w * 0.5
                np.testing.assert_allclose(sess.run(wma, {value: v, weight: w}), num / den,
                                           rtol=1e-6)


def test_ema_apply_twice_reuses_the_shadow():
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        ema = tf.train.ExponentialMovingAverage(0.25)
        first = ema.apply([v])
        shadow = ema.average(v)
        second = ema.apply([v])  # TF 1.15 accepts this (TF 1.4 raised)
        assert ema.average(v) is shadow
        assert len(tf.global_variables()) == 2
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(first)
            sess.run(v.assign(2.0))
            sess.run(second)
            assert sess.run(shadow) == 0.25 * 1.0 + 0.75 * 2.0


def test_increment_global_step_and_its_read():
    from tideflow.python.training import training_util

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="get_or_create_global_step"):
            training_util._increment_global_step(1)
        step = tf.train.get_or_create_global_step()
        inc = training_util._increment_global_step(3)
        read = training_util._get_or_create_global_step_read()
        assert inc.op.name == "global_step/AssignAdd"
        assert read.op.name == "global_step/add"
        assert tf.get_collection("global_step_read_op_cache") == [read]
        assert training_util._get_or_create_global_step_read() is read
        with tf.Session() as sess:
            sess.run(step.initializer)
            assert sess.run(inc) == 3
            assert sess.run(inc) == 6
            assert sess.run(read) == 6


class _NoSuperSetUp(tf.test.TestCase):
    def setUp(self):  # does not call TestCase.setUp, as some of TF's tests do
        self.value = 2.0

    def test_session_helpers_still_work(self):
        with self.cached_session() as sess:
            assert sess.run(tf.constant(self.value) * 2) == 4.0


def test_test_case_without_its_set_up():
    import unittest

    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(_NoSuperSetUp).run(result)
    assert result.wasSuccessful(), result.errors + result.failures


def test_gen_training_and_lookup_op_modules():
    from tideflow.python.ops import gen_lookup_ops, gen_training_ops

    with tf.Graph().as_default():
        var = tf.Variable([1.0, 2.0])
        accum = tf.Variable([0.5, 0.5])
        upd = gen_training_ops.apply_momentum(var, accum, 0.1, tf.constant([1.0, -1.0]), 0.9)
        table = tf.contrib.lookup.MutableHashTable(tf.string, tf.float32, -1.0)
        imp = gen_lookup_ops.lookup_table_import_v2(table.resource_handle,
                                                    tf.constant(["a", "b"]),
                                                    tf.constant([3.0, 4.0]))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            # accum = 0.9 * 0.5 + g; var -= 0.1 * accum
            np.testing.assert_allclose(sess.run(upd), [1.0 - 0.1 * 1.45, 2.0 + 0.1 * 0.55],
                                       rtol=1e-6)
            sess.run(imp)
            np.testing.assert_allclose(sess.run(table.lookup(tf.constant(["b", "z"]))),
                                       [4.0, -1.0])


def test_variable_shared_name():
    with tf.Graph().as_default():
        with tf.variable_scope("outer"):
            v = tf.get_variable("w", [2], use_resource=True)
        assert v._shared_name == "outer/w"


def test_saver_missing_parent_directories(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(7.0, name="v")
        saver = tf.train.Saver({"v": v})
        with tf.Session() as sess:
            sess.run(v.initializer)
            # as TF, one missing directory level is created, two are an error
            path = str(tmp_path / "a" / "ckpt")
            assert saver.save(sess, path) == path
            with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
                saver.save(sess, str(tmp_path / "b" / "c" / "ckpt"))
            sess.run(v.assign(0.0))
            saver.restore(sess, path)
            assert sess.run(v) == 7.0
            blocker = tmp_path / "a_file"
            blocker.write_text("")
            bad = str(blocker / "ckpt")
            with pytest.raises(ValueError, match="Parent directory of .* doesn't exist, can't save"):
                saver.save(sess, bad)
            with pytest.raises(tf.errors.UnimplementedError, match="scheme 'gs' not implemented"):
                saver.save(sess, "gs://bucket/ckpt")


def test_checkpoint_exists_matches_the_prefix_itself(tmp_path):
    with tf.Graph().as_default():
        v = tf.Variable(1.0, name="v")
        saver = tf.train.Saver({"v": v})
        with tf.Session() as sess:
            sess.run(v.initializer)
            path = saver.save(sess, str(tmp_path / "model"))
    assert tf.train.checkpoint_exists(path)
    # TF falls back to the files the prefix itself matches (V1 checkpoints, a .meta file)
    assert tf.train.checkpoint_exists(path + ".meta")
    assert tf.train.checkpoint_exists(str(tmp_path / "mod*"))
    assert not tf.train.checkpoint_exists(str(tmp_path / "other"))


def test_collection_def_with_mixed_number_types_is_skipped():
    from tideflow.protos import meta_graph_pb2
    from tideflow.python.training import queue_runner_impl

    assert queue_runner_impl.QueueRunner is tf.train.QueueRunner
    with tf.Graph().as_default():
        tf.Variable(1.0, name="v")
        saver = tf.train.Saver()
        tf.add_to_collection("ints", 3)
        tf.add_to_collection("ints", 4)
        tf.add_to_collection("mixed", 3)
        tf.add_to_collection("mixed", 3.5)
        tf.add_to_collection("with_bool", 2)
        tf.add_to_collection("with_bool", True)
        mgd = meta_graph_pb2.MetaGraphDef()
        for key in ("ints", "mixed", "with_bool"):
            saver._add_collection_def(mgd, key)
        # TF's int64 field refuses 3.5 and True: those collections are left out
        assert list(mgd.collection_def) == ["ints"]
        assert list(mgd.collection_def["ints"].int64_list.value) == [3, 4]


def test_meta_graph_round_trip_helpers(tmp_path):
    import unittest

    from tideflow.python.framework import test_util

    filename = str(tmp_path / "meta")
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        tf.complex(v, v, name="c")
        tf.add_to_collection("numbers", 4)
        saver = tf.train.Saver()
        original = saver.export_meta_graph(filename)
        node = test_util.get_node_def_from_graph("c", original.graph_def)
        assert node.op == "Complex"
        assert test_util.get_node_def_from_graph("missing", original.graph_def) is None
    with tf.Graph().as_default():
        again = tf.train.import_meta_graph(filename).export_meta_graph()
    case = unittest.TestCase()
    case.assertProtoEquals = tf.test.TestCase.assertProtoEquals.__get__(case)
    test_util.assert_meta_graph_protos_equal(case, original, again)


def test_import_meta_graph_into_the_enclosing_name_scope(tmp_path):
    prefix = str(tmp_path / "ckpt")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 2], name="x")
        w = tf.Variable([[1.0], [2.0]], name="w")
        tf.matmul(x, w, name="y")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(w.initializer)
            saver.save(sess, prefix)
    with tf.Graph().as_default() as g:
        # no import_scope: the enclosing name scope is the scope, as in TF
        with tf.name_scope("outer"):
            restorer = tf.train.import_meta_graph(prefix + ".meta")
        assert [v.op.name for v in tf.global_variables()] == ["outer/w"]
        with tf.Session() as sess:
            restorer.restore(sess, prefix)
            out = sess.run("outer/y:0", {"outer/x:0": [[3.0, 4.0]]})
            np.testing.assert_allclose(out, [[11.0]])
        assert g.get_operation_by_name("outer/w").type == "VariableV2"


def test_scoped_export_with_unbound_inputs_and_scoped_copy():
    from tideflow.python.framework import meta_graph

    with tf.Graph().as_default() as g1:
        outside = tf.constant([[1.0, 2.0]], name="outside")
        with tf.name_scope("block"):
            w = tf.Variable([[3.0], [4.0]], name="w")
            tf.matmul(outside, w, name="out")
        mgd, var_list = meta_graph.export_scoped_meta_graph(export_scope="block")
        assert sorted(var_list) == ["w:0"]
        matmul = next(n for n in mgd.graph_def.node if n.name == "out")
        assert list(matmul.input) == ["$unbound_inputs_outside", "w/read"]
        assert tf.get_collection("unbound_inputs") == ["$unbound_inputs_outside"]
        assert list(mgd.collection_def["unbound_inputs"].bytes_list.value) == [
            b"$unbound_inputs_outside"]
        # copying within one graph needs two scopes
        with pytest.raises(ValueError, match="need to be different"):
            meta_graph.copy_scoped_meta_graph("block", "block")
    with tf.Graph().as_default() as g2:
        feed = tf.constant([[-1.0, 1.0]], name="feed")
        with pytest.raises(ValueError, match="unbound inputs"):
            meta_graph.import_scoped_meta_graph(mgd, import_scope="imported")
        got = meta_graph.import_scoped_meta_graph(
            mgd, import_scope="imported", input_map={"$unbound_inputs_outside": feed})
        assert sorted(got) == ["w:0"]
        with tf.Session() as sess:
            sess.run(got["w:0"].initializer)
            np.testing.assert_allclose(sess.run("imported/out:0"), [[1.0]])
    with g1.as_default(), tf.name_scope("closed"):
        v = tf.Variable(2.0, name="v")
        tf.multiply(v, 3.0, name="triple")
    # a scope with no input from outside copies as is (one with unbound inputs needs them mapped)
    copied = meta_graph.copy_scoped_meta_graph("closed", "copy", from_graph=g1, to_graph=g2)
    assert sorted(copied) == ["v:0"]
    with g2.as_default(), tf.Session() as sess:
        sess.run(copied["v:0"].initializer)
        assert sess.run("copy/triple:0") == 6.0


def test_batch_of_a_dict_with_keys_of_mixed_types():
    with tf.Graph().as_default():
        # TF orders a dict's tensors by str(key), so keys of any types can be batched
        batched = tf.train.batch({"z": tf.constant(1), 7: tf.constant(2),
                                  ("a", "b"): tf.constant(3)}, batch_size=2)
        assert set(batched) == {"z", 7, ("a", "b")}
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            out = sess.run(batched)
            coord.request_stop()
            coord.join(threads)
        assert out["z"].tolist() == [1, 1]
        assert out[7].tolist() == [2, 2]
        assert out[("a", "b")].tolist() == [3, 3]


def test_maybe_batch_keep_input_errors_and_module_path():
    from tideflow.python.training import input as inp

    assert inp.maybe_batch is tf.train.maybe_batch
    assert inp.maybe_shuffle_batch_join is tf.train.maybe_shuffle_batch_join
    with tf.Graph().as_default():
        x = tf.zeros([5])
        with pytest.raises(ValueError, match="`keep_input` cannot be a vector when "
                                             "`enqueue_many=False`"):
            tf.train.maybe_batch([x], keep_input=tf.constant([True, False]), batch_size=1)
        with pytest.raises(ValueError, match="`keep_input` must be 0 or 1 dimensions"):
            tf.train.maybe_batch([x], keep_input=tf.constant([[True], [False]]), batch_size=1,
                                 enqueue_many=True)
        with pytest.raises(ValueError, match="must be known at graph construction"):
            tf.train.maybe_batch([x], keep_input=tf.placeholder(tf.bool), batch_size=1,
                                 enqueue_many=True)
        rows = tf.constant([[1, 2], [3, 4], [5, 6]])
        kept = tf.train.maybe_batch([rows], keep_input=tf.constant([True, False, True]),
                                    batch_size=2, enqueue_many=True)
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            out = sess.run(kept)
            coord.request_stop()
            coord.join(threads)
        assert out.tolist() == [[1, 2], [5, 6]]


def test_saver_exports_meta_graph_of_a_finalized_graph(tmp_path):
    from tideflow.python.framework import meta_graph

    with tf.Graph().as_default() as g:
        x = tf.constant(1.0, name="x")
        with tf.name_scope("s"):
            v = tf.Variable(2.0, name="v")
            tf.add(x, v, name="y")
        meta_graph.export_scoped_meta_graph(export_scope="s")  # fills unbound_inputs
        saver = tf.train.Saver()
        g.finalize()
        with tf.Session() as sess:
            sess.run(v.initializer)
            # a MonitoredSession's saver writes the meta graph of the finalized graph
            saver.save(sess, str(tmp_path / "m"))
        assert tf.get_collection("unbound_inputs") == []


class _SetUpAgain(tf.test.TestCase):
    def test_set_up_again_gives_a_fresh_graph(self):
        first = tf.get_default_graph()
        tf.constant(1.0, name="a")
        self.setUp()  # TF's training_ops tests start over this way inside one test
        assert tf.get_default_graph() is not first
        assert tf.get_default_graph().get_operations() == []
        with self.session() as sess:
            assert sess.run(tf.constant(2.0)) == 2.0

    def test_decorated_test_calling_set_up(self):
        from tideflow.python.framework import test_util

        @test_util.run_v1_only("graph")
        def body(case):
            case.setUp()
            v = tf.Variable(3.0)
            with case.session():
                case.evaluate(v.initializer)
                assert case.evaluate(v) == 3.0

        body(self)


def test_test_case_set_up_called_twice():
    import unittest

    result = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(_SetUpAgain).run(result)
    assert result.wasSuccessful(), result.errors + result.failures
    assert result.testsRun >= 2


def test_file_writer_meta_graph_and_closed_writer_warnings(tmp_path):
    import glob
    import warnings

    from tideflow.protos import meta_graph_pb2

    with tf.Graph().as_default() as g:
        tf.constant([12], name="douze")
    writer = tf.summary.FileWriter(str(tmp_path), graph=g)
    writer.close()
    events = list(tf.train.summary_iterator(glob.glob(str(tmp_path / "events*"))[0]))
    metas = [e for e in events if e.meta_graph_def]
    assert len(metas) == 1
    meta = meta_graph_pb2.MetaGraphDef.FromString(metas[0].meta_graph_def)
    # as TF's create_meta_graph_def: the ops used, the version strings
    assert [op.name for op in meta.meta_info_def.stripped_op_list.op] == ["Const"]
    assert meta.meta_info_def.tensorflow_version
    assert [n.name for n in meta.graph_def.node] == ["douze"]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        writer.add_summary(tf.Summary())
        writer.add_session_log(tf.SessionLog())
        writer.add_graph(tf.Graph())
    assert [w.category for w in caught] == [UserWarning] * 3
    assert "closed FileWriter" in str(caught[0].message)


def test_profiler_hook_in_basic_session_run_hooks_and_final_ops_warning():
    from tideflow.python.training import basic_session_run_hooks

    assert basic_session_run_hooks.ProfilerHook is tf.train.ProfilerHook
    with tf.Graph().as_default():
        it = tf.data.Dataset.range(1).make_one_shot_iterator()
        nxt = it.get_next()
        hook = tf.train.FinalOpsHook(nxt)
        hook.begin()
        with tf.Session() as sess:
            sess.run(nxt)
            messages = []
            real = tf.logging.warning
            tf.logging.warning = lambda msg, *a, **k: messages.append(msg % a if a else msg)
            try:
                with pytest.raises(tf.errors.OutOfRangeError):
                    hook.end(sess)
            finally:
                tf.logging.warning = real
        assert any("dependency back to some input source" in m for m in messages)


def test_saver_module_get_saver_or_default():
    from tideflow.python.training import saver as saver_module

    with tf.Graph().as_default():
        tf.Variable(1.0)
        saver = saver_module._get_saver_or_default()
        assert tf.get_collection(tf.GraphKeys.SAVERS) == [saver]
        assert saver_module._get_saver_or_default() is saver
        tf.add_to_collection(tf.GraphKeys.SAVERS, tf.train.Saver())
        with pytest.raises(RuntimeError, match="More than one item"):
            saver_module._get_saver_or_default()


def test_step_fn_request_stop_outside_a_with_block_leaves_the_session_running():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32, [])
        doubled = c * 2.0
        sess = tf.train.MonitoredSession()

        def stop(step_context):
            step_context.request_stop()

        with pytest.raises(StopIteration):
            sess.run_step_fn(stop)
        # as TF: only a with block (which swallows the StopIteration and closes) stops it
        assert not sess.should_stop()
        assert sess.run(doubled, {c: 1.5}) == 3.0
        sess.close()
        assert sess.should_stop()
        with tf.train.MonitoredSession() as inside:
            inside.run_step_fn(stop)
        assert inside.should_stop()


def test_initialize_resources_of_resource_variables():
    from tideflow.python.ops import resources

    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=[1.0, 2.0], use_resource=True)
        assert v.create is v.initializer
        with tf.Session() as sess:
            sess.run(resources.initialize_resources([v]))
            np.testing.assert_allclose(sess.run(v), [1.0, 2.0])


def test_profiler_hook_bad_arguments_write_no_event_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError):
        tf.train.ProfilerHook(save_secs=10, save_steps=20)
    assert list(tmp_path.iterdir()) == []


def test_plugin_assets_written_with_the_graph(tmp_path):
    from tideflow.python.summary import plugin_asset

    class Notes(plugin_asset.PluginAsset):
        plugin_name = "notes"

        def assets(self):
            return {"a.txt": "alpha", "b.bin": b"\x00\x01"}

    class Clash(plugin_asset.PluginAsset):
        plugin_name = "notes"

        def assets(self):
            return {}

    with tf.Graph().as_default() as g:
        notes = plugin_asset.get_plugin_asset(Notes)
        assert plugin_asset.get_plugin_asset(Notes) is notes
        assert plugin_asset.get_all_plugin_assets() == [notes]
        with pytest.raises(ValueError, match="collision"):
            plugin_asset.get_plugin_asset(Clash)
    writer = tf.summary.FileWriter(str(tmp_path))
    writer.add_graph(g)
    writer.close()
    assert (tmp_path / "plugins" / "notes" / "a.txt").read_text() == "alpha"
    assert (tmp_path / "plugins" / "notes" / "b.bin").read_bytes() == b"\x00\x01"
