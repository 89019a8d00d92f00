"""``tf.contrib.factorization.GMM`` (TF 1.15): a ``tf.contrib.learn`` Estimator around
:func:`gmm_ops.gmm`. Each ``fit`` step is one EM iteration over the batch ``input_fn`` gives
(after an init hook has chosen the means); ``predict`` gives ``assignments``; ``evaluate`` gives
``scores`` (the last batch's per-example log-likelihoods) and ``loss`` (the log-likelihood op
summed over the batches), and ``score`` the log-sum-exp of ``scores``."""

import numpy as np

import tideflow as tf
from tideflow import contrib_learn
from tideflow.ops import gmm_ops
from tideflow.ops.kmeans_estimator import _InitializeClustersHook


def _streaming_sum(scalar_tensor):
    """A sum metric: a local variable and the op adding ``scalar_tensor`` to it."""
    total = tf.Variable(0.0, trainable=False, collections=[tf.GraphKeys.LOCAL_VARIABLES],
                        name="streaming_sum")
    return total.value(), tf.assign_add(total, scalar_tensor)


class GMM(contrib_learn.Estimator):
    """An Estimator for Gaussian mixture clustering (``input_fn`` returns the points, or a
    dict of columns concatenated in key order, and no labels)."""

    SCORES = "scores"
    LOG_LIKELIHOOD = "loss"
    ASSIGNMENTS = "assignments"
    _feeds_arrays = False

    def __init__(self, num_clusters, model_dir=None, random_seed=0, params="wmc",
                 initial_clusters="random", covariance_type=gmm_ops.FULL_COVARIANCE,
                 config=None):
        if covariance_type not in (gmm_ops.FULL_COVARIANCE, gmm_ops.DIAG_COVARIANCE):
            raise ValueError(f"GMM: invalid covariance type {covariance_type!r}")
        self._num_clusters = num_clusters
        self._gmm_params = params  # the Estimator keeps its own params
        self._training_initial_clusters = initial_clusters
        self._covariance_type = covariance_type
        self._random_seed = random_seed
        super().__init__(model_fn=self._model_builder(), model_dir=model_dir, config=config)

    def predict_assignments(self, input_fn=None, batch_size=None, outputs=None):
        """Yields each point's most probable component."""
        for result in self.predict(input_fn=input_fn, batch_size=batch_size, outputs=outputs):
            yield result[self.ASSIGNMENTS]

    def score(self, input_fn=None, batch_size=None, steps=None):
        """The total log-likelihood: log-sum-exp of the evaluated per-example ``scores``."""
        results = self.evaluate(input_fn=input_fn, batch_size=batch_size, steps=steps)
        return np.log(np.sum(np.exp(results[self.SCORES])))

    def weights(self):
        """The mixture weights from the latest checkpoint."""
        return self.get_variable_value(gmm_ops.GmmAlgorithm.CLUSTERS_WEIGHT)

    def clusters(self):
        """The means, ``[num_clusters, dims]``, from the latest checkpoint."""
        return np.squeeze(self.get_variable_value(gmm_ops.GmmAlgorithm.CLUSTERS_VARIABLE), 1)

    def covariances(self):
        """The covariances from the latest checkpoint."""
        return self.get_variable_value(gmm_ops.GmmAlgorithm.CLUSTERS_COVS_VARIABLE)

    @staticmethod
    def _parse_tensor_or_dict(features):
        if isinstance(features, dict):
            return tf.concat([features[k] for k in sorted(features)], 1)
        return features

    def _model_builder(self):
        def _model_fn(features, labels, mode, config):
            assert labels is None, labels
            (loss, scores, predictions, training_op, init_op, is_initialized) = gmm_ops.gmm(
                self._parse_tensor_or_dict(features), self._training_initial_clusters,
                self._num_clusters, self._random_seed, self._covariance_type, self._gmm_params)
            incr_step = tf.assign_add(tf.train.get_global_step(), 1)
            with tf.control_dependencies([training_op, incr_step]):
                training_op = tf.identity(loss)
            return contrib_learn.ModelFnOps(
                mode=mode, predictions={self.ASSIGNMENTS: predictions[0][0]},
                eval_metric_ops={self.SCORES: scores,
                                 self.LOG_LIKELIHOOD: _streaming_sum(loss)},
                loss=loss, train_op=training_op,
                training_hooks=[_InitializeClustersHook(init_op, is_initialized,
                                                        config.is_chief)])

        return _model_fn


__all__ = ["GMM"]
