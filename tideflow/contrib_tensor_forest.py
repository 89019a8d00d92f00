"""``tf.contrib.tensor_forest``: online random forests (TF 1.x's ``tensor_forest``).

``ForestHParams(num_classes, num_features, num_trees, max_nodes, ...).fill()`` and
``RandomForestGraphs(hparams)`` with ``training_graph``, ``training_loss``,
``inference_graph`` and ``average_size``; ``client.random_forest.TensorForestEstimator``.

Trees grow online, as TF's: every leaf keeps ``num_splits_to_consider`` candidate splits (a
random feature, the threshold one of the leaf's samples has there) and the class counts of
the samples falling left of each; once ``split_after_samples`` samples have reached it, the
leaf splits at the candidate of least weighted Gini impurity (or draws fresh candidates when
none separates anything). Each tree sees a ``bagging_fraction`` of every batch. Inference
averages, over the trees, the class frequencies of the leaf each example reaches. With
``regression=True`` (``num_classes`` outputs) leaves keep the count, sums and sums of squares
of the targets, split at the least summed squared error, and predict their mean target. The forest
lives in variables (checkpoints hold it); the kernels are NumPy, run through ``py_func``."""

import math
import random
import sys
import types

import numpy as np

# the TensorForestParams proto's enum values fill() sets, by the names ForestHParams takes
_CLASSIFICATION_TYPES = {"all_dense": (0, 0), "all_sparse": (1, 1),
                         "sparse_then_dense": (3, 3)}
_REGRESSION_MODEL, _REGRESSION_STATS = 2, 2
_FINISH_TYPES = {"basic": 0, "hoeffding": 2, "bootstrap": 3}
_PRUNING_TYPES = {"none": 0, "half": 1, "quarter": 2, "10_percent": 3, "hoeffding": 4}
_SPLIT_TYPES = {"less_or_equal": 0, "less": 1}


class ForestHParams:
    """The forest's hyperparameters, with TF 1.x's defaults; ``fill()`` derives the rest."""

    def __init__(self, num_trees=100, max_nodes=10000, bagging_fraction=1.0,
                 num_splits_to_consider=0, feature_bagging_fraction=1.0, max_fertile_nodes=0,
                 split_after_samples=250, valid_leaf_threshold=1, dominate_method="bootstrap",
                 dominate_fraction=0.99, model_name="all_dense", split_finish_name="basic",
                 split_pruning_name="none", collate_examples=False, checkpoint_stats=False,
                 use_running_stats_method=False, initialize_average_splits=False,
                 inference_tree_paths=False, param_file=None, split_name="less_or_equal",
                 early_finish_check_every_samples=0, prune_every_samples=0, **kwargs):
        self.num_trees = num_trees
        self.max_nodes = max_nodes
        self.bagging_fraction = bagging_fraction
        self.feature_bagging_fraction = feature_bagging_fraction
        self.num_splits_to_consider = num_splits_to_consider
        self.max_fertile_nodes = max_fertile_nodes
        self.split_after_samples = split_after_samples
        self.valid_leaf_threshold = valid_leaf_threshold
        self.dominate_method = dominate_method
        self.dominate_fraction = dominate_fraction
        self.model_name = model_name
        self.split_finish_name = split_finish_name
        self.split_pruning_name = split_pruning_name
        self.collate_examples = collate_examples
        self.checkpoint_stats = checkpoint_stats
        self.use_running_stats_method = use_running_stats_method
        self.initialize_average_splits = initialize_average_splits
        self.inference_tree_paths = inference_tree_paths
        self.param_file = param_file
        self.split_name = split_name
        self.early_finish_check_every_samples = early_finish_check_every_samples
        self.prune_every_samples = prune_every_samples
        for name, value in kwargs.items():
            setattr(self, name, value)

    def values(self):
        return dict(self.__dict__)

    def fill(self):
        """Derives the dependent parameters as TF 1.15 does (``num_splits_to_consider``
        defaults to ``min(max(10, floor(sqrt(num_features))), 1000)``, the proto enums by
        name); returns ``self``."""
        _ = self.num_classes, self.num_features  # TF: AttributeError when unset
        self.bagged_num_features = int(self.feature_bagging_fraction * self.num_features)
        self.bagged_features = None
        if self.feature_bagging_fraction < 1.0:
            # TF draws these from Python's unseeded random module
            self.bagged_features = [random.sample(range(self.num_features),
                                                  self.bagged_num_features)
                                    for _ in range(self.num_trees)]
        self.regression = getattr(self, "regression", False)
        # one prediction per example for classification, num_classes for regression; the
        # output columns add a count column to the classes
        self.num_outputs = self.num_classes if self.regression else 1
        self.num_output_columns = self.num_classes + 1
        self.num_splits_to_consider = self.num_splits_to_consider or min(
            max(10, math.floor(math.sqrt(self.num_features))), 1000)
        self.base_random_seed = getattr(self, "base_random_seed", 0)
        leaf, stats = ((_REGRESSION_MODEL, _REGRESSION_STATS) if self.regression
                       else _CLASSIFICATION_TYPES[self.model_name])
        self.leaf_model_type, self.stats_model_type = leaf, stats
        self.finish_type = 0 if self.regression else _FINISH_TYPES[self.split_finish_name]
        self.pruning_type = _PRUNING_TYPES[self.split_pruning_name]
        if self.pruning_type == 0:
            self.prune_every_samples = 0
        else:
            self.prune_every_samples = (self.prune_every_samples
                                        or int(self.split_after_samples) / 2)
        if self.finish_type == 0:
            self.early_finish_check_every_samples = 0
        else:
            self.early_finish_check_every_samples = (self.early_finish_check_every_samples
                                                     or int(self.split_after_samples) / 4)
        self.split_type = _SPLIT_TYPES[self.split_name]
        return self


