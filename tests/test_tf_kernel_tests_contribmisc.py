"""tf.contrib's smaller modules (crf, training's HParams, framework's arg_scope and variable
helpers, losses) checked against TF 1.15's behaviour: values from brute force in NumPy, error
classes and messages where TF 1.x programs see them."""

import itertools

import numpy as np
import pytest

import tideflow as tf

_TRANS = np.array([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5], [-2.0, 1.0, 0.25]], np.float32)
_UNARY = np.array([[1.0, -2.0, 0.5], [0.0, 3.0, -1.0], [2.0, 2.0, -3.0]], np.float32)


def _path_score(unary, tags):
    return (sum(unary[i, t] for i, t in enumerate(tags))
            + sum(_TRANS[a, b] for a, b in itertools.pairwise(tags)))


def test_crf_python_ops_path_and_multitag_score():
    from tideflow.contrib.crf.python.ops import crf

    assert crf.crf_log_norm is tf.contrib.crf.crf_log_norm
    allowed = np.array([[True, False, True], [True, True, False], [False, True, True]])
    for steps in (3, 1):
        unary, mask = _UNARY[:steps], allowed[:steps]
        # (lengths as a tensor: TF 1.15 reads their dtype, so a list raises AttributeError)
        score = crf.crf_multitag_sequence_score(unary[None], mask[None], tf.constant([steps]),
                                                tf.constant(_TRANS))
        with tf.Session() as sess:
            got = sess.run(score)
        choices = [np.nonzero(row)[0] for row in mask]
        want = np.logaddexp.reduce([_path_score(unary, p) for p in itertools.product(*choices)])
        assert got.shape == (1,)
        np.testing.assert_allclose(got[0], want, rtol=1e-5)


def test_crf_static_time_builds_no_cond():
    g = tf.Graph()
    with g.as_default():
        tf.contrib.crf.crf_log_norm(tf.constant(_UNARY[None]), tf.constant([3]),
                                    tf.constant(_TRANS))
        tf.contrib.crf.crf_sequence_score(tf.constant(_UNARY[None]), tf.constant([[0, 1, 2]]),
                                          tf.constant([3]), tf.constant(_TRANS))
    assert not [op for op in g.get_operations() if op.type in ("Switch", "If", "StatelessIf")]


def test_crf_unknown_time_still_chooses_at_run_time():
    x = tf.placeholder(tf.float32, [1, None, 3])
    norm = tf.contrib.crf.crf_log_norm(x, tf.constant([3]), tf.constant(_TRANS))
    with tf.Session() as sess:
        got = sess.run(norm, {x: _UNARY[None]})
        one = sess.run(norm, {x: _UNARY[None, :1]})
    paths = [_path_score(_UNARY, p) for p in itertools.product(range(3), repeat=3)]
    np.testing.assert_allclose(got[0], np.logaddexp.reduce(paths), rtol=1e-5)
    np.testing.assert_allclose(one[0], np.logaddexp.reduce(_UNARY[0]), rtol=1e-5)


# -- tf.contrib.training.HParams -------------------------------------------------------------

def _hparams(**kw):
    return tf.contrib.training.HParams(**kw)


def test_hparams_parse_errors_name_the_value_and_type():
    hp = _hparams(depth=3, rate=0.25, act="gelu", flag=False)
    with pytest.raises(ValueError, match=r"Could not parse hparam 'depth' of type 'int' with "
                                         r"value '2.5' in depth=2.5"):
        hp.parse("depth=2.5")
    with pytest.raises(ValueError, match=r"Could not parse hparam 'flag'"):
        hp.parse("flag=maybe")
    hp.parse("flag=1, act=a=b/c,rate=-1e-3,")
    assert hp.flag is True and hp.act == "a=b/c" and hp.rate == -1e-3
    with pytest.raises(ValueError, match="Unknown hyperparameter type for nope"):
        hp.parse("nope=1")


def test_hparams_index_assignments_and_reuse():
    from tideflow.contrib.training.python.training import hparam

    got = hparam.parse_values("w[2]=7,k=x,w[0]=1,q=9", {"w": int, "k": str}, ignore_unknown=True)
    assert got == {"w": {2: 7, 0: 1}, "k": "x"}
    with pytest.raises(ValueError, match=r"Multiple assignments to variable 'w\[2\]'"):
        hparam.parse_values("w[2]=7,w[2]=8", {"w": int})
    with pytest.raises(ValueError, match="Assignment of a list to a list index."):
        hparam.parse_values("w[2]=[7]", {"w": int})


