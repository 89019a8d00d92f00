"""Writes the TensorFlow-made graph artifacts that tests/test_tf_artifacts.py loads.

Run with real TensorFlow (made with TF 2.21 through its 1.x API, ``tensorflow.compat.v1`` with
``disable_v2_behavior()`` and ``TF_USE_LEGACY_KERAS=1`` for ``tf.layers``)::

    TF_USE_LEGACY_KERAS=1 python tests/data/make_tf_artifacts.py [OUT_DIR]

OUT_DIR defaults to ``tests/data/tf_artifacts``. Every artifact is what a TF 1.x program gets
from files made elsewhere:

- ``cnn.meta`` + ``cnn.ckpt.*``: a ``tf.layers`` CNN (conv2d, batch_normalization, max_pooling2d,
  dropout, dense) saved by ``tf.train.Saver`` (``tf.train.import_meta_graph`` + restore).
- ``mlp.meta.gz`` + ``mlp.ckpt.*``: an MLP trained 3 Adam steps (Adam's slots in the checkpoint),
  one ref variable and two resource variables (``use_resource=True``).
- ``mlp_frozen.pb``: the same MLP frozen by ``tf.graph_util.convert_variables_to_constants``.
- ``embed_savedmodel/``: an embedding model (a resource variable) with a string lookup table
  (``tf.lookup.StaticHashTable``) written by ``tf.saved_model.builder.SavedModelBuilder`` with a
  ``serving_default`` signature and the table initializer as its main op.
- ``image.pb``: ``tf.io.decode_jpeg`` + tf.image ops on a JPEG string input; ``image.jpg``
  (4:2:0 chroma) and ``image444.jpg`` (full chroma), with TF's decodes of them.
- ``control_flow.pb``: a ``tf.cond`` and a ``tf.while_loop`` as TF 1.x's Switch/Merge/Enter/
  Exit/NextIteration/LoopCond ops (control flow v2 off); ``control_flow_nested.pb``: a cond in
  a cond, a cond in a loop body, a loop in a cond branch, a loop in a loop and a dynamic_size
  TensorArray written in a loop;
  ``while_grad.pb``: the gradient of a loop (TF 1.x's stack-based loop gradient).
- ``rnn_frozen.pb``: ``tf.nn.dynamic_rnn`` of a BasicRNNCell and a ``tf.map_fn``, frozen: TF
  1.x TensorArrays (TensorArrayV3, ...Scatter/Read/Write/Gather) in v1 while loops.
- ``loop_train.meta.gz`` + ``loop_train.ckpt.*``: a tf.while_loop of a matmul by a variable
  trained by GradientDescent (TF 1.x's loop gradient: stacks, a gradient frame).
- ``bn_train.meta.gz`` + ``bn_train.ckpt.*``: dense layers with ``tf.layers.batch_normalization``
  on a ``training`` placeholder (its v1 conds, the moving-average updates as RefSwitch branches
  and the conds' gradients) and a GradientDescent train_op, exported with default attrs
  stripped; expected.json has the variables after two training steps.

``expected.json`` holds the outputs TF itself computed for the inputs it also records.
"""
import gzip
import json
import os
import shutil
import sys

import numpy as np

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__),
                                                          "tf_artifacts")
EXPECTED = {}


def _gzip(name):
    """Compresses OUT/name to OUT/name.gz (the big MetaGraphs, to keep the test data small)."""
    path = os.path.join(OUT, name)
    with open(path, "rb") as f, open(path + ".gz", "wb") as out:
        out.write(gzip.compress(f.read(), mtime=0))
    os.remove(path)


def _write_pb(graph_def, name):
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(graph_def.SerializeToString())


def cnn():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 6, 6, 1], name="x")
        training = tf.placeholder_with_default(False, [], name="training")
        h = tf.layers.conv2d(x, 3, 3, padding="same", activation=tf.nn.relu, name="conv")
        h = tf.layers.batch_normalization(h, training=training, name="bn")
        h = tf.layers.max_pooling2d(h, 2, 2, name="pool")
        h = tf.layers.dropout(h, 0.5, training=training, name="drop")
        h = tf.layers.flatten(h, name="flat")
        y = tf.layers.dense(h, 2, name="logits")
        tf.identity(y, name="y")
        # move the batch-norm moving statistics away from their initial values
        upd = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
        saver = tf.train.Saver()
        xs = np.linspace(-1, 1, 2 * 36, dtype=np.float32).reshape(2, 6, 6, 1)  # CNN_X
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(2):
                s.run(upd, {x: xs * 3.0, training: True})
            out = s.run(y, {x: xs})
            saver.save(s, os.path.join(OUT, "cnn.ckpt"), write_meta_graph=False)
            saver.export_meta_graph(os.path.join(OUT, "cnn.meta"))
            EXPECTED["cnn"] = {"y": out.tolist()}  # for x = CNN_X below


