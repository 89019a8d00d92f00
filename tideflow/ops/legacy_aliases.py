"""TF 0.8-0.11 names that later releases folded into others: ``tf.listdiff``,
``tf.complex_abs`` and the ``tf.batch_*`` matrix and FFT ops (the plain ops batch over leading
dimensions since 0.11, so each old name is the plain op under its old signature)."""

import tideflow as _tf


def listdiff(x, y, out_idx=None, name=None):
    """0.x's name of ``tf.setdiff1d``: ``(out, idx)``, the values of ``x`` not in ``y``."""
    return _tf.setdiff1d(x, y, index_dtype=out_idx or _tf.int32, name=name)


def complex_abs(x, name=None):
    """0.x's absolute value of a complex tensor (the ``ComplexAbs`` op); ``tf.abs`` since 0.12."""
    x = _tf.convert_to_tensor(x, name="x")
    if not x.dtype.is_complex:
        raise TypeError(f"complex_abs expects a complex tensor, got {x.dtype.name} "
                        f"({x.name})")
    return _tf.abs(x, name=name)


def _alias(old, new, doc_name):
    def fn(*args, **kwargs):
        return getattr(_tf, new)(*args, **kwargs)

    fn.__name__ = old
    fn.__qualname__ = old
    fn.__doc__ = f"0.x's batched name of ``tf.{doc_name}``."
    return fn


_BATCH = {
    "batch_matrix_determinant": "matrix_determinant",
    "batch_matrix_inverse": "matrix_inverse",
    "batch_cholesky": "cholesky",
    "batch_matrix_solve": "matrix_solve",
    "batch_matrix_triangular_solve": "matrix_triangular_solve",
    "batch_matrix_solve_ls": "matrix_solve_ls",
    "batch_self_adjoint_eig": "self_adjoint_eig",
    "batch_self_adjoint_eigvals": "self_adjoint_eigvals",
    "batch_svd": "svd",
    "batch_matrix_diag": "matrix_diag",
    "batch_matrix_diag_part": "matrix_diag_part",
    "batch_matrix_set_diag": "matrix_set_diag",
    "batch_matrix_band_part": "matrix_band_part",
    "batch_fft": "fft",
    "batch_ifft": "ifft",
    "batch_fft2d": "fft2d",
    "batch_ifft2d": "ifft2d",
    "batch_fft3d": "fft3d",
    "batch_ifft3d": "ifft3d",
}
for _old, _new in _BATCH.items():
    globals()[_old] = _alias(_old, _new, _new)

__all__ = ["complex_abs", "listdiff", *sorted(_BATCH)]  # noqa: PLE0604


def rnn_cell_linear(args, output_size, bias, bias_start=0.0, scope=None):
    """0.x's ``tf.nn.rnn_cell._linear``: ``concat(args, 1) @ Matrix (+ Bias)``, its variables
    ``Matrix`` and ``Bias`` under ``scope`` (default ``Linear``), as custom cells of the era
    built their gates."""
    from tideflow.ops import init_ops, variable_scope

    if args is None or (isinstance(args, (list, tuple)) and not args):
        raise ValueError("`args` must be specified")
    if not isinstance(args, (list, tuple)):
        args = [args]
    total = 0
    for a in args:
        shape = a.get_shape()
        if shape.ndims != 2:
            raise ValueError(f"Linear is expecting 2D arguments: {[x.get_shape() for x in args]}")
        if shape[1].value is None:
            raise ValueError(f"Linear expects shape[1] of arguments: {shape}")
        total += shape[1].value
    dtype = args[0].dtype.base_dtype
    with variable_scope.variable_scope(scope or "Linear"):
        matrix = variable_scope.get_variable("Matrix", [total, output_size], dtype=dtype)
        inputs = args[0] if len(args) == 1 else _tf.concat(list(args), 1)
        res = _tf.matmul(inputs, matrix)
        if not bias:
            return res
        bias_term = variable_scope.get_variable(
            "Bias", [output_size], dtype=dtype,
            initializer=init_ops.constant_initializer(bias_start, dtype=dtype))
    return res + bias_term
