"""Training utilities against TF 1.15: optimizer kernels, learning-rate schedules. Reference
bits and op lists were measured in TF 1.15 (tensorflow-cpu 1.15.0, CPython 3.7, NumPy 1.18) on
the same NumPy-seeded inputs."""

import numpy as np
import pytest

import tideflow as tf


def _bits(a):
    return np.asarray(a, np.float32).tobytes().hex()


# one FTRL step (lr 0.1, l2 0.2) on 4 x cols floats: (cols, lr_power, l2_shrinkage, l1,
# sparse) -> (var, linear) as TF 1.15 left them. A power other than -0.5 is glibc's powf per
# element; SparseApplyFtrlV2's element-by-element path shrinks the linear term's gradient only
# and sums as (linear + g) - sigma * var
_FTRL_REF = {
    (1, -0.3, 0.0, 0.0, False): ("445614be8974febd87beabbd93c6913c",
        "c4daba3f1ad0ad3fb946813f2ae22dbe"),
    (1, -0.3, 0.0, 0.0, True): ("407d793ce60a5b3c45dc063e3840bbbe",
        "ec8b1cbe430904be65ded8bfd6d59040"),
    (1, -0.3, 0.1, 0.0, True): ("952fd43de685e13cf99cd93b9c17273f",
        "ee2f5ebffa746cbe58cb36bda08829c1"),
    (1, -0.5, 0.1, 0.0, True): ("8820773eb9440ebe79eeaabd6388813c",
        "a77c8dc03224ef3ffe2c5f3f1cae09be"),
    (1, -0.5, 0.1, 0.05, True): ("d79484be5ecc4c3e690c003ff7fcdcbd",
        "c2eb6d40791800c0780ccdc054dc913f"),
    (1, -0.7, 0.1, 0.05, False): ("00000000a44186bbe2227bbe45cb48be",
        "5b95973c752aa73d4827924094bffa3f"),
    (1, -0.7, 0.1, 0.05, True): ("5798b03ec8fc203e3111b73e116ec4be",
        "ac79ecc0b2aafabfa03fdcbf6aa09240"),
    (2, -0.3, 0.0, 0.0, False): ("2ae894be50d2333ef2b4ec3d369993bcddc6fdbde393cb3e84b729bebdcee93e",
        "6cc68d40fbdc99bff3d070bf667d163ed6eab83f2cfe8cc09e04b13f39e1fec0"),
    (2, -0.3, 0.1, 0.05, True): ("88bf1fbf5e847bbe3592aebde3c0a83da643adbc00cc8c3d214d3fbe53f30a3e",
        "d0110f4160db294032bc583f53406bbfa2f1723eaaf73cbf07aadf3f6288b3bf"),
    (2, -0.7, 0.1, 0.0, True): ("5161663c00d4f5bdf481253ec685183df847f1bd2175183d64bfbc393a97c03d",
        "e6d908bef3af823ffc7db3bf0a94bfbe9293a33fd1574ebe80e78cbba7608dbf"),
}


@pytest.mark.parametrize("case", list(_FTRL_REF))
def test_ftrl_kernels_match_tf_bits(case):
    cols, p, shr, l1, sparse = case
    rs = np.random.RandomState(40 + list(_FTRL_REF).index(case))
    v0 = rs.randn(4, cols).astype(np.float32)
    a0 = (rs.rand(4, cols) + 0.1).astype(np.float32)
    l0 = rs.randn(4, cols).astype(np.float32) * 0.1
    g = rs.randn(4, cols).astype(np.float32)
    with tf.Graph().as_default():
        v, a, lin = tf.Variable(v0), tf.Variable(a0), tf.Variable(l0)
        kw = {"var": v, "accum": a, "linear": lin, "grad": g, "lr": 0.1, "l1": l1, "l2": 0.2,
              "lr_power": p}
        if sparse:
            kw["indices"] = [0, 1, 2, 3]
        if shr:
            kw["l2_shrinkage"] = shr
        name = ("Sparse" if sparse else "") + "ApplyFtrl" + ("V2" if shr else "")
        op = getattr(tf.raw_ops, name)(**kw)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(op)
            got = (_bits(s.run(v)), _bits(s.run(lin)))
    assert got == _FTRL_REF[case]


