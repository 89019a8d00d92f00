"""Regressions found by running transformer-style TF 1.x programs (BERT's modeling /
optimization / run_classifier / run_pretraining / create_pretraining_data / extract_features,
GPT-2's model and sampler) against tideflow, compared with real TensorFlow where it could run."""

import base64
import importlib
import logging as py_logging
import os
import pathlib
import subprocess
import sys
import zlib

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    with tf.Graph().as_default():
        yield


def test_import_compat_v1_as_tf_is_the_same_module_tree():
    # TF 1.14+ programs (BERT's later releases) start with `import tensorflow.compat.v1 as tf`;
    # that import statement failed ("'tideflow.compat' is not a package"). Submodules reached
    # through it must be the very same module objects, not second copies.
    import tideflow.compat.v1 as tf1
    from tideflow.compat.v1 import logging
    from tideflow.compat.v1.keras import layers

    import tideflow.keras.layers

    nn = importlib.import_module("tideflow.compat.v1.nn")

    assert tf1 is tf and tf1.compat.v1 is tf
    assert logging is tf.logging and nn is tf.nn
    assert layers is tideflow.keras.layers
    assert importlib.import_module("tideflow.compat.v1.keras.layers") is tideflow.keras.layers
    with pytest.raises(ImportError):
        importlib.import_module("tideflow.compat.v1.no_such_module")


def test_tpu_estimator_passes_params_without_warning(tmp_path, caplog):
    # BERT's model_fn(features, labels, mode, params) under TPUEstimator without params=: TF
    # hands the wrapped model_fn a dict (never None), so no "params are not passed" warning;
    # params['batch_size'] is the per-mode batch size.
    seen = {}

    def input_fn(params):
        seen["input_bs"] = params["batch_size"]
        x = np.arange(8, dtype=np.float32).reshape(8, 1)
        return tf.data.Dataset.from_tensor_slices(({"x": x}, x * 2.0)).repeat().batch(
            params["batch_size"], drop_remainder=True)

    def model_fn(features, labels, mode, params):
        seen.setdefault("model_bs", []).append(params["batch_size"])
        pred = tf.layers.dense(features["x"], 1)
        loss = tf.losses.mean_squared_error(labels, pred)
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.contrib.tpu.TPUEstimatorSpec(mode, loss=loss, train_op=train_op)

    config = tf.contrib.tpu.RunConfig(
        model_dir=str(tmp_path), tpu_config=tf.contrib.tpu.TPUConfig(
            iterations_per_loop=2, per_host_input_for_training=(
                tf.contrib.tpu.InputPipelineConfig.PER_HOST_V2)))
    with caplog.at_level(py_logging.WARNING):
        est = tf.contrib.tpu.TPUEstimator(use_tpu=False, model_fn=model_fn, config=config,
                                          train_batch_size=4, eval_batch_size=2)
        est.train(input_fn, max_steps=3)
    assert not [r for r in caplog.records if "params are not passed" in r.getMessage()]
    assert est.params == {}
    assert seen["input_bs"] == 4 and seen["model_bs"] == [4]


# A TensorFlow checkpoint written by real TF 2.21 (compat.v1 Saver, CPU): 18 float32 [2]
# variables enc/layer_<i>/w = [i, i + 0.5], vocab = [b"a", b"bc"] (string), global_step = 7
# (int64). The .index (an SSTable of BundleEntryProto records) and the .data shard, zlib'd.
_TF_INDEX = (
    "eNpjYGDjYJRi4mBk4OVPzUvWz0msTC2KN9Av52AUYhFi4mDS4DDt3HDIgItZ0BAhqMABFBb/5HOXm1kQSa2CAFD4"
    "34zmB9yoqiWAwr02TAlAYSMkYQWg8LXFzhOBwsZIwhpAYVcjJwGgsAmSsAFQ+KZZ0gqgsCmSsAVQOGuesiZQ2AxJ"
    "2AEo7CXLsw4obI4k7AEU1t/sGc+F6pIAoPCrr9vfc6G6JAIozHslV5IL1SUJQOEPeu+ncKG6JAMovH/2t91cqC4p"
    "AAXVRLMcBl5BRAAju6kCqGCGrf5RLmYhCyThBkag+EbXReVAcUsk8Q6QuNKExz8YuPnSc/KTEnPii0tSCzg4hRgU"
    "JoDkdl+fL8jAKlSWn5yYxMEO1TWDUYPT9OUTs1YGIMhiZGBgAjEuPew4AqIZQcSBTws3MDAylzP8ZYaLeaXJn2li"
    "4ehn4WcgCMJ/N3SrlLrfBgDfx2yv"
)
_TF_DATA = (
    "eNolzqsRg0AAhOEFQyQSiUQicTlcJBLJwyCRDOoEAhFBCSmBDnIl4COghJTAP7Azn9ydla48JQuHOJcSpMhg8EKB"
    "EhU69BhgMWHGGzJswKCCxYIPVjhsOPCH6DwQIsqD+488/7v/xrppT2MsGo0="
)