def mlp():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(2)
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        t = tf.placeholder(tf.float32, [None, 1], name="t")
        w1 = tf.get_variable("w1", [4, 5], initializer=tf.random_normal_initializer(seed=3))
        # b1 and w2 are resource variables (VarHandleOp, ReadVariableOp, ResourceApplyAdam)
        b1 = tf.get_variable("b1", [5], initializer=tf.zeros_initializer(), use_resource=True)
        w2 = tf.get_variable("w2", [5, 1], initializer=tf.random_normal_initializer(seed=4),
                             use_resource=True)
        h = tf.nn.relu(tf.matmul(x, w1) + b1)
        y = tf.identity(tf.matmul(h, w2), name="y")
        loss = tf.reduce_mean(tf.square(y - t), name="loss")
        gs = tf.train.get_or_create_global_step()
        train = tf.train.AdamOptimizer(0.05).minimize(loss, global_step=gs, name="train")
        tf.add_to_collection("train_op", train)
        saver = tf.train.Saver()
        xs = np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0
        ts = np.array([[1.0], [0.0], [2.0]], np.float32)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train, {x: xs, t: ts})
            out = s.run(y, {x: xs})
            saver.save(s, os.path.join(OUT, "mlp.ckpt"), write_meta_graph=False)
            saver.export_meta_graph(os.path.join(OUT, "mlp.meta"))
            _gzip("mlp.meta")
            values = {v.op.name: s.run(v).tolist() for v in tf.global_variables()}
            frozen = tf.graph_util.convert_variables_to_constants(s, g.as_graph_def(), ["y"])
            _write_pb(frozen, "mlp_frozen.pb")
            # one more step from the checkpoint, as a restored program would take it
            s.run(train, {x: xs, t: ts})
            after = s.run(y, {x: xs})
        EXPECTED["mlp"] = {"x": xs.tolist(), "t": ts.tolist(), "y": out.tolist(),
                           "variables": values, "y_after_step": after.tolist()}


def embed():
    g = tf.Graph()
    path = os.path.join(OUT, "embed_savedmodel")
    with g.as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        table = tf.lookup.StaticHashTable(
            tf.lookup.KeyValueTensorInitializer(
                tf.constant(["the", "cat", "sat", "mat"]), tf.constant([0, 1, 2, 3], tf.int64)),
            default_value=4, name="vocab")
        ids = table.lookup(words)
        emb = tf.get_variable("emb", [5, 3], initializer=tf.random_uniform_initializer(seed=5),
                              use_resource=True)  # embedding_lookup reads it by ResourceGather
        vec = tf.nn.embedding_lookup(emb, ids)
        score = tf.reduce_sum(vec, axis=1, name="score")
        with tf.Session() as s:
            s.run([tf.global_variables_initializer(), tf.tables_initializer()])
            sample = np.array([b"cat", b"dog", b"the"])
            out_ids, out_score = s.run([ids, score], {words: sample})
            emb_value = s.run(emb)
            builder = tf.saved_model.builder.SavedModelBuilder(path)
            sig = tf.saved_model.signature_def_utils.predict_signature_def(
                {"words": words}, {"ids": ids, "score": score})
            builder.add_meta_graph_and_variables(
                s, [tf.saved_model.tag_constants.SERVING],
                signature_def_map={"serving_default": sig},
                main_op=tf.tables_initializer())
            builder.save()
        EXPECTED["embed"] = {"words": [w.decode() for w in sample], "ids": out_ids.tolist(),
                             "score": out_score.tolist(), "emb": emb_value.tolist()}