def test_hparams_set_casts_only_losslessly():
    hp = _hparams(n=4, x=0.5, s="a", b=True, unset=None)
    for name, value in (("n", 1.5), ("n", True), ("n", "4"), ("b", 0), ("b", "true"),
                        ("s", 3), ("x", "0.5")):
        with pytest.raises(ValueError, match=f"Could not cast hparam '{name}'"):
            hp.set_hparam(name, value)
    hp.set_hparam("x", 2)
    hp.set_hparam("unset", "1")
    assert hp.x == 2.0 and isinstance(hp.x, float) and hp.unset == "1"
    with pytest.raises(KeyError):
        hp.set_hparam("missing", 1)
    with pytest.raises(ValueError, match="incompatible with default"):
        hp.get("n", 0.5)


def test_hparams_str_round_trips_through_parse_and_proto():
    hp = _hparams(units=[16, 8], lr=0.125, name="net", bn=True)
    assert str(hp) == "units=[16, 8],lr=0.125,name=net,bn=True"
    assert repr(hp) == ("HParams([('bn', True), ('lr', 0.125), ('name', 'net'), "
                        "('units', [16, 8])])")
    other = _hparams(units=[1], lr=1.0, name="x", bn=False)
    other.parse(str(hp))
    assert other.values() == hp.values()
    back = tf.contrib.training.HParams(hparam_def=hp.to_proto())
    assert back.values() == hp.values() and type(back.bn) is bool
    with pytest.raises(AssertionError):
        tf.contrib.training.HParams(hparam_def="units=[1]")
    assert _hparams(f=len, k=1).to_json() == '{"k": 1}'


# -- tf.contrib.losses: contrib's own weighting -----------------------------------------------

def _run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def test_contrib_losses_batch_weights_scale_whole_examples():
    with tf.Graph().as_default():
        pred = tf.constant([[1.0, 2.0, 4.0], [0.0, -1.0, 3.0]])
        lab = tf.constant([[0.0, 0.0, 1.0], [1.0, 1.0, 1.0]])
        err = np.abs(np.array([[1.0, 2.0, 3.0], [1.0, 2.0, 2.0]]))
        for w in ([0.5, 2.0], [[0.5], [2.0]]):
            got = _run(tf.contrib.losses.absolute_difference(pred, lab, tf.constant(w)))
            np.testing.assert_allclose(got, (err.sum(1) * [0.5, 2.0]).sum() / 6, rtol=1e-6)
        got = _run(tf.contrib.losses.mean_squared_error(pred, lab, tf.constant([0.0, 3.0])))
        np.testing.assert_allclose(got, 3.0 * (err[1] ** 2).sum() / 3, rtol=1e-6)
        assert _run(tf.contrib.losses.log_loss(tf.constant([[0.5]]), tf.constant([[1.0]]),
                                               tf.zeros([1]))) == 0.0
        with pytest.raises(ValueError):
            tf.contrib.losses.absolute_difference(pred, lab, tf.ones([2, 2]))
        with pytest.raises(ValueError):
            tf.contrib.losses.mean_squared_error(pred, lab, weights=None)


def test_contrib_losses_names_collection_and_arg_scope():
    with tf.Graph().as_default():
        logits = tf.constant([[2.0, 0.0], [0.0, 1.0]])
        loss = tf.contrib.losses.softmax_cross_entropy(logits, tf.constant([[0, 1], [0, 1]]),
                                                       tf.constant([1.0, 0.0]))
        assert loss.op.name == "softmax_cross_entropy_loss/value"
        want = np.log(1 + np.exp(2.0)) + 2.0 - 2.0  # log-sum-exp(2, 0) - 0
        np.testing.assert_allclose(_run(loss), want, rtol=1e-5)
        assert tf.contrib.losses.get_losses() == [loss]
        with tf.contrib.framework.arg_scope([tf.contrib.losses.add_loss], loss_collection=None):
            tf.contrib.losses.sigmoid_cross_entropy(logits, tf.ones([2, 2]))
        assert tf.contrib.losses.get_losses() == [loss]
        hinge = tf.contrib.losses.hinge_loss(tf.constant([[0.5], [-2.0]]),
                                             tf.constant([[1.0], [1.0]]))
        np.testing.assert_allclose(_run(hinge), [[0.5], [3.0]])
        assert tf.contrib.losses.get_losses() == [loss]


