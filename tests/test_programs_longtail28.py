"""The long tail of TF 1.x programs: small single-author repositories in several domains
(recommendation, physics, vision, medicine, NLP, finance, tabular), each reduced to a
standalone form with small synthetic data (API calls, graph structure and training loop kept;
sizes and step counts shrunk; helper code from the program's own repository inlined). Each
test runs the reduced program and compares what it prints, line by line and exactly, with
what TF 1.15 (tensorflow-cpu 1.15.0) printed running the same program with the same seeds
(measured). The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: BLE001, F401, F841, I001, RUF059, UP004, UP031, UP032, UP034

import pytest
from tests.printed_programs import same_printed

import tideflow as tf


@pytest.fixture(autouse=True)
def _fresh_graph():
    # (a program may call tf.reset_default_graph() itself, which a nested graph refuses)
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _printed(capsys, expected):
    assert capsys.readouterr().out.splitlines() == expected.splitlines()


def test_books_matrix_factorization(capsys, tmp_path):
    # wolfgangB33r/applied-ai-examples tensorflow/books.py (reduced)
    import numpy
    numpy.random.seed(0)
    R_BOOKS = [
         [4,0,0,0,2,0],
         [0,0,0,3,5,0],
         [0,1,0,5,4,0],
         [1,4,0,0,0,5],
         [0,5,0,0,0,0],
        ]
    R = numpy.array(R_BOOKS)
    N = len(R_BOOKS)
    M = len(R_BOOKS[0])
    K = 2
    P = numpy.random.rand(N,K)
    Q = numpy.random.rand(M,K)
    ratings = tf.placeholder(tf.float32, name = 'ratings')
    tP = tf.Variable(P, dtype=tf.float32, name='P')
    tQ = tf.Variable(Q, dtype=tf.float32, name='Q')
    pDotq = tf.tensordot(tP, tQ, [[1], [1]])
    print(pDotq)
    squared_deltas = tf.square(pDotq - ratings)
    loss = tf.reduce_sum(squared_deltas)
    print(tf.summary.scalar('loss', loss))
    tf.summary.scalar('sumP', tf.reduce_sum(tP))
    tf.summary.scalar('sumQ', tf.reduce_sum(tQ))
    optimizer = tf.train.GradientDescentOptimizer(0.001)
    train = optimizer.minimize(loss)
    sess = tf.Session();
    init = tf.global_variables_initializer()
    sess.run(init)
    summary_op = tf.summary.merge_all()
    print(summary_op, tf.get_collection(tf.GraphKeys.SUMMARIES))
    file_writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    for i in range(50):
        _, summary = sess.run([train, summary_op], {ratings: R_BOOKS})
        file_writer.add_summary(summary, i)
        if i % 10 == 0:
            print(i, type(summary), len(summary) > 0, sess.run(loss, {ratings: R_BOOKS}))
    print(sess.run(pDotq))
    print(sess.run(tP).dtype, tP, tQ.initial_value)

    _printed(capsys, """\
Tensor("Tensordot:0", shape=(5, 6), dtype=float32)
Tensor("loss:0", shape=(), dtype=string)
Tensor("Merge/MergeSummary:0", shape=(), dtype=string) [<tf.Tensor 'loss:0' shape=() dtype=string>, <tf.Tensor 'sumP:0' shape=() dtype=string>, <tf.Tensor 'sumQ:0' shape=() dtype=string>]
0 <class 'bytes'> True 114.986145
10 <class 'bytes'> True 109.25082
20 <class 'bytes'> True 104.461075
30 <class 'bytes'> True 100.57741
40 <class 'bytes'> True 97.461716
[[0.8803655  1.3521382  0.06241593 0.8873844  1.4159974  1.1376635 ]
 [1.0044119  1.591628   0.07352862 1.1148716  1.6664855  1.3202517 ]
 [1.0166726  1.7393821  0.08050083 1.3969611  1.8203961  1.3947736 ]
 [1.2451948  2.0131226  0.09304602 1.4656991  2.1075573  1.6549282 ]
 [0.9804436  1.3598518  0.06260017 0.6828131  1.4250064  1.2005433 ]]
float32 <tf.Variable 'P:0' shape=(5, 2) dtype=float32_ref> Tensor("Q/initial_value:0", shape=(6, 2), dtype=float32)
""")


def test_hamiltonian_rk4_solver(capsys, tmp_path):
    # jnafzig/HamiltonianSolver solver.py + hamiltonians.py + doublependulum.py + vibratingstring.py; its InteractiveSession runs no grappler pass in TF (Pow(x, 2) stays a pow) (reduced)
    from functools import partial
    import numpy as np
    # jnafzig/HamiltonianSolver solver.py + hamiltonians.py + doublependulum.py / vibratingstring.py
    def rk4_step(time_derivative, t, x, h):
        with tf.variable_scope('k1'):
            k1 = time_derivative(t, x)
        with tf.variable_scope('k2'):
            with tf.variable_scope('t1'):
                t1 = t + h/2;
            with tf.variable_scope('x1'):
                x1 = x + h*k1/2;
            k2 = time_derivative(t1, x1)
        with tf.variable_scope('k3'):
            with tf.variable_scope('t2'):
                t2 = t + h/2;
            with tf.variable_scope('x2'):
                x2 = x + h*k2/2;
            k3 = time_derivative(t2, x2)
        with tf.variable_scope('k4'):
            with tf.variable_scope('t3'):
                t3 = t + h;
            with tf.variable_scope('x3'):
                x3 = x + h*k3;
            k4 = time_derivative(t3, x3)
        with tf.variable_scope('new_state'):
            return h/6 * (k1 + k2*2 + k3*2 + k4)
    def update_state(x,t,dx,h):
        with tf.variable_scope('update_state'):
            return tf.group(tf.assign_add(x, dx),
                tf.assign_add(t, h),
                name='update_state')
    def double_pendulum_hamiltonian(l1,l2,m1,m2,g,q,p):
        with tf.variable_scope('hamiltonian'):
            H = (l2**2*m2*p[:,0]**2 + l1**2*(m1+m2)*p[:,1]**2         \
                 - 2*m2*l1*l2*p[:,0]*p[:,1]*tf.cos(q[:,0]-q[:,1]))      \
            / (2*l1**2*l2**2*m2*(m1 + m2*(tf.sin(q[:,0]-q[:,1]))**2)) \
            - m2*g*l2*tf.cos(q[:,1]) - (m1 + m2)*g*l1*tf.cos(q[:,0])
            with tf.variable_scope('summary'):
                print(tf.summary.scalar('energy', H))
            return H
    def string_hamiltonian(qval,p):
        with tf.variable_scope('hamiltonian'):
            with tf.variable_scope('kinetic_energy'):
                T = tf.reduce_sum(1/2 * p**2)
            with tf.variable_scope('potential_energy'):
                V = qval[:,0]**2/2 + qval[:,-1]**2/2
                V = V + tf.reduce_sum(tf.nn.conv1d(tf.expand_dims(qval,2),filters=tf.reshape([1.,-1.],(-1,1,1)),stride=1,padding='VALID')**2/2)
            return T + V
    def split_coordinates(x):
        return tf.split(x, 2, axis=1)
    def stack_coordinates(q,p):
        return tf.concat([q,p],axis=2)[0]
    def hamiltonian_time_derivative(hamiltonian,t, x):
        with tf.variable_scope('time_derivative'):
            with tf.variable_scope('split_position_momentum'):
                qval,pval = split_coordinates(x)
            H = tf.reduce_sum(hamiltonian(qval,pval))
            with tf.variable_scope('cannonical_equations'):
                dpdt = tf.gradients(-H,qval)
                dqdt = tf.gradients(H,pval)
            with tf.variable_scope('recombine'):
                dxdt = stack_coordinates(dqdt,dpdt)
                print(dxdt)
        return dxdt

    sess = tf.InteractiveSession()
    l1 = 1; l2 = 1; m1 = 1; m2 = 1; g = 10
    height = 3;
    width = 2*(height-1)
    theta1 = np.linspace(0,np.pi,num=height,endpoint=True)
    theta2 = np.linspace(0,2*np.pi,num=width,endpoint=False)
    t1,t2 = np.meshgrid(theta1,theta2)
    initial_angles = np.hstack((np.reshape(t1,(-1,1)),np.reshape(t2,(-1,1))))
    initial_momenta = np.zeros(initial_angles.shape)
    h = tf.constant(.01, dtype=tf.float32, name='time_step');
    x0 = np.hstack((initial_angles,initial_momenta))
    with tf.variable_scope('state'):
        x = tf.Variable(x0, dtype=tf.float32)
        t = tf.Variable(0, dtype=tf.float32)
    print(x, t)
    hamiltonian = partial(double_pendulum_hamiltonian, l1,l2,m1,m2,g)
    dxdt = partial(hamiltonian_time_derivative, hamiltonian)
    dx = rk4_step(dxdt, t, x, h)
    update = update_state(x, t, dx, h)
    print(dx, update.name, update.type)
    sess.run(tf.global_variables_initializer())
    summary_writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    N = 20
    state = np.array([x0]*N, dtype=np.float32)
    for i in range(N):
        _, state[i] = sess.run([update,x])
    print(state[-1])
    print(t.eval())
    summary_writer.close()
    sess.close()

    tf.reset_default_graph()
    sess = tf.InteractiveSession()
    string_length = 10;
    h = tf.constant(.05, dtype=tf.float32, name='time_step');
    x0 = np.zeros((1,2*string_length))
    x0[:,-string_length:] = np.array(range(string_length))/string_length
    with tf.variable_scope('state'):
        x = tf.Variable(x0, dtype=tf.float32)
        t = tf.Variable(0, dtype=tf.float32)
    dxdt = partial(hamiltonian_time_derivative, string_hamiltonian)
    update = rk4_step(dxdt, t, x, h)
    print(update)
    sess.run(tf.global_variables_initializer())
    N = 5
    state = np.array([x0]*N, dtype=np.float32)
    for i in range(N):
        _, state[i] = sess.run([update,x])
    print(state[-1], sess.run(update)); print(sess.run(update).dtype, sess.run(update).shape)
    print(len(tf.get_default_graph().get_operations()), [op.name for op in tf.get_default_graph().get_operations()][-12:])
    sess.close()

    _printed(capsys, """\
<tf.Variable 'state/Variable:0' shape=(12, 4) dtype=float32_ref> <tf.Variable 'state/Variable_1:0' shape=() dtype=float32_ref>
Tensor("k1/time_derivative/hamiltonian/summary/energy:0", shape=(), dtype=string)
Tensor("k1/time_derivative/recombine/strided_slice:0", shape=(12, 4), dtype=float32)
Tensor("k2/time_derivative/hamiltonian/summary/energy:0", shape=(), dtype=string)
Tensor("k2/time_derivative/recombine/strided_slice:0", shape=(12, 4), dtype=float32)
Tensor("k3/time_derivative/hamiltonian/summary/energy:0", shape=(), dtype=string)
Tensor("k3/time_derivative/recombine/strided_slice:0", shape=(12, 4), dtype=float32)
Tensor("k4/time_derivative/hamiltonian/summary/energy:0", shape=(), dtype=string)
Tensor("k4/time_derivative/recombine/strided_slice:0", shape=(12, 4), dtype=float32)
Tensor("new_state/mul_2:0", shape=(12, 4), dtype=float32) update_state/update_state NoOp
[[ 0.0000000e+00  0.0000000e+00  0.0000000e+00  0.0000000e+00]
 [ 1.3701611e+00  2.0054879e-02 -3.9521260e+00 -3.9860796e-02]
 [ 3.1415927e+00  3.2699120e-08  3.4969108e-07 -2.2397797e-08]
 [ 9.9563263e-03  1.3702192e+00 -2.3782609e-02 -1.9761786e+00]
 [ 1.3725938e+00  1.5677118e+00 -3.9834042e+00 -2.0007849e+00]
 [ 3.1315086e+00  1.3703053e+00 -2.4089731e-02 -1.9759487e+00]
 [ 1.6349560e-08  3.1415927e+00 -2.2397797e-08  1.7484554e-07]
 [ 1.3703623e+00  3.1215670e+00 -3.9521327e+00 -3.9862640e-02]
 [ 3.1415927e+00  3.1415927e+00  3.4969108e-07  1.7484554e-07]
 [-9.9563329e-03  4.9129658e+00  2.3782635e-02  1.9761786e+00]
 [ 1.3726081e+00  4.7155037e+00 -3.9833794e+00  1.9991876e+00]
 [ 3.1516769e+00  4.9128795e+00  2.4090415e-02  1.9759487e+00]]
0.20000002
Tensor("k1/time_derivative/recombine/strided_slice:0", shape=(1, 20), dtype=float32)
Tensor("k2/time_derivative/recombine/strided_slice:0", shape=(1, 20), dtype=float32)
Tensor("k3/time_derivative/recombine/strided_slice:0", shape=(1, 20), dtype=float32)
Tensor("k4/time_derivative/recombine/strided_slice:0", shape=(1, 20), dtype=float32)
Tensor("new_state/mul_2:0", shape=(1, 20), dtype=float32)
[[0.  0.  0.  0.  0.  0.  0.  0.  0.  0.  0.  0.1 0.2 0.3 0.4 0.5 0.6 0.7
  0.8 0.9]] [[ 2.0833336e-06  5.0000004e-03  1.0000001e-02  1.5000001e-02
   2.0000001e-02  2.5000002e-02  3.0000001e-02  3.5000000e-02
   4.0000003e-02  4.4979166e-02  1.2494794e-04  2.6042109e-08
  -1.1641533e-11  2.3283066e-11 -4.6566133e-11  4.6566133e-11
  -4.6566133e-11  9.3132266e-11 -2.6058407e-07 -1.2494790e-03]]
float32 (1, 20)
1552 ['k4/time_derivative/recombine/strided_slice', 'new_state/truediv/y', 'new_state/truediv', 'new_state/mul/y', 'new_state/mul', 'new_state/add', 'new_state/mul_1/y', 'new_state/mul_1', 'new_state/add_1', 'new_state/add_2', 'new_state/mul_2', 'init']
""")


def test_siamese_contrastive(capsys, tmp_path):
    #  the last printed digit may differ:Kyrie-Irving07/Siamese-network venv/siamese.py (reduced)
    import numpy as np
    # Kyrie-Irving07/Siamese-network venv/siamese.py (784 -> 12 inputs, 1024 -> 6 units)
    class siamese:
        def __init__(self):
            self.image1 = tf.placeholder(dtype=tf.float32, shape=[None, 12], name="image1")
            self.image2 = tf.placeholder(dtype=tf.float32, shape=[None, 12], name="image2")
            with tf.variable_scope("siamese") as scope:
                self.out1 = self.network(self.image1)
                scope.reuse_variables()
                self.out2 = self.network(self.image2)
            self.y_ = tf.placeholder(dtype=tf.float32, shape=[None])
            self.loss = self.loss_of_siamese()
        def network(self, x):
            net1 = self.layer(x, 6, "net1")
            net1 = tf.nn.relu(net1)
            net2 = self.layer(net1, 6, "net2")
            net2 = tf.nn.relu(net2)
            net3 = self.layer(net2, 2, "net3")
            return net3
        def layer(self,prev,next,name):
            initializer = tf.truncated_normal_initializer(stddev=0.1)
            w = tf.get_variable(name=name + 'w', shape=[prev.get_shape()[1], next], initializer=initializer)
            b = tf.get_variable(name=name + 'b', initializer=tf.constant(0.1, shape=[next], dtype=tf.float32))
            output = tf.nn.bias_add(tf.matmul(prev, w), b)
            return output
        def loss_of_siamese(self):
            distance = tf.sqrt(tf.reduce_sum(tf.pow(tf.subtract(self.out1, self.out2), 2), 1) + 1e-6)
            margine = tf.constant(5, dtype=tf.float32)
            label = self.y_
            label_ = tf.subtract(1.0, label)
            term1 = tf.reduce_sum(tf.multiply(distance, label), 0)
            term2 = tf.reduce_sum(tf.multiply(tf.maximum(tf.subtract(margine, distance), 0), label_))
            loss_of_siamese = term1 + term2
            return loss_of_siamese
    tf.set_random_seed(1)
    model = siamese()
    print(model.out1, model.out2, model.loss)
    print([v.name for v in tf.trainable_variables()])
    train_step = tf.train.GradientDescentOptimizer(0.01).minimize(model.loss)
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(30):
            x1 = rng.rand(8, 12).astype(np.float32); x2 = rng.rand(8, 12).astype(np.float32)
            y = (rng.rand(8) > 0.5).astype(np.float32)
            _, l = sess.run([train_step, model.loss], feed_dict={model.image1: x1, model.image2: x2, model.y_: y})
            if step % 10 == 0:
                print('step %d: loss %.3f' % (step, l), l)
        print(sess.run(model.out1, {model.image1: x1}))

    # the contrastive distance's tf.sqrt of 8 floats is one Eigen packet in TF, an approximate root (rsqrt and a Newton step) that can be an ulp off the exact root tideflow takes
    same_printed(capsys.readouterr().out.splitlines(), """\
