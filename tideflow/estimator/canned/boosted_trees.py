"""``tf.estimator.BoostedTreesClassifier`` / ``BoostedTreesRegressor`` (TF 1.8-1.15): gradient
boosted trees grown layer by layer. Each training batch adds its per-example gradients and
diagonal hessians (of the head's loss with respect to the logits) to per node, feature and
bucket statistics; after ``n_batches_per_layer`` batches every leaf of the growing tree's
last layer splits at its best (feature, bucket) gain, the children taking the parent's value
plus ``learning_rate`` times their Newton step; a tree is finished at ``max_depth`` (then
post-pruned if asked) and training stops after ``n_trees``. Features come from
``bucketized_column`` (one feature, its buckets) and ``indicator_column`` (a 0/1 feature per
category). The ensemble lives in variables (so checkpoints hold it) and the tree kernels are
NumPy, run through ``py_func``."""

import collections
import functools

import numpy as np

from tideflow.estimator.canned import head as head_lib
from tideflow.estimator.estimator import Estimator
from tideflow.estimator.model_fn import ModeKeys
from tideflow.feature_column import feature_column as fc
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    gradients,
    init_ops,
    losses_impl,
    math_ops,
    reduction_ops,
    state_ops,
    variable_scope,
)
from tideflow.ops.script_ops import py_func
from tideflow.train import checkpoint_utils, session_run_hook, training_util


def _features(features, feature_columns):
    """``(bucket ids [batch, F1] int32 or None, their bucket counts, numeric values
    [batch, F2] float32 or None)`` of the columns: bucketized and indicator columns bucket in
    the graph, numeric columns by the quantile boundaries training finds."""
    columns = sorted(feature_columns, key=lambda c: c.name)
    parts, sizes, numeric = [], [], []
    for col in columns:
        dense = fc.input_layer(features, [col])
        if isinstance(col, fc._BucketizedColumn):
            if col.source_column.shape not in ((1,), [1]):
                raise ValueError(f"BoostedTrees: bucketized column {col.name} must have "
                                 f"shape (1,), got {col.source_column.shape}")
            parts.append(array_ops.expand_dims(
                cast_ops.cast(reduction_ops.argmax(dense, 1), dtypes.int32), 1))
            sizes.append(len(col.boundaries) + 1)
        elif isinstance(col, fc._IndicatorColumn):
            parts.append(cast_ops.cast(math_ops.minimum(dense, 1.0), dtypes.int32))
            width = dense.get_shape()[1].value
            sizes.extend([2] * width)
        elif isinstance(col, fc._NumericColumn):
            numeric.append(cast_ops.cast(dense, dtypes.float32))
        else:
            raise ValueError("BoostedTrees supports bucketized, indicator and numeric "  # noqa: TRY004 - as TF
                             f"columns, got {type(col).__name__} ({col.name})")
    if not parts and not numeric:
        raise ValueError("BoostedTrees needs at least one feature column")
    fixed = concat_ops.concat(parts, 1) if parts else None
    values = concat_ops.concat(numeric, 1) if numeric else None
    return fixed, sizes, values


def _bucketize(fixed, values, boundaries, n_bounds):
    """All features' bucket ids: the fixed ones, then each numeric value's count of its
    boundaries at or below it."""
    cols = [fixed] if fixed is not None and fixed.size else []
    if values is not None:
        for j in range(values.shape[1]):
            ids = np.searchsorted(boundaries[j, :n_bounds[j]], values[:, j], side="right")
            cols.append(ids.reshape(-1, 1).astype(np.int32))
    return np.concatenate(cols, 1) if cols else np.zeros((0, 0), np.int32)


def _quantile_boundaries(values, max_bounds):
    """Up to ``max_bounds`` distinct quantiles of each column of ``values``."""
    out = np.zeros((values.shape[1], max_bounds), np.float32)
    counts = np.zeros(values.shape[1], np.int32)
    for j in range(values.shape[1]):
        qs = np.unique(np.quantile(values[:, j], np.linspace(0.0, 1.0, max_bounds)))
        out[j, :len(qs)] = qs
        counts[j] = len(qs)
    return out, counts


