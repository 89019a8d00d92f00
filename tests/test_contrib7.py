"""tf.contrib modules added in session 7: compiler (jit scopes mark ops with TF's XLA attrs,
xla.compile runs inline), memory_stats, mixed_precision (loss scale managers against a NumPy
replay of TF's update rules), layers.recompute_grad, text.skip_gram_sample, the Minimal RNN and
CFN cells, nccl and all_reduce; values come from NumPy or are derived by hand."""

import numpy as np
import pytest

import tideflow as tf


def _xla_attrs(op):
    out = {}
    for key in ("_XlaCompile", "_XlaScope", "_XlaSeparateCompiledGradients"):
        try:
            value = op.get_attr(key)
        except ValueError:
            continue
        out[key] = value.decode() if isinstance(value, bytes) else value
    return out


# ----------------------------------------------------------------------------------------
# compiler
# ----------------------------------------------------------------------------------------


def test_jit_scope_marks_ops_and_nested_scopes_share_the_root_scope():
    jit = tf.contrib.compiler.jit
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float64, [3], name="x")
        with jit.experimental_jit_scope():
            y = tf.sin(x, name="y")
            with jit.experimental_jit_scope(compile_ops=False):
                z = tf.add(y, 1.0, name="z")
        with jit.experimental_jit_scope(separate_compiled_gradients=True):
            w = tf.exp(z, name="w")
        out = tf.identity(w, name="out")
        assert _xla_attrs(y.op) == {"_XlaCompile": True, "_XlaScope": "jit_scope_0",
                                    "_XlaSeparateCompiledGradients": False}
        assert _xla_attrs(z.op)["_XlaCompile"] is False
        assert _xla_attrs(z.op)["_XlaScope"] == "jit_scope_0"
        assert _xla_attrs(w.op) == {"_XlaCompile": True, "_XlaScope": "jit_scope_1",
                                    "_XlaSeparateCompiledGradients": True}
        assert _xla_attrs(out.op) == {}
        assert y.op.get_attr("_XlaScope") == b"jit_scope_0"  # bytes, as TF
        # the marks travel in the GraphDef as TF's AttrValues
        node = {n.name: n for n in g.as_graph_def().node}["y"]
        assert node.attr["_XlaCompile"].b is True
        assert node.attr["_XlaScope"].s == b"jit_scope_0"
        (gx,) = tf.gradients(out, x)
        grad_ops = {op.name: _xla_attrs(op) for op in g.get_operations()
                    if op.name.startswith("gradients/")}
        # a gradient inherits its op's scope, or gets its own with separate_compiled_gradients
        assert grad_ops["gradients/y_grad/Cos"]["_XlaScope"] == "jit_scope_0"
        assert grad_ops["gradients/w_grad/mul"]["_XlaScope"] == "jit_scope_1_grad_gradients"
        assert grad_ops["gradients/Fill"] == {}  # the seed of an unmarked op
        xv = np.array([0.3, -1.2, 2.0])
        with tf.Session() as s:
            got, dgot = s.run([out, gx], {x: xv})
        np.testing.assert_allclose(got, np.exp(np.sin(xv) + 1.0))
        np.testing.assert_allclose(dgot, np.exp(np.sin(xv) + 1.0) * np.cos(xv))


def test_jit_scope_importable_by_module_path():
    from tideflow.contrib.compiler import jit

    assert jit.experimental_jit_scope is tf.contrib.compiler.jit.experimental_jit_scope
    with tf.Graph().as_default(), pytest.raises(NotImplementedError, match="callable"), \
            jit.experimental_jit_scope(compile_ops=lambda node_def: True):
        pass


def test_xla_compile_result_structures():
    xla = tf.contrib.compiler.xla
    with tf.Graph().as_default():
        a = tf.constant([1.0, 2.0])
        b = tf.constant(3.0)
        single = xla.compile(lambda x, y: x * y, [a, b])
        assert isinstance(single, list) and len(single) == 1
        pair = xla.compile(lambda x, y: (x + y, x - y), [a, b])
        nested = xla.compile(lambda x, y: {"s": x + y, "p": [x * y]}, [a, b])
        counter = tf.Variable(0.0)
        only_op = xla.compile(lambda: tf.assign_add(counter, 1.0).op)
        none = xla.compile(lambda: None)
        assert isinstance(only_op, tf.Operation) and isinstance(none, tf.Operation)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(single)[0], [3.0, 6.0])
            got = s.run(pair)
            np.testing.assert_allclose(got[0], [4.0, 5.0])
            np.testing.assert_allclose(got[1], [-2.0, -1.0])
            got = s.run(nested)
            np.testing.assert_allclose(got["s"], [4.0, 5.0])
            np.testing.assert_allclose(got["p"][0], [3.0, 6.0])
            s.run(only_op)
            s.run(only_op)
            assert s.run(counter) == 2.0
        with pytest.raises(ValueError, match="followed by zero or more Operations"):
            xla.compile(lambda: (tf.no_op(), a))
        with pytest.raises(ValueError, match="does not support Operation"):
            xla.compile(lambda: {"x": tf.no_op()})
        with pytest.raises(TypeError, match="inputs must be a list"):
            xla.compile(lambda x: x, a)


def test_xla_compile_gradients_flow_through():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2])
        (y,) = tf.contrib.compiler.xla.compile(lambda v: tf.reduce_sum(v * v * v), [x])
        (g,) = tf.gradients(y, x)
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(g, {x: [0.5, -2.0]}), 3 * np.array([0.25, 4.0]))


