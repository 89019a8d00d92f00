"""``tensorflow.python.framework.test_util``: ``TensorFlowTestCase`` and the decorators TF's own
tests put on their methods, for graph mode (tideflow has no eager mode: a test asked to run in
both modes runs once, in a graph; one that runs only eagerly is skipped)."""

import contextlib
import functools
import unittest

from tideflow import test as _test
from tideflow.framework import ops as _ops

TensorFlowTestCase = _test.TestCase
gpu_device_name = _test.gpu_device_name
is_gpu_available = _test.is_gpu_available
create_local_cluster = _test.create_local_cluster
assert_equal_graph_def = _test.assert_equal_graph_def


def IsGoogleCudaEnabled():
    return False


def IsBuiltWithROCm():
    return False


def _graph_mode(fn):
    """``fn`` run with a fresh default graph (as TF's decorators give each run its own)."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        # stacked decorators share one graph; a tf.test.TestCase's setUp already gave the test
        # a fresh default graph (and a test may call setUp again to get another, as in TF)
        if getattr(self, "_in_graph_run", False) or _owns_default_graph(self):
            return fn(self, *args, **kwargs)
        self._in_graph_run = True
        try:
            with _ops.Graph().as_default():
                return fn(self, *args, **kwargs)
        finally:
            self._in_graph_run = False

    return wrapper


def _owns_default_graph(test):
    g = _ops.get_default_graph()
    return (getattr(test, "_tc_graph_ctx", None) is not None
            and (getattr(test, "_tc_graph", None) is g or getattr(g, "_stands_for_global", False)))


def _graph_mode_with_session(fn):
    """``fn`` run with a fresh default graph and a default session on it: TF's
    ``run_in_graph_and_eager_modes`` runs the graph half inside ``self.test_session()``, so
    code under test may rely on ``get_default_session()`` (``CheckpointManager.save``)."""

    @functools.wraps(fn)
    def wrapper(self, *args, **kwargs):
        if getattr(self, "_in_graph_run", False):
            with self.cached_session():
                return fn(self, *args, **kwargs)
        self._in_graph_run = True
        try:
            with _ops.Graph().as_default(), self.cached_session():
                return fn(self, *args, **kwargs)
        finally:
            self._in_graph_run = False

    return wrapper


def _decorator_maker(transform):
    """A decorator usable bare (``@d``) or called (``@d()``, ``@d(config=...)``) that applies
    ``transform`` to a test method, or to every ``test*`` method of a class."""

    def apply(target):
        if isinstance(target, type):
            for name, value in list(vars(target).items()):
                if name.startswith("test") and callable(value):
                    setattr(target, name, transform(value))
            return target
        return transform(target)

    def decorator(func=None, *args, **kwargs):
        if func is not None and callable(func) and not args and not kwargs:
            return apply(func)
        return apply

    return decorator


run_deprecated_v1 = _decorator_maker(_graph_mode)
run_v1_only = _decorator_maker(_graph_mode)
deprecated_graph_mode_only = _decorator_maker(_graph_mode)
graph_mode_only = _decorator_maker(_graph_mode)
run_in_graph_and_eager_modes = _decorator_maker(_graph_mode_with_session)
run_all_in_graph_and_eager_modes = _decorator_maker(_graph_mode_with_session)
run_all_in_deprecated_graph_mode_only = _decorator_maker(_graph_mode)
also_run_as_tf_function = _decorator_maker(_graph_mode)
build_as_function_and_v1_graph = _decorator_maker(_graph_mode)
run_in_async_and_sync_mode = _decorator_maker(_graph_mode)
with_c_shapes = _decorator_maker(lambda f: f)
enable_c_shapes = with_c_shapes
with_control_flow_v2 = _decorator_maker(lambda f: f)
enable_control_flow_v2 = with_control_flow_v2
assert_no_new_pyobjects_executing_eagerly = _decorator_maker(lambda f: f)
assert_no_new_tensors = _decorator_maker(lambda f: f)
assert_no_garbage_created = _decorator_maker(lambda f: f)
run_without_tensor_float_32 = _decorator_maker(lambda f: f)
xla_allow_fallback = _decorator_maker(lambda f: f)
with_forward_compatibility_horizons = _decorator_maker(lambda f: f)


def _skipper(reason):
    def transform(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            self.skipTest(reason)

        return wrapper

    return _decorator_maker(transform)


run_v2_only = _skipper("runs only in TF 2.x eager mode; tideflow is graph mode")
run_gpu_only = _skipper("needs a GPU")
run_cuda_only = _skipper("needs CUDA")


def disable_xla(description=""):
    return lambda f: f


def disable_tfrt(description=""):
    return lambda f: f


def no_xla_auto_jit(description=""):
    return lambda f: f


def IsMklEnabled():
    return False


def disable_mlir_bridge(description=""):
    return lambda f: f


def for_all_test_methods(decorator, *args, **kwargs):
    """Apply ``decorator(*args, **kwargs)`` to every ``test*`` method of a class."""

    def apply(cls):
        for name, value in list(vars(cls).items()):
            if name.startswith("test") and callable(value):
                setattr(cls, name, decorator(*args, **kwargs)(value))
        return cls

    return apply


def skip_if(condition):
    """Skip the decorated test when ``condition`` (a bool, or a callable of none) holds."""

    def decorator(fn):
        @functools.wraps(fn)
        def wrapper(self, *args, **kwargs):
            if condition() if callable(condition) else condition:
                self.skipTest("skip_if condition holds")
            return fn(self, *args, **kwargs)

        return wrapper

    return decorator


@contextlib.contextmanager
def use_gpu():
    yield


@contextlib.contextmanager
def force_cpu():
    with _ops.device("/cpu:0"):
        yield


@contextlib.contextmanager
def device(use_gpu):
    with _ops.device("/device:GPU:0" if use_gpu and is_gpu_available() else "/cpu:0"):
        yield


def is_xla_enabled():
    return False


def is_mlir_bridge_enabled():
    return False


def GpuSupportsHalfMatMulAndConv():
    return False


def NHWCToNCHW(input_tensor):
    """Channels-last to channels-first: a tensor is transposed, a per-dimension list (ksize,
    strides, paddings) reordered."""
    if isinstance(input_tensor, (list, tuple)):
        return [input_tensor[0], input_tensor[-1], *input_tensor[1:-1]]
    from tideflow.ops import array_ops

    ndims = input_tensor.get_shape().ndims
    return array_ops.transpose(input_tensor, [0, ndims - 1, *range(1, ndims - 1)])


def NCHWToNHWC(input_tensor):
    """Channels-first to channels-last (the inverse of :func:`NHWCToNCHW`)."""
    if isinstance(input_tensor, (list, tuple)):
        return [input_tensor[0], *input_tensor[2:], input_tensor[1]]
    from tideflow.ops import array_ops

    ndims = input_tensor.get_shape().ndims
    return array_ops.transpose(input_tensor, [0, *range(2, ndims), 1])


def NHWCToNCHW_VECT_C(input_shape_or_tensor):
    """NHWC to NCHW_VECT_C (channels split into groups of 4, the 4 innermost): a shape list
    is reordered, a tensor reshaped and transposed."""
    if isinstance(input_shape_or_tensor, (list, tuple)):
        n, *spatial, c = input_shape_or_tensor
        if c % 4:
            raise ValueError(f"Last dimension of input must be evenly divisible by 4 to convert "
                             f"to NCHW_VECT_C: {c}")
        return [n, c // 4, *spatial, 4]
    from tideflow.ops import array_ops

    t = input_shape_or_tensor
    dims = t.get_shape().as_list()
    if dims[-1] % 4:
        raise ValueError(f"Last dimension of input must be evenly divisible by 4 to convert to "
                         f"NCHW_VECT_C: {dims[-1]}")
    t = array_ops.reshape(t, [-1 if d is None else d for d in dims[:-1]] + [dims[-1] // 4, 4])
    nd = len(dims)
    return array_ops.transpose(t, [0, nd - 1, *range(1, nd - 1), nd])


def NCHW_VECT_CToNHWC(input_shape_or_tensor):
    """The inverse of :func:`NHWCToNCHW_VECT_C`."""
    if isinstance(input_shape_or_tensor, (list, tuple)):
        n, groups, *spatial, four = input_shape_or_tensor
        if four != 4:
            raise ValueError("Last dimension of NCHW_VECT_C must be 4.")
        return [n, *spatial, groups * 4]
    from tideflow.ops import array_ops

    t = input_shape_or_tensor
    dims = t.get_shape().as_list()
    nd = len(dims)
    t = array_ops.transpose(t, [0, *range(2, nd - 1), 1, nd - 1])
    return array_ops.reshape(t, [-1 if d is None else d for d in [dims[0], *dims[2:-1]]] +
                             [dims[1] * 4])


def main(argv=None):
    return _test.main(argv)


skipTest = unittest.skip


def __getattr__(name):
    # the rest of ``tf.test`` (``TestCase``, ``compute_gradient_error``, ...) under this path too
    if not name.startswith("__") and hasattr(_test, name):
        return getattr(_test, name)
    raise AttributeError(f"module 'tensorflow.python.framework.test_util' has no attribute {name!r}")


def set_producer_version(graph, producer_version):
    """Sets the GraphDef producer version ``graph`` reports (tests of deprecated ops)."""
    graph._graph_def_versions = (producer_version,) + tuple(graph._graph_def_versions[1:])


def get_node_def_from_graph(node_name, graph_def):
    """The NodeDef named ``node_name`` in ``graph_def``, or None."""
    for node_def in graph_def.node:
        if node_def.name == node_name:
            return node_def
    return None


def assert_ops_in_graph(expected_ops, graph):
    """Checks that ``graph`` has a node of each name in ``expected_ops`` with the op type given
    for it (ValueError otherwise); returns those NodeDefs by name."""
    found = {}
    for node in graph.as_graph_def().node:
        if node.name in expected_ops:
            if node.op != expected_ops[node.name]:
                raise ValueError(f"Expected op for node {node.name} is different. "
                                 f"{expected_ops[node.name]} vs {node.op}")
            found[node.name] = node
    if set(found) != set(expected_ops):
        raise ValueError(f"Not all expected ops are present. Expected {sorted(expected_ops)}, "
                         f"found {sorted(found)}")
    return found


def assert_meta_graph_protos_equal(tester, a, b):
    """Fails ``tester`` unless MetaGraphDefs ``a`` and ``b`` hold the same collections (each
    registered proto compared parsed), an equal graph and equal other fields. Clears the
    collection_def and graph_def fields of both, as TF's helper does."""
    from tideflow.framework import meta_graph

    tester.assertEqual(set(a.collection_def), set(b.collection_def))
    for key in a.collection_def:
        a_value, b_value = a.collection_def[key], b.collection_def[key]
        proto_type = meta_graph.get_collection_proto_type(key)
        if proto_type is None:
            tester.assertEqual(a_value, b_value)
            continue
        tester.assertEqual(len(a_value.bytes_list.value), len(b_value.bytes_list.value))
        for a_item, b_item in zip(a_value.bytes_list.value, b_value.bytes_list.value):
            a_proto, b_proto = proto_type(), proto_type()
            a_proto.ParseFromString(a_item)
            b_proto.ParseFromString(b_item)
            tester.assertProtoEquals(a_proto, b_proto)
    a.ClearField("collection_def")
    b.ClearField("collection_def")
    assert_equal_graph_def(a.graph_def, b.graph_def, checkpoint_v2=True)
    tester.assertProtoEquals(a.graph_def.versions, b.graph_def.versions)
    a.ClearField("graph_def")
    b.ClearField("graph_def")
    tester.assertProtoEquals(a, b)
