"""Differential fuzzing of control flow and state against TF 1.15 (session 28, helper h314):
the minimal cases where tideflow differed from TF (values, static shapes, errors, which ops a
step runs), with TF 1.15's behaviour as measured, and a small seeded fuzz run checking
tideflow's while loops (nested, dict loop variables, maximum_iterations), conds, scan, folds,
map_fn, TensorArrays written in loops and variables updated in loops against a float64 NumPy
evaluation of the same program, run three times in one session (the updates carry over)."""

# ruff: noqa: B023  (the builders' lambdas are traced in the iteration that makes them)
import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- minimal cases (TF 1.15's behaviour measured) --------------------------------------------

def test_shape_invariants_must_have_the_loop_variables_structure():
    # TF 1.15 checks the invariants with nest.assert_same_structure, sequence types included
    x = tf.placeholder(tf.float32, [4])
    body = lambda i, a: (i + 1, tf.concat([a, a], 0))
    with pytest.raises(TypeError, match="don't have the same sequence type"):
        tf.while_loop(lambda i, a: i < 3, body, (tf.constant(0), x[:1]),
                      shape_invariants=[tf.TensorShape([]), tf.TensorShape([None])])
    with pytest.raises(TypeError, match="don't have the same nested structure"):
        tf.while_loop(lambda i, a: i < 3, body, [tf.constant(0), x[:1]],
                      shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))
    # an invariant written as a list of dims is a sequence where the loop variable is a leaf
    with pytest.raises(ValueError, match=r'Substructure "type=list str=\[None\]" is a sequence'):
        tf.while_loop(lambda i, a: i < 3, body, (tf.constant(0), x[:1]),
                      shape_invariants=(tf.TensorShape([]), [None]))
    out = tf.while_loop(lambda i, a: i < 3, body, (tf.constant(0), x[:1]),
                        shape_invariants=(tf.TensorShape([]), tf.TensorShape([None])))
    assert str(out[1].shape) == "(?,)"


def test_shape_invariants_with_maximum_iterations_pack_a_lone_loop_variable():
    # with maximum_iterations TF 1.15 pairs the counter with loop_vars[0] when there is one
    # loop variable, and its invariant with the whole shape_invariants argument
    x = tf.placeholder(tf.float32, [4])
    with pytest.raises(ValueError, match=r"type=tuple str=\(TensorShape\(\[\]\), \[TensorShape"):
        tf.while_loop(lambda a: True, lambda a: a, [x[:1]],
                      shape_invariants=[tf.TensorShape([None])], maximum_iterations=3)
    out = tf.while_loop(lambda a: True, lambda a: tf.concat([a, a], 0), [x[:1]],
                        shape_invariants=tf.TensorShape([None]), maximum_iterations=3)
    assert str(out.shape) == "(?,)"
    with pytest.raises(KeyError):  # loop_vars[0] of a dict
        tf.while_loop(lambda d: True, lambda d: d, {'a': x}, maximum_iterations=3)


def test_tensor_array_concat_of_scalar_elements_is_a_vector_statically():
    # TF 1.15's concat sets [None] + element_shape[1:] whenever the element shape is known,
    # a scalar's too (the kernel then fails: "Concat saw a scalar shape at index 0")
    x = tf.placeholder(tf.float32, [])
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = tf.while_loop(lambda i, t: i < 2, lambda i, t: (i + 1, t.write(i, x)),
                       (tf.constant(0), ta))[1]
    assert str(ta.concat().shape) == "(?,)"
    assert str(tf.TensorArray(tf.float32, size=3).unstack(tf.zeros([3])).concat().shape) == "(?,)"
    with tf.Session() as s, pytest.raises(tf.errors.InvalidArgumentError,
                                          match="Concat saw a scalar shape at index 0"):
        s.run(ta.concat(), {x: 1.0})