def _traverse(buckets, split_feature, threshold, value, num_trees):
    """The sum over trees of each example's leaf value."""
    n = buckets.shape[0]
    total = np.zeros(n, np.float32)
    rows = np.arange(n)
    for t in range(min(int(num_trees), split_feature.shape[0])):
        node = np.zeros(n, np.int64)
        while True:
            f = split_feature[t, node]
            inner = f >= 0
            if not inner.any():
                break
            b = buckets[rows, np.maximum(f, 0)]
            go_left = b <= threshold[t, node]
            child = np.where(go_left, 2 * node + 1, 2 * node + 2)
            node = np.where(inner, child, node)
        total += value[t, node]
    return total


def _explain(buckets, split_feature, threshold, value, num_trees, n_features, classify):
    """TF's directional feature contributions: each example's logits along its path through
    the trees (from the first tree's root, the bias; a tree's leaf counts once reached), its
    activation's change at each split credited to the split's feature. Returns (the
    contributions [batch, n_features], the activated bias [batch]), float64 as TF's."""
    def activation(x):
        x = np.asarray(x, np.float64)
        return 1.0 / (1.0 + np.exp(-x)) if classify else x

    n = buckets.shape[0]
    contribs = np.zeros((n, int(n_features)), np.float64)
    bias = np.zeros(n, np.float64)
    for i in range(n):
        path, ids = [value[0, 0]], []
        past = np.float32(0)
        tree_logit = value[0, 0]
        for t in range(min(int(num_trees), split_feature.shape[0])):
            node = 0
            while split_feature[t, node] >= 0:
                f = split_feature[t, node]
                ids.append(f)
                node = 2 * node + (1 if buckets[i, f] <= threshold[t, node] else 2)
                tree_logit = value[t, node]
                path.append(np.float32(tree_logit + past))
            if t == 0 or node > 0:
                past = np.float32(past + tree_logit)
        predictions = activation(path)
        bias[i] = predictions[0]
        contribs[i] = np.bincount(np.asarray(ids, np.int64), weights=np.diff(predictions),
                                  minlength=int(n_features))
    return contribs, bias