def test_ftrl_v2_trains_an_embedding_with_repeated_ids_as_tf():
    with tf.Graph().as_default():
        e = tf.get_variable("emb", initializer=np.linspace(-1, 1, 10).reshape(5, 2)
                            .astype(np.float32))
        e2 = tf.get_variable("emb2", initializer=np.linspace(-2, 1, 5).astype(np.float32))
        x = tf.constant(np.array([[0.5, -0.2], [1., 2.], [-1., 0.3], [0.7, 0.1], [2., -1.]],
                                 np.float32))
        ids = [1, 3, 1, 1, 0]
        loss = (tf.reduce_sum(tf.nn.embedding_lookup(e, ids) * x)
                + tf.reduce_sum(tf.gather(e2, ids) ** 2))
        opt = tf.train.FtrlOptimizer(
            0.1, learning_rate_power=-0.3, initial_accumulator_value=0.2,
            l1_regularization_strength=0.1, l2_regularization_strength=0.2,
            l2_shrinkage_regularization_strength=0.1)
        train = opt.minimize(loss, global_step=tf.train.get_or_create_global_step())
        types = {o.type for o in tf.get_default_graph().get_operations()}
        assert "SparseApplyFtrlV2" in types
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for _ in range(3):
                s.run(train)
            got = (_bits(s.run(e)), _bits(s.run(e2)))
    want_e = ("e0ab5fbf46ce41bd8ea4a0bdf87e97bd398ee3bd398ee33d9f37d2bd27a6c7bb721c473f"
              "0000803f")
    assert got == (want_e, "b96f86bf91bc0bbf000000bf4e9cd6ba0000803f")


# a schedule given a None step fails where TF 1.15's fails: converting the step inside the
# schedule's scope, after the rate and the earlier arguments became ops
_NONE_STEP_OPS = {
    "exponential_decay": (lambda: tf.train.exponential_decay(0.1, None, 7, 0.96),
        ["ExponentialDecay/initial_learning_rate", "ExponentialDecay/Cast/x",
         "ExponentialDecay/Cast", "ExponentialDecay/Cast_1/x"]),
    "polynomial_decay": (lambda: tf.train.polynomial_decay(0.1, None, 10, cycle=True),
        ["PolynomialDecay/initial_learning_rate", "PolynomialDecay/Cast/x",
         "PolynomialDecay/Cast_1/x"]),
    "natural_exp_decay": (lambda: tf.train.natural_exp_decay(0.1, None, 5, 0.5),
        ["Neg/x", "Neg", "Exp", "ExponentialDecay/initial_learning_rate",
         "ExponentialDecay/Cast/x", "ExponentialDecay/Cast"]),
    "inverse_time_decay": (lambda: tf.train.inverse_time_decay(0.1, None, 5, 0.5),
        ["InverseTimeDecay/initial_learning_rate", "InverseTimeDecay/Cast/x",
         "InverseTimeDecay/Cast", "InverseTimeDecay/Cast_1/x"]),
    "cosine_decay": (lambda: tf.train.cosine_decay(0.1, None, 12),
        ["CosineDecay/initial_learning_rate", "CosineDecay/Cast/x", "CosineDecay/Cast"]),
    "cosine_decay_restarts": (lambda: tf.train.cosine_decay_restarts(0.1, None, 4),
        ["SGDRDecay/initial_learning_rate", "SGDRDecay/Cast/x", "SGDRDecay/Cast",
         "SGDRDecay/Cast_1/x", "SGDRDecay/Cast_2/x", "SGDRDecay/Cast_3/x"]),
    "linear_cosine_decay": (lambda: tf.train.linear_cosine_decay(0.1, None, 12),
        ["LinearCosineDecay/initial_learning_rate", "LinearCosineDecay/Cast/x",
         "LinearCosineDecay/Cast", "LinearCosineDecay/Cast_1/x", "LinearCosineDecay/Cast_2/x",
         "LinearCosineDecay/Cast_3/x"]),
    "noisy_linear_cosine_decay": (lambda: tf.train.noisy_linear_cosine_decay(0.1, None, 12),
        ["NoisyLinearCosineDecay/initial_learning_rate", "NoisyLinearCosineDecay/Cast/x",
         "NoisyLinearCosineDecay/Cast"] + [f"NoisyLinearCosineDecay/Cast_{i}/x"
                                           for i in range(1, 6)]),
}


