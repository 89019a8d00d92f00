"""Logging ops: ``Assert`` (fails a step when a condition is false) and ``Print`` (to stderr).

Both format tensors as TF's ``Tensor::SummarizeValue`` does: the first ``summarize`` entries,
nested in brackets by dimension, floats in shortest round-tripping ``%g`` form.
"""

import datetime
import math
import os
import sys
import threading

import numpy as np

from tideflow.framework import dtypes, errors, op_registry, ops
from tideflow.framework.tensor_shape import TensorShape


def _format_float(v, bits):
    if np.isnan(v) and np.signbit(v):
        return "-nan"  # C's printf keeps a NaN's sign (Python's % drops it)
    digits, more = (6, 9) if bits <= 32 else (15, 17)
    s = f"{v:.{digits}g}"
    cast = np.float32 if bits <= 32 else np.float64
    if cast(s) != cast(v) and not np.isnan(v):
        s = f"{v:.{more}g}"
    return s


_FLOAT32_TINY = float(np.finfo(np.float32).tiny)


def _flushed(v):
    return math.copysign(0.0, v) if 0.0 < abs(v) < _FLOAT32_TINY else v


def _element_formatter(arr):
    kind = arr.dtype.kind
    if arr.dtype == object:
        return lambda v: _c_escape(v if isinstance(v, bytes) else str(v).encode())
    if kind == "b":
        return lambda v: "1" if v else "0"
    if kind in "iu":
        return lambda v: str(int(v))
    if kind == "f":
        if arr.dtype == np.float32:
            # TF's CPU threads read denormals as zero: a float32 subnormal, widened to double
            # to be printed, prints as a signed zero (half and bfloat16 widen bit by bit)
            return lambda v: _format_float(_flushed(float(v)), 32)
        bits = 64 if arr.dtype == np.float64 else 32
        return lambda v: _format_float(float(v), bits)
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


def _plain_quantized(arr):
    """A quantized (structured) array's integers, which TF prints as numbers."""
    return arr[arr.dtype.names[0]] if arr.dtype.names else arr


def _unprintable(arr, limit):
    """TF 1.15's SummarizeValue for the types it cannot print (complex, bfloat16): a flat '?'
    per entry shown; None for the others."""
    if arr.dtype.kind not in "cV":
        return None
    return " ".join(["?"] * limit) + ("..." if limit < arr.size else "")


def summarize_value(value, max_entries=3):
    """``value`` as TF's ``SummarizeValue(max_entries)`` prints it (negative: every entry)."""
    # (a scalar string a kernel gave as bytes, e.g. string Add's, is a string tensor)
    arr = np.asarray(value, dtype=object) if isinstance(value, bytes) else np.asarray(value)
    arr = _plain_quantized(arr)
    n = arr.size
    limit = n if max_entries < 0 else min(max_entries, n)
    text = _unprintable(arr, limit)
    if text is not None:
        return text
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
    attrs=["T: list(type) >= 1", "summarize: int = 3"],
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
        xs = ops.convert_n_to_tensor(data)
        attrs = {} if summarize is None else {"summarize": summarize}
        if all(x.dtype.base_dtype in (dtypes.string, dtypes.int32) for x in xs):
            # as TF, the op gets the unconverted ``data``: each Python value becomes a second
            # constant ("Assert/Assert/data_<i>"), so the graph has TF's op count (graph seeds)
            return ops.apply_op("Assert", [condition, list(data)], attrs, name="Assert")
        condition = ops.convert_to_tensor(condition, name="Condition")
        # named as TF's (inside its AssertGuard cond): a failure names "<scope>/AssertGuard/Assert"
        check = ops.apply_op("Assert", [condition, xs], attrs, name="AssertGuard/Assert")
        # TF 1.15 guards this Assert with a Switch/Merge cond (AssertGuard: its Switch,
        # switch_t, switch_f, pred_id, NoOp, two control_dependency Identities and Merge; in
        # the false branch a Const per Python value of ``data``, the Assert, and a Switch for
        # the condition and for each tensor of ``data``). The ids of the ops ours lacks are
        # skipped, so the ops after it (and random ones' seeds) get TF's op count
        graph = ops.get_default_graph()
        if getattr(graph, "_counts_own_ops", False):
            # in a tf.data function TF 1.15's guard is a functional If and the Identity of its
            # output: one op more than ours, in the function's own op count
            with ops.control_dependencies([check]):
                ops.apply_op("Identity", [condition], name="AssertGuard/Identity")
            return check
        tensors = {id(d) for d in data if isinstance(d, ops.Tensor)} - {id(condition)}
        n_data = sum(not isinstance(d, ops.Tensor) for d in data) + len(tensors)
        graph._skip_op_ids(9 + n_data)
        return check


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
    attrs=["T: type", "U: list(type) >= 0", "message: string = ''", "first_n: int = -1",
           "summarize: int = 3"],
    shape=lambda op: [op._inputs[0]._shape],
    kernel_factory=_print_kernel_factory,
    stateful=True,
    # as TF's _PrintGrad: the gradient passes through to ``input``; ``data`` gets none
    grad=lambda op, grad: [grad] + [None] * (len(op._inputs) - 1),
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