class _Trainer:
    """The NumPy side of one training step (statistics, then a layer when due), with TF
    1.15's kernels' rules: the statistics of ``n_batches_per_layer`` batches are averaged
    (TF's accumulators), every leaf of the last layer whose hessian reaches
    ``min_node_weight`` splits at its best gain, an empty side included and negative gains
    too unless pruning, and ties go to the lower bucket, then the lower feature id."""

    # TF's threshold on a bias update (relative to the bias) below which centering ends
    _MIN_CENTER_BIAS_DELTA = 0.01

    def __init__(self, sizes, n_numeric, n_batches_per_layer, n_trees, max_depth,
                 learning_rate, l1, l2, tree_complexity, min_node_weight, center_bias=False,
                 pruning_mode="none"):
        self.center_bias = center_bias
        self.fixed_sizes = np.asarray(sizes, np.int64)
        self.n_fixed, self.n_numeric = len(sizes), n_numeric
        self.sizes = self.fixed_sizes
        # (TF grows after every batch when n_batches_per_layer is not positive)
        self.n_batches = max(1, n_batches_per_layer)
        self.n_trees, self.max_depth = n_trees, max_depth
        self.lr = np.float32(learning_rate)
        self.l1, self.l2 = np.float32(l1), np.float32(l2)
        self.complexity, self.min_weight = np.float32(tree_complexity), min_node_weight
        self.pruning_mode = pruning_mode

    def _node_of(self, buckets, split_feature, threshold, t):
        node = np.zeros(buckets.shape[0], np.int64)
        rows = np.arange(buckets.shape[0])
        while True:
            f = split_feature[t, node]
            inner = f >= 0
            if not inner.any():
                return node
            b = buckets[rows, np.maximum(f, 0)]
            child = np.where(b <= threshold[t, node], 2 * node + 1, 2 * node + 2)
            node = np.where(inner, child, node)

    def _weight(self, g, h):
        """TF's leaf weights and gains (float32): L1 moves the gradient toward zero (a zero
        weight within [-l1, l1]), and a hessian plus L2 at or under 1e-15 weighs zero."""
        g = np.asarray(g, np.float32)
        if self.l1 > 0:
            g = np.where(g > self.l1, g - self.l1,
                         np.where(g < -self.l1, g + self.l1, np.float32(0)))
        denom = np.asarray(h, np.float32) + self.l2
        ok = denom > 1e-15
        w = np.where(ok, -g / np.where(ok, denom, np.float32(1)), np.float32(0))
        return w, -g * w

    def __call__(self, fixed, values, grads, hess, split_feature, threshold, value, state,
                 g_acc, h_acc, boundaries, n_bounds, split_gain):
        split_feature, threshold, value = split_feature.copy(), threshold.copy(), value.copy()
        state, g_acc, h_acc = state.copy(), g_acc.copy(), h_acc.copy()
        boundaries, n_bounds = boundaries.copy(), n_bounds.copy()
        split_gain = split_gain.copy()
        out = (split_feature, threshold, value, state, g_acc, h_acc, boundaries, n_bounds,
               split_gain)
        tree, layer, seen, ready, attempts = (int(v) for v in state)
        if tree >= split_feature.shape[0]:  # TF grows on past n_trees when run on
            grow = ((split_feature, -1), (threshold, 0), (value, 0), (split_gain, 0))
            split_feature, threshold, value, split_gain = (
                np.concatenate([a, np.full((1, a.shape[1]), fill, a.dtype)]) for a, fill in grow)
            out = (split_feature, threshold, value, state, g_acc, h_acc, boundaries, n_bounds,
                   split_gain)
        if not ready:  # the first batches find the numeric features' bucket boundaries
            if seen == 0:
                boundaries[...], n_bounds[...] = _quantile_boundaries(values,
                                                                      boundaries.shape[1])
            seen += 1
            if seen >= self.n_batches:
                seen, ready = 0, (2 if self.center_bias else 1)
            state[:] = (tree, layer, seen, ready, attempts)
            return out
        if ready >= 2:  # center_bias: Newton steps on the first tree's root until settled
            # (TF averages the batches' mean gradient and hessian)
            g_acc[0, 0, 0] += grads.mean(dtype=np.float32)
            h_acc[0, 0, 0] += hess.mean(dtype=np.float32)
            seen += 1
            if seen >= self.n_batches:
                delta, _ = self._weight(g_acc[0, 0, 0] / np.float32(seen),
                                        h_acc[0, 0, 0] / np.float32(seen))
                value[0, 0] += delta
                g_acc[0, 0, 0] = h_acc[0, 0, 0] = 0
                seen = 0
                # the first step always goes on; later ones while they move the bias by
                # over 1% (TF's rule)
                if ready == 3 and not abs(delta / value[0, 0]) > self._MIN_CENTER_BIAS_DELTA:
                    ready = 1
                else:
                    ready = 3
            state[:] = (tree, layer, seen, ready, attempts)
            return out
        buckets = _bucketize(fixed if self.n_fixed else None,
                             values if self.n_numeric else None, boundaries, n_bounds)
        self.sizes = np.concatenate([self.fixed_sizes,
                                     n_bounds[:self.n_numeric] + 1]).astype(np.int64)
        node = self._node_of(buckets, split_feature, threshold, tree)
        for f in range(buckets.shape[1]):
            np.add.at(g_acc, (node, f, buckets[:, f]), grads)
            np.add.at(h_acc, (node, f, buckets[:, f]), hess)
        seen += 1
        if seen >= self.n_batches:
            attempts += 1
            if self._grow(tree, layer, split_feature, threshold, value,
                          g_acc / np.float32(seen), h_acc / np.float32(seen), split_gain):
                layer += 1
                if layer >= self.max_depth:
                    if self.pruning_mode == "post":
                        self._post_prune(split_feature[tree], split_gain[tree])
                    tree, layer = tree + 1, 0
            g_acc[:] = 0
            h_acc[:] = 0
            seen = 0
        state[:] = (tree, layer, seen, ready, attempts)
        return out

    def _grow(self, tree, layer, split_feature, threshold, value, g_acc, h_acc, split_gain):
        """Splits the last layer's leaves; whether any split (else TF tries the layer
        again on the next batches)."""
        first = 2 ** layer - 1
        grown = False
        for node in range(first, 2 * first + 1):
            if layer > 0 and not self._is_leaf_of_tree(split_feature[tree], node):
                continue
            best = None
            for f, size in enumerate(self.sizes):
                g = np.cumsum(g_acc[node, f, :size], dtype=np.float32)
                h = np.cumsum(h_acc[node, f, :size], dtype=np.float32)
                total_g, total_h = g[-1], h[-1]
                if total_h < self.min_weight:
                    continue
                _, parent_gain = self._weight(total_g, total_h)
                wl, gain_l = self._weight(g, h)
                wr, gain_r = self._weight(total_g - g, total_h - h)
                gains = gain_l + gain_r - parent_gain - self.complexity
                b = int(np.argmax(gains))  # the first of equal gains
                # a later feature only wins by TF's tolerance (ties go to the lower id)
                if best is None or gains[b] - best[0] >= 1e-15:
                    best = (gains[b], f, b, wl[b], wr[b])
            if best is None:
                continue
            gain, f, b, wl, wr = best
            if self.pruning_mode == "pre" and gain < 0:
                continue
            grown = True
            split_gain[tree, node] = gain
            split_feature[tree, node] = f
            threshold[tree, node] = b
            value[tree, 2 * node + 1] = value[tree, node] + self.lr * wl
            value[tree, 2 * node + 2] = value[tree, node] + self.lr * wr
        return grown

    @staticmethod
    def _post_prune(features, gains):
        """TF's post-pruning of a finished tree: from the bottom, a split of negative gain
        whose children are leaves turns back into the leaf it was."""
        for node in range(len(features) - 1, -1, -1):
            left = 2 * node + 1
            if (features[node] >= 0 and gains[node] < 0 and left + 1 < len(features)
                    and features[left] < 0 and features[left + 1] < 0):
                features[node] = -1
                gains[node] = 0

    @staticmethod
    def _is_leaf_of_tree(features, node):
        """Whether ``node`` hangs from the tree (its parent split)."""
        parent = (node - 1) // 2
        return features[parent] >= 0 and features[node] < 0