def _write_tf_checkpoint(directory):
    prefix = os.path.join(str(directory), "ck")
    with open(prefix + ".index", "wb") as f:
        f.write(zlib.decompress(base64.b64decode(_TF_INDEX)))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(zlib.decompress(base64.b64decode(_TF_DATA)))
    return prefix


def test_reads_a_checkpoint_written_by_tensorflow(tmp_path):
    # BERT's run_classifier starts from Google's released checkpoint (TF's tensor bundle) via
    # get_assignment_map_from_checkpoint (tf.train.list_variables) + tf.train.init_from_checkpoint;
    # tideflow read only its own format ("corrupted or not a tideflow checkpoint index").
    prefix = _write_tf_checkpoint(tmp_path)
    names = sorted([f"enc/layer_{i}/w" for i in range(18)] + ["vocab", "global_step"])
    listed = tf.train.list_variables(prefix)
    assert [n for n, _ in listed] == names
    assert dict(listed)["enc/layer_3/w"] == [2] and dict(listed)["global_step"] == []
    reader = tf.train.NewCheckpointReader(prefix)
    assert reader.get_variable_to_dtype_map()["vocab"] == tf.string
    np.testing.assert_array_equal(reader.get_tensor("vocab"), np.array([b"a", b"bc"], object))
    assert reader.get_tensor("global_step") == 7
    for i in range(18):
        np.testing.assert_array_equal(tf.train.load_variable(prefix, f"enc/layer_{i}/w"),
                                      np.array([i, i + 0.5], np.float32))
    # init_from_checkpoint with a scope mapping, and Saver.restore by name
    with tf.variable_scope("model"):
        ws = [tf.get_variable(f"layer_{i}/w", [2]) for i in range(18)]
    tf.train.init_from_checkpoint(prefix, {"enc/": "model/"})
    step = tf.Variable(0, dtype=tf.int64, name="global_step")
    vocab = tf.Variable([b"", b""], name="vocab")
    saver = tf.train.Saver([step, vocab])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = sess.run(ws)
        saver.restore(sess, prefix)
        assert sess.run(step) == 7
        assert list(sess.run(vocab)) == [b"a", b"bc"]
    for i, w in enumerate(got):
        np.testing.assert_array_equal(w, [i, i + 0.5])


def test_tensorflow_checkpoint_corruption_is_a_data_loss_error(tmp_path):
    prefix = _write_tf_checkpoint(tmp_path)
    shard = pathlib.Path(prefix + ".data-00000-of-00001")
    data = bytearray(shard.read_bytes())
    data[0] ^= 0x40  # the first stored tensor (enc/layer_0/w, the first key)
    shard.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match="enc/layer_0/w"):
        tf.train.load_variable(prefix, "enc/layer_0/w")
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "enc/layer_1/w"), [1, 1.5])
    index_file = pathlib.Path(prefix + ".index")
    index = bytearray(index_file.read_bytes())
    index[20] ^= 0x01  # inside the data block: its checksum no longer matches
    index_file.write_bytes(bytes(index))
    with pytest.raises(tf.errors.DataLossError, match="checksum"):
        tf.train.list_variables(prefix)


