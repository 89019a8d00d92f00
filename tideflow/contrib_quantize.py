"""``tf.contrib.quantize``: rewrites a graph in place to simulate 8-bit (or n-bit) inference.

As TF 1.15's rewrite, it finds each layer — a ``Conv2D``, ``MatMul`` or
``DepthwiseConv2dNative`` whose weights are a variable read (``<v>/read`` or
``ReadVariableOp``), optionally followed by a bias add (``BiasAdd``/``Add``), a residual
bypass ``Add``, an activation (``Relu``, ``Relu6``, ``Identity``) and a post-activation bypass
``Add`` — and reroutes their consumers through ``FakeQuantWithMinMaxVars`` ops:

* ``<layer scope>/weights_quant``: the weights, over the last seen range (``min``/``max``
  variables assigned ``min(w.min(), 0)``/``max(w.max(), 0)`` each training step), narrow range;
* ``<layer scope>/act_quant``: the activation, over a moving average (decay 0.999, zero-debiased)
  of the batch range (``min`` starts at 0, ``max`` at 6);
* ``conv_quant``/``add_quant`` around a bypass, ``post_activation_bypass_quant`` after one, and
  ``<op>/activation_<Add|Mul>_quant`` on additions and products of quantized values.

In an eval graph (``create_eval_graph``) the ops read the ``min``/``max`` variables (restored
from the training checkpoint) without updating them. With ``quant_delay`` the training graph
keeps the float values until the global ``fake_quantization_step`` (counted by the graph's own
runs) reaches it. Batch-norm folding (TF's ``fold_batch_norms``) is not done: layers are
matched as they stand.
"""

import re

from tideflow.framework import dtypes, ops

_QUANTIZABLE_TYPES = ("Conv2D", "MatMul", "DepthwiseConv2dNative")
_ACTIVATION_TYPES = ("Relu", "Relu6", "Identity")
_RELU_TYPES = ("Relu", "Relu6")
_BIAS_ADD_TYPES = ("Add", "AddV2", "BiasAdd")
_ADD_TYPES = ("Add", "AddV2")
_VALID_SRC_OP = ("Add", "AddV2", "Mul")
_PASS_THROUGH_OP = ("Reshape", "Identity", "BatchToSpaceND", "SpaceToBatchND", "MaxPool", "Max")
_FAKE_QUANT_TYPES = ("FakeQuantWithMinMaxVars", "FakeQuantWithMinMaxArgs",
                     "FakeQuantWithMinMaxVarsPerChannel")

# the optimizers' update ops: the rewrite must come before them (TF's list)
_TRAINING_OPS = frozenset((
    "ApplyAdagrad", "ApplyAdagradDA", "ApplyAdam", "ApplyAddSign", "ApplyCenteredRMSProp",
    "ApplyFtrl", "ApplyFtrlV2", "ApplyGradientDescent", "ApplyMomentum", "ApplyPowerSign",
    "ApplyProximalAdagrad", "ApplyProximalGradientDescent", "ApplyRMSProp",
    "ResourceApplyAdadelta", "ResourceApplyAdagrad", "ResourceApplyAdagradDA",
    "ResourceApplyAdam", "ResourceApplyAddSign", "ResourceApplyCenteredRMSProp",
    "ResourceApplyFtrl", "ResourceApplyFtrlV2", "ResourceApplyGradientDescent",
    "ResourceApplyMomentum", "ResourceApplyPowerSign", "ResourceApplyProximalAdagrad",
    "ResourceApplyProximalGradientDescent", "ResourceApplyRMSProp",
    "ResourceSparseApplyAdadelta", "ResourceSparseApplyAdagrad", "ResourceSparseApplyAdagradDA",
    "ResourceSparseApplyCenteredRMSProp", "ResourceSparseApplyFtrl",
    "ResourceSparseApplyFtrlV2", "ResourceSparseApplyMomentum",
    "ResourceSparseApplyProximalAdagrad", "ResourceSparseApplyProximalGradientDescent",
    "ResourceSparseApplyRMSProp", "SparseApplyAdadelta", "SparseApplyAdagrad",
    "SparseApplyAdagradDA", "SparseApplyCenteredRMSProp", "SparseApplyFtrl", "SparseApplyFtrlV2",
    "SparseApplyMomentum", "SparseApplyProximalAdagrad", "SparseApplyProximalGradientDescent",
    "SparseApplyRMSProp"))


# ------------------------------------------------------------------------------------------
# public API (quantize_graph)
# ------------------------------------------------------------------------------------------


