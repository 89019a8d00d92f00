"""Op-sequence parity of tf.map_fn / tf.scan / tf.foldl / tf.foldr (and explicit TensorArray
loops) with TF 1.15 graph mode: TF builds them from v1 TensorArray ops and a Switch/Merge
while frame, tideflow from TensorLists and a functional While; the op ids TF's extra ops take
are skipped, so every op made inside fn and after the call gets TF 1.15's op count, and with
tf.set_random_seed a random op TF 1.15's op seed. The expected counts, op seeds and printed
values below are those real TF 1.15 gave for the same programs."""

import textwrap

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def _all_ops(g):
    """The graph's ops and those of its loop bodies, in id order."""
    found = list(g.get_operations())
    for fg in g._functions.values():
        found.extend(fg.get_operations())
    return sorted(found, key=lambda op: op._id)


def _count_and_seeds(code):
    g = tf.get_default_graph()
    tf.set_random_seed(1)
    exec(textwrap.dedent(code), {"tf": tf, "np": np})  # noqa: S102 - our own literals
    everything = _all_ops(g)
    seeds = [op.get_attr("seed2") for op in everything if "seed2" in op._attrs]
    return g._last_id, seeds


# (program, TF 1.15's op count after it, the op seeds of its random ops in TF 1.15)
CASES = [
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: r * 2.0, x)
        z = tf.layers.dense(y, 3)
     """, 73, [60]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: a + r, x)
        z = tf.layers.dense(y, 3)
     """, 82, [69]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.foldl(lambda a, r: a + r, x)
        z = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 67, [54]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.foldr(lambda a, r: a + r, x)
        z = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 67, [54]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.map_fn(lambda r: r * 2.0, x)
        z = tf.layers.dense(y, 3)
     """, 74, [61]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: a + r, x, initializer=tf.zeros([8]))
        z = tf.layers.dense(y, 3)
     """, 79, [66]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.foldl(lambda a, r: a + r, x, initializer=tf.zeros([8]))
        z = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 66, [53]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: r + tf.random_uniform([8]), x)
        z = tf.layers.dense(y, 3)
     """, 79, [43, 66]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        z = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda t: t[0] * t[1], (x, z), dtype=tf.float32)
        d = tf.layers.dense(y, 3)
     """, 87, [74]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        z = tf.placeholder(tf.int32, [5])
        y = tf.map_fn(lambda t: (t[0] * 2.0, t[1] + 1), (x, z))
        d = tf.layers.dense(y[0], 3)
     """, 105, [92]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda t: {"a": t["p"] + 1.0, "b": t["p"] * 2.0}, {"p": x},
                      dtype={"a": tf.float32, "b": tf.float32})
        d = tf.layers.dense(y["b"], 3)
     """, 90, [77]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: tf.reduce_sum(r), x, back_prop=False, parallel_iterations=3,
                      name="mymap")
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 75, [62]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        w = tf.Variable(tf.ones([8]))
        b = tf.constant(3.0)
        y = tf.map_fn(lambda r: r * w + b, x)
        d = tf.layers.dense(y, 3)
     """, 80, [67]),
    ("""
        imgs = tf.placeholder(tf.float32, [4, 6, 6, 3])
        y = tf.map_fn(lambda im: tf.image.random_flip_left_right(im), imgs)
        d = tf.layers.dense(tf.reshape(y, [4, -1]), 3)
     """, 92, [44, 79]),
    ("""
        imgs = tf.placeholder(tf.float32, [None, 6, 6, 3])
        y = tf.map_fn(lambda im: tf.image.random_flip_left_right(im), imgs)
        d = tf.layers.dense(tf.reshape(y, [-1, 108]), 3)
     """, 93, [45, 80]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.scan(lambda a, r: a + r, x)
        d = tf.layers.dense(y, 3)
     """, 83, [70]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.scan(lambda a, r: a + r, x, reverse=True)
        d = tf.layers.dense(y, 3)
     """, 89, [76]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: a * r, x, reverse=True, initializer=tf.ones([8]))
        d = tf.layers.dense(y, 3)
     """, 79, [66]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.foldl(lambda a, r: a + r, x)
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 69, [56]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.foldr(lambda a, r: a + r, x)
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 70, [57]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.foldr(lambda a, r: a + r, x, initializer=tf.zeros([8]))
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 68, [55]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        z = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, t: (a[0] + t[0], a[1] * t[1]), (x, z))
        d = tf.layers.dense(y[1], 3)
     """, 123, [110]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: (a[0] + r, a[1] + 1), x, initializer=(tf.zeros([8]), 0))
        d = tf.layers.dense(y[0], 3)
     """, 103, [90]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.foldl(lambda a, r: a + tf.reduce_sum(r), x, initializer=0.0)
        d = tf.layers.dense(tf.reshape(y, [1, 1]), 3)
     """, 68, [55]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: a + r * tf.random_normal([8]), x)
        d = tf.layers.dense(y, 3)
     """, 89, [51, 76]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.foldl(lambda a, r: a + tf.random_uniform([8]) * r, x)
        z = tf.foldr(lambda a, r: a + tf.random_uniform([8]) * r, x)
        d = tf.layers.dense(tf.stack([y, z]), 3)
     """, 130, [43, 101, 117]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: tf.nn.dropout(r, 0.5), x)
        d = tf.layers.dense(y, 3)
     """, 87, [44, 74]),
    ("""
        y = tf.map_fn(lambda r: r * 2, np.arange(12.0).reshape(4, 3).astype(np.float32))
        d = tf.layers.dense(y, 3)
     """, 73, [60]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: tf.layers.dense(tf.expand_dims(r, 0), 4, name="inner"), x)
        d = tf.layers.dense(tf.reshape(y, [5, 4]), 3)
     """, 93, [45, 80]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: 1.0, x)
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 74, [61]),
    ("""
        x = tf.placeholder(tf.float32, [5, 4, 3])
        y = tf.map_fn(lambda m: tf.map_fn(lambda r: r * tf.random_uniform([3]), m), x)
        d = tf.layers.dense(tf.reshape(y, [5, 12]), 3)
     """, 135, [82, 122]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        z = tf.placeholder(tf.float32, [5])
        y = tf.foldl(lambda a, t: (a[0] + t[0], a[1] + t[1]), (x, z),
                     initializer=(tf.zeros([8]), tf.constant(0.0)))
        d = tf.layers.dense(tf.expand_dims(y[0], 0), 3)
     """, 89, [76]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        z = tf.placeholder(tf.float32, [5])
        y = tf.foldr(lambda a, t: a + t[0] * t[1], (x, z), initializer=tf.zeros([8]))
        d = tf.layers.dense(tf.expand_dims(y, 0), 3)
     """, 82, [69]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.map_fn(lambda r: r * 2.0, x), lambda: x)
        d = tf.layers.dense(y, 3)
     """, 81, [68]),
    ("""
        i = tf.range(6)
        y = tf.map_fn(lambda k: tf.random_uniform([2], seed=None) * tf.cast(k, tf.float32), i,
                      dtype=tf.float32)
        d = tf.layers.dense(y, 3)
     """, 83, [46, 70]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.scan(lambda a, r: a + r, x, infer_shape=False, initializer=tf.zeros([8]))
        d = tf.layers.dense(tf.reshape(y, [5, 8]), 3)
     """, 81, [68]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        with tf.variable_scope("enc"):
            y = tf.map_fn(lambda r: tf.layers.dense(tf.expand_dims(r, 0), 4), x)
        d = tf.layers.dense(tf.reshape(y, [5, 4]), 3)
     """, 93, [45, 80]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: (r, tf.reduce_sum(r)), x, dtype=(tf.float32, tf.float32))
        d = tf.layers.dense(y[0], 3)
     """, 88, [75]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        y = tf.scan(lambda a, r: a + r, x, initializer=tf.zeros([8]), reverse=True)
        d = tf.layers.dense(y, 3)
     """, 84, [71]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        y = tf.map_fn(lambda r: tf.nn.dropout(r, keep_prob=0.8), x, back_prop=False,
                      parallel_iterations=1)
        d = tf.layers.dense(y, 3)
     """, 87, [44, 74]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.scan(lambda a, r: a + r, x), lambda: x)
        d = tf.layers.dense(y, 3)
     """, 90, [77]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        p = tf.placeholder(tf.bool, [])
        y = tf.cond(p, lambda: tf.expand_dims(tf.foldr(lambda a, r: a + r, x), 0), lambda: x[:1])
        d = tf.layers.dense(y, 3)
     """, 79, [66]),
    ("""
        x = tf.placeholder(tf.float32, [None, 5, 8])
        y = tf.keras.layers.Lambda(lambda t: tf.map_fn(lambda r: r * 2.0, t))(x)
        d = tf.layers.dense(y, 3)
     """, 98, [61]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        def body(i, a):
            return i + 1, a + tf.map_fn(lambda r: r * tf.random_uniform([8]), x)
        _, a = tf.while_loop(lambda i, a: i < 2, body, [0, tf.zeros([5, 8])])
        d = tf.layers.dense(a, 3)
     """, 100, [59, 87]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        z = tf.placeholder(tf.float32, [None, 8])
        y = tf.map_fn(lambda t: t[0] * t[1] + tf.random_uniform([8]), (x, z),
                      dtype=tf.float32)
        d = tf.layers.dense(y, 3)
     """, 95, [59, 82]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        z = tf.placeholder(tf.float32, [None, 8])
        y = tf.scan(lambda a, t: (a[0] + t[0], a[1] * t[1]), (x, z), reverse=True)
        d = tf.layers.dense(y[1], 3)
     """, 130, [117]),
    ("""
        x = tf.placeholder(tf.float32, [None, 8])
        z = tf.placeholder(tf.float32, [None])
        y = tf.foldr(lambda a, t: (a[0] + t[0], a[1] + t[1]), (x, z))
        d = tf.layers.dense(tf.expand_dims(y[0], 0), 3)
     """, 92, [79]),
    ("""
        x = tf.placeholder(tf.float32, [None, None])
        y = tf.map_fn(lambda r: tf.reduce_mean(r), x)
        d = tf.layers.dense(tf.expand_dims(y, 1), 3)
     """, 76, [63]),
    ("""
        x = tf.placeholder(tf.float32)
        y = tf.map_fn(lambda r: r * 2.0, x)
        w = tf.Variable(tf.random_normal([3]))
     """, 67, [61]),
]


