"""TF 1.x's implementation paths of ``tf.contrib.layers`` and ``tf.contrib.framework`` that
custom slim layers import directly: ``tensorflow.contrib.layers.python.layers`` (its
``layers``, ``initializers``, ``regularizers`` and ``utils`` modules) and
``tensorflow.contrib.framework.python.ops`` (``add_arg_scope`` and the variable helpers at the
package level, the ``arg_scope`` and ``variables`` modules) and
``tensorflow.contrib.metrics.python.ops`` (``set_ops``: TF 1.x's contrib.metrics set functions;
``metric_ops``: the streaming metrics). ``install`` registers them under ``tideflow.contrib``
once ``contrib.layers``, ``contrib.framework`` and ``contrib.metrics`` exist."""

import sys
import types

from tideflow import contrib_slim_nets as _slim_nets
from tideflow.framework import ops
from tideflow.framework import tensor_shape as _tensor_shape
from tideflow.ops import contrib_layers_more as _more
from tideflow.ops import variables as _variables


def get_variable_collections(variables_collections, name):
    """The collections for the variable ``name``: ``variables_collections[name]`` when a dict
    is given (None where it has no entry), else ``variables_collections`` itself."""
    if isinstance(variables_collections, dict):
        return variables_collections.get(name, None)
    return variables_collections


def constant_value(value_or_tensor_or_var, dtype=None):
    """A Python value, or a tensor's value when it is known without running the graph
    (None if it is not, and always None for a variable); raises ValueError for None or a
    tensor of another dtype than ``dtype``."""
    if value_or_tensor_or_var is None:
        raise ValueError("value_or_tensor_or_var cannot be None")
    value = value_or_tensor_or_var
    if isinstance(value, (ops.Tensor, _variables.Variable)):
        if dtype and value.dtype != dtype:
            raise ValueError(f"It has the wrong type {value.dtype} instead of {dtype}")
        if isinstance(value, _variables.Variable):
            return None
        value = ops.constant_value(value)
    return value


def static_cond(pred, fn1, fn2):
    """``fn1()`` if the Python value ``pred`` is true, else ``fn2()``."""
    if not callable(fn1):
        raise TypeError("fn1 must be callable.")
    if not callable(fn2):
        raise TypeError("fn2 must be callable.")
    return fn1() if pred else fn2()


def smart_cond(pred, fn1, fn2, name=None):
    """``static_cond`` when ``pred``'s value is known while building, else ``tf.cond``."""
    pred_value = constant_value(pred)
    if pred_value is not None:
        return static_cond(pred_value, fn1, fn2)
    from tideflow.ops import cond as _cond
    return _cond.cond(pred, fn1, fn2, name=name)


def _get_dimension(shape, dim, min_rank=1):
    """The known size of ``shape``'s dimension ``dim``; ValueError (TF 1.15's words) if the
    rank is unknown or below ``min_rank``, or that size is unknown."""
    shape = _tensor_shape.as_shape(shape)
    dims = shape.dims
    if dims is None:
        raise ValueError("dims of shape must be known but is None")
    if len(dims) < min_rank:
        raise ValueError(f"rank of shape must be at least {min_rank} not: {len(dims)}")
    value = _tensor_shape.dimension_value(dims[dim])
    if value is None:
        raise ValueError(f"dimension {dim} of shape must be known but is None: {shape}")
    return value


def channel_dimension(shape, data_format, min_rank=1):
    """The known channel size of ``shape``: dimension 1 for ``'channels_first'``, else the
    last."""
    return _get_dimension(shape, 1 if data_format == "channels_first" else -1,
                          min_rank=min_rank)


def last_dimension(shape, min_rank=1):
    """The known size of ``shape``'s last dimension (see ``_get_dimension``)."""
    return _get_dimension(shape, -1, min_rank=min_rank)


def two_element_tuple(int_or_tuple):
    """``(n, n)`` for an int ``n``; a 2-list, 2-tuple or rank-2 TensorShape as a tuple of
    ints; ValueError otherwise."""
    if isinstance(int_or_tuple, (list, tuple)):
        if len(int_or_tuple) != 2:
            raise ValueError(f"Must be a list with 2 elements: {int_or_tuple}")
        return int(int_or_tuple[0]), int(int_or_tuple[1])
    if isinstance(int_or_tuple, int):
        return int(int_or_tuple), int(int_or_tuple)
    if isinstance(int_or_tuple, _tensor_shape.TensorShape) and int_or_tuple.ndims == 2:
        return tuple(_tensor_shape.dimension_value(d) for d in int_or_tuple)
    raise ValueError("Must be an int, a list with 2 elements or a TensorShape of length 2")


