"""Differential fuzzing of training steps against TF 1.15 (session 28, helper h312): the minimal
cases where a training loop left variables, slots or checkpoints other than TF's (values
measured in TF 1.15), and a small seeded fuzz run that trains random small models (a dense
layer over features and a mean-combined embedding with duplicate ids, so gradients are
IndexedSlices) with every tf.train optimizer on random hyper-parameters, ref or resource
variables, and checks every step's variables against an independent float64 NumPy evaluation
of the optimizers' update rules, plus invariants (slots, checkpoint contents, restore)."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- seeded fuzz run against NumPy (float64) ------------------------------------------------

_OPTS = ['sgd', 'momentum', 'adam', 'adagrad', 'adagradda', 'adadelta', 'rmsprop', 'ftrl',
         'proxsgd', 'proxadagrad']


def _program(seed):
    r = np.random.RandomState(seed)
    n, d, v, e, ln = (int(r.randint(2, 6)), int(r.randint(2, 5)), int(r.randint(3, 7)),
                      int(r.randint(1, 4)), int(r.randint(1, 4)))
    ids = r.randint(0, v, size=(n, ln)).astype(np.int32)
    ids[:, 0] = ids[0, 0]  # duplicate ids in every batch
    softmax = bool(r.rand() < 0.5)
    k = int(r.randint(2, 4)) if softmax else 1
    p = {'lr': float(r.choice([0.05, 0.1, 0.3])), 'mom': float(r.choice([0.0, 0.5, 0.9])),
         'nesterov': bool(r.rand() < 0.5), 'b1': float(r.choice([0.9, 0.5])),
         'b2': float(r.choice([0.999, 0.9])), 'eps': float(r.choice([1e-7, 1e-3, 0.1])),
         'iacc': float(r.choice([0.1, 1.0])), 'l1': float(r.choice([0.0, 0.01, 0.2])),
         'l2': float(r.choice([0.0, 0.01, 0.2])), 'l2s': float(r.choice([0.0, 0.1])),
         'lrpow': float(r.choice([-0.5, -0.3])), 'rho': float(r.choice([0.95, 0.5])),
         'decay': float(r.choice([0.9, 0.5])), 'centered': bool(r.rand() < 0.5)}
    return {
        'x': r.randn(n, d).astype(np.float32), 'ids': ids,
        'w': (r.randn(d + e, k) * 0.5).astype(np.float32),
        'b': (r.randn(k) * 0.1).astype(np.float32),
        'emb': (r.randn(v, e) * 0.5).astype(np.float32), 'softmax': softmax,
        'y': (r.randint(0, k, n).astype(np.int32) if softmax else r.randn(n, 1).astype(np.float32)),
        'opt': _OPTS[seed % len(_OPTS)], 'p': p, 'resource': bool(seed // 10 % 2),
        'steps': int(r.randint(3, 6))}


def _build(tf, s):
    """The program in the default graph: returns (train op, loss, [emb, w, b], optimizer)."""
    p, lr = s['p'], s['p']['lr']
    gstep = tf.train.get_or_create_global_step()
    with tf.variable_scope('m', use_resource=s['resource']):
        emb = tf.get_variable('emb', initializer=tf.constant(s['emb']))
        w = tf.get_variable('w', initializer=tf.constant(s['w']))
        b = tf.get_variable('b', initializer=tf.constant(s['b']))
    look = tf.reduce_mean(tf.nn.embedding_lookup(emb, s['ids']), 1)
    logits = tf.matmul(tf.concat([tf.constant(s['x']), look], 1), w) + b
    if s['softmax']:
        loss = tf.losses.sparse_softmax_cross_entropy(s['y'], logits)
    else:
        loss = tf.losses.mean_squared_error(s['y'], logits)
    o = s['opt']
    opt = {
        'sgd': lambda: tf.train.GradientDescentOptimizer(lr),
        'momentum': lambda: tf.train.MomentumOptimizer(lr, p['mom'], use_nesterov=p['nesterov']),
        'adam': lambda: tf.train.AdamOptimizer(lr, p['b1'], p['b2'], p['eps']),
        'adagrad': lambda: tf.train.AdagradOptimizer(lr, p['iacc']),
        'adagradda': lambda: tf.train.AdagradDAOptimizer(
            lr, gstep, p['iacc'], l1_regularization_strength=p['l1'],
            l2_regularization_strength=p['l2']),
        'adadelta': lambda: tf.train.AdadeltaOptimizer(lr * 10, p['rho'], p['eps']),
        'rmsprop': lambda: tf.train.RMSPropOptimizer(lr, p['decay'], p['mom'], p['eps'],
                                                     centered=p['centered']),
        'ftrl': lambda: tf.train.FtrlOptimizer(lr, p['lrpow'], p['iacc'], p['l1'], p['l2'],
                                               l2_shrinkage_regularization_strength=p['l2s']),
        'proxsgd': lambda: tf.train.ProximalGradientDescentOptimizer(lr, p['l1'], p['l2']),
        'proxadagrad': lambda: tf.train.ProximalAdagradOptimizer(lr, p['iacc'], p['l1'],
                                                                 p['l2']),
    }[o]()
    return opt.minimize(loss, global_step=gstep), loss, [emb, w, b], opt


def _grads(s, emb, w, b):
    """float64 loss gradients: dense for w and b; (summed rows, unique ids) for emb."""
    x, ids = s['x'].astype(np.float64), s['ids']
    n, ln = ids.shape
    h = np.concatenate([x, emb[ids].mean(1)], 1)
    z = h @ w + b
    if s['softmax']:
        pr = np.exp(z - z.max(1, keepdims=True))
        pr /= pr.sum(1, keepdims=True)
        dz = (pr - np.eye(z.shape[1])[s['y']]) / n
    else:
        dz = 2.0 * (z - s['y']) / z.size
    dh = dz @ w.T
    uniq = np.unique(ids)
    ge = np.zeros_like(emb)
    np.add.at(ge, ids.ravel(), np.repeat(dh[:, x.shape[1]:], ln, 0) / ln)
    return ge[uniq], uniq, h.T @ dz, dz.sum(0)


def _step(o, p, var, g, sl, t, rows=None):
    """One TF update rule in float64 on var[rows] (all rows when rows is None); sl: slots."""
    idx = slice(None) if rows is None else rows
    lr, w = p['lr'], var[idx]
    if o == 'sgd':
        w = w - lr * g
    elif o == 'momentum':
        a = sl['momentum'][idx] * p['mom'] + g
        sl['momentum'][idx] = a
        w = w - (lr * g + lr * p['mom'] * a if p['nesterov'] else lr * a)
    elif o == 'adam':  # the sparse update also decays every row's moments
        gg = np.zeros_like(var)
        gg[idx] = g
        sl['m'][:] = p['b1'] * sl['m'] + (1 - p['b1']) * gg
        sl['v'][:] = p['b2'] * sl['v'] + (1 - p['b2']) * gg * gg
        lrt = lr * np.sqrt(1 - p['b2'] ** t) / (1 - p['b1'] ** t)
        var[:] = var - lrt * sl['m'] / (np.sqrt(sl['v']) + p['eps'])
        return
    elif o in ('adagrad', 'proxadagrad'):
        acc = sl['accumulator'][idx] + g * g
        sl['accumulator'][idx] = acc
        if o == 'adagrad':
            w = w - lr * g / np.sqrt(acc)
        else:
            lt = lr / np.sqrt(acc)
            pr = w - lt * g
            w = np.sign(pr) * np.maximum(np.abs(pr) - lt * p['l1'], 0) / (1 + lt * p['l2'])
    elif o == 'proxsgd':
        pr = w - lr * g
        w = np.sign(pr) * np.maximum(np.abs(pr) - lr * p['l1'], 0) / (1 + lr * p['l2'])
    elif o == 'adagradda':
        ga = sl['gradient_accumulator'][idx] + g
        gg = sl['gradient_squared_accumulator'][idx] + g * g
        sl['gradient_accumulator'][idx], sl['gradient_squared_accumulator'][idx] = ga, gg
        den = p['l2'] * t * lr + np.sqrt(gg)  # the step's global_step + 1
        w = -np.sign(ga) * np.maximum(np.abs(ga) - p['l1'] * t, 0) * lr / den
    elif o == 'adadelta':
        rho, eps = p['rho'], p['eps']
        acc = rho * sl['accum'][idx] + (1 - rho) * g * g
        up = np.sqrt(sl['accum_update'][idx] + eps) / np.sqrt(acc + eps) * g
        sl['accum'][idx] = acc
        sl['accum_update'][idx] = rho * sl['accum_update'][idx] + (1 - rho) * up * up
        w = w - lr * 10 * up
    elif o == 'rmsprop':
        ms = p['decay'] * sl['rms'][idx] + (1 - p['decay']) * g * g
        sl['rms'][idx] = ms
        if p['centered']:
            mg = p['decay'] * sl['mg'][idx] + (1 - p['decay']) * g
            sl['mg'][idx] = mg
            ms = ms - mg * mg
        mo = p['mom'] * sl['momentum'][idx] + lr * g / np.sqrt(ms + p['eps'])
        sl['momentum'][idx] = mo
        w = w - mo
    elif o == 'ftrl':
        acc0 = sl['accum'][idx]
        acc = acc0 + g * g
        lin = sl['linear'][idx] + g + 2 * p['l2s'] * w - (
            acc ** -p['lrpow'] - acc0 ** -p['lrpow']) / lr * w
        sl['accum'][idx], sl['linear'][idx] = acc, lin
        q = acc ** -p['lrpow'] / lr + 2 * p['l2']
        w = np.where(np.abs(lin) > p['l1'], (np.sign(lin) * p['l1'] - lin) / q, 0.0)
    var[idx] = w


_SLOTS = {'sgd': {}, 'momentum': {'momentum': 0.0}, 'adam': {'m': 0.0, 'v': 0.0},
          'adagrad': {'accumulator': 'iacc'}, 'proxadagrad': {'accumulator': 'iacc'},
          'proxsgd': {}, 'adagradda': {'gradient_accumulator': 0.0,
                                      'gradient_squared_accumulator': 'iacc'},
          'adadelta': {'accum': 0.0, 'accum_update': 0.0},
          'rmsprop': {'rms': 1.0, 'momentum': 0.0, 'mg': 0.0},
          'ftrl': {'accum': 'iacc', 'linear': 0.0}}


def _numpy_trajectory(s):
    vals = [s['emb'].astype(np.float64), s['w'].astype(np.float64), s['b'].astype(np.float64)]
    slots = [{k: np.full(v.shape, s['p'][i] if isinstance(i, str) else i)
              for k, i in _SLOTS[s['opt']].items()} for v in vals]
    out = []
    for t in range(1, s['steps'] + 1):
        ge, uniq, gw, gb = _grads(s, *vals)
        _step(s['opt'], s['p'], vals[0], ge, slots[0], t, uniq)
        _step(s['opt'], s['p'], vals[1], gw, slots[1], t)
        _step(s['opt'], s['p'], vals[2], gb, slots[2], t)
        out.append([v.copy() for v in vals])
    return out


@pytest.mark.parametrize('seed', range(30))
def test_fuzz_training_trajectory_against_numpy(seed, tmp_path):
    s = _program(seed)
    train, loss, var_list, opt = _build(tf, s)
    want = _numpy_trajectory(s)
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        got = []
        for i in range(s['steps']):
            sess.run([train, loss])
            got.append(sess.run(var_list))
            if i == 1:
                path = saver.save(sess, str(tmp_path / 'ck'))
                saved = sess.run(tf.global_variables())
        for g_step, w_step in zip(got, want):
            for g, w in zip(g_step, w_step):
                scale = max(1.0, np.abs(w).max())
                np.testing.assert_allclose(g, w, rtol=0, atol=2e-4 * scale)
        # restore rewinds every variable (slots and global step too)
        saver.restore(sess, path)
        for a, b in zip(sess.run(tf.global_variables()), saved):
            assert np.array_equal(a, b)
    names = sorted((v.op.name, tuple(v.shape.as_list())) for v in tf.global_variables())
    assert sorted((n, tuple(sh)) for n, sh in tf.train.list_variables(path)) == names
    want_slots = sorted(k for k in _SLOTS[s['opt']] if k != 'mg' or s['p']['centered'])
    assert sorted(opt.get_slot_names()) == want_slots


# ---- minimal cases found by the differential fuzzer (TF 1.15's behaviour as measured) -------

@pytest.mark.parametrize('make', [
    lambda lr: tf.train.FtrlOptimizer(lr),
    lambda lr: tf.train.ProximalGradientDescentOptimizer(lr),
    lambda lr: tf.train.ProximalAdagradOptimizer(lr),
    lambda lr: tf.train.AdagradDAOptimizer(lr, tf.train.get_or_create_global_step()),
])
def test_optimizers_without_callable_rates_refuse_a_function(make):
    # TF 1.15's Ftrl, ProximalGD, ProximalAdagrad and AdagradDA convert the rate as given in
    # _prepare (no _call_if_callable): minimize fails with convert_to_tensor's TypeError
    w = tf.Variable([1.0])
    opt = make(lambda: 0.1)
    with pytest.raises(TypeError, match="Failed to convert object of type <class 'function'>"):
        opt.minimize(tf.reduce_sum(w * w))


@pytest.mark.parametrize('make,want', [
    (lambda lr: tf.train.GradientDescentOptimizer(lr), 0.5),
    (lambda lr: tf.train.MomentumOptimizer(lr, lambda: 0.5), 0.5),
    (lambda lr: tf.train.AdamOptimizer(lr, lambda: 0.9, lambda: 0.999, lambda: 1e-8), 0.75),
    (lambda lr: tf.train.AdagradOptimizer(lr), 0.7530676),
    (lambda lr: tf.train.AdadeltaOptimizer(lr, lambda: 0.95, lambda: 1e-6), 0.998882),
    (lambda lr: tf.train.RMSPropOptimizer(lr, lambda: 0.9, lambda: 0.0, lambda: 1e-10), 0.561471),
])
def test_optimizers_with_callable_rates_call_them(make, want):
    # ... while the others call their callables: w after one step from 1 on w^2 (TF 1.15's)
    w = tf.Variable([1.0])
    train = make(lambda: 0.25).minimize(tf.reduce_sum(w * w))
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        np.testing.assert_allclose(s.run(w), [want], rtol=1e-5)


@pytest.mark.parametrize('make,want', [
    (lambda: tf.train.ProximalGradientDescentOptimizer(0.5, 0.1, 0.2),
     [[-0.47107437968948207, -0.6983471035755818], [0.5, 0.25],
      [-0.11983471214323453, 1.6487603259883727]]),
    (lambda: tf.train.ProximalAdagradOptimizer(0.5, 0.1, 0.1, 0.2),
     [[0.07247617494561458, -0.9051523662430132], [0.5, 0.25],
      [1.9951836175277269, 0.7543810200024812]]),
])
def test_proximal_sparse_update_of_a_float64_resource_variable_casts_its_rates(make, want):
    # TF 1.15's proximal optimizers cast their float32 rate and strengths to the gradient's
    # type in _resource_apply_sparse only: a float64 resource embedding trains (two steps,
    # values measured), its dense update and a ref variable's updates fail with TypeError
    def build(resource, sparse):
        emb = tf.get_variable('e', initializer=np.array([[1.0, -2.0], [0.5, 0.25], [3.0, 0.0]]),
                              use_resource=resource)
        x = tf.nn.embedding_lookup(emb, [2, 0, 2]) if sparse else emb * 1.0
        return emb, make().minimize(tf.reduce_sum(x * np.array([1.5, -1.0])))

    for resource, sparse in ((True, False), (False, True)):
        with tf.Graph().as_default(), pytest.raises(TypeError, match='float32'):
            build(resource, sparse)
    emb, train = build(True, True)
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        s.run(train)
        s.run(train)
        assert s.run(emb).tolist() == want
