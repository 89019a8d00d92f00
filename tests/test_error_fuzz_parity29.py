"""Differential fuzzing of error paths against TF 1.15 (session 29, helper h324): programs that
fail the way users' buggy ones do (incompatible shapes static and fed, wrong dtypes and feeds,
bad axes and indices, uninitialized and wrongly assigned variables, queues, asserts, control
flow), compared with TF 1.15 for when they fail (building or running), the exception class,
the first line of the message, the op the error names, and what the session and variables hold
after a failed step. Below: the minimal cases where tideflow differed, with TF 1.15's answers
as measured, then a small seeded fuzz run that checks tideflow's invariants on its own."""

import numpy as np
import pytest

import tideflow as tf


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default():
        yield


def _run_error(fetch, feed=None, cls=tf.errors.InvalidArgumentError):
    with tf.Session() as s, pytest.raises(cls) as e:
        s.run(fetch, feed)
    return e.value


def _first_line(e):
    return str(e).split("\n")[0]


# -- kernels' words ------------------------------------------------------------------------
def test_gradient_descent_names_its_input_delta():
    v = tf.Variable([1.0, 2.0])
    g = tf.placeholder(tf.float32)
    step = tf.train.GradientDescentOptimizer(0.1).apply_gradients([(g, v)])
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(step, {g: [1.0, 2.0, 3.0]})
        # TF 1.15: ApplyGradientDescent's input is 'delta' (the other optimizers' 'grad')
        assert _first_line(e.value) == "var and delta do not have the same shape[2] [3]"
        assert s.run(v).tolist() == [1.0, 2.0]


@pytest.mark.parametrize("make", [tf.atan2, tf.pow, tf.math.igamma, tf.math.zeta,
                                  tf.math.polygamma, tf.truncatediv])
def test_binary_kernels_refuse_incompatible_fed_shapes_in_tfs_words(make):
    dt = tf.int32 if make is tf.truncatediv else tf.float32
    x, y = tf.placeholder(dt), tf.placeholder(dt)
    e = _run_error(make(x, y), {x: np.ones([3, 3]), y: np.ones([5])})
    # TF 1.15: 'Incompatible shapes: [3,3] vs. [5]' (was NumPy's broadcast_arrays text)
    assert _first_line(e) == "Incompatible shapes: [3,3] vs. [5]"
    assert e.op.name == make(x, y).op.name[:-2]


def test_broadcast_gradient_args_words_have_no_op_prefix():
    a, b = tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int32, [None])
    e = _run_error(tf.raw_ops.BroadcastGradientArgs(s0=a, s1=b), {a: [2], b: [3]})
    assert _first_line(e) == "Incompatible shapes: [2] vs. [3]"  # TF 1.15's
    assert e.op.name == "BroadcastGradientArgs"


def test_squeeze_of_a_tensor_axis_names_the_python_argument():
    x = tf.placeholder(tf.float32, [None, None])
    ax = tf.placeholder(tf.int32, [])
    with pytest.raises(TypeError) as e:
        tf.squeeze(x, [ax])
    # TF 1.15's wrapper converts each under its own name 'axis' (the attr is squeeze_dims)
    assert str(e.value) == ("Expected int for argument 'axis' not <tf.Tensor 'Placeholder_1:0' "
                            "shape=() dtype=int32>.")


def test_uninitialized_resource_read_error_is_the_read_ops():
    v = tf.get_variable("rv", [2], use_resource=True)
    msg = ("Error while reading resource variable rv from Container: localhost. This could "
           "mean that the variable was uninitialized. Not found: Container localhost does not "
           "exist. (Could not find resource: localhost/rv)")
    for fetch, op in ((v + 1, "ReadVariableOp"), (v, "rv/Read/ReadVariableOp")):
        e = _run_error(fetch, cls=tf.errors.FailedPreconditionError)
        assert _first_line(e) == msg
        assert e.op.name == op  # TF 1.15: the op is the read (was the variable's handle)


# -- queues --------------------------------------------------------------------------------
def test_queue_ops_of_other_types_fail_tfs_signature_check():
    q = tf.FIFOQueue(3, [tf.float32, tf.int32])
    raw = tf.raw_ops
    cases = [
        (q.enqueue([1.0]), "have: resource, float-> expected: resource, float, int32->"),
        (raw.QueueEnqueueV2(handle=q.queue_ref, components=[1.0, 2.0]),
         "have: resource, float, float-> expected: resource, float, int32->"),
        (raw.QueueEnqueueManyV2(handle=q.queue_ref, components=[[1.0], [2], [3]]),
         "have: resource, float, int32, int32-> expected: resource, float, int32->"),
        (raw.QueueDequeueV2(handle=q.queue_ref, component_types=[tf.int32]),
         "have: resource->int32 expected: resource->float, int32"),
        (raw.QueueDequeueManyV2(handle=q.queue_ref, n=2,
                                component_types=[tf.float32, tf.int64]),
         "have: resource, int32->float, int64 expected: resource, int32->float, int32"),
    ]
    for op, words in cases:  # TF 1.15's MatchSignature (was 'Wrong number of components')
        assert _first_line(_run_error(op)) == "Signature mismatch, " + words


