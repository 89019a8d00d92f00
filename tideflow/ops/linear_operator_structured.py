"""Structured LinearOperators: Kronecker products, block diagonal and block lower-triangular
operators, low-rank updates, Householder reflections, permutations, tridiagonal, Toeplitz and
circulant (1-3D) operators."""


import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    fft_ops,
    linalg_extra_ops,
    linalg_more_ops,
    linalg_ops,
    math_ops,
    pad_ops,
    range_ops,
    reduction_ops,
    unary_ops,
)
from tideflow.ops.concat_ops import concat
from tideflow.ops.linear_operator import (
    LinearOperator,
    _adj,
    _broadcast_batch,
    _checked_operators,
    _det_product,
    _log_abs_det_sum,
    _OperatorList,
    _parents,
    _same_dtype,
    _square_shape,
)

__all__ = [
    "LinearOperatorBlockDiag", "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
    "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorHouseholder",
    "LinearOperatorKronecker", "LinearOperatorLowRankUpdate", "LinearOperatorPermutation",
    "LinearOperatorToeplitz", "LinearOperatorTridiag",
]


def _kron(a, b):
    """The Kronecker product of the innermost matrices of ``a`` and ``b``."""
    sa, sb = array_ops.shape(a), array_ops.shape(b)
    # [..., m, 1, n, 1] * [..., 1, p, 1, q]
    m = array_ops.expand_dims(array_ops.expand_dims(a, -1), -3) * array_ops.expand_dims(
        array_ops.expand_dims(b, -2), -4)
    batch = array_ops.shape(m)[:-4]
    return array_ops.reshape(m, concat([batch, [sa[-2] * sb[-2], sa[-1] * sb[-1]]], 0))


class LinearOperatorKronecker(_OperatorList):
    """The Kronecker product ``operators[0] (x) operators[1] (x) ...``."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        operators = _checked_operators(operators, "Expected a list of >=1 operators.")
        if all(o.is_square for o in operators):
            is_square = True if is_square is None else is_square
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         is_square, name, "_x_", "The Kronecker product",
                         (("non_singular", "non-singular"), ("self_adjoint", "self-adjoint"),
                          ("positive_definite", "positive-definite")))

    # TF 1.15's algebra: the adjoint, inverse and Cholesky factor of a Kronecker product
    # (or of a direct sum, below) are those of its factors (blocks)
    def _adjoint(self):
        return type(self)([o.adjoint() for o in self._operators], self.is_non_singular,
                          self.is_self_adjoint, self.is_positive_definite, True)

    def _inverse(self):
        return type(self)([o.inverse() for o in self._operators], self.is_non_singular,
                          self.is_self_adjoint, self.is_positive_definite, True)

    def _cholesky(self):
        return type(self)([o.cholesky() for o in self._operators], True, False, None, True)

    def _shape(self):
        batch = TensorShape([])
        m = n = 1
        for o in self._operators:
            s = o.shape
            batch = _broadcast_batch(batch, o.batch_shape)
            m = None if m is None or s.ndims is None or s[-2].value is None else m * s[-2].value
            n = None if n is None or s.ndims is None or s[-1].value is None else n * s[-1].value
        return batch.concatenate(TensorShape([m, n]))

    def _to_dense(self):
        out = self._operators[0].to_dense()
        for o in self._operators[1:]:
            out = _kron(out, o.to_dense())
        return out

    def _cofactor_sizes(self):
        """For each operator, the product of the other operators' sizes (None when a size is
        unknown statically): det(A (x) B) = det(A)^n_B det(B)^n_A."""
        sizes = [o.domain_dimension.value for o in self._operators]
        if any(n is None for n in sizes):
            return None
        total = int(np.prod(sizes, dtype=object))
        return [total // n for n in sizes]

    def _determinant(self):
        others = self._cofactor_sizes()
        if others is None:
            return super()._determinant()
        out = None
        for o, k in zip(self._operators, others):
            term = math_ops.pow(o.determinant(), np.array(k, o.dtype.as_numpy_dtype))
            out = term if out is None else out * term
        return out

    def _log_abs_determinant(self):
        others = self._cofactor_sizes()
        if others is None:
            return super()._log_abs_determinant()
        out = None
        for o, k in zip(self._operators, others):
            term = o.log_abs_determinant() * float(k)
            out = term if out is None else out + term
        return out


class LinearOperatorBlockDiag(_OperatorList):
    """The block-diagonal operator with ``operators`` (square) on its diagonal."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=True, name=None):
        operators = _checked_operators(operators)
        if not (is_square and all(o.is_square for o in operators)):
            raise ValueError("Can only represent a block diagonal of square matrices.")
        super().__init__(operators, is_non_singular, is_self_adjoint, is_positive_definite,
                         True, name, "_ds_", "The direct sum",
                         (("non_singular", "non-singular"), ("self_adjoint", "self-adjoint"),
                          ("positive_definite", "positive definite")))

    _adjoint = LinearOperatorKronecker._adjoint
    _inverse = LinearOperatorKronecker._inverse
    _cholesky = LinearOperatorKronecker._cholesky

    def _shape(self):
        batch = TensorShape([])
        n = 0
        for o in self._operators:
            batch = _broadcast_batch(batch, o.batch_shape)
            d = o.domain_dimension.value if o.shape.ndims is not None else None
            n = None if n is None or d is None else n + d
        return batch.concatenate(TensorShape([n, n]))

    def _to_dense(self):
        return _block_dense([[o if i == j else None for j, _ in enumerate(self._operators)]
                             for i, o in enumerate(self._operators)], self._operators)

    def _determinant(self):
        return _det_product(self._operators)

    def _log_abs_determinant(self):
        return _log_abs_det_sum(self._operators)