class _StopWhenGrownHook(session_run_hook.SessionRunHook):
    """TF's stop: once ``n_trees`` trees are finished, or after more than twice the layers
    they need were attempted (a layer where no leaf splits is tried again)."""

    def __init__(self, state, n_trees, max_depth):
        self._state, self._n_trees, self._max_depth = state, n_trees, max_depth

    def before_run(self, run_context):
        return session_run_hook.SessionRunArgs(self._state)

    def after_run(self, run_context, run_values):
        tree, attempts = run_values.results[0], run_values.results[4]
        if tree >= self._n_trees or attempts > 2 * self._n_trees * self._max_depth:
            run_context.request_stop()


def _check_growing(params):
    """TF 1.15's checks of the growing parameters, made when a training graph is built."""
    if params["pruning_mode"] not in ("none", "pre", "post"):
        raise ValueError("pruning_mode mode must be one of: none, post, pre")
    if params["tree_complexity"] > 0:
        if params["pruning_mode"] == "none":
            raise ValueError("Tree complexity have no effect unless pruning mode is chosen.")
    elif params["pruning_mode"] != "none":
        raise ValueError("For pruning, tree_complexity must be positive.")
    if params["max_depth"] < 1:
        # (TF's statistics op takes 2**max_depth - 1 nodes)
        raise ValueError(f"Attr 'max_splits' of 'BoostedTreesMakeStatsSummary' Op passed "
                         f"{(1 << max(params['max_depth'], 0)) - 1} less than minimum 1.")


