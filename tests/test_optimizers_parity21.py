"""Optimizer and learning-rate-schedule programs of TF 1.x compared with TF 1.15: tf.train and
tf.contrib.opt optimizers, schedules, optimize_loss, gradient accumulation, moving averages."""

import numpy as np
import pytest

import tideflow as tf


def _steps(train, fetches, n):
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for _ in range(n):
            sess.run(train)
        return sess.run(fetches)


def test_decoupled_weight_decay_extends_rmsprop():
    # TF 1.15: extend_with_decoupled_weight_decay(RMSPropOptimizer) trains (RMSProp's own
    # `_decay` attribute must not hide the extension's weight decay). A linear loss keeps the
    # gradient independent of the decayed weights, so TF's values do not race.
    with tf.Graph().as_default():
        w = tf.Variable([0.5, -1.0, 2.0], name="w")
        loss = tf.reduce_sum(w * tf.constant([1.0, 2.0, -3.0]))
        cls = tf.contrib.opt.extend_with_decoupled_weight_decay(tf.train.RMSPropOptimizer)
        opt = cls(0.1, learning_rate=0.01, decay=0.8, momentum=0.5)
        train = opt.minimize(loss)
        assert type(opt).__name__ == "OptimizerWithDecoupledWeightDecay"
        assert sorted(opt.get_slot_names()) == ["momentum", "rms"]
        assert [v.name for v in tf.global_variables()] == ["w:0", "w/RMSProp:0", "w/RMSProp_1:0"]
        got = _steps(train, [w, opt.get_slot(w, "rms"), opt.get_slot(w, "momentum")], 3)
    # TF 1.15's values
    np.testing.assert_allclose(got[0], [0.3253999948501587, -0.7850308418273926,
                                        1.5209630727767944], rtol=1e-6)
    np.testing.assert_allclose(got[1], [1.0, 2.4639999866485596, 4.9039998054504395], rtol=1e-6)
    np.testing.assert_allclose(got[2], [0.017500000074505806, 0.02362777851521969,
                                        -0.02581349015235901], rtol=1e-5)


def test_lars_adds_weight_decay_and_folds_rate_into_momentum():
    # TF 1.15: compute_lr returns (scaled_lr, grad + weight_decay * var); the update is
    # apply_momentum with rate 1 and gradient grad * scaled_lr, so the momentum slot holds
    # scaled steps; a variable skip_list names keeps the plain rate and gradient.
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, -1.0]])
        w = tf.Variable([[0.5], [-0.25]], name="w")
        b = tf.Variable([0.3], name="bias")
        loss = tf.reduce_sum(tf.square(tf.matmul(x, w) + b))
        opt = tf.contrib.opt.LARSOptimizer(0.1, momentum=0.9, weight_decay=0.01, eeta=0.01,
                                           skip_list=["bias"])
        train = opt.minimize(loss)
        lr, grad = opt.compute_lr(tf.constant([[1.0], [2.0]]), w)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            got_lr, got_grad = sess.run([lr, grad])
        got = _steps(train, [w, opt.get_slot(w, "momentum"), b, opt.get_slot(b, "momentum")], 3)
    # TF 1.15's values
    np.testing.assert_allclose(got_lr, 0.00024937655, rtol=1e-6)
    np.testing.assert_allclose(got_grad, [[1.005], [1.9975]], rtol=1e-6)
    np.testing.assert_allclose(got[0].ravel(), [0.49723586440086365, -0.24879176914691925],
                               rtol=1e-6)
    np.testing.assert_allclose(got[1].ravel(), [0.0012130637187510729, -0.0007587200379930437],
                               rtol=1e-5)
    np.testing.assert_allclose(got[2], [-1.5077314376831055], rtol=1e-6)
    np.testing.assert_allclose(got[3], [0.6331431269645691], rtol=1e-6)


