"""``tensorflow.python.ops.gradient_checker_v2``: the function-style gradient checker
(``compute_gradient(f, x)``), in graph mode over ``tf.test.compute_gradient``."""

import numpy as np

from tideflow import test as _test
from tideflow.framework import ops as _ops


def compute_gradient(f, x, delta=1e-3):
    """The theoretical and numerical Jacobians of ``f`` at the point ``x`` (a list of arrays).

    Returns two tuples with one Jacobian per element of ``x``, each of shape
    ``[y_size, x_size]`` (complex values count twice), as TF's v2 checker. ``f`` is called once
    on placeholders of ``x``'s dtypes and shapes in the default graph; the default session (or
    a new one) runs it.
    """
    from tideflow.framework import dtypes
    from tideflow.ops.constant_op import constant, placeholder
    from tideflow.runtime.session import Session

    if not isinstance(x, (list, tuple)):
        raise ValueError(  # noqa: TRY004 - TF raises ValueError here
            f"`x` must be a list or tuple of values, got {type(x).__name__}")
    values = [np.asarray(v.eval() if hasattr(v, "eval") else v) for v in x]
    graph = _ops.get_default_graph()
    with graph.as_default():
        phs = [placeholder(dtypes.as_dtype(v.dtype), v.shape) for v in values]
        y = f(*phs)
        if not hasattr(y, "dtype"):
            y = constant(y)
    sess = _ops.get_default_session()
    own = None
    if sess is None or sess.graph is not graph:
        own = sess = Session(graph=graph)
    try:
        with sess.as_default():
            # one x at a time, the others fed at their values
            pairs = [_test.compute_gradient(
                ph, v.shape, y, y.shape.as_list(), x_init_value=v, delta=delta,
                extra_feed_dict={p: w for p, w in zip(phs, values) if p is not ph})
                for ph, v in zip(phs, values)]
    finally:
        if own is not None:
            own.close()
    theoretical = tuple(np.transpose(t) for t, _ in pairs)
    numerical = tuple(np.transpose(n) for _, n in pairs)
    return theoretical, numerical


def max_error(grad1, grad2):
    """The largest absolute difference between two lists of Jacobians."""
    err = 0.0
    for j1, j2 in zip(grad1, grad2):
        if j1.size or j2.size:
            err = max(err, float(np.fabs(np.asarray(j1) - np.asarray(j2)).max()))
    return err
