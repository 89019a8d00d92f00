"""Parity of tf.contrib's framework, training, metrics, lookup, image, opt, layers and
distributions helpers with TF 1.15 (expected values from running TF 1.15)."""

import numpy as np
import pytest

import tideflow as tf


def test_create_train_op_empty_or_untrainable_variables_assert():
    # TF 1.15 checks variables_to_train with bare asserts: AssertionError, in contrib.training
    # and in slim (which calls it)
    with tf.Graph().as_default():
        v = tf.Variable(1.0)
        frozen = tf.Variable(2.0, trainable=False)
        loss = tf.square(v) + frozen
        opt = tf.train.GradientDescentOptimizer(0.1)
        with pytest.raises(AssertionError):
            tf.contrib.training.create_train_op(loss, opt, variables_to_train=[])
        with pytest.raises(AssertionError):
            tf.contrib.training.create_train_op(loss, opt, variables_to_train=[frozen])
        with pytest.raises(AssertionError):
            tf.contrib.slim.learning.create_train_op(loss, opt, variables_to_train=[])
        train_op = tf.contrib.slim.learning.create_train_op(loss, opt, clip_gradient_norm=0.1)
        assert train_op.name == "train_op/control_dependency:0"
        # the optimizer's apply op first, as TF 1.15's apply_gradients adds it too
        assert [t.name for t in tf.get_collection(tf.GraphKeys.TRAIN_OP)] == [
            "GradientDescent", "train_op/control_dependency:0"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(train_op)
            # the gradient 2.0 clipped to 0.1, times the learning rate
            np.testing.assert_allclose(sess.run(v), 0.99, rtol=1e-6)


def test_metric_op_names_and_mean_tensor_message():
    # TF 1.15: f1_score's value and update are unnamed reduce_max ops (f1/Max, f1/Max_1) after
    # precision_value/recall_value and precision_update/recall_update; streaming_concat's
    # update op is the size's assign, streaming_concat/Assign
    with tf.Graph().as_default():
        pred = tf.placeholder(tf.float32, [None])
        lab = tf.placeholder(tf.float32, [None])
        value, update = tf.contrib.metrics.f1_score(lab, pred, num_thresholds=10)
        assert (value.name, update.name) == ("f1/Max:0", "f1/Max_1:0")
        names = [o.name for o in tf.get_default_graph().get_operations()]
        assert "f1/precision_update" in names and "f1/recall_value" in names
        cat, cat_update = tf.contrib.metrics.streaming_concat(pred)
        assert (cat.name, cat_update.name) == ("streaming_concat/concat:0",
                                               "streaming_concat/Assign:0")
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            for p, l in [([0.9, 0.2, 0.6, 0.4], [1, 0, 0, 1]), ([0.1, 0.8, 0.7, 0.3], [0, 1, 1, 1])]:
                sess.run([update, cat_update], {pred: p, lab: l})
            # TF 1.15 prints 0.9090909 and the eight predictions in order
            np.testing.assert_allclose(sess.run(value), 0.9090909, rtol=1e-6)
            np.testing.assert_allclose(sess.run(cat), [0.9, 0.2, 0.6, 0.4, 0.1, 0.8, 0.7, 0.3])
        # TF 1.15 fails building the variables of a partially known shape with this message
        with pytest.raises(ValueError, match=r"Cannot convert a partially known TensorShape "
                                             r"to a Tensor: \(\?, 1\)"):
            tf.contrib.metrics.streaming_mean_tensor(tf.reshape(pred, [-1, 1]))


def test_lookup_table_op_names_and_insert_shape_error(tmp_path):
    # TF 1.15 names MutableHashTable's ops by type inside their scopes
    # (mht_Size/LookupTableSizeV2) and index_to_string_table_from_file's initializer
    # table_init; a badly shaped insert fails with the kernel's TensorShape words
    vocab = tmp_path / "vocab.txt"
    vocab.write_text("apple\nbanana\ncherry\n")
    with tf.Graph().as_default() as g:
        names = tf.contrib.lookup.index_to_string_table_from_file(str(vocab))
        table = tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, default_value=-1,
                                                   name="mht")
        insert = table.insert(tf.constant(["k1", "k2"]), tf.constant([5, 6], tf.int64))
        found = table.lookup(tf.constant(["k2", "none"]))
        size = table.size()
        remove = table.remove(tf.constant(["k1"]))
        assert insert.name == "mht_lookup_table_insert/LookupTableInsertV2"
        assert found.name == "mht_lookup_table_find/LookupTableFindV2:0"
        assert size.name == "mht_Size/LookupTableSizeV2:0"
        assert remove.name == "mht_lookup_table_remove/LookupTableRemoveV2"
        assert [o.name for o in g.get_collection(tf.GraphKeys.TABLE_INITIALIZERS)] == [
            "index_to_string/table_init/InitializeTableFromTextFileV2"]
        bad = table.insert(tf.constant(["a"]), tf.constant([1, 2], tf.int64))
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            sess.run(insert)
            assert sess.run(found).tolist() == [6, -1]
            sess.run(remove)
            assert sess.run(size) == 1
            assert sess.run(names.lookup(tf.constant([2, 7], tf.int64))).tolist() == [
                b"cherry", b"UNK"]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected shape \[1\] for value, got \[2\]"):
                sess.run(bad)