def test_optimize_loss_gradient_multipliers_keys_are_variables_or_tensor_names():
    # TF 1.15's optimize_loss looks a multiplier up by the variable or by 'b:0'; the op name
    # 'w' (slim's key) matches nothing there, so w takes the plain step.
    with tf.Graph().as_default():
        w = tf.get_variable("w", [2], initializer=tf.constant_initializer([1.0, -1.0]))
        b = tf.get_variable("b", [2], initializer=tf.constant_initializer([0.5, 0.5]))
        emb = tf.get_variable("emb", [3, 2], initializer=tf.ones_initializer())
        loss = (tf.reduce_sum(w * 3.0) + tf.reduce_sum(b * 2.0)
                + tf.reduce_sum(tf.gather(emb, [2, 0])))
        train = tf.contrib.layers.optimize_loss(
            loss, None, learning_rate=0.1, optimizer="SGD",
            gradient_multipliers={"w": 10.0, "b:0": 3.0, emb: 0.5}, summaries=[])
        got = _steps(train, [w, b, emb], 1)
    np.testing.assert_allclose(got[0], [0.7, -1.3], rtol=1e-6)
    np.testing.assert_allclose(got[1], [-0.1, -0.1], rtol=1e-6)
    np.testing.assert_allclose(got[2], [[0.95, 0.95], [1.0, 1.0], [0.95, 0.95]], rtol=1e-6)


def test_foreign_learning_rate_is_the_input_refused():
    # TF 1.15: an optimizer's update op is built in its variable's graph, so a learning rate
    # made in another graph is named as the stranger.
    with tf.Graph().as_default():
        lr = tf.constant(0.1)
    with tf.Graph().as_default():
        w = tf.get_variable("w", [3, 1])
        loss = tf.reduce_sum(w * w)
        for opt in (tf.train.GradientDescentOptimizer(lr), tf.train.MomentumOptimizer(lr, 0.9)):
            with pytest.raises(ValueError) as err:
                opt.minimize(loss)
            assert str(err.value) == (
                'Tensor("Const:0", shape=(), dtype=float32) must be from the same graph as '
                'Tensor("w:0", shape=(3, 1), dtype=float32_ref).')


def test_optimize_loss_unknown_summary_message():
    with tf.Graph().as_default():
        w = tf.Variable(1.0)
        with pytest.raises(ValueError) as err:
            tf.contrib.layers.optimize_loss(w * w, None, learning_rate=0.1, optimizer="SGD",
                                            summaries=["foo"])
    # TF 1.15's words
    assert str(err.value) == (
        "Summaries should be one of [learning_rate, loss, gradients, gradient_norm, "
        "global_gradient_norm], you provided foo.")


def _sparse_update_ops(make_opt, use_resource):
    """The ops of an embedding's sparse update (past its index deduplication) and its values
    after three steps."""
    with tf.Graph().as_default() as g:
        emb = tf.get_variable("emb", initializer=np.arange(8, dtype=np.float32).reshape(4, 2) / 8.,
                              use_resource=use_resource)
        loss = tf.reduce_sum(tf.gather(emb, [1, 3, 1]) ** 2)
        train = make_opt().minimize(loss)
        names = [op.name.split("/update_emb/")[1] for op in g.get_operations()
                 if "/update_emb/" in op.name and not any(
                     k in op.name for k in ("Unique", "strided", "Shape", "UnsortedSegment"))]
        return names, _steps(train, emb, 3)


