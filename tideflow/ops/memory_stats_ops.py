"""``tf.contrib.memory_stats``' ops: BytesInUse, MaxBytesInUse, BytesLimit (int64 scalars).

tideflow's CPU device allocates through NumPy and keeps no allocator statistics of its own, so
these report the process's figures: its resident set now (BytesInUse), its peak resident set
(MaxBytesInUse) and the machine's physical memory (BytesLimit). They include the interpreter
and everything else the process holds, so compare readings of one process with each other."""

import os
import resource
import sys

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.framework.tensor_shape import TensorShape


def _page_size():
    return os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _rusage_peak():
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024  # Linux counts KiB


def _peak_rss():
    # the kernel's high-water mark can lag the current figure by a few pages
    return max(_rusage_peak(), _current_rss())


def _current_rss():
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * _page_size()
    except (OSError, ValueError, IndexError):
        return _rusage_peak()  # no /proc: the peak is the best bound we have


def _physical_memory():
    try:
        return os.sysconf("SC_PHYS_PAGES") * _page_size()
    except (AttributeError, ValueError, OSError):
        return _rusage_peak()


def _int64_kernel(fn):
    return lambda: np.int64(fn())


for _name, _fn in (("BytesInUse", _current_rss), ("MaxBytesInUse", _peak_rss),
                   ("BytesLimit", _physical_memory)):
    op_registry.declare(
        _name,
        outputs=["out: int64"],
        shape=lambda op: [TensorShape([])],
        kernel=_int64_kernel(_fn),
        stateful=True,
        differentiable=False,
    )


def BytesInUse():
    """The bytes the process holds now (its resident set; see the module's note)."""
    return ops.apply_op("BytesInUse", [], name=None)._outputs[0]


def MaxBytesInUse():
    """The most bytes the process has held (its peak resident set)."""
    return ops.apply_op("MaxBytesInUse", [], name=None)._outputs[0]


def BytesLimit():
    """The bytes the device may use (the machine's physical memory)."""
    return ops.apply_op("BytesLimit", [], name=None)._outputs[0]


__all__ = ["BytesInUse", "BytesLimit", "MaxBytesInUse"]