def test_contrib_mean_pairwise_squared_error_normalisation():
    pred = np.array([[2.0, -1.0, 5.0, 0.5], [1.0, 1.0, 0.0, 3.0]])
    lab = np.array([[0.0, 1.0, 1.0, -2.0], [2.0, 0.0, 0.0, 1.0]])
    d = pred - lab
    per = np.array([((r[:, None] - r[None]) ** 2).sum() / 16.0 for r in d])
    with tf.Graph().as_default():
        w = tf.constant([1.5, 0.25])
        got = _run(tf.contrib.losses.mean_pairwise_squared_error(pred, lab, w))
        np.testing.assert_allclose(got, (per * [1.5, 0.25]).sum(), rtol=1e-5)
        zero = _run(tf.contrib.losses.mean_pairwise_squared_error(pred, lab, tf.zeros([2])))
        assert zero == 0.0


def test_contrib_cosine_distance_weights_per_position():
    a = np.array([[[0.6, 0.8], [1.0, 0.0]], [[0.0, 1.0], [0.0, -1.0]]], np.float32)
    b = np.array([[[0.6, 0.8], [0.0, 1.0]], [[0.0, -1.0], [0.0, -1.0]]], np.float32)
    with tf.Graph().as_default():
        w = tf.constant([[1.0, 1.0], [2.0, 0.0]])
        got = _run(tf.contrib.losses.cosine_distance(a, b, dim=2, weights=w))
        np.testing.assert_allclose(got, (0 + 1 + 2 * 2) / 3.0, rtol=1e-6)
        with pytest.raises(ValueError):
            tf.contrib.losses.cosine_distance(tf.placeholder(tf.float32), b, dim=2)


# -- tf.contrib.framework tensor_util ---------------------------------------------------------

def test_framework_tensor_util_path_and_partial_expected_shape():
    from tideflow.contrib.framework.python.framework import checkpoint_utils, tensor_util

    assert tensor_util.with_shape is tf.contrib.framework.with_shape
    assert checkpoint_utils.list_variables is tf.contrib.framework.list_variables
    with tf.Graph().as_default():
        t = tf.constant([[1, 2, 3]])
        assert tensor_util.with_shape(tf.TensorShape([None, 3]), t) is t
        with pytest.raises(ValueError, match="Invalid shape"):
            tensor_util.with_shape(tf.TensorShape([None, 2]), t)
        p = tf.placeholder(tf.int32)
        checked = tensor_util.with_shape(tf.TensorShape([2, 3]), p)
        assert checked.get_shape().as_list() == [2, 3]
        assert _run(checked, {p: [[4, 5, 6], [7, 8, 9]]}).tolist() == [[4, 5, 6], [7, 8, 9]]


# -- tf.contrib.training ----------------------------------------------------------------------

def test_training_clip_gradient_norms_fn_and_parse_values():
    from tideflow.contrib.training.python.training import training

    assert tf.contrib.training.parse_values("k=3", {"k": int}) == {"k": 3}
    with tf.Graph().as_default():
        v = tf.Variable([3.0, 4.0])
        grads = list(zip(tf.gradients(tf.reduce_sum(v * v), [v]), [v]))
        clipped = training.clip_gradient_norms_fn(5.0)(grads)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(clipped[0][0]), [3.0, 4.0], rtol=1e-6)
        assert clipped[0][1] is v


def _queue_run(fetches, steps, init=False):
    with tf.Session() as sess:
        if init:
            sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess=sess, coord=coord)
        out = [sess.run(fetches) for _ in range(steps)]
        coord.request_stop()
        coord.join(threads)
    return out


def test_rejection_sample_keeps_only_accepted_examples():
    with tf.Graph().as_default():
        values = tf.constant([5.0, 6.0, 7.0, 8.0])
        keep = tf.constant([0.0, 1.0, 0.0, 1.0])
        batch = tf.contrib.training.rejection_sample(
            [values, keep], lambda ex: ex[1], batch_size=6, enqueue_many=True)
        assert isinstance(batch, list) and len(batch) == 2
        for vals, flags in _queue_run(batch, 3):
            assert set(vals.tolist()) <= {6.0, 8.0} and flags.tolist() == [1.0] * 6


