"""``tf.contrib.boosted_trees``: ``estimator_batch.estimator.GradientBoostedDecisionTreeClassifier``
/ ``...Regressor`` and ``proto.learner_pb2.LearnerConfig``.

Gradient boosting on the dense float features of the input (every feature tensor, flattened),
bucketed at ``num_quantiles`` quantiles of the first training batch. Trees grow layer by layer:
the per-example gradients and diagonal hessians of the softmax (or squared) loss with respect
to the logits are summed per leaf, feature and bucket over ``examples_per_layer`` examples;
each leaf of the layer then splits at its best gain (summed over the classes, as the
DIAGONAL_HESSIAN strategy), the children taking the parent's value plus the learning rate
times their Newton step ``-G / (H + l2)``. A tree ends at ``max_tree_depth`` (or when no leaf
splits); training stops growing after ``num_trees``. The ensemble lives in variables
(checkpoints hold it); the statistics of the layer being grown are kept by the kernel between
steps, and the kernels are NumPy run through ``py_func``. tideflow's departures: every class
shares one tree (no TREE_PER_CLASS / FULL_HESSIAN), no ``center_bias``, L1 is not applied."""

import sys
import types

import numpy as np


class _Msg:
    """A proto-like message: attributes with defaults, nested messages made on access."""

    _FIELDS = ()  # (name, default) pairs
    _NESTED = ()  # (name, message class) pairs

    def __init__(self, **kwargs):
        for name, value in self._FIELDS:
            setattr(self, name, value)
        for name, cls in self._NESTED:
            setattr(self, name, cls())
        for name, value in kwargs.items():
            setattr(self, name, value)

    def __repr__(self):
        return f"{type(self).__name__}({self.__dict__})"


class _Fixed(_Msg):
    _FIELDS = (("learning_rate", 0.0),)


class _Tuner(_Msg):
    _NESTED = (("fixed", _Fixed),)


class _Regularization(_Msg):
    _FIELDS = (("l1", 0.0), ("l2", 0.0), ("tree_complexity", 0.0))


class _Constraints(_Msg):
    _FIELDS = (("max_tree_depth", 0), ("min_node_weight", 0.0),
               ("max_number_of_unique_feature_columns", 0))


class LearnerConfig(_Msg):
    """``learner_pb2.LearnerConfig`` with its enums."""

    WHOLE_TREE = 0
    LAYER_BY_LAYER = 1
    TREE_PER_CLASS = 0
    FULL_HESSIAN = 1
    DIAGONAL_HESSIAN = 2
    _FIELDS = (("num_classes", 0), ("growing_mode", 0), ("multi_class_strategy", 0),
               ("feature_fraction_per_tree", 0.0), ("feature_fraction_per_level", 0.0),
               ("pruning_mode", 0))
    _NESTED = (("learning_rate_tuner", _Tuner), ("regularization", _Regularization),
               ("constraints", _Constraints))


