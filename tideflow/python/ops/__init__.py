"""``tensorflow.python.ops``: the generated-op modules TF 1.x programs import directly.

Modules whose tideflow counterpart carries TF's names are the same module object
(``rnn_cell_impl``, ``clip_ops``, ``variable_scope``, ...). ``array_ops``, ``math_ops`` and
``nn_ops`` hold tideflow's module and look a missing public name up where TF exports it
(``math_ops.matmul``, ``nn_ops.bias_add``); ``rnn``, ``rnn_cell``, ``embedding_ops``,
``tensor_array_ops`` and ``nn`` are namespaces of TF's public names (``rnn._transpose_batch_time``
included, which custom decoders use)."""

import importlib
import sys as _sys
import types as _types

from tideflow.ops import (
    array_ops,
    check_ops,
    clip_ops,
    control_flow_ops,
    data_flow_ops,
    functional_ops,
    init_ops,
    logging_ops,
    lookup_ops,
    math_ops,
    nn_impl,
    nn_ops,
    partitioned_variables,
    random_ops,
    rnn_cell_impl,
    sparse_ops,
    special_math_ops,
    state_ops,
    string_ops,
    variable_scope,
    variables,
)


def _namespace(name, doc, members):
    module = _types.ModuleType(f"{__name__}.{name}", doc)
    for key, value in members.items():
        setattr(module, key, value)
    return module


def _hessian_vector_product(ys, xs, v):
    """TF's gradients_impl._hessian_vector_product: the gradient of <grad(ys, xs), v>."""
    import tideflow as _tf

    grads = _tf.gradients(ys, xs)
    products = [_tf.multiply(g, _tf.stop_gradient(e)) for g, e in zip(grads, v) if g is not None]
    return _tf.gradients(products, xs)


def _while_v2_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
                   maximum_iterations=None, name=None, return_same_structure=True,
                   back_prop=True):
    """TF's while_v2.while_loop: tf.while_loop whose result keeps loop_vars' structure."""
    from tideflow.ops.while_loop import while_loop

    return while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                      parallel_iterations=parallel_iterations, back_prop=back_prop,
                      maximum_iterations=maximum_iterations, name=name,
                      return_same_structure=return_same_structure, _v2=True)


def _cond_v2(pred, true_fn, false_fn, name="cond"):
    """TF's cond_v2.cond_v2: tf.cond with both branches given."""
    from tideflow.ops.cond import cond

    return cond(pred, true_fn, false_fn, name=name)


def _with_private(ns, **members):
    for key, value in members.items():
        setattr(ns, key, value)
    return ns


