"""tf.autograph and tf.function's conversion: Python control flow on tensors becomes
tf.cond/tf.while_loop, the same code keeps plain Python control flow on Python values. Values
are checked against the same computation in plain Python/NumPy; error classes and messages
are those TF (2.21, compat.v1 graph mode) gives for the same functions."""

import functools

import numpy as np
import pytest

import tideflow as tf
from tideflow.autograph import conversion


@pytest.fixture(autouse=True)
def _graph():
    with tf.Graph().as_default() as g:
        yield g


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


def _op_types():
    return {op.type for op in tf.get_default_graph().get_operations()}


# -- the functions converted (module level: their source is read) ------------------------------


def sign_double(x):
    if x > 0:
        return x * 2
    return -x


def piecewise(x):
    if x > 10.0:
        r = x - 10.0
    elif x > 0.0:
        r = x * 10.0
    elif x > -5.0:
        r = x + 100.0
    else:
        r = x * 0.0
    return r


def quadrant(x, y):
    if x > 0:
        if y > 0:
            q = 1
        else:
            q = 4
    else:
        if y > 0:
            q = 2
        else:
            q = 3
    return q


def sum_squares(n):
    i = 0
    s = 0
    while i < n:
        s += i * i
        i += 1
    return s, i


def fib_like(x):
    a, b, k = 0.0, 1.0, 0
    while k < 8:
        a, b = b, a + b * x
        k += 1
    return a, b


def range_sum(n):
    s = tf.constant(0)
    for i in tf.range(n):
        s += i
    return s


def decay_sum(x):
    s = tf.constant(0.0)
    for v in x:
        s = s * 0.5 + v
    return s


def sum_until_negative(x):
    s = tf.constant(0.0)
    for v in x:
        if v < 0:
            break
        s += v
    return s


def sum_positive(x):
    s = tf.constant(0.0)
    for v in x:
        if v < 0:
            continue
        s += v
    return s


def triangle(n):
    total = 0
    i = 0
    while i < n:
        j = 0
        while j < i:
            total += i * j
            j += 1
        i += 1
    return total


def positive_entries(m):
    s = tf.constant(0.0)
    for row in m:
        for v in row:
            if v > 0:
                s += v
    return s


def both_or_either(x, y):
    if x > 0 and y > 0:
        r = 1
    elif x > 0 or y > 0:
        r = 2
    else:
        r = 3
    return r


def negated(x):
    if not x > 0:
        r = x - 1.0
    else:
        r = x + 1.0
    return r


def by_flag(x, flag=True):
    if flag:
        y = x + 1.0
    else:
        y = x - 1.0
    return y


def unrolled(x):
    for i in range(3):
        x = x * 2.0 + i
    return x


def mixed(x, n):
    y = x
    for _ in range(3):
        if y > 10.0:
            y = y - 1.0
        else:
            y = y * 2.0
    j = 0
    while j < n:
        y = y + 0.5
        j += 1
    return y


def square_above_one(v):
    if v > 1.0:
        return v * v
    return v


def calls_helper(x):
    return square_above_one(x) + square_above_one(x - 2.0)


def conditional_expression(x):
    return x * 3.0 if x > 0 else x / 2.0


def count_to(n):
    i = 0
    s = 0
    while True:
        if i >= n:
            break
        s += i
        i += 1
    return s


def skip_thirds(n):
    i = 0
    s = 0
    while i < n:
        i += 1
        if tf.equal(i % 3, 0):  # ``==`` on a graph tensor is identity in TF 1.x
            continue
        s += i
    return s


def nested_return(x):
    if x > 5.0:
        if x > 10.0:
            return x - 10.0
        return x - 5.0
    return x


def collatz_steps(n):
    steps = 0
    while tf.not_equal(n, 1):
        if tf.equal(n % 2, 0):
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def with_closure(x):
    k = 2.0

    def inner(v):
        if v > k:
            return v - k
        return v + k

    return inner(x) * 2.0


