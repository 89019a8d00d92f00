"""tf.train.Saver: round trips, renaming, sharding, bookkeeping, state file, crash safety, errors."""

import os
import signal
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import tideflow as tf
from tideflow.train import checkpoint_management as cm
from tideflow.train import checkpoint_utils
from tideflow.train.saver import Saver

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

DTYPE_VALUES = [
    (tf.float32, np.arange(6, dtype=np.float32).reshape(2, 3)),
    (tf.float64, np.array([1.5, -2.25])),
    (tf.float16, np.array([0.5, 3], np.float16)),
    (tf.bfloat16, np.array([1.5, -2], ml_dtypes.bfloat16)),
    (tf.complex64, np.array([1 + 2j, 3 - 4j], np.complex64)),
    (tf.complex128, np.array([[1e300 + 1j]], np.complex128)),
    (tf.string, np.array([b"x", b"", b"\x00yz"], dtype=object)),
    (tf.bool, np.array([True, False])),
    (tf.int8, np.array([-128, 127], np.int8)),
    (tf.uint8, np.array([0, 255], np.uint8)),
    (tf.int16, np.array([-3], np.int16)),
    (tf.uint16, np.array([65535], np.uint16)),
    (tf.int32, np.array([1, 2], np.int32)),
    (tf.int64, np.array([-(2**62)], np.int64)),
]  # (a uint32 or uint64 variable: TF 1.15 has no Assign kernel to initialize it)


def test_round_trip_every_dtype(tmp_path):
    with tf.Graph().as_default():
        vs = [tf.Variable(v, dtype=dt, name=f"v_{dt.name}") for dt, v in DTYPE_VALUES]
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "model"))
        assert path == str(tmp_path / "model")
        with tf.Session() as sess:  # a fresh session: every variable uninitialized
            saver.restore(sess, path)
            for v, (dt, want) in zip(vs, DTYPE_VALUES):
                got = sess.run(v)
                assert got.dtype == want.dtype, dt
                assert got.tolist() == want.tolist(), dt
        reader = checkpoint_utils.NewCheckpointReader(path)
        dtypes_ = reader.get_variable_to_dtype_map()
        assert {dtypes_[f"v_{dt.name}"] for dt, _ in DTYPE_VALUES} == {dt for dt, _ in DTYPE_VALUES}


def test_saver_def_names_and_graph_ops(tmp_path):
    with tf.Graph().as_default() as g:
        tf.Variable(1.0, name="v")
        saver = Saver()
        sd = saver.as_saver_def()
        assert sd.filename_tensor_name == "save/Const:0"
        assert sd.save_tensor_name == "save/control_dependency:0"
        assert sd.restore_op_name == "save/restore_all"
        assert sd.version == 2
        types = {op.type for op in g.get_operations()}
        assert {"SaveV2", "RestoreV2", "Assign"} <= types
        assert Saver(name="other").as_saver_def().restore_op_name == "other/restore_all"


def test_dict_var_list_renames(tmp_path):
    with tf.Graph().as_default():
        a = tf.Variable([1.0, 2.0], name="a")
        b = tf.Variable(7, name="b")
        saver = Saver({"weights/first": a, "count": b})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    assert checkpoint_utils.list_variables(path) == [("count", []), ("weights/first", [2])]
    with tf.Graph().as_default():
        other = tf.Variable([0.0, 0.0], name="renamed")
        restorer = Saver({"weights/first": other})
        with tf.Session() as sess:
            restorer.restore(sess, path)
            assert sess.run(other).tolist() == [1.0, 2.0]
    with tf.Graph().as_default():
        v = tf.Variable(0.0, name="v")
        with pytest.raises(ValueError, match="two names"):
            Saver({"x": v, "y": v})
        with pytest.raises(ValueError, match="No variables to save"):
            Saver([])
        empty = Saver([], allow_empty=True)
        with tf.Session() as sess:
            assert empty.save(sess, str(tmp_path / "e"), write_meta_graph=False) is None
            empty.restore(sess, str(tmp_path / "e"))


