"""``tf.contrib.factorization.WALSMatrixFactorization`` (TF 1.15): weighted alternating least
squares as an Estimator, on :class:`factorization_ops.WALSModel`.

Training alternates sweeps over the rows and over the columns: a hook runs the Gramian and
cache preparation before each sweep, then each step solves the rows (or columns) of the batch
``input_fn`` gives, until every row (column) has been seen; ``max_sweeps`` stops training after
that many sweeps. ``features`` is a dict: ``input_rows`` (a SparseTensor of rows) and
``input_cols`` (a SparseTensor of the transposed matrix's rows), plus ``project_row`` (bool)
and optionally ``projection_weights`` for prediction and evaluation.

Departure: TF's class is a ``tf.contrib.learn`` Estimator; this one is a ``tf.estimator``
Estimator with contrib.learn's ``fit(input_fn=..., steps=..., max_steps=...)`` beside ``train``.
"""

import tideflow as tf
from tideflow.ops.factorization_ops import WALSModel


class _SweepHook(tf.train.SessionRunHook):
    """Tracks row/column sweeps: runs the worker init once, switches axis when a sweep is
    done, runs the axis's prep ops at the start of each sweep, and adds that axis's train op
    to the step."""

    def __init__(self, is_row_sweep_var, is_sweep_done_var, init_op, row_prep_ops,
                 col_prep_ops, row_train_op, col_train_op, switch_op):
        self._is_row_sweep_var = is_row_sweep_var
        self._is_sweep_done_var = is_sweep_done_var
        self._init_op = init_op
        self._row_prep_ops = row_prep_ops
        self._col_prep_ops = col_prep_ops
        self._row_train_op = row_train_op
        self._col_train_op = col_train_op
        self._switch_op = switch_op
        self._is_initialized = False

    def before_run(self, run_context):
        sess = run_context.session
        is_sweep_done = sess.run(self._is_sweep_done_var)
        if not self._is_initialized:
            sess.run(self._init_op)
        if is_sweep_done:
            sess.run(self._switch_op)
        is_row_sweep = sess.run(self._is_row_sweep_var)
        if is_sweep_done or not self._is_initialized:
            for op in self._row_prep_ops if is_row_sweep else self._col_prep_ops:
                sess.run(op)
        self._is_initialized = True
        return tf.train.SessionRunArgs(
            fetches=[self._row_train_op if is_row_sweep else self._col_train_op])


class _IncrementGlobalStepHook(tf.train.SessionRunHook):
    """Adds one to the global step before each step (the train op itself is a no-op)."""

    def __init__(self):
        global_step = tf.train.get_global_step()
        self._incr = (tf.assign_add(global_step, 1, name="global_step_incr").op
                      if global_step is not None else None)

    def before_run(self, run_context):
        if self._incr is not None:
            run_context.session.run(self._incr)


class _StopAtSweepHook(tf.train.SessionRunHook):
    """Requests a stop once ``completed_sweeps`` reaches ``last_sweep``."""

    def __init__(self, last_sweep):
        self._last_sweep = last_sweep

    def begin(self):
        try:
            self._completed_sweeps_var = tf.get_default_graph().get_tensor_by_name(
                WALSMatrixFactorization.COMPLETED_SWEEPS + ":0")
        except KeyError:
            raise RuntimeError(WALSMatrixFactorization.COMPLETED_SWEEPS
                               + " counter should be created to use StopAtSweepHook.") from None

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._completed_sweeps_var)

    def after_run(self, run_context, run_values):
        if run_values.results >= self._last_sweep:
            run_context.request_stop()


def _global_var(value, name, **kw):
    return tf.Variable(value, trainable=False, name=name,
                       collections=[tf.GraphKeys.GLOBAL_VARIABLES], **kw)