def scaled(x, scale=3.0):
    if x > 0:
        x = x * scale
    return x


def doubled_rows(x):
    out = []
    for i in range(3):
        out.append(x[i] * 2.0)
    return tf.stack(out)


def evens(n):
    out = []
    tf.autograph.experimental.set_element_type(out, tf.float32)
    for i in tf.range(n):
        out.append(tf.cast(i, tf.float32) * 2.0)
    return tf.stack(out)


def growing(n):
    v = tf.zeros([0])
    for i in tf.range(n):
        tf.autograph.experimental.set_loop_options(
            shape_invariants=[(v, tf.TensorShape([None]))])
        v = tf.concat([v, [tf.cast(i, tf.float32)]], 0)
    return v


def capped(n):
    i = 0
    while i < n:
        tf.autograph.experimental.set_loop_options(maximum_iterations=3)
        i += 1
    return i


def cube_loop(x):
    y = x
    i = 0
    while i < 2:
        y = y * x
        i += 1
    return y


def sum_of_squares_tensor(x):
    s = tf.constant(0.0)
    for v in x:
        s += v * v
    return s


def cube_or_double(x):
    if x > 1.0:
        y = x * x * x
    else:
        y = 2.0 * x
    return y


def only_in_main(x):
    if x > 0:
        y = x
    return y


def defined_in_loop(n):
    for i in tf.range(n):
        last = i
    return last


def return_in_loop(x):
    for i in tf.range(5):
        if x[i] > 3:
            return i
    return -1


def dtype_change(x):
    y = 0
    if x > 0:
        y = x * 2.0
    return y


def list_in_tensor_loop(n):
    out = []
    i = 0
    while i < n:
        out.append(i)
        i += 1
    return out


def maybe_none(x):
    if x is None or x > 0:
        return 1.0
    return 2.0


def python_if_false(x):
    if x:
        y = 1
    return y


def prints(x):
    for i in tf.range(2):
        print("step", i)
    print("value", x)
    return x + 1.0


def checked(x):
    assert x > 0, "x must be positive"
    return x + 1.0


def python_assert(x):
    assert x > 0, "x must be positive"
    return x


def relu_twice(x):
    return tf.nn.relu(x) * 2.0


@tf.autograph.experimental.do_not_convert
def unconverted(x):
    if x > 0:
        return x
    return -x


def calls_unconverted(x):
    return unconverted(x)


def add_one_after(f):
    @functools.wraps(f)
    def wrapper(*args):
        return f(*args) + 1.0

    return wrapper


@add_one_after
def decorated(x):
    if x > 0:
        x = x * 10.0
    return x


class Base:
    def f(self, x):
        return x + 1.0


class Sub(Base):
    def __init__(self, k):
        self.k = k

    def f(self, x):
        if x > 0:
            y = super().f(x) * self.k
        else:
            y = x
        return y

    def g(self, x):
        return self.helper(x) + 1.0

    def helper(self, x):
        return x * 2.0 if x > 0 else x * 3.0


def with_lambda(x):
    g = lambda v: v * 2.0  # lambdas are left as they are

    def grow(v):
        while v < 100.0:
            v = v * 3.0
        return v

    return grow(g(x))


def for_else(x):
    s = tf.constant(0.0)
    for v in x:
        s += v
    else:  # noqa: PLW0120 - the else clause is what is tested
        s += 100.0
    return s


def while_else_break(n):
    i = 0
    found = 0
    while i < n:
        if i == 7:  # Python values: a Python loop
            found = 1
            break
        i += 1
    else:
        found = -1
    return found, i


# -- references ----------------------------------------------------------------------------------


def _fn(fn, *specs):
    phs = [tf.placeholder(d, s) for d, s in specs]
    return phs, tf.autograph.to_graph(fn)(*phs)