# ----------------------------------------------------------------------------------------
# memory_stats
# ----------------------------------------------------------------------------------------


def test_memory_stats_report_process_bytes():
    ms = tf.contrib.memory_stats
    with tf.Graph().as_default():
        now, peak, limit = ms.BytesInUse(), ms.MaxBytesInUse(), ms.BytesLimit()
        for t, op_type in ((now, "BytesInUse"), (peak, "MaxBytesInUse"),
                           (limit, "BytesLimit")):
            assert t.op.type == op_type and t.dtype == tf.int64
            assert t.get_shape().ndims == 0
        big = tf.reduce_sum(tf.ones([2048, 2048], tf.float64))  # a 32 MiB temporary
        with tf.Session() as s:
            before = s.run(peak)
            got_now, got_peak, got_limit, total = s.run([now, peak, limit, big])
            after = s.run(peak)
    assert total == 2048 * 2048
    assert 0 < got_now <= after and 0 < got_peak <= got_limit
    assert before <= got_peak <= after  # a peak never falls
    import os

    assert got_limit == os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


# ----------------------------------------------------------------------------------------
# mixed_precision
# ----------------------------------------------------------------------------------------


class _NumpyExponentialManager:
    """TF 1.x's ExponentialUpdateLossScaleManager rules, replayed in NumPy."""

    def __init__(self, scale, incr_n, decr_n, incr_ratio, decr_ratio):
        self.scale, self.good, self.bad = np.float32(scale), 0, 0
        self.incr_n, self.decr_n = incr_n, decr_n
        self.incr_ratio, self.decr_ratio = np.float32(incr_ratio), np.float32(decr_ratio)

    def update(self, finite):
        if finite:
            if self.good + 1 >= self.incr_n:
                grown = self.scale * self.incr_ratio
                if np.isfinite(grown):
                    self.scale = grown
                self.good = self.bad = 0
            else:
                self.good += 1
        elif self.bad + 1 >= self.decr_n:
            self.scale = max(np.float32(1.0), self.scale * self.decr_ratio)
            self.good = self.bad = 0
        else:
            self.bad += 1
            self.good = 0


def test_exponential_loss_scale_optimizer_matches_numpy_over_steps():
    mp = tf.contrib.mixed_precision
    feeds = [[1, 2], [1, 1], [np.inf, 1], [1, 1], [np.nan, 0], [2, 2], [1, 1], [np.inf, 1],
             [1, 1], [1, 1], [1, 1], [0.5, -1], [np.inf, np.inf], [np.inf, 0], [np.inf, 0],
             [1, 1]]
    with tf.Graph().as_default():
        w = tf.Variable(np.array([1.0, -2.0], np.float32))
        c = tf.placeholder(tf.float32, [2])
        loss = tf.reduce_sum(w * c)
        manager = mp.ExponentialUpdateLossScaleManager(
            8.0, 2, decr_every_n_nan_or_inf=2, incr_ratio=2, decr_ratio=0.5)
        gs = tf.train.get_or_create_global_step()
        opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.1), manager)
        train = opt.minimize(loss, global_step=gs)
        ref = _NumpyExponentialManager(8.0, 2, 2, 2, 0.5)
        wv, step = np.array([1.0, -2.0], np.float32), 0
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for f in feeds:
                f = np.array(f, np.float32)
                s.run(train, {c: f})
                grad = (f * ref.scale) / ref.scale  # scaled, then unscaled
                finite = bool(np.all(np.isfinite(grad)))
                if finite:
                    wv = wv - np.float32(0.1) * grad
                    step += 1
                ref.update(finite)
                got = s.run([w, manager.get_loss_scale(), manager._num_good_steps,
                             manager._num_bad_steps, gs])
                np.testing.assert_allclose(got[0], wv, rtol=1e-6)
                assert got[1:] == [ref.scale, ref.good, ref.bad, step]
    assert step == 10


def test_loss_scale_optimizer_scales_then_unscales_gradients():
    mp = tf.contrib.mixed_precision
    with tf.Graph().as_default():
        w = tf.Variable(np.array([3.0, -1.0], np.float32))
        big = tf.placeholder(tf.float32, [])
        loss = tf.reduce_sum(w * w) * big
        opt = mp.LossScaleOptimizer(tf.train.GradientDescentOptimizer(0.5),
                                    mp.FixedLossScaleManager(1024.0))
        grads = opt.compute_gradients(loss, [w])
        train = opt.apply_gradients(grads)
        # the loss that is differentiated is the scaled one
        scaled = [op for op in tf.get_default_graph().get_operations()
                  if op.type == "Mul" and any(t.op.type == "Const" and t.dtype == tf.float32
                                              and np.ndim(tf.contrib.util.constant_value(t))
                                              == 0 and tf.contrib.util.constant_value(t)
                                              == 1024.0 for t in op.inputs)]
        assert scaled
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            np.testing.assert_allclose(s.run(grads[0][0], {big: 1.0}), [6.0, -2.0])
            s.run(train, {big: 1.0})
            np.testing.assert_allclose(s.run(w), [0.0, 0.0], atol=1e-7)
            s.run(tf.assign(w, [3.0, -1.0]))
            # finite unscaled but overflowing once scaled by 1024: the step is skipped
            s.run(train, {big: 3e36})
            np.testing.assert_allclose(s.run(w), [3.0, -1.0])
    with pytest.raises(ValueError, match="loss scale must be at least 1"):
        mp.FixedLossScaleManager(0.5)


