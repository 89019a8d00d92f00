"""Cases: small end-to-end training runs with every random op seeded, compared step by step."""

E2E = {
    "mlp_adam_dropout": """
        rs = np.random.RandomState(0)
        X = rs.randn(64, 10).astype(np.float32); Y = (X[:, :3].sum(1) > 0).astype(np.int64)
        x = tf.placeholder(tf.float32, [None, 10]); y = tf.placeholder(tf.int64, [None])
        init = tf.glorot_uniform_initializer(seed=1)
        w1 = tf.get_variable("w1", [10, 16], initializer=init); b1 = tf.get_variable("b1", [16], initializer=tf.zeros_initializer())
        w2 = tf.get_variable("w2", [16, 2], initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2))
        b2 = tf.get_variable("b2", [2], initializer=tf.constant_initializer(0.1))
        h = tf.nn.dropout(tf.nn.relu(tf.matmul(x, w1) + b1), keep_prob=0.8, seed=3)
        logits = tf.matmul(h, w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        loss += 1e-3 * tf.add_n([tf.nn.l2_loss(w1), tf.nn.l2_loss(w2)])
        acc = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        train = tf.train.AdamOptimizer(0.01).minimize(loss, global_step=tf.train.get_or_create_global_step())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            losses = []
            for i in range(15):
                idx = slice((i * 16) % 64, (i * 16) % 64 + 16)
                l, _ = s.run([loss, train], {x: X[idx], y: Y[idx]})
                losses.append(l)
            rec("losses", losses); rec("w2", s.run(w2)); rec("acc", s.run(acc, {x: X, y: Y}))
        # tol: 1e-4 1e-5
    """,
    "cnn_momentum": """
        rs = np.random.RandomState(1)
        X = rs.rand(8, 8, 8, 1).astype(np.float32); Y = rs.randint(0, 3, 8)
        x = tf.constant(X); y = tf.constant(Y)
        k = tf.get_variable("k", [3, 3, 1, 4], initializer=tf.variance_scaling_initializer(seed=4))
        c = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
        p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        f = tf.reshape(p, [8, -1])
        w = tf.get_variable("w", [64, 3], initializer=tf.random_normal_initializer(0., 0.05, seed=5))
        logits = tf.matmul(f, w)
        loss = tf.losses.sparse_softmax_cross_entropy(y, logits)
        lr = tf.train.exponential_decay(0.5, tf.train.get_or_create_global_step(), 3, 0.7, staircase=True)
        train = tf.train.MomentumOptimizer(lr, 0.9, use_nesterov=True).minimize(loss, global_step=tf.train.get_global_step())
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            rec("losses", [s.run([loss, train])[0] for _ in range(10)])
            rec("k", s.run(k))
        # tol: 1e-4 1e-5
    """,
    "graph_seed_only": """
        tf.set_random_seed(1234)
        a = tf.random_uniform([3]); b = tf.random_normal([2])
        v = tf.Variable(tf.truncated_normal([2, 2]))
        with tf.Session() as s:
            s.run(v.initializer)
            rec("a", s.run(a)); rec("b", s.run(b)); rec("v", s.run(v))
        # tol: 1e-6 1e-7
    """,
    "graph_seed_and_op_seed_mix": """
        tf.set_random_seed(7)
        a = tf.random_uniform([2], seed=1); b = tf.random_uniform([2], seed=1)
        d = tf.nn.dropout(tf.ones([6]), 0.5)
        with tf.Session() as s:
            rec("same_seed_same_numbers", s.run([a, b])); rec("dropout", s.run(d))
    """,
    "rmsprop_adagrad_sparse_embedding_train": """
        emb = tf.get_variable("emb", [6, 3], initializer=tf.random_uniform_initializer(-0.5, 0.5, seed=9))
        ids = tf.placeholder(tf.int32, [None])
        target = tf.constant([[1., 0., -1.]])
        loss = tf.reduce_mean(tf.square(tf.nn.embedding_lookup(emb, ids) - target))
        t1 = tf.train.RMSPropOptimizer(0.05, momentum=0.3).minimize(loss)
        t2 = tf.train.AdagradOptimizer(0.2).minimize(loss)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for i in range(6):
                s.run(t1 if i % 2 else t2, {ids: [i % 6, (i + 2) % 6, i % 6]})
            rec("emb", s.run(emb))
        # tol: 1e-5 1e-6
    """,
}