def _route(x, left, feature, threshold):
    """The leaf of one tree each row of ``x`` reaches."""
    node = np.zeros(x.shape[0], np.int64)
    rows = np.arange(x.shape[0])
    while True:
        child = left[node]
        inner = child >= 0
        if not inner.any():
            return node
        r, n = rows[inner], node[inner]
        go_right = x[r, feature[n]] > threshold[n]
        node[inner] = child[inner] + go_right


def _variance_cost(left, total):
    """Summed squared error (over the outputs) of splitting regression statistics ``total``
    [1 + 2K] (count, sums, sums of squares) into ``left`` [S, 1 + 2K] and the rest."""
    right = total[None, :] - left
    k = (total.shape[0] - 1) // 2
    cost = np.zeros(left.shape[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        for side in (left, right):
            n = side[:, 0]
            sse = side[:, 1 + k:].sum(1) - np.where(
                n > 0, (side[:, 1:1 + k] ** 2).sum(1) / n, 0.0)
            cost += sse
    cost[(left[:, 0] == 0) | (right[:, 0] == 0)] = np.inf
    return cost


def _gini_cost(left, total):
    """Weighted Gini impurity (times the count) of splitting ``total`` [C] into ``left``
    [S, C] and the rest."""
    right = total[None, :] - left
    nl, nr = left.sum(1), right.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        gl = nl - np.where(nl > 0, (left ** 2).sum(1) / nl, 0.0)
        gr = nr - np.where(nr > 0, (right ** 2).sum(1) / nr, 0.0)
    cost = gl + gr
    cost[(nl == 0) | (nr == 0)] = np.inf
    return cost


class _State:
    NAMES = ("left", "feature", "threshold", "counts", "num_nodes", "cand_feature",
             "cand_threshold", "cand_left", "cand_total")


class RandomForestGraphs:
    """Builds the forest's variables and its training and inference ops."""

    def __init__(self, params, tree_configs=None, tree_stats=None, device_assigner=None,
                 variables=None, tree_variables_class=None, tree_graphs=None, training=True):
        import tideflow as tf

        if not hasattr(params, "num_output_columns"):
            params = params.fill()
        self.params = params
        seed = tf.get_default_graph().seed
        self._rng = np.random.RandomState(seed)
        t, m, s, c = (params.num_trees, params.max_nodes, params.num_splits_to_consider,
                      params.num_classes)
        # each tree's features: fill()'s draw, as TF's trees take
        self._bagged = (None if getattr(params, "bagged_features", None) is None
                        else np.asarray(params.bagged_features, np.int64))
        # a leaf's statistics: class counts, or for regression (num_classes outputs) the
        # sample count, the sums and the sums of squares of the targets
        if params.regression:
            c = 1 + 2 * c
        init = {"left": np.full((t, m), -1, np.int32), "feature": np.zeros((t, m), np.int32),
                "threshold": np.zeros((t, m), np.float32),
                "counts": np.zeros((t, m, c), np.float32),
                "num_nodes": np.ones((t,), np.int32),
                "cand_feature": np.full((t, m, s), -1, np.int32),
                "cand_threshold": np.zeros((t, m, s), np.float32),
                "cand_left": np.zeros((t, m, s, c), np.float32),
                "cand_total": np.zeros((t, m, c), np.float32)}
        self._vars = {}
        with tf.variable_scope(None, default_name="random_forest"):
            for name in _State.NAMES:
                # candidate statistics are training state only, as TF's fertile stats
                self._vars[name] = tf.Variable(init[name], trainable=False, name=name,
                                               collections=[tf.GraphKeys.GLOBAL_VARIABLES])

    @property
    def variables(self):
        return [self._vars[n] for n in _State.NAMES]

    def _train_kernel(self, x, y, *state):
        p = self.params
        left, feature, threshold, counts, num_nodes, cf, ct, cl, ctot = (
            np.array(a) for a in state)
        x = np.asarray(x, np.float32).reshape(x.shape[0], -1)
        if p.regression:
            y = np.asarray(y, np.float64).reshape(x.shape[0], -1)
            if y.shape[1] != p.num_classes:
                raise ValueError(f"tensor_forest training: expected {p.num_classes} regression "
                                 f"outputs, got {y.shape[1]}")
            # per example: a count, the targets and their squares
            stats = np.concatenate([np.ones((y.shape[0], 1)), y, y * y], 1)
        else:
            y = np.asarray(y).reshape(-1).astype(np.int64)
        if x.shape[0] != y.shape[0]:
            raise ValueError(f"tensor_forest training: {x.shape[0]} examples but "
                             f"{y.shape[0]} labels")
        if x.shape[1] != p.num_features:
            raise ValueError(f"tensor_forest training: expected {p.num_features} features, "
                             f"got {x.shape[1]}")
        if not p.regression and y.size and (y.min() < 0 or y.max() >= p.num_classes):
            raise ValueError(f"tensor_forest training: labels must be in [0, "
                             f"{p.num_classes}), got values in [{y.min()}, {y.max()}]")
        rng, s_count = self._rng, p.num_splits_to_consider
        for t in range(p.num_trees):
            keep = (rng.random_sample(x.shape[0]) < p.bagging_fraction
                    if p.bagging_fraction < 1.0 else np.ones(x.shape[0], bool))
            xt, yt = x[keep], y[keep]
            st = stats[keep] if p.regression else None
            if not xt.shape[0]:
                continue
            leaf = _route(xt, left[t], feature[t], threshold[t])
            # fresh candidates for the leaves reached that have none
            order = np.argsort(leaf, kind="stable")
            leaves, starts, sizes = np.unique(leaf[order], return_index=True,
                                              return_counts=True)
            fresh = cf[t, leaves, 0] < 0
            if fresh.any():
                fl, fs, fn = leaves[fresh], starts[fresh], sizes[fresh]
                pool = (self._bagged[t] if self._bagged is not None
                        else np.arange(p.num_features))
                feats = pool[rng.randint(0, len(pool), size=(len(fl), s_count))]
                pick = fs[:, None] + (rng.random_sample((len(fl), s_count))
                                      * fn[:, None]).astype(np.int64)
                cf[t, fl] = feats
                ct[t, fl] = xt[order[pick], feats]
                cl[t, fl] = 0.0
                ctot[t, fl] = 0.0
            # statistics per leaf and left of each candidate
            goes_left = xt[np.arange(xt.shape[0])[:, None], cf[t, leaf]] <= ct[t, leaf]
            rows, cands = np.nonzero(goes_left)
            if p.regression:
                np.add.at(counts[t], leaf, st)
                np.add.at(ctot[t], leaf, st)
                np.add.at(cl[t], (leaf[rows], cands), st[rows])
                seen = ctot[t, leaves, 0]
            else:
                np.add.at(counts[t], (leaf, yt), 1.0)
                np.add.at(ctot[t], (leaf, yt), 1.0)
                np.add.at(cl[t], (leaf[rows], cands, yt[rows]), 1.0)
                seen = ctot[t, leaves].sum(1)
            # leaves that have seen enough split (or redraw their candidates)
            for node in leaves[seen >= p.split_after_samples]:
                total = ctot[t, node]
                if p.regression:
                    cost = _variance_cost(cl[t, node], total)
                else:
                    cost = _gini_cost(cl[t, node], total)
                best = int(np.argmin(cost))
                if (np.isfinite(cost[best]) and num_nodes[t] + 2 <= p.max_nodes
                        and (p.regression or (total > 0).sum() > 1)):
                    a = int(num_nodes[t])
                    num_nodes[t] += 2
                    left[t, node] = a
                    feature[t, node] = cf[t, node, best]
                    threshold[t, node] = ct[t, node, best]
                    counts[t, a] = cl[t, node, best]
                    counts[t, a + 1] = total - cl[t, node, best]
                cf[t, node] = -1
                cl[t, node] = 0.0
                ctot[t, node] = 0.0
        return left, feature, threshold, counts, num_nodes, cf, ct, cl, ctot

    def training_graph(self, input_data, input_labels, num_trainers=1, trainer_id=0,
                       **tree_kwargs):
        """An op that adds the batch ``input_data`` [N, num_features] with int class
        ``input_labels`` [N] to every tree's statistics, splitting leaves that have seen
        enough samples."""
        import tideflow as tf
        from tideflow.ops.script_ops import py_func

        # TF 1.15 builds the trees' ops on the forest's device (CPU:0) and groups them as
        # 'train' outside any scope
        with tf.device("/device:CPU:0"), tf.name_scope("training"):
            x = tf.convert_to_tensor(input_data, name="input_data")
            y = tf.convert_to_tensor(input_labels, name="input_labels")
            if x.dtype != tf.float32:
                x = tf.cast(x, tf.float32)
            if self.params.regression:
                y = tf.cast(y, tf.float32)
            elif y.dtype.is_floating:
                y = tf.cast(y, tf.int32)
            state = self.variables
            new = py_func(self._train_kernel, [x, y, *[v.read_value() for v in state]],
                          [v.dtype.base_dtype for v in state], name="grow_forest")
            assigns = [tf.assign(v, n, validate_shape=False) for v, n in zip(state, new)]
        with tf.device("/device:CPU:0"):
            return tf.group(*assigns, name="train")

    def _infer_kernel(self, x, left, feature, threshold, counts):
        x = np.asarray(x, np.float32).reshape(x.shape[0], -1)
        trees, c = left.shape[0], self.params.num_classes
        probs = np.zeros((trees, x.shape[0], c), np.float32)
        for t in range(trees):
            leaf = _route(x, left[t], feature[t], threshold[t])
            hist = counts[t, leaf]
            if self.params.regression:  # the leaf's mean target (0 while it saw nothing)
                n = hist[:, :1]
                probs[t] = np.where(n > 0, hist[:, 1:1 + c] / np.maximum(n, 1.0), 0.0)
                continue
            n = hist.sum(1, keepdims=True)
            probs[t] = np.where(n > 0, hist / np.maximum(n, 1.0), 1.0 / c)
        mean = probs.mean(0)
        variance = np.maximum(0.0, (probs ** 2).mean(0) - mean ** 2).astype(np.float32)
        return mean.astype(np.float32), variance

    def inference_graph(self, input_data, **inference_args):
        """``(probabilities [N, num_classes], tree_paths, variance [N, num_classes])`` as TF
        1.x's: the trees' mean leaf class frequencies (for regression, the mean of the leaves'
        mean targets), an empty ``tree_paths`` (TF fills it only with ``inference_tree_paths``)
        and the variance over the trees."""
        import tideflow as tf
        from tideflow.ops.script_ops import py_func

        # TF 1.15's names and static shapes: 'probabilities' and the variance's 'Maximum'
        # outside any scope, their class dimension unknown, on the forest's device
        with tf.device("/device:CPU:0"):
            with tf.name_scope("inference"):
                x = tf.cast(tf.convert_to_tensor(input_data, name="input_data"), tf.float32)
                v = self._vars
                probs, var = py_func(self._infer_kernel,
                                     [x, v["left"], v["feature"], v["threshold"], v["counts"]],
                                     [tf.float32, tf.float32], stateful=False, name="forest")
                shape = [x.get_shape()[0], None]
                probs.set_shape(shape)
                var.set_shape(shape)
                paths = tf.zeros([0, 0], tf.float32, name="tree_paths")
            return (tf.identity(probs, name="probabilities"), paths,
                    tf.maximum(0.0, var, name="Maximum"))

    def average_size(self):
        """The trees' mean number of nodes (float32)."""
        import tideflow as tf

        return tf.reduce_mean(tf.cast(self._vars["num_nodes"], tf.float32))

    def training_loss(self, features, labels, name="training_loss"):
        """TF 1.x's: the negated average tree size."""
        import tideflow as tf

        return tf.negative(self.average_size(), name=name)

    def validation_loss(self, features, labels):
        return self.training_loss(features, labels, name="validation_loss")

    def average_impurity(self):
        """The mean over trees and leaves of the leaves' Gini impurity."""
        import tideflow as tf
        from tideflow.ops.script_ops import py_func

        k = self.params.num_classes

        def impurity(left, counts):
            if self.params.regression:  # the leaves' mean target variance
                leaves = (left < 0) & (counts[..., 0] > 0)
                c = counts[leaves]
                n = c[:, :1]
                var = c[:, 1 + k:] / n - (c[:, 1:1 + k] / n) ** 2
                return np.float32(var.mean() if len(c) else 0)
            leaves = (left < 0) & (counts.sum(-1) > 0)
            c = counts[leaves]
            n = c.sum(1)
            return np.float32(np.mean(1.0 - ((c / n[:, None]) ** 2).sum(1)) if len(c) else 0)

        out = py_func(impurity, [self._vars["left"], self._vars["counts"]], tf.float32,
                      stateful=False)
        out.set_shape([])
        return out

    def feature_importances(self):
        raise NotImplementedError("tensor_forest: feature_importances is not implemented")


def _dense_features(features):
    import tideflow as tf

    if isinstance(features, dict):
        parts = [tf.reshape(tf.cast(features[k], tf.float32), [tf.shape(features[k])[0], -1])
                 for k in sorted(features)]
        return parts[0] if len(parts) == 1 else tf.concat(parts, 1)
    x = tf.cast(features, tf.float32)
    return tf.reshape(x, [tf.shape(x)[0], -1]) if x.get_shape().ndims != 2 else x


_EPSILON = 0.000001  # random_forest.EPSILON: floors the binary odds


def _head_predictions(tf, probs, num_classes):
    """contrib.learn's classification head over the forest's class frequencies, as TF 1.15's
    TensorForestEstimator feeds it: two classes give the log-odds of class 1 as the logits of
    a binary logistic head, more classes the frequencies themselves as softmax logits."""
    if num_classes == 2:
        class_1 = tf.slice(probs, [0, 1], [-1, 1])
        logits = tf.log(tf.maximum(class_1 / tf.maximum(1.0 - class_1, _EPSILON), _EPSILON))
        two_class = tf.concat([tf.zeros_like(logits), logits], 1)
        return {"logits": logits, "logistic": tf.sigmoid(logits),
                "probabilities": tf.nn.softmax(two_class),
                "classes": tf.argmax(two_class, 1)}, logits
    return {"logits": probs, "probabilities": tf.nn.softmax(probs),
            "classes": tf.argmax(probs, 1)}, probs


def _head_loss_and_metrics(tf, logits, labels, predictions, num_classes):
    """The head's mean cross-entropy and contrib.learn's metrics of its kind (the binary head:
    accuracy, label and prediction means, AUCs and the 0.5-threshold accuracy, precision and
    recall; the multi-class head: accuracy)."""
    metrics = {"accuracy": tf.metrics.accuracy(tf.cast(labels, tf.int64),
                                               predictions["classes"])}
    if num_classes != 2:
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        return loss, metrics
    y = tf.cast(tf.reshape(labels, [-1, 1]), tf.float32)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits))
    p = predictions["logistic"]

    def _at_threshold(metric):
        value, update = metric(y, p, [0.5])
        return tf.squeeze(value), tf.squeeze(update)

    metrics.update({
        "labels/prediction_mean": tf.metrics.mean(p),
        "labels/actual_label_mean": tf.metrics.mean(y),
        "accuracy/baseline_label_mean": tf.metrics.mean(y),
        "auc": tf.metrics.auc(y, p),
        "auc_precision_recall": tf.metrics.auc(y, p, curve="PR"),
        "accuracy/threshold_0.500000_mean": tf.metrics.accuracy(
            y, tf.cast(tf.greater_equal(p, 0.5), tf.float32)),
        "precision/positive_threshold_0.500000_mean": _at_threshold(
            tf.metrics.precision_at_thresholds),
        "recall/positive_threshold_0.500000_mean": _at_threshold(
            tf.metrics.recall_at_thresholds)})
    return loss, metrics


