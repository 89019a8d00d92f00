"""Control flow without loops: ``NoOp``, ``tf.group``, ``tf.tuple``, ``with_dependencies``.

``tf.Assert`` is declared with the logging ops and re-exported here, where TF 1.x keeps it.
"""

import builtins

from tideflow.framework import op_registry, ops
from tideflow.ops import array_ops
from tideflow.ops.logging_ops import Assert  # noqa: F401 - TF 1.x keeps tf.Assert here


def _no_op_kernel():
    return


op_registry.declare(
    "NoOp",
    shape=lambda op: [],
    # a factory, not a plain kernel: constant folding must not try an op without outputs
    kernel_factory=lambda ctx: _no_op_kernel,
    differentiable=False,
)


def no_op(name=None):
    """Does nothing; useful only as a placeholder for control edges."""
    return ops.apply_op("NoOp", [], name=name)


def _flatten(values):
    if isinstance(values, (list, builtins.tuple)):  # this module defines tf.tuple
        for v in values:
            yield from _flatten(v)
    elif isinstance(values, dict):
        for k in sorted(values):
            yield from _flatten(values[k])
    else:
        yield values


def _group_control_deps(dev, deps, name=None):
    with ops.control_dependencies(deps):
        if not dev:
            return no_op(name=name)
        with ops.device(dev):
            return no_op(name=name)


def group(*inputs, **kwargs):
    """An op that runs after all of ``inputs`` (Tensors or Operations, nested lists allowed).

    As in TF, inputs on several devices get one NoOp per device, gathered by a final NoOp.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs.keys()))
    with ops.name_scope(name, "group_deps", inputs) as scope:
        if not inputs:
            return no_op(name=scope)
        by_device = {}
        for inp in _flatten(inputs):
            if not hasattr(inp, "device"):
                raise TypeError(
                    f"Expected tf.group() expected Tensor arguments not '{inp}' with type "
                    f"'{type(inp)}'"
                )
            by_device.setdefault(inp.device or "", []).append(inp)
        if not by_device:
            return no_op(name=scope)
        if len(by_device) == 1:
            ((dev, deps),) = by_device.items()
            return _group_control_deps(dev, deps, name=scope)
        deps = [_group_control_deps(dev, by_device[dev]) for dev in sorted(by_device)]
        with ops.control_dependencies(deps):
            return no_op(name=scope)


def with_dependencies(dependencies, output_tensor, name=None):
    """``output_tensor``'s value, produced only after all ``dependencies`` have run."""
    values = [*dependencies, output_tensor]
    with (
        ops.name_scope(name, "control_dependency", values) as scope,
        ops.colocate_with(output_tensor),
        ops.control_dependencies(dependencies),
    ):
        output_tensor = ops.convert_to_tensor_or_indexed_slices(output_tensor)
        if isinstance(output_tensor, ops.Tensor):
            return array_ops.identity(output_tensor, name=scope)
        # IndexedSlices: gate the values, keep indices and dense shape
        return type(output_tensor)(
            array_ops.identity(output_tensor.values, name=scope),
            output_tensor.indices,
            output_tensor.dense_shape,
        )


def tuple(tensors, name=None, control_inputs=None):
    """Tensors equal to ``tensors``, each available only once all of them are computed.

    ``None`` entries stay None; Operations become grouped NoOps gated the same way.
    """
    with ops.name_scope(name, "tuple", tensors):
        tensors = [
            t if isinstance(t, (ops.Operation, ops.Tensor, ops.IndexedSlicesBase)) or t is None
            else ops.convert_to_tensor(t)
            for t in tensors
        ]
        gating_ops = [t if isinstance(t, ops.Operation) else t.op for t in tensors
                      if t is not None]
        if control_inputs:
            for c in control_inputs:
                if isinstance(c, ops.Tensor):
                    c = c.op
                elif not isinstance(c, ops.Operation):
                    raise TypeError(f"Control input must be Operation or Tensor: {c}")
                gating_ops.append(c)
        # unique, in creation order, so the graph is deterministic
        gating_ops = sorted(set(gating_ops), key=lambda op: op._id)
        if not gating_ops:
            raise ValueError(f"Must have at least one Tensor: {tensors}")
        gate = group(*gating_ops)
        out = []
        for t in tensors:
            if isinstance(t, (ops.Tensor, ops.IndexedSlicesBase)):
                out.append(with_dependencies([gate], t))
            elif isinstance(t, ops.Operation):
                with ops.control_dependencies([gate]):
                    out.append(group(t))
            else:
                out.append(None)
        return out



from tideflow.ops.switch_merge_ops import merge, switch  # noqa: F401 - TF 1.x keeps them here