def test_stratified_sample_follows_target_classes():
    from tideflow.contrib.training.python.training import sampling_ops

    with tf.Graph().as_default():
        data = tf.constant([[10.0], [11.0], [12.0]])
        labels = tf.constant([0, 2, 1])
        (feat,), lab = tf.contrib.training.stratified_sample(
            [data], labels, [0.0, 0.0, 1.0], batch_size=4, init_probs=[0.4, 0.3, 0.3],
            enqueue_many=True)
        assert lab.get_shape().as_list() == [4] and feat.get_shape().as_list() == [4, 1]
        for f, lb in _queue_run([feat, lab], 2):
            assert lb.tolist() == [2] * 4 and f.ravel().tolist() == [11.0] * 4
        with pytest.raises(ValueError, match="same length"):
            sampling_ops.stratified_sample([data], labels, [0.5, 0.5], 4,
                                           init_probs=[0.4, 0.3, 0.3], enqueue_many=True)
        with pytest.raises(TypeError):
            sampling_ops.stratified_sample(data, labels, [0.5, 0.5], 4)
        p = tf.placeholder(tf.int32, [None])
        _, checked_labels, _ = sampling_ops._verify_input([tf.zeros([3, 2])], p,
                                                          [tf.constant([0.5, 0.5])])
        with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(checked_labels, {p: [0, 2, 1]})


def test_resample_at_rate_repeats_rows_together():
    from tideflow.contrib.training.python.training import resample

    with tf.Graph().as_default():
        reps = resample._repeat_range(tf.constant([2, 0, 1, 3]))
        a = tf.constant([10, 20, 30])
        b = tf.constant([[1.0, -1.0], [2.0, -2.0], [3.0, -3.0]])
        ra, rb = tf.contrib.training.resample_at_rate([a, b], tf.constant([0.0, 40.0, 0.0]),
                                                      seed=7)
        none, = tf.contrib.training.resample_at_rate([a], tf.zeros([3]))
        out, rates = tf.contrib.training.weighted_resample([a], tf.constant([1.0, 3.0, 2.0]),
                                                           0.5, seed=3)
        with tf.Session() as sess:
            sess.run([tf.local_variables_initializer(), tf.global_variables_initializer()])
            assert sess.run(reps).tolist() == [0, 0, 2, 3, 3, 3]
            va, vb = sess.run([ra, rb])
            assert len(va) > 10 and set(va.tolist()) == {20}
            np.testing.assert_array_equal(vb, np.tile([[2.0, -2.0]], [len(va), 1]))
            assert sess.run(none).shape == (0,)
            got, r = sess.run([out[0], rates])
            # the first batch's mean weight is the running mean: rate = w * 0.5 / 2
            assert set(got.tolist()) <= {10, 20, 30} and len(r) == len(got)
            want = {10: 0.25, 20: 0.75, 30: 0.5}
            np.testing.assert_allclose(r, [want[v] for v in got.tolist()], rtol=1e-4)


def test_feeding_queue_runner_feeds_each_enqueue_until_out_of_range():
    from tideflow.contrib.training.python.training.feeding_queue_runner import (
        FeedingQueueRunner,
    )

    assert FeedingQueueRunner is tf.contrib.training.FeedingQueueRunner
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(8, [tf.float32], shapes=[[2]])
        row = tf.placeholder(tf.float32, [2])
        enqueue = queue.enqueue(row)
        rows = iter([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])

        def feed():
            try:
                return {row: next(rows)}
            except StopIteration:
                raise tf.errors.OutOfRangeError(None, None, "no more rows") from None

        runner = FeedingQueueRunner(queue, [enqueue], queue.close(),
                                    queue.close(cancel_pending_enqueues=True), feed_fns=[feed])
        tf.train.add_queue_runner(runner)
        out = queue.dequeue()
        got = []
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess=sess, coord=coord)
            with pytest.raises(tf.errors.OutOfRangeError):
                while True:
                    got.append(sess.run(out).tolist())
            coord.request_stop()
            coord.join(threads)
        assert got == [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]
        with pytest.raises(ValueError, match="same length as enqueue_ops"):
            FeedingQueueRunner(queue, [enqueue], feed_fns=[feed, feed])


def test_get_graph_from_inputs_checks_one_graph():
    first, second = tf.Graph(), tf.Graph()
    with first.as_default():
        a = tf.constant(1.0)
    with second.as_default():
        b = tf.constant(2.0)
    get = tf.contrib.framework.get_graph_from_inputs
    assert get([a, a.op]) is first and get([], graph=second) is second
    with pytest.raises(ValueError, match="must be from the same graph"):
        get([a, b])
    with pytest.raises(ValueError, match="not from the passed-in graph"):
        get([b], graph=first)
    with pytest.raises(TypeError, match="needs to be a Graph"):
        get([a], graph="g")