class TensorForestEstimator:
    """``client.random_forest.TensorForestEstimator(params, ...)``: a contrib.learn estimator
    (``fit``/``evaluate``/``predict``) over a ``RandomForestGraphs`` forest of ``params``;
    dict features are flattened and concatenated in key order. As TF 1.15's, a contrib.learn
    classification head reads the forest's class frequencies (see ``_head_predictions``), and
    the predictions add ``prediction_variance``."""

    def __new__(cls, params, device_assigner=None, model_dir=None,
                graph_builder_class=RandomForestGraphs, config=None, weight_column=None,
                keys_column=None, feature_engineering_fn=None, early_stopping_rounds=100,
                early_stopping_loss_threshold=0.001, num_trainers=1, trainer_id=0,
                report_feature_importances=False, local_eval=False, version=None,
                head=None, include_all_in_serving=False):
        from tideflow.contrib_learn import Estimator

        if not hasattr(params, "num_output_columns"):
            params = params.fill()
        if params.regression:
            raise NotImplementedError("TensorForestEstimator: tideflow's forest estimator "
                                      "classifies; use RandomForestGraphs for regression")

        def model_fn(features, labels, mode):
            import tideflow as tf
            from tideflow.contrib_learn import ModeKeys, ModelFnOps

            if feature_engineering_fn is not None:
                features, labels = feature_engineering_fn(features, labels)
            x = _dense_features(features)
            forest = graph_builder_class(params)
            probs, _, variance = forest.inference_graph(x)
            predictions, logits = _head_predictions(tf, probs, params.num_classes)
            predictions["prediction_variance"] = variance
            if mode == ModeKeys.INFER:
                return ModelFnOps(mode, predictions=predictions)
            y = tf.reshape(tf.cast(labels, tf.int32), [-1])
            loss, metrics = _head_loss_and_metrics(tf, logits, y, predictions,
                                                   params.num_classes)
            train_op = None
            if mode == ModeKeys.TRAIN:
                step = tf.train.get_or_create_global_step()
                with tf.control_dependencies([forest.training_graph(x, y)]):
                    train_op = tf.assign_add(step, 1)
            return ModelFnOps(mode, predictions=predictions, loss=loss, train_op=train_op,
                              eval_metric_ops=metrics)

        return Estimator(model_fn=model_fn, model_dir=model_dir, config=config)


