"""Op dispatch for composite arguments (``RaggedTensor``), as TF 1.x's ``add_dispatch_support``.

A wrapped public function runs as before; only when it raises ``TypeError`` or ``ValueError``
(a ``RaggedTensor`` does not convert to a ``Tensor``) are the registered handlers asked, so the
dense path pays one extra call and nothing else.
"""

import functools

_handlers = {}  # wrapper -> [handler(args, kwargs) -> result or NotImplemented]
_elementwise_handler = []  # [handler(fn, n_tensor_args, args, kwargs)], set by the ragged ops


def add_dispatch_support(fn=None, *, elementwise=0):
    """Wraps ``fn`` so that registered handlers may take the call when ``fn`` rejects its
    arguments. ``elementwise=n``: the first ``n`` parameters are element-wise operands, which
    the ragged element-wise rule handles without a registration of its own."""
    if fn is None:
        return functools.partial(add_dispatch_support, elementwise=elementwise)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError):
            for handler in _handlers.get(wrapper, ()):
                result = handler(args, kwargs)
                if result is not NotImplemented:
                    return result
            if elementwise and _elementwise_handler:
                result = _elementwise_handler[0](fn, elementwise, args, kwargs)
                if result is not NotImplemented:
                    return result
            raise

    wrapper._tf_dispatch_elementwise = elementwise
    return wrapper


def register(api_fn, handler):
    """Adds ``handler(args, kwargs)`` for the dispatching function ``api_fn``."""
    if not hasattr(api_fn, "_tf_dispatch_elementwise"):
        raise TypeError(f"{api_fn!r} does not support dispatch")
    _handlers.setdefault(api_fn, []).append(handler)


def set_elementwise_handler(handler):
    _elementwise_handler[:] = [handler]
