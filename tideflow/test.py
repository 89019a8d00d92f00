"""``tf.test``: device queries, gradient checking, benchmarks, local clusters and ``TestCase``
for TF 1.x unit tests."""

import collections.abc
import contextlib
import os
import random
import re
import tempfile
import time
import types
from unittest import mock  # noqa: F401 - tf.test.mock

import numpy as np
from absl.testing import absltest

from tideflow.framework import ops, random_seed
from tideflow.kernels.device import gpu_info


def is_built_with_cuda():
    """True when the GPU backend (CuPy) can be imported."""
    try:
        import cupy  # noqa: F401
    except Exception:  # noqa: BLE001 - any import failure means no CUDA support
        return False
    return True


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """True when a GPU device is present (and has at least the given compute capability)."""
    del cuda_only  # CuPy devices are CUDA devices
    _, gpus = gpu_info()
    for _, cc, _ in gpus:
        if min_cuda_compute_capability is None or tuple(cc) >= tuple(
                min_cuda_compute_capability):
            return True
    return False


def is_built_with_gpu_support():
    """True when a GPU backend is built in: the same answer as :func:`is_built_with_cuda`."""
    return is_built_with_cuda()


def is_built_with_rocm():
    """False: tideflow has no ROCm backend."""
    return False


def is_built_with_xla():
    """False: tideflow has no XLA compiler (``jit_compile`` requests run unfused)."""
    return False


def is_cpu_target_available(cpu):
    """False: tideflow compiles no code for CPU targets (TF answers whether its XLA/LLVM
    build includes ``cpu``, e.g. "x86")."""
    del cpu
    return False


def _sync_devices():
    """Waits for work queued on the GPUs (CuPy streams); CPU work is done when
    ``Session.run`` returns."""
    try:
        import cupy
    except Exception:  # noqa: BLE001 - no GPU backend: nothing is queued
        return
    for i in range(cupy.cuda.runtime.getDeviceCount()):
        with cupy.cuda.Device(i):
            cupy.cuda.Device(i).synchronize()


experimental = types.SimpleNamespace(sync_devices=_sync_devices)


def gpu_device_name():
    """The name of the first GPU device ("/device:GPU:0"), or "" without one."""
    return "/device:GPU:0" if gpu_info()[1] else ""


def main(argv=None):
    """Runs the tests of the calling module (``tf.test.main``). As TF's (absl's ``app.run``
    first), the absl flags are parsed from ``argv`` (default ``sys.argv``, unknown flags
    tolerated) before the tests run: modules the tests import may read ``FLAGS.x``."""
    import sys

    from absl import app
    from absl import flags as absl_flags

    def parse(args):
        # as TF's app.run: flags no module defined are left for the test runner
        return absl_flags.FLAGS(args, known_only=True)

    args = list(sys.argv if argv is None else argv)
    # absltest's runner inside absl's app, as TF's googletest.main: its report ("[ RUN ]",
    # "[  FAILED  ]" lines) and exit status
    return app.run(main=lambda run_args: absltest.main(argv=run_args), argv=args,
                   flags_parser=parse)


_TEMP_DIR = None


def get_temp_dir():
    """A temporary directory for this process's tests (created once; under ``$TEST_TMPDIR``
    when that is set)."""
    global _TEMP_DIR
    if _TEMP_DIR is None or not os.path.isdir(_TEMP_DIR):
        base = os.environ.get("TEST_TMPDIR") or None
        _TEMP_DIR = tempfile.mkdtemp(prefix="tideflow_test_", dir=base)
    return _TEMP_DIR


def test_src_dir_path(relative_path):
    """``relative_path`` under the root of tideflow's sources (TF resolves it under
    ``$TEST_SRCDIR/org_tensorflow/tensorflow``; ``$TEST_SRCDIR`` is honoured the same way when
    set)."""
    root = os.environ.get("TEST_SRCDIR")
    if root:
        return os.path.join(root, "org_tensorflow", "tensorflow", relative_path)
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), relative_path)


def benchmark_config():
    """A ``ConfigProto`` for benchmarks: graph rewrites (constant folding, ...) switched off so
    the measured graph is the graph that was built."""
    from tideflow.protos import config_pb2

    config = config_pb2.ConfigProto()
    config.graph_options.optimizer_options.opt_level = config_pb2.OptimizerOptions.L0
    return config


# --- gradient checking (TF 1.x ``tf.test.compute_gradient``) -----------------------------

