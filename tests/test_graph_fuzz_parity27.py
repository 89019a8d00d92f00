"""Random-graph differential fuzzing against TF 1.15 (session 27, helper h310): the minimal
cases where tideflow computed a value other than TF's, with TF 1.15's values as measured, and a
small seeded fuzz run checking tideflow against a float64 NumPy evaluation of the same random
graph (element-wise ops, constants of several shapes, reductions, matmul, array ops, AddN,
BiasAdd, softmax, control dependencies, tf.cond), fetched whole and in random subsets."""

# ruff: noqa: B023  (the generator's filters are called in the iteration that makes them)
import numpy as np
import pytest

import tideflow as tf
from tideflow.protos import rewriter_config_pb2


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


# ---- minimal wrong-value cases (values measured in TF 1.15) ---------------------------------

def test_pow3_twins_fetched_together_are_not_pushed_into():
    # Pow(x, 3) twins are merged (DedupComputations) before grappler's second constant
    # push-down, so the merged Pow has two readers and stays Mul(x, Square(x)) * 2.1; each
    # expression fetched alone is x * (2.1 * Square(x)).
    x = tf.placeholder(tf.float32, [None])
    a = (tf.pow(x, 3.0) * 0.3) * 7.0
    b = 3.0 * (tf.pow(x, 3.0) * 1.7)
    xv = np.array([5.292157173156738, 1.2004716396331787, 5.6026740074157715,
                   -0.45407161116600037], np.float32)
    with tf.Session() as s:
        va, vb = s.run([a, b], {x: xv})
        alone = s.run(a, {x: xv})
    assert va.tolist() == [311.2558288574219, 3.6330807209014893, 369.3221740722656,
                           -0.19660401344299316]
    assert vb.tolist() == [755.9070434570312, 8.823195457458496, 896.92529296875,
                           -0.4774669110774994]
    assert alone.tolist() == [311.255859375, 3.6330809593200684, 369.32220458984375,
                              -0.19660402834415436]


def test_rsqrt_special_values_on_whole_packets():
    # TF 1.15's float32 Rsqrt: the first 8 elements take Eigen's packet path (+inf for -0 and
    # x <= FLT_MIN, NaN for +inf, 1.5x the root where its Newton step flushes a denormal);
    # the last 3 the scalar one (0 for +inf, -inf for -0; a denormal reads as 0 there too)
    x = tf.placeholder(tf.float32, [None])
    v = np.array([np.inf, -0.0, 1e-40, 0.0, 3e38, 4.0, 2.0e-38, -1.0, np.inf, -0.0, 1e-40],
                 np.float32)
    with tf.Session() as s:
        out = s.run(tf.rsqrt(x), {x: v})
    tf115 = [np.nan, np.inf, np.inf, np.inf, 8.659588396695136e-20, 0.5, 1.0607665972317782e+19,
             np.nan, 0.0, -np.inf, np.inf]
    # (the CPU's approximate root decides the last bits of 3e38's and 2e-38's: not compared)
    np.testing.assert_allclose(out, np.array(tf115, np.float32), rtol=1e-3)
    assert (np.signbit(out) == np.signbit(tf115))[~np.isnan(tf115)].all()
    with tf.Session() as s:
        assert s.run(tf.rsqrt(x), {x: v[:3]}).tolist() == [0.0, -np.inf, np.inf]
        assert s.run(tf.rsqrt(tf.cast(x, tf.float64)), {x: v[:2]}).tolist() == [0.0, -np.inf]
        # the packets read x < FLT_MIN as 0 (a negative denormal too); FLT_MIN's Newton step
        # flushes -x / 2: 1.5 times the root
        w = np.array([-1e-40] * 9 + [1.1754944e-38] * 9, np.float32)
        tf115 = [np.inf] * 2 + [1.38333692054219e+19] * 7 + [9.223372036854776e+18] * 2
        np.testing.assert_allclose(s.run(tf.rsqrt(x), {x: w})[7:], tf115, rtol=1e-3)
        assert s.run(tf.rsqrt(x), {x: w[:9]}).tolist()[7:] == [np.inf, -np.inf]


