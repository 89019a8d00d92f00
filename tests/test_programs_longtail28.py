"""The long tail of TF 1.x programs: small single-author repositories in several domains
(recommendation, physics, vision, medicine, NLP, finance, tabular), each reduced to a
standalone form with small synthetic data (API calls, graph structure and training loop kept;
sizes and step counts shrunk; helper code from the program's own repository inlined). Each
test runs the reduced program and compares what it prints, line by line and exactly, with
what TF 1.15 (tensorflow-cpu 1.15.0) printed running the same program with the same seeds
(measured). The programs keep their authors' code style, hence the lint exemptions."""
# ruff: noqa: F401, F841, I001, RUF059, UP031, UP032

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
