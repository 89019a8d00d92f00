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
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, None, self._message)


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