def test_loss_scale_optimizer_wraps_adam_and_skips_non_finite_steps():
    mp = tf.contrib.mixed_precision
    with tf.Graph().as_default():
        w = tf.Variable(np.array([1.0, 2.0]), dtype=tf.float64)
        c = tf.placeholder(tf.float64, [2])
        manager = mp.ExponentialUpdateLossScaleManager(4.0, 100)
        opt = mp.LossScaleOptimizer(tf.train.AdamOptimizer(0.1), manager)
        train = opt.minimize(tf.reduce_sum(w * c))
        assert opt.get_slot(w, "m") is not None
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(train, {c: [1.0, -1.0]})
            first = s.run(w)
            # Adam's first step moves each weight by the learning rate against the sign
            np.testing.assert_allclose(first, [0.9, 2.1], rtol=1e-6)
            s.run(train, {c: [np.nan, 1.0]})
            np.testing.assert_allclose(s.run(w), first)
            np.testing.assert_allclose(s.run(manager.get_loss_scale()), 4.0)  # 1 of 2 bad
            s.run(train, {c: [np.inf, 1.0]})
            np.testing.assert_allclose(s.run(manager.get_loss_scale()), 3.2)  # 4 * 0.8


# ----------------------------------------------------------------------------------------
# text.skip_gram_sample
# ----------------------------------------------------------------------------------------


def _windows_ok(tokens, labels, values, min_skips, max_skips, start, end, emit_self):
    """Whether the pairs are, token by token in order, some window in [min, max] each."""
    pos = {v: i for i, v in enumerate(values)}
    ti = [pos[t] for t in tokens]
    li = [pos[v] for v in labels]
    k = 0
    for i in range(start, end):
        seen = []
        while k < len(ti) and ti[k] == i:
            seen.append(li[k])
            k += 1
        fits = [
            s for s in range(min_skips, max_skips + 1)
            if seen == [j for j in range(max(i - s, start), min(i + s, end - 1) + 1)
                        if j != i or emit_self]
        ]
        if not fits:
            return False
    return k == len(ti)


def test_skip_gram_sample_random_windows():
    words = np.array([b"the", b"quick", b"brown", b"fox", b"jumps", b"over", b"a", b"dog"],
                     dtype=object)
    runs = []
    for _ in range(2):
        with tf.Graph().as_default():
            tf.set_random_seed(7)
            tokens, labels = tf.contrib.text.skip_gram_sample(
                tf.constant(words), min_skips=1, max_skips=3, seed=11)
            with tf.Session() as s:
                runs.append([s.run([tokens, labels]) for _ in range(4)])
    # the same seeds give the same sequence in a new graph and session
    for a, b in zip(*runs):
        np.testing.assert_array_equal(a[0], b[0])
        np.testing.assert_array_equal(a[1], b[1])
    lists = list(words)
    for t, lab in runs[0]:
        assert len(t) == len(lab)
        assert _windows_ok(t.tolist(), lab.tolist(), lists, 1, 3, 0, 8, False)
    # successive runs draw new windows
    assert len({tuple(t.tolist()) for t, _ in runs[0]}) > 1


def test_skip_gram_sample_start_limit_and_self():
    with tf.Graph().as_default():
        x = tf.range(20, 29, dtype=tf.int64)
        tokens, labels = tf.contrib.text.skip_gram_sample(
            x, min_skips=0, max_skips=2, start=2, limit=4, emit_self_as_target=True)
        t0, l0 = tf.contrib.text.skip_gram_sample(x, min_skips=0, max_skips=0)
        with tf.Session() as s:
            for _ in range(5):
                t, lab = s.run([tokens, labels])
                assert _windows_ok(t.tolist(), lab.tolist(), list(range(20, 29)), 0, 2, 2, 6,
                                   True)
            t, lab = s.run([t0, l0])
    assert t.size == 0 and lab.size == 0  # no skips and no self: nothing


def test_skip_gram_sample_errors():
    with tf.Graph().as_default():
        bad = tf.contrib.text.skip_gram_sample(tf.constant([1, 2, 3]), min_skips=3,
                                               max_skips=2)
        neg = tf.contrib.text.skip_gram_sample(tf.constant([1, 2, 3]), min_skips=-1)
        with tf.Session() as s:
            with pytest.raises(tf.errors.InvalidArgumentError, match="min_skips must be <="):
                s.run(bad)
            with pytest.raises(tf.errors.InvalidArgumentError, match="must be >= 0"):
                s.run(neg)
        with pytest.raises(ValueError, match="must be rank 1"):
            tf.contrib.text.skip_gram_sample(tf.constant([[1, 2]]))
        with pytest.raises(ValueError, match="useless without a vocab_freq_table"):
            tf.contrib.text.skip_gram_sample(tf.constant([1]), vocab_min_count=2)
        with pytest.raises(ValueError, match="both must be provided"):
            table = tf.contrib.lookup.HashTable(
                tf.contrib.lookup.KeyValueTensorInitializer([1], [5]), -1)
            tf.contrib.text.skip_gram_sample(tf.constant([1]), vocab_freq_table=table,
                                             vocab_subsampling=0.1)


