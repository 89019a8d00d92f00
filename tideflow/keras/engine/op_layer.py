"""TF ops applied to Keras tensors in a functional model, wrapped as layers (TF 1.15's
``TensorFlowOpLayer``), so the model maps through them and makes them again when called on
new inputs."""

from tideflow.framework import ops
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import Layer


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
        args = [self._constants[i] if i in self._constants else next(fed)
                for i in range(len(op.inputs))]
        attrs = {k: v for k, v in op._attrs.items() if not k.startswith("_")}
        new = ops.get_default_graph().create_op(op.type, args, attrs=attrs,
                                                name=op.name.rpartition("/")[2])
        outs = list(new.outputs)
        return outs[0] if len(outs) == 1 else outs

    def get_config(self):
        config = super().get_config()
        config["node_def"] = self._op.node_def.SerializeToString()
        return config


def wrap_tensor(t, from_keras):
    """Gives ``t``, an output of a TF op computed from Keras tensors (``from_keras(x)`` says
    which tensors are), a layer and node of a ``TensorFlowOpLayer``; returns False when ``t``
    is not computed from Keras tensors."""
    if not from_keras(t):
        return False
    op = t.op
    inputs, constants = [], {}
    for i, x in enumerate(op.inputs):
        if from_keras(x):
            inputs.append(x)
        else:
            constants[i] = x
    layer = TensorFlowOpLayer(op, constants)
    layer._add_node(inputs, list(op.outputs), {}, ([], []))
    return True


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
