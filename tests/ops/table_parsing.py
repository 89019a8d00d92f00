"""Op-table rows for the parsing and decoding ops, against plain-Python expectations."""

import struct

import numpy as np

import tideflow as tf
from tests.ops.optable import Case
from tideflow.ops import decode_ops, parsing_ops
from tideflow.protos import example_pb2


def _s(*items):
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() if isinstance(i, str) else i for i in items]
    return out


def example(**features):
    """A serialized Example; each value list's type picks its Feature kind."""
    ex = example_pb2.Example()
    for key, values in features.items():
        f = ex.features.feature[key]
        if isinstance(values[0], float):
            f.float_list.value.extend(values)
        elif isinstance(values[0], int):
            f.int64_list.value.extend(values)
        else:
            f.bytes_list.value.extend(v.encode() if isinstance(v, str) else v for v in values)
    return ex.SerializeToString()


def _flat(parsed):
    out = []
    for key in sorted(parsed):
        v = parsed[key]
        out.extend([v.indices, v.values, v.dense_shape] if isinstance(v, tf.SparseTensor)
                   else [v])
    return out


_BATCH = _s(
    example(age=[31], score=[0.5, 1.5], tags=["a", "bb"], seq=[1.0, 2.0, 3.0, 4.0]),
    example(age=[7], score=[2.0, -1.0], seq=[5.0, 6.0]),
    example(score=[0.0, 0.25], tags=["c"]),
)
_FEATURES = {
    "age": parsing_ops.FixedLenFeature([], tf.int64, default_value=-1),
    "score": parsing_ops.FixedLenFeature([2], tf.float32),
    "tags": parsing_ops.VarLenFeature(tf.string),
    "seq": parsing_ops.FixedLenSequenceFeature([2], tf.float32, allow_missing=True),
}


def _batch_ref(_):
    return [
        np.array([31, 7, -1], np.int64),
        np.array([[0.5, 1.5], [2.0, -1.0], [0.0, 0.25]], np.float32),
        np.array([[[1, 2], [3, 4]], [[5, 6], [0, 0]], [[0, 0], [0, 0]]], np.float32),
        np.array([[0, 0], [0, 1], [2, 0]], np.int64), _s("a", "bb", "c"),
        np.array([3, 2], np.int64),
    ]


def _single_ref(_):
    return [np.array(7, np.int64), np.array([2.0, -1.0], np.float32),
            np.array([[5.0, 6.0]], np.float32), np.zeros((0, 1), np.int64), _s(),
            np.array([0], np.int64)]


def _sequence():
    seq = example_pb2.SequenceExample()
    seq.context.feature["id"].bytes_list.value.append(b"u1")
    for t in range(3):
        seq.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend([t, 10 * t])
        seq.feature_lists.feature_list["w"].feature.add().float_list.value.extend([0.5] * t)
    return _s(seq.SerializeToString())[0]


def _parse_sequence(s):
    context, sequence = parsing_ops.parse_single_sequence_example(
        s,
        context_features={"id": parsing_ops.FixedLenFeature([], tf.string),
                          "n": parsing_ops.VarLenFeature(tf.int64)},
        sequence_features={"tok": parsing_ops.FixedLenSequenceFeature([2], tf.int64),
                           "w": parsing_ops.VarLenFeature(tf.float32),
                           "gone": parsing_ops.FixedLenSequenceFeature([], tf.float32,
                                                                       allow_missing=True)})
    return _flat(context) + _flat(sequence)


def _sequence_ref(_):
    return [
        np.array(b"u1", object), np.zeros((0, 1), np.int64), np.zeros(0, np.int64),
        np.array([0], np.int64),
        np.zeros(0, np.float32),
        np.array([[0, 0], [1, 10], [2, 20]], np.int64),
        np.array([[1, 0], [2, 0], [2, 1]], np.int64), np.array([0.5, 0.5, 0.5], np.float32),
        np.array([3, 2], np.int64),
    ]


def _sequence_short():
    seq = example_pb2.SequenceExample()
    seq.context.feature["id"].bytes_list.value.append(b"u2")
    seq.context.feature["n"].int64_list.value.extend([4, 5])
    seq.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend([7, 8])
    seq.feature_lists.feature_list["w"].feature.add().float_list.value.extend([1.5])
    return _s(seq.SerializeToString())[0]


def _parse_sequence_batch(s):
    context, sequence, lengths = parsing_ops.parse_sequence_example(
        s,
        context_features={"id": parsing_ops.FixedLenFeature([], tf.string),
                          "n": parsing_ops.VarLenFeature(tf.int64)},
        sequence_features={"tok": parsing_ops.FixedLenSequenceFeature([2], tf.int64),
                           "w": parsing_ops.VarLenFeature(tf.float32)})
    return _flat(context) + _flat(sequence) + _flat(lengths)


