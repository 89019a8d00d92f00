"""DTypes, TensorShape/Dimension and DeviceSpec behave as TF 1.x's."""

import ml_dtypes
import numpy as np
import pytest

import tideflow as tf
from tideflow.framework import dtypes
from tideflow.framework.device import DeviceSpec, merge_device


@pytest.mark.parametrize(
    "dt,enum,np_type",
    [
        (tf.float32, 1, np.float32), (tf.float64, 2, np.float64), (tf.int32, 3, np.int32),
        (tf.uint8, 4, np.uint8), (tf.int16, 5, np.int16), (tf.int8, 6, np.int8),
        (tf.string, 7, object), (tf.complex64, 8, np.complex64), (tf.int64, 9, np.int64),
        (tf.bool, 10, np.bool_), (tf.bfloat16, 14, ml_dtypes.bfloat16),
        (tf.uint16, 17, np.uint16), (tf.complex128, 18, np.complex128),
        (tf.float16, 19, np.float16),
    ],
)
def test_dtype_enums_and_numpy(dt, enum, np_type):
    assert dt.as_datatype_enum == enum
    assert tf.as_dtype(enum) is dt
    assert dt.as_numpy_dtype is np_type
    if np_type is not object:
        assert tf.as_dtype(np_type) is dt
        assert tf.as_dtype(np.dtype(np_type)) is dt
    assert tf.as_dtype(dt.name) is dt
    assert dt._as_ref.base_dtype is dt
    assert dt._as_ref.as_datatype_enum == enum + 100


def test_dtype_properties():
    assert tf.float32.is_floating and not tf.int32.is_floating
    assert tf.bfloat16.is_floating and tf.float16.is_floating
    assert tf.int32.is_integer and tf.uint8.is_unsigned and not tf.int8.is_unsigned
    assert tf.complex64.is_complex and tf.complex64.real_dtype is tf.float32
    assert tf.int8.min == -128 and tf.int8.max == 127
    assert tf.uint16.max == 65535
    assert tf.float32.max == float(np.finfo(np.float32).max)
    assert tf.bfloat16.max == float(ml_dtypes.finfo(ml_dtypes.bfloat16).max)
    assert dtypes.float32_ref.name == "float32_ref" and repr(tf.float32) == "tf.float32"
    assert tf.float32 == "float32" and tf.float32 == np.float32 and tf.float32 != tf.float64
    assert tf.as_dtype("float") is tf.float32 and tf.as_dtype("double") is tf.float64
    assert tf.as_dtype(float) is tf.float32 and tf.as_dtype(bool) is tf.bool
    with pytest.raises(TypeError):
        tf.as_dtype("no_such_type")
    with pytest.raises(TypeError):
        _ = tf.bool.min
    assert dtypes.float32.size == 4 and tf.string.size == 8  # TF 1.15: object itemsize


def test_dimension():
    d = tf.Dimension(3)
    assert d.value == 3 and int(d) == 3 and str(tf.Dimension(None)) == "?"
    assert (d + 2).value == 5 and (tf.Dimension(None) * 2).value is None
    assert (d == 3) is True and (tf.Dimension(None) == 3) is None
    assert d.merge_with(None).value == 3
    with pytest.raises(ValueError):
        d.merge_with(4)
    with pytest.raises(ValueError):
        tf.Dimension(-1)
    with pytest.raises(ValueError, match="Ambiguous dimension"):  # TF 1.x: int(value) != value
        tf.Dimension(1.5)


def test_tensor_shape():
    s = tf.TensorShape([None, 3])
    assert s.ndims == 2 and s.as_list() == [None, 3] and not s.is_fully_defined()
    assert s.merge_with([2, None]).as_list() == [2, 3]
    assert s.is_compatible_with([5, 3]) and not s.is_compatible_with([5, 4])
    assert not s.is_compatible_with([5, 3, 1])
    assert tf.TensorShape(None).is_compatible_with([1, 2, 3])
    assert s.concatenate([7]).as_list() == [None, 3, 7]
    assert tf.TensorShape(None).concatenate([1]).ndims is None
    assert tf.TensorShape([2, 3]).num_elements() == 6 and s.num_elements() is None
    assert s[1].value == 3 and s[1:].as_list() == [3]
    assert tf.TensorShape([]).ndims == 0 and tf.TensorShape([]).num_elements() == 1
    assert tf.TensorShape([1, 2]) == tf.TensorShape([1, 2]) and tf.TensorShape([1, 2]) == [1, 2]
    assert str(tf.TensorShape([None, 3])) == "(?, 3)" and str(tf.TensorShape(None)) == "<unknown>"
    with pytest.raises(ValueError):
        s.merge_with([2, 4])
    with pytest.raises(ValueError):
        tf.TensorShape(None).as_list()
    with pytest.raises(ValueError):
        tf.TensorShape([1, 2]).with_rank(3)
    assert tf.TensorShape(None).with_rank(2).as_list() == [None, None]
    proto = tf.TensorShape([None, 3]).as_proto()
    assert [d.size for d in proto.dim] == [-1, 3]
    assert tf.TensorShape(proto).as_list() == [None, 3]
    assert tf.TensorShape(tf.TensorShape(None).as_proto()).ndims is None


@pytest.mark.parametrize(
    "spec,canonical",
    [
        ("/job:ps/task:0/cpu:0", "/job:ps/task:0/device:CPU:0"),
        ("/gpu:1", "/device:GPU:1"),
        ("/job:worker/replica:0/task:1/device:CPU:0", "/job:worker/replica:0/task:1/device:CPU:0"),
        ("/device:GPU:*", "/device:GPU:*"),
        ("/job:worker", "/job:worker"),
        ("", ""),
        ("/CPU:0", "/device:CPU:0"),
    ],
)
def test_device_spec_parse(spec, canonical):
    assert DeviceSpec.from_string(spec).to_string() == canonical


def test_device_spec_fields_and_merge():
    d = DeviceSpec.from_string("/job:ps/replica:1/task:2/gpu:3")
    assert (d.job, d.replica, d.task, d.device_type, d.device_index) == ("ps", 1, 2, "GPU", 3)
    assert merge_device("/job:ps/task:0", "/cpu:0") == "/job:ps/task:0/device:CPU:0"
    assert merge_device("/job:ps/task:0/gpu:0", "/task:1") == "/job:ps/task:1/device:GPU:0"
    with pytest.raises(ValueError):
        DeviceSpec.from_string("/bogus:1")
    with pytest.raises(ValueError):
        DeviceSpec.from_string("/task:x")
    assert tf.DeviceSpec(job="w", task=1).to_string() == "/job:w/task:1"