def _model_fn(features, labels, mode, head, feature_columns, params):
    fixed, sizes, values = _features(features, feature_columns)
    if mode == ModeKeys.TRAIN:
        _check_growing(params)
    n_numeric = 0 if values is None else values.get_shape()[1].value
    n_trees, max_depth = params["n_trees"], params["max_depth"]
    max_bounds = params["max_bounds"]
    nodes = 2 ** (max_depth + 1) - 1
    n_features = len(sizes) + n_numeric
    max_buckets = max(sizes + ([max_bounds + 1] if n_numeric else []))
    batch = array_ops.shape(fixed if fixed is not None else values)[0]
    if fixed is None:
        fixed = array_ops.zeros(array_ops.stack([batch, 0]), dtypes.int32)
    if values is None:
        values = array_ops.zeros(array_ops.stack([batch, 0]), dtypes.float32)

    def var(name, shape, dtype, fill=0):
        return variable_scope.get_variable(name, shape, dtype, trainable=False,
                                           initializer=init_ops.constant_initializer(fill))

    def trees(name, dtype, fill=0):
        # a row per tree, n_trees to start: as TF's ensemble, training past them (the step a
        # finished model's train call runs, or a larger n_trees later) grows more trees
        return variable_scope.get_variable(
            name, dtype=dtype, trainable=False, validate_shape=False,
            initializer=array_ops.fill([n_trees, nodes], ops.convert_to_tensor(fill, dtype)))

    with variable_scope.variable_scope("boosted_trees"):
        split_feature = trees("split_feature", dtypes.int32, -1)
        threshold = trees("threshold", dtypes.int32)
        value = trees("node_value", dtypes.float32)
        # (tree, layer, batches seen, phase, layers attempted): phase 0 finds the numeric
        # features' boundaries, 2 and 3 center the bias (center_bias), 1 grows the trees
        state = variable_scope.get_variable(
            "growing_state", [5], dtypes.int32, trainable=False,
            initializer=init_ops.constant_initializer(
                [0, 0, 0, 0 if n_numeric else (2 if params["center_bias"] else 1), 0]))
        boundaries = var("quantile_boundaries", [max(n_numeric, 1), max_bounds],
                         dtypes.float32)
        n_bounds = var("num_boundaries", [max(n_numeric, 1)], dtypes.int32)
        # each split's gain, for experimental_feature_importances
        split_gain = trees("split_gain", dtypes.float32)
    n_fixed = len(sizes)

    def bucketize(f, v, b, n):
        return _bucketize(f if n_fixed else None, v if n_numeric else None, b, n)

    buckets = py_func(bucketize, [fixed, values, boundaries, n_bounds], dtypes.int32,
                      stateful=False, name="bucketize")
    num_trees = state[0] + 1  # (the growing tree too; as many as there are rows at most)
    logits = py_func(_traverse, [buckets, split_feature, threshold, value, num_trees],
                     dtypes.float32, stateful=False, name="predict_ensemble")
    logits = array_ops.reshape(logits, [-1, 1])

    def train_op_fn(loss):
        grads = gradients.gradients(loss, logits)[0]
        hess = gradients.gradients(reduction_ops.reduce_sum(grads), logits)[0]
        with variable_scope.variable_scope("boosted_trees"):
            g_acc = var("grad_stats", [nodes, n_features, max_buckets], dtypes.float32)
            h_acc = var("hess_stats", [nodes, n_features, max_buckets], dtypes.float32)
        trainer = _Trainer(sizes, n_numeric, params["n_batches_per_layer"], n_trees,
                           max_depth, params["learning_rate"], params["l1"], params["l2"],
                           params["tree_complexity"], params["min_node_weight"],
                           params["center_bias"], params["pruning_mode"])
        new = py_func(trainer, [fixed, values, array_ops.reshape(grads, [-1]),
                                array_ops.reshape(hess, [-1]), split_feature, threshold,
                                value, state, g_acc, h_acc, boundaries, n_bounds, split_gain],
                      [dtypes.int32, dtypes.int32, dtypes.float32, dtypes.int32,
                       dtypes.float32, dtypes.float32, dtypes.float32, dtypes.int32,
                       dtypes.float32],
                      name="grow_ensemble")
        targets = [split_feature, threshold, value, state, g_acc, h_acc, boundaries, n_bounds,
                   split_gain]
        assigns = [state_ops.assign(v, t, validate_shape=False)
                   for v, t in zip(targets, new, strict=True)]
        with ops.control_dependencies(assigns):
            return state_ops.assign_add(training_util.get_global_step(), 1)

    spec = head.create_estimator_spec(features=features, mode=mode, logits=logits,
                                      labels=labels,
                                      train_op_fn=train_op_fn if mode == ModeKeys.TRAIN
                                      else None)
    if params.get("explain"):
        contribs, bias = py_func(
            functools.partial(_explain, n_features=n_features,
                              classify=isinstance(head, head_lib._ClassificationHead)),
            [buckets, split_feature, threshold, value, num_trees],
            [dtypes.float64, dtypes.float64], stateful=False, name="explain_ensemble")
        predictions = dict(spec.predictions)
        predictions[_DFC_KEY], predictions[_BIAS_KEY] = contribs, bias
        spec = spec._replace(predictions=predictions)
    if mode == ModeKeys.TRAIN:
        hooks = list(spec.training_hooks) + [_StopWhenGrownHook(state, n_trees, max_depth)]
        spec = spec._replace(training_hooks=hooks)
    return spec