def test_maximum_iterations_returns_a_lone_structured_loop_variable_unwrapped():
    # TF 1.15 packs a lone loop variable with the counter and returns it as the body gave it:
    # [(a, b)] gives (a, b), [{'a', 'i'}] the dict, [[a, b]] [a, b]
    x = tf.constant(1.0)
    out = tf.while_loop(lambda d: True, lambda d: (d[0] + 1, d[1]), [(x, x)], maximum_iterations=3)
    assert isinstance(out, tuple) and len(out) == 2
    out = tf.while_loop(lambda d: True, lambda d: {'a': d['a'] + 1, 'i': d['i']},
                        [{'a': x, 'i': x}], maximum_iterations=3)
    assert isinstance(out, dict) and sorted(out) == ['a', 'i']
    out3 = tf.while_loop(lambda d: True, lambda d: [d[0] + 1, d[1]], [[x, x]], maximum_iterations=3)
    assert isinstance(out3, list) and len(out3) == 2
    with tf.Session() as s:
        assert s.run(out) == {'a': 4.0, 'i': 1.0}
        assert s.run(out3) == [4.0, 1.0]


def test_map_fn_and_scan_take_the_first_elems_row_count_statically():
    # TF 1.15 merges the other elems' row counts only to check them (the merge is dropped):
    # (x: [?, 3], y: [4, 3]) maps to (?, 3), (y, x) to (4, 3); 2 rows against 4 still fail
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.zeros([4, 3])
    assert str(tf.map_fn(lambda e: e[0] * e[1], (x, y), dtype=tf.float32).shape) == "(?, 3)"
    assert str(tf.map_fn(lambda e: e[0] * e[1], (y, x), dtype=tf.float32).shape) == "(4, 3)"
    assert str(tf.scan(lambda a, e: a + e[0] * e[1], (x, y),
                       initializer=tf.zeros([3])).shape) == "(?, 3)"
    with pytest.raises(ValueError, match="Dimensions 2 and 4 are not compatible"):
        tf.map_fn(lambda e: e[0] * e[1], (tf.zeros([2, 3]), y), dtype=tf.float32)


def test_sigmoid_gradient_of_a_scalar_takes_tfs_scalar_rounding():
    # TF 1.15's SigmoidGrad rounds (dy * y) * (1 - y) outside its packets, so for a scalar
    # (a cond's branch or a loop's value as much as a plain one); measured: 0x1.2785b0p-2
    x = tf.placeholder(tf.float32, [])
    p = tf.placeholder(tf.bool, [])
    c = tf.cond(p, lambda: tf.sigmoid(x), lambda: tf.cos(x) * 0.9)
    g1 = tf.gradients(tf.reduce_sum(tf.square(c)), [x])[0]
    g2 = tf.gradients(tf.square(tf.sigmoid(x)), [x])[0]
    with tf.Session() as s:
        got = s.run([g1, g2], {x: 0.416, p: True})
    assert [float(v).hex() for v in got] == ['0x1.2785b00000000p-2'] * 2


# ---- the seeded control-flow fuzz run: tideflow against a float64 NumPy evaluation -----------

N, D = 4, 3
FN = {'tanh': (lambda t: tf.tanh(t), np.tanh),
      'sin': (lambda t: tf.sin(t), np.sin),
      'affine': (lambda t: t * 0.5 + 0.25, lambda a: a * 0.5 + 0.25),
      'sigmoid': (lambda t: tf.sigmoid(t), lambda a: 1 / (1 + np.exp(-a))),
      'cos': (lambda t: tf.cos(t) * 0.9, lambda a: np.cos(a) * 0.9)}