def test_bilinear_transform_rounds_as_tf_kernel():
    # TF 1.15's ImageProjectiveTransformV2 interpolates in float32, along x on both rows and
    # then along y; these are its values bit for bit (tap weights multiplied out first were
    # an ulp off at pixels 0 and 2)
    img = np.array([[[[47.3], [201.7], [13.1]], [[155.9], [99.9], [250.3]],
                     [[7.7], [88.8], [171.2]]]], np.float32)
    tr = np.array([[0.9, 0.13, 0.37, -0.21, 1.1, 0.61, 0.0, 0.0]], np.float32)
    want = np.array([123.18672180175781, 146.6699981689453, 48.279441833496094,
                     71.34849548339844, 140.91000366210938, 159.1527099609375,
                     11.170673370361328, 52.98881149291992, 59.526248931884766], np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        out = sess.run(tf.contrib.image.transform(img, tr, interpolation="BILINEAR"))
        np.testing.assert_array_equal(out.reshape(-1), want)
        out8 = sess.run(tf.contrib.image.transform(img.astype(np.uint8), tr,
                                                   interpolation="BILINEAR"))
        assert out8.reshape(-1).tolist() == [122, 146, 48, 70, 140, 158, 11, 52, 59]


def test_scipy_optimizer_interface_graph_and_minimize():
    pytest.importorskip("scipy")
    # TF 1.15 builds per variable an update placeholder, reshape and assign, then the packed
    # variables and gradients (Reshape_1, Reshape_2 for one variable, concats for two); the
    # variables are fed while SciPy searches, minimize returns None, and keyword arguments
    # minimize sets itself are refused
    with tf.Graph().as_default() as g:
        a = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="a")
        b = tf.Variable(0.0, name="b")
        loss = tf.reduce_sum(tf.square(a - 1.5)) + tf.square(b + 2.0)
        opt = tf.contrib.opt.ScipyOptimizerInterface(loss, var_list=[a],
                                                     options={"maxiter": 20})
        assert [op.name for op in g.get_operations()][-4:] == [
            "Reshape_1/shape", "Reshape_1", "Reshape_2/shape", "Reshape_2"]
        jac = tf.contrib.opt.ScipyOptimizerInterface(loss, jac=False)
        assert [op.name for op in g.get_operations()][-6:] == [
            "Reshape_7/shape", "Reshape_7", "Reshape_8/shape", "Reshape_8", "concat_1/axis",
            "concat_1"]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            steps = []
            assert opt.minimize(sess, step_callback=lambda xk: steps.append(xk.dtype)) is None
            np.testing.assert_allclose(sess.run(a), np.full([2, 2], 1.5), atol=1e-5)
            assert sess.run(b) == 0.0 and steps[0] == np.float64
            with pytest.raises(ValueError, match="Optimizer keyword arg 'jac' is set "
                                                 "automatically and cannot be injected"):
                jac.minimize(sess)
    with tf.Graph().as_default():
        v = tf.Variable([0.5, 0.5], name="v")
        opt = tf.contrib.opt.ScipyOptimizerInterface(
            tf.square(v[0]) + tf.square(v[1]), equalities=[v[0] + v[1] - 1.0],
            inequalities=[v[0] - 0.7], method="SLSQP")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            opt.minimize(sess)
            np.testing.assert_allclose(sess.run(v), [0.7, 0.3], atol=1e-4)