def test_skip_gram_sample_vocab_filter_and_text_vocab(tmp_path):
    words = [b"a", b"b", b"c", b"d", b"a", b"e"]
    with tf.Graph().as_default():
        table = tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer(
            tf.constant([b"a", b"b", b"c", b"d"]), tf.constant([30, 2, 10, 7], tf.int64)), -1)
        # "e" is not in the table, "b" is below the count: a c d a remain
        tokens, labels = tf.contrib.text.skip_gram_sample(
            tf.constant(words), min_skips=1, max_skips=1, vocab_freq_table=table,
            vocab_min_count=5)
        vocab = tmp_path / "vocab.txt"
        vocab.write_text("a,x,30\nb,x,2\nc,x,10\nd,x,7\n")
        t2, l2 = tf.contrib.text.skip_gram_sample_with_text_vocab(
            tf.constant(words), str(vocab), vocab_freq_index=2, vocab_min_count=5,
            min_skips=1, max_skips=1)
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            got = s.run([tokens, labels])
            got2 = s.run([t2, l2])
    kept = [b"a", b"c", b"d", b"a"]
    want_t = [kept[i] for i in (0, 1, 1, 2, 2, 3)]
    want_l = [kept[j] for j in (1, 0, 2, 1, 3, 2)]
    for t, lab in (got, got2):
        assert t.tolist() == want_t and lab.tolist() == want_l


def test_skip_gram_sample_subsampling_keeps_rare_tokens():
    # keep probability (sqrt(f / (s * N)) + 1) * s * N / f: >= 1 for the rare tokens here
    with tf.Graph().as_default():
        table = tf.contrib.lookup.HashTable(tf.contrib.lookup.KeyValueTensorInitializer(
            tf.constant([1, 2], tf.int64), tf.constant([1.0, 1000.0], tf.float64)), -1.0)
        x = tf.constant([1, 2] * 200, tf.int64)
        tokens, _ = tf.contrib.text.skip_gram_sample(
            x, min_skips=1, max_skips=1, vocab_freq_table=table, vocab_subsampling=0.001,
            corpus_size=1001.0, seed=3)
        with tf.Session() as s:
            s.run(tf.tables_initializer())
            t = s.run(tokens)
    ratio = 1000.0 / (0.001 * 1001.0)
    keep2 = (np.sqrt(ratio) + 1) / ratio  # about 0.033 for token 2; token 1's exceeds 1
    assert keep2 < 0.04
    assert np.count_nonzero(t == 1) >= 200  # every 1 kept, each with a neighbour or two
    # about 7 of the 200 2s survive, each a token once or twice (50 is 7 sigma away)
    assert np.count_nonzero(t == 2) < 100


# ----------------------------------------------------------------------------------------
# layers.recompute_grad
# ----------------------------------------------------------------------------------------


def _block(x):
    w = tf.get_variable("w", initializer=np.array([[0.5, -1.0], [2.0, 0.3]]), dtype=tf.float64)
    b = tf.get_variable("b", initializer=np.array([0.1, -0.2]), dtype=tf.float64)
    return tf.tanh(tf.matmul(x, w) + b) * x


@pytest.mark.parametrize("decorate", [
    lambda fn: tf.contrib.layers.recompute_grad(fn),
    lambda fn: tf.contrib.layers.recompute_grad(use_data_dep=True, tupleize_grads=True)(fn),
    lambda fn: tf.recompute_grad(fn),
])
def test_recompute_grad_matches_the_plain_function(decorate):
    x0 = np.array([[0.2, -0.7], [1.1, 0.4], [-0.3, 0.9]])
    results = []
    for wrap in (lambda fn: fn, decorate):
        with tf.Graph().as_default():
            x = tf.constant(x0)
            # TF 1.15's custom_gradient takes only resource variables made inside it
            with tf.variable_scope("blk", use_resource=True):
                y = wrap(_block)(x)
            variables = tf.trainable_variables()
            assert [v.op.name for v in variables] == ["blk/w", "blk/b"]
            loss = tf.reduce_sum(y * y)
            grads = tf.gradients(loss, [x, *variables])
            with tf.Session() as s:
                s.run(tf.global_variables_initializer())
                results.append(s.run([y, *grads]))
    for plain, recomputed in zip(*results):
        np.testing.assert_allclose(recomputed, plain, rtol=1e-12)
    # and the plain gradient itself, by NumPy
    w = np.array([[0.5, -1.0], [2.0, 0.3]])
    t = np.tanh(x0 @ w + np.array([0.1, -0.2]))
    y = t * x0
    dx = 2 * y * t + ((2 * y * x0) * (1 - t * t)) @ w.T
    np.testing.assert_allclose(results[0][1], dx, rtol=1e-12)


# ----------------------------------------------------------------------------------------
# rnn.MinimalRNNCell, rnn.CFNCell
# ----------------------------------------------------------------------------------------


def _sigmoid(v):
    return 1.0 / (1.0 + np.exp(-v))


def _minimal_rnn_ref(xs, h, kernel, bias):
    depth = xs.shape[2]
    w_x, w_g = kernel[:depth], kernel[depth:]
    outs = []
    for t in range(xs.shape[1]):
        z = np.tanh(xs[:, t] @ w_x)
        u = _sigmoid(np.concatenate([z, h], 1) @ w_g + bias)
        h = u * h + (1 - u) * z
        outs.append(h)
    return np.stack(outs, 1), h


def _cfn_ref(xs, h, kernel, recurrent, bias):
    n = h.shape[1]
    v, w = kernel[:, :2 * n], kernel[:, 2 * n:]
    outs = []
    for t in range(xs.shape[1]):
        gates = _sigmoid(h @ recurrent + xs[:, t] @ v + bias)
        theta, eta = gates[:, :n], gates[:, n:]
        h = theta * np.tanh(h) + (1 - eta) * np.tanh(xs[:, t] @ w)
        outs.append(h)
    return np.stack(outs, 1), h


