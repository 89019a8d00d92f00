"""``tensorflow.python.ops.gen_clustering_ops``: the k-means kernels' op wrappers, which
``contrib.factorization``'s KMeans builds on."""

from tideflow.ops.clustering_ops import (  # noqa: F401
    kmc2_chain_initialization,
    kmeans_plus_plus_initialization,
    nearest_neighbors,
)
