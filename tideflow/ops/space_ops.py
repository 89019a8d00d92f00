"""Rearranging spatial blocks: SpaceToDepth/DepthToSpace and SpaceToBatchND/BatchToSpaceND.

``tf.space_to_batch``/``tf.batch_to_space`` (4-D, one block size) are built on the _nd ops
with ``block_shape = [block_size, block_size]``, as TF 1.x does.
"""

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops.array_ops import _in, _invalid, _np, _register_fold, _shape_str
from tideflow.ops.gradients import dense

_FORMAT = "data_format: {'NHWC', 'NCHW'} = 'NHWC'"

# ------------------------------------------------------------------------------------------
# SpaceToDepth / DepthToSpace
# ------------------------------------------------------------------------------------------


def _nhwc_dims(dims, data_format):
    """(batch, height, width, depth) of a 4-D shape list in ``data_format``."""
    if data_format == "NCHW":
        return dims[0], dims[2], dims[3], dims[1]
    return tuple(dims)


def _from_nhwc(b, h, w, c, data_format):
    return [b, c, h, w] if data_format == "NCHW" else [b, h, w, c]


def _mul(a, k):
    return None if a is None else a * k


def _space_to_depth_dims(op_type, dims, bs, data_format, err):
    # (the words of TF 1.15's shape functions, err ValueError, and of its CPU kernels)
    if len(dims) != 4:
        if err is ValueError:
            raise err(f"Shape must be rank 4 but is rank {len(dims)}")
        sep = ":" if op_type == "DepthToSpace" else ""
        raise err(f"Input rank should be{sep} 4 instead of{sep} {len(dims)}")
    b, h, w, c = _nhwc_dims(dims, data_format)
    if op_type == "SpaceToDepth":
        for d in (h, w):
            if d is not None and d % bs and err is ValueError:
                raise err(f"Dimension size must be evenly divisible by {bs} but is {d}")
        if (h is not None and h % bs) or (w is not None and w % bs):
            raise err(f"Image width {w} and height {h} should be divisible by block_size: {bs}")
        return _from_nhwc(b, None if h is None else h // bs, None if w is None else w // bs,
                          _mul(c, bs * bs), data_format)
    if c is not None and c % (bs * bs) and err is ValueError:
        raise err(f"Dimension size must be evenly divisible by {bs * bs} but is {c}")
    if c is not None and c % (bs * bs):
        raise err(f"Input depth dimension {c} should be divisible by: {bs * bs}")
    return _from_nhwc(b, _mul(h, bs), _mul(w, bs), None if c is None else c // (bs * bs),
                      data_format)


def _depth_shape(op):
    x = _in(op, 0)
    if x.ndims is None:
        return [[None] * 4]
    return [_space_to_depth_dims(op.type, x.as_list(), op._attrs["block_size"],
                                 op._attrs["data_format"], ValueError)]


def _space_to_depth_kernel(input, *, block_size, data_format):
    x = _np(input)
    _space_to_depth_dims("SpaceToDepth", list(x.shape), block_size, data_format, _invalid)
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    bs = block_size
    # out[n, i, j, (dy * bs + dx) * c + k] = x[n, i * bs + dy, j * bs + dx, k]
    y = x.reshape(b, h // bs, bs, w // bs, bs, c).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(b, h // bs, w // bs, bs * bs * c)
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if data_format == "NCHW" else y)