def test_decoupled_weight_decay_class_name():
    # TF 1.15 returns its OptimizerWithDecoupledWeightDecay class as it is
    adamw = tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.AdamOptimizer)
    assert adamw.__name__ == "OptimizerWithDecoupledWeightDecay"


def test_contrib_layers_transform_features():
    # TF 1.15's tf.contrib.layers.transform_features: {column: ids or bucket ids}; these
    # values are what it prints
    layers = tf.contrib.layers
    color = layers.sparse_column_with_keys("color", keys=["red", "green", "blue"])
    city = layers.sparse_column_with_hash_bucket("city", hash_bucket_size=10)
    age = layers.bucketized_column(layers.real_valued_column("age"), boundaries=[18, 30, 50])
    with tf.Graph().as_default():
        feats = {
            "color": tf.SparseTensor([[0, 0], [1, 0], [2, 0]],
                                     tf.constant(["red", "blue", "pink"]), [3, 1]),
            "city": tf.SparseTensor([[0, 0], [1, 0], [2, 0]],
                                    tf.constant(["paris", "rome", "oslo"]), [3, 1]),
            "age": tf.constant([[10.0], [35.0], [70.0]]),
        }
        out = layers.transform_features(feats, [color, age, city])
        assert set(out) == {color, age, city}
        with tf.Session() as sess:
            sess.run(tf.tables_initializer())
            assert sess.run(out[color]).values.tolist() == [0, 2, -1]
            assert sess.run(out[city]).values.tolist() == [7, 2, 8]
            assert sess.run(out[age]).tolist() == [[0], [2], [3]]


def test_contrib_util_op_lists():
    # TF 1.15's tf.contrib.util also holds ops_used_by_graph_def and
    # stripped_op_list_for_graph (the op types a GraphDef uses; OpDefs sorted by name)
    with tf.Graph().as_default() as g:
        c = tf.constant([1, 2, 3])
        tf.concat([tf.cast(c, tf.float32), tf.range(3.0)], 0)
        gd = g.as_graph_def()
    assert sorted(tf.contrib.util.ops_used_by_graph_def(gd)) == [
        "Cast", "ConcatV2", "Const", "Range"]
    assert [o.name for o in tf.contrib.util.stripped_op_list_for_graph(gd).op] == [
        "Cast", "ConcatV2", "Const", "Range"]


def test_add_n_sums_in_tf_kernel_order():
    # TF 1.15's AddN kernel sums the first n % 8 inputs, then adds each further block of 8
    # (summed on its own): with 1e8, eight or sixteen ones and -1e8 it prints [8. 4.] and
    # 16.0 where a left-to-right float32 sum gives 0 (get_total_loss over 10+ losses)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = [1e8] + [1.0] * 8 + [-1e8]
        ph = [tf.placeholder(tf.float32, [2]) for _ in x]
        out = sess.run(tf.add_n(ph), {p: [a, a / 2] for p, a in zip(ph, x)})
        assert out.tolist() == [8.0, 4.0]
        x = [1e8] + [1.0] * 16 + [-1e8]
        ph = [tf.placeholder(tf.float32, []) for _ in x]
        assert sess.run(tf.add_n(ph), dict(zip(ph, x))) == 16.0
        # TF's own words for None weights (convert_to_tensor's)
        with pytest.raises(ValueError, match=r"^None values not supported\.$"):
            tf.contrib.losses.log_loss(tf.ones([2]), tf.ones([2]), weights=None)


