"""``tf.nn`` wrappers: activations, softmax, cross-entropy losses, normalization, dropout,
moments and top-k, over the ops of ``nn_ops.py`` and ``normalization_ops.py``.

The cross-entropy wrappers also accept the 0.x positional order ``(logits, labels)``.
"""

import collections
import numbers

import numpy as np

from tideflow.framework import dtypes, errors, ops
from tideflow.framework.tensor_shape import TensorShape
from tideflow.ops import (
    array_ops,
    cast_ops,
    concat_ops,
    fill_ops,
    gather_ops,
    linalg_ops,
    math_ops,
    random_ops,
    range_ops,
    reduction_ops,
)
from tideflow.ops import nn_ops as _nn_ops  # noqa: F401 - declares the ops used below
from tideflow.ops import normalization_grad_grad as _bn_grad_grad  # noqa: F401 - registers
from tideflow.ops import normalization_ops as _normalization_ops  # noqa: F401 - declares ops


def _op(op_type, inputs, attrs=None, name=None):
    return list(ops.apply_op(op_type, inputs, attrs, name=name)._outputs)


# ------------------------------------------------------------------------------------------
# activations
# ------------------------------------------------------------------------------------------


def relu(features, name=None):
    """max(features, 0)."""
    return _op("Relu", [features], name=name)[0]


def relu6(features, name=None):
    """min(max(features, 0), 6)."""
    with ops.name_scope(name, "Relu6", [features]) as scope:
        features = ops.convert_to_tensor(features, name="features")
        return _op("Relu6", [features], name=scope)[0]


def elu(features, name=None):
    """exp(features) - 1 where features < 0, else features."""
    return _op("Elu", [features], name=name)[0]


def selu(features, name=None):
    """scale * elu with the self-normalizing constants (alpha, scale) of Klambauer et al."""
    return _op("Selu", [features], name=name)[0]


def softplus(features, name=None):
    """log(exp(features) + 1)."""
    return _op("Softplus", [features], name=name)[0]


def softsign(features, name=None):
    """features / (abs(features) + 1)."""
    return _op("Softsign", [features], name=name)[0]


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, alpha * features elsewhere."""
    with ops.name_scope(name, "LeakyRelu", [features, alpha]) as scope:
        features = ops.convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            features = cast_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()  # as TF 1.15 (Keras' layers hold float32 arrays)
        if isinstance(alpha, numbers.Real) and not isinstance(alpha, bool):
            return _op("LeakyRelu", [features], {"alpha": float(alpha)}, name=scope)[0]
        alpha = ops.convert_to_tensor(alpha, dtype=features.dtype, name="alpha")
        return math_ops.maximum(alpha * features, features, name=scope)


def crelu(features, name=None, axis=-1):
    """Concatenated ReLU: relu of [features, -features] along ``axis`` (twice the depth)."""
    with ops.name_scope(name, "CRelu", [features]) as scope:
        features = ops.convert_to_tensor(features, name="features")
        # TF's names: the concat is the scope's op ("CRelu"), the Relu inside it
        c = concat_ops.concat([features, -features], axis, name=scope)
        return relu(c)


def relu_layer(x, weights, biases, name=None):
    """relu(matmul(x, weights) + biases)."""
    with ops.name_scope(name, "relu_layer", [x, weights, biases]) as scope:
        return relu(bias_add(linalg_ops.matmul(x, weights), biases), name=scope)


def xw_plus_b(x, weights, biases, name=None):
    """matmul(x, weights) + biases."""
    with ops.name_scope(name, "xw_plus_b", [x, weights, biases]) as scope:
        mm = linalg_ops.matmul(x, weights)
        return bias_add(mm, biases, name=scope)


def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D ``bias`` along the channel axis of ``value`` (last, or 1 for NC...)."""
    with ops.name_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError("data_format must be of the form `N...C` or `NC...`")
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(bias, dtype=value.dtype, name="bias")
        attrs = {"data_format": data_format} if data_format else None
        return _op("BiasAdd", [value, bias], attrs, name=scope)[0]