def test_bounded_tensor_spec_bounds_follow_the_dtype():
    spec_cls = tf.contrib.framework.BoundedTensorSpec
    spec = spec_cls([3], tf.int32, minimum=-1, maximum=[4, 5, 6], name="act")
    assert spec.minimum.dtype == np.int32 and spec.maximum.tolist() == [4, 5, 6]
    assert not spec.maximum.flags.writeable
    assert spec == spec_cls([3], tf.int32, -1, [4, 5, 6], name="act")
    assert spec != spec_cls([3], tf.int32, 0, [4, 5, 6], name="act")
    wide = spec_cls.from_spec(tf.TensorSpec([2], tf.uint8, name="u"))
    assert (wide.minimum, wide.maximum, wide.name) == (0, 255, "u")
    with pytest.raises(ValueError, match="minimum and maximum must be provided"):
        spec_cls([3], tf.float32, None, 1.0)
    with pytest.raises(ValueError, match="maximum is not compatible with shape"):
        spec_cls([3], tf.float32, 0.0, [1.0, 2.0])


# -- tf.contrib.framework checkpoint remapping initializers -----------------------------------

def test_load_and_remap_matrix_rows_and_columns_by_vocabulary(tmp_path):
    (tmp_path / "old_rows.txt").write_text("x\ny\nz\n")
    (tmp_path / "new_rows.txt").write_text("z\nw\nx\n")
    (tmp_path / "old_cols.txt").write_text("p\nq\n")
    (tmp_path / "new_cols.txt").write_text("q\nr\n")
    old = np.arange(6, dtype=np.float32).reshape(3, 2) + 1.0  # rows x,y,z; cols p,q
    with tf.Graph().as_default():
        saved = tf.Variable(old, name="w")
        with tf.Session() as sess:
            sess.run(saved.initializer)
            path = tf.train.Saver([saved]).save(sess, str(tmp_path / "m"))
    fill = iter(range(100, 200))

    def counting(shape, dtype=None, partition_info=None):
        n = int(np.prod(shape))
        return tf.constant(np.array([next(fill) for _ in range(n)], np.float32).reshape(shape))

    init = tf.contrib.framework.load_and_remap_matrix_initializer(
        path, "w", new_row_vocab_size=3, new_col_vocab_size=2,
        old_row_vocab_file=str(tmp_path / "old_rows.txt"),
        new_row_vocab_file=str(tmp_path / "new_rows.txt"),
        old_col_vocab_file=str(tmp_path / "old_cols.txt"),
        new_col_vocab_file=str(tmp_path / "new_cols.txt"),
        num_row_oov_buckets=1, num_col_oov_buckets=1, initializer=counting)
    with tf.Graph().as_default():
        var = tf.get_variable("remapped", shape=[4, 3], initializer=init)
        with tf.Session() as sess:
            sess.run(var.initializer)
            got = sess.run(var)
    # new rows z, w, x (+1 oov); new cols q, r (+1 oov): missing cells in row-major order
    # (w's row and the r column) take 100..103, then the oov row 104..105, the oov column 106..
    want = np.array([[old[2, 1], 100, 106],
                     [101, 102, 107],
                     [old[0, 1], 103, 108],
                     [104, 105, 109]], np.float32)
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="2nd dim of shape"):
        init([4, 2])
    with pytest.raises(TypeError, match="only float32"):
        init([4, 3], tf.float64)


def test_random_strategy_hashes_op_names_with_the_seed():
    import hashlib

    from tideflow.contrib.training.python.training import device_setter

    op = type("FakeOp", (), {"name": "layer/kernel"})()
    for seed in (0, 5):
        want = int(hashlib.md5(f"layer/kernel_{seed}".encode()).hexdigest(), 16) % 3
        assert tf.contrib.training.RandomStrategy(3, seed=seed)(op) == want
    assert device_setter.RandomStrategy is tf.contrib.training.RandomStrategy
    with tf.Graph().as_default():
        strategy = tf.contrib.training.RandomStrategy(4, seed=1)
        with tf.device(tf.train.replica_device_setter(ps_tasks=4, ps_strategy=strategy)):
            v = tf.Variable(1.0, name="bias")
        assert v.device == f"/job:ps/task:{strategy(v.op)}"