_GRAD_DTYPES = ("float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _check_grad_dtype(t, what):
    # TF 1.15 asserts (after building the gradients; an int y already failed making dy)
    if t.dtype.base_dtype.name not in _GRAD_DTYPES:
        raise AssertionError(f"Don't support type {t.dtype.base_dtype.name} for {what}")


def _real_view(a):
    """The flat float view of ``a`` (complex values as interleaved real, imaginary); a view
    (writes reach ``a``) when ``a`` is contiguous, as the arrays made here are."""
    flat = np.asarray(a).reshape(-1)
    if flat.dtype.kind == "c":
        return flat.view(flat.real.dtype)
    return flat


def _session_run(sess, fetch, feed, extra):
    if extra:
        # as TF: extra_feed_dict first, the x values (perturbed or not) over it, so feeding
        # the x placeholders in extra_feed_dict too does not hide the perturbation
        feed, base = dict(extra), feed
        feed.update(base)
    return sess.run(fetch, feed_dict=feed)


def _one_jacobian(sess, x, x_shape_given, x_data, y, y_shape, dx, dy, delta, extra):
    from tideflow.framework.indexed_slices import IndexedSlices

    _check_grad_dtype(x, "x")
    _check_grad_dtype(y, "y")
    x_shape = [int(d) for d in x_shape_given]

    x_np = x.dtype.base_dtype.as_numpy_dtype
    if x_data is None:
        x_data = np.random.random_sample(x_shape).astype(x_np)
        if x.dtype.is_complex:
            x_data = x_data + 1j * np.random.random_sample(x_shape).astype(x_np)
    else:
        x_data = np.asarray(x_data)
        if list(x_data.shape) != list(x_shape):
            raise AssertionError(f"x_shape = {x_shape_given}, init_data shape = "
                                 f"{list(x_data.shape)}")
        # C order, as TF's x_data.copy(): each perturbation below writes through a flat view
        # (astype with order="C": np.ascontiguousarray makes a scalar a 1-element vector)
        x_data = x_data.astype(x_np, order="C")
    real_x = x.dtype.real_dtype.as_numpy_dtype
    if x.dtype.base_dtype.name == "bfloat16":  # (TF 1.15 itself fails there; half stays half)
        real_x = np.float32
    real_y = y.dtype.real_dtype.as_numpy_dtype
    x_size = int(np.prod(x_shape)) * (2 if x.dtype.is_complex else 1)
    y_size = int(np.prod(y_shape)) * (2 if y.dtype.is_complex else 1)
    # theoretical: one backward pass per output component, dy a one-hot
    theo = np.zeros((x_size, y_size), dtype=real_x)
    dy_np = y.dtype.base_dtype.as_numpy_dtype
    row_size = int(np.prod(x_shape[1:])) if len(x_shape) else 1
    for col in range(y_size):
        dy_val = np.zeros(y_shape, dtype=dy_np)
        _real_view(dy_val)[col] = 1
        feed = {x: x_data, dy: dy_val}
        if isinstance(dx, IndexedSlices):
            idx, vals = _session_run(sess, [dx.indices, dx.values], feed, extra)
            column = np.zeros(x_size, dtype=real_x)
            for i, v in zip(np.reshape(idx, -1), vals):
                column[i * row_size:(i + 1) * row_size] += _real_view(np.asarray(v))
            theo[:, col] = column
        else:
            if dx is None:  # TF 1.15's assertion: y does not depend on x
                raise AssertionError("dx = None")
            theo[:, col] = _real_view(np.asarray(_session_run(sess, dx, feed, extra)))
    if not y_size and not isinstance(dx, IndexedSlices):
        # as TF: an empty y still runs the gradient once, which must be zeros of x's shape
        # (a missing one fails to fetch)
        back = np.asarray(_session_run(sess, dx, {x: x_data, dy: np.zeros(y_shape, dy_np)},
                                       extra))
        if back.shape != x_data.shape:
            raise ValueError(f"Empty gradient has wrong shape: expected {x_data.shape}, got "
                             f"{back.shape}")
        if np.any(back):
            raise ValueError("Empty tensor with nonzero gradients")
    # numerical: central differences on each input component
    num = np.zeros((x_size, y_size), dtype=real_x)
    for row in range(x_size):
        xp = np.array(x_data, copy=True)
        xm = np.array(x_data, copy=True)
        _real_view(xp)[row] += delta
        _real_view(xm)[row] -= delta
        yp = np.asarray(_session_run(sess, y, {x: xp}, extra))
        ym = np.asarray(_session_run(sess, y, {x: xm}, extra))
        diff = (_real_view(yp).astype(real_y) - _real_view(ym).astype(real_y)) / (2 * delta)
        num[row, :] = diff
    return theo, num


def compute_gradient(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3, init_targets=None,
                     extra_feed_dict=None):
    """The theoretical and numerical Jacobians of ``y`` with respect to ``x`` (TF 1.x).

    Runs in the default session. Each Jacobian has one row per element of ``x`` and one column
    per element of ``y`` (complex values count twice, real then imaginary part). With a list of
    ``x`` tensors (and a list of shapes, and optionally of initial values) the result is a list
    of ``(theoretical, numerical)`` pairs. ``x`` is fed with ``x_init_value`` (random values in
    [0, 1) by default); ``init_targets`` run first; ``extra_feed_dict`` is added to every feed.
    """
    from tideflow.ops import array_ops
    from tideflow.ops.constant_op import constant
    from tideflow.ops.gradients import gradients

    sess = ops.get_default_session()
    if sess is None:
        raise ValueError("compute_gradient needs a default session (use it inside "
                         "`with tf.Session():` or a TestCase's cached_session)")
    as_list = isinstance(x, (list, tuple))
    xs = list(x) if as_list else [x]
    shapes = list(x_shape) if as_list else [x_shape]
    inits = (list(x_init_value) if x_init_value is not None else [None] * len(xs)) if as_list \
        else [x_init_value]
    if len(shapes) != len(xs) or len(inits) != len(xs):
        raise ValueError(f"compute_gradient: {len(xs)} tensors x but {len(shapes)} shapes and "
                         f"{len(inits)} initial values")
    y_shape = [int(d) for d in y_shape]
    results = []
    with y.graph.as_default():
        pairs = []
        for xi in xs:
            dy = array_ops.identity(constant(1.0 if not y.dtype.is_complex else 1 + 0j,
                                             shape=y_shape, dtype=y.dtype))
            (dx,) = gradients(y, [xi], grad_ys=dy)
            pairs.append((dx, dy))
    if init_targets is not None:
        for t in init_targets:
            sess.run(t)
    for xi, shp, init, (dx, dy) in zip(xs, shapes, inits, pairs):
        results.append(_one_jacobian(sess, xi, shp, init, y, y_shape, dx, dy, delta,
                                     extra_feed_dict))
    return results if as_list else results[0]


def compute_gradient_error(x, x_shape, y, y_shape, x_init_value=None, delta=1e-3,
                           init_targets=None, extra_feed_dict=None):
    """The largest absolute difference between the theoretical and numerical Jacobians."""
    grads = compute_gradient(x, x_shape, y, y_shape, x_init_value, delta, init_targets,
                             extra_feed_dict)
    if not isinstance(grads, list):
        grads = [grads]
    err = 0  # as TF 1.15: an int 0 when every Jacobian is empty, else a NumPy float64
    for theo, num in grads:
        if theo.size or num.size:
            # np.maximum, as TF: a NaN in either Jacobian makes the error NaN (never "small")
            err = np.maximum(err, np.fabs(theo.astype(np.float64) - num).max(), dtype=np.float64)
    return err


def _subscripts_text(subscripts, value, limit=10):
    """TF 1.15's lines for the elements at ``subscripts`` (np.where's tuple): the first
    ``limit`` as "  [i j] : value", then "  ..." when there are more."""
    where = np.transpose(subscripts)
    lines = [f"  {w} : {value[tuple(w)]}" for w in where[:limit]]
    return "\n".join(lines + (["  ..."] if len(where) > limit else []))


# --- graph comparison ----------------------------------------------------------------------


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """Raises ``AssertionError`` naming the first difference between two ``GraphDef`` s
    (nodes are matched by name; their order does not matter)."""
    from tideflow.protos import graph_pb2

    for what, g in (("actual", actual), ("expected", expected)):
        if not isinstance(g, graph_pb2.GraphDef):
            raise TypeError(f"assert_equal_graph_def: {what} must be a GraphDef, got "
                            f"{type(g).__name__}")

    def nodes(g):
        out = {}
        for n in g.node:
            n2 = type(n)()
            n2.CopyFrom(n)
            if checkpoint_v2 and n2.op == "Const" and "_temp" in n2.name:
                n2.ClearField("attr")
            if hash_table_shared_name and n2.op.startswith("HashTable") and \
                    "shared_name" in n2.attr:
                del n2.attr["shared_name"]
            out[n2.name] = n2
        return out

    a, e = nodes(actual), nodes(expected)
    only_a, only_e = sorted(set(a) - set(e)), sorted(set(e) - set(a))
    if only_a or only_e:
        raise AssertionError(f"Graph node names differ: only in actual {only_a}, only in "
                             f"expected {only_e}")
    for name in sorted(a):
        if a[name] != e[name]:
            raise AssertionError(f"Graph node {name!r} differs:\\nactual:\\n{a[name]}\\n"
                                 f"expected:\\n{e[name]}")


# --- local clusters -------------------------------------------------------------------------


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """Starts ``num_workers`` worker and ``num_ps`` ps gRPC servers in this process, on free
    localhost ports, as one cluster; returns ``(workers, ps_servers)`` (``tf.train.Server`` s)."""
    from tideflow.distributed.cluster import ClusterSpec
    from tideflow.distributed.launcher import free_ports
    from tideflow.distributed.server import Server

    if num_workers < 1 or num_ps < 0:
        raise ValueError(f"create_local_cluster: need num_workers >= 1 and num_ps >= 0, got "
                         f"{num_workers} and {num_ps}")
    ports = free_ports(num_workers + num_ps, "localhost")
    spec = {"worker": [f"localhost:{p}" for p in ports[:num_workers]]}
    if num_ps:
        spec["ps"] = [f"localhost:{p}" for p in ports[num_workers:]]
    cs = ClusterSpec(spec)
    workers = [Server(cs, job_name="worker", protocol=protocol, task_index=i,
                      config=worker_config, start=True) for i in range(num_workers)]
    ps = [Server(cs, job_name="ps", protocol=protocol, task_index=i, config=ps_config,
                 start=True) for i in range(num_ps)]
    return workers, ps


# --- benchmarks -----------------------------------------------------------------------------


class Benchmark:
    """A base class for benchmarks (``tf.test.Benchmark``): ``report_benchmark`` records one
    entry, ``run_op_benchmark`` times an op in a session. Entries are kept in
    ``self.reported`` and, when ``$TEST_REPORT_FILE_PREFIX`` is set, written as text lines
    to ``<prefix><name>``."""

    def __init__(self):
        self.reported = []

    def _get_name(self, overwrite_name=None):
        import inspect

        if overwrite_name:
            return overwrite_name
        for frame in inspect.stack()[1:]:
            fn = frame.function
            if fn.startswith("benchmark") and hasattr(self, fn):
                return f"{type(self).__name__}.{fn}"
        return type(self).__name__

    def report_benchmark(self, iters=None, cpu_time=None, wall_time=None, throughput=None,
                         extras=None, name=None, metrics=None):
        entry = {"name": self._get_name(name), "iters": iters, "cpu_time": cpu_time,
                 "wall_time": wall_time, "throughput": throughput, "extras": extras or {},
                 "metrics": metrics or []}
        if not hasattr(self, "reported"):
            self.reported = []
        self.reported.append(entry)
        prefix = os.environ.get("TEST_REPORT_FILE_PREFIX")
        if prefix:
            fname = prefix + re.sub(r"[^A-Za-z0-9_.-]", "__", entry["name"])
            with open(fname, "a") as f:
                f.write(repr(entry) + "\\n")
        return entry

    def run_op_benchmark(self, sess, op_or_tensor, feed_dict=None, burn_iters=2, min_iters=10,
                         store_trace=False, store_memory_usage=True, name=None, extras=None,
                         mbs=0):
        """Runs ``op_or_tensor`` ``burn_iters`` times untimed, then ``min_iters`` times; reports
        and returns ``{"iters", "wall_time" (median seconds per run), "extras", "name"}``."""
        del store_trace, store_memory_usage
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            t0 = time.perf_counter()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.perf_counter() - t0)
        wall = float(np.median(deltas)) if deltas else 0.0
        extras = dict(extras or {})
        if mbs and wall > 0:
            extras["throughput_mbs"] = mbs / wall
        entry = self.report_benchmark(iters=min_iters, wall_time=wall, extras=extras,
                                      name=self._get_name(name))
        return {"iters": entry["iters"], "wall_time": wall, "extras": entry["extras"],
                "name": entry["name"]}

    def evaluate(self, tensors):
        """The values of ``tensors`` in the default session."""
        sess = ops.get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session")
        return sess.run(tensors)


