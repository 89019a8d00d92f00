"""Op-table rows for the string ops, each against a plain-Python reference."""

import re

import numpy as np

import tideflow as tf
from tests.ops.optable import Case


def _s(*items, shape=None):
    out = np.empty(len(items), dtype=object)
    out[:] = [i.encode() if isinstance(i, str) else i for i in items]
    return out.reshape(shape if shape is not None else (len(items),))


def _map(fn, arr, dtype=object):
    arr = np.asarray(arr, dtype=object)
    out = np.empty(arr.shape, dtype=dtype)
    out.reshape(-1)[:] = [fn(v) for v in arr.reshape(-1)]
    return out


_WORDS = _s("ab", "", "héllo".encode(), "x y", "", "z", shape=(2, 3))
_NUMS = np.array([[1.25, -3.5, 0.0], [100.0, 2.0, -0.125]])


def _as_string_ref(x):
    if x.dtype == np.bool_:
        return _map(lambda v: b"true" if v else b"false", x)
    if x.dtype.kind == "f":
        return _map(lambda v: b"%f" % float(v), x)
    return _map(lambda v: b"%d" % int(v), x)


def _split_ref(source, delims=b" ", skip_empty=True):
    rows = []
    for s in source:
        # (an empty string has no tokens, even with skip_empty=False: TF 1.15)
        toks = re.split(b"[" + re.escape(delims) + b"]", s) if delims and s else [
            s[i:i + 1] for i in range(len(s))]
        rows.append([t for t in toks if t] if skip_empty else toks)
    idx = np.array([(r, c) for r, toks in enumerate(rows) for c in range(len(toks))],
                   dtype=np.int64).reshape(-1, 2)
    vals = _s(*[t for toks in rows for t in toks])
    shape = np.array([len(rows), max((len(t) for t in rows), default=0)], dtype=np.int64)
    return [idx, vals, shape]


def _reduce_join_ref(x, axes, keep_dims=False, sep=b""):
    dims = [a % x.ndim for a in axes]
    kept = [d for d in range(x.ndim) if d not in dims]
    t = x.transpose(kept + dims[::-1])
    flat = t.reshape(int(np.prod([x.shape[d] for d in kept])), -1)
    out = np.empty(len(flat), dtype=object)
    out[:] = [sep.join(row) for row in flat]
    out = out.reshape([x.shape[d] for d in kept])
    if keep_dims:
        out = out.reshape([1 if d in dims else n for d, n in enumerate(x.shape)])
    return out


def _substr_ref(s, pos, length):
    s, pos, length = np.broadcast_arrays(s, pos, length)
    out = np.empty(s.shape, dtype=object)
    out.reshape(-1)[:] = [a[int(p):int(p) + int(n)]
                          for a, p, n in zip(s.reshape(-1), pos.reshape(-1), length.reshape(-1))]
    return out


def _parts(sp):
    return [sp.indices, sp.values, sp.dense_shape]


_SOURCE = _s("hello world", "a  b c", "", "single")

