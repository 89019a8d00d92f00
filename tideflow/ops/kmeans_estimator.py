"""``tf.contrib.factorization.KMeansClustering`` (TF 1.15): an Estimator around
:class:`tideflow.ops.clustering_ops.KMeans`. ``train`` runs the init op (chosen by a hook after
the session starts) until the centres are chosen, then one Lloyd or mini-batch step per
``train`` step; ``score`` is the sum of squared distances to the nearest centre (the loss),
``predict`` gives ``cluster_index`` and ``all_distances``, ``cluster_centers()`` reads the
``clusters`` variable from the latest checkpoint."""

import time

import tideflow as tf
from tideflow.ops import clustering_ops


class _StepBeforeRunHook(tf.train.SessionRunHook):
    """Increments the global step ahead of each training run, so a step whose input runs out
    still counts: TF 1.15's k-means step ran its increment (which needs no input) before the
    input's OutOfRangeError ended the step, and the end-of-training checkpoint then kept the
    centres the init hook had just chosen (a limit_epochs(num_epochs=1) input_fn trains)."""

    def __init__(self, incr_step):
        self._incr_step = incr_step

    def before_run(self, run_context):
        run_context.session.run(self._incr_step)


class _LossRelativeChangeHook(tf.train.SessionRunHook):
    """Stops training when the loss changes by less than ``tolerance`` relative to
    ``1 + |previous loss|``."""

    def __init__(self, loss_tensor, tolerance):
        self._loss_tensor = loss_tensor
        self._tolerance = tolerance
        self._prev_loss = None

    def before_run(self, run_context):
        return tf.train.SessionRunArgs(self._loss_tensor)

    def after_run(self, run_context, run_values):
        loss = run_values.results
        if self._prev_loss is not None:
            change = abs(loss - self._prev_loss) / (1 + abs(self._prev_loss))
            if change < self._tolerance:
                run_context.request_stop()
        self._prev_loss = loss


class _InitializeClustersHook(tf.train.SessionRunHook):
    """The chief runs the init op until the centres are all chosen; others wait for it."""

    def __init__(self, init_op, is_initialized_var, is_chief):
        self._init_op = init_op
        self._is_initialized_var = is_initialized_var
        self._is_chief = is_chief

    def after_create_session(self, session, coord):
        while not session.run(self._is_initialized_var):
            if self._is_chief:
                session.run(self._init_op)
            else:
                time.sleep(1)


def _parse_features_if_necessary(features, feature_columns):
    """A dict of features becomes one ``[n, k]`` matrix (through ``feature_columns`` when
    given, else the columns concatenated in sorted key order)."""
    if not isinstance(features, dict):
        return features
    if feature_columns:
        return tf.feature_column.input_layer(features, feature_columns)
    return tf.concat([features[k] for k in sorted(features)], axis=1)


class _ModelFn:
    def __init__(self, num_clusters, initial_clusters, distance_metric, random_seed,
                 use_mini_batch, mini_batch_steps_per_iteration, kmeans_plus_plus_num_retries,
                 relative_tolerance, feature_columns):
        self._kw = {"num_clusters": num_clusters, "initial_clusters": initial_clusters,
                    "distance_metric": distance_metric, "use_mini_batch": use_mini_batch,
                    "mini_batch_steps_per_iteration": mini_batch_steps_per_iteration,
                    "random_seed": random_seed,
                    "kmeans_plus_plus_num_retries": kmeans_plus_plus_num_retries}
        self._relative_tolerance = relative_tolerance
        self._feature_columns = feature_columns

    def model_fn(self, features, mode, config):
        points = _parse_features_if_necessary(features, self._feature_columns)
        (all_distances, predictions, losses, is_initialized, init_op,
         training_op) = clustering_ops.KMeans(inputs=points, **self._kw).training_graph()
        loss = tf.reduce_sum(losses)
        tf.summary.scalar("loss/raw", loss)
        incr_step = tf.assign_add(tf.train.get_global_step(), 1)
        with tf.control_dependencies([training_op]):
            training_op = tf.identity(loss)
        hooks = [_InitializeClustersHook(init_op, is_initialized, config.is_chief),
                 _StepBeforeRunHook(incr_step)]
        if self._relative_tolerance is not None:
            hooks.append(_LossRelativeChangeHook(loss, self._relative_tolerance))
        export_outputs = {
            KMeansClustering.ALL_DISTANCES: tf.estimator.export.PredictOutput(
                all_distances[0]),
            KMeansClustering.CLUSTER_INDEX: tf.estimator.export.PredictOutput(predictions[0]),
            tf.saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY:
                tf.estimator.export.PredictOutput(predictions[0]),
        }
        return tf.estimator.EstimatorSpec(
            mode=mode,
            predictions={KMeansClustering.ALL_DISTANCES: all_distances[0],
                         KMeansClustering.CLUSTER_INDEX: predictions[0]},
            loss=loss, train_op=training_op,
            eval_metric_ops={KMeansClustering.SCORE: tf.metrics.mean(loss)},
            training_hooks=hooks, export_outputs=export_outputs)