def test_adamax_sparse_update_builds_tfs_ops():
    # TF 1.15's AdaMax _apply_sparse_shared: the rows' moments, then -lr / (1 - beta1^t) times
    # m / (u + eps), added with ScatterAdd (a resource variable reads each slot back)
    names, got = _sparse_update_ops(lambda: tf.contrib.opt.AdaMaxOptimizer(0.05), False)
    assert names == [
        "GatherV2/axis", "GatherV2", "mul", "sub/x", "sub", "mul_1", "add", "ScatterUpdate",
        "GatherV2_1/axis", "GatherV2_1", "mul_2", "Abs", "Maximum", "ScatterUpdate_1", "Neg",
        "sub_1/x", "sub_1", "truediv", "add_1", "truediv_1", "mul_3", "ScatterAdd", "group_deps"]
    names, got_res = _sparse_update_ops(lambda: tf.contrib.opt.AdaMaxOptimizer(0.05), True)
    assert names == [
        "Gather", "Identity", "mul", "sub/x", "sub", "mul_1", "add", "ResourceScatterUpdate",
        "ReadVariableOp", "Gather_1", "Identity_1", "mul_2", "Abs", "Maximum",
        "ResourceScatterUpdate_1", "ReadVariableOp_1", "Neg", "ReadVariableOp_2", "sub_1/x",
        "sub_1", "truediv", "add_1", "truediv_1", "mul_3", "ResourceScatterAdd",
        "ReadVariableOp_3", "group_deps"]
    # TF 1.15's values (both forms)
    want = [0.0, 0.125, 0.11545500159263611, 0.23533999919891357, 0.5, 0.625,
            0.6051380038261414, 0.7293879985809326]
    np.testing.assert_allclose(got.ravel(), want, rtol=1e-5)
    np.testing.assert_allclose(got_res.ravel(), want, rtol=1e-5)


def test_lazy_adam_resource_sparse_update_builds_tfs_ops():
    # TF 1.15's LazyAdam _resource_apply_sparse: raw resource scatters that read nothing
    # back, and the variable's step from the new rows themselves
    names, got = _sparse_update_ops(lambda: tf.contrib.opt.LazyAdamOptimizer(0.05), True)
    assert names == [
        "ReadVariableOp", "sub/x", "sub", "Sqrt", "mul", "ReadVariableOp_1", "sub_1/x", "sub_1",
        "truediv", "Gather", "Identity", "mul_1", "sub_2/x", "sub_2", "mul_2", "add",
        "ResourceScatterUpdate", "Gather_1", "Identity_1", "mul_3", "sub_3/x", "sub_3",
        "Square", "mul_4", "add_1", "ResourceScatterUpdate_1", "mul_5", "Sqrt_1", "add_2",
        "truediv_1", "ResourceScatterSub", "group_deps"]
    np.testing.assert_allclose(
        got.ravel(), [0.0, 0.125, 0.10243599861860275, 0.2262289971113205, 0.5, 0.625,
                      0.6004520058631897, 0.7253699898719788], rtol=1e-5)


@pytest.mark.parametrize("dtype", [tf.float64, tf.float16])
def test_proximal_optimizers_refuse_float32_rates_for_other_variables(dtype):
    # TF 1.15 passes the proximal optimizers' rates uncast, so a float64 or float16 variable
    # fails at minimize with the op's TypeError
    with tf.Graph().as_default():
        w = tf.Variable([1.0, -2.0], dtype=dtype)
        loss = tf.reduce_sum(w * w)
        cases = [(tf.train.ProximalGradientDescentOptimizer(0.1), "alpha",
                  "ApplyProximalGradientDescent"),
                 (tf.train.ProximalAdagradOptimizer(0.1), "lr", "ApplyProximalAdagrad")]
        for opt, arg, op in cases:
            with pytest.raises(TypeError) as err:
                opt.minimize(loss)
            assert str(err.value) == (
                f"Input '{arg}' of '{op}' Op has type float32 that does not match type "
                f"{dtype.name} of argument 'var'.")


