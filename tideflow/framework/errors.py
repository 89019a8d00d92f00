"""TF's error classes and canonical codes (``tf.errors``), raised by sessions and kernels."""

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running an op: carries the op (if known), a message and a code."""

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__()  # no args, as in TF: repr(e) reads "InvalidArgumentError()"
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self):
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def error_code(self):
        return self._error_code

    @property
    def node_def(self):
        if self._node_def is None and self._op is not None:
            return self._op.node_def
        return self._node_def

    def __str__(self):
        # as TF 1.15's: an error that names an op of the graph shows where the op was made
        if self._op is None:
            return self._message
        return _with_stack_trace(self._message, self._op)

    def __reduce__(self):
        return type(self), (self._node_def, None, self._message)


def _display_name(filename, main):
    # Python 3.7 (TF 1.15's) named the main script's frames as the command line gave it
    # ("train.py"); later Pythons make it absolute
    return main[1] if main and filename == main[0] else filename


def _main_script():
    import os
    import sys

    argv0 = sys.argv[0] if sys.argv else ""
    if not argv0 or os.path.isabs(argv0):
        return None
    return os.path.abspath(argv0), argv0


def _compact(frames, main):
    """TF 1.15's ``_compact_stack_trace``: the frames' files less the folder they share (TF's
    own files always among them: here tideflow's)."""
    import os

    from tideflow.framework import ops as _ops

    frames = [(_display_name(f[0], main),) + tuple(f[1:]) for f in frames]
    files = {f[0] for f in frames if "<embedded" not in f[0]}
    files.add(_ops._PKG_DIR)
    prefix = os.path.split(os.path.commonprefix(sorted(files)))[0]
    if prefix:
        frames = [(f[0][len(prefix):],) + f[1:] if f[0].startswith(prefix) else f
                  for f in frames]
    return frames


def _with_stack_trace(message, op):
    """TF 1.15's ``OpError.__str__``: the message, then the stack that made the op (and each op
    it stands for, their frames in common with the previous trace elided)."""
    import traceback

    main = _main_script()
    out = [f"{message}\n\nOriginal stack trace for {op.name!r}:\n"]
    curr = traceback.format_list(_compact(op.traceback, main))
    out.extend(curr)
    original = getattr(op, "_original_op", None)
    while original is not None:
        out.append(f"\n...which was originally created as op {original.name!r}, defined at:\n")
        prev, curr = curr, traceback.format_list(_compact(original.traceback, main))
        # (TF's elision, as written: a differing line after a run is added char by char,
        # which joins to the same text. TF pairs the lines with zip(), which its own frames at
        # the end of both lists keep from cutting the user's frames short: here a frame past
        # the end of the previous list is shown)
        eliding, count, last = False, 0, None
        for i, line in enumerate(curr):
            line_in_prev = prev[i] if i < len(prev) else None
            if line == line_in_prev:
                if eliding:
                    count += 1
                    last = line
                else:
                    out.append(line)
                    eliding, count = True, 0
            else:
                if eliding:
                    if count > 0:
                        out.append(f"[elided {count - 1} identical lines from previous "
                                   "traceback]\n")
                        out.append(last)
                    eliding = False
                out.extend(line)
        original = original._original_op
    return "".join(out)


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


class OperatorNotAllowedInGraphError(TypeError):
    """A Python operation on a graph tensor that only eager execution allows (``bool(t)``,
    ``for x in t``): a TypeError, as in TF."""


CancelledError = _make("CancelledError", CANCELLED, "An operation or step was cancelled.")


class UnknownError(OpError):
    """An unknown error occurred (TF's one class that takes an ``error_code``)."""

    def __init__(self, node_def, op, message, error_code=UNKNOWN):
        OpError.__init__(self, node_def, op, message, error_code)


InvalidArgumentError = _make("InvalidArgumentError", INVALID_ARGUMENT, "An argument was bad.")
DeadlineExceededError = _make("DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired.")
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "An entity already exists.")
PermissionDeniedError = _make("PermissionDeniedError", PERMISSION_DENIED, "Permission denied.")
UnauthenticatedError = _make("UnauthenticatedError", UNAUTHENTICATED, "No valid credentials.")
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of a resource.")
FailedPreconditionError = _make(
    "FailedPreconditionError", FAILED_PRECONDITION, "The system is not in a state to run this."
)
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "Iteration went past the valid range.")
UnimplementedError = _make("UnimplementedError", UNIMPLEMENTED, "Not implemented.")
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The service is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code):
    return _CODE_TO_CLASS[error_code]


def _make_specific_exception(node_def, op, message, error_code):
    """The OpError subclass instance for ``error_code``; an UnknownError, with a warning, for a
    code TF does not know."""
    cls = _CODE_TO_CLASS.get(error_code)
    if cls is None:
        import warnings

        warnings.warn(f"Unknown error code: {error_code}", stacklevel=2)
        return UnknownError(node_def, op, message)
    return cls(node_def, op, message)


def error_code_from_exception_type(cls):
    for code, c in _CODE_TO_CLASS.items():
        if c is cls:
            return code
    return UNKNOWN


class raise_exception_on_not_ok_status:
    """Context manager kept for TF 1.x compatibility; errors are raised directly here."""

    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False
