"""tf.app.run and tf.flags / tf.app.flags (absl's flags, as TF 1.x wrapped them), each case a real
Python subprocess running a TF 1.x-style script."""

import json
import subprocess
import sys
import textwrap

import pytest

import tideflow as tf

SCRIPT = textwrap.dedent('''
    import json

    import tideflow as tf

    flags = tf.app.flags
    flags.DEFINE_string("name", "world", "who")
    tf.flags.DEFINE_integer("steps", 10, "how many")
    flags.DEFINE_float("lr", 0.5, "rate")
    flags.DEFINE_boolean("verbose_run", False, "talk")
    flags.DEFINE_bool("fast", True, "go")
    flags.DEFINE_list("layers", ["a", "b"], "names")
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "mode")
    flags.DEFINE_multi_string("tag", [], "tags")
    FLAGS = flags.FLAGS


    def main(argv):
        print(json.dumps({"argv": argv[1:], "name": FLAGS.name, "steps": FLAGS.steps,
                          "lr": FLAGS.lr, "verbose_run": FLAGS.verbose_run, "fast": FLAGS.fast,
                          "layers": FLAGS.layers, "mode": FLAGS.mode, "tag": FLAGS.tag}))
        return FLAGS.steps if FLAGS.name == "exit" else None


    if __name__ == "__main__":
        tf.app.run()
''')


def _run(tmp_path, *args, script=SCRIPT):
    path = tmp_path / "prog.py"
    path.write_text(script)
    return subprocess.run([sys.executable, str(path), *args], check=False, capture_output=True,
                          text=True, timeout=120)


def _values(proc):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_defaults(tmp_path):
    got = _values(_run(tmp_path))
    assert got == {"argv": [], "name": "world", "steps": 10, "lr": 0.5, "verbose_run": False,
                   "fast": True, "layers": ["a", "b"], "mode": "train", "tag": []}


def test_values_from_the_command_line(tmp_path):
    got = _values(_run(tmp_path, "--name=x", "--steps", "3", "--lr=1e-3", "--verbose_run",
                       "--nofast", "--layers=c,d,e", "--mode", "eval", "--tag", "t1", "--tag=t2",
                       "extra"))
    assert got == {"argv": ["extra"], "name": "x", "steps": 3, "lr": 0.001, "verbose_run": True,
                   "fast": False, "layers": ["c", "d", "e"], "mode": "eval", "tag": ["t1", "t2"]}


def test_undefined_flags_reach_main(tmp_path):
    # TF 1.x's app.run parses with known_only=True: undefined flags stay in main's argv
    got = _values(_run(tmp_path, "--bogus=1", "pos", "--steps=4"))
    assert got["argv"] == ["--bogus=1", "pos"] and got["steps"] == 4


@pytest.mark.parametrize("arg, message", [
    ("--steps=abc", "flag --steps=abc"),
    ("--mode=bad", "value should be one of <train|eval>"),
])
def test_bad_flag_value_is_an_error(tmp_path, arg, message):
    proc = _run(tmp_path, arg)
    assert proc.returncode != 0 and "IllegalFlagValueError" in proc.stderr
    assert message in proc.stderr and proc.stdout == ""


def test_main_return_value_is_the_exit_status(tmp_path):
    proc = _run(tmp_path, "--name=exit", "--steps=7")
    assert proc.returncode == 7 and json.loads(proc.stdout)["steps"] == 7


def test_helpfull_lists_the_flags(tmp_path):
    proc = _run(tmp_path, "--helpfull")
    assert proc.returncode == 1 and "--steps: how many" in proc.stdout
    assert "(default: '10')" in proc.stdout and proc.stdout.count("{\"argv\"") == 0


def test_explicit_main_and_argv(tmp_path):
    script = SCRIPT.replace("tf.app.run()", "tf.app.run(main=lambda a: print(a) or 5, "
                                             "argv=['p', '--steps=2', 'rest'])")
    proc = _run(tmp_path, "--steps=9", script=script)
    assert proc.returncode == 5 and proc.stdout.strip() == "['p', 'rest']"


def test_flags_read_before_parsing_parse_sys_argv(tmp_path):
    # TF 1.x's FLAGS parsed sys.argv (known flags only) on the first read, without app.run
    script = textwrap.dedent('''
        import tideflow as tf
        tf.flags.DEFINE_integer("n", 1, "n")
        print(tf.flags.FLAGS.n, tf.app.flags.FLAGS.is_parsed())
    ''')
    proc = _run(tmp_path, "--n=6", "--other", script=script)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["6", "True"]


def test_namespaces_are_absl_flags_lazily_loaded():
    proc = subprocess.run(
        [sys.executable, "-c", "import sys, tideflow; print('absl' in sys.modules)"],
        check=False, capture_output=True, text=True, timeout=120)
    assert proc.stdout.strip() == "False", proc.stderr
    import absl.flags

    assert tf.app.flags is tf.flags and tf.flags.FLAGS is tf.app.flags.FLAGS
    assert tf.flags.DEFINE_enum is absl.flags.DEFINE_enum
    assert tf.flags.DEFINE_multi_string is absl.flags.DEFINE_multi_string
    assert tf.flags.DEFINE_bool is tf.flags.DEFINE_boolean
    values = absl.flags.FlagValues()
    with pytest.warns(DeprecationWarning, match="flag_name"):
        tf.flags.DEFINE_string(flag_name="old_style", default="v", help="h", flag_values=values)
    values(["prog"])
    assert values.old_style == "v"
