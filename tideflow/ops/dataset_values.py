"""The values of dataset ops (``variant`` tensors): immutable pipeline stages that iterate.

A dataset op's kernel returns one of these; ``MakeIterator`` calls ``iterate(rt)``, which
returns a Python iterator of elements, each a flat list of component values (arrays, or
``SparseValue`` for sparse components). ``rt`` (an ``IterRuntime``) owns the background
threads of prefetch and parallel map and stops them when the iterator is dropped.
"""

import collections
import concurrent.futures
import itertools
import operator
import queue
import threading
import time
import weakref

import numpy as np

from tideflow.framework import errors
from tideflow.ops.dataset_structure import SparseValue, stack, unstack
from tideflow.ops.philox import PhiloxWords
from tideflow.ops.ragged_value import RaggedTensorValue

_WAIT_SLICE = 0.05


class IterRuntime:
    """What one iterator's chain shares: its stop event and the closers of its threads."""

    def __init__(self, cancelled=None):
        self.stopped = threading.Event()
        self.cancelled = cancelled
        self._closers = []
        self._lock = threading.Lock()
        self.step = None  # the step of the GetNext now running, for cancellation
        self.seed_generators = {}  # a reshuffling stage's per-iterator seed generator

    def add_closer(self, fn):
        with self._lock:
            if self.stopped.is_set():
                fn()
            else:
                self._closers.append(fn)

    def should_stop(self):
        if self.stopped.is_set():
            return True
        if self.cancelled is not None and self.cancelled.is_set():
            return True
        step = self.step
        return step is not None and step.cancelled.is_set()

    def close(self):
        with self._lock:
            self.stopped.set()
            closers, self._closers = self._closers, []
        for fn in reversed(closers):
            fn()


class DatasetValue:
    """Base of the pipeline stages. ``iterate(rt)`` returns an iterator of flat elements."""

    def iterate(self, rt):
        raise NotImplementedError

    def initialize(self, rt):
        """What TF's Initialize of an iterator over this stage does that shows later: most
        stages make their input's iterator at once, and a reshuffling shuffle draws its seeds
        (:meth:`Shuffle.initialize`). TF makes (and drops) one more input iterator after each
        pass of a shuffle or finite repeat; those call this, so an inner shuffle's seed
        generator has moved on as in TF when its next pass begins."""
        input_ = getattr(self, "input", None)
        if input_ is not None:
            input_.initialize(rt)


# ------------------------------------------------------------------------------------------
# sources
# ------------------------------------------------------------------------------------------


class TensorSlices(DatasetValue):
    def __init__(self, components):
        comps = [c if isinstance(c, (SparseValue, RaggedTensorValue)) else np.asarray(c)
                 for c in components]
        sizes = {int(c.dense_shape[0]) if isinstance(c, SparseValue) else
                 len(c.row_splits) - 1 if isinstance(c, RaggedTensorValue) else
                 (c.shape[0] if c.ndim else -1) for c in comps}
        if -1 in sizes:
            raise errors.InvalidArgumentError(None, None, "Input components must have rank "
                                              "at least 1 to be sliced.")
        if len(sizes) > 1:
            raise errors.InvalidArgumentError(
                None, None, "All components must have the same size in the 0th dimension: "
                f"got {sorted(sizes)}")
        self.n = sizes.pop() if sizes else 0
        self.components = comps

    def iterate(self, rt):
        rows = [unstack(c) if isinstance(c, (SparseValue, RaggedTensorValue)) else c
                for c in self.components]
        return _slices(rows, self.n)


_SLICE_CHUNK = 1024


def _slices(rows, n):
    """Element i is ``[r[i] for r in rows]``: a chunk of rows at a time, split by NumPy's
    iteration and regrouped by zip (memory for one chunk's row views only)."""
    for start in range(0, n, _SLICE_CHUNK):
        stop = start + _SLICE_CHUNK
        yield from map(list, zip(*[list(r[start:stop]) for r in rows]))


class Tensors(DatasetValue):
    def __init__(self, components):
        self.components = list(components)

    def iterate(self, rt):
        return iter([list(self.components)])


class Range(DatasetValue):
    def __init__(self, start, stop, step):
        if step == 0:
            raise errors.InvalidArgumentError(None, None, "step must be a non-zero integer.")
        self.args = (int(start), int(stop), int(step))

    def iterate(self, rt):
        return ([np.array(i, np.int64)] for i in range(*self.args))


class Generator(DatasetValue):
    """Elements from a Python generator function, checked against the declared specs."""

    def __init__(self, fn, args, dtypes_, shapes, structure):
        self.fn, self.args, self.dtypes, self.shapes = fn, args, dtypes_, shapes
        self.structure = structure

    def iterate(self, rt):
        it = _GeneratorIter(self, iter(self.fn(*self.args)))
        rt.add_closer(it.close)
        return it

    def check(self, value):
        """The flat arrays of one yielded ``value``, or the error TF raises for it."""
        from tideflow.ops.dataset_structure import flatten_up_to

        try:
            # as TF: the value is split only as deep as the declared structure goes (a tuple
            # where a tensor is expected is that tensor's value)
            flat = flatten_up_to(self.structure, value)
        except (TypeError, ValueError):
            flat = None
        if flat is None or len(flat) != len(self.dtypes):
            _generator_error(TypeError(
                f"`generator` yielded an element that did not match the expected structure. "
                f"The expected structure was {self.structure}, but the yielded element was "
                f"{value}."))
        out = []
        for v, d, s in zip(flat, self.dtypes, self.shapes):
            try:
                try:
                    a = np.asarray(v, dtype=object if d.name == "string" else d.as_numpy_dtype)
                except OverflowError:
                    # a Python int beyond the type wraps, as NumPy 1.x (TF 1.15's) converts
                    # it; one beyond int64 stays an error
                    a = np.asarray(v, dtype=np.int64).astype(d.as_numpy_dtype)
                if d.name == "string":
                    a = np.vectorize(_as_bytes, otypes=[object])(a) if a.size else a
            except (TypeError, ValueError) as e:
                _generator_error(TypeError(
                    f"`generator` yielded an element that could not be converted to the "
                    f"expected type. The expected type was {d.name}, but the yielded element "
                    f"was {v}."), cause=e)
            if s.ndims is not None and not s.is_compatible_with(np.shape(a)):
                _generator_error(ValueError(
                    f"`generator` yielded an element of shape {np.shape(a)} where an element "
                    f"of shape {s} was expected."))
            out.append(a)
        return out