def _sequence_batch_ref(_):
    # the first example as in _sequence_ref, the second one step long; dense lists padded
    return [
        np.array([b"u1", b"u2"], object), np.array([[1, 0], [1, 1]], np.int64),
        np.array([4, 5], np.int64), np.array([2, 2], np.int64),
        np.array([[[0, 0], [1, 10], [2, 20]], [[7, 8], [0, 0], [0, 0]]], np.int64),
        np.array([[0, 1, 0], [0, 2, 0], [0, 2, 1], [1, 0, 0]], np.int64),
        np.array([0.5, 0.5, 0.5, 1.5], np.float32), np.array([2, 3, 2], np.int64),
        np.array([3, 1], np.int64),
    ]


def _raw_ref(little):
    def ref(x):
        fmt = "<" if little else ">"
        return np.array([struct.unpack(f"{fmt}3h", s) for s in x], np.int16)

    return ref


_CSV = _s('1,"a,""q""",2.5,', "-7,plain, 1e3 ,9", ' 12 ,"",,NA')


def _csv_ref(_):
    return [np.array([1, -7, 12], np.int32), _s('a,"q"', "plain", "dflt"),
            np.array([2.5, 1000.0, 0.0], np.float64), np.array([0, 9, 0], np.int64)]


CASES = [
    Case("ParseExample", lambda s: _flat(parsing_ops.parse_example(s, _FEATURES)), [_BATCH],
         _batch_ref, dtypes=(tf.string,), grad=False),
    Case("ParseSingleExample",
         lambda s: _flat(parsing_ops.parse_single_example(s, _FEATURES)),
         [np.array(_BATCH[1], dtype=object)], _single_ref, dtypes=(tf.string,), grad=False),
    Case("ParseSingleSequenceExample", _parse_sequence, [np.array(_sequence(), object)],
         _sequence_ref, dtypes=(tf.string,), grad=False),
    Case("ParseSequenceExample", _parse_sequence_batch,
         [np.array([_sequence(), _sequence_short()], object)], _sequence_batch_ref,
         dtypes=(tf.string,), grad=False),
    Case("DecodeRaw", lambda x: decode_ops.decode_raw(x, tf.int16),
         [_s(b"\x01\x00\xff\xff\x00\x80", b"\x02\x01\x03\x00\x04\x00")], _raw_ref(True),
         dtypes=(tf.string,), grad=False),
    Case("DecodeRaw", lambda x: decode_ops.decode_raw(x, tf.int16, little_endian=False),
         [_s(b"\x01\x00\xff\xff\x00\x80")], _raw_ref(False), dtypes=(tf.string,), grad=False,
         name="DecodeRaw_big_endian"),
    Case("DecodePaddedRaw", lambda x: decode_ops.decode_raw(x, tf.uint16, fixed_length=4),
         [_s(b"\x01\x02\x03\x04\x05", b"\x07", b"")],
         lambda x: np.array([struct.unpack("<2H", s[:4].ljust(4, b"\0")) for s in x], np.uint16),
         dtypes=(tf.string,), grad=False),
    Case("DecodeCSV",
         lambda r: decode_ops.decode_csv(
             r, [[0], ["dflt"], tf.constant([0.0], tf.float64), tf.constant(0, tf.int64)],
             na_value="NA"),
         [_CSV], _csv_ref, dtypes=(tf.string,), grad=False),
    Case("DecodeCSV",
         lambda r: decode_ops.decode_csv(r, [[""], [0]], field_delim="|", select_cols=[0, 2]),
         [_s("x|skip|3", "y||4|extra")], lambda r: [_s("x", "y"), np.array([3, 4], np.int32)],
         dtypes=(tf.string,), grad=False, name="DecodeCSV_select_cols"),
    Case(("SerializeTensor", "ParseTensor"),
         lambda x: decode_ops.parse_tensor(decode_ops.serialize_tensor(x), x.dtype),
         [np.arange(6).reshape(2, 3) - 2.5], lambda x: x,
         dtypes=(tf.float32, tf.float64, tf.int32, tf.int64), grad=False),
    Case(("SerializeTensor", "ParseTensor"),
         lambda x: decode_ops.parse_tensor(decode_ops.serialize_tensor(x), tf.string),
         [_s("ab", "", "c")], lambda x: x, dtypes=(tf.string,), grad=False,
         name="SerializeTensor_string"),
]