def _depth_to_space_kernel(input, *, block_size, data_format):
    x = _np(input)
    _space_to_depth_dims("DepthToSpace", list(x.shape), block_size, data_format, _invalid)
    if data_format == "NCHW":
        x = x.transpose(0, 2, 3, 1)
    b, h, w, c = x.shape
    bs = block_size
    y = x.reshape(b, h, w, bs, bs, c // (bs * bs)).transpose(0, 1, 3, 2, 4, 5)
    y = y.reshape(b, h * bs, w * bs, c // (bs * bs))
    return np.ascontiguousarray(y.transpose(0, 3, 1, 2) if data_format == "NCHW" else y)


def _space_to_depth_grad(op, grad):
    return depth_to_space(dense(grad), op._attrs["block_size"],
                          data_format=op._attrs["data_format"])


def _depth_to_space_grad(op, grad):
    return space_to_depth(dense(grad), op._attrs["block_size"],
                          data_format=op._attrs["data_format"])


for _t, _k, _g in (("SpaceToDepth", _space_to_depth_kernel, _space_to_depth_grad),
                   ("DepthToSpace", _depth_to_space_kernel, _depth_to_space_grad)):
    op_registry.declare(
        _t,
        inputs=["input: T"],
        outputs=["output: T"],
        attrs=["T: type", "block_size: int >= 2", _FORMAT],
        shape=_depth_shape,
        kernel=_k,
        grad=_g,
    )

_register_fold("SpaceToDepth", "DepthToSpace")


def space_to_depth(input, block_size, name=None, data_format="NHWC"):
    """Moves ``block_size x block_size`` spatial blocks of ``input`` into its depth dimension."""
    attrs = {"block_size": int(block_size), "data_format": data_format}
    return ops.apply_op("SpaceToDepth", [input], attrs, name=name)._outputs[0]


def depth_to_space(input, block_size, name=None, data_format="NHWC"):
    """Moves depth of ``input`` into ``block_size x block_size`` spatial blocks."""
    attrs = {"block_size": int(block_size), "data_format": data_format}
    return ops.apply_op("DepthToSpace", [input], attrs, name=name)._outputs[0]


# ------------------------------------------------------------------------------------------
# SpaceToBatchND / BatchToSpaceND
# ------------------------------------------------------------------------------------------


def _check_block(op_type, x_shape, block, pads, what, err):
    """Validates block_shape ([M]) and paddings/crops ([M, 2]) against an input shape (list,
    entries may be None) in TF 1.15's order (the input's rank before the paddings' shape);
    returns them as int lists."""
    block = np.asarray(block)
    pads = np.asarray(pads)
    if block.ndim != 1:
        raise err(f"{op_type}: block_shape must be 1-D, got shape {_shape_str(block.shape)}")
    m = block.shape[0]
    if len(x_shape) < 1 + m:
        if err is ValueError:
            raise err(f"Shape must be at least rank {1 + m} but is rank {len(x_shape)}")
        raise err(f"input rank should be >= {1 + m} instead of {len(x_shape)}")
    if pads.shape != (m, 2):
        if err is ValueError:
            raise err(f"{op_type}: {what} should have shape [{m}, 2] (block_shape has {m} "
                      f"entries), got {_shape_str(pads.shape)}")
        raise err(f"{what} should have shape [{m}, 2] instead of {_shape_str(pads.shape)}")
    block = [int(v) for v in block.tolist()]
    pads = [[int(a), int(b)] for a, b in pads.tolist()]
    return block, pads


def _block_product(block):
    prod = int(np.prod(block)) if block else 1
    if prod <= 0:  # TF 1.15's kernels check the product only
        raise _invalid(f"Product of block sizes must be positive, got {prod}")
    for i, k in enumerate(block):
        if k < 1:
            raise _invalid(f"block_shape[{i}] = {k} must be >= 1")
    return prod


def _s2b_dims(x_shape, block, pads, err):
    """SpaceToBatchND's output dimensions. With err=ValueError, TF 1.15's shape function (block
    or pads may be None, unknown): block by block, then pad by pad, in its words; otherwise its
    kernel's checks and words."""
    m = len(block) if block is not None else len(pads)
    out = [x_shape[0]] + [None] * m + list(x_shape[1 + m:])
    if err is ValueError:
        if block is not None:
            for k in block:
                if k < 1:
                    raise err("block_shape must be positive")
                out[0] = _mul(out[0], k)
        else:
            out[0] = None
        for i, (a, b) in enumerate(pads or ()):
            if a < 0 or b < 0:
                raise err("paddings cannot be negative")
            d = x_shape[1 + i]
            if block is None or d is None:
                continue
            if (d + a + b) % block[i]:
                raise err(f"Dimension size must be evenly divisible by {block[i]} but is "
                          f"{d + a + b}")
            out[1 + i] = (d + a + b) // block[i]
        return out
    out[0] *= _block_product(block)
    for i, (k, (a, b)) in enumerate(zip(block, pads)):
        if a < 0 or b < 0:
            raise err("Paddings must be non-negative")
        p = x_shape[1 + i] + a + b
        if p % k:
            raise err(f"padded_shape[{i}]={p} is not divisible by block_shape[{i}]={k}")
        out[1 + i] = p // k
    return out


def _b2s_dims(x_shape, block, crops, err):
    """BatchToSpaceND's output dimensions; err as for _s2b_dims."""
    m = len(block) if block is not None else len(crops)
    out = [x_shape[0]] + [None] * m + list(x_shape[1 + m:])
    if err is ValueError:
        if block is not None:
            for k in block:
                if k < 1:
                    raise err("block_shape must be positive")
                if out[0] is not None:
                    if out[0] % k:
                        raise err(f"Dimension size must be evenly divisible by {k} but is "
                                  f"{out[0]}")
                    out[0] //= k
        else:
            out[0] = None
        for i, (a, b) in enumerate(crops or ()):
            if a < 0 or b < 0:
                raise err("crops cannot be negative")
            d = x_shape[1 + i]
            if block is None or d is None:
                continue
            c = d * block[i]
            for v in (a, b):  # TF subtracts the two crops one after the other
                if c < v:
                    raise err(f"Negative dimension size caused by subtracting {v} from {c}")
                c -= v
            out[1 + i] = c
        return out
    prod = _block_product(block)
    if out[0] % prod:
        raise err(f"Input batch dimension ({out[0]}) is not divisible by product of block "
                  f"sizes ({prod})")
    out[0] //= prod
    for i, (k, (a, b)) in enumerate(zip(block, crops)):
        if a < 0 or b < 0:
            raise err("Crops must be non-negative")
        c = x_shape[1 + i] * k - a - b
        if c < 0:
            raise err(f"cropped_shape[{i}]={c} must be non-negative")
        out[1 + i] = c
    return out


def _nd_shape(op):
    x = _in(op, 0)
    bsh, psh = _in(op, 1), _in(op, 2)
    what = "paddings" if op.type == "SpaceToBatchND" else "crops"
    if bsh.ndims is not None and bsh.ndims != 1:
        raise ValueError(f"{op.type}: block_shape must be 1-D, got shape {_shape_str(bsh)}")
    if psh.ndims is not None and psh.ndims != 2:
        raise ValueError(f"{op.type}: {what} must be 2-D, got shape {_shape_str(psh)}")
    block = ops.constant_value(op._inputs[1])
    pads = ops.constant_value(op._inputs[2])
    m = bsh.as_list()[0] if bsh.ndims == 1 else None
    if m is None and block is not None:
        m = int(np.size(block))
    if m is None:
        return [None]
    if x.ndims is not None and x.ndims < 1 + m:
        raise ValueError(f"Shape must be at least rank {1 + m} but is rank {x.ndims}")
    if pads is not None and np.shape(pads) != (m, 2):
        raise ValueError(f"{op.type}: {what} should have shape [{m}, 2] (block_shape has {m} "
                         f"entries), got {_shape_str(np.shape(pads))}")
    xs = x.as_list() if x.ndims is not None else [None] * (1 + m)
    block = None if block is None else [int(v) for v in np.reshape(block, -1).tolist()]
    pads = None if pads is None else [[int(a), int(b)] for a, b in np.reshape(pads, (m, 2))]
    dims_fn = _s2b_dims if op.type == "SpaceToBatchND" else _b2s_dims
    if block is None and pads is None:
        dims = [None] * (1 + m) + xs[1 + m:]
    else:
        dims = dims_fn(xs, block, pads, ValueError)
    return [dims if x.ndims is not None else None]


def _space_to_batch_nd_kernel(input, block_shape, paddings):
    x = _np(input)
    block, pads = _check_block("SpaceToBatchND", list(x.shape), block_shape, paddings,
                               "paddings", _invalid)
    out_dims = _s2b_dims(list(x.shape), block, pads, _invalid)
    m = len(block)
    if any(a or b for a, b in pads):
        x = np.pad(x, [(0, 0)] + [tuple(p) for p in pads] + [(0, 0)] * (x.ndim - 1 - m))
    n = x.shape[0]
    rest = list(x.shape[1 + m:])
    # [n, s1, k1, ..., sM, kM, rest] -> [k1, ..., kM, n, s1, ..., sM, rest]
    split = [n]
    for i, k in enumerate(block):
        split += [x.shape[1 + i] // k, k]
    y = x.reshape(split + rest)
    perm = ([2 + 2 * i for i in range(m)] + [0] + [1 + 2 * i for i in range(m)]
            + list(range(1 + 2 * m, 1 + 2 * m + len(rest))))
    return np.ascontiguousarray(y.transpose(perm).reshape(out_dims))


def _batch_to_space_nd_kernel(input, block_shape, crops):
    x = _np(input)
    block, crops = _check_block("BatchToSpaceND", list(x.shape), block_shape, crops, "crops",
                                _invalid)
    out_dims = _b2s_dims(list(x.shape), block, crops, _invalid)
    m = len(block)
    n = out_dims[0]
    spatial = list(x.shape[1:1 + m])
    rest = list(x.shape[1 + m:])
    # [k1, ..., kM, n, s1, ..., sM, rest] -> [n, s1, k1, ..., sM, kM, rest]
    y = x.reshape(block + [n] + spatial + rest)
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(1 + 2 * m, 1 + 2 * m + len(rest)))
    y = y.transpose(perm).reshape([n] + [s * k for s, k in zip(spatial, block)] + rest)
    idx = (slice(None),) + tuple(slice(a, s * k - b) for (a, b), s, k in
                                 zip(crops, spatial, block))
    return np.ascontiguousarray(y[idx])


def _space_to_batch_nd_grad(op, grad):
    return [batch_to_space_nd(dense(grad), op._inputs[1], op._inputs[2]), None, None]


def _batch_to_space_nd_grad(op, grad):
    return [space_to_batch_nd(dense(grad), op._inputs[1], op._inputs[2]), None, None]


op_registry.declare(
    "SpaceToBatchND",
    inputs=["input: T", "block_shape: Tblock_shape", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32",
           "Tpaddings: {int32, int64} = DT_INT32"],
    shape=_nd_shape,
    kernel=_space_to_batch_nd_kernel,
    grad=_space_to_batch_nd_grad,
)
op_registry.declare(
    "BatchToSpaceND",
    inputs=["input: T", "block_shape: Tblock_shape", "crops: Tcrops"],
    outputs=["output: T"],
    attrs=["T: type", "Tblock_shape: {int32, int64} = DT_INT32",
           "Tcrops: {int32, int64} = DT_INT32"],
    shape=_nd_shape,
    kernel=_batch_to_space_nd_kernel,
    grad=_batch_to_space_nd_grad,
)

_register_fold("SpaceToBatchND", "BatchToSpaceND")


def space_to_batch_nd(input, block_shape, paddings, name=None):
    """Zero-pads the spatial dimensions of ``input`` by ``paddings`` and moves
    ``block_shape`` blocks of them into the batch dimension."""
    return ops.apply_op("SpaceToBatchND", [input, block_shape, paddings],
                        name=name)._outputs[0]


def batch_to_space_nd(input, block_shape, crops, name=None):
    """Moves ``block_shape`` blocks of the batch dimension of ``input`` back into its
    spatial dimensions, then crops them by ``crops``."""
    return ops.apply_op("BatchToSpaceND", [input, block_shape, crops], name=name)._outputs[0]


# The legacy 4-D ops (one block_size attr); TF 1.x's Python builds on the _nd ops, but graphs
# may still hold these.


def _legacy_shape(op):
    x = _in(op, 0)
    if x.ndims is not None and x.ndims != 4:
        raise ValueError(f"{op.type}: input must be 4-D, got shape {_shape_str(x)}")
    psh = _in(op, 1)
    if psh.ndims is not None and psh.as_list() not in ([2, 2], [None, 2], [2, None],
                                                       [None, None]):
        raise ValueError(f"{op.type}: {op._op_def.inputs[1].name} must have shape [2, 2], got "
                         f"{_shape_str(psh)}")
    if x.ndims is None:
        return [[None] * 4]
    pads = ops.constant_value(op._inputs[1])
    nd = "SpaceToBatchND" if op.type == "SpaceToBatch" else "BatchToSpaceND"
    if pads is None:
        return [[None, None, None, x.as_list()[3]]]
    bs = op._attrs["block_size"]
    block, pads = _check_block(nd, x.as_list(), [bs, bs], pads,
                               "paddings" if nd == "SpaceToBatchND" else "crops", ValueError)
    dims_fn = _s2b_dims if nd == "SpaceToBatchND" else _b2s_dims
    return [dims_fn(x.as_list(), block, pads, ValueError)]


def _legacy_rank4(x, op_type):
    x = _np(x)
    if x.ndim != 4:
        raise _invalid(f"{op_type}: input must be 4-D, got shape {_shape_str(x.shape)}")
    return x


def _space_to_batch_kernel(input, paddings, *, block_size):
    x = _legacy_rank4(input, "SpaceToBatch")
    return _space_to_batch_nd_kernel(x, [block_size, block_size], paddings)


def _batch_to_space_kernel(input, crops, *, block_size):
    x = _legacy_rank4(input, "BatchToSpace")
    return _batch_to_space_nd_kernel(x, [block_size, block_size], crops)


def _legacy(op_type, x, pads, block_size):
    return ops.apply_op(op_type, [x, pads], {"block_size": block_size})._outputs[0]


op_registry.declare(
    "SpaceToBatch",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = DT_INT32", "block_size: int >= 2"],
    shape=_legacy_shape,
    kernel=_space_to_batch_kernel,
    grad=lambda op, grad: [_legacy("BatchToSpace", dense(grad), op._inputs[1],
                                   op._attrs["block_size"]), None],
)
op_registry.declare(
    "BatchToSpace",
    inputs=["input: T", "crops: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "block_size: int >= 2", "Tidx: {int32, int64} = DT_INT32"],
    shape=_legacy_shape,
    kernel=_batch_to_space_kernel,
    grad=lambda op, grad: [_legacy("SpaceToBatch", dense(grad), op._inputs[1],
                                   op._attrs["block_size"]), None],
)

_register_fold("SpaceToBatch", "BatchToSpace")


def _with_rank4(t, fn):
    s = t.get_shape()
    if s.ndims is not None and s.ndims != 4:
        raise ValueError(f"{fn}: input must be 4-D, got shape {_shape_str(s)}")
    if s.ndims is None:
        t.set_shape(TensorShape([None] * 4))
    return t


def _block(block_size, block_shape, fn):
    if block_size is not None and block_shape is not None:
        raise ValueError(f"{fn}: cannot specify both 'block_size' and 'block_shape'")
    if block_size is None and block_shape is None:
        raise TypeError(f"{fn}() missing required argument: 'block_size'")
    if block_shape is not None:
        # TF's later spelling of block_size: one int, the size along both spatial axes
        if not isinstance(block_shape, (int, np.integer)):
            return block_shape
        block_size = block_shape
    return np.array([block_size, block_size], np.int64)


def space_to_batch(input, paddings, block_size=None, name=None, block_shape=None):
    """4-D ``space_to_batch_nd`` with ``block_shape = [block_size, block_size]``."""
    out = space_to_batch_nd(input, _block(block_size, block_shape, "space_to_batch"), paddings,
                            name=name)
    return _with_rank4(out, "space_to_batch")


def batch_to_space(input, crops, block_size=None, name=None, block_shape=None):
    """4-D ``batch_to_space_nd`` with ``block_shape = [block_size, block_size]``."""
    out = batch_to_space_nd(input, _block(block_size, block_shape, "batch_to_space"), crops,
                            name=name)
    return _with_rank4(out, "batch_to_space")