# -- client.eval_metrics: the metrics a forest estimator can report, by name ---------------

INFERENCE_PROB_NAME = "probabilities"  # contrib.learn's PredictionKey.PROBABILITIES
INFERENCE_PRED_NAME = "classes"  # PredictionKey.CLASSES
FEATURE_IMPORTANCE_NAME = "global_feature_importance"


def _tf():
    import tideflow as tf

    return tf


def _labels_onehot(targets, depth):
    tf = _tf()
    return tf.one_hot(tf.cast(tf.squeeze(targets, axis=[1]), tf.int32), depth)


def _positive_column(probabilities):
    return _tf().slice(probabilities, [0, 1], [-1, 1])


def _top_k_metric(k):
    def top_k(probabilities, targets):
        tf = _tf()
        targets = tf.cast(targets, tf.int32)
        if targets.get_shape().ndims > 1:
            targets = tf.squeeze(targets, axis=[1])
        return tf.metrics.mean(tf.nn.in_top_k(probabilities, targets, k))

    return top_k


def _accuracy(predictions, targets, weights=None):
    return _tf().metrics.accuracy(labels=targets, predictions=predictions, weights=weights)


def _r2(probabilities, targets, weights=None):
    tf = _tf()
    targets = tf.cast(targets, tf.float32)
    total = tf.reduce_sum(tf.squared_difference(targets, tf.reduce_mean(targets, 0)), 0)
    residual = tf.reduce_sum(tf.squared_difference(targets, probabilities), 0)
    return tf.metrics.mean(1 - tf.reduce_sum(residual / total), weights=weights)


