"""Which variable ops are resource variables' handles.

A resource variable is a ``VarHandleOp`` (``ops/resource_variable_ops.py``), in graphs tideflow
builds and in GraphDefs TF wrote alike (they import as they are); a ref variable is a
``VariableV2``. This sits in ``framework/`` so that the ops and the runtime can ask it without
importing the variable ops.
"""


def is_resource(var_op):
    """Whether the variable op ``var_op`` is a resource variable's handle."""
    return var_op._type == "VarHandleOp"