def test_max_or_min_of_a_monotonic_function_reduces_first():
    # TF 1.15's OptimizeMaxOrMinOfMonotonic: max(neg(log1p(x))) runs as neg(log1p(min(x)))
    # when neither the reduction nor the functions are fetched: NaN where a row holds a value
    # below -1; ArgMax reads x itself (no ties of saturated sigmoids). Values measured.
    x = tf.placeholder(tf.float32, [None, 3])
    xv = np.array([[0.5, -2.0, 1.0], [3.0, 0.25, -0.5]], np.float32)
    m = tf.reduce_max(tf.negative(tf.log1p(x)), axis=1)
    a = tf.argmax(tf.sigmoid(x * 100.0), 1)
    with tf.Session() as s:
        got = s.run(m * 1.0, {x: xv})
        assert np.isnan(got[0]) and got[1] == np.float32(0.6931471824645996)
        assert s.run(m, {x: xv}).tolist() == [np.float32(-0.40546509623527527),
                                              np.float32(0.6931471824645996)]
        assert s.run(a + 0, {x: xv}).tolist() == [2, 0]
        assert s.run(a, {x: xv}).tolist() == [0, 0]  # (fetched: kept, the first of the ties)
        # with the function read elsewhere too, nothing changes
        got, _ = s.run([m * 1.0, tf.get_default_graph().get_tensor_by_name("Log1p:0") + 1.0],
                       {x: xv})
        assert got.tolist() == [np.float32(-0.40546509623527527), np.float32(0.6931471824645996)]


def test_add_n_does_not_sum_into_a_fetched_input():
    # TF 1.15's AddN sums into (and so first adds) the first input whose buffer it holds
    # alone; a fetched input is held by its _Retval, so AddN(Sigmoid, Sigmoid, sub) sums in
    # that order when sub is fetched too, and from sub when it is not. Values measured.
    x2 = tf.placeholder(tf.float32, [None, None])
    x1 = tf.placeholder(tf.float32, [6])
    s = tf.sigmoid(x2)
    with tf.control_dependencies([x1.op]):
        i = tf.identity(x2)
    d = i - np.array([-1.0, 1, -2, 1, 1, 1], np.float32)
    y = tf.add_n([s, d, s])
    xv = (np.random.RandomState(46).randn(4, 6) * 2).astype(np.float32)
    feed = {x2: xv, x1: np.ones(6, np.float32)}
    with tf.Session() as sess:
        both = sess.run([y, d], feed)[0].ravel()[:8]
        alone = sess.run(y, feed).ravel()[:8]
    f32 = np.float32
    assert both.tolist() == [f32(v) for v in (3.695952, 3.3053172, 5.3199034, -2.262062,
                                              1.2143211, -0.5266701, 1.7806144, -1.6435024)]
    assert alone.tolist() == [f32(v) for v in (3.695952, 3.3053174, 5.3199034, -2.262062,
                                               1.2143211, -0.5266701, 1.7806144, -1.6435022)]


def test_add_n_of_one_repeated_input_is_a_multiplication():
    # TF 1.15's SimplifyAggregation: AddN(x, ..., x) of 10 terms is Mul(Const(10), x) unless
    # the AddN is fetched (summed one by one then). Values measured.
    x1 = tf.placeholder(tf.float32, [6])
    a = tf.add_n([x1] * 10)
    i = tf.identity(a)
    tf.placeholder(tf.float32)  # (grappler leaves graphs of fewer than 4 ops alone)
    xv = np.random.RandomState(3).randn(6).astype(np.float32) * 3
    with tf.Session() as s:
        assert s.run(i, {x1: xv})[0] == np.float32(53.658851623535156)
        assert s.run(a, {x1: xv})[0] == np.float32(53.65885543823242)


def test_reducing_a_tensor_of_one_element_over_some_axes():
    # reduce_mean/reduce_sum of a fed [1, 1] over axis 0 (every axis of size 1) failed with
    # an IndexError; TF 1.15 gives the element (measured)
    p = tf.placeholder(tf.float32)
    with tf.Session() as s:
        for fn in (tf.reduce_mean, tf.reduce_sum):
            for shape, axis in (((1, 1), 0), ((1, 1, 1), [0, 2])):
                out = s.run(fn(p, axis=axis, keepdims=True), {p: np.full(shape, 2.5, np.float32)})
                assert out.shape == shape and out.ravel().tolist() == [2.5]


