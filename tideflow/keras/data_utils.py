"""``tf.keras.utils.get_file`` and its helpers (``validate_file``), as TF 1.15's
``keras.utils.data_utils``: a file kept in Keras's cache (``~/.keras/<cache_subdir>``, or
``/tmp/.keras`` when that is not writable), fetched with ``urllib`` when it is absent or its
hash does not match, then optionally unpacked (tar, tar.gz, tar.bz2, zip).

Machines without network access still work with ``file://`` origins and with files already
in the cache; a fetch that fails raises TF's ``Exception('URL fetch failure on <origin>: ...')``
and leaves no partial file behind. A fetched file whose hash differs from the one given
raises ``ValueError`` (as later Keras does; TF 1.15 did not check a fresh download).
"""

import hashlib
import itertools
import os
import queue
import random
import shutil
import tarfile
import threading
import weakref
import zipfile
from urllib.error import HTTPError, URLError
from urllib.request import urlretrieve


class Sequence:
    """Base class of batch sequences for ``fit_generator``: implement ``__getitem__`` and
    ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError

    def on_epoch_end(self):
        pass

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]



def _extract_archive(file_path, path=".", archive_format="auto"):
    """Unpacks ``file_path`` into ``path`` if it is an archive of one of ``archive_format``
    (``'auto'`` = ``['tar', 'zip']``; a string or a list); True when it was one."""
    if archive_format is None:
        return False
    if archive_format == "auto":
        archive_format = ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    for kind in archive_format:
        if kind == "tar":
            is_match, opener = tarfile.is_tarfile, tarfile.open
        elif kind == "zip":
            is_match, opener = zipfile.is_zipfile, zipfile.ZipFile
        else:
            continue
        if not is_match(file_path):
            continue
        with opener(file_path) as archive:
            try:
                if kind == "tar" and hasattr(tarfile, "data_filter"):
                    archive.extractall(path, filter="data")  # no paths out of ``path``
                else:
                    archive.extractall(path)
            except (tarfile.TarError, RuntimeError, KeyboardInterrupt):
                if os.path.exists(path):
                    if os.path.isfile(path):
                        os.remove(path)
                    else:
                        shutil.rmtree(path)
                raise
        return True
    return False


def _hash_file(fpath, algorithm="sha256", chunk_size=65535):
    """The hex digest of a file (``algorithm``: ``'sha256'``, ``'md5'`` or ``'auto'``, which
    is sha256)."""
    hasher = hashlib.md5() if algorithm == "md5" else hashlib.sha256()
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Whether ``fpath``'s hash is ``file_hash`` (``'auto'``: sha256 for a 64-digit hash,
    else md5)."""
    if algorithm == "sha256" or (algorithm == "auto" and len(file_hash) == 64):
        hasher = "sha256"
    else:
        hasher = "md5"
    return str(_hash_file(fpath, hasher, chunk_size)) == str(file_hash)


def get_file(fname, origin, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    """The path of ``fname`` in the cache, fetched from ``origin`` first when it is not
    there (or its ``file_hash``/``md5_hash`` differs). ``untar=True`` returns the folder
    ``fname`` unpacked from ``fname + '.tar.gz'``; ``extract=True`` unpacks the file next to
    itself and returns the file's path."""
    if cache_dir is None:
        cache_dir = os.path.join(os.path.expanduser("~"), ".keras")
    if md5_hash is not None and file_hash is None:
        file_hash = md5_hash
        hash_algorithm = "md5"
    datadir_base = os.path.expanduser(cache_dir)
    if not os.access(datadir_base, os.W_OK):
        datadir_base = os.path.join("/tmp", ".keras")
    datadir = os.path.join(datadir_base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)

    if untar:
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    download = True
    if os.path.exists(fpath):
        download = False
        if file_hash is not None and not validate_file(fpath, file_hash,
                                                       algorithm=hash_algorithm):
            print("A local file was found, but it seems to be incomplete or outdated "
                  f"because the {hash_algorithm} file hash does not match the original "
                  f"value of {file_hash} so we will re-download the data.")
            download = True

    if download:
        print("Downloading data from", origin)
        error_msg = "URL fetch failure on {}: {} -- {}"
        try:
            try:
                urlretrieve(origin, fpath)
            except HTTPError as e:
                raise Exception(error_msg.format(origin, e.code, e.msg)) from e  # noqa: TRY002
            except URLError as e:
                raise Exception(  # noqa: TRY002 (TF raises a plain Exception)
                    error_msg.format(origin, e.errno, e.reason)) from e
        except (Exception, KeyboardInterrupt):
            if os.path.exists(fpath):
                os.remove(fpath)
            raise
        # (later Keras's check; TF 1.15 returned a fetched file unchecked)
        if file_hash is not None and not validate_file(fpath, file_hash,
                                                       algorithm=hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} "
                             f"file hash does not match the provided value of {file_hash}.")

    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath


# -- enqueuers: batches drawn ahead by a pool of threads or processes ---------------------------
#
# As TF 1.15's: the sequence (or generator) is published in a module table under the
# enqueuer's uid; a background thread hands the pool one task per batch (``seq[i]`` or
# ``next(gen)``) and queues the pending results, which ``get()`` yields in queue order. Process
# pools are forked, so the children inherit the table (generators need no pickling; each child
# then draws from its own copy of a generator, as in Keras).

_SHARED_SEQUENCES = {}
_UIDS = itertools.count()


def _init_pool(seqs):
    global _SHARED_SEQUENCES
    _SHARED_SEQUENCES = seqs


def _init_pool_generator(seqs, random_seed=None):
    _init_pool(seqs)
    if random_seed is not None:
        import numpy as np

        np.random.seed(random_seed + os.getpid() % 10000)


def _get_index(uid, i):
    return _SHARED_SEQUENCES[uid][i]


def _next_sample(uid):
    return next(_SHARED_SEQUENCES[uid])


_DATA_POOLS = weakref.WeakSet()  # the process pools alive, for terminate_..._pools


def _fork_pool(workers, initializer, initargs):
    import multiprocessing

    pool = multiprocessing.get_context("fork").Pool(workers, initializer=initializer,
                                                    initargs=initargs)
    _DATA_POOLS.add(pool)
    return pool


def terminate_keras_multiprocessing_pools(grace_period=0.1, use_sigkill=False):
    """Terminates the process pools of the enqueuers still alive (``use_multiprocessing``);
    the messages of the pools that failed to stop (an empty list when all did)."""
    del grace_period, use_sigkill  # (Pool.terminate sends SIGTERM and joins)
    errors = []
    for pool in list(_DATA_POOLS):
        try:
            pool.terminate()
            pool.join()
        except Exception as e:  # noqa: BLE001 - reported to the caller, as Keras
            errors.append(f"{type(e).__name__}: {e}")
        _DATA_POOLS.discard(pool)
    return errors


