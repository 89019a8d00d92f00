"""Multi-device and placement programs of TF 1.x on CPU devices (towers, device functions,
colocation, replica_device_setter, tf.distribute) checked against what TF 1.15 printed."""

import numpy as np

import tideflow as tf


def test_colocate_with_none_resets_the_device_stack_too():
    # TF 1.15: colocate_with(None, ignore_existing=True) clears the device functions as any
    # colocate_with does, so an op made inside has no device ('' not '/device:CPU:0')
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        with tf.device("/cpu:0"):
            with tf.colocate_with(None, ignore_existing=True):
                f = tf.identity(v, name="f")
                with tf.device("/cpu:1"):
                    h = tf.identity(v, name="h")
            k = tf.identity(v, name="k")
        assert f.device == ""
        assert f.op.colocation_groups() == [b"loc:@f"]
        assert h.device == "/device:CPU:1"
        assert k.device == "/device:CPU:0"


def test_mirrored_strategy_variables_are_resource_variables():
    # TF 1.15: a strategy's scope makes resource variables: the mirrored variable's dtype is
    # float32 (not float32_ref) and each copy is a ResourceVariable
    with tf.Graph().as_default():
        strategy = tf.distribute.MirroredStrategy(devices=["/cpu:0", "/cpu:1"])
        with strategy.scope():
            w = tf.get_variable("w", [3, 1])
            b = tf.Variable(0.0, name="b", use_resource=False)
        assert w.dtype == tf.float32 and repr(w.dtype) == "tf.float32"
        assert b.dtype == tf.float32
        copies = strategy.experimental_local_results(w)
        assert [type(c).__name__ for c in copies] == ["ResourceVariable", "ResourceVariable"]
        assert [c.name for c in copies] == ["w:0", "w/replica_1:0"]
        assert [c.dtype for c in copies] == [tf.float32, tf.float32]


def test_keras_session_soft_places_a_strategy_of_absent_devices():
    # TF 1.15's Keras session has allow_soft_placement: a model compiled under
    # MirroredStrategy(['/cpu:0', '/cpu:1']) trains in a one-CPU process. TF printed
    # losses ['0.83984', '0.70046', '0.67268'] and these predictions.
    x = np.random.RandomState(0).randn(16, 4).astype(np.float32)
    y = (x.sum(1, keepdims=True) > 0).astype(np.float32)
    tf.keras.backend.clear_session()
    tf.set_random_seed(2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        model = tf.keras.Sequential([
            tf.keras.layers.Dense(3, activation="relu", input_shape=(4,),
                                  kernel_initializer=tf.keras.initializers.glorot_uniform(seed=1)),
            tf.keras.layers.Dense(1, activation="sigmoid",
                                  kernel_initializer=tf.keras.initializers.glorot_uniform(seed=2))])
        model.compile(optimizer=tf.keras.optimizers.SGD(0.5), loss="binary_crossentropy")
    try:
        h = model.fit(x, y, batch_size=8, epochs=3, verbose=0, shuffle=False)
        assert [f"{v:.5f}" for v in h.history["loss"]] == ["0.83984", "0.70046", "0.67268"]
        np.testing.assert_allclose(model.predict(x[:4]).ravel(),
                                   [0.50134, 0.46422, 0.51804, 0.50134], atol=1e-5)
        assert tf.keras.backend.get_session()._config.allow_soft_placement
    finally:
        tf.keras.backend.clear_session()