def _generator_error(exc, cause=None):
    """Raises TF 1.15's error for a yielded element it rejects: ``exc`` raised in the py_func
    TF runs the generator in, so written as a py_func's error (TF shows the conversion's own
    exception first, then "During handling ...": ``cause``)."""
    from tideflow.ops.script_ops import py_func_error

    try:
        try:
            raise exc from None if cause is None else cause
        finally:
            del cause
    except Exception as e:  # noqa: BLE001 (only to format it)
        if e.__cause__ is not None:
            e.__context__, e.__cause__, e.__suppress_context__ = e.__cause__, None, False
        err = py_func_error(e)
    raise err from None


class _GeneratorIter:
    """Iterates a Python generator for ``Generator``. As in TF, an element of the wrong
    type, shape or structure raises its error in its turn and the iteration goes on with the
    next element (an exception raised by the generator itself ends it)."""

    def __init__(self, owner, gen):
        self.owner, self.gen = owner, gen
        self.closing = False

    def __iter__(self):
        return self

    def close(self):
        try:
            getattr(self.gen, "close", lambda: None)()
        except ValueError:
            # the generator is running in another thread (a prefetch's, when the session
            # closes mid-step): that thread closes it once its element is done
            self.closing = True

    def __next__(self):
        if self.closing:
            self.close()
            raise StopIteration
        try:
            value = next(self.gen)
            if self.closing:
                self.close()
                raise StopIteration
        except StopIteration:
            raise
        except errors.OpError:
            raise
        except Exception as e:  # as TF's py_func: the exception's class and message
            from tideflow.ops.script_ops import py_func_error

            # TF maps the class as its py_func does: ValueError/TypeError ->
            # InvalidArgumentError, MemoryError -> ResourceExhaustedError, ..., others
            # (KeyError, RuntimeError, ...) -> UnknownError.
            raise py_func_error(e) from e
        return self.owner.check(value)


def _as_bytes(x):
    if isinstance(x, str):
        return x.encode()
    if isinstance(x, (bytes, bytearray, memoryview)):
        return bytes(x)
    # as TF's py_func conversion of a string output (bytes(3) would be three NUL bytes)
    raise errors.InternalError(None, None, f"Unsupported object type {type(x).__name__}")


# ------------------------------------------------------------------------------------------
# transformations
# ------------------------------------------------------------------------------------------