def _sigmoid_entropy(probabilities, targets, weights=None):
    tf = _tf()
    labels = _labels_onehot(targets, tf.shape(probabilities)[1])
    return tf.metrics.mean(tf.contrib.losses.sigmoid_cross_entropy(probabilities, labels),
                           weights=weights)


def _softmax_entropy(probabilities, targets, weights=None):
    tf = _tf()
    loss = tf.contrib.losses.sparse_softmax_cross_entropy(probabilities,
                                                          tf.cast(targets, tf.int32))
    return tf.metrics.mean(loss, weights=weights)


def _predictions(predictions, unused_targets, **unused_kwargs):
    return predictions


def _class_log_loss(probabilities, targets, weights=None):
    tf = _tf()
    labels = _labels_onehot(targets, tf.shape(probabilities)[1])
    return tf.metrics.mean(tf.contrib.losses.log_loss(probabilities, labels), weights=weights)


def _precision(predictions, targets, weights=None):
    return _tf().metrics.precision(labels=targets, predictions=predictions, weights=weights)


def _recall(predictions, targets, weights=None):
    return _tf().metrics.recall(labels=targets, predictions=predictions, weights=weights)


def _at_thresholds(metric):
    def fn(predictions, targets, weights=None):
        return getattr(_tf().metrics, metric)(
            labels=targets, predictions=_positive_column(predictions),
            thresholds=np.arange(0, 1, 0.01, dtype=np.float32), weights=weights)

    fn.__name__ = "_" + metric
    return fn


