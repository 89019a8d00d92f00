"""Matrix products and linear algebra: MatMul, BatchMatMul(V2), Einsum, inverse, determinant,
Cholesky and solve (each with its gradient), with ``tf.matmul``, ``tf.tensordot``, ``tf.einsum``
and the ``@`` operator.
"""

import math
import string

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import Dimension, TensorShape, unknown_shape
from tideflow.kernels import threads
from tideflow.ops.elementwise import broadcast_shape

_MATMUL_TYPES = "T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"
_LINALG_TYPES = "T: {double, float, half, complex64, complex128}"
_HALF_TYPES = (np.dtype(np.float16), dtypes.bfloat16.as_numpy_dtype)


def _fail(msg):
    raise errors.InvalidArgumentError(None, None, msg)


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def _adjoint(x):
    x = np.swapaxes(x, -1, -2)
    return np.conj(x) if x.dtype.kind == "c" else x


def _merge_dim(a, b):
    try:
        return a.merge_with(b)
    except ValueError:
        raise ValueError(f"Dimensions must be equal, but are {a.value} and {b.value}") from None


def _rank_at_least(shape, n):
    if shape.ndims is not None and shape.ndims < n:
        raise ValueError(f"Shape must be at least rank {n} but is rank {shape.ndims}")
    return shape


# ------------------------------------------------------------------------------------------
# MatMul, BatchMatMul, BatchMatMulV2
# ------------------------------------------------------------------------------------------


def _half_product(x, y):
    """``x @ y`` (batched) of float16 as TF 1.15's CPU contraction computes it: Eigen's half
    multiply-add rounds each product to half and adds it to a half accumulator, the terms in
    order along the contracted axis (no float32 accumulation)."""
    out = np.zeros(np.broadcast_shapes(x.shape[:-2], y.shape[:-2])
                   + (x.shape[-2], y.shape[-1]), np.float16)
    term = np.empty_like(out)
    for k in range(x.shape[-1]):
        np.multiply(x[..., :, k, None], y[..., k, None, :], out=term)
        np.add(out, term, out=out)
    return out


# the longest contraction added in half in order (one k-block of TF's: its bits)
_HALF_K_MAX = 256


def _half_accumulates(x, y):
    # TF 1.15 accumulates float16 products in half; bit for bit as _half_product where one
    # thread adds a k-block of at most a few hundred terms. A longer contraction is split in
    # blocks, or across threads, in an order that depends on the machine, and a row vector
    # times a matrix (Eigen's gemv) adds in another order, nearer the float32 product's: those
    # take the float32 product rounded once (_half_via_float32), ~100x faster than k passes
    return (x.dtype == np.float16 and y.dtype == np.float16 and x.shape[-2] > 1
            and x.shape[-1] <= _HALF_K_MAX)


def _half_via_float32(x, y):
    """float16 ``x @ y`` (batched) as the float32 product (BLAS) rounded once to half."""
    return np.matmul(x.astype(np.float32), y.astype(np.float32)).astype(np.float16)


_F32 = np.dtype(np.float32)
_GEMV_MAX_SIZE = 1 << 22  # matrices up to 16 MB take TF's order; larger ones BLAS's


