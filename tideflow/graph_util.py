"""``tf.graph_util``: GraphDef utilities (explicit re-exports)."""

from tideflow.framework.graph_util_impl import (
    convert_variables_to_constants,
    extract_sub_graph,
    must_run_on_cpu,
    remove_training_nodes,
    tensor_shape_from_node_def_name,
)
from tideflow.framework.importer import import_graph_def

__all__ = [
    "convert_variables_to_constants",
    "extract_sub_graph",
    "import_graph_def",
    "must_run_on_cpu",
    "remove_training_nodes",
    "tensor_shape_from_node_def_name",
]