def test_tf_test_main_parses_absl_flags_before_running_tests(tmp_path):
    # BERT's tokenization.py defines an absl flag and reads FLAGS.x inside functions its
    # tokenization_test.py calls; TF's tf.test.main parses the flags first (absl app.run), ours
    # went straight to unittest and every such test raised UnparsedFlagAccessError.
    script = tmp_path / "flag_user_test.py"
    script.write_text(
        "from absl import flags\n"
        "import tideflow as tf\n"
        "flags.DEFINE_string('greeting', 'hello', 'what to say')\n"
        "FLAGS = flags.FLAGS\n"
        "class T(tf.test.TestCase):\n"
        "    def test_reads_flag(self):\n"
        "        print('GREETING=' + FLAGS.greeting)\n"
        "if __name__ == '__main__':\n"
        "    tf.test.main()\n"
    )
    for extra, expect in (([], "GREETING=hello"), (["--greeting=hi"], "GREETING=hi")):
        out = subprocess.run([sys.executable, str(script), *extra], capture_output=True,
                             text=True, timeout=60, check=False)
        assert out.returncode == 0, out.stderr
        assert expect in out.stdout
        assert "\nOK" in out.stderr


def test_padded_batch_reads_padded_shapes_only_as_deep_as_the_elements():
    # Kyubyong/transformer's input_fn: nested (tuple) elements with strings, padded shapes
    # written as tuples -- () for a scalar -- and matching padding values. The padded shapes were
    # read as a deeper structure than the elements ("don't have the same nested structure").
    def gen():
        for ids, text in (([3, 4], b"ab"), ([5], b"c"), ([6, 7, 8], b"def")):
            yield (ids, len(ids), text), (ids[::-1], text.upper())

    shapes = (([None], (), ()), ((None,), ()))
    types = ((tf.int32, tf.int32, tf.string), (tf.int32, tf.string))
    ds = tf.data.Dataset.from_generator(gen, output_types=types, output_shapes=shapes)
    ds = ds.padded_batch(2, shapes, ((0, 0, ""), (-1, "")))
    (x, n, s), (y, t) = ds.make_one_shot_iterator().get_next()
    assert x.shape.as_list() == [None, None] and n.shape.as_list() == [None]
    with tf.Session() as sess:
        first = sess.run([x, n, s, y, t])
        second = sess.run([x, n, s, y, t])
    np.testing.assert_array_equal(first[0], [[3, 4], [5, 0]])
    np.testing.assert_array_equal(first[1], [2, 1])
    assert list(first[2]) == [b"ab", b"c"] and list(first[4]) == [b"AB", b"C"]
    np.testing.assert_array_equal(first[3], [[4, 3], [5, -1]])
    np.testing.assert_array_equal(second[0], [[6, 7, 8]])
    # a shape written where the elements nest deeper is still an error, as in TF
    with pytest.raises(TypeError, match="must also be a sequence"):
        tf.data.Dataset.from_generator(gen, output_types=types, output_shapes=shapes) \
            .padded_batch(2, ([None], [None]))