def test_agn_in_one_process_trains_and_names_its_hook():
    # TF 1.15: AGNOptimizer's hook is an _AGNOptimizerHook; one worker, a period of 2
    co = tf.contrib.opt
    with tf.Graph().as_default():
        getter = co.AGNCustomGetter(worker_device="/job:localhost/replica:0/task:0/cpu:0")
        with tf.variable_scope("", custom_getter=getter):
            w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer([0.3, -0.2, 0.5]))
            b = tf.get_variable("b", [1], initializer=tf.constant_initializer(0.1))
        x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
        y = tf.constant([[1.0], [0.0], [2.0], [-1.0]])
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        gs = tf.train.get_or_create_global_step()
        opt = co.AGNOptimizer(tf.train.GradientDescentOptimizer(0.1), num_worker=1,
                              custom_getter=getter, communication_period=2)
        train = opt.minimize(loss, global_step=gs)
        assert [v.name for v in tf.global_variables()] == [
            "global_center_variable/w:0", "global_center_variable/b:0", "global_step:0"]
        assert [v.name for v in tf.local_variables()] == [
            "w:0", "grad_variable/w:0", "b:0", "grad_variable/b:0", "local_step:0"]
        hook = opt.make_session_run_hook(True, 0)
        assert type(hook).__name__ == "_AGNOptimizerHook"
        losses = []
        with tf.train.MonitoredTrainingSession(hooks=[hook]) as sess:
            for _ in range(5):
                losses.append(sess.run([train, loss])[1])
            center, got_w, grads = sess.run([getter._global_map[w], w, getter._grad_map[w]])
    # TF 1.15's values
    np.testing.assert_allclose(losses, [1.84339, 1.53087, 1.56165, 1.36013, 1.37998], rtol=1e-5)
    np.testing.assert_allclose(center.ravel(), [0.119873, -0.35875, 0.362626], rtol=1e-5)
    np.testing.assert_allclose(got_w.ravel(), [0.047458, -0.4225, 0.307541], rtol=1e-5)
    np.testing.assert_allclose(grads.ravel(), [0.724151, 0.637499, 0.550847], rtol=1e-5)


def test_cond_of_indexed_slices_against_a_tensor_is_a_value_error():
    # TF 1.15 (cond v1, composites expanded): ValueError in nest's words, the composite named
    # first as "a sequence" (clip_gradients_by_global_norm on an embedding's gradient hits it)
    with tf.Graph().as_default():
        pred = tf.placeholder(tf.bool, [])
        isl = tf.IndexedSlices(tf.ones([2, 3]), tf.constant([0, 1]), tf.constant([4, 3]))
        with pytest.raises(ValueError) as err:
            tf.cond(pred, lambda: tf.zeros([4, 3]), lambda: isl)
    isl_str = ('IndexedSlices(indices=Tensor("Const:0", shape=(2,), dtype=int32), '
               'values=Tensor("ones:0", shape=(2, 3), dtype=float32), '
               'dense_shape=Tensor("Const_1:0", shape=(2,), dtype=int32))')
    zeros_str = 'Tensor("cond/zeros:0", shape=(4, 3), dtype=float32)'
    assert str(err.value) == (
        "Incompatible return values of true_fn and false_fn: The two structures don't have "
        f"the same nested structure.\n\nFirst structure: type=Tensor str={zeros_str}\n\n"
        f"Second structure: type=IndexedSlices str={isl_str}\n\nMore specifically: "
        f'Substructure "type=IndexedSlices str={isl_str}" is a sequence, while substructure '
        f'"type=Tensor str={zeros_str}" is not\nEntire first structure:\n.\n'
        "Entire second structure:\n.")


