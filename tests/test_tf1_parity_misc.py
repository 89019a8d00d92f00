"""TF 1.x behaviours found by comparing tideflow with TF in this session's audits: NumPy values
keep an allowed dtype over an attr's default and are cast to a requested dtype, Bucketize's
32-bit boundaries, an op built in its inputs' graph, LinSpace's exact end, and a Saver given a
mutable lookup table in its var_list."""

import numpy as np
import pytest

import tideflow as tf


def test_numpy_array_is_cast_to_the_attr_default():
    # TF 1.15's op_def_library converts a NumPy array to a type attr's default (make_tensor_proto
    # casts arrays): EncodePng's T defaults to uint8, so a uint16 image array makes an 8-bit
    # PNG of its values modulo 256 (TF 1.15 prints these; TF 2 keeps the array's dtype)
    img = (np.arange(48).reshape(4, 4, 3) * 1000).astype(np.uint16)
    png = tf.image.encode_png(img)
    assert png.op.get_attr("T") == tf.uint8
    assert tf.image.encode_png([[[1], [2]]]).op.get_attr("T") == tf.uint8
    with tf.Session() as sess:
        got = sess.run(tf.image.decode_png(png, dtype=tf.uint16))
    np.testing.assert_array_equal(got[0, :2], [[0, 59624, 53456], [47288, 41120, 34952]])
    np.testing.assert_array_equal(got, (img % 256).astype(np.uint16) * 257)


def test_numpy_scalars_are_cast_to_the_requested_dtype():
    # TF's make_tensor_proto casts NumPy values (arrays and scalars alike) to the dtype asked
    # for, so an int tensor times np.float32(2.5) multiplies by 2
    with tf.Session() as sess:
        assert sess.run(tf.convert_to_tensor(np.float32(2.5), dtype=tf.int32)) == 2
        np.testing.assert_array_equal(sess.run(tf.constant([1, 2]) * np.float32(2.5)), [2, 4])
    with pytest.raises(TypeError):
        tf.constant(2.5, dtype=tf.int32)  # a Python float is still refused



def test_bucketize_compares_with_float32_boundaries():
    # Bucketize's float attr holds 32-bit boundaries: a float64 0.1 sits below the
    # float32-rounded boundary 0.1 (0.100000001...)
    out = tf.raw_ops.Bucketize(input=tf.constant([0.1, 0.5, 1.0], tf.float64),
                               boundaries=[0.1, 1.0])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [0, 1, 2])


def test_bucketized_column_builds_bucketize():
    # TF 1.15's bucketized column: the numeric column's float32 value, then Bucketize
    fc = tf.feature_column
    col = fc.bucketized_column(fc.numeric_column("x", dtype=tf.float64), [0.1, 1.0])
    out = fc.input_layer({"x": tf.constant([[0.1], [0.05], [1.0]], tf.float64)}, [col])
    assert "Bucketize" in [op.type for op in tf.get_default_graph().get_operations()]
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), [[0, 1, 0], [1, 0, 0], [0, 0, 1]])


def test_an_op_on_another_graphs_tensor_is_built_in_that_graph():
    # TF's _get_graph_from_inputs: the inputs' graph wins over the default graph, and Python
    # values become constants there too; two graphs in one op still fail
    g1 = tf.Graph()
    with g1.as_default():
        x = tf.constant(1.0, name="x")
    with tf.Graph().as_default():
        z = tf.add(x, 1.0)
        assert z.graph is g1 and tf.identity(x).graph is g1
        with pytest.raises(ValueError, match="must be from the same graph"):
            tf.add(x, tf.constant(2.0))
    with tf.Session(graph=g1) as sess:
        assert sess.run(z) == 2.0


def test_lin_space_ends_exactly_at_stop():
    # TF's LinSpace kernel writes ``stop`` itself as the last value
    with tf.Session() as sess:
        got = sess.run(tf.lin_space(0.0, 1.0, 42))
    assert got[-1] == 1.0 and got[0] == 0.0
    np.testing.assert_allclose(got, np.linspace(0, 1, 42), rtol=1e-6)


def test_saver_takes_a_mutable_table_in_its_var_list(tmp_path):
    # TF: a trackable table in var_list is saved through its saveables (<name>-keys/-values)
    for make in (lambda: tf.contrib.lookup.MutableHashTable(tf.string, tf.int64, -1, name="tbl"),
                 lambda: tf.contrib.lookup.MutableDenseHashTable(tf.int64, tf.int64, -1, -2, -3,
                                                                 name="tbl")):
        with tf.Graph().as_default():
            t = make()
            keys = tf.constant([5, 7], tf.int64) if t.key_dtype == tf.int64 else \
                tf.constant(["a", "b"])
            ins = t.insert(keys, tf.constant([1, 2], tf.int64))
            saver = tf.train.Saver([t])
            with tf.Session() as sess:
                sess.run(ins)
                path = saver.save(sess, str(tmp_path / "m"))
            assert {n for n, _ in tf.train.list_variables(path)} == {"tbl-keys", "tbl-values"}
            with tf.Session() as sess:
                saver.restore(sess, path)
                np.testing.assert_array_equal(sess.run(t.lookup(keys)), [1, 2])