# --- misc test utilities --------------------------------------------------------------------


class StubOutForTesting:
    """Replaces attributes for a test and puts them back (``Set``/``SmartSet`` then
    ``UnsetAll``/``SmartUnsetAll``/``CleanUp``)."""

    def __init__(self):
        self._saved = []

    def Set(self, parent, child_name, new_child):
        old = getattr(parent, child_name)
        self._saved.append((parent, child_name, old, child_name in vars(parent)
                            if hasattr(parent, "__dict__") else True))
        setattr(parent, child_name, new_child)

    SmartSet = Set

    def UnsetAll(self):
        for parent, name, old, own in reversed(self._saved):
            if own:
                setattr(parent, name, old)
            else:
                try:
                    delattr(parent, name)
                except AttributeError:
                    setattr(parent, name, old)
        self._saved = []

    SmartUnsetAll = UnsetAll

    def CleanUp(self):
        self.UnsetAll()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.UnsetAll()


def disable_with_predicate(pred, skip_message):
    """A decorator skipping the test (method or class) when ``pred()`` is true."""

    def decorator(fn):
        import functools

        if isinstance(fn, type):
            for n in dir(fn):
                if n.startswith("test"):
                    setattr(fn, n, decorator(getattr(fn, n)))
            return fn

        @functools.wraps(fn)
        def wrapper(self, *a, **k):
            if pred():
                self.skipTest(skip_message)
            return fn(self, *a, **k)

        return wrapper

    return decorator


