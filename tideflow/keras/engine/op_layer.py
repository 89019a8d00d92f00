"""TF ops applied to Keras tensors in a functional model, wrapped as layers (TF 1.15's
``TensorFlowOpLayer``), so the model maps through them and makes them again when called on
new inputs."""

from tideflow.distribute import replica
from tideflow.framework import ops
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import Layer
from tideflow.ops import constant_op


class TensorFlowOpLayer(Layer):
    """One TF op of a functional model: its inputs computed from the model's inputs are the
    layer's inputs; the others (constants, variables) stay as they are."""

    def __init__(self, op, constants, name=None, **kwargs):
        super().__init__(name=name or f"tf_op_layer_{op.name}", trainable=False, **kwargs)
        self._op = op
        self._constants = constants  # {input index: tensor}
        self.built = True

    def call(self, inputs):
        op = self._op
        fed = iter(inputs if isinstance(inputs, (list, tuple)) else [inputs])
        args = []
        for i, x in enumerate(op.inputs):
            if i not in self._constants:
                args.append(next(fed))
                continue
            value = self._constants[i]
            if not isinstance(value, ops.Tensor):
                # (as TF 1.15: the value made a constant again, named as the op's input)
                name = x.op.name if x.value_index == 0 else f"{x.op.name}_{x.value_index}"
                value = constant_op.constant(value, dtype=x.dtype, name=name)
            args.append(value)
        attrs = {k: v for k, v in op._attrs.items() if not k.startswith("_")}
        new = ops.get_default_graph().create_op(op.type, args, attrs=attrs,
                                                name=op.name.rpartition("/")[2])
        outs = list(new.outputs)
        return outs[0] if len(outs) == 1 else outs

    def get_config(self):
        config = super().get_config()
        config["node_def"] = self._op.node_def.SerializeToString()
        return config


def wrap_tensor(t, from_keras, force=False):
    """Gives ``t``, an output of a TF op computed from Keras tensors (``from_keras(x)`` says
    which tensors are), a layer and node of a ``TensorFlowOpLayer``; returns False when ``t``
    is not computed from Keras tensors, unless ``force`` (a model's output, as TF's)."""
    if not force and not from_keras(t):
        return False
    op = t.op
    inputs, constants = [], {}
    for i, x in enumerate(op.inputs):
        if from_keras(x):
            inputs.append(x)
        elif _computable(x) and not replica.has_strategy():
            # as TF 1.15: any other input is taken as a constant, its value computed now
            # (``K.function``, whose session initializes the variables not yet initialized)
            with ops.init_scope():
                constants[i] = K.function([], x)([])
        else:
            # (one read from a variable or a placeholder stays as it is: TF 1.15 would freeze
            # the variable's value, or fail wanting the placeholder fed)
            constants[i] = x
    layer = TensorFlowOpLayer(op, constants)
    node = layer._add_node(inputs, list(op.outputs), {}, ([], []))
    node.outputs_listed = True  # (its output shape is a list, as TF 1.15's)
    return True


_LIVE_OPS = frozenset(("Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "VarHandleOp",
                       "VariableV2", "Variable", "VarIsInitializedOp"))


def _computable(t):
    """Whether ``t`` depends on no variable and no placeholder (so has one value now)."""
    seen, stack = set(), [t.op]
    while stack:
        op = stack.pop()
        if op.type in _LIVE_OPS:
            return False
        for x in list(op.inputs) + list(op.control_inputs):
            o = x.op if isinstance(x, ops.Tensor) else x
            if id(o) not in seen:
                seen.add(id(o))
                stack.append(o)
    return True


def create_history(tensors):
    """As TF 1.15's ``create_keras_history`` (run when a layer is called outside any layer's
    call on tensors some of which come from TF ops on Keras tensors): each such op, from the
    outputs back, becomes a ``TensorFlowOpLayer``, its constant inputs computed as it does."""
    if replica.has_strategy():
        return  # (a replica's call: TF 1.15 is then in a call of the model)
    history = K._state().history
    from_keras = from_keras_tensors(set())
    stack = [t for t in reversed(tensors) if isinstance(t, ops.Tensor)]
    while stack:
        t = stack.pop()
        if t in history or getattr(t, "_tf_layers_output", False) or \
                not wrap_tensor(t, from_keras):
            continue
        stack.extend(x for x in reversed(t.op.inputs) if x not in history and from_keras(x))


def from_keras_tensors(input_ids):
    """A predicate: whether a tensor is computed from the tensors ``input_ids`` or from tensors
    a Keras layer made (memoized across calls)."""
    memo = {}

    def check(t):
        history = K._state(t.graph).history
        stack = [(t, False)]
        while stack:  # depth first without recursion (long op chains)
            x, expanded = stack.pop()
            if id(x) in memo:
                continue
            if id(x) in input_ids or x in history:
                memo[id(x)] = True
            elif expanded:
                memo[id(x)] = any(memo.get(id(y), False) for y in x.op.inputs)
            else:
                stack.append((x, True))
                stack.extend((y, False) for y in x.op.inputs if id(y) not in memo)
        return memo[id(t)]

    return check