def _auc(probs, targets, weights=None):
    return _tf().metrics.auc(labels=targets, predictions=_positive_column(probs),
                             weights=weights)


# metric name -> (metric function, the prediction key it reads)
_EVAL_METRICS = {
    "auc": (_auc, INFERENCE_PROB_NAME),
    "sigmoid_entropy": (_sigmoid_entropy, INFERENCE_PROB_NAME),
    "softmax_entropy": (_softmax_entropy, INFERENCE_PROB_NAME),
    "accuracy": (_accuracy, INFERENCE_PRED_NAME),
    "r2": (_r2, "scores"),  # PredictionKey.SCORES
    "predictions": (_predictions, INFERENCE_PRED_NAME),
    "classification_log_loss": (_class_log_loss, INFERENCE_PROB_NAME),
    "precision": (_precision, INFERENCE_PRED_NAME),
    "precision_at_thresholds": (_at_thresholds("precision_at_thresholds"),
                                INFERENCE_PROB_NAME),
    "recall": (_recall, INFERENCE_PRED_NAME),
    "recall_at_thresholds": (_at_thresholds("recall_at_thresholds"), INFERENCE_PROB_NAME),
    "top_5": (_top_k_metric(5), INFERENCE_PROB_NAME),
}


def get_metric(metric_name):
    """The metric function ``fn(predictions, targets, weights=None) -> (value, update_op)``
    registered under ``metric_name`` (KeyError for an unknown name, as TF)."""
    return _EVAL_METRICS[metric_name][0]