Tensor("siamese/BiasAdd_2:0", shape=(?, 2), dtype=float32) Tensor("siamese/BiasAdd_5:0", shape=(?, 2), dtype=float32) Tensor("add_1:0", shape=(), dtype=float32)
['siamese/net1w:0', 'siamese/net1b:0', 'siamese/net2w:0', 'siamese/net2b:0', 'siamese/net3w:0', 'siamese/net3b:0']
step 0: loss 29.988 29.987652
step 10: loss 15.007 15.007189
step 20: loss 20.005 20.004595
[[0.09794253 0.09476393]
 [0.09902669 0.08549672]
 [0.10073812 0.08602769]
 [0.10030794 0.08754305]
 [0.09892141 0.08944361]
 [0.10119836 0.09162636]
 [0.10050374 0.08524695]
 [0.09917604 0.0930953 ]]
""".splitlines(), 1e-6)


def test_siamese_cosine_mse(capsys, tmp_path):
    #  an ulp apart now and then, which 25 Adam steps carry to the printed digits:ThomasChen94/GoldNLP code/siamese.py (reduced)
    import numpy as np
    # ThomasChen94/GoldNLP code/siamese.py (cosine-similarity siamese, feature size shrunk, 1024 -> 5)
    class siamese:
        def __init__(self, feature_size):
            self.x1 = tf.placeholder(tf.float32, [None, feature_size])
            self.x2 = tf.placeholder(tf.float32, [None, feature_size])
            with tf.variable_scope("siamese") as scope:
                self.o1 = self.network(self.x1)
                scope.reuse_variables()
                self.o2 = self.network(self.x2)
            self.y = tf.placeholder(tf.float32, [None])
            self.loss = self.cosine_sim_loss()
        def network(self, x):
            weights = []
            fc1 = self.fc_layer(x, 5, "fc1")
            return fc1
        def fc_layer(self, bottom, n_weight, name):
            assert len(bottom.get_shape()) == 2
            n_prev_weight = bottom.get_shape()[1]
            initer = tf.truncated_normal_initializer(stddev=0.01)
            W = tf.get_variable(name+'W', dtype=tf.float32, shape=[n_prev_weight, n_weight], initializer=initer)
            b = tf.get_variable(name+'b', dtype=tf.float32, initializer=tf.constant(0.01, shape=[n_weight], dtype=tf.float32))
            fc = tf.nn.bias_add(tf.matmul(bottom, W), b)
            return fc
        def cosine_sim_loss(self):
            cosine_sim_nume = tf.reduce_sum(tf.multiply(self.o1, self.o2), axis = 1)
            cosine_sim_denomi = tf.norm(self.o1, axis = 1) * tf.norm(self.o2, axis = 1)
            self.cosine_sim = cosine_sim_nume / cosine_sim_denomi
            loss = tf.losses.mean_squared_error(self.y, self.cosine_sim)
            return loss
    tf.set_random_seed(3)
    s = siamese(7)
    print(s.cosine_sim, s.loss, tf.get_collection(tf.GraphKeys.LOSSES))
    train = tf.train.AdamOptimizer(0.01).minimize(s.loss)
    rng = np.random.RandomState(1)
    a = rng.randn(6, 7).astype(np.float32); b = rng.randn(6, 7).astype(np.float32); y = rng.choice([-1., 1.], 6).astype(np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(25):
            _, l = sess.run([train, s.loss], {s.x1: a, s.x2: b, s.y: y})
            if i % 5 == 0: print(i, l)
        print(sess.run(s.cosine_sim, {s.x1: a, s.x2: b}).tolist())

    # ApplyAdam's v.sqrt() is Eigen's approximate packet root in TF
    same_printed(capsys.readouterr().out.splitlines(), """\
Tensor("truediv:0", shape=(?,), dtype=float32) Tensor("mean_squared_error/value:0", shape=(), dtype=float32) [<tf.Tensor 'mean_squared_error/value:0' shape=() dtype=float32>]
0 1.7792826
5 0.06493496
10 0.03243171
15 0.016259484
20 0.0066810134
[0.9383477568626404, -0.953321635723114, 0.9706940054893494, -0.919421911239624, 0.9512996077537537, 0.9575404524803162]
""".splitlines(), 1e-5)


def test_dataset_types_and_one_shot_iterator(capsys, tmp_path):
    # comrados/PythonASR NNs/tf_data.py (reduced)
    # comrados/PythonASR NNs/tf_data.py
    tf.set_random_seed(0)
    sess = tf.Session()
    dataset = tf.data.Dataset.from_tensor_slices(
       {"a": tf.random_uniform([4]),
        "b": tf.random_uniform([4, 100], maxval=100, dtype=tf.int32)})
    print(dataset.output_types)  # ==> "{'a': tf.float32, 'b': tf.int32}"
    print(dataset.output_shapes)  # ==> "{'a': (), 'b': (100,)}"
    dataset = tf.data.Dataset.range(10)
    iterator = dataset.make_one_shot_iterator()
    next_element = iterator.get_next()
    print(next_element, dataset.output_types, dataset.output_shapes)
    for i in range(10):
      value = sess.run(next_element)
      print(value, type(value))
      assert i == value
    try:
      sess.run(next_element)
    except tf.errors.OutOfRangeError as e:
      print(type(e).__name__, e.message.splitlines()[0])
    sess.close()

    _printed(capsys, """\
{'a': tf.float32, 'b': tf.int32}
{'a': TensorShape([]), 'b': TensorShape([Dimension(100)])}
Tensor("IteratorGetNext:0", shape=(), dtype=int64) <dtype: 'int64'> ()
0 <class 'numpy.int64'>
1 <class 'numpy.int64'>
2 <class 'numpy.int64'>
3 <class 'numpy.int64'>
4 <class 'numpy.int64'>
5 <class 'numpy.int64'>
6 <class 'numpy.int64'>
7 <class 'numpy.int64'>
8 <class 'numpy.int64'>
9 <class 'numpy.int64'>
OutOfRangeError End of sequence
""")


def test_lms_recommender_np_matrix_feed(capsys, tmp_path):
    # ch1nmay7898/LMSRecommenderSystem collaborativeTest.py (reduced)
    import numpy as np
    # ch1nmay7898/LMSRecommenderSystem collaborativeTest.py (np.matrix ratings fed; 5000 -> 40 steps)
    np.random.seed(0)
    BOOKS = np.matrix([[1, 0, 5, 4, 0, 0], [0, 4, 0, 0, 2, 0], [0, 0, 3, 1, 0, 2], [0, 0, 0, 1, 0, 0], [0, 5, 0, 0, 3, 0], [0, 0, 0, 0, 1, 4]])
    R = np.array(BOOKS)
    N = len(BOOKS)
    M = len(BOOKS[0])
    print(N, M)
    K = 2
    P = np.random.rand(N, K)
    Q = np.random.rand(M, K)
    ratings = tf.placeholder(tf.float32, name='ratings')
    tP = tf.Variable(P, dtype=tf.float32, name='P')
    tQ = tf.Variable(Q, dtype=tf.float32, name='Q')
    pMultq = tf.matmul(tP, tQ, transpose_b=True)
    squared_deltas = tf.square(pMultq - ratings)
    loss = tf.reduce_sum(squared_deltas)
    tf.summary.scalar('loss', loss)
    tf.summary.scalar('sumP', tf.reduce_sum(tP))
    tf.summary.scalar('sumQ', tf.reduce_sum(tQ))
    optimizer = tf.train.GradientDescentOptimizer(0.01)
    train = optimizer.minimize(loss)
    sess = tf.Session()
    init = tf.global_variables_initializer()
    sess.run(init)
    summary_op = tf.summary.merge_all()
    file_writer = tf.summary.FileWriter(str(tmp_path), sess.graph)
    for i in range(40):
        _, summary = sess.run([train, summary_op], {ratings: R})
        file_writer.add_summary(summary, i)
    print(np.around(sess.run(pMultq), 3))
    print(sess.run(loss, {ratings: BOOKS}), pMultq, squared_deltas.shape)
    file_writer.close()
    sess.close()

    _printed(capsys, """\
6 1
[[1.666]
 [1.   ]
 [1.   ]
 [0.167]
 [1.333]
 [0.834]]
84.33333 Tensor("MatMul:0", shape=(6, 1), dtype=float32) <unknown>
""")


def test_wgan_gp_gradient_penalty(capsys, tmp_path):
    # james-oldfield/adv-attribute-disentanglement utils.py (gradient_penalty) and geoffsmith/map-gan dcgan/gradient_penalty.py, with a small conv critic and RMSProp (reduced)
    import numpy as np
    # james-oldfield/adv-attribute-disentanglement utils.py gradient_penalty, with a small conv critic and
    # geoffsmith/map-gan dcgan/gradient_penalty.py (its interpolation and printed shapes)
    def gradient_penalty(real, fake, f):
        def interpolate(a, b):
            shape = tf.concat((tf.shape(a)[0:1], tf.tile([1], [a.shape.ndims - 1])), axis=0)
            alpha = tf.random_uniform(shape=shape, minval=0., maxval=1.)
            inter = a + alpha * (b - a)
            inter.set_shape(a.get_shape().as_list())
            return inter
        x = interpolate(real, fake)
        print(x)
        pred = f(x, reuse=True)
        gradients = tf.gradients(pred, x)[0]
        print(gradients)
        slopes = tf.sqrt(tf.reduce_sum(tf.square(gradients), axis=[1, 2, 3]))
        gp = tf.reduce_mean((slopes - 1.)**2)
        return gp
    def map_gan_gradient_penalty(X, gen):
        print(X.get_shape())
        epsilon = tf.random_uniform(shape=(X.get_shape().as_list()[0],))
        epsilon = tf.expand_dims(epsilon, axis=-1)
        epsilon = tf.expand_dims(epsilon, axis=-1)
        epsilon = tf.expand_dims(epsilon, axis=-1)
        print('epsilon shape', epsilon.shape)
        print('X', X.shape, ', gen', gen.shape)
        x = X * epsilon + gen * (1.0 - epsilon)
        print('gradient penalty image shape', x.shape)
        return x
    def critic(x, reuse=False):
        with tf.variable_scope('critic', reuse=reuse):
            h = tf.layers.conv2d(x, 4, 3, strides=2, padding='same', activation=tf.nn.leaky_relu, name='c1')
            h = tf.layers.flatten(h)
            return tf.layers.dense(h, 1, name='out')
    tf.set_random_seed(2)
    real = tf.placeholder(tf.float32, [None, 8, 8, 1])
    z = tf.placeholder(tf.float32, [None, 4])
    with tf.variable_scope('gen'):
        fake = tf.reshape(tf.layers.dense(z, 64, activation=tf.nn.tanh), [-1, 8, 8, 1])
    d_real = critic(real); d_fake = critic(fake, reuse=True)
    gp = gradient_penalty(real, fake, critic)
    d_loss = tf.reduce_mean(d_fake) - tf.reduce_mean(d_real) + 10. * gp
    g_loss = -tf.reduce_mean(d_fake)
    d_vars = [v for v in tf.trainable_variables() if v.name.startswith('critic')]
    g_vars = [v for v in tf.trainable_variables() if v.name.startswith('gen')]
    print([v.name for v in d_vars], [v.name for v in g_vars])
    d_opt = tf.train.RMSPropOptimizer(1e-3).minimize(d_loss, var_list=d_vars)
    g_opt = tf.train.RMSPropOptimizer(1e-3).minimize(g_loss, var_list=g_vars)
    mixed = map_gan_gradient_penalty(tf.placeholder(tf.float32, [4, 8, 8, 1]), tf.zeros([4, 8, 8, 1]))
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for it in range(6):
            xr = rng.rand(4, 8, 8, 1).astype(np.float32); zz = rng.randn(4, 4).astype(np.float32)
            _, dl, g = sess.run([d_opt, d_loss, gp], {real: xr, z: zz})
            _, gl = sess.run([g_opt, g_loss], {z: zz})
            print(it, '%.4f %.4f %.4f' % (dl, gl, g))

    _printed(capsys, """\
Tensor("add:0", shape=(?, 8, 8, 1), dtype=float32)
Tensor("gradients/critic_2/c1/Conv2D_grad/Conv2DBackpropInput:0", shape=(?, 8, 8, 1), dtype=float32)
['critic/c1/kernel:0', 'critic/c1/bias:0', 'critic/out/kernel:0', 'critic/out/bias:0'] ['gen/dense/kernel:0', 'gen/dense/bias:0']
(4, 8, 8, 1)
epsilon shape (4, 1, 1, 1)
X (4, 8, 8, 1) , gen (4, 8, 8, 1)
gradient penalty image shape (4, 8, 8, 1)
0 2.5497 -0.1556 0.1615
1 2.1999 -0.0710 0.1357
2 2.5720 -0.0757 0.1711
3 1.8638 -0.1464 0.1098
4 2.0067 -0.0666 0.1261
5 1.9519 -0.1329 0.1204
""")


def test_study_cnn_selu_dropout(capsys, tmp_path):
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf19_cnn2.py (reduced)
    import numpy as np
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf19_cnn2.py (MNIST -> random 12x12; ic() -> print; 15 epochs of 600 -> 3 of 2)
    tf.set_random_seed(66)
    rng = np.random.RandomState(66)
    x_train = rng.rand(8, 12, 12, 1).astype('float32')
    y_train = np.eye(10, dtype=np.float32)[rng.randint(0, 10, 8)]
    learning_rate = 0.001
    training_epochs = 3
    batch_size = 4
    total_batch = int(len(x_train)/batch_size)
    x = tf.placeholder(tf.float32, [None, 12, 12, 1])
    y = tf.placeholder(tf.float32, [None, 10])
    w1 = tf.get_variable('w1', shape=[3, 3, 1, 8])
    L1 = tf.nn.conv2d(x, w1, strides=[1, 1, 1, 1], padding='SAME')
    L1 = tf.nn.relu(L1)
    L1_maxpool = tf.nn.max_pool(L1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    print(w1); print(L1); print(L1_maxpool)
    w2 = tf.get_variable('w2', shape=[3, 3, 8, 16])
    L2 = tf.nn.conv2d(L1_maxpool, w2, strides=[1,1,1,1], padding='SAME')
    L2 = tf.nn.elu(L2)
    L2_maxpool = tf.nn.max_pool(L2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding='SAME')
    print(L2); print(L2_maxpool)
    L_flat = tf.reshape(L2_maxpool, [-1, 3*3*16])
    print(L_flat)
    w5 = tf.get_variable('w5', shape=[3*3*16, 16])
    b5 = tf.Variable(tf.random_normal([16]), name='b1')
    L5 = tf.matmul(L_flat, w5) + b5
    L5 = tf.nn.selu(L5)
    L5 = tf.nn.dropout(L5, keep_prob=0.2)
    print(L5)
    w7 = tf.get_variable('w7', shape=[16, 10])
    b7 = tf.Variable(tf.random_normal([10]), name='b3')
    L7 = tf.matmul(L5, w7) + b7
    hypothesis = tf.nn.softmax(L7)
    print(hypothesis)
    loss = tf.reduce_mean(-tf.reduce_sum(y * tf.log(hypothesis), axis=1))
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.05).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for epochs in range(training_epochs):
        avg_loss = 0
        for i in range(total_batch):
            start = i * batch_size
            end = start + batch_size
            batch_x, batch_y = x_train[start:end], y_train[start:end]
            feed_dict = {x:batch_x, y: batch_y}
            batch_loss, _ = sess.run([loss, optimizer], feed_dict=feed_dict)
            avg_loss += batch_loss/total_batch
        print('Epoch: ', '%04d' %(epochs + 1), 'loss: {:.9f}'.format(avg_loss))
    print([v.name for v in tf.global_variables()])
    sess.close()

    # the first convolution's filter gradient (one input channel) is a few ulps off TF's Eigen contraction, which the epoch losses show in their last digits
    same_printed(capsys.readouterr().out.splitlines(), """\