def n_positive_integers(n, value):
    """``value`` as an ``n``-tuple of positive ints: one value convertible to int is repeated,
    a sequence (or TensorShape) must hold ``n`` of them. ValueError in TF 1.15's words
    otherwise; as there, ``int()`` truncates (1.5 gives 1)."""
    n_orig = n
    n = int(n)
    if n < 1 or n != n_orig:
        raise ValueError("n must be a positive integer")
    try:
        value = int(value)
    except (TypeError, ValueError):
        if len(value) != n:
            raise ValueError(f"Expected sequence of {n} positive integers, but received "
                             f"{value!r}") from None
        try:
            values = tuple(int(x) for x in value)
        except Exception:  # noqa: BLE001 - TF 1.15 catches everything here
            raise ValueError(f"Expected sequence of {n} positive integers, but received "
                             f"{value!r}") from None
        for x in values:
            if x < 1:
                raise ValueError(f"expected positive integer, but received {x}") from None
        return values
    if value < 1:
        raise ValueError(f"expected positive integer, but received {value}")
    return (value,) * n


_UTILS = ("_get_dimension", "append_tensor_alias", "channel_dimension",
          "collect_named_outputs", "constant_value", "convert_collection_to_dict",
          "get_tensor_aliases", "get_variable_collections", "last_dimension",
          "n_positive_integers", "smart_cond", "static_cond", "two_element_tuple")


def _module(name, doc, members):
    module = types.ModuleType(name, doc)
    for key, value in members.items():
        setattr(module, key, value)
    module.__all__ = sorted(k for k in members if not k.startswith("_"))
    sys.modules[name] = module
    return module


