"""``tideflow.tensorflow_alias`` / ``tideflow run``: code that imports ``tensorflow`` (a TF 1.x
library, a program spread over files) runs on tideflow unchanged, in a process of its own."""
import os
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

_LIB = textwrap.dedent('''
    import tensorflow as tf
    from tensorflow.python.ops import math_ops, variable_scope
    from tensorflow.python.framework import ops as tf_ops
    import tensorflow.compat.v1 as v1
    from tensorflow.compat.v1 import layers
    import tensorflow.contrib.slim as slim

    def model(x):
        with variable_scope.variable_scope("lib"):
            h = layers.dense(x, 4, activation=tf.nn.relu)
            h = slim.fully_connected(h, 2, activation_fn=None)
        return math_ops.reduce_sum(h, axis=1), tf_ops.get_default_graph() is v1.get_default_graph()
''')

_MAIN = textwrap.dedent('''
    import sys
    import numpy as np
    import tensorflow as tf
    import mylib

    x = tf.placeholder(tf.float32, [None, 3], name="x")
    y, same = mylib.model(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        out = sess.run(y, {x: np.ones((2, 3))})
    print(tf.__name__, same, out.shape, sys.argv[1:], __name__)
''')


def _python(tmp_path, *argv):
    """Python run in ``tmp_path`` (which holds mylib.py and main.py) with tideflow importable."""
    (tmp_path / "mylib.py").write_text(_LIB)
    (tmp_path / "main.py").write_text(_MAIN)
    done = subprocess.run([sys.executable, *argv], check=False, cwd=tmp_path,
                          env=dict(os.environ, PYTHONPATH=ROOT), capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def test_tideflow_run_executes_a_program_that_imports_tensorflow(tmp_path):
    out = _python(tmp_path, "-m", "tideflow.cli", "run", str(tmp_path / "main.py"), "--steps", "3")
    assert out.split("\n")[-2] == "tideflow True (2,) ['--steps', '3'] __main__"


def test_install_in_process_and_module_form(tmp_path):
    code = ("import tideflow.tensorflow_alias as a, sys; tf = a.install(); import tensorflow; "
            "import tensorflow.python.ops.math_ops as m; import tideflow; "
            "assert tensorflow is tideflow and tf is tideflow; "
            "assert m.reduce_sum is tideflow.reduce_sum; a.install(); "
            "import mylib; print('ok', mylib.tf is tideflow)")
    assert _python(tmp_path, "-c", code).strip() == "ok True"


def test_a_missing_name_is_an_import_error_and_a_real_tensorflow_is_not_replaced(tmp_path):
    code = ("import tideflow.tensorflow_alias as a; a.install()\n"
            "try:\n    import tensorflow.no_such_module\n"
            "except ImportError as e:\n    print('ImportError', e.name)\n"
            "import sys, types; import tideflow\n"
            "sys.modules['tensorflow'] = types.ModuleType('tensorflow')\n"
            "try:\n    a.install()\nexcept RuntimeError as e:\n    print('refused')\n")
    assert _python(tmp_path, "-c", code).split() == ["ImportError", "tensorflow.no_such_module", "refused"]


def test_run_without_a_program_says_how():
    from tideflow import tensorflow_alias

    with pytest.raises(SystemExit, match="usage: tideflow run"):
        tensorflow_alias.run([])


def test_importing_tideflow_lets_the_other_tensorflow_imports_of_a_program_run(tmp_path):
    # a TF 1.x program with only `import tensorflow as tf` changed keeps its other imports
    code = ("import tideflow as tf\n"
            "from tensorflow.contrib import rnn\n"
            "from tensorflow.examples.tutorials.mnist import input_data\n"
            "from tensorflow.python.ops import array_ops\n"
            "from tensorflow.keras.layers import Dense\n"
            "import tensorflow, tensorflow.python, tideflow.python\n"
            "from tensorflow.python.framework import ops\n"
            "import tideflow.framework.ops\n"
            "print(tensorflow is tf, rnn.LSTMCell is tf.nn.rnn_cell.LSTMCell,\n"
            "      array_ops.concat is tf.concat, Dense is tf.keras.layers.Dense,\n"
            "      hasattr(input_data, 'read_data_sets'),\n"
            "      # the very modules, not tideflow's files loaded again under other names\n"
            "      tensorflow.python is tideflow.python, ops is tideflow.framework.ops,\n"
            "      tideflow.python.__spec__.name == 'tideflow.python')\n")
    assert _python(tmp_path, "-c", code).split() == ["True"] * 8


def test_an_installed_tensorflow_wins_over_the_fallback(tmp_path):
    fake = tmp_path / "site" / "tensorflow"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("REAL = True\n")
    code = ("import sys; sys.path.insert(0, 'site')\n"
            "import tideflow, tensorflow\n"
            "print(getattr(tensorflow, 'REAL', False), tensorflow is tideflow)\n"
            "try:\n    import tensorflow.contrib\n"
            "except ImportError:\n    print('ImportError')\n")
    assert _python(tmp_path, "-c", code).split() == ["True", "False", "ImportError"]
    # without tideflow imported, `import tensorflow` finds nothing of tideflow's
    code = ("try:\n    import tensorflow\n"
            "except ImportError:\n    print('ImportError')\n")
    assert _python(tmp_path, "-c", code).split() == ["ImportError"]