<tf.Variable 'w1:0' shape=(3, 3, 1, 8) dtype=float32_ref>
Tensor("Relu:0", shape=(?, 12, 12, 8), dtype=float32)
Tensor("MaxPool:0", shape=(?, 6, 6, 8), dtype=float32)
Tensor("Elu:0", shape=(?, 6, 6, 16), dtype=float32)
Tensor("MaxPool_1:0", shape=(?, 3, 3, 16), dtype=float32)
Tensor("Reshape:0", shape=(?, 144), dtype=float32)
Tensor("dropout/mul_1:0", shape=(?, 16), dtype=float32)
Tensor("Softmax:0", shape=(?, 10), dtype=float32)
Epoch:  0001 loss: 5.948092699
Epoch:  0002 loss: 4.357217312
Epoch:  0003 loss: 3.501356363
['w1:0', 'w2:0', 'w5:0', 'b1:0', 'w7:0', 'b3:0']
""".splitlines(), 1e-6)


def test_lstm_cell_doctest_session(capsys, tmp_path):
    # junjihashimoto/python-simple-template hoge/lstm.py (its doctest session; the while loop's op names left out: tideflow's dynamic_rnn builds one While op) (reduced)
    import numpy as np
    # junjihashimoto/python-simple-template hoge/lstm.py (its doctest session, 128 -> 16 units)
    batch = 7
    num_seq = 5
    num_input = 11
    num_state = 16
    x = tf.zeros([batch,12],name="x")
    input = tf.zeros([batch, num_seq, num_input],name="input")
    print(repr(input))
    input0 = tf.zeros([batch, num_input],name="input0")
    print(repr(input0))
    state0 = tf.nn.rnn_cell.LSTMStateTuple(c=tf.zeros([batch, num_state],name="c"),h=tf.zeros([batch, num_state],name="h"))
    print(state0)
    lstm = tf.nn.rnn_cell.LSTMCell(num_units=num_state)
    print(lstm(input0,state0))
    stacked_cells = []
    for i in range(2): stacked_cells.append(tf.nn.rnn_cell.LSTMCell(num_units=num_state))
    cell = tf.nn.rnn_cell.MultiRNNCell(cells=stacked_cells)
    print(type(cell).__name__)
    outputs, states = tf.nn.dynamic_rnn(cell=cell, inputs=input, dtype=tf.float32)
    print(repr(outputs))
    print(states)
    print([v.name for v in tf.trainable_variables()])
    print([op.name for op in tf.get_default_graph().get_operations() if not op.name.startswith('rnn/')])
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        print(s.run(outputs)[0, -1, :3].shape, s.run(tf.reduce_sum(outputs)))

    _printed(capsys, """\
<tf.Tensor 'input:0' shape=(7, 5, 11) dtype=float32>
<tf.Tensor 'input0:0' shape=(7, 11) dtype=float32>
LSTMStateTuple(c=<tf.Tensor 'c:0' shape=(7, 16) dtype=float32>, h=<tf.Tensor 'h:0' shape=(7, 16) dtype=float32>)
(<tf.Tensor 'lstm_cell/mul_2:0' shape=(7, 16) dtype=float32>, LSTMStateTuple(c=<tf.Tensor 'lstm_cell/add_1:0' shape=(7, 16) dtype=float32>, h=<tf.Tensor 'lstm_cell/mul_2:0' shape=(7, 16) dtype=float32>))
MultiRNNCell
<tf.Tensor 'rnn/transpose_1:0' shape=(7, 5, 16) dtype=float32>
(LSTMStateTuple(c=<tf.Tensor 'rnn/while/Exit_3:0' shape=(7, 16) dtype=float32>, h=<tf.Tensor 'rnn/while/Exit_4:0' shape=(7, 16) dtype=float32>), LSTMStateTuple(c=<tf.Tensor 'rnn/while/Exit_5:0' shape=(7, 16) dtype=float32>, h=<tf.Tensor 'rnn/while/Exit_6:0' shape=(7, 16) dtype=float32>))
['lstm_cell/kernel:0', 'lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_0/lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_0/lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_1/lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_1/lstm_cell/bias:0']
['x', 'input', 'input0', 'c', 'h', 'lstm_cell/kernel/Initializer/random_uniform/shape', 'lstm_cell/kernel/Initializer/random_uniform/min', 'lstm_cell/kernel/Initializer/random_uniform/max', 'lstm_cell/kernel/Initializer/random_uniform/RandomUniform', 'lstm_cell/kernel/Initializer/random_uniform/sub', 'lstm_cell/kernel/Initializer/random_uniform/mul', 'lstm_cell/kernel/Initializer/random_uniform', 'lstm_cell/kernel', 'lstm_cell/kernel/Assign', 'lstm_cell/kernel/read', 'lstm_cell/bias/Initializer/zeros', 'lstm_cell/bias', 'lstm_cell/bias/Assign', 'lstm_cell/bias/read', 'lstm_cell/concat/axis', 'lstm_cell/concat', 'lstm_cell/MatMul', 'lstm_cell/BiasAdd', 'lstm_cell/Const', 'lstm_cell/split/split_dim', 'lstm_cell/split', 'lstm_cell/add/y', 'lstm_cell/add', 'lstm_cell/Sigmoid', 'lstm_cell/mul', 'lstm_cell/Sigmoid_1', 'lstm_cell/Tanh', 'lstm_cell/mul_1', 'lstm_cell/add_1', 'lstm_cell/Sigmoid_2', 'lstm_cell/Tanh_1', 'lstm_cell/mul_2']
(3,) 0.0
""")


def test_breast_cancer_logistic_broadcast_cost(capsys, tmp_path):
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf14_cancer.py (its [None] labels broadcast against [None, 1] predictions) (reduced)
    import numpy as np
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf14_cancer.py (load_breast_cancer -> 12 rows of 30 features at the dataset's scales)
    tf.set_random_seed(66)
    rng = np.random.RandomState(66)
    scales = np.array([14, 19, 92, 655, 0.1, 0.1, 0.09, 0.05, 0.18, 0.06] * 3)
    x_data = rng.rand(12, 30) * scales * 2
    y_data = rng.randint(0, 2, 12)
    print(x_data.shape, y_data.shape)     # (569, 30) (569,)
    x = tf.compat.v1.placeholder(tf.float32, shape=[None, 30])
    y = tf.compat.v1.placeholder(tf.float32, shape=[None, ])
    W = tf.compat.v1.Variable(tf.random.normal([30,1]), name='weight')
    b = tf.compat.v1.Variable(tf.random.normal([1]), name='bias')
    hypothesis = tf.sigmoid(tf.matmul(x, W) + b)
    cost = -tf.reduce_mean(y*tf.log(hypothesis)+(1-y)*tf.log(1-hypothesis))
    print(hypothesis, cost)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.01)
    train = optimizer.minimize(cost)
    sess = tf.compat.v1.Session()
    sess.run(tf.global_variables_initializer())
    for epochs in range(41):
        cost_val, hy_val, _ = sess.run([cost, hypothesis, train],
                            feed_dict={x:x_data, y:y_data})
        if epochs % 20 == 0:
            print(epochs, "cost :", cost_val, "\n", "hy_val :", hy_val[:4])
    predicted = tf.cast(hypothesis > 0.5, dtype=tf.float32)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(predicted, y), dtype=tf.float32))
    print(predicted, accuracy)
    h, c, a = sess.run([hypothesis, predicted, accuracy], feed_dict={x:x_data, y:y_data})
    print("========================================================")
    print(f'predict value : {h[0:5]} \n "original value: \n{c[0:5]} \naccuracy: : {a}')
    sess.close()

    _printed(capsys, """\
(12, 30) (12,)
Tensor("Sigmoid:0", shape=(?, 1), dtype=float32) Tensor("Neg:0", shape=(), dtype=float32)
0 cost : nan 
 hy_val : [[1.]
 [1.]
 [0.]
 [1.]]
20 cost : nan 
 hy_val : [[nan]
 [nan]
 [nan]
 [nan]]
40 cost : nan 
 hy_val : [[nan]
 [nan]
 [nan]
 [nan]]
Tensor("Cast:0", shape=(?, 1), dtype=float32) Tensor("Mean_1:0", shape=(), dtype=float32)
========================================================
predict value : [[nan]
 [nan]
 [nan]
 [nan]
 [nan]] 
 "original value: 
[[0.]
 [0.]
 [0.]
 [0.]
 [0.]] 
accuracy: : 0.25
""")


def test_wine_softmax_of_one_column(capsys, tmp_path):
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf16_2_wine.py (a softmax over one column: loss 0.0) (reduced)
    import numpy as np
    # hjuju/TF_STUDY-HAN Tensorflow1.14/tf16_2_wine.py (load_wine -> 10 rows of 13 features; 2001 steps -> 401)
    tf.compat.v1.set_random_seed(66)
    rng = np.random.RandomState(3)
    x_data = rng.rand(10, 13) * 10
    y_data = rng.randint(0, 3, 10)
    print(x_data.shape, y_data.shape)
    x = tf.placeholder(tf.float32, shape=(None, 13))
    y = tf.placeholder(tf.float32, shape=(None, ))
    w = tf.Variable(tf.random.normal([13, 1], name='weight'))
    b = tf.Variable(tf.random.normal([1], name='bias'))
    print(w, b)
    hypothesis = tf.nn.softmax(tf.matmul(x, w) +b)
    loss = tf.reduce_mean(-tf.reduce_sum(y * tf.log(hypothesis), axis=1))
    print(hypothesis, loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=0.001).minimize(loss)
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    for steps in range(401):
        _, cost_val = sess.run([optimizer, loss], feed_dict={x:x_data, y:y_data})
        if steps % 200 == 0:
            print(steps, cost_val)
    predicted = tf.cast(hypothesis > 0.5, dtype=tf.float32)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(predicted, y), dtype=tf.float32))
    c, a = sess.run([predicted, accuracy], feed_dict={x:x_data, y:y_data})
    print("Accuracy : ", a, c.shape)
    sess.close()

    _printed(capsys, """\
(10, 13) (10,)
<tf.Variable 'Variable:0' shape=(13, 1) dtype=float32_ref> <tf.Variable 'Variable_1:0' shape=(1,) dtype=float32_ref>
Tensor("Softmax:0", shape=(?, 1), dtype=float32) Tensor("Mean:0", shape=(), dtype=float32)
0 0.0
200 0.0
400 0.0
Accuracy :  0.2 (10, 1)
""")


def test_stacked_lstm_in_top_k(capsys, tmp_path):
    # KT12/hands_on_machine_learning lstm.py (reduced)
    import numpy as np
    # KT12/hands_on_machine_learning lstm.py (MNIST rows -> random 6x5 sequences, 150 -> 12 units, 25 epochs -> 3)
    tf.set_random_seed(5)
    n_inputs = 5
    n_neurons = 8
    n_layers = 3
    n_steps = 6
    n_outputs = 10
    learning_rate = 0.001
    rng = np.random.RandomState(5)
    X_test = rng.rand(20, n_steps, n_inputs).astype(np.float32)
    y_test = rng.randint(0, 10, 20)
    X = tf.placeholder(tf.float32, [None, n_steps, n_inputs])
    y = tf.placeholder(tf.int32, [None])
    multi_cell = tf.contrib.rnn.MultiRNNCell([tf.contrib.rnn.BasicLSTMCell(num_units=n_neurons) for _ in range(3)])
    outputs, states = tf.nn.dynamic_rnn(multi_cell, X, dtype=tf.float32)
    top_layer_h_state = states[-1][1]
    logits = tf.layers.dense(top_layer_h_state, n_outputs, name='softmax')
    x_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits)
    loss = tf.reduce_mean(x_entropy, name='loss')
    optimizer = tf.train.AdamOptimizer(learning_rate=learning_rate)
    training_op = optimizer.minimize(loss)
    correct = tf.nn.in_top_k(logits, y, 1)
    accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    init = tf.global_variables_initializer()
    print(states)
    print(top_layer_h_state, logits, correct, loss)
    n_epochs = 2
    batch_size = 10
    with tf.Session() as sess:
        init.run()
        for epoch in range(n_epochs):
            for k in range(2):
                X_batch = rng.rand(batch_size, n_steps, n_inputs).astype(np.float32); y_batch = rng.randint(0, 10, batch_size)
                sess.run(training_op, feed_dict={X: X_batch, y: y_batch})
            acc_train = accuracy.eval(feed_dict={X: X_batch, y: y_batch})
            acc_test = accuracy.eval(feed_dict={X: X_test, y: y_test})
            print("Epoch", epoch, 'Train acc: ', acc_train, "Test acc: ", acc_test, loss.eval(feed_dict={X: X_test, y: y_test}))

    _printed(capsys, """\
(LSTMStateTuple(c=<tf.Tensor 'rnn/while/Exit_3:0' shape=(?, 8) dtype=float32>, h=<tf.Tensor 'rnn/while/Exit_4:0' shape=(?, 8) dtype=float32>), LSTMStateTuple(c=<tf.Tensor 'rnn/while/Exit_5:0' shape=(?, 8) dtype=float32>, h=<tf.Tensor 'rnn/while/Exit_6:0' shape=(?, 8) dtype=float32>), LSTMStateTuple(c=<tf.Tensor 'rnn/while/Exit_7:0' shape=(?, 8) dtype=float32>, h=<tf.Tensor 'rnn/while/Exit_8:0' shape=(?, 8) dtype=float32>))
Tensor("rnn/while/Exit_8:0", shape=(?, 8), dtype=float32) Tensor("softmax/BiasAdd:0", shape=(?, 10), dtype=float32) Tensor("in_top_k/InTopKV2:0", shape=(?,), dtype=bool) Tensor("loss:0", shape=(), dtype=float32)
Epoch 0 Train acc:  0.1 Test acc:  0.1 2.2990239
Epoch 1 Train acc:  0.1 Test acc:  0.1 2.2985024
""")


def test_lstm_dropout_wrapper_stack(capsys, tmp_path):
    # weanl/Operation_BigData FS/LSTMonTF.py (reduced)
    import numpy as np
    # weanl/Operation_BigData FS/LSTMonTF.py (unit_lstm with DropoutWrapper, three layers; 128 -> 6 units) driven on small series
    from tensorflow.contrib import rnn
    tf.set_random_seed(7)
    hidden_size = 6
    keep_prob = 0.8
    def unit_lstm():
        lstm_cell = rnn.BasicLSTMCell(num_units=hidden_size, forget_bias=1.0, state_is_tuple=True)
        lstm_cell = rnn.DropoutWrapper(cell=lstm_cell, input_keep_prob=1.0, output_keep_prob=keep_prob)
        return lstm_cell
    mlstm_cell = rnn.MultiRNNCell([unit_lstm() for i in range(3)], state_is_tuple=True)
    print(mlstm_cell.state_size, mlstm_cell.output_size)
    X = tf.placeholder(tf.float32, [None, 4, 2])
    init_state = mlstm_cell.zero_state(3, dtype=tf.float32)
    print(init_state)
    outputs, state = tf.nn.dynamic_rnn(mlstm_cell, inputs=X, initial_state=init_state, time_major=False)
    h_state = outputs[:, -1, :]
    print(outputs, h_state)
    W = tf.Variable(tf.truncated_normal([hidden_size, 1], stddev=0.1), dtype=tf.float32)
    bias = tf.Variable(tf.constant(0.1, shape=[1]), dtype=tf.float32)
    pred = tf.matmul(h_state, W) + bias
    loss = tf.reduce_mean(tf.square(pred - 1.0))
    train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    print(sorted(v.name for v in tf.trainable_variables()))
    rng = np.random.RandomState(0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        xb = rng.rand(3, 4, 2).astype(np.float32)
        for i in range(5):
            _, l = sess.run([train, loss], {X: xb})
            print(i, l)

    _printed(capsys, """\
