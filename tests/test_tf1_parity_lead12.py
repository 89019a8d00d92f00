"""TF 1.x behaviours pinned by the twelfth session's lead (side-by-side checks with TF)."""
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def test_saver_state_file_lists_paths_only(tmp_path):
    # TF 1.x's Saver writes model_checkpoint_path and all_model_checkpoint_paths, no
    # timestamps: scripts read that file line by line
    tf.Variable([1.0, 2.0], name="v")
    saver = tf.train.Saver(max_to_keep=2)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for step in (1, 2, 3):
            saver.save(s, str(tmp_path / "m"), global_step=step)
    text = (tmp_path / "checkpoint").read_text()
    assert text == (f'model_checkpoint_path: "{tmp_path}/m-3"\n'
                    f'all_model_checkpoint_paths: "{tmp_path}/m-2"\n'
                    f'all_model_checkpoint_paths: "{tmp_path}/m-3"\n')
    assert tf.train.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_timestamps == []


def test_sparse_tensor_repr_shows_its_components_as_str():
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    # TF 1.15: str() names the components; repr() is object's (printing a list or a dict)
    assert repr(sp).startswith("<") and repr(sp).endswith(">") and " object at 0x" in repr(sp)
    assert str(sp) == (
        'SparseTensor(indices=Tensor("SparseTensor/indices:0", shape=(1, 2), dtype=int64), '
        'values=Tensor("SparseTensor/values:0", shape=(1,), dtype=float32), '
        'dense_shape=Tensor("SparseTensor/dense_shape:0", shape=(2,), dtype=int64))')


def test_plus_operator_builds_addv2_except_for_strings():
    # TF 1.15: Tensor.__add__ is AddV2 for every dtype but string; tf.add stays Add
    a = tf.constant([1.0, 2.0])
    assert (a + 1).op.type == "AddV2" and (1 + a).op.type == "AddV2"
    assert tf.add(a, a).op.type == "Add"
    words = tf.constant(["a", "b"])
    assert (words + "!").op.type == "Add" and ("<" + words).op.type == "Add"
    with pytest.raises(TypeError, match="Input 'y' of 'AddV2' Op has type float32"):
        tf.constant(1) + 1.5
    with tf.Session() as s:
        assert s.run(a + a).tolist() == [2.0, 4.0]
        assert s.run(words + "!").tolist() == [b"a!", b"b!"]
        assert s.run(tf.gradients(a * a + a, a)[0]).tolist() == [3.0, 5.0]


def test_model_lists_its_layers_weights_before_its_own():
    # TF 1.15's Network gathers its layers' weights first, then the model's own (a plain
    # Layer lists its own first)
    class WithBias(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2, name="dense")
            self.norm = tf.keras.layers.BatchNormalization(name="norm")

        def build(self, input_shape):
            self.shift = self.add_weight("shift", [2], initializer="zeros")
            self.count = self.add_weight("count", [], initializer="zeros", trainable=False)
            super().build(input_shape)

        def call(self, x):
            return self.norm(self.dense(x)) + self.shift

    model = WithBias()
    model(tf.zeros([3, 4]))
    short = [w.name.split("/")[-1] for w in model.trainable_weights]
    assert short == ["kernel:0", "bias:0", "gamma:0", "beta:0", "shift:0"]
    short = [w.name.split("/")[-1] for w in model.non_trainable_weights]
    assert short == ["moving_mean:0", "moving_variance:0", "count:0"]
    model.trainable = False
    assert model.trainable_weights == []
    assert len(model.non_trainable_weights) == 8


def test_subclass_build_may_call_super_build():
    # the common ``super().build(input_shape)`` at the end of a model's own build: on the first
    # call and on an explicit model.build, its weights are made once and the call runs once
    class Shifted(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = tf.keras.layers.Dense(2)
            self.builds = 0

        def build(self, input_shape):
            self.builds += 1
            self.shift = self.add_weight("shift", [2], initializer="ones")
            super().build(input_shape)

        def call(self, x):
            return self.dense(x) + self.shift

    called = Shifted()
    y = called(tf.zeros([3, 4]))
    built = Shifted()
    built.build((None, 4))
    z = built(tf.zeros([1, 4]))
    for model in (called, built):
        assert model.builds == 1 and model.built
        assert len(model.weights) == 3
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        assert s.run(y).tolist() == [[1.0, 1.0]] * 3
        assert s.run(z).tolist() == [[1.0, 1.0]]


def _two_headed():
    inp = tf.keras.Input((4,), name="x")
    h = tf.keras.layers.Dense(3, activation="relu", name="h")(inp)
    o1 = tf.keras.layers.Dense(1, name="o1")(h)
    o2 = tf.keras.layers.Dense(2, activation="softmax", name="o2")(h)
    return tf.keras.Model(inp, [o1, o2])


def test_summary_of_a_branching_model_shows_connections():
    # TF 1.15: a depth holding two nodes (two heads on one layer) is not sequential-like
    lines = []
    _two_headed().summary(print_fn=lines.append)
    assert "Connected to" in lines[2] and len(lines[1]) == 98
    assert lines[8].startswith("o1 (Dense)") and lines[8].rstrip().endswith("h[0][0]")
    chain = tf.keras.Sequential([tf.keras.layers.Dense(2, input_shape=(3,))])
    lines = []
    tf.keras.Model(chain.inputs, chain.outputs).summary(print_fn=lines.append)
    assert "Connected to" not in lines[2] and len(lines[1]) == 65


def test_model_compiled_with_metrics_per_output_saves_and_loads(tmp_path):
    model = _two_headed()
    model.compile("sgd", loss={"o1": "mse", "o2": "sparse_categorical_crossentropy"},
                  metrics={"o2": ["accuracy"]})
    x = np.ones((3, 4), np.float32)
    model.fit(x, [np.ones((3, 1)), np.array([0, 1, 1])], epochs=1, verbose=0)
    path = str(tmp_path / "m.h5")
    model.save(path)
    again = tf.keras.models.load_model(path)
    assert again.metrics_names == model.metrics_names
    np.testing.assert_allclose(again.predict(x)[1], model.predict(x)[1], rtol=1e-6)
