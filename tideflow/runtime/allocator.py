"""Keeps large freed tensor buffers in the process heap instead of returning them to the OS.

glibc serves allocations above its mmap threshold (128 KiB at first) with fresh mappings and
unmaps them on free, so a training step that allocates the same large arrays every step pays
page faults for every byte it touches (the CNN benchmark lost about a fifth of its step time to
them). TF has its own caching allocator; here we raise glibc's mmap and trim thresholds once,
when the first Session starts, so freed buffers are reused by the next step.
"""

import ctypes
import ctypes.util
import threading

from tideflow import env

_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD = 256 << 20  # arrays above this still get their own mapping
TRIM_THRESHOLD = 1 << 30
TOP_PAD = 64 << 20

_done = False
_ok = False
_lock = threading.Lock()


def tune_once():
    """Applies the settings the first time it is called (the first Session, or a server: gRPC
    assembles each message in fresh buffers, which would otherwise page-fault every chunk);
    a no-op off glibc or when disabled. True when the settings took."""
    global _done, _ok
    if _done:
        return _ok
    with _lock:
        if _done:
            return _ok
        _done = True
        if not env.malloc_tuning():
            return False
        name = ctypes.util.find_library("c")
        if not name:
            return False
        try:
            libc = ctypes.CDLL(name)
            mallopt = libc.mallopt
        except (OSError, AttributeError):
            return False
        mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
        _ok = (mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1
               and mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD) == 1)
        mallopt(_M_TOP_PAD, TOP_PAD)
        return _ok
