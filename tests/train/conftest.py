"""Fixtures shared by the training-loop tests."""

import faulthandler
import threading
import time

import pytest

from tideflow.summary.writer import FileWriterCache


@pytest.fixture
def bounded_threads():
    """The test ends within a minute and leaves no thread of its own running."""
    before = set(threading.enumerate())
    faulthandler.dump_traceback_later(60, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
    FileWriterCache.clear()
    deadline = time.time() + 5
    while time.time() < deadline:
        left = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not left:
            break
        time.sleep(0.01)
    assert not left, left
