"""Session-7 leftovers: TF 1.x's run-time rules for ``tf.TensorArray`` (write once, reads clear
under clear_after_read, non-resizeable bounds, inferred element shapes, consistent shapes for
stack/gather/concat) with TF's messages, and a session still usable after such a failure;
``MutableDenseHashTable``/``DenseHashTable`` (TF's bucket layout, growth, vector keys and
values, string keys, its errors, Saver round trip); ``tf.contrib.quantize`` rewrites (TF's
fake-quant op and variable names, outputs against a NumPy fake quantization of the float
network, training after the rewrite, eval graphs from a checkpoint, quant_delay, bit widths,
residual blocks and scopes)."""

import numpy as np
import pytest

import tideflow as tf


def _run(fetches, feed_dict=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed_dict)


def _fails(fetches, match, error=tf.errors.InvalidArgumentError, feed_dict=None):
    with pytest.raises(error, match=match):
        _run(fetches, feed_dict)


# ------------------------------------------------------------------------------------------
# 1. TensorArray run-time validation
# ------------------------------------------------------------------------------------------


def _vec(n):
    """A float vector of length n whose static shape is unknown (checks happen at run time)."""
    return tf.placeholder_with_default(np.arange(n, dtype=np.float32), [None])


def test_tensor_array_write_twice_fails():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, 3).write(0, 1.0).write(0, 2.0)
        _fails(ta.stack(), r"TensorArray TensorArray_[0-9]+: Could not write to TensorArray index 0 "
               r"because it has already been written to\.")


def test_tensor_array_write_shape_must_match_inferred_shape():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, 3).write(0, _vec(2)).write(1, _vec(3))
        _fails(ta.stack(), r"Could not write to TensorArray index 1 because the value shape is "
               r"\[3\] which is incompatible with the TensorArray's inferred element shape: "
               r"\[2\] \(consider setting infer_shape=False\)\.")
        # against the declared element_shape, even with infer_shape=False
        ta2 = tf.TensorArray(tf.float32, 1, element_shape=[2], infer_shape=False)
        _fails(ta2.write(0, _vec(3)).read(0), r"index 0 because the value shape is \[3\] .* "
               r"inferred element shape: \[2\]")
        # infer_shape=False lets later writes differ; concat joins them
        ta3 = tf.TensorArray(tf.float32, 2, infer_shape=False)
        ta3 = ta3.write(0, [[1.0, 2.0]]).write(1, [[3.0, 4.0], [5.0, 6.0]])
        np.testing.assert_array_equal(_run(ta3.concat()), [[1, 2], [3, 4], [5, 6]])


def test_tensor_array_read_unwritten_index():
    with tf.Graph().as_default():
        # element shape unknown and nothing written: TF's error
        _fails(tf.TensorArray(tf.float32, 3).read(2),
               r"Could not read from TensorArray index 2\.  Furthermore, the element shape is "
               r"not fully defined: <unknown>\.")
        # the shape inferred from an earlier write, or declared, gives zeros
        got = _run(tf.TensorArray(tf.float32, 3).write(0, _vec(2)).read(2))
        np.testing.assert_array_equal(got, np.zeros(2, np.float32))
        got = _run(tf.TensorArray(tf.float32, 3, element_shape=[2, 1]).read(1))
        np.testing.assert_array_equal(got, np.zeros([2, 1], np.float32))
        # stack fills unwritten items with zeros of the inferred shape
        got = _run(tf.TensorArray(tf.float32, 3).write(1, _vec(2)).stack())
        np.testing.assert_array_equal(got, [[0, 0], [0, 1], [0, 0]])
        # infer_shape=False infers nothing: reading an unwritten index fails
        ta = tf.TensorArray(tf.float32, 2, infer_shape=False).write(0, _vec(2))
        _fails(ta.stack(), r"Could not read from TensorArray index 1\.")