def create_training_graph(input_graph=None, quant_delay=0):
    """Rewrites a training graph in place for simulated quantization; call it before the
    optimizer adds its gradient and update ops. Variables it adds join GLOBAL_VARIABLES."""
    _create_graph(input_graph, is_training=True, quant_delay=quant_delay)


def create_eval_graph(input_graph=None):
    """Rewrites an eval graph in place: fake-quant ops over the restored ranges."""
    _create_graph(input_graph, is_training=False)


def experimental_create_training_graph(input_graph=None, weight_bits=8, activation_bits=8,
                                       symmetric=False, quant_delay=0, freeze_bn_delay=None,
                                       scope=None):
    """create_training_graph with bit widths, symmetric ranges and a scope to restrict the
    rewrite to (``freeze_bn_delay`` belongs to batch-norm folding, which is not done)."""
    del freeze_bn_delay
    _create_graph(input_graph, is_training=True, weight_bits=weight_bits,
                  activation_bits=activation_bits, symmetric=symmetric, quant_delay=quant_delay,
                  scope=scope)


def experimental_create_eval_graph(input_graph=None, weight_bits=8, activation_bits=8,
                                   symmetric=False, quant_delay=None, scope=None):
    """create_eval_graph with bit widths, symmetric ranges and a scope."""
    _create_graph(input_graph, is_training=False, weight_bits=weight_bits,
                  activation_bits=activation_bits, symmetric=symmetric, quant_delay=quant_delay,
                  scope=scope)


def _create_graph(input_graph=None, is_training=True, weight_bits=8, activation_bits=8,
                  symmetric=False, quant_delay=None, scope=None):
    if input_graph is None:
        input_graph = ops.get_default_graph()
    found = {op.type for op in input_graph.get_operations()} & _TRAINING_OPS
    if found:
        raise ValueError(f"Training op found in graph, exiting {found}")
    with input_graph.as_default():
        quantize(input_graph, is_training, weight_bits=weight_bits,
                 activation_bits=activation_bits, symmetric=symmetric, quant_delay=quant_delay,
                 scope=scope)


# ------------------------------------------------------------------------------------------
# layer matching
# ------------------------------------------------------------------------------------------


class _LayerMatch:
    __slots__ = ("activation_op", "bias_add_op", "bypass_op", "layer_op",
                 "post_activation_bypass_op", "weight_tensor")

    def __init__(self, layer_op, weight_tensor, activation_op, bypass_op=None,
                 post_activation_bypass_op=None, bias_add_op=None):
        self.layer_op = layer_op
        self.weight_tensor = weight_tensor
        self.activation_op = activation_op
        self.bypass_op = bypass_op
        self.post_activation_bypass_op = post_activation_bypass_op
        self.bias_add_op = bias_add_op


def _weight(t):
    """``t`` if it is a layer's weights: a variable's read (possibly of a partitioned one), a
    resource read, or a folded weight ``Mul``."""
    op = t.op
    if op.type == "ReadVariableOp" or op.type == "Mul":
        return t
    if op.type != "Identity" or not op.inputs:
        return None
    src = op.inputs[0].op
    if src.type in ("Variable", "VariableV2"):
        return t
    if src.type == "Identity" and src.inputs and src.inputs[0].op.type in ("Variable",
                                                                             "VariableV2"):
        return t
    if src.type == "ConcatV2" and src.inputs and src.inputs[0].op.type == "Identity":
        inner = src.inputs[0].op
        if inner.inputs and inner.inputs[0].op.type in ("Variable", "VariableV2"):
            return t
    return None


def _match_layer(op):
    """(layer op, weight tensor) if ``op`` is a quantizable layer with variable weights (its
    two inputs in either order, as TF's unordered pattern)."""
    if op.type not in _QUANTIZABLE_TYPES or len(op.inputs) != 2:
        return None
    for w in (op.inputs[1], op.inputs[0]):
        if _weight(w) is not None:
            return op, w
    return None


def _match_layer_output(op):
    if op.type == "BatchToSpaceND" and len(op.inputs) == 3:
        return _match_layer(op.inputs[0].op)
    return _match_layer(op)


def _either(op, match):
    """``match`` applied to one of a two-input op's inputs (the other is anything)."""
    if len(op.inputs) != 2:
        return None, None
    for t in op.inputs:
        m = match(t.op)
        if m is not None:
            return m, t.op
    return None, None


def _match_bias_add(op):
    """{'bias_add', 'layer', 'weight'} for a bias add of a layer's output."""
    if op.type not in _BIAS_ADD_TYPES:
        return None
    m, _ = _either(op, _match_layer_output)
    if m is None:
        return None
    return {"bias_add": op, "layer": m[0], "weight": m[1]}