def _wals_model_fn(features, labels, mode, params):
    if labels is not None:
        raise ValueError("WALSMatrixFactorization: input_fn must not return labels")
    train = mode == tf.estimator.ModeKeys.TRAIN
    model = WALSModel(
        params["num_rows"], params["num_cols"], params["embedding_dimension"],
        unobserved_weight=params["unobserved_weight"],
        regularization=params["regularization_coeff"], row_init=params["row_init"],
        col_init=params["col_init"], num_row_shards=params["num_row_shards"],
        num_col_shards=params["num_col_shards"], row_weights=params["row_weights"],
        col_weights=params["col_weights"],
        use_factors_weights_cache=params["use_factors_weights_cache_for_training"] and train,
        use_gramian_cache=params["use_gramian_cache_for_training"] and train)
    input_rows = features[WALSMatrixFactorization.INPUT_ROWS]
    input_cols = features[WALSMatrixFactorization.INPUT_COLS]

    if train:
        is_row_sweep = _global_var(True, "is_row_sweep")
        is_sweep_done = _global_var(False, "is_sweep_done")
        completed = _global_var(0, WALSMatrixFactorization.COMPLETED_SWEEPS)
        loss_var = _global_var(0.0, WALSMatrixFactorization.LOSS)
        # root weighted squared error: sqrt(sum_ij w_ij (a_ij - r_ij)^2 / sum_ij w_ij)
        rwse_var = _global_var(0.0, WALSMatrixFactorization.RWSE)
        tf.summary.scalar("loss", loss_var)
        tf.summary.scalar("root_weighted_squared_error", rwse_var)
        tf.summary.scalar("completed_sweeps", completed)

        def axis_ops(sp_input, num_items, update_fn, axis):
            processed = _global_var(tf.fill([num_items], False), "processed_" + axis)
            _, update_op, loss, reg, sum_weights = update_fn(sp_input)
            ids = sp_input.indices[:, 0]
            with tf.control_dependencies([update_op, tf.assign(loss_var, loss + reg),
                                          tf.assign(rwse_var, tf.sqrt(loss / sum_weights))]):
                mark = tf.scatter_update(processed, ids, tf.ones_like(ids, dtype=tf.bool),
                                         name=f"update_processed_{axis}_indices")
            with tf.control_dependencies([mark]):
                done = tf.reduce_all(processed)
                train_op = tf.group(tf.assign(is_sweep_done, done),
                                    tf.assign_add(completed, tf.cast(done, tf.int32)),
                                    name=f"{axis}_sweep_train_op")
            return processed.initializer, train_op

        reset_rows, row_train_op = axis_ops(
            input_rows, params["num_rows"],
            lambda x: model.update_row_factors(sp_input=x, transpose_input=False), "rows")
        reset_cols, col_train_op = axis_ops(
            input_cols, params["num_cols"],
            lambda x: model.update_col_factors(sp_input=x, transpose_input=True), "cols")
        switch_op = tf.group(tf.assign(is_row_sweep, tf.logical_not(is_row_sweep)),
                             reset_rows, reset_cols, name="sweep_switch_op")
        hooks = [_SweepHook(is_row_sweep, is_sweep_done, model.worker_init,
                            [model.row_update_prep_gramian_op,
                             model.initialize_row_update_op],
                            [model.col_update_prep_gramian_op,
                             model.initialize_col_update_op],
                            row_train_op, col_train_op, switch_op),
                 _IncrementGlobalStepHook()]
        if params["max_sweeps"] is not None:
            hooks.append(_StopAtSweepHook(params["max_sweeps"]))
        return tf.estimator.EstimatorSpec(mode=mode, loss=tf.identity(loss_var),
                                          train_op=tf.no_op(), training_hooks=hooks)

    project_row = features[WALSMatrixFactorization.PROJECT_ROW]
    if mode == tf.estimator.ModeKeys.PREDICT:
        weights = features.get(WALSMatrixFactorization.PROJECTION_WEIGHTS)
        projection = tf.cond(
            project_row,
            lambda: model.project_row_factors(sp_input=input_rows,
                                              projection_weights=weights,
                                              transpose_input=False),
            lambda: model.project_col_factors(sp_input=input_cols,
                                              projection_weights=weights,
                                              transpose_input=True))
        return tf.estimator.EstimatorSpec(
            mode=mode, predictions={WALSMatrixFactorization.PROJECTION_RESULT: projection})

    def row_loss():
        _, _, loss, reg, _ = model.update_row_factors(sp_input=input_rows,
                                                      transpose_input=False)
        return loss + reg

    def col_loss():
        _, _, loss, reg, _ = model.update_col_factors(sp_input=input_cols,
                                                      transpose_input=True)
        return loss + reg

    return tf.estimator.EstimatorSpec(mode=mode, loss=tf.cond(project_row, row_loss, col_loss))