class _Fail:
    """An error of an input element, carried through a generator stage as an element so the
    stage lives on after it (TF raises a failed element's error in its turn and the iteration
    goes on; a Python generator that raises is finished)."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error


def _tap(src):
    """The elements of the iterator ``src``, each error it raises yielded as a ``_Fail``."""
    while True:
        try:
            elem = next(src)
        except StopIteration:
            return
        except errors.OpError as e:
            # without its traceback: the executor clears the frames of a failed step's
            # traceback, which would close the generators suspended in it (this one)
            yield _Fail(e.with_traceback(None))
            continue
        yield elem


class _Surface:
    """A generator stage's elements as an iterator that raises each ``_Fail``'s error in its
    turn, the generator still alive for the next call."""

    __slots__ = ("gen",)

    def __init__(self, gen):
        self.gen = gen

    def __iter__(self):
        return self

    def __next__(self):
        elem = next(self.gen)
        if type(elem) is _Fail:
            raise elem.error
        return elem


def resumable(genfunc):
    """Decorates a stage's ``iterate`` generator: its output raises errors without ending it.
    The generator reads its input through ``_tap`` and passes each ``_Fail`` on."""

    def iterate(self, rt):
        return _Surface(genfunc(self, rt))

    iterate.__name__ = genfunc.__name__
    iterate.__doc__ = genfunc.__doc__
    return iterate


class Zip(DatasetValue):
    def __init__(self, inputs):
        self.inputs = list(inputs)

    def initialize(self, rt):
        for d in self.inputs:
            d.initialize(rt)

    @resumable
    def iterate(self, rt):
        its = [_tap(d.iterate(rt)) for d in self.inputs]
        for elems in zip(*its):
            fail = next((e for e in elems if type(e) is _Fail), None)
            yield fail if fail is not None else [c for e in elems for c in e]


class Concatenate(DatasetValue):
    def __init__(self, a, b):
        self.a, self.b = a, b

    def initialize(self, rt):
        self.a.initialize(rt)

    @resumable
    def iterate(self, rt):
        yield from _tap(self.a.iterate(rt))
        yield from _tap(self.b.iterate(rt))


class _MapIter:
    """An iterator that survives errors of its function (the next call goes on)."""

    __slots__ = ("args", "fn", "src")

    def __init__(self, src, fn, args):
        self.src, self.fn, self.args = src, fn, args

    def __iter__(self):
        return self

    def __next__(self):
        elem = next(self.src)
        return self.fn(*elem, *self.args)


class _MapIterTap(_MapIter):
    """A map read by a batch TF 1.15 fuses with it into MapAndBatch: a failed element (of
    the input or the function) is an element, a ``_Fail``, and ``failed`` tells the batch."""

    __slots__ = ("failed",)

    def __init__(self, src, fn, args):
        super().__init__(src, fn, args)
        self.failed = False

    def __next__(self):
        try:
            elem = next(self.src)
            return self.fn(*elem, *self.args)
        except errors.OpError as e:
            self.failed = True
            return _Fail(e.with_traceback(None))


class Map(DatasetValue):
    """``fn`` on each element, in order. With ``num_parallel_calls`` > 1 the calls run on a
    pool of threads only where threads can overlap them (:func:`threads_help`); a function of
    small Python-run kernels runs inline, as the GIL would serialize its calls anyway and the
    hand-offs to a pool cost more than the calls (a per-example parse map ran at half speed).
    Either way the elements, their order, the errors and the end are the same."""

    def __init__(self, input_, fn, captured, num_parallel_calls=1):
        self.input, self.fn, self.captured = input_, fn, list(captured)
        self.parallel = int(num_parallel_calls)

    def iterate(self, rt, tap=False):
        """``tap``: for a fused batch, failed elements as ``_Fail`` s (see _MapIterTap)."""
        src = self.input.iterate(rt)
        if self.parallel <= 1:
            return (_MapIterTap if tap else _MapIter)(src, self.fn, self.captured)
        return _ParallelMapIter(src, self.fn, self.captured, self.parallel, rt, tap)


# op types whose kernels wait (files, Python functions that may sleep or do I/O) or spend
# their time in native code that releases the GIL (image codecs, BLAS): threads overlap these
_THREADED_OP_TYPES = frozenset({
    "PyFunc", "PyFuncStateless", "EagerPyFunc", "ReadFile", "WholeFileReader",
    "DecodeJpeg", "DecodeAndCropJpeg", "DecodePng", "DecodeImage", "DecodeGif", "DecodeBmp",
    "EncodeJpeg", "EncodePng", "DecodeCompressed", "ResizeBilinear", "ResizeBicubic",
    "ResizeArea", "ResizeNearestNeighbor", "ResizeBilinearV2", "ScaleAndTranslate",
    "CropAndResize", "MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "Einsum",
    "Conv2D", "Conv3D", "DepthwiseConv2dNative", "Fft", "FFT", "IFFT", "RFFT", "IRFFT",
    "MatrixInverse", "Svd", "Qr", "Cholesky", "SelfAdjointEigV2", "MatrixSolve",
})
# an input element of at least this many bytes: NumPy's own loops (which release the GIL)
# are most of the work, so threads overlap them too
_THREADED_ELEMENT_BYTES = 1 << 20
# a parallel map that could use a pool times its first calls inline; a pool starts if they
# took this long (median)
_PROBE = 5
_POOL_MIN_CALL_S = 300e-6


def threads_help(fn, elem=None):
    """Whether running ``fn`` (a compiled dataset function) on threads can overlap its calls:
    it holds a kernel of ``_THREADED_OP_TYPES`` (in its body or a body it calls), or the
    element it gets is large. Unknown functions: yes."""
    plan = getattr(fn, "plan", None)
    if plan is None:
        return True
    verdict = getattr(fn, "_threads_help", None)
    if verdict is None:
        verdict = _ops_wait(plan.ops, set())
        try:
            fn._threads_help = verdict
        except AttributeError:
            pass
    if verdict:
        return True
    if elem is not None:
        nbytes = sum(getattr(c, "nbytes", 0) for c in elem)
        return nbytes >= _THREADED_ELEMENT_BYTES
    return False


def _ops_wait(ops_, seen):
    from tideflow.framework import func_graph

    for op in ops_:
        if op._type in _THREADED_OP_TYPES:
            return True
        for v in op._attrs.values():
            names = v if isinstance(v, (list, tuple)) else (v,)
            for name in names:
                if not isinstance(name, str) or name in seen:
                    continue
                fg = getattr(op._graph, "_functions", {}).get(func_graph.function_name(name))
                if fg is None:  # not a function's name
                    continue
                seen.add(name)
                if _ops_wait(fg._ops, seen):
                    return True
    return False


class _ParallelMapIter:
    """``num_parallel_calls`` calls of ``fn`` ahead, in order. On the first element it decides
    whether a pool could help (:func:`threads_help`); if so, the first ``_PROBE`` calls run
    inline, timed, and the pool starts only if their median took ``_POOL_MIN_CALL_S`` or more
    (a pool's hand-off, ~50 us a call, would otherwise cost more than the overlap gains: a
    pure-Python py_func map ran 10x slower on two threads). Without a pool it is
    :class:`_MapIter`. An element whose call failed raises its error in its turn; the next
    call goes on (as TF's ParallelMapDataset does)."""

    __slots__ = ("args", "exhausted", "failed", "fn", "n", "pending", "pool", "rt", "src", "tap",
                 "times")

    def __init__(self, src, fn, args, n, rt, tap=False):
        self.src, self.fn, self.args, self.n, self.rt = src, fn, args, n, rt
        self.tap, self.failed = tap, False
        self.pool = None  # None: not decided; False: inline
        self.times = None  # while probing: the calls' durations
        self.pending = collections.deque()
        self.exhausted = False

    def __iter__(self):
        return self

    def __next__(self):
        try:
            pool = self.pool
            if pool is False:
                elem = next(self.src)
                return self.fn(*elem, *self.args)
            pending = self.pending
            if pool is None:
                elem = next(self.src)
                times = self.times
                if times is None:
                    if not threads_help(self.fn, elem):
                        self.pool = False
                        return self.fn(*elem, *self.args)
                    times = self.times = []
                if len(times) < _PROBE:
                    t0 = time.perf_counter()
                    try:
                        return self.fn(*elem, *self.args)
                    finally:
                        times.append(time.perf_counter() - t0)
                if sorted(times)[len(times) // 2] < _POOL_MIN_CALL_S:
                    self.pool = False
                    return self.fn(*elem, *self.args)
                pool = self.pool = concurrent.futures.ThreadPoolExecutor(
                    self.n, thread_name_prefix="tf_data_map", initializer=_ignore_fp_warnings)
                self.rt.add_closer(lambda: pool.shutdown(wait=False, cancel_futures=True))
                pending.append(pool.submit(self.fn, *elem, *self.args))
            fn, args, src = self.fn, self.args, self.src
            while not self.exhausted and len(pending) < self.n:
                try:
                    elem = next(src)
                except StopIteration:
                    self.exhausted = True
                    break
                except Exception as e:  # the input's error, in its turn
                    if not pending:
                        raise
                    failed = concurrent.futures.Future()
                    failed.set_exception(e)
                    pending.append(failed)
                    continue
                pending.append(pool.submit(fn, *elem, *args))
            if not pending:
                raise StopIteration
            return pending.popleft().result()
        except errors.OpError as e:
            if not self.tap:
                raise
            self.failed = True  # (a fused batch's element: see _MapIterTap)
            return _Fail(e.with_traceback(None))


def _ignore_fp_warnings():
    np.seterr(all="ignore")  # the calling thread's own setting, as in a step's kernels


class Filter(DatasetValue):
    def __init__(self, input_, fn, captured):
        self.input, self.fn, self.captured = input_, fn, list(captured)

    @resumable
    def iterate(self, rt):
        fn, args = self.fn, self.captured
        for elem in _tap(self.input.iterate(rt)):
            if type(elem) is _Fail:
                yield elem
                continue
            try:
                (keep,) = fn(*elem, *args)
            except errors.OpError as e:
                yield _Fail(e.with_traceback(None))
                continue
            if np.ndim(keep) != 0:
                raise errors.InvalidArgumentError(
                    None, None, "Filter predicate `f` must return a scalar bool.")
            if keep:
                yield elem


class FlatMap(DatasetValue):
    def __init__(self, input_, fn, captured):
        self.input, self.fn, self.captured = input_, fn, list(captured)

    @resumable
    def iterate(self, rt):
        for elem in _tap(self.input.iterate(rt)):
            if type(elem) is _Fail:
                yield elem
                continue
            try:
                (ds,) = self.fn(*elem, *self.captured)
            except errors.OpError as e:
                yield _Fail(e.with_traceback(None))
                continue
            yield from _tap(ds.iterate(rt))


class Interleave(DatasetValue):
    """Cycles over ``cycle_length`` open inner datasets, ``block_length`` elements each."""

    def __init__(self, input_, fn, captured, cycle_length, block_length,
                 error_takes_slot=False, slot_seeds=False):
        self.input, self.fn, self.captured = input_, fn, list(captured)
        # TF 1.15's InterleaveDataset (its op's name here) opens each slot's datasets under the
        # prefix "...[slot]": a reshuffling shuffle in them draws its seeds from that slot's
        # generator
        self.slot_seeds = slot_seeds
        # experimental.parallel_interleave: an input (or function) that fails takes a slot as
        # a dataset of that one error, so the cycle goes on past it, as TF's
        # ParallelInterleaveDataset; Dataset.interleave retries the slot instead
        self.error_takes_slot = error_takes_slot
        if cycle_length == -1:  # AUTOTUNE: as TF, the number of CPU cores
            import os

            cycle_length = os.cpu_count() or 1
        elif cycle_length <= 0:
            raise errors.InvalidArgumentError(None, None, "cycle_length must be greater than "
                                              "zero.")
        if block_length <= 0:
            raise errors.InvalidArgumentError(None, None, "block_length must be greater than "
                                              "zero.")
        self.cycle, self.block = int(cycle_length), int(block_length)

    def iterate(self, rt):
        return _InterleaveIter(self, rt)


class _InterleaveIter:
    """TF's order: a fixed ring of slots; an empty slot opens the next input on its turn. An
    error (of the input, of the function or of an open dataset) is raised in its turn and the
    iteration goes on after it, as TF's InterleaveDataset (a generator would end there)."""

    def __init__(self, owner, rt):
        self.owner, self.rt = owner, rt
        self.src = owner.input.iterate(rt)
        self.slots = [None] * owner.cycle
        self.n_open, self.end, self.i, self.k = 0, False, 0, 0

    def __iter__(self):
        return self

    def __next__(self):
        owner, slots = self.owner, self.slots
        while not self.end or self.n_open:
            i = self.i
            it = slots[i]
            if it is not None:
                try:
                    elem = next(it)
                except StopIteration:
                    slots[i] = None
                    self.n_open -= 1
                    self.i, self.k = (i + 1) % owner.cycle, 0
                    continue
                except errors.OpError:
                    if owner.error_takes_slot:  # the error is an element of the block
                        self.k += 1
                        if self.k == owner.block:
                            self.i, self.k = (i + 1) % owner.cycle, 0
                    raise
                self.k += 1
                if self.k == owner.block:
                    self.i, self.k = (i + 1) % owner.cycle, 0
                return elem
            if not self.end:
                try:
                    arg = next(self.src)
                    (ds,) = owner.fn(*arg, *owner.captured)
                except StopIteration:
                    self.end = True
                    continue
                except errors.OpError as e:
                    if not owner.error_takes_slot:
                        raise
                    slots[i] = _raise_once(e.with_traceback(None))
                    self.n_open += 1
                    continue
                rt = self.rt
                if owner.slot_seeds:
                    key = owner.slot_seeds if getattr(rt, "seed_scope", False) else id(owner)
                    rt = _SlotRuntime(rt, rt.seed_generators.setdefault((key, i), {}))
                slots[i] = ds.iterate(rt)
                self.n_open += 1
            else:
                self.i, self.k = (i + 1) % owner.cycle, 0
        raise StopIteration


class _SlotRuntime:
    """The iterator's runtime as an interleave slot's datasets see it: their own table of
    shuffle seed generators, keyed by op name; everything else the iterator's."""

    seed_scope = True

    def __init__(self, rt, seed_generators):
        self._rt, self.seed_generators = rt, seed_generators

    def __getattr__(self, name):
        return getattr(self._rt, name)


class _raise_once:
    """An iterator that raises ``error`` once, then ends."""

    __slots__ = ("error",)

    def __init__(self, error):
        self.error = error

    def __iter__(self):
        return self

    def __next__(self):
        err, self.error = self.error, None
        if err is None:
            raise StopIteration
        raise err


class Batch(DatasetValue):
    def __init__(self, input_, batch_size, drop_remainder, dtypes_, unfused=False):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                              "zero.")
        self.input, self.n, self.drop = input_, int(batch_size), bool(drop_remainder)
        self.dtypes = dtypes_
        self.unfused = unfused

    def iterate(self, rt):
        # TF 1.15 fuses a batch of a map into MapAndBatch (map_and_batch_fusion, unless the
        # options turn it off): its errors and shape errors differ (see _BatchIter)
        if isinstance(self.input, Map) and not self.unfused:
            return _BatchIter(self.input.iterate(rt, True), self.n, self.drop, self.dtypes,
                              True)
        return _BatchIter(self.input.iterate(rt), self.n, self.drop, self.dtypes)


class _BatchIter:
    """Batch's iterator; an input error drops the batch begun and the next call goes on with
    the following elements (as TF's BatchDataset), instead of ending the iterator."""

    __slots__ = ("drop", "dts", "fused", "n", "src")

    def __init__(self, src, n, drop, dts, fused=False):
        self.src, self.n, self.drop, self.dts, self.fused = src, n, drop, dts, fused

    def __iter__(self):
        return self

    def __next__(self):
        n = self.n
        elems = list(itertools.islice(self.src, n))
        if self.fused and (self.src.failed or (self.drop and elems and len(elems) < n)):
            self._fused_failure(elems)
        if not elems or (self.drop and len(elems) < n):
            raise StopIteration
        return [stack(list(map(operator.itemgetter(k), elems)), d, k, self.fused)
                for k, d in enumerate(self.dts)]

    def _fused_failure(self, elems):
        """TF's MapAndBatch: a failed element (its map's _Fail) fails its whole batch, the
        other elements used up; a partial batch it drops still checks its elements' shapes."""
        src = self.src
        if src.failed:
            src.failed = False
            raise next(e.error for e in elems if type(e) is _Fail)
        for k in range(len(self.dts)):
            _same_shapes([e[k] for e in elems])


class MapAndBatch(DatasetValue):
    """``map_and_batch``: TF's fused stage. Its map preserves cardinality (a function's
    OutOfRangeError, e.g. a py_func raising StopIteration, is an InvalidArgumentError) and a
    failed element fails its whole batch, whose other elements are used up."""

    def __init__(self, input_, fn, captured, batch_size, num_parallel_calls, drop_remainder,
                 dtypes_):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "batch_size must be greater than "
                                              "zero.")
        self.map = Map(input_, fn, captured, num_parallel_calls)
        self.n, self.drop, self.dtypes = int(batch_size), bool(drop_remainder), dtypes_

    def initialize(self, rt):
        self.map.initialize(rt)

    def iterate(self, rt):
        return _MapAndBatchIter(self.map.iterate(rt), self.n, self.drop, self.dtypes)