@pytest.mark.parametrize("name", ["MinimalRNNCell", "CFNCell"])
def test_gated_research_cells_match_numpy(name):
    rng = np.random.RandomState(5)
    xs = rng.randn(2, 4, 3)
    h0 = rng.randn(2, 5) * 0.5
    with tf.Graph().as_default():
        cell = getattr(tf.contrib.rnn, name)(5)
        assert cell.state_size == 5 and cell.output_size == 5
        out, state = tf.nn.dynamic_rnn(cell, tf.constant(xs), initial_state=tf.constant(h0))
        names = {v.op.name: v.get_shape().as_list() for v in tf.global_variables()}
        scope = "rnn/minimal_rnn_cell" if name == "MinimalRNNCell" else "rnn/cfn_cell"
        if name == "MinimalRNNCell":
            assert names == {f"{scope}/kernel": [3 + 10, 5], f"{scope}/bias": [5]}
        else:
            assert names == {f"{scope}/kernel": [3, 15], f"{scope}/recurrent_kernel": [5, 10],
                             f"{scope}/bias": [10]}
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got_out, got_state, weights = s.run([out, state, {
                k: tf.get_default_graph().get_tensor_by_name(k + ":0") for k in names}])
    # the default bias initializer is ones
    np.testing.assert_array_equal(weights[f"{scope}/bias"], np.ones(names[f"{scope}/bias"]))
    if name == "MinimalRNNCell":
        want_out, want_state = _minimal_rnn_ref(xs, h0, weights[f"{scope}/kernel"],
                                                weights[f"{scope}/bias"])
    else:
        want_out, want_state = _cfn_ref(xs, h0, weights[f"{scope}/kernel"],
                                        weights[f"{scope}/recurrent_kernel"],
                                        weights[f"{scope}/bias"])
    np.testing.assert_allclose(got_out, want_out, rtol=1e-10)
    np.testing.assert_allclose(got_state, want_state, rtol=1e-10)


def test_gated_research_cells_need_a_known_depth():
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [2, None])
        h = tf.zeros([2, 3])
        for cell in (tf.contrib.rnn.MinimalRNNCell(3), tf.contrib.rnn.CFNCell(3)):
            with pytest.raises(ValueError, match="inputs.shape\\[-1\\] to be known"):
                cell(x, h)


# ----------------------------------------------------------------------------------------
# nccl, all_reduce (on several CPU devices)
# ----------------------------------------------------------------------------------------

_FOUR_CPUS = tf.ConfigProto(device_count={"CPU": 4})


def _on_devices(values, n=None):
    out = []
    for i, v in enumerate(values[:n] if n else values):
        with tf.device(f"/cpu:{i}"):
            out.append(tf.constant(v))
    return out


def test_nccl_reductions_place_one_result_per_device():
    rng = np.random.RandomState(0)
    vals = [rng.randn(2, 3) for _ in range(3)]
    with tf.Graph().as_default():
        ts = _on_devices(vals)
        sums = tf.contrib.nccl.all_sum(ts)
        prods = tf.contrib.nccl.all_prod(ts)
        mins = tf.contrib.nccl.all_min(ts)
        maxs = tf.contrib.nccl.all_max(ts)
        assert [t.device for t in sums] == [f"/device:CPU:{i}" for i in range(3)]
        with tf.device("/cpu:1"):
            red = tf.contrib.nccl.reduce_sum(ts)
        assert red.device == "/device:CPU:1"
        bc = tf.contrib.nccl.broadcast(ts[2])
        assert bc.device == "/device:CPU:2"
        with tf.device("/cpu:0"):
            received = tf.identity(bc)
        (g,) = tf.gradients(tf.reduce_sum(sums[0] * sums[1]), [ts[2]])
        with tf.Session(config=_FOUR_CPUS) as s:
            got = s.run([sums, prods, mins, maxs, red, received, g])
    stack = np.stack(vals)
    for i in range(3):
        np.testing.assert_allclose(got[0][i], stack.sum(0))
        np.testing.assert_allclose(got[1][i], stack.prod(0))
        np.testing.assert_array_equal(got[2][i], stack.min(0))
        np.testing.assert_array_equal(got[3][i], stack.max(0))
    np.testing.assert_allclose(got[4], stack.sum(0))
    np.testing.assert_array_equal(got[5], vals[2])
    np.testing.assert_allclose(got[6], 2 * stack.sum(0))  # d/dx of (S)(S) with S = sum


def test_nccl_errors():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Must pass >0 tensors"):
            tf.contrib.nccl.all_sum([])
        with pytest.raises(ValueError, match="Device assignment required"):
            tf.contrib.nccl.all_sum([tf.constant(1.0)])
        ts = _on_devices([1.0, 2.0])
        with tf.device("/cpu:3"), pytest.raises(ValueError, match="current device"):
            tf.contrib.nccl.reduce_sum(ts)