def bias_add_v1(value, bias, name=None):
    """bias_add as the first release defined it (channel axis last)."""
    with ops.name_scope(name, "BiasAddV1", [value, bias]) as scope:
        value = ops.convert_to_tensor(value, name="input")
        bias = ops.convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return _op("BiasAddV1", [value, bias], name=scope)[0]


# ------------------------------------------------------------------------------------------
# softmax
# ------------------------------------------------------------------------------------------


def _tf_swap_axis(x, axis, last, name=None):
    """TF 1.15's softmax transpose: ``axis`` and ``last`` (a tensor) trade places."""
    perm = concat_ops.concat([range_ops.range(axis), [last], range_ops.range(axis + 1, last),
                              [axis]], 0)
    return array_ops.transpose(x, perm, name=name or "transpose")


def _move_to_end(x, axis, rank):
    """Transposes ``x`` so that ``axis`` becomes the last axis, the others keeping their order
    (TF's ``_move_dim_to_end``: a reduction over the last axis then leaves them in order)."""
    if isinstance(rank, int):
        return array_ops.transpose(x, [*range(axis), *range(axis + 1, rank), axis])
    perm = concat_ops.concat([range_ops.range(axis), range_ops.range(axis + 1, rank), [axis]],
                             0)
    return array_ops.transpose(x, perm)


