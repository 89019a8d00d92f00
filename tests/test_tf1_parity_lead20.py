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