def install(contrib):
    """Registers the implementation paths under ``contrib`` (the ``tideflow.contrib``
    module, with its ``layers``, ``framework`` and ``slim`` namespaces built)."""
    base = contrib.__name__
    layers = contrib.layers
    layer_names = {n: getattr(layers, n) for n in getattr(layers, "__all__", dir(layers))
                   if not n.startswith("_") and hasattr(layers, n)}
    utils = _module(f"{base}.layers.python.layers.utils",
                    "``tensorflow.contrib.layers.python.layers.utils``.",
                    {**{n: getattr(_slim_nets.utils, n) for n in _slim_nets.utils.__all__},
                     **{n: globals()[n] for n in _UTILS if n in globals()}})
    initializers = _module(
        f"{base}.layers.python.layers.initializers",
        "``tensorflow.contrib.layers.python.layers.initializers``.",
        {n: getattr(layers, n) for n in ("variance_scaling_initializer", "xavier_initializer",
                                          "xavier_initializer_conv2d")})
    regularizers = _module(
        f"{base}.layers.python.layers.regularizers",
        "``tensorflow.contrib.layers.python.layers.regularizers``.",
        {n: getattr(layers, n) for n in ("apply_regularization", "l1_l2_regularizer",
                                          "l1_regularizer", "l2_regularizer",
                                          "sum_regularizer")})
    from tideflow import contrib_summaries as _contrib_summaries

    summaries = _module(
        f"{base}.layers.python.layers.summaries",
        "``tensorflow.contrib.layers.python.layers.summaries``.",
        {n: getattr(_contrib_summaries, n) for n in _contrib_summaries.SUMMARIZE_NAMES})
    normalization = _module(
        f"{base}.layers.python.layers.normalization",
        "``tensorflow.contrib.layers.python.layers.normalization``.",
        {n: getattr(layers, n) for n in ("group_norm", "instance_norm") if hasattr(layers, n)})
    embedding_ops = _module(
        f"{base}.layers.python.layers.embedding_ops",
        "``tensorflow.contrib.layers.python.layers.embedding_ops``.",
        {n: getattr(layers, n) for n in ("embedding_lookup_unique",
                                          "safe_embedding_lookup_sparse")})
    optimizers = _module(
        f"{base}.layers.python.layers.optimizers",
        "``tensorflow.contrib.layers.python.layers.optimizers``.",
        {n: getattr(_more, n) for n in ("OPTIMIZER_CLS_NAMES", "OPTIMIZER_SUMMARIES",
                                         "adaptive_clipping_fn", "optimize_loss")})
    layers_mod = _module(f"{base}.layers.python.layers.layers",
                         "``tensorflow.contrib.layers.python.layers.layers``.", layer_names)
    from tideflow.ops import contrib_layers_extra as _extra

    layers_mod._inner_flatten = _extra._inner_flatten
    layers_mod._sparse_inner_flatten_v2 = _extra._sparse_inner_flatten_v2
    package = _module(f"{base}.layers.python.layers",
                      "``tensorflow.contrib.layers.python.layers``.",
                      {**layer_names, "layers": layers_mod, "initializers": initializers,
                       "regularizers": regularizers, "optimizers": optimizers,
                       "summaries": summaries, "normalization": normalization,
                       "embedding_ops": embedding_ops,
                       "utils": utils})
    layers.python = _module(f"{base}.layers.python", "``tensorflow.contrib.layers.python``.",
                            {"layers": package})
    # TF 1.15's slim.utils is this very module
    contrib.slim.utils = utils
    sys.modules[f"{base}.slim.utils"] = utils

    # tensorflow.contrib.losses.python.losses.loss_ops (and .metric_learning)
    losses = contrib.losses
    loss_names = {n: getattr(losses, n) for n in losses.__all__ if hasattr(losses, n)}
    loss_ops = _module(f"{base}.losses.python.losses.loss_ops",
                       "``tensorflow.contrib.losses.python.losses.loss_ops``.", loss_names)
    losses_pkg = {**loss_names, "loss_ops": loss_ops}
    if hasattr(losses, "metric_learning"):
        sys.modules[f"{base}.losses.python.metric_learning"] = losses.metric_learning
    inner = _module(f"{base}.losses.python.losses",
                    "``tensorflow.contrib.losses.python.losses``.", losses_pkg)
    losses.python = _module(f"{base}.losses.python", "``tensorflow.contrib.losses.python``.",
                            {"losses": inner})
    sys.modules.setdefault(f"{base}.losses", losses)

    # tensorflow.contrib.training.python.training.{evaluation,training,hparam}
    training = contrib.training
    groups = {
        "evaluation": ("StopAfterNEvalsHook", "SummaryAtEndHook", "checkpoints_iterator",
                       "evaluate_once", "evaluate_repeatedly", "get_or_create_eval_step",
                       "wait_for_new_checkpoint"),
        "training": ("add_gradients_summaries", "clip_gradient_norms", "clip_gradient_norms_fn",
                     "create_train_op",
                     "multiply_gradients", "train"),
        "hparam": ("HParams", "parse_values"),
        "bucket_ops": ("bucket", "bucket_by_sequence_length"),
        "device_setter": ("GreedyLoadBalancingStrategy", "RandomStrategy", "byte_size_load_fn"),
    }
    training_mods = {
        short: _module(f"{base}.training.python.training.{short}",
                       f"``tensorflow.contrib.training.python.training.{short}``.",
                       {n: getattr(training, n) for n in names if hasattr(training, n)})
        for short, names in groups.items()}
    from tideflow.train import contrib_sampling

    # the module itself: TF's tests reach its private helpers (_verify_input, ...)
    training_mods["sampling_ops"] = contrib_sampling
    sys.modules[f"{base}.training.python.training.sampling_ops"] = contrib_sampling
    training_mods["resample"] = contrib_sampling
    from tideflow.train import sequence_state_saver

    training_mods["sequence_queueing_state_saver"] = sequence_state_saver
    sys.modules[f"{base}.training.python.training.sequence_queueing_state_saver"] = (
        sequence_state_saver)
    training_mods["feeding_queue_runner"] = _module(
        f"{base}.training.python.training.feeding_queue_runner",
        "``tensorflow.contrib.training.python.training.feeding_queue_runner``.",
        {"FeedingQueueRunner": training.FeedingQueueRunner})
    sys.modules[f"{base}.training.python.training.resample"] = contrib_sampling
    training_pkg = _module(f"{base}.training.python.training",
                           "``tensorflow.contrib.training.python.training``.", training_mods)
    training.python = _module(f"{base}.training.python",
                              "``tensorflow.contrib.training.python``.",
                              {"training": training_pkg})

    framework = contrib.framework
    names = {n: getattr(framework, n) for n in framework.__all__}
    arg_scope = _module(f"{base}.framework.python.ops.arg_scope",
                        "``tensorflow.contrib.framework.python.ops.arg_scope``.",
                        {n: names[n] for n in ("add_arg_scope", "arg_scope",
                                               "arg_scope_func_key", "arg_scoped_arguments",
                                               "current_arg_scope", "has_arg_scope")})
    variables = _module(f"{base}.framework.python.ops.variables",
                        "``tensorflow.contrib.framework.python.ops.variables``.",
                        {n: v for n, v in names.items() if n not in arg_scope.__all__
                         and n not in ("nest", "sort", "argsort")
                         and (not n.endswith("_initializer") or n == "zero_initializer")})
    fops = framework.python.ops
    for key, value in {**names, "arg_scope": arg_scope.arg_scope}.items():
        setattr(fops, key, value)
    # ``from ...framework.python.ops import arg_scope`` gives the function in TF too (the
    # package star-imports it over its submodule); the module stays importable by full path
    fops.variables = variables
    from tideflow.train import contrib_checkpoint_ops

    fops.checkpoint_ops = contrib_checkpoint_ops
    sys.modules[f"{base}.framework.python.ops.checkpoint_ops"] = contrib_checkpoint_ops

    # tensorflow.contrib.framework.python.framework.{tensor_util,checkpoint_utils}
    tu_names = ("assert_same_float_dtype", "assert_scalar", "assert_scalar_int",
                "convert_to_tensor_or_sparse_tensor", "is_tensor", "reduce_sum_n",
                "remove_squeezable_dimensions", "with_same_shape", "with_shape")
    tensor_util = _module(f"{base}.framework.python.framework.tensor_util",
                          "``tensorflow.contrib.framework.python.framework.tensor_util``.",
                          {n: getattr(framework, n) for n in tu_names if hasattr(framework, n)})
    ck_names = ("init_from_checkpoint", "list_variables", "load_checkpoint", "load_variable")
    checkpoint_utils = _module(
        f"{base}.framework.python.framework.checkpoint_utils",
        "``tensorflow.contrib.framework.python.framework.checkpoint_utils``.",
        {n: getattr(framework, n) for n in ck_names if hasattr(framework, n)})
    framework.python.framework = _module(
        f"{base}.framework.python.framework", "``tensorflow.contrib.framework.python.framework``.",
        {n: getattr(framework, n) for n in (*tu_names, *ck_names) if hasattr(framework, n)}
        | {"tensor_util": tensor_util, "checkpoint_utils": checkpoint_utils})
    sys.modules.setdefault(f"{base}.framework.python", framework.python)

    # tensorflow.contrib.crf.python.ops.crf (TF 1.x's CRF tests and NER programs import it)
    crf = contrib.crf
    crf_mod = _module(f"{base}.crf.python.ops.crf", "``tensorflow.contrib.crf.python.ops.crf``.",
                      {n: getattr(crf, n) for n in crf.__all__})
    crf_ops = _module(f"{base}.crf.python.ops", "``tensorflow.contrib.crf.python.ops``.",
                      {"crf": crf_mod})
    crf.python = _module(f"{base}.crf.python", "``tensorflow.contrib.crf.python``.",
                         {"ops": crf_ops})
    sys.modules.setdefault(f"{base}.crf", crf)

    # tf.contrib.metrics also held the set operations (set_ops re-exported tf.sets' functions)
    from tideflow import sets as _sets

    metrics = contrib.metrics
    set_names = ("set_difference", "set_intersection", "set_size", "set_union")
    for name in set_names:
        setattr(metrics, name, getattr(_sets, name))
    metrics.__all__ = sorted({*metrics.__all__, *set_names})
    set_ops = _module(f"{base}.metrics.python.ops.set_ops",
                      "``tensorflow.contrib.metrics.python.ops.set_ops``.",
                      {n: getattr(_sets, n) for n in set_names})
    metric_ops = _module(f"{base}.metrics.python.ops.metric_ops",
                         "``tensorflow.contrib.metrics.python.ops.metric_ops``.",
                         {n: getattr(metrics, n) for n in metrics.__all__
                          if n not in set_names and n != "auc_using_histogram"})
    histogram_ops = _module(f"{base}.metrics.python.ops.histogram_ops",
                            "``tensorflow.contrib.metrics.python.ops.histogram_ops``.",
                            {"auc_using_histogram": metrics.auc_using_histogram})
    confusion_matrix_ops = _module(
        f"{base}.metrics.python.ops.confusion_matrix_ops",
        "``tensorflow.contrib.metrics.python.ops.confusion_matrix_ops``.",
        {"confusion_matrix": metrics.confusion_matrix})
    mops = _module(f"{base}.metrics.python.ops", "``tensorflow.contrib.metrics.python.ops``.",
                   {"set_ops": set_ops, "metric_ops": metric_ops,
                    "histogram_ops": histogram_ops,
                    "confusion_matrix_ops": confusion_matrix_ops})
    metrics.python = _module(f"{base}.metrics.python",
                             "``tensorflow.contrib.metrics.python``.", {"ops": mops})