# ------------------------------------------------------------------------------------------
# StringFormat and PrintV2 (tf.print)
# ------------------------------------------------------------------------------------------


def _dim_spacing(dim, ndims):
    if dim == ndims - 1:
        return " "
    return "\n" * (ndims - dim - 1) + " " * (dim + 1)


def summarize_value_v2(value, max_entries=3):
    """``value`` as TF's ``SummarizeValue(max_entries, print_v2=true)`` prints it: nested brackets,
    the first and last ``max_entries`` entries of every dimension around ``...``, quoted strings."""
    arr = _plain_quantized(np.asarray(value))
    n = arr.size
    limit = n if max_entries < 0 else min(max_entries, n)
    text = _unprintable(arr, limit)
    if text is not None:
        return f"[{text}]"
    if arr.dtype == object:
        def fmt(v):
            return '"' + _c_escape(v if isinstance(v, bytes) else str(v).encode()) + '"'
    else:
        fmt = _element_formatter(arr)
    if arr.ndim == 0:
        return fmt(arr[()]) if limit else "..."  # (no entry shown of the one there is)
    out = []

    def one_dim(sub, dim):
        if dim == arr.ndim:
            out.append(fmt(sub))
            return
        out.append("[")
        count = sub.shape[0]
        for i in range(min(limit, count)):
            if i > 0:
                out.append(_dim_spacing(dim, arr.ndim))
            one_dim(sub[i], dim + 1)
        if count > 2 * limit:
            out.append(_dim_spacing(dim, arr.ndim) + "...")
        for i in range(max(limit, count - limit), count):
            out.append(_dim_spacing(dim, arr.ndim))
            one_dim(sub[i], dim + 1)
        out.append("]")

    one_dim(arr, 0)
    return "".join(out)


def _split_template(template, placeholder, count, where):
    pieces = template.split(placeholder)
    if len(pieces) - 1 != count:
        raise ValueError(
            f"{where}: num placeholders in template and num inputs must match: "
            f"{len(pieces) - 1} vs. {count}"
        )
    return pieces


def _string_format_kernel(inputs, *, template, placeholder, summarize):
    try:
        pieces = _split_template(template, placeholder, len(inputs), "StringFormat")
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, str(e)) from None
    text = pieces[0] + "".join(
        summarize_value_v2(x, summarize) + piece for x, piece in zip(inputs, pieces[1:])
    )
    out = np.empty((), dtype=object)
    out[()] = text.encode()
    return out


op_registry.declare(
    "StringFormat",
    inputs=["inputs: T"],
    outputs=["output: string"],
    attrs=["T: list(type) >= 0", "template: string = '%s'", "placeholder: string = '%s'",
           "summarize: int = 3"],
    shape=lambda op: [TensorShape([])],
    kernel=_string_format_kernel,
    differentiable=False,
)