def get_prediction_key(metric_name):
    """The prediction (``'probabilities'``, ``'classes'`` or ``'scores'``) the metric reads."""
    return _EVAL_METRICS[metric_name][1]


# -- python.ops.data_ops: features and labels as the forest's float inputs -----------------

DATA_FLOAT = 0
DATA_CATEGORICAL = 1


class _DataColumn:
    def __init__(self):
        self.name = ""
        self.original_type = ""
        self.size = 0


class _DataColumns:
    """A list of columns, used like a repeated proto field (``add()``, ``size()``)."""

    def __init__(self):
        self.cols = []

    def add(self):
        self.cols.append(_DataColumn())
        return self.cols[-1]

    def size(self):
        return len(self.cols)


class TensorForestDataSpec:
    """What ``ParseDataTensorOrDict`` found: its dense and sparse columns and the width of the
    dense features."""

    def __init__(self):
        self.sparse = _DataColumns()
        self.dense = _DataColumns()
        self.dense_features_size = 0

    def SerializeToString(self):
        cols = ["".join(f"{{name: {c.name} original_type: {c.original_type} size: {c.size}}}"
                        for c in part.cols) for part in (self.dense, self.sparse)]
        return (f"dense_features_size: {self.dense_features_size} dense: [{cols[0]}] "
                f"sparse: [{cols[1]}]")


def _column_type(dtype):
    tf = _tf()
    if dtype in (tf.float32, tf.float64):
        return DATA_FLOAT
    if dtype in (tf.int32, tf.int64, tf.string):
        return DATA_CATEGORICAL
    raise KeyError(dtype)


def CastToFloat(tensor):
    """Integer features as float32; float features unchanged."""
    tf = _tf()
    if tensor.dtype == tf.string:
        raise NotImplementedError("tensor_forest: string features are not supported")
    return tf.cast(tensor, tf.float32) if tensor.dtype.is_integer else tensor


