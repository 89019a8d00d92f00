"""TF's ``SparseCross`` op: the per-example cartesian product of several sparse or dense
``[batch, n]`` features, as ``FingerprintCat64``-chained hashes (``hashed_output``) or as
``_X_``-joined strings. ``crossed_column`` uses the hashed form."""

import itertools

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops, sparse_tensor, tensor_shape
from tideflow.ops.array_ops import _register_fold
from tideflow.ops.string_hash_ops import fingerprint64

_M = 0xFFFFFFFFFFFFFFFF
_MUL = 0xC6A4A7935BD1E995
DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _shift_mix(v):
    return v ^ (v >> 47)


def fingerprint_cat64(fp1, fp2):
    """TF's ``FingerprintCat64``: combines two 64-bit fingerprints."""
    result = fp1 ^ _MUL
    result ^= (_shift_mix((fp2 * _MUL) & _M) * _MUL) & _M
    result = (result * _MUL) & _M
    result = (_shift_mix(result) * _MUL) & _M
    return _shift_mix(result)


def _as_bytes(v):
    return v if isinstance(v, bytes) else str(v).encode()


def _rows_of_sparse(indices, values, shape, batch=None):
    # as TF's kernel: the entries of row b are the run of indices whose row is b, read in
    # order from where row b - 1's ended (entries out of order or out of range are skipped)
    batch = int(shape[0]) if batch is None else batch
    index_rows = np.asarray(indices).reshape(-1, 2)[:, 0].tolist() if np.size(indices) else []
    values = np.asarray(values).tolist()
    rows, k = [], 0
    for b in range(batch):
        row = []
        while k < len(index_rows) and index_rows[k] == b:
            row.append(values[k])
            k += 1
        rows.append(row)
    return rows


def _validate(indices, values, shapes, dense_inputs):
    """TF 1.15's SparseCross input checks, in its order and words; the batch size."""
    def bad(msg):
        return errors.InvalidArgumentError(None, None, msg)

    def shape_str(x):
        return "[" + ",".join(map(str, np.shape(x))) + "]"

    for i, ind in enumerate(indices):
        if np.ndim(ind) != 2:
            raise bad(f"Input indices should be a matrix but received shape {shape_str(ind)} "
                      f"at position {i}")
        if np.shape(ind)[1] != 2:
            raise bad(f"Expected D2 of index to be 2 got {np.shape(ind)[1]} at position {i}")
    for i, (ind, val) in enumerate(zip(indices, values)):
        if np.ndim(val) != 1:
            raise bad(f"Input values should be a std::vector but received shape "
                      f"{shape_str(val)} at position {i}")
        if np.shape(ind)[0] != np.shape(val)[0]:
            raise bad(f"Expected size of values to be {np.shape(ind)[0]} got "
                      f"{np.shape(val)[0]} at position {i}")
    batch = (int(np.asarray(shapes[0]).reshape(-1)[0]) if len(shapes)
             else (np.shape(dense_inputs[0])[0] if len(dense_inputs) else 0))
    for i, sh in enumerate(shapes):
        sh = np.asarray(sh)
        if sh.ndim != 1:
            raise bad(f"Input shapes should be a std::vector but received shape "
                      f"{shape_str(sh)} at position {i}")
        if sh.size != 2:
            raise bad(f"shape should imply a 2D tensor, but got {shape_str(sh)} at position "
                      f"{i}")
        if sh[0] != batch:
            raise bad(f"Expected batch size {batch} got {sh[0]} at position {i}")
    for i, d in enumerate(dense_inputs):
        if np.ndim(d) != 2:
            raise bad(f"Dense inputs should be a matrix but received shape {shape_str(d)} at "
                      f"position {i}")
        if np.shape(d)[0] != batch:
            raise bad(f"Expected batch size {batch} got {np.shape(d)[0]} at dense tensor {i}")
    return batch