# -- a failed scatter keeps the rows it updated --------------------------------------------
U = np.full([3, 2], 100, np.float32)


@pytest.mark.parametrize("resource", [False, True])
@pytest.mark.parametrize("make,msg,want", [
    # TF 1.15's CPU kernels update row by row and stop at the first bad index (measured)
    (lambda v: tf.scatter_add(v, [0, 2, 9], U), "indices[2] = 9 is not in [0, 4)",
     [100, 101, 2, 3, 104, 105, 6, 7]),
    (lambda v: tf.scatter_update(v, [1, -1, 2], U), "indices[1] = -1 is not in [0, 4)",
     [0, 1, 100, 100, 4, 5, 6, 7]),
    (lambda v: tf.scatter_sub(v, [3, 3, 4], U), "indices[2] = 4 is not in [0, 4)",
     [0, 1, 2, 3, 4, 5, -194, -193]),
    (lambda v: tf.scatter_max(v, [1, 2, 7], U), "indices[2] = 7 is not in [0, 4)",
     [0, 1, 100, 100, 100, 100, 6, 7]),
    (lambda v: tf.scatter_update(v, [[0, 1], [9, 2]], np.ones([2, 2, 2], np.float32)),
     "indices[1,0] = 9 is not in [0, 4)", [1, 1, 1, 1, 4, 5, 6, 7]),
    (lambda v: tf.scatter_update(v, 7, [1.0, 1.0]), "indices = 7 is not in [0, 4)",
     [0, 1, 2, 3, 4, 5, 6, 7]),
    (lambda v: tf.scatter_nd_update(v, [[0], [2], [9]], U),
     "indices[2] = [9] does not index into shape [4,2]", [100, 100, 2, 3, 100, 100, 6, 7]),
    (lambda v: tf.scatter_nd_add(v, [[0, 1], [2, 0], [1, 5]], [1.0, 2.0, 3.0]),
     "indices[2] = [1, 5] does not index into shape [4,2]", [0, 2, 2, 3, 6, 5, 6, 7]),
])
def test_a_scatter_with_a_bad_index_keeps_the_rows_before_it(make, msg, want, resource):
    v = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2), use_resource=resource)
    op = make(v)
    with tf.Session() as s:
        s.run(v.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError) as e:
            s.run(op)
        assert _first_line(e.value) == msg
        assert s.run(v).ravel().tolist() == want


# -- ragged Python values ------------------------------------------------------------------
FAILED = ("Failed to convert object of type <class 'list'> to Tensor. Contents: {}. Consider "
          "casting elements to a supported type.")


@pytest.mark.parametrize("make,cls,msg", [
    # TF 1.15 (NumPy 1.18): an object array of the expected shape, which it fails to read
    (lambda: tf.constant([1, [2, 3]]), TypeError, FAILED.format("[1, [2, 3]]")),
    (lambda: tf.add([[1, [2]], [3, 4]], 1), TypeError, FAILED.format("[[1, [2]], [3, 4]]")),
    (lambda: tf.constant([[1, 2], [3]]), ValueError,
     "Argument must be a dense tensor: [[1, 2], [3]] - got shape [2], but wanted [2, 2]."),
    # a dtype given: NumPy 1.18's words, without the detail later NumPy adds
    (lambda: tf.constant([[1], [2, 3]], tf.float32), ValueError,
     "setting an array element with a sequence."),
    (lambda: tf.convert_to_tensor([1, []], tf.int64), ValueError,
     "setting an array element with a sequence."),
    # ... unless an array sits in the list: TF's type check refuses it first
    (lambda: tf.constant([np.array([1, 2]), 3], tf.float32), TypeError,
     "Expected float32, got array([1, 2]) of type 'ndarray' instead."),
    (lambda: tf.convert_to_tensor([[1, 2], np.array([3])], tf.int64), TypeError,
     "Expected int64, got array([3]) of type 'ndarray' instead."),
])
def test_ragged_values_fail_as_in_tf(make, cls, msg):
    with pytest.raises(cls) as e:
        make()
    assert type(e.value) is cls and str(e.value) == msg