class _MapAndBatchIter:
    __slots__ = ("drop", "dts", "n", "src")

    def __init__(self, src, n, drop, dts):
        self.src, self.n, self.drop, self.dts = src, n, drop, dts

    def __iter__(self):
        return self

    def __next__(self):
        elems, err, count = [], None, 0
        while count < self.n:
            try:
                elem = next(self.src)
            except StopIteration:
                break
            except errors.OutOfRangeError as e:
                err = err or errors.InvalidArgumentError(
                    None, None, f"Function invocation produced OutOfRangeError: {e.message}")
            except errors.OpError as e:
                err = err or e.with_traceback(None)
            else:
                elems.append(elem)
            count += 1
        if count == 0:
            raise StopIteration
        if err is not None:
            raise err
        if self.drop and count < self.n:
            # TF 1.15 copies each result into the batch as it comes, so a partial batch it
            # drops still fails on an element whose shape differs from the first's
            for k in range(len(self.dts)):
                _same_shapes([e[k] for e in elems])
            raise StopIteration
        out = []
        for k, d in enumerate(self.dts):
            vals = [e[k] for e in elems]
            _same_shapes(vals)
            out.append(stack(vals, d, k))
        return out


def _same_shapes(vals):
    first = (np.shape(vals[0]) if not isinstance(vals[0], (SparseValue, RaggedTensorValue))
             else None)
    if first is not None:
        for v in vals[1:]:
            if np.shape(v) != first:
                raise errors.InvalidArgumentError(
                    None, None, "Cannot add tensor to the batch: number of elements "
                    f"does not match. Shapes are: [tensor]: {_shape_str(np.shape(v))}, "
                    f"[batch]: {_shape_str(first)}")