class _Booster:
    """The NumPy kernels of one estimator's ensemble."""

    def __init__(self, n_classes, num_trees, max_depth, learning_rate, l2, tree_complexity,
                 min_node_weight, examples_per_layer, num_quantiles):
        self.c = n_classes
        self.t = num_trees
        self.depth = max_depth
        self.lr = learning_rate
        self.l2 = l2
        self.complexity = tree_complexity
        self.min_weight = min_node_weight
        self.per_layer = examples_per_layer
        self.q = num_quantiles
        # node capacity: a full tree of max_depth, at most 4095 nodes (splits past it are
        # skipped)
        self.nodes = min(2 ** (max_depth + 1) - 1, 4095)
        self.stats = None  # the layer's (buckets, leaf, gradients, hessians) batches

    def state_shapes(self):
        t, n, c = self.t, self.nodes, self.c
        return {"feature": ((t, n), np.int32, 0), "bucket": ((t, n), np.int32, 0),
                "left": ((t, n), np.int32, -1), "value": ((t, n, c), np.float32, 0),
                "progress": ((3,), np.int32, 0)}  # trees done, layer of the growing tree, nodes

    def bucketize(self, x, bounds):
        cols = np.ascontiguousarray(x.T)
        out = np.empty(cols.shape, np.int64)
        for j in range(cols.shape[0]):
            out[j] = np.searchsorted(bounds[j], cols[j], side="right")
        return out.T

    def leaves(self, b, feature, bucket, left, tree):
        node = np.zeros(b.shape[0], np.int64)
        rows = np.arange(b.shape[0])
        while True:
            child = left[tree, node]
            inner = child >= 0
            if not inner.any():
                return node
            n = node[inner]
            node[inner] = child[inner] + (b[rows[inner], feature[tree, n]] > bucket[tree, n])

    def logits(self, x, bounds, feature, bucket, left, value, progress, b=None):
        x = np.asarray(x, np.float32).reshape(x.shape[0], -1)
        out = np.zeros((x.shape[0], self.c), np.float32)
        if not bounds.any() and not progress[0] and not progress[2]:
            return out
        if b is None:
            b = self.bucketize(x, bounds)
        grown = min(self.t, int(progress[0]) + (1 if progress[2] else 0))
        for tree in range(grown):
            out += value[tree, self.leaves(b, feature, bucket, left, tree)]
        return out

    def train(self, x, y, bounds, feature, bucket, left, value, progress):
        bounds, feature, bucket, left, value, progress = (
            np.array(a) for a in (bounds, feature, bucket, left, value, progress))
        x = np.asarray(x, np.float32).reshape(x.shape[0], -1)
        if progress[0] >= self.t:
            return bounds, feature, bucket, left, value, progress
        if not bounds.any():
            qs = np.quantile(x, np.linspace(0, 1, self.q + 1)[1:-1], axis=0).T
            bounds = np.sort(qs, 1).astype(np.float32)
        b = self.bucketize(x, bounds)
        logits = self.logits(x, bounds, feature, bucket, left, value, progress, b)
        y = np.asarray(y)
        if self.c > 1:
            y = y.reshape(-1).astype(np.int64)
            p = np.exp(logits - logits.max(1, keepdims=True))
            p /= p.sum(1, keepdims=True)
            g = p.copy()
            g[np.arange(len(y)), y] -= 1.0
            h = np.maximum(p * (1.0 - p), 1e-6)
        else:
            g = logits - y.reshape(-1, 1).astype(np.float32)
            h = np.ones_like(g)
        tree = int(progress[0])
        if progress[2] == 0:  # a new tree: its root
            progress[2] = 1
            progress[1] = 0
        node = self.leaves(b, feature, bucket, left, tree)
        if self.stats is None:
            self.stats = []
        self.stats.append((b, node, g, h))
        if sum(len(r[1]) for r in self.stats) < self.per_layer:
            return bounds, feature, bucket, left, value, progress
        b = np.concatenate([r[0] for r in self.stats])
        node = np.concatenate([r[1] for r in self.stats])
        g = np.concatenate([r[2] for r in self.stats])
        h = np.concatenate([r[3] for r in self.stats])
        n_feat, n_b = x.shape[1], self.q
        offsets = np.arange(n_feat)[None, :] * n_b
        root_g, root_h = g.sum(0), h.sum(0)
        split_any = False
        for leaf in np.unique(node):
            rows = np.flatnonzero(node == leaf)
            lb = b[rows]
            # only features whose buckets differ within the leaf can split it
            feats = np.flatnonzero(lb.min(0) != lb.max(0))
            if len(rows) < 2 or not len(feats):
                continue
            nf = len(feats)
            if len(rows) < n_b:  # few examples: candidate splits between their sorted buckets
                lbf = lb[:, feats]
                order = np.argsort(lbf, axis=0, kind="stable")  # [n, F']
                sorted_b = np.take_along_axis(lbf, order, 0)
                cg = np.cumsum(g[rows][order], 0).transpose(1, 0, 2)  # [F', n, C]
                ch = np.cumsum(h[rows][order], 0).transpose(1, 0, 2)
                cut = np.zeros(sorted_b.shape, bool)
                cut[:-1] = sorted_b[:-1] != sorted_b[1:]
                cut, bucket_of = cut.T, sorted_b.T  # [F', n]
            else:
                flat = (offsets[:, :nf] + lb[:, feats]).ravel()
                sg = np.stack([np.bincount(flat, np.repeat(g[rows, k], nf), nf * n_b)
                               for k in range(self.c)], -1).reshape(nf, n_b, self.c)
                sh = np.stack([np.bincount(flat, np.repeat(h[rows, k], nf), nf * n_b)
                               for k in range(self.c)], -1).reshape(nf, n_b, self.c)
                cg, ch = np.cumsum(sg, 1), np.cumsum(sh, 1)  # [F', B, C]: left sums
                cut = np.ones((nf, n_b), bool)
                bucket_of = np.broadcast_to(np.arange(n_b), (nf, n_b))
            tg, th = cg[:, -1:, :], ch[:, -1:, :]
            rg, rh = tg - cg, th - ch
            score = ((cg ** 2) / (ch + self.l2) + (rg ** 2) / (rh + self.l2)
                     - (tg ** 2) / (th + self.l2)).sum(-1)
            ok = cut & (ch.sum(-1) >= max(self.min_weight, 1e-9)) & (rh.sum(-1) >= max(
                self.min_weight, 1e-9))
            score = np.where(ok, score, -np.inf)
            fi, k = np.unravel_index(int(np.argmax(score)), score.shape)
            if not np.isfinite(score[fi, k]) or score[fi, k] <= self.complexity:
                continue
            f, bk = feats[fi], bucket_of[fi, k]
            a = int(progress[2])
            if a + 2 > self.nodes:
                continue
            progress[2] += 2
            left[tree, leaf], feature[tree, leaf], bucket[tree, leaf] = a, f, bk
            value[tree, a] = value[tree, leaf] - self.lr * cg[fi, k] / (ch[fi, k] + self.l2)
            value[tree, a + 1] = value[tree, leaf] - self.lr * rg[fi, k, :] / (
                rh[fi, k, :] + self.l2)
            split_any = True
        self.stats = None
        progress[1] += 1
        if not split_any or progress[1] >= self.depth:
            if progress[2] == 1:  # a stump that never split: a Newton step at the root
                value[tree, 0] = -self.lr * root_g / (root_h + self.l2)
            progress[0] += 1
            progress[1] = 0
            progress[2] = 0
        return bounds, feature, bucket, left, value, progress