def test_sharded_over_devices(tmp_path):
    with tf.Graph().as_default():
        with tf.device("/cpu:0"):
            a = tf.Variable([1.0, 2.0], name="a")
        with tf.device("/cpu:1"):
            b = tf.Variable([[3]], name="b")
            c = tf.Variable("s", name="c")
        saver = Saver(sharded=True)
        assert saver.as_saver_def().sharded
        config = tf.ConfigProto(device_count={"CPU": 2})
        with tf.Session(config=config) as sess:
            assert [d.device_type for d in sess.list_devices()] == ["CPU", "CPU", "XLA_CPU"]
            sess.run(tf.global_variables_initializer())
            path = saver.save(sess, str(tmp_path / "m"))
        files = sorted(os.listdir(tmp_path))
        assert files == ["checkpoint", "m.data-00000-of-00002", "m.data-00001-of-00002",
                         "m.index", "m.meta"]
        with tf.Session(config=config) as sess:
            saver.restore(sess, path)
            np.testing.assert_array_equal(sess.run(a), [1.0, 2.0])
            np.testing.assert_array_equal(sess.run(b), [[3]])
            assert sess.run(c) == b"s"


def _bookkeeping_graph():
    v = tf.Variable(1.0, name="v")
    return v


def test_max_to_keep(tmp_path):
    with tf.Graph().as_default():
        _bookkeeping_graph()
        saver = Saver(max_to_keep=2)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = str(tmp_path / "m")
            paths = [saver.save(sess, prefix, global_step=s) for s in range(4)]
        assert paths[-1] == prefix + "-3"
        assert saver.last_checkpoints == [prefix + "-2", prefix + "-3"]
        for p in paths[:2]:
            assert not cm.checkpoint_exists(p)
            assert not os.path.exists(p + ".meta")
        for p in paths[2:]:
            assert cm.checkpoint_exists(p) and os.path.exists(p + ".meta")
        state = cm.get_checkpoint_state(str(tmp_path))
        assert state.model_checkpoint_path == prefix + "-3"
        assert list(state.all_model_checkpoint_paths) == [prefix + "-2", prefix + "-3"]
        # max_to_keep=0 or None: keep everything, no bookkeeping
        saver0 = Saver(max_to_keep=None)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for s in range(3):
                saver0.save(sess, str(tmp_path / "k"), global_step=s)
        assert saver0.last_checkpoints == []
        assert all(cm.checkpoint_exists(str(tmp_path / f"k-{s}")) for s in range(3))


def test_keep_checkpoint_every_n_hours(tmp_path):
    with tf.Graph().as_default():
        _bookkeeping_graph()
        saver = Saver(max_to_keep=1, keep_checkpoint_every_n_hours=0.5)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            prefix = str(tmp_path / "m")
            start = saver._next_checkpoint_time - 1800
            saver.save(sess, prefix, global_step=0)
            # pretend checkpoint 0 was written 40 minutes after the saver started: it is kept
            saver.set_last_checkpoints_with_time([(prefix + "-0", start + 2400)])
            saver.save(sess, prefix, global_step=1)
            assert cm.checkpoint_exists(prefix + "-0")
            assert saver._next_checkpoint_time == pytest.approx(start + 3600)
            # written 10 minutes after that boundary would be... before it: deleted
            saver.set_last_checkpoints_with_time([(prefix + "-1", start + 3000)])
            saver.save(sess, prefix, global_step=2)
            assert not cm.checkpoint_exists(prefix + "-1")
            assert saver.last_checkpoints == [prefix + "-2"]
        # set_last_checkpoints: +inf timestamps, never deleted
        saver.set_last_checkpoints([prefix + "-2"])
        assert saver._last_checkpoints == [(prefix + "-2", np.inf)]
        saver.recover_last_checkpoints([prefix + "-0", prefix + "-1", prefix + "-2"])
        assert saver.last_checkpoints == [prefix + "-0", prefix + "-2"]


def test_state_file_text_format_and_latest_checkpoint(tmp_path):
    with tf.Graph().as_default():
        _bookkeeping_graph()
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert cm.latest_checkpoint(str(tmp_path)) is None
            saver.save(sess, str(tmp_path / "m"), global_step=1)
            saver.save(sess, str(tmp_path / "m"), global_step=2, latest_filename="other")
    text = (tmp_path / "checkpoint").read_text()
    assert text.startswith(f'model_checkpoint_path: "{tmp_path}/m-1"\n')
    assert f'all_model_checkpoint_paths: "{tmp_path}/m-1"' in text
    assert cm.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-1")
    assert cm.latest_checkpoint(str(tmp_path), "other") == str(tmp_path / "m-2")
    # relative paths are resolved against the directory
    cm.update_checkpoint_state(str(tmp_path), "m-2", ["m-1", "m-2"])
    assert 'model_checkpoint_path: "m-2"' in (tmp_path / "checkpoint").read_text()
    assert cm.get_checkpoint_state(str(tmp_path)).all_model_checkpoint_paths[0] == str(
        tmp_path / "m-1")
    assert cm.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-2")
    assert len(cm.get_checkpoint_mtimes([str(tmp_path / "m-1"), str(tmp_path / "nope")])) == 1
    proto = cm.generate_checkpoint_state_proto("rel", "rel/x-3", ["rel/x-2"])
    assert proto.model_checkpoint_path == "x-3"
    assert list(proto.all_model_checkpoint_paths) == ["x-2", "x-3"]
    # a state file naming a deleted checkpoint yields None
    cm.remove_checkpoint(str(tmp_path / "m-2"))
    assert cm.latest_checkpoint(str(tmp_path)) is None