def test_piecewise_constant_converts_and_checks_before_its_scope():
    # TF 1.15's tf.train.piecewise_constant converts boundaries, values and x (and casts
    # int32 boundaries to an int64 step) at top level, checks dtypes and lengths, and only
    # then opens its PiecewiseConstant scope; only int32 -> int64 boundaries are converted
    with tf.Graph().as_default() as g:
        gs = tf.train.get_or_create_global_step()
        gs32 = tf.Variable(0, name="gs32")
        with pytest.raises(ValueError) as err:
            tf.train.piecewise_constant(gs32, [tf.constant(2, tf.int64)], [0.1, 0.2])
        assert str(err.value) == ("Boundaries (<dtype: 'int64'>) must have the same dtype as "
                                  "x (<dtype: 'int32'>).")
        with pytest.raises(ValueError, match="should be 1 less than the length of values"):
            tf.train.piecewise_constant(gs, [2, 4], [0.1, 0.2, 0.3, 0.4])
        first = len(g.get_operations())
        lr = tf.train.piecewise_constant(gs, [3, 9], [0.3, 0.2, 0.05])
        assert lr.name == "PiecewiseConstant/case/cond/Merge:0"
        top = [op.name for op in g.get_operations()[first:] if "/" not in op.name]
        assert top == ["Const_9", "Const_10", "Const_11", "Const_12", "Const_13", "Cast_2",
                       "Cast_3"]  # TF 1.15's names
        with tf.Session() as sess:
            got = [sess.run(lr, {gs: s}) for s in (0, 3, 4, 9, 10)]
    np.testing.assert_allclose(got, [0.3, 0.3, 0.2, 0.2, 0.05], rtol=1e-7)


def test_optimize_loss_gradient_noise_covers_the_whole_embedding():
    # TF 1.15: the noise has an IndexedSlices gradient's dense_shape (a dense one's static
    # shape, a Const), and the sum is dense, so every row of the embedding moves
    with tf.Graph().as_default() as g:
        tf.set_random_seed(3)
        x = tf.constant(np.linspace(-1, 1, 12).reshape(4, 3).astype(np.float32))
        w = tf.get_variable("w", [3, 1], initializer=tf.constant_initializer([0.3, -0.2, 0.5]))
        emb = tf.get_variable("emb", [5, 1], initializer=tf.constant_initializer(0.2))
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + tf.gather(emb, [0, 2, 2, 4])))
        gs = tf.train.get_or_create_global_step()
        first = len(g.get_operations())
        train = tf.contrib.layers.optimize_loss(loss, gs, learning_rate=0.1, optimizer="SGD",
                                                gradient_noise_scale=1.0, summaries=[])
        names = [op.name[len("OptimizeLoss/"):] for op in g.get_operations()[first:]
                 if "gradients/" not in op.name and "learning_rate" not in op.name]
        assert names[:19] == [
            "truncated_normal/shape", "truncated_normal/mean", "truncated_normal/stddev",
            "truncated_normal/TruncatedNormal", "truncated_normal/mul", "truncated_normal",
            "mul/y", "mul", "add", "truncated_normal_1/mean", "truncated_normal_1/stddev",
            "truncated_normal_1/TruncatedNormal", "truncated_normal_1/mul",
            "truncated_normal_1", "mul_1/y", "mul_1", "add_1/strided_slice/stack",
            "add_1/strided_slice/stack_1", "add_1/strided_slice/stack_2"]
        got = _steps(train, [w, emb], 2)
    # TF 1.15's values
    np.testing.assert_allclose(got[0].ravel(), [0.397579, -0.361388, 0.416282], atol=2e-6)
    np.testing.assert_allclose(got[1].ravel(), [0.23193, 0.109446, 0.036129, 0.362739, 0.251037],
                               atol=2e-6)


def test_optimize_loss_takes_float_rates_and_norms_only():
    # TF 1.15 checks isinstance(..., float): an int learning rate or clip norm, or a
    # Variable as the rate, is refused; a negative rate's message is TF's (args) pair
    with tf.Graph().as_default():
        w = tf.Variable(1.0, name="w")
        lr_var = tf.Variable(0.1, trainable=False, name="lrv")
        loss = w * w
        refused = "Learning rate should be 0d Tensor or float. Got "
        cases = [
            ({"learning_rate": 1}, refused + "1 of type <class 'int'>"),
            ({"learning_rate": lr_var},
             refused + "<tf.Variable 'lrv:0' shape=() dtype=float32_ref> of type "),
            ({"learning_rate": 0.1, "clip_gradients": 1},
             "Unknown type <class 'int'> for clip_gradients"),
            ({"learning_rate": -0.1}, "('Invalid learning_rate %s.', -0.1)")]
        for kw, words in cases:
            with pytest.raises(ValueError) as err:
                tf.contrib.layers.optimize_loss(loss, None, optimizer="SGD", **kw)
            assert str(err.value).startswith(words)