@pytest.mark.parametrize("name", sorted(_NONE_STEP_OPS))
def test_schedule_with_a_none_step_fails_inside_its_scope(name):
    fn, ops_left = _NONE_STEP_OPS[name]
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match="^None values not supported.$"):
            fn()
        assert [o.name for o in g.get_operations()] == ops_left
        # the failed call took its scope's name, as TF's
        if name == "exponential_decay":
            lr = tf.train.exponential_decay(0.1, tf.train.get_or_create_global_step(), 7, 0.96)
            assert lr.name == "ExponentialDecay_1:0"


_REFS = {"var", "accum", "linear", "m", "v", "ms", "mom", "gradient_accumulator",
         "gradient_squared_accumulator"}


def _run_raw(name, spec, dtype, values=None):
    """Runs raw training op ``name`` (inputs ``spec``) on 2 x 2 variables of ``dtype``, each
    scalar 0.5 (or ``values[name]``, fed so the kernel sees it)."""
    values = values or {}
    with tf.Graph().as_default():
        kw = {}
        for a in spec.split():
            if a in _REFS:
                kw[a] = tf.Variable(tf.cast(tf.ones([2, 2]) * 0.5, dtype))
            elif a in ("grad", "delta"):
                kw[a] = tf.cast(tf.ones([1 if "Sparse" in name else 2, 2]), dtype)
            elif a == "indices":
                kw[a] = tf.constant([1])
            elif a == "global_step":
                kw[a] = tf.constant(1, tf.int64)
            else:
                kw[a] = tf.placeholder_with_default(
                    tf.cast(np.array(values.get(a, -0.5 if a == "lr_power" else 0.5),
                                     np.float32), dtype), None)
        op = getattr(tf.raw_ops, name)(**kw)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(op)


_FTRL_SPEC = "var accum linear grad lr l1 l2 lr_power"
_FTRL_V2_SPEC = "var accum linear grad lr l1 l2 l2_shrinkage lr_power"


@pytest.mark.parametrize("name,spec,arg,value,words", [
    ("ApplyFtrl", _FTRL_SPEC, "lr", 0.0, "lr is not a positive scalar: []"),
    ("SparseApplyFtrl", _FTRL_SPEC.replace("grad", "grad indices"), "lr", [0.1, 0.2],
     "lr is not a positive scalar: [2]"),
    ("ApplyFtrl", _FTRL_SPEC, "l1", -0.1,
     "l1 regularization strength is not a non-negative scalar: []"),
    ("ApplyFtrlV2", _FTRL_V2_SPEC, "l2", -0.1,
     "l2 regularization strength is not a non-negative scalar: []"),
    ("SparseApplyFtrlV2", _FTRL_V2_SPEC.replace("grad", "grad indices"), "l2_shrinkage", -0.1,
     "l2 shrinkage regularization strength is not a non-negative scalar: []"),
    ("ApplyFtrlV2", _FTRL_V2_SPEC, "lr_power", 0.1, "lr_power is not a non-positive scalar: []"),
    ("ApplyProximalAdagrad", "var accum lr l1 l2 grad", "lr", -0.5,
     "lr is not a positive scalar: []"),
    ("SparseApplyProximalAdagrad", "var accum lr l1 l2 grad indices", "l1", -0.5,
     "l1 regularization strength is not a non-negative scalar: []"),
])
def test_ftrl_and_proximal_adagrad_kernels_check_their_scalars_values(name, spec, arg, value,
                                                                      words):
    with pytest.raises(tf.errors.InvalidArgumentError) as e:
        _run_raw(name, spec, tf.float32, {arg: value})
    assert e.value.message.split("\n")[0] == words


