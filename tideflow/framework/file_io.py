"""File I/O on the local filesystem with TF's semantics and errors (``tf.gfile``, ``file_io``).

Paths may be ``str``, ``bytes`` or path-like; a ``file://`` prefix is accepted. Missing files
raise ``NotFoundError``, occupied targets ``AlreadyExistsError``, as TF's FileSystem API does.
"""

import errno
import os
import re
import shutil

from tideflow.framework import errors


def _path(p):
    p = os.fsdecode(os.fspath(p))
    return p.removeprefix("file://")


def _as_bytes(value):
    if isinstance(value, str):
        return value.encode("utf-8")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"Expected binary or unicode string, got {value!r}")


def _os_error(e, path):
    """Maps an ``OSError`` to TF's error class, naming the path."""
    msg = f"{path}; {e.strerror or e}"
    code = e.errno
    if code == errno.ENOENT:
        return errors.NotFoundError(None, None, msg)
    if code == errno.EEXIST:
        return errors.AlreadyExistsError(None, None, msg)
    if code in (errno.EACCES, errno.EPERM, errno.EROFS):
        return errors.PermissionDeniedError(None, None, msg)
    if code in (errno.EISDIR, errno.ENOTDIR):  # TF's errno table: both FAILED_PRECONDITION
        return errors.FailedPreconditionError(None, None, msg)
    if code == errno.ENOTEMPTY:
        return errors.FailedPreconditionError(None, None, msg)
    return errors.UnknownError(None, None, msg)


class FileIO:
    """A file opened with TF's modes (``r w a r+ w+ a+``, ``b`` for bytes), opened lazily.

    Text mode reads return ``str``, binary mode ``bytes``; ``write`` takes either. Iterating
    yields lines. As in TF, the file is opened on first read or write, so opening a missing
    file for reading fails at the first read with ``NotFoundError``.
    """

    def __init__(self, name, mode="r"):
        self._name = name
        self._mode = mode
        self._binary = "b" in mode
        base = mode.replace("b", "")
        if base not in ("r", "w", "a", "r+", "w+", "a+"):
            raise errors.InvalidArgumentError(
                None, None, "mode is not 'r' or 'w' or 'a' or 'r+' or 'w+' or 'a+'")
        self._base = base
        self._readable = base in ("r", "r+", "a+", "w+")
        self._writable = base in ("a", "w", "r+", "a+", "w+")
        self._f = None

    @property
    def name(self):
        return self._name

    @property
    def mode(self):
        return self._mode

    def _file(self):
        if self._f is None:
            try:
                self._f = open(_path(self._name), self._base + "b")  # noqa: SIM115
            except OSError as e:
                raise _os_error(e, self._name) from None
        return self._f

    def _preread(self):
        if not self._readable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for reading")
        return self._file()

    def _prewrite(self):
        if not self._writable:
            raise errors.PermissionDeniedError(None, None, "File isn't open for writing")
        return self._file()

    def _value(self, data):
        return data if self._binary else data.decode("utf-8")

    def size(self):
        """The size of the file in bytes."""
        if self._f is not None and self._writable:
            self._f.flush()
        return stat(self._name).length

    def write(self, file_content):
        """Writes ``file_content`` (str or bytes) at the end of what was written so far."""
        self._prewrite().write(_as_bytes(file_content))

    def read(self, n=-1):
        """Reads ``n`` bytes (all the rest when ``n == -1``) from the current position."""
        f = self._preread()
        return self._value(f.read() if n is None or n < 0 else f.read(n))

    def readline(self):
        """The next line, with its newline; empty at the end of the file."""
        return self._value(self._preread().readline())

    def readlines(self):
        """All remaining lines."""
        return [self._value(line) for line in self._preread().readlines()]

    def seek(self, offset=None, whence=0, position=None):
        """Moves to ``offset`` relative to the start (0), current position (1) or end (2)."""
        if offset is None and position is None:
            raise TypeError("seek(): offset argument required")
        if offset is not None and position is not None:
            raise TypeError("seek(): offset and position may not be set simultaneously.")
        if position is not None:
            offset = position
        if whence not in (0, 1, 2):
            raise errors.InvalidArgumentError(
                None, None, f"Invalid whence argument: {whence}. Valid values are 0, 1, or 2.")
        f = self._preread() if self._readable else self._prewrite()
        f.seek(offset, whence)

    def tell(self):
        """The current position in the file."""
        return (self._preread() if self._readable else self._prewrite()).tell()

    def seekable(self):
        return True

    def flush(self):
        """Pushes buffered writes to the operating system."""
        if self._f is not None and self._writable:
            self._f.flush()

    def close(self):
        """Flushes and closes the file (a no-op when it was never opened)."""
        if self._f is not None:
            self._f.close()
            self._f = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __iter__(self):
        return self

    def __next__(self):
        line = self.readline()
        if not line:
            raise StopIteration
        return line

    next = __next__

    def __del__(self):
        f = getattr(self, "_f", None)
        if f is not None:
            f.close()


