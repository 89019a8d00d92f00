"""Logging ops: ``Assert`` (fails a step when a condition is false) and ``Print`` (to stderr).

Both format tensors as TF's ``Tensor::SummarizeValue`` does: the first ``summarize`` entries,
nested in brackets by dimension, floats in shortest round-tripping ``%g`` form.
"""

import sys
import threading

import numpy as np

from tideflow.framework import errors, op_registry, ops


def _format_float(v, bits):
    digits, more = (6, 9) if bits <= 32 else (15, 17)
    s = f"{v:.{digits}g}"
    cast = np.float32 if bits <= 32 else np.float64
    if cast(s) != cast(v) and not np.isnan(v):
        s = f"{v:.{more}g}"
    return s


def _element_formatter(arr):
    kind = arr.dtype.kind
    if arr.dtype == object:
        return lambda v: _c_escape(v if isinstance(v, bytes) else str(v).encode())
    if kind == "b":
        return lambda v: "1" if v else "0"
    if kind in "iu":
        return lambda v: str(int(v))
    if kind == "f" or (kind == "V" and arr.dtype.itemsize == 2):  # V: ml_dtypes bfloat16
        bits = 64 if arr.dtype == np.float64 else 32
        return lambda v: _format_float(float(v), bits)
    if kind == "c":
        bits = 64 if arr.dtype == np.complex128 else 32
        return lambda v: f"({_format_float(v.real, bits)},{_format_float(v.imag, bits)})"
    return lambda v: "?"


def _c_escape(b):
    out = []
    for c in b:
        if c == 0x0A:
            out.append("\\n")
        elif c == 0x0D:
            out.append("\\r")
        elif c == 0x09:
            out.append("\\t")
        elif c in (0x22, 0x27, 0x5C):
            out.append("\\" + chr(c))
        elif c < 0x20 or c >= 0x7F:
            out.append(f"\\{c:03o}")
        else:
            out.append(chr(c))
    return "".join(out)


def summarize_value(value, max_entries=3):
    """``value`` as TF's ``SummarizeValue(max_entries)`` prints it (negative: every entry)."""
    arr = np.asarray(value)
    n = arr.size
    limit = n if max_entries < 0 else min(max_entries, n)
    fmt = _element_formatter(arr)
    flat = arr.reshape(-1)
    if arr.dtype == object or arr.ndim <= 1:
        # strings (and vectors, scalars) print flat
        out = " ".join(fmt(flat[i]) for i in range(limit))
        return out + ("..." if n > limit else "")
    parts = []
    pos = [0]

    def one_dim(d):
        if pos[0] >= limit:
            return
        count = arr.shape[d]
        if d == arr.ndim - 1:
            for i in range(count):
                if pos[0] >= limit:
                    parts.append("...")
                    return
                if i > 0:
                    parts.append(" ")
                parts.append(fmt(flat[pos[0]]))
                pos[0] += 1
            return
        for _ in range(count):
            opened = pos[0] < limit
            if opened:
                parts.append("[")
            one_dim(d + 1)
            if pos[0] < limit or opened:
                parts.append("]")

    one_dim(0)
    return "".join(parts) + ("..." if n > limit else "")


# ------------------------------------------------------------------------------------------
# Assert
# ------------------------------------------------------------------------------------------


def _assert_kernel(condition, data, *, summarize):
    cond = np.asarray(condition)
    if not (cond.ndim == 0 or cond.shape == (1,)):
        raise errors.InvalidArgumentError(
            None, None, f"In[0] should be a scalar: [{','.join(map(str, cond.shape))}]"
        )
    if cond.reshape(()):
        return
    msg = "assertion failed: " + " ".join(f"[{summarize_value(d, summarize)}]" for d in data)
    raise errors.InvalidArgumentError(None, None, msg)


op_registry.declare(
    "Assert",
    inputs=["condition: bool", "data: T"],
    attrs=["T: list(type)", "summarize: int = 3"],
    shape=lambda op: [],
    kernel=_assert_kernel,
    stateful=True,
    differentiable=False,
)


def Assert(condition, data, summarize=None, name=None):
    """Asserts that ``condition`` is true, else fails the step listing ``data``.

    Returns the Assert Operation; run it (or depend on it) for the check to happen.
    """
    with ops.name_scope(name, "Assert", [condition, data]):
        condition = ops.convert_to_tensor(condition, name="Condition")
        xs = ops.convert_n_to_tensor(data)
        attrs = {} if summarize is None else {"summarize": summarize}
        return ops.apply_op("Assert", [condition, xs], attrs, name="Assert")


# ------------------------------------------------------------------------------------------
# Print
# ------------------------------------------------------------------------------------------


class _CallCounter:
    __slots__ = ("count", "lock")

    def __init__(self):
        self.lock = threading.Lock()
        self.count = 0


def _print_kernel_factory(ctx):
    message = ctx.attr("message")
    first_n = ctx.attr("first_n")
    summarize = ctx.attr("summarize")
    counter = ctx.node_state("print_calls", _CallCounter) if first_n >= 0 else None

    def run(input_, data):
        if counter is not None:
            with counter.lock:
                if counter.count >= first_n:
                    return input_
                counter.count += 1
        msg = message + "".join(f"[{summarize_value(d, summarize)}]" for d in data)
        sys.stderr.write(msg + "\n")
        sys.stderr.flush()
        return input_

    return run


op_registry.declare(
    "Print",
    inputs=["input: T", "data: U"],
    outputs=["output: T"],
    attrs=["T: type", "U: list(type)", "message: string = ''", "first_n: int = -1",
           "summarize: int = 3"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_print_kernel_factory,
    stateful=True,
)


def Print(input_, data, message=None, first_n=None, summarize=None, name=None):
    """Returns ``input_``; running it prints ``message`` and ``data`` to stderr.

    first_n: print only the first ``first_n`` times (per session); -1 or None: always.
    summarize: entries printed per tensor (default 3).
    """
    attrs = {}
    if message is not None:
        attrs["message"] = message
    if first_n is not None:
        attrs["first_n"] = first_n
    if summarize is not None:
        attrs["summarize"] = summarize
    if isinstance(data, tuple):
        data = list(data)
    return ops.apply_op("Print", [input_, data], attrs, name=name)._outputs[0]