@pytest.mark.parametrize("value", [3.0, -2.0])
def test_tf_function_converts_if_on_tensor(value):
    f = tf.function(sign_double.__wrapped__ if hasattr(sign_double, "__wrapped__")
                    else sign_double)
    x = tf.placeholder(tf.float32, [])
    assert _run(f(x), {x: value}) == (value * 2 if value > 0 else -value)
    assert "If" in _op_types()


def test_tf_function_decorator_form_and_python_call():
    @tf.function
    def f(x):
        if x > 0:
            return x * 2
        return -x

    x = tf.placeholder(tf.float32, [])
    y = f(x)
    assert _run(y, {x: -4.0}) == 4.0
    assert f(3) == 6  # a Python argument takes the Python branch: no graph op
    assert f.python_function is not None


def test_tf_function_autograph_false_keeps_python_semantics():
    f = tf.function(sign_double, autograph=False)
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        f(tf.placeholder(tf.float32, []))


@pytest.mark.parametrize("v", [12.0, 3.0, -2.0, -9.0])
def test_if_elif_else(v):
    (x,), y = _fn(piecewise, (tf.float32, []))
    ref = v - 10 if v > 10 else v * 10 if v > 0 else v + 100 if v > -5 else 0.0
    assert _run(y, {x: v}) == pytest.approx(ref)


def test_nested_if():
    (x, y), q = _fn(quadrant, (tf.float32, []), (tf.float32, []))
    for a, b, ref in [(1, 1, 1), (-1, 1, 2), (-1, -1, 3), (1, -1, 4)]:
        assert _run(q, {x: a, y: b}) == ref


def test_early_return_and_nested_return():
    (x,), y = _fn(nested_return, (tf.float32, []))
    assert [_run(y, {x: v}) for v in (12.0, 7.0, 1.0)] == [2.0, 2.0, 1.0]


def test_while_with_two_loop_variables():
    (n,), (s, i) = _fn(sum_squares, (tf.int32, []))
    assert _run([s, i], {n: 5}) == [sum(k * k for k in range(5)), 5]
    assert _run([s, i], {n: 0}) == [0, 0]


def test_while_tuple_assignment():
    (x,), (a, b) = _fn(fib_like, (tf.float32, []))
    ra, rb = 0.0, 1.0
    for _ in range(8):
        ra, rb = rb, ra + rb * 0.5
    np.testing.assert_allclose(_run([a, b], {x: 0.5}), [ra, rb], rtol=1e-6)


def test_for_over_range_and_tensor():
    (n,), s = _fn(range_sum, (tf.int32, []))
    assert _run(s, {n: 6}) == 15
    assert _run(s, {n: 0}) == 0
    (x,), d = _fn(decay_sum, (tf.float32, [None]))
    ref = 0.0
    for v in [1.0, 2.0, 3.0, 4.0]:
        ref = ref * 0.5 + v
    assert _run(d, {x: [1.0, 2.0, 3.0, 4.0]}) == pytest.approx(ref)
    assert "While" in _op_types()


def test_break_and_continue_in_tensor_loops():
    (x,), s = _fn(sum_until_negative, (tf.float32, [None]))
    assert _run(s, {x: [1.0, 2.0, -1.0, 4.0]}) == 3.0
    assert _run(s, {x: [1.0, 2.0]}) == 3.0
    (x2,), s2 = _fn(sum_positive, (tf.float32, [None]))
    assert _run(s2, {x2: [1.0, -2.0, 3.0, -4.0]}) == 4.0
    (n,), c = _fn(skip_thirds, (tf.int32, []))
    assert _run(c, {n: 10}) == sum(i for i in range(1, 11) if i % 3)
    (m,), w = _fn(count_to, (tf.int32, []))
    assert _run(w, {m: 4}) == 6


def test_nested_loops():
    (n,), t = _fn(triangle, (tf.int32, []))
    assert _run(t, {n: 5}) == sum(i * j for i in range(5) for j in range(i))
    (m,), p = _fn(positive_entries, (tf.float32, [2, 3]))
    mat = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, 6.0]], np.float32)
    assert _run(p, {m: mat}) == mat[mat > 0].sum()


