"""TF's control-flow helpers (``tensorflow.python.ops.control_flow_util``): op-type tests for the
v1 control-flow ops and the control-flow-context queries.

tideflow builds ``tf.cond`` and ``tf.while_loop`` as functional ops (If, While) whose bodies are
function graphs, as TF's control flow v2 does: no op has a v1 control-flow context, so the
context queries answer as TF's do for an op outside any cond or loop.
"""

ENABLE_CONTROL_FLOW_V2 = False  # TF 1.15's default (tideflow's switch stays off, see above)


def EnableControlFlowV2(graph):
    """Whether TF 1.15 would build v2 control flow here: inside a function body."""
    return ENABLE_CONTROL_FLOW_V2 or bool(getattr(graph, "building_function", False))


def _type(op):
    return getattr(op, "type", None)


def IsSwitch(op):
    return _type(op) in ("Switch", "RefSwitch")


def IsMerge(op):
    return _type(op) in ("Merge", "RefMerge")


def IsLoopEnter(op):
    return _type(op) in ("Enter", "RefEnter")


def IsLoopExit(op):
    return _type(op) in ("Exit", "RefExit")


def IsLoopConstantEnter(op):
    return IsLoopEnter(op) and bool(op.get_attr("is_constant"))


def GetOutputContext(op):
    """The control-flow context an op's outputs belong to (None: tideflow has none)."""
    del op


def GetContainingWhileContext(ctxt, stop_ctxt=None):
    del stop_ctxt
    return ctxt if ctxt is not None and getattr(ctxt, "IsWhileContext", lambda: False)() \
        else None


def GetContainingXLAContext(ctxt):
    del ctxt


def GetContainingCondContext(ctxt):
    del ctxt


def IsContainingContext(ctxt, maybe_containing_ctxt):
    """Whether ``maybe_containing_ctxt`` is ``ctxt`` or one of its outer contexts."""
    return maybe_containing_ctxt is None or ctxt is maybe_containing_ctxt


def IsInWhileLoop(op):
    return GetContainingWhileContext(GetOutputContext(op)) is not None


def IsInCond(op):
    return GetContainingCondContext(GetOutputContext(op)) is not None


def IsCondSwitch(op):
    return IsSwitch(op) and not IsInWhileLoop(op)


def IsCondMerge(op):
    return IsMerge(op) and not IsInWhileLoop(op)


def IsLoopSwitch(op):
    return IsSwitch(op) and IsInWhileLoop(op)


def IsLoopMerge(op):
    return IsMerge(op) and IsInWhileLoop(op)


def IsInXLAContext(op):
    del op
    return False


def InXlaContext(graph):
    del graph
    return False


def GraphOrParentsInXlaContext(graph):
    del graph
    return False


def OpInContext(op, ctxt):
    return IsContainingContext(GetOutputContext(op), ctxt)


def TensorInContext(tensor, ctxt):
    return OpInContext(tensor.op, ctxt)


def CheckInputFromValidContext(op, input_op):
    """TF checks an input comes from a context enclosing the op's; without contexts every input
    does."""
    del op, input_op