def _add_of(op, match, key):
    """``match``'s result for either input of the Add ``op``, with ``op`` under ``key``."""
    if op.type not in _ADD_TYPES:
        return None
    m, _ = _either(op, match)
    return None if m is None else dict(m, **{key: op})


def _match_bypass(op):
    return _add_of(op, _match_bias_add, "bypass")


def _match_activation(op):
    if op.type not in _ACTIVATION_TYPES or not op.inputs:
        return None
    src = op.inputs[0].op
    m = _match_bias_add(src) or _match_bypass(src)
    if m is None:
        layer = _match_layer(src)
        if layer is None:
            return None
        m = {"layer": layer[0], "weight": layer[1]}
    return dict(m, activation=op)


def _match_post_activation_bypass(op):
    return _add_of(op, _match_activation, "post_bypass")


def _is_skip_layer(activation_op):
    """conv -> Identity -> fused batch norm: the Identity is not an activation to quantize."""
    if activation_op.type == "Identity" and len(activation_op.outputs) == 1:
        consumers = activation_op.outputs[0].consumers()
        if len(consumers) == 1 and consumers[0].type in ("FusedBatchNorm", "FusedBatchNormV3"):
            return True
    return False


def _find_layers_to_quantize(graph):
    """The layers, largest patterns first (post-activation bypass, then activation, then a
    final bias add, then the first conv of a separable pair); each layer op once."""
    matches = []
    seen = set()
    ops_list = graph.get_operations()

    def add(layer_op, *args):
        if layer_op not in seen:
            seen.add(layer_op)
            matches.append(_LayerMatch(layer_op, *args))

    for op in ops_list:
        m = _match_post_activation_bypass(op)
        if m is not None:
            add(m["layer"], m["weight"], m["activation"], m.get("bypass"), m["post_bypass"],
                m.get("bias_add"))
    for op in ops_list:
        m = _match_activation(op)
        if m is not None and m["layer"] not in seen and not _is_skip_layer(m["activation"]):
            add(m["layer"], m["weight"], m["activation"], m.get("bypass"), None,
                m.get("bias_add"))
    for op in ops_list:
        m = _match_bias_add(op)
        if m is not None:
            add(m["layer"], m["weight"], m["bias_add"])
    for op in ops_list:
        if op.type in _QUANTIZABLE_TYPES:
            m, _ = _either(op, _match_layer_output)
            if m is not None:
                add(m[0], m[1], m[0])
    return matches


# ------------------------------------------------------------------------------------------
# the rewrite
# ------------------------------------------------------------------------------------------


def _consumer_ops(op):
    out = []
    for t in op.outputs:
        for c in t.consumers():
            if c not in out:
                out.append(c)
    return out


def _context(name):
    m = re.search(r"^(.*)/([^/]+)", name)
    return m.group(1) if m else ""


def _join(context, name):
    return f"{context}/{name}" if context else name


def quantize(graph, is_training, weight_bits=8, activation_bits=8, symmetric=False,
             ema_decay=0.999, quant_delay=None, vars_collection=ops.GraphKeys.GLOBAL_VARIABLES,
             scope=None):
    """TF's ``quantize.Quantize``: inserts the fake-quant ops of every matched layer."""
    if scope and not scope.endswith("/"):
        scope += "/"
    consumers_of = {op: _consumer_ops(op) for op in graph.get_operations()}
    common = {"is_training": is_training, "ema_decay": ema_decay, "quant_delay": quant_delay,
              "vars_collection": vars_collection, "symmetric": symmetric}
    quantized = set()
    for m in _find_layers_to_quantize(graph):
        context = _context(m.layer_op.name)
        if m.weight_tensor is not None:
            w_op = m.weight_tensor.op
            _insert_quant_op(context, "weights_quant", w_op, consumers_of.get(w_op, []),
                             moving_avg=False, narrow_range=True, bits=weight_bits,
                             consumer_scope=scope, **common)
        add_context = context
        if m.bypass_op is not None:
            add_context = _context(context)
        if m.activation_op is not None:
            _insert_quant_op(add_context, "act_quant", m.activation_op,
                             consumers_of.get(m.activation_op, []), moving_avg=True,
                             bits=activation_bits, init_min=0.0, producer_scope=scope, **common)
            quantized.add(m.activation_op)
        if m.bypass_op is not None:
            _insert_quant_op(context, "conv_quant", m.bias_add_op,
                             consumers_of.get(m.bias_add_op, []), moving_avg=True,
                             bits=activation_bits, producer_scope=scope, consumer_scope=scope,
                             **common)
            quantized.add(m.bias_add_op)
            after = consumers_of.get(m.bypass_op, [])
            if not any(c.type in _ACTIVATION_TYPES for c in after):
                _insert_quant_op(add_context, "add_quant", m.bypass_op, after,
                                 moving_avg=True, bits=activation_bits, producer_scope=scope,
                                 consumer_scope=scope, **common)
                quantized.add(m.bypass_op)
        if m.post_activation_bypass_op is not None:
            post = m.post_activation_bypass_op
            after = consumers_of.get(post, [])
            if not any(c.type in _RELU_TYPES for c in after):
                _insert_quant_op(_context(post.name), "post_activation_bypass_quant", post,
                                 after, moving_avg=True, bits=activation_bits,
                                 producer_scope=scope, **common)
                quantized.add(post)
    _quantize_activation_layers(quantized, graph, activation_bits, scope=scope, **common)