def image():
    g = tf.Graph()
    with g.as_default():
        pix = np.arange(4 * 6 * 3, dtype=np.uint8).reshape(4, 6, 3) * 3
        with tf.Session() as s:
            jpg = s.run(tf.image.encode_jpeg(pix, quality=95))
            jpg444 = s.run(tf.image.encode_jpeg(pix, quality=95, chroma_downsampling=False))
            dec = {"decoded_nofancy": tf.io.decode_jpeg(jpg, 3, fancy_upscaling=False),
                   "decoded_accurate": tf.io.decode_jpeg(jpg, 3, dct_method="INTEGER_ACCURATE"),
                   "decoded_gray": tf.io.decode_jpeg(jpg, 1),
                   "decoded_444": tf.io.decode_jpeg(jpg444, 3)}
            decodes = {k: v.tolist() for k, v in s.run(dec).items()}
        with open(os.path.join(OUT, "image.jpg"), "wb") as f:
            f.write(jpg)
        with open(os.path.join(OUT, "image444.jpg"), "wb") as f:
            f.write(jpg444)
    g = tf.Graph()
    with g.as_default():
        data = tf.placeholder(tf.string, [], name="jpeg")
        img = tf.io.decode_jpeg(data, channels=3, name="decoded")
        f = tf.image.convert_image_dtype(img, tf.float32)
        f = tf.image.resize_bilinear(f[None], [8, 12])[0]
        f = tf.image.flip_left_right(f)
        gray = tf.image.rgb_to_grayscale(f)
        std = tf.image.per_image_standardization(f)
        crop = tf.image.central_crop(f, 0.5)
        tf.identity(gray, name="gray")
        tf.identity(std, name="std")
        tf.identity(crop, name="crop")
        _write_pb(g.as_graph_def(), "image.pb")
        with tf.Session() as s:
            d, gr, st, cr = s.run([img, gray, std, crop], {data: jpg})
        EXPECTED["image"] = {"decoded": d.tolist(), "gray": _rounded(gr.tolist(), 6),
                             "std": _rounded(st.tolist(), 6), "crop": _rounded(cr.tolist(), 6),
                             **decodes}


def control_flow():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        c = tf.cond(x > 0.0, lambda: x * 2.0, lambda: -x + 1.0, name="cond")
        tf.identity(c, name="cond_out")
        i, acc = tf.while_loop(lambda i, a: i < n, lambda i, a: (i + 1, a * 1.5 + x),
                               [tf.constant(0), tf.constant(1.0)], name="loop")
        tf.identity(acc, name="loop_out")
        tf.identity(i, name="loop_i")
        _write_pb(g.as_graph_def(), "control_flow.pb")
        res = {}
        with tf.Session() as s:
            for xv, nv in [(3.0, 4), (-2.0, 0), (0.5, 2)]:
                res[f"{xv},{nv}"] = s.run(["cond_out:0", "loop_out:0", "loop_i:0"],
                                          {x: xv, n: nv})
        EXPECTED["control_flow"] = {k: [float(v[0]), float(v[1]), int(v[2])]
                                    for k, v in res.items()}


def control_flow_nested():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        a = tf.cond(x > 0, lambda: tf.cond(x > 5, lambda: x * 10, lambda: x * 2), lambda: -x)
        tf.identity(a, name="nested_cond")
        _, r = tf.while_loop(lambda i, a: i < 5,
                             lambda i, a: (i + 1, tf.cond(a > x, lambda: a - 1., lambda: a * 2.)),
                             [0, tf.constant(1.)])
        tf.identity(r, name="cond_in_while")
        w = tf.cond(x > 0, lambda: tf.while_loop(lambda a: a < 100., lambda a: a * x + 1., [x]),
                    lambda: x)
        tf.identity(w, name="while_in_cond")
        n = tf.placeholder(tf.int32, [], name="n")

        def outer(i, t):
            _, u = tf.while_loop(lambda j, u: j < i, lambda j, u: (j + 1, u + j), [0, t])
            return i + 1, u
        _, r = tf.while_loop(lambda i, t: i < n, outer, [0, 0])
        tf.identity(r, name="nested_while")
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        _, ta = tf.while_loop(lambda i, ta: i < n,
                              lambda i, ta: (i + 1, ta.write(i, tf.cast(i * i, tf.float32) + x)),
                              [0, ta])
        tf.identity(ta.stack(), name="dynamic_array")
        _write_pb(g.as_graph_def(), "control_flow_nested.pb")
        names = ["nested_cond:0", "cond_in_while:0", "while_in_cond:0", "nested_while:0"]
        with tf.Session() as s:
            EXPECTED["control_flow_nested"] = {
                f"{v},{k}": [float(o) for o in s.run(names, {x: v, n: k})]
                for v, k in [(7.0, 4), (3.0, 0), (-1.0, 1), (10.0, 6)]}
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        _, r = tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * x), [0, tf.constant(1.)])
        tf.identity(tf.gradients(r, x)[0], name="grad")
        _write_pb(g.as_graph_def(), "while_grad.pb")


