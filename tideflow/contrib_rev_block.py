"""``tf.contrib.layers.rev_block`` and ``RevBlock``: a stack of reversible residual layers
(Gomez et al., 2017, "The Reversible Residual Network"), each ``y1 = x1 + f(x2)`` then
``y2 = x2 + g(y1)``, with the exact inverse ``RevBlock.backward``.

Variables are TF's: the block is a layer (``revblock``) and layer i's functions run in the
resource-variable scopes ``revlayer_<i>/f`` and ``revlayer_<i>/g`` under it. TF's efficient
backprop (rebuilding each layer's inputs from its outputs instead of keeping them) is a memory
saving only: tideflow differentiates the same forward graph, so values and gradients agree."""

import functools

from tideflow.framework import ops
from tideflow.ops import layers_base
from tideflow.ops import variable_scope as vs


def _in_scope(fn, scope):
    @functools.wraps(fn)
    def run(*args):
        with vs.variable_scope(scope, use_resource=True):
            return fn(*args)

    return run


def _per_layer(fns, num_layers, which):
    if isinstance(fns, list):
        if len(fns) != num_layers:
            raise ValueError(f"{which} is a list of {len(fns)} functions for {num_layers} "
                             "layers: give one per layer, or a single function")
        return list(fns)
    return [fns] * num_layers


class RevBlock(layers_base.Layer):
    """A block of ``num_layers`` reversible residual layers (see ``rev_block``)."""

    def __init__(self, f, g, num_layers=1, f_side_input=None, g_side_input=None,
                 use_efficient_backprop=True, name="revblock", **kwargs):
        super().__init__(name=name, **kwargs)
        self.f = [_in_scope(fn, f"revlayer_{i}/f")
                  for i, fn in enumerate(_per_layer(f, num_layers, "f"))]
        self.g = [_in_scope(fn, f"revlayer_{i}/g")
                  for i, fn in enumerate(_per_layer(g, num_layers, "g"))]
        self.num_layers = num_layers
        self.f_side_input = f_side_input or []
        self.g_side_input = g_side_input or []
        self._use_efficient_backprop = use_efficient_backprop

    def build(self, _):
        # f and g make their variables when first run, in their own scopes
        self.built = True

    def _f(self, i, x):
        return self.f[i](x, self.f_side_input) if self.f_side_input else self.f[i](x)

    def _g(self, i, x):
        return self.g[i](x, self.g_side_input) if self.g_side_input else self.g[i](x)

    def call(self, inputs, forward=True):
        graph = ops.get_default_graph()
        known = {id(v) for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES)}
        a, b = inputs
        if forward:
            for i in range(self.num_layers):
                a = a + self._f(i, b)
                b = b + self._g(i, a)
        else:
            for i in reversed(range(self.num_layers)):
                b = b - self._g(i, a)
                a = a - self._f(i, b)
        # the variables f and g made belong to the layer, as TF's RevBlock tracks them
        trainable = {id(v) for v in graph.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES)}
        for v in graph.get_collection(ops.GraphKeys.GLOBAL_VARIABLES):
            if id(v) not in known:
                (self._trainable_weights if id(v) in trainable
                 else self._non_trainable_weights).append(v)
        return a, b

    def forward(self, x1, x2):
        """``(y1, y2)`` from ``(x1, x2)``."""
        return self.apply([x1, x2])

    def backward(self, y1, y2):
        """``(x1, x2)`` rebuilt from ``(y1, y2)`` with the forward's variables."""
        return self.apply([y1, y2], forward=False)


def rev_block(x1, x2, f, g, num_layers=1, f_side_input=None, g_side_input=None,
              is_training=True):
    """``num_layers`` reversible residual layers ``y1 = x1 + f(x2)``, ``y2 = x2 + g(y1)``
    (``f(x2, f_side_input)`` / ``g(y1, g_side_input)`` when side inputs are given; ``f`` and
    ``g`` may be lists, one function per layer, and must keep their input's shape). Returns
    ``(y1, y2)``."""
    block = RevBlock(f=f, g=g, num_layers=num_layers, f_side_input=f_side_input,
                     g_side_input=g_side_input, use_efficient_backprop=is_training,
                     _reuse=vs.get_variable_scope().reuse)
    return block.forward(x1, x2)


__all__ = ["RevBlock", "rev_block"]