class WALSMatrixFactorization(tf.estimator.Estimator):
    """An Estimator for weighted matrix factorization by WALS (see the module docstring)."""

    INPUT_ROWS = "input_rows"
    INPUT_COLS = "input_cols"
    PROJECT_ROW = "project_row"
    PROJECTION_WEIGHTS = "projection_weights"
    PROJECTION_RESULT = "projection"
    COMPLETED_SWEEPS = "completed_sweeps"
    LOSS = "WALS_loss"
    RWSE = "WALS_RWSE"

    def __init__(self, num_rows, num_cols, embedding_dimension, unobserved_weight=0.1,
                 regularization_coeff=None, row_init="random", col_init="random",
                 num_row_shards=1, num_col_shards=1, row_weights=1, col_weights=1,
                 use_factors_weights_cache_for_training=True,
                 use_gramian_cache_for_training=True, max_sweeps=None, model_dir=None,
                 config=None):
        params = {
            "num_rows": num_rows, "num_cols": num_cols,
            "embedding_dimension": embedding_dimension,
            "unobserved_weight": unobserved_weight,
            "regularization_coeff": regularization_coeff, "row_init": row_init,
            "col_init": col_init, "num_row_shards": num_row_shards,
            "num_col_shards": num_col_shards, "row_weights": row_weights,
            "col_weights": col_weights, "max_sweeps": max_sweeps,
            "use_factors_weights_cache_for_training": use_factors_weights_cache_for_training,
            "use_gramian_cache_for_training": use_gramian_cache_for_training,
        }
        self._row_factors_names = [f"row_factors_shard_{i}" for i in range(num_row_shards)]
        self._col_factors_names = [f"col_factors_shard_{i}" for i in range(num_col_shards)]
        super().__init__(model_fn=_wals_model_fn, params=params, model_dir=model_dir,
                         config=config)
        if self._config is not None and self._config.num_worker_replicas > 1:
            raise ValueError("WALSMatrixFactorization must be run on a single worker "
                             "replica.")

    def fit(self, x=None, y=None, input_fn=None, steps=None, batch_size=None, monitors=None,
            max_steps=None):
        """contrib.learn's training entry: ``train(input_fn, monitors, steps, max_steps)``."""
        if x is not None or y is not None or batch_size is not None:
            raise ValueError("WALSMatrixFactorization.fit takes input_fn (x, y and "
                             "batch_size are not supported)")
        self.train(input_fn, hooks=monitors, steps=steps, max_steps=max_steps)
        return self

    def get_row_factors(self):
        """The row factor shards, from the latest checkpoint."""
        return [self.get_variable_value(n) for n in self._row_factors_names]

    def get_col_factors(self):
        """The column factor shards, from the latest checkpoint."""
        return [self.get_variable_value(n) for n in self._col_factors_names]

    def get_projections(self, input_fn):
        """Yields the projected factors of the rows or columns ``input_fn`` gives."""
        return (result[self.PROJECTION_RESULT] for result in self.predict(input_fn=input_fn))


__all__ = ["WALSMatrixFactorization"]
