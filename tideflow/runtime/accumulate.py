"""Plan-time running sums: an AddN of many gradients summed as its inputs are computed.

A static RNN's weight gradient is an AddN of one product per time step (``x_t^T @ g_t``, 30 of
them for 30 steps). Run as written, every product stays alive until the last one is computed:
30 buffers of 256x256 floats, 7.5 MB, more than the caches hold, so each product writes to
cold memory (3x slower than one whose buffer is reused) and the AddN then reads them all back.
A plan instead adds each input into the sum right after the op that computes it and frees it
there; the AddN's output is that sum. The values are the same sum in the order the inputs are
computed (floating-point addition in another order: within float rounding of the AddN's).
Only where the held products would be many (``MIN_HELD_BYTES``): a smaller AddN keeps TF's
order (its inputs sorted by name, in blocks of 8: ``grappler.add_n_order``), so a small
static RNN's weight gradients, and the losses it trains to, are TF 1.15's bits.

Only AddNs whose every input is computed in the same plan by a kernel that returns a fresh
array (``FRESH_OUTPUT_OPS``; or an Identity of one, as ``tf.gradients`` groups each op's
gradients), read by nothing else, not fetched, fed or folded, with the
AddN's own fully defined float shape, are summed this way; an AddN with control inputs or a
rewritten kernel, or one in a partition's plan (its tensors may be sent), is left as it is, and
then sums in TF's order (``Replacements.add_n_tf_order``, which grappler fills for the AddNs it
leaves to this module).
"""

import numpy as np

from tideflow.framework import dtypes, errors

# at least this many inputs (with two there is nothing to gain)
MIN_INPUTS = 3
# and this many bytes of inputs held at once when run as written: below about a core's L2
# cache the products stay warm, and TF's order (which a running sum cannot follow: its
# sorted names put the last computed products first) costs nothing
MIN_HELD_BYTES = 1 << 20
# kernels whose output is a new array (never a view of an input or of a variable's buffer)
FRESH_OUTPUT_OPS = frozenset({
    "MatMul", "BatchMatMul", "BatchMatMulV2", "BiasAddGrad", "Conv2DBackpropFilter",
})
_FLOATS = (dtypes.float32, dtypes.float64)


def running_sums(order, last_use, fetch_set, fed, consts, replace):
    """{producer op: [(tensor, AddN op, input index)]} for the AddNs summed as they go."""
    index = {op: i for i, op in enumerate(order)}
    kernels = getattr(replace, "kernels", {})
    out = {}
    for idx, op in enumerate(order):
        if op._type != "AddN" or len(op._inputs) < MIN_INPUTS or op._control_inputs:
            continue
        y = op._outputs[0]
        if (op in kernels or y in fed or y in consts or replace.get(y, y) is not y
                or y._dtype.base_dtype not in _FLOATS or not y._shape.is_fully_defined()):
            continue
        shape = y._shape.as_list()
        if not held_enough(len(op._inputs), shape, y._dtype):
            continue
        plan = []
        seen = set()
        for i, t in enumerate(op._inputs):
            rt = replace.get(t, t)
            p = rt._op
            if (rt is not t or rt in seen or rt in fed or rt in consts or rt in fetch_set
                    or last_use.get(rt) != idx or index.get(p, idx) >= idx
                    or not _fresh(p, index, last_use, fetch_set, fed, consts, replace, kernels)
                    or rt._dtype.base_dtype != y._dtype.base_dtype
                    or not rt._shape.is_fully_defined() or rt._shape.as_list() != shape):
                plan = None
                break
            seen.add(rt)
            plan.append((p, rt, i))
        if plan:
            for p, rt, i in plan:
                out.setdefault(p, []).append((rt, op, i))
    return out


def held_enough(n, shape, dtype):
    """Whether an AddN of ``n`` inputs of ``shape`` would hold enough memory to sum as it goes."""
    size = dtype.base_dtype.size * n
    for d in shape:
        size *= d
    return n >= MIN_INPUTS and size >= MIN_HELD_BYTES


def _fresh(p, index, last_use, fetch_set, fed, consts, replace, kernels):
    """Whether ``p``'s output is a new array nothing else reads: a FRESH_OUTPUT_OPS kernel's,
    or an Identity's of one whose only reader it is (the gradients' tuple of each product)."""
    if p in kernels:
        return False
    if p._type == "Identity" and len(p._inputs) == 1:
        s = replace.get(p._inputs[0], p._inputs[0])
        return (s._op._type in FRESH_OUTPUT_OPS and s._op not in kernels and s not in fed
                and s not in consts and s not in fetch_set
                and last_use.get(s) == index[p] > index.get(s._op, index[p]))
    return p._type in FRESH_OUTPUT_OPS


def _check(a, b, ia, ib):
    if type(a) is not np.ndarray or type(b) is not np.ndarray or a.shape != b.shape:
        sa, sb = np.shape(a), np.shape(b)
        if sa != sb:
            raise errors.InvalidArgumentError(
                None, None,
                f"Inputs to operation AddN must have the same size and shape.  Input {ia}: "
                f"{_dims(sa)} != input {ib}: {_dims(sb)}")


def _dims(shape):
    return "[" + ",".join(str(d) for d in shape) + "]"


def first_two(a, b, ia, ib):
    """The sum of the first two inputs computed (a new array, as AddN's kernel)."""
    _check(a, b, ia, ib)
    return np.asarray(np.add(a, b))


def add_into(acc, b, ia, ib):
    """``acc += b`` (``acc`` is the running sum's own array)."""
    if type(b) is not np.ndarray or b.shape != acc.shape:
        _check(acc, b, ia, ib)
    np.add(acc, b, out=acc)