class KMeansClustering(tf.estimator.Estimator):
    """An Estimator for k-means clustering (``input_fn`` returns the points, or a dict of
    feature columns, with no labels)."""

    SQUARED_EUCLIDEAN_DISTANCE = clustering_ops.SQUARED_EUCLIDEAN_DISTANCE
    COSINE_DISTANCE = clustering_ops.COSINE_DISTANCE
    RANDOM_INIT = clustering_ops.RANDOM_INIT
    KMEANS_PLUS_PLUS_INIT = clustering_ops.KMEANS_PLUS_PLUS_INIT
    SCORE = "score"
    CLUSTER_INDEX = "cluster_index"
    ALL_DISTANCES = "all_distances"
    CLUSTER_CENTERS_VAR_NAME = clustering_ops.CLUSTERS_VAR_NAME

    def __init__(self, num_clusters, model_dir=None, initial_clusters=RANDOM_INIT,
                 distance_metric=SQUARED_EUCLIDEAN_DISTANCE, random_seed=0,
                 use_mini_batch=True, mini_batch_steps_per_iteration=1,
                 kmeans_plus_plus_num_retries=2, relative_tolerance=None, config=None,
                 feature_columns=None):
        if isinstance(initial_clusters, str) and initial_clusters not in (
                self.RANDOM_INIT, self.KMEANS_PLUS_PLUS_INIT):
            raise ValueError(f"Unsupported initialization algorithm '{initial_clusters}'")
        if distance_metric not in (self.SQUARED_EUCLIDEAN_DISTANCE, self.COSINE_DISTANCE):
            raise ValueError(f"Unsupported distance metric '{distance_metric}'")
        fn = _ModelFn(num_clusters, initial_clusters, distance_metric, random_seed,
                      use_mini_batch, mini_batch_steps_per_iteration,
                      kmeans_plus_plus_num_retries, relative_tolerance, feature_columns)
        super().__init__(model_fn=fn.model_fn, model_dir=model_dir, config=config)

    def _predict_one_key(self, input_fn, predict_key):
        for result in self.predict(input_fn=input_fn, predict_keys=[predict_key]):
            yield result[predict_key]

    def predict_cluster_index(self, input_fn):
        """Yields the index of each input point's nearest centre."""
        yield from self._predict_one_key(input_fn, self.CLUSTER_INDEX)

    def score(self, input_fn):
        """The sum of squared distances from the first batch's points to their centres."""
        return self.evaluate(input_fn=input_fn, steps=1)[self.SCORE]

    def transform(self, input_fn):
        """Yields each input point's distances to all centres (squared, for euclidean)."""
        yield from self._predict_one_key(input_fn, self.ALL_DISTANCES)

    def cluster_centers(self):
        """The cluster centres from the latest checkpoint."""
        return self.get_variable_value(self.CLUSTER_CENTERS_VAR_NAME)


__all__ = ["KMeansClustering"]


class CannedKMeans(KMeansClustering):
    """``tf.compat.v1.estimator.experimental.KMeans``: TF 1.15's canned k-means Estimator,
    whose fifth parameter is ``seed`` (default None) where contrib's takes ``random_seed``."""

    def __init__(self, num_clusters, model_dir=None,
                 initial_clusters=KMeansClustering.RANDOM_INIT,
                 distance_metric=KMeansClustering.SQUARED_EUCLIDEAN_DISTANCE, seed=None,
                 use_mini_batch=True, mini_batch_steps_per_iteration=1,
                 kmeans_plus_plus_num_retries=2, relative_tolerance=None, config=None,
                 feature_columns=None):
        super().__init__(num_clusters, model_dir, initial_clusters, distance_metric, seed,
                         use_mini_batch, mini_batch_steps_per_iteration,
                         kmeans_plus_plus_num_retries, relative_tolerance, config,
                         feature_columns)


CannedKMeans.__name__ = CannedKMeans.__qualname__ = "KMeansClustering"  # (TF's class name)