def _block_dense(grid, diagonal):
    """Dense matrix of a block grid (None blocks are zeros sized by the diagonal blocks)."""
    rows = []
    sizes = [o.shape_tensor()[-1] for o in diagonal]
    dtype = diagonal[0].dtype
    batch = None
    for o in diagonal:
        b = o.batch_shape_tensor()
        batch = b if batch is None else array_ops.broadcast_dynamic_shape(batch, b)
    for i, row in enumerate(grid):
        blocks = []
        for j, op in enumerate(row):
            if op is None:
                blocks.append(array_ops.zeros(concat([batch, array_ops.stack(
                    [sizes[i], sizes[j]])], 0), dtype))
            else:
                d = op.to_dense()
                blocks.append(d + array_ops.zeros(concat([batch, [1, 1]], 0), dtype))
        rows.append(concat(blocks, -1))
    return concat(rows, -2)


class LinearOperatorBlockLowerTriangular(LinearOperator):
    """The block lower-triangular operator given by rows of blocks
    ``[[A11], [A21, A22], ...]`` (diagonal blocks square)."""

    def __init__(self, operators, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name=None):
        operators = [list(r) for r in operators]
        if not operators:
            raise ValueError("Expected a non-empty list of operators.")
        for i, row in enumerate(operators):
            if len(row) != i + 1:
                raise ValueError(f"Argument operators[{i}] must contain {i + 1} blocks, found "
                                 f"{len(row)}")
        self._operators = operators
        diag = [row[-1] for row in operators]
        if all(o.is_non_singular for o in diag):
            is_non_singular = True if is_non_singular is None else is_non_singular
        flat = [o for row in operators for o in row]
        _same_dtype(flat)
        super().__init__(diag[0].dtype, _parents(flat),
                         is_non_singular, is_self_adjoint, is_positive_definite, True,
                         name or "_".join(o.name for o in diag), {"operators": operators})

    @property
    def operators(self):
        return [list(r) for r in self._operators]

    def _diag_ops(self):
        return [row[-1] for row in self._operators]

    def _shape(self):
        batch = TensorShape([])
        n = 0
        for row in self._operators:
            for o in row:
                batch = _broadcast_batch(batch, o.batch_shape)
            d = row[-1].domain_dimension.value if row[-1].shape.ndims is not None else None
            n = None if n is None or d is None else n + d
        return batch.concatenate(TensorShape([n, n]))

    def _to_dense(self):
        k = len(self._operators)
        grid = [[self._operators[i][j] if j <= i else None for j in range(k)] for i in range(k)]
        return _block_dense(grid, self._diag_ops())

    def _determinant(self):
        return _det_product(self._diag_ops())

    def _log_abs_determinant(self):
        return _log_abs_det_sum(self._diag_ops())


