"""``tf.contrib.factorization.WALSModel`` (TF 1.15 ``factorization_ops``): weighted alternating
least squares, with its two kernels ``WALSComputePartialLhsAndRhs`` and ``MaskedMatmul``
(NumPy, float32 as in TF, not differentiable).

The model minimises ``||sqrt(W) * (A - U V^T)||_F^2 + lambda (||U||_F^2 + ||V||_F^2)`` over the
row factors ``U`` and column factors ``V``, where ``W_ij = w0 + R_i C_j`` on the observed
(non-zero, i.e. present in the SparseTensor) entries and ``w0`` (``unobserved_weight``)
elsewhere. A row update solves, for each row ``i`` of the input slice, the normal equations
``(w0 V^T V + sum_j R_i C_j v_j v_j^T + lambda I) u_i = sum_j (w0 + R_i C_j) a_ij v_j``
(sums over the observed ``j``); a column update is the same on the transpose. Factors and
weights may be sharded (``num_row_shards``/``num_col_shards``, TF's "div" partitioning).
"""

import collections.abc
import contextlib
import numbers

import numpy as np

import tideflow as tf
from tideflow.framework import errors, op_registry, ops

# ----------------------------------------------------------------------------- kernels


def _wals_lhs_rhs_kernel(factors, factor_weights, unobserved_weights, input_weights,
                         input_indices, input_values, entry_weights, input_block_size,
                         input_is_transpose):
    op = "WALSComputePartialLhsAndRhs"
    f = np.asarray(factors, np.float64)
    if f.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: factors must be a matrix, got shape {list(f.shape)}")
    idx = np.asarray(input_indices, np.int64).reshape(-1, 2)
    vals = np.asarray(input_values, np.float64).reshape(-1)
    if idx.shape[0] != vals.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: {idx.shape[0]} input_indices but {vals.shape[0]} input_values")
    block = int(input_block_size)
    rows, cols = (idx[:, 1], idx[:, 0]) if bool(input_is_transpose) else (idx[:, 0], idx[:, 1])
    if idx.shape[0] and (rows.min() < 0 or rows.max() >= block):
        raise errors.InvalidArgumentError(
            None, None, f"{op}: row index out of [0, {block}) (input_block_size)")
    if idx.shape[0] and (cols.min() < 0 or cols.max() >= f.shape[0]):
        raise errors.InvalidArgumentError(
            None, None, f"{op}: column index out of [0, {f.shape[0]}) (rows of factors)")
    ew = np.asarray(entry_weights, np.float64).reshape(-1)
    if ew.size:
        if ew.size != vals.size:
            raise errors.InvalidArgumentError(
                None, None, f"{op}: entry_weights has {ew.size} values, input_values "
                f"{vals.size}")
        w = ew
    else:
        w = (np.asarray(input_weights, np.float64).reshape(-1)[rows]
             * np.asarray(factor_weights, np.float64).reshape(-1)[cols])
    # TF 1.15's float32 arithmetic: the Gram matrix of the factors scaled by sqrt(weight),
    # the right side (value * (w0 + weight)) * factor, each added entry by entry in order
    k = f.shape[1]
    fv = f[cols].astype(np.float32)
    w = w.astype(np.float32)
    g = fv * np.sqrt(w)[:, None]
    lhs = np.zeros((block, k, k), np.float32)
    np.add.at(lhs, rows, g[:, :, None] * g[:, None, :])
    rhs = np.zeros((block, k), np.float32)
    scale = vals.astype(np.float32) * (np.float32(unobserved_weights) + w)
    np.add.at(rhs, rows, scale[:, None] * fv)
    return lhs, rhs


# no shape functions: TF 1.15 registers none for this op and MaskedMatmul (unknown shapes)
op_registry.declare(
    "WALSComputePartialLhsAndRhs",
    inputs=["factors: float", "factor_weights: float", "unobserved_weights: float",
            "input_weights: float", "input_indices: int64", "input_values: float",
            "entry_weights: float", "input_block_size: int64", "input_is_transpose: bool"],
    outputs=["partial_lhs: float", "partial_rhs: float"],
    kernel=_wals_lhs_rhs_kernel,
    differentiable=False,
)