(LSTMStateTuple(c=6, h=6), LSTMStateTuple(c=6, h=6), LSTMStateTuple(c=6, h=6)) 6
(LSTMStateTuple(c=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros:0' shape=(3, 6) dtype=float32>, h=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros_1:0' shape=(3, 6) dtype=float32>), LSTMStateTuple(c=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState_1/BasicLSTMCellZeroState/zeros:0' shape=(3, 6) dtype=float32>, h=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState_1/BasicLSTMCellZeroState/zeros_1:0' shape=(3, 6) dtype=float32>), LSTMStateTuple(c=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState_2/BasicLSTMCellZeroState/zeros:0' shape=(3, 6) dtype=float32>, h=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState_2/BasicLSTMCellZeroState/zeros_1:0' shape=(3, 6) dtype=float32>))
Tensor("rnn/transpose_1:0", shape=(3, 4, 6), dtype=float32) Tensor("strided_slice:0", shape=(3, 6), dtype=float32)
['Variable:0', 'Variable_1:0', 'rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_1/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_1/basic_lstm_cell/kernel:0', 'rnn/multi_rnn_cell/cell_2/basic_lstm_cell/bias:0', 'rnn/multi_rnn_cell/cell_2/basic_lstm_cell/kernel:0']
0 0.8160274
1 0.51693785
2 0.3270298
3 0.20788766
4 0.12948231
""")


def test_save_then_import_meta_graph_restore(capsys, tmp_path):
    # jiayi-ma/STMFusionNet test.py with the saving half it restores, and zzfancitizen/demoJam_2017 model_restore.py (reduced)
    import os
    import numpy as np
    # jiayi-ma/STMFusionNet test.py (the w1/w2/bias/op_to_restore restore session) with the saving half it restores,
    # and zzfancitizen/demoJam_2017 model_restore.py (import_meta_graph, latest_checkpoint, get_tensor_by_name)
    d = str(tmp_path)
    w1 = tf.placeholder("float", name="w1")
    w2 = tf.placeholder("float", name="w2")
    b1 = tf.Variable(2.0, name="bias")
    feed_dict = {w1: 4, w2: 8}
    w3 = tf.add(w1, w2)
    w4 = tf.multiply(w3, b1, name="op_to_restore")
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    saver = tf.train.Saver()
    print(sess.run(w4, feed_dict))
    print(os.path.basename(saver.save(sess, os.path.join(d, 'my_test_model'), global_step=1000)))
    print(sorted(os.listdir(d)))
    sess.close()
    tf.reset_default_graph()
    sess=tf.Session()
    saver = tf.train.import_meta_graph(os.path.join(d, 'my_test_model-1000.meta'))
    print(os.path.basename(tf.train.latest_checkpoint(d)))
    saver.restore(sess,tf.train.latest_checkpoint(d))
    print(sess.run('bias:0'))
    graph = tf.get_default_graph()
    w1 = graph.get_tensor_by_name("w1:0")
    w2 = graph.get_tensor_by_name("w2:0")
    feed_dict ={w1:13.0,w2:17.0}
    op_to_restore = graph.get_tensor_by_name("op_to_restore:0")
    print(op_to_restore, w1)
    print(sess.run(op_to_restore,feed_dict))
    add_on_op = tf.multiply(op_to_restore, 2)
    print(sess.run(add_on_op,feed_dict), add_on_op)
    print([n.name for n in graph.as_graph_def().node][:8], len(tf.get_collection(tf.GraphKeys.GLOBAL_VARIABLES)))
    sess.close()
    tf.reset_default_graph()
    MODEL_PATH = os.path.join(d, 'temp_simple_model')
    with tf.name_scope('input_layer'):
        x_input = tf.placeholder(tf.float32, [None, 1], name='x_input')
    with tf.name_scope('output_layer'):
        W = tf.Variable([[3.]], name='W'); bb = tf.Variable([1.], name='b')
        tf.add(tf.matmul(x_input, W), bb, name='predict')
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        tf.train.Saver().save(sess, MODEL_PATH + os.path.sep + 'model.ckpt')
    tf.reset_default_graph()
    with tf.Session() as sess:
        saver = tf.train.import_meta_graph(MODEL_PATH + os.path.sep + 'model.ckpt.meta')
        saver.restore(sess, tf.train.latest_checkpoint(MODEL_PATH))
        graph = tf.get_default_graph()
        xs = graph.get_tensor_by_name("input_layer/x_input:0")
        logits = graph.get_tensor_by_name("output_layer/predict:0")
        predict = sess.run(logits, feed_dict={
            xs: np.reshape([[5.]], (-1, 1))
        })
        print(predict, logits)

    _printed(capsys, """\
24.0
my_test_model-1000
['checkpoint', 'my_test_model-1000.data-00000-of-00001', 'my_test_model-1000.index', 'my_test_model-1000.meta']
my_test_model-1000
2.0
Tensor("op_to_restore:0", dtype=float32) Tensor("w1:0", dtype=float32)
60.0
120.0 Tensor("Mul:0", dtype=float32)
['w1', 'w2', 'bias/initial_value', 'bias', 'bias/Assign', 'bias/read', 'Add', 'op_to_restore'] 1
[[16.]] Tensor("output_layer/predict:0", shape=(?, 1), dtype=float32)
""")


def test_image_augmentation_chain(capsys, tmp_path):
    # emilemathieu/ImageClassificationChallenge code/draft_data_augmenting.py (reduced)
    import numpy as np
    # emilemathieu/ImageClassificationChallenge code/draft_data_augmenting.py (on a seeded random 12x12 image)
    tf.set_random_seed(4)
    height, width = 8, 8
    reshaped_image = tf.constant(np.random.RandomState(4).rand(12, 12, 3).astype(np.float32) * 255)
    distorted_image = tf.random_crop(reshaped_image, [height, width, 3])
    distorted_image = tf.image.random_flip_left_right(distorted_image)
    distorted_image = tf.image.random_brightness(distorted_image,
                                                   max_delta=63)
    distorted_image = tf.image.random_contrast(distorted_image,
                                                 lower=0.2, upper=1.8)
    float_image = tf.image.per_image_standardization(distorted_image)
    print(distorted_image, float_image)
    with tf.Session() as sess:
        for i in range(3):
            v = sess.run(float_image)
            print(v.shape, v.dtype, v[0, :2].tolist())

    _printed(capsys, """\
Tensor("adjust_contrast/Identity:0", shape=(8, 8, 3), dtype=float32) Tensor("per_image_standardization/Identity:0", shape=(8, 8, 3), dtype=float32)
(8, 8, 3) float32 [[-1.3663386106491089, 0.7284563779830933, 0.08018524944782257], [0.25946223735809326, 1.2906066179275513, -0.014569989405572414]]
(8, 8, 3) float32 [[0.33793744444847107, -1.4678940773010254, 0.34799066185951233], [0.2543538808822632, 1.232344627380371, 1.2841086387634277]]
(8, 8, 3) float32 [[1.715405821800232, -1.2588061094284058, -0.9431074261665344], [1.3531097173690796, 1.4044325351715088, 0.567118763923645]]
""")


def test_resize_images_the_old_way(capsys, tmp_path):
    # mackcmillion/reslearn test.py (resize_images given two ints, 0.x's signature: TF 1.15's ValueError) (reduced)
    import numpy as np
    import random
    # mackcmillion/reslearn test.py (resize_images called the 0.x way, size as two ints; decode_jpeg -> a constant image)
    random.seed(0)
    sess = tf.Session()
    image_tensor = tf.constant(np.random.RandomState(0).randint(0, 255, (6, 9, 3)).astype(np.uint8))
    print(image_tensor)
    shape = tf.shape(image_tensor)
    s = sess.run(shape)
    height = s[0]
    width = s[1]
    new_shorter_edge = random.choice(range(8, 12 + 1))
    if height <= width:
        new_height = new_shorter_edge
        new_width = (width / height) * new_shorter_edge
    else:
        new_width = new_shorter_edge
        new_height = (height / width) * new_shorter_edge
    print(height, new_height, new_width)
    try:
        image_tensor = tf.image.resize_images(image_tensor, new_height, new_width)
    except Exception as e:
        print(type(e).__name__, e)
    image_tensor = tf.image.resize_images(image_tensor, [new_height, int(new_width)])
    print(image_tensor)
    image_tensor.set_shape([new_height, int(new_width), s[2]])
    image = tf.image.random_flip_left_right(image_tensor)
    print(image, s)
    print(sess.run(tf.reduce_sum(image_tensor)), sess.run(image_tensor)[0, :2].tolist())
    sess.close()

    _printed(capsys, """\
Tensor("Const:0", shape=(6, 9, 3), dtype=uint8)
6 11 16.5
ValueError 'size' must be a 1-D Tensor of 2 elements: new_height, new_width
Tensor("resize_1/Squeeze:0", shape=(11, 16, 3), dtype=float32)
Tensor("random_flip_left_right/Merge:0", shape=(11, 16, 3), dtype=float32) [6 9 3]
65131.35 [[172.0, 47.0, 117.0], [183.25, 58.25, 192.375]]
""")


def test_feature_columns_input_layer(capsys, tmp_path):
    # xuzhezhaozhao/EasyCTR-release test/test_categorical_column.py, baiyuting/test_wide_and_deep test.py and davelet/yh-ml-learning-group-201903 column.py (reduced)
    # xuzhezhaozhao/EasyCTR-release test/test_categorical_column.py, baiyuting/test_wide_and_deep test.py and
    # davelet/yh-ml-learning-group-201903 column.py (feature columns through input_layer)
    column = tf.feature_column.categorical_column_with_vocabulary_list(
            'name', [0, 1, 2, 3], default_value=-1)
    print(column)
    print(column.vocabulary_list)
    indicator_column = tf.feature_column.indicator_column(column)
    print(indicator_column)
    features = {
        'name': tf.constant([[0]]),
    }
    indicator_tensor = tf.feature_column.input_layer(features, [indicator_column])
    print(indicator_tensor)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.local_variables_initializer())
        sess.run(tf.tables_initializer())
        print(sess.run(indicator_tensor))
    tf.reset_default_graph()
    sess=tf.Session()
    features = {
        'sex': [1, 2, 1, 1, 2],
        'department': ['sport', 'sport', 'drawing', 'gardening', 'travelling'],
    }
    department = tf.feature_column.categorical_column_with_vocabulary_list('department', ['sport','drawing','gardening','travelling'], dtype=tf.string)
    sex = tf.feature_column.categorical_column_with_identity('sex', num_buckets=2, default_value=0)
    sex_department = tf.feature_column.crossed_column([department,sex], 16)
    print(sex_department)
    sex_department = tf.feature_column.indicator_column(sex_department)
    columns = [
        sex_department
    ]
    inputs = tf.feature_column.input_layer(features, columns)
    print(inputs)
    init = tf.global_variables_initializer()
    sess.run(tf.tables_initializer())
    sess.run(init)
    v=sess.run(inputs)
    print(v)
    sess.close()
    tf.reset_default_graph()
    sess = tf.Session()
    features = {
        'sales' : [[5], [10], [8], [9]],
        'department': ['sports', 'sports', 'gardening', 'gardening']}
    department_column = tf.feature_column.categorical_column_with_vocabulary_list(
            'department', ['sports', 'gardening'])
    department_column = tf.feature_column.indicator_column(department_column)
    columns = [
        tf.feature_column.numeric_column('sales'),
        department_column
    ]
    print(columns[0])
    inputs = tf.feature_column.input_layer(features, columns)
    var_init = tf.global_variables_initializer()
    table_init = tf.tables_initializer()
    sess.run((var_init, table_init))
    print(sess.run(inputs))
    print(sorted(op.type for op in tf.get_default_graph().get_operations() if 'Table' in op.type or 'Hash' in op.type))
    sess.close()

    _printed(capsys, """\
VocabularyListCategoricalColumn(key='name', vocabulary_list=(0, 1, 2, 3), dtype=tf.int64, default_value=-1, num_oov_buckets=0)
(0, 1, 2, 3)
IndicatorColumn(categorical_column=VocabularyListCategoricalColumn(key='name', vocabulary_list=(0, 1, 2, 3), dtype=tf.int64, default_value=-1, num_oov_buckets=0))
Tensor("input_layer/concat/concat:0", shape=(1, 4), dtype=float32)
[[1. 0. 0. 0.]]
CrossedColumn(keys=(VocabularyListCategoricalColumn(key='department', vocabulary_list=('sport', 'drawing', 'gardening', 'travelling'), dtype=tf.string, default_value=-1, num_oov_buckets=0), IdentityCategoricalColumn(key='sex', number_buckets=2, default_value=0)), hash_bucket_size=16, hash_key=None)
Tensor("input_layer/concat/concat:0", shape=(?, 16), dtype=float32)
[[0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0. 0.]
 [0. 0. 0. 0. 0. 0. 0. 0. 1. 0. 0. 0. 0. 0. 0. 0.]]
NumericColumn(key='sales', shape=(1,), default_value=None, dtype=tf.float32, normalizer_fn=None)
[[ 1.  0.  5.]
 [ 1.  0. 10.]
 [ 0.  1.  8.]
 [ 0.  1.  9.]]
