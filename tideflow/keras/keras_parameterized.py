"""``tensorflow.python.keras.keras_parameterized``: the decorators that run a Keras test once
per model type (functional, subclass, sequential) and once per execution mode. tideflow has
one mode, TF 1.x's graph with a session (TF's ``_v1_session`` case), so a test decorated with
``run_all_keras_modes`` runs once that way; one that skips the graph mode is skipped."""

import collections.abc
import contextlib
import functools
import io
import itertools
import sys
import unittest

from absl.testing import parameterized

from tideflow import test as _test
from tideflow.framework import ops as _ops
from tideflow.keras import backend as _backend
from tideflow.keras import testing_utils


class _GlobalGraph:
    """Stands for the graph context tf.test.TestCase enters: Keras tests use the global
    default graph, as TF 1.x's do, so ``keras.backend.clear_session()`` may reset it."""

    def __exit__(self, *exc_info):
        return False


class TestCase(_test.TestCase, parameterized.TestCase):
    """A tf.test.TestCase with absl's parameterized tests, on a fresh global default graph;
    the Keras session state is cleared after each test."""

    def setUp(self):
        super().setUp()
        if isinstance(self._tc_graph_ctx, _GlobalGraph):
            return
        # leave the nested graph tf.test.TestCase entered: Keras tests reset the global one
        # (unless the test runs under a graph its caller entered: then it keeps its own)
        self._tc_graph_ctx.__exit__(None, None, None)
        if _ops.has_default_graph():
            self._tc_graph_ctx = self._tc_graph.as_default()
            self._tc_graph_ctx.__enter__()
            return
        _backend.clear_session()
        self._tc_graph_ctx = _GlobalGraph()
        self._tc_graph = _ops.get_default_graph()

    def tearDown(self):
        super().tearDown()
        if not _ops.has_default_graph():
            _backend.clear_session()

    @contextlib.contextmanager
    def captureWritesToStream(self, stream):
        """Captures what is written to ``sys.stdout`` or ``sys.stderr`` (``stream``) inside
        the block; the yielded object's ``contents()`` returns it (TF's test helper)."""
        name = "stdout" if stream is sys.stdout else "stderr" if stream is sys.stderr else None
        if name is None:
            raise ValueError("captureWritesToStream captures sys.stdout or sys.stderr.")
        buffer = io.StringIO()
        buffer.contents = buffer.getvalue
        saved = getattr(sys, name)
        setattr(sys, name, buffer)
        try:
            yield buffer
        finally:
            setattr(sys, name, saved)


def run_with_all_model_types(test_or_class=None, exclude_models=None):
    """Run the test (or every test of the class) once per Keras model type, inside
    ``testing_utils.model_type_scope``; ``exclude_models`` names types to leave out."""
    excluded = exclude_models if isinstance(exclude_models, (list, tuple, set)) else (
        [exclude_models] if exclude_models else [])
    params = [("_" + kind, kind) for kind in ("functional", "subclass", "sequential")
              if kind not in excluded]

    def single_method_decorator(f):
        @parameterized.named_parameters(*params)
        @functools.wraps(f)
        def decorated(self, model_type, *args, **kwargs):
            with testing_utils.model_type_scope(model_type):
                f(self, *args, **kwargs)

        return decorated

    return _test_or_class_decorator(test_or_class, single_method_decorator)


def run_all_keras_modes(test_or_class=None, config=None, always_skip_v1=False,
                        always_skip_eager=False):
    """Run the test in every Keras execution mode tideflow has: the graph mode with a session
    (``run_eagerly`` and ``experimental_run_tf_function`` scopes False). A test marked
    ``always_skip_v1`` runs only eagerly in TF, so it is skipped here."""
    del always_skip_eager  # the eager modes do not exist in tideflow
    params = [("_v2_only", "v2_only")] if always_skip_v1 else [("_v1_session", "v1_session")]

    def single_method_decorator(f):
        @parameterized.named_parameters(*params)
        @functools.wraps(f)
        def decorated(self, run_mode, *args, **kwargs):
            if run_mode == "v2_only":
                self.skipTest("runs only in TF 2.x's eager modes; tideflow is graph mode")
            with testing_utils.run_eagerly_scope(False), \
                    testing_utils.experimental_run_tf_function_scope(False), \
                    self.test_session(config=config):
                f(self, *args, **kwargs)

        return decorated

    return _test_or_class_decorator(test_or_class, single_method_decorator)


def _test_or_class_decorator(test_or_class, single_method_decorator):
    """Apply a one-method decorator to a test method, to each case of an already
    parameterized method (the cases multiply), or to every test method of a class."""

    def decorate(obj):
        if isinstance(obj, collections.abc.Iterable):
            return itertools.chain.from_iterable(single_method_decorator(m) for m in obj)
        if isinstance(obj, type):
            for name, value in obj.__dict__.copy().items():
                if callable(value) and name.startswith(unittest.TestLoader.testMethodPrefix):
                    setattr(obj, name, single_method_decorator(value))
            # rebuild the class so absl's metaclass expands the new parameterized methods
            return type(obj).__new__(type(obj), obj.__name__, obj.__bases__,
                                     obj.__dict__.copy())
        return single_method_decorator(obj)

    if test_or_class is not None:
        return decorate(test_or_class)
    return decorate
