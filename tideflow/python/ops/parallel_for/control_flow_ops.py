"""``parallel_for.control_flow_ops``: ``for_loop`` (TF's while loop over TensorArrays) and
``pfor``, which tideflow runs as that loop since it has no vectoriser (same values, other ops)."""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import TensorShape


def for_loop(loop_fn, loop_fn_dtypes, iters, parallel_iterations=None):
    """``loop_fn(i)`` for i in ``range(iters)``, each output stacked along a new first axis.

    As TF 1.15: a None output of ``loop_fn`` stays None, and the result is None when
    ``loop_fn`` returns nothing."""
    from tideflow.ops import array_ops, tensor_array
    from tideflow.ops.while_loop import while_loop

    flat_dtypes = nest.flatten(loop_fn_dtypes)
    is_none = []

    def body(i, *arrays):
        outs = nest.flatten(loop_fn(i))
        if len(outs) != len(flat_dtypes):
            raise ValueError(
                f"Number of expected outputs, {len(flat_dtypes)}, does not match the number of "
                f"actual outputs, {len(outs)}, from loop_fn")
        is_none[:] = [o is None for o in outs]
        return tuple([i + 1] + [ta if o is None else ta.write(i, array_ops.expand_dims(o, 0))
                                for o, ta in zip(outs, arrays)])

    extra = {} if parallel_iterations is None else {"parallel_iterations": parallel_iterations}
    arrays = while_loop(lambda i, *_: i < iters, body,
                        [0] + [tensor_array.TensorArray(dtypes.as_dtype(d).base_dtype, iters)
                               for d in flat_dtypes], **extra)[1:]
    out = [None if none else ta.concat() for ta, none in zip(arrays, is_none)]
    if not out:
        return None
    return nest.pack_sequence_as(loop_fn_dtypes, out)


def pfor(loop_fn, iters, parallel_iterations=None):
    """What stacking ``loop_fn(i)`` for i in ``range(iters)`` gives (None outputs stay None).

    TF traces ``loop_fn`` once on a placeholder under ``loop_body`` and vectorises those ops;
    tideflow traces it the same way to learn the outputs' dtypes, then runs ``for_loop``."""
    from tideflow.ops.constant_op import placeholder

    if parallel_iterations is not None:
        if parallel_iterations < 1:
            raise ValueError("parallel_iterations must be None or a positive integer")
        if parallel_iterations == 1:
            raise ValueError("Found parallel_iterations == 1. Use for_loop instead.")
    with ops.name_scope("loop_body"):
        probe = loop_fn(placeholder(dtypes.int32, shape=[]))
    flat = [None if o is None or isinstance(o, ops.Operation) else ops.convert_to_tensor(o)
            for o in nest.flatten(probe)]
    with ops.name_scope("pfor"):
        stacked = for_loop(lambda i: [None if t is None else o for t, o in
                                      zip(flat, nest.flatten(loop_fn(i)))],
                           [dtypes.float32 if t is None else t.dtype for t in flat], iters)
    n = ops.constant_value(ops.convert_to_tensor(iters))
    out = []
    for t, s in zip(flat, stacked or [None] * len(flat)):
        if s is not None:
            s.set_shape(TensorShape([None if n is None else int(n)]).concatenate(t.get_shape()))
        out.append(s)
    return nest.pack_sequence_as(probe, out)
