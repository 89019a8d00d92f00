"""``tf.contrib.copy_graph``: copies variables (with their current initial value) and ops
(with everything they depend on) from one graph into another, under an optional scope."""

from tideflow.framework import ops

__all__ = ["copy_op_to_graph", "copy_variable_to_graph", "get_copied_op"]


def _scoped(name, scope):
    return f"{scope}/{name}" if scope != "" else name


def _collections_of(instance, scope, keep=()):
    """The collections of ``instance``'s graph holding it, moved under ``scope`` (except
    ``keep``)."""
    graph = instance.graph
    names = []
    for key in list(graph._collections):
        if instance in graph._collections[key]:
            names.append(key if scope == "" or key in keep else f"{scope}/{key}")
    return names


def copy_variable_to_graph(org_instance, to_graph, scope=""):
    """A new variable in ``to_graph`` named ``<scope>/<name>``, initialised with the value
    ``org_instance``'s initializer gives (run in a session of its own graph), in the same
    collections (scoped, but for the global and trainable variables)."""
    from tideflow.ops import variables
    from tideflow.runtime.session import Session

    if not isinstance(org_instance, variables.Variable):
        raise TypeError(str(org_instance) + " is not a Variable")
    new_name = _scoped(org_instance.name[:org_instance.name.index(":")], scope)
    collections = _collections_of(org_instance, scope, (ops.GraphKeys.GLOBAL_VARIABLES,
                                                        ops.GraphKeys.TRAINABLE_VARIABLES))
    trainable = org_instance in org_instance.graph.get_collection(
        ops.GraphKeys.TRAINABLE_VARIABLES)
    with org_instance.graph.as_default():
        init_value = Session().run(org_instance.initialized_value())
    with to_graph.as_default():
        return variables.VariableV1(init_value, trainable, name=new_name,
                                    collections=collections, validate_shape=False)


def copy_op_to_graph(org_instance, to_graph, variables, scope=""):
    """The copy in ``to_graph`` of the op or tensor ``org_instance`` (named ``<scope>/<name>``),
    made with copies of its inputs and control inputs unless ops of those names exist there
    already; the variables it reads must have been copied and be given in ``variables``."""
    new_name = _scoped(org_instance.name, scope)
    copied = {v.name: v for v in variables}
    if new_name in copied:
        return to_graph.get_tensor_by_name(copied[new_name].name)
    try:
        return to_graph.as_graph_element(new_name, allow_tensor=True, allow_operation=True)
    except (KeyError, ValueError, TypeError):
        pass
    collections = _collections_of(org_instance, scope)

    if isinstance(org_instance, ops.Tensor):
        op = org_instance.op
        new_op = copy_op_to_graph(op, to_graph, variables, scope)
        new_tensor = new_op.outputs[op.outputs.index(org_instance)]
        for key in collections:
            to_graph.add_to_collection(key, new_tensor)
        return new_tensor
    if isinstance(org_instance, ops.Operation):
        op = org_instance
        control_inputs = [copy_op_to_graph(x, to_graph, variables, scope)
                          for x in op.control_inputs]
        inputs = [copy_op_to_graph(x, to_graph, variables, scope) for x in op.inputs]
        node_def = op.node_def
        # a name ending in "/" is taken as it is (no name scope, no uniquifying), as TF's
        # Operation constructor takes it; the copy sees no control-dependency context
        with to_graph.as_default(), to_graph.control_dependencies(None):
            new_op = to_graph.create_op(op.type, inputs, name=new_name + "/",
                                        attrs=dict(node_def.attr))
        if control_inputs:
            new_op._add_control_inputs(control_inputs)
        if node_def.device and not new_op.device:  # (``to_graph``'s device functions win)
            new_op._set_device(node_def.device)
        return new_op
    raise TypeError("Could not copy instance: " + str(org_instance))


def get_copied_op(org_instance, graph, scope=""):
    """The op or tensor of ``graph`` named as ``org_instance`` under ``scope``."""
    return graph.as_graph_element(_scoped(org_instance.name, scope), allow_tensor=True,
                                  allow_operation=True)