def test_add_n_constants_are_not_presummed_with_constant_folding_off():
    # the partial sum of an AddN's constants is constant folding's: with it off, TF 1.15 sums
    # the inputs sorted by name, 0.5 and 1.0 lost beside 1e20 (6.0, measured); on, 7.0
    x = tf.placeholder(tf.float32, [])
    big = tf.constant(1e20)
    y = tf.add_n([tf.constant(0.5), x, -big, x, big, tf.constant(1.0)])
    cfg = tf.ConfigProto()
    cfg.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
    with tf.Session(config=cfg) as s:
        assert s.run(y, {x: 3.0}) == 6.0
    with tf.Session() as s:
        assert s.run(y, {x: 3.0}) == 7.0


def test_reciprocal_of_a_reciprocal_is_read_as_x():
    # TF 1.15's RemoveInvolution (after ConvertPow makes pow(., -1) a Reciprocal): readers of
    # 1 / (1 / x) read x, exact; a fetched outer Reciprocal is computed (measured)
    x = tf.placeholder(tf.float32, [4, 6])
    xv = (np.random.RandomState(414).randn(4, 6) * 3).astype(np.float32)
    with tf.Session() as s:
        for y in (tf.reciprocal(tf.reciprocal(x)), tf.pow(tf.pow(x, -1.0), -1.0),
                  tf.pow(tf.reciprocal(x), -1.0)):
            assert (s.run(y * 1.0, {x: xv}) == xv).all()
        assert not (s.run(tf.reciprocal(tf.reciprocal(x)), {x: xv}) == xv).all()


# ---- the seeded random-graph generator, builder and float64 evaluator -----------------------

N, D = 4, 6
UNARY = ['square', 'sqrt', 'rsqrt', 'exp', 'log', 'log1p', 'expm1', 'tanh', 'sigmoid', 'relu',
         'neg', 'abs', 'reciprocal', 'identity', 'stop_gradient', 'softmax', 'log_softmax',
         'pow2', 'pow3', 'pow05', 'powm1']
BINARY = ['add', 'sub', 'mul', 'div', 'realdiv', 'maximum', 'minimum', 'sqdiff',
          'op_add', 'op_sub', 'op_mul', 'op_div']
DOMAIN = {'sqrt', 'rsqrt', 'log', 'pow05', 'powm1', 'reciprocal'}  # need positive input (safe mode)


def bcast(a, b):
    a, b = list(a), list(b)
    n = max(len(a), len(b))
    a = [1] * (n - len(a)) + a
    b = [1] * (n - len(b)) + b
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            return None
    return tuple(out)