def _shape_str(shape):
    return "[" + ",".join(str(int(d)) for d in shape) + "]"


class PaddedBatch(DatasetValue):
    def __init__(self, input_, batch_size, padded_shapes, padding_values, drop_remainder,
                 dtypes_):
        if batch_size <= 0:
            raise errors.InvalidArgumentError(None, None, "Batch size must be greater than "
                                              "zero.")
        self.input, self.n, self.drop = input_, int(batch_size), bool(drop_remainder)
        self.padded_shapes = [[int(d) for d in np.reshape(s, -1)] for s in padded_shapes]
        for shape in self.padded_shapes:
            for d in shape:
                if d < -1:  # (-1: the batch's longest)
                    raise errors.InvalidArgumentError(None, None,
                                                      f"Dimension {d} must be >= -1")
        self.padding_values = padding_values
        self.dtypes = dtypes_

    @resumable
    def iterate(self, rt):
        src = _tap(self.input.iterate(rt))
        while True:
            elems = []
            for elem in src:
                if type(elem) is _Fail:  # as Batch: the batch begun is dropped
                    break
                elems.append(elem)
                if len(elems) == self.n:
                    break
            else:
                elem = None
            if type(elem) is _Fail:
                yield elem
                continue
            if not elems or (self.drop and len(elems) < self.n):
                return
            try:
                out = self._pad(elems)
            except errors.OpError as e:  # as TF: that batch's error, the iteration goes on
                yield _Fail(e.with_traceback(None))
                continue
            yield out

    def _pad(self, elems):
        out = []
        for k, d in enumerate(self.dtypes):
            # strings as object arrays: NumPy's 'S' would drop trailing NUL bytes
            obj = object if d.name == "string" else None
            vals = [np.asarray(e[k], dtype=obj) for e in elems]
            want = self.padded_shapes[k]
            if any(v.ndim != len(want) for v in vals):
                raise errors.InvalidArgumentError(
                    None, None, f"Mismatched rank for padded shape of component {k}: "
                    f"expected {len(want)}, got {vals[0].ndim}")
            dims = []
            for j, w in enumerate(want):
                m = max(v.shape[j] for v in vals)
                if w >= 0:
                    if m > w:
                        raise errors.DataLossError(  # TF's class and words
                            None, None, "Attempted to pad to a smaller size than the "
                            "input element.")
                    m = w
                dims.append(m)
            pad = np.asarray(self.padding_values[k])
            arr = np.full((len(vals), *dims), pad[()] if pad.ndim == 0 else pad,
                          dtype=object if d.name == "string" else d.as_numpy_dtype)
            for j, v in enumerate(vals):
                if v.ndim:
                    arr[(j, *(slice(0, s) for s in v.shape))] = v
                else:
                    arr[j] = v[()]
            out.append(arr)
        return out