def string_format(template, inputs, placeholder="{}", summarize=3, name=None):
    """A scalar string: ``template`` with each ``placeholder`` replaced by the next input printed
    as ``tf.print`` prints tensors (``summarize`` entries at each end of every dimension)."""
    from tideflow.ops.misc_ops import is_tensor

    # as TF 1.15: only a tensor is wrapped in a list; anything else is counted by its len()
    # (a Python string by its characters, an int a TypeError) and must then be a list
    if is_tensor(inputs):
        inputs = [inputs]
    count = len(template.split(placeholder)) - 1
    if count != len(inputs):  # (TF's words)
        raise ValueError(f"{count} placeholder(s) in template does not "
                         f"match {len(inputs)} tensor(s) provided as input")
    if not isinstance(inputs, (list, tuple)):
        raise TypeError(f"Expected list for 'inputs' argument to 'StringFormat' Op, not "
                        f"{inputs}.")
    inputs = list(inputs)
    # (the inputs are made tensors by the op, in its scope: StringFormat/inputs_0, ...)
    return ops.apply_op(
        "StringFormat", [inputs],
        {"template": template, "placeholder": placeholder, "summarize": summarize}, name=name,
    )._outputs[0]


_PRINT_STREAMS = ("stdout", "stderr", "log(info)", "log(warning)", "log(error)")


def _print_v2_kernel_factory(ctx):
    stream = ctx.attr("output_stream")
    end = ctx.attr("end")
    if stream.startswith("file://"):  # appended to, as TF's PrintV2 does
        path = stream[len("file://"):]

        def run_file(input_):
            value = np.asarray(input_)[()]
            text = value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)
            with open(path, "a", encoding="utf-8") as f:
                f.write(text + end)

        return run_file
    if stream not in _PRINT_STREAMS:
        raise errors.InvalidArgumentError(
            None, None, f"PrintV2: unknown output stream {stream!r}: expected one of "
            f"{', '.join(_PRINT_STREAMS)}"
        )

    def run(input_):
        arr = np.asarray(input_)
        if arr.ndim != 0:
            raise errors.InvalidArgumentError(
                None, None, "Input is expected to be scalar, but got shape: "
                f"[{','.join(map(str, arr.shape))}]"
            )
        value = arr[()]
        text = (value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value))
        if stream.startswith("log("):
            _cpp_log(stream, text + end)
            return
        out = sys.stdout if stream == "stdout" else sys.stderr
        out.write(text + end)
        out.flush()

    return run


# severity letter, TF 1.15's source line and level of each log stream
_LOG_STREAMS = {"log(info)": ("I", 166, 0), "log(warning)": ("W", 168, 1),
                "log(error)": ("E", 170, 2)}


def _cpp_log(stream, text):
    """``text`` as TF's C++ LOG writes it to stderr (a line of its own, time and source first),
    shown as TF shows it: at or above TF_CPP_MIN_LOG_LEVEL, whatever tf.logging's verbosity."""
    letter, line, severity = _LOG_STREAMS[stream]
    try:
        shown = severity >= int(os.environ.get("TF_CPP_MIN_LOG_LEVEL", "0"))
    except ValueError:
        shown = True
    if shown:
        sys.stderr.write(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S.%f}: {letter} "
                         f"tensorflow/core/kernels/logging_ops.cc:{line}] {text}\n")
        sys.stderr.flush()


op_registry.declare(
    "PrintV2",
    inputs=["input: string"],
    attrs=["output_stream: string = 'stderr'", "end: string = '\\n'"],
    shape=lambda op: [],
    kernel_factory=_print_v2_kernel_factory,
    stateful=True,
    differentiable=False,
)


def _stream_name(output_stream):
    from tideflow import logging as tf_logging

    if output_stream is sys.stdout:
        return "stdout"
    if output_stream is sys.stderr:
        return "stderr"
    if isinstance(output_stream, str) and output_stream.startswith("file://"):
        return output_stream
    for target, level in ((tf_logging.INFO, "info"), (tf_logging.info, "info"),
                          (tf_logging.WARN, "warning"), (tf_logging.warning, "warning"),
                          (tf_logging.ERROR, "error"), (tf_logging.error, "error")):
        if output_stream is target or (isinstance(target, int) and output_stream == target
                                       and type(output_stream) is int):
            return f"log({level})"
    raise ValueError(  # TF 1.15's words, the stream glued to them
        f"Unsupported output stream, logging level, or file.{output_stream}. Supported streams "
        "are sys.stdout, sys.stderr, tf.logging.info, tf.logging.warning, tf.logging.error. "
        "File needs to be in the form of 'file://<filepath>'.")


