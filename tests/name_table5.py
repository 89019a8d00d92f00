"""The names table of tests/test_graph_parity5.py: small TF 1.x programs and the names of the
tensors and ops they return (what programs pass to get_tensor_by_name).

EXPECTED was observed from TensorFlow 2.21 in compat.v1 graph mode (``TF_USE_LEGACY_KERAS=1``)
running the same programs, each in a fresh graph with ``tf.set_random_seed(1)``.
"""

# ruff: noqa: PLC3002 - one-line programs (lambda x: ...)(x)

import tideflow as tf

CASES = {}
P = tf.placeholder


def case(name, fn):
    CASES[name] = fn


def names(r):
    """A result as nested lists of names."""
    if r is None:
        return None
    if isinstance(r, (list, tuple)):
        return [names(x) for x in r]
    if isinstance(r, dict):
        return {k: names(v) for k, v in sorted(r.items())}
    if isinstance(r, str):
        return r
    if hasattr(r, "indices") and hasattr(r, "values") and hasattr(r, "dense_shape"):
        return ["IS", names(r.values), names(r.indices)]
    return r.name


def x3():
    return P(tf.float32, [None, 3], name="x")
case("cond", lambda: tf.cond(P(tf.bool, [], name="p"), lambda: x3() * 2, lambda: tf.ones([2, 3])))
case("cond_tuple", lambda: tf.cond(P(tf.bool, []), lambda: (tf.constant(1), tf.constant(2.0)), lambda: (tf.constant(3), tf.constant(4.0))))
case("cond_named", lambda: tf.cond(P(tf.bool, []), lambda: tf.constant(1), lambda: tf.constant(2), name="mycond"))
case("while", lambda: tf.while_loop(lambda i, a: i < 3, lambda i, a: (i + 1, a * 2.0), [tf.constant(0), tf.constant(1.0)]))
case("while_single", lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [tf.constant(0)]))
case("while_named", lambda: tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0], name="loop"))
case("case", lambda: tf.case([(P(tf.bool, []), lambda: tf.constant(1))], default=lambda: tf.constant(2)))
case("case2", lambda: tf.case({P(tf.bool, []): lambda: tf.constant(1), P(tf.bool, []): lambda: tf.constant(3)}, default=lambda: tf.constant(2), exclusive=True))
case("dense", lambda: tf.layers.dense(x3(), 4))
case("dense_act", lambda: tf.layers.dense(x3(), 4, activation=tf.nn.relu))
case("dense_nobias", lambda: tf.layers.dense(x3(), 4, use_bias=False))
case("dense_named", lambda: tf.layers.dense(x3(), 4, name="fc1"))
case("dense_two", lambda: [tf.layers.dense(x3(), 4), tf.layers.dense(x3(), 4)])
case("dense_vars", lambda: [v.name for v in (tf.layers.dense(x3(), 4), tf.global_variables())[1]])
case("dense_3d", lambda: tf.layers.dense(P(tf.float32, [None, 2, 3]), 4))
case("conv2d", lambda: tf.layers.conv2d(P(tf.float32, [None, 8, 8, 3]), 4, 3, activation=tf.nn.relu))
case("max_pool", lambda: tf.layers.max_pooling2d(P(tf.float32, [None, 8, 8, 3]), 2, 2))
case("flatten", lambda: tf.layers.flatten(P(tf.float32, [None, 8, 8, 3])))
case("bn", lambda: tf.layers.batch_normalization(x3(), training=True))
case("bn_infer", lambda: tf.layers.batch_normalization(x3(), training=False))
case("nn_bn", lambda: tf.nn.batch_normalization(x3(), 0.0, 1.0, 0.0, 1.0, 1e-3))
case("moments", lambda: tf.nn.moments(x3(), [0]))
case("sparse_sce", lambda: tf.nn.sparse_softmax_cross_entropy_with_logits(labels=P(tf.int32, [None]), logits=x3()))
case("sigmoid_ce", lambda: tf.nn.sigmoid_cross_entropy_with_logits(labels=x3(), logits=x3()))
case("softmax", lambda: tf.nn.softmax(x3()))
case("log_softmax", lambda: tf.nn.log_softmax(x3()))
case("l2_loss", lambda: tf.nn.l2_loss(x3()))
case("l2_normalize", lambda: tf.nn.l2_normalize(x3(), 1))
case("losses_mse", lambda: tf.losses.mean_squared_error(x3(), x3()))
case("losses_sce", lambda: tf.losses.softmax_cross_entropy(x3(), x3()))
case("losses_sparse", lambda: tf.losses.sparse_softmax_cross_entropy(P(tf.int32, [None]), x3()))
case("losses_sigmoid", lambda: tf.losses.sigmoid_cross_entropy(x3(), x3()))
case("losses_abs", lambda: tf.losses.absolute_difference(x3(), x3()))
case("losses_hinge", lambda: tf.losses.hinge_loss(x3(), x3()))
case("losses_huber", lambda: tf.losses.huber_loss(x3(), x3()))
case("losses_log", lambda: tf.losses.log_loss(x3(), x3()))
case("losses_cos", lambda: tf.losses.cosine_distance(x3(), x3(), axis=1))
case("losses_total", lambda: (tf.losses.mean_squared_error(x3(), x3()), tf.losses.get_total_loss(add_regularization_losses=False))[1])
case("losses_coll", lambda: (tf.losses.mean_squared_error(x3(), x3()), tf.losses.absolute_difference(x3(), x3()), tf.get_collection(tf.GraphKeys.LOSSES))[2])
case("reg_loss", lambda: (tf.layers.dense(x3(), 2, kernel_regularizer=tf.nn.l2_loss), tf.losses.get_regularization_loss())[1])
case("reg_coll", lambda: (tf.layers.dense(x3(), 2, kernel_regularizer=tf.nn.l2_loss), tf.get_collection(tf.GraphKeys.REGULARIZATION_LOSSES))[1])
case("clip_global", lambda: tf.clip_by_global_norm([x3(), x3()], 1.0))
case("clip_norm", lambda: tf.clip_by_norm(x3(), 1.0))
case("clip_value", lambda: tf.clip_by_value(x3(), 0.0, 1.0))
case("global_norm", lambda: tf.global_norm([x3()]))
def _grads():
    x = x3(); w = tf.Variable(tf.ones([3, 2]), name="w"); b = tf.Variable(tf.zeros([2]), name="b")
    y = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
    return tf.gradients(y, [w, b, x])