def test_tensor_array_read_twice_clears():
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, 2).unstack([[1.0, 2.0], [3.0, 4.0]])
        msg = (r"Could not read index 0 twice because it was cleared after a previous read "
               r"\(perhaps try setting clear_after_read = false\?\)\.")
        _fails([ta.read(0), ta.read(0)], msg)
        _fails([ta.stack(), ta.stack()], msg)
        _fails(ta.gather([0, 0]), msg)
        # each step has its own array: one read per step runs again and again
        r = ta.read(0)
        with tf.Session() as sess:
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(r), [1, 2])
        # different indices are fine, and size does not read
        got = _run([ta.read(0), ta.gather([1]), ta.size()])
        np.testing.assert_array_equal(got[0], [1, 2])
        np.testing.assert_array_equal(got[1], [[3, 4]])
        assert got[2] == 2
        # clear_after_read=False keeps the items
        keep = tf.TensorArray(tf.float32, 2, clear_after_read=False).unstack([1.0, 2.0])
        assert _run([keep.read(0), keep.read(0), keep.stack()])[2].tolist() == [1, 2]


def test_tensor_array_bounds():
    with tf.Graph().as_default():
        _fails(tf.TensorArray(tf.float32, 3).write(5, 1.0).stack(),
               r"Tried to write to index 5 but array is not resizeable and size is: 3")
        _fails(tf.TensorArray(tf.float32, 3).write(-1, 1.0).stack(),
               r"Tried to write to index -1 but array is not resizeable and size is: 3")
        _fails(tf.TensorArray(tf.float32, 3).write(0, 1.0).read(5),
               r"Tried to read from index 5 but array size is: 3")
        _fails(tf.TensorArray(tf.float32, 3).unstack([1.0, 2.0, 3.0, 4.0, 5.0]).stack(),
               r"Max scatter index must be < array size \(4 vs\. 3\)")
        _fails(tf.TensorArray(tf.float32, 3).scatter([0, 4], [1.0, 2.0]).stack(),
               r"Max scatter index must be < array size \(4 vs\. 3\)")
        # a dynamic array grows; a short unstack leaves zeros
        dyn = tf.TensorArray(tf.float32, 3, dynamic_size=True).write(5, 7.0)
        assert _run([dyn.read(5), dyn.size()]) == [7.0, 6]
        got = _run(tf.TensorArray(tf.float32, 3).unstack([1.0, 2.0]).stack())
        np.testing.assert_array_equal(got, [1, 2, 0])
        # unstack then unstack again writes the same indices twice
        _fails(tf.TensorArray(tf.float32, 3).unstack([1.0]).unstack([2.0]).stack(),
               r"index 0 because it has already been written to")


def test_tensor_array_inconsistent_shapes_for_stack_gather_concat():
    with tf.Graph().as_default():
        def ta():
            return tf.TensorArray(tf.float32, 2, infer_shape=False).write(
                0, _vec(2)).write(1, _vec(3))

        msg = (r"TensorArray has inconsistent shapes\.  Index 0 has shape: \[2\] but index 1 has "
               r"shape: \[3\]")
        _fails(ta().stack(), msg)
        _fails(ta().gather([0, 1]), msg)
        ragged = tf.TensorArray(tf.float32, 2, infer_shape=False).write(
            0, tf.reshape(_vec(2), [1, 2])).write(1, tf.reshape(_vec(3), [1, 3]))
        _fails(ragged.concat(), r"TensorArray has inconsistent shapes\.  Index 0 has \(excepting "
               r"dimension 0\) shape: \[2\] but index 1 has \(excepting dimension 0\) shape: \[3\]")
        scalars = tf.TensorArray(tf.float32, 2, element_shape=tf.TensorShape(None))
        scalars = scalars.write(0, 1.0).write(1, 2.0)
        _fails(scalars.concat(), r"Concat saw a scalar shape at index 0 but requires at least "
               r"vectors")
        _fails(tf.TensorArray(tf.float32, 0).stack(),
               r"TensorArray has size zero, but element shape <unknown> is not fully defined",
               error=tf.errors.UnimplementedError)
        assert _run(tf.TensorArray(tf.float32, 0, element_shape=[2]).stack()).shape == (0, 2)