def test_contrib_metrics_count_ops():
    # TF 1.15: count's value is an Identity of its variable (count/Identity), and the values
    # are cast to float only when weights are given
    with tf.Graph().as_default() as g:
        value, update = tf.contrib.metrics.count(tf.constant([1, 2, 3]))
        assert (value.name, update.name) == ("count/Identity:0", "count/AssignAdd:0")
        assert [o.name for o in g.get_operations()][:4] == [
            "Const", "count/count/Initializer/zeros", "count/count", "count/count/Assign"]
        with tf.Session() as sess:
            sess.run(tf.local_variables_initializer())
            sess.run(update)
            assert sess.run(value) == 3.0


def test_bipartite_match_returns_named_tuple():
    # TF 1.15 returns the op wrapper's BipartiteMatch namedtuple
    with tf.Graph().as_default(), tf.Session() as sess:
        m = tf.contrib.image.bipartite_match(
            tf.constant([[0.1, 0.9], [0.8, 0.2], [0.5, 0.5]]), num_valid_rows=3)
        assert type(m).__name__ == "BipartiteMatch"
        out = sess.run(m)
        assert out.row_to_col_match_indices.tolist() == [0, 1, -1]
        assert out.col_to_row_match_indices.tolist() == [0, 1]


def test_arg_scope_errors_read_as_tf():
    # TF 1.15's ValueErrors, printed: the undecorated function's as a (format, (module,
    # name)) tuple, and the reused-scope one with its missing space
    def plain(a, b=1):
        return a + b

    with pytest.raises(ValueError) as e:
        tf.contrib.framework.arg_scope([plain], b=2).__enter__()
    assert str(e.value) == (f"('%s is not decorated with @add_arg_scope', "
                            f"('{__name__}', 'plain'))")
    with tf.contrib.framework.arg_scope([tf.contrib.layers.conv2d], padding="VALID") as sc:
        pass
    with pytest.raises(ValueError, match="^When attempting to re-use a scope by suppling "
                                         "adictionary, kwargs must be empty.$"):
        tf.contrib.framework.arg_scope(sc, stride=2).__enter__()


def test_spatial_softmax_temperature_in_its_variable_scope():
    # TF 1.15 opens a variable scope, so the temperature is spatial_softmax/temperature
    with tf.Graph().as_default():
        x = tf.ones([2, 5, 5, 3])
        out = tf.contrib.layers.spatial_softmax(x)
        out2 = tf.contrib.layers.spatial_softmax(x, temperature=2.0)
        assert [v.op.name for v in tf.global_variables()] == [
            "spatial_softmax/temperature", "spatial_softmax_1/temperature"]
        assert out.name == "spatial_softmax/spatial_softmax_op/Reshape_3:0"
        assert out2.get_shape().as_list() == [2, 6]


def test_npairs_loss_multilabel_adjacency_is_sum_of_minimums():
    # TF 1.15 builds the label adjacency from sparse_minimum (implicit zeros) of each pair of
    # label rows, so labels given as class values (not 0/1 indicators) still pair up; its
    # loss on these inputs is 3.4319537
    rs = np.random.RandomState(7)
    emb = rs.randn(8, 4).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        labels = [tf.SparseTensor([[0, 0]], tf.constant([v], tf.int64), [1, 1])
                  for v in (1, 2, 1, 3)]
        loss = tf.contrib.losses.metric_learning.npairs_loss_multilabel(
            labels, tf.constant(emb[:4]), tf.constant(emb[4:]))
        np.testing.assert_allclose(sess.run(loss), 3.4319537, rtol=1e-6)