def _dense(features):
    import tideflow as tf

    if not isinstance(features, dict):
        features = {"": features}
    parts = []
    for key in sorted(features):
        t = tf.cast(features[key], tf.float32)
        inner = t.get_shape()[1:]
        # a known row width stays static when the batch size is not (an evaluation input_fn):
        # TF 1.15's Reshape infers nothing from [tf.shape(t)[0], -1]
        if inner.is_fully_defined():
            parts.append(tf.reshape(t, [-1, int(np.prod(inner.as_list()))]))
        else:
            parts.append(tf.reshape(t, [tf.shape(t)[0], -1]))
    return parts[0] if len(parts) == 1 else tf.concat(parts, 1)


def _model_fn_builder(booster, n_classes, n_features_hint=None):
    def model_fn(features, labels, mode):
        import tideflow as tf
        from tideflow.contrib_learn import ModeKeys, ModelFnOps
        from tideflow.ops.script_ops import py_func

        x = _dense(features)
        shapes = booster.state_shapes()
        n_feat = x.get_shape()[1].value
        if n_feat is None:
            raise ValueError("GradientBoostedDecisionTree: the features' width must be known "
                             "when the graph is built")
        shapes["bounds"] = ((n_feat, booster.q - 1), np.float32, 0)
        with tf.variable_scope("ensemble"):
            state = {k: tf.get_variable(k, initializer=np.full(s, v, d), trainable=False)
                     for k, (s, d, v) in shapes.items()}
        order = ("bounds", "feature", "bucket", "left", "value", "progress")
        logits = py_func(booster.logits, [x, *[state[k] for k in order]], tf.float32,
                         stateful=False)
        logits.set_shape([x.get_shape()[0], n_classes])
        if n_classes > 1:
            probs = tf.nn.softmax(logits)
            classes = tf.argmax(logits, 1)
            predictions = {"probabilities": probs, "classes": classes, "logits": logits}
        else:
            predictions = {"scores": tf.squeeze(logits, 1)}
        if mode == ModeKeys.INFER:
            return ModelFnOps(mode, predictions=predictions)
        if n_classes > 1:
            labels = tf.reshape(tf.cast(labels, tf.int64), [-1])
            loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
            metrics = {"accuracy": tf.metrics.accuracy(labels, classes)}
        else:
            labels = tf.reshape(tf.cast(labels, tf.float32), [-1, 1])
            loss = tf.losses.mean_squared_error(labels, logits)
            metrics = {"loss_mse": tf.metrics.mean_squared_error(labels, logits)}
        train_op = None
        if mode == ModeKeys.TRAIN:
            new = py_func(booster.train, [x, labels, *[state[k] for k in order]],
                          [state[k].dtype.base_dtype for k in order], name="grow_ensemble")
            step = tf.train.get_or_create_global_step()
            with tf.control_dependencies([tf.assign(state[k], n) for k, n in zip(order, new)]):
                train_op = tf.assign_add(step, 1)
        hooks = [_StopAfterTrees(state["progress"], booster.t)] if train_op is not None else []
        return ModelFnOps(mode, predictions=predictions, loss=loss, train_op=train_op,
                          eval_metric_ops=metrics, training_hooks=hooks)

    return model_fn