def _softmax_fed_axis(logits, op_type, axis, name):
    """Softmax along an axis known only when the step runs, built as TF 1.15 builds it: the
    axis made non-negative by a Select, taken modulo the static rank, trades places with the
    last axis through Range-built permutations. So an axis out of range wraps around, and
    one that is (or wraps to) the last axis fails the step in the second Range ("Requires
    start <= limit when delta > 0: 3/2"), as in TF 1.15."""
    rank = logits.get_shape().ndims
    ndims = array_ops.rank(logits)
    axis = gather_ops.where(math_ops.less(axis, 0), axis + ndims, axis)
    input_rank = array_ops.rank(logits)
    dim_axis = axis % rank
    out = _op(op_type, [_tf_swap_axis(logits, dim_axis, math_ops.subtract(input_rank, 1))])[0]
    out = _tf_swap_axis(out, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    out.set_shape(logits.get_shape())
    return out


def _softmax(logits, op_type, axis, name):
    if axis is None:
        axis = -1
    logits = ops.convert_to_tensor(logits)
    rank = logits.get_shape().ndims
    if isinstance(axis, int) and axis == -1:
        # the last axis: the op itself (its shape function refuses a scalar, as TF's)
        return _op(op_type, [logits], name=name)[0]
    if rank is None and (isinstance(axis, ops.Tensor) or axis != -1):
        # TF 1.15 compares any other axis with the static rank less one
        raise TypeError("unsupported operand type(s) for -: 'NoneType' and 'int'")
    if isinstance(axis, ops.Tensor):
        # a fed axis is checked when the step runs (the transpose's permutation is invalid)
        value = ops.constant_value(axis)
        if value is None:
            return _softmax_fed_axis(logits, op_type, axis, name)
        axis = int(value)
    if rank is not None:
        if not -rank <= axis < rank:
            raise errors.InvalidArgumentError(
                None, None,
                f"Dimension ({axis}) must be in the range [{-rank}, {rank}) where {rank} is the "
                "number of dimensions in the input.",
            )
        if axis % rank == rank - 1:
            return _op(op_type, [logits], name=name)[0]
        # TF 1.15's ops: the axis swapped with the last by a transpose whose permutation is
        # built from Rank, Sub, Range and a concat, before and after the op
        ndims = array_ops.rank(logits)
        if axis < 0:
            axis = axis + ndims
        input_rank = array_ops.rank(logits)
        axis = axis % rank
        out = _op(op_type, [_tf_swap_axis(logits, axis, math_ops.subtract(input_rank, 1))])[0]
        out = _tf_swap_axis(out, axis, math_ops.subtract(input_rank, 1), name=name)
        out.set_shape(logits.get_shape())
        return out
    return _op(op_type, [logits], name=name)[0]  # an unknown rank's axis -1


def _axis_arg(axis, dim):
    if dim is not None:
        if axis is not None:
            raise ValueError("Cannot specify both 'dim' and 'axis'")
        return dim
    return axis


def softmax(logits, axis=None, name=None, dim=None):
    """exp(logits) / sum(exp(logits)) along ``axis`` (default: the last)."""
    return _softmax(logits, "Softmax", _axis_arg(axis, dim), name)


def log_softmax(logits, axis=None, name=None, dim=None):
    """logits - log(sum(exp(logits))) along ``axis`` (default: the last)."""
    return _softmax(logits, "LogSoftmax", _axis_arg(axis, dim), name)


def softmax_v2(logits, axis=None, name=None):
    """``tf.nn.softmax`` of TF 2 (``axis`` only)."""
    return _softmax(logits, "Softmax", axis, name)


def log_softmax_v2(logits, axis=None, name=None):
    """``tf.nn.log_softmax`` of TF 2 (``axis`` only)."""
    return _softmax(logits, "LogSoftmax", axis, name)


# ------------------------------------------------------------------------------------------
# cross-entropy losses
# ------------------------------------------------------------------------------------------


def _xent_args(fn_name, sentinel, labels, logits, name):
    """(labels, logits, name), reading 0.x's positional ``fn(logits, labels[, name])`` too."""
    if sentinel is not None:
        if logits is None or isinstance(logits, str):
            if isinstance(logits, str) and name is None:
                name = logits
            logits = sentinel
        else:
            raise ValueError(
                f"Only call `{fn_name}` with named arguments (labels=..., logits=..., ...)")
    if labels is None or logits is None:
        raise ValueError("Both labels and logits must be provided.")
    return labels, logits, name


def _widen(t):
    return cast_ops.cast(t, dtypes.float32) if t.dtype in (dtypes.float16,
                                                          dtypes.bfloat16) else t


def _flatten_outer(t):
    """``t`` as a matrix [prod(outer dims), last dim], with TF's ops (rank, a slice of the
    shape, a concat and a reshape) and the static shape TF sets."""
    from tideflow.ops import slicing_ops

    rank = array_ops.rank(t)
    last = slicing_ops.slice(array_ops.shape(t), [math_ops.subtract(rank, 1)], [1])
    out = array_ops.reshape(t, concat_ops.concat([[-1], last], 0))
    dims = t.get_shape().dims
    if dims is not None and dims and all(d.value is not None for d in dims[:-1]):
        out.set_shape([int(np.prod([d.value for d in dims[:-1]])), dims[-1]])
    return out


def softmax_cross_entropy_with_logits_v2(labels=None, logits=None, axis=None, name=None,
                                         dim=None, _sentinel=None):
    """Cross entropy between ``labels`` (a distribution per row) and softmax(``logits``);
    gradients flow into both.

    Built as TF 1.15 builds it (the same ops in the same order, so that the seeds of later
    random ops match): the class axis moved last, both inputs flattened to matrices, and the
    cost reshaped back to the outer dims."""
    from tideflow.ops import slicing_ops

    labels, logits, name = _xent_args("softmax_cross_entropy_with_logits_v2", _sentinel, labels,
                                      logits, name)
    axis = _axis_arg(axis, dim)
    axis = -1 if axis is None else axis
    with ops.name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        labels = ops.convert_to_tensor(labels, name="labels")
        orig_dtype = logits.dtype
        precise = _widen(logits)
        labels = cast_ops.cast(labels, precise.dtype)
        input_rank = array_ops.rank(precise)
        shape = logits.get_shape()
        if axis != -1:
            rank = shape.ndims
            a = axis % rank if rank is not None and axis < 0 else axis
            if a < 0:  # unknown rank: the axis counted from the end when the step runs
                a = math_ops.add(input_rank, a)
            precise = _move_to_end(precise, a, input_rank)
            labels = _move_to_end(labels, a, input_rank)
        input_shape = array_ops.shape(precise)
        precise = _flatten_outer(precise)
        labels = _flatten_outer(labels)
        cost = _op("SoftmaxCrossEntropyWithLogits", [precise, labels], name=scope)[0]
        out_shape = slicing_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, out_shape)
        if shape.ndims is not None:
            cost.set_shape([d for i, d in enumerate(shape.dims) if i != axis % shape.ndims])
        return cast_ops.cast(cost, orig_dtype) if cost.dtype != orig_dtype else cost


def softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, dim=-1,
                                      name=None, axis=None):
    """Cross entropy between ``labels`` and softmax(``logits``); no gradient flows into labels
    (also callable as 0.x's ``softmax_cross_entropy_with_logits(logits, labels)``)."""
    labels, logits, name = _xent_args("softmax_cross_entropy_with_logits", _sentinel, labels,
                                      logits, name)
    if axis is not None:
        dim = axis
    with ops.name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
        return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim,
                                                    name=scope)


def sparse_softmax_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None,
                                             name=None):
    """Cross entropy between integer class ``labels`` (shape logits.shape[:-1]) and
    softmax(``logits``) (also callable as 0.x's ``(logits, labels)``)."""
    labels, logits, name = _xent_args("sparse_softmax_cross_entropy_with_logits", _sentinel,
                                      labels, logits, name)
    with ops.name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = ops.convert_to_tensor(labels)
        logits = ops.convert_to_tensor(logits)
        precise = _widen(logits)
        ls, gs = labels.get_shape(), logits.get_shape()
        if gs.ndims == 0:
            raise ValueError(f"Logits cannot be scalars - received shape {gs}.")
        if ls.ndims is not None and gs.ndims is not None and ls.ndims != gs.ndims - 1:
            raise ValueError(
                f"Rank mismatch: Rank of labels (received {ls.ndims}) should equal rank of "
                f"logits minus 1 (received {gs.ndims}).")
        # as TF, a static mismatch is an error only when both shapes are fully known (a
        # partially known pair is left to the kernel, which checks the row counts at run time)
        if ls.is_fully_defined() and gs[:-1].is_fully_defined() and ls != gs[:-1]:
            raise ValueError(
                f"Shape mismatch: The shape of labels (received {ls}) should equal the shape of "
                f"logits except for the last dimension (received {gs}).")
        labels_shape = array_ops.shape(labels)  # TF takes it first, whatever the rank
        if gs.ndims == 2:
            # named as TF's: the user's name inside its scope (bar/bar:0), else the op type's
            cost = _op("SparseSoftmaxCrossEntropyWithLogits", [precise, labels], name=name)[0]
        else:
            # as TF 1.15: shapes not all known are checked when the step runs
            checks = []
            if not (ls.is_fully_defined() and gs[:-1].is_fully_defined()):
                from tideflow.ops import check_ops

                checks.append(check_ops.assert_equal(array_ops.shape(labels),
                                                     array_ops.shape(logits)[:-1]))
            with ops.control_dependencies(checks):
                num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
                precise = array_ops.reshape(precise, [-1, num_classes])
                cost = _op("SparseSoftmaxCrossEntropyWithLogits",
                           [precise, array_ops.reshape(labels, [-1])], name=name)[0]
                cost = array_ops.reshape(cost, labels_shape)
                cost.set_shape(ls)
        if cost.dtype != logits.dtype:
            return cast_ops.cast(cost, logits.dtype)  # TF's plain Cast (.../Cast_1)
        # as TF: the op's own output (SparseSoftmaxCrossEntropyWithLogits/<op>:0 for 2-D logits)
        return cost


