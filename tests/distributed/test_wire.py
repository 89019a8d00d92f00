"""The tensor wire codec: raw bytes, strings, bfloat16 truncation, chunked streams, bad input."""

import ml_dtypes
import numpy as np
import pytest

from tideflow.distributed import wire
from tideflow.framework import errors
from tideflow.protos import master_pb2


@pytest.mark.parametrize("value", [
    np.arange(12, dtype=np.float32).reshape(3, 4), np.array(3.5), np.zeros((0, 3), np.int64),
    np.array([True, False]), np.arange(6, dtype=np.complex64), np.float32(2.0),
    np.arange(10, dtype=np.uint8)[::2],
])
def test_roundtrip_raw_bytes(value):
    proto = wire.encode(value)
    assert not proto.float_val and not proto.int_val  # never repeated fields
    out = wire.decode(proto)
    np.testing.assert_array_equal(out, np.asarray(value))
    assert out.shape == np.shape(value) and out.dtype == np.asarray(value).dtype


def test_strings_length_prefixed():
    v = np.array([[b"a", b""], [b"\x00\xff" * 3, "h\u00e9".encode()]], dtype=object)
    proto = wire.encode(v)
    assert not proto.string_val and proto.tensor_content
    out = wire.decode(proto)
    assert out.shape == (2, 2) and list(out.ravel()) == list(v.ravel())


def test_bfloat16_truncation_error_bound():
    rng = np.random.RandomState(0)
    v = (rng.standard_normal(100000) * 10 ** rng.uniform(-5, 5, 100000)).astype(np.float32)
    msgs = list(wire.tensor_messages(v, bfloat16=True, chunk_bytes=1 << 14))
    out, meta = wire.read_tensor(msgs)
    assert meta.total_bytes == v.size * 2  # half the bytes on the wire
    assert out.dtype == np.float32
    # round to nearest even: relative error at most half an ulp, 2^-8 (7 stored mantissa bits)
    rel = np.abs(out - v) / np.abs(v)
    assert rel.max() <= 2.0 ** -8
    np.testing.assert_array_equal(out, v.astype(ml_dtypes.bfloat16).astype(np.float32))


def test_declared_size_mismatch_is_invalid_argument():
    proto = wire.encode(np.zeros(10, np.float32))
    proto.tensor_content = proto.tensor_content[:-4]
    with pytest.raises(errors.InvalidArgumentError, match="40 bytes"):
        wire.decode(proto)
    s = wire.encode(np.array([b"abc", b"de"], dtype=object))
    s.tensor_content = s.tensor_content[:-1]
    with pytest.raises(errors.InvalidArgumentError):
        wire.decode(s)


def test_shape_beyond_memory_is_rejected_before_allocating():
    proto = wire.encode(np.zeros(1, np.float32))
    proto.tensor_shape.dim[0].size = 1 << 55
    with pytest.raises((errors.InvalidArgumentError, errors.ResourceExhaustedError)):
        wire.decode(proto)
    meta_msgs = list(wire.tensor_messages(np.zeros(4, np.float32)))
    from tideflow.protos import tideflow_transfer_pb2

    head = tideflow_transfer_pb2.TensorChunk.FromString(meta_msgs[0])
    head.meta.total_bytes = 1 << 60
    with pytest.raises(errors.ResourceExhaustedError):
        wire.read_tensor([head.SerializeToString()])


def test_chunked_stream_and_truncated_stream():
    v = np.random.RandomState(1).rand(100003).astype(np.float64)
    msgs = list(wire.tensor_messages(v, chunk_bytes=4096))
    assert len(msgs) > 100
    out, _ = wire.read_tensor(msgs)
    np.testing.assert_array_equal(out, v)
    with pytest.raises(errors.InvalidArgumentError, match="ended after"):
        wire.read_tensor(msgs[:-1])


def test_response_stream_carries_big_tensors_out_of_band():
    resp = master_pb2.RunStepResponse()
    big = np.arange(3 << 20, dtype=np.float32)
    wire.placeholder(resp.tensor.add(name="big:0"), big)
    wire.encode(np.array([1, 2], np.int32), resp.tensor.add(name="small:0").tensor)
    msgs = list(wire.response_messages(resp, "tensor", {0: big}))
    arrays = {}
    out = wire.read_response(msgs, master_pb2.RunStepResponse, "tensor", arrays)
    np.testing.assert_array_equal(arrays[0], big)
    np.testing.assert_array_equal(wire.decode(out.tensor[1].tensor), [1, 2])
