"""``tf.contrib.compiler``: ``jit.experimental_jit_scope`` and ``xla.compile``. tideflow has no
XLA: a jit scope only marks the ops built inside it with TF's ``_XlaCompile`` / ``_XlaScope`` /
``_XlaSeparateCompiledGradients`` attrs (kept in GraphDefs), and ``compile`` runs inline."""

import collections.abc
import contextlib
import types

from tideflow.framework import nest, ops

_XLA_SCOPE_KEY = "__xla_scope"


class _XlaScope:
    """The graph's jit-scope counter: ``count`` names the next root scope, ``depth`` nests."""

    def __init__(self, count, depth):
        self.count = count
        self.depth = depth


@contextlib.contextmanager
def experimental_jit_scope(compile_ops=True, separate_compiled_gradients=False):
    """Ops created inside get ``_XlaCompile=compile_ops`` and, at the outermost scope, a fresh
    ``_XlaScope`` (``jit_scope_<n>``); their gradients inherit the marks (a scope of their own
    when ``separate_compiled_gradients``). The ops still run as ordinary ops."""
    if callable(compile_ops):
        raise NotImplementedError(
            "experimental_jit_scope: a callable compile_ops (chosen per NodeDef) is not "
            "supported by tideflow; pass a bool")
    # plain values: get_attr gives them back as TF does (a bool, the scope name as bytes)
    attrs = {
        "_XlaCompile": bool(compile_ops),
        "_XlaSeparateCompiledGradients": bool(separate_compiled_gradients),
    }
    counters = ops.get_collection(_XLA_SCOPE_KEY)
    if counters:
        counter = counters[0]
    else:
        counter = _XlaScope(0, 0)
        ops.add_to_collection(_XLA_SCOPE_KEY, counter)
    if counter.depth == 0:  # nested scopes share their root's scope name
        attrs["_XlaScope"] = f"jit_scope_{counter.count}".encode()
        counter.count += 1
    counter.depth += 1
    try:
        with ops.get_default_graph()._attr_scope(attrs):
            yield
    finally:
        counter.depth -= 1


def _is_flat(outputs):
    if isinstance(outputs, collections.abc.Mapping) or hasattr(type(outputs),
                                                                "__attrs_attrs__"):
        return False
    if isinstance(outputs, collections.abc.Sequence) and not isinstance(outputs, (str, bytes)):
        return not any(
            (isinstance(o, collections.abc.Sequence) and not isinstance(o, (str, bytes)))
            or isinstance(o, collections.abc.Mapping) or hasattr(type(o), "__attrs_attrs__")
            for o in outputs)
    return True


def compile(computation, inputs=None):
    """Builds ``computation(*inputs)`` as TF's ``xla.compile`` shapes its result (run inline,
    not compiled): flat results come back as a list of tensors (``None`` or ops only: a
    grouped op), nested ones in their structure; every returned tensor runs the computation's
    returned ops first."""
    from tideflow.ops import array_ops, control_flow_ops

    if inputs is None:
        inputs = []
    if not isinstance(inputs, collections.abc.Sequence) or isinstance(inputs, (str, bytes)):
        raise TypeError("inputs must be a list")
    flat_inputs = [ops.convert_to_tensor(x) for x in nest.flatten(inputs)]
    args = [array_ops.identity(x, name=f"input_{i}") for i, x in enumerate(flat_inputs)]
    args = nest.pack_sequence_as(inputs, args)
    outputs = computation(*args)
    flat = _is_flat(outputs)
    if flat:
        outs = () if outputs is None else outputs
        if not isinstance(outs, collections.abc.Sequence) or isinstance(outs, (str, bytes)):
            outs = (outs,)
        outs = [*outs, control_flow_ops.no_op()]  # as TF: each output waits for the body
        try:
            outs = [o if isinstance(o, ops.Operation) else ops.convert_to_tensor(o) for o in outs]
        except Exception as e:  # noqa: BLE001 - as TF, any conversion failure
            raise ValueError(
                "XLA computation function return values must all either be Operations or "
                f'convertible to Tensors. Got error: "{e}"') from None
        tensors = [o for o in outs if not isinstance(o, ops.Operation)]
        control = [o for o in outs if isinstance(o, ops.Operation)]
        if outs != tensors + control:
            raise ValueError("XLA computation function must return zero or more Tensor values "
                             "followed by zero or more Operations.")
    else:
        tensors = []
        for o in nest.flatten(outputs):
            if isinstance(o, ops.Operation):
                raise ValueError(  # noqa: TRY004 - TF's error class
                    "xla.compile does not support Operation as return value in non-flat output "
                    "structure. You can set returned Operations as control dependencies of "
                    "returned Tensors so Operations are triggered when Tensors are evaluated. "
                    f'Operation found: "{o.name}"')
            try:
                tensors.append(ops.convert_to_tensor(o))
            except Exception as e:  # noqa: BLE001 - as TF
                raise ValueError(
                    "XLA computation function return values must all either be Operations or "
                    f'convertible to Tensors. Got error: "{e}"') from None
        control = []
    if not tensors:
        return control_flow_ops.group(*control, name="output_0")
    with ops.control_dependencies(control):
        result = [array_ops.identity(t, name=f"output_{i}") for i, t in enumerate(tensors)]
    if not flat:
        result = nest.pack_sequence_as(outputs, result)
    return result


jit = types.ModuleType("tideflow.contrib.compiler.jit",
                       "``tf.contrib.compiler.jit``: ``experimental_jit_scope``.")
jit.experimental_jit_scope = experimental_jit_scope
jit.__all__ = ["experimental_jit_scope"]
xla = types.ModuleType("tideflow.contrib.compiler.xla",
                       "``tf.contrib.compiler.xla``: ``compile`` (run inline).")
xla.compile = compile
xla.__all__ = ["compile"]

__all__ = ["compile", "experimental_jit_scope", "jit", "xla"]
