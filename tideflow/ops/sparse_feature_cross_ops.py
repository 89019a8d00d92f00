"""tf.contrib.layers' ``SparseFeatureCross`` and ``SparseFeatureCrossV2``: the crosses a
contrib ``crossed_column`` hashes. V1 (no hash key, TF 1.x's contrib default) chains TF's
``HashCombine`` from the seed 0xDECAFCAFFE; V2 chains ``FingerprintCat64`` from the key, as the
core ``SparseCross``. Strings enter as their Fingerprint64, integers as themselves."""

import itertools

import numpy as np

from tideflow.feature_column.sparse_cross import (
    _as_bytes,
    _rows_of_sparse,
    fingerprint_cat64,
)
from tideflow.framework import dtypes, errors, op_registry, ops, sparse_tensor, tensor_shape
from tideflow.ops.string_hash_ops import fingerprint64

_M = 0xFFFFFFFFFFFFFFFF
_SEED = 0xDECAFCAFFE
_GOLDEN = 0x9E3779B97F4A7800


def _hash_combine(a, b):
    # TF's int64 HashCombine: a ^ (b + golden + (a << 10) + (a >> 4)), the shifts on the
    # signed value, the sum wrapping in 64 bits
    signed = a - (1 << 64) if a >> 63 else a
    return (a ^ ((b + _GOLDEN + ((signed << 10) & _M) + ((signed >> 4) & _M)) & _M)) & _M


def _cross_kernel(version2):
    def kernel(indices, values, shapes, dense, *, hashed_output, num_buckets, **attrs):
        columns = [_rows_of_sparse(i, v, s) for i, v, s in zip(indices, values, shapes)]
        columns += [[list(row) for row in np.asarray(d).tolist()] for d in dense]
        sizes = {len(c) for c in columns}
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                None, None, f"Expected batch size {min(sizes)} got {max(sizes)}")
        batch = sizes.pop() if sizes else 0
        out_indices, out_values = [], []
        for b in range(batch):
            for k, combo in enumerate(itertools.product(*(c[b] for c in columns))):
                out_indices.append((b, k))
                if not hashed_output:
                    out_values.append(b"_X_".join(_as_bytes(v) for v in combo))
                    continue
                h = attrs["hash_key"] & _M if version2 else _SEED
                for v in combo:
                    f = fingerprint64(v) if isinstance(v, bytes) else int(v) & _M
                    h = fingerprint_cat64(h, f) if version2 else _hash_combine(h, f)
                out_values.append(h % num_buckets if num_buckets > 0 else h % (2**63 - 1))
        width = max((k for _, k in out_indices), default=-1) + 1
        idx = np.array(out_indices, np.int64).reshape(-1, 2)
        vals = (np.array(out_values, np.uint64).astype(np.int64) if hashed_output
                else np.array(out_values, dtype=object))
        return [idx, vals, np.array([batch, width], np.int64)]

    if version2:
        def v2(indices, values, shapes, dense, *, hashed_output, num_buckets, hash_key):
            return kernel(indices, values, shapes, dense, hashed_output=hashed_output,
                          num_buckets=num_buckets, hash_key=hash_key)
        return v2

    def v1(indices, values, shapes, dense, *, hashed_output, num_buckets):
        return kernel(indices, values, shapes, dense, hashed_output=hashed_output,
                      num_buckets=num_buckets)
    return v1


for _name, _v2 in (("SparseFeatureCross", False), ("SparseFeatureCrossV2", True)):
    op_registry.declare(
        _name,
        inputs=["indices: N * int64", "values: sparse_types", "shapes: N * int64",
                "dense: dense_types"],
        outputs=["output_indices: int64", "output_values: out_type", "output_shape: int64"],
        attrs=(["N: int >= 0", "hashed_output: bool", "num_buckets: int >= 0"]
               + (["hash_key: int"] if _v2 else [])
               + ["sparse_types: list(type) >= 0", "dense_types: list(type) >= 0",
                  "out_type: type", "internal_type: type"]),
        shape=lambda op: [tensor_shape.matrix(None, 2), tensor_shape.vector(None),
                          tensor_shape.vector(2)],
        kernel=_cross_kernel(_v2),
        differentiable=False,
    )


def sparse_feature_cross(inputs, hashed_output=False, num_buckets=0, name=None, hash_key=None):
    """tf.contrib.layers' cross of ``inputs`` (SparseTensors and dense ``[batch, n]`` int64 or
    string tensors): V1's hashes without ``hash_key``, V2's with it."""
    if not isinstance(inputs, list):
        raise TypeError("Inputs must be a list")
    if not all(isinstance(i, (sparse_tensor.SparseTensor, ops.Tensor)) for i in inputs):
        raise TypeError("All inputs must be SparseTensors")
    sparse = [i for i in inputs if isinstance(i, sparse_tensor.SparseTensor)]
    dense = [i for i in inputs if not isinstance(i, sparse_tensor.SparseTensor)]
    from tideflow.ops.cast_ops import cast

    # as TF, int32 values are crossed as int64
    sparse = [sparse_tensor.SparseTensor(s.indices, cast(s.values, dtypes.int64), s.dense_shape)
              if s.values.dtype == dtypes.int32 else s for s in sparse]
    dense = [cast(d, dtypes.int64) if d.dtype == dtypes.int32 else d for d in dense]
    out_type = dtypes.int64 if hashed_output else dtypes.string
    attrs = {"N": len(sparse), "hashed_output": bool(hashed_output),
             "num_buckets": int(num_buckets),
             "sparse_types": [s.values.dtype for s in sparse],
             "dense_types": [d.dtype for d in dense], "out_type": out_type,
             "internal_type": dtypes.string if not hashed_output else dtypes.int64}
    op_type = "SparseFeatureCross"
    if hash_key is not None:
        op_type = "SparseFeatureCrossV2"
        attrs["hash_key"] = int(hash_key)
    op = ops.apply_op(op_type, [[s.indices for s in sparse], [s.values for s in sparse],
                                [s.dense_shape for s in sparse], dense], attrs,
                      name=name or op_type)
    out = op.outputs
    return sparse_tensor.SparseTensor(out[0], out[1], out[2])


__all__ = ["sparse_feature_cross"]