def _grads2():
    x = x3(); y = tf.reduce_sum(tf.nn.relu(x) * tf.sigmoid(x))
    return [tf.gradients(y, x), tf.gradients(y, x)]
case("gradients_twice", _grads2)
def _grad_gather():
    w = tf.Variable(tf.ones([5, 2]), name="emb"); y = tf.reduce_sum(tf.gather(w, [1, 2]))
    return tf.gradients(y, w)
case("gradients_gather", _grad_gather)
def _opt(mk):
    def f():
        x = x3(); w = tf.Variable(tf.ones([3, 2]), name="w"); b = tf.Variable(tf.zeros([2]), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b))
        gs = tf.train.get_or_create_global_step()
        op = mk().minimize(loss, global_step=gs)
        return [op.name] + [v.name for v in tf.global_variables()] + [o.name for o in op.control_inputs] + [i.name for i in op.inputs]
    return f
case("opt_sgd", _opt(lambda: tf.train.GradientDescentOptimizer(0.1)))
case("opt_momentum", _opt(lambda: tf.train.MomentumOptimizer(0.1, 0.9)))
case("opt_adam", _opt(lambda: tf.train.AdamOptimizer(0.1)))
case("opt_adagrad", _opt(lambda: tf.train.AdagradOptimizer(0.1)))
case("opt_rmsprop", _opt(lambda: tf.train.RMSPropOptimizer(0.1)))
case("opt_adadelta", _opt(lambda: tf.train.AdadeltaOptimizer(0.1)))
case("opt_ftrl", _opt(lambda: tf.train.FtrlOptimizer(0.1)))
def _opt_apply():
    x = x3(); w = tf.Variable(tf.ones([3, 2]), name="w")
    loss = tf.reduce_mean(tf.matmul(x, w))
    opt = tf.train.AdamOptimizer(0.1)
    gv = opt.compute_gradients(loss)
    op = opt.apply_gradients(gv, name="train")
    return [g.name for g, v in gv] + [op.name, opt.get_slot(w, "m").name, opt.get_slot_names()] + [v.name for v in opt.variables()]
