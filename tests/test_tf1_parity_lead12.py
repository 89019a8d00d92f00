"""TF 1.x behaviours pinned by the twelfth session's lead (side-by-side checks with TF)."""
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
    assert repr(sp) == (
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
