"""``tf.train``: training utilities (explicit re-exports; later issues add optimizers, Saver...)."""

from tideflow.framework.graph_io import write_graph

__all__ = ["write_graph"]