['HashTableV2', 'LookupTableFindV2', 'LookupTableImportV2']
""")


def test_stock_scan_lstm_attention(capsys, tmp_path):
    # SymphonyPy/Stock_Prediction train.py (its tf.scan LSTM, attention and orthogonal init in an InteractiveSession with a config; Adam -> SGD, the SVD's signs normalised) (reduced)
    import numpy as np
    import os
    # SymphonyPy/Stock_Prediction train.py (its tf.scan LSTM cell, attention, orthogonal init; 1680 minutes -> 6 steps,
    # 100 units -> 5, 20 classes -> 4; data.Data -> seeded random batches; f1_score left out)
    tf.set_random_seed(55)
    np.random.seed(55)
    class LSTMcell(object):
        def __init__(self, incoming, D_input, D_cell, initializer,
                     f_bias=1.0, L2=False, h_act=tf.tanh,
                     init_h=None, init_c=None):
            self.incoming = incoming
            self.D_input = D_input
            self.D_cell = D_cell
            self.initializer = initializer
            self.f_bias = f_bias
            self.h_act = h_act
            self.type = 'lstm'
            if init_h is None and init_c is None:
                self.init_h = tf.matmul(self.incoming[0, :, :], tf.zeros([self.D_input, self.D_cell]))
                self.init_c = self.init_h
                self.previous = tf.stack([self.init_h, self.init_c])
            self.igate = self.Gate()
            self.fgate = self.Gate(bias=f_bias)
            self.ogate = self.Gate()
            self.cell = self.Gate()
            self.W_x = tf.concat(values=[self.igate[0], self.fgate[0], self.ogate[0], self.cell[0]], axis=1)
            self.W_h = tf.concat(values=[self.igate[1], self.fgate[1], self.ogate[1], self.cell[1]], axis=1)
            self.b = tf.concat(values=[self.igate[2], self.fgate[2], self.ogate[2], self.cell[2]], axis=0)
            if L2:
                self.L2_loss = tf.nn.l2_loss(self.W_x) + tf.nn.l2_loss(self.W_h)
        def Gate(self, bias=0.001):
            Wx = self.initializer([self.D_input, self.D_cell])
            Wh = self.initializer([self.D_cell, self.D_cell])
            b = tf.Variable(tf.constant(bias, shape=[self.D_cell]), trainable=True)
            return Wx, Wh, b
        def Slice_W(self, x, n):
            return x[:, n * self.D_cell:(n + 1) * self.D_cell]
        def Step(self, previous_h_c_tuple, current_x):
            prev_h, prev_c = tf.unstack(previous_h_c_tuple)
            gates = tf.matmul(current_x, self.W_x) + tf.matmul(prev_h, self.W_h) + self.b
            i = tf.sigmoid(self.Slice_W(gates, 0))
            f = tf.sigmoid(self.Slice_W(gates, 1))
            o = tf.sigmoid(self.Slice_W(gates, 2))
            c = tf.tanh(self.Slice_W(gates, 3))
            current_c = f * prev_c + i * c
            current_h = o * self.h_act(current_c)
            return tf.stack([current_h, current_c])
    def RNN(cell, cell_b=None, merge='sum'):
        hstates = tf.scan(fn=cell.Step,
                          elems=cell.incoming,
                          initializer=cell.previous,
                          name='hstates')
        if cell.type == 'lstm':
            hstates = hstates[:, 0, :, :]
        return hstates
    def attention(inputs, attention_size, l2_reg_lambda=0):
        if isinstance(inputs, tuple):
            inputs = tf.concat(inputs, 2)
        sequence_length = inputs.get_shape()[1].value
        hidden_size = inputs.get_shape()[2].value
        W_omega = tf.get_variable("W_omega", initializer=tf.random_normal([hidden_size, attention_size], stddev=0.1))
        b_omega = tf.get_variable("b_omega", initializer=tf.random_normal([attention_size], stddev=0.1))
        u_omega = tf.get_variable("u_omega", initializer=tf.random_normal([attention_size], stddev=0.1))
        v = tf.tanh(tf.matmul(tf.reshape(inputs, [-1, hidden_size]), W_omega) + tf.reshape(b_omega, [1, -1]))
        vu = tf.matmul(v, tf.reshape(u_omega, [-1, 1]))
        exps = tf.reshape(tf.exp(vu), [-1, sequence_length])
        alphas = exps / tf.reshape(tf.reduce_sum(exps, 1), [-1, 1])
        output = tf.reduce_sum(inputs * tf.reshape(alphas, [-1, sequence_length, 1]), 1)
        return output
    def weight_init(shape):
        initial = tf.random_uniform(shape, minval=-np.sqrt(5) * np.sqrt(1.0 / shape[0]),
                                    maxval=np.sqrt(5) * np.sqrt(1.0 / shape[0]))
        return tf.Variable(initial, trainable=True)
    def zero_init(shape):
        initial = tf.Variable(tf.zeros(shape))
        return tf.Variable(initial, trainable=True)
    def orthogonal_initializer(shape, scale=1.0):
        flat_shape = (shape[0], np.prod(shape[1:]))
        a = np.random.normal(0.0, 1.0, flat_shape)
        u, _, v = np.linalg.svd(a, full_matrices=False)
        q = u if u.shape == flat_shape else v
        q = q * np.sign(q[:1])  # (sign-normalised here: LAPACK builds differ in the singular vectors' signs)
        q = q.reshape(shape)
        return tf.Variable(scale * q[:shape[0], :shape[1]], dtype=tf.float32, trainable=True)
    def bias_init(shape):
        initial = tf.constant(0.01, shape=shape)
        return tf.Variable(initial, trainable=True)
    D_input = 6
    D_label = 4
    learning_rate = 1e-2
    L2_penalty = 5e-3
    sequence_length = 6
    attention_size = 3
    num_units = 5
    inputs = tf.placeholder(tf.float32, [None, sequence_length, D_input], name="inputs")
    labels = tf.placeholder(tf.float32, [None, D_label], name="labels")
    keep_prob = tf.placeholder(tf.float32, name="keep_prob")
    input = tf.transpose(inputs, perm=[1, 0, 2])
    rnn_cell = LSTMcell(input, D_input, num_units, orthogonal_initializer)
    rnn = RNN(rnn_cell)
    print(rnn_cell.previous, rnn)
    rnn_ = tf.transpose(rnn, perm=[1, 0, 2])
    a_re_ = attention(rnn_, attention_size)
    print(a_re_)
    W2 = weight_init([num_units, D_label])
    b2 = bias_init([D_label])
    z = zero_init([2])
    print(z, z.initial_value)
    re2 = tf.matmul(a_re_, W2) + b2
    output = tf.nn.softmax(re2)
    loss = tf.reduce_mean(tf.square((output - labels)))
    tf.summary.scalar('loss', loss)
    L2_total = tf.nn.l2_loss(W2)
    train_step = tf.train.GradientDescentOptimizer(learning_rate * 100).minimize(loss + L2_penalty * L2_total)
    y_pred = tf.argmax(output, 1)
    correct_prediction = tf.equal(tf.argmax(output, 1), tf.argmax(labels, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, "float"))
    tf.summary.scalar('accuracy', accuracy)
    sess = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=False))
    merged = tf.summary.merge_all()
    d = str(tmp_path)
    train_writer = tf.summary.FileWriter(os.path.join(d, "train"))
    tf.global_variables_initializer().run()
    rng = np.random.RandomState(1)
    def batch(n):
        x = rng.randn(n, sequence_length, D_input).astype(np.float32)
        y = np.eye(D_label, dtype=np.float32)[rng.randint(0, D_label, n)]
        return x, y
    for k in range(21):
        x, y = batch(8)
        sess.run(train_step, feed_dict={inputs: x, labels: y, keep_prob: 0.3})
        if k % 10 == 0:
            acc = sess.run(accuracy, feed_dict={inputs: x, labels: y, keep_prob: 1})
            y_p = list(sess.run(y_pred, feed_dict={inputs: x, labels: y, keep_prob: 1}))
            print("EPOCH:{}\ttrain accuracy:{}\tpred:{}".format(k, round(acc, 3), y_p), sess.run(loss, {inputs: x, labels: y}))
            train_writer.add_summary(sess.run(merged, feed_dict={inputs: x, labels: y, keep_prob: 1}), k)
    saver = tf.train.Saver()
    save_path = saver.save(sess, os.path.join(d, "model.ckpt"))
    print("Model saved. {}".format(os.path.basename(save_path)))
    saver.restore(sess, os.path.join(d, "model.ckpt"))
    print(sess.run(y_pred, feed_dict={inputs: batch(3)[0], keep_prob: 1}))
    train_writer.close()
    sess.close()

    _printed(capsys, """\
Tensor("stack:0", shape=(2, ?, 5), dtype=float32) Tensor("strided_slice_1:0", shape=(6, ?, 5), dtype=float32)
Tensor("Sum_1:0", shape=(?, 5), dtype=float32)
<tf.Variable 'Variable_15:0' shape=(2,) dtype=float32_ref> Tensor("Variable_14/read:0", shape=(2,), dtype=float32)
EPOCH:0	train accuracy:0.375	pred:[2, 2, 3, 2, 2, 2, 2, 0] 0.18916085
EPOCH:10	train accuracy:0.25	pred:[3, 0, 2, 3, 2, 2, 3, 0] 0.18747716
EPOCH:20	train accuracy:0.375	pred:[0, 0, 0, 0, 3, 2, 3, 0] 0.19110736
Model saved. model.ckpt
[0 0 0]
""")


def test_autoencoder_anomaly_scores(capsys, tmp_path):
    #  now and then an ulp under the exact root, which the losses' last digit shows:thomasdubdub/autoencoder-anomaly-detection anomaly_detection.ipynb (reduced)
    import numpy as np
    import os
    # thomasdubdub/autoencoder-anomaly-detection anomaly_detection.ipynb (transitions.csv -> seeded [0, 1) rows of 7;
    # 10000 iterations -> 30; tqdm's trange -> range)
    rng = np.random.RandomState(42)
    X_train = rng.rand(20, 7); X_test = rng.rand(6, 7)
    print(X_train.shape, X_test.shape)
    n_inputs, n_outputs, n_hidden = (X_train.shape[1] for i in range(3))
    def reset_graph(seed=42):
        tf.reset_default_graph()
        tf.set_random_seed(seed)
    learning_rate=0.01
    reset_graph()
    X = tf.placeholder(tf.float32, shape=[None, n_inputs])
    hidden = tf.layers.dense(X, n_hidden, activation=tf.sigmoid)
    outputs = tf.layers.dense(hidden, n_outputs, activation=tf.sigmoid)
    reconstruction_loss = tf.reduce_mean(tf.square(outputs - X))
    errors = tf.reduce_mean(tf.square(outputs - X), axis=1)
    optimizer = tf.train.AdamOptimizer(learning_rate)
    training_op = optimizer.minimize(reconstruction_loss)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    print(hidden, outputs, errors)
    plot_x, plot_y, plot_y2 = ([] for i in range(3))
    n_iterations = 30
    d = str(tmp_path)
    with tf.Session() as sess:
        init.run()
        for iteration in range(n_iterations):
            _,c = sess.run([training_op,reconstruction_loss], feed_dict={X: X_train})
            c2 = sess.run([reconstruction_loss], feed_dict={X: X_test})
            plot_x.append(iteration)
            plot_y.append(c)
            plot_y2.append(c2)
        saver.save(sess, os.path.join(d, "anomaly_model.ckpt"))
    print(type(plot_y[0]).__name__, type(plot_y2[0]).__name__, plot_y[::10], plot_y2[::10])
    with tf.Session() as sess:
        saver.restore(sess, os.path.join(d, "anomaly_model.ckpt"))
        e = errors.eval(feed_dict={X: X_test})
        print(e.round(4), np.argsort(e)[::-1][:3])

    # Adam's v.sqrt() is TF's approximate packet root (rsqrtps and a Newton step)
    same_printed(capsys.readouterr().out.splitlines(), """\
(20, 7) (6, 7)
Tensor("dense/Sigmoid:0", shape=(?, 7), dtype=float32) Tensor("dense_1/Sigmoid:0", shape=(?, 7), dtype=float32) Tensor("Mean_1:0", shape=(?,), dtype=float32)
float32 list [0.09285859, 0.08266283, 0.078931585] [[0.09713173], [0.082016274], [0.07570854]]
[0.0808 0.0654 0.0908 0.0665 0.0566 0.0767] [2 0 5]
""".splitlines(), 1e-6)


def test_contrib_layers_siamese_reuse(capsys, tmp_path):
    # mjfang/HWCNN siamese_net.py (its unnamed contrib layers fail to reuse, TF 1.15's ValueError; then named) (reduced)
    import numpy as np
    # mjfang/HWCNN siamese_net.py (its contrib.layers network and contrastive loss; 24x24/9x9 kernels -> 3x3, 256 -> 6 units)
    layers = tf.contrib.layers
    class Siamese_Net:
      def __init__(self, batch_size, input_shape):
        self.x1 = tf.placeholder(tf.float32, input_shape)
        self.x2 = tf.placeholder(tf.float32, input_shape)
        self.batch_size = batch_size
        with tf.variable_scope("siamese") as scope:
          self.out1 = self.network(self.x1)
          scope.reuse_variables()
          self.out2 = self.network(self.x2)
        pow = tf.pow(tf.subtract(self.out1,self.out2), 2)
        self.distance = tf.sqrt(tf.reduce_sum(pow,1,keep_dims=True))
        self.y = tf.placeholder(tf.float32, [None])
        self.loss = self.contrastive_loss()
        self.train_op = self.add_optimizer_loss(self.loss)
      def network(self, input):
        conv1 = layers.conv2d(input, num_outputs=4, kernel_size=[3, 3], stride=[2, 2])
        pool1 = tf.nn.max_pool(conv1,[1,4,4,1], strides = [1,3,3,1], padding='VALID')
        conv2 = layers.conv2d(pool1, num_outputs=3, kernel_size=[3, 3], stride=[1,1])
        conv2_flattened = layers.flatten(conv2)
        fc1 = layers.fully_connected(conv2_flattened, 6, biases_initializer=tf.constant_initializer(0))
        out = layers.fully_connected(fc1, 2, activation_fn=None)
        return out
      def contrastive_loss(self):
        a = self.y * tf.square(self.distance)
        a2 = (1-self.y) * tf.square(tf.maximum((1-self.distance), 0))
        return tf.reduce_sum(a + a2) / self.batch_size / 2
      def add_optimizer_loss(self, loss):
        optimizer = tf.train.AdamOptimizer()
        gvs = optimizer.compute_gradients(loss)
        gs, vs = zip(*gvs)
        self.grad_norm = tf.global_norm(gs)
        return optimizer.apply_gradients(gvs)
    tf.set_random_seed(9)
    try:
        net = Siamese_Net(4, [None, 16, 16, 1])
    except ValueError as e:
        print('ValueError:', e)
    # the layers named, as the repository's later version does, so the second tower reuses the first's
    tf.reset_default_graph()
    tf.set_random_seed(9)
    _plain = Siamese_Net.network
    def _named(self, input):
        conv1 = layers.conv2d(input, num_outputs=4, kernel_size=[3, 3], stride=[2, 2], scope='conv1')
        pool1 = tf.nn.max_pool(conv1,[1,4,4,1], strides = [1,3,3,1], padding='VALID')
        conv2 = layers.conv2d(pool1, num_outputs=3, kernel_size=[3, 3], stride=[1,1], scope='conv2')
        conv2_flattened = layers.flatten(conv2)
        fc1 = layers.fully_connected(conv2_flattened, 6, biases_initializer=tf.constant_initializer(0), scope='fc1')
        return layers.fully_connected(fc1, 2, activation_fn=None, scope='out')
    Siamese_Net.network = _named
    net = Siamese_Net(4, [None, 16, 16, 1])
    print(net.out1, net.distance, net.loss, net.grad_norm)
    print([v.name for v in tf.trainable_variables()])
    print(sorted({v.name.split('/')[-1] for v in tf.global_variables()}))
    rng = np.random.RandomState(9)
    a = rng.rand(4, 16, 16, 1).astype(np.float32); b = rng.rand(4, 16, 16, 1).astype(np.float32); y = np.array([1., 0., 1., 0.], np.float32)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        print(sess.run([net.loss, net.grad_norm], {net.x1: a, net.x2: b, net.y: y}))
        for i in range(3):
            _, l = sess.run([net.train_op, net.loss], {net.x1: a, net.x2: b, net.y: y})
            print(i, l)
        print(sess.run(net.distance, {net.x1: a, net.x2: b}).ravel().tolist())

    # Adam's packet square root (TF's approximate root) shows in the last digits after three steps
    same_printed(capsys.readouterr().out.splitlines(), """\