def test_loop_else_clauses():
    (x,), s = _fn(for_else, (tf.float32, [3]))
    assert _run(s, {x: [1.0, 2.0, 3.0]}) == 106.0
    found, i = tf.autograph.to_graph(while_else_break)(10)
    assert (found, i) == (1, 7)
    assert tf.autograph.to_graph(while_else_break)(5) == (-1, 5)


def test_logical_operators_on_tensors():
    (x, y), r = _fn(both_or_either, (tf.float32, []), (tf.float32, []))
    assert [_run(r, {x: a, y: b}) for a, b in [(1, 1), (1, -1), (-1, 1), (-1, -1)]] == \
        [1, 2, 2, 3]
    (z,), n = _fn(negated, (tf.float32, []))
    assert [_run(n, {z: 1.0}), _run(n, {z: -1.0})] == [2.0, -2.0]


def test_logical_operators_short_circuit_python_values():
    f = tf.autograph.to_graph(maybe_none)
    assert f(None) == 1.0  # ``x > 0`` never evaluated
    assert f(-1) == 2.0
    x = tf.placeholder(tf.float32, [])
    y = f(x)
    assert [_run(y, {x: 1.0}), _run(y, {x: -1.0})] == [1.0, 2.0]


def test_conditional_expression():
    (x,), y = _fn(conditional_expression, (tf.float32, []))
    assert [_run(y, {x: 3.0}), _run(y, {x: -3.0})] == [9.0, -1.5]


def test_python_conditions_and_loops_stay_python():
    (x,), y = _fn(by_flag, (tf.float32, []))
    assert _run(y, {x: 1.0}) == 2.0
    (x2,), u = _fn(unrolled, (tf.float32, []))
    assert _run(u, {x2: 1.0}) == ((1.0 * 2 + 0) * 2 + 1) * 2 + 2
    assert not _op_types() & {"If", "While"}
    assert tf.autograph.to_graph(sum_squares)(4) == (14, 4)
    assert tf.autograph.to_graph(by_flag)(1.0, flag=False) == 0.0


def test_python_loop_with_tensor_conditions_inside():
    (x, n), y = _fn(mixed, (tf.float32, []), (tf.int32, []))

    def ref(v, k):
        for _ in range(3):
            v = v - 1.0 if v > 10.0 else v * 2.0
        return v + 0.5 * k

    assert _run(y, {x: 3.0, n: 2}) == ref(3.0, 2)
    assert _run(y, {x: 9.0, n: 0}) == ref(9.0, 0)


def test_collatz_loop():
    (n,), steps = _fn(collatz_steps, (tf.int32, []))

    def ref(k):
        c = 0
        while k != 1:
            k = k // 2 if k % 2 == 0 else 3 * k + 1
            c += 1
        return c

    assert _run(steps, {n: 27}) == ref(27)


def test_recursive_conversion_of_user_functions_only():
    (x,), y = _fn(calls_helper, (tf.float32, []))
    ref = (lambda v: v * v if v > 1 else v)
    assert _run(y, {x: 3.0}) == ref(3.0) + ref(1.0)
    assert _run(y, {x: 0.5}) == ref(0.5) + ref(-1.5)
    assert not conversion.should_convert(tf.nn.relu)
    assert conversion.should_convert(square_above_one)
    assert conversion.maybe_convert(tf.nn.relu) is tf.nn.relu
    (z,), r = _fn(relu_twice, (tf.float32, []))
    assert _run(r, {z: -1.0}) == 0.0