def test_metric_weights_one_rank_higher_are_squeezed():
    # TF 1.15 squeezes weights one rank above the values whatever the last size, so a
    # [2, 2] weight on [?] values fails in the Squeeze shape function
    with tf.Graph().as_default():
        values = tf.placeholder(tf.float32, [None])
        with pytest.raises(ValueError, match=r"Can not squeeze dim\[1\], expected a dimension "
                                             r"of 1, got 2 for 'mean/Squeeze'"):
            tf.contrib.metrics.streaming_mean(values, weights=tf.ones([2, 2]))


def test_sum_over_no_axes_keeps_negative_zero():
    # TF 1.15's Sum over no axes hands its input on, so -0.0 stays -0.0 (Affine's log det
    # Jacobian of scales 2 and 0.5 negates it twice and prints 0.0)
    with tf.Graph().as_default(), tf.Session() as sess:
        p = tf.placeholder(tf.float32, [])
        out = sess.run(tf.reduce_sum(p * 1.0, axis=[]), {p: -0.0})
        assert out == 0.0 and np.signbit(out)
        affine = tf.contrib.distributions.bijectors.Affine(shift=[1.0, 2.0],
                                                           scale_diag=[2.0, 0.5])
        fldj = sess.run(affine.forward_log_det_jacobian([1.0, 1.0], event_ndims=1))
        assert fldj == 0.0 and not np.signbit(fldj)


def test_contrib_lookup_tensor_tables_take_mapping():
    # tf.contrib.lookup's tensor tables take `mapping` (TF 1.15: "mapping must be
    # specified."); the core check on buckets reads "greater or equal than 0"
    lookup = tf.contrib.lookup
    with tf.Graph().as_default(), tf.Session() as sess:
        ids = lookup.index_table_from_tensor(mapping=tf.constant(["a", "b"]), num_oov_buckets=1)
        names = lookup.index_to_string_table_from_tensor(mapping=["x", "y"])
        sess.run(tf.tables_initializer())
        assert sess.run(ids.lookup(tf.constant(["b", "a"]))).tolist() == [1, 0]
        assert sess.run(names.lookup(tf.constant([1, 4], tf.int64))).tolist() == [b"y", b"UNK"]
        with pytest.raises(ValueError, match="^mapping must be specified.$"):
            lookup.index_table_from_tensor(None)
        with pytest.raises(ValueError, match="^mapping must be specified.$"):
            lookup.index_to_string_table_from_tensor(None)
        with pytest.raises(ValueError, match="^num_oov_buckets must be greater or equal than 0, "
                                             "got -1.$"):
            lookup.index_table_from_tensor(["a"], num_oov_buckets=-1)


def test_assign_from_checkpoint_fn_restores_partitioned_variables(tmp_path):
    # TF 1.15 hands the list to a Saver, which keys a partitioned variable's parts by its
    # full name: a table saved in 2 parts restores into 3
    table = np.arange(12, dtype=np.float32).reshape(6, 2)
    with tf.Graph().as_default():
        with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(2)):
            tf.get_variable("table", initializer=tf.constant(table))
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
    with tf.Graph().as_default():
        with tf.variable_scope("emb", partitioner=tf.fixed_size_partitioner(3)):
            parts = list(tf.get_variable("table", shape=[6, 2]))
        restore = tf.contrib.framework.assign_from_checkpoint_fn(
            path, tf.contrib.framework.get_variables_to_restore())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            restore(sess)
            np.testing.assert_array_equal(sess.run(tf.concat(parts, 0)), table)


def test_sort_axis_out_of_range_fails_in_strided_slice():
    # TF 1.15 takes the size along the axis first (shape(values)[axis]), so a static axis
    # out of range is that StridedSlice's shape error
    with tf.Graph().as_default():
        x = tf.zeros([2, 4])
        with pytest.raises(ValueError, match=r"^slice index 2 of dimension 0 out of bounds\. "
                                             r"for 'sort/strided_slice'"):
            tf.contrib.framework.sort(x, axis=2)