class LinearOperatorLowRankUpdate(LinearOperator):
    """``base_operator + U diag(diag_update) V^H`` (``V = U`` when not given)."""

    def __init__(self, base_operator, u, diag_update=None, v=None, is_diag_update_positive=None,
                 is_non_singular=None, is_self_adjoint=None, is_positive_definite=None,
                 is_square=None, name="LinearOperatorLowRankUpdate"):
        with ops.name_scope(name, values=[u, v, diag_update]):
            self._u = ops.convert_to_tensor(u, name="u", dtype=base_operator.dtype)
            self._v = self._u if v is None else ops.convert_to_tensor(
                v, name="v", dtype=base_operator.dtype)
            self._diag_update = None if diag_update is None else ops.convert_to_tensor(
                diag_update, name="diag_update", dtype=base_operator.dtype)
        self._base = base_operator
        # TF 1.15's hints: no diag_update is the identity (positive); L + U D U^H with L
        # self-adjoint (positive definite) and D real (positive) is too
        if diag_update is None:
            if is_diag_update_positive is False:
                raise ValueError("Default diagonal is the identity, which is positive.  However, "
                                 "user set 'is_diag_update_positive' to False.")
            is_diag_update_positive = True
        self._is_diag_update_positive = is_diag_update_positive
        use_cholesky = bool(base_operator.is_positive_definite and base_operator.is_self_adjoint
                            and is_diag_update_positive and v is None)
        if base_operator.is_self_adjoint and v is None and not base_operator.dtype.is_complex:
            if is_self_adjoint is False:
                raise ValueError("A = L + UDU^H, with L self-adjoint and D real diagonal.  Since "
                                 "UDU^H is self-adjoint, this must be a self-adjoint operator.")
            is_self_adjoint = True
        if use_cholesky:
            if False in (is_positive_definite, is_self_adjoint, is_non_singular):
                raise ValueError("Arguments imply this is self-adjoint positive-definite "
                                 "operator.")
            is_positive_definite = is_self_adjoint = True
        super().__init__(base_operator.dtype, base_operator.graph_parents + [self._u],
                         is_non_singular, is_self_adjoint, is_positive_definite, is_square,
                         name, {"base_operator": base_operator, "u": u, "v": v,
                          "diag_update": diag_update})

    @property
    def base_operator(self):
        return self._base

    @property
    def u(self):
        return self._u

    @property
    def v(self):
        return self._v

    @property
    def diag_update(self):
        return self._diag_update

    @property
    def is_diag_update_positive(self):
        return self._is_diag_update_positive

    def _shape(self):
        return self._base.shape

    def _update(self):
        u = self._u
        if self._diag_update is not None:
            u = u * array_ops.expand_dims(self._diag_update, -2)
        return linalg_ops.matmul(u, self._v, adjoint_b=True)

    def _to_dense(self):
        return self._base.to_dense() + self._update()