def test_closures_defaults_methods_super_and_decorators():
    (x,), y = _fn(with_closure, (tf.float32, []))
    assert [_run(y, {x: 3.0}), _run(y, {x: 1.0})] == [2.0, 6.0]
    (x2,), s = _fn(scaled, (tf.float32, []))
    assert [_run(s, {x2: 2.0}), _run(s, {x2: -2.0})] == [6.0, -2.0]
    obj = Sub(3.0)
    x3 = tf.placeholder(tf.float32, [])
    f, g = tf.autograph.to_graph(obj.f)(x3), tf.autograph.to_graph(obj.g)(x3)
    assert _run([f, g], {x3: 2.0}) == [9.0, 5.0]
    assert _run([f, g], {x3: -2.0}) == [-2.0, -5.0]
    x4 = tf.placeholder(tf.float32, [])
    d = tf.function(decorated)(x4)
    assert [_run(d, {x4: 2.0}), _run(d, {x4: -2.0})] == [21.0, -1.0]
    lam = lambda v: v + 1
    assert tf.autograph.to_graph(lam) is lam
    x5 = tf.placeholder(tf.float32, [])
    w = tf.autograph.to_graph(with_lambda)(x5)
    assert _run(w, {x5: 2.0}) == 108.0


def test_converted_class_methods():
    cls = tf.autograph.to_graph(Sub)
    x = tf.placeholder(tf.float32, [])
    assert _run(cls(2.0).f(x), {x: 1.0}) == 4.0


def test_list_append_python_and_tensor_array():
    (x,), y = _fn(doubled_rows, (tf.float32, [3]))
    np.testing.assert_allclose(_run(y, {x: [1.0, 2.0, 3.0]}), [2.0, 4.0, 6.0])
    (n,), e = _fn(evens, (tf.int32, []))
    np.testing.assert_allclose(_run(e, {n: 4}), [0.0, 2.0, 4.0, 6.0])


def test_loop_options_shape_invariants_and_maximum_iterations():
    (n,), v = _fn(growing, (tf.int32, []))
    np.testing.assert_allclose(_run(v, {n: 4}), [0.0, 1.0, 2.0, 3.0])
    (m,), c = _fn(capped, (tf.int32, []))
    assert _run(c, {m: 10}) == 3
    assert tf.autograph.experimental.set_loop_options(maximum_iterations=2) is None


def test_gradients_through_converted_control_flow():
    (x,), y = _fn(cube_loop, (tf.float32, []))
    assert _run(tf.gradients(y, x)[0], {x: 1.5}) == pytest.approx(3 * 1.5 ** 2)
    (v,), s = _fn(sum_of_squares_tensor, (tf.float32, [3]))
    np.testing.assert_allclose(_run(tf.gradients(s, v)[0], {v: [1.0, 2.0, 3.0]}),
                               [2.0, 4.0, 6.0])
    (z,), c = _fn(cube_or_double, (tf.float32, []))
    grad = tf.gradients(c, z)[0]
    assert [_run(grad, {z: 2.0}), _run(grad, {z: 0.5})] == [12.0, 2.0]


def test_print_becomes_tf_print(capsys):
    f = tf.function(prints)
    x = tf.placeholder(tf.float32, [])
    y = f(x)
    assert "PrintV2" in {op.type for fg in [tf.get_default_graph()]
                         for op in fg.get_operations()} | _function_op_types()
    assert _run(y, {x: 2.0}) == 3.0
    err = capsys.readouterr().err
    assert "value 2" in err
    tf.autograph.to_graph(prints)(1.0)  # Python values: Python's print
    assert "value 1.0" in capsys.readouterr().out


def _function_op_types():
    g = tf.get_default_graph()
    return {op.type for fg in getattr(g, "_functions", {}).values()
            for op in (fg.get_operations() if hasattr(fg, "get_operations") else [])}


def test_assert_on_tensor_becomes_tf_assert():
    f = tf.function(checked)
    x = tf.placeholder(tf.float32, [])
    y = f(x)
    assert "Assert" in _op_types()
    assert _run(y, {x: 1.0}) == 2.0
    with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
        _run(y, {x: -1.0})
    with pytest.raises(AssertionError, match="x must be positive"):
        tf.autograph.to_graph(python_assert)(-1)


def test_do_not_convert():
    with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
        tf.autograph.to_graph(calls_unconverted)(tf.placeholder(tf.float32, []))
    assert tf.autograph.experimental.do_not_convert is tf.autograph.do_not_convert