@pytest.mark.parametrize("name", ["AddSignOptimizer", "PowerSignOptimizer"])
def test_sign_optimizers_have_no_resource_sparse_update(name):
    # TF 1.15: AddSign and PowerSign update resource variables densely only; an embedding
    # lookup's gradient reaches the base _resource_apply_sparse: NotImplementedError
    with tf.Graph().as_default():
        emb = tf.get_variable("emb", [4, 2], use_resource=True)
        dense = tf.get_variable("dense", [2], use_resource=True)
        loss = tf.reduce_sum(tf.gather(emb, [1, 3])) + tf.reduce_sum(dense * dense)
        opt = getattr(tf.contrib.opt, name)(0.1)
        opt.minimize(loss, var_list=[dense])
        with pytest.raises(NotImplementedError):
            opt.minimize(loss, var_list=[emb])


def test_optimizer_attributes_carry_tfs_names():
    # TF 1.15's private attributes after minimize (code that logs or patches rates reads
    # them): AdagradDA's hyperparameters and step, AddSign's alpha and PowerSign's logbase
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        gs = tf.train.get_or_create_global_step()
        da = tf.train.AdagradDAOptimizer(0.3, gs, l1_regularization_strength=0.01)
        add_sign = tf.contrib.opt.AddSignOptimizer(0.1)
        power_sign = tf.contrib.opt.PowerSignOptimizer(0.1)
        for opt in (da, add_sign, power_sign):
            opt.minimize(tf.reduce_sum(w * w))
        assert da._learning_rate_tensor.name == "AdagradDA/learning_rate:0"
        assert da._global_step_on_worker.name == "AdagradDA/add:0"
        assert da._initial_gradient_squared_accumulator_value == 0.1
        assert (da._l1_regularization_strength, da._l2_regularization_strength) == (0.01, 0.0)
        assert add_sign._alpha_t.name == "AddSignOptimizer/alpha:0"
        assert power_sign._logbase_t.name == "PowerSignOptimizer/logbase:0"


