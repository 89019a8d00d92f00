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
