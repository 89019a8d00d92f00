"""``tf.graph_util``: GraphDef utilities (explicit re-exports)."""

from tideflow.framework.importer import import_graph_def

__all__ = ["import_graph_def"]
