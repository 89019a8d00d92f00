"""The names of ``tf.contrib.factorization`` (TF 1.15): k-means (``clustering_ops``), WALS
(``factorization_ops``) and Gaussian mixtures (``gmm_ops``), plus their estimators."""

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
from tideflow.ops.factorization_ops import (
    WALSModel,
    masked_matmul,
    wals_compute_partial_lhs_and_rhs,
)
from tideflow.ops.gmm_estimator import GMM
from tideflow.ops.gmm_ops import GmmAlgorithm, gmm
from tideflow.ops.kmeans_estimator import KMeansClustering
from tideflow.ops.wals_estimator import WALSMatrixFactorization

__all__ = ["CLUSTERS_VAR_NAME", "COSINE_DISTANCE", "GMM", "KMC2_INIT", "KMEANS_PLUS_PLUS_INIT",
           "RANDOM_INIT", "SQUARED_EUCLIDEAN_DISTANCE", "GmmAlgorithm", "KMeans",
           "KMeansClustering", "WALSMatrixFactorization", "WALSModel", "gmm",
           "kmc2_chain_initialization", "kmeans_plus_plus_initialization", "masked_matmul",
           "nearest_neighbors", "wals_compute_partial_lhs_and_rhs"]