@pytest.mark.parametrize("builder", ["ring", "ring_subchunks", "hd", "shuffle", "nccl"])
def test_all_reduce_builders_sum_across_devices(builder):
    ar = tf.contrib.all_reduce
    rng = np.random.RandomState(1)
    vals = [rng.randn(3, 5) for _ in range(4)]  # 15 elements: padding is needed
    with tf.Graph().as_default():
        ts = _on_devices(vals)
        mean = (lambda x: x / 4.0)
        if builder == "ring":
            out = ar.build_ring_all_reduce(ts, 1, 1, [0, 1, 2, 3], tf.add, mean)
        elif builder == "ring_subchunks":
            out = ar.build_ring_all_reduce(ts, 2, 2, [1, 0], tf.add, mean)
        elif builder == "hd":
            out = ar.build_recursive_hd_all_reduce(ts, tf.add, mean)
        elif builder == "shuffle":
            out = ar.build_shuffle_all_reduce(ts, ["/cpu:0", "/cpu:3"], tf.add_n, mean)
        else:
            out = ar.build_nccl_all_reduce(ts, tf.add, mean)
        assert len(out) == 4
        assert [t.device for t in out] == [f"/device:CPU:{i}" for i in range(4)]
        assert all(t.get_shape().as_list() == [3, 5] for t in out)
        (g,) = tf.gradients(tf.reduce_sum(out[0]) + 2 * tf.reduce_sum(out[3]), [ts[1]])
        with tf.Session(config=_FOUR_CPUS) as s:
            got, dg = s.run([out, g])
    for t in got:
        np.testing.assert_allclose(t, np.mean(vals, 0), rtol=1e-12)
    np.testing.assert_allclose(dg, np.full((3, 5), 3 / 4.0))


def test_all_reduce_max_and_errors():
    ar = tf.contrib.all_reduce
    vals = [np.array([1.0, 5.0, -2.0]), np.array([3.0, 0.0, -1.0])]
    with tf.Graph().as_default():
        ts = _on_devices(vals)
        out = ar.build_recursive_hd_all_reduce(ts, tf.maximum)
        with tf.Session(config=_FOUR_CPUS) as s:
            for t in s.run(out):
                np.testing.assert_array_equal(t, [3.0, 5.0, -1.0])
        with pytest.raises(ValueError, match="power of 2"):
            ar.build_recursive_hd_all_reduce(_on_devices([vals[0]] * 3), tf.add)
        with pytest.raises(ValueError, match="length 2 or longer"):
            ar.build_ring_all_reduce(ts[:1], 1, 1, [0], tf.add)
        with pytest.raises(ValueError, match="same shape"):
            ar.build_shuffle_all_reduce([ts[0], tf.constant([1.0])], ["/cpu:0"], tf.add_n)
        with pytest.raises(ValueError, match="not supported by NCCL"):
            ar.build_nccl_all_reduce(ts, tf.maximum)


def test_tf_xla_experimental_names():
    assert tf.xla.experimental.jit_scope is tf.contrib.compiler.jit.experimental_jit_scope
    assert tf.xla.experimental.compile is tf.contrib.compiler.xla.compile
    with tf.Graph().as_default():
        with tf.xla.experimental.jit_scope():
            y = tf.constant(2.0) * 3.0
        assert y.op.get_attr("_XlaCompile") is True


# ----------------------------------------------------------------------------------------
# graph_editor
# ----------------------------------------------------------------------------------------


def names(ops_):
    return sorted(op.name for op in ops_)


def _chain():
    """a, b -> c = a + b -> d = c * 2 -> e = sin(d); f = c - b."""
    a = tf.placeholder(tf.float64, [2], name="a")
    b = tf.placeholder(tf.float64, [2], name="b")
    c = tf.add(a, b, name="c")
    d = tf.multiply(c, 2.0, name="d")
    e = tf.sin(d, name="e")
    f = tf.subtract(c, b, name="f")
    return a, b, c, d, e, f


_AV, _BV = np.array([0.5, -1.0]), np.array([2.0, 0.25])


def test_graph_editor_select_and_walks():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default() as g:
        a, _b, c, d, e, f = _chain()
        assert [op.name for op in ge.select_ops("^c$|^e$", graph=g)] == ["c", "e"]
        assert [op.name for op in ge.select_ops(a.op, "^f", graph=g)] == ["a", "f"]
        assert ge.select_ops("^d", graph=g, positive_filter=lambda op: op.type == "Mul") == [
            d.op]
        # TF 1.15: restrict_ops_regex keeps only the regexes marked (?#ops)
        assert [op.name for op in ge.select_ops(
            "^d", "(?#ops)^e", graph=g, restrict_ops_regex=True)] == ["e"]
        assert [t.name for t in ge.select_ts("(?#ts)^d", graph=g)] == ["d/y:0", "d:0"]
        assert ge.select_ts(c, d.op) == [c]
        with pytest.raises(ValueError, match="keyword argument 'graph'"):
            ge.select_ops("^c")
        with pytest.raises(ValueError, match="Wrong keywords argument"):
            ge.select_ops(a.op, graphh=g)
        assert names(ge.get_forward_walk_ops(c.op)) == ["c", "d", "e", "f"]
        assert names(ge.get_forward_walk_ops([c], inclusive=True)) == ["d", "e", "f"]
        assert names(ge.get_forward_walk_ops(c.op, inclusive=False)) == ["d", "e", "f"]
        assert names(ge.get_forward_walk_ops(a.op, stop_at_ts=[c])) == ["a", "c"]
        assert names(ge.get_forward_walk_ops(a.op, within_ops=[a.op, c.op, f.op])) == [
            "a", "c", "f"]
        assert names(ge.get_backward_walk_ops(e.op)) == ["a", "b", "c", "d", "d/y", "e"]
        assert names(ge.get_backward_walk_ops([e], stop_at_ts=[c])) == ["d", "d/y", "e"]
        assert names(ge.get_walks_intersection_ops([a], [e])) == ["c", "d", "e"]
        with tf.control_dependencies([f.op]):
            h = tf.identity(a, name="h")
        assert "f" not in names(ge.get_backward_walk_ops(h.op))
        assert "f" in names(ge.get_backward_walk_ops(h.op, control_inputs=True))
        assert ge.select.get_forward_walk_ops is ge.get_forward_walk_ops
        assert ge.reroute.add_control_inputs is ge.add_control_inputs
        assert ge.util.make_list_of_op(g) == g.get_operations()
        cos = ge.util.ControlOutputs(g)
        assert cos.get(f.op) == [h.op]
        assert "h" in names(ge.get_forward_walk_ops(f.op, control_outputs=cos))


