"""Op-table rows for ops added in the sixth session's leftovers work:
SparseSegment{Sum,Mean,SqrtN}WithNumSegments (``tf.sparse.segment_*(..., num_segments=)``) and
ExtractVolumePatches."""

import numpy as np

import tideflow as tf
from tests.ops.optable import Case

_DATA = np.linspace(-2, 3, 12).reshape(4, 3)
_IDX = np.array([0, 2, 1, 3, 3], np.int32)
_IDS = np.array([0, 0, 1, 3, 3], np.int32)


def _ref(kind, num_segments):
    def ref(data, indices, seg, n):
        out = np.zeros((int(n),) + data.shape[1:], data.dtype)
        counts = np.zeros(int(n))
        for k, s in zip(indices, seg):
            out[s] += data[k]
            counts[s] += 1
        div = {"sum": np.ones_like(counts), "mean": np.maximum(counts, 1),
               "sqrtn": np.sqrt(np.maximum(counts, 1))}[kind]
        return (out / div[:, None]).astype(data.dtype)

    return ref


def _case(op, fn, kind, n=6):
    return Case(op, lambda d, i, s, k: fn(d, i, s, num_segments=k),
                [_DATA, _IDX, _IDS, np.array(n, np.int32)], _ref(kind, n), fixed=(1, 2, 3),
                grad_inputs=[0])


CASES = [
    _case("SparseSegmentSumWithNumSegments", tf.sparse.segment_sum, "sum"),
    _case("SparseSegmentMeanWithNumSegments", tf.sparse.segment_mean, "mean"),
    _case("SparseSegmentSqrtNWithNumSegments", tf.sparse.segment_sqrt_n, "sqrtn", n=4),
]


def _volume_ref(ks, st, padding):
    def ref(x):
        b, d, h, w, c = x.shape
        outs, befores = [], []
        for n, k, s_ in zip((d, h, w), ks[1:4], st[1:4]):
            if padding == "VALID":
                outs.append((n - k) // s_ + 1)
                befores.append(0)
            else:
                o = -(-n // s_)
                outs.append(o)
                befores.append(max((o - 1) * s_ + k - n, 0) // 2)
        out = np.zeros([b] + outs + [ks[1] * ks[2] * ks[3] * c], x.dtype)
        for i, j, m in np.ndindex(*outs):
            col = 0
            for a, e, f in np.ndindex(*ks[1:4]):
                p = i * st[1] - befores[0] + a
                q = j * st[2] - befores[1] + e
                r = m * st[3] - befores[2] + f
                if 0 <= p < d and 0 <= q < h and 0 <= r < w:
                    out[:, i, j, m, col:col + c] = x[:, p, q, r, :]
                col += c
        return out

    return ref


_VOL = np.linspace(-1, 1, 2 * 3 * 4 * 3 * 2).reshape(2, 3, 4, 3, 2)

CASES += [
    Case("ExtractVolumePatches",
         lambda x: tf.extract_volume_patches(x, [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "VALID"),
         [_VOL], _volume_ref([1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "VALID")),
    Case("ExtractVolumePatches",
         lambda x: tf.extract_volume_patches(x, [1, 2, 3, 2, 1], [1, 2, 2, 2, 1], "SAME"),
         [_VOL], _volume_ref([1, 2, 3, 2, 1], [1, 2, 2, 2, 1], "SAME"),
         name="ExtractVolumePatches_same"),
]


def _check_proto_ops():
    from tideflow.protos import tensor_shape_pb2

    dim = tensor_shape_pb2.TensorShapeProto.Dim
    shape = tensor_shape_pb2.TensorShapeProto
    msgs = [shape(dim=[dim(size=3, name="a"), dim(size=4)]).SerializeToString(),
            shape(unknown_rank=True).SerializeToString()]
    with tf.Graph().as_default():
        data = tf.placeholder(tf.string, [None])
        sizes, (dims, unknown) = tf.io.decode_proto(
            data, "tensorflow.TensorShapeProto", ["dim", "unknown_rank"], [tf.string, tf.bool])
        assert sizes.shape.as_list() == [None, 2] and dims.shape.as_list() == [None, None]
        d_sizes, (size, name) = tf.io.decode_proto(dims[0], "tensorflow.TensorShapeProto.Dim",
                                                   ["size", "name"], [tf.int64, tf.string])
        enc = tf.io.encode_proto(d_sizes, [size, name], ["size", "name"],
                                 "tensorflow.TensorShapeProto.Dim")
        with tf.Session() as s:
            sz, dv, uv, ds, sv, nv, ev = s.run([sizes, dims, unknown, d_sizes, size, name, enc],
                                               {data: msgs})
    assert sz.tolist() == [[2, 0], [0, 1]] and uv.tolist() == [[False], [True]]
    assert dv[1].tolist() == [b"", b""]  # padding: the field's default
    assert ds.tolist() == [[1, 1], [1, 0]] and sv.tolist() == [[3], [4]]
    assert nv.tolist() == [[b"a"], [b""]]
    assert [dim.FromString(v) for v in ev] == [dim(size=3, name="a"), dim(size=4)]


CASES += [Case(("DecodeProtoV2", "EncodeProto"), check=_check_proto_ops)]
