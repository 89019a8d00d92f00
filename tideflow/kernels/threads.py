"""Intra-op parallelism: a small pool of threads for the kernels' NumPy work.

NumPy runs one call on one core, but releases the GIL inside its copies, ufunc loops and BLAS
calls, so a kernel that splits its work into pieces on disjoint slices (the same operations, so
bitwise the same result for element-wise work) can use the other cores. While BLAS itself runs
several threads, they spin on the cores for a while after every product and a thread of ours
would only compete with them; so while a plan runs (:func:`enter_step` / :func:`leave_step`)
BLAS is held to one thread and the pool takes over: the convolutions split the batch into
pieces, each with its own im2col copy and product; MatMul splits its rows; pooling, ReLU and
the dense optimizer updates split their arrays. Only plans with a convolution or pooling op
(``POOL_OP_TYPES``) do this: where matrix products are most of the work (an MLP, an RNN), BLAS's
own spinning threads start small products faster than a hand-off here can, and BLAS keeps them,
except for products of at most ``SMALL_PRODUCT_MACS`` multiply-adds, which run on one BLAS thread
(as fast on a quiet machine; on a busy one BLAS's second thread waiting for a core made them
5-200x slower). Between steps BLAS keeps its threads, so a program's own NumPy runs as without
tideflow. While other processes keep the cores busy (:class:`_Contention`, sampled from
``/proc/stat`` at most twice a second), every product outside the pool runs on one BLAS thread:
BLAS's waiting threads made a 128x784x128 product 5-20x slower there.

One pool per process, sized like TF's intra-op pool: ``intra_op_parallelism_threads`` of a
session's ``ConfigProto`` when set (process-wide), else BLAS's own thread count when the process
started (the cores, or ``OPENBLAS_NUM_THREADS``: a cluster task held to one thread stays at
one). Only one :func:`parallel_for` uses the pool at a time: a call made while it is busy
(another lane, another session, a nested call) runs inline, so the threads never oversubscribe
the cores. Only OpenBLAS (NumPy's wheels) is driven; with another BLAS the pool stays off.
"""

import ctypes
import os
import queue
import threading
import time

import numpy as np

# below this many bytes of work per piece, a thread hand-off costs more than it saves
MIN_PIECE_BYTES = 256 << 10
MAX_THREADS = 8
PIECES_PER_THREAD = 1
# arrays of fewer elements are not worth splitting at all
MIN_SPLIT_SIZE = 1 << 17

_busy = threading.Lock()
_start_lock = threading.Lock()
_workers = []  # one inbox per started worker thread
_wanted = [None]  # threads asked for by a session's config (None: the cores)


class _OpenBlas:
    """set/get of the OpenBLAS that NumPy loaded (None when NumPy's BLAS is another one)."""

    def __init__(self):
        self.set = self.get = None
        try:
            with open("/proc/self/maps") as f:
                paths = sorted({line.split()[-1] for line in f
                                if "openblas" in line.lower() and "/" in line})
        except OSError:
            return
        for path in paths:
            try:
                lib = ctypes.CDLL(path)
            except OSError:
                continue
            for prefix in ("scipy_openblas", "openblas"):
                for suffix in ("64_", ""):
                    setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                    getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                    if setter is not None and getter is not None:
                        setter.restype = None
                        setter.argtypes = [ctypes.c_int]
                        getter.restype = ctypes.c_int
                        self.set, self.get = setter, getter
                        return


_blas = _OpenBlas()
_blas_threads_at_start = _blas.get() if _blas.get is not None else None
_step_lock = threading.Lock()
_steps = [0]  # plans running now
_saved = [None]  # BLAS's thread count before the first of them took it over
_single = [_blas_threads_at_start == 1]  # BLAS runs one thread now: products split here


class _BlasCap:
    """A session's cap on BLAS threads; ``restore_original_limits()`` gives back the count
    BLAS had before (threadpoolctl's name, which sessions also use)."""

    def __init__(self, n):
        with _step_lock:
            self._before = _saved[0] if _saved[0] is not None else _blas.get()
            _set_outside_steps(n)

    def restore_original_limits(self):
        with _step_lock:
            _set_outside_steps(self._before)


def _set_outside_steps(n):
    # inside a step BLAS runs one thread and gets ``_saved`` back at its end
    if _saved[0] is not None:
        _saved[0] = n
    else:
        _blas.set(n)