def _same_shape(labels, logits, names=("logits", "labels")):
    """TF's check that two loss operands have compatible static shapes (``names``: how its
    message calls ``logits`` and ``labels``, in that order)."""
    try:
        labels.get_shape().merge_with(logits.get_shape())
    except ValueError:
        raise ValueError(
            f"{names[0]} and {names[1]} must have the same shape ({logits.get_shape()} vs "
            f"{labels.get_shape()})") from None


def sigmoid_cross_entropy_with_logits(_sentinel=None, labels=None, logits=None, name=None,
                                      targets=None):
    """Per-element logistic loss max(x, 0) - x * z + log(1 + exp(-|x|)), stable for any x
    (also callable as 0.x's ``(logits, targets)``)."""
    if targets is not None:  # 0.x's keyword for labels
        if labels is not None:
            raise ValueError("Cannot specify both 'labels' and 'targets'")
        labels = targets
    labels, logits, name = _xent_args("sigmoid_cross_entropy_with_logits", _sentinel, labels,
                                      logits, name)
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        # as TF 1.15: labels keep their own dtype (int labels fail at the Mul, a TypeError)
        labels = ops.convert_to_tensor(labels, name="labels")
        _same_shape(labels, logits)
        zeros = fill_ops.zeros_like(logits, dtype=logits.dtype)
        cond = math_ops.greater_equal(logits, zeros)
        relu_logits = gather_ops.where(cond, logits, zeros)
        neg_abs_logits = gather_ops.where(cond, -logits, logits)
        return math_ops.add(relu_logits - logits * labels,
                            math_ops.log1p(math_ops.exp(neg_abs_logits)), name=scope)


def weighted_cross_entropy_with_logits(labels=None, logits=None, pos_weight=None, name=None,
                                       targets=None):
    """Logistic loss with the positive term weighted by ``pos_weight``."""
    if targets is not None:
        if labels is not None:
            raise ValueError("Cannot specify both 'labels' and 'targets'")
        labels = targets
    with ops.name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = ops.convert_to_tensor(logits, name="logits")
        # as TF 1.15: labels keep their own dtype (int labels fail at the Mul, a TypeError)
        labels = ops.convert_to_tensor(labels, name="labels")
        _same_shape(labels, logits)
        log_weight = 1 + (pos_weight - 1) * labels
        linear = (1 - labels) * logits  # first, as TF 1.15 builds it
        softplus_neg = math_ops.log1p(math_ops.exp(-math_ops.abs(logits))) + relu(-logits)
        return math_ops.add(linear, log_weight * softplus_neg, name=scope)


def log_poisson_loss(targets, log_input, compute_full_loss=False, name=None):
    """exp(log_input) - log_input * targets, plus Stirling's term when ``compute_full_loss``."""
    from tideflow.ops import constant_op

    # TF 1.15's ops in its order (the loss is the last op built, not renamed)
    with ops.name_scope(name, "log_poisson_loss", [log_input, targets]):
        log_input = ops.convert_to_tensor(log_input, name="log_input")
        targets = ops.convert_to_tensor(targets, name="targets")
        _same_shape(targets, log_input, ("log_input", "targets"))
        result = math_ops.exp(log_input) - log_input * targets
        if compute_full_loss:
            point_five = constant_op.constant(0.5, dtype=targets.dtype)
            two_pi = constant_op.constant(2 * np.pi, dtype=targets.dtype)
            stirling = (targets * math_ops.log(targets)) - targets + (
                point_five * math_ops.log(two_pi * targets))
            zeros = fill_ops.zeros_like(targets, dtype=targets.dtype)
            ones = fill_ops.ones_like(targets, dtype=targets.dtype)
            # Stirling's approximation is only meant for targets > 1
            cond = math_ops.logical_and(targets >= zeros, targets <= ones)
            result += gather_ops.where(cond, zeros, stirling)
        return result


def l2_loss(t, name=None):
    """sum(t ** 2) / 2."""
    return _op("L2Loss", [t], name=name)[0]


# ------------------------------------------------------------------------------------------
# normalization
# ------------------------------------------------------------------------------------------