def test_tensor_array_split_follows_the_same_rules():
    with tf.Graph().as_default():
        def split(lengths, **kw):
            return tf.TensorArray(tf.float32, 2, **kw).split([1.0, 2.0, 3.0], lengths)

        ta = split([1, 2], infer_shape=False)
        np.testing.assert_array_equal(_run(ta.read(1)), [2, 3])
        _fails([ta.read(1), ta.read(1)], r"Could not read index 1 twice")
        _fails(ta.write(0, [5.0]).concat(), r"index 0 because it has already been written to")
        _fails(split([1, 1, 1], infer_shape=False).concat(),
               r"TensorArray's size is not equal to the size of lengths \(2 vs\. 3\), and the "
               r"TensorArray is not marked as dynamically resizeable")
        _fails(split([1, 2]).concat(), r"index 1 because the value shape is \[2\] which is "
               r"incompatible with the TensorArray's inferred element shape: \[1\]")
        got = _run(tf.TensorArray(tf.float32, 0, dynamic_size=True, infer_shape=False).split(
            [1.0, 2.0, 3.0], [2, 1]).concat())
        np.testing.assert_array_equal(got, [1, 2, 3])


def test_control_dependency_through_a_const_orders_tensor_array_ops():
    # stack's element_shape Const is made inside the block, so (as in TF) only that Const
    # carries the control input; the plan keeps it as an op so the read still runs first
    with tf.Graph().as_default():
        ta = tf.TensorArray(tf.float32, 1).write(0, [1.0, 2.0])
        r = ta.read(0)
        with tf.control_dependencies([r]):
            s = ta.stack()
        assert not s.op.control_inputs
        _fails(s, r"Could not read index 0 twice")
        a = ta.read(0)
        with tf.control_dependencies([a]):
            w = ta.write(0, [3.0, 4.0]).stack()
        _fails(w, r"Could not write to TensorArray index 0 because it has already been read\.")


def test_tensor_array_failed_step_leaves_session_usable():
    with tf.Graph().as_default():
        i = tf.placeholder(tf.int32, [])
        ta = tf.TensorArray(tf.float32, 2).write(i, 3.0)
        out = ta.stack()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="index 4"):
                sess.run(out, {i: 4})
            np.testing.assert_array_equal(sess.run(out, {i: 1}), [0, 3])
            np.testing.assert_array_equal(sess.run(out, {i: 0}), [3, 0])


def test_tensor_array_rules_inside_while_loop_and_gradients():
    with tf.Graph().as_default():
        x = tf.constant(np.arange(12, dtype=np.float64).reshape(4, 3))
        w = tf.constant(2.0, tf.float64)
        inp = tf.TensorArray(tf.float64, 4).unstack(x)
        out = tf.TensorArray(tf.float64, 4)

        def body(t, acc):
            return t + 1, acc.write(t, inp.read(t) * w)

        _, out = tf.while_loop(lambda t, _: t < 4, body, [0, out])
        y = out.stack()
        gx, gw = tf.gradients(tf.reduce_sum(y * y), [x, w])
        got = _run([y, gx, gw])
        xv = np.arange(12.0).reshape(4, 3)
        np.testing.assert_allclose(got[0], 2 * xv)
        np.testing.assert_allclose(got[1], 8 * xv)
        np.testing.assert_allclose(got[2], 4 * np.sum(xv * xv))

        # a loop that writes the same index each iteration fails as in TF
        bad = tf.TensorArray(tf.float32, 3)
        _, bad = tf.while_loop(lambda t, _: t < 2, lambda t, a: (t + 1, a.write(0, 1.0)),
                               [0, bad])
        _fails(bad.stack(), r"index 0 because it has already been written to")


# ------------------------------------------------------------------------------------------
# 2. MutableDenseHashTable / tf.lookup.experimental.DenseHashTable
# ------------------------------------------------------------------------------------------


def _dense(**kw):
    args = {"key_dtype": tf.int64, "value_dtype": tf.float32, "default_value": -1.0,
            "empty_key": 0, "deleted_key": -1, "initial_num_buckets": 8}
    args.update(kw)
    return tf.contrib.lookup.MutableDenseHashTable(**args)