def cap_blas(n):
    """Caps NumPy's OpenBLAS at ``n`` threads (None when NumPy's BLAS is not OpenBLAS)."""
    if _blas.set is None:
        return None
    return _BlasCap(max(1, int(n)))


def _after_fork_in_child():
    # a forked child has none of the workers, and a lock another thread held stays held
    global _busy, _start_lock, _step_lock
    _busy, _start_lock, _step_lock = threading.Lock(), threading.Lock(), threading.Lock()
    _workers.clear()
    _steps[0] = 0
    if _saved[0] is not None:  # forked inside a step: BLAS gets its threads back
        _blas.set(_saved[0])
        _saved[0] = None
    _single[0] = _blas_threads_at_start == 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


def _cores():
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def thread_count():
    """How many threads (the caller's included) a kernel may split its work over."""
    n = _wanted[0] or _blas_threads_at_start or _cores()
    return max(1, min(int(n), MAX_THREADS))


def intra_op_pool_size():
    """The threads of TF's intra-op pool: a session's ``intra_op_parallelism_threads`` when set,
    else the cores (uncapped; kernels that reproduce TF's work split use it)."""
    return max(1, int(_wanted[0] or _cores()))


def set_thread_count(n):
    """Sets the pool's size (``intra_op_parallelism_threads``); 0 or None: the cores."""
    _wanted[0] = int(n) if n else None


# plans holding one of these run with the pool (see above): their kernels split over it
POOL_OP_TYPES = frozenset({
    "Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "Conv3D", "Conv3DBackpropInputV2",
    "Conv3DBackpropFilterV2", "Conv3DBackpropInput", "Conv3DBackpropFilter", "MaxPool",
    "MaxPoolV2", "MaxPoolGrad", "MaxPoolGradV2", "MaxPool3D", "MaxPool3DGrad",
})


def enter_step():
    """A plan with kernels starts: BLAS to one thread, the pool doing its work (see above)."""
    with _step_lock:
        _steps[0] += 1
        if _blas.set is not None and thread_count() > 1:
            if _saved[0] is None:  # the first holder (maybe a small product) caps BLAS
                n = _blas.get()
                if n > 1:
                    _saved[0] = n
                    _blas.set(1)
            _single[0] = True


def hold_step():
    """A plan without the pool starts: the first small product in it caps BLAS at one thread
    until the plan ends (:func:`leave_step`), instead of capping and restoring around every
    product (two OpenBLAS calls each, ~360 times in a 30-step GRU's training step); a big
    product in between gets BLAS's threads back (:func:`_release_small_cap`)."""
    with _step_lock:
        _steps[0] += 1


def _release_small_cap():
    """BLAS's threads back for a big product while small ones hold it to one thread."""
    with _step_lock:
        if _saved[0] is not None and not _single[0]:
            _blas.set(_saved[0])
            _saved[0] = None


def _enter_small_product():
    """A small product outside the pool: BLAS to one thread for its call (leave_step ends it)."""
    with _step_lock:
        _steps[0] += 1
        if _saved[0] is None:
            n = _blas.get()
            if n > 1:
                _saved[0] = n
                _blas.set(1)


def leave_step():
    """The plan is over: when it was the last running, BLAS gets its threads back."""
    with _step_lock:
        _steps[0] -= 1
        if _steps[0] == 0:
            if _saved[0] is not None:
                _blas.set(_saved[0])
                _saved[0] = None
            _single[0] = _blas_threads_at_start == 1


def active():
    """Whether kernels split their work over the pool now: a step holds BLAS to one thread
    (while BLAS's own threads spin on the cores, a thread of ours would only compete)."""
    return _single[0] and thread_count() > 1


# a product of fewer multiply-adds is one BLAS call
MIN_SPLIT_MACS = 1 << 20
# outside the pool, a product of at most this many multiply-adds runs on one BLAS thread: on a
# quiet machine one thread is as fast up to here (128x128x256: 69 us either way), while on a
# busy one BLAS's second thread made a 128x64x128 product 5-200x slower (waiting for a core)
SMALL_PRODUCT_MACS = 1 << 22


