"""Python-level tensor semantics (operators, conversion, Dimension, TensorShape, DType) checked
against what TF 1.15 printed for the same sweeps."""

import decimal
import fractions
import operator
import re

import numpy as np
import pytest

import tideflow as tf


def _error(cls, fn):
    with pytest.raises(cls) as e:
        fn()
    return str(e.value).split("\n")[0]


def test_matmul_operator_converts_the_other_operand_with_the_tensors_dtype_hint():
    # TF 1.15: `@` converts a Python or NumPy operand as + does (x's dtype as a hint), so a
    # scalar fails on rank and an int list multiplies a float matrix
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]], tf.float16)
        assert _error(ValueError, lambda: x @ 2) == (
            "Shape must be rank 2 but is rank 0 for 'matmul' (op: 'MatMul') with input "
            "shapes: [2,2], [].")
        assert _error(ValueError, lambda: np.int64(3) @ x) == (
            "Shape must be rank 2 but is rank 0 for 'matmul_1' (op: 'MatMul') with input "
            "shapes: [], [2,2].")
        y = tf.constant([[1.0, 2.0]]) @ [[1], [2]]
        assert (y.dtype, y.op.type, y.op.name) == (tf.float32, "MatMul", "matmul_2")
        assert y.op.inputs[1].op.name == "matmul_2/y"
        with tf.Session() as s:
            assert s.run(y).tolist() == [[5.0]]


def test_numpy_operand_that_cannot_take_the_tensors_dtype_keeps_its_own():
    # TF 1.15: the dtype hint falls back when the cast fails, and the op names the mismatch
    with tf.Graph().as_default():
        s = tf.constant(["a", "b"])
        assert _error(TypeError, lambda: s + np.int32(2)) == (
            "Input 'y' of 'Add' Op has type int32 that does not match type string of "
            "argument 'x'.")
        assert _error(TypeError, lambda: s * np.array([1.0, 2.0])).startswith(
            "Value passed to parameter 'x' has DataType string not in list of allowed values")
        h = tf.constant([1.0, 2.0], tf.float16) + np.float64(0.5)
        assert h.dtype == tf.float16


def test_object_array_of_numbers_is_not_a_string_tensor():
    # TF 1.15: an object array is read as strings, and its first number is the error
    with tf.Graph().as_default():
        a = np.array([1, 2.5], dtype=object)
        for kw in ({"dtype": tf.string}, {"preferred_dtype": tf.string}, {}):
            assert _error(TypeError, lambda kw=kw: tf.convert_to_tensor(a, **kw)) == (
                "Expected binary or unicode string, got 1")
        assert tf.convert_to_tensor(a, dtype=tf.float32).dtype == tf.float32


def test_bytes_array_cast_to_numbers_raises_numpys_value_error():
    # TF 1.15 (NumPy 1.18): astype's ValueError as it is; text goes to bool through int, and
    # a preferred dtype that fails leaves the strings
    with tf.Graph().as_default():
        a = np.array([b"a"])
        assert "could not convert string to float" in _error(
            ValueError, lambda: tf.convert_to_tensor(a, dtype=tf.float32))
        assert "invalid literal for int() with base 10" in _error(
            ValueError, lambda: tf.convert_to_tensor(a, dtype=tf.bool))
        for dt in (tf.bool, tf.int32):
            t = tf.convert_to_tensor(a, preferred_dtype=dt)
            assert t.dtype == tf.string
        assert tf.convert_to_tensor(np.array([b"1", b"0"]), dtype=tf.bool).dtype == tf.bool


def test_dimension_merge_and_compatibility_with_bad_values_give_not_implemented():
    # TF 1.15 catches the conversion error and returns NotImplemented (which is truthy, so
    # assert_is_compatible_with passes)
    d = tf.Dimension(3)
    assert d.merge_with(2.5) is NotImplemented
    assert d.is_compatible_with(-1) is NotImplemented
    assert tf.Dimension(None).merge_with(-1) is NotImplemented
    assert d.assert_is_compatible_with(2.5) is None
    assert d.merge_with(3).value == 3
    assert _error(ValueError, lambda: d.merge_with(4)) == "Dimensions 3 and 4 are not compatible"


