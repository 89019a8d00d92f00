"""Differential harness: run small TF 1.x programs under tideflow and (optionally) real TensorFlow.

A case is a program body (a string) that uses ``tf`` and ``np`` and records results with
``rec(key, value, ref=None)``; ``err(fn)`` returns the class name of what ``fn()`` raises (or
None). A ``ref`` is a value derived independently of both TensorFlows (NumPy, arithmetic): the
runner checks it in-process, so the tideflow-only tests need no real TF while the real-TF run
validates the references themselves. Each case runs in a fresh default graph; a case that raises
records only the error's class name.
"""
import functools
import json
import os
import subprocess
import sys
import textwrap

import numpy as np

_PRELUDE = r'''
import json, sys, collections, traceback, math
import numpy as np
%(import)s

def _enc(v):
    if isinstance(v, BaseException):
        return {"error": type(v).__name__}
    if hasattr(v, "as_list") and hasattr(v, "ndims"):
        return {"shape": None if v.ndims is None else v.as_list()}
    if hasattr(v, "as_numpy_dtype") and hasattr(v, "is_floating"):
        return {"tfdtype": v.name}
    if isinstance(v, bytes):
        return {"bytes": v.decode("latin-1")}
    if isinstance(v, str):
        return {"str": v}
    if isinstance(v, dict):
        return {"dict": {str(k): _enc(x) for k, x in sorted(v.items(), key=lambda kv: str(kv[0]))}}
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return {"namedtuple": type(v).__name__, "fields": {f: _enc(getattr(v, f)) for f in v._fields}}
    if isinstance(v, (list, tuple)):
        return {"seq": type(v).__name__, "items": [_enc(x) for x in v]}
    if v is None:
        return {"none": True}
    if isinstance(v, (bool, np.bool_)) and np.ndim(v) == 0:
        pass
    a = np.asarray(v)
    if a.dtype.kind in "SUO":
        flat = [x.decode("latin-1") if isinstance(x, bytes) else str(x) for x in a.ravel().tolist()]
        return {"strings": flat, "ashape": list(a.shape)}
    if a.dtype.kind == "c":
        return {"dtype": a.dtype.name, "ashape": list(a.shape),
                "re": _floats(a.real), "im": _floats(a.imag)}
    if a.dtype.kind == "f" or a.dtype.name == "bfloat16":
        return {"dtype": a.dtype.name, "ashape": list(a.shape), "data": _floats(a)}
    return {"dtype": a.dtype.name, "ashape": list(a.shape), "data": a.ravel().tolist()}

def _floats(a):
    return [None if math.isnan(x) else ("inf" if x == math.inf else ("-inf" if x == -math.inf else x))
            for x in np.asarray(a, dtype=np.float64).ravel().tolist()]

_R = {}
_BAD = []

def rec(key, value, ref=None, rtol=1e-5, atol=1e-6):
    _R[key] = _enc(value)
    if ref is not None:
        try:
            ok = np.allclose(np.asarray(value, dtype=np.float64), np.asarray(ref, dtype=np.float64),
                             rtol=rtol, atol=atol, equal_nan=True) and \
                np.shape(value) == np.shape(ref)
        except Exception as e:
            ok = False
        if not ok:
            _BAD.append("%%s: got %%r, reference %%r" %% (key, np.asarray(value).tolist(),
                                                         np.asarray(ref).tolist()))

def err(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__
    return None

def errmsg(fn):
    try:
        fn()
    except Exception as e:
        return type(e).__name__ + ": " + str(e)
    return None

_CASES = json.loads(sys.stdin.read())
_OUT = {}
for _name, _body in _CASES.items():
    _R = {}
    _BAD = []
    tf.reset_default_graph()
    try:
        exec(compile(_body, _name, "exec"), {"tf": tf, "np": np, "rec": rec, "err": err,
                                          "errmsg": errmsg, "collections": collections})
        _OUT[_name] = {"results": _R, "bad": _BAD}
    except Exception as e:
        _OUT[_name] = {"results": _R, "bad": _BAD, "raised": type(e).__name__,
                       "trace": traceback.format_exc()[-1500:]}
sys.stdout.write("\n@@JSON@@" + json.dumps(_OUT))
'''

_TF_IMPORT = ("import warnings; warnings.filterwarnings('ignore')\n"
              "import os; os.environ['TF_CPP_MIN_LOG_LEVEL'] = '3'\n"
              "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()\n"
              "import logging; logging.getLogger('tensorflow').setLevel(logging.ERROR)")
_TIDE_IMPORT = "import tideflow as tf"

TF_PYTHON = os.environ.get("TIDEFLOW_TF_PYTHON")


def _run(python, import_line, cases):
    src = _PRELUDE % {"import": import_line}
    payload = json.dumps({k: textwrap.dedent(v) for k, v in cases.items()})
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="", TF_CPP_MIN_LOG_LEVEL="3")
    proc = subprocess.run([python, "-c", src], check=False, input=payload, capture_output=True, text=True,
                          timeout=900, env=env)
    if "@@JSON@@" not in proc.stdout:
        raise RuntimeError(f"{python} failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.split("@@JSON@@", 1)[1])


@functools.cache
def run_tideflow(group):
    from tests.compat import cases
    return _run(sys.executable, _TIDE_IMPORT, cases.GROUPS[group])


@functools.cache
def run_tf(group):
    from tests.compat import cases
    return _run(TF_PYTHON, _TF_IMPORT, cases.GROUPS[group])


def _close(a, b, rtol, atol):
    a = np.asarray([np.nan if x is None else float(x) for x in a], dtype=np.float64)
    b = np.asarray([np.nan if x is None else float(x) for x in b], dtype=np.float64)
    return a.shape == b.shape and bool(np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True))


def diff(got, want, path="", rtol=1e-5, atol=1e-6):
    """Return a list of human-readable differences between two encoded values."""
    if got == want:
        return []
    if isinstance(got, dict) and isinstance(want, dict) and "data" in got and "data" in want:
        out = []
        if got.get("dtype") != want.get("dtype"):
            out.append("{}: dtype {} != {}".format(path, got.get("dtype"), want.get("dtype")))
        if got.get("ashape") != want.get("ashape"):
            out.append("{}: shape {} != {}".format(path, got.get("ashape"), want.get("ashape")))
        elif want.get("dtype", "").startswith(("float", "bfloat", "complex")):
            if not _close(got["data"], want["data"], rtol, atol):
                out.append("{}: {} != {}".format(path, got["data"][:20], want["data"][:20]))
        elif got["data"] != want["data"]:
            out.append("{}: {} != {}".format(path, got["data"][:20], want["data"][:20]))
        return out
    if isinstance(got, dict) and isinstance(want, dict) and "re" in got and "re" in want:
        if got["ashape"] != want["ashape"] or not (_close(got["re"], want["re"], rtol, atol)
                                                   and _close(got["im"], want["im"], rtol, atol)):
            return [f"{path}: complex {got} != {want}"]
        return []
    if isinstance(got, dict) and isinstance(want, dict) and got.keys() == want.keys():
        out = []
        for k in want:
            out += diff(got[k], want[k], f"{path}.{k}", rtol, atol)
        return out
    if isinstance(got, list) and isinstance(want, list) and len(got) == len(want):
        out = []
        for i, (g, w) in enumerate(zip(got, want)):
            out += diff(g, w, f"{path}[{i}]", rtol, atol)
        return out
    return [f"{path}: {json.dumps(got)[:300]} != {json.dumps(want)[:300]}"]