class Unbatch(DatasetValue):
    def __init__(self, input_):
        self.input = input_

    @resumable
    def iterate(self, rt):
        for elem in _tap(self.input.iterate(rt)):
            if type(elem) is _Fail:
                yield elem
                continue
            if any(isinstance(c, (np.ndarray, np.generic)) and c.ndim == 0 for c in elem):
                yield _Fail(errors.InvalidArgumentError(
                    None, None, "Input element must have a non-scalar value in each "
                    "component."))
                continue
            rows = [unstack(c) for c in elem]
            sizes = {len(r) for r in rows}
            if len(sizes) > 1:
                # TF 1.15's words, naming the first component whose size differs
                i = next(i for i, r in enumerate(rows) if len(r) != len(rows[0]))
                yield _Fail(errors.InvalidArgumentError(
                    None, None, "Input element must have the same batch size in each "
                    f"component. Component 0 had size {len(rows[0])} but component {i} had "
                    f"size, {len(rows[i])}."))
                continue
            yield from ([r[i] for r in rows] for i in range(sizes.pop() if sizes else 0))


class Shuffle(DatasetValue):
    """TF's ShuffleDataset: a ring buffer of ``buffer_size`` elements, each output drawn from
    it by a Philox word modulo its fill, the slot refilled from the input. With
    ``reshuffle_each_iteration`` each pass over the input (each repeat) takes new seeds from a
    seed generator that the iterator keeps from its initialization, as TF does; so a seeded
    pipeline gives TF's order."""

    def __init__(self, input_, buffer_size, seed, seed2, reshuffle, name=None):
        self.name = name
        if buffer_size <= 0:
            raise errors.InvalidArgumentError(None, None, "buffer_size must be greater than "
                                              "zero.")
        self.input, self.size, self.reshuffle = input_, int(buffer_size), bool(reshuffle)
        if seed == 0 and seed2 == 0:  # TF: random seeds
            seed, seed2 = (int(x) for x in np.random.SeedSequence().generate_state(2, np.uint64))
        self.seed, self.seed2 = int(seed), int(seed2)

    def _words(self, rt):
        if not self.reshuffle:
            return PhiloxWords(self.seed, self.seed2)
        gens = rt.seed_generators
        # TF keys the generator by the iterator's prefix and the op's name: the datasets an
        # interleave opens in one slot (a scope of their own) share it
        key = self.name if getattr(rt, "seed_scope", False) else id(self)
        gen = gens.get(key)
        if gen is None:
            gen = gens[key] = (self, PhiloxWords(self.seed, self.seed2))
        gen = gen[1]
        return PhiloxWords(gen(), gen())

    def initialize(self, rt):
        # TF's shuffle draws its seeds when made and makes its input's iterator lazily
        if self.reshuffle:
            self._words(rt)

    @resumable
    def iterate(self, rt):
        # as TF's GetNext: fill the buffer from the input (an input error is that call's
        # result), then draw one element and free its slot for the next element
        rand = self._words(rt).take_words().__next__
        src = _tap(self.input.iterate(rt))
        size = self.size
        buf = []  # the ring: slot k % size holds element k
        start = end = 0
        ended = False
        while True:
            while end - start < size and not ended:
                elem = next(src, _END_OF_INPUT)
                if elem is _END_OF_INPUT:
                    ended = True
                    self.input.initialize(rt)  # TF's next epoch's iterator, dropped
                elif type(elem) is _Fail:
                    yield elem
                else:
                    k = end % size
                    if k == len(buf):
                        buf.append(elem)
                    else:
                        buf[k] = elem
                    end += 1
            if end == start:
                return
            i = (start + rand() % (end - start)) % size
            out = buf[i]
            j = start % size
            buf[i] = buf[j]
            buf[j] = None
            start += 1
            yield out


_END_OF_INPUT = object()


