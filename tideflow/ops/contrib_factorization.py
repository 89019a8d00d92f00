"""The names of ``tf.contrib.factorization`` (TF 1.15): k-means (``clustering_ops``), WALS
(``factorization_ops``) and Gaussian mixtures (``gmm_ops``), plus their estimators."""

import importlib

from tideflow.ops.clustering_ops import (
    CLUSTERS_VAR_NAME,
    COSINE_DISTANCE,
    KMC2_INIT,
    KMEANS_PLUS_PLUS_INIT,
    RANDOM_INIT,
    SQUARED_EUCLIDEAN_DISTANCE,
    KMeans,
    kmc2_chain_initialization,
    kmeans_plus_plus_initialization,
    nearest_neighbors,
)

__all__ = ["CLUSTERS_VAR_NAME", "COSINE_DISTANCE", "KMC2_INIT", "KMEANS_PLUS_PLUS_INIT",
           "RANDOM_INIT", "SQUARED_EUCLIDEAN_DISTANCE", "KMeans", "kmc2_chain_initialization",
           "kmeans_plus_plus_initialization", "nearest_neighbors"]

# the other parts, where present: module -> names it contributes
_PARTS = {
    "tideflow.ops.factorization_ops": ("WALSModel", "masked_matmul",
                                       "wals_compute_partial_lhs_and_rhs"),
    "tideflow.ops.gmm_ops": ("gmm", "GmmAlgorithm"),
    "tideflow.ops.gmm_estimator": ("GMM",),
    "tideflow.ops.kmeans_estimator": ("KMeansClustering",),
}
for _mod, _names in _PARTS.items():
    try:
        _m = importlib.import_module(_mod)
    except ModuleNotFoundError as _e:
        if _e.name != _mod:
            raise
        continue
    for _n in _names:
        if hasattr(_m, _n):
            globals()[_n] = getattr(_m, _n)
            __all__.append(_n)