def _metric(f):
    def g():
        r = f()
        return [r[0].name, r[1].name] + [v.name for v in tf.local_variables()] + [v.name for v in tf.get_collection(tf.GraphKeys.METRIC_VARIABLES)]
    return g
def L():
    return P(tf.int64, [None], name="labels")
case("m_accuracy", _metric(lambda: tf.metrics.accuracy(L(), L())))
case("m_mean", _metric(lambda: tf.metrics.mean(x3())))
case("m_auc", _metric(lambda: tf.metrics.auc(P(tf.bool, [None]), P(tf.float32, [None]))))
case("m_precision", _metric(lambda: tf.metrics.precision(L(), L())))
case("m_recall", _metric(lambda: tf.metrics.recall(L(), L())))
case("m_mse", _metric(lambda: tf.metrics.mean_squared_error(x3(), x3())))
case("m_rmse", _metric(lambda: tf.metrics.root_mean_squared_error(x3(), x3())))
case("m_recall_at_k", _metric(lambda: tf.metrics.recall_at_k(L(), x3(), 2)))
case("m_named", _metric(lambda: tf.metrics.accuracy(L(), L(), name="acc")))
case("m_fn", _metric(lambda: tf.metrics.false_negatives(L(), L())))
case("m_pc_acc", _metric(lambda: tf.metrics.mean_per_class_accuracy(L(), L(), 3)))
def _ema():
    v = tf.Variable(1.0, name="v"); ema = tf.train.ExponentialMovingAverage(0.9)
    op = ema.apply([v])
    return [op.name, ema.average(v).name, ema.average_name(v)]
case("ema", _ema)
def _saver():
    tf.Variable(1.0, name="v"); s = tf.train.Saver()
    return [s.saver_def.save_tensor_name, s.saver_def.restore_op_name, s.saver_def.filename_tensor_name]
case("saver", _saver)
case("init_ops", lambda: [tf.global_variables_initializer().name, tf.local_variables_initializer().name, (tf.Variable(1.0), tf.variables_initializer([]).name)[1]])
def _var_names():
    v = tf.Variable(1.0); w = tf.get_variable("gv", [2]); 
    return [v.name, v.op.name, v.initializer.name, v.value().name, w.initializer.name, w.value().name, tf.assign(v, 2.0).name, v.assign_add(1.0).name]
case("var_names", _var_names)
case("rnn_vars", lambda: [v.name for v in (tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), P(tf.float32, [None, 5, 3]), dtype=tf.float32), tf.global_variables())[1]])
case("static_rnn", lambda: tf.nn.static_rnn(tf.nn.rnn_cell.BasicRNNCell(4), [P(tf.float32, [None, 3])] * 2, dtype=tf.float32))
case("multi_rnn_vars", lambda: [v.name for v in (tf.nn.dynamic_rnn(tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.LSTMCell(4), tf.nn.rnn_cell.LSTMCell(4)]), P(tf.float32, [None, 5, 3]), dtype=tf.float32), tf.global_variables())[1]])
case("bidir", lambda: tf.nn.bidirectional_dynamic_rnn(tf.nn.rnn_cell.GRUCell(3), tf.nn.rnn_cell.GRUCell(3), P(tf.float32, [None, 5, 3]), dtype=tf.float32)[0])
case("ds_next", lambda: tf.data.make_one_shot_iterator(tf.data.Dataset.range(3)).get_next())
def _ds_init_next():
    it = tf.data.make_initializable_iterator(tf.data.Dataset.range(3))
    return [it.initializer, it.get_next()]