def test_error_variable_defined_in_one_branch():
    with pytest.raises(ValueError, match="'y' must also be initialized in the else branch"):
        _fn(only_in_main, (tf.float32, []))


def test_error_variable_undefined_before_loop():
    with pytest.raises(ValueError, match="'last' must be defined before the loop"):
        _fn(defined_in_loop, (tf.int32, []))


def test_error_return_in_tensor_loop():
    with pytest.raises(NotImplementedError, match="return statement cannot be placed"):
        _fn(return_in_loop, (tf.float32, [5]))


def test_error_dtype_differs_between_branches():
    with pytest.raises(TypeError, match="'y' has dtype int32 in the main branch, but dtype "
                                        "float32 in the else branch|'y' has dtype float32"):
        _fn(dtype_change, (tf.float32, []))


def test_error_python_list_grown_in_tensor_loop():
    with pytest.raises(ValueError, match="'out'"):
        _fn(list_in_tensor_loop, (tf.int32, []))


def test_undefined_after_python_if_is_unbound():
    f = tf.autograph.to_graph(python_if_false)
    assert f(True) == 1
    with pytest.raises(UnboundLocalError, match="'y'"):
        f(False)


def test_conversion_is_cached_and_code_is_readable():
    a = tf.autograph.to_graph(piecewise)
    assert tf.autograph.to_graph(piecewise) is a
    assert tf.autograph.to_graph(a) is a
    code = tf.autograph.to_code(piecewise)
    assert "def piecewise(x):" in code and "ag__.if_stmt" in code
    assert piecewise.__code__ in conversion._CODE_CACHE


def test_public_surface():
    assert tf.compat.v1.autograph is tf.autograph
    ex = tf.autograph.experimental
    assert ex.Feature.ALL.value == "ALL"
    assert ex.Feature.ASSERT_STATEMENTS.value == "ASSERTS"
    assert {f.name for f in ex.Feature} >= {"AUTO_CONTROL_DEPS", "EQUALITY_OPERATORS", "LISTS",
                                            "NAME_SCOPES", "BUILTIN_FUNCTIONS"}
    tf.autograph.set_verbosity(0)
    f = tf.autograph.to_graph(sign_double, recursive=True,
                              experimental_optional_features=ex.Feature.ALL)
    assert f(2) == 4


def test_tf_function_runs_prints_inside_loops(capsys):
    def loop_print(n):
        for i in tf.range(n):
            print("at", i)
        return n + 1

    f = tf.function(loop_print)
    n = tf.placeholder(tf.int32, [])
    assert _run(f(n), {n: 2}) == 3
    err = capsys.readouterr().err
    assert "at 0" in err and "at 1" in err


COUNTER = 0


def bumps_global(n):
    global COUNTER
    for i in range(n):
        COUNTER += i
    return COUNTER


def python_only(n):
    out = []
    for i in range(n):
        if i % 2:
            continue
        for j in range(i):
            if j > 2:
                break
            out.append((i, j))
        else:
            out.append(-i)

    def gen():
        yield from range(2)

    acc = 0

    def add(v):
        nonlocal acc
        acc += v

    k = 0
    while True:
        k += 1
        if k > 3:
            break
        try:
            if k == 2:
                continue
            add(k)
        finally:
            add(100)
    late = lambda v=k: v  # a default taken from a loop variable
    return out, list(gen()), acc, [v * 2 for v in range(3) if v or k], late()


def test_python_semantics_kept_by_conversion():
    global COUNTER
    assert tf.autograph.to_graph(python_only)(6) == python_only(6)
    COUNTER = 0
    ref = bumps_global(4)
    COUNTER = 0
    assert tf.autograph.to_graph(bumps_global)(4) == ref == COUNTER


def tensor_break_in_python_loop(x):
    s = tf.constant(0.0)
    for i in range(4):
        if x[i] < 0:
            break
        s += x[i]
    return s