def _gemv_rows(m, v):
    """``m @ v`` for float32 [rows, k] ``m`` and [k] ``v`` as Eigen's row-major matrix-vector
    product in TF 1.15: products added lane-wise in 8-float packets (a multiply, then an add),
    the lanes summed as ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)), then the last
    ``k % 8`` products one after another (see below for an odd last row)."""
    rows, k = m.shape
    full = k - k % 8
    if full:
        # the products packet-major ([k // 8, rows, 8]), so that NumPy's reduction over the
        # first axis adds the packets in order, a whole slab at a time
        prods = np.empty((full // 8, rows, 8), _F32)
        np.multiply(m[:, :full].reshape(rows, full // 8, 8).transpose(1, 0, 2),
                    v[:full].reshape(full // 8, 1, 8), out=prods)
        lanes = np.add.reduce(prods, axis=0)
        half = lanes[:, :4] + lanes[:, 4:]
        total = (half[:, 0] + half[:, 2]) + (half[:, 1] + half[:, 3])
    else:
        total = np.zeros(rows, _F32)
    # Eigen takes the rows 8, 4 and 2 at a time, and a last odd row alone: that one adds the
    # next 4 products as a half packet, summed (p0 + p2) + (p1 + p3), before its scalar tail
    tail = full
    if rows % 2 and k - full >= 4:
        p = m[-1, full:full + 4] * v[full:full + 4]
        total[-1] += (p[0] + p[2]) + (p[1] + p[3])
        tail = full + 4
    for j in range(full, k):
        if j < tail:
            total[:-1] += m[:-1, j] * v[j]
        else:
            total += m[:, j] * v[j]
    return total


def _gemv_cols(m_t, v, stride):
    """``m_t.T @ v`` for float32 [k, cols] ``m_t`` (the matrix read by columns, ``stride``
    floats apart) and [k] ``v`` as Eigen's column-major matrix-vector product in TF 1.15: the
    columns in blocks (all of them under 128, else 16, or 4 when a column spans 32000 bytes
    or more), each block's products added in order from zero, the blocks' sums added in
    order. (NumPy's reduction over the first axis of a C-ordered array of two columns or more
    adds its rows in order.)"""
    k = m_t.shape[0]
    block = k if k < 128 else (16 if stride * 4 < 32000 else 4)
    # (C-ordered whatever m_t is, a transpose's view too: the reductions below then add in
    # order, not pairwise along a contiguous axis)
    prods = np.multiply(m_t, v[:, None], dtype=_F32, order="C")
    full = k - k % block
    total = None
    if full:
        sums = np.add.reduce(prods[:full].reshape(full // block, block, -1), axis=1)
        total = np.add.reduce(sums, axis=0) if len(sums) > 1 else sums[0]
    if full < k:
        rest = np.add.reduce(prods[full:], axis=0)
        total = rest if total is None else total + rest
    return total


def _sum_in_order(p):
    return np.add.accumulate(p)[-1]


def _dot_as_tf(u, w, transpose_b):
    """A float32 [1, k] by [k, 1] MatMul as TF 1.15 adds it (measured for k = 1..9000): as
    any row vector times a matrix (below), where ``_gemv_cols`` of one column would sum by
    NumPy's pairwise reduction: b read by columns adds the products in order (in blocks of 16
    from k = 128, the blocks' sums in order, then the rest)."""
    if transpose_b:
        return _gemv_rows(w.reshape(1, -1), u).reshape(1, 1)
    # (added to a zero: a sum of -0.0 products is 0 there)
    return np.reshape(_dot_in_blocks(u, w) + _F32.type(0), (1, 1))


def _dot_in_blocks(u, w):
    """The products of ``u`` and ``w`` added in order, in blocks of 16 from k = 128 (the
    blocks' sums in order, then the rest), from the first product."""
    k = u.shape[0]
    p = np.multiply(u, w, dtype=_F32)
    if k < 128:
        return _sum_in_order(p)
    full = k - k % 16
    total = _sum_in_order(np.add.accumulate(p[:full].reshape(-1, 16), axis=1)[:, -1])
    if full < k:
        total = total + _sum_in_order(p[full:])
    return total


def _bmm_dot_as_tf(u, w, adj_x, adj_y):
    """A float32 BatchMatMul(V2) of a [1, k] and a [k, 1] matrix (``tf.matmul`` of tensors
    whose rank is unknown when the graph is built) as TF 1.15 adds it (measured for k up to
    9000): a adjoint, as MatMul's in-order dot; neither, in order up to k = 17, then Eigen's
    row-vector product (``_gemv_rows``); b adjoint, in order up to k = 7, one 8-float packet's
    lanes then the rest in order up to 15, then ``_gemv_rows``. The in-order sums start from
    the first product up to k = 17 (-0.0 products sum to -0.0), from zero past it."""
    k = u.shape[0]
    if adj_x:
        total = _dot_in_blocks(u, w)
    elif k <= (7 if adj_y else 17):
        total = _sum_in_order(np.multiply(u, w, dtype=_F32))
    elif k <= 15:  # (b adjoint)
        p = np.multiply(u, w, dtype=_F32)
        half = p[:4] + p[4:8]
        total = (half[0] + half[2]) + (half[1] + half[3])
        for x in p[8:]:
            total = total + x
    else:
        total = _gemv_rows(u.reshape(1, -1), w)[0]
    if k > 17:
        total = total + _F32.type(0)
    return np.reshape(total, (1, 1))


def _matmul_as_tf_gemv(a, b, transpose_a, transpose_b):
    """TF 1.15's float32 MatMul where one side is a vector (Eigen's matrix-vector products,
    not the MKL-DNN GEMM), or None elsewhere."""
    if a.dtype != _F32 or b.dtype != _F32 or a.size > _GEMV_MAX_SIZE or b.size > _GEMV_MAX_SIZE:
        return None
    m_rows = a.shape[1] if transpose_a else a.shape[0]
    n_cols = b.shape[0] if transpose_b else b.shape[1]
    k = a.shape[0] if transpose_a else a.shape[1]
    if k == 0 or (m_rows != 1 and n_cols != 1):
        return None
    if m_rows == n_cols == 1:
        return _dot_as_tf(a.reshape(-1), b.reshape(-1), transpose_b)
    if n_cols == 1:
        v = b.reshape(-1)
        if transpose_a:  # a is [k, m]: its transpose read by columns
            return _gemv_cols(a, v, a.shape[1]).reshape(m_rows, 1)
        return _gemv_rows(a, v).reshape(m_rows, 1)
    if not transpose_b:  # [1, k] @ [k, n]: b's transpose read by columns
        return _gemv_cols(b, a.reshape(-1), b.shape[1]).reshape(1, n_cols)
    return _gemv_rows(b, a.reshape(-1)).reshape(1, n_cols)  # [1, k] @ [n, k]^T: b by rows


def matmul_as_fused_gemm(a, b, *, transpose_a, transpose_b):
    """MatMul's kernel where TF 1.15's grappler fuses it with the BiasAdd that reads it
    (``_FusedMatMul``): the GEMM with a column on the right (``runtime/graph_passes``).
    TF's GEMM (MKL-DNN's sgemm) adds the products of a column one after another with an FMA
    each while k is at most 384 (one block); that is done here, in double (an exact product,
    one rounding to float32 per step). A row on the left (a batch of one through a dense
    layer) takes Eigen's matrix-vector product, as a plain MatMul with b as it is; with b
    transposed (or a [1, k] by [k, 1] product), each output's products in order (blocks of 16
    from k = 128), measured in TF 1.15 for k up to 513."""
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim == 2
            and a.dtype == b.dtype == _F32):
        x = a.T if transpose_a else a
        y = b.T if transpose_b else b
        k = x.shape[1]
        if x.shape[0] == 1 and y.shape[0] == k and k and y.size <= _GEMV_MAX_SIZE:
            if y.shape[1] == 1:
                return _dot_as_tf(x.reshape(-1), y.reshape(-1), False)
            if transpose_b:  # (C-ordered: NumPy then adds each column's products in order)
                return _gemv_cols(np.ascontiguousarray(y), x.reshape(-1), 1).reshape(1, -1)
            return _gemv_cols(y, x.reshape(-1), y.shape[1]).reshape(1, -1)
        if y.shape == (k, 1) and 0 < k <= 384 and x.size <= _GEMV_MAX_SIZE:
            v = y[:, 0].astype(np.float64)
            acc = np.zeros(x.shape[0], np.float64)
            for j in range(k):
                acc = (x[:, j] * v[j] + acc).astype(_F32).astype(np.float64)
            return acc.astype(_F32).reshape(-1, 1)
    return _matmul_impl(a, b, transpose_a, transpose_b, gemv=False)


# TF 1.15's float32 GEMM (MKL-DNN's sgemm) adds each output's products in order along k, an
# FMA each, while k fits one block (measured: every k up to 320 for m and n up to 300, all
# four transpose cases; longer or larger products are split, and a session whose intra-op
# pool has several threads may split k in halves). OpenBLAS's kernel adds in that order only
# up to k = 31, or for a C-ordered right operand whose columns are a multiple of 16, so a
# product in between runs on such a copy of its right operand (padded with zero columns).
_K_ORDER_MIN, _K_ORDER_MAX = 32, 320


def _gemm_in_k_order(x, y):
    k, n = y.shape
    wide = -(-n // 16) * 16
    if wide == n and y.flags.c_contiguous:
        return threads.matmul(x, y)
    padded = np.zeros((k, wide), _F32)
    padded[:, :n] = y
    return np.ascontiguousarray(threads.matmul(x, padded)[:, :n])


def _matmul(a, b, *, transpose_a, transpose_b):
    return _matmul_impl(a, b, transpose_a, transpose_b, gemv=True)


def _matmul_impl(a, b, transpose_a, transpose_b, gemv):
    if (type(a) is np.ndarray and type(b) is np.ndarray and a.ndim == 2 and b.ndim == 2
            and a.dtype == b.dtype and a.dtype.kind in "fciub"
            and a.dtype != np.float16):  # (not bfloat16: kind V)
        # the common case: one BLAS call (a transposed operand is a view BLAS reads as is)
        x = a.T if transpose_a else a
        y = b.T if transpose_b else b
        if x.shape[1] == y.shape[0]:
            if gemv and a.dtype == _F32 and (x.shape[0] == 1 or y.shape[1] == 1):
                out = _matmul_as_tf_gemv(a, b, transpose_a, transpose_b)
                if out is not None:
                    return out
            if (a.dtype == _F32 and _K_ORDER_MIN <= x.shape[1] <= _K_ORDER_MAX
                    and x.shape[0] > 1 and y.shape[1] > 1):
                return _gemm_in_k_order(x, y)
            return threads.matmul(x, y)
    if np.ndim(a) != 2 or np.ndim(b) != 2:
        bad, shape = (0, np.shape(a)) if np.ndim(a) != 2 else (1, np.shape(b))
        _fail(f"In[{bad}] is not a matrix. Instead it has shape {_dims(shape)}")
    x = a.T if transpose_a else a
    y = b.T if transpose_b else b
    if x.shape[1] != y.shape[0]:
        _fail(f"Matrix size-incompatible: In[0]: {_dims(a.shape)}, In[1]: {_dims(b.shape)}")
    if _half_accumulates(x, y):
        return _half_product(x, y)
    if a.dtype == np.float16 and b.dtype == np.float16:
        return _half_via_float32(x, y)
    if a.dtype == _HALF_TYPES[1]:
        # TF 1.15's bfloat16 MatMul multiplies in float32 and truncates the product to
        # bfloat16 (FloatToBFloat16 keeps the upper 16 bits; it does not round)
        out = np.ascontiguousarray(threads.matmul(x.astype(np.float32), y.astype(np.float32)))
        return (out.view(np.uint32) & np.uint32(0xFFFF0000)).view(np.float32).astype(a.dtype)
    return threads.matmul(x, y).astype(a.dtype, copy=False)


def _matmul_shape(op):
    a, b = op._inputs[0]._shape, op._inputs[1]._shape
    for s in (a, b):
        if s.ndims is not None and s.ndims != 2:
            raise ValueError(f"Shape must be rank 2 but is rank {s.ndims}")
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    if a.ndims is None:
        a = unknown_shape(ndims=2)
    if b.ndims is None:
        b = unknown_shape(ndims=2)
    _merge_dim(a.dims[0 if ta else 1], b.dims[1 if tb else 0])
    return [TensorShape([a.dims[1 if ta else 0], b.dims[0 if tb else 1]])]


def _batched_macs(a, b):
    """Multiply-adds of ``a @ b`` (batched, broadcast), for the one-BLAS-thread rule."""
    batch = max(int(np.prod(a.shape[:-2], dtype=np.int64)),
                int(np.prod(b.shape[:-2], dtype=np.int64)))
    return batch * a.shape[-2] * a.shape[-1] * b.shape[-1]


# TF 1.15's float32 BatchMatMul of more than one matrix (Eigen's own kernel, a multiply then an
# add per term) adds each output's products in order when the contraction is this short
# (measured for every k up to 7, shapes and transposes; longer ones take a blocked order)
_BATCH_K_IN_ORDER = 7


def _batched_products_in_order(a, b):
    out = a[..., :, 0:1] * b[..., 0:1, :]
    for j in range(1, a.shape[-1]):
        out += a[..., :, j:j + 1] * b[..., j:j + 1, :]
    return out


def _batch_matmul(broadcast):
    def kernel(x, y, *, adj_x, adj_y):
        # TF 1.15's checks and words, in its order (BatchMatMul's differ from V2's)
        if broadcast:
            for i, t in enumerate((x, y)):
                if np.ndim(t) < 2:
                    _fail(f"In[{i}] ndims must be >= 2: {np.ndim(t)}")
        else:
            if np.ndim(x) != np.ndim(y):
                _fail(f"In[0] and In[1] has different ndims: {_dims(np.shape(x))} vs. "
                      f"{_dims(np.shape(y))}")
            if np.ndim(x) < 2:
                _fail(f"In[0] and In[1] ndims must be >= 2: {np.ndim(x)}")
            for i, (p, q) in enumerate(zip(x.shape[:-2], y.shape[:-2])):
                if p != q:
                    _fail(f"In[0].dim({i}) and In[1].dim({i}) must be the same: "
                          f"{_dims(x.shape)} vs {_dims(y.shape)}")
        a = _adjoint(x) if adj_x else x
        b = _adjoint(y) if adj_y else y
        try:
            if a.shape[-1] != b.shape[-2]:
                np.broadcast_shapes(x.shape[:-2], y.shape[:-2])  # (TF checks these first)
                _fail(f"In[0] mismatch In[1] shape: {a.shape[-1]} vs. {b.shape[-2]}: "
                      f"{_dims(x.shape)} {_dims(y.shape)} {int(adj_x)} {int(adj_y)}")
            if _half_accumulates(a, b):
                np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
                out = _half_product(a, b)
            elif a.dtype == np.float16 and b.dtype == np.float16:
                out = _half_via_float32(a, b)
            elif (a.ndim == b.ndim == 2 and a.shape[0] == 1 == b.shape[1] and a.shape[1]
                  and a.dtype == b.dtype == _F32 and a.size <= _GEMV_MAX_SIZE):
                out = _bmm_dot_as_tf(a.reshape(-1), b.reshape(-1), adj_x, adj_y)
            elif (a.ndim == b.ndim == 2 and a.dtype == b.dtype == _F32
                  and _K_ORDER_MIN <= a.shape[1] <= _K_ORDER_MAX
                  and a.shape[0] > 1 and b.shape[1] > 1):
                out = _gemm_in_k_order(a, b)  # (TF's MatMul order; not for a batch)
            elif (a.dtype == b.dtype == _F32 and 0 < a.shape[-1] <= _BATCH_K_IN_ORDER
                  and a.shape[:-2] == b.shape[:-2] and a.ndim > 2
                  and int(np.prod(a.shape[:-2])) > 1):
                out = _batched_products_in_order(a, b)
            else:
                with threads.small_product(_batched_macs(a, b)):
                    out = np.matmul(a, b)
        except ValueError:
            _fail(f"In[0] and In[1] must have compatible batch dimensions: "
                  f"{_dims(x.shape)} vs. {_dims(y.shape)}")
        return out.astype(x.dtype, copy=False)

    return kernel


def _batch_matmul_shape(broadcast):
    def shape_fn(op):
        a = _rank_at_least(op._inputs[0]._shape, 2)
        b = _rank_at_least(op._inputs[1]._shape, 2)
        if a.ndims is None or b.ndims is None:
            return [unknown_shape()]
        adj_x, adj_y = op._attrs["adj_x"], op._attrs["adj_y"]
        rows = a.dims[-1 if adj_x else -2]
        cols = b.dims[-2 if adj_y else -1]
        _merge_dim(a.dims[-2 if adj_x else -1], b.dims[-1 if adj_y else -2])
        ab, bb = TensorShape(a.dims[:-2]), TensorShape(b.dims[:-2])
        if broadcast:
            batch = broadcast_shape(ab, bb)
        else:
            if ab.ndims != bb.ndims:
                raise ValueError(f"Shapes must be equal rank, but are {ab.ndims} and {bb.ndims}")
            batch = TensorShape([_merge_dim(x, y) for x, y in zip(ab.dims, bb.dims)])
        return [batch.concatenate([rows, cols])]

    return shape_fn


def _matmul_grad(op, grad):
    from tideflow.ops.math_ops import conj

    t_a, t_b = op.get_attr("transpose_a"), op.get_attr("transpose_b")
    a, b = conj(op.inputs[0]), conj(op.inputs[1])

    def mm(x, y, ta, tb):
        return _apply("MatMul", [x, y], None, {"transpose_a": ta, "transpose_b": tb})

    if not t_a and not t_b:
        return mm(grad, b, False, True), mm(a, grad, True, False)
    if not t_a:
        return mm(grad, b, False, False), mm(grad, a, True, False)
    if not t_b:
        return mm(b, grad, False, True), mm(a, grad, False, False)
    return mm(b, grad, True, True), mm(grad, a, True, True)


def _batch_matmul_grad(op, grad):
    """TF 1.15's: products by tf.matmul (BatchMatMulV2 ops named MatMul); for BatchMatMulV2,
    unless both inputs have one fully known shape, each gradient is summed over the batch
    dimensions its input was broadcast along (from the shapes' BroadcastGradientArgs)."""
    from tideflow.ops import array_ops
    from tideflow.ops.reduction_ops import reduce_sum

    adj_x, adj_y = op.get_attr("adj_x"), op.get_attr("adj_y")
    x, y = op.inputs
    if not adj_x and not adj_y:
        gx = matmul(grad, y, adjoint_a=False, adjoint_b=True)
        gy = matmul(x, grad, adjoint_a=True, adjoint_b=False)
    elif not adj_x:
        gx = matmul(grad, y, adjoint_a=False, adjoint_b=False)
        gy = matmul(grad, x, adjoint_a=True, adjoint_b=False)
    elif not adj_y:
        gx = matmul(y, grad, adjoint_a=False, adjoint_b=True)
        gy = matmul(x, grad, adjoint_a=False, adjoint_b=False)
    else:
        gx = matmul(y, grad, adjoint_a=True, adjoint_b=True)
        gy = matmul(grad, x, adjoint_a=True, adjoint_b=True)
    if op.type == "BatchMatMul":
        return gx, gy
    xs, ys = x.get_shape(), y.get_shape()
    if xs.is_fully_defined() and ys.is_fully_defined() and xs == ys:
        return gx, gy
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = ops.apply_op("BroadcastGradientArgs", [sx[:-2], sy[:-2]])._outputs
    return (array_ops.reshape(reduce_sum(gx, rx), sx),
            array_ops.reshape(reduce_sum(gy, ry), sy))


op_registry.declare("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
                    attrs=["transpose_a: bool = false", "transpose_b: bool = false",
                           _MATMUL_TYPES],
                    shape=_matmul_shape, kernel=_matmul, grad=_matmul_grad)


@ops.RegisterStatistics("MatMul", "flops")
def _matmul_flops(graph, node):
    """Two flops (a multiply and an add) per term of each output element, as TF counts them."""
    op = graph.get_operation_by_name(node.name)
    a, out = op.inputs[0].get_shape(), op.outputs[0].get_shape()
    if not (a.is_fully_defined() and out.is_fully_defined()):
        return ops.OpStats("flops")
    k = a.as_list()[0 if op.get_attr("transpose_a") else 1]
    return ops.OpStats("flops", k * out.num_elements() * 2)


for _name, _broadcast in (("BatchMatMul", False), ("BatchMatMulV2", True)):
    op_registry.declare(_name, inputs=["x: T", "y: T"], outputs=["output: T"],
                        attrs=[_MATMUL_TYPES, "adj_x: bool = false", "adj_y: bool = false"],
                        shape=_batch_matmul_shape(_broadcast), kernel=_batch_matmul(_broadcast),
                        grad=_batch_matmul_grad)


# ------------------------------------------------------------------------------------------
# Einsum
# ------------------------------------------------------------------------------------------


def _parse_equation(equation, n, repeated_output=True):
    """(input subscripts, output subscripts) of ``equation``; the Einsum op may repeat an output
    label (a diagonal, the reverse of a repeated input label), tf.einsum may not."""
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    specs = lhs.split(",")
    if len(specs) != n:  # TF 1.15's words
        raise ValueError(f'Got {n} arguments for equation "{equation}", expecting {len(specs)}')
    for s in specs + ([out] if arrow else []):
        letters = s.replace("...", "")
        if not all(c in string.ascii_letters for c in letters):
            raise ValueError(f"Invalid einsum equation {equation!r}")
    if arrow:
        named = out.replace("...", "")
        missing = sorted(set(named) - set("".join(specs)))
        if missing:  # TF's words
            raise ValueError(f"Output subscripts contain the label {missing[0]} not present "
                             "in the input subscripts.")
        if len(set(named)) != len(named) and not repeated_output:
            raise ValueError(f"Output subscripts of einsum equation {equation!r} repeat a "
                             "label")
    if not arrow:  # implicit output: labels seen once, sorted, after any broadcast dims
        counts = {}
        for s in specs:
            for c in s.replace("...", ""):
                counts[c] = counts.get(c, 0) + 1
        out = ("..." if any("..." in s for s in specs) else "") + "".join(
            sorted(c for c, k in counts.items() if k == 1))
    return specs, out


def _einsum_shape(op):
    specs, out = _parse_equation(op._attrs["equation"], len(op._inputs))
    labels = {}
    ellipsis = TensorShape([])
    for i, (spec, t) in enumerate(zip(specs, op._inputs)):
        s = t._shape
        letters = spec.replace("...", "")
        if s.ndims is None:
            if "..." in spec:
                ellipsis = unknown_shape()
            continue
        if "..." in spec:
            k = s.ndims - len(letters)
            if k < 0:
                raise ValueError(f"Input {i} has rank {s.ndims}, fewer than the {len(letters)} "
                                 f"labels of {spec!r}")
            head, _, tail = spec.partition("...")
            dims = s.dims
            ell = TensorShape(dims[len(head):len(head) + k])
            ellipsis = broadcast_shape(ellipsis, ell) if ellipsis.ndims is not None else ellipsis
            named = dims[:len(head)] + dims[len(head) + k:]
        else:
            if len(letters) != s.ndims:
                raise ValueError(f"Input {i} has rank {s.ndims} but its subscripts {spec!r} "
                                 f"name {len(letters)} axes")
            named = s.dims
        for c, d in zip(letters, named):
            labels[c] = _merge_dim(labels[c], d) if c in labels else d
    head, has_ellipsis, tail = out.partition("...")
    if not has_ellipsis and ellipsis.ndims:
        raise ValueError(_NO_OUTPUT_ELLIPSIS)
    if has_ellipsis and ellipsis.ndims is None:
        return [unknown_shape()]
    dims = [labels.get(c, Dimension(None)) for c in head]
    if has_ellipsis:
        dims += ellipsis.dims
    dims += [labels.get(c, Dimension(None)) for c in tail]
    return [TensorShape(dims)]


def _pairwise_plan(equation):
    """How a two-operand ``equation`` without ellipses or repeated labels runs as one batched
    matrix product, or None: (labels summed in A alone, in B alone, A's permutation to
    batch + free + contracted, B's to batch + contracted + free, the label groups, and the
    output permutation)."""
    lhs, arrow, out = equation.replace(" ", "").partition("->")
    parts = lhs.split(",")
    if not arrow or len(parts) != 2 or "." in equation:
        return None
    a, b = parts
    if len(set(a)) != len(a) or len(set(b)) != len(b) or len(set(out)) != len(out) \
            or not set(out) <= set(a) | set(b):
        return None
    sum_a = [c for c in a if c not in b and c not in out]
    sum_b = [c for c in b if c not in a and c not in out]
    a = "".join(c for c in a if c not in sum_a)
    b = "".join(c for c in b if c not in sum_b)
    batch = [c for c in out if c in a and c in b]
    contracted = [c for c in a if c in b and c not in out]
    free_a = [c for c in a if c not in b]
    free_b = [c for c in b if c not in a]
    result = batch + free_a + free_b
    return (tuple(parts[0].index(c) for c in sum_a), tuple(parts[1].index(c) for c in sum_b),
            [a.index(c) for c in batch + free_a + contracted],
            [b.index(c) for c in batch + contracted + free_b],
            (a, b, batch, free_a, contracted, free_b),
            [result.index(c) for c in out])


_PAIRWISE_PLANS = {}


def _pairwise_einsum(equation, x, y):
    """``np.einsum(equation, x, y)`` as transposes and one ``np.matmul`` (5-10x cheaper than
    NumPy's optimized einsum for the small contractions of attention layers), or None."""
    plan = _PAIRWISE_PLANS.get(equation, False)
    if plan is False:
        plan = _PAIRWISE_PLANS[equation] = _pairwise_plan(equation)
    if plan is None:
        return None
    sum_a, sum_b, perm_a, perm_b, (a, b, batch, free_a, contracted, free_b), perm_out = plan
    if sum_a:
        x = x.sum(axis=sum_a)
    if sum_b:
        y = y.sum(axis=sum_b)
    if x.ndim != len(a) or y.ndim != len(b):
        return None
    size = dict(zip(a, x.shape))
    for c, d in zip(b, y.shape):
        if size.setdefault(c, d) != d:
            return None  # mismatched sizes: np.einsum raises the error
    nb = math.prod([size[c] for c in batch])
    nfa = math.prod([size[c] for c in free_a])
    nc = math.prod([size[c] for c in contracted])
    nfb = math.prod([size[c] for c in free_b])
    xa = x.transpose(perm_a).reshape(nb, nfa, nc)
    yb = y.transpose(perm_b).reshape(nb, nc, nfb)
    with threads.small_product(nb * nfa * nc * nfb):
        out = np.matmul(xa, yb)
    out = out.reshape([size[c] for c in batch + free_a + free_b])
    return out.transpose(perm_out)


_NO_OUTPUT_ELLIPSIS = ("Output subscripts must contain an ellipsis ('...') when the inputs' "
                       "broadcast dimensions are not empty")


def _einsum(inputs, *, equation):
    lhs, arrow, out = equation.replace(" ", "").partition("->")
    if arrow and "..." not in out and "." in lhs:
        # the dimensions an input's ellipsis covers must appear in the output
        for spec, x in zip(lhs.split(","), inputs):
            if "..." in spec and np.ndim(x) > len(spec) - 3:
                _fail(_NO_OUTPUT_ELLIPSIS)
    if arrow and len(set(out.replace("...", ""))) != len(out.replace("...", "")):
        return _einsum_diagonal_output(inputs, lhs, out)
    dt = np.result_type(*inputs)
    if dt in _HALF_TYPES:
        inputs = [np.asarray(x, np.float32) for x in inputs]
    if len(inputs) < 2:
        return np.einsum(equation, *inputs).astype(dt, copy=False)
    if len(inputs) == 2 and dt.kind in "fc":
        out = _pairwise_einsum(equation, np.asarray(inputs[0]), np.asarray(inputs[1]))
        if out is not None:
            if not out.flags.c_contiguous:  # (np.ascontiguousarray would make a 0-d 1-d)
                out = out.copy(order="C")
            return out.astype(dt, copy=False)
    # a pairwise contraction is BLAS work: the same one-thread rule as MatMul for small ones
    # (bounded by the product of every label's size, the cost of the unoptimized contraction)
    sizes = {}
    for spec, x in zip(equation.split("->")[0].split(","), inputs):
        spec = spec.strip()
        if "..." in spec:
            sizes = None
            break
        sizes.update(zip(spec, np.shape(x)))
    macs = int(np.prod(list(sizes.values()), dtype=np.int64)) if sizes else 0
    with threads.small_product(macs):
        return np.einsum(equation, *inputs, optimize=True).astype(dt, copy=False)


def _einsum_diagonal_output(inputs, lhs, out):
    """An output subscript with a repeated label: the einsum to each label once, written onto
    the diagonal of the repeated axes (zeros elsewhere)."""
    unique = "".join(dict.fromkeys(out.replace("...", "")))
    head, dots, _ = out.partition("...")
    lead = "".join(dict.fromkeys(head))
    core = _einsum(inputs, equation=lhs + "->" + lead + dots + unique[len(lead):])
    n_ell = core.ndim - len(unique)
    # each output axis: the axis of ``core`` that supplies its index
    axes = []
    for c in head:
        axes.append(lead.index(c))
    if dots:
        axes += list(range(len(lead), len(lead) + n_ell))
        for c in out.partition("...")[2]:
            k = unique.index(c)
            axes.append(k if k < len(lead) else k + n_ell)
    grid = np.indices(core.shape, sparse=True)
    result = np.zeros([core.shape[a] for a in axes], core.dtype)
    result[tuple(grid[a] for a in axes)] = core
    return result


def _einsum_grad(op, grad):
    # the gradient of input i: an einsum of grad with the conjugated other inputs, written to
    # input i's subscripts; labels of input i found nowhere else come from a ones operand of
    # its shape, repeated labels (diagonals) from identity matrices, and broadcast ellipsis
    # dimensions are summed back to input i's shape
    from tideflow.ops import array_ops, math_ops, range_ops
    from tideflow.ops.elementwise import reduce_to_inputs

    inputs = list(op.inputs)
    equation = op.get_attr("equation")
    if isinstance(equation, bytes):
        equation = equation.decode()
    specs, out = _parse_equation(equation, len(inputs))
    used = set("".join(specs) + out)
    fresh = (c for c in string.ascii_letters if c not in used)
    grads = []
    for i, (x, spec) in enumerate(zip(inputs, specs)):
        others = [(math_ops.conj(t), sp) for j, (t, sp) in enumerate(zip(inputs, specs)) if j != i]
        operands = [(grad, out)] + others
        target, seen = "", {}
        head, _, _ = spec.partition("...")
        for pos, c in enumerate(spec.replace("...", "")):
            if c not in seen:
                seen[c] = pos
                target += c
                continue
            twin = next(fresh)
            target += twin
            n = _label_size(x, spec, pos)
            operands.append((range_ops.eye(n, dtype=x.dtype.base_dtype), c + twin))
        summed_dots = "..." not in spec and any("..." in sp for _, sp in operands)
        if "..." in spec:
            target = target[:len(head)] + "..." + target[len(head):]
        elif summed_dots:  # (an einsum sums no broadcast dimensions: they are summed below)
            target = "..." + target
        elsewhere = set("".join(sp for _, sp in operands))
        needs_ones = any(c not in elsewhere for c in seen) or (
            "..." in spec and not any("..." in sp for _, sp in operands))
        if needs_ones:
            operands.append((array_ops.ones_like(x), spec))
        equation = ",".join(sp for _, sp in operands) + "->" + target
        g = _apply("Einsum", [[t for t, _ in operands]], None, {"equation": equation})
        if "..." in spec or summed_dots:
            g = reduce_to_inputs(x, g, g, None)[0]
        grads.append(g)
    return grads


def _label_size(x, spec, pos):
    """The size of the ``pos``-th labelled axis of x (a Python int when static)."""
    from tideflow.ops import array_ops

    head, _, tail = spec.partition("...")
    index = pos if pos < len(head) else pos - len(head) - len(tail)
    shape = x.get_shape()
    if shape.ndims is not None and shape.dims[index].value is not None:
        return shape.dims[index].value
    return array_ops.shape(x)[index]


op_registry.declare("Einsum", inputs=["inputs: N * T"], outputs=["output: T"],
                    attrs=["equation: string", "N: int >= 1", "T: type"],
                    shape=_einsum_shape, kernel=_einsum, grad=_einsum_grad)


# ------------------------------------------------------------------------------------------
# MatrixInverse, MatrixDeterminant, Cholesky, MatrixSolve
# ------------------------------------------------------------------------------------------


def _wide(x):
    """NumPy's LAPACK has no 16-bit floats: compute those in float32."""
    return np.asarray(x, np.float32) if x.dtype in _HALF_TYPES else x


def _check_square(x, square="Input matrix must be square.", rhs=None):
    """TF 1.15's LinearAlgebraOp checks, in its order: the ranks, the right-hand side's
    outer dimensions, the square matrix, then its rows against the right-hand side's."""
    if np.ndim(x) < 2:
        _fail(f"Input tensor 0 must have rank >= 2, got {np.ndim(x)}")
    if rhs is not None:
        if np.ndim(rhs) != np.ndim(x):
            _fail("All input tensors must have the same rank.")
        if np.shape(rhs)[:-2] != x.shape[:-2]:
            _fail("All input tensors must have the same outer dimensions.")
    if x.shape[-1] != x.shape[-2]:
        _fail(square)
    if rhs is not None and np.shape(rhs)[-2] != x.shape[-2]:
        _fail("Input matrix and rhs are incompatible.")


def _lu_pivots_pass(m):
    """TF 1.15's test of Eigen's partial-pivoting LU of one matrix with NaNs: its smallest
    pivot modulus, reduced in order with std::min (a NaN is kept only where it comes
    first), must be above zero."""
    a = np.array(m, dtype=np.complex128 if m.dtype.kind == "c" else np.float64)
    n = a.shape[-1]
    pivots = []
    with np.errstate(all="ignore"):
        for k in range(n):
            col = np.abs(a[k:, k])
            best = 0
            for i in range(1, len(col)):  # maxCoeff: a NaN never wins a comparison
                if col[i] > col[best]:
                    best = i
            if best:
                a[[k, k + best]] = a[[k + best, k]]
            p = a[k, k]
            pivots.append(abs(p))
            if p != 0:
                a[k + 1:, k] /= p
                a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    low = pivots[0] if pivots else 1.0
    for v in pivots[1:]:
        low = min(low, v)  # keeps low unless v < low, as std::min
    return low > 0


def _check_no_nan(x, words):
    # TF 1.15 refuses an LU factorization whose smallest pivot is zero or NaN; a finite
    # matrix has already been checked by LAPACK
    if x.dtype.kind in "fc" and np.isnan(x).any():
        flat = x.reshape((-1,) + x.shape[-2:])
        if not all(_lu_pivots_pass(m) for m in flat if np.isnan(m).any()):
            _fail(words)


_EIGEN_UNBLOCKED_LU = 16  # Eigen's PartialPivLU factors matrices up to 16 wide unblocked


def _eigen_slogdet_float32(x):
    """TF 1.15's SLogDet of float32 matrices of at most 16 rows, bit for bit: Eigen's
    unblocked partial-pivot LU in float (pivot: the first largest |value| of the column; the
    column below divided by it; the rank-one update of the corner, each product rounded, TF's
    pip build having no FMA), then the sum of the logs of |diagonal| (Eigen's packet log on
    whole 8-float packets, glibc's logf on the rest) in Eigen's reduction order: the first
    value, or the packets (added lane-wise, two of them at 16), folded (lanes i + i+4, then
    (0 + 2) + (1 + 3)), then the rest in order."""
    from tideflow.ops import eigen_float32

    n = x.shape[-1]
    a = np.array(x, np.float32).reshape(-1, n, n)
    rows = np.arange(len(a))
    swaps = np.zeros(len(a), np.int64)
    with np.errstate(all="ignore"):
        for k in range(n):
            p = k + np.argmax(np.abs(a[:, k:, k]), axis=1)
            moved = p != k
            if moved.any():
                r, pr = rows[moved], p[moved]
                top = a[r, k].copy()
                a[r, k] = a[r, pr]
                a[r, pr] = top
                swaps += moved
            pivot = a[:, k, k]
            live = pivot != 0  # a zero column is left as it is
            if k + 1 < n:
                a[live, k + 1:, k] /= pivot[live, None]
                a[:, k + 1:, k + 1:] -= a[:, k + 1:, k, None] * a[:, k, None, k + 1:]
        diag = a[:, np.arange(n), np.arange(n)]
        absd = np.abs(diag)
        head = n - n % 8
        logs = np.empty_like(absd)
        if head:
            logs[:, :head] = eigen_float32._packet_log(absd[:, :head].reshape(-1)).reshape(
                len(a), head)
        if head < n:
            logs[:, head:] = eigen_float32._logf(absd[:, head:].reshape(-1)).reshape(
                len(a), n - head)
        if head:
            packet = logs[:, :8] + logs[:, 8:16] if head == 16 else logs[:, :8]
            lanes = packet[:, :4] + packet[:, 4:]
            total = (lanes[:, 0] + lanes[:, 2]) + (lanes[:, 1] + lanes[:, 3])
        elif n:
            total = logs[:, 0].copy()
        else:
            total = np.zeros(len(a), np.float32)
        for j in range(max(head, 1), n):
            total += logs[:, j]
        sign = np.where(swaps % 2, np.float32(-1), np.float32(1))
        sign = sign * np.prod(diag / absd, axis=1, dtype=np.float32) if n else sign
    return sign.reshape(x.shape[:-2]), total.reshape(x.shape[:-2])


def tf_slogdet(x):
    """``(sign, log|det|)`` as TF 1.15's SLogDet: a log|det| that is not finite gives sign 0
    and -inf (+inf where it overflowed)."""
    if x.dtype == np.float32 and 0 < x.shape[-1] <= _EIGEN_UNBLOCKED_LU:
        sign, logabs = _eigen_slogdet_float32(x)
        bad = ~np.isfinite(logabs)
        if bad.any():
            sign = np.where(bad, np.float32(0), sign)
            logabs = np.where(bad, np.where(logabs > 0, np.float32(np.inf),
                                            np.float32(-np.inf)), logabs)
        return sign, logabs
    with np.errstate(all="ignore"):
        sign, logabs = np.linalg.slogdet(_wide(x))
    bad = ~np.isfinite(logabs)
    if bad.any():
        sign = np.where(bad, 0, sign)
        logabs = np.where(bad, np.where(logabs > 0, np.inf, -np.inf), logabs)
    return sign, logabs


def _matrix_inverse(x, *, adjoint):
    _check_square(x)
    _check_no_nan(x, "Input is not invertible.")
    try:
        out = np.linalg.inv(_wide(x))
    except np.linalg.LinAlgError:
        _fail("Input is not invertible.")
    if adjoint:
        out = _adjoint(out)
    return out.astype(x.dtype, copy=False)


def _matrix_determinant(x):
    _check_square(x)
    if x.dtype == np.float32 and 0 < x.shape[-1] <= _EIGEN_UNBLOCKED_LU:
        # TF 1.15: sign * exp(log|det|) from its float LU (glibc's expf)
        from tideflow.ops import eigen_float32

        sign, logabs = tf_slogdet(x)
        with np.errstate(all="ignore"):
            det = sign.reshape(-1) * eigen_float32._expf(logabs.reshape(-1))
        return det.astype(np.float32, copy=False).reshape(sign.shape)
    with np.errstate(all="ignore"):
        det = np.asarray(np.linalg.det(_wide(x)))
        bad = ~np.isfinite(det)
        if bad.any():  # TF 1.15's sign * exp(log|det|) there (0 for NaN, NaN for inf)
            sign, logabs = tf_slogdet(x)
            det = np.where(bad, sign * np.exp(logabs), det)
    return np.asarray(det).astype(x.dtype, copy=False)


def _cholesky(x):
    _check_square(x)
    try:
        out = np.linalg.cholesky(_wide(x))
    except np.linalg.LinAlgError:
        _fail("Cholesky decomposition was not successful. The input might not be valid.")
    return out.astype(x.dtype, copy=False)


def _matrix_solve(matrix, rhs, *, adjoint):
    _check_square(matrix, "First input (lhs) must be a square matrix.", rhs)
    _check_no_nan(matrix, "Input matrix is not invertible.")
    a = _wide(matrix)
    if adjoint:
        a = _adjoint(a)
    try:
        out = np.linalg.solve(a, _wide(rhs))
    except np.linalg.LinAlgError:
        _fail("Input matrix is not invertible.")
    return out.astype(matrix.dtype, copy=False)


def _square_shape(op):
    s = _rank_at_least(op._inputs[0]._shape, 2)
    if s.ndims is not None:
        d = _merge_dim(s.dims[-2], s.dims[-1])
        s = TensorShape(s.dims[:-2] + [d, d])
    return s


def _determinant_shape(op):
    s = _rank_at_least(op._inputs[0]._shape, 2)
    if s.ndims is None:
        return [unknown_shape()]
    _merge_dim(s.dims[-1], s.dims[-2])  # (TF merges the columns with the rows here)
    return [TensorShape(s.dims[:-2])]


def _solve_shape(op):
    m = _square_shape(op)
    r = _rank_at_least(op._inputs[1]._shape, 2)
    if m.ndims is None or r.ndims is None:
        return [unknown_shape() if r.ndims is None else r]
    if m.ndims != r.ndims:  # TF merges the batch shapes: their ranks are the ones named
        raise ValueError(f"Shapes must be equal rank, but are {m.ndims - 2} and "
                         f"{r.ndims - 2}")
    batch = [_merge_dim(a, b) for a, b in zip(m.dims[:-2], r.dims[:-2])]
    _merge_dim(m.dims[-1], r.dims[-2])
    return [TensorShape(batch + [m.dims[-1], r.dims[-1]])]


def _matrix_inverse_grad(op, grad):
    # TF 1.15's formula, which ignores the adjoint attribute: with adjoint=True its gradient
    # is the adjoint of the true one, and programs see that gradient
    inv = op.outputs[0]
    return -matmul(inv, matmul(grad, inv, adjoint_b=True), adjoint_a=True)


def _per_matrix(g, c):
    """``g`` reshaped to ``shape(c) + [1, 1]`` through a concat, as TF 1.15's determinant
    gradients scale each matrix (Shape, concat/values_1, concat/axis, concat, Reshape)."""
    from tideflow.ops import array_ops
    from tideflow.ops.concat_ops import concat

    return array_ops.reshape(g, concat([array_ops.shape(c), [1, 1]], 0))


def _matrix_determinant_grad(op, grad):
    a_adj_inv = matrix_inverse(op.inputs[0], adjoint=True)
    return _per_matrix(grad * op.outputs[0], op.outputs[0]) * a_adj_inv


def _cholesky_grad(op, grad):
    # TF 1.15's formula (Murray 2016) and ops: A_bar = sym(L^-H Phi(L^H L_bar) L^-1), where
    # Phi keeps the lower triangle with the diagonal halved; L^-1 by a triangular solve
    # against the identity
    from tideflow.ops import array_ops, linalg_extra_ops, matrix_diag_ops, range_ops

    chol = op.outputs[0]
    num_rows = array_ops.shape(chol)[-1]
    batch_shape = array_ops.shape(chol)[:-2]
    chol_inv = linalg_extra_ops.matrix_triangular_solve(
        chol, range_ops.eye(num_rows, batch_shape=batch_shape, dtype=chol.dtype))
    middle = matmul(chol, grad, adjoint_a=True)
    middle = matrix_diag_ops.matrix_set_diag(middle,
                                             0.5 * matrix_diag_ops.matrix_diag_part(middle))
    middle = range_ops.matrix_band_part(middle, -1, 0)
    g = matmul(matmul(chol_inv, middle, adjoint_a=True), chol_inv)
    g += linalg_extra_ops.adjoint(g)
    return g * 0.5


def _matrix_solve_grad(op, grad):
    a, adjoint, c = op.inputs[0], op.get_attr("adjoint"), op.outputs[0]
    grad_b = matrix_solve(a, grad, adjoint=not adjoint)
    if adjoint:
        return -matmul(c, grad_b, adjoint_b=True), grad_b
    return -matmul(grad_b, c, adjoint_b=True), grad_b


op_registry.declare("MatrixInverse", inputs=["input: T"], outputs=["output: T"],
                    attrs=["adjoint: bool = False", _LINALG_TYPES],
                    shape=lambda op: [_square_shape(op)], kernel=_matrix_inverse,
                    grad=_matrix_inverse_grad)
op_registry.declare("MatrixDeterminant", inputs=["input: T"], outputs=["output: T"],
                    attrs=["T: {half, float, double, complex64, complex128}"],
                    shape=_determinant_shape, kernel=_matrix_determinant,
                    grad=_matrix_determinant_grad)
op_registry.declare("Cholesky", inputs=["input: T"], outputs=["output: T"],
                    attrs=[_LINALG_TYPES], shape=lambda op: [_square_shape(op)],
                    kernel=_cholesky, grad=_cholesky_grad)
op_registry.declare("MatrixSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
                    attrs=["adjoint: bool = False", _LINALG_TYPES],
                    shape=_solve_shape, kernel=_matrix_solve, grad=_matrix_solve_grad)


# ------------------------------------------------------------------------------------------
# public API
# ------------------------------------------------------------------------------------------


def _apply(op_type, inputs, name, attrs=None):
    return ops.apply_op(op_type, inputs, attrs, name=name)._outputs[0]


_MIXED_SPARSE_MATMUL = {dtypes.float32, dtypes.bfloat16}


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """The matrix product a @ b; inputs of rank > 2 (or unknown) multiply batches of matrices."""
    from tideflow.ops.math_ops import conj

    if getattr(a, "_is_linear_operator", False) or getattr(b, "_is_linear_operator", False):
        return _operator_matmul(a, b, transpose_a or adjoint_a, transpose_b or adjoint_b, name)
    with ops.name_scope(name, "MatMul", [a, b]) as scope:
        if transpose_a and adjoint_a:
            raise ValueError("Only one of transpose_a and adjoint_a can be True.")
        if transpose_b and adjoint_b:
            raise ValueError("Only one of transpose_b and adjoint_b can be True.")
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b")
        ra, rb = a.get_shape().ndims, b.get_shape().ndims
        if ra is None or ra > 2 or rb is None or rb > 2:
            # BatchMatMul knows only adjoints; conj is a no-op on real matrices
            if transpose_a:
                a, adjoint_a = conj(a), True
            if transpose_b:
                b, adjoint_b = conj(b), True
            return _apply("BatchMatMulV2", [a, b], scope,
                          {"adj_x": bool(adjoint_a), "adj_y": bool(adjoint_b)})
        if adjoint_a:
            a, transpose_a = conj(a), True
        if adjoint_b:
            b, transpose_b = conj(b), True
        if a.dtype != b.dtype and {a.dtype, b.dtype} == _MIXED_SPARSE_MATMUL:
            # as TF: a float32 x bfloat16 product is SparseMatMul's, whose result is float32
            from tideflow.ops.cast_ops import cast

            a, b = cast(a, dtypes.float32), cast(b, dtypes.float32)
        return _apply("MatMul", [a, b], scope,
                      {"transpose_a": bool(transpose_a), "transpose_b": bool(transpose_b)})


def _operator_matmul(a, b, adj_a, adj_b, name):
    """``tf.matmul`` with a LinearOperator operand (TF dispatches to the operator): the
    operator's matmul, or for ``tensor @ operator`` the adjoint of ``B^H @ a^H``. A transpose
    flag is taken as the adjoint (the same for real operators)."""
    from tideflow.ops import linalg_extra_ops

    if getattr(a, "_is_linear_operator", False):
        return a.matmul(b, adjoint=adj_a, adjoint_arg=adj_b, name=name or "matmul")
    out = b.matmul(a, adjoint=not adj_b, adjoint_arg=not adj_a, name=name or "matmul")
    return linalg_extra_ops.adjoint(out)


def batch_matmul(x, y, adj_x=None, adj_y=None, name=None):
    """Batched matrix product with the 0.x signature (op BatchMatMul)."""
    return _apply("BatchMatMul", [x, y], name, {"adj_x": bool(adj_x), "adj_y": bool(adj_y)})


def einsum(equation, *inputs, **kwargs):
    """Tensor contraction by Einstein summation, e.g. ``einsum('ij,jk->ik', a, b)``, built as
    TF 1.15 builds it: pairwise contractions as transposes, reshapes and a MatMul (or
    BatchMatMulV2, or a broadcast Mul when nothing is summed), a Sum for labels left out of the
    output and a final transpose, under an ``einsum`` name scope; so a program's op names and
    counts (and the seeds of its later random ops) are TF 1.15's. A label repeated within an
    input is refused (but ``'ii'``, a trace); one summed over three or more inputs takes the
    broadcast-and-sum form."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"invalid keyword arguments for this function: "
                        f"{', '.join(sorted(kwargs))}")
    from tideflow.ops import reduction_ops
    from tideflow.ops.matrix_diag_ops import trace

    with ops.name_scope(name, "einsum", []):
        # TF 1.15 reads each input's get_shape() before converting any: a list or an array
        # fails with Python's own AttributeError
        _ = [t.get_shape for t in inputs]
        inputs = [t if isinstance(t, ops.Tensor) else ops.convert_to_tensor(t) for t in inputs]
        in_labels, out_labels = _einsum_labels(equation, [t.get_shape() for t in inputs])
        labels = set("".join(in_labels) + out_labels)
        for a in labels:
            for lab in in_labels:
                if (len(in_labels) == 1 and lab.count(a) == 2 and lab == lab[::-1]
                        and "->" not in equation):
                    return trace(inputs[0])
                if lab.count(a) > 1:
                    raise ValueError(
                        f"Subscript not supported: an axis appears more than once: {lab}")
        for a in labels:
            if sum(a in lab for lab in in_labels) > 2 and a not in out_labels:
                from tideflow import logging

                logging.warn("Falling back to exponential-space implementation of einsum() "
                             f'because index "{a}" is summed over more than two inputs.')
                return _einsum_broadcast_sum(inputs, in_labels, out_labels)
        temp, temp_labels = inputs[0], in_labels[0]
        for t, lab in zip(inputs[1:], in_labels[1:]):
            summed = set(temp_labels) & set(lab) - set(out_labels)
            temp, temp_labels = _einsum_pair(temp, temp_labels, t, lab, summed)
        if set(temp_labels) - set(out_labels):
            axis = [i for i, a in enumerate(temp_labels) if a not in out_labels]
            temp = reduction_ops.reduce_sum(temp, axis=axis)
            temp_labels = "".join(a for a in temp_labels if a in out_labels)
        if sorted(temp_labels) != sorted(out_labels):
            raise ValueError(f"Invalid equation: {equation}")
        return _einsum_transpose(temp, [temp_labels.index(a) for a in out_labels])


def _einsum_labels(equation, shapes):
    """(each input's axis labels, the output's), with ``...`` resolved to unused letters
    (from the end of the alphabet) and a missing output the labels seen once, sorted."""
    import re
    import string

    equation = equation.replace(" ", "")
    match = re.match(r"^([a-zA-Z,.]+)(->[a-zA-Z.]*)?$", equation)
    if not match:
        raise ValueError(f"Indices have incorrect format: {equation}")
    in_labels = match.group(1).split(",")
    out_labels = match.group(2)[2:] if match.group(2) else None
    if len(shapes) != len(in_labels):
        raise ValueError(f'Got {len(shapes)} arguments for equation "{equation}", expecting '
                         f"{len(in_labels)}")
    ellipsis = ""
    if "..." in equation:
        unused = "".join(c for c in string.ascii_letters if c not in "".join(in_labels))
        for i, lab in enumerate(in_labels):
            if "..." not in lab:
                continue
            parts = lab.split("...")
            if len(parts) != 2:
                raise ValueError("Unable to resolve ellipsis. Excess number found.")
            if shapes[i].ndims is None:
                raise ValueError("Unable to statically infer ellipsis axes.")
            n = shapes[i].ndims - len("".join(parts))
            if n < 0:
                raise ValueError("Ellipses lengths do not match.")
            if len(unused) < n:
                raise ValueError("Unable to resolve ellipsis, too many distinct labels.")
            fill = unused[-n:] if n > 0 else ""
            in_labels[i] = lab.replace("...", fill)
            if len(fill) > len(ellipsis):
                ellipsis = fill
        if any("." in lab for lab in in_labels):
            raise ValueError('period "." found outside of ellipsis')
        if out_labels is not None:
            out_labels = out_labels.replace("...", ellipsis)
            if "." in out_labels:
                raise ValueError('period "." found outside of ellipsis')
    if out_labels is None:
        seen = set("".join(in_labels)) - set(ellipsis)
        counts = dict.fromkeys(seen, 0)
        for lab in in_labels:
            for a in lab:
                if a not in ellipsis:
                    counts[a] += 1
        out_labels = ellipsis + "".join(sorted(a for a in seen if counts[a] == 1))
    return in_labels, out_labels


def _einsum_transpose(t, perm):
    from tideflow.ops import array_ops

    return t if perm == list(range(len(perm))) else array_ops.transpose(t, perm=perm)


def _einsum_reshape(t, shape):
    """``reshape`` unless ``t`` has that static shape already (a tensor in ``shape`` always
    reshapes, the list packed as TF packs it)."""
    from tideflow.ops import array_ops

    shape = tuple(-1 if d is None else d for d in shape)
    cur = tuple(d.value for d in t.get_shape().dims)
    if len(shape) == len(cur) and all(
            not isinstance(b, ops.Tensor) and (a == b or b == -1) for a, b in zip(cur, shape)):
        return t
    return array_ops.reshape(t, shape)


def _einsum_dims(t):
    """t's static dims, each unknown one read from one Shape of t (a slice of it)."""
    from tideflow.ops import array_ops

    dims = t.get_shape().as_list()
    unknown = [i for i, d in enumerate(dims) if d is None]
    if unknown:
        whole = array_ops.shape(t)
        for i in unknown:
            dims[i] = whole[i]
    return dims


def _einsum_size(dims):
    size = 1
    for d in dims:
        size *= d  # a tensor among them makes the product a tensor (TF's Mul ops)
    return size


def _einsum_pair(t0, lab0, t1, lab1, summed):
    """The contraction of two operands over the labels ``summed``: (result, its labels)."""
    from tideflow.ops import array_ops, math_ops

    for t, lab, which in ((t0, lab0, "t0"), (t1, lab1, "t1")):
        if len(lab) != len(t.get_shape()):
            raise ValueError(f"Tensor {which} of rank {len(t.get_shape())} does not match "
                             f"einsum reduction of length {len(lab)}")
    kept = (set(lab0) & set(lab1)) - summed
    spread = [set(lab0) - kept - summed, set(lab1) - kept - summed]

    def order(i, a):
        if a in kept:
            return (-1, a)
        if (i == 0 and a in spread[0]) or (i == 1 and a in summed):
            return (0, a)
        return (1, a)

    sorted_labels = [sorted(lab, key=lambda a, i=i: order(i, a))
                     for i, lab in enumerate((lab0, lab1))]
    t0 = _einsum_transpose(t0, [lab0.find(a) for a in sorted_labels[0]])
    t1 = _einsum_transpose(t1, [lab1.find(a) for a in sorted_labels[1]])
    nk = len(kept)
    if not summed:
        for _ in spread[1]:
            t0 = array_ops.expand_dims(t0, -1)
        for _ in spread[0]:
            t1 = array_ops.expand_dims(t1, nk)
        product = math_ops.multiply(t0, t1)
        return product, "".join(sorted_labels[0] + sorted_labels[1][nk:])
    ns = len(summed)
    dims0 = _einsum_dims(t0)
    rows = _einsum_size(dims0[nk:-ns])
    inner = _einsum_size(dims0[-ns:])
    t0 = _einsum_reshape(t0, dims0[:nk] + [rows, inner])
    dims1 = _einsum_dims(t1)
    cols = _einsum_size(dims1[nk + ns:])
    t1 = _einsum_reshape(t1, dims1[:nk] + [inner, cols])
    product = matmul(t0, t1)
    n0, n1 = len(spread[0]), len(spread[1])
    product = _einsum_reshape(product, dims0[:nk + n0] + dims1[len(dims1) - n1:])
    out = sorted_labels[0][:nk + n0] + sorted_labels[1][len(sorted_labels[1]) - n1:]
    return product, "".join(out)


def _einsum_broadcast_sum(inputs, in_labels, out_labels):
    """TF 1.15's fallback for a label summed over three or more inputs: every input
    transposed and reshaped onto all the labels (summed ones first), multiplied, summed."""
    from tideflow.ops import array_ops, reduction_ops

    inputs, in_labels = list(inputs), list(in_labels)
    every = set("".join(in_labels) + out_labels)
    missing = set(out_labels) - every
    if missing:
        raise ValueError(f"Unknown output axes: {missing}")
    rank = {}
    for a in "".join(sorted(every)):
        if a not in out_labels:
            rank[a] = len(rank)
    for a in out_labels:
        rank[a] = len(rank)
    for i, (t, lab) in enumerate(zip(inputs, in_labels)):
        if t.get_shape().ndims != len(lab):
            raise ValueError(f"Input {i} with axes {lab} has incorrect number of dimensions "
                             f"(expected {len(lab)}, got {t.get_shape().ndims})")
        ordered = sorted(lab, key=rank.get)
        if len(set(lab)) != len(lab):
            raise ValueError(f"Subscript not supported: an axis appears more than once: {lab}")
        if list(lab) != ordered:
            inputs[i] = array_ops.transpose(t, [lab.find(a) for a in ordered])
            in_labels[i] = ordered
    summed_at = []
    shapes = [[d if d else -1 for d in t.get_shape().as_list()] for t in inputs]
    for j, a in enumerate(sorted(every, key=rank.get)):
        sizes = []
        for i, lab in enumerate(in_labels):
            if a not in lab:
                shapes[i].insert(j, 1)
            elif isinstance(shapes[i][j], int) and shapes[i][j] > 1:
                sizes.append(shapes[i][j])
        if len(set(sizes)) > 1:
            raise ValueError(f"Dimension mismatch on axis: {a}")
        if a not in out_labels:
            summed_at.append(j)
    expanded = [array_ops.reshape(t, shape) for t, shape in zip(inputs, shapes)]
    product = 1
    for t in expanded:
        product *= t
    return reduction_ops.reduce_sum(product, summed_at)


def _tensordot_axes(axes, rank_a, rank_b, a=None, b=None):
    """The contraction axes of a and b: lists when known, else int32 tensors (``axes`` a
    tensor whose value is fed, or an integer with an input of unknown rank); the errors are
    TF 1.15's words."""
    if isinstance(axes, ops.Tensor):
        value = ops.constant_value(axes)
        if value is None:
            from tideflow.ops import math_ops

            axes = math_ops._cast(axes, dtypes.int32)
            return axes[0], axes[1]  # as TF: a [2, k] tensor of (a axes, b axes)
        axes = value
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError("'axes' must be an integer or have length 2.")
        a_axes, b_axes = axes
        if isinstance(a_axes, ops.Tensor) or isinstance(b_axes, ops.Tensor):
            return a_axes, b_axes
        a_axes = [int(a_axes)] if np.ndim(a_axes) == 0 else [int(i) for i in a_axes]
        b_axes = [int(b_axes)] if np.ndim(b_axes) == 0 else [int(i) for i in b_axes]
        if len(a_axes) != len(b_axes):
            raise ValueError(f"Different number of contraction axes 'a' and 'b', "
                             f"{len(a_axes)} != {len(b_axes)}.")
        if rank_a is None or rank_b is None:
            return a_axes, b_axes
        return [i % rank_a for i in a_axes], [i % rank_b for i in b_axes]
    if np.ndim(axes) == 0 and (rank_a is None or rank_b is None):

        n = int(axes)
        if n < 0:
            raise ValueError("'axes' must be at least 0.")
        for rank, which in ((rank_a, a), (rank_b, b)):
            if rank is not None and n > rank:
                raise ValueError(f"'axes' must not be larger than the number of dimensions of "
                                 f"tensor {which}.")
        return "last", n  # resolved against a's dynamic rank by the caller
    if np.ndim(axes) == 0:
        n = int(axes)
        if n < 0:
            raise ValueError("'axes' must be at least 0.")
        if n > rank_a or n > rank_b:
            raise ValueError(f"'axes' must not be larger than the number of dimensions of "
                             f"tensor {a if n > rank_a else b}.")
        return list(range(rank_a - n, rank_a)), list(range(n))
    axes = list(axes) if not isinstance(axes, np.ndarray) else axes.tolist()
    if len(axes) != 2:
        raise ValueError("'axes' must be an integer or have length 2.")
    a_axes, b_axes = ([int(v)] if np.ndim(v) == 0 else [int(i) for i in v] for v in axes)
    if len(a_axes) != len(b_axes):
        raise ValueError(f"Different number of contraction axes 'a' and 'b', {len(a_axes)} != "
                         f"{len(b_axes)}.")
    return [i % rank_a for i in a_axes], [i % rank_b for i in b_axes]


def _tensordot_reshape_dynamic(a, axes, flipped=False):
    """``_tensordot_reshape`` for an input of unknown rank or axes known only when the graph
    runs: the free dimensions are those not in ``axes``, found from a's dynamic rank."""
    from tideflow.ops import (
        array_ops,
        concat_ops,
        counting_ops,
        gather_ops,
        math_ops,
        range_ops,
        reduction_ops,
    )

    rank = array_ops.rank(a)
    axes = math_ops._cast(ops.convert_to_tensor(axes, name="axes"), dtypes.int32)
    axes = math_ops.floormod(array_ops.reshape(axes, [-1]), rank)
    free, _ = counting_ops.setdiff1d(range_ops.range(rank), axes)
    dyn = array_ops.shape(a)
    free_dims = gather_ops.gather(dyn, free)
    prod_free = reduction_ops.reduce_prod(free_dims)
    prod_axes = reduction_ops.reduce_prod(gather_ops.gather(dyn, axes))
    if flipped:
        perm, new_shape = concat_ops.concat([axes, free], 0), [prod_axes, prod_free]
    else:
        perm, new_shape = concat_ops.concat([free, axes], 0), [prod_free, prod_axes]
    reshaped = array_ops.reshape(array_ops.transpose(a, perm), array_ops.stack(new_shape))
    return reshaped, free_dims


def _tensordot_reshape(a, axes, flipped=False):
    """``a`` transposed and reshaped to a matrix with the contracted ``axes`` on one side (the
    rows when ``flipped``); built from TF's ops, so a graph's op count is TF's."""
    from tideflow.ops import array_ops, concat_ops, gather_ops, reduction_ops

    shape_a = a.get_shape().as_list()
    axes = [i if i >= 0 else i + len(shape_a) for i in axes]
    free = [i for i in range(len(shape_a)) if i not in axes]
    free_dims = [shape_a[i] for i in free]
    if a.get_shape().is_fully_defined():
        prod_free = int(np.prod(free_dims))
        prod_axes = int(np.prod([shape_a[i] for i in axes]))
        perm = list(axes) + free if flipped else free + list(axes)
        new_shape = [prod_axes, prod_free] if flipped else [prod_free, prod_axes]
        # as TF 1.15: transposed and reshaped even where that changes nothing (a dense
        # layer's kernel: 'Tensordot/transpose_1', 'Tensordot/Reshape_1')
        a = array_ops.reshape(array_ops.transpose(a, perm), new_shape)
        return a, free_dims, free_dims
    axes_t = ops.convert_to_tensor(axes, dtype=dtypes.int32, name="axes")
    free_t = ops.convert_to_tensor(free, dtype=dtypes.int32, name="free")
    dyn = array_ops.shape(a)
    free_dims_t = gather_ops.gather(dyn, free_t)
    axes_dims_t = gather_ops.gather(dyn, axes_t)
    prod_free = reduction_ops.reduce_prod(free_dims_t)
    prod_axes = reduction_ops.reduce_prod(axes_dims_t)
    if flipped:
        perm = concat_ops.concat([axes_t, free_t], 0)
        new_shape = array_ops.stack([prod_axes, prod_free])
    else:
        perm = concat_ops.concat([free_t, axes_t], 0)
        new_shape = array_ops.stack([prod_free, prod_axes])
    reshaped = array_ops.reshape(array_ops.transpose(a, perm), new_shape)
    return reshaped, free_dims_t, free_dims


def tensordot(a, b, axes, name=None):
    """Sums the products of a and b over the given axes (``axes`` = N or [a_axes, b_axes]):
    a matrix product of reshaped operands, as TF builds it."""
    from tideflow.ops import array_ops, concat_ops

    with ops.name_scope(name, "Tensordot", [a, b, axes]) as scope:
        a = ops.convert_to_tensor(a, name="a")
        b = ops.convert_to_tensor(b, name="b")
        ra, rb = a.get_shape().ndims, b.get_shape().ndims
        a_axes, b_axes = _tensordot_axes(axes, ra, rb, a, b)
        if isinstance(a_axes, str):  # an integer N with an input of unknown rank
            from tideflow.ops import array_ops, range_ops

            n = b_axes
            rank_a = array_ops.rank(a)
            a_axes = range_ops.range(rank_a - n, rank_a)
            b_axes = range_ops.range(n)
        if (ra is None or rb is None or isinstance(a_axes, ops.Tensor)
                or isinstance(b_axes, ops.Tensor)):
            from tideflow.ops import array_ops, concat_ops

            a_mat, a_free = _tensordot_reshape_dynamic(a, a_axes)
            b_mat, b_free = _tensordot_reshape_dynamic(b, b_axes, flipped=True)
            product = matmul(a_mat, b_mat)
            return array_ops.reshape(product, concat_ops.concat([a_free, b_free], 0),
                                     name=scope)
        a_mat, a_free, a_static = _tensordot_reshape(a, a_axes)
        b_mat, b_free, b_static = _tensordot_reshape(b, b_axes, flipped=True)
        product = matmul(a_mat, b_mat)
        if isinstance(a_free, list) and isinstance(b_free, list):
            return array_ops.reshape(product, a_free + b_free, name=scope)
        a_free = ops.convert_to_tensor(a_free, dtype=dtypes.int32)
        b_free = ops.convert_to_tensor(b_free, dtype=dtypes.int32)
        out = array_ops.reshape(product, concat_ops.concat([a_free, b_free], 0), name=scope)
        out.set_shape(a_static + b_static)
        return out


def matrix_inverse(input, adjoint=False, name=None):
    """The inverse of each square matrix in input (of its adjoint when ``adjoint``)."""
    if getattr(input, "_is_linear_operator", False):
        return (input.adjoint() if adjoint else input).inverse()
    return _apply("MatrixInverse", [input], name, {"adjoint": bool(adjoint)})


def matrix_determinant(input, name=None):
    """The determinant of each square matrix in input."""
    if getattr(input, "_is_linear_operator", False):
        return input.determinant(name=name or "det")
    return _apply("MatrixDeterminant", [input], name)


def cholesky(input, name=None):
    """The lower Cholesky factor of each Hermitian positive definite matrix in input."""
    if getattr(input, "_is_linear_operator", False):
        return input.cholesky()
    return _apply("Cholesky", [input], name)


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """X with matrix @ X = rhs (adjoint(matrix) @ X = rhs when ``adjoint``)."""
    if getattr(matrix, "_is_linear_operator", False):
        return matrix.solve(rhs, adjoint=adjoint, name=name or "solve")
    return _apply("MatrixSolve", [matrix, rhs], name, {"adjoint": bool(adjoint)})


def _register_matmul_operator():
    # TF 1.15's `@` converts the other operand as its other binary operators do (x's dtype as
    # a hint, so ``x @ 2`` fails on rank, not on dtype)
    from tideflow.ops.math_ops import _binary_operator

    op, rop = _binary_operator(matmul, "matmul")
    ops.Tensor._override_operator("__matmul__", op)
    ops.Tensor._override_operator("__rmatmul__", rop)


_register_matmul_operator()