def _StopAfterTrees(progress, num_trees):
    """A hook that stops training once ``num_trees`` trees are grown (as contrib's
    ``StopAfterNTrees``), so ``fit`` without steps ends."""
    from tideflow.train import session_run_hook

    class StopAfterNTrees(session_run_hook.SessionRunHook):
        def before_run(self, run_context):
            return session_run_hook.SessionRunArgs(progress)

        def after_run(self, run_context, run_values):
            if run_values.results[0] >= num_trees:
                run_context.request_stop()

    return StopAfterNTrees()


def _booster(learner_config, n_classes, num_trees, examples_per_layer, num_quantiles):
    cfg = learner_config or LearnerConfig()
    depth = int(cfg.constraints.max_tree_depth) or 6
    lr = float(cfg.learning_rate_tuner.fixed.learning_rate) or 0.1
    return _Booster(n_classes, int(num_trees or 100), depth, lr,
                    float(cfg.regularization.l2) or 1e-6,
                    float(cfg.regularization.tree_complexity),
                    float(cfg.constraints.min_node_weight), int(examples_per_layer),
                    int(num_quantiles))


def _estimator_base():
    from tideflow.contrib_learn import Estimator

    return Estimator


class GradientBoostedDecisionTreeClassifier:
    """``GradientBoostedDecisionTreeClassifier(learner_config, examples_per_layer,
    n_classes=2, num_trees=None, ...)``: a contrib.learn estimator (``fit``, ``evaluate``
    with ``accuracy``, ``predict`` with ``probabilities``/``classes``)."""

    def __new__(cls, learner_config, examples_per_layer, n_classes=2, num_trees=None,
                feature_columns=None, weight_column_name=None, model_dir=None, config=None,
                label_keys=None, feature_engineering_fn=None, logits_modifier_function=None,
                center_bias=True, use_core_libs=False, output_leaf_index=False,
                override_global_step_value=None, num_quantiles=100):
        if n_classes < 2:
            raise ValueError(f"n_classes must be >= 2, got {n_classes}")
        booster = _booster(learner_config, n_classes, num_trees, examples_per_layer,
                           num_quantiles)
        return _estimator_base()(model_fn=_model_fn_builder(booster, n_classes),
                                 model_dir=model_dir, config=config)


class GradientBoostedDecisionTreeRegressor:
    """``GradientBoostedDecisionTreeRegressor(learner_config, examples_per_layer, ...)``:
    squared loss, ``predict`` gives ``scores``."""

    def __new__(cls, learner_config, examples_per_layer, label_dimension=1, num_trees=None,
                feature_columns=None, label_name=None, weight_column_name=None,
                model_dir=None, config=None, feature_engineering_fn=None,
                logits_modifier_function=None, center_bias=True, use_core_libs=False,
                output_leaf_index=False, override_global_step_value=None, num_quantiles=100):
        if label_dimension != 1:
            raise ValueError(f"label_dimension must be 1, got {label_dimension}")
        booster = _booster(learner_config, 1, num_trees, examples_per_layer, num_quantiles)
        return _estimator_base()(model_fn=_model_fn_builder(booster, 1),
                                 model_dir=model_dir, config=config)


def _namespace():
    base = "tideflow.contrib.boosted_trees"
    root = types.ModuleType(base, __doc__)
    batch = types.ModuleType(base + ".estimator_batch", "``boosted_trees.estimator_batch``.")
    est = types.ModuleType(base + ".estimator_batch.estimator",
                           "``boosted_trees.estimator_batch.estimator``.")
    est.GradientBoostedDecisionTreeClassifier = GradientBoostedDecisionTreeClassifier
    est.GradientBoostedDecisionTreeRegressor = GradientBoostedDecisionTreeRegressor
    proto = types.ModuleType(base + ".proto", "``boosted_trees.proto``.")
    learner_pb2 = types.ModuleType(base + ".proto.learner_pb2", "``learner_pb2``.")
    learner_pb2.LearnerConfig = LearnerConfig
    batch.estimator = est
    proto.learner_pb2 = learner_pb2
    root.estimator_batch = batch
    root.proto = proto
    for module in (root, batch, est, proto, learner_pb2):
        module.__path__ = []
        sys.modules[module.__name__] = module
    return root


__all__ = ["GradientBoostedDecisionTreeClassifier", "GradientBoostedDecisionTreeRegressor",
           "LearnerConfig"]