CASES = [
    Case("AsString", lambda x: tf.as_string(x), [_NUMS], _as_string_ref,
         dtypes=(tf.float32, tf.float64, tf.int32, tf.int64, tf.int8, tf.bool), grad=False),
    Case("AsString", lambda x: tf.as_string(x, precision=2, width=9, fill="0"), [_NUMS],
         lambda x: _map(lambda v: b"%09.2f" % float(v), x), dtypes=(tf.float64,), grad=False,
         name="AsString_width_fill"),
    Case("AsString", lambda x: tf.as_string(x, scientific=True, precision=3), [_NUMS],
         lambda x: _map(lambda v: b"%.3e" % float(v), x), dtypes=(tf.float32,), grad=False,
         name="AsString_scientific"),
    Case("AsString", lambda x: tf.as_string(x, shortest=True), [_NUMS],
         lambda x: _map(lambda v: b"%g" % float(v), x), dtypes=(tf.float64,), grad=False,
         name="AsString_shortest"),
    Case("StringJoin", lambda a, b: tf.string_join([a, "-", b], separator="|"),
         [_WORDS, _WORDS[::-1]],
         lambda a, b: np.frompyfunc(lambda x, y: x + b"|-|" + y, 2, 1)(a, b),
         dtypes=(tf.string,), grad=False),
    Case("StringJoin", lambda a: tf.string_join([a]), [_s("only")], lambda a: a,
         dtypes=(tf.string,), grad=False, name="StringJoin_single"),
    Case("StringSplit", lambda s: _parts(tf.string_split(s)), [_SOURCE], _split_ref,
         dtypes=(tf.string,), grad=False),
    Case("StringSplit", lambda s: _parts(tf.string_split(s, delimiter="lo", skip_empty=False)),
         [_SOURCE], lambda s: _split_ref(s, b"lo", skip_empty=False), dtypes=(tf.string,),
         grad=False, name="StringSplit_charset_keep_empty"),
    Case("StringSplit", lambda s: _parts(tf.string_split(s, delimiter="")), [_SOURCE],
         lambda s: _split_ref(s, b""), dtypes=(tf.string,), grad=False,
         name="StringSplit_bytes"),
    Case("StringToNumber", lambda s: tf.string_to_number(s),
         [_s("1.5", " -2e3 ", "inf", "0.1", "7", "+.5", shape=(2, 3))],
         lambda s: _map(float, s, np.float32), dtypes=(tf.string,), grad=False),
    Case("StringToNumber", lambda s: tf.string_to_number(s, out_type=tf.float64),
         [_s("1.5", "-2e3", "0.1")], lambda s: _map(float, s, np.float64), dtypes=(tf.string,),
         grad=False, name="StringToNumber_float64"),
    Case("StringToNumber", lambda s: tf.string_to_number(s, out_type=tf.int32),
         [_s("12", " -7", "03", "2147483647")], lambda s: _map(int, s, np.int32),
         dtypes=(tf.string,), grad=False, name="StringToNumber_int32"),
    Case("StringToNumber", lambda s: tf.string_to_number(s, tf.int64),
         [_s("9007199254740993", "-1")], lambda s: _map(int, s, np.int64),
         dtypes=(tf.string,), grad=False, name="StringToNumber_int64"),
    Case("ReduceJoin", lambda s: tf.reduce_join(s, 0, separator=","), [_WORDS],
         lambda s: _reduce_join_ref(s, [0], sep=b","), dtypes=(tf.string,), grad=False),
    Case("ReduceJoin", lambda s: tf.reduce_join(s, [-1], keep_dims=True), [_WORDS],
         lambda s: _reduce_join_ref(s, [1], keep_dims=True), dtypes=(tf.string,), grad=False,
         name="ReduceJoin_keep_dims"),
    Case("ReduceJoin", lambda s: tf.reduce_join(s, [0, 1]), [_WORDS],
         lambda s: _reduce_join_ref(s, [0, 1]), dtypes=(tf.string,), grad=False,
         name="ReduceJoin_order"),
    Case("ReduceJoin", lambda s: tf.reduce_join(s, axis=[]), [_WORDS], lambda s: s,
         dtypes=(tf.string,), grad=False, name="ReduceJoin_no_axes"),
    Case("Substr", lambda s, p, n: tf.substr(s, p, n),
         [_s("hello", "world", "", "abc", "xyz", "q", shape=(2, 3)),
          np.array([[1, 0, 0], [3, 1, 0]]), np.array([[3, 10, 0], [1, 1, 1]])],
         _substr_ref, dtypes=(tf.int32, tf.int64), grad=False),
    Case("Substr", lambda s, p, n: tf.substr(s, p, n), [_s("hello", "world"), np.array(1),
                                                         np.array(2)],
         _substr_ref, dtypes=(tf.int32,), grad=False, name="Substr_broadcast"),
    Case("StringLength", lambda s: tf.strings.length(s), [_WORDS],
         lambda s: _map(len, s, np.int32), dtypes=(tf.string,), grad=False),
    Case("StringLength", lambda s: tf.strings.length(s, unit="UTF8_CHAR"), [_WORDS],
         lambda s: _map(lambda v: len(v.decode()), s, np.int32), dtypes=(tf.string,),
         grad=False, name="StringLength_utf8"),
    Case("RegexReplace",
         lambda s: tf.regex_replace(s, tf.constant(r"(l+)(o)?"), tf.constant(r"<\2\1>")),
         [_SOURCE],
         lambda s: _map(lambda v: re.sub(rb"(l+)(o)?",
                                         lambda m: b"<" + (m.group(2) or b"") + m.group(1)
                                         + b">", v), s),
         dtypes=(tf.string,), grad=False),
    # Python-string pattern and rewrite: TF's StaticRegexReplace
    Case("StaticRegexReplace",
         lambda s: tf.regex_replace(s, "[ao]", r"\\", replace_global=False),
         [_SOURCE], lambda s: _map(lambda v: re.sub(rb"[ao]", rb"\\", v, count=1), s),
         dtypes=(tf.string,), grad=False, name="StaticRegexReplace_first_only"),
]