def test_graph_editor_subgraph_view_boundaries():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default() as g:
        a, b, c, d, e, f = _chain()
        view = ge.sgv(c.op, d.op)
        assert view.graph is g and list(view.ops) == [c.op, d.op]
        assert list(view.inputs) == [a, b, d.op.inputs[1]]
        # c is consumed outside (by f): an output; d's consumer e is outside too
        assert list(view.outputs) == [c, d]
        assert set(view.consumers()) == {e.op, f.op}
        assert list(view.remap_inputs([1, 0]).inputs) == [b, a]
        assert list(view.remap_outputs([1]).outputs) == [d]
        only = ge.sgv(d.op, e.op)
        assert list(only.outputs) == [e]  # d only feeds e, inside
        through = ge.SubGraphView(passthrough_ts=[a])
        assert list(through.inputs) == [a] and list(through.outputs) == [a]
        assert ge.sgv("^c$", graph=g).ops == (c.op,)
        scoped = ge.make_view_from_scope("d", g)
        assert sorted(op.name for op in scoped.ops) == ["d/y"]


def test_graph_editor_reroute_swap_and_control_inputs():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default():
        a, b, c, _d, e, f = _chain()
        x = tf.constant([10.0, 20.0], tf.float64, name="x")
        with tf.Session() as s:
            before = s.run([e, f], {a: _AV, b: _BV})
        np.testing.assert_allclose(before[0], np.sin(2 * (_AV + _BV)))
        # the consumers of c (d and f) now read x
        assert ge.reroute_ts([x], [c]) == 2
        assert c.consumers() == [] and sorted(op.name for op in x.consumers()) == ["d", "f"]
        with tf.Session() as s:
            got = s.run([e, f], {b: _BV})
        np.testing.assert_allclose(got[0], np.sin(2 * np.array([10.0, 20.0])))
        np.testing.assert_allclose(got[1], np.array([10.0, 20.0]) - _BV)
        # swapping a and b: c = b + a, f = c - a (d/e unchanged)
        assert ge.swap_ts([a], [b], can_modify=[f.op]) == 1
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(f, {a: _AV}), np.array([10.0, 20.0]) - _AV)
        with pytest.raises(ValueError, match="Dtypes .* are not compatible"):
            ge.reroute_ts([tf.constant([1, 2])], [x])
        with pytest.raises(ValueError, match="Shapes .* are not compatible"):
            ge.reroute_ts([tf.constant([1.0, 2.0, 3.0], tf.float64)], [x])
        with pytest.raises(ValueError, match="different sizes"):
            ge.reroute_ts([x, x], [c])
        v = tf.Variable(0.0)
        inc = tf.assign_add(v, 1.0)
        out = tf.identity(tf.constant(3.0))
        ge.add_control_inputs(out.op, [inc.op])
        with pytest.raises(ValueError, match="already a control_input"):
            ge.add_control_inputs(out.op, [inc.op])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(out)
            s.run(out)
            assert s.run(v) == 2.0
            ge.remove_control_inputs(out.op, [inc.op])
            assert out.op.control_inputs == []
            s.run(out)
            assert s.run(v) == 2.0
        with pytest.raises(ValueError, match="not a control_input"):
            ge.remove_control_inputs(out.op, [inc.op])


def test_graph_editor_detach_connect_bypass():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default():
        a, b, _c, d, e, _f = _chain()
        _view, placeholders = ge.detach_inputs(ge.sgv(e.op))
        assert [p.name for p in placeholders] == ["geph__d_0:0"]
        assert placeholders[0].op.type == "Placeholder"
        assert placeholders[0].get_shape().ndims is None  # TF 1.15: dtype only
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(e, {placeholders[0]: [0.5, 1.0]}),
                                       np.sin([0.5, 1.0]))
        # connect d back to e
        ge.connect(ge.sgv(d.op), ge.sgv(e.op))
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(e, {a: _AV, b: _BV}), np.sin(2 * (_AV + _BV)))
        # detaching d's outputs: e reads a placeholder instead
        _, outs = ge.detach_outputs(ge.sgv(d.op))
        assert len(outs) == 1 and outs[0].op.type == "Placeholder"
        assert outs[0].name.startswith("geph__d_0") and e.op.inputs[0] is outs[0]
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(e, {outs[0]: [0.0, 0.5]}), np.sin([0.0, 0.5]))
    with tf.Graph().as_default():
        a, b, _c, d, e, _f = _chain()
        y = tf.negative(a, name="y")
        z = tf.square(y, name="z")
        ge.bypass(ge.sgv(y.op))  # z now squares a directly
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(z, {a: _AV}), _AV ** 2)