def _masked_matmul_kernel(a, b, mask_indices, transpose_a, transpose_b):
    op = "MaskedMatmul"
    a = np.asarray(a)
    b = np.asarray(b)
    if a.ndim != 2 or b.ndim != 2:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: a and b must be matrices, got shapes {list(a.shape)} and "
            f"{list(b.shape)}")
    a = a.T if bool(transpose_a) else a
    b = b.T if bool(transpose_b) else b
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"{op}: inner dimensions differ: {a.shape[1]} vs {b.shape[0]}")
    m = np.asarray(mask_indices, np.int64).reshape(-1, 2)
    if m.size and (m[:, 0].min() < 0 or m[:, 0].max() >= a.shape[0] or m[:, 1].min() < 0
                   or m[:, 1].max() >= b.shape[1]):
        raise errors.InvalidArgumentError(
            None, None, f"{op}: mask_indices out of the product's shape "
            f"[{a.shape[0]}, {b.shape[1]}]")
    return np.einsum("ij,ji->i", a[m[:, 0]], b[:, m[:, 1]]).astype(np.float32)


op_registry.declare(
    "MaskedMatmul",
    inputs=["a: float", "b: float", "mask_indices: int64", "transpose_a: bool",
            "transpose_b: bool"],
    outputs=["prod_values: float"],
    kernel=_masked_matmul_kernel,
    differentiable=False,
)


def wals_compute_partial_lhs_and_rhs(factors, factor_weights, unobserved_weights,
                                     input_weights, input_indices, input_values,
                                     input_block_size, input_is_transpose, entry_weights=None,
                                     name=None):
    """Per-row partial normal equations of a WALS update: ``partial_lhs[i] = sum_j w_ij f_j
    f_j^T`` and ``partial_rhs[i] = sum_j (w0 + w_ij) a_ij f_j`` over the entries of row ``i``,
    with ``w_ij = input_weights[i] * factor_weights[j]`` (or ``entry_weights``)."""
    with ops.name_scope(name, "WALSComputePartialLhsAndRhs", [factors]) as scope:
        f32 = [ops.convert_to_tensor(v, dtype=tf.float32, name=n) for v, n in (
            (factors, "factors"), (factor_weights, "factor_weights"),
            (unobserved_weights, "unobserved_weights"), (input_weights, "input_weights"))]
        ind = tf.cast(ops.convert_to_tensor(input_indices, name="input_indices"), tf.int64)
        vals = ops.convert_to_tensor(input_values, dtype=tf.float32, name="input_values")
        ew = ops.convert_to_tensor([] if entry_weights is None else entry_weights,
                                   dtype=tf.float32, name="entry_weights")
        size = tf.cast(ops.convert_to_tensor(input_block_size, name="input_block_size"),
                       tf.int64)
        tr = ops.convert_to_tensor(input_is_transpose, dtype=tf.bool, name="input_is_transpose")
        out = ops.apply_op("WALSComputePartialLhsAndRhs", [*f32, ind, vals, ew, size, tr],
                           name=scope)
        return out.outputs[0], out.outputs[1]


def masked_matmul(a, b, mask_indices, transpose_a, transpose_b, name=None):
    """The entries ``(op(a) op(b))[i, j]`` at the ``(i, j)`` rows of ``mask_indices``."""
    with ops.name_scope(name, "MaskedMatmul", [a, b]) as scope:
        args = [ops.convert_to_tensor(a, dtype=tf.float32, name="a"),
                ops.convert_to_tensor(b, dtype=tf.float32, name="b"),
                tf.cast(ops.convert_to_tensor(mask_indices, name="mask_indices"), tf.int64),
                ops.convert_to_tensor(transpose_a, dtype=tf.bool, name="transpose_a"),
                ops.convert_to_tensor(transpose_b, dtype=tf.bool, name="transpose_b")]
        return ops.apply_op("MaskedMatmul", args, name=scope).outputs[0]


# ----------------------------------------------------------------------------- WALSModel