class LinearOperatorHouseholder(LinearOperator):
    """The reflection ``I - 2 v v^H / (v^H v)`` about the hyperplane orthogonal to
    ``reflection_axis``."""

    def __init__(self, reflection_axis, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorHouseholder"):
        # TF 1.15 checks the hints one by one and sets is_positive_definite to False
        if is_self_adjoint is False:
            raise ValueError("A Householder operator is always self adjoint.")
        if is_positive_definite is True:
            raise ValueError("A Householder operator is always non-positive definite.")
        if is_square is False:
            raise ValueError("A Householder operator is always square.")
        with ops.name_scope(name, values=[reflection_axis]):
            self._axis = ops.convert_to_tensor(reflection_axis, name="reflection_axis")
        if self._axis.get_shape().ndims is not None and self._axis.get_shape().ndims < 1:
            raise ValueError("Argument reflection_axis must have at least 1 dimension.  "
                             f"Found: {self._axis}")
        super().__init__(self._axis.dtype.base_dtype, [self._axis], is_non_singular, True,
                         False, True, name, {"reflection_axis": reflection_axis})

    @property
    def reflection_axis(self):
        return self._axis

    def _inverse(self):
        return self

    def _shape(self):
        s = self._axis.get_shape()
        return _square_shape(s)

    def _to_dense(self):
        v = array_ops.expand_dims(self._axis, -1)
        n = array_ops.shape(self._axis)[-1]
        denom = linalg_ops.matmul(v, v, adjoint_a=True)
        return range_ops.eye(n, dtype=self._dtype) - 2.0 * linalg_ops.matmul(
            v, v, adjoint_b=True) / denom

    def _determinant(self):
        return -array_ops.ones_like(self._axis[..., 0])

    def _log_abs_determinant(self):
        return array_ops.zeros_like(math_ops.real(self._axis[..., 0]) if
                                    self._dtype.is_complex else self._axis[..., 0])


class LinearOperatorPermutation(LinearOperator):
    """The permutation matrix ``P`` with ``(P x)[i] = x[perm[i]]``."""

    def __init__(self, perm, dtype=dtypes.float32, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorPermutation"):
        if is_non_singular is False or is_square is False:
            raise ValueError("A Permutation operator is always non-singular and square.")
        with ops.name_scope(name, values=[perm]):
            self._perm = ops.convert_to_tensor(perm, name="perm")
        if not self._perm.dtype.is_integer:
            raise TypeError(f"Argument perm must be integer dtype, got {self._perm.dtype.name}")
        super().__init__(dtypes.as_dtype(dtype), [self._perm], is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"perm": perm, "dtype": dtype})

    @property
    def perm(self):
        return self._perm

    def _shape(self):
        s = self._perm.get_shape()
        return _square_shape(s)

    def _to_dense(self):
        return _one_hot(self._perm, array_ops.shape(self._perm)[-1], self._dtype)

    def _determinant(self):
        # the sign of the permutation: (-1)^(n - number of cycles), through the dense matrix
        return linalg_ops.matrix_determinant(self.to_dense())

    def _log_abs_determinant(self):
        return array_ops.zeros_like(cast_ops.cast(self._perm[..., 0], self._dtype.real_dtype))


def _one_hot(indices, depth, dtype):
    r = range_ops.range(depth)
    return cast_ops.cast(math_ops.equal(array_ops.expand_dims(cast_ops.cast(
        indices, dtypes.int32), -1), r), dtype)


class LinearOperatorTridiag(LinearOperator):
    """A tridiagonal operator given by its diagonals ('compact' ``[..., 3, N]``, 'sequence' or
    'matrix'), solving with :func:`tf.linalg.tridiagonal_solve`."""

    def __init__(self, diagonals, diagonals_format="compact", is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=None,
                 name="LinearOperatorTridiag"):
        if diagonals_format not in ("compact", "matrix", "sequence"):
            raise ValueError(f"Diagonals Format must be one of compact, matrix, sequence, got "
                             f"{diagonals_format}")
        self._format = diagonals_format
        with ops.name_scope(name, values=[diagonals]):
            if diagonals_format == "sequence":
                self._diagonals = [ops.convert_to_tensor(d) for d in diagonals]
                dt = self._diagonals[0].dtype
                parents = list(self._diagonals)
            else:
                self._diagonals = ops.convert_to_tensor(diagonals, name="diagonals")
                dt = self._diagonals.dtype
                parents = [self._diagonals]
        self._sup, self._main, self._sub = linalg_more_ops._diags_from(
            self._diagonals, diagonals_format, "LinearOperatorTridiag")
        super().__init__(dt.base_dtype, parents, is_non_singular, is_self_adjoint,
                         is_positive_definite, True, name, {"diagonals": diagonals,
                                                            "diagonals_format": diagonals_format})

    @property
    def diagonals(self):
        return self._diagonals

    @property
    def diagonals_format(self):
        return self._format

    def _shape(self):
        s = self._main.get_shape()
        return _square_shape(s)

    def _to_dense(self):
        return linalg_more_ops._dense_tridiagonal(self._sup, self._main, self._sub)

    def _matmul(self, x, adjoint, adjoint_arg):
        x = _adj(x) if adjoint_arg else x
        if adjoint:
            return linalg_ops.matmul(self.to_dense(), x, adjoint_a=True)
        return linalg_more_ops.tridiagonal_matmul([self._sup, self._main, self._sub], x,
                                                  diagonals_format="sequence")

    def _diag_part(self):
        return self._main


class LinearOperatorToeplitz(LinearOperator):
    """The Toeplitz matrix with first column ``col`` and first row ``row`` (``row[0]`` is
    ignored in favour of ``col[0]``)."""

    def __init__(self, col, row, is_non_singular=None, is_self_adjoint=None,
                 is_positive_definite=None, is_square=None, name="LinearOperatorToeplitz"):
        if is_square is False:
            raise ValueError("Only square Toeplitz operators currently supported.")
        with ops.name_scope(name, values=[col, row]):
            self._col = ops.convert_to_tensor(col, name="col")
            self._row = ops.convert_to_tensor(row, name="row", dtype=self._col.dtype)
        for what, t in (("row", self._row), ("col", self._col)):
            if t.get_shape().ndims is not None and t.get_shape().ndims < 1:
                raise ValueError(f"Argument {what} must have at least 1 dimension.  Found: {t}")
        if self._row.get_shape()[-1].value is not None and \
                self._col.get_shape()[-1].value is not None and \
                self._row.get_shape()[-1].value != self._col.get_shape()[-1].value:
            raise ValueError("Expected square matrix, got row and col with mismatched "
                             "dimensions.")
        super().__init__(self._col.dtype.base_dtype, [self._col, self._row], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name,
                         {"col": col, "row": row})

    @property
    def col(self):
        return self._col

    @property
    def row(self):
        return self._row

    def _shape(self):
        s = _broadcast_batch(self._col.get_shape(), self._row.get_shape())
        return _square_shape(s)

    def _to_dense(self):
        from tideflow.ops import gather_ops

        n = array_ops.shape(self._col)[-1]
        # entry (i, j) is col[i - j] below the diagonal and row[j - i] above it
        values = concat([pad_ops.reverse_v2(self._row[..., 1:], [-1]), self._col], -1)
        i = array_ops.expand_dims(range_ops.range(n), 1)
        j = array_ops.expand_dims(range_ops.range(n), 0)
        idx = i - j + n - 1
        return gather_ops.gather(values, idx, axis=values.get_shape().ndims - 1)


class _BaseCirculant(LinearOperator):
    """A circulant operator (block circulant for 2-D/3-D) from its spectrum: diagonal in the
    Fourier basis, ``A = F^H diag(spectrum) F``."""

    _k = 1

    def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                 is_self_adjoint=None, is_positive_definite=None, is_square=True, name=None):
        with ops.name_scope(name or type(self).__name__, values=[spectrum]):
            spectrum = ops.convert_to_tensor(spectrum, name="spectrum")
            if spectrum.get_shape().ndims is not None and spectrum.get_shape().ndims < self._k:
                raise ValueError(f"Argument spectrum must have at least {self._k} dimensions.  "
                                 f"Found: {spectrum}")
            if not spectrum.dtype.is_complex:
                if is_self_adjoint is False:
                    raise ValueError("A real spectrum always corresponds to a self-adjoint "
                                     "operator.")
                is_self_adjoint = True
            if is_square is False:
                raise ValueError("A [[nested] block] circulant operator is always square.")
            self._spectrum = spectrum
            # the ops TF 1.15 adds here: block shape, complex spectrum, its modulus, conjugate
            self._block_shape_tensor = array_ops.shape(spectrum)[-self._k:]
            self._spectrum_complex = spectrum if spectrum.dtype.is_complex else cast_ops.cast(
                spectrum, dtypes.complex128 if spectrum.dtype == dtypes.float64
                else dtypes.complex64)
            self._abs_spectrum = unary_ops.abs(spectrum)
            self._conj_spectrum = math_ops.conj(self._spectrum_complex)
        super().__init__(dtypes.as_dtype(input_output_dtype), [self._spectrum], is_non_singular,
                         is_self_adjoint, is_positive_definite, True, name or type(self).__name__,
                         {"spectrum": spectrum})

    @property
    def spectrum(self):
        return self._spectrum

    def _shape(self):
        s = self._spectrum.get_shape()
        if s.ndims is None:
            return s
        dims = s.as_list()
        inner = dims[-self._k:]
        n = None if any(d is None for d in inner) else int(np.prod(inner))
        return TensorShape(dims[:-self._k] + [n, n])

    def _to_dense(self):
        # column j of A is A e_j: the inverse FFT of spectrum * FFT(e_j)
        n = self.shape[-1].value
        if n is None:
            raise ValueError(f"{self._name}: the spectrum's shape must be known")
        inner = self._spectrum_complex.get_shape().as_list()[-self._k:]
        cdt = self._spectrum_complex.dtype.base_dtype
        eye = np.eye(n).reshape([n] + inner).astype(cdt.as_numpy_dtype)  # [n, *inner]
        fwd = {1: fft_ops.fft, 2: fft_ops.fft2d, 3: fft_ops.fft3d}[self._k]
        inv = {1: fft_ops.ifft, 2: fft_ops.ifft2d, 3: fft_ops.ifft3d}[self._k]
        spec = array_ops.expand_dims(self._spectrum_complex, -self._k - 1)  # [..., 1, *inner]
        cols = inv(spec * fwd(ops.convert_to_tensor(eye)))  # [..., n(j), *inner(i)]
        batch = array_ops.shape(self._spectrum_complex)[:-self._k]
        cols = array_ops.reshape(cols, concat([batch, [n, n]], 0))
        dense = linalg_extra_ops.matrix_transpose(cols)
        if self._dtype.is_complex:
            return cast_ops.cast(dense, self._dtype)
        return cast_ops.cast(math_ops.real(dense), self._dtype)

    def _determinant(self):
        d = reduction_ops.reduce_prod(array_ops.reshape(
            self._spectrum_complex,
            concat([array_ops.shape(self._spectrum_complex)[:-self._k], [-1]], 0)), -1)
        return cast_ops.cast(d if self._dtype.is_complex else math_ops.real(d), self._dtype)

    def _log_abs_determinant(self):
        flat = array_ops.reshape(self._spectrum_complex, concat(
            [array_ops.shape(self._spectrum_complex)[:-self._k], [-1]], 0))
        return cast_ops.cast(reduction_ops.reduce_sum(unary_ops.log(unary_ops.abs(flat)), -1),
                             self._dtype)


