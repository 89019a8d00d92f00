"""Differential tests: each case's results under tideflow against real TensorFlow 1.x API.

The comparison runs only when TIDEFLOW_TF_PYTHON names a Python with tensorflow installed; the
NumPy-derived references recorded by the cases (``rec(..., ref=...)``) are checked always.
"""
import re

import pytest

from tests.compat import cases
from tests.compat.harness import TF_PYTHON, diff, run_tf, run_tideflow

_ALL = [(g, n) for g, group in cases.GROUPS.items() for n in group]


def _tol(body):
    m = re.search(r"#\s*tol:\s*([0-9.e-]+)\s+([0-9.e-]+)", body)
    return (float(m.group(1)), float(m.group(2))) if m else (1e-5, 1e-6)


def _params():
    out = []
    for g, n in _ALL:
        marks = []
        if n in cases.KNOWN_DIFFERENCES:
            marks.append(pytest.mark.xfail(reason=cases.KNOWN_DIFFERENCES[n], strict=True))
        out.append(pytest.param(g, n, id=f"{g}/{n}", marks=marks))
    return out


@pytest.mark.parametrize("group,name", [pytest.param(g, n, id=f"{g}/{n}") for g, n in _ALL])
def test_numpy_references(group, name):
    got = run_tideflow(group)[name]
    if name not in cases.KNOWN_DIFFERENCES:
        assert "raised" not in got, got.get("trace")
    assert not got["bad"], got["bad"]


@pytest.mark.skipif(not TF_PYTHON, reason="set TIDEFLOW_TF_PYTHON to a Python with tensorflow")
@pytest.mark.parametrize("group,name", _params())
def test_same_as_tensorflow(group, name):
    want = run_tf(group)[name]
    got = run_tideflow(group)[name]
    assert not want["bad"], "the case's NumPy reference disagrees with TF: {}".format(want["bad"])
    rtol, atol = _tol(cases.GROUPS[group][name])
    problems = []
    if want.get("raised") != got.get("raised"):
        problems.append("raised {}, TF raised {}\n{}".format(got.get("raised"), want.get("raised"),
                                                        got.get("trace") or want.get("trace")))
    problems += diff(got["results"], want["results"], "", rtol, atol)
    assert not problems, "\n".join(problems)
