"""Example parsing and decoding: wire bytes from the protobuf spec, batches against
Python-built expectations, TFRecord round trips, and TF's errors."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops.table_parsing import example
from tideflow import python_io
from tideflow.ops import decode_ops, parsing_ops
from tideflow.protos import example_pb2

FixedLen = parsing_ops.FixedLenFeature
VarLen = parsing_ops.VarLenFeature


def _run(fetches, feed=None):
    with tf.Session() as sess:
        return sess.run(fetches, feed)


# Example {features {feature {key: "a" value {int64_list {value: [1]}}}}}, by the wire format:
# tag (field << 3 | 2) for each length-delimited field, then the varint length.
_INT_EXAMPLE = bytes([
    0x0A, 12,                 # Example.features (field 1), 12 bytes
    0x0A, 10,                 # Features.feature map entry (field 1), 10 bytes
    0x0A, 1, ord("a"),        # entry key (field 1): "a"
    0x12, 5,                  # entry value (field 2): Feature, 5 bytes
    0x1A, 3,                  # Feature.int64_list (field 3), 3 bytes
    0x0A, 1, 0x01,            # Int64List.value (field 1, packed): [1]
])
# float_list (Feature field 2) holding 1.5 (0x3FC00000, little-endian) under key "f"
_FLOAT_EXAMPLE = bytes([0x0A, 15, 0x0A, 13, 0x0A, 1, ord("f"), 0x12, 8, 0x12, 6, 0x0A, 4,
                        0x00, 0x00, 0xC0, 0x3F])
# bytes_list (Feature field 1) holding b"hi" under key "s"
_BYTES_EXAMPLE = bytes([0x0A, 14, 0x0A, 12, 0x0A, 1, ord("s"), 0x12, 7, 0x0A, 5, 0x0A, 3,
                        ord("h"), ord("i"), ord("!")])


def test_example_wire_bytes():
    ex = example_pb2.Example()
    ex.features.feature["a"].int64_list.value.append(1)
    assert ex.SerializeToString() == _INT_EXAMPLE
    ex = example_pb2.Example()
    ex.features.feature["f"].float_list.value.append(1.5)
    assert ex.SerializeToString() == _FLOAT_EXAMPLE
    ex = example_pb2.Example()
    ex.features.feature["s"].bytes_list.value.append(b"hi!")
    assert ex.SerializeToString() == _BYTES_EXAMPLE


def test_parse_hand_encoded_examples():
    out = parsing_ops.parse_example(
        [_INT_EXAMPLE, _FLOAT_EXAMPLE, _BYTES_EXAMPLE],
        {"a": FixedLen([], tf.int64, -7), "f": FixedLen([1], tf.float32, [0.0]),
         "s": VarLen(tf.string)})
    got = _run(out)
    assert got["a"].tolist() == [1, -7, -7]
    assert got["f"].tolist() == [[0.0], [1.5], [0.0]]
    assert got["s"].indices.tolist() == [[2, 0]] and got["s"].values.tolist() == [b"hi!"]
    assert got["s"].dense_shape.tolist() == [3, 1]


def _random_batch(rng, n):
    rows = []
    for i in range(n):
        row = {"label": [int(rng.randint(0, 9))], "x": rng.uniform(-1, 1, 3).tolist()}
        k = int(rng.randint(0, 4))
        if k:
            row["ids"] = rng.randint(0, 100, k).tolist()
            row["words"] = [f"w{i}_{j}".encode() for j in range(k)]
        if i % 2:
            row["weight"] = [float(rng.uniform())]
        rows.append(row)
    return rows


def test_parse_example_batch_against_python():
    rng = np.random.RandomState(0)
    rows = _random_batch(rng, 7)
    serialized = [example(**row) for row in rows]
    features = {"label": FixedLen([1], tf.int64), "x": FixedLen([3], tf.float32),
                "weight": FixedLen([], tf.float32, default_value=0.5),
                "ids": VarLen(tf.int64), "words": VarLen(tf.string)}
    src = tf.placeholder(tf.string, [None])
    out = parsing_ops.parse_example(src, features)
    assert out["x"].get_shape().as_list() == [None, 3]
    assert out["weight"].get_shape().as_list() == [None]
    assert isinstance(out["ids"], tf.SparseTensor)
    got = _run(out, {src: serialized})
    np.testing.assert_array_equal(got["label"], [[r["label"][0]] for r in rows])
    np.testing.assert_allclose(got["x"], np.float32([r["x"] for r in rows]))
    np.testing.assert_allclose(got["weight"],
                               np.float32([r.get("weight", [0.5])[0] for r in rows]))
    for key in ("ids", "words"):
        idx = [[b, j] for b, r in enumerate(rows) for j in range(len(r.get(key, [])))]
        vals = [v for r in rows for v in r.get(key, [])]
        assert got[key].indices.tolist() == idx
        assert got[key].values.tolist() == vals
        assert got[key].dense_shape.tolist() == [7, max(len(r.get(key, [])) for r in rows)]
    assert got["ids"].values.dtype == np.int64


def test_parse_from_tfrecord_file(tmp_path):
    path = str(tmp_path / "ex.tfrecord")
    with python_io.TFRecordWriter(path, python_io.TFRecordOptions("GZIP")) as w:
        for i in range(4):
            w.write(example(i=[i], name=[f"n{i}"]))
    records = list(python_io.tf_record_iterator(path, python_io.TFRecordOptions("GZIP")))
    got = _run(parsing_ops.parse_example(records, {"i": FixedLen([], tf.int64),
                                                   "name": FixedLen([], tf.string)}))
    assert got["i"].tolist() == [0, 1, 2, 3]
    assert got["name"].tolist() == [b"n0", b"n1", b"n2", b"n3"]


def test_parse_single_example():
    s = tf.placeholder(tf.string, [])
    out = parsing_ops.parse_single_example(
        s, {"v": VarLen(tf.float32), "k": FixedLen([2, 2], tf.int64),
            "d": FixedLen([2], tf.string, default_value=["p", "q"])})
    assert out["k"].get_shape().as_list() == [2, 2]
    assert out["v"].indices.get_shape().as_list() == [None, 1]
    got = _run(out, {s: example(v=[1.0, 2.0, 3.0], k=[1, 2, 3, 4])})
    assert got["k"].tolist() == [[1, 2], [3, 4]]
    assert got["d"].tolist() == [b"p", b"q"]
    assert got["v"].indices.tolist() == [[0], [1], [2]]
    assert got["v"].dense_shape.tolist() == [3]


def test_sequence_feature_padding_in_parse_example():
    out = parsing_ops.parse_example(
        [example(s=[1, 2, 3]), example(t=[0]), example(s=[4])],
        {"s": parsing_ops.FixedLenSequenceFeature([], tf.int64, allow_missing=True,
                                                  default_value=-1)})
    assert _run(out["s"]).tolist() == [[1, 2, 3], [-1, -1, -1], [4, -1, -1]]
    with pytest.raises(ValueError, match="allow_missing"):
        parsing_ops.parse_example([example(s=[1])],
                                  {"s": parsing_ops.FixedLenSequenceFeature([], tf.int64)})


def test_sparse_feature():
    serialized = [example(ix=[3, 0], val=[1.5, 2.5]), example(ix=[1], val=[-1.0])]
    out = parsing_ops.parse_example(
        serialized, {"sp": parsing_ops.SparseFeature("ix", "val", tf.float32, 5)})
    got = _run(out["sp"])
    assert got.indices.tolist() == [[0, 0], [0, 3], [1, 1]]
    assert got.values.tolist() == [2.5, 1.5, -1.0]
    assert got.dense_shape.tolist() == [2, 5]


def test_missing_required_feature():
    s = tf.placeholder(tf.string, [None])
    out = parsing_ops.parse_example(s, {"x": FixedLen([], tf.float32)})
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Feature: x \(data type: float\) is required but could not be "
                             r"found\."):
        _run(out, {s: [example(y=[1.0])]})
    named = parsing_ops.parse_example(s, {"x": FixedLen([], tf.float32)},
                                      example_names=["rec7"])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Name: rec7, Feature: x"):
        _run(named, {s: [example(y=[1.0])]})


def test_type_count_and_proto_errors():
    s = tf.placeholder(tf.string, [None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Data types don't match"):
        _run(parsing_ops.parse_example(s, {"x": FixedLen([], tf.float32)}),
             {s: [example(x=[1])]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Values size: 3 but output"):
        _run(parsing_ops.parse_example(s, {"x": FixedLen([2], tf.float32)}),
             {s: [example(x=[1.0, 2.0, 3.0])]})
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse example"):
        _run(parsing_ops.parse_example(s, {"x": VarLen(tf.float32)}), {s: [b"\xff\xff"]})
    with pytest.raises(ValueError, match="need to be known"):
        parsing_ops.parse_example(s, {"x": FixedLen([2, None], tf.float32)})
    with pytest.raises(TypeError, match="parameter 'sparse_types' has DataType int32 not in"):
        parsing_ops.parse_example(s, {"x": VarLen(tf.int32)})


def test_sequence_example_errors():
    seq = example_pb2.SequenceExample()
    seq.feature_lists.feature_list["a"].feature.add().int64_list.value.extend([1, 2])
    data = seq.SerializeToString()
    with pytest.raises(tf.errors.InvalidArgumentError, match="Feature list 'b' is required"):
        _run(parsing_ops.parse_single_sequence_example(
            data, sequence_features={"b": parsing_ops.FixedLenSequenceFeature([], tf.int64)}))
    with pytest.raises(tf.errors.InvalidArgumentError, match="values != expected"):
        _run(parsing_ops.parse_single_sequence_example(
            data, sequence_features={"a": parsing_ops.FixedLenSequenceFeature([3], tf.int64)}))


def test_decode_raw():
    x = tf.constant([np.float32([1.5, -2.0]).tobytes(), np.float32([0.25, 8.0]).tobytes()])
    got = _run(decode_ops.decode_raw(x, tf.float32))
    assert got.tolist() == [[1.5, -2.0], [0.25, 8.0]]
    big = _run(decode_ops.decode_raw(tf.constant(np.float64([3.5]).astype(">f8").tobytes()),
                                     tf.float64, little_endian=False))
    assert big.tolist() == [3.5]
    assert _run(decode_ops.decode_raw(tf.constant(b"\x01\x02"), tf.uint8)).tolist() == [1, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="same size"):
        _run(decode_ops.decode_raw(tf.constant([b"abcd", b"ab"]), tf.int16))
    with pytest.raises(tf.errors.InvalidArgumentError, match="not a multiple of 4"):
        _run(decode_ops.decode_raw(tf.constant([b"abc"]), tf.int32))


@pytest.mark.parametrize("record,msg", [
    ('1,"ab', "Quoted field has to end with quote"),
    ('1,"a"b"', "Quote inside a string has to be escaped"),
    ('1,a"b', "Unquoted fields cannot have quotes"),
    ("1", "Expect 2 fields but have 1 in record 0"),
    ("x,a", "Field 0 in record 0 is not a valid int32: x"),
    ("99999999999,a", "not a valid int32"),
    (",a", r"Field 0 is required but missing in record 0!"),
])
def test_decode_csv_errors(record, msg):
    r = tf.placeholder(tf.string, [None])
    out = decode_ops.decode_csv(r, [tf.constant([], tf.int32), [""]])
    with pytest.raises(tf.errors.InvalidArgumentError, match=msg):
        _run(out, {r: [record]})


def test_decode_csv_quotes_off_and_arg_checks():
    got = _run(decode_ops.decode_csv(['a"b,"c'], [[""], [""]], use_quote_delim=False))
    assert [g.tolist() for g in got] == [[b'a"b'], [b'"c']]
    with pytest.raises(ValueError, match="strictly increasing"):
        decode_ops.decode_csv(["a"], [[""], [""]], select_cols=[1, 0])
    with pytest.raises(ValueError, match="do not match"):
        decode_ops.decode_csv(["a"], [[""], [""]], select_cols=[0])
    with pytest.raises(ValueError, match="length-0 or length-1"):
        decode_ops.decode_csv(["a"], [["", ""]])


def test_serialize_parse_tensor():
    x = tf.constant([[1, 2], [3, 4]], tf.int64)
    s = decode_ops.serialize_tensor(x)
    assert s.get_shape().ndims == 0
    from tideflow.protos import tensor_pb2

    proto = tensor_pb2.TensorProto.FromString(_run(s))
    assert proto.dtype == tf.int64.as_datatype_enum
    assert [d.size for d in proto.tensor_shape.dim] == [2, 2]
    with pytest.raises(tf.errors.InvalidArgumentError, match="Type mismatch"):
        _run(decode_ops.parse_tensor(s, tf.float32))


def test_tf_io_namespace():
    import tideflow.io as tfio

    assert tfio.parse_example is parsing_ops.parse_example
    assert tfio.FixedLenFeature is FixedLen and tfio.decode_csv is decode_ops.decode_csv
    f = FixedLen([2], tf.float32)
    assert f.default_value is None and f.shape == [2]
    assert parsing_ops.FixedLenSequenceFeature([], tf.int64).allow_missing is False
