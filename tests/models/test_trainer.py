"""The TFRecord converter and the image trainer/evaluator as a user runs them: digits round-trip
through sharded TFRecords, image_train.py reaches a good precision@1 in image_eval.py, writes
checkpoints and summaries, resumes from its checkpoint, and trains as a ps task plus a chief
worker on loopback."""

import os
import re
import socket
import subprocess
import sys

import numpy as np
import pytest

import tideflow as tf
from tideflow.models import tfrecords

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(script, *args, timeout=240):
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("TF_CONFIG", None)
    out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", script), *args],
                         capture_output=True, text=True, env=env, timeout=timeout, check=False)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


def _read_examples(path):
    return [tf.train.Example.FromString(r) for r in tf.python_io.tf_record_iterator(path)]


@pytest.fixture(scope="module")
def digits_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("digits")
    stdout = _run("convert_to_tfrecords.py", "--dataset", "digits", "--output_dir", str(out))
    assert "train: 1500 examples" in stdout and "validation: 297 examples" in stdout
    return str(out)


def test_digits_round_trip(digits_dir):
    names = sorted(os.listdir(digits_dir))
    assert names == ["labels.txt"] + [f"train-0000{i}-of-00004" for i in range(4)] + [
        f"validation-0000{i}-of-00002" for i in range(2)]
    (train_pixels, train_labels), _ = tfrecords.digits_split()
    examples = [e for i in range(4)
                for e in _read_examples(os.path.join(digits_dir, f"train-0000{i}-of-00004"))]
    assert len(examples) == 1500
    feature = examples[7].features.feature
    assert feature["image/format"].bytes_list.value == [b"PNG"]
    assert [feature[k].int64_list.value[0] for k in
            ("image/height", "image/width", "image/channels")] == [8, 8, 1]
    assert feature["image/class/label"].int64_list.value[0] == train_labels[7]

    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [])
        encoded, label, _, _, _ = tfrecords.parse_example_proto(serialized)
        image = tf.image.decode_png(encoded, channels=1)
        with tf.Session() as sess:
            for i in (0, 7, 1499):
                pixels, value = sess.run([image, label],
                                         {serialized: examples[i].SerializeToString()})
                np.testing.assert_array_equal(pixels[:, :, 0], train_pixels[i])
                assert value == train_labels[i]


def test_convert_image_folder(tmp_path):
    from PIL import Image

    rng = np.random.RandomState(0)
    for cls in ("cat", "dog"):
        (tmp_path / "in" / cls).mkdir(parents=True)
        for i in range(3):
            pixels = rng.randint(0, 256, (10 + i, 12, 3)).astype(np.uint8)
            Image.fromarray(pixels).save(tmp_path / "in" / cls / f"{i}.{'png' if i else 'jpg'}")
    (tmp_path / "in" / "cat" / "notes.txt").write_text("not an image")
    out = tmp_path / "out"
    _run("convert_to_tfrecords.py", "--train_directory", str(tmp_path / "in"),
         "--output_dir", str(out), "--train_shards", "2", "--label_offset", "1")
    assert (out / "labels.txt").read_text() == "cat\ndog\n"
    examples = [e for i in range(2) for e in _read_examples(str(out / f"train-0000{i}-of-00002"))]
    assert len(examples) == 6
    seen = set()
    for e in examples:
        f = e.features.feature
        text = f["image/class/text"].bytes_list.value[0].decode()
        label = f["image/class/label"].int64_list.value[0]
        assert label == {"cat": 1, "dog": 2}[text]
        seen.add((text, f["image/format"].bytes_list.value[0],
                  f["image/height"].int64_list.value[0], f["image/channels"].int64_list.value[0]))
    assert ("cat", b"JPEG", 10, 3) in seen and ("dog", b"PNG", 12, 3) in seen


def _scalar_tags(train_dir):
    tags = set()
    for name in os.listdir(train_dir):
        if name.startswith("events.out.tfevents"):
            for event in tf.train.summary_iterator(os.path.join(train_dir, name)):
                tags.update(v.tag for v in event.summary.value)
    return tags