# RepeatDataset ops whose datasets' options turned shuffle_and_repeat_fusion off
UNFUSED_REPEATS = weakref.WeakSet()
# ... and those whose options turned noop_elimination off
NOOPS_KEPT = weakref.WeakSet()
# BatchDatasetV2 ops whose datasets' options turned map_and_batch_fusion off
UNFUSED_BATCHES = weakref.WeakSet()


class ShuffleAndRepeat(DatasetValue):
    """A reshuffling ShuffleDataset read by a RepeatDataset, fused as TF 1.15's default
    ``shuffle_and_repeat_fusion`` fuses them (and as ``tf.data.experimental.shuffle_and_repeat``
    builds it): one Philox stream from (seed, seed2) draws through every epoch; the buffer
    fills across an epoch's end, but each draw takes from the oldest epoch still in it, so no
    epoch's elements mix with the next's."""

    def __init__(self, shuffle, count):
        self.input, self.size = shuffle.input, shuffle.size
        self.seed, self.seed2 = shuffle.seed, shuffle.seed2
        self.count = int(count)
        if self.count <= 0 and self.count != -1:
            # TF 1.15's kernel, also where the fusion made it of shuffle().repeat(0)
            raise errors.InvalidArgumentError(None, None, "count must be greater than zero or "
                                              "equal to -1.")

    def initialize(self, rt):
        pass  # TF's makes its input's iterator on the first call; its seeds are fixed

    @resumable
    def iterate(self, rt):
        rand = PhiloxWords(self.seed, self.seed2).take_words().__next__
        size, count = self.size, self.count
        buf = [None] * size  # the ring: element k (counted over all epochs) in slot k % size
        epochs = collections.deque()  # [first, end) of each epoch's elements still buffered
        end = held = passes = 0
        src = None
        got = False  # whether the current pass over the input gave an element
        done = count == 0
        while True:
            while not done and held < size:
                if src is None:
                    src = _tap(self.input.iterate(rt))
                    epochs.append([end, end])
                    got = False
                elem = next(src, _END_OF_INPUT)
                if elem is _END_OF_INPUT:
                    src = None
                    passes += 1
                    # an empty input repeated forever is empty
                    done = passes >= count if count >= 0 else not got
                    if done and count >= 0:  # TF makes the iterator of a pass after the last
                        self.input.initialize(rt)
                    continue
                got = True  # (an error too: TF repeats an input of errors forever)
                if type(elem) is _Fail:
                    yield elem
                    continue
                buf[end % size] = elem
                end += 1
                epochs[-1][1] = end
                held += 1
            if held == 0:
                return
            while epochs[0][0] == epochs[0][1]:
                epochs.popleft()
            first = epochs[0]
            i = (first[0] + rand() % (first[1] - first[0])) % size
            out = buf[i]
            j = first[0] % size
            buf[i] = buf[j]
            buf[j] = None
            first[0] += 1
            held -= 1
            yield out


class Repeat(DatasetValue):
    def __init__(self, input_, count):
        self.input, self.count = input_, int(count)

    def initialize(self, rt):
        # TF's finite repeat makes its input's iterator at once, repeat() on the first call
        if self.count > 0:
            self.input.initialize(rt)

    @resumable
    def iterate(self, rt):
        n = 0
        while self.count < 0 or n < self.count:
            any_ = False
            for elem in _tap(self.input.iterate(rt)):
                any_ = True
                yield elem
            n += 1
            if self.count > 0 and n == self.count:
                # TF's finite repeat makes the iterator of a pass after the last, unread
                self.input.initialize(rt)
            if not any_:  # an empty input repeated forever is empty
                return


class Take(DatasetValue):
    def __init__(self, input_, count):
        self.input, self.count = input_, int(count)

    def iterate(self, rt):
        src = self.input.iterate(rt)
        return src if self.count < 0 else _Surface(self._take(src))

    def _take(self, src):
        # as TF: no input element is read past the count, and the call after the last drops
        # the input's iterator (a file cache's writer lets its lockfile go)
        n, count = 0, self.count
        if count == 0:
            return
        for elem in _tap(src):
            if type(elem) is not _Fail:  # as TF: a failed element is not counted
                n += 1
            yield elem
            if n >= count:
                return


class Skip(DatasetValue):
    def __init__(self, input_, count):
        self.input, self.count = input_, int(count)

    def iterate(self, rt):
        src = self.input.iterate(rt)
        if self.count < 0:
            return iter(())
        return _Surface(self._skip(src)) if self.count else src

    def _skip(self, src):
        n = 0
        for elem in _tap(src):
            if n < self.count and type(elem) is not _Fail:
                n += 1
                continue
            yield elem


class Shard(DatasetValue):
    def __init__(self, input_, num_shards, index):
        if num_shards <= 0:
            raise errors.InvalidArgumentError(None, None, "Number of shards must be greater "
                                              f"than zero (currently num_shards = "
                                              f"{num_shards}).")
        if not 0 <= index < num_shards:
            raise errors.InvalidArgumentError(None, None, "Index must be between 0 and "
                                              f"{num_shards - 1} (currently index = {index}).")
        self.input, self.n, self.i = input_, int(num_shards), int(index)

    @resumable
    def iterate(self, rt):
        k = 0
        for elem in _tap(self.input.iterate(rt)):
            if type(elem) is _Fail:
                yield elem
                continue
            if k % self.n == self.i:
                yield elem
            k += 1