def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """x / sqrt(max(sum(x ** 2, axis), epsilon))."""
    axis = _axis_arg(axis, dim)
    with ops.name_scope(name, "l2_normalize", [x]) as scope:
        x = ops.convert_to_tensor(x, name="x")
        square_sum = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, inv_norm, name=scope)


def moments_v2(x, axes, shift=None, keepdims=False, name=None):
    """``tf.nn.moments`` of TF 2 (``keepdims``)."""
    return moments(x, axes, shift=shift, name=name, keep_dims=keepdims)


def l2_normalize_v2(x, axis=None, epsilon=1e-12, name=None):
    """``tf.math.l2_normalize`` of TF 2 (``axis`` only)."""
    return l2_normalize(x, axis, epsilon, name)


def local_response_normalization(input, depth_radius=5, bias=1, alpha=1, beta=0.5, name=None):
    """input / (bias + alpha * sum of squares over a depth window) ** beta."""
    return _op("LRN", [input], {"depth_radius": depth_radius, "bias": bias, "alpha": alpha,
                                "beta": beta}, name=name)[0]


lrn = local_response_normalization


def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """The mean and variance of ``x`` over ``axes``."""
    del shift  # unused, as in TF
    if keepdims is not None:
        if keep_dims is not None:
            raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
        keep_dims = keepdims
    keep_dims = bool(keep_dims)
    with ops.name_scope(name, "moments", [x, axes]):
        x = ops.convert_to_tensor(x, name="x")
        y = cast_ops.cast(x, dtypes.float32) if x.dtype == dtypes.float16 else x
        mean = reduction_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduction_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)), axes, keepdims=True,
            name="variance")
        if not keep_dims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if x.dtype == dtypes.float16:
            return cast_ops.cast(mean, x.dtype), cast_ops.cast(variance, x.dtype)
        return mean, variance


def sufficient_statistics(x, axes, shift=None, keep_dims=None, name=None, keepdims=None):
    """(count, sum of (x - shift), sum of (x - shift) ** 2, shift) over ``axes``
    (``keepdims`` is ``keep_dims``' later spelling)."""
    if keep_dims is not None and keepdims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'")
    keep_dims = bool(keepdims if keepdims is not None else keep_dims)
    axes = list(axes)
    with ops.name_scope(name, "sufficient_statistics", [x, shift]):
        x = ops.convert_to_tensor(x, name="x")
        shape = x.get_shape()
        if shape.ndims is not None and all(shape[a].value is not None for a in axes):
            count = 1
            for a in axes:
                count *= shape[a].value
            counts = ops.convert_to_tensor(count, dtype=x.dtype)  # a Const, as TF's
        else:
            dims = gather_ops.gather(cast_ops.cast(array_ops.shape(x), x.dtype), axes)
            counts = reduction_ops.reduce_prod(dims, name="count")
        if shift is not None:
            shift = ops.convert_to_tensor(shift, name="shift")
            m_ss = math_ops.subtract(x, shift)
            v_ss = math_ops.squared_difference(x, shift)
        else:
            m_ss, v_ss = x, math_ops.square(x)
        m_ss = reduction_ops.reduce_sum(m_ss, axes, keepdims=keep_dims, name="mean_ss")
        v_ss = reduction_ops.reduce_sum(v_ss, axes, keepdims=keep_dims, name="var_ss")
    return counts, m_ss, v_ss, shift