def test_graph_editor_graph_replace_and_copies():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default() as g:
        a, b, c, d, e, f = _chain()
        x = tf.constant([1.0, 3.0], tf.float64, name="x")
        new = ge.graph_replace({"e": e, "f": f, "a": a}, {c: x})
        assert new["a"] is a  # not downstream of c: kept
        assert new["e"] is not e and new["e"].op.type == "Sin"
        (gx,) = tf.gradients(new["e"], x)
        with tf.Session() as s:
            got = s.run([e, new["e"], new["f"], gx], {a: _AV, b: _BV})
        np.testing.assert_allclose(got[0], np.sin(2 * (_AV + _BV)))  # original unchanged
        np.testing.assert_allclose(got[1], np.sin(2 * np.array([1.0, 3.0])))
        np.testing.assert_allclose(got[2], np.array([1.0, 3.0]) - _BV)
        np.testing.assert_allclose(got[3], 2 * np.cos(2 * np.array([1.0, 3.0])))
        other = tf.constant([0.0, 0.0], tf.float64)
        with pytest.raises(ValueError, match="not connected"):
            ge.graph_replace(e, {other: x})
        # a copy under a scope, with one input replaced and one kept
        copied, info = ge.copy_with_input_replacements(ge.sgv(c.op, d.op), {a: x},
                                                       dst_scope="copy")
        assert [op.name for op in copied.ops] == ["copy/c", "copy/d"]
        assert info.transformed(d) is copied.ops[1].outputs[0]
        assert info.original(copied.ops[0]) is c.op
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(info.transformed(d), {b: _BV}),
                                       2 * (np.array([1.0, 3.0]) + _BV))
    # into another graph: the kept inputs become placeholders there
    g2 = tf.Graph()
    copied, info = ge.copy(ge.sgv(c.op, d.op), dst_graph=g2)
    assert copied.graph is g2
    # (TF 1.15: each made as the op reading it is copied; the copy's view lists no inputs)
    assert [op.name for op in g2.get_operations()] == [
        "geph__a_0", "geph__b_0", "c", "geph__y_0", "d"]
    assert copied.inputs == ()
    with g2.as_default(), tf.Session() as s:
        inputs = [g2.get_tensor_by_name(f"geph__{n}_0:0") for n in "aby"]
        out = info.transformed(d)
        np.testing.assert_allclose(s.run(out, dict(zip(inputs, [_AV, _BV, 3.0]))),
                                   3 * (_AV + _BV))
    assert g is not g2


def test_graph_editor_gradient_checkpointing_flow():
    """The recompute-from-checkpoints rewiring that memory-saving gradient programs do."""
    ge = tf.contrib.graph_editor
    rng = np.random.RandomState(3)
    xv, w1v, w2v = rng.randn(4, 3), rng.randn(3, 5), rng.randn(5, 2)
    with tf.Graph().as_default():
        x = tf.constant(xv)
        w1, w2 = tf.constant(w1v, name="w1"), tf.constant(w2v, name="w2")
        h1 = tf.tanh(tf.matmul(x, w1), name="h1")
        h2 = tf.tanh(tf.matmul(h1, w2), name="h2")
        y = tf.reduce_sum(tf.square(h2), name="y")
        bwd = ge.get_backward_walk_ops([y.op], inclusive=True)
        fwd = ge.get_forward_walk_ops([w2.op], inclusive=True, within_ops=bwd)
        assert [op.name for op in fwd] == ["w2", "MatMul_1", "h2", "Square", "y"]
        fwd = fwd[1:]  # the parameters themselves are not recomputed
        assert {t.name for t in ge.filter_ts(fwd, True)} >= {"h2:0", "y:0"}
        assert [t.name for t in ge.filter_ts_from_regex(fwd, "MatMul")] == ["MatMul_1:0"]
        disconnected = {h1: tf.stop_gradient(h1, name="h1_sg")}
        to_copy = ge.get_backward_walk_ops([y.op], stop_at_ts=[h1], within_ops=fwd)
        _, info = ge.copy_with_input_replacements(ge.sgv(to_copy), {})
        copied = info._transformed_ops.values()
        ge.reroute_ts(disconnected.values(), disconnected.keys(), can_modify=copied)
        copied_y = info._transformed_ops[y.op].outputs[0]
        assert info._transformed_ts[h2].op.type == "Tanh"
        d_h1, d_w2 = tf.gradients(copied_y, [disconnected[h1], w2])
        plain = tf.gradients(y, [h1, w2])
        with tf.Session() as s:
            got = s.run([d_h1, d_w2, copied_y, y])
            want = s.run(plain)
    np.testing.assert_allclose(got[0], want[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-12)
    assert got[2] == got[3]
    # and by hand: y = sum(tanh(h1 w2)^2)
    h1v = np.tanh(xv @ w1v)
    h2v = np.tanh(h1v @ w2v)
    g = 2 * h2v * (1 - h2v ** 2)
    np.testing.assert_allclose(got[1], h1v.T @ g, rtol=1e-12)


def test_graph_editor_scope_and_neighbour_helpers():
    ge = tf.contrib.graph_editor
    with tf.Graph().as_default() as g:
        a, b, _c, d, e, f = _chain()
        with tf.name_scope("blk"):
            inner = tf.identity(e, name="inner")
        assert names(ge.get_name_scope_ops(g, "d")) == ["d", "d/y"]
        assert names(ge.get_name_scope_ops(g, "blk/")) == ["blk/inner"]
        assert names(ge.get_ops_ios([d.op])) == ["c", "d", "d/y", "e"]
        p = ge.ph(tf.float32, [3], scope="feeds")
        assert p.op.name == "feeds/geph" and p.get_shape().as_list() == [3]
        assert ge.can_be_regex("^a") and not ge.can_be_regex(a)
        assert ge.make_regex("^a").search("ab")
        assert inner.op in ge.get_forward_walk_ops(e.op)
        assert {a.op, b.op, f.op} <= set(ge.get_backward_walk_ops(f.op))