def _program(seed):
    """A seeded list of statements over a pool of [N] ('v') and [N, D] ('m') values."""
    r = np.random.RandomState(seed)
    pool = [('x', 'v'), ('y', 'm')]
    stmts = []

    def pick(kind):
        c = [p for p, k in pool if k == kind]
        return c[r.randint(len(c))]

    fname = lambda: str(r.choice(sorted(FN)))
    for k in range(r.randint(3, 8)):
        op = str(r.choice(['while', 'while2', 'cond', 'scan', 'foldl', 'foldr', 'map', 'ta',
                           'assign', 'loop_assign', 'nested']))
        name = f's{k}'
        kind = 'v'
        if op in ('while', 'while2', 'cond', 'nested'):
            kind = str(r.choice(['v', 'm']))
            p = {'src': pick(kind), 'other': pick(kind), 'f': fname(), 'g': fname(),
                     'n': None if r.rand() < 0.4 else int(r.randint(0, 5)),
                     'mx': None if r.rand() < 0.6 else int(r.randint(0, 4)),
                     'thr': float(r.choice([-1.0, 0.0, 1.0])), 'pi': int(r.choice([1, 10]))}
        elif op in ('scan', 'foldl', 'foldr', 'map'):
            p = {'src': pick('m'), 'f': fname(), 'rev': bool(r.rand() < 0.5), 'init': bool(r.rand() < 0.5)}
            kind = 'm' if op in ('scan', 'map') else 'r'
        elif op == 'ta':
            p = {'src': pick('v'), 'f': fname(), 'n': int(r.randint(1, 5)), 'dyn': bool(r.rand() < 0.5)}
            kind = 't'
        else:
            p = {'src': pick('v'), 'var': str(r.choice(['ref', 'res'])), 'n': int(r.randint(0, 4))}
        stmts.append((name, op, p))
        if kind in ('v', 'm'):
            pool.append((name, kind))
    feeds = {'x': np.round(r.randn(N), 3).astype(np.float32),
                 'y': np.round(r.randn(N, D), 3).astype(np.float32),
                 'v0': np.round(r.randn(N), 3).astype(np.float32),
                 'ni': [int(r.randint(0, 4)) for _ in range(3)]}
    return stmts, feeds


def _build(stmts, feeds):
    x = tf.placeholder(tf.float32, [None])
    y = tf.placeholder(tf.float32, [N, None])
    ni = tf.placeholder(tf.int32, [])
    ref = tf.Variable(feeds['v0'])
    res = tf.Variable(feeds['v0'] * 2.0, use_resource=True)
    T = {'x': x, 'y': y}
    dep = tf.no_op()
    for name, op, p in stmts:
        f = FN[p.get('f', 'tanh')][0]
        if op in ('while', 'while2', 'nested'):
            g, lim = FN[p['g']][0], (ni if p['n'] is None else p['n'])
            b = T[p['other']]
            with tf.control_dependencies([dep]):
                a0 = tf.identity(T[p['src']])
            if op == 'while':
                out = tf.while_loop(lambda i, a: i < lim, lambda i, a: (i + 1, f(a) * 0.8 + g(b)),
                                    (0, a0), maximum_iterations=p['mx'],
                                    parallel_iterations=p['pi'])[1]
            elif op == 'while2':
                out = tf.while_loop(lambda i, d: i < lim,
                                    lambda i, d: (i + 1, {'a': f(d['a']), 'c': d['c'] + d['a']}),
                                    (0, {'a': a0, 'c': b}), maximum_iterations=p['mx'])[1]['c']
            else:
                def body(i, a):
                    _, c = tf.while_loop(lambda j, c: j < i, lambda j, c: (j + 1, g(c) + a * 0.5),
                                         (0, a * 0.0))
                    return i + 1, f(a) + c * 0.25
                out = tf.while_loop(lambda i, a: i < lim, body, (0, a0),
                                    maximum_iterations=p['mx'])[1]
        elif op == 'cond':
            g, a, b = FN[p['g']][0], T[p['src']], T[p['other']]
            with tf.control_dependencies([dep]):
                pr = tf.reduce_sum(a) > p['thr']
            out = tf.cond(pr, lambda: f(a), lambda: g(b) * 2.0)
        elif op == 'scan':
            out = tf.scan(lambda acc, e: acc * 0.9 + f(e), T[p['src']], reverse=p['rev'],
                          initializer=tf.ones([D]) if p['init'] else None)
        elif op in ('foldl', 'foldr'):
            fold = tf.foldl if op == 'foldl' else tf.foldr
            out = fold(lambda acc, e: acc * 0.5 - f(e), T[p['src']],
                       initializer=tf.ones([D]) if p['init'] else None)
        elif op == 'map':
            out = tf.map_fn(lambda e: f(e) * tf.reduce_sum(e), T[p['src']])
        elif op == 'ta':
            ta = tf.TensorArray(tf.float32, size=0 if p['dyn'] else p['n'], dynamic_size=p['dyn'])
            out = tf.while_loop(lambda i, a, t: i < p['n'],
                                lambda i, a, t: (i + 1, f(a), t.write(i, a)),
                                (0, T[p['src']], ta))[2].stack()
        else:
            var = ref if p['var'] == 'ref' else res
            a = T[p['src']]
            with tf.control_dependencies([dep]):
                if op == 'assign':
                    upd = tf.assign_add(var, a)
                else:
                    def body(i, c):
                        with tf.control_dependencies([tf.assign_add(var, c * 0.5)]):
                            return i + 1, c - 0.25
                    upd = tf.while_loop(lambda i, c: i < p['n'], body, (0, tf.identity(a)),
                                        parallel_iterations=1)[1]
            with tf.control_dependencies([upd]):
                out = var.read_value() * 1.0
        dep = out
        T[name] = out
    return T, x, y, ni


