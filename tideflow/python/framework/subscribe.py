"""``tensorflow.python.framework.subscribe``: attach side-effect subgraphs to tensors.

``subscribe(tensors, side_effects)`` puts an ``Identity`` named
``<op>/subscription/Identity`` after each tensor, makes it depend on the outputs of each
``side_effect(tensor)``, and moves the tensor's consumers (data and control) onto it, so that
anything that uses the tensor also runs the side effects. Subscribing a tensor again adds to
its one subscription. Tensors of types NumPy cannot hold (resources, variants) come back
unsubscribed; a Variable's subscription is on its read value.
"""

import re

from tideflow.framework import ops
from tideflow.ops.variables import Variable

_SUBSCRIPTION_NAME = re.compile(r"(?P<prefix_name>^.*?)/subscription/Identity[^/]+")


def _recursive_apply(tensors, apply_fn):
    kind = type(tensors)
    if isinstance(tensors, ops.Tensor):
        return apply_fn(tensors)
    if isinstance(tensors, Variable):
        return apply_fn(tensors.value())
    if isinstance(tensors, (list, tuple)):
        parts = [_recursive_apply(t, apply_fn) for t in tensors]
        if kind is list:
            return parts
        if kind is tuple:
            return tuple(parts)
        return kind(*parts)
    if kind is dict:
        return {k: _recursive_apply(v, apply_fn) for k, v in tensors.items()}
    raise TypeError(f"_recursive_apply argument {tensors!r} has invalid type {kind!r}")


def _is_subscribed_identity(tensor):
    """Whether ``tensor`` is the output of a subscription's Identity."""
    if tensor.op.type != "Identity":
        return False
    match = _SUBSCRIPTION_NAME.match(tensor.name)
    if match is None:
        return False
    if len(tensor.op.inputs) != 1:
        raise AssertionError(f"Op {tensor.op.name} must only have one input")
    return match.group("prefix_name") == tensor.op.inputs[0].op.name


def _side_effect_outputs(tensor, side_effects):
    outs = []
    for effect in side_effects:
        result = effect(tensor)
        outs.extend(result if isinstance(result, (list, tuple)) else [result])
    return outs


def _subscribe_extend(tensor, side_effects):
    """Adds ``side_effects`` to the existing subscription ``tensor``."""
    source = tensor.op.inputs[0]
    with ops.name_scope(source.op.name + "/subscription/"):
        outs = _side_effect_outputs(source, side_effects)
    tensor.op._add_control_inputs([o.op if isinstance(o, ops.Tensor) else o for o in outs])
    return tensor


def _subscribe_new(tensor, side_effects, control_cache):
    data_consumers = [(op, list(op.inputs).index(tensor)) for op in tensor.consumers()]
    # the ops with control inputs on tensor's op as they were when subscribe() was called
    # (subscribing several outputs of one op moves each such edge to every subscription)
    control_consumers = control_cache.get(tensor.op)
    if control_consumers is None:
        control_consumers = control_cache[tensor.op] = list(tensor.op._control_outputs or ())
    with ops.name_scope(tensor.op.name + "/subscription/"):
        outs = _side_effect_outputs(tensor, side_effects)
        with ops.control_dependencies(outs):
            out = _identity(tensor)
    for op, index in data_consumers:
        op._update_input(index, out)
    for op in control_consumers:
        if op is out.op:
            continue
        kept = [c for c in op.control_inputs if c is not tensor.op]
        op._remove_all_control_inputs()
        op._add_control_inputs([*kept, out.op])
    return out


def _identity(tensor):
    from tideflow.ops.array_ops import identity

    return identity(tensor, name="Identity")


def _subscribe(tensor, side_effects, control_cache):
    if not tensor.dtype.is_numpy_compatible:
        return tensor
    if _is_subscribed_identity(tensor):
        return _subscribe_extend(tensor, side_effects)
    prefix = tensor.op.name + "/subscription/Identity"
    existing = [op for op in tensor.consumers() if op.name.startswith(prefix)]
    if len(existing) > 1:
        raise AssertionError(
            f"Op {tensor.op.name} must only have one subscription op connected to it")
    if existing and _is_subscribed_identity(existing[0].outputs[0]):
        return _subscribe_extend(existing[0].outputs[0], side_effects)
    return _subscribe_new(tensor, side_effects, control_cache)


def _scoped_subscribe(tensor, side_effects, control_cache):
    with ops.colocate_with(None, ignore_existing=True), ops.device(tensor.device):
        return _subscribe(tensor, side_effects, control_cache)


def subscribe(tensors, side_effects):
    """Subscribes ``side_effects`` (a callable, or a list of them, each taking a tensor and
    returning a list of tensors) to ``tensors`` (a Tensor, Variable, or a list, tuple,
    namedtuple or dict of them); returns the subscribed tensors in the same structure."""
    if callable(side_effects) and not isinstance(side_effects, (list, tuple)):
        side_effects = [side_effects]
    control_cache = {}
    return _recursive_apply(tensors,
                            lambda t: _scoped_subscribe(t, side_effects, control_cache))
