"""``tensorflow.python.data.kernel_tests.test_base``: ``DatasetTestBase``, the TestCase that
tf.data's own tests build on (read a dataset through a one-shot or initializable iterator,
compare its elements, dense, sparse or ragged, and its errors), for graph mode."""

import re

from tideflow import test as _test
from tideflow.framework import dtypes, errors
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue


def default_test_combinations():
    """The mode combinations a tf.data test runs under: tideflow has one, graph mode."""
    return [{"mode": "graph", "tf_api_version": 1}]


def _is_sparse(x):
    return isinstance(x, (SparseTensor, SparseTensorValue))


def _is_ragged(x):
    return type(x).__name__ in ("RaggedTensor", "RaggedTensorValue")


def _nest():
    from tideflow.ops import dataset_nest

    return dataset_nest


def are_compatible(spec1, spec2):
    """Whether two element structures (nests of type specs) could describe one element."""
    from tideflow.ops.dataset_more import are_compatible as compatible

    return compatible(spec1, spec2)


class DatasetTestBase(_test.TestCase):
    """A TestCase with helpers to read datasets and check what they produce."""

    def assert_op_cancelled(self, op):
        with self.assertRaises(errors.CancelledError):
            self.evaluate(op)

    def assertValuesEqual(self, expected, actual):
        """Equal values: a sparse value component by component, anything else as arrays."""
        if _is_sparse(expected):
            self.assertAllEqual(expected.indices, actual.indices)
            self.assertAllEqual(expected.values, actual.values)
            self.assertAllEqual(expected.dense_shape, actual.dense_shape)
        else:
            self.assertAllEqual(expected, actual)

    def assertSparseValuesEqual(self, a, b):
        """TF 1.x's name for comparing two sparse values."""
        self.assertAllEqual(a.indices, b.indices)
        self.assertAllEqual(a.values, b.values)
        self.assertAllEqual(a.dense_shape, b.dense_shape)

    def getNext(self, dataset, requires_initialization=False, shared_name=None):
        """A callable giving the dataset's next element: its iterator is one-shot, or
        initializable (and initialized here) when ``requires_initialization``."""
        from tideflow.python.data.ops import dataset_ops

        if requires_initialization:
            iterator = dataset_ops.make_initializable_iterator(dataset, shared_name)
            self.evaluate(iterator.initializer)
        else:
            iterator = dataset_ops.make_one_shot_iterator(dataset)
        get_next = iterator.get_next()
        if hasattr(get_next, "stack") and type(get_next).__name__ == "TensorArray":
            get_next = get_next.stack()
        return lambda: get_next

    def _compareOutputToExpected(self, result_values, expected_values, assert_items_equal):
        if assert_items_equal:
            self.assertItemsEqual(result_values, expected_values)
            return
        nest = _nest()
        for result, expected in zip(result_values, expected_values):
            nest.assert_same_structure(result, expected)
            for r, e in zip(nest.flatten(result), nest.flatten(expected)):
                self.assertValuesEqual(e, r)

    def assertDatasetProduces(self, dataset, expected_output=None, expected_shapes=None,
                              expected_error=None, requires_initialization=False,
                              num_test_iterations=1, assert_items_equal=False,
                              expected_error_iter=1):
        """The dataset yields ``expected_output`` and then ends (checked twice), or raises
        ``expected_error`` (``(class, regex or predicate)``) within ``expected_error_iter``
        reads."""
        from tideflow.python.data.ops import dataset_ops

        self.assertTrue(expected_error is not None or expected_output is not None,
                        "Exactly one of expected_output or expected error should be provided.")
        if expected_error:
            self.assertTrue(expected_output is None,
                            "Exactly one of expected_output or expected error should be "
                            "provided.")
            with self.assertRaisesWithPredicateMatch(expected_error[0], expected_error[1]):
                get_next = self.getNext(dataset,
                                        requires_initialization=requires_initialization)
                for _ in range(expected_error_iter):
                    self.evaluate(get_next())
            return
        if expected_shapes:
            self.assertEqual(expected_shapes, dataset_ops.get_legacy_output_shapes(dataset))
        self.assertGreater(num_test_iterations, 0)
        for _ in range(num_test_iterations):
            get_next = self.getNext(dataset, requires_initialization=requires_initialization)
            result = [self.evaluate(get_next()) for _ in range(len(expected_output))]
            self._compareOutputToExpected(result, expected_output, assert_items_equal)
            for _ in range(2):
                with self.assertRaises(errors.OutOfRangeError):
                    self.evaluate(get_next())

    def assertDatasetsEqual(self, dataset1, dataset2):
        """Both datasets have compatible structures and yield equal elements, then end."""
        from tideflow.python.data.ops import dataset_ops

        nest = _nest()
        self.assertTrue(are_compatible(dataset_ops.get_structure(dataset1),
                                       dataset_ops.get_structure(dataset2)))
        types = nest.flatten(dataset_ops.get_legacy_output_types(dataset1))
        next1, next2 = self.getNext(dataset1), self.getNext(dataset2)
        while True:
            try:
                a = self.evaluate(next1())
            except errors.OutOfRangeError:
                with self.assertRaises(errors.OutOfRangeError):
                    self.evaluate(next2())
                break
            b = self.evaluate(next2())
            a, b = nest.flatten(a), nest.flatten(b)
            self.assertEqual(len(a), len(b))
            for x, y, dtype in zip(a, b, types):
                if _is_sparse(x) or _is_ragged(x):
                    self.assertValuesEqual(x, y)
                elif dtype == dtypes.string:
                    self.assertAllEqual(x, y)
                else:
                    self.assertAllClose(x, y)

    def assertDatasetsRaiseSameError(self, dataset1, dataset2, exception_class,
                                     replacements=None):
        """The first reads of both datasets raise ``exception_class`` with one message (after
        ``replacements``, ``(old, new, count)`` triples, on the first one's)."""
        next1, next2 = self.getNext(dataset1), self.getNext(dataset2)
        try:
            self.evaluate(next1())
            raise ValueError(f"Expected dataset to raise an error of type "
                             f"{exception_class!r}, but it did not.")
        except exception_class as e:
            expected = e.message if hasattr(e, "message") else str(e)
            for old, new, count in replacements or []:
                expected = expected.replace(old, new, count)
            with self.assertRaisesRegex(exception_class, re.escape(expected)):
                self.evaluate(next2())

    def structuredDataset(self, dataset_structure, shape=None, dtype=dtypes.int64):
        """A one-element dataset of zeros nested as ``dataset_structure`` (None is a leaf)."""
        from tideflow.ops import array_ops
        from tideflow.python.data.ops import dataset_ops

        if dataset_structure is None:
            return dataset_ops.Dataset.from_tensors(array_ops.zeros(shape or [], dtype=dtype))
        return dataset_ops.Dataset.zip(tuple(self.structuredDataset(s, shape, dtype)
                                             for s in dataset_structure))

    def structuredElement(self, element_structure, shape=None, dtype=dtypes.int64):
        """Zeros tensors nested as ``element_structure`` (None is a leaf)."""
        if element_structure is None:
            from tideflow.ops import array_ops

            return array_ops.zeros(shape or [], dtype=dtype)
        return tuple(self.structuredElement(s, shape, dtype) for s in element_structure)