def test_ftrl_accepts_a_zero_power_and_proximal_descent_checks_no_values():
    _run_raw("ApplyFtrl", _FTRL_SPEC, tf.float32, {"lr_power": 0.0})
    _run_raw("ApplyProximalGradientDescent", "var alpha l1 l2 delta", tf.float32,
             {"alpha": -0.5, "l1": -0.5})


_DA_SPEC = "var gradient_accumulator gradient_squared_accumulator grad lr l1 l2 global_step"


# the types TF 1.15's CPU kernels take (none complex)
@pytest.mark.parametrize("name,spec,dtype", [
    ("ApplyGradientDescent", "var alpha delta", tf.complex64),
    ("ApplyMomentum", "var accum lr grad momentum", tf.complex64),
    ("ApplyAdagradDA", _DA_SPEC, tf.float16),
    ("SparseApplyProximalAdagrad", "var accum lr l1 l2 grad indices", tf.bfloat16),
    ("ApplyProximalGradientDescent", "var alpha l1 l2 delta", tf.float16),
    ("ApplyAdaMax", "var m v beta1_power lr beta1 beta2 epsilon grad", tf.bfloat16),
    ("SparseApplyRMSProp", "var ms mom lr rho momentum epsilon grad indices", tf.bfloat16),
])
def test_training_kernels_take_tfs_cpu_types(name, spec, dtype):
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=f"No OpKernel was registered to support Op '{name}'"):
        _run_raw(name, spec, dtype)


@pytest.mark.parametrize("name,spec,dtype", [
    ("ApplyAdaMax", "var m v beta1_power lr beta1 beta2 epsilon grad", tf.float16),
    ("SparseApplyRMSProp", "var ms mom lr rho momentum epsilon grad indices", tf.float16),
    ("ApplyAdam", "var m v beta1_power beta2_power lr beta1 beta2 epsilon grad", tf.bfloat16),
    ("SparseApplyFtrlV2", _FTRL_V2_SPEC.replace("grad", "grad indices"), tf.bfloat16),
])
def test_training_kernels_run_tfs_half_types(name, spec, dtype):
    _run_raw(name, spec, dtype)


# static ranks one apart: TF 1.15's remove_squeezable_dimensions squeezes the longer operand's
# last dimension whatever its size, so a size other than 1 fails in Squeeze's shape function
@pytest.mark.parametrize("build,got,op,shape", [
    (lambda: tf.metrics.accuracy(tf.ones([3, 4]), tf.ones([3])), 4,
     "remove_squeezable_dimensions/Squeeze", "[3,4]"),
    (lambda: tf.metrics.precision(tf.ones([3], tf.bool), tf.ones([3, 2], tf.bool)), 2,
     "precision/remove_squeezable_dimensions/Squeeze", "[3,2]"),
    (lambda: tf.confusion_matrix(tf.ones([3, 2], tf.int32), tf.ones([3], tf.int32)), 2,
     "confusion_matrix/remove_squeezable_dimensions/Squeeze", "[3,2]"),
    (lambda: tf.losses.sparse_softmax_cross_entropy(tf.ones([3, 4], tf.int32), tf.ones([3, 4])),
     4, "sparse_softmax_cross_entropy_loss/remove_squeezable_dimensions/Squeeze", "[3,4]"),
])
def test_rank_one_apart_squeezes_whatever_the_size(build, got, op, shape):
    with tf.Graph().as_default():
        with pytest.raises(ValueError) as e:
            build()
        assert str(e.value) == (f"Can not squeeze dim[1], expected a dimension of 1, got {got} "
                                f"for '{op}' (op: 'Squeeze') with input shapes: {shape}.")


def test_confusion_matrix_squeezes_in_tfs_scope():
    with tf.Graph().as_default() as g:
        tf.confusion_matrix(tf.ones([3, 1], tf.int32), tf.ones([3], tf.int32))
        names = [o.name for o in g.get_operations()]
    squeeze = "confusion_matrix/remove_squeezable_dimensions/Squeeze"
    assert names[:5] == ["ones", "ones_1", squeeze, "confusion_matrix/Cast",
                         "confusion_matrix/Cast_1"]