def test_save_relative_paths_and_pad_step(tmp_path):
    with tf.Graph().as_default():
        _bookkeeping_graph()
        saver = Saver(save_relative_paths=True, pad_step_number=True)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            gs = tf.constant(12, tf.int64)
            path = saver.save(sess, str(tmp_path / "m"), global_step=gs)
    assert path == str(tmp_path / "m-00000012")
    assert 'model_checkpoint_path: "m-00000012"' in (tmp_path / "checkpoint").read_text()


_KILL_CHILD = """
import sys
import numpy as np
import tideflow as tf
from tideflow.train.saver import Saver

v = tf.Variable(tf.zeros([50 * 1024 * 1024]), name="big")  # 200 MiB
step = tf.placeholder(tf.float32, [])
bump = tf.assign(v, v * 0 + step)
saver = Saver(max_to_keep=3)
with tf.Session() as sess:
    sess.run(v.initializer)
    for s in range(1, 1000):
        sess.run(bump.op, {step: float(s)})
        print("saving", s, flush=True)
        saver.save(sess, sys.argv[1], global_step=s, write_meta_graph=False)
        print("saved", s, flush=True)
"""


def test_sigkill_during_save_keeps_previous_checkpoint(tmp_path):
    prefix = str(tmp_path / "big")
    proc = subprocess.Popen([sys.executable, "-c", _KILL_CHILD, prefix], stdout=subprocess.PIPE,
                            text=True, cwd=REPO)
    try:
        lines = []
        while not any(line.startswith("saved") for line in lines):
            lines.append(proc.stdout.readline())
            assert lines[-1], f"child exited early: {lines}"
        # wait until the next save is under way, then kill it mid-write
        while not lines[-1].startswith("saving"):
            lines.append(proc.stdout.readline())
        import time

        time.sleep(0.15)
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    latest = cm.latest_checkpoint(str(tmp_path))
    assert latest is not None
    step = int(latest.rsplit("-", 1)[1])
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([50 * 1024 * 1024]), name="big")
        with tf.Session() as sess:
            Saver().restore(sess, latest)
            got = sess.run(v)
    assert got[0] == step and got[-1] == step and np.all(got == step)
    # every checkpoint whose index exists is complete (its checksums verify)
    for name in os.listdir(tmp_path):
        if name.endswith(".index"):
            r = checkpoint_utils.NewCheckpointReader(str(tmp_path / name[:-6]))
            assert r.get_tensor("big")[0] == float(name[4:-6])


def _w_graph(shape=(2, 3), dtype=tf.float32, name="w"):
    return tf.Variable(tf.zeros(shape, dtype=dtype), name=name)


def _save_w(tmp_path, **kw):
    with tf.Graph().as_default():
        _w_graph(**kw)
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)


def test_shape_mismatch_is_invalid_argument(tmp_path):
    path = _save_w(tmp_path)
    with tf.Graph().as_default():
        _w_graph((3, 3))
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            Saver().restore(sess, path)
    msg = e.value.message  # TF 1.15's words: the Assign's (str() adds its stack)
    assert "Assign requires shapes of both tensors to match. lhs shape= [3,3] rhs shape= [2,3]" \
        in msg
    # then the variable, both shapes and the checkpoint, named on a line of their own
    assert msg.endswith(f"(variable 'w', checkpoint key 'w': shape [3,3] in the graph, [2,3] "
                        f"in checkpoint {path})")


def test_dtype_mismatch_is_invalid_argument(tmp_path):
    path = _save_w(tmp_path)
    with tf.Graph().as_default():
        _w_graph(dtype=tf.float64)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                                 match="w; expected dtype double does not equal original dtype float"):
            Saver().restore(sess, path)
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError) as e:
            Saver().restore(sess, path)
        assert e.value.message.endswith(f"(checkpoint {path})")  # the file named too