def test_small_batched_products_and_einsums_run_on_one_blas_thread(monkeypatch):
    # BERT's attention (einsum / 4-D matmul) and GPT-2's (BatchMatMulV2) are many small batched
    # products: with BLAS's own threads on a busy machine each took milliseconds (a tiny BERT
    # trained 6-9 steps/s against TF's 40-170). MatMul already held small products to one BLAS
    # thread; BatchMatMul and Einsum now follow the same rule, and BLAS gets its threads back.
    from tideflow.kernels import threads

    before = threads._blas.get() if threads._blas.get is not None else None
    if before is None or before < 2:
        pytest.skip("needs OpenBLAS running more than one thread")
    seen = []
    real_matmul, real_einsum = np.matmul, np.einsum

    def matmul(*args, **kwargs):
        seen.append(("matmul", threads._blas.get()))
        return real_matmul(*args, **kwargs)

    def einsum(*args, **kwargs):
        seen.append(("einsum", threads._blas.get()))
        return real_einsum(*args, **kwargs)

    rs = np.random.RandomState(0)
    a = rs.randn(8, 2, 32, 16).astype(np.float32)
    b = rs.randn(8, 2, 16, 32).astype(np.float32)
    w = rs.randn(16, 32).astype(np.float32)
    bmm = tf.matmul(tf.constant(a), tf.constant(b))
    ein = tf.einsum("bnfh,hd->bnfd", tf.constant(a), tf.constant(w))
    with tf.Session() as sess:
        monkeypatch.setattr(np, "matmul", matmul)
        monkeypatch.setattr(np, "einsum", einsum)
        got_bmm, got_ein = sess.run([bmm, ein])
        monkeypatch.undo()
    # the two-operand einsum runs as a batched np.matmul too (linalg_ops._pairwise_einsum)
    assert len(seen) == 2 and all(threads_used == 1 for _, threads_used in seen), seen
    assert threads._blas.get() == before
    np.testing.assert_allclose(got_bmm, a @ b, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(got_ein, np.einsum("bnfh,hd->bnfd", a, w), rtol=1e-5, atol=1e-5)


def test_cross_shard_optimizer_on_one_shard_is_the_wrapped_optimizer():
    # BERT's create_optimizer with use_tpu=True wraps its optimizer in
    # tf.contrib.tpu.CrossShardOptimizer (missing: AttributeError); TPUEstimator runs on the CPU
    # here, so the cross-shard sum is over one shard: the wrapped optimizer's own update.
    w = tf.Variable([1.0, -2.0], name="w")
    loss = tf.reduce_sum(w * w)
    inner = tf.train.MomentumOptimizer(0.1, momentum=0.9)
    opt = tf.contrib.tpu.CrossShardOptimizer(inner)
    assert isinstance(opt, tf.train.Optimizer)
    step = tf.train.get_or_create_global_step()
    train = opt.minimize(loss, global_step=step)
    grads = tf.gradients(loss, [w])
    apply = opt.apply_gradients(zip(grads, [w]))  # BERT's own path: tf.gradients + apply
    assert opt.get_slot(w, "momentum") is inner.get_slot(w, "momentum")
    assert opt.get_slot_names() == ["momentum"]
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(train)
        np.testing.assert_allclose(sess.run(w), [1.0 - 0.2, -2.0 + 0.4], rtol=1e-6)
        assert sess.run(step) == 1
        sess.run(apply)  # accumulator 0.9 * 2.0 + grad 1.6 -> w -= 0.1 * 3.4
        np.testing.assert_allclose(sess.run(w)[0], 0.8 - 0.1 * (0.9 * 2.0 + 1.6), rtol=1e-6)
    # BERT's later (compat.v1) releases spell it tf.tpu.CrossShardOptimizer
    assert tf.tpu.CrossShardOptimizer is tf.contrib.tpu.CrossShardOptimizer
    with pytest.raises(ValueError, match="reduction"):
        tf.contrib.tpu.CrossShardOptimizer(inner, reduction=tf.losses.Reduction.NONE)
    with pytest.raises(TypeError, match="Optimizer"):
        tf.contrib.tpu.CrossShardOptimizer(object())


def test_tpu_cluster_resolver_names_the_tpu_it_cannot_reach():
    # BERT builds tf.distribute.cluster_resolver.TPUClusterResolver(tpu_name, zone, project)
    # when run with --use_tpu --tpu_name: an AttributeError before; now TF's class, whose
    # connection fails with a ValueError naming the TPU (TF's own error when no name is given).
    resolver = tf.distribute.cluster_resolver
    assert issubclass(resolver.TPUClusterResolver, resolver.ClusterResolver)
    with pytest.raises(ValueError, match="Please provide a TPU Name"):
        resolver.TPUClusterResolver()
    with pytest.raises(ValueError, match="'my-tpu'.*us-central1-f"):
        resolver.TPUClusterResolver("my-tpu", zone="us-central1-f", project="p")


# Written by real TF 2.21 (compat.v1 Saver): emb [70, 2] = arange(140) in 3 row partitions
# (fixed_size_partitioner(3): rows 0-23, 24-46, 47-69), big [3, 200] = arange(600) - 300 in 2
# column partitions (columns 0-99, 100-199), plain = [1.5].
_TF_PARTED_INDEX = (
    "eNpjYGDjYJRi4mBk4BVhSMpMZ2BkZGpobjiQwsEoxCHExMEMxCkaGzhNV2vt1OJiET+QgiqlsIETJFtUN3MTI7d4"
    "am4S2IAZDU1QRRJAzKTwQEjjAKNp8tLwWA4W8RnT4bLiYNkFIho7GE03XLu+ESi7Hl32hihIttNz+UsGZmWgC4GS"
    "nGDbmTlOMFpxcDEJMANxihUXmMXCkSKQwsCsB3QJ1BQ3kClgdRJAzARUx8IhISAOZ+tD2AysQgU5iZl5QF0sQB2M"
    "ChPENVhM4/QfLmcAAkYQESsXWwfnHPi0cAMDI3Mhw2omuJjRz12VG5g49jLxMxAE4b8bulVK3W8DAOGhQgo="
)
_TF_PARTED_DATA = (
    "eNrt1vtrT38Ax/G3+51h7rdhmPvcb2Nj7te535n73Od+G47bDDNzbUlakiRJkiT57oskSZIkSUvSkiRJkvR97L/w"
    "w/f0eXye56dzev/w6vMJ4cyDEJ1+EALRKSU6qUQnlOi4EuUr0TElylOio0qUq0RHlOiwEh1SohwlOqhE2Up0QIn2"
    "K9E+JdqrRHuUKNJSu9nFTrLYwXa2sZUtbGYTG9nAetaRyVrWsJpVrGQFy8lgGUtZwmIWsZAFpDOfecxlDrOZxUxm"
    "MJ1pTGUKk5nERNKYwHjGMZYxjGYUj++H8IiH3KeIe9zlDre5xU1ucJ1rXOUKl7nERS5QyHnOcZYCznCKE+STRy6H"
    "ySGb/ewlIoutbCSTVWSwmHTmMIMppDGWkQwlhST60pNEOpFAPHE0pSGxxFCdypQn8PPfEL5SQjGvec5jirjNdS5T"
    "SAH55BCRSTpppJBIHDGE0mcWeQ6FRKQQSu//8Y4hITzhKc94zgte8orXvOEt7yjmPR/4SAmf+MwXvvKN7/zgJ7/4"
    "zR9CaghlKEs5ylOBilSiMlWoSjWqU4Oa1CKG2tShLrHUoz4NaEgjGtOEpjSjOS2IoyWtaE08bWhLOxJoTwc60onO"
    "dKEriXSjOz3oSS9604e+9KM/A0hiIINIJoXBDCGVoQxjOCMYaSMjGM4whpLKEAaTQjKDGEgSA+hPP/rSh970oic9"
    "6E43EulKFzrTiY50oD0JtKMtbYinNa1oSRwtaE4zmtKExjSiIQ2oTz1iqUsdahNDLWpSg+pUoypVqEwlKlKB8pSj"
    "LGUI/LGZ3/wq3Q4/+M43vvKFz3yihI984D3FvOMtb3jNK17yguc84ylPSvfpipJ9pfgQUUgRxYTBzkQciaSQRjqZ"
    "ROSQTwGFXOY6tyniMc95TTElfOUnwWbKU5nqxBBLQ5oSRzwJdCKRnvQliRSGMpKxpDGFGcwhncVksIpMNrKVLCL2"
    "sp9scjhMLnnkc4JTnKGAs5zjPIVc4CKXuMwVrnKN69zgJre4zR3uco8i7vOQR6XnsJFRjGYMYxnHeCaQxkQmMZkp"
    "TGUa05nBTGYxmznMZR7zSWcBC1nEYpawlGVksJwVrGQVq1nDWjJZx3o2sJFNbGYLW9nGdnaQxU52sZso1f8A3aOE"
    "vUrYp4T9SjighGwlHFRCjhIOKeGwEo4oIVcJR5WQp4RjSshXwnElnFDCSSWcUsJp5f99/GX7+Nt/z4uS/wM2FLXG"
)


def test_reads_partitioned_variables_from_a_tensorflow_checkpoint(tmp_path):
    prefix = os.path.join(str(tmp_path), "ck")
    pathlib.Path(prefix + ".index").write_bytes(
        zlib.decompress(base64.b64decode(_TF_PARTED_INDEX)))
    pathlib.Path(prefix + ".data-00000-of-00001").write_bytes(
        zlib.decompress(base64.b64decode(_TF_PARTED_DATA)))
    assert tf.train.list_variables(prefix) == [("big", [3, 200]), ("emb", [70, 2]),
                                               ("plain", [1])]
    emb = np.arange(140, dtype=np.float32).reshape(70, 2)
    big = np.arange(600, dtype=np.float32).reshape(3, 200) - 300
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "emb"), emb)
    np.testing.assert_array_equal(tf.train.load_variable(prefix, "big"), big)
    # restored into another partitioning and into a whole variable
    e = tf.get_variable("emb", [70, 2], partitioner=tf.fixed_size_partitioner(4))
    b = tf.get_variable("big", [3, 200])
    saver = tf.train.Saver({"emb": e, "big": b})
    with tf.Session() as sess:
        saver.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(tf.concat(list(e), 0)), emb)
        np.testing.assert_array_equal(sess.run(b), big)