def _params(feature_columns, n_batches_per_layer, n_trees, max_depth, learning_rate,
            l1_regularization, l2_regularization, tree_complexity, min_node_weight,
            center_bias=False, pruning_mode="none", quantile_sketch_epsilon=0.01):
    if not feature_columns:
        raise ValueError("feature_columns must not be empty")
    for col in feature_columns:
        # (TF 1.15 counts the features when the estimator is made)
        if (isinstance(col, fc._CategoricalColumn)
                and not isinstance(col, (fc._BucketizedColumn, fc._IndicatorColumn))):
            raise ValueError(  # noqa: TRY004 - as TF
                f"CategoricalColumn must be wrapped by IndicatorColumn, got: {col}")
    return {"n_batches_per_layer": int(n_batches_per_layer), "n_trees": int(n_trees),
            "max_depth": int(max_depth), "learning_rate": float(learning_rate),
            "l1": float(l1_regularization), "l2": float(l2_regularization),
            "tree_complexity": float(tree_complexity),
            "min_node_weight": float(min_node_weight), "center_bias": bool(center_bias),
            "pruning_mode": pruning_mode,
            "max_bounds": max(2, round(1.0 / quantile_sketch_epsilon))}


def _feature_names(feature_columns):
    """The name of each feature id the trees split on: the bucketized and indicator columns
    (an indicator column gives one id per category, named by its categorical column) sorted
    by name, then the numeric columns (one id per value) sorted by name."""
    fixed, numeric = [], []
    for col in sorted(feature_columns, key=lambda c: c.name):
        if isinstance(col, fc._BucketizedColumn):
            fixed.append(col.name)
        elif isinstance(col, fc._IndicatorColumn):
            fixed.extend([col.categorical_column.name]
                         * col.categorical_column._num_buckets)
        else:
            size = 1
            for d in col.shape:
                size *= d
            numeric.extend([col.name] * size)
    return fixed + numeric


# the prediction keys of the explanations (TF's parse them out of a debug proto it drops)
_DFC_KEY = "_directional_feature_contributions"
_BIAS_KEY = "_bias"


def _sum_by_name_and_sort(names, values):
    """TF's grouping of per-feature-id values by column name, sorted by absolute value, the
    largest first (equal ones in column order)."""
    summed = {}
    for name, value in zip(names, values, strict=True):
        summed[name] = summed.setdefault(name, 0) + value
    return collections.OrderedDict(sorted(summed.items(), key=lambda x: abs(x[1]),
                                          reverse=True))