def _circulant_class(k, name, doc):
    """The public circulant class over ``k``-D spectra; its constructor's ``name`` defaults to
    the class name, as TF's."""

    class _Circulant(_BaseCirculant):
        __doc__ = doc
        _k = k

        def __init__(self, spectrum, input_output_dtype=dtypes.complex64, is_non_singular=None,
                     is_self_adjoint=None, is_positive_definite=None, is_square=True,
                     name=name):
            super().__init__(spectrum, input_output_dtype, is_non_singular, is_self_adjoint,
                             is_positive_definite, is_square, name)

    if k == 1:
        # TF 1.15 registers these for the 1-D class only, and leaves input_output_dtype at
        # its default (complex64)
        def _adjoint(self):
            spectrum = self._spectrum
            if spectrum.dtype.is_complex:
                spectrum = math_ops.conj(spectrum)
            return _Circulant(spectrum, is_non_singular=self.is_non_singular,
                              is_self_adjoint=self.is_self_adjoint,
                              is_positive_definite=self.is_positive_definite)

        def _inverse(self):
            return _Circulant(1.0 / self._spectrum, is_non_singular=self.is_non_singular,
                              is_self_adjoint=self.is_self_adjoint,
                              is_positive_definite=self.is_positive_definite)

        _Circulant._adjoint, _Circulant._inverse = _adjoint, _inverse
    _Circulant.__name__ = _Circulant.__qualname__ = name
    return _Circulant


LinearOperatorCirculant = _circulant_class(
    1, "LinearOperatorCirculant", "A circulant ``[N, N]`` operator from its length-N spectrum.")
LinearOperatorCirculant2D = _circulant_class(
    2, "LinearOperatorCirculant2D",
    "A block-circulant operator with circulant blocks, from an ``[..., H, W]`` spectrum.")
LinearOperatorCirculant3D = _circulant_class(
    3, "LinearOperatorCirculant3D", "The 3-D analogue of :class:`LinearOperatorCirculant2D`.")