def test_weighted_loss_of_none_weights_fails_converting_them():
    with tf.Graph().as_default() as g:
        with pytest.raises(ValueError, match="^None values not supported.$"):
            tf.losses.log_loss(tf.ones([3]), tf.ones([3]), weights=None)
        # the loss's ops stay, as TF's
        assert g.get_operations()[-1].name == "log_loss/sub_2"


def test_variable_update_keeps_its_shape_for_grapplers_add_rewrite():
    # an AssignAdd of a fed value still has its variable's shape to grappler's shape
    # inference, so AddOpsRewrite sums fp + tn before the scalar after the constant push-down
    # (TF 1.15's bits: the unrotated (fp + tn) + eps)
    fp0 = np.array([18, 18, 14, 10, 8, 2, 0], np.float32)
    tn0 = np.array([0, 0, 4, 8, 10, 16, 18], np.float32)
    with tf.Graph().as_default():
        vtn, vfp = tf.Variable(tn0, name="tn"), tf.Variable(fp0, name="fp")
        delta = tf.placeholder(tf.float32, [7])
        tn, fp = tf.assign_add(vtn, delta), tf.assign_add(vfp, delta)
        x = tf.div(fp, fp + tn + 1e-6)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            got = _bits(s.run(x, {delta: np.zeros(7, np.float32)}))
    assert got == "feff7f3ffeff7f3f701c473fe3380e3f378ee33e378ee33d00000000"


def test_weighted_auc_update_is_its_value():
    rs = np.random.RandomState(7)
    with tf.Graph().as_default():
        labels = tf.placeholder(tf.bool, [None, 3])
        preds = tf.placeholder(tf.float32, [None, 3])
        weights = tf.placeholder(tf.float32, [None, 3])
        value, update = tf.metrics.auc(labels, preds, weights=weights, num_thresholds=7)
        got = []
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            for _ in range(3):
                rs.randint(0, 6, (4, 2))
                rs.rand(4, 6)
                fd = {labels: rs.rand(4, 3) > 0.5, preds: rs.rand(4, 3),
                      weights: (rs.rand(4, 3) > 0.3) * 2.0}
                rs.rand(4, 1)
                got.append((_bits(s.run(update, fd)), _bits(s.run(value))))
    assert got == [("cecccc3e", "cecccc3e"), ("f77ddf3e", "f77ddf3e"), ("b86ddb3e", "b86ddb3e")]


def test_moving_average_of_bfloat16_variable_and_tensor():
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=tf.constant([1.0, 2.0, 3.0], tf.bfloat16))
        feed = tf.placeholder(tf.float32, [3])
        t = tf.cast(feed, tf.bfloat16)
        ema = tf.train.ExponentialMovingAverage(0.7, num_updates=tf.constant(3), zero_debias=True)
        update = ema.apply([v, t])
        assert [x.name for x in tf.global_variables()] == [
            "v:0", "v/ExponentialMovingAverage:0", "Cast/ExponentialMovingAverage:0",
            "Cast/ExponentialMovingAverage/biased:0",
            "Cast/ExponentialMovingAverage/local_step:0"]
        with tf.control_dependencies([update]):
            inc = tf.assign_add(v, tf.constant([0.5, -1.0, 2.0], tf.bfloat16))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for i in range(3):
                s.run(inc, {feed: [i, 2.0 * i, -i]})
            got = [np.asarray(x, np.float64).tolist() for x in s.run([ema.average(v),
                                                                         ema.average(t)])]
    # TF 1.15's bfloat16 values
    assert got == [[1.796875, 0.40625, 6.1875], [1.6484375, 3.296875, -1.6484375]]


