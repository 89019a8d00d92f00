"""FuncGraphs to and from ``FunctionDef`` (a GraphDef's ``library``), as function.proto has it.

Inside a FunctionDef a node names its inputs ``node:output_arg:index`` (the index within that
output argument) or ``arg`` for a function argument; ``ret`` maps each output argument to
such a name. Argument shapes travel in ``arg_attr`` as ``_output_shapes``; how the arguments
split into inputs, captures and extra args travels in the attrs ``_num_inputs`` and
``_num_captures``, so control-flow gradients work on imported graphs too.
"""

from tideflow.framework import dtypes, graph_io, op_registry
from tideflow.protos import function_pb2, graph_pb2

_NUM_INPUTS = "_num_inputs"
_NUM_CAPTURES = "_num_captures"


def _output_arg_sizes(op_def, attrs):
    """The number of tensors in each output argument, from a NodeDef's attrs."""
    sizes = []
    for arg in op_def.outputs:
        if arg.number_attr is not None:
            sizes.append(attrs[arg.number_attr].i)
        elif arg.type_list_attr is not None:
            sizes.append(len(attrs[arg.type_list_attr].list.type))
        else:
            sizes.append(1)
    return sizes


def _function_input_name(t, arg_names):
    """The FunctionDef name of tensor ``t``: an argument's name or ``node:out_arg:index``."""
    name = arg_names.get(t)
    if name is not None:
        return name
    op = t._op
    od = op._op_def
    idx = t._value_index
    for arg in od.outputs:
        if arg.number_attr is not None:
            n = op._attrs[arg.number_attr]
        elif arg.type_list_attr is not None:
            n = len(op._attrs[arg.type_list_attr])
        else:
            n = 1
        if idx < n:
            return f"{op._name}:{arg.name}:{idx}"
        idx -= n
    # outputs appended by control-flow gradients lie past the declared ones
    return f"{op._name}:{od.outputs[-1].name}:{idx + n}"


def function_def_of(fg):
    """The FunctionDef of FuncGraph ``fg``."""
    fd = function_pb2.FunctionDef()
    sig = fd.signature
    sig.name = fg.name
    args = fg.args
    arg_names = {}
    arg_ops = set()
    for k, ph in enumerate(args):
        a = sig.input_arg.add()
        a.name = f"arg{k}"
        a.type = ph._dtype.base_dtype.as_datatype_enum
        a.is_ref = ph._dtype._is_ref_dtype
        arg_names[ph] = a.name
        arg_ops.add(ph._op)
        fd.arg_attr[k].attr["_output_shapes"].list.shape.add().CopyFrom(ph._shape.as_proto())
    fd.attr[_NUM_INPUTS].i = len(fg.inputs)
    fd.attr[_NUM_CAPTURES].i = len(fg.captures)
    for op in fg._ops:
        if op in arg_ops:
            continue
        nd = fd.node_def.add()
        nd.CopyFrom(graph_io.node_def_of(op))
        del nd.input[:]
        nd.input.extend(_function_input_name(t, arg_names) for t in op._inputs)
        nd.input.extend("^" + c._name for c in op._control_inputs if c not in arg_ops)
        if len(op._outputs) > sum(_output_arg_sizes(op._op_def, nd.attr)):
            nd.attr["_output_shapes"].list.shape.extend(t._shape.as_proto() for t in op._outputs)
    for k, t in enumerate(fg.outputs):
        a = sig.output_arg.add()
        a.name = f"out{k}"
        a.type = t._dtype.base_dtype.as_datatype_enum
        fd.ret[a.name] = _function_input_name(t, arg_names)
    return fd


def add_library(graph, graph_def):
    """Writes the functions of ``graph``'s library into ``graph_def.library``."""
    for fg in list(graph._functions.values()):
        graph_def.library.function.add().CopyFrom(function_def_of(fg))


# ------------------------------------------------------------------------------------------
# import
# ------------------------------------------------------------------------------------------