ValueError: Variable siamese/Conv_2/weights does not exist, or was not created with tf.get_variable(). Did you mean to set reuse=tf.AUTO_REUSE in VarScope?
Tensor("siamese/out/BiasAdd:0", shape=(?, 2), dtype=float32) Tensor("Sqrt:0", shape=(?, 1), dtype=float32) Tensor("truediv_1:0", shape=(), dtype=float32) Tensor("global_norm/global_norm:0", shape=(), dtype=float32)
['siamese/conv1/weights:0', 'siamese/conv1/biases:0', 'siamese/conv2/weights:0', 'siamese/conv2/biases:0', 'siamese/fc1/weights:0', 'siamese/fc1/biases:0', 'siamese/out/weights:0', 'siamese/out/biases:0']
['Adam:0', 'Adam_1:0', 'beta1_power:0', 'beta2_power:0', 'biases:0', 'weights:0']
[0.92696744, 2.0370529]
0 0.92696744
1 0.91508263
2 0.9055721
[0.07373028248548508, 0.004540184047073126, 0.10206831991672516, 0.04399484023451805]
""".splitlines(), 1e-6)


def test_dataset_padded_batches(capsys, tmp_path):
    # chenhanghang/tensorflow-demos functions/padded_batch.py, zyqgmzyq/tensorflow_learn programmer_guide/importing_data/batch_dataset.py and PCART-tools/PCBench's tf.data.Dataset.from_generator case (reduced)
    import numpy as np
    import itertools
    # chenhanghang/tensorflow-demos functions/padded_batch.py, zyqgmzyq/tensorflow_learn
    # programmer_guide/importing_data/batch_dataset.py and PCART-tools/PCBench's from_generator case
    tf.reset_default_graph()
    x = [[1, 0, 0],
         [2, 3, 0],
         [4, 5, 6],
         [7, 8, 0],
         [9, 0, 0],
         [0, 1, 0]]
    padded_shapes = (
        tf.TensorShape([]),
        tf.TensorShape([]),
        tf.TensorShape([])
    )
    dataset = tf.data.Dataset.from_tensor_slices(x)
    dataset = dataset.map(lambda x: [x[0], x[1], x[2]])
    print(dataset.output_shapes, dataset.output_types)
    dataset = dataset.padded_batch(2, padded_shapes=padded_shapes)
    print(dataset.output_shapes)
    iterator = dataset.make_one_shot_iterator()
    sess = tf.Session()
    try:
        while True:
            elem1, elem2, elem3 = iterator.get_next()
            print("elem:", sess.run(elem1))
    except tf.errors.OutOfRangeError:
        print("end")
    print(len([op for op in tf.get_default_graph().get_operations() if op.type == 'IteratorGetNext']))
    sess.close()
    tf.reset_default_graph()
    inc_dataset = tf.data.Dataset.range(100)
    dec_dataset = tf.data.Dataset.range(0, -100, -1)
    dataset = tf.data.Dataset.zip((inc_dataset, dec_dataset))
    batched_dataset = dataset.batch(4)
    print(batched_dataset.output_shapes)
    iterator = batched_dataset.make_one_shot_iterator()
    next_element = iterator.get_next()
    with tf.Session() as sess:
        print(sess.run(next_element))
        print(sess.run(next_element))
        print(sess.run(next_element))
    dataset = tf.data.Dataset.range(100)
    dataset = dataset.map(lambda x: tf.fill([tf.cast(x, tf.int32)], x))
    dataset = dataset.padded_batch(4, padded_shapes=[None])
    print(dataset.output_shapes, dataset.output_types)
    iterator = dataset.make_one_shot_iterator()
    next_element = iterator.get_next()
    with tf.Session() as sess:
        print(sess.run(next_element))
        print(sess.run(next_element))
    def gen():
        for i in itertools.count(1):
            yield (i, [1] * i)
    dataset = tf.data.Dataset.from_generator(gen,  (tf.int64, tf.int64),  (tf.TensorShape([]), tf.TensorShape([None])),  None)
    print(dataset.output_shapes, dataset.output_types)
    it = dataset.padded_batch(3, padded_shapes=([], [None])).make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        for _ in range(2):
            print(sess.run(it))

    _printed(capsys, """\
(TensorShape([]), TensorShape([]), TensorShape([])) (tf.int32, tf.int32, tf.int32)
(TensorShape([Dimension(None)]), TensorShape([Dimension(None)]), TensorShape([Dimension(None)]))
elem: [1 2]
elem: [4 7]
elem: [9 0]
end
4
(TensorShape([Dimension(None)]), TensorShape([Dimension(None)]))
(array([0, 1, 2, 3]), array([ 0, -1, -2, -3]))
(array([4, 5, 6, 7]), array([-4, -5, -6, -7]))
(array([ 8,  9, 10, 11]), array([ -8,  -9, -10, -11]))
(?, ?) <dtype: 'int64'>
[[0 0 0]
 [1 0 0]
 [2 2 0]
 [3 3 3]]
[[4 4 4 4 0 0 0]
 [5 5 5 5 5 0 0]
 [6 6 6 6 6 6 0]
 [7 7 7 7 7 7 7]]
(TensorShape([]), TensorShape([Dimension(None)])) (tf.int64, tf.int64)
(array([1, 2, 3]), array([[1, 0, 0],
       [1, 1, 0],
       [1, 1, 1]]))
(array([4, 5, 6]), array([[1, 1, 1, 1, 0, 0],
       [1, 1, 1, 1, 1, 0],
       [1, 1, 1, 1, 1, 1]]))
""")


def test_variational_autoencoder(capsys, tmp_path):
    # fangkun119/MLPracticeNotes deep_learning_notes/16_auto_encoder_code (Geron's variational autoencoder; Adam -> SGD, the epoch line's carriage return dropped) (reduced)
    import numpy as np
    from functools import partial
    # fangkun119/MLPracticeNotes deep_learning_notes/16_auto_encoder_code (its variational autoencoder; 784 -> 16 inputs,
    # 500 -> 8 units, 20 codings -> 3; MNIST -> seeded binary rows)
    def reset_graph(seed=42):
        tf.reset_default_graph()
        tf.set_random_seed(seed)
        np.random.seed(seed)
    reset_graph()
    n_inputs = 16
    n_hidden1 = 8
    n_hidden2 = 8
    n_hidden3 = 3  # codings
    n_hidden4 = n_hidden2
    n_hidden5 = n_hidden1
    n_outputs = n_inputs
    learning_rate = 0.001
    initializer = tf.contrib.layers.variance_scaling_initializer()
    my_dense_layer = partial(
        tf.layers.dense,
        activation=tf.nn.elu,
        kernel_initializer=initializer)
    X = tf.placeholder(tf.float32, [None, n_inputs])
    hidden1 = my_dense_layer(X, n_hidden1)
    hidden2 = my_dense_layer(hidden1, n_hidden2)
    hidden3_mean = my_dense_layer(hidden2, n_hidden3, activation=None)
    hidden3_gamma = my_dense_layer(hidden2, n_hidden3, activation=None)
    noise = tf.random_normal(tf.shape(hidden3_gamma), dtype=tf.float32)
    hidden3 = hidden3_mean + tf.exp(0.5 * hidden3_gamma) * noise
    hidden4 = my_dense_layer(hidden3, n_hidden4)
    hidden5 = my_dense_layer(hidden4, n_hidden5)
    logits = my_dense_layer(hidden5, n_outputs, activation=None)
    outputs = tf.sigmoid(logits)
    xentropy = tf.nn.sigmoid_cross_entropy_with_logits(labels=X, logits=logits)
    reconstruction_loss = tf.reduce_sum(xentropy)
    latent_loss = 0.5 * tf.reduce_sum(
        tf.exp(hidden3_gamma) + tf.square(hidden3_mean) - 1 - hidden3_gamma)
    loss = reconstruction_loss + latent_loss
    optimizer = tf.train.GradientDescentOptimizer(learning_rate=learning_rate)
    training_op = optimizer.minimize(loss)
    init = tf.global_variables_initializer()
    saver = tf.train.Saver()
    print(noise, hidden3, xentropy, latent_loss)
    print([v.name for v in tf.trainable_variables()][:4])
    X_train = (np.random.rand(10, n_inputs) > 0.5).astype(np.float32)
    n_digits = 3
    with tf.Session() as sess:
        init.run()
        for epoch in range(3):
            for iteration in range(2):
                X_batch = X_train[iteration * 5:(iteration + 1) * 5]
                sess.run(training_op, feed_dict={X: X_batch})
            loss_val, reconstruction_loss_val, latent_loss_val = sess.run([loss, reconstruction_loss, latent_loss], feed_dict={X: X_batch})
            print("{}".format(epoch), "Train total loss:", loss_val, "\tReconstruction loss:", reconstruction_loss_val, "\tLatent loss:", latent_loss_val)
        codings_rnd = np.random.normal(size=[n_digits, n_hidden3])
        outputs_val = outputs.eval(feed_dict={hidden3: codings_rnd})
        print(outputs_val.shape, outputs_val[0, :4])

    _printed(capsys, """\
Tensor("random_normal:0", shape=(?, 3), dtype=float32) Tensor("add:0", shape=(?, 3), dtype=float32) Tensor("logistic_loss:0", shape=(?, 16), dtype=float32) Tensor("mul_2:0", shape=(), dtype=float32)
['dense/kernel:0', 'dense/bias:0', 'dense_1/kernel:0', 'dense_1/bias:0']
0 Train total loss: 81.8784 	Reconstruction loss: 75.156906 	Latent loss: 6.7214956
1 Train total loss: 76.83228 	Reconstruction loss: 72.34043 	Latent loss: 4.4918528
2 Train total loss: 73.54991 	Reconstruction loss: 69.78051 	Latent loss: 3.769404
(3, 16) [0.79179984 0.1567311  0.41914782 0.42366874]
""")


def test_py_func_vector_add(capsys, tmp_path):
    # beardoll/tensorflow-yolov2 tools/pyfunc_test.py (its Python 2 print made a call; the gradient and a wrong-dtype return checked) (reduced)
    import numpy as np
    # beardoll/tensorflow-yolov2 tools/pyfunc_test.py (Python 2's print made a call; its gradient note checked)
    def add_two_vector(a, b):
        c = np.zeros((a.shape[0]), dtype=np.float32)
        for i in range(a.shape[0]):
            c[i] = a[i] + b[i]
        return c
    sess = tf.Session()
    a = tf.placeholder(tf.float32, shape=(5, ))
    b = tf.placeholder(tf.float32, shape=(5, ))
    add_op = tf.py_func(add_two_vector, [a, b], [tf.float32])
    print(add_op, add_op[0].op.type, add_op[0].op.get_attr('Tout'))
    c = sess.run(add_op, feed_dict={a: np.array([1, 1, 1, 1, 1], dtype=np.float32),             b: np.array([2, 2, 2, 2, 2], dtype=np.float32)})
    print(c)
    print(tf.gradients(add_op[0], [a, b]))
    try:
        tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(add_op[0]) * tf.Variable(1.0), var_list=None)
        print('built')
    except Exception as e:
        print(type(e).__name__, e)
    try:
        sess.run(tf.py_func(lambda x: x.astype(np.float64), [a], tf.float32), {a: np.ones(5, np.float32)})
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0])
    sess.close()

    _printed(capsys, """\
[<tf.Tensor 'PyFunc:0' shape=<unknown> dtype=float32>] PyFunc [tf.float32]
[array([3., 3., 3., 3., 3.], dtype=float32)]
[None, None]
built
InvalidArgumentError 0-th value returned by pyfunc_1 is double, but expects float
""")


def test_constants_and_saver_restore_by_path(capsys, tmp_path):
    # falkzach/CSCI595-Deep-Knowledge-Transfer compute.py and lvjianjunljj/deep_learning_study tensorflow/getting_started/i_saver/restore_test_2.py (with the save it restores) (reduced)
    import os
    # falkzach/CSCI595-Deep-Knowledge-Transfer compute.py and lvjianjunljj/deep_learning_study
    # tensorflow/getting_started/i_saver/restore_test_2.py (with the save it restores: global_step 1)
    def test():
        node1 = tf.constant(3.0, tf.float32)
        node2 = tf.constant(4.0) # also tf.float32 implicitly
        sess = tf.Session()
        node3 = tf.add(node1, node2)
        print("node1: ", node1)
        print("node2: ", node2)
        print("node3: ", node3)
        print("sess.run(node3): ", sess.run(node3))
        sess.close()
    test()
    tf.reset_default_graph()
    d = str(tmp_path)
    ckpt_path = os.path.join(d, 'ckpt', 'test-model.ckpt')
    v1 = tf.Variable([1.0, 2.3], name="v1")
    v2 = tf.Variable(55.5, name="v2")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.assign(v1, [11.0, 16.3]))
        print(os.path.relpath(saver.save(sess, ckpt_path, global_step=1), d))
    tf.reset_default_graph()
    config = tf.ConfigProto()
    config.gpu_options.allow_growth = True
    sess = tf.Session(config=config)
    v1 = tf.Variable([11.0, 16.3], name="v1")
    saver = tf.train.Saver()
    print(saver.saver_def.filename_tensor_name, saver.saver_def.save_tensor_name, saver.saver_def.restore_op_name)
    saver.restore(sess, ckpt_path + '-' + str(1))
    print("Model restored.")
    print(sess.run(v1))
    print(tf.train.list_variables(ckpt_path + '-1'))
    try:
        saver.restore(sess, ckpt_path + '-' + str(2))
    except Exception as e:
        print(type(e).__name__, str(e).splitlines()[0].replace(d, 'D'))
    sess.close()

    _printed(capsys, """\
node1:  Tensor("Const:0", shape=(), dtype=float32)
node2:  Tensor("Const_1:0", shape=(), dtype=float32)
node3:  Tensor("Add:0", shape=(), dtype=float32)
sess.run(node3):  7.0
ckpt/test-model.ckpt-1
save/Const:0 save/control_dependency:0 save/restore_all
Model restored.
[11.  16.3]
[('v1', [2]), ('v2', [])]
ValueError The passed save_path is not a valid checkpoint: D/ckpt/test-model.ckpt-2
""")


def test_wrong_shape_feeds_and_keras_inputs(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46053363_original.py, s48978609_original.py and s50336110_original.py (keras -> tf.keras; Keras makes a 1-D array [n, 1] before it checks the rank) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46053363_original.py (one_hot=False labels fed to a [None, 10] placeholder; the
    # network shrunk, MNIST -> seeded rows), s48978609_original.py and s50336110_original.py (Keras models given
    # inputs of the wrong rank; keras -> tf.keras)
    x = tf.placeholder(tf.float32, [None, 16])
    y_ = tf.placeholder(tf.float32, [None,10])
    W = tf.Variable(tf.zeros([16, 10])); b = tf.Variable(tf.zeros([10]))
    y_conv = tf.matmul(x, W) + b
    cross_entropy = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y_, logits=y_conv))
    correct_prediction = tf.equal(tf.argmax(y_conv, 1), tf.argmax(y_, 1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    rng = np.random.RandomState(0)
    batch = (rng.rand(50, 16).astype(np.float32), rng.randint(0, 10, 50))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        try:
            train_accuracy = accuracy.eval(feed_dict={x: batch[0], y_: batch[1]})
            print('step %d, training accuracy %g' % (0, train_accuracy))
        except ValueError as e:
            print('ValueError:', e)
        print('step %d, training accuracy %g' % (0, accuracy.eval(feed_dict={x: batch[0], y_: np.eye(10)[batch[1]]})))
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import LSTM, Dense
    X = np.array([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    y = np.array([2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
    data_dim = 1
    timesteps = 8
    model = Sequential()
    model.add(LSTM(4, return_sequences=True, input_shape=(timesteps, data_dim)))
    model.add(LSTM(4, return_sequences=True))
    model.add(Dense(10, activation='softmax'))
    model.compile(loss='categorical_crossentropy', optimizer='rmsprop', metrics=['accuracy'])
    print(model.output_shape, [l.name for l in model.layers])
    try:
        model.fit(X,y, batch_size=10, epochs=1, verbose=0)
    except ValueError as e:
        print('ValueError:', e)
    model =Sequential()
    model.add(Dense(12, input_dim=3, activation='relu'))
    model.add(Dense(8, activation='relu'))
    model.add(Dense(4, activation='relu'))
    model.add(Dense(1, activation='sigmoid'))
    model.compile(loss='binary_crossentropy', optimizer = 'adam', metrics = ['accuracy'])
    x = np.array([[0.1],[0.2],[0.3]])
    print(x.shape, model.input_shape)
    try:
        prediction_prob = model.predict(x)
    except ValueError as e:
        print('ValueError:', e)
    print(model.predict(x.T).shape)

    _printed(capsys, """\