def test_ftrl_power_over_a_large_variable_is_glibcs_powf():
    # 3700 floats, three steps of lr_power -0.3: each accumulator's power is glibc's powf (a
    # double power rounded once is a unit off about once in a thousand); TF 1.15's sha256
    import hashlib

    rs = np.random.RandomState(9)
    w0 = rs.randn(100, 37).astype(np.float32)
    grads = [rs.randn(100, 37).astype(np.float32) for _ in range(3)]
    with tf.Graph().as_default():
        w = tf.Variable(w0)
        g = tf.placeholder(tf.float32, w0.shape)
        train = tf.train.FtrlOptimizer(0.1, learning_rate_power=-0.3).apply_gradients([(g, w)])
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for grad in grads:
                s.run(train, {g: grad})
            got = hashlib.sha256(s.run(w).tobytes()).hexdigest()
    assert got == "e195c9af9b6cd415c63b7f258ffcc632eabb3c7e7c6b64144d5ad13c9b422820"


@pytest.mark.parametrize("n,want", [(1, 0.0), (0, 0.49999976), (-1, 0.0)])
def test_auc_takes_fewer_than_two_thresholds_as_tf(n, want):
    # TF 1.15 checks nothing: the grid keeps its two ends and the curve's slices take
    # num_thresholds as given
    with tf.Graph().as_default():
        labels, preds = tf.constant([1, 0, 1]), tf.constant([0.1, 0.5, 0.9])
        value, update = tf.metrics.auc(labels, preds, num_thresholds=n)
        tf.metrics.sensitivity_at_specificity(labels, preds, 0.5, num_thresholds=n)
        tf.metrics.specificity_at_sensitivity(labels, preds, 0.5, num_thresholds=n)
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            assert s.run(update) == np.float32(want)
            assert s.run(value) == np.float32(want)


def test_confusion_matrix_weights_of_another_shape_fail_as_tf():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(3, 1\) are incompatible$"):
            tf.confusion_matrix([1, 0, 1], [1, 1, 0], weights=tf.ones([3, 1]))
        with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(2,\) are incompatible$"):
            tf.metrics.mean_iou(tf.constant([1, 0, 1]), tf.constant([1, 1, 0]), 2,
                                weights=tf.ones([2]))


def test_error_metrics_keep_their_inputs_types_as_tf():
    with tf.Graph().as_default():
        labels, preds = tf.constant([1, 2, 3]), tf.constant([3.0, 2.0, 1.0])
        with pytest.raises(TypeError, match="^Input 'y' of 'SquaredDifference' Op has type "
                                            "float32 that does not match type int32"):
            tf.metrics.mean_squared_error(labels, preds)
        with pytest.raises(TypeError, match="^Input 'y' of 'Sub' Op has type int32 that does not "
                                            "match type float32"):
            tf.metrics.mean_absolute_error(labels, preds)
        with pytest.raises(TypeError, match="Expected int32 passed to parameter 'y' of op "
                                            "'Less', got 2.5"):
            tf.metrics.percentage_below(labels, 2.5)
        with pytest.raises(ValueError, match=r"^Shapes \(3,\) and \(2,\) are incompatible$"):
            tf.metrics.mean_relative_error(tf.ones([3]), tf.ones([3]), tf.ones([2]))
        # integer errors are integer squares (46341**2 wraps in int32), averaged in float32
        _, update = tf.metrics.mean_squared_error(tf.constant([46341, 2, 3]),
                                                  tf.constant([0, 2, 1]))
        with tf.Session() as s:
            s.run(tf.local_variables_initializer())
            assert s.run(update) == np.float32(-715826370.0)  # TF 1.15's


@pytest.mark.parametrize("dtype", [tf.int32, tf.float32])
def test_adagrad_da_step_of_another_type_fails_in_its_update_op(dtype):
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        step = tf.Variable(tf.zeros([], dtype), trainable=False)
        opt = tf.train.AdagradDAOptimizer(0.1, step)
        with pytest.raises(TypeError, match=f"^Input 'global_step' of 'ApplyAdagradDA' Op has "
                                            f"type {dtype.name} that does not match expected "
                                            f"type of int64.$"):
            opt.minimize(tf.reduce_sum(v * v), global_step=step)