class _FeatureImportances:
    """The model-explaining methods of TF 1.15's boosted trees estimators."""

    def experimental_feature_importances(self, normalize=False):
        """The gain-based importance of each feature column: the gains of the splits on it,
        summed over the trees (divided by their total when ``normalize``), as an OrderedDict
        from the most important column down."""
        reader = checkpoint_utils.load_checkpoint(self.model_dir)
        split_feature = reader.get_tensor("boosted_trees/split_feature")
        split_gain = reader.get_tensor("boosted_trees/split_gain")
        names = _feature_names(self._feature_columns)
        importances = np.zeros(len(names), np.float64)
        inner = split_feature >= 0
        np.add.at(importances, split_feature[inner], split_gain[inner])
        if normalize:
            # (TF's asserts)
            if not np.all(importances >= 0):
                raise AssertionError("feature_importances must be non-negative.")
            total = np.sum(importances)
            if not total > 0:
                raise AssertionError("Trees are all empty or contain only a root node.")
            importances /= total
        return _sum_by_name_and_sort(names, importances)

    def experimental_predict_with_explanations(self, input_fn, predict_keys=None, hooks=None,
                                               checkpoint_path=None):
        """Yields each example's predictions with its directional feature contributions:
        ``dfc``, an OrderedDict from column name to its contribution to the probability
        (classifier) or prediction (regressor), the largest in absolute value first, and
        ``bias``, the first tree's root's (the centered bias)."""
        if not self._tree_params["center_bias"]:
            raise ValueError("center_bias must be enabled during estimator instantiation when "
                             "using experimental_predict_with_explanations.")
        params = dict(self._tree_params, explain=True)
        head, columns = self._head, self._feature_columns
        est = Estimator(model_fn=lambda features, labels, mode: _model_fn(
            features, labels, mode, head, columns, params), model_dir=self.model_dir,
            config=self.config)
        if predict_keys is not None:
            predict_keys = set(predict_keys) | {_DFC_KEY, _BIAS_KEY}
        names = _feature_names(columns)
        for pred in est.predict(input_fn, predict_keys=predict_keys, hooks=hooks,
                                checkpoint_path=checkpoint_path):
            pred["bias"] = pred.pop(_BIAS_KEY)
            pred["dfc"] = _sum_by_name_and_sort(names, pred.pop(_DFC_KEY))
            yield pred