class FileStatistics:
    """What ``stat`` returns: ``length`` (bytes), ``mtime_nsec`` and ``is_directory``."""

    __slots__ = ("is_directory", "length", "mtime_nsec")

    def __init__(self, length=0, mtime_nsec=0, is_directory=False):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory

    def __repr__(self):
        return (f"FileStatistics(length={self.length}, mtime_nsec={self.mtime_nsec}, "
                f"is_directory={self.is_directory})")


def file_exists(filename):
    """True when ``filename`` names an existing file or directory."""
    return os.path.exists(_path(filename))


def delete_file(filename):
    """Deletes a file; ``NotFoundError`` when it does not exist."""
    p = _path(filename)
    if os.path.isdir(p):
        raise errors.FailedPreconditionError(None, None, f"{filename}; Is a directory")
    try:
        os.remove(p)
    except OSError as e:
        raise _os_error(e, filename) from None


def read_file_to_string(filename, binary_mode=False):
    """The whole content of a file, as str (or bytes with ``binary_mode``)."""
    with FileIO(filename, "rb" if binary_mode else "r") as f:
        return f.read()


def write_string_to_file(filename, file_content):
    """Replaces the content of ``filename`` with ``file_content``."""
    with FileIO(filename, "w") as f:
        f.write(file_content)


def _join(a, b):
    """TF's io::JoinPath of two parts (one '/' between them, as TF drops at most one)."""
    if not a or not b:
        return a or b
    if a.endswith("/"):
        return a + b.removeprefix("/")
    return a + (b if b.startswith("/") else "/" + b)


def _dirname(path):
    """TF's io::Dirname: the text before the last '/' ('/' itself for a top-level path)."""
    pos = path.rfind("/")
    if pos < 0:
        return ""
    return path[:1] if pos == 0 else path[:pos]