def test_dimension_modulo_and_reflected_operators_errors():
    # TF 1.15: % converts without catching; 2.5 + Dimension(3) evaluates Dimension + 2.5
    d = tf.Dimension(3)
    assert _error(ValueError, lambda: d % 2.5) == "Ambiguous dimension: 2.5"
    assert _error(ValueError, lambda: tf.Dimension(None) % -1) == "Dimension -1 must be >= 0"
    assert _error(TypeError, lambda: 2.5 + d) == (
        "unsupported operand type(s) for +: 'Dimension' and 'float'")
    assert _error(TypeError, lambda: 2.5 * d) == (
        "unsupported operand type(s) for *: 'Dimension' and 'float'")
    assert (2 + d).value == 5 and (2 * d).value == 6 and (7 % d).value == 1


def test_unknown_rank_shape_slice_with_a_step_raises():
    # TF 1.15: "Steps are not yet handled" for any step, even 1
    s = tf.TensorShape(None)
    for key in (slice(None, None, 2), slice(0, 3, 1)):
        assert _error(ValueError, lambda key=key: s[key]) == "Steps are not yet handled"
    assert s[1:3].as_list() == [None, None]
    assert tf.TensorShape([1, 2, 3])[::2].as_list() == [1, 3]


def test_quantized_dtypes_are_numpy_compatible_and_not_unsigned():
    # TF 1.15: is_unsigned asks min == 0, which quantized types refuse
    for d in (tf.qint8, tf.quint8, tf.qint16, tf.quint16, tf.qint32):
        assert d.is_numpy_compatible is True
        assert d.is_unsigned is False
    assert tf.uint8.is_unsigned and not tf.resource.is_numpy_compatible


def test_variable_hash_is_its_identity():
    # TF 1.15: hash(v) == id(v), for ref and resource variables alike
    with tf.Graph().as_default():
        for res in (False, True):
            v = tf.Variable(1.0, use_resource=res)
            assert hash(v) == id(v)
            assert {v: 1}[v] == 1


def test_variable_of_another_dtype_as_an_op_input_names_the_mismatch():
    # TF 1.15: the variable's conversion to int32 is a ValueError, so the op reports the
    # dtype the value has by itself
    with tf.Graph().as_default():
        iv = tf.Variable(3, name="iv")
        v = tf.Variable([[1.0, 2.0]], name="v")
        assert _error(TypeError, lambda: iv < v) == (
            "Input 'y' of 'Less' Op has type float32 that does not match type int32 of "
            "argument 'x'.")
        assert _error(TypeError, lambda: tf.add(tf.constant(1), v)) == (
            "Input 'y' of 'Add' Op has type float32 that does not match type int32 of "
            "argument 'x'.")


def test_constant_shape_argument_errors():
    # TF 1.15: make_tensor_proto reads the shape with int() per entry, and a NumPy value never
    # fits a shape with no elements
    with tf.Graph().as_default():
        assert _error(TypeError, lambda: tf.constant(7, shape=[None, 2])) == (
            "int() argument must be a string, a bytes-like object or a number, not 'NoneType'")
        assert _error(TypeError, lambda: tf.constant([1, 2], shape=5)) == (
            "'int' object is not iterable")
        assert _error(ValueError, lambda: tf.constant(np.array([5]), shape=[2, 0])) == (
            "Too many elements provided. Needed at most 0, but received 1")
        assert tf.constant([7], shape=[2, 0]).get_shape().as_list() == [2, 0]
        assert tf.constant(np.array([5]), shape=[3]).get_shape().as_list() == [3]


def test_shape_conversion_to_a_non_integer_dtype():
    # TF 1.15's words, "TensorShape" also for a Dimension
    with tf.Graph().as_default():
        for value in (tf.TensorShape([2, 3]), tf.Dimension(3)):
            assert _error(TypeError, lambda value=value: tf.convert_to_tensor(
                value, dtype=tf.float32)) == (
                "Cannot convert a TensorShape to dtype: <dtype: 'float32'>")


def test_zeros_of_a_list_holding_an_int64_tensor_packs_int32():
    # TF 1.15: zeros converts a list shape with tensors to int32 (casting an int64 size)
    with tf.Graph().as_default():
        z = tf.zeros([tf.constant(3, tf.int64), 24])
        packed = z.op.inputs[0]
        assert (packed.op.type, packed.dtype) == ("Pack", tf.int32)
        assert z.get_shape().as_list() == [3, 24]
        assert _error(TypeError, lambda: tf.zeros([tf.placeholder(tf.float32, [None]).shape[0],
                                                   -1])) == (
            "__int__ returned non-int (type NoneType)")