def test_external_optimizer_interface_subclass_gets_tfs_minimize_arguments():
    # TF 1.15: ScipyOptimizerInterface subclasses ExternalOptimizerInterface, whose minimize
    # calls _minimize(initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
    # inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback, optimizer_kwargs)
    seen = {}

    class ThreeSteps(tf.contrib.opt.ExternalOptimizerInterface):
        def _minimize(self, initial_val, loss_grad_func, equality_funcs, equality_grad_funcs,
                      inequality_funcs, inequality_grad_funcs, packed_bounds, step_callback,
                      optimizer_kwargs):
            x = initial_val
            seen.update(dtype=x.dtype, bounds=packed_bounds, kwargs=optimizer_kwargs,
                        counts=(len(equality_funcs), len(inequality_grad_funcs)))
            for _ in range(optimizer_kwargs["steps"]):
                x = x - 0.25 * loss_grad_func(x)[1]
                step_callback(x)
            seen.update(eq=equality_funcs[0](x)[0], ineq_grad=inequality_grad_funcs[0](x)[0])
            return x

    assert issubclass(tf.contrib.opt.ScipyOptimizerInterface,
                      tf.contrib.opt.ExternalOptimizerInterface)
    with tf.Graph().as_default():
        v = tf.Variable([[4.0, -2.0]], name="v")
        u = tf.Variable(1.0, name="u")
        loss = tf.reduce_sum(tf.square(v)) + tf.square(u - 3.0)
        opt = ThreeSteps(loss, equalities=[u - 1.0], inequalities=[v[0, 0]],
                         var_to_bounds={u: (0.0, 5.0)}, steps=3)
        steps = []
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            assert opt.minimize(sess, step_callback=steps.append) is None
            got = sess.run([v, u])
    # TF 1.15's values
    assert seen["dtype"] == np.float32 and seen["counts"] == (1, 1)
    assert seen["bounds"] == [(-np.inf, np.inf), (-np.inf, np.inf), (0.0, 5.0)]
    assert seen["kwargs"] == {"steps": 3} and len(steps) == 3
    np.testing.assert_allclose(seen["eq"], 1.75)
    np.testing.assert_allclose(seen["ineq_grad"], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(got[0], [[0.5, -0.25]])
    np.testing.assert_allclose(got[1], 2.75)


def test_keras_schedules_build_tf_trains_graphs():
    # TF 1.15's tf.train schedules are these Keras classes called on the step: the same
    # scopes, dtypes (the initial rate's; a piecewise schedule's values') and seeded noise
    sched = tf.keras.optimizers.schedules
    exp = tf.keras.experimental
    with tf.Graph().as_default():
        tf.set_random_seed(4)
        step = tf.placeholder(tf.int64, [])
        outs = {
            "cos": exp.CosineDecay(0.1, 8, alpha=0.1)(step),
            "cosr": exp.CosineDecayRestarts(0.1, 3, t_mul=2.0, m_mul=0.5)(step),
            "exp64": sched.ExponentialDecay(np.float64(0.1), 3, 0.5)(step),
            "lin": exp.LinearCosineDecay(0.1, 8)(step),
            "noisy": exp.NoisyLinearCosineDecay(0.1, 8, initial_variance=0.5)(step),
            "pw_f": sched.PiecewiseConstantDecay([2.5, 5.5], [0.3, 0.2, 0.1])(step),
            "pw_i": sched.PiecewiseConstantDecay([2, 5], [1, 2, 3])(step),
        }
        names = {k: (t.name, t.dtype.name) for k, t in outs.items()}
        with tf.Session() as sess:
            # (each run draws fresh noise: steps 0 to 3, as TF's run did)
            got = [sess.run(outs, {step: s}) for s in range(4)][1::2]
    # TF 1.15's names and values
    assert names == {
        "cos": ("CosineDecay/Mul_3:0", "float32"), "cosr": ("SGDRDecay:0", "float32"),
        "exp64": ("ExponentialDecay:0", "float64"), "lin": ("LinearCosineDecay:0", "float32"),
        "noisy": ("NoisyLinearCosineDecay:0", "float32"),
        "pw_f": ("PiecewiseConstant/case/cond/Merge:0", "float32"),
        "pw_i": ("PiecewiseConstant_1/case/cond/Merge:0", "int32")}
    want = [{"cos": 0.09657458, "cosr": 0.075, "exp64": 0.07937005, "lin": 0.08426972,
             "noisy": 0.04345215, "pw_f": 0.3, "pw_i": 1},
            {"cos": 0.07222076, "cosr": 0.05, "exp64": 0.05, "lin": 0.04330885,
             "noisy": 0.04222146, "pw_f": 0.2, "pw_i": 2}]
    for g, w in zip(got, want, strict=True):
        for k in w:
            np.testing.assert_allclose(g[k], w[k], rtol=2e-6, err_msg=k)


def test_colocated_gradients_seed_with_the_loss_and_gate_on_their_own():
    # TF 1.15 (colocate_gradients_with_ops=True): the seed ops (Shape, grad_ys_0, Fill) are
    # colocated with the loss's op; a gate's tuple group has no colocation of its own and
    # sits where its inputs are
    with tf.Graph().as_default() as g:
        with tf.device("/job:ps/task:0"):
            w = tf.Variable([[1.0], [2.0]], name="w")
        with tf.device("/job:worker/task:1"):
            y = tf.matmul(tf.constant([[1.0, 2.0]]), w, name="mm")
            loss = tf.reduce_sum(tf.square(y), name="loss")
        with tf.device("/job:worker/task:0"):
            tf.train.GradientDescentOptimizer(0.1).compute_gradients(
                loss, colocate_gradients_with_ops=True)
        placed = {op.name: (op.device, op.colocation_groups()) for op in g.get_operations()}
    for name in ("gradients/Shape", "gradients/grad_ys_0", "gradients/Fill"):
        assert placed[name] == ("/job:worker/task:1", [b"loc:@loss"])
    assert placed["gradients/mm_grad/tuple/group_deps"] == (
        "/job:worker/task:1", [b"loc:@gradients/mm_grad/tuple/group_deps"])
    assert placed["gradients/mm_grad/tuple/control_dependency_1"][1] == [b"loc:@mm"]


def test_moving_average_optimizer_swapping_saver_knows_single_entries_by_key():
    # TF 1.15: in a var_list dict a single variable is looked up (and swapped) by its
    # checkpoint key, a list's parts by op name; a missing counterpart fails where needed
    with tf.Graph().as_default():
        w = tf.Variable([1.0, 2.0], name="w")
        b = tf.Variable(0.5, name="b")
        opt = tf.contrib.opt.MovingAverageOptimizer(tf.train.AdamOptimizer(0.1))
        opt.minimize(tf.reduce_sum(w * w) + b * b)
        w_avg = opt._ema.average(w)
        cases = [({"my_w": w, "b": b}, "b/ExponentialMovingAverage"),
                 ({"my_w": w, "w/ExponentialMovingAverage": w_avg}, "w")]
        for var_list, missing in cases:
            with pytest.raises(ValueError) as err:
                opt.swapping_saver(var_list=var_list)
            assert str(err.value) == (f"Variable to swap {missing} is not part of variables to "
                                      "save. This breaks MovingAverageOptimizer.")
        saver = opt.swapping_saver(var_list=[w, b, w_avg, opt._ema.average(b)])
        assert saver._var_list["w"] is w_avg and saver._var_list["w/ExponentialMovingAverage"] is w


def test_adam_gs_sparse_update_and_variable_clipping_build_tfs_ops():
    # TF 1.15: AdamGS's sparse step is Adam's (the scaled rows before the decayed moment);
    # VariableClippingOptimizer reads the variable with read_value ('clip_<var>/read')
    names, got = _sparse_update_ops(
        lambda: tf.contrib.opt.AdamGSOptimizer(tf.train.get_or_create_global_step(), 0.05),
        False)
    assert names == [
        "Pow", "Pow_1", "sub/x", "sub", "Sqrt", "mul", "sub_1/x", "sub_1", "truediv", "sub_2/x",
        "sub_2", "mul_1", "mul_2", "Assign", "ScatterAdd", "mul_3", "sub_3/x", "sub_3", "mul_4",
        "mul_5", "Assign_1", "ScatterAdd_1", "Sqrt_1", "mul_6", "add", "truediv_1",
        "AssignSub", "group_deps"]
    # TF 1.15's values (the step, never advanced here, stays 0)
    np.testing.assert_allclose(
        got.ravel(), [0.0, 0.125, 0.059170015, 0.181807086, 0.5, 0.625, 0.555342793,
                      0.680192411], rtol=1e-6)
    with tf.Graph().as_default() as g:
        w = tf.Variable([[3.0, 4.0], [0.3, 0.4]], name="w")
        opt = tf.contrib.opt.VariableClippingOptimizer(tf.train.GradientDescentOptimizer(0.1),
                                                       {w: [1]}, max_norm=1.0)
        train = opt.minimize(tf.reduce_sum(w))
        assert "VariableClipping/clip_w/read" in [op.name for op in g.get_operations()]
        got = _steps(train, w, 1)
    np.testing.assert_allclose(got, [[0.5967028141, 0.8024623394], [0.2, 0.3]], rtol=1e-6)