class WALSModel:
    """Weighted alternating least squares matrix factorization (see the module docstring).

    Run ``initialize_op`` once, ``worker_init`` once per worker, then per sweep
    ``row_update_prep_gramian_op``, ``initialize_row_update_op`` and the ``update_op`` of
    ``update_row_factors(sp_input)`` over the input's rows (likewise for the columns)."""

    def __init__(self, input_rows, input_cols, n_components, unobserved_weight=0.1,
                 regularization=None, row_init="random", col_init="random", num_row_shards=1,
                 num_col_shards=1, row_weights=1, col_weights=1,
                 use_factors_weights_cache=True, use_gramian_cache=True,
                 use_scoped_vars=False):
        # TF 1.15 checks its arguments with bare asserts: AssertionError, no message
        if (row_weights is None) != (col_weights is None):
            raise AssertionError
        self._input_rows = input_rows
        self._input_cols = input_cols
        self._num_row_shards = num_row_shards
        self._num_col_shards = num_col_shards
        self._n_components = n_components
        self._unobserved_weight = unobserved_weight
        self._regularization = regularization
        self._regularization_matrix = (regularization * tf.eye(n_components)
                                       if regularization is not None else None)
        self._use_factors_weights_cache = use_factors_weights_cache
        self._use_gramian_cache = use_gramian_cache

        def scoped(name):  # use_scoped_vars: the variables also under a name scope
            return tf.name_scope(name) if use_scoped_vars else contextlib.nullcontext()

        with scoped("row_weights"):
            self._row_weights = self._create_weights(row_weights, input_rows,
                                                     num_row_shards, "row_weights")
        with scoped("col_weights"):
            self._col_weights = self._create_weights(col_weights, input_cols,
                                                     num_col_shards, "col_weights")
        with scoped("row_factors"):
            self._row_factors = self._create_factors(input_rows, n_components,
                                                     num_row_shards, row_init, "row_factors")
        with scoped("col_factors"):
            self._col_factors = self._create_factors(input_cols, n_components,
                                                     num_col_shards, col_init, "col_factors")
        self._row_gramian = self._create_gramian(n_components, "row_gramian")
        self._col_gramian = self._create_gramian(n_components, "col_gramian")
        with tf.name_scope("row_prepare_gramian"):
            self._row_update_prep_gramian = self._prepare_gramian(self._col_factors,
                                                                  self._col_gramian)
        with tf.name_scope("col_prepare_gramian"):
            self._col_update_prep_gramian = self._prepare_gramian(self._row_factors,
                                                                  self._row_gramian)
        with tf.name_scope("transient_vars"):
            self._create_transient_vars()

    # properties ----------------------------------------------------------------------
    @property
    def row_factors(self):
        """The row factor shards (a list of variables)."""
        return self._row_factors

    @property
    def col_factors(self):
        """The column factor shards (a list of variables)."""
        return self._col_factors

    @property
    def row_weights(self):
        """The row weight shards, or None."""
        return self._row_weights

    @property
    def col_weights(self):
        """The column weight shards, or None."""
        return self._col_weights

    @property
    def initialize_op(self):
        """Initializes the factors, Gramians and weights."""
        all_vars = self._row_factors + self._col_factors + [self._row_gramian,
                                                            self._col_gramian]
        if self._row_weights is not None:
            all_vars += self._row_weights + self._col_weights
        return tf.variables_initializer(all_vars)

    @property
    def worker_init(self):
        """Caches the weights on this worker; run once before any update."""
        return self._worker_init

    @property
    def row_update_prep_gramian_op(self):
        """Forms ``V^T V`` before a row sweep."""
        return self._row_update_prep_gramian

    @property
    def col_update_prep_gramian_op(self):
        """Forms ``U^T U`` before a column sweep."""
        return self._col_update_prep_gramian

    @property
    def initialize_row_update_op(self):
        """Caches the column factors and Gramian before a row sweep."""
        return self._row_updates_init

    @property
    def initialize_col_update_op(self):
        """Caches the row factors and Gramian before a column sweep."""
        return self._col_updates_init

    # construction --------------------------------------------------------------------
    @classmethod
    def _shard_sizes(cls, dims, num_shards):
        size, residual = divmod(dims, num_shards)
        return [size + 1] * residual + [size] * (num_shards - residual)

    @classmethod
    def _create_factors(cls, rows, cols, num_shards, init, name):
        if callable(init):
            init = init()
        if isinstance(init, list):
            if len(init) != num_shards:
                raise AssertionError
        elif not (isinstance(init, str) and init == "random") and num_shards == 1:
            init = [init]  # (TF indexes any other init by shard as it is)
        out = []
        for i, size in enumerate(cls._shard_sizes(rows, num_shards)):
            # a callable, so its ops sit in the variable's Initializer scope as TF's
            value = ((lambda size=size: tf.random_normal([size, cols])) if isinstance(init, str)
                     else (lambda i=i: init[i]))
            out.append(tf.Variable(value, dtype=tf.float32, name=f"{name}_shard_{i}"))
        return out

    @classmethod
    def _create_weights(cls, wt_init, num_wts, num_shards, name):
        if wt_init is None:
            return None
        if isinstance(wt_init, collections.abc.Iterable):
            wt_init = list(wt_init)
            if num_shards == 1 and len(wt_init) == num_wts:
                wt_init = [wt_init]
            if len(wt_init) != num_shards:
                raise AssertionError
            scalar = False
        elif isinstance(wt_init, numbers.Real) and wt_init >= 0:
            scalar = True
        else:
            raise ValueError(
                "Invalid weight initialization argument. Must be one of these: None, a real "
                "non-negative real number, or a list of lists of non-negative real numbers "
                "(or equivalent iterables) corresponding to sharded factors.")
        out = []
        for i, size in enumerate(cls._shard_sizes(num_wts, num_shards)):
            value = ((lambda size=size: wt_init * tf.ones([size])) if scalar
                     else (lambda i=i: wt_init[i]))
            out.append(tf.Variable(value, dtype=tf.float32, name=f"{name}_shard_{i}"))
        return out

    @staticmethod
    def _create_gramian(n_components, name):
        return tf.Variable(tf.zeros([n_components, n_components]), dtype=tf.float32, name=name)

    @staticmethod
    def _transient_var(name):
        return tf.Variable(1.0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                           validate_shape=False, name=name)

    def _prepare_gramian(self, factors, gramian):
        partial = [tf.matmul(f, f, transpose_a=True) for f in factors]
        return tf.assign(gramian, tf.add_n(partial)).op

    def _cached_copy(self, var, name, pass_through=False):
        """A worker-local copy of ``var`` (a variable or a list): ``(cache, init, reset)``."""
        if var is None:
            return None, None, None
        if pass_through:
            return var, tf.no_op(), tf.no_op()
        if not isinstance(var, list):
            cache = self._transient_var(name)
            return (cache, tf.assign(cache, var, validate_shape=False),
                    tf.assign(cache, 1.0, validate_shape=False))
        cache = [self._transient_var(f"{name}_shard_{i}") for i in range(len(var))]
        init, resets = None, []
        for c, v in zip(cache, var):
            # sequential, so only one shard's copy is in flight at a time
            with tf.control_dependencies([init] if init is not None else []):
                init = tf.assign(c, v, validate_shape=False)
            resets.append(tf.assign(c, 1.0, validate_shape=False))
        return cache, init, tf.group(*resets)

    def _create_transient_vars(self):
        no_fw = not self._use_factors_weights_cache
        no_g = not self._use_gramian_cache
        self._row_factors_cache, row_f_init, row_f_reset = self._cached_copy(
            self._row_factors, "row_factors_cache", no_fw)
        self._col_factors_cache, col_f_init, col_f_reset = self._cached_copy(
            self._col_factors, "col_factors_cache", no_fw)
        self._row_wt_cache, row_wt_init, _ = self._cached_copy(self._row_weights,
                                                               "row_wt_cache", no_fw)
        self._col_wt_cache, col_wt_init, _ = self._cached_copy(self._col_weights,
                                                               "col_wt_cache", no_fw)
        self._row_gramian_cache, row_g_init, row_g_reset = self._cached_copy(
            self._row_gramian, "row_gramian_cache", no_g)
        self._col_gramian_cache, col_g_init, col_g_reset = self._cached_copy(
            self._col_gramian, "col_gramian_cache", no_g)
        self._row_updates_init = tf.group(col_f_init, row_f_reset, col_g_init, row_g_reset)
        self._col_updates_init = tf.group(row_f_init, col_f_reset, row_g_init, col_g_reset)
        if self._row_wt_cache is not None:
            self._worker_init = tf.group(row_wt_init, col_wt_init, name="worker_init")
        else:
            self._worker_init = tf.no_op(name="worker_init")

    @staticmethod
    def _get_sharding_func(size, num_shards):
        """Maps global ids to (shard, id within shard) under TF's "div" partitioning."""

        def func(ids):
            if num_shards == 1:
                return None, ids
            per, extras = divmod(size, num_shards)
            assignments = tf.maximum(ids // (per + 1), (ids - extras) // per)
            new_ids = tf.where(assignments < extras, ids % (per + 1), (ids - extras) % per)
            return assignments, new_ids

        return func

    @classmethod
    def scatter_update(cls, factor, indices, values, sharding_func, name=None):
        """``scatter_update`` of rows ``indices`` of a (sharded) factor."""
        if len(factor) == 1:
            return tf.scatter_update(factor[0], indices, values, name=name).op
        assignments, new_ids = sharding_func(indices)
        assignments = tf.cast(assignments, tf.int32)
        ids = tf.dynamic_partition(new_ids, assignments, len(factor))
        vals = tf.dynamic_partition(values, assignments, len(factor))
        return tf.group(*[tf.scatter_update(f, i, v) for f, i, v in zip(factor, ids, vals)],
                        name=name)

    # updates -------------------------------------------------------------------------
    def update_row_factors(self, sp_input=None, transpose_input=False):
        """Solves for the rows ``I`` of ``sp_input`` (a SparseTensor holding some rows of the
        matrix, indexed as in the full matrix). Returns ``(new_values, update_op,
        unregularized_loss, regularization, sum_weights)``: the weighted squared error of
        those rows and ``lambda ||U_I||^2`` both scaled by ``n / |I|`` (the latter plus
        ``lambda ||V||^2``), and the sum of the weights, observed ones scaled likewise."""
        return self._process_input_helper(True, sp_input=sp_input,
                                          transpose_input=transpose_input)

    def update_col_factors(self, sp_input=None, transpose_input=False):
        """As :meth:`update_row_factors`, for columns (``transpose_input=True`` when
        ``sp_input`` holds the transposed matrix)."""
        return self._process_input_helper(False, sp_input=sp_input,
                                          transpose_input=transpose_input)

    def project_row_factors(self, sp_input=None, transpose_input=False,
                            projection_weights=None):
        """Row factors of new rows, solved against the current column factors."""
        if projection_weights is None:
            projection_weights = 1
        return self._process_input_helper(True, sp_input=sp_input,
                                          transpose_input=transpose_input,
                                          row_weights=projection_weights)[0]

    def project_col_factors(self, sp_input=None, transpose_input=False,
                            projection_weights=None):
        """Column factors of new columns, solved against the current row factors."""
        if projection_weights is None:
            projection_weights = 1
        return self._process_input_helper(False, sp_input=sp_input,
                                          transpose_input=transpose_input,
                                          row_weights=projection_weights)[0]

    def _process_input_helper(self, update_row_factors, sp_input=None, transpose_input=False,
                              row_weights=None):
        if not isinstance(sp_input, tf.SparseTensor):
            raise AssertionError  # noqa: TRY004 (TF 1.15: a bare assert)
        if update_row_factors:
            left, right_factors = self._row_factors, self._col_factors_cache
            row_wt, col_wt = self._row_wt_cache, self._col_wt_cache
            total_rows, total_cols = self._input_rows, self._input_cols
            sharding = self._get_sharding_func(self._input_rows, self._num_row_shards)
            gramian = self._col_gramian_cache
        else:
            left, right_factors = self._col_factors, self._row_factors_cache
            row_wt, col_wt = self._col_wt_cache, self._row_wt_cache
            total_rows, total_cols = self._input_cols, self._input_rows
            sharding = self._get_sharding_func(self._input_cols, self._num_col_shards)
            gramian = self._row_gramian_cache
            transpose_input = not transpose_input

        # renumber the rows and columns present densely from 0, in order of appearance
        row_ids, col_ids = tf.split(sp_input.indices, 2, axis=1)
        update_row_indices, all_row_ids = tf.unique(row_ids[:, 0])
        update_col_indices, all_col_ids = tf.unique(col_ids[:, 0])
        col_ids = tf.expand_dims(tf.cast(all_col_ids, tf.int64), 1)
        row_ids = tf.expand_dims(tf.cast(all_row_ids, tf.int64), 1)
        if transpose_input:
            update_indices, gather_indices = update_col_indices, update_row_indices
            row_shape = [tf.cast(tf.shape(update_row_indices)[0], tf.int64)]
        else:
            update_indices, gather_indices = update_row_indices, update_col_indices
            row_shape = [tf.cast(tf.shape(update_col_indices)[0], tf.int64)]
        num_rows = tf.cast(tf.shape(update_indices)[0], tf.int64)
        col_shape = [num_rows]
        right = tf.nn.embedding_lookup(right_factors, gather_indices, partition_strategy="div")
        new_indices = tf.concat([row_ids, col_ids], 1)
        new_shape = tf.concat([row_shape, col_shape] if transpose_input
                              else [col_shape, row_shape], 0)
        new_sp = tf.SparseTensor(new_indices, sp_input.values, new_shape)

        total_lhs = self._unobserved_weight * gramian
        if self._regularization_matrix is not None:
            total_lhs += self._regularization_matrix
        if self._row_weights is None:
            # plain ALS: every entry weighs w0
            total_rhs = self._unobserved_weight * tf.sparse_tensor_dense_matmul(
                new_sp, right, adjoint_a=transpose_input)
            new_left = tf.transpose(tf.matrix_solve(total_lhs, tf.transpose(total_rhs)))
            row_weights_slice = col_weights = None
        else:
            if row_weights is None:
                row_weights_slice = tf.nn.embedding_lookup(row_wt, update_indices,
                                                           partition_strategy="div")
            else:
                num_indices = tf.shape(update_indices)[0]
                with tf.control_dependencies(
                        [tf.assert_less_equal(tf.rank(row_weights), 1)]):
                    row_weights_slice = tf.cond(
                        tf.equal(tf.rank(row_weights), 0),
                        lambda: tf.ones([num_indices]) * row_weights,
                        lambda: tf.cast(row_weights, tf.float32))
            col_weights = tf.nn.embedding_lookup(col_wt, gather_indices,
                                                 partition_strategy="div")
            partial_lhs, total_rhs = wals_compute_partial_lhs_and_rhs(
                right, col_weights, self._unobserved_weight, row_weights_slice, new_indices,
                sp_input.values, num_rows, transpose_input,
                name="wals_compute_partial_lhs_rhs")
            total_lhs = tf.expand_dims(total_lhs, 0) + partial_lhs
            new_left = tf.squeeze(tf.matrix_solve(total_lhs, tf.expand_dims(total_rhs, -1)),
                                  [2])

        update_op = self.scatter_update(left, update_indices, new_left, sharding,
                                        name="row_update" if update_row_factors
                                        else "col_update")

        # the loss, split into the observed entries and a Gramian term for the rest:
        # w0 (sum_obs r^2 - sum_obs p^2 + tr(U^T U V^T V)) + sum_obs R_i C_j r^2, built from
        # TF's sparse ops in TF's order
        loss_sp = tf.sparse_transpose(new_sp) if transpose_input else new_sp
        approx_vals = masked_matmul(new_left, right, loss_sp.indices, False, True)
        approx = tf.SparseTensor(loss_sp.indices, approx_vals, loss_sp.dense_shape)
        approx_sq = tf.square(approx)
        residual_sq = tf.square(tf.sparse_add(loss_sp, approx * (-1)))
        row_wt_mat = (tf.constant(0.0) if self._row_weights is None
                      else tf.expand_dims(row_weights_slice, 1))
        col_wt_mat = (tf.constant(0.0) if self._col_weights is None
                      else tf.expand_dims(col_weights, 0))
        partial_gramian = tf.matmul(new_left, new_left, transpose_a=True)
        scale = total_rows / tf.cast(num_rows, tf.float32)
        unregularized_loss = (self._unobserved_weight * (
            tf.sparse_reduce_sum(residual_sq) - tf.sparse_reduce_sum(approx_sq)
            + tf.trace(tf.matmul(partial_gramian, gramian)))
            + tf.sparse_reduce_sum(row_wt_mat * (residual_sq * col_wt_mat))) * scale
        if self._regularization is not None:
            regularization = self._regularization * (tf.trace(partial_gramian) * scale
                                                     + tf.trace(gramian))
        else:
            regularization = tf.constant(0.0)
        sum_weights = self._unobserved_weight * tf.cast(total_rows * total_cols, tf.float32)
        if self._row_weights is not None and self._col_weights is not None:
            ones = tf.SparseTensor(loss_sp.indices, tf.ones(tf.shape(loss_sp.values)),
                                   loss_sp.dense_shape)
            sum_weights += tf.sparse_reduce_sum(row_wt_mat * (ones * col_wt_mat)) * scale
        return new_left, update_op, unregularized_loss, regularization, sum_weights


__all__ = ["WALSModel", "masked_matmul", "wals_compute_partial_lhs_and_rhs"]