def test_random_shapes_convert_as_tfs_shape_tensor():
    # TF 1.15: Dimensions unwrapped to a tuple, no int32 preference (a size past 2**31 is
    # int64, not wrapped to 0), and the tuple named in the error
    with tf.Graph().as_default():
        t = tf.random_normal([2**33, 1])
        assert t.get_shape().as_list() == [2**33, 1]
        draw = tf.get_default_graph().get_operation_by_name("random_normal/RandomStandardNormal")
        assert draw.inputs[0].dtype == tf.int64
        n = tf.placeholder(tf.float32, [None, 4])
        assert _error(TypeError, lambda: tf.random_uniform([n.shape[0], -1])) == (
            "Failed to convert object of type <class 'tuple'> to Tensor. Contents: (None, -1). "
            "Consider casting elements to a supported type.")
        u = tf.random_uniform((tf.Dimension(2), 3))
        assert u.get_shape().as_list() == [2, 3]


def test_shape_attr_from_a_tensor_is_a_plain_type_error():
    # TF 1.15's _MakeShape re-raises a TypeError as TypeError (not its subclass)
    with tf.Graph().as_default():
        with pytest.raises(TypeError) as e:
            tf.placeholder(tf.float32, tf.constant([3, 24], tf.int64))
        assert type(e.value) is TypeError
        assert str(e.value).startswith("Error converting shape to a TensorShape: ")


def test_sparse_tensor_eval_without_a_session_and_indexed_slices_dtype_error():
    # TF 1.15: SparseTensor.eval uses Tensor.eval's default-session check; an IndexedSlices
    # converted to another dtype names both dtypes
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
        assert _error(ValueError, sp.eval) == (
            "Cannot evaluate tensor using `eval()`: No default session is registered. Use "
            "`with sess.as_default()` or pass an explicit session to `eval(session=sess)`")
        s = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
        assert _error(ValueError, lambda: tf.convert_to_tensor(s, dtype=tf.float64)) == (
            "Tensor conversion requested dtype float64 for IndexedSlices with dtype float32")
        with tf.Session() as sess:
            assert sp.eval(session=sess).dense_shape.tolist() == [2, 3]


def _shape_error(fn):
    return _error(ValueError, fn).split(" for '")[0]


def test_concat_with_a_scalar_first_and_bias_add_rank_order():
    # TF 1.15: concat's first known rank being 0 is "Can't concatenate scalars" whatever
    # follows; BiasAdd checks the value's rank before the bias'
    with tf.Graph().as_default():
        s = tf.placeholder(tf.float32, [])
        v = tf.placeholder(tf.float32, [4])
        assert _shape_error(lambda: tf.concat([s, v], 0)) == (
            "Can't concatenate scalars (use tf.stack instead)")
        assert _shape_error(lambda: tf.concat([v, s], 0)) == "Shape must be rank 1 but is rank 0"
        m = tf.placeholder(tf.float32, [2, 3])
        assert _shape_error(lambda: tf.nn.bias_add(v, m)) == (
            "Shape must be at least rank 2 but is rank 1")
        assert _shape_error(lambda: tf.nn.bias_add(m, m)) == "Shape must be rank 1 but is rank 2"


def test_indexing_with_an_unknown_dimension_and_slice_assign_shape_mismatch():
    # TF 1.15: an unknown Dimension fails packing the spec, inside the strided_slice scope
    # (its name is taken); a sliced assignment of another shape is UnimplementedError
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3])
        x = tf.ones([4, 3])
        assert _error(ValueError, lambda: x[p.shape[0]]) == (
            "Cannot convert an unknown Dimension to a Tensor: ?")
        assert _error(ValueError, lambda: x[:p.shape[0]]) == (
            "Cannot convert an unknown Dimension to a Tensor: ?")
        assert x[:p.shape[1]].name == "strided_slice_2:0"
        v = tf.Variable(tf.zeros([3, 4]))
        bad = v[0].assign(tf.ones([3]))
        with tf.Session() as s:
            s.run(v.initializer)
            with pytest.raises(tf.errors.UnimplementedError) as e:
                s.run(bad)
            assert "sliced l-value shape [4] does not match r-value shape [3]. Automatic " \
                "broadcasting not yet implemented." in str(e.value)


