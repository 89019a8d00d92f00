"""Tests of make_tensor_proto / make_ndarray: every dtype round-trips bit-exactly, TF 1.x rules."""

import struct

import ml_dtypes
import numpy as np
import pytest

from tideflow.framework import dtypes
from tideflow.framework.tensor_util import make_ndarray, make_tensor_proto
from tideflow.protos import tensor_pb2, tensor_shape_pb2, types_pb2

NUMERIC = [
    (dtypes.float16, np.float16),
    (dtypes.bfloat16, ml_dtypes.bfloat16),
    (dtypes.float32, np.float32),
    (dtypes.float64, np.float64),
    (dtypes.int8, np.int8),
    (dtypes.int16, np.int16),
    (dtypes.int32, np.int32),
    (dtypes.int64, np.int64),
    (dtypes.uint8, np.uint8),
    (dtypes.uint16, np.uint16),
    (dtypes.uint32, np.uint32),
    (dtypes.uint64, np.uint64),
    (dtypes.complex64, np.complex64),
    (dtypes.complex128, np.complex128),
    (dtypes.bool, np.bool_),
]
IDS = [d.name for d, _ in NUMERIC]


def _sample(np_type, shape):
    dt = np.dtype(np_type)
    n = int(np.prod(shape))
    if dt.kind == "b":
        return (np.arange(n) % 3 == 0).reshape(shape)
    if dt.kind == "c":
        return (np.arange(n) - 2.5 + 1j * (np.arange(n) * 0.25 + 1)).astype(dt).reshape(shape)
    if dt.kind in "iu":
        info = np.iinfo(dt)
        vals = [info.min, info.max, 0, 1, 7, info.max // 3]
        return np.array([vals[i % len(vals)] for i in range(n)], dtype=dt).reshape(shape)
    return (np.arange(n) * 0.75 - 2.0).astype(dt).reshape(shape)


def _bits(array):
    return np.ascontiguousarray(array).tobytes()


@pytest.mark.parametrize("dtype, np_type", NUMERIC, ids=IDS)
def test_every_dtype_round_trips_as_little_endian_content(dtype, np_type):
    value = _sample(np_type, (2, 3))
    proto = make_tensor_proto(value)
    assert proto.dtype == dtype.as_datatype_enum
    assert [d.size for d in proto.tensor_shape.dim] == [2, 3]
    expected = value.astype(value.dtype.newbyteorder("<")) if value.dtype.kind != "V" else value
    if np.dtype(np_type) == np.dtype(ml_dtypes.bfloat16):
        expected = value.view(np.uint16).astype("<u2")
    if value.dtype.kind == "c":  # as TF: complex values go to (real, imag) pairs, not content
        pairs = np.stack([value.real, value.imag], axis=-1).ravel().tolist()
        field = proto.scomplex_val if value.dtype == np.complex64 else proto.dcomplex_val
        assert not proto.tensor_content and list(field) == pairs
    elif dtype in (dtypes.bool, dtypes.float16, dtypes.bfloat16, dtypes.uint16):
        # as TF 1.15's make_tensor_proto: these go to their value field, never content
        assert not proto.tensor_content and proto.ListFields()[-1][0].name in (
            "bool_val", "half_val", "int_val")
    else:
        assert proto.tensor_content == _bits(expected)
    back = make_ndarray(proto)
    assert back.dtype == np.dtype(np_type)
    assert back.shape == (2, 3)
    assert _bits(back) == _bits(value)
    back[0, 0] = back[0, 1]  # the result is a writable copy


@pytest.mark.parametrize("dtype, np_type", NUMERIC, ids=IDS)
def test_every_dtype_round_trips_as_a_scalar(dtype, np_type):
    value = _sample(np_type, (2,))[1]  # a NumPy scalar, e.g. the maximum of an int type
    proto = make_tensor_proto(value)
    assert proto.dtype == dtype.as_datatype_enum
    assert not proto.tensor_content  # one value goes into the typed field, as in TF
    assert list(proto.tensor_shape.dim) == []
    back = make_ndarray(proto)
    assert back.shape == () and back.dtype == np.dtype(np_type)
    assert _bits(back) == _bits(np.asarray(value))


@pytest.mark.parametrize("dtype, np_type", NUMERIC, ids=IDS)
def test_every_dtype_accepts_its_dtype_argument(dtype, np_type):
    value = _sample(np_type, (4,))
    for spelling in (dtype, dtype.name, dtype.as_datatype_enum):
        proto = make_tensor_proto(value.tolist() if dtype != dtypes.bfloat16 else value, spelling)
        assert proto.dtype == dtype.as_datatype_enum
        assert _bits(make_ndarray(proto)) == _bits(value)


@pytest.mark.parametrize(
    "np_type, patterns",
    [
        # +0, -0, +inf, -inf, a quiet NaN with payload, the smallest subnormal, 1.0, -123.5
        (ml_dtypes.bfloat16, [0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC1, 0x0001, 0x3F80, 0xC2F7]),
        (np.float16, [0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E01, 0x0001, 0x3C00, 0xD7B8]),
    ],
    ids=["bfloat16", "half"],
)
def test_16_bit_floats_are_bit_exact(np_type, patterns):
    bits = np.array(patterns, dtype=np.uint16)
    value = bits.view(np_type)
    proto = make_tensor_proto(value)
    # as TF 1.15: 16-bit floats travel in half_val as their bit patterns, never as content
    assert not proto.tensor_content and list(proto.half_val) == patterns
    assert make_ndarray(proto).view(np.uint16).tolist() == patterns
    for pattern in patterns:  # scalars travel in half_val as the 16-bit pattern
        scalar = make_tensor_proto(np.array(pattern, np.uint16).view(np_type))
        assert list(scalar.half_val) == [pattern]
        assert int(make_ndarray(scalar).view(np.uint16)) == pattern


def test_half_val_from_tensorflow_is_read():
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_BFLOAT16,
        tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[{"size": 3}]),
        half_val=[0x3F80, 0x4000],
    )
    out = make_ndarray(proto)
    assert out.dtype == np.dtype(ml_dtypes.bfloat16)
    assert out.astype(np.float32).tolist() == [1.0, 2.0, 2.0]