@pytest.mark.parametrize("code,n_ops,seeds", CASES)
def test_op_count_and_op_seeds_as_tf(code, n_ops, seeds):
    assert _count_and_seeds(code) == (n_ops, seeds)


def test_seeded_random_ops_mapped_over_rows_print_tf_1_15s_numbers():
    tf.set_random_seed(7)
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    y = tf.map_fn(lambda r: r + tf.random_uniform([3]), x)
    s = tf.scan(lambda a, r: a + r * tf.random_normal([3]), x)
    fl = tf.foldl(lambda a, r: a + tf.random_uniform([3]) * r, x)
    fr = tf.foldr(lambda a, r: a + tf.random_uniform([3]) * r, x, initializer=tf.zeros([3]))
    imgs = tf.constant(np.arange(24, dtype=np.float32).reshape(4, 2, 3, 1))
    flipped = tf.map_fn(lambda im: tf.image.random_flip_left_right(im), imgs)
    d = tf.layers.dense(y, 2)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([y, s, fl, fr, tf.reshape(flipped, [4, 6]), d])
    # TF 1.15's output for the same program
    want = [
        [[0.64651, 1.01617, 2.47341], [3.99278, 4.09421, 5.8303],
         [6.85982, 7.08304, 8.71566], [9.25066, 10.46122, 11.56767]],
        [[0.0, 1.0, 2.0], [-4.23899, 4.62351, 0.7947], [-5.16822, 11.13759, 11.05417],
         [-3.29634, 16.56107, 12.1558]],
        [5.97334, 13.29749, 13.9454],
        [8.24408, 15.6631, 13.10921],
        [[2.0, 1.0, 0.0, 5.0, 4.0, 3.0], [6.0, 7.0, 8.0, 9.0, 10.0, 11.0],
         [12.0, 13.0, 14.0, 15.0, 16.0, 17.0], [20.0, 19.0, 18.0, 23.0, 22.0, 21.0]],
        [[-3.01802, -1.55589], [-9.79004, -1.70458], [-15.95997, -1.77883],
         [-22.3272, -2.07757]],
    ]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, atol=2e-5)


