"""``tf.test``: device queries and a minimal ``TestCase`` for TF 1.x unit tests."""

import contextlib
import unittest

import numpy as np

from tideflow.framework import ops
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


def gpu_device_name():
    """The name of the first GPU device ("/device:GPU:0"), or "" without one."""
    return "/device:GPU:0" if gpu_info()[1] else ""


def main(argv=None):
    """Runs the tests of the calling module (``tf.test.main``)."""
    return unittest.main(argv=argv)


class TestCase(unittest.TestCase):
    """A unittest TestCase with TF's session helpers and array assertions."""

    def setUp(self):
        super().setUp()
        self._cached_session = None
        self._graph_ctx = ops.Graph().as_default()
        self._graph_ctx.__enter__()

    def tearDown(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
        self._graph_ctx.__exit__(None, None, None)
        super().tearDown()

    def get_temp_dir(self):
        import tempfile

        d = getattr(self, "_tempdir", None)
        if d is None:
            d = self._tempdir = tempfile.mkdtemp()
        return d

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A fresh session on ``graph`` (the default graph), closed on exit."""
        from tideflow.runtime.session import Session

        del use_gpu, force_gpu
        g = graph if graph is not None else ops.get_default_graph()
        with Session(graph=g, config=config) as sess:
            yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """One session per test, reused by every call."""
        from tideflow.runtime.session import Session

        del use_gpu, force_gpu
        g = graph if graph is not None else ops.get_default_graph()
        if self._cached_session is None or self._cached_session.graph is not g:
            if self._cached_session is not None:
                self._cached_session.close()
            self._cached_session = Session(graph=g, config=config)
        sess = self._cached_session
        with g.as_default(), sess.as_default():
            yield sess

    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """TF 1.x's name for :meth:`cached_session`."""
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")  # unittest's loader collects it by its name, as in TF
        return self.cached_session(graph, config, use_gpu, force_gpu)

    def evaluate(self, tensors):
        """The values of ``tensors`` (any fetch structure) in the default or cached session."""
        sess = ops.get_default_session()
        if sess is None:
            with self.cached_session() as s:
                return s.run(tensors)
        return sess.run(tensors)

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):
        a, b = self._values(a), self._values(b)
        if isinstance(a, dict):
            self.assertEqual(set(a), set(b), msg)
            for k in a:
                self.assertAllClose(a[k], b[k], rtol, atol, msg)
            return
        if isinstance(a, (list, tuple)) and a and not np.isscalar(a[0]) and not isinstance(
                a[0], (list, tuple)):
            for x, y in zip(a, b):
                self.assertAllClose(x, y, rtol, atol, msg)
            return
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=rtol, atol=atol,
                                   err_msg=msg or "")

    def assertAllEqual(self, a, b, msg=None):
        a, b = np.asarray(self._values(a)), np.asarray(self._values(b))
        self.assertEqual(a.shape, b.shape, msg or f"shapes differ: {a.shape} vs {b.shape}")
        np.testing.assert_array_equal(a, b, err_msg=msg or "")

    def assertNear(self, f1, f2, err, msg=None):
        self.assertTrue(abs(f1 - f2) <= err, msg or f"{f1} != {f2} +/- {err}")

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):
        self.assertEqual(list(np_array.shape), tf_tensor.get_shape().as_list(), msg)

    def _values(self, x):
        if isinstance(x, ops.Tensor):
            return self.evaluate(x)
        return x