def test_train_eval_and_resume_on_digits(digits_dir, tmp_path):
    train_dir = str(tmp_path / "train")
    common = ["--model", "digits_cnn", "--data_dir", digits_dir, "--train_dir", train_dir,
              "--save_checkpoint_steps", "100", "--save_summaries_steps", "50",
              "--log_every", "100", "--seed", "1"]
    out = _run("image_train.py", *common, "--max_steps", "300")
    assert re.search(r"step 300, accuracy = [0-9.]+, loss = [0-9.]+ \([0-9.]+ steps/s, "
                     r"[0-9.]+ examples/s\)", out), out
    files = os.listdir(train_dir)
    for step in (100, 200, 300):
        assert f"model.ckpt-{step}.index" in files
    assert any(f.startswith("events.out.tfevents") for f in files)
    tags = _scalar_tags(train_dir)
    assert {"loss", "learning_rate", "accuracy", "global_step/sec"} <= tags, tags
    assert any(t.startswith("conv1/weights") for t in tags), tags

    out = _run("image_eval.py", "--model", "digits_cnn", "--data_dir", digits_dir,
               "--checkpoint_dir", train_dir, "--once")
    match = re.search(r"step 300: precision @ 1 = ([0-9.]+), precision @ 5 = ([0-9.]+) "
                      r"\[297 examples\]", out)
    assert match, out
    assert float(match.group(1)) >= 0.95, out
    assert os.listdir(os.path.join(train_dir, "eval"))

    # a second run restores step 300 and trains on to 350
    out = _run("image_train.py", *common, "--max_steps", "350")
    assert tf.train.latest_checkpoint(train_dir).endswith("model.ckpt-350")
    reader = tf.train.NewCheckpointReader(tf.train.latest_checkpoint(train_dir))
    assert reader.get_tensor("global_step") == 350
    assert reader.has_tensor("conv1/weights/ExponentialMovingAverage")


def test_cifar10_and_inception_on_synthetic_data(tmp_path):
    out = _run("image_train.py", "--model", "cifar10", "--synthetic", "--batch_size", "16",
               "--max_steps", "6", "--log_every", "3", "--train_dir", str(tmp_path / "c"))
    assert "step 6, accuracy" in out, out
    out = _run("image_train.py", "--model", "inception_v3", "--synthetic",
               "--depth_multiplier", "0.1", "--image_size", "75", "--batch_size", "4",
               "--num_classes", "5", "--max_steps", "4", "--log_every", "2",
               "--optimizer", "momentum", "--train_dir", str(tmp_path / "i"))
    assert "step 4, accuracy" in out, out
    assert tf.train.latest_checkpoint(str(tmp_path / "i")).endswith("model.ckpt-4")


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for sock in socks:
        sock.bind(("localhost", 0))
    ports = [sock.getsockname()[1] for sock in socks]
    for sock in socks:
        sock.close()
    return ports


def test_replicated_trainer(digits_dir, tmp_path):
    """Between-graph replication: a ps task and a chief worker on loopback (or, without
    tf.train.Server, a clear error)."""
    ps_port, worker_port = _free_ports(2)
    flags = ["--model", "digits_cnn", "--data_dir", digits_dir, "--train_dir", str(tmp_path),
             "--ps_hosts", f"localhost:{ps_port}", "--worker_hosts", f"localhost:{worker_port}",
             "--max_steps", "40", "--log_every", "20", "--save_checkpoint_steps", "20"]
    if not all(hasattr(tf.train, n) for n in ("ClusterSpec", "Server", "replica_device_setter",
                                              "SyncReplicasOptimizer")):
        sys.path.insert(0, os.path.join(ROOT, "examples"))
        try:
            import image_train
        finally:
            sys.path.pop(0)
        with pytest.raises(NotImplementedError, match="tf.train.Server"):
            image_train.main([*flags, "--job_name", "worker"])
        return
    env = dict(os.environ, PYTHONPATH=ROOT)
    env.pop("TF_CONFIG", None)
    ps = subprocess.Popen([sys.executable, os.path.join(ROOT, "examples", "image_train.py"),
                           *flags, "--job_name", "ps", "--task_id", "0"], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        out = _run("image_train.py", *flags, "--job_name", "worker", "--task_id", "0",
                   timeout=120)
    finally:
        ps.kill()
        ps.wait()
    assert "step 40, accuracy" in out, out
    assert tf.train.latest_checkpoint(str(tmp_path)).endswith("model.ckpt-40")