class BoostedTreesClassifier(_FeatureImportances, Estimator):
    """A binary classifier of boosted trees (TF 1.x supports only ``n_classes=2``)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, n_classes=2,
                 weight_column=None, label_vocabulary=None, n_trees=100, max_depth=6,
                 learning_rate=0.1, l1_regularization=0.0, l2_regularization=0.0,
                 tree_complexity=0.0, min_node_weight=0.0, config=None, center_bias=False,
                 pruning_mode="none", quantile_sketch_epsilon=0.01, train_in_memory=False):
        if n_classes > 2 and pruning_mode is not None:
            raise ValueError("For now pruning is not supported with multi class.")
        if n_classes != 2:
            raise ValueError("For now only binary classification is supported.n_classes given "
                             f"as {n_classes}")
        params = _params(feature_columns, n_batches_per_layer, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, center_bias, pruning_mode, quantile_sketch_epsilon)
        head = head_lib.classification_head(2, weight_column, label_vocabulary,
                                            losses_impl.Reduction.SUM_OVER_BATCH_SIZE)
        columns = list(feature_columns)
        self._feature_columns, self._head, self._tree_params = columns, head, params
        super().__init__(model_fn=lambda features, labels, mode: _model_fn(
            features, labels, mode, head, columns, params), model_dir=model_dir, config=config)


class BoostedTreesRegressor(_FeatureImportances, Estimator):
    """A regressor of boosted trees (squared loss)."""

    def __init__(self, feature_columns, n_batches_per_layer, model_dir=None, label_dimension=1,
                 weight_column=None, n_trees=100, max_depth=6, learning_rate=0.1,
                 l1_regularization=0.0, l2_regularization=0.0, tree_complexity=0.0,
                 min_node_weight=0.0, config=None, center_bias=False, pruning_mode="none",
                 quantile_sketch_epsilon=0.01, train_in_memory=False):
        if label_dimension > 1 and pruning_mode is not None:
            raise ValueError("For now pruning is not supported with multi-dimensionregression.")
        if label_dimension != 1:
            raise ValueError("For now only 1 dimension regression is supported.label_dimension "
                             f"given as {label_dimension}")
        params = _params(feature_columns, n_batches_per_layer, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, center_bias, pruning_mode, quantile_sketch_epsilon)
        head = head_lib.RegressionHead(1, weight_column,
                                       losses_impl.Reduction.SUM_OVER_BATCH_SIZE)
        columns = list(feature_columns)
        self._feature_columns, self._head, self._tree_params = columns, head, params
        super().__init__(model_fn=lambda features, labels, mode: _model_fn(
            features, labels, mode, head, columns, params), model_dir=model_dir, config=config)


class BoostedTreesEstimator(_FeatureImportances, Estimator):
    """Boosted trees over a given head (``tf.estimator.BoostedTreesEstimator``; its
    ``weight_column`` is unused, as TF's: the head weighs the examples)."""

    def __init__(self, feature_columns, n_batches_per_layer, head, model_dir=None,
                 weight_column=None, n_trees=100, max_depth=6, learning_rate=0.1,
                 l1_regularization=0.0, l2_regularization=0.0, tree_complexity=0.0,
                 min_node_weight=0.0, config=None, center_bias=False, pruning_mode="none",
                 quantile_sketch_epsilon=0.01):
        del weight_column
        params = _params(feature_columns, n_batches_per_layer, n_trees, max_depth,
                         learning_rate, l1_regularization, l2_regularization, tree_complexity,
                         min_node_weight, center_bias, pruning_mode, quantile_sketch_epsilon)
        columns = list(feature_columns)
        self._feature_columns, self._head, self._tree_params = columns, head, params
        super().__init__(model_fn=lambda features, labels, mode: _model_fn(
            features, labels, mode, head, columns, params), model_dir=model_dir, config=config)


def _whole_data_every_step(train_input_fn):
    """In-memory training reads the whole data set (one batch) at every step: a returned
    ``Dataset`` is repeated, so a one-element ``Dataset.from_tensors`` lasts until the trees
    are grown (TF caches the batch in variables instead)."""
    from tideflow.ops.dataset_ops import Dataset

    @functools.wraps(train_input_fn)
    def input_fn(*args, **kwargs):
        result = train_input_fn(*args, **kwargs)
        return result.repeat() if isinstance(result, Dataset) else result

    return input_fn


def boosted_trees_classifier_train_in_memory(
        train_input_fn, feature_columns, model_dir=None, n_classes=2, weight_column=None,
        label_vocabulary=None, n_trees=100, max_depth=6, learning_rate=0.1,
        l1_regularization=0.0, l2_regularization=0.0, tree_complexity=0.0,
        min_node_weight=0.0, config=None, train_hooks=None, center_bias=False,
        pruning_mode="none", quantile_sketch_epsilon=0.01):
    """``tf.contrib.estimator.boosted_trees_classifier_train_in_memory``: a
    ``BoostedTreesClassifier`` trained on the whole data as one batch per layer until its
    ``n_trees`` trees are grown; returns the trained estimator."""
    est = BoostedTreesClassifier(
        feature_columns, 1, model_dir=model_dir, n_classes=n_classes,
        weight_column=weight_column, label_vocabulary=label_vocabulary, n_trees=n_trees,
        max_depth=max_depth, learning_rate=learning_rate,
        l1_regularization=l1_regularization, l2_regularization=l2_regularization,
        tree_complexity=tree_complexity, min_node_weight=min_node_weight, config=config,
        center_bias=center_bias, pruning_mode=pruning_mode,
        quantile_sketch_epsilon=quantile_sketch_epsilon, train_in_memory=True)
    est.train(_whole_data_every_step(train_input_fn), hooks=train_hooks)
    return est


def boosted_trees_regressor_train_in_memory(
        train_input_fn, feature_columns, model_dir=None, label_dimension=1,
        weight_column=None, n_trees=100, max_depth=6, learning_rate=0.1,
        l1_regularization=0.0, l2_regularization=0.0, tree_complexity=0.0,
        min_node_weight=0.0, config=None, train_hooks=None, center_bias=False,
        pruning_mode="none", quantile_sketch_epsilon=0.01):
    """``tf.contrib.estimator.boosted_trees_regressor_train_in_memory``: as the classifier's,
    for a ``BoostedTreesRegressor``."""
    est = BoostedTreesRegressor(
        feature_columns, 1, model_dir=model_dir, label_dimension=label_dimension,
        weight_column=weight_column, n_trees=n_trees, max_depth=max_depth,
        learning_rate=learning_rate, l1_regularization=l1_regularization,
        l2_regularization=l2_regularization, tree_complexity=tree_complexity,
        min_node_weight=min_node_weight, config=config, center_bias=center_bias,
        pruning_mode=pruning_mode, quantile_sketch_epsilon=quantile_sketch_epsilon,
        train_in_memory=True)
    est.train(_whole_data_every_step(train_input_fn), hooks=train_hooks)
    return est


__all__ = ["BoostedTreesClassifier", "BoostedTreesEstimator", "BoostedTreesRegressor",
           "boosted_trees_classifier_train_in_memory",
           "boosted_trees_regressor_train_in_memory"]