ValueError: Cannot feed value of shape (50,) for Tensor 'Placeholder_1:0', which has shape '(?, 10)'
step 0, training accuracy 0.16
(None, 8, 10) ['lstm', 'lstm_1', 'dense']
ValueError: Error when checking input: expected lstm_input to have 3 dimensions, but got array with shape (10, 1)
(3, 1) (None, 3)
ValueError: Error when checking input: expected dense_1_input to have shape (3,) but got array with shape (1,)
(1, 1)
""")


def test_uninitialized_closed_session_confusion_matrix(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s49065312_original.py and s50274999_original.py (MNIST and skimage's resize -> seeded rows) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s49065312_original.py (a fresh Session per step, never initialized, then the
    # closed one reused; MNIST + skimage resize -> seeded rows) and s50274999_original.py (confusion_matrix of one-hot
    # [n, 2] arrays)
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 16])
    W = tf.get_variable("weights", shape=[16, 10],
                    initializer=tf.random_normal_initializer())
    b = tf.get_variable("bias", shape=[10],
                    initializer=tf.random_normal_initializer())
    y = tf.nn.softmax(tf.matmul(x, W) + b)
    y_ = tf.placeholder(tf.float32, [None, 10])
    cross_entropy = tf.reduce_mean(-tf.reduce_sum(y_ * tf.log(y),
    reduction_indices=[1]))
    train_step = tf.train.GradientDescentOptimizer(0.2).minimize(cross_entropy)
    batch_size=5
    rng = np.random.RandomState(0)
    for _ in range(1):
        image = rng.rand(batch_size, 16)
        batch_label = np.eye(10)[rng.randint(0, 10, batch_size)]
        print(image.shape)
        try:
            with tf.Session() as sess:
                sess.run(train_step, feed_dict={x: image, y_: batch_label})
        except tf.errors.FailedPreconditionError as e:
            print(type(e).__name__, e.message.splitlines()[0], e.op.name if e.op is not None else None, e.error_code)
    correct_prediction = tf.equal(tf.argmax(y,1), tf.argmax(y_,1))
    accuracy = tf.reduce_mean(tf.cast(correct_prediction, tf.float32))
    try:
        print(sess.run(accuracy, feed_dict={x: image, y_: batch_label}))
    except RuntimeError as e:
        print('RuntimeError:', e)
    batched_val_labels = np.eye(2)[rng.randint(0, 2, 6)]
    _p = np.eye(2)[rng.randint(0, 2, 6)]
    try:
        cm = tf.confusion_matrix(labels=batched_val_labels, predictions=_p)
        print(cm)
    except ValueError as e:
        print('ValueError:', e)
    cm = tf.confusion_matrix(labels=np.argmax(batched_val_labels, 1), predictions=np.argmax(_p, 1))
    print(cm)
    with tf.Session() as sess:
        print(sess.run(cm))

    _printed(capsys, """\
(5, 16)
FailedPreconditionError Attempting to use uninitialized value bias bias/read 9
RuntimeError: Attempted to use a closed Session.
ValueError: Shape (6, 2, 2) must have rank 2
Tensor("confusion_matrix_1/SparseTensorDenseAdd:0", shape=(2, 2), dtype=int32)
[[3 0]
 [1 2]]
""")


def test_vector_matmul_int_lstm_two_input_keras(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s50130413_original.py, s50352777_original.py and s49442963_original.py (keras -> tf.keras) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s50130413_original.py (matmul of a vector), s50352777_original.py (an LSTM fed
    # int32 word ids; 128 units -> 4) and s49442963_original.py (a two-input Keras model given a 1-D aux array; sizes
    # 54/162 -> 5/7; keras -> tf.keras)
    w1 = tf.Variable(tf.random_normal([2,3],stddev=1,seed=1))
    w2 = tf.Variable(tf.random_normal([3,3],stddev=1,seed=1))
    x = tf.constant([0.7,0.9])
    try:
        a = tf.matmul(x, w1)
    except ValueError as e:
        print('ValueError:', e)
    a = tf.matmul([[0.7,0.9]], w1)
    y = tf.matmul(a, w2)
    sess = tf.Session()
    sess.run(w1.initializer)
    sess.run(w2.initializer)
    print(sess.run(y))
    sess.close()
    lstm_size = 4
    batch_size = 5
    graph = tf.Graph()
    with graph.as_default():
        inputs_ = tf.placeholder(tf.int32, [None, None], name='inputs')
        labels_ = tf.placeholder(tf.int32, [None, None], name='labels')
        keep_prob = tf.placeholder(tf.float32, name='keep_prob')
    with graph.as_default():
        lstm = tf.contrib.rnn.BasicLSTMCell(lstm_size)
        drop = tf.contrib.rnn.DropoutWrapper(lstm, output_keep_prob=keep_prob)
        cell = tf.contrib.rnn.MultiRNNCell([drop] * 1)
        initial_state = cell.zero_state(batch_size, tf.float32)
        print(initial_state)
    with graph.as_default():
        try:
            outputs, final_state = tf.nn.dynamic_rnn(cell, inputs_, initial_state=initial_state)
            print(outputs)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
        emb = tf.nn.embedding_lookup(tf.Variable(tf.random_uniform((10, 3), -1, 1)), inputs_)
        outputs, final_state = tf.nn.dynamic_rnn(cell, emb, initial_state=initial_state)
        predictions = tf.contrib.layers.fully_connected(outputs[:, -1], 1, activation_fn=tf.sigmoid)
        try:
            cost = tf.losses.mean_squared_error(labels_, predictions)
            print(cost)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
    from tensorflow.keras.layers import Input, Dense, concatenate
    from tensorflow.keras.models import Model
    from tensorflow.keras.initializers import he_normal
    from tensorflow.keras.optimizers import RMSprop
    tf.reset_default_graph()
    FEATURE_VECTOR_SIZE, AUX_FEATURE_VECTOR_SIZE, NUM_ACTIONS = 5, 7, 3
    init_weights = he_normal()
    main_input = Input(shape=(FEATURE_VECTOR_SIZE,))
    aux_input = Input(shape=(AUX_FEATURE_VECTOR_SIZE,))
    merged_input = concatenate([main_input, aux_input])
    shared1 = Dense(6, activation='relu', kernel_initializer=init_weights)(merged_input)
    shared2 = Dense(4, activation='relu', kernel_initializer=init_weights)(shared1)
    main_output = Dense(NUM_ACTIONS, activation='linear', kernel_initializer=init_weights, name='main_output')(shared2)
    aux_output = Dense(1, activation='linear', kernel_initializer=init_weights, name='aux_output')(shared2)
    rms = RMSprop(lr=0.01)
    model = Model(inputs=[main_input, aux_input], outputs=[main_output, aux_output])
    model.compile(optimizer=rms, loss='mse')
    print(model.input_names, model.output_names, merged_input)
    aux_dummy = np.zeros(shape=(AUX_FEATURE_VECTOR_SIZE,))
    print(aux_dummy.shape)
    print(aux_dummy)
    try:
        q_vals, _ = model.predict([np.eye(FEATURE_VECTOR_SIZE)[[2]], aux_dummy], batch_size=1)
    except ValueError as e:
        print('ValueError:', e)
    q_vals, _ = model.predict([np.eye(FEATURE_VECTOR_SIZE)[[2]], aux_dummy[None]], batch_size=1)
    print(q_vals.shape, _.shape)

    _printed(capsys, """\