def bn_train():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        training = tf.placeholder_with_default(True, [], name="training")
        h = tf.layers.dense(x, 4, name="d1")
        h = tf.layers.batch_normalization(h, training=training, name="bn")
        y = tf.identity(tf.layers.dense(tf.nn.relu(h), 1, name="d2"), name="y")
        loss = tf.reduce_mean(tf.square(y - 1.0), name="loss")
        with tf.control_dependencies(tf.get_collection(tf.GraphKeys.UPDATE_OPS)):
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf.add_to_collection("train_op", train)
        xs = np.arange(15, dtype=np.float32).reshape(5, 3) / 7.0
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            before = {v.op.name: s.run(v).tolist() for v in tf.global_variables()}
            saver.save(s, os.path.join(OUT, "bn_train.ckpt"), write_meta_graph=False)
            saver.export_meta_graph(os.path.join(OUT, "bn_train.meta"), strip_default_attrs=True)
            _gzip("bn_train.meta")
            for _ in range(2):
                s.run(train, {x: xs})
            EXPECTED["bn_train"] = {
                "x": xs.tolist(), "before": before,
                "after": {v.op.name: s.run(v).tolist() for v in tf.global_variables()},
                "y_inference": s.run(y, {x: xs, training: False}).tolist()}


def rnn():
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(3)
        x = tf.placeholder(tf.float32, [None, 4, 3], name="x")
        outs, state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.BasicRNNCell(5), x, dtype=tf.float32)
        tf.identity(outs, name="outs")
        tf.identity(state, name="state")
        tf.identity(tf.map_fn(lambda v: v * v + 1.0, tf.range(5.0)), name="squares")
        xs = np.linspace(-1, 1, 2 * 4 * 3, dtype=np.float32).reshape(2, 4, 3)  # RNN_X
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            frozen = tf.graph_util.convert_variables_to_constants(
                s, g.as_graph_def(), ["outs", "state", "squares"])
            _write_pb(frozen, "rnn_frozen.pb")
            o, st = s.run(["outs:0", "state:0"], {x: xs})
            EXPECTED["rnn"] = {"outs": o.tolist(), "state": st.tolist()}  # for x = RNN_X


def loop_train():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", [3, 3],
                            initializer=tf.constant_initializer(np.eye(3) * 0.5 + 0.1))
        n = tf.placeholder_with_default(3, [], name="n")
        _, h = tf.while_loop(lambda i, h: i < n,
                             lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w)) + h * 0.5), [0, x])
        loss = tf.reduce_sum(tf.square(h - 1.0), name="loss")
        train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, name="train")
        tf.add_to_collection("train_op", train)
        xs = np.array([[0.1, 0.2, 0.3], [-0.5, 0.4, 1.0]], np.float32)
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            saver.save(s, os.path.join(OUT, "loop_train.ckpt"), write_meta_graph=False)
            saver.export_meta_graph(os.path.join(OUT, "loop_train.meta"))
            _gzip("loop_train.meta")
            losses = []
            for _ in range(2):
                losses.append(float(s.run(loss, {x: xs})))
                s.run(train, {x: xs})
            EXPECTED["loop_train"] = {"x": xs.tolist(), "losses": losses,
                                      "w": s.run(w).tolist()}


def _rounded(value, digits=9):
    """Floats to 9 significant digits (exact for float32), to keep expected.json small."""
    if isinstance(value, float):
        return float(f"{value:.{digits}g}")
    if isinstance(value, list):
        return [_rounded(v, digits) for v in value]
    if isinstance(value, dict):
        return {k: _rounded(v, digits) for k, v in value.items()}
    return value


def main():
    if os.path.exists(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    for make in (cnn, mlp, embed, image, control_flow, control_flow_nested, bn_train, rnn,
                 loop_train):
        make()
    os.remove(os.path.join(OUT, "checkpoint"))  # it names absolute paths; tests name prefixes
    with open(os.path.join(OUT, "expected.json"), "w") as f:
        json.dump(_rounded(EXPECTED), f, sort_keys=True)


if __name__ == "__main__":
    main()