def _plain_input(name, nodes, arg_index):
    """A FunctionDef input name as a GraphDef one (``node:flat_index``)."""
    if name.startswith("^"):
        return name
    parts = name.split(":")
    if len(parts) == 1:
        if parts[0] in arg_index:
            return f".arg{arg_index[parts[0]]}:0"
        return name
    if len(parts) == 2:  # already "node:index"
        return name
    node, out_arg, idx = parts[0], parts[1], int(parts[2])
    nd = nodes[node]
    op_def = op_registry.lookup(nd.op)
    if op_def is None:
        return name
    offset = 0
    for arg, size in zip(op_def.outputs, _output_arg_sizes(op_def, nd.attr)):
        if arg.name == out_arg:
            return f"{node}:{offset + idx}"
        offset += size
    raise ValueError(f"Function input {name!r}: node {node} has no output arg {out_arg!r}")


def _as_graph_def(fd):
    """The FunctionDef's body as a GraphDef, its arguments as Placeholders ``.arg<k>``."""
    gd = graph_pb2.GraphDef()
    arg_index = {a.name: k for k, a in enumerate(fd.signature.input_arg)}
    for k, a in enumerate(fd.signature.input_arg):
        nd = gd.node.add()
        nd.name = f".arg{k}"
        nd.op = "Placeholder"
        nd.attr["dtype"].type = a.type
        shapes = fd.arg_attr[k].attr["_output_shapes"].list.shape if k in fd.arg_attr else ()
        if len(shapes):
            nd.attr["shape"].shape.CopyFrom(shapes[0])
    nodes = {nd.name: nd for nd in fd.node_def}
    for src in fd.node_def:
        nd = gd.node.add()
        nd.CopyFrom(src)
        del nd.input[:]
        nd.input.extend(_plain_input(i, nodes, arg_index) for i in src.input)
    rets = [_plain_input(fd.ret[a.name], nodes, arg_index) for a in fd.signature.output_arg]
    return gd, rets


def import_library(graph, library):
    """Creates the library's functions in ``graph``; returns {old name: new name}."""
    from tideflow.framework import func_graph, importer

    fdefs = []
    renames = {}
    for fd in library.function:
        name = fd.signature.name
        if name in graph._functions:
            # the very function already there (a second import of one library, as scoped
            # meta graphs each carry their graph's whole library) is kept, as TF does
            if function_def_of(graph._functions[name]) == fd:
                continue
            renames[name] = func_graph.unique_function_name(graph, name)
        fdefs.append(fd)
    for fd in fdefs:
        gd, rets = _as_graph_def(fd)
        for nd in gd.node:  # nested functions renamed as their library entries
            for av in nd.attr.values():
                if av.WhichOneof("value") == "func" and av.func.name in renames:
                    av.func.name = renames[av.func.name]
        name = renames.get(fd.signature.name, fd.signature.name)
        fg = func_graph.FuncGraph(name, graph)
        n_args = len(fd.signature.input_arg)
        with fg.as_default():
            # a ref argument (a variable a branch assigns to) is a ref Placeholder before the
            # body's nodes are checked against it
            refs = {f".arg{k}:0": fg.make_placeholder(dtypes.as_dtype(a.type)._as_ref,
                                                      name=f"ref_arg{k}")
                    for k, a in enumerate(fd.signature.input_arg) if a.is_ref}
            # a body node may keep its colocation with an op of the outer graph (a cond in a
            # variable's initial value, colocated with that variable), which the body lacks
            elems = importer.import_graph_def(
                gd, name="", input_map=refs,
                return_elements=[f".arg{k}:0" for k in range(n_args)] + rets,
                _validate_colocation_constraints=False)
        args, outs = elems[:n_args], elems[n_args:]
        args = [refs.get(f".arg{k}:0", t) for k, t in enumerate(args)]
        # the ".arg<k>" Placeholder a ref argument was mapped away from is used by nothing:
        # left in the body it would be exported as a body node, and the next import of that
        # FunctionDef (a master's partition registered on a worker) would meet it twice
        if refs:
            fg._remove_ops([fg.get_operation_by_name(key[:-2]) for key in refs])
        n_in = fd.attr[_NUM_INPUTS].i if _NUM_INPUTS in fd.attr else n_args
        n_cap = fd.attr[_NUM_CAPTURES].i if _NUM_CAPTURES in fd.attr else 0
        fg.inputs = list(args[:n_in])
        fg.captures = [(None, ph) for ph in args[n_in:n_in + n_cap]]
        fg.extra_args = list(args[n_in + n_cap:])
        fg.outputs = list(outs)
        fg.structured_outputs = list(outs)
        graph._functions[name] = fg
    return renames