def ParseDataTensorOrDict(data):
    """``(dense_features, sparse_features, data_spec)`` of a feature tensor, SparseTensor or
    dict of them (dense columns concatenated in key order, categorical sparse ones joined)."""
    tf = _tf()
    spec = TensorForestDataSpec()
    if isinstance(data, dict):
        dense, sparse = [], []
        for i, key in enumerate(sorted(data)):
            value = data[key]
            if isinstance(value, tf.SparseTensor):
                if value.dtype == tf.float32:
                    continue  # TF's forests skip sparse continuous columns
                if not spec.sparse.size():
                    col = spec.sparse.add()
                    col.name, col.original_type, col.size = "all_sparse", DATA_CATEGORICAL, -1
                sparse.append(tf.SparseTensor(value.indices, CastToFloat(value.values),
                                              value.dense_shape))
                continue
            col = spec.dense.add()
            col.original_type = _column_type(value.dtype)
            col.name = key if isinstance(key, str) else getattr(key, "column_name",
                                                                 str(len(dense)))
            shape = value.get_shape()
            col.size = 1 if shape.ndims == 1 else shape.dims[1].value
            spec.dense_features_size += col.size
            dense.append(CastToFloat(value))
        return (tf.concat(dense, 1) if dense else None,
                tf.sparse_concat(1, sparse) if sparse else None, spec)
    if isinstance(data, tf.SparseTensor):
        col = spec.sparse.add()
        col.name, col.original_type, col.size = "sparse_features", _column_type(data.dtype), -1
        return None, data, spec
    data = tf.convert_to_tensor(data)
    col = spec.dense.add()
    col.name, col.original_type = "dense_features", _column_type(data.dtype)
    col.size = data.get_shape()[1]
    spec.dense_features_size = col.size
    return data, None, spec


def ParseLabelTensorOrDict(labels):
    """Labels as float32 (a dict's columns concatenated in key order; a SparseTensor made dense
    with -1 where it holds nothing)."""
    tf = _tf()

    def dense(value):
        if isinstance(value, tf.SparseTensor):
            return tf.sparse_tensor_to_dense(value, default_value=-1)
        return value

    if isinstance(labels, dict):
        return tf.cast(tf.concat([dense(labels[k]) for k in sorted(labels)], 1), tf.float32)
    return tf.cast(dense(labels), tf.float32)


def _namespace():
    """The ``tf.contrib.tensor_forest`` module tree, registered in ``sys.modules``."""
    base = "tideflow.contrib.tensor_forest"
    root = types.ModuleType(base, __doc__)
    python = types.ModuleType(base + ".python", "``tensor_forest.python``.")
    tf_mod = types.ModuleType(base + ".python.tensor_forest",
                              "``tensor_forest.python.tensor_forest``.")
    for name in ("ForestHParams", "RandomForestGraphs"):
        setattr(tf_mod, name, globals()[name])
    tf_mod.__all__ = ["ForestHParams", "RandomForestGraphs", "TensorForestEstimator"]
    python.tensor_forest = tf_mod
    ops = types.ModuleType(base + ".python.ops", "``tensor_forest.python.ops``.")
    data_ops = types.ModuleType(base + ".python.ops.data_ops",
                                "``tensor_forest.python.ops.data_ops``.")
    for name in ("DATA_FLOAT", "DATA_CATEGORICAL", "TensorForestDataSpec", "CastToFloat",
                 "ParseDataTensorOrDict", "ParseLabelTensorOrDict"):
        setattr(data_ops, name, globals()[name])
    ops.data_ops = data_ops
    python.ops = ops
    root.python = python
    client = types.ModuleType(base + ".client", "``tensor_forest.client``.")
    random_forest = types.ModuleType(base + ".client.random_forest",
                                     "``tensor_forest.client.random_forest``.")
    random_forest.TensorForestEstimator = TensorForestEstimator
    client.random_forest = random_forest
    eval_metrics = types.ModuleType(base + ".client.eval_metrics",
                                    "``tensor_forest.client.eval_metrics``.")
    for name in ("get_metric", "get_prediction_key", "INFERENCE_PROB_NAME",
                 "INFERENCE_PRED_NAME", "FEATURE_IMPORTANCE_NAME"):
        setattr(eval_metrics, name, globals()[name])
    client.eval_metrics = eval_metrics
    root.client = client
    root.__all__ = ["client", "python"]
    for module in (root, python, tf_mod, ops, data_ops, client, random_forest, eval_metrics):
        module.__path__ = []
        sys.modules[module.__name__] = module
    return root


__all__ = ["ForestHParams", "RandomForestGraphs", "TensorForestEstimator"]