def test_complex_typed_values_are_interleaved_pairs():
    proto = make_tensor_proto(np.complex64(1.5 - 2j))
    assert list(proto.scomplex_val) == [1.5, -2.0]
    proto = make_tensor_proto(3 + 4j, shape=[2])
    assert proto.dtype == types_pb2.DT_COMPLEX128
    assert list(proto.dcomplex_val) == [3.0, 4.0]
    assert make_ndarray(proto).tolist() == [3 + 4j, 3 + 4j]


def test_strings():
    proto = make_tensor_proto(["a", b"b\x00", "\u00fcn\u00ef"])
    assert proto.dtype == types_pb2.DT_STRING
    assert list(proto.string_val) == [b"a", b"b\x00", "\u00fcn\u00ef".encode()]
    assert not proto.tensor_content
    out = make_ndarray(proto)
    assert out.dtype == object and out.tolist() == [b"a", b"b\x00", "\u00fcn\u00ef".encode()]

    grid = make_tensor_proto([[b"x", b"y"], [b"z", b"w"]])
    assert [d.size for d in grid.tensor_shape.dim] == [2, 2]
    assert make_ndarray(grid).tolist() == [[b"x", b"y"], [b"z", b"w"]]

    for array in (np.array([b"p", b"qq"]), np.array(["p", "qq"]), np.array([b"p", "qq"], object)):
        proto = make_tensor_proto(array)
        assert proto.dtype == types_pb2.DT_STRING
        assert list(proto.string_val) == [b"p", b"qq"]

    scalar = make_tensor_proto("hello", shape=[2, 2])
    assert list(scalar.string_val) == [b"hello"]
    assert make_ndarray(scalar).tolist() == [[b"hello"] * 2] * 2
    assert make_tensor_proto("s", dtype=dtypes.string).string_val == [b"s"]


def test_python_defaults_are_tf_1x():
    assert make_tensor_proto(1.0).dtype == types_pb2.DT_FLOAT
    assert make_tensor_proto([1, 2]).dtype == types_pb2.DT_INT32
    assert make_tensor_proto(2**40).dtype == types_pb2.DT_INT64
    assert make_tensor_proto(True).dtype == types_pb2.DT_BOOL
    assert make_tensor_proto(1j).dtype == types_pb2.DT_COMPLEX128
    assert make_tensor_proto(np.array([1.0, 2.0])).dtype == types_pb2.DT_DOUBLE
    assert make_tensor_proto(np.array([1, 2], np.int64)).dtype == types_pb2.DT_INT64


def test_wire_bytes_of_a_float_vector():
    proto = make_tensor_proto(np.array([1.0, 2.0], np.float32))
    expected = b"\x08\x01\x12\x04\x12\x02\x08\x02\x22\x08" + struct.pack("<2f", 1.0, 2.0)
    assert proto.SerializeToString() == expected


def test_scalars_broadcast_to_shape():
    proto = make_tensor_proto(1.5, shape=[2, 3])
    assert list(proto.float_val) == [1.5]
    assert [d.size for d in proto.tensor_shape.dim] == [2, 3]
    assert make_ndarray(proto).tolist() == [[1.5] * 3] * 2
    proto = make_tensor_proto(7, dtype=dtypes.int64, shape=(4,), allow_broadcast=True)
    assert list(proto.int64_val) == [7]
    assert make_ndarray(proto).tolist() == [7, 7, 7, 7]
    proto = make_tensor_proto([2.0], shape=[3], allow_broadcast=True)
    assert make_ndarray(proto).tolist() == [2.0, 2.0, 2.0]
    proto = make_tensor_proto(np.float16(0.5), shape=[2])
    assert make_ndarray(proto).tolist() == [0.5, 0.5]


