"""Runs every row of the op tables (tests/ops/table_*.py) and checks every op has a row."""

import importlib
import pathlib

import pytest

from tests.ops.optable import run_case
from tideflow.framework import op_registry

_TABLES = sorted(p.stem for p in pathlib.Path(__file__).parent.glob("table_*.py"))
CASES = []
for _name in _TABLES:
    CASES.extend(importlib.import_module(f"tests.ops.{_name}").CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_op(case):
    run_case(case)


def test_every_registered_op_has_a_row():
    covered = {op for c in CASES for op in c.ops}
    missing = sorted(set(op_registry.registered_ops()) - covered)
    assert not missing, f"ops without a row in the op table: {missing}"