def with_eager_op_as_function(cls=None, only_as_function=False):
    """A no-op decorator: tideflow runs graphs only, so there is no eager mode to vary."""
    del only_as_function
    if cls is None:
        return lambda c: c
    return cls


def _test_session_config(config, force_gpu):
    """The config of TestCase's sessions, as TF's: soft placement on unless ``force_gpu`` (so a
    test's ``/gpu:N`` ops run on a machine without that device), and never on under it."""
    from tideflow.protos import config_pb2

    if config is None:
        config = config_pb2.ConfigProto()
        config.allow_soft_placement = not force_gpu
    elif force_gpu and config.allow_soft_placement:
        copy = config_pb2.ConfigProto()
        copy.CopyFrom(config)
        copy.allow_soft_placement = False
        config = copy
    return config


class TestCase(absltest.TestCase):
    """absl's TestCase (as TF's googletest.TestCase is) with TF's session helpers and array
    assertions."""

    # a subclass whose setUp does not call ours still gets working session helpers (as in TF)
    _cached_session = None
    _tc_graph_ctx = None

    _tc_graph = None

    def setUp(self):
        super().setUp()
        if self._tc_graph_ctx is not None:
            # a test calling setUp again (TF's tests do, to start over) gets a fresh default
            # graph, as TF's reset_default_graph; under a graph of its own it keeps that one
            g = ops.get_default_graph()
            if g is not self._tc_graph and not getattr(g, "_stands_for_global", False):
                return
            self._tc_leave_graph()
        if self._cached_session is not None:
            self._cached_session.close()
        self._cached_session = None
        # as TF's setUp: Python's and NumPy's generators and the graph get TF's default seed,
        # so a test's random data and unseeded random ops repeat from run to run
        random.seed(random_seed.DEFAULT_GRAPH_SEED)
        np.random.seed(random_seed.DEFAULT_GRAPH_SEED)
        # as TF's setUp, the default graph stack starts empty: a setUp called inside a user's
        # ``with g.as_default():`` (T2T's graph-mode test decorator) drops g, whose exit then
        # finds nothing to pop
        ops._default_graph_stack.stack = []
        self._tc_graph = ops.Graph()
        self._tc_graph.seed = random_seed.DEFAULT_GRAPH_SEED
        self._tc_graph._stands_for_global = True  # tf.reset_default_graph() in a test replaces it
        self._tc_graph_ctx = self._tc_graph.as_default()
        self._tc_graph_ctx.__enter__()

    def _tc_leave_graph(self):
        stack = ops._default_graph_stack.stack
        top = stack[-1] if stack else None
        if top is not self._tc_graph and getattr(top, "_stands_for_global", False):
            stack[-1] = self._tc_graph  # reset_default_graph() swapped it: ours leaves cleanly
        self._tc_graph_ctx.__exit__(None, None, None)
        self._tc_graph_ctx = None

    def tearDown(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
        if self._tc_graph_ctx is not None:
            self._tc_leave_graph()
        super().tearDown()

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A fresh session on ``graph`` (the default graph), closed on exit."""
        from tideflow.runtime.session import Session

        del use_gpu
        g = graph if graph is not None else ops.get_default_graph()
        with Session(graph=g, config=_test_session_config(config, force_gpu)) as sess:
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """One session per test, reused by every call."""
        from tideflow.runtime.session import Session

        del use_gpu
        g = graph if graph is not None else ops.get_default_graph()
        if self._cached_session is None or self._cached_session.graph is not g:
            if self._cached_session is not None:
                self._cached_session.close()
            self._cached_session = Session(graph=g,
                                           config=_test_session_config(config, force_gpu))
        sess = self._cached_session
        with g.as_default(), sess.as_default():
            yield sess

    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """TF 1.x's name for :meth:`cached_session`; given a ``graph``, a fresh session on it
        (as :meth:`session`), as in TF."""
        if self.id().endswith(".test_session"):
            # unittest's loader collects it by its name, as in TF; no reason: TF 1.15's absl
            # printed none ("[  SKIPPED ] T.test_session"), a newer absl prints a given one
            self.skipTest("")
        if graph is not None:
            return self.session(graph, config, use_gpu, force_gpu)
        return self.cached_session(graph, config, use_gpu, force_gpu)

    def evaluate(self, tensors):
        """The values of ``tensors`` (any fetch structure) in the default or cached session."""
        sess = ops.get_default_session()
        if sess is None:
            # (another thread of the test: its default graph is not the fetches' one) the
            # cached session of the graph the fetches live in, as TF's single cached session
            with self.cached_session(graph=_graph_of(tensors)) as s:
                return s.run(tensors)
        return sess.run(tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        """As TF 1.15's: nested dicts (a namedtuple counts as one), lists and tuples that make
        no array are compared item by item; arrays must have the same shape (no broadcast)."""
        self._all_close(a, b, rtol, atol, [], msg or "")

    def _all_close(self, a, b, rtol, atol, path, msg):
        at = "".join(f"[{p}]" for p in path)
        a = a._asdict() if hasattr(a, "_asdict") else a
        b = b._asdict() if hasattr(b, "_asdict") else b
        is_dict = isinstance(a, collections.abc.Mapping)
        if is_dict != isinstance(b, collections.abc.Mapping):
            raise ValueError(f"Can't compare dict to non-dict, a{at} vs b{at}. {msg}")
        if is_dict:
            self.assertItemsEqual(a.keys(), b.keys(), msg=f"mismatched keys: a{at} has keys "
                                  f"{a.keys()}, but b{at} has keys {b.keys()}. {msg}")
            for k in a:
                self._all_close(a[k], b[k], rtol, atol, path + [k], msg)
            return
        value_msg = f"Mismatched value: a{at} is different from b{at}. {msg}"
        if isinstance(a, (list, tuple)):
            try:
                self._arrays_all_close(a, b, rtol, atol, value_msg)
            except (ValueError, TypeError):
                # no arrays (mixed nesting, tensors inside): item by item
                if len(a) != len(b):
                    raise ValueError(f"Mismatched length: a{at} has {len(a)} items, but b{at} "
                                     f"has {len(b)} items. {msg}") from None
                for i, (x, y) in enumerate(zip(a, b)):
                    self._all_close(x, y, rtol, atol, path + [str(i)], msg)
            return
        try:
            self._arrays_all_close(a, b, rtol, atol, value_msg)
        except TypeError as e:
            note = f"Error: a{at} has {type(a)}, but b{at} has {type(b)}. {msg}"
            e.args = (f"{e.args[0]} : {note}",) + e.args[1:]
            raise

    def _as_array(self, a):
        a = self._values(a)
        if isinstance(a, np.ndarray):
            return a
        try:
            return np.array(a)
        except ValueError:
            if not isinstance(a, (list, tuple)):
                raise
            # a list of mixed depth: an object vector, as TF 1.15's NumPy made it (so a length
            # mismatch fails the shape check, and equal lengths compare item by item)
            items = np.empty(len(a), dtype=object)
            for i, v in enumerate(a):
                items[i] = v
            return items

    def _arrays_all_close(self, a, b, rtol, atol, msg):
        a, b = self._as_array(a), self._as_array(b)
        contents = f" with contents {b}" if b.ndim <= 3 or b.size < 500 else ""
        self.assertEqual(a.shape, b.shape,
                         f"Shape mismatch: expected {a.shape}, got {b.shape}{contents}.")
        if np.allclose(a, b, rtol=rtol, atol=atol):
            return
        # TF's details before NumPy's report: where, the values and the tolerances
        bad = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b), np.isnan(a) != np.isnan(b))
        lines = [msg]
        x, y = (a[np.where(bad)], b[np.where(bad)]) if a.ndim else (a, b)
        if a.ndim:
            lines.append(f"not close where = {np.where(bad)}")
        lines += [f"not close lhs = {x}", f"not close rhs = {y}",
                  f"not close dif = {np.abs(x - y)}", f"not close tol = {atol + rtol * np.abs(y)}",
                  f"dtype = {a.dtype}, shape = {a.shape}"]
        if np.ndim(rtol) or np.ndim(atol):  # (NumPy's report takes scalar tolerances)
            rtol, atol = float(np.min(rtol)), float(np.min(atol))
        with _numpy1_report():
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg="\n".join(lines),
                                       equal_nan=True)

    def assertAllEqual(self, a, b, msg=None):
        a, b = self._values(a), self._values(b)
        if hasattr(a, "to_list") or hasattr(b, "to_list"):
            # a ragged value: compared row by row as nested lists, as TF's _assertRaggedEqual
            a, b = (x.to_list() if hasattr(x, "to_list") else
                    x if isinstance(x, list) else np.asarray(x).tolist() for x in (a, b))
            self.assertEqual(a, b, msg)
            return
        try:
            a, b = np.asarray(a), np.asarray(b)
        except ValueError:
            # nested lists of different lengths (fetched structures): element by element,
            # as TF's NumPy of the time compared such object arrays
            self.assertEqual(len(a), len(b), msg)
            for x, y in zip(a, b):
                self.assertAllEqual(x, y, msg)
            return
        msg = msg or ""
        contents = f" Contents: {b}. \n{msg}." if b.ndim <= 3 or b.size < 500 else f" {msg}"
        self.assertEqual(a.shape, b.shape,
                         f"Shape mismatch: expected {a.shape}, got {b.shape}.{contents}")
        same = a == b
        if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if np.all(same):
            return
        lines = [msg]
        x, y = (a[np.where(~same)], b[np.where(~same)]) if a.ndim else (a, b)
        if a.ndim:
            lines.append(f"not equal where = {np.where(~same)}")
        lines += [f"not equal lhs = {x}", f"not equal rhs = {y}"]
        with _numpy1_report():
            np.testing.assert_array_equal(a, b, err_msg="\n".join(lines))

    def assertNear(self, f1, f2, err, msg=None):
        self.assertTrue(f1 == f2 or abs(f1 - f2) <= err,
                        f"{f1:f} != {f2:f} +/- {err:f}" + ("" if msg is None else f" ({msg})"))

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, ops.Tensor):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def _values(self, x):
        if isinstance(x, ops.Tensor) or type(x).__name__ == "RaggedTensor":
            return self.evaluate(x)
        return x

    # --- TF's further assertions ------------------------------------------------------------

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6, float_rtol=1e-6,
                                      float_atol=1e-6, half_rtol=1e-3, half_atol=1e-3,
                                      bfloat16_rtol=1e-2, bfloat16_atol=1e-2, msg=None):
        a, b = np.asarray(self._values(a)), np.asarray(self._values(b))
        dts = {a.dtype, b.dtype}
        if np.dtype(np.float32) in dts or np.dtype(np.complex64) in dts:
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.dtype(np.float16) in dts:
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        if any(d.name == "bfloat16" for d in dts):
            rtol, atol = max(rtol, bfloat16_rtol), max(atol, bfloat16_atol)
        self.assertAllClose(a.astype(np.float64) if a.dtype.kind == "V" else a,
                            b.astype(np.float64) if b.dtype.kind == "V" else b, rtol, atol, msg)

    def assertNotAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        try:
            self.assertAllClose(a, b, rtol=rtol, atol=atol)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are close at all elements")

    def assertNotAllEqual(self, a, b, msg=None):
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError(msg or "The two values are equal at all elements")

    # as TF 1.15: the extreme element against the target, in unittest's words

    def assertAllGreater(self, a, comparison_target):
        self.assertGreater(np.min(self._as_array(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):
        self.assertGreaterEqual(np.min(self._as_array(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):
        self.assertLess(np.max(self._as_array(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):
        self.assertLessEqual(np.max(self._as_array(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound, open_lower_bound=False,
                         open_upper_bound=False):
        t = self._as_array(target)
        if t.dtype.kind not in "iuf":
            raise AssertionError(f"The value of {t} does not have an ordered numeric type, "
                                 f"instead it has type: {t.dtype}")
        nans = np.where(np.isnan(t))
        if np.size(nans):
            raise AssertionError(
                f"{len(nans[0])} of the {t.size} element(s) are NaN. Subscripts(s) and "
                "value(s) of the NaN element(s):\n" + _subscripts_text(nans, t))
        lo = t <= lower_bound if open_lower_bound else t < lower_bound
        hi = t >= upper_bound if open_upper_bound else t > upper_bound
        bad = np.where(lo | hi)
        if np.size(bad):
            raise AssertionError(
                f"{len(bad[0])} of the {t.size} element(s) are outside the range "
                f"{'(' if open_lower_bound else '['}{lower_bound}, {upper_bound}"
                f"{')' if open_upper_bound else ']'}. Subscript(s) and value(s) of the "
                "offending elements:\n" + _subscripts_text(bad, t))

    def assertAllInSet(self, target, expected_set):
        t = np.asarray(self._values(target))
        diff = set(t.reshape(-1).tolist()) - set(np.asarray(list(expected_set)).tolist())
        if diff:
            raise AssertionError(f"{len(diff)} unique element(s) are not in the set "
                                 f"{expected_set}: {sorted(diff)[:10]}")

    def _GetNdArray(self, a):
        return a if a is None or isinstance(a, np.ndarray) else np.array(a)

    def assertArrayNear(self, farray1, farray2, err, msg=None):
        self.assertEqual(len(farray1), len(farray2), msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):
        self.assertTrue(np.allclose(ndarray1, ndarray2, atol=err, rtol=0), msg)

    def assertDTypeEqual(self, target, expected_dtype):
        from tideflow.framework import dtypes

        t = np.asarray(self._values(target))
        want = dtypes.as_dtype(expected_dtype).as_numpy_dtype
        if t.dtype != np.dtype(want):
            # TF 1.15's words: assertEqual's of the array's dtype and the dtype as given
            # ("dtype('float32') != <class 'numpy.int32'>"; a tf.DType is TF's TypeError there)
            raise self.failureException(f"{t.dtype!r} != {expected_dtype!r}")

    def assertDeviceEqual(self, device1, device2, msg=None):
        from tideflow.framework.device import canonical_name

        self.assertEqual(canonical_name(device1), canonical_name(device2),
                         msg or f"Devices {device1} and {device2} are not equal")

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):
        from google.protobuf import text_format

        if isinstance(expected_message_maybe_ascii, (str, bytes)):
            expected = type(message)()
            text = expected_message_maybe_ascii
            text_format.Merge(text.decode() if isinstance(text, bytes) else text, expected)
        else:
            expected = expected_message_maybe_ascii
        if expected != message:
            # as TF 1.15's (compare.assertProtoEqual): absltest's line diff of the two texts
            self.assertMultiLineEqual(text_format.MessageToString(expected),
                                      text_format.MessageToString(message), msg=msg or "")

    # TF 1.15's own name for it (unittest's deprecated alias warns, and Python 3.12 has none)
    assertRaisesRegexp = absltest.TestCase.assertRaisesRegex

    def assertItemsEqual(self, first, second, msg=None):
        self.assertCountEqual(first, second, msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type, expected_err_re_or_predicate):
        """A context expecting ``exception_type`` whose message matches the regex (searched)
        or for which the predicate is true."""
        from tideflow.framework import errors

        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                # as TF: an op error's message and the ops it was made from
                text = e.message if isinstance(e, errors.OpError) else str(e)
                op = e.op if isinstance(e, errors.OpError) else None
                while op is not None:
                    text += "\nCaused by: " + op.name
                    op = op._original_op
                return re.search(expected_err_re_or_predicate, text) is not None
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - re-raised when it does not match
            # as TF 1.15, any other exception (its own "not raised" failure too) becomes
            # an AssertionError naming it (raised while handling it, as TF's: "During handling
            # of the above exception")
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError(f"Exception of type {type(e)}: {e}")

    def assertRaisesOpError(self, expected_err_re_or_predicate):
        """A context expecting an ``OpError`` (any op failure) matching the regex."""
        from tideflow.framework import errors

        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)

    def assertRaisesIncompatibleShapesError(self, exception_type=None):
        from tideflow.framework import errors

        return self.assertRaisesWithPredicateMatch(
            exception_type or (errors.InvalidArgumentError, ValueError),
            r"Incompatible shapes|Dimensions must be equal|incompatible|not compatible")

    def get_temp_dir(self):
        """A fresh temporary directory for this test method (under :func:`get_temp_dir`)."""
        d = getattr(self, "_tempdir", None)
        if d is None or not os.path.isdir(d):
            d = self._tempdir = tempfile.mkdtemp(prefix=self.id().rsplit(".", 1)[-1] + "_",
                                                 dir=get_temp_dir())
        return d


    def checkedThread(self, target, args=None, kwargs=None):
        """A thread whose ``join()`` fails this test if ``target`` raised (TF's helper for
        tests that run session steps from several threads)."""
        return _CheckedThread(self, target, args, kwargs)


def _graph_of(fetches):
    """The graph of the first graph element in a fetch structure (None if there is none)."""
    if hasattr(fetches, "graph") and not isinstance(fetches, type):
        return fetches.graph
    if isinstance(fetches, dict):
        fetches = list(fetches.values())
    if isinstance(fetches, (list, tuple)):
        for f in fetches:
            g = _graph_of(f)
            if g is not None:
                return g
    return None


class _CheckedThread:
    def __init__(self, case, target, args=None, kwargs=None):
        import threading

        self._case, self._target = case, target
        self._args, self._kwargs = args or (), kwargs or {}
        self._exception = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported by join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        if self._exception is not None:
            self._case.fail(f"Error in checkedThread: {self._exception!r}")

    def is_alive(self):
        return self._thread.is_alive()


@contextlib.contextmanager
def _numpy1_report():
    """NumPy's assertion report in the words of NumPy 1.x, which TF 1.15's tests printed:
    no list of mismatched indices, "Max absolute difference: ...", " x: "/" y: " for the
    arrays (NumPy 2 says "... among violations", " ACTUAL: "/" DESIRED: ")."""
    try:
        yield
    except AssertionError as e:
        out, skipping = [], False
        for line in str(e).split("\n"):
            if line == "Mismatch at index:" or re.fullmatch(r"First \d+ mismatches are at "
                                                           r"indices:", line):
                skipping = True
                continue
            if skipping and line.startswith(" ["):
                continue
            skipping = False
            line = re.sub(r"^(Max (?:absolute|relative) difference) among violations:", r"\1:",
                          line)
            line = re.sub(r"^([+-]?(?:nan|inf)) location mismatch:", r"x and y \1 location "
                          "mismatch:", line)
            line = re.sub(r"^ ACTUAL: ", " x: ", line)
            line = re.sub(r"^ DESIRED: ", " y: ", line)
            out.append(line)
        raise AssertionError("\n".join(out)) from None
