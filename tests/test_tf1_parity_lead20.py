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