def _kernel(indices, values, shapes, dense_inputs, *, hashed_output, num_buckets, hash_key):
    batch = _validate(indices, values, shapes, dense_inputs)
    columns = [_rows_of_sparse(i, v, s, batch) for i, v, s in zip(indices, values, shapes)]
    columns += [[list(row) for row in np.asarray(d).tolist()] for d in dense_inputs]
    out_indices, out_values = [], []
    key = hash_key & _M
    for b in range(batch):
        for k, combo in enumerate(itertools.product(*(c[b] for c in columns))):
            out_indices.append((b, k))
            if hashed_output:
                h = key
                for v in combo:
                    f = fingerprint64(v) if isinstance(v, bytes) else int(v) & _M
                    h = fingerprint_cat64(h, f)
                out_values.append(h % num_buckets if num_buckets > 0 else h % (2**63 - 1))
            else:
                out_values.append(b"_X_".join(_as_bytes(v) for v in combo))
    width = max((k for _, k in out_indices), default=-1) + 1
    idx = np.array(out_indices, np.int64).reshape(-1, 2)
    vals = (np.array(out_values, np.int64) if hashed_output
            else np.array(out_values, dtype=object))
    return [idx, vals, np.array([batch, width], np.int64)]


op_registry.declare(
    "SparseCross",
    inputs=["indices: N * int64", "values: sparse_types", "shapes: N * int64",
            "dense_inputs: dense_types"],
    outputs=["output_indices: int64", "output_values: out_type", "output_shape: int64"],
    attrs=["N: int >= 0", "hashed_output: bool", "num_buckets: int >= 0", "hash_key: int",
           "sparse_types: list(type) >= 0", "dense_types: list(type) >= 0",
           "out_type: type", "internal_type: type"],
    shape=lambda op: [tensor_shape.matrix(None, 2), tensor_shape.vector(None),
                      tensor_shape.vector(2)],
    kernel=_kernel,
    differentiable=False,
)
# as TF's shape refiner: crosses of constant inputs have a dense shape known when built
_register_fold("SparseCross")


def sparse_cross(inputs, hashed_output=False, num_buckets=0, hash_key=None, name=None):
    """The crosses of ``inputs`` (SparseTensors and dense ``[batch, n]`` tensors of int64 or
    string) as a ``[batch, max crosses]`` SparseTensor."""
    sparse, dense = [], []
    for t in inputs:
        if isinstance(t, sparse_tensor.SparseTensor):
            sparse.append(t)
        else:
            dense.append(ops.convert_to_tensor(t))
    # as TF, int32 features are crossed as int64
    from tideflow.ops.cast_ops import cast

    sparse = [sparse_tensor.SparseTensor(s.indices, cast(s.values, dtypes.int64), s.dense_shape)
              if s.values.dtype == dtypes.int32 else s for s in sparse]
    dense = [cast(d, dtypes.int64) if d.dtype == dtypes.int32 else d for d in dense]
    for t in sparse + dense:
        dt = t.values.dtype if isinstance(t, sparse_tensor.SparseTensor) else t.dtype
        if dt not in (dtypes.int64, dtypes.string):
            raise TypeError(f"SparseCross: inputs must be int64 or string, got {dt}")
    out_type = dtypes.int64 if hashed_output else dtypes.string
    internal = dtypes.int64 if hashed_output else dtypes.string
    op = ops.apply_op(
        "SparseCross",
        [[s.indices for s in sparse], [s.values for s in sparse],
         [s.dense_shape for s in sparse], dense],
        {"N": len(sparse), "hashed_output": bool(hashed_output), "num_buckets": num_buckets,
         "hash_key": DEFAULT_HASH_KEY if hash_key is None else hash_key,
         "sparse_types": [s.values.dtype for s in sparse], "dense_types": [d.dtype for d in dense],
         "out_type": out_type, "internal_type": internal},
        name=name or "SparseCross")
    out = op.outputs
    out[0].set_shape([None, 2])
    out[1].set_shape([None])
    out[2].set_shape([2])
    return sparse_tensor.SparseTensor(out[0], out[1], out[2])


def sparse_cross_hashed(inputs, num_buckets=0, hash_key=None, name=None):
    return sparse_cross(inputs, hashed_output=True, num_buckets=num_buckets, hash_key=hash_key,
                        name=name)