def _quantize_activation_layers(quantized, graph, activation_bits, scope=None, **common):
    """Adds and products of quantized values get their own fake quant
    (``<op>/activation_<type>_quant``)."""
    consumers_of = {op: _consumer_ops(op) for op in graph.get_operations()}
    for op in list(graph.get_operations()):
        if _is_quantizable_op(op, quantized):
            _insert_quant_op(op.name, f"activation_{op.type}_quant", op, consumers_of[op],
                             moving_avg=True, bits=activation_bits, producer_scope=scope,
                             **common)


def _is_quantizable_op(op, quantized):
    if op in quantized or op.type not in _VALID_SRC_OP:
        return False
    if len(op.outputs) == 1:
        consumers = op.outputs[0].consumers()
        if len(consumers) == 1 and consumers[0].type in _RELU_TYPES:
            return False
    for t in op.inputs:
        src = t.op
        while src.type in _PASS_THROUGH_OP and src.inputs:
            src = src.inputs[0].op
        if src.type == "FakeQuantWithMinMaxVars" or src.name.find("delayed_quant/Merge") > 0:
            return True
        if src.type in _VALID_SRC_OP and any(_is_quantizable_op(i.op, quantized)
                                             for i in src.inputs):
            return True
    return False


def _followed_by_fake_quant(t):
    pending = list(t.consumers())
    while pending:
        c = pending.pop()
        if c.type in _FAKE_QUANT_TYPES:
            return True
        if c.type in ("Reshape", "Identity"):
            for out in c.outputs:
                pending.extend(out.consumers())
    return False


def _insert_quant_op(context, name, producer, consumers, is_training, moving_avg=True,
                     init_min=-6.0, init_max=6.0, bits=8, symmetric=False, ema_decay=0.999,
                     quant_delay=None, vars_collection=ops.GraphKeys.GLOBAL_VARIABLES,
                     narrow_range=False, producer_scope=None, consumer_scope=None):
    if producer_scope and not producer.name.startswith(producer_scope):
        return
    if consumer_scope and any(not c.name.startswith(consumer_scope) for c in consumers):
        return
    prefix = _join(context, name)
    current = ops.get_default_graph().get_name_scope()
    if current and prefix.startswith(current + "/"):
        prefix = prefix[len(current) + 1:]
    inputs = producer.outputs[0]
    if _followed_by_fake_quant(inputs):
        return
    make = _moving_avg_quantize if moving_avg else _last_value_quantize
    quant = make(inputs, init_min=init_min, init_max=init_max, ema_decay=ema_decay,
                 is_training=is_training, num_bits=bits, narrow_range=narrow_range,
                 symmetric=symmetric, vars_collection=vars_collection, name_prefix=prefix)
    if quant_delay and quant_delay > 0:
        from tideflow.ops import cond as cond_lib
        from tideflow.ops import math_ops

        activate = math_ops.greater_equal(_quantization_step(), quant_delay,
                                          name=prefix + "/activate_quant")
        quant = cond_lib.cond(activate, lambda: quant, lambda: inputs,
                              name=prefix + "/delayed_quant")
    if consumers:
        n = _reroute(quant, inputs, consumers)
        if n < len(consumers):
            names = ", ".join(c.name for c in consumers)
            raise ValueError(f"No inputs quantized for ops: [{names}]")


def _reroute(new, old, can_modify):
    """Points the inputs of ``can_modify`` that read ``old`` at ``new``; how many changed."""
    count = 0
    for c in [c for c in old.consumers() if c in can_modify]:
        for i, t in enumerate(list(c.inputs)):
            if t is old:
                c._update_input(i, new)
                count += 1
    return count