def _evaluate(stmts, feeds, run, state):
    V = {'x': feeds['x'].astype(np.float64), 'y': feeds['y'].astype(np.float64)}
    niv = feeds['ni'][run]
    for name, op, p in stmts:
        f = FN[p.get('f', 'tanh')][1]
        if op in ('while', 'while2', 'nested'):
            g = FN[p['g']][1]
            n = niv if p['n'] is None else p['n']
            if p['mx'] is not None:
                n = min(n, p['mx'])
            a, b = V[p['src']], V[p['other']]
            if op == 'while':
                for _ in range(n):
                    a = f(a) * 0.8 + g(b)
                out = a
            elif op == 'while2':
                c = b
                for _ in range(n):
                    a, c = f(a), c + a
                out = c
            else:
                for i in range(n):
                    c = a * 0.0
                    for _ in range(i):
                        c = g(c) + a * 0.5
                    a = f(a) + c * 0.25
                out = a
        elif op == 'cond':
            a, b = V[p['src']], V[p['other']]
            out = f(a) if a.sum() > p['thr'] else FN[p['g']][1](b) * 2.0
        elif op == 'scan':
            rows = V[p['src']][::-1] if p['rev'] else V[p['src']]
            acc = np.ones(D) if p['init'] else None
            outs = []
            for k, e in enumerate(rows):
                acc = rows[0] if acc is None else acc * 0.9 + f(e)
                outs.append(acc)
            out = np.array(outs[::-1] if p['rev'] else outs)
        elif op in ('foldl', 'foldr'):
            rows = V[p['src']] if op == 'foldl' else V[p['src']][::-1]
            acc = np.ones(D) if p['init'] else rows[0]
            for e in (rows if p['init'] else rows[1:]):
                acc = acc * 0.5 - f(e)
            out = acc
        elif op == 'map':
            out = np.array([f(e) * e.sum() for e in V[p['src']]])
        elif op == 'ta':
            a, outs = V[p['src']], []
            for _ in range(p['n']):
                outs.append(a)
                a = f(a)
            out = np.array(outs)
        else:
            a = V[p['src']]
            if op == 'assign':
                state[p['var']] = state[p['var']] + a
            else:
                for _ in range(p['n']):
                    state[p['var']] = state[p['var']] + a * 0.5
                    a = a - 0.25
            out = state[p['var']].copy()
        V[name] = out
    return V


@pytest.mark.parametrize('seed', range(40))
def test_seeded_control_flow_programs_against_numpy(seed):
    # each program runs three times in one session: the variables' updates carry over
    stmts, feeds = _program(seed)
    T, x, y, ni = _build(stmts, feeds)
    state = {'ref': feeds['v0'].astype(np.float64), 'res': feeds['v0'].astype(np.float64) * 2}
    names = [s[0] for s in stmts]
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for run in range(3):
            got = s.run([T[k] for k in names], {x: feeds['x'], y: feeds['y'], ni: feeds['ni'][run]})
            want = _evaluate(stmts, feeds, run, state)
            for k, g in zip(names, got):
                assert g.dtype == np.float32 and g.shape == want[k].shape, (k, stmts)
                np.testing.assert_allclose(g, want[k], rtol=1e-4, atol=1e-4, err_msg=str((k, stmts)))