def test_dense_hash_table_insert_lookup_remove_size_export():
    assert tf.lookup.experimental.DenseHashTable is tf.contrib.lookup.MutableDenseHashTable
    with tf.Graph().as_default():
        t = _dense()
        assert t.resource_handle.op.type == "MutableDenseHashTableV2"
        assert t.resource_handle.op.name == "MutableDenseHashTable"
        ins = t.insert(tf.constant([5, 13, 3], tf.int64), [1.0, 2.0, 3.0])
        rm = t.remove(tf.constant([5], tf.int64))
        look = t.lookup(tf.constant([5, 13, 3, 7], tf.int64))
        assert look.get_shape().as_list() == [4]
        keys, values = t.export()
        # TF 1.15 infers [?] for the keys (the kernel's bucket array is [buckets, 1])
        assert keys.get_shape().as_list() == [None] and values.get_shape().as_list() == [None]
        assert [o.type for o in (ins, rm, look.op, keys.op, t.size().op)] == [
            "LookupTableInsertV2", "LookupTableRemoveV2", "LookupTableFindV2",
            "LookupTableExportV2", "LookupTableSizeV2"]
        with tf.Session() as sess:
            sess.run(ins)
            # 8 buckets: 5 -> bucket 5; 13 & 7 = 5 is taken, quadratic probe +1 -> 6; 3 -> 3
            k, v, n = sess.run([keys, values, t.size()])
            np.testing.assert_array_equal(k[:, 0], [0, 0, 0, 3, 0, 5, 13, 0])
            np.testing.assert_array_equal(v[:, 0], [0, 0, 0, 3, 0, 1, 2, 0])
            assert k.shape == (8, 1) and v.shape == (8, 1) and n == 3
            np.testing.assert_array_equal(sess.run(look), [1, 2, 3, -1])
            sess.run(rm)  # 5's bucket now holds the deleted_key; 13 stays reachable
            k, n, got = sess.run([keys, t.size(), look])
            np.testing.assert_array_equal(k[:, 0], [0, 0, 0, 3, 0, -1, 13, 0])
            assert n == 2
            np.testing.assert_array_equal(got, [-1, 2, 3, -1])
            sess.run(t.insert(tf.constant([21], tf.int64), [9.0]))  # 21 & 7 = 5: reuses it
            assert sess.run(keys)[5, 0] == 21


def test_dense_hash_table_grows_and_keeps_vector_values():
    with tf.Graph().as_default():
        t = _dense(default_value=[0.0, 0.0], initial_num_buckets=4, name="vec")
        rows = np.array([[1, 1], [2, 2], [3, 3], [4, 4]], np.float32)
        ins = t.insert(tf.constant([1, 2, 3, 4], tf.int64), rows)
        look = t.lookup(tf.constant([1, 9, 4], tf.int64))
        assert look.get_shape().as_list() == [3, 2]
        keys, values = t.export()
        with tf.Session() as sess:
            sess.run(ins)
            # 4 pending entries > 0.8 * 4 buckets: the table doubles to 8 before inserting
            k, v = sess.run([keys, values])
            np.testing.assert_array_equal(k[:, 0], [0, 1, 2, 3, 4, 0, 0, 0])
            np.testing.assert_array_equal(v[1:5], rows)
            np.testing.assert_array_equal(sess.run(look), [[1, 1], [0, 0], [4, 4]])
            assert sess.run(t.size()) == 4


def test_dense_hash_table_vector_and_string_keys():
    with tf.Graph().as_default():
        t = tf.lookup.experimental.DenseHashTable(tf.int64, tf.int64, default_value=0,
                                                  empty_key=[0, 0], deleted_key=[-1, -1],
                                                  initial_num_buckets=4)
        ins = t.insert(tf.constant([[1, 2], [3, 4]], tf.int64), tf.constant([12, 34], tf.int64))
        look = t.lookup(tf.constant([[1, 2], [3, 4], [2, 1]], tf.int64))
        assert look.get_shape().as_list() == [3]
        s = tf.lookup.experimental.DenseHashTable(tf.string, tf.int64, default_value=-1,
                                                  empty_key="", deleted_key="$",
                                                  initial_num_buckets=4, name="words")
        sins = s.insert(tf.constant(["a", "b"]), tf.constant([1, 2], tf.int64))
        with tf.Session() as sess:
            sess.run([ins, sins])
            np.testing.assert_array_equal(sess.run(look), [12, 34, 0])
            k, _ = sess.run(t.export())
            assert k.shape == (4, 2)
            assert sorted(map(tuple, k.tolist())) == [(0, 0), (0, 0), (1, 2), (3, 4)]
            np.testing.assert_array_equal(sess.run(s.lookup(tf.constant(["b", "a", "c"]))),
                                          [2, 1, -1])
            assert sess.run(s.size()) == 2