def test_missing_variable_is_not_found(tmp_path):
    path = _save_w(tmp_path, name="other")
    with tf.Graph().as_default():
        _w_graph()
        with tf.Session() as sess, pytest.raises(tf.errors.NotFoundError,
                                                 match="Key w not found in checkpoint"):
            Saver().restore(sess, path)


def test_missing_checkpoint_and_none_path(tmp_path):
    with tf.Graph().as_default():
        _w_graph()
        saver = Saver()
        with tf.Session() as sess:
            # TF 1.15: a ValueError for a missing prefix in an existing folder
            with pytest.raises(ValueError, match="^The passed save_path is not a valid "
                               "checkpoint: " + str(tmp_path / "nothing")):
                saver.restore(sess, str(tmp_path / "nothing"))
            with pytest.raises(ValueError, match="Can't load save_path when it is None."):
                saver.restore(sess, None)


def test_corrupted_checkpoint_is_data_loss(tmp_path):
    path = _save_w(tmp_path)
    data = path + ".data-00000-of-00001"
    with open(data, "r+b") as f:
        f.seek(-3, os.SEEK_END)
        b = f.read(1)
        f.seek(-3, os.SEEK_END)
        f.write(bytes([b[0] ^ 0xFF]))
    with tf.Graph().as_default():
        _w_graph()
        with tf.Session() as sess, pytest.raises(tf.errors.DataLossError, match="'w'.*m.data"):
            Saver().restore(sess, path)


def test_save_errors(tmp_path):
    with tf.Graph().as_default():
        _w_graph()
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(ValueError, match="path components"):
                saver.save(sess, str(tmp_path / "m"), latest_filename="a/b")
            with pytest.raises(ValueError, match="collides"):
                saver.save(sess, str(tmp_path / "checkpoint"))
            with pytest.raises(ValueError, match="Parent directory of .* doesn't exist"):
                saver.save(sess, str(tmp_path / "no" / "such" / "m"))
        with tf.Session() as sess, pytest.raises(tf.errors.FailedPreconditionError,
                                                 match="uninitialized value w"):
            saver.save(sess, str(tmp_path / "m"))


def test_reshape_restore(tmp_path):
    path = _save_w(tmp_path)
    with tf.Graph().as_default():
        w = _w_graph((3, 2))
        with tf.Session() as sess:
            Saver(reshape=True).restore(sess, path)
            assert sess.run(w).shape == (3, 2)


def test_checkpoint_utils(tmp_path):
    with tf.Graph().as_default():
        with tf.variable_scope("scope"):
            a = tf.get_variable("a", initializer=tf.constant([1.0, 2.0]))
            tf.get_variable("b", initializer=tf.constant(3))
        saver = Saver()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "m"), global_step=5)
    assert checkpoint_utils.list_variables(str(tmp_path)) == [("scope/a", [2]),
                                                              ("scope/b", [])]
    assert checkpoint_utils.load_variable(str(tmp_path), "scope/a:0").tolist() == [1.0, 2.0]
    reader = checkpoint_utils.load_checkpoint(str(tmp_path))
    assert reader.has_tensor("scope/b") and not reader.has_tensor("x")
    assert reader.debug_string() == b"scope/a (DT_FLOAT) [2]\nscope/b (DT_INT32) []\n"
    with pytest.raises(tf.errors.NotFoundError, match="nope"):
        checkpoint_utils.NewCheckpointReader(str(tmp_path / "nope"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="Couldn't find 'checkpoint' file"):
        checkpoint_utils.load_checkpoint(str(tmp_path / "empty"))
    del a
    # init_from_checkpoint: one variable by object, a scope by name
    with tf.Graph().as_default():
        with tf.variable_scope("new"):
            x = tf.get_variable("a", shape=[2])
            y = tf.get_variable("b", shape=[], dtype=tf.int32)
        z = tf.get_variable("z", shape=[2])
        checkpoint_utils.init_from_checkpoint(str(tmp_path), {"scope/": "new/"})
        checkpoint_utils.init_from_checkpoint(str(tmp_path), {"scope/a": z})
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(x).tolist() == [1.0, 2.0] and sess.run(y) == 3
            assert sess.run(z).tolist() == [1.0, 2.0]
        with pytest.raises(ValueError, match="not found"):
            checkpoint_utils.init_from_checkpoint(str(tmp_path), {"missing": z})