def normalize_moments(counts, mean_ss, variance_ss, shift, name=None):
    """The mean and variance from sufficient statistics."""
    with ops.name_scope(name, "normalize", [counts, mean_ss, variance_ss, shift]):
        divisor = math_ops.reciprocal(counts, name="divisor")
        if shift is not None:
            shifted_mean = math_ops.multiply(mean_ss, divisor, name="shifted_mean")
            mean = math_ops.add(shifted_mean, shift, name="mean")
        else:  # the product is the mean itself, as TF names it
            shifted_mean = mean = math_ops.multiply(mean_ss, divisor, name="mean")
        variance = math_ops.subtract(math_ops.multiply(variance_ss, divisor),
                                     math_ops.square(shifted_mean), name="variance")
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset (offset, scale may be None)."""
    with ops.name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv = inv * scale
        x = ops.convert_to_tensor(x)
        scaled = x * cast_ops.cast(inv, x.dtype)  # before the shift, as TF (its op names)
        shift = offset - mean * inv if offset is not None else -mean * inv
        return scaled + cast_ops.cast(shift, x.dtype)


def fused_batch_norm(x, scale, offset, mean=None, variance=None, epsilon=0.001,
                     data_format="NHWC", is_training=True, name=None):
    """Batch normalization of a 4-D ``x`` in one op; returns (y, batch_mean, batch_variance)
    where batch_variance is the unbiased estimate when training."""
    # no name scope of its own, as TF 1.15: the op is FusedBatchNormV3 (or ``name``) in the
    # current scope (``batch_normalization/FusedBatchNormV3`` in a layer)
    x = ops.convert_to_tensor(x, name="input")
    scale = ops.convert_to_tensor(scale, name="scale")
    offset = ops.convert_to_tensor(offset, name="offset")
    if not is_training and (mean is None or variance is None):
        raise ValueError("Both 'mean' and 'variance' must be a 1D tensor when "
                         "is_training is False.")
    # TF's ``constant([])`` placeholders for the unused statistics: Consts named in the
    # caller's scope (``Const``, ``Const_1``)
    if mean is None:
        mean = ops.convert_to_tensor(np.zeros([0], np.float32))
    if variance is None:
        variance = ops.convert_to_tensor(np.zeros([0], np.float32))
    # the smallest epsilon cuDNN accepts; TF applies the same floor on every device
    epsilon = max(float(epsilon), 1.001e-5)
    y, batch_mean, batch_var = _op(
        "FusedBatchNormV3", [x, scale, offset, mean, variance],
        {"epsilon": epsilon, "data_format": data_format, "is_training": is_training},
        name=name)[:3]
    return y, batch_mean, batch_var


# ------------------------------------------------------------------------------------------
# dropout
# ------------------------------------------------------------------------------------------


def _noise_shape(x, noise_shape):
    if noise_shape is None:
        return array_ops.shape(x)
    if isinstance(noise_shape, (list, tuple)) and any(d is None for d in noise_shape):
        xs = x.get_shape()
        if xs.ndims == len(noise_shape):
            filled = [xs[i].value if d is None else d for i, d in enumerate(noise_shape)]
            if all(d is not None for d in filled):
                return filled
            return array_ops.stack([array_ops.shape(x)[i] if d is None else d
                                    for i, d in enumerate(filled)])
    if isinstance(noise_shape, TensorShape):
        return noise_shape.as_list()
    return noise_shape


def dropout(x, keep_prob=None, noise_shape=None, seed=None, name=None, rate=None):
    """Zeroes each element with probability ``rate`` (= 1 - ``keep_prob``) and scales the kept
    ones by 1 / (1 - rate); ``noise_shape`` shares the decisions along broadcast dimensions.

    Builds TF 1.15's graph: inside the ``dropout`` scope ``rate``, ``random_uniform``,
    ``sub`` (keep_prob), ``truediv`` (scale), ``GreaterEqual`` (kept where U >= rate),
    ``mul`` (x * scale), ``Cast`` and ``mul_1``, the output."""
    if keep_prob is not None:
        if rate is not None:
            raise ValueError("Cannot specify both 'keep_prob' and 'rate'")
        try:
            rate = 1. - keep_prob  # a tensor keep_prob gives a "sub" op outside the scope
        except TypeError:
            raise ValueError("keep_prob must be a floating point number or Tensor "
                             f"(got {keep_prob!r})") from None
    if rate is None:
        raise ValueError("You must provide a rate to dropout.")
    return dropout_v2(x, rate, noise_shape=noise_shape, seed=seed, name=name)


def dropout_v2(x, rate, noise_shape=None, seed=None, name=None):
    """``tf.nn.dropout`` of TF 2 (``rate`` only); see :func:`dropout`."""
    with ops.name_scope(name, "dropout", [x]):
        x = ops.convert_to_tensor(x, name="x")
        if not x.dtype.is_floating:
            raise ValueError("x has to be a floating point tensor since it's going to be "
                             f"scaled. Got a {x.dtype} tensor instead.")
        if isinstance(rate, numbers.Real):
            if not 0 <= rate < 1:
                raise ValueError("rate must be a scalar tensor or a float in the range [0, 1), "
                                 f"got {rate:g}")
            if rate == 0:
                return x
        rate = ops.convert_to_tensor(rate, dtype=x.dtype, name="rate")
        rate.get_shape().assert_has_rank(0)
        if ops.constant_value(rate) == 0:
            return x
        shape = _noise_shape(x, noise_shape)
        random_tensor = random_ops.random_uniform(shape, seed=seed, dtype=x.dtype)
        keep_prob = 1 - rate
        scale = 1 / keep_prob
        # kept where U >= rate: with probability 1 - rate, U being uniform on [0, 1)
        keep_mask = random_tensor >= rate
        ret = x * scale * cast_ops.cast(keep_mask, x.dtype)
        ret.set_shape(x.get_shape())
        return ret


# ------------------------------------------------------------------------------------------
# top k, zero fraction
# ------------------------------------------------------------------------------------------


def top_k(input, k=1, sorted=True, name=None):
    """The ``k`` largest entries of the last axis and their indices (ties: lower index first)."""
    values, indices = _op("TopKV2", [input, k], {"sorted": sorted}, name=name)
    return TopKOutput(values, indices)


# as TF's generated wrapper: a namedtuple, so ``top_k(x).values`` works
TopKOutput = collections.namedtuple("TopKV2", ["values", "indices"])


def in_top_k(predictions, targets, k, name=None):
    """Whether each target's prediction is among the ``k`` largest of its row."""
    # as TF: in_top_k/InTopKV2 (or name/name), its inputs converted inside the op
    # (InTopKV2/targets, InTopKV2/k), k taking the targets' type
    with ops.name_scope(name, "in_top_k"):
        return _op("InTopKV2", [predictions, targets, k], name=name)[0]