def _pattern_regex(pattern):
    """``fnmatch(pattern, path, FNM_PATHNAME)`` as a regex: wildcards and bracket
    expressions never match '/', a backslash quotes the next character, and a leading '.'
    needs no explicit match (no FNM_PERIOD)."""
    out, i, n = [], 0, len(pattern)
    while i < n:
        c = pattern[i]
        i += 1
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "\\" and i < n:
            out.append(re.escape(pattern[i]))
            i += 1
        elif c == "[":
            j = i + (i < n and pattern[i] in "!^")
            j += j < n and pattern[j] == "]"
            j = pattern.find("]", j)
            if j < 0:
                out.append("\\[")
                continue
            body = pattern[i:j]
            i = j + 1
            neg = body[:1] in ("!", "^")
            body = body[1:] if neg else body
            body = body.replace("\\", "\\\\").replace("^", "\\^").replace("[", "\\[")
            out.append(f"(?!/)[{'^' if neg else ''}{body}]")
        else:
            out.append(re.escape(c))
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def matching_paths(pattern):
    """The paths matching one pattern as TF 1.15's GetMatchingPaths finds them: a walk from
    the folder of the text before the first wildcard ('.' when it has none, so ``l*.txt``
    gives ``./l0.txt``), each path matched whole by ``fnmatch`` rules; sorted. A folder that
    cannot be listed raises its error (``nodir; No such file or directory``)."""
    if not pattern:
        return []
    cut = min((k for k in map(pattern.find, "*?[\\") if k >= 0), default=len(pattern))
    fixed_prefix, eval_pattern = pattern[:cut], pattern
    folder = _dirname(fixed_prefix)
    if not folder:
        folder = "."
        fixed_prefix, eval_pattern = _join(folder, fixed_prefix), _join(folder, eval_pattern)
    # (TF walks every folder under the prefix; no path deeper than the pattern can match,
    # since no wildcard matches a '/', so the walk stops there)
    depth = eval_pattern.count("/")
    found, queue, failure = [], [folder], None
    while queue:
        current = queue.pop(0)
        try:
            with os.scandir(current) as entries:
                children = [(e.name, e.is_dir()) for e in entries]
        except OSError as e:
            failure = failure or _os_error(e, current)
            continue
        for child, is_dir in children:
            path = _join(current, child)
            if not path.startswith(fixed_prefix):
                continue
            if is_dir and path.count("/") < depth:
                queue.append(path)
            found.append(path)
    if failure is not None:
        raise failure
    match = _pattern_regex(eval_pattern).match
    return sorted(f for f in found if match(f))


def get_matching_files(filename):
    """The paths matching a glob pattern (or any of an iterable of patterns), each pattern's
    sorted (TF's are in the file system's listing order)."""
    patterns = [filename] if isinstance(filename, (str, bytes, os.PathLike)) else list(filename)
    out = []
    for pattern in patterns:
        out.extend(matching_paths(_path(pattern)))
    return out


def create_dir(dirname):
    """Creates one directory; its parent must exist. A path that already exists is no error
    (TF's file_io passes over the ALREADY_EXISTS status of CreateDir)."""
    try:
        os.mkdir(_path(dirname))
    except FileExistsError:
        pass
    except OSError as e:
        raise _os_error(e, dirname) from None


def recursive_create_dir(dirname):
    """Creates a directory and its missing parents; succeeds when it already exists."""
    p = _path(dirname)
    try:
        os.makedirs(p, exist_ok=True)
    except FileExistsError:
        raise errors.FailedPreconditionError(None, None, f"{dirname} is not a directory") from None
    except OSError as e:
        # as TF, name the component that could not be created
        raise _os_error(e, e.filename or dirname) from None


def copy(oldpath, newpath, overwrite=False):
    """Copies a file; ``AlreadyExistsError`` when ``newpath`` exists and not ``overwrite``."""
    src, dst = _path(oldpath), _path(newpath)
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")  # (TF's words)
    if not os.path.exists(src):
        raise errors.NotFoundError(None, None, f"{oldpath}; No such file or directory")
    try:
        shutil.copyfile(src, dst)
    except OSError as e:
        raise _os_error(e, newpath) from None


def rename(oldname, newname, overwrite=False):
    """Renames (moves) a file or directory; ``AlreadyExistsError`` unless ``overwrite``."""
    src, dst = _path(oldname), _path(newname)
    if not os.path.exists(src):
        raise errors.NotFoundError(None, None, f"{oldname}; No such file or directory")
    if not overwrite and os.path.exists(dst):
        raise errors.AlreadyExistsError(None, None, "file already exists")
    try:
        os.replace(src, dst)
    except OSError as e:
        raise _os_error(e, newname) from None


def atomic_write_string_to_file(filename, contents, overwrite=True):
    """Writes to a temporary file beside ``filename`` and renames it into place."""
    tmp = f"{_path(filename)}.tmp{os.getpid()}"
    write_string_to_file(tmp, contents)
    try:
        rename(tmp, filename, overwrite)
    except errors.OpError:
        delete_file(tmp)
        raise


