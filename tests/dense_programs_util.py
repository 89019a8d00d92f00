"""Shared by the dense-prediction program tests (tests/test_programs_dense29*.py): a fresh
default graph around each program and the comparison of its printed lines with TF 1.15's."""

import re

import numpy as np
import pytest

import tideflow as tf

_NUM = re.compile(r"-?\d+\.?\d*(?:e[-+]?\d+)?")


@pytest.fixture(autouse=True)
def _fresh_graph():
    # (a program may call tf.reset_default_graph() itself, which a nested graph refuses)
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _printed(capsys, expected, rtol=0):
    """Lines as TF printed them: exactly, or (rtol) the same text around numbers within rtol
    (NumPy pads an array's columns to its widest number, so spaces are not compared then)."""
    got, want = capsys.readouterr().out.splitlines(), expected.splitlines()
    if not rtol:
        assert got == want
        return
    assert len(got) == len(want), (got, want)
    for g, w in zip(got, want):
        assert re.sub(r"\s", "", _NUM.sub("#", g)) == re.sub(r"\s", "", _NUM.sub("#", w)), (g, w)
        np.testing.assert_allclose([float(x) for x in _NUM.findall(g)],
                                   [float(x) for x in _NUM.findall(w)], rtol=rtol, err_msg=w)