def zero_fraction(value, name=None):
    """The fraction of zeros in ``value`` (a float32 scalar)."""
    with ops.name_scope(name, "zero_fraction", [value]):
        value = ops.convert_to_tensor(value, name="value")
        size = array_ops.size(value, out_type=dtypes.int64)
        g = ops.get_default_graph()
        math_ops.less_equal(size, np.int64(np.iinfo(np.int32).max))
        # TF 1.15 counts the non-zeros in a Switch/Merge cond on that test (an int32 count
        # below 2**31 elements, else int64: 18 ops); one int64 count gives the same number,
        # and the ids of the cond's other ops are skipped so later ops number as in TF
        first = g._next_id
        with ops.name_scope("cond"), ops.name_scope("count_nonzero"):
            zero = b"" if value.dtype.base_dtype == dtypes.string else (
                value.dtype.as_numpy_dtype(0))  # (TF's zeros([]) of a string is "")
            zeros = ops.convert_to_tensor(zero, name="zeros")
            nonzero = cast_ops.cast(math_ops.not_equal(value, zeros), dtypes.int64)
            num_nonzero = reduction_ops.reduce_sum(nonzero, name="nonzero_count")
        g._skip_op_ids(to=first + 18)
        with ops.name_scope("counts_to_fraction"):
            num_zero = size - num_nonzero
            fraction = (cast_ops.cast(num_zero, dtypes.float32)
                        / cast_ops.cast(size, dtypes.float32))
        return array_ops.identity(fraction, name="fraction")  # zero_fraction/fraction, as TF