ValueError: Shape must be rank 2 but is rank 1 for 'MatMul' (op: 'MatMul') with input shapes: [2], [2,3].
[[-0.16974813 -5.221621    0.06878403]]
(LSTMStateTuple(c=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros:0' shape=(5, 4) dtype=float32>, h=<tf.Tensor 'MultiRNNCellZeroState/DropoutWrapperZeroState/BasicLSTMCellZeroState/zeros_1:0' shape=(5, 4) dtype=float32>),)
ValueError Shape (?, ?) must have rank at least 3
Tensor("mean_squared_error/value:0", shape=(), dtype=float32)
['input_1', 'input_2'] ['main_output', 'aux_output'] Tensor("concatenate/concat:0", shape=(?, 12), dtype=float32)
(7,)
[0. 0. 0. 0. 0. 0. 0.]
ValueError: Error when checking input: expected input_2 to have shape (7,) but got array with shape (1,)
(1, 3) (1, 1)
""")


def test_evolution_strategy_and_gather_nd_grad(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46892015_original.py (plots -> prints) and s48801893_original.py (scalar gather_nd's gradient: TF 1.15's ScatterNd ValueError) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46892015_original.py (evolution strategy with contrib's Normal; plots -> prints,
    # 50 generations -> 5) and s48801893_original.py (zeros_initializer passed as the class, gather_nd of a variable)
    from tensorflow.contrib.distributions import Normal
    tf.set_random_seed(1)
    DNA_SIZE = 1
    POP_SIZE = 10
    LR = 0.1
    N_GENERATION = 5
    def F(x):
        return x**2
    def get_fitness(value):
        return -value
    mean = tf.Variable(tf.constant(13.), dtype=tf.float32)
    sigma = tf.Variable(tf.constant(5.), dtype=tf.float32)
    N_dist = Normal(loc=mean, scale=sigma)
    make_kids = N_dist.sample([POP_SIZE])
    print(N_dist, make_kids)
    tfkids = tf.placeholder(tf.float32, [POP_SIZE, DNA_SIZE])
    tfkids_fit = tf.placeholder(tf.float32, [POP_SIZE])
    loss = -tf.reduce_mean(N_dist.log_prob(tfkids) * tfkids_fit)
    print(N_dist.log_prob(tfkids), loss)
    train_op = tf.train.GradientDescentOptimizer(LR).minimize(loss)
    sess = tf.Session()
    init = tf.global_variables_initializer()
    sess.run(init)
    for g in range(N_GENERATION):
        kids = sess.run(make_kids)
        kids_fit = get_fitness(F(kids))
        try:
            sess.run(train_op, feed_dict={tfkids: kids, tfkids_fit: kids_fit})
        except ValueError as e:
            print('ValueError:', e)
            sess.run(train_op, feed_dict={tfkids: kids[:, None], tfkids_fit: kids_fit})
        print(g, kids.shape, sess.run([mean, sigma]))
    sess.close()
    tf.reset_default_graph()
    DEPTH = 3
    initia = tf.zeros_initializer
    I = tf.placeholder(tf.float32, shape=[None,1], name='I')
    W = tf.get_variable('W', shape=[1,DEPTH], initializer=initia, dtype=tf.float32)
    b = tf.get_variable('b', shape=[DEPTH], initializer=initia, dtype=tf.float32)
    O = tf.nn.relu(tf.matmul(I, W) + b, name='O')
    O_0 = tf.gather_nd(O, [0,0])
    W_1 = tf.gather_nd(W, [0,1])
    distance = tf.square( O_0 - W_1 )
    print(O_0, W_1, distance)
    opt = tf.train.GradientDescentOptimizer(1e-1)
    try:
        print(opt.compute_gradients(distance))
    except ValueError as e:
        print('ValueError:', e)
    O_0 = tf.gather_nd(O, [[0,0]])
    W_1 = tf.gather_nd(W, [[0,1]])
    distance = tf.reduce_sum(tf.square( O_0 - W_1 ))
    print(opt.compute_gradients(distance)[0][0])
    train_op = opt.minimize(distance)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(3):
            print(sess.run([train_op, distance, W, b], {I: [[1.0]]})[1:])

    _printed(capsys, """\
tfp.distributions.Normal("Normal/", batch_shape=(), event_shape=(), dtype=float32) Tensor("Normal/sample/Reshape:0", shape=(10,), dtype=float32)
Tensor("Normal/log_prob_1/sub:0", shape=(10, 1), dtype=float32) Tensor("Neg:0", shape=(), dtype=float32)
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
0 (10,) [11.988487, 6.6969557]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
1 (10,) [11.261312, 7.448024]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
2 (10,) [9.294285, 7.5595784]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
3 (10,) [9.952735, 5.9715333]
ValueError: Cannot feed value of shape (10,) for Tensor 'Placeholder:0', which has shape '(10, 1)'
4 (10,) [10.091981, 6.4867587]
Tensor("GatherNd:0", shape=(), dtype=float32) Tensor("GatherNd_1:0", shape=(), dtype=float32) Tensor("Square:0", shape=(), dtype=float32)
ValueError: Shape must be at least rank 1 but is rank 0 for 'gradients/GatherNd_grad/ScatterNd' (op: 'ScatterNd') with input shapes: [2], [], [2].
Tensor("gradients_1/AddN:0", shape=(1, 3), dtype=float32)
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
[0.0, array([[0., 0., 0.]], dtype=float32), array([0., 0., 0.], dtype=float32)]
""")


def test_queue_shapes_birnn_list_tuple_matmul_nce(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s47297536_original.py, s50088092_original.py, s46273364_original.py and s46687091_original.py (sizes shrunk) (reduced)
    import numpy as np
    import math
    # tensfa/tensfa SFData/StackOverflow s47297536_original.py (FIFOQueue shapes given as one shape's dims),
    # s50088092_original.py (bidirectional_dynamic_rnn over an unstacked list; 250 units -> 3),
    # s46273364_original.py (matmul of a tuple plus a bias) and s46687091_original.py (nce_loss with weights sized by the
    # batch; sizes shrunk, GloVe -> seeded)
    a  = np.zeros((4, 4, 3))
    dtypes=[tf.float32]
    print(len(dtypes))
    shapes=[4, 4, 3]
    print(len(shapes))
    try:
        q = tf.FIFOQueue(capacity=200,dtypes=dtypes,shapes=shapes)
    except ValueError as e:
        print('ValueError:', e)
    q = tf.FIFOQueue(capacity=200,dtypes=dtypes,shapes=[shapes])
    print(q.shapes, q.dtypes, q.names, q.name)
    dataet=[[[3, 5], [7, 2], [7, 6]],
            [[2, 5], [1, 3], [4, 3]],
            [[8, 1], [1, 8], [9, 3]],
            [[1, 5], [6, 7], [4, 9]]]
    from tensorflow.contrib import rnn
    input_x=tf.placeholder(dtype=tf.int32,shape=[4,3,2])
    input_x=tf.cast(input_x,tf.float32)
    data=tf.unstack(input_x,3,axis=1)
    print(data)
    with tf.variable_scope('encoder') as scope:
        cell=rnn.LSTMCell(num_units=3)
        try:
            model=tf.nn.bidirectional_dynamic_rnn(cell,cell,inputs=data,dtype=tf.float32)
            print(model)
        except (ValueError, TypeError) as e:
            print(type(e).__name__, str(e).splitlines()[0])
    x1 = tf.placeholder(tf.float32, shape=[])
    Wo1 = tf.Variable(tf.truncated_normal([20,1], stddev=0.1))
    bo1 = tf.Variable(tf.constant(0.1, shape=[1]))
    try:
        y1 = tf.nn.tanh(tf.matmul((x1,Wo1)+ bo1),name="op_to_restore2_")
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
    batch_size, embedding_size, vocabulary_size, num_sampled = 4, 3, 10, 2
    input_data = tf.placeholder(tf.int32, shape=[batch_size, embedding_size])
    labels = tf.placeholder(tf.int32, shape=[batch_size, 1])
    dropout_keep_prob = tf.placeholder_with_default(1.0, shape=())
    nce_weights = tf.Variable(tf.truncated_normal([vocabulary_size, batch_size], stddev=1.0 / math.sqrt(embedding_size)))
    nce_biases = tf.Variable(tf.zeros([vocabulary_size]))
    glove_embeddings_arr = np.random.RandomState(0).rand(vocabulary_size, 5).astype(np.float32)
    embed = tf.nn.embedding_lookup(tf.convert_to_tensor(glove_embeddings_arr), input_data)
    print(embed, dropout_keep_prob)
    try:
        loss = tf.reduce_mean(tf.nn.nce_loss(weights=nce_weights, biases=nce_biases, labels=labels, inputs=tf.reduce_sum(embed, 1), num_sampled=num_sampled, num_classes=vocabulary_size))
        print(loss)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])

    _printed(capsys, """\
1
3
[TensorShape([Dimension(4), Dimension(4), Dimension(3)])] [tf.float32] None fifo_queue_1
[<tf.Tensor 'unstack:0' shape=(4, 2) dtype=float32>, <tf.Tensor 'unstack:1' shape=(4, 2) dtype=float32>, <tf.Tensor 'unstack:2' shape=(4, 2) dtype=float32>]
ValueError Shape (2, 4) must have rank at least 3
ValueError Shapes must be equal rank, but are 0 and 2
Tensor("embedding_lookup/Identity:0", shape=(4, 3, 5), dtype=float32) Tensor("PlaceholderWithDefault:0", shape=(), dtype=float32)
ValueError Dimensions must be equal, but are 5 and 4 for 'nce_loss/MatMul' (op: 'MatMul') with input shapes: [4,5], [2,4].
""")


def test_keras1_conv_strides_summary_static_rnn_feed(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s42235611_original.py, s44111687_original.py and s45499757_original.py (keras -> tf.keras; sizes shrunk) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s42235611_original.py (Keras 1's Convolution2D(32, 3, 3) in tf.keras: the third
    # argument is the strides; images 160x320 -> 16x32), s44111687_original.py (static_rnn, a [1, 2] batch fed to a
    # [None, 1, 2] placeholder; 128 units -> 4) and s45499757_original.py (predict of one 1-D row)
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import Cropping2D, Lambda, Conv2D as Convolution2D, Activation, Flatten, Dense
    model = Sequential()
    model.add(Cropping2D(cropping=((0,0), (5,2)), input_shape=(16 ,32, 3)))
    model.add(Lambda(lambda x: x/127.5 - 1.))
    model.add(Convolution2D(4, 3, 3,))
    model.add(Activation('relu'))
    model.add(Convolution2D(4, 3, 3))
    model.add(Activation('relu'))
    model.add(Flatten())
    model.add(Dense(8))
    model.add(Activation('relu'))
    model.add(Dense(4))
    print(model.summary())
    model.compile(loss='mse', optimizer='sgd')
    rng = np.random.RandomState(0)
    X = rng.rand(10, 16, 32, 3) * 255; y = rng.rand(10, 4)
    h = model.fit(X, y, validation_split=0.2, batch_size=4, epochs=2, verbose=0)
    print(sorted(h.history), len(h.history['loss']), h.params)
    tf.reset_default_graph()
    from tensorflow.contrib import rnn
    n_input = 2
    n_steps = 1
    n_hidden = 4
    n_classes = 2
    x = tf.placeholder("float", [None, n_steps, n_input])
    y = tf.placeholder("float", [None, n_classes])
    weights = {'out': tf.Variable(tf.random_normal([n_hidden, n_classes]))}
    biases = {'out': tf.Variable(tf.random_normal([n_classes]))}
    def RNN(x, weights, biases):
        x = tf.unstack(x, n_steps, 1)
        lstm_cell = rnn.BasicLSTMCell(n_hidden, forget_bias=1.0)
        outputs, states = rnn.static_rnn(lstm_cell, x, dtype=tf.float32)
        print(outputs, states)
        return tf.matmul(outputs[-1], weights['out']) + biases['out']
    pred = RNN(x, weights, biases)
    cost = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(logits=pred, labels=y))
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        batch_x = np.array([1., 2.]); batch_y = np.array([[0., 1.]])
        batch_x = tf.reshape(batch_x, [1, 2]).eval()
        print(batch_x, batch_x.dtype)
        try:
            sess.run(cost, feed_dict={x: batch_x, y: batch_y})
        except ValueError as e:
            print('ValueError:', e)
        print(sess.run(cost, feed_dict={x: batch_x[None], y: batch_y}).shape)
    tf.reset_default_graph()
    model = Sequential()
    model.add(Dense(8, activation="relu", input_dim=8, kernel_initializer="uniform"))
    model.add(Dense(1, activation="sigmoid", kernel_initializer="uniform"))
    model.compile(loss='binary_crossentropy', optimizer='adam', metrics=['accuracy'])
    test = np.array([6,148,72,35,0,33.6,0.627,50])
    try:
        predictions = model.predict(test)
    except ValueError as e:
        print('ValueError:', e)
    print(model.predict(test[None]).shape)

    _printed(capsys, """\
Model: "sequential"
_________________________________________________________________
Layer (type)                 Output Shape              Param #   
=================================================================
cropping2d (Cropping2D)      (None, 16, 25, 3)         0         
_________________________________________________________________
lambda (Lambda)              (None, 16, 25, 3)         0         
_________________________________________________________________
conv2d (Conv2D)              (None, 5, 8, 4)           112       
_________________________________________________________________
activation (Activation)      (None, 5, 8, 4)           0         
_________________________________________________________________
conv2d_1 (Conv2D)            (None, 1, 2, 4)           148       
_________________________________________________________________
activation_1 (Activation)    (None, 1, 2, 4)           0         
_________________________________________________________________
flatten (Flatten)            (None, 8)                 0         
_________________________________________________________________
dense (Dense)                (None, 8)                 72        
_________________________________________________________________
activation_2 (Activation)    (None, 8)                 0         
_________________________________________________________________
dense_1 (Dense)              (None, 4)                 36        
=================================================================
Total params: 368
Trainable params: 368
Non-trainable params: 0
_________________________________________________________________
None
['loss', 'val_loss'] 2 {'batch_size': 4, 'epochs': 2, 'steps': None, 'samples': 8, 'verbose': 0, 'do_validation': True, 'metrics': ['loss', 'val_loss']}
[<tf.Tensor 'rnn/basic_lstm_cell/Mul_2:0' shape=(?, 4) dtype=float32>] LSTMStateTuple(c=<tf.Tensor 'rnn/basic_lstm_cell/Add_1:0' shape=(?, 4) dtype=float32>, h=<tf.Tensor 'rnn/basic_lstm_cell/Mul_2:0' shape=(?, 4) dtype=float32>)
[[1. 2.]] float64
ValueError: Cannot feed value of shape (1, 2) for Tensor 'Placeholder:0', which has shape '(?, 1, 2)'
()
ValueError: Error when checking input: expected dense_input to have shape (8,) but got array with shape (1,)
(1, 1)
""")


def test_keras_input_dim_float64_rnn_uninitialized_interactive(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46858890_original.py, s49703387_original.py and s48250510_original.py (keras -> tf.keras; sizes shrunk) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46858890_original.py (Dense(1, input_dim=5) fit on [5, 1] columns; its
    # undefined y_val defined), s49703387_original.py (dynamic_rnn over float64 embeddings; sizes shrunk) and
    # s48250510_original.py (an InteractiveSession stepping uninitialized variables; MNIST -> seeded rows)
    from tensorflow.keras.models import Sequential
    from tensorflow.keras.layers import Dense
    x = np.array([[1],[2],[3],[4],[5]])
    y = np.array([[1],[2],[3],[4],[5]])
    x_val = np.array([[6],[7]])
    y_val = np.array([[6],[7]])
    model = Sequential()
    model.add(Dense(1, input_dim=5))
    model.compile(optimizer='rmsprop', loss='mse')
    try:
        model.fit(x, y, epochs=2, validation_data=(x_val, y_val), verbose=0)
    except ValueError as e:
        print('ValueError:', e)
    tf.reset_default_graph()
    MAX_SEQUENCE_LENGTH = 6
    lstmUnits = 4
    x = tf.placeholder(tf.int32, [None, MAX_SEQUENCE_LENGTH])
    y = tf.placeholder(tf.int32, [None])
    number_of_layers=3
    saved_embeddings = np.zeros((100, 10))
    embeddings = tf.nn.embedding_lookup(saved_embeddings, x)
    print(embeddings)
    def lstm_cell():
      return tf.contrib.rnn.BasicLSTMCell(lstmUnits,reuse=tf.get_variable_scope().reuse)
    lstmCell = tf.contrib.rnn.MultiRNNCell([lstm_cell() for _ in range(number_of_layers)])
    lstmCell = tf.contrib.rnn.DropoutWrapper(cell=lstmCell, output_keep_prob=0.75)
    try:
        outputs, final_state = tf.nn.dynamic_rnn(lstmCell, embeddings, dtype=tf.float32)
        print(outputs)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, str(e).splitlines()[0])
    tf.reset_default_graph()
    x = tf.placeholder(tf.float32, [None, 12])
    y = tf.placeholder(tf.float32, [None, 10])
    w = tf.Variable(tf.zeros([12, 10]))
    b = tf.Variable(tf.zeros([10]))
    activation = tf.nn.softmax_cross_entropy_with_logits(logits = tf.matmul(x, w) + b, labels=y)
    train = tf.train.GradientDescentOptimizer(0.5).minimize(activation)
    s = tf.InteractiveSession()
    rng = np.random.RandomState(0)
    try:
        for i in range(2):
            x_bat, y_bat = rng.rand(5, 12), np.eye(10)[rng.randint(0, 10, 5)]
            train_step = s.run(train, feed_dict={x: x_bat, y: y_bat})
    except tf.errors.FailedPreconditionError as e:
        print(type(e).__name__, e.message.splitlines()[0])
    s.run(tf.global_variables_initializer())
    print(s.run(train, feed_dict={x: x_bat, y: y_bat}), s.run(tf.reduce_sum(w)))
    s.close()

    _printed(capsys, """\
ValueError: Error when checking input: expected dense_input to have shape (5,) but got array with shape (1,)
Tensor("embedding_lookup/Identity:0", shape=(?, 6, 10), dtype=float64)
TypeError in converted code:
FailedPreconditionError Attempting to use uninitialized value Variable_1
None -9.536743e-07
""")


def test_keras_channels_first_and_mismatched_autoencoder(capsys, tmp_path):
    # tensfa/tensfa SFData/StackOverflow s46501505_original.py and s47842931_original.py (keras -> tf.keras; its channels-first model not run: tideflow's CPU pools take NCHW, TF 1.15's refuse, by design) (reduced)
    import numpy as np
    # tensfa/tensfa SFData/StackOverflow s46501505_original.py (channels_first Conv2D with Keras 1's dim_ordering
    # keyword; spectrograms 1366x96 -> 12x8; keras -> tf.keras) and s47842931_original.py (a conv encoder/decoder whose
    # 28x28 input decodes to 32x32)
    from tensorflow.keras import backend as K
    from tensorflow.keras.models import Sequential, Model
    from tensorflow.keras.layers import Conv2D, MaxPooling2D, Flatten, Dense, Dropout, Input, UpSampling2D
    print(hasattr(K, 'set_image_dim_ordering'), K.image_data_format())
    K.set_image_data_format('channels_first')
    try:
        model = Sequential()
        model.add(Conv2D(4, kernel_size=(3, 3),activation='relu', padding="same", input_shape=(1, 12, 8)))
        model.add(Conv2D(4, (3, 3), activation='relu', dim_ordering="th"))
    except TypeError as e:
        print('TypeError:', e)
    model = Sequential()
    model.add(Conv2D(4, kernel_size=(3, 3),activation='relu', padding="same", input_shape=(1, 12, 8)))
    model.add(Conv2D(4, (3, 3), activation='relu'))
    model.add(MaxPooling2D(pool_size=(2, 2)))
    model.add(Flatten())
    model.add(Dense(2, activation='softmax'))
    print(model.output_shape, [l.output_shape for l in model.layers][:3])
    K.set_image_data_format('channels_last')
    tf.keras.backend.clear_session()
    inputTensor = Input((28, 28, 1))
    x = Conv2D(16, (3, 3), activation='relu', padding='same')(inputTensor)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    x = MaxPooling2D((2, 2), padding='same')(x)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    encoded_data = MaxPooling2D((2, 2), padding='same')(x)
    encoder_model = Model(inputTensor,encoded_data)
    print(encoder_model.output_shape)
    encoded_input = Input((4,4,8))
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(encoded_input)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(8, (3, 3), activation='relu', padding='same')(x)
    x = UpSampling2D((2, 2))(x)
    x = Conv2D(16, (3, 3), activation='relu',padding='same')(x)
    x = UpSampling2D((2, 2))(x)
    decoded_data = Conv2D(1, (3, 3), activation='sigmoid', padding='same')(x)
    decoder_model = Model(encoded_input, decoded_data)
    print(decoder_model.output_shape)
    try:
        auto = Model(inputTensor, decoder_model(encoder_model(inputTensor)))
    except ValueError as e:
        print('ValueError:', str(e).splitlines()[0])

    _printed(capsys, """\
False channels_last
TypeError: ('Keyword argument not understood:', 'dim_ordering')
(None, 2) [(None, 4, 12, 8), (None, 4, 10, 6), (None, 4, 5, 3)]
(None, 7, 7, 8)
(None, 32, 32, 1)
""")


def test_string_in_feed_and_finalized_graph(capsys, tmp_path):
    # Asher-1/AI ML/linearRegression/11_placeholder.py and mtanti/deeplearningtutorial tensorflow/01_-_Introduction_to_Tensorflow/04_-_Variably_sized_tensors.py (reduced)
    import numpy as np
    # Asher-1/AI ML/linearRegression/11_placeholder.py (a feed mixing a string into numbers) and
    # mtanti/deeplearningtutorial tensorflow/01_-_Introduction_to_Tensorflow/04_-_Variably_sized_tensors.py
    # (a finalized graph fed batches of several sizes)
    A = tf.placeholder(tf.float32, shape=(None, 3))
    B = A + 5
    with tf.Session() as sess:
        B_val_1 = B.eval(feed_dict={A: [[1, 2, 3]]})
        try:
            B_val_2 = B.eval(feed_dict={A: [["4", 5, 6], [7, 8, 9]]})
        except Exception as e:
            B_val_2 = None
            print(type(e).__name__, e)
    print(B_val_1)
    print(B_val_2)
    g = tf.Graph()
    with g.as_default():
        a = tf.placeholder(tf.float32, [None], 'a')
        b = tf.placeholder(tf.float32, [None, 2], 'b')
        g.finalize()
        print(g.finalized)
        with tf.Session() as s:
            [ result ] = s.run([ a ], { a: [1.0] })
            print(result)
            [ result ] = s.run([ a ], { a: [1.0, 2.0, 3.0] })
            print(result)
            [ result ] = s.run([ b ], { b: [[1.0, 2.0]] })
            print(result)
            [ result ] = s.run([ b ], { b: [[1.0,2.0], [3.0,4.0], [5.0,6.0]] })
            print(result)
            try:
                s.run(a + 1, {a: [1.0]})
            except RuntimeError as e:
                print('RuntimeError:', e)
            try:
                s.run(b, {b: [[1.0, 2.0], [3.0]]})
            except Exception as e:
                print(type(e).__name__, str(e).splitlines()[0])

    _printed(capsys, """\
[[6. 7. 8.]]
[[ 9. 10. 11.]
 [12. 13. 14.]]
True
[1.]
[1. 2. 3.]
[[1. 2.]]
[[1. 2.]
 [3. 4.]
 [5. 6.]]
RuntimeError: Graph is finalized and cannot be modified.
ValueError setting an array element with a sequence.
""")


def test_interactive_session_runs_no_grappler():
    # TF 1.15's InteractiveSession sets graph_options.place_pruned_graph (and, given no config,
    # gpu_options.allow_growth); under place_pruned_graph TF runs no grappler pass: log(softmax)
    # stays two ops (-inf where the softmax underflows) and x ** 2 stays a powf (measured)
    import numpy as np
    x = tf.placeholder(tf.float32, [1, 2])
    y = tf.log(tf.nn.softmax(x))
    z = tf.pow(x, 2.0)
    got = []
    for mk in (lambda: tf.Session(), lambda: tf.InteractiveSession(),
               lambda: tf.Session(config=tf.ConfigProto(
                   graph_options=tf.GraphOptions(place_pruned_graph=True)))):
        s = mk()
        try:
            got.append((s.run(y, {x: [[0., 200.]]}).tolist(),
                        s.run(z, {x: [[0.04496875, 3.]]}).view(np.int32).tolist()))
        finally:
            s.close()
    assert got == [([[-200.0, 0.0]], [[990152369, 1091567616]]),
                   ([[-np.inf, 0.0]], [[990152370, 1091567616]]),
                   ([[-np.inf, 0.0]], [[990152370, 1091567616]])]
    s = tf.InteractiveSession(config=tf.ConfigProto(log_device_placement=False))
    try:
        assert (s._config.graph_options.place_pruned_graph, s._config.gpu_options.allow_growth) == (
            True, False)
    finally:
        s.close()
    s = tf.InteractiveSession()
    try:
        assert (s._config.graph_options.place_pruned_graph, s._config.gpu_options.allow_growth) == (
            True, True)
    finally:
        s.close()