def delete_recursively(dirname):
    """Deletes a directory tree (or a single file); ``NotFoundError`` when missing."""
    p = _path(dirname)
    if not os.path.exists(p):
        raise errors.NotFoundError(None, None, f"{dirname} not found")  # TF's FileExists words
    try:
        if os.path.isdir(p) and not os.path.islink(p):
            shutil.rmtree(p)
        else:
            os.remove(p)
    except OSError as e:
        raise _os_error(e, dirname) from None


def is_directory(dirname):
    """True when ``dirname`` is an existing directory."""
    return os.path.isdir(_path(dirname))


def list_directory(dirname):
    """The names (not paths) of the entries of a directory, sorted."""
    p = _path(dirname)
    if not os.path.isdir(p):
        raise errors.NotFoundError(None, None, f"Could not find directory {dirname}")
    try:
        return sorted(os.listdir(p))
    except OSError as e:
        raise _os_error(e, dirname) from None


def walk(top, in_order=True):
    """Yields ``(dirname, subdirs, files)`` for ``top`` and each directory below it.

    ``in_order`` yields a directory before its subdirectories (top-down); a missing ``top``
    yields nothing.
    """
    top = os.fsdecode(os.fspath(top))
    try:
        entries = list_directory(top)
    except errors.NotFoundError:
        return
    subdirs, files = [], []
    for name in entries:
        (subdirs if is_directory(os.path.join(top, name)) else files).append(name)
    here = (top, subdirs, files)
    if in_order:
        yield here
    for sub in subdirs:
        yield from walk(os.path.join(top, sub), in_order)
    if not in_order:
        yield here


def stat(filename):
    """A :class:`FileStatistics` for ``filename``; ``NotFoundError`` when missing."""
    try:
        st = os.stat(_path(filename))
    except OSError as e:
        raise _os_error(e, filename) from None
    is_dir = os.path.isdir(_path(filename))
    return FileStatistics(0 if is_dir else st.st_size, st.st_mtime_ns, is_dir)


def filecmp(filename_a, filename_b):
    """True when two files have the same content."""
    return read_file_to_string(filename_a, True) == read_file_to_string(filename_b, True)



# -- tf.io.gfile (TF 1.13+): the same operations under TF 2's parameter names ----------------
# (TF 1.15 exports these ``*_v2`` functions as ``tf.io.gfile.*``; keyword calls use these names)


def file_exists_v2(path):
    """``tf.io.gfile.exists``."""
    return file_exists(path)


def get_matching_files_v2(pattern):
    """``tf.io.gfile.glob``."""
    return get_matching_files(pattern)


def is_directory_v2(path):
    """``tf.io.gfile.isdir``."""
    return is_directory(path)


def list_directory_v2(path):
    """``tf.io.gfile.listdir``."""
    return list_directory(path)


def create_dir_v2(path):
    """``tf.io.gfile.mkdir``."""
    return create_dir(path)


def recursive_create_dir_v2(path):
    """``tf.io.gfile.makedirs``."""
    return recursive_create_dir(path)


def delete_file_v2(path):
    """``tf.io.gfile.remove``."""
    return delete_file(path)


def delete_recursively_v2(path):
    """``tf.io.gfile.rmtree``."""
    return delete_recursively(path)


def stat_v2(path):
    """``tf.io.gfile.stat``."""
    return stat(path)


def copy_v2(src, dst, overwrite=False):
    """``tf.io.gfile.copy``."""
    return copy(src, dst, overwrite)


def rename_v2(src, dst, overwrite=False):
    """``tf.io.gfile.rename``."""
    return rename(src, dst, overwrite)


def walk_v2(top, topdown=True, onerror=None):
    """``tf.io.gfile.walk``: as ``walk``; a directory that cannot be listed is passed to
    ``onerror`` (when given; raising there stops the walk) and skipped."""
    top = os.fsdecode(os.fspath(top))
    try:
        list_directory(top)
    except errors.NotFoundError as err:
        if onerror:
            onerror(err)
        return
    yield from walk(top, topdown)
