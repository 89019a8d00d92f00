"""Regressions found by running public TF 1.x text / RNN / seq2seq programs (text CNN, char-RNN,
NMT, sequence taggers) against tideflow; each test is a small self-contained form of the pattern."""

import subprocess
import sys
import textwrap

import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_flags_parse_flags_of_tf_1_4_scripts(tmp_path):
    # scripts written for TF <= 1.4 call FLAGS._parse_flags() before printing their parameters;
    # it parses the known flags of sys.argv and returns the arguments left over
    script = tmp_path / "s.py"
    script.write_text(textwrap.dedent('''
        import tideflow as tf
        tf.flags.DEFINE_integer("batch_size", 64, "b")
        tf.flags.DEFINE_string("name", "x", "n")
        FLAGS = tf.flags.FLAGS
        rest = FLAGS._parse_flags()
        print(FLAGS.batch_size, FLAGS.name, rest)
        print(FLAGS._parse_flags(["--batch_size=3", "extra"]), FLAGS.batch_size)
    '''))
    proc = subprocess.run([sys.executable, str(script), "--batch_size=8", "--other=1"],
                          check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ["8 x ['--other=1']", "['extra'] 3"]


def test_python_ops_lookup_ops_of_the_nmt_vocab_utils(tmp_path):
    # tensorflow/nmt builds its vocabulary tables with
    # `from tensorflow.python.ops import lookup_ops` and initializes them with tables_initializer
    from tideflow.python.ops import lookup_ops

    vocab = tmp_path / "vocab.txt"
    vocab.write_text("<unk>\n<s>\n</s>\nhello\nworld\n")
    table = lookup_ops.index_table_from_file(str(vocab), default_value=0)
    reverse = lookup_ops.index_to_string_table_from_file(str(vocab), default_value="<unk>")
    ids = table.lookup(tf.constant(["world", "hello", "nope", "</s>"]))
    words = reverse.lookup(tf.constant([3, 9], tf.int64))
    with tf.Session() as sess:
        sess.run(lookup_ops.tables_initializer())
        assert sess.run(ids).tolist() == [4, 3, 0, 2]
        assert sess.run(words).tolist() == [b"hello", b"<unk>"]