# -- softmax along a fed axis: TF 1.15's graph ---------------------------------------------
def test_softmax_of_a_fed_axis_wraps_and_fails_as_tfs_graph():
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7.0
    ax = tf.placeholder(tf.int32, [])
    y = tf.nn.softmax(x, axis=ax)
    assert y.name == "transpose_1:0" and y.get_shape().as_list() == [2, 3, 4]
    want1 = np.exp(x) / np.exp(x).sum(1, keepdims=True)
    with tf.Session() as s:
        # (TF 1.15, measured: -3, 0 and 3 take axis 0; 1 and 100 axis 1; the last axis and
        # -4, 5, -7 fail in the permutation's second Range)
        np.testing.assert_allclose(s.run(y, {ax: 100}), want1, rtol=1e-6)
        np.testing.assert_allclose(s.run(y, {ax: 3}), s.run(y, {ax: -3}), rtol=0)
        for bad in (-1, 2, 5, -4):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(y, {ax: bad})
            assert _first_line(e.value) == "Requires start <= limit when delta > 0: 3/2"
            assert e.value.op.name == "range_1"


# -- what a failing step runs --------------------------------------------------------------
def _config(meta=True, dependency=True, l0=False):
    from tideflow.protos import rewriter_config_pb2

    c = tf.ConfigProto()
    c.graph_options.rewrite_options.disable_meta_optimizer = not meta
    if not dependency:
        c.graph_options.rewrite_options.dependency_optimization = (
            rewriter_config_pb2.RewriterConfig.OFF)
    if l0:
        c.graph_options.optimizer_options.opt_level = -1
    return c


def _step(fetch, feed, config=None, var=None):
    """(error first line or 'OK', the variable after) of one step in a fresh session."""
    with tf.Session(config=config) as s:
        s.run(tf.global_variables_initializer())
        try:
            s.run(fetch, feed)
            got = "OK"
        except tf.errors.OpError as e:
            got = _first_line(e)
        return got, (s.run(var).tolist() if var is not None else None)


BAD = "indices = 5 is not in [0, 1)"


@pytest.mark.parametrize("config,want", [
    # TF 1.15, measured: grappler's dependency optimizer makes the gather (pure, only a control
    # edge waits for it) a NoOp, so it never fails; not without grappler or that optimizer
    # (opt_level is no grappler setting)
    (None, "OK"), (_config(l0=True), "OK"), (_config(meta=False), BAD),
    (_config(dependency=False), BAD)])
def test_a_pure_op_only_a_control_edge_waits_for_never_runs(config, want):
    v = tf.Variable(1.0)
    i = tf.placeholder(tf.int32)
    bad = tf.gather([1.0], i)
    with tf.control_dependencies([bad]):
        step = v.assign_add(1.0)
    assert _step(step, {i: 5}, config, v) == (want, 2.0 if want == "OK" else 1.0)


def test_dependency_optimizer_cases_as_tf():
    v = tf.Variable(1.0)
    i = tf.placeholder(tf.int32)
    p = tf.placeholder(tf.float32)
    x = tf.placeholder(tf.float32)
    bad = tf.gather([1.0], i)
    # (TF 1.15, measured) a chain of pure ops under tf.group goes whole; a group alone too
    assert _step(tf.group(v.assign_add(1.0), bad * 2.0 + 1.0), {i: 5}, var=v) == ("OK", 2.0)
    assert _step(tf.group(tf.reshape(p, [3])), {p: [1.0, 2.0]}) == ("OK", None)
    # fetched, or the target itself: it runs
    assert _step([tf.group(bad), bad], {i: 5})[0] == BAD
    assert _step(bad.op, {i: 5})[0] == BAD
    # CheckNumerics and placeholders always run (an unfed one still fails the step)
    chk = tf.check_numerics(tf.log(p), "x")
    assert _step(tf.group(chk), {p: -1.0})[0] == "x : Tensor had NaN values"
    assert _step(tf.group(x + 1), {})[0].startswith("You must feed a value for placeholder")
    # an op reading a resource variable is not free of side effects
    r = tf.Variable([1.0, 2.0], use_resource=True)
    assert _step(tf.group(tf.gather(r, i)), {i: 5})[0] == "indices = 5 is not in [0, 2)"