class SequenceEnqueuer:
    """Base class of the enqueuers: ``start(workers, max_queue_size)`` launches the pool,
    ``get()`` is a generator of the batches, ``stop()`` ends it. Subclasses define ``_run``
    (the producer loop) and ``_get_executor_init`` (the process pool's factory)."""

    def __init__(self, sequence, use_multiprocessing=False):
        self.sequence = sequence
        self.use_multiprocessing = use_multiprocessing
        self.uid = next(_UIDS)
        self.workers = 0
        self.executor_fn = None
        self.queue = None
        self.run_thread = None
        self.stop_signal = None

    def is_running(self):
        return self.stop_signal is not None and not self.stop_signal.is_set()

    def start(self, workers=1, max_queue_size=10):
        """Starts ``workers`` threads (processes with ``use_multiprocessing``) filling a queue
        of at most ``max_queue_size`` batches."""
        from multiprocessing.pool import ThreadPool

        if self.use_multiprocessing:
            self.executor_fn = self._get_executor_init(workers)
        else:
            self.executor_fn = lambda _seqs: ThreadPool(workers)
        self.workers = workers
        self.queue = queue.Queue(max_queue_size)
        self.stop_signal = threading.Event()
        self.run_thread = threading.Thread(target=self._run, daemon=True)
        self.run_thread.start()

    def _send_sequence(self):
        _SHARED_SEQUENCES[self.uid] = self.sequence

    def stop(self, timeout=None):
        """Stops the producer (waiting at most ``timeout`` seconds for it) and drops the
        queued batches."""
        if self.stop_signal is None:
            return
        self.stop_signal.set()
        with self.queue.mutex:
            self.queue.queue.clear()
            self.queue.unfinished_tasks = 0
            self.queue.not_full.notify_all()
        self.run_thread.join(timeout)
        _SHARED_SEQUENCES.pop(self.uid, None)

    def __del__(self):
        if self.is_running():
            self.stop()

    def _run(self):
        raise NotImplementedError

    def _get_executor_init(self, workers):
        raise NotImplementedError

    def get(self):
        raise NotImplementedError

    def _put(self, item):
        """Queues ``item`` unless stopped; False once stopped."""
        while not self.stop_signal.is_set():
            try:
                self.queue.put(item, block=True, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def _pending(self):
        """The next queued result (None once stopped)."""
        while self.is_running():
            try:
                return self.queue.get(block=True, timeout=0.1)
            except queue.Empty:
                continue
        return None

    def _next_batch(self):
        """The next batch a worker made (waiting for it; its exception raised here), marked
        done in the queue while running; None once stopped."""
        while self.is_running():
            pending = self._pending()
            if pending is None:
                return None
            inputs = pending.get()
            if self.is_running():  # stop() has emptied the queue and its task count
                self.queue.task_done()
            if inputs is not None:
                return inputs
        return None


class OrderedEnqueuer(SequenceEnqueuer):
    """Draws the batches of a ``keras.utils.Sequence`` in order (in a new random order each
    epoch with ``shuffle``), calling its ``on_epoch_end`` after each pass."""

    def __init__(self, sequence, use_multiprocessing=False, shuffle=False):
        super().__init__(sequence, use_multiprocessing)
        self.shuffle = shuffle
        self.epochs_done = 0  # passes ended (``on_epoch_end`` called)

    def _get_executor_init(self, workers):
        return lambda seqs: _fork_pool(workers, _init_pool, (seqs,))

    def _wait_queue(self):
        # TF 1.15's tick: the drained queue is seen (and ``on_epoch_end`` run) only on a
        # 0.1 s beat, so a pass stopped soon after its last batch (a fit's validation) ends
        # without it; the wait returns at once on ``stop()``
        while not self.stop_signal.wait(0.1):
            if self.queue.unfinished_tasks == 0:
                return

    def _run(self):
        order = list(range(len(self.sequence)))
        self._send_sequence()
        while True:
            if self.shuffle:
                random.shuffle(order)
            executor = self.executor_fn(_SHARED_SEQUENCES)
            try:
                for i in order:
                    if not self._put(executor.apply_async(_get_index, (self.uid, i))):
                        return
                self._wait_queue()  # every batch of the epoch consumed
                if self.stop_signal.is_set():
                    return
            finally:
                executor.close()
            self.sequence.on_epoch_end()
            self.epochs_done += 1
            self._send_sequence()

    def get(self):
        """Yields the batches, epoch after epoch, until ``stop()``."""
        try:
            while (inputs := self._next_batch()) is not None:
                yield inputs
        except Exception:
            self.stop()
            raise


class GeneratorEnqueuer(SequenceEnqueuer):
    """Draws the batches of a Python generator; a finite generator's end ends ``get()``
    after the batches already drawn. With ``workers > 1`` threads the generator must be
    thread-safe."""

    def __init__(self, sequence, use_multiprocessing=False, random_seed=None):
        super().__init__(sequence, use_multiprocessing)
        self.random_seed = random_seed

    def _get_executor_init(self, workers):
        return lambda seqs: _fork_pool(workers, _init_pool_generator, (seqs, self.random_seed))

    def _run(self):
        self._send_sequence()
        executor = self.executor_fn(_SHARED_SEQUENCES)
        try:
            while not self.stop_signal.is_set():
                if not self._put(executor.apply_async(_next_sample, (self.uid,))):
                    return
        finally:
            executor.close()

    def get(self):
        """Yields the generator's batches until it ends or ``stop()``."""
        try:
            while (inputs := self._next_batch()) is not None:
                yield inputs
        except StopIteration:
            # a finite generator: the batches drawn before its end, then done
            last = []
            while self.queue.qsize() > 0:
                last.append(self.queue.get(block=True))
            for f in last:
                f.wait()
            for f in last:
                if f.successful():
                    inputs = f.get()
                    if inputs is not None:
                        yield inputs
            self.stop()
        except Exception as e:
            self.stop()
            if "generator already executing" in str(e):
                raise RuntimeError(
                    "Your generator is NOT thread-safe. Keras requires a thread-safe "
                    "generator when `use_multiprocessing=False, workers > 1`. ") from e
            raise