case("ds_init_next", _ds_init_next)
case("random_normal", lambda: tf.random_normal([2]))
case("truncated", lambda: tf.truncated_normal([2]))
case("glorot", lambda: tf.get_variable("g", [2, 3]).initial_value)
case("zeros", lambda: [tf.zeros([2, 3]), tf.zeros([n for n in [1000, 1000]]), tf.ones_like(x3()), tf.zeros_like(x3())])
case("one_hot", lambda: tf.one_hot(P(tf.int32, [None]), 3))
case("where", lambda: tf.where(P(tf.bool, [None])))
case("argmax", lambda: tf.argmax(x3(), 1))
case("top_k", lambda: tf.nn.top_k(x3(), 2))
case("reduce_mean", lambda: tf.reduce_mean(x3()))
case("reduce_logsumexp", lambda: tf.reduce_logsumexp(x3(), 1))
case("norm", lambda: tf.norm(x3()))
case("matmul", lambda: tf.matmul(x3(), tf.ones([3, 2])))
case("concat", lambda: tf.concat([x3(), x3()], 1))
case("stack", lambda: tf.stack([x3(), x3()]))
case("unstack", lambda: tf.unstack(P(tf.float32, [2, 3])))
case("split", lambda: tf.split(P(tf.float32, [4, 3]), 2))
case("slice", lambda: x3()[:, 1])
case("reshape", lambda: tf.reshape(x3(), [-1]))
case("squeeze", lambda: tf.squeeze(P(tf.float32, [1, 3])))
case("expand", lambda: tf.expand_dims(x3(), 0))
case("cast", lambda: tf.cast(x3(), tf.int32))
case("to_float", lambda: tf.to_float(P(tf.int32, [2])))
case("add_n", lambda: tf.add_n([x3(), x3()]))
case("sigmoid", lambda: tf.sigmoid(x3()))
case("bool_mask", lambda: tf.boolean_mask(x3(), P(tf.bool, [None])))
case("seq_mask", lambda: tf.sequence_mask(P(tf.int32, [None]), 4))
case("pad", lambda: tf.pad(x3(), [[1, 1], [0, 0]]))
case("image_std", lambda: tf.image.per_image_standardization(P(tf.float32, [8, 8, 3])))
case("conv2d_nn", lambda: tf.nn.conv2d(P(tf.float32, [None, 8, 8, 3]), tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "SAME"))
case("bias_add", lambda: tf.nn.bias_add(x3(), tf.ones([3])))
case("embedding", lambda: tf.nn.embedding_lookup(tf.ones([5, 2]), P(tf.int32, [None])))
case("summary", lambda: [tf.summary.scalar("loss", tf.constant(1.0)), tf.summary.histogram("h", x3()), tf.summary.merge_all()])
case("py_func", lambda: tf.py_func(lambda a: a, [x3()], tf.float32))
case("identity", lambda: tf.identity(x3()))
case("group", lambda: tf.group(tf.no_op(), tf.no_op()))
case("tuple", lambda: tf.tuple([x3(), x3()]))
# --- batch 2
K = tf.keras
case("k_dense", lambda: K.layers.Dense(4, activation="relu")(x3()))
case("k_dense_lin", lambda: K.layers.Dense(4)(x3()))
case("k_seq", lambda: (lambda m: [m(x3()), [w.name for w in m.weights]])(K.Sequential([K.layers.Dense(4, activation="relu", input_shape=(3,)), K.layers.Dense(2, activation="softmax")])))
case("k_input", lambda: K.layers.Input(shape=(3,)))
case("k_model", lambda: (lambda i: K.Model(i, K.layers.Dense(2)(i)).output)(K.layers.Input(shape=(3,))))
case("k_conv", lambda: K.layers.Conv2D(2, 3, activation="relu")(P(tf.float32, [None, 8, 8, 3])))
case("k_bn", lambda: K.layers.BatchNormalization()(x3(), training=True))
case("k_flatten", lambda: K.layers.Flatten()(P(tf.float32, [None, 2, 3])))
case("k_embedding", lambda: K.layers.Embedding(10, 3)(P(tf.int32, [None, 4])))
case("k_concat", lambda: K.layers.Concatenate()([x3(), x3()]))
case("k_add", lambda: K.layers.Add()([x3(), x3()]))
case("k_act", lambda: K.layers.Activation("tanh")(x3()))
case("k_loss", lambda: K.losses.categorical_crossentropy(x3(), x3()))
case("k_mse", lambda: K.losses.mean_squared_error(x3(), x3()))
case("l_conv_bn_relu", lambda: tf.nn.relu(tf.layers.batch_normalization(tf.layers.conv2d(P(tf.float32, [None, 8, 8, 3]), 4, 3, use_bias=False), training=False)))
case("l_dense_chain", lambda: tf.layers.dense(tf.layers.dense(x3(), 4, tf.nn.relu, name="h1"), 2, name="out"))
case("l_conv_vars", lambda: [v.name for v in (tf.layers.conv2d(P(tf.float32, [None, 8, 8, 3]), 4, 3), tf.layers.conv2d(P(tf.float32, [None, 8, 8, 3]), 4, 3), tf.global_variables())[2]])
case("saver_ops", lambda: (tf.Variable(1.0, name="v"), [s.saver_def.save_tensor_name for s in [tf.train.Saver(), tf.train.Saver()]])[1])
case("global_step", lambda: [tf.train.get_or_create_global_step().name, tf.train.get_global_step().name])
case("lr_decay", lambda: tf.train.exponential_decay(0.1, tf.train.get_or_create_global_step(), 100, 0.9))
case("summary_names", lambda: [tf.summary.scalar("loss", tf.constant(1.0)), tf.summary.scalar("loss", tf.constant(1.0)), tf.summary.image("img", P(tf.float32, [None, 4, 4, 3])), tf.summary.text("t", tf.constant("a"))])
case("string_input", lambda: tf.train.string_input_producer(["a"]).dequeue())
case("shuffle_batch_names", lambda: tf.train.shuffle_batch([tf.constant([1.0, 2.0])], 4, 10, 2))
case("batch_names", lambda: tf.train.batch([tf.constant([1.0, 2.0])], 4))
case("init_from_ckpt", lambda: tf.train.init_from_checkpoint if False else tf.report_uninitialized_variables())
case("assign_moving", lambda: (lambda v: tf.train.ExponentialMovingAverage(0.9).apply([v]))(tf.Variable(1.0, name="v")))
case("sg_grad", lambda: tf.stop_gradient(x3()))
case("grad_ys", lambda: (lambda x: tf.gradients(x * 2.0, x, grad_ys=tf.ones([3])))(P(tf.float32, [3])))
case("grad_multi_y", lambda: (lambda x: tf.gradients([x * 2.0, x * x], x))(P(tf.float32, [3])))
case("grad_relu_softmax", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.nn.softmax(tf.nn.relu(x))), x))(x3()))
case("grad_conv", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.nn.conv2d(x, tf.ones([3, 3, 3, 2]), [1, 1, 1, 1], "SAME")), x))(P(tf.float32, [None, 8, 8, 3])))
case("grad_sparse_xent", lambda: (lambda x: tf.gradients(tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=P(tf.int32, [None]), logits=x)), x))(x3()))
case("grad_reduce_mean", lambda: (lambda x: tf.gradients(tf.reduce_mean(x), x))(x3()))
case("grad_matmul_t", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.matmul(x, x, transpose_b=True)), x))(x3()))
case("grad_reshape", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.reshape(x, [-1])), x))(x3()))
case("grad_concat", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.concat([x, x], 1)), x))(x3()))
case("grad_slice", lambda: (lambda x: tf.gradients(tf.reduce_sum(x[:, 1:]), x))(x3()))
case("grad_sigmoid_xent", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.nn.sigmoid_cross_entropy_with_logits(labels=x3(), logits=x)), x))(x3()))
case("grad_l2", lambda: (lambda x: tf.gradients(tf.nn.l2_loss(x), x))(x3()))
case("grad_maxpool", lambda: (lambda x: tf.gradients(tf.reduce_sum(tf.nn.max_pool(x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")), x))(P(tf.float32, [None, 4, 4, 3])))


EXPECTED = {
    'cond': "cond/Merge:0",
    'cond_tuple': ["cond/Merge:0", "cond/Merge_1:0"],
    'cond_named': "mycond/Merge:0",
    'while': ["while/Exit:0", "while/Exit_1:0"],
    'while_single': "while/Exit:0",
    'while_named': "loop/Exit:0",
    'case': "case/cond/Merge:0",
    'case2': "case/cond/Merge:0",
    'dense': "dense/BiasAdd:0",
    'dense_act': "dense/Relu:0",
    'dense_nobias': "dense/MatMul:0",
    'dense_named': "fc1/BiasAdd:0",
    'dense_two': ["dense/BiasAdd:0", "dense_1/BiasAdd:0"],
    'dense_vars': ["dense/kernel:0", "dense/bias:0"],
    'dense_3d': "dense/BiasAdd:0",
    'conv2d': "conv2d/Relu:0",
    'max_pool': "max_pooling2d/MaxPool:0",
    'flatten': "flatten/Reshape:0",
    'bn': "batch_normalization/batchnorm/add_1:0",
    'bn_infer': "batch_normalization/batchnorm/add_1:0",
    'nn_bn': "batchnorm/add:0",
    'moments': ["moments/Squeeze:0", "moments/Squeeze_1:0"],
    'sparse_sce': "SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits:0",
    'sigmoid_ce': "logistic_loss:0",
    'softmax': "Softmax:0",
    'log_softmax': "LogSoftmax:0",
    'l2_loss': "L2Loss:0",
    'l2_normalize': "l2_normalize:0",
    'losses_mse': "mean_squared_error/value:0",
    'losses_sce': "softmax_cross_entropy_loss/value:0",
    'losses_sparse': "sparse_softmax_cross_entropy_loss/value:0",
    'losses_sigmoid': "sigmoid_cross_entropy_loss/value:0",
    'losses_abs': "absolute_difference/value:0",
    'losses_hinge': "hinge_loss/value:0",
    'losses_huber': "huber_loss/value:0",
    'losses_log': "log_loss/value:0",
    'losses_cos': "cosine_distance_loss/value:0",
    'losses_total': "total_loss:0",
    'losses_coll': ["mean_squared_error/value:0", "absolute_difference/value:0"],
    'reg_loss': "total_regularization_loss:0",
    'reg_coll': ["dense/kernel/Regularizer/L2Loss:0"],
    'clip_global': [["clip_by_global_norm/clip_by_global_norm/_0:0", "clip_by_global_norm/clip_by_global_norm/_1:0"], "global_norm/global_norm:0"],
    'clip_norm': "clip_by_norm:0",
    'clip_value': "clip_by_value:0",
    'global_norm': "global_norm/global_norm:0",
    'gradients_twice': [["gradients/AddN:0"], ["gradients_1/AddN:0"]],
    'gradients_gather': [["IS", "gradients/GatherV2_grad/Reshape:0", "gradients/GatherV2_grad/Reshape_1:0"]],
    'opt_sgd': ["GradientDescent", "w:0", "b:0", "global_step:0", "global_step:0", "GradientDescent/value:0"],
    'opt_momentum': ["Momentum", "w:0", "b:0", "global_step:0", "w/Momentum:0", "b/Momentum:0", "global_step:0", "Momentum/value:0"],
    'opt_adam': ["Adam", "w:0", "b:0", "global_step:0", "beta1_power:0", "beta2_power:0", "w/Adam:0", "w/Adam_1:0", "b/Adam:0", "b/Adam_1:0", "global_step:0", "Adam/value:0"],
    'opt_adagrad': ["Adagrad", "w:0", "b:0", "global_step:0", "w/Adagrad:0", "b/Adagrad:0", "global_step:0", "Adagrad/value:0"],
    'opt_rmsprop': ["RMSProp", "w:0", "b:0", "global_step:0", "w/RMSProp:0", "w/RMSProp_1:0", "b/RMSProp:0", "b/RMSProp_1:0", "global_step:0", "RMSProp/value:0"],
    'opt_adadelta': ["Adadelta", "w:0", "b:0", "global_step:0", "w/Adadelta:0", "w/Adadelta_1:0", "b/Adadelta:0", "b/Adadelta_1:0", "global_step:0", "Adadelta/value:0"],
    'opt_ftrl': ["Ftrl", "w:0", "b:0", "global_step:0", "w/Ftrl:0", "w/Ftrl_1:0", "b/Ftrl:0", "b/Ftrl_1:0", "global_step:0", "Ftrl/value:0"],
    'm_accuracy': ["accuracy/value:0", "accuracy/update_op:0", "accuracy/total:0", "accuracy/count:0", "accuracy/total:0", "accuracy/count:0"],
    'm_mean': ["mean/value:0", "mean/update_op:0", "mean/total:0", "mean/count:0", "mean/total:0", "mean/count:0"],
    'm_auc': ["auc/value:0", "auc/update_op:0", "auc/true_positives:0", "auc/false_negatives:0", "auc/true_negatives:0", "auc/false_positives:0", "auc/true_positives:0", "auc/false_negatives:0", "auc/true_negatives:0", "auc/false_positives:0"],
    'm_precision': ["precision/value:0", "precision/update_op:0", "precision/true_positives/count:0", "precision/false_positives/count:0", "precision/true_positives/count:0", "precision/false_positives/count:0"],
    'm_recall': ["recall/value:0", "recall/update_op:0", "recall/true_positives/count:0", "recall/false_negatives/count:0", "recall/true_positives/count:0", "recall/false_negatives/count:0"],
    'm_mse': ["mean_squared_error/value:0", "mean_squared_error/update_op:0", "mean_squared_error/total:0", "mean_squared_error/count:0", "mean_squared_error/total:0", "mean_squared_error/count:0"],
    'm_rmse': ["Sqrt:0", "Sqrt_1:0", "root_mean_squared_error/total:0", "root_mean_squared_error/count:0", "root_mean_squared_error/total:0", "root_mean_squared_error/count:0"],
    'm_recall_at_k': ["recall_at_2:0", "recall_at_2/update:0", "recall_at_2/true_positive_at_2:0", "recall_at_2/false_negative_at_2:0", "recall_at_2/true_positive_at_2:0", "recall_at_2/false_negative_at_2:0"],
    'm_named': ["acc/value:0", "acc/update_op:0", "acc/total:0", "acc/count:0", "acc/total:0", "acc/count:0"],
    'm_fn': ["false_negatives/Identity:0", "false_negatives/AssignAdd:0", "false_negatives/count:0", "false_negatives/count:0"],
    'm_pc_acc': ["mean_accuracy/mean_accuracy:0", "mean_accuracy/update_op:0", "mean_accuracy/total:0", "mean_accuracy/count:0", "mean_accuracy/total:0", "mean_accuracy/count:0"],
    'ema': ["ExponentialMovingAverage", "v/ExponentialMovingAverage:0", "v/ExponentialMovingAverage"],
    'saver': ["save/control_dependency:0", "save/restore_all", "save/Const:0"],
    'init_ops': ["init", "init_1", "init_2"],
    'var_names': ["Variable:0", "Variable", "Variable/Assign", "Variable/read:0", "gv/Assign", "gv/read:0", "Assign:0", "AssignAdd:0"],
    'rnn_vars': ["rnn/gru_cell/gates/kernel:0", "rnn/gru_cell/gates/bias:0", "rnn/gru_cell/candidate/kernel:0", "rnn/gru_cell/candidate/bias:0"],
    'static_rnn': [["rnn/basic_rnn_cell/Tanh:0", "rnn/basic_rnn_cell/Tanh_1:0"], "rnn/basic_rnn_cell/Tanh_1:0"],
    'multi_rnn_vars': ["rnn/multi_rnn_cell/cell_0/lstm_cell/kernel:0", "rnn/multi_rnn_cell/cell_0/lstm_cell/bias:0", "rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0", "rnn/multi_rnn_cell/cell_1/lstm_cell/bias:0"],
    'bidir': ["bidirectional_rnn/fw/fw/transpose_1:0", "ReverseV2:0"],
    'ds_next': "IteratorGetNext:0",
    'ds_init_next': ["MakeIterator", "IteratorGetNext:0"],
    'random_normal': "random_normal:0",
    'truncated': "truncated_normal:0",
    'glorot': "g/Initializer/random_uniform:0",
    'zeros': ["zeros:0", "zeros_1:0", "ones_like:0", "zeros_like:0"],
    'one_hot': "one_hot:0",
    'where': "Where:0",
    'argmax': "ArgMax:0",
    'top_k': ["TopKV2:0", "TopKV2:1"],
    'reduce_mean': "Mean:0",
    'reduce_logsumexp': "ReduceLogSumExp/Add:0",  # TF 1.15's name (2.21: ReduceLogSumExp:0)
    'norm': "norm/Squeeze:0",
    'matmul': "MatMul:0",
    'concat': "concat:0",
    'stack': "stack:0",
    'unstack': ["unstack:0", "unstack:1"],
    'split': ["split:0", "split:1"],
    'slice': "strided_slice:0",
    'reshape': "Reshape:0",
    'squeeze': "Squeeze:0",
    'expand': "ExpandDims:0",
    'cast': "Cast:0",
    'to_float': "ToFloat:0",
    'add_n': "AddN:0",
    'sigmoid': "Sigmoid:0",
    'bool_mask': "boolean_mask/GatherV2:0",
    'seq_mask': "SequenceMask/Less:0",
    'pad': "Pad:0",
    'image_std': "per_image_standardization/Identity:0",  # TF 1.15's (2.x drops the convert)
    'conv2d_nn': "Conv2D:0",
    'bias_add': "BiasAdd:0",
    'embedding': "embedding_lookup/Identity:0",
    'summary': ["loss:0", "h:0", "Merge/MergeSummary:0"],
    'py_func': "PyFunc:0",
    'identity': "Identity:0",
    'group': "group_deps",
    'tuple': ["tuple/control_dependency:0", "tuple/control_dependency_1:0"],
    'k_dense': "dense/Relu:0",
    'k_dense_lin': "dense/BiasAdd:0",
    'k_seq': ["sequential/dense_1/Softmax:0", ["dense/kernel:0", "dense/bias:0", "dense_1/kernel:0", "dense_1/bias:0"]],
    'k_input': "input_1:0",
    'k_model': "dense/BiasAdd:0",
    'k_conv': "conv2d/Relu:0",
    'k_bn': "batch_normalization/batchnorm/add_1:0",
    'k_flatten': "flatten/Reshape:0",
    'k_embedding': "embedding/embedding_lookup/Identity_1:0",  # (TF 1.15)
    'k_concat': "concatenate/concat:0",
    'k_add': "add/add:0",
    'k_act': "activation/Tanh:0",
    'k_loss': "Neg:0",
    'k_mse': "Mean:0",
    'l_conv_bn_relu': "Relu:0",
    'l_dense_chain': "out/BiasAdd:0",
    'l_conv_vars': ["conv2d/kernel:0", "conv2d/bias:0", "conv2d_1/kernel:0", "conv2d_1/bias:0"],
    'saver_ops': ["save/control_dependency:0", "save_1/control_dependency:0"],
    'global_step': ["global_step:0", "global_step:0"],
    'lr_decay': "ExponentialDecay:0",
    'summary_names': ["loss:0", "loss_1:0", "img:0", "t:0"],
    'string_input': "input_producer_Dequeue:0",
    'shuffle_batch_names': "shuffle_batch:0",
    'batch_names': "batch:0",
    'init_from_ckpt': "report_uninitialized_variables/Const:0",
    'assign_moving': "ExponentialMovingAverage",
    'sg_grad': "StopGradient:0",
    'grad_ys': ["gradients/mul_grad/Mul:0"],
    'grad_multi_y': ["gradients/AddN:0"],
    'grad_relu_softmax': ["gradients/Relu_grad/ReluGrad:0"],
    'grad_conv': ["gradients/Conv2D_grad/Conv2DBackpropInput:0"],
    'grad_sparse_xent': ["gradients/SparseSoftmaxCrossEntropyWithLogits/SparseSoftmaxCrossEntropyWithLogits_grad/mul:0"],
    'grad_reduce_mean': ["gradients/Mean_grad/truediv:0"],
    'grad_matmul_t': ["gradients/AddN:0"],
    'grad_reshape': ["gradients/Reshape_grad/Reshape:0"],
    'grad_concat': ["gradients/AddN:0"],
    'grad_slice': ["gradients/strided_slice_grad/StridedSliceGrad:0"],
    'grad_sigmoid_xent': ["gradients/AddN:0"],
    'grad_l2': ["gradients/L2Loss_grad/mul:0"],
    'grad_maxpool': ["gradients/MaxPool_grad/MaxPoolGrad:0"],
}