def tensor_array_loop(x):
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    i = 0
    while i < len(x):
        ta = ta.write(i, x[i] * 3.0)
        i += 1
    return ta.stack()


def test_tensor_break_in_python_loop_and_tensor_array_loop():
    (x,), s = _fn(tensor_break_in_python_loop, (tf.float32, [4]))
    assert _run(s, {x: [1.0, 2.0, -1.0, 5.0]}) == 3.0
    assert _run(s, {x: [1.0, 2.0, 1.0, 5.0]}) == 9.0
    (y,), t = _fn(tensor_array_loop, (tf.float32, [None]))
    np.testing.assert_allclose(_run(t, {y: [1.0, 2.0, 3.0]}), [3.0, 6.0, 9.0])


class Clipper:
    def __init__(self, hi):
        self.hi = hi

    def __call__(self, x):
        if x > self.hi:
            x = self.hi + 0.0 * x
        return x


def uses_callable_and_tf_function(x):
    inner = tf.function(square_above_one)
    return Clipper(4.0)(inner(x))


def test_callable_objects_and_nested_tf_functions():
    (x,), y = _fn(uses_callable_and_tf_function, (tf.float32, []))
    assert [_run(y, {x: 3.0}), _run(y, {x: 1.5}), _run(y, {x: 0.5})] == [4.0, 2.25, 0.5]
    assert not conversion.should_convert(tf.function(square_above_one))


def assigns_in_one_branch(x, v):
    w = v
    if x > 0:
        w = v
        z = x * 2.0
    else:
        z = x
    return w, z


def test_variable_left_unchanged_by_a_tensor_cond_stays_a_variable():
    x = tf.placeholder(tf.float32, [])
    v = tf.Variable(1.0)
    w, z = tf.autograph.to_graph(assigns_in_one_branch)(x, v)
    assert w is v
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        assert sess.run(z, {x: 2.0}) == 4.0


def temp_in_one_branch(x):
    if x > 0:
        t = x * 2.0
        y = t + 1.0
    else:
        y = x
    return y


def deletes_in_branch(x):
    if x > 0:
        tmp = x * 3.0
        y = tmp
        del tmp
    else:
        y = -x
    return y


def augments_maybe_unbound(flag):
    if flag:
        x = 1
    x += 1
    return x


def test_one_branch_temporaries_deletes_and_unbound_augmented_assignment():
    (x,), y = _fn(temp_in_one_branch, (tf.float32, []))  # t is not read after: no error
    assert [_run(y, {x: 2.0}), _run(y, {x: -2.0})] == [5.0, -2.0]
    (x2,), y2 = _fn(deletes_in_branch, (tf.float32, []))
    assert [_run(y2, {x2: 2.0}), _run(y2, {x2: -2.0})] == [6.0, 2.0]
    f = tf.autograph.to_graph(augments_maybe_unbound)
    assert f(True) == 2
    with pytest.raises(UnboundLocalError):
        f(False)


def test_converted_functions_of_dead_closures_are_released():
    import gc
    import weakref

    def make(k):
        def f(x):
            if x > k:
                x = x - k
            return x

        return f

    f = make(1.0)
    ref = weakref.ref(f)
    assert tf.autograph.to_graph(f)(3.0) == 2.0
    assert conversion.maybe_convert(f)(0.5) == 0.5
    del f
    gc.collect()
    assert ref() is None


def test_tf_function_runs_its_state_updates_as_tf_does():
    w = tf.Variable(2.0)
    opt = tf.train.GradientDescentOptimizer(0.1)

    @tf.function
    def train_step(x):
        with tf.GradientTape() as tape:
            loss = (w * x - 1.0) ** 2
        grads = tape.gradient(loss, [w])
        opt.apply_gradients(zip(grads, [w]))  # not returned: runs with the outputs
        return loss

    @tf.function
    def bump(x):
        counter = tf.Variable(0.0, name="counter")  # its initializer runs once, not per step
        if x > 0:
            counter.assign_add(x)
        return tf.identity(x), counter

    x = tf.placeholder(tf.float32, [])
    loss = train_step(x)
    y, counter = bump(x)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        w0 = 2.0
        assert sess.run(loss, {x: 1.0}) == pytest.approx((w0 - 1.0) ** 2)
        w1 = w0 - 0.1 * 2 * (w0 - 1.0)
        assert sess.run(w) == pytest.approx(w1)
        sess.run(y, {x: 3.0})
        sess.run(y, {x: -1.0})
        sess.run(y, {x: 2.0})
        assert sess.run(counter) == 5.0


