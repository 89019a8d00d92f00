"""``parallel_for.gradients``: ``jacobian`` and ``batch_jacobian`` in graph mode, one
``tf.gradients`` per output element stacked by ``pfor`` (or ``for_loop``), as TF 1.15."""

from tideflow.framework import nest, ops
from tideflow.python.ops.parallel_for.control_flow_ops import for_loop, pfor


def jacobian(output, inputs, use_pfor=True, parallel_iterations=None):
    """d``output``/d``inputs``: per input, shape ``output.shape + input.shape`` (a sparse
    gradient made dense; None where ``output`` does not depend on the input)."""
    from tideflow.ops import array_ops
    from tideflow.ops.gradients import gradients

    flat = nest.flatten(inputs)
    static_shape = output.get_shape()
    dyn_shape = array_ops.shape(output)
    output = array_ops.reshape(output, [-1])
    size = output.get_shape()[0].value
    if size is None:
        size = array_ops.shape(output)[0]

    def loop_fn(i):
        return gradients(array_ops.gather(output, i), flat)

    if use_pfor:
        rows = pfor(loop_fn, size, parallel_iterations=parallel_iterations)
    else:
        rows = for_loop(loop_fn, [output.dtype] * len(flat), size,
                        parallel_iterations=parallel_iterations)
    rows = list(rows) if rows is not None else [None] * len(flat)
    for k, r in enumerate(rows):
        if isinstance(r, ops.Tensor):
            r = array_ops.reshape(r, array_ops.concat([dyn_shape, array_ops.shape(r)[1:]], 0))
            r.set_shape(static_shape.concatenate(flat[k].get_shape()))
            rows[k] = r
    return nest.pack_sequence_as(inputs, rows)


def batch_jacobian(output, inp, use_pfor=True, parallel_iterations=None):
    """Per example b, d``output[b]``/d``inp[b]`` stacked: ``[b, y..., x...]`` (rows of
    ``output`` must depend only on the same rows of ``inp``)."""
    from tideflow.ops import array_ops, check_ops
    from tideflow.ops.gradients import gradients

    shape = output.get_shape()
    if not shape[0].is_compatible_with(inp.get_shape()[0]):
        raise ValueError(f"Need first dimension of output shape ({output.get_shape()}) and inp "
                         f"shape ({inp.get_shape()}) to match.")
    if shape.is_fully_defined():
        batch = int(shape[0])
        row_size = shape.num_elements() // batch
    else:
        shape = array_ops.shape(output)
        batch = shape[0]
        row_size = array_ops.size(output) // batch
    inp_shape = array_ops.shape(inp)
    with ops.control_dependencies([check_ops.assert_equal(batch, inp_shape[0])]):
        output = array_ops.reshape(output, [batch, row_size])

    def loop_fn(i):
        return gradients(array_ops.gather(output, i, axis=1), inp)[0]

    if use_pfor:
        rows = pfor(loop_fn, row_size, parallel_iterations=parallel_iterations)
    else:
        rows = for_loop(loop_fn, output.dtype, row_size,
                        parallel_iterations=parallel_iterations)
    if rows is None:
        return None
    rows = array_ops.reshape(rows, [row_size, batch, -1])
    out = array_ops.transpose(rows, [1, 0, 2])
    return array_ops.reshape(out, array_ops.concat([shape, inp_shape[1:]], 0))