class Cache(DatasetValue):
    """Replays the elements of its first complete pass (in memory, or in ``filename``)."""

    def __init__(self, input_, filename):
        self.input, self.filename = input_, filename
        self._cached = None
        self._lock = threading.Lock()

    def iterate(self, rt):
        if self._cached is None and self.filename:
            self._cached = _read_cache_file(self.filename)
        if self._cached is not None:
            return iter(self._cached)
        return _Surface(self._fill(rt))

    def _fill(self, rt):
        release = None
        while self.filename and release is None:
            try:
                release = _lock_cache_file(self.filename, rt)
            except errors.AlreadyExistsError as e:
                # TF's writer tries the lockfile again on its next call: once the other
                # writer is done, this one reads its input (the cache file stays the first's)
                yield _Fail(e.with_traceback(None))  # (a traceback would close us)
        got = []
        try:
            for elem in _tap(self.input.iterate(rt)):
                if type(elem) is not _Fail:  # a failed element is not cached
                    got.append(elem)
                yield elem
            with self._lock:
                if self._cached is None:
                    self._cached = got
                    if self.filename:
                        _write_cache_file(self.filename, got)
        finally:  # written, or dropped unfinished (as TF's writer, whose lockfile goes)
            if release is not None:
                release()


def _lock_cache_file(filename, rt):
    """Claims the cache prefix for this writer, as TF's lockfile ``<prefix>_0.lockfile`` does:
    a second iterator writing the same cache meanwhile fails with AlreadyExistsError. The
    lock goes when the cache is written or the writing iterator is dropped."""
    import os
    import time

    path = f"{filename}_0.lockfile"
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None
    except FileExistsError:
        try:
            with open(path) as f:
                contents = f.read()
        except OSError:
            contents = ""
        raise errors.AlreadyExistsError(
            None, None, f"There appears to be a concurrent caching iterator running - cache "
            f"lockfile already exists ('{path}'). If you are sure no other running TF "
            f"computations are using this cache prefix, delete the lockfile and re-initialize "
            f"the iterator. Lockfile contents: {contents}") from None
    with os.fdopen(fd, "w") as f:
        f.write(f"Created at: {int(time.time())}")  # (TF's: seconds since the epoch)
    done = []

    def release():
        if not done:
            done.append(True)
            try:
                os.remove(path)
            except OSError:
                pass

    rt.add_closer(release)
    return release


# a complete cache is TF's pair of files: the elements (pickled here, not TF's tensor bundle)
# in the data file, and the index, written last, that marks it complete
def _cache_paths(filename):
    return f"{filename}.data-00000-of-00001", f"{filename}.index"


def _read_cache_file(filename):
    import os
    import pickle

    data, index = _cache_paths(filename)
    if not (os.path.exists(index) and os.path.exists(data)):
        return None
    with open(data, "rb") as f:
        return pickle.load(f)


def _write_cache_file(filename, elems):
    import os
    import pickle

    data, index = _cache_paths(filename)
    tmp = f"{data}.tmp{os.getpid()}"
    with open(tmp, "wb") as f:
        pickle.dump(elems, f, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, data)
    with open(index, "wb"):
        pass


class Prefetch(DatasetValue):
    """A background thread keeps up to ``buffer_size`` elements ready."""

    _END = object()

    def __init__(self, input_, buffer_size):
        self.input = input_
        if buffer_size < 0 and buffer_size != -1:
            raise errors.InvalidArgumentError(
                None, None, "buffer_size must be >= 0 or set buffer_size to be -1 for "
                "auto-tuning")
        # AUTOTUNE (-1) gets a buffer; a buffer of 0 reads nothing ahead (as TF, each element
        # comes from the input when it is asked for: a generator sees the state of that step)
        self.size = int(buffer_size) if buffer_size > 0 else 16 if buffer_size < 0 else 0

    def iterate(self, rt):
        if not self.size:
            return self.input.iterate(rt)
        buf = queue.Queue(self.size)
        stop = threading.Event()
        src = self.input.iterate(rt)

        def put(item):
            while not stop.is_set() and not rt.stopped.is_set():
                try:
                    buf.put(item, timeout=_WAIT_SLICE)
                    return True
                except queue.Full:
                    continue
            return False

        def fill():
            # as a step's kernels: NumPy's floating-point warnings off (dataset functions
            # run their plans without Plan.run's errstate)
            np.seterr(all="ignore")  # this thread's own setting
            while not stop.is_set():
                try:
                    elem = next(src)
                except StopIteration:
                    put((self._END, None))
                    return
                except BaseException as e:  # noqa: BLE001 - handed to the consumer
                    if not put((None, e)):
                        return
                    continue
                if not put((elem, None)):
                    return

        thread = threading.Thread(target=fill, name="tf_data_prefetch", daemon=True)

        def close():
            stop.set()
            if thread.is_alive() and thread is not threading.current_thread():
                thread.join(timeout=2.0)

        rt.add_closer(close)
        thread.start()
        self.thread = thread  # for tests: the latest prefetch thread
        return self._consume(buf, rt, thread)

    def _consume(self, buf, rt, thread):
        return _PrefetchIter(buf, rt, thread, self._END)


class _PrefetchIter:
    """The consumer side of ``Prefetch``: a failed element raises its error in its turn and
    the elements after it still come (a generator would end at the first error)."""

    def __init__(self, buf, rt, thread, end):
        self.buf, self.rt, self.thread, self.end = buf, rt, thread, end
        self.done = False

    def __iter__(self):
        return self

    def __next__(self):
        while not self.done:
            try:
                elem, err = self.buf.get(timeout=_WAIT_SLICE)
            except queue.Empty:
                if self.rt.should_stop():
                    raise errors.CancelledError(None, None, "Iterator was cancelled") from None
                if not self.thread.is_alive() and self.buf.empty():
                    self.done = True
                continue
            if elem is self.end:
                self.done = True
                break
            if err is not None:
                raise err
            return elem
        raise StopIteration


class SetErrors(DatasetValue):
    """Drops the elements whose computation failed (``tf.data.experimental.ignore_errors``)."""

    def __init__(self, input_):
        self.input = input_

    def iterate(self, rt):
        src = self.input.iterate(rt)
        while True:
            try:
                elem = next(src)
            except StopIteration:
                return
            except errors.OpError:
                continue
            yield elem