class Private:
    def __init__(self):
        self.__scale = 3.0

    def __helper(self, x):
        return x * self.__scale

    def run(self, x):
        if x > 0:
            x = self.__helper(x)
        return x


def factorial(n):
    return 1 if n <= 1 else n * factorial(n - 1)


def test_private_names_and_recursion_by_global_name():
    x = tf.placeholder(tf.float32, [])
    y = tf.autograph.to_graph(Private().run)(x)
    assert [_run(y, {x: 2.0}), _run(y, {x: -2.0})] == [6.0, -2.0]
    assert tf.autograph.to_graph(factorial)(5) == 120


def dataset_sum(ds):
    total = tf.constant(0.0)
    count = 0
    for x, y in ds:
        total += x * tf.cast(y, tf.float32)
        count += 1
    return total, count


def dataset_until(ds):
    total = tf.constant(0.0)
    for x in ds:
        if x > 2.5:
            break
        total += x
    return total


def test_for_over_a_dataset():
    ds = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [10, 20, 30]))
    total, count = tf.autograph.to_graph(dataset_sum)(ds)
    assert _run([total, count]) == [140.0, 3]
    until = tf.autograph.to_graph(dataset_until)(
        tf.data.Dataset.from_tensor_slices([1.0, 2.0, 3.0, 0.5]))
    assert _run(until) == 3.0


class Counter:
    def __init__(self):
        self.total = tf.constant(0.0)
        self.steps = 0

    def update(self, x):
        if x > 0:
            self.total = self.total + x
        else:
            self.total = self.total - x
        i = 0
        while i < 3:
            self.total = self.total * 2.0
            self.steps += 1
            i += 1
        return self.total

    def doubles(self, n):
        for _ in tf.range(n):
            self.total = self.total * 2.0
        return self.total

    def sets_one_branch(self, x):
        if x > 0:
            self.fresh = x
        return x


def test_attributes_in_converted_control_flow():
    c = Counter()
    x = tf.placeholder(tf.float32, [])
    out = tf.autograph.to_graph(c.update)(x)
    assert _run([out, c.total], {x: -1.5}) == [12.0, 12.0]
    assert c.steps == 3  # a Python loop
    with pytest.raises(ValueError, match="'self.fresh' must also be initialized in the else"):
        tf.autograph.to_graph(Counter().sets_one_branch)(x)
    c3 = Counter()
    c3.total = tf.constant(1.5)
    n = tf.placeholder(tf.int32, [])
    out3 = tf.autograph.to_graph(c3.doubles)(n)
    assert _run([out3, c3.total], {n: 4}) == [24.0, 24.0]
    c2 = Counter()
    tf.autograph.to_graph(c2.sets_one_branch)(2.0)  # Python condition: a plain attribute
    assert c2.fresh == 2.0


def test_functions_the_converter_cannot_handle_run_as_they_are(monkeypatch):
    from tideflow.autograph import transformer

    def broken(fdef):
        raise RuntimeError("converter bug")

    def plain(x):
        return x * 2.0

    monkeypatch.setattr(transformer, "convert_function_def", broken)
    assert conversion.maybe_convert(plain) is plain  # a warning, then the original
    assert tf.function(plain)(3.0) == 6.0
    with pytest.raises(RuntimeError, match="converter bug"):
        tf.autograph.to_graph(plain)  # asked for explicitly: the error
    conversion._CODE_CACHE.pop(plain.__code__, None)