def test_back_prop_false_makes_no_op_more_and_stops_gradients():
    x = tf.placeholder(tf.float32, [5, 8])
    y = tf.map_fn(lambda r: r * 2.0, x, back_prop=False)
    assert tf.gradients(tf.reduce_sum(y), x) == [None]
    z = tf.foldl(lambda a, r: a + r, x, back_prop=False)
    assert z.op.type == "StopGradient" and z.op.name == "foldl/while/Exit_2"


# tf.while_loop programs with TensorArrays of their own: each array counts its ops as TF 1.15's
# v1 TensorArray (handle and flow), with the Enter of its handle in each loop it is used in
TENSOR_ARRAY_CASES = [
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        ta = tf.TensorArray(tf.float32, size=5)
        def body(i, ta):
            return i + 1, ta.write(i, x[i] * 2.0)
        _, ta = tf.while_loop(lambda i, ta: i < 5, body, [tf.constant(0), ta])
        d = tf.layers.dense(ta.stack(), 3)
     """, 53, [40]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        inp = tf.TensorArray(tf.float32, size=5).unstack(x)
        out = tf.TensorArray(tf.float32, size=5)
        def body(i, out):
            return i + 1, out.write(i, inp.read(i) + tf.random_uniform([8]))
        _, out = tf.while_loop(lambda i, o: i < 5, body, [0, out])
        d = tf.layers.dense(out.stack(), 3)
     """, 66, [34, 53]),
    ("""
        n = tf.placeholder(tf.int32, [])
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        def body(i, ta):
            return i + 1, ta.write(i, tf.cast(i, tf.float32) * tf.ones([4]))
        _, ta = tf.while_loop(lambda i, ta: i < n, body, [tf.constant(0), ta])
        d = tf.layers.dense(ta.stack(), 3)
     """, 47, [34]),
    ("""
        x = tf.placeholder(tf.float32, [6, 4])
        ta = tf.TensorArray(tf.float32, size=6).unstack(x)
        r = ta.read(2)
        g = ta.gather([0, 3])
        s = ta.size()
        d = tf.layers.dense(g, 3)
     """, 33, [20]),
    ("""
        x = tf.placeholder(tf.float32, [5, 8])
        inp = tf.TensorArray(tf.float32, size=5).unstack(x)
        out = tf.TensorArray(tf.float32, size=5)
        def body(i, acc, out):
            acc = acc + inp.read(i)
            return i + 1, acc, out.write(i, acc)
        _, acc, out = tf.while_loop(lambda i, a, o: i < 5, body, [0, tf.zeros([8]), out])
        d = tf.layers.dense(out.stack(), 3)
     """, 66, [53]),
    ("""
        ta = tf.TensorArray(tf.float32, size=3)
        ta = ta.write(0, [1.0, 2.0]).write(1, tf.constant([3.0, 4.0])).write(2, [5.0, 6.0])
        y = ta.stack()
        w = tf.Variable(tf.random_normal([2]))
     """, 25, [19]),
    ("""
        x = tf.placeholder(tf.float32, [4, 3])
        inp = tf.TensorArray(tf.float32, size=4).unstack(x)
        def outer(i, acc):
            def inner(j, a):
                return j + 1, a + inp.read(j) * tf.random_uniform([3])
            _, a = tf.while_loop(lambda j, a: j < 4, inner, [0, acc])
            return i + 1, a
        _, acc = tf.while_loop(lambda i, a: i < 2, outer, [0, tf.zeros([3])])
        w = tf.Variable(tf.random_normal([3]))
     """, 72, [47, 66]),
    ("""
        x = tf.placeholder(tf.float32, [4, 3])
        inp = tf.TensorArray(tf.float32, size=4).unstack(x)
        out = tf.TensorArray(tf.float32, size=4, element_shape=[3])
        def body(i, out):
            a = inp.read(i)
            b = inp.read(i)
            return i + 1, out.write(i, a + b)
        _, out = tf.while_loop(lambda i, o: i < 4, body, [0, out])
        y = out.stack()
        g = out.gather([1, 2])
        w = tf.Variable(tf.random_normal([3]))
     """, 55, [49]),
    ("""
        x = tf.placeholder(tf.float32, [None, 3])
        n = tf.shape(x)[0]
        inp = tf.TensorArray(tf.float32, size=n).unstack(x)
        out = tf.TensorArray(tf.float32, size=n)
        def body(i, out):
            return i + 1, out.write(i, tf.nn.dropout(inp.read(i), 0.5))
        _, out = tf.while_loop(lambda i, o: i < n, body, [0, out])
        d = tf.layers.dense(out.stack(), 2)
     """, 77, [38, 64]),
    ("""
        ta = tf.TensorArray(tf.float32, size=2, dynamic_size=True, clear_after_read=False)
        ta = ta.write(0, 1.0).write(1, 2.0)
        a = ta.read(0)
        b = ta.read(1)
        c = ta.stack()
        w = tf.Variable(tf.random_normal([3]))
     """, 26, [20]),
    ("""
        x = tf.placeholder(tf.float32, [4, 3])
        a = tf.TensorArray(tf.float32, size=4).unstack(x)
        b = tf.TensorArray(tf.float32, size=4)
        c = tf.TensorArray(tf.float32, size=4)
        def body(i, b, c):
            v = a.read(i)
            return i + 1, b.write(i, v * tf.random_uniform([3])), c.write(i, v + 1.0)
        _, b, c = tf.while_loop(lambda i, b, c: i < 4, body, [0, b, c])
        yb = b.stack()
        yc = c.gather([0, 1])
        w = tf.Variable(tf.random_normal([3]))
     """, 73, [40, 67]),
    ("""
        x = tf.placeholder(tf.float32, [6, 2])
        ta = tf.TensorArray(tf.float32, size=3).split(x, [2, 2, 2])
        s = ta.stack()
        w = tf.Variable(tf.random_normal([3]))
     """, 20, [14]),
]