class _Contention:
    """Whether other processes keep the cores too busy for BLAS's own threads: the CPU time
    the whole machine spent (``/proc/stat``) minus this process's own, over the last interval.
    OpenBLAS threads spin waiting for each other, so one of them without a free core stalls
    every product; above ``OTHERS_MAX`` cores used by others beyond those BLAS would leave
    free, products run on one thread. Off where ``/proc/stat`` cannot be read."""

    INTERVAL_S = 0.5
    OTHERS_MAX = 0.5

    def __init__(self):
        self.contended = False
        self._next = 0.0
        self._last = None
        try:
            self._tick = float(os.sysconf("SC_CLK_TCK"))
        except (AttributeError, ValueError, OSError):
            self._tick = None

    def _sample(self):
        with open("/proc/stat", "rb") as f:
            fields = [int(v) for v in f.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle and iowait
        return (sum(fields) - idle) / self._tick, time.process_time(), time.monotonic()

    @staticmethod
    def others(prev, cur):
        """Cores kept busy by other processes between two samples (busy s, own s, wall s)."""
        wall = cur[2] - prev[2]
        if wall <= 0:
            return 0.0
        return ((cur[0] - prev[0]) - (cur[1] - prev[1])) / wall

    def __call__(self):
        now = time.monotonic()
        if now < self._next or self._tick is None:
            return self.contended
        self._next = now + self.INTERVAL_S
        try:
            cur = self._sample()
        except (OSError, ValueError, IndexError):
            self._tick = None
            return False
        prev, self._last = self._last, cur
        if prev is not None:
            spare = _cores() - (_blas_threads_at_start or 1)  # cores BLAS leaves free
            self.contended = self.others(prev, cur) > spare + self.OTHERS_MAX
        return self.contended


_contention = _Contention()


def _one_thread_macs():
    """Products outside the pool of at most this many multiply-adds run on one BLAS thread:
    SMALL_PRODUCT_MACS on a machine with free cores, every product while others keep the
    cores busy."""
    if _blas_threads_at_start is not None and _blas_threads_at_start > 1 and _contention():
        return 1 << 62
    return SMALL_PRODUCT_MACS


class small_product:
    """``with small_product(macs):`` around a BLAS call that is not :func:`matmul` (batched
    products, einsum): products of ``1 << 16`` to :func:`_one_thread_macs` multiply-adds run on
    one BLAS thread, by the same rule as :func:`matmul`'s."""

    __slots__ = ("_held",)

    def __init__(self, macs):
        self._held = (1 << 16 <= macs and not _single[0] and _blas.set is not None
                      and macs <= _one_thread_macs())

    def __enter__(self):
        if self._held:
            _enter_small_product()
        return self

    def __exit__(self, *exc):
        if self._held:
            leave_step()
        return False


def _swapped(x, y, m, n):
    """Whether ``x @ y`` runs faster as ``(y.T @ x.T).T``: a few rows of ``x`` times a wide
    transposed view ``y`` (a gradient's ``g @ W^T``, once per step of an RNN). OpenBLAS packs
    a big transposed right operand slowly (32x512 @ (192x512)^T: 72 us against 49 us for the
    same product with the big matrix on the left, untransposed); the same BLAS product with its
    operands' roles swapped gives bitwise the same values; the result is copied back to C order
    (a few microseconds), so that the reductions downstream sum in the same order as before."""
    return (4 * m <= n and m <= 64 and x.dtype == y.dtype and x.dtype.kind in "fc"
            and y.flags.f_contiguous and not y.flags.c_contiguous and x.flags.c_contiguous)


def matmul(x, y, out=None):
    """``x @ y`` for 2-D ``x``, ``y``: while the pool is active, split by rows (or by columns
    when ``y`` is the wider side) over it; else one BLAS call."""
    m, kk = x.shape
    n = y.shape[1]
    macs = m * n * kk
    if not active() or macs < MIN_SPLIT_MACS or x.dtype.kind not in "fc" \
            or x.dtype.itemsize < 4:
        if out is None and macs >= 1 << 14 and _swapped(x, y, m, n):
            x, y = y.T, x.T  # (y.T @ x.T).T below
            swap = True
        else:
            swap = False
        if _single[0] or _blas.set is None or macs < 1 << 16 or _saved[0] is not None and (
                macs <= SMALL_PRODUCT_MACS):  # held to one thread already (hold_step)
            r = np.matmul(x, y, out=out)
        elif macs > _one_thread_macs():
            if _saved[0] is not None:
                _release_small_cap()
            r = np.matmul(x, y, out=out)
        else:
            _enter_small_product()
            try:
                r = np.matmul(x, y, out=out)
            finally:
                leave_step()
        return np.ascontiguousarray(r.T) if swap else r
    if out is None:
        out = np.empty((m, n), np.result_type(x, y))
    k = PIECES_PER_THREAD * thread_count()
    if m >= n:
        parallel_for(m, lambda i, j: np.matmul(x[i:j], y, out=out[i:j]), k=min(k, m // 32 or 1))
    else:
        parallel_for(n, lambda i, j: np.matmul(x, y[:, i:j], out=out[:, i:j]),
                     k=min(k, n // 32 or 1))
    return out


class _Call:
    """One parallel_for: its pieces, handed out in order to whichever thread asks first."""

    __slots__ = ("bounds", "error", "finished", "fn", "left", "lock", "next")

    def __init__(self, fn, bounds):
        self.fn = fn
        self.bounds = bounds
        self.next = 0
        self.left = len(bounds) - 1
        self.lock = threading.Lock()
        self.finished = threading.Event()
        self.error = None

    def run_pieces(self):
        """Runs pieces until none is left to start (any thread may call this, any time)."""
        while True:
            with self.lock:
                i = self.next
                if i >= len(self.bounds) - 1:
                    return
                self.next = i + 1
            try:
                self.fn(self.bounds[i], self.bounds[i + 1])
            except BaseException as e:  # noqa: BLE001 - re-raised by the caller
                if self.error is None:
                    self.error = e
            with self.lock:
                self.left -= 1
                if self.left == 0:
                    self.finished.set()


def _work(inbox):
    while True:
        inbox.get().run_pieces()


def _ensure_workers(n):
    with _start_lock:
        while len(_workers) < n:
            inbox = queue.SimpleQueue()
            threading.Thread(target=_work, args=(inbox,), daemon=True,
                             name=f"tideflow-intra-op-{len(_workers)}").start()
            _workers.append(inbox)


def pieces(n, item_bytes):
    """How many pieces ``n`` items of ``item_bytes`` each are worth splitting into (1: don't):
    PIECES_PER_THREAD per thread. Measured on the CNN's kernels, one per thread beat two and
    four (fewer, bigger products and copies); a thread the OS starts late still costs no more
    than its piece, since the caller takes any piece not yet started."""
    if n < 2 or not active():
        return 1
    k = thread_count()
    return max(1, min(PIECES_PER_THREAD * k, n, (n * item_bytes) // MIN_PIECE_BYTES))


def parallel_for(n, fn, item_bytes=1, k=None):
    """Runs ``fn(start, stop)`` over contiguous ranges covering ``range(n)``, in parallel.

    ``item_bytes`` is the memory one item touches (to decide whether splitting pays); ``k``
    forces the number of pieces. The calling thread works too, taking pieces until none is
    left, so the call never waits for a thread that has not started; it returns when every
    piece has finished and re-raises the first exception a piece raised.
    """
    if k is None:
        k = pieces(n, item_bytes)
    k = min(k, n)
    if k <= 1 or not _busy.acquire(blocking=False):
        if n > 0:
            fn(0, n)
        return
    try:
        helpers = min(thread_count(), k) - 1
        _ensure_workers(helpers)
        call = _Call(fn, [n * i // k for i in range(k + 1)])
        for inbox in _workers[:helpers]:
            inbox.put(call)
        call.run_pieces()
        call.finished.wait()
        if call.error is not None:
            raise call.error
    finally:
        _busy.release()


def split_flat(arrays, fn, min_size=MIN_SPLIT_SIZE):
    """Runs ``fn(*pieces)`` on matching contiguous 1-D pieces of same-shaped ``arrays`` (all
    C-contiguous), in parallel when they are large and the pool is active; else
    ``fn(*arrays)`` once."""
    first = arrays[0]
    n = first.size
    if n < min_size or not active() or not all(
            a.flags.c_contiguous and a.size == n for a in arrays):
        fn(*arrays)
        return
    flat = [a.reshape(-1) for a in arrays]
    item = sum(a.itemsize for a in arrays)

    def run(start, stop):
        fn(*(a[start:stop] for a in flat))

    parallel_for(n, run, item)
