"""Lead's TF 1.15 parity fixes of the twenty-eighth session; expected values measured in TF
1.15 (tensorflow-cpu 1.15.0) unless a comment says otherwise."""

import numpy as np

import tideflow as tf


def test_mirrored_variable_reads_in_cross_replica_context_are_identities():
    # TF 1.15's MirroredVariable.get() in a strategy's scope is an Identity of the copy, so
    # each read adds ops (and moves the op seeds of later random initializers)
    with tf.Graph().as_default() as g:
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            v = tf.Variable(1.0, name="v")
            a = v * 2
            b = v.read_value()
            c = tf.identity(v)
            d = v.value()
            e = tf.add(v, 1.0)
            f = v[None]
            r = strategy.extended.call_for_each_replica(lambda: v * 3)
        outside = v * 4
        got = [(t.name, [i.name for i in t.op.inputs]) for t in
               (a, b, c, d, e, f, outside, strategy.experimental_local_results(r)[0])]
        assert got == [
            ("mul:0", ["Identity:0", "mul/y:0"]),
            ("Identity_2:0", ["Identity_1:0"]),
            ("Identity_3:0", ["Identity_3/Identity:0"]),
            ("ReadVariableOp:0", ["v:0"]),
            ("Add:0", ["Add/Identity:0", "Add/y:0"]),
            ("strided_slice:0", ["Identity_5:0", "strided_slice/stack:0",
                                 "strided_slice/stack_1:0", "strided_slice/stack_2:0"]),
            ("mul_2:0", ["ReadVariableOp_2:0", "mul_2/y:0"]),
            ("mul_1:0", ["ReadVariableOp_1:0", "mul_1/y:0"]),
        ]
        assert [op.name for op in g.get_operations()][5:12] == [
            "Identity/ReadVariableOp", "Identity", "mul/y", "mul", "Identity_1/ReadVariableOp",
            "Identity_1", "Identity_2"]


def test_keras_model_under_mirrored_strategy_initializes_as_tf():
    # the second Dense's random kernel takes its op seed from the graph's op count, which
    # the first layer's Identity reads move (TF 1.15, graph seed 1)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        strategy = tf.distribute.MirroredStrategy()
        with strategy.scope():
            model = tf.keras.Sequential([
                tf.keras.layers.Dense(4, activation="relu", input_shape=(3,)),
                tf.keras.layers.Dense(1)])
            model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse")
        np.testing.assert_allclose(model.get_weights()[2].ravel(),
                                   [0.3985, -0.8391, 0.8666, 1.0941], atol=1e-4)
        x = np.arange(24, dtype=np.float32).reshape(8, 3) / 24
        y = x.sum(1, keepdims=True)
        np.testing.assert_allclose(model.evaluate(x, y, batch_size=4, verbose=0),
                                   2.812824845314026, rtol=1e-6)
        h = model.fit(x, y, epochs=1, batch_size=8, verbose=0, shuffle=False)
        np.testing.assert_allclose(h.history["loss"], [2.8128249645233154], rtol=1e-6)
        np.testing.assert_allclose(model.evaluate(x, y, batch_size=4, verbose=0),
                                   0.2012663334608078, rtol=1e-5)


def test_get_static_value_does_not_fold_arithmetic():
    with tf.Graph().as_default():
        c = tf.constant([1, 2, 3])
        for t in (c + 1, c * 2, -c, tf.reduce_sum(c), tf.gather(c, [0]), c[1:], tf.identity(c),
                  tf.stop_gradient(c), tf.reshape(c, [3, 1]), tf.maximum(c, 2)):
            assert tf.get_static_value(t) is None, t.op.type
        assert tf.get_static_value(tf.equal(c, 2)).tolist() == [False, True, False]
        assert tf.get_static_value(tf.cast(c, tf.float32)).tolist() == [1.0, 2.0, 3.0]
        assert tf.get_static_value(tf.stack([c, c])).tolist() == [[1, 2, 3], [1, 2, 3]]
        assert tf.get_static_value(tf.fill([2], 3)).tolist() == [3, 3]
        assert tf.get_static_value(tf.ones_like(c)).tolist() == [1, 1, 1]
        assert tf.get_default_graph().is_feedable(c * 2)
        assert not tf.get_default_graph().is_feedable(c)


def test_gradient_of_broadcast_softmax_xent_op_is_refused_as_tf():
    import pytest

    from tideflow.python.ops import gen_nn_ops

    with tf.Graph().as_default():
        lg = tf.constant(np.random.rand(3, 4))
        lb = tf.constant(np.random.rand(1, 4))
        loss, _ = gen_nn_ops.softmax_cross_entropy_with_logits(lg, lb)
        # TF 1.15: the labels' gradient has the logits' shape (3, 4), refused for (1, 4)
        with pytest.raises(ValueError, match=r"Incompatible shapes between op input and "
                           r"calculated input gradient.  Forward operation: "
                           r"SoftmaxCrossEntropyWithLogits.  Input index: 1. Original input "
                           r"shape: \(1, 4\).  Calculated input gradient shape: \(3, 4\)"):
            tf.gradients(loss, lg)


def test_one_replica_takes_the_iterators_element_itself():
    # TF 1.15 (MirroredStrategy on one device): the replica's inputs are IteratorGetNext's
    # outputs, no Identity between; the one replica's value is its own MEAN
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy()
        x = np.arange(12, dtype=np.float32).reshape(4, 3)
        with strategy.scope():
            it = strategy.make_dataset_iterator(tf.data.Dataset.from_tensor_slices(x).batch(2))
            w = tf.Variable(tf.ones([3, 1]), name="w")
            seen = []

            def step(xx):
                seen.append(xx)
                return tf.reduce_sum(tf.matmul(xx, w))

            mean = strategy.reduce(tf.distribute.ReduceOp.MEAN,
                                   strategy.experimental_run(step, it))
        assert seen[0].op.type == "IteratorGetNext"
        assert mean.name == "Sum:0"
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), it.initialize()])
            assert s.run(mean) == 15.0