def test_dense_hash_table_errors():
    with tf.Graph().as_default():
        t = _dense()
        with tf.Session() as sess:
            for op, msg in ((t.insert(tf.constant([0], tf.int64), [1.0]), "empty_key"),
                            (t.lookup(tf.constant([-1], tf.int64)), "deleted_key"),
                            (t.remove(tf.constant([0], tf.int64)), "empty_key")):
                with pytest.raises(tf.errors.InvalidArgumentError,
                                   match=f"Using the {msg} as a table key is not allowed"):
                    sess.run(op)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"Expected key shape \[2\] got \[2,2\]"):
                sess.run(t.lookup(tf.constant([[1, 2], [3, 4]], tf.int64)))
            # the failed steps left the table usable
            sess.run(t.insert(tf.constant([2], tf.int64), [4.0]))
            assert sess.run(t.lookup(tf.constant([2], tf.int64))).tolist() == [4.0]
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Empty and deleted keys cannot be equal"):
                sess.run(_dense(deleted_key=0, name="same").size())
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="Number of buckets must be at least 4 and a power of 2, "
                                     "got: 6"):
                sess.run(_dense(initial_num_buckets=6, name="six").size())


def test_dense_hash_table_saver_round_trip(tmp_path):
    with tf.Graph().as_default():
        t = _dense(default_value=[-1.0, -1.0], empty_key=-1, deleted_key=-2,
                   initial_num_buckets=4, name="emb")
        specs = tf.get_collection(tf.GraphKeys.SAVEABLE_OBJECTS)
        assert [sp.name for sp in specs[0].specs] == ["emb-keys", "emb-values"]
        ins = t.insert(tf.constant([3, 7, 11], tf.int64), [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        look = t.lookup(tf.constant([3, 7, 11, 5], tf.int64))
        want = [[1, 2], [3, 4], [5, 6], [-1, -1]]
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(ins)
            path = saver.save(sess, str(tmp_path / "model"))
            sess.run(t.remove(tf.constant([3, 7], tf.int64)))
            assert sess.run(t.size()) == 1
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(look), want)
            assert sess.run(t.size()) == 3
        # 3 entries <= 0.8 * 4: the saved table has its 4 buckets of [key] and [2 values]
        assert dict(tf.train.list_variables(path)) == {"emb-keys": [4, 1], "emb-values": [4, 2]}


# ------------------------------------------------------------------------------------------
# 3. tf.contrib.quantize
# ------------------------------------------------------------------------------------------


def _nudged(mn, mx, bits, narrow):
    """TF's FakeQuant range nudging (zero lands on a quantization level)."""
    mn, mx = np.float32(mn), np.float32(mx)
    qmin = np.float32(1.0 if narrow else 0.0)
    qmax = np.float32(2.0 ** bits - 1)
    scale = (mx - mn) / (qmax - qmin)
    zero = qmin - mn / scale
    zero = qmin if zero < qmin else qmax if zero > qmax else np.round(zero)
    return (qmin - zero) * scale, (qmax - zero) * scale, scale


def _fake_quant(x, mn, mx, bits=8, narrow=False):
    lo, hi, scale = _nudged(mn, mx, bits, narrow)
    return np.floor((np.clip(x, lo, hi) - lo) / scale + np.float32(0.5)) * scale + lo


def _conv_valid(x, k):
    n, h, w, _ = x.shape
    kh, kw, _, o = k.shape
    out = np.zeros((n, h - kh + 1, w - kw + 1, o), np.float32)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            out[:, i, j] = np.tensordot(x[:, i:i + kh, j:j + kw], k, axes=3)
    return out


def _small_net(activation=tf.nn.relu):
    x = tf.placeholder(tf.float32, [None, 6, 6, 2], name="x")
    h = tf.layers.conv2d(x, 3, 3, activation=activation)
    tf.layers.dense(tf.layers.flatten(h), 4)
    return x


def _quantized_out():
    """The network's output after the rewrite: the final BiasAdd's fake quant (a tensor held
    from before the rewrite still names the float BiasAdd, as in TF)."""
    return tf.get_default_graph().get_tensor_by_name("dense/act_quant/FakeQuantWithMinMaxVars:0")


_XV = np.random.RandomState(7).randn(2, 6, 6, 2).astype(np.float32)


def test_quantize_training_graph_inserts_tf_named_fake_quants_and_matches_numpy():
    with tf.Graph().as_default() as g:
        x = _small_net()
        tf.contrib.quantize.create_training_graph()
        out = _quantized_out()
        fq = sorted(op.name for op in g.get_operations()
                    if op.type == "FakeQuantWithMinMaxVars")
        assert fq == ["conv2d/act_quant/FakeQuantWithMinMaxVars",
                      "conv2d/weights_quant/FakeQuantWithMinMaxVars",
                      "dense/act_quant/FakeQuantWithMinMaxVars",
                      "dense/weights_quant/FakeQuantWithMinMaxVars"]
        names = {v.op.name for v in tf.global_variables()}
        assert {"conv2d/weights_quant/min", "conv2d/weights_quant/max", "conv2d/act_quant/min",
                "conv2d/act_quant/max", "dense/act_quant/min"} <= names
        assert not any("quant" in v.op.name for v in tf.trainable_variables())
        # consumers read the fake-quantized tensors
        conv = g.get_operation_by_name("conv2d/Conv2D")
        assert conv.inputs[1].name == "conv2d/weights_quant/FakeQuantWithMinMaxVars:0"
        assert out.op.inputs[0].name == "dense/BiasAdd:0"
        wq = g.get_operation_by_name("conv2d/weights_quant/FakeQuantWithMinMaxVars")
        assert wq.get_attr("narrow_range") and wq.get_attr("num_bits") == 8
        aq = {n: g.get_operation_by_name(f"{n}/act_quant/FakeQuantWithMinMaxVars")
              for n in ("conv2d", "dense")}
        assert not aq["conv2d"].get_attr("narrow_range")
        ranges = {f"{n}_{w}": op.inputs[i] for n, op in aq.items()
                  for i, w in ((1, "min"), (2, "max"))}
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            k1, b1, k2, b2 = sess.run(["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0",
                                       "dense/bias:0"])
            got, r = sess.run([out, ranges], {x: _XV})
            wmin, wmax = sess.run(["conv2d/weights_quant/min:0", "conv2d/weights_quant/max:0"])
        # weights: the last value range, widened to hold 0
        assert wmin == min(k1.min(), 0) and wmax == max(k1.max(), 0)
        a = np.maximum(_conv_valid(_XV, _fake_quant(k1, wmin, wmax, narrow=True)) + b1, 0)
        # activations: the zero-debiased EMA's first value is the batch range itself
        np.testing.assert_allclose([r["conv2d_min"], r["conv2d_max"]], [0, a.max()], rtol=1e-4)
        a = _fake_quant(a, r["conv2d_min"], r["conv2d_max"]).reshape(2, -1)
        z = a @ _fake_quant(k2, min(k2.min(), 0), max(k2.max(), 0), narrow=True) + b2
        want = _fake_quant(z, r["dense_min"], r["dense_max"])
        np.testing.assert_allclose(got, want, atol=1e-6)


def test_quantize_training_still_trains_and_eval_graph_is_deterministic(tmp_path):
    with tf.Graph().as_default():
        x = _small_net(tf.nn.relu6)
        tf.contrib.quantize.create_training_graph()
        out = _quantized_out()
        loss = tf.reduce_mean(tf.square(out - 1.0))
        train = tf.train.GradientDescentOptimizer(0.05).minimize(loss)
        saver = tf.train.Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            first = sess.run(loss, {x: _XV})
            for _ in range(30):
                sess.run(train, {x: _XV})
            assert sess.run(loss, {x: _XV}) < first
            path = saver.save(sess, str(tmp_path / "q"))
            ranges = sess.run({v.op.name: v for v in tf.global_variables()
                               if v.op.name.endswith(("_quant/min", "_quant/max"))})
        # a quantized model cannot be rewritten again once the optimizer is in
        with pytest.raises(ValueError, match="Training op found in graph"):
            tf.contrib.quantize.create_training_graph()
    with tf.Graph().as_default() as g:
        x = _small_net(tf.nn.relu6)
        tf.contrib.quantize.create_eval_graph()
        out = _quantized_out()
        # an eval graph reads the ranges: no AssignMinLast/AssignMaxEma updates
        assert not [op.name for op in g.get_operations() if "/AssignM" in op.name]
        with tf.Session() as sess:
            tf.train.Saver().restore(sess, path)
            a, b = sess.run(out, {x: _XV}), sess.run(out, {x: _XV})
            np.testing.assert_array_equal(a, b)
            k1, b1, k2, b2 = sess.run(["conv2d/kernel:0", "conv2d/bias:0", "dense/kernel:0",
                                       "dense/bias:0"])
        r = ranges
        h = _conv_valid(_XV, _fake_quant(k1, r["conv2d/weights_quant/min"],
                                         r["conv2d/weights_quant/max"], narrow=True)) + b1
        h = _fake_quant(np.clip(h, 0, 6), r["conv2d/act_quant/min"], r["conv2d/act_quant/max"])
        z = h.reshape(2, -1) @ _fake_quant(k2, r["dense/weights_quant/min"],
                                           r["dense/weights_quant/max"], narrow=True) + b2
        want = _fake_quant(z, r["dense/act_quant/min"], r["dense/act_quant/max"])
        np.testing.assert_allclose(a, want, atol=1e-5)


def test_quantize_delay_and_experimental_bits():
    with tf.Graph().as_default() as g:
        x = _small_net()
        tf.contrib.quantize.experimental_create_training_graph(weight_bits=4, activation_bits=6,
                                                               quant_delay=2)
        fq = g.get_operation_by_name("conv2d/weights_quant/FakeQuantWithMinMaxVars")
        assert fq.get_attr("num_bits") == 4
        assert g.get_operation_by_name(
            "conv2d/act_quant/FakeQuantWithMinMaxVars").get_attr("num_bits") == 6
        w_used = g.get_operation_by_name("conv2d/Conv2D").inputs[1]
        assert "conv2d/weights_quant/delayed_quant" in w_used.name
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            k1 = sess.run("conv2d/kernel:0")
            # step 1 < quant_delay: float weights; step 2: 4-bit fake-quantized weights
            np.testing.assert_array_equal(sess.run(w_used, {x: _XV}), k1)
            np.testing.assert_allclose(sess.run(w_used, {x: _XV}),
                                       _fake_quant(k1, min(k1.min(), 0), max(k1.max(), 0), 4,
                                                   narrow=True), atol=1e-6)
            assert sess.run("fake_quantization_step:0") == 2


def test_quantize_residual_block_names_and_scope():
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 4, 4, 3])
        with tf.variable_scope("block"):
            h = tf.layers.conv2d(x, 3, 1, name="conv")
            tf.nn.relu(h + x)  # bias add, bypass add, activation
        other = tf.layers.dense(tf.reshape(x, [-1, 48]), 2, activation=tf.nn.relu, name="other")
        tf.contrib.quantize.experimental_create_training_graph(scope="block")
        fq = sorted(op.name for op in g.get_operations()
                    if op.type == "FakeQuantWithMinMaxVars")
        # TF's names: the activation after a bypass is quantized one scope up; the bias add
        # before it gets conv_quant; no add_quant as an activation follows the bypass;
        # nothing outside the scope
        assert fq == ["block/act_quant/FakeQuantWithMinMaxVars",
                      "block/conv/conv_quant/FakeQuantWithMinMaxVars",
                      "block/conv/weights_quant/FakeQuantWithMinMaxVars"]
        assert other.op.inputs[0].op.type == "BiasAdd"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            xv = np.random.RandomState(1).randn(2, 4, 4, 3).astype(np.float32)
            got = sess.run("block/act_quant/FakeQuantWithMinMaxVars:0", {x: xv})
            assert got.shape == (2, 4, 4, 3) and got.min() >= 0