def test_a_failed_kernel_leaves_the_independent_branches_running():
    # TF 1.15, measured: its executor stops only what depends on the failed op; twenty
    # updates chained by control edges beside a failing gather all apply (was: the first)
    vs = [tf.Variable(0.0) for _ in range(20)]
    i = tf.placeholder(tf.int32)
    prev = None
    for v in vs:
        with tf.control_dependencies([prev] if prev is not None else []):
            prev = v.assign_add(1.0)
    bad = tf.gather([1.0], i) * 2.0
    with tf.Session() as s:
        s.run(tf.global_variables_initializer())
        for fetch in ([bad, prev], [prev, bad]):
            with pytest.raises(tf.errors.InvalidArgumentError) as e:
                s.run(fetch, {i: 5})
            assert _first_line(e.value) == BAD and e.value.op.name == "GatherV2"
        assert s.run(vs) == [2.0] * 20
        # what depends on the failure does not run: a gated update stays
        w = tf.Variable(0.0)
        with tf.control_dependencies([bad]):
            gated = w.assign_add(1.0)
        s.run(w.initializer)
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run([gated, tf.identity(bad)], {i: 5})
        assert s.run(w) == 0.0


def test_substr_of_mismatched_pos_and_len_prints_tfs_shapes():
    with pytest.raises(ValueError) as e:
        tf.strings.substr(["abc"], [0, 1], [1])
    # TF 1.15's shape function's words (was Python's "(2,) vs. (1,)")
    assert str(e.value) == ("pos and len shapes must match: [2] vs. [1] for 'Substr' (op: "
                            "'Substr') with input shapes: [1], [2], [1].")


# -- a small seeded fuzz run: invariants of failing steps, checked without TF -----------------
def _fuzz_case(r):
    """A random failing program: (build, feed, the error class the generator predicts, at
    'build' or 'run'); each run-time case updates a variable in the same step, independently."""
    a = [int(d) for d in r.randint(2, 4, size=r.randint(1, 4))]
    b = list(a)
    b[r.randint(len(b))] += int(r.randint(1, 3))  # (no 1s: never broadcastable with a)
    n = int(np.prod(a))
    kind = r.randint(6)
    if kind == 0:  # incompatible static shapes: ValueError while building
        return (lambda: tf.add(tf.zeros(a), tf.zeros(b)), None, ValueError, "build")
    if kind == 1:  # the same, fed: InvalidArgumentError at run time
        def make():
            x, y = tf.placeholder(tf.float32), tf.placeholder(tf.float32)
            return x * y, {x: np.ones(a), y: np.ones(b)}
        return (make, None, tf.errors.InvalidArgumentError, "run")
    if kind == 2:  # a reshape to another size
        def make():
            x = tf.placeholder(tf.float32)
            return tf.reshape(x, [n + 1]), {x: np.ones(a)}
        return (make, None, tf.errors.InvalidArgumentError, "run")
    if kind == 3:  # a gather out of range
        def make():
            i = tf.placeholder(tf.int32)
            return tf.gather(tf.zeros([a[0]]), i), {i: a[0] + int(r.randint(3))}
        return (make, None, tf.errors.InvalidArgumentError, "run")
    if kind == 4:  # a dtype mismatch
        return (lambda: tf.zeros(a) + tf.zeros(a, tf.int32), None, (TypeError, ValueError),
                "build")
    return (lambda: tf.constant(1.5, dtype=tf.int32), None, TypeError, "build")


def test_seeded_fuzz_of_failing_steps_keeps_the_session_usable():
    r = np.random.RandomState(29)
    for _ in range(60):
        make, _, cls, when = _fuzz_case(r)
        with tf.Graph().as_default():
            v = tf.Variable(0.0)
            if when == "build":
                with pytest.raises(cls):
                    make()
                continue
            out, feed = make()
            step = v.assign_add(1.0)
            with tf.Session() as s:
                s.run(v.initializer)
                for k in range(1, 3):
                    with pytest.raises(cls) as e:
                        s.run([out, step], feed)
                    assert isinstance(e.value, tf.errors.OpError) and e.value.op is not None
                    assert "\n\t [[node " in str(e.value)
                    # the independent update ran each time (TF's executor), and the session
                    # still runs steps
                    assert s.run(v) == float(k)
                assert s.run(step) == 3.0


@pytest.mark.parametrize("name", [5, 1.5, ("a",)])
def test_an_op_name_that_is_no_string_is_tfs_type_error(name):
    with pytest.raises(TypeError) as e:  # TF 1.15's scope-name regex (was an AttributeError)
        tf.identity(tf.constant(1.0), name=name)
    assert str(e.value) == "expected string or bytes-like object"


@pytest.mark.parametrize("dst", [tf.resource, tf.variant])
def test_a_cast_to_a_handle_type_is_unimplemented_at_run(dst):
    y = tf.cast(tf.constant([1]), dst)  # built as in TF 1.15, which fails when it runs
    e = _run_error(y, cls=tf.errors.UnimplementedError)
    assert _first_line(e) == f"Cast int32 to {dst.name} is not supported"  # (was: it ran)