@pytest.mark.parametrize("code,n_ops,seeds", TENSOR_ARRAY_CASES)
def test_tensor_array_loops_count_ops_as_tf(code, n_ops, seeds):
    assert _count_and_seeds(code) == (n_ops, seeds)


def test_tensor_array_reads_gathers_and_concat_keep_values_and_shapes():
    x = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    ta = tf.TensorArray(tf.float32, size=4, clear_after_read=False).unstack(x)
    r, g, c = ta.read(1), ta.gather([3, 0]), ta.concat()
    assert r.shape.as_list() == [3] and g.shape.as_list() == [None, 3]  # TF 1.15's
    assert c.shape.as_list() == [None]
    out = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    _, out = tf.while_loop(lambda i, o: i < 4,
                           lambda i, o: (i + 1, o.write(i, ta.read(i) * 2.0)), [0, out])
    with tf.Session() as sess:
        rv, gv, cv, sv = sess.run([r, g, c, out.stack()])
    np.testing.assert_array_equal(rv, [3, 4, 5])
    np.testing.assert_array_equal(gv, [[9, 10, 11], [0, 1, 2]])
    np.testing.assert_array_equal(cv, np.arange(12))
    np.testing.assert_array_equal(sv, np.arange(12).reshape(4, 3) * 2)