def test_short_values_repeat_the_last_one():
    proto = make_tensor_proto([1, 2], shape=[4])  # TF 1.x tf.constant([1, 2], shape=[4])
    assert make_ndarray(proto).tolist() == [1, 2, 2, 2]


def test_same_size_values_are_reshaped():
    proto = make_tensor_proto([1.0, 2.0, 3.0, 4.0], shape=[2, 2])
    assert make_ndarray(proto).tolist() == [[1.0, 2.0], [3.0, 4.0]]


def test_shape_mismatch_errors():
    with pytest.raises(ValueError, match=r"Too many elements provided. Needed at most 2, but "):
        make_tensor_proto([1, 2, 3], shape=[2])
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(3,\), got \(2,\)\."):
        make_tensor_proto([1, 2], shape=[3], verify_shape=True)
    with pytest.raises(TypeError, match=r"Expected Tensor's shape: \(2, 2\), got \(3,\)\."):
        make_tensor_proto([1, 2, 3], shape=[2, 2], allow_broadcast=True)
    with pytest.raises(ValueError, match="Argument must be a dense tensor"):
        make_tensor_proto([[1, 2], [3]])


def test_type_errors():
    with pytest.raises(TypeError, match=r"Expected int32, got 1.5 of type 'float' instead\."):
        make_tensor_proto([1, 1.5], dtype=dtypes.int32)
    with pytest.raises(TypeError, match=r"Expected float32, got 'a' of type 'str' instead\."):
        make_tensor_proto(["a"], dtype=dtypes.float32)
    with pytest.raises(TypeError, match=r"Expected string, got 1 of type 'int' instead\."):
        make_tensor_proto([1], dtype=dtypes.string)
    with pytest.raises(TypeError, match="Failed to convert object of type"):
        make_tensor_proto([{"a": 1}])
    with pytest.raises(ValueError, match="None values not supported."):
        make_tensor_proto(None)


def test_numpy_values_are_cast_to_the_requested_dtype():
    proto = make_tensor_proto(np.array([1.7, -2.2]), dtype=dtypes.int32)
    assert make_ndarray(proto).tolist() == [1, -2]
    proto = make_tensor_proto(np.array([1.0, 2.0]), dtype=dtypes.bfloat16)
    assert make_ndarray(proto).dtype == np.dtype(ml_dtypes.bfloat16)


def test_ref_dtypes_use_their_base():
    proto = make_tensor_proto([1.0, 2.0], dtype=dtypes.float32_ref)
    assert proto.dtype == types_pb2.DT_FLOAT


def test_empty_tensors():
    proto = make_tensor_proto([], dtype=dtypes.float32)
    assert [d.size for d in proto.tensor_shape.dim] == [0]
    assert make_ndarray(proto).shape == (0,)
    proto = make_tensor_proto([], dtype=dtypes.int64, shape=[0, 3])
    out = make_ndarray(proto)
    assert out.shape == (0, 3) and out.dtype == np.int64
    assert make_ndarray(make_tensor_proto(np.zeros((2, 0), np.float32))).shape == (2, 0)
    assert make_ndarray(make_tensor_proto(np.array([], dtype=object).astype("S"))).shape == (0,)


def test_unfilled_proto_reads_as_zeros():
    proto = tensor_pb2.TensorProto(
        dtype=types_pb2.DT_INT32, tensor_shape=tensor_shape_pb2.TensorShapeProto(dim=[{"size": 2}])
    )
    assert make_ndarray(proto).tolist() == [0, 0]


def test_quantized_round_trip():
    # as TF 1.15, Python values of a quantized type are 1-tuples; plain ints are refused
    proto = make_tensor_proto([(1,), (-2,), (3,)], dtype=dtypes.qint8)
    assert proto.dtype == types_pb2.DT_QINT8
    out = make_ndarray(proto)
    assert out["qint8"].tolist() == [1, -2, 3]
    filled = make_ndarray(make_tensor_proto((5,), dtype=dtypes.quint8, shape=[2]))
    assert filled["quint8"].tolist() == [5, 5]
    with pytest.raises(TypeError, match="Expected qint8, got 1 of type 'int' instead."):
        make_tensor_proto([1, -2, 3], dtype=dtypes.qint8)


def test_tensor_proto_passes_through():
    proto = tensor_pb2.TensorProto(dtype=types_pb2.DT_FLOAT)
    assert make_tensor_proto(proto) is proto


def test_malformed_and_unsupported_protos():
    bad = make_tensor_proto(np.arange(4, dtype=np.float32))
    bad.tensor_content = bad.tensor_content[:-1]
    with pytest.raises(ValueError, match="needs 16 bytes of tensor_content, got 15"):
        make_ndarray(bad)
    with pytest.raises(TypeError, match="Unsupported tensor type"):
        make_ndarray(tensor_pb2.TensorProto(dtype=types_pb2.DT_RESOURCE))