def _text_namespaces():
    from tideflow import nn as _nn
    from tideflow.ops import loop_rnn
    from tideflow.ops import random_gamma_grad as _random_gamma_grad
    from tideflow.ops import rnn as _rnn
    from tideflow.ops import sampled_loss_ops as _sampled
    from tideflow.ops import sparse_extra_ops as _sparse_extra
    from tideflow.ops import sparse_map_ops as _sparse_map
    from tideflow.ops.tensor_array import TensorArray

    rnn_names = ("dynamic_rnn", "bidirectional_dynamic_rnn", "static_rnn",
                 "static_bidirectional_rnn", "_transpose_batch_time")
    rnn = _namespace("rnn", "``tensorflow.python.ops.rnn``.",
                     {**{n: getattr(_rnn, n) for n in rnn_names},
                      "raw_rnn": loop_rnn.raw_rnn,
                      "rnn_cell_impl": rnn_cell_impl,  # TF's rnn module imports it
                      "static_state_saving_rnn": getattr(_nn, "static_state_saving_rnn", None)})
    rnn_cell = _namespace("rnn_cell", "``tensorflow.python.ops.rnn_cell``.",
                          {n: getattr(_nn.rnn_cell, n) for n in dir(_nn.rnn_cell)
                           if not n.startswith("_")})
    from tideflow.ops import embedding_ops as _emb
    from tideflow.ops import nn_extra_ops as _nn_extra

    embedding_ops = _namespace("embedding_ops", "``tensorflow.python.ops.embedding_ops``.",
                               {**{n: getattr(_nn, n) for n in
                                   ("embedding_lookup", "embedding_lookup_sparse",
                                    "safe_embedding_lookup_sparse") if hasattr(_nn, n)},
                                "embedding_lookup_v2": _emb.embedding_lookup_v2,
                                "_embedding_lookup_and_transform":
                                    _emb._embedding_lookup_and_transform,
                                "embedding_lookup_sparse_v2": _nn_extra.embedding_lookup_sparse_v2,
                                "safe_embedding_lookup_sparse_v2":
                                    _nn_extra.safe_embedding_lookup_sparse_v2})
    tensor_array_ops = _namespace("tensor_array_ops", "``tensorflow.python.ops."
                                  "tensor_array_ops``.", {"TensorArray": TensorArray})
    import tideflow as _tf

    def with_fallback(name, module, *spaces):
        # tideflow splits TF's op modules differently: a public name missing here is looked up
        # in the namespaces TF exports it from (math_ops.matmul is tf.matmul, nn_ops.bias_add is
        # tf.nn.bias_add, ...)
        ns = _namespace(name, f"``tensorflow.python.ops.{name}``.",
                        {n: getattr(module, n) for n in dir(module) if not n.startswith("__")})

        def __getattr__(attr):
            if not attr.startswith("_"):
                for space in spaces:
                    if isinstance(space, str):  # a module path, imported on first use
                        space = importlib.import_module(space)
                    if hasattr(space, attr):
                        return getattr(space, attr)
            raise AttributeError(f"module 'tensorflow.python.ops.{name}' has no attribute "
                                 f"{attr!r}")

        ns.__getattr__ = __getattr__
        return ns

    return {"rnn": rnn, "rnn_cell": rnn_cell, "embedding_ops": embedding_ops,
            "tensor_array_ops": tensor_array_ops, "nn": _nn,
            # TF's nn_ops also holds the TF 2 forms (softmax_v2, dropout_v2, ...) and every
            # gen_nn_ops function (relu_grad, max_pool_grad, ...)
            "nn_ops": with_fallback("nn_ops", nn_ops, _nn, _tf, nn_impl,
                                    "tideflow.ops.nn_extra_ops", "tideflow.ops.data_format_ops",
                                    "tideflow.ops.fractional_pool_ops",
                                    "tideflow.python.ops.gen_nn_ops"),
            # TF's nn_impl holds depthwise_conv2d, separable_conv2d, moments, ... of tf.nn
            "nn_impl": _with_private(with_fallback("nn_impl", nn_impl, _nn, _tf, _sampled),
                                     _compute_sampled_logits=_sampled._compute_sampled_logits),
            # TF's math_ops also holds every gen_math_ops function (sparse_segment_mean_grad, ...)
            "math_ops": with_fallback("math_ops", math_ops, _tf, _tf.math,
                                      "tideflow.ops.linalg_more_ops",  # matvec
                                      "tideflow.python.ops.gen_math_ops"),
            # TF's array_ops also holds every gen_array_ops function (strided_slice_grad, ...)
            # and shape_internal (tf.shape with the static folding made optional)
            "array_ops": _with_private(
                with_fallback("array_ops", array_ops, _tf, _tf.manip,
                              "tideflow.ops.gather_ops",  # batch_gather_nd
                              "tideflow.ops.inplace_ops",  # inplace_add, ...
                              "tideflow.python.ops.gen_array_ops"),
                shape_internal=array_ops._shape_internal),
            # TF's sparse_ops also holds the private SparseTensorsMap wrappers that
            # input pipelines (and TF's own tests) call
            "sparse_ops": _with_private(
                with_fallback("sparse_ops", sparse_ops, _tf, _tf.sparse,
                              "tideflow.python.ops.gen_sparse_ops"),
                _add_sparse_to_tensors_map=_sparse_map.add_sparse_to_tensors_map,
                _add_many_sparse_to_tensors_map=_sparse_map.add_many_sparse_to_tensors_map,
                _take_many_sparse_from_tensors_map=_sparse_map.take_many_sparse_from_tensors_map,
                sparse_cross=_sparse_extra.sparse_cross,
                sparse_cross_hashed=_sparse_extra.sparse_cross_hashed,
                _DEFAULT_HASH_KEY=0xDECAFCAFFE),
            # TF's special_math_ops holds einsum, lbeta and the Bessel functions
            "special_math_ops": with_fallback("special_math_ops", special_math_ops, _tf.math,
                                              _tf.linalg, _tf),
            # TF's control_flow_ops holds while_loop, cond and case beside group/tuple
            "control_flow_ops": with_fallback("control_flow_ops", control_flow_ops, _tf),
            # TF's gradient-registration modules, imported for their side effect: tideflow
            # registers each gradient with its op, so importing them adds nothing
            **{g: _namespace(g, f"``tensorflow.python.ops.{g}``: gradients are registered "
                             "with their ops' declarations.", {})
               for g in ("nn_grad", "math_grad", "array_grad")},
            # TF's histogram_ops, sets (sets_impl) and sort_ops modules: the public ops
            "histogram_ops": _namespace(
                "histogram_ops", "``tensorflow.python.ops.histogram_ops``.",
                {"histogram_fixed_width": _tf.histogram_fixed_width,
                 "histogram_fixed_width_bins": _tf.histogram_fixed_width_bins}),
            **{m: _namespace(m, f"``tensorflow.python.ops.{m}``: ``tf.sets``.",
                             {n: getattr(_tf.sets, n) for n in dir(_tf.sets)
                              if not n.startswith("_")})
               for m in ("sets", "sets_impl")},
            "random_grad": _namespace(
                "random_grad", "``tensorflow.python.ops.random_grad``.",
                {"add_leading_unit_dimensions": _random_gamma_grad.add_leading_unit_dimensions}),
            # TF's functional control flow modules: graph-mode programs that call them get
            # the same values from tideflow's loop and cond (return_same_structure defaults on)
            "while_v2": _namespace("while_v2", "``tensorflow.python.ops.while_v2``.",
                                   {"while_loop": _while_v2_loop}),
            "cond_v2": _namespace("cond_v2", "``tensorflow.python.ops.cond_v2``.",
                                  {"cond_v2": _cond_v2}),
            "sort_ops": _namespace("sort_ops", "``tensorflow.python.ops.sort_ops``.",
                                   {"sort": _tf.sort, "argsort": _tf.argsort}),
            "gradients_impl": _namespace("gradients_impl", "``tensorflow.python.ops."
                                         "gradients_impl``.",
                                         {"gradients": _tf.gradients, "hessians": _tf.hessians,
                                          "AggregationMethod": _tf.AggregationMethod,
                                          "_hessian_vector_product": _hessian_vector_product})}


for _name, _mod in (("check_ops", check_ops),
                    ("clip_ops", clip_ops),
                    ("data_flow_ops", data_flow_ops), ("functional_ops", functional_ops),
                    ("init_ops", init_ops), ("logging_ops", logging_ops),
                    ("lookup_ops", lookup_ops),
                    ("partitioned_variables", partitioned_variables),
                    ("random_ops", random_ops), ("rnn_cell_impl", rnn_cell_impl),
                    ("state_ops", state_ops),
                    ("string_ops", string_ops), ("variable_scope", variable_scope),
                    ("variables", variables), *_text_namespaces().items()):
    globals()[_name] = _mod
    _sys.modules[__name__ + "." + _name] = _mod