def test_resource_variable_refuses_in_place_operators():
    # TF 1.15: a resource variable's += -= *= /= **= raise RuntimeError (creating no op); a
    # ref variable's give a new tensor
    with tf.Graph().as_default() as g:
        v = tf.Variable(tf.ones([2]), use_resource=True)
        n = len(g.get_operations())
        with pytest.raises(RuntimeError) as e:
            v += 1
        assert str(e.value) == (
            "Variable += value not supported. Use variable.assign_add(value) to modify the "
            "variable value and variable = variable + value to get a new Tensor object.")
        with pytest.raises(RuntimeError) as e:
            v /= 2
        assert str(e.value) == (
            "Variable /= value not supported. Use `var.assign(var / value)` to modify the "
            "variable or `var = var / value` to get a new Tensor object.")
        for op, fn in (("-", operator.isub), ("*", operator.imul), ("**", operator.ipow)):
            with pytest.raises(RuntimeError, match=f"Variable {re.escape(op)}= value"):
                fn(v, 2)
        assert len(g.get_operations()) == n
        r = tf.Variable(tf.ones([2]))
        r += 1
        assert isinstance(r, tf.Tensor) and r.op.type == "AddV2"


def test_relu_dtype_error_lists_qint8():
    # TF 1.15's Relu takes realnumbertype and qint8
    with tf.Graph().as_default():
        assert _error(TypeError, lambda: tf.nn.relu(tf.constant([True]))) == (
            "Value passed to parameter 'features' has DataType bool not in list of allowed "
            "values: float32, float64, int32, uint8, int16, int8, int64, bfloat16, uint16, "
            "float16, uint32, uint64, qint8")


def test_zero_stride_from_a_tensor_lists_the_evaluated_strides():
    # TF 1.15 evaluates the packed strides whole, so the error lists them as computed
    with tf.Graph().as_default():
        x = tf.ones([2, 3])
        assert _error(ValueError, lambda: x[::tf.constant(0)]) == (
            "strides[0] must be non-zero for 'strided_slice' (op: 'StridedSlice') with input "
            "shapes: [2,3], [1], [1], [1] and with computed input tensors: input[3] = <0>.")
        assert x[::tf.shape(tf.ones([2, 3]))[0]].get_shape().as_list() == [1, 3]


def test_dense_plus_sparse_fails_in_the_ops_conversion():
    # TF 1.15: the operator passes a SparseTensor to the op unconverted (dense * sparse is
    # the SparseTensor's own product)
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
        d = tf.ones([2, 3])
        msg = _error(TypeError, lambda: d + sp)
        assert msg.startswith("Expected float32 passed to parameter 'y' of op 'AddV2', got <")
        assert "SparseTensor object at 0x" in msg and "of type 'SparseTensor' instead. " \
            "Error: Expected float32, got <" in msg
        assert isinstance(d * sp, tf.SparseTensor)


def test_constant_checks_python_values_by_type_as_tf():
    # TF 1.15's isinstance checks: an arbitrary object, a Decimal or a Fraction for an integer
    # dtype, a Dimension for a float one, fail before NumPy sees them
    class Thing:
        pass

    with tf.Graph().as_default():
        assert _error(TypeError, lambda: tf.constant([object()], tf.float32)).startswith(
            "Expected float32, got <object object at 0x")
        assert _error(TypeError, lambda: tf.constant([Thing()], tf.int32)).endswith(
            "of type 'Thing' instead.")
        assert _error(TypeError, lambda: tf.constant([decimal.Decimal("1.5")], tf.int64)) == (
            "Expected int64, got Decimal('1.5') of type 'Decimal' instead.")
        assert _error(TypeError, lambda: tf.constant([fractions.Fraction(1, 2)], tf.int32)) == (
            "Expected int32, got Fraction(1, 2) of type 'Fraction' instead.")
        assert _error(TypeError, lambda: tf.constant([tf.Dimension(3)], tf.float32)) == (
            "Expected float32, got Dimension(3) of type 'Dimension' instead.")
        assert _error(TypeError, lambda: tf.constant([np.complex64(1)], tf.float16)) == (
            "Expected float16, got (1+0j) of type 'complex64' instead.")
        assert tf.constant([tf.Dimension(3), 4], tf.int32).dtype == tf.int32
        assert tf.constant([fractions.Fraction(1, 2)], tf.float32).dtype == tf.float32