def _placeholder_for(text, default="{}"):
    # a placeholder string that does not occur in the non-tensor parts of the template
    placeholder = default
    digit = 0
    while placeholder in text:
        placeholder = default[:-1] + str(digit % 10) * (digit // 10 + 1) + default[-1]
        digit += 1
    return placeholder


def _flatten(x):
    if isinstance(x, dict):
        return [leaf for k in sorted(x) for leaf in _flatten(x[k])]
    if isinstance(x, (list, tuple)):
        return [leaf for item in x for leaf in _flatten(item)]
    return [x]


def _pack(structure, leaves):
    if isinstance(structure, dict):
        return {k: _pack(structure[k], leaves) for k in sorted(structure)}
    if isinstance(structure, (list, tuple)):
        items = [_pack(item, leaves) for item in structure]
        return type(structure)(items) if type(structure) in (list, tuple) else items
    return next(leaves)


def _is_tensor_like(x):
    from tideflow.framework.sparse_tensor import SparseTensor

    return isinstance(x, (ops.Tensor, SparseTensor)) or hasattr(x, "_as_graph_element")


def print_v2(*inputs, **kwargs):
    """``tf.print(*inputs, output_stream=sys.stderr, summarize=3, sep=' ', end='\\n', name=None)``.

    Returns the PrintV2 Operation; running it prints the inputs (strings as they are, tensors as
    ``tf.strings.format`` prints them, Python structures holding tensors through ``pprint``)
    joined by ``sep`` and followed by ``end``.
    """
    import pprint

    from tideflow.framework.sparse_tensor import SparseTensor

    output_stream = kwargs.pop("output_stream", sys.stderr)
    name = kwargs.pop("name", None)
    summarize = kwargs.pop("summarize", 3)
    sep = kwargs.pop("sep", " ")
    end = kwargs.pop("end", "\n")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments for tf.print: {kwargs}")
    stream = _stream_name(output_stream)
    if (len(inputs) == 1 and isinstance(inputs[0], ops.Tensor)
            and inputs[0].dtype.base_dtype.name == "string"
            and inputs[0].get_shape().ndims == 0):
        formatted = inputs[0]
    else:
        free = pprint.pformat([x for x in inputs if not _is_tensor_like(x)])
        placeholder = _placeholder_for(free)
        templates, tensors = [], []
        for item in inputs:
            if isinstance(item, str):
                templates.append(item)
                continue
            parts = []
            for leaf in _flatten(item):
                if isinstance(leaf, SparseTensor):
                    tensors.extend([leaf.indices, leaf.values, leaf.dense_shape])
                    parts.append(f"SparseTensor(indices={placeholder}, values={placeholder}, "
                                 f"shape={placeholder})")
                elif _is_tensor_like(leaf):
                    tensors.append(leaf)
                    parts.append(placeholder)
                else:
                    parts.append(leaf)
            templates.append(pprint.pformat(_pack(item, iter(parts))))
        template = sep.join(templates).replace(f"'{placeholder}'", placeholder)
        formatted = string_format(template, tensors, placeholder=placeholder,
                                  summarize=summarize,
                                  name=None if not name else name + "_format")
    return ops.apply_op("PrintV2", [formatted], {"output_stream": stream, "end": end},
                        name=name or "PrintV2")


# TF 1.x's logging_ops still holds the deprecated tag-first summary functions (the module is
# what ``tensorflow.python.ops.logging_ops`` imports as); they live with tf.summary and are
# looked up on first use, which keeps this module free of an import cycle
_SUMMARY_NAMES = ("scalar_summary", "histogram_summary", "image_summary", "audio_summary",
                  "merge_summary", "merge_all_summaries")


def __getattr__(name):
    if name in _SUMMARY_NAMES:
        from tideflow.summary import summary

        return getattr(summary, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