def test_seeded_tensor_array_loop_and_tuple_map_print_tf_1_15s_numbers():
    tf.set_random_seed(3)
    x = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3))
    inp = tf.TensorArray(tf.float32, size=5).unstack(x)
    out = tf.TensorArray(tf.float32, size=5)
    _, out = tf.while_loop(lambda i, o: i < 5, lambda i, o: (
        i + 1, o.write(i, inp.read(i) * tf.random_uniform([3]))), [0, out])
    s = out.stack()
    d = tf.layers.dense(s, 2)
    m = tf.map_fn(lambda t: (t[0] * tf.random_normal([3]), t[1] + 1), (x, tf.range(5)))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run([s, d, m[0], m[1]])
    # TF 1.15's output for the same program
    want = [
        [[0.0, 0.70071, 0.83029], [2.10427, 0.08438, 0.40234], [4.07135, 1.76963, 4.76713],
         [5.86322, 6.11661, 1.27351], [10.03389, 1.26685, 1.99597]],
        [[0.9955, -0.63968], [2.33053, -1.13466], [7.7425, -5.79087], [11.73996, -1.57085],
         [11.90902, -5.23288]],
        [[0.0, 1.33709, 0.5153], [-4.16468, 0.17161, -1.92929], [6.54153, -1.24795, -1.17088],
         [-7.67067, -1.42928, 20.56189], [6.50945, -17.2119, -14.9931]],
        [1, 2, 3, 4, 5],
    ]
    for g_, w in zip(got, want):
        np.testing.assert_allclose(g_, w, atol=2e-5)