def gen(seed, safe=False, size=None, grads=True):
    r = np.random.RandomState(seed)
    nodes = []  # dicts: op, ins, p, shape

    def add(op, ins, shape, **p):
        nodes.append({'op': op, 'ins': list(ins), 'p': p, 'shape': tuple(shape)})
        return len(nodes) - 1

    unk = bool(r.rand() < 0.5)
    add('ph', [], (N, D), pshape=[None if unk else N, D], scale=float(r.choice([1, 3, 0.1])))
    add('ph', [], (D,), pshape=[D] if r.rand() < 0.7 else None, scale=1.0)
    add('ph', [], (N, D), pshape=[N, D] if r.rand() < 0.5 else [None, None], scale=2.0)
    if r.rand() < 0.3:
        add('ph', [], (), pshape=[], scale=1.0)
    use_cond = r.rand() < 0.3
    pred = add('pred', [], (), val=bool(r.rand() < 0.5)) if use_cond else None
    nph = len(nodes)
    size = size or r.randint(8, 30)

    def pick(cands=None):
        idx = [i for i in range(len(nodes)) if nodes[i]['op'] != 'pred' and
               (cands is None or cands(nodes[i]))]
        # prefer recent nodes for depth
        w = np.array([1.0 + i for i in idx])
        return int(idx[r.choice(len(idx), p=w / w.sum())])

    def const_val(shape):
        kind = r.choice(['rand', 'ones', 'zeros', 'neg', 'tiny', 'huge', 'int'])
        if safe and kind in ('tiny', 'huge', 'zeros'):
            kind = 'rand'
        if kind == 'rand':
            v = r.randn(*shape) * r.choice([0.1, 1, 3])
        elif kind == 'ones':
            v = np.ones(shape)
        elif kind == 'zeros':
            v = np.zeros(shape)
        elif kind == 'neg':
            v = -np.abs(r.randn(*shape)) - 0.5
        elif kind == 'tiny':
            v = np.full(shape, 1e-20)
        elif kind == 'huge':
            v = np.full(shape, 1e20)
        else:
            v = np.round(r.randn(*shape) * 3)
        return v.astype(np.float32)

    def make_const(like=None):
        opts = [(), (), (), (D,), (N, 1), (1, D), (N, D)]
        if like is not None:
            opts = [o for o in opts if bcast(o, like) is not None]
        sh = opts[r.randint(len(opts))]
        v = const_val(sh)
        how = 'py' if sh == () and r.rand() < 0.6 else ('np' if r.rand() < 0.3 else 'tf')
        if sh != () and r.rand() < 0.2:
            return add('fill', [], sh, val=float(r.choice([0.0, 1.0])), sh=list(sh))
        return add('const', [], sh, val=v.tolist(), how=how)

    def positive(i):
        # safe-domain wrapper: abs(x) + c
        j = add('abs', [i], nodes[i]['shape'])
        c = add('const', [], (), val=float(r.choice([0.5, 1.0, 2.0])), how='py')
        return add('op_add', [j, c], nodes[i]['shape'])

    while len(nodes) < size + nph:
        k = r.choice(['un', 'bin', 'bin', 'bin', 'addn', 'bias', 'red', 'mm', 'arr', 'ctrl',
                      'cond', 'const'], p=[.18, .12, .12, .12, .06, .04, .08, .06, .1, .04, .04, .04])
        if k == 'un':
            op = str(r.choice(UNARY))
            i = pick(lambda n: len(n['shape']) >= 1 if op in ('softmax', 'log_softmax') else True)
            if safe and op in DOMAIN:
                i = positive(i)
            if safe and op in ('exp', 'expm1'):
                i = add('tanh', [i], nodes[i]['shape'])
            if safe and op == 'log1p':
                i = add('abs', [i], nodes[i]['shape'])
            if safe and op in ('square', 'pow2', 'pow3'):
                i = add('tanh', [i], nodes[i]['shape']) if r.rand() < 0.5 else i
            add(op, [i], nodes[i]['shape'])
        elif k == 'bin':
            op = str(r.choice(BINARY + ['pow', 'pow']))
            a = pick()
            if r.rand() < 0.5 or op == 'pow':
                b = make_const(nodes[a]['shape'])
                if op == 'pow':
                    nodes.pop()
                    b = add('const', [], (), val=float(r.choice([2.0, 3.0, 0.5, -1.0, 3.0])),
                            how=str(r.choice(['py', 'tf'])))
                    if safe and nodes[b]['p']['val'] in (0.5, -1.0):
                        a = positive(a)
                    if safe and nodes[a]['shape'] and r.rand() < 0.5:
                        a = add('tanh', [a], nodes[a]['shape'])
            else:
                sa = nodes[a]['shape']
                b = pick(lambda n: bcast(n['shape'], sa) is not None)
            if r.rand() < 0.4 and op != 'pow':
                a, b = b, a
            if nodes[a]['op'] == 'const' and nodes[a]['p']['how'] in ('py', 'np') and \
                    nodes[b]['op'] == 'const' and nodes[b]['p']['how'] in ('py', 'np'):
                nodes[a]['p']['how'] = 'tf'
            if not op.startswith('op_') and op not in ('pow',):
                for j in (a, b):
                    if nodes[j]['op'] == 'const' and nodes[j]['p']['how'] == 'py' and j == a:
                        nodes[j]['p']['how'] = 'tf'
            if safe and op in ('div', 'realdiv', 'op_div'):
                b = positive(b)
            sh = bcast(nodes[a]['shape'], nodes[b]['shape'])
            add(op, [a, b], sh)
        elif k == 'addn':
            i = pick()
            sh = nodes[i]['shape']
            same = [j for j in range(len(nodes)) if nodes[j]['shape'] == sh and nodes[j]['op'] != 'pred']
            m = r.randint(2, 11)
            ins = [int(r.choice(same)) for _ in range(m)]
            add('add_n', ins, sh)
        elif k == 'bias':
            i = pick(lambda n: n['shape'] == (N, D))
            b = make_const() if r.rand() < 0.5 else 1
            if nodes[b]['shape'] != (D,):
                b = add('const', [], (D,), val=const_val((D,)).tolist(), how='tf')
            add('bias_add', [i, b], (N, D))
        elif k == 'red':
            i = pick(lambda n: len(n['shape']) >= 1)
            sh = nodes[i]['shape']
            op = str(r.choice(['sum', 'mean', 'max']))
            ax = None if r.rand() < 0.3 else int(r.randint(len(sh)))
            kd = bool(r.rand() < 0.5)
            if ax is None:
                out = tuple(1 for _ in sh) if kd else ()
            else:
                out = tuple(1 if d == ax else s for d, s in enumerate(sh)) if kd else \
                    tuple(s for d, s in enumerate(sh) if d != ax)
            add(op, [i], out, axis=ax, keepdims=kd)
        elif k == 'mm':
            a = pick(lambda n: len(n['shape']) == 2)
            sa = nodes[a]['shape']
            ta = bool(r.rand() < 0.3)
            kdim = sa[0] if ta else sa[1]
            cands = lambda n: len(n['shape']) == 2 and kdim in n['shape']
            b = pick(cands)
            sb = nodes[b]['shape']
            tb = sb[1] == kdim and (sb[0] != kdim or r.rand() < 0.5)
            if not tb and sb[0] != kdim:
                continue
            out = ((sa[1] if ta else sa[0]), (sb[0] if tb else sb[1]))
            if r.rand() < 0.3 and sa[0] % 2 == 0 and (sb[0] % 2 == 0):
                # batch matmul over a split of the leading dim
                if False:
                    pass
                ra = add('reshape', [a], (2, sa[0] // 2, sa[1]), sh=[2, sa[0] // 2, sa[1]])
                rb = add('reshape', [b], (2, sb[0] // 2, sb[1]), sh=[2, sb[0] // 2, sb[1]])
                if sa[1] != sb[1]:
                    continue
                add('bmm', [ra, rb], (2, sa[0] // 2, sb[0] // 2), ta=False, tb=True)
                continue
            add('matmul', [a, b], out, ta=ta, tb=bool(tb))
        elif k == 'arr':
            i = pick(lambda n: len(n['shape']) >= 1)
            sh = nodes[i]['shape']
            op = str(r.choice(['reshape', 'transpose', 'concat', 'slice', 'tile', 'expand_dims',
                               'squeeze']))
            if op == 'reshape':
                size_ = int(np.prod(sh))
                opts = [(size_,), (-1,)] + ([(2, size_ // 2)] if size_ % 2 == 0 else [])
                tgt = opts[r.randint(len(opts))]
                out = (size_,) if tgt == (-1,) else tgt
                add('reshape', [i], out, sh=list(tgt))
            elif op == 'transpose':
                perm = list(r.permutation(len(sh)))
                add('transpose', [i], tuple(sh[p] for p in perm), perm=[int(p) for p in perm])
            elif op == 'concat':
                ax = int(r.randint(len(sh)))
                j = pick(lambda n: len(n['shape']) == len(sh) and all(
                    a == b for d, (a, b) in enumerate(zip(n['shape'], sh)) if d != ax))
                out = tuple(s + (nodes[j]['shape'][d] if d == ax else 0) for d, s in enumerate(sh))
                add('concat', [i, j], out, axis=ax)
            elif op == 'slice':
                begin = [int(r.randint(s)) if s > 1 else 0 for s in sh]
                size_ = [int(r.randint(1, s - b + 1)) if r.rand() < 0.7 else -1 for s, b in zip(sh, begin)]
                out = tuple((s - b) if z == -1 else z for s, b, z in zip(sh, begin, size_))
                add('slice', [i], out, begin=begin, size=size_)
            elif op == 'tile':
                mult = [int(r.choice([1, 2])) for _ in sh]
                add('tile', [i], tuple(s * m for s, m in zip(sh, mult)), mult=mult)
            elif op == 'expand_dims':
                ax = int(r.randint(-len(sh) - 1, len(sh) + 1))
                out = list(sh)
                out.insert(ax if ax >= 0 else len(sh) + 1 + ax, 1)
                add('expand_dims', [i], tuple(out), axis=ax)
            else:
                ones = [d for d, s in enumerate(sh) if s == 1]
                if not ones:
                    continue
                add('squeeze', [i], tuple(s for s in sh if s != 1))
        elif k == 'ctrl':
            i = pick()
            j = pick()
            add('ctrl_identity', [i, j], nodes[i]['shape'])
        elif k == 'cond' and use_cond:
            a = pick()
            b = pick(lambda n: n['shape'] == nodes[a]['shape'])
            ua = str(r.choice(['tanh', 'square', 'neg', 'sigmoid', 'relu', 'identity']))
            ub = str(r.choice(['tanh', 'square', 'neg', 'sigmoid', 'relu', 'identity']))
            ca = float(r.choice([0.5, 2.0, 3.0]))
            add('cond', [pred, a, b], nodes[a]['shape'], ua=ua, ub=ub, ca=ca)
        elif k == 'const':
            make_const()
    spec = {'nodes': nodes, 'grads': []}
    if grads and r.rand() < 0.6:
        # scalar loss of a random differentiable node (not after cond on some seeds)
        cands = [i for i in range(nph, len(nodes)) if nodes[i]['op'] not in ('const', 'fill', 'pred')]
        if cands:
            y = int(r.choice(cands))
            xs = sorted({int(r.choice([i for i in range(len(nodes)) if nodes[i]['op'] not in ('pred',)]))
                            for _ in range(r.randint(1, 4))})
            spec['grads'] = [{'y': y, 'xs': xs, 'loss': str(r.choice(['sum', 'mean', 'sqsum']))}]
    feeds = {}
    for i, n in enumerate(nodes):
        if n['op'] == 'ph':
            feeds[i] = (np.asarray(r.randn(*n['shape'])) * n['p']['scale']).astype(np.float32)
        elif n['op'] == 'pred':
            feeds[i] = np.array(n['p']['val'])
    spec['feeds'] = feeds
    spec['fetch_rng'] = int(r.randint(1 << 30))
    return spec


def build(tf, spec):
    """Build the graph into the current default graph; returns list of tensors (None for preds?)."""
    nodes = spec['nodes']
    T = [None] * len(nodes)
    U = {'square': tf.square, 'sqrt': tf.sqrt, 'rsqrt': tf.rsqrt, 'exp': tf.exp, 'log': tf.log,
         'log1p': tf.log1p, 'expm1': tf.expm1, 'tanh': tf.tanh, 'sigmoid': tf.sigmoid,
         'relu': tf.nn.relu, 'neg': tf.negative, 'abs': tf.abs, 'reciprocal': tf.reciprocal,
         'identity': tf.identity, 'stop_gradient': tf.stop_gradient, 'softmax': tf.nn.softmax,
         'log_softmax': tf.nn.log_softmax, 'pow2': lambda x: tf.pow(x, 2.0),
         'pow3': lambda x: tf.pow(x, 3.0), 'pow05': lambda x: tf.pow(x, 0.5),
         'powm1': lambda x: tf.pow(x, -1.0)}
    B = {'add': tf.add, 'sub': tf.subtract, 'mul': tf.multiply, 'div': tf.div,
         'realdiv': tf.realdiv, 'maximum': tf.maximum, 'minimum': tf.minimum,
         'sqdiff': tf.squared_difference, 'op_add': lambda a, b: a + b,
         'op_sub': lambda a, b: a - b, 'op_mul': lambda a, b: a * b, 'op_div': lambda a, b: a / b,
         'pow': tf.pow}
    for i, n in enumerate(nodes):
        op, p, ins = n['op'], n['p'], n['ins']
        X = [T[j] for j in ins]
        if op == 'ph':
            T[i] = tf.placeholder(tf.float32, p['pshape'], name=f'ph{i}')
        elif op == 'pred':
            T[i] = tf.placeholder(tf.bool, [], name='pred')
        elif op == 'const':
            v = np.array(p['val'], np.float32)
            if p['how'] == 'py':
                T[i] = float(v)
            elif p['how'] == 'np':
                T[i] = v
            else:
                T[i] = tf.constant(v)
        elif op == 'fill':
            T[i] = (tf.ones if p['val'] == 1.0 else tf.zeros)(p['sh'])
        elif op in U:
            T[i] = U[op](X[0])
        elif op in B:
            T[i] = B[op](X[0], X[1])
        elif op == 'add_n':
            T[i] = tf.add_n([tf.convert_to_tensor(x, tf.float32) for x in X])
        elif op == 'bias_add':
            T[i] = tf.nn.bias_add(X[0], X[1])
        elif op in ('sum', 'mean', 'max'):
            f = {'sum': tf.reduce_sum, 'mean': tf.reduce_mean, 'max': tf.reduce_max}[op]
            T[i] = f(X[0], axis=p['axis'], keepdims=p['keepdims'])
        elif op == 'matmul' or op == 'bmm':
            T[i] = tf.matmul(X[0], X[1], transpose_a=p['ta'], transpose_b=p['tb'])
        elif op == 'reshape':
            T[i] = tf.reshape(X[0], p['sh'])
        elif op == 'transpose':
            T[i] = tf.transpose(X[0], p['perm'])
        elif op == 'concat':
            T[i] = tf.concat([X[0], X[1]], p['axis'])
        elif op == 'slice':
            T[i] = tf.slice(X[0], p['begin'], p['size'])
        elif op == 'tile':
            T[i] = tf.tile(X[0], p['mult'])
        elif op == 'expand_dims':
            T[i] = tf.expand_dims(X[0], p['axis'])
        elif op == 'squeeze':
            T[i] = tf.squeeze(X[0])
        elif op == 'ctrl_identity':
            dep = X[1]
            if not hasattr(dep, 'op'):
                dep = tf.convert_to_tensor(dep, tf.float32)
            with tf.control_dependencies([dep.op]):
                T[i] = tf.identity(X[0])
        elif op == 'cond':
            a, b = X[1], X[2]
            ua, ub = U[p['ua']], U[p['ub']]
            T[i] = tf.cond(X[0], lambda: ua(a) * p['ca'], lambda: ub(b) + 1.0)
        else:
            raise ValueError(op)
    G = []
    for g in spec['grads']:
        y = T[g['y']]
        if not hasattr(y, 'op'):
            continue
        loss = {'sum': tf.reduce_sum, 'mean': tf.reduce_mean,
                'sqsum': lambda t: tf.reduce_sum(tf.square(t))}[g['loss']](y)
        xs = [T[j] for j in g['xs'] if hasattr(T[j], 'op') and T[j].dtype == tf.float32]
        gs = tf.gradients(loss, xs)
        G.extend([t for t in gs if t is not None and hasattr(t, 'op') and
                  type(t).__name__ != 'IndexedSlices'])
    return T, G


def evaluate(spec):
    """float64 NumPy evaluation of the forward graph (no gradients)."""
    nodes = spec['nodes']
    V = [None] * len(nodes)

    def sm(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)
    with np.errstate(all='ignore'):
        U = {'square': np.square, 'sqrt': np.sqrt, 'rsqrt': lambda x: 1 / np.sqrt(x), 'exp': np.exp,
             'log': np.log, 'log1p': np.log1p, 'expm1': np.expm1, 'tanh': np.tanh,
             'sigmoid': lambda x: 1 / (1 + np.exp(-x)), 'relu': lambda x: np.maximum(x, 0),
             'neg': np.negative, 'abs': np.abs, 'reciprocal': lambda x: 1 / x,
             'identity': lambda x: x, 'stop_gradient': lambda x: x, 'softmax': sm,
             'log_softmax': lambda x: np.log(sm(x)), 'pow2': lambda x: x ** 2.0,
             'pow3': lambda x: x ** 3.0, 'pow05': lambda x: x ** 0.5, 'powm1': lambda x: x ** -1.0}
        B = {'add': np.add, 'sub': np.subtract, 'mul': np.multiply, 'div': np.divide,
             'realdiv': np.divide, 'maximum': np.maximum, 'minimum': np.minimum,
             'sqdiff': lambda a, b: (a - b) ** 2, 'op_add': np.add, 'op_sub': np.subtract,
             'op_mul': np.multiply, 'op_div': np.divide, 'pow': np.power}
        for i, n in enumerate(nodes):
            op, p, ins = n['op'], n['p'], n['ins']
            X = [V[j] for j in ins]
            if op in ('ph', 'pred'):
                V[i] = np.asarray(spec['feeds'][i], np.float64) if op == 'ph' else spec['feeds'][i]
            elif op == 'const':
                V[i] = np.array(p['val'], np.float32).astype(np.float64)
            elif op == 'fill':
                V[i] = np.full(p['sh'], p['val'])
            elif op in U:
                V[i] = U[op](X[0])
            elif op in B:
                V[i] = B[op](X[0], X[1])
            elif op == 'add_n':
                V[i] = sum(X[1:], X[0])
            elif op == 'bias_add':
                V[i] = X[0] + X[1]
            elif op in ('sum', 'mean', 'max'):
                f = {'sum': np.sum, 'mean': np.mean, 'max': np.max}[op]
                V[i] = f(X[0], axis=p['axis'], keepdims=p['keepdims'])
            elif op in ('matmul', 'bmm'):
                a, b = X
                if p['ta']:
                    a = np.swapaxes(a, -1, -2)
                if p['tb']:
                    b = np.swapaxes(b, -1, -2)
                V[i] = np.matmul(a, b)
            elif op == 'reshape':
                V[i] = X[0].reshape(p['sh'])
            elif op == 'transpose':
                V[i] = X[0].transpose(p['perm'])
            elif op == 'concat':
                V[i] = np.concatenate(X, p['axis'])
            elif op == 'slice':
                V[i] = X[0][tuple(slice(b, None if z == -1 else b + z)
                                  for b, z in zip(p['begin'], p['size']))]
            elif op == 'tile':
                V[i] = np.tile(X[0], p['mult'])
            elif op == 'expand_dims':
                V[i] = np.expand_dims(X[0], p['axis'])
            elif op == 'squeeze':
                V[i] = np.squeeze(X[0])
            elif op == 'ctrl_identity':
                V[i] = X[0]
            elif op == 'cond':
                V[i] = U[p['ua']](X[1]) * p['ca'] if X[0] else U[p['ub']](X[2]) + 1.0
            V[i] = np.asarray(V[i], np.float64)
            assert V[i].shape == n['shape'], (i, op, V[i].shape, n['shape'])
    return V


# ---- the fuzz run ---------------------------------------------------------------------------

def _configs():
    off = tf.ConfigProto()
    off.graph_options.rewrite_options.disable_meta_optimizer = True
    nocf = tf.ConfigProto()
    nocf.graph_options.rewrite_options.constant_folding = rewriter_config_pb2.RewriterConfig.OFF
    return [None, off, tf.ConfigProto(inter_op_parallelism_threads=1), nocf]


def _check(seed, got, ref, what):
    fin = np.isfinite(ref)
    assert got.shape == ref.shape, (seed, what)
    assert (np.isfinite(got) == fin).all(), (seed, what, got, ref)
    if fin.any():
        scale = max(np.abs(ref[fin]).max(), 1e-6)
        err = np.abs(got[fin] - ref[fin]).max()
        assert err <= 1e-3 * scale, (seed, what, err, scale)


@pytest.mark.parametrize("first", [0, 12, 24])
def test_random_graphs_match_a_float64_evaluation(first):
    for seed in range(first, first + 12):
        spec = gen(seed, safe=True, grads=False)
        ref = evaluate(spec)
        with tf.Graph().as_default():
            T, _ = build(tf, spec)
            idx = [i for i, t in enumerate(T) if hasattr(t, "op")]
            feed = {T[i]: v for i, v in spec["feeds"].items()}
            fr = np.random.RandomState(spec["fetch_rng"])
            subsets = [idx] + [list(fr.choice(idx, fr.randint(1, min(6, len(idx)) + 1),
                                              replace=False)) for _ in range(3)]
            for k, cfg in enumerate(_configs()):
                with tf.Session(config=cfg) as s:
                    for sub in (subsets if k == 0 else subsets[:2]):
                        for i, v in zip(sub, s.run([T[i] for i in sub], feed)):
                            _check(seed, np.asarray(v, np.float64), ref[i], (k, i))