def _quantization_step():
    """``fake_quantization_step/Identity:0``: the step counter, incremented by every run that
    reads it."""
    g = ops.get_default_graph()
    try:
        return g.get_tensor_by_name("fake_quantization_step/Identity:0")
    except KeyError:
        pass
    from tideflow.ops import array_ops, init_ops, state_ops, variable_scope

    with g.name_scope(None):
        step = variable_scope.get_variable(
            "fake_quantization_step", shape=[], dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[ops.GraphKeys.GLOBAL_VARIABLES])
        with g.name_scope(step.op.name + "/"):
            return array_ops.identity(state_ops.assign_add(step, 1))


# ------------------------------------------------------------------------------------------
# quant_ops
# ------------------------------------------------------------------------------------------


def _range_vars(inputs, init_min, init_max, vars_collection):
    from tideflow.ops import init_ops, variable_scope

    collections = [vars_collection] if vars_collection else []
    collections = [*collections, ops.GraphKeys.GLOBAL_VARIABLES]
    collections = list(dict.fromkeys(collections))
    min_var = variable_scope.get_variable(
        "min", shape=[], initializer=init_ops.constant_initializer(init_min),
        collections=collections, trainable=False)
    max_var = variable_scope.get_variable(
        "max", shape=[], initializer=init_ops.constant_initializer(init_max),
        collections=collections, trainable=False)
    return min_var, max_var


def _batch_range(inputs, num_bits, narrow_range, symmetric):
    from tideflow.ops import math_ops, reduction_ops

    batch_min = reduction_ops.reduce_min(inputs, name="BatchMin")
    batch_max = reduction_ops.reduce_max(inputs, name="BatchMax")
    if symmetric:
        ratio = -1 if narrow_range else -((1 << num_bits) - 2) / (1 << num_bits)
        return (math_ops.minimum(batch_min, batch_max / ratio),
                math_ops.maximum(batch_max, batch_min * ratio))
    # 0 always lies in the range (TFLite's requirement)
    return math_ops.minimum(batch_min, 0.0), math_ops.maximum(batch_max, 0.0)


def _fake_quant(inputs, mn, mx, num_bits, narrow_range):
    from tideflow.ops import quantization_ops

    return quantization_ops.fake_quant_with_min_max_vars(inputs, mn, mx, num_bits=num_bits,
                                                         narrow_range=narrow_range)


def _range_quantize(inputs, init_min, init_max, vars_collection, name_prefix, is_training,
                    num_bits, narrow_range, symmetric, update):
    """Fake-quantizes ``inputs`` over ``min``/``max`` variables; in training each step first
    moves them towards the batch's range with ``update(var, batch_value, suffix)``."""
    from tideflow.ops import variable_scope

    with variable_scope.variable_scope(None, default_name=name_prefix, values=[inputs]) as vs:
        vs.set_partitioner(None)
        min_var, max_var = _range_vars(inputs, init_min, init_max, vars_collection)
        if not is_training:
            return _fake_quant(inputs, min_var, max_var, num_bits, narrow_range)
        range_min, range_max = _batch_range(inputs, num_bits, narrow_range, symmetric)
        return _fake_quant(inputs, update(min_var, range_min, "Min"),
                           update(max_var, range_max, "Max"), num_bits, narrow_range)


def _last_value_quantize(inputs, init_min=-6.0, init_max=6.0, ema_decay=None,
                         vars_collection=None, name_prefix="LastValueQuant", is_training=True,
                         num_bits=8, narrow_range=False, symmetric=False):
    """Quantizes over the last seen range: ``min``/``max`` assigned each training step."""
    from tideflow.ops import state_ops

    del ema_decay
    return _range_quantize(
        inputs, init_min, init_max, vars_collection, name_prefix, is_training, num_bits,
        narrow_range, symmetric,
        lambda var, value, which: state_ops.assign(var, value, name=f"Assign{which}Last"))


def _moving_avg_quantize(inputs, init_min=-6.0, init_max=6.0, ema_decay=0.999,
                         vars_collection=ops.GraphKeys.MOVING_AVERAGE_VARIABLES,
                         name_prefix="MovingAvgQuantize", is_training=True, num_bits=8,
                         narrow_range=False, symmetric=False):
    """Quantizes over exponential moving averages of the batch ranges."""
    from tideflow.train import moving_averages

    return _range_quantize(
        inputs, init_min, init_max, vars_collection, name_prefix, is_training, num_bits,
        narrow_range, symmetric,
        lambda var, value, which: moving_averages.assign_moving_average(
            var, value, ema_decay, name=f"Assign{which}Ema"))


__all__ = ["create_eval_graph", "create_training_graph", "experimental_create_eval_graph",
           "experimental_create_training_graph"]