def test_seeded_image_ops_mapped_one_iteration_at_a_time_print_tf_1_15s_numbers():
    # (with parallel_iterations > 1, the order TF 1.15's executor runs the iterations' random
    # ops in is its scheduler's; one at a time, it is the rows' order)
    tf.set_random_seed(11)
    imgs = tf.constant(np.arange(100, dtype=np.float32).reshape(4, 5, 5, 1))
    y = tf.map_fn(lambda im: tf.random_crop(tf.image.random_flip_up_down(im), [3, 3, 1]), imgs,
                  parallel_iterations=1)
    b = tf.map_fn(lambda r: tf.random_shuffle(r), tf.reshape(imgs, [4, 25])[:, :6],
                  parallel_iterations=1)
    with tf.Session() as sess:
        crops, shuffled = sess.run([y, b])
    # TF 1.15's output for the same program
    np.testing.assert_array_equal(crops.reshape(4, 9), [
        [22, 23, 24, 17, 18, 19, 12, 13, 14], [45, 46, 47, 40, 41, 42, 35, 36, 37],
        [70, 71, 72, 65, 66, 67, 60, 61, 62], [87, 88, 89, 92, 93, 94, 97, 98, 99]])
    np.testing.assert_array_equal(shuffled, [
        [5, 3, 1, 2, 0, 4], [29, 25, 27, 28, 26, 30], [52, 54, 55, 50, 53, 51],
        [76, 79, 75, 78, 80, 77]])


def test_scalar_elems_fail_as_in_tf():
    with pytest.raises(ValueError, match="elems must be a 1\\+ dimensional Tensor, not a scalar"):
        tf.map_fn(lambda r: r, tf.constant(1.0))
    for fold in (tf.scan, tf.foldl, tf.foldr):  # TF 1.15: its IndexError
        with pytest.raises(IndexError, match="list index out of range"):
            fold(lambda a, r: a + r, tf.constant(1.0))
