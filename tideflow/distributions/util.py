"""Helpers of TF 1.x's ``tensorflow.python.ops.distributions.util`` (``distribution_util``)
that programs and distributions use: argument checks embedded in the graph (integer form,
categorical event sizes, closed integer casts), ``get_logits_and_probs``,
``log_combinations``, ``same_dynamic_shape``, the ``prefer_static_*`` and
``maybe_get_static_value`` look-ups, ``rotate_transpose``, ``pick_vector``,
``fill_triangular`` (and its inverse), ``reduce_weighted_logsumexp`` and
``softplus_inverse``."""

import hashlib
import inspect

import numpy as np

import tideflow as tf
from tideflow.framework import ops
from tideflow.ops.control_flow_ops import with_dependencies

__all__ = [
    "assert_integer_form",
    "embed_check_categorical_event_shape",
    "embed_check_integer_casting_closed",
    "embed_check_nonnegative_integer_form",
    "fill_triangular",
    "fill_triangular_inverse",
    "gen_new_seed",
    "get_logits_and_probs",
    "log_combinations",
    "maybe_get_static_value",
    "parent_frame_arguments",
    "pick_vector",
    "prefer_static_rank",
    "prefer_static_shape",
    "prefer_static_value",
    "reduce_weighted_logsumexp",
    "rotate_transpose",
    "same_dynamic_shape",
    "softplus_inverse",
]

_INT_FOR_FLOAT = {"float16": tf.int16, "float32": tf.int32, "float64": tf.int64}


def _largest_integer(dtype):
    """The largest integer a dtype holds exactly (0 for dtypes it cannot tell)."""
    dtype = tf.as_dtype(dtype).base_dtype
    if dtype.is_floating:
        return int(2 ** (np.finfo(dtype.as_numpy_dtype).nmant + 1))
    if dtype.is_integer:
        return int(np.iinfo(dtype.as_numpy_dtype).max)
    if dtype == tf.bool:
        return 1
    raise TypeError(f"Unrecognized dtype: {dtype.name}")


def _smallest_integer(dtype):
    dtype = tf.as_dtype(dtype).base_dtype
    if dtype.is_floating:
        return -_largest_integer(dtype)
    if dtype.is_integer:
        return int(np.iinfo(dtype.as_numpy_dtype).min)
    if dtype == tf.bool:
        return 0
    raise TypeError(f"Unrecognized dtype: {dtype.name}")


def _is_known_signed(dtype):
    return dtype.is_floating or (dtype.is_integer and np.iinfo(dtype.as_numpy_dtype).min < 0)


def assert_integer_form(x, data=None, summarize=None, message=None, int_dtype=None,
                        name="assert_integer_form"):
    """An op asserting every element of ``x`` is a whole number (round-trips through
    ``int_dtype``, by default the integer type of ``x``'s width)."""
    with tf.name_scope(name, values=[x, data]):
        x = tf.convert_to_tensor(x, name="x")
        if x.dtype.is_integer:
            return tf.no_op()
        message = message or f"{x} has non-integer components"
        if int_dtype is None:
            int_dtype = _INT_FOR_FLOAT.get(x.dtype.base_dtype.name)
            if int_dtype is None:
                raise TypeError(f"Unrecognized type {x.dtype.name}")
        back = tf.cast(tf.cast(x, int_dtype), x.dtype)
        return tf.assert_equal(x, back, data=data, summarize=summarize, message=message,
                               name=name)


def embed_check_nonnegative_integer_form(x, name="embed_check_nonnegative_integer_form"):
    """``x`` guarded to be non-negative and whole."""
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        checks = [tf.assert_non_negative(x, message=f"'{x}' must be non-negative.")]
        if not x.dtype.is_integer:
            checks.append(assert_integer_form(
                x, message=f"'{x}' cannot contain fractional components."))
        return with_dependencies(checks, x)


def embed_check_categorical_event_shape(categorical_param,
                                        name="embed_check_categorical_event_shape"):
    """``categorical_param`` guarded to have between 2 and the dtype's largest exact
    integer classes along its last axis (statically when the size is known)."""
    with tf.name_scope(name, values=[categorical_param]):
        x = tf.convert_to_tensor(categorical_param, name="categorical_param")
        dtype = x.dtype.base_dtype
        # as TF 1.x: only float parameters (logits, probs, concentrations) are checked
        most = _largest_integer(dtype) if dtype.is_floating else 0
        if most == 0:
            raise TypeError(f"Unable to validate size of unrecognized dtype ({dtype.name}).")
        shape = x.get_shape()
        if shape.ndims is not None and shape.ndims < 1:
            raise ValueError("A categorical-distribution parameter must have at least 1 "
                             "dimension.")
        size = shape[-1].value if shape.ndims is not None else None
        if size is not None:
            if size < 2:
                raise ValueError("A categorical-distribution parameter must have at least 2 "
                                 "events.")
            if size > most:
                raise ValueError(f"Number of classes exceeds `dtype` precision, i.e., "
                                 f"{dtype.name} implies shape ({size}) cannot exceed {most}.")
            return x
        n = tf.shape(x, name="x_shape")[-1]
        checks = [tf.assert_rank_at_least(x, 1, message="A categorical-distribution parameter "
                                          "must have at least 1 dimension."),
                  tf.assert_greater_equal(tf.shape(x)[-1], 2,
                                          message="A categorical-distribution parameter must "
                                          "have at least 2 events."),
                  tf.assert_less_equal(n, most,
                                       message=f"Number of classes exceeds `dtype` precision, "
                                       f"i.e., {dtype.name} dtype cannot exceed {most} shape.")]
        return with_dependencies(checks, x)


def embed_check_integer_casting_closed(x, target_dtype, assert_nonnegative=True,
                                       name="embed_check_casting_closed"):
    """``x`` guarded so that casting it to ``target_dtype`` loses nothing."""
    with tf.name_scope(name, values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        target_dtype = tf.as_dtype(target_dtype).base_dtype
        if not (target_dtype.is_integer or target_dtype == tf.bool):
            raise TypeError(f"target_dtype ({target_dtype.name}) must be integer or bool.")
        dtype = x.dtype.base_dtype
        if not (dtype.is_integer or dtype.is_floating or dtype == tf.bool):
            raise TypeError(f"x.dtype ({dtype.name}) must be integer, float or bool.")
        checks = []
        if assert_nonnegative:
            checks.append(tf.assert_non_negative(x, message="Elements must be non-negative."))
        if dtype.is_floating:
            checks.append(assert_integer_form(
                x, int_dtype=target_dtype,
                message=f"Elements must be {target_dtype.name}-equivalent."))
        elif _largest_integer(dtype) > _largest_integer(target_dtype):
            top = _largest_integer(target_dtype)
            checks.append(tf.assert_less_equal(x, tf.constant(top, dtype),
                                               message=f"Elements cannot exceed {top}."))
        if (not assert_nonnegative and _is_known_signed(dtype)
                and _smallest_integer(dtype) < _smallest_integer(target_dtype)):
            low = _smallest_integer(target_dtype)
            checks.append(tf.assert_greater_equal(
                x, tf.constant(low, dtype), message=f"Elements cannot be smaller than {low}."))
        if not checks:
            return x
        return with_dependencies(checks, x)


def get_logits_and_probs(logits=None, probs=None, multidimensional=False,
                         validate_args=False, name="get_logits_and_probs", dtype=None):
    """``(logits, probs)`` from one of them (sigmoid/softmax, or log-odds/log), with TF's
    checks when ``validate_args``."""
    with tf.name_scope(name, values=[probs, logits]):
        if (probs is None) == (logits is None):
            raise ValueError("Must pass probs or logits, but not both.")
        if probs is None:
            logits = tf.convert_to_tensor(logits, name="logits", dtype=dtype)
            if not logits.dtype.is_floating:
                raise TypeError("logits must having floating type.")
            if multidimensional:
                if validate_args:
                    logits = embed_check_categorical_event_shape(logits)
                return logits, tf.nn.softmax(logits, name="probs")
            return logits, tf.sigmoid(logits, name="probs")
        probs = tf.convert_to_tensor(probs, name="probs", dtype=dtype)
        if not probs.dtype.is_floating:
            raise TypeError("probs must having floating type.")
        if validate_args:
            with tf.name_scope("validate_probs"):
                one = tf.constant(1.0, probs.dtype)
                checks = [tf.assert_non_negative(probs)]
                if multidimensional:
                    probs = embed_check_categorical_event_shape(probs)
                    checks.append(tf.assert_near(tf.reduce_sum(probs, -1), one,
                                                 message="probs does not sum to 1."))
                else:
                    checks.append(tf.assert_less_equal(
                        probs, one, message="probs has components greater than 1."))
                probs = with_dependencies(checks, probs)
        with tf.name_scope("logits"):
            if multidimensional:
                return tf.log(probs), probs
            return tf.log(probs) - tf.log1p(-1.0 * probs), probs


def log_combinations(n, counts, name="log_combinations"):
    """``log(n! / prod(counts!))`` over the last axis of ``counts``."""
    with tf.name_scope(name, values=[n, counts]):
        n = tf.convert_to_tensor(n, name="n")
        counts = tf.convert_to_tensor(counts, name="counts", dtype=n.dtype)
        return tf.lgamma(n + 1.0) - tf.reduce_sum(tf.lgamma(counts + 1.0), -1)


def same_dynamic_shape(a, b):
    """A bool scalar: whether ``a`` and ``b`` have the same shape at run time."""
    a = tf.convert_to_tensor(a, name="a")
    b = tf.convert_to_tensor(b, name="b")

    def same():
        return tf.reduce_all(tf.equal(tf.concat([tf.shape(a), tf.shape(b)], 0),
                                      tf.concat([tf.shape(b), tf.shape(a)], 0)))

    return tf.cond(tf.equal(tf.rank(a), tf.rank(b)), same, lambda: tf.constant(False))


def maybe_get_static_value(x, dtype=None):
    """``x``'s value when known while building the graph (as ``dtype`` if given), else
    None."""
    if x is None:
        return x
    try:
        value = ops.constant_value(x) if isinstance(x, tf.Tensor) else x
    except TypeError:
        value = x
    if value is None or dtype is None:
        return value
    return np.array(value, dtype)


def softplus_inverse(x, name=None):
    """The inverse of softplus, ``log(exp(x) - 1)``, computed stably for tiny and large
    ``x``."""
    with tf.name_scope(name, "softplus_inverse", values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        threshold = np.log(np.finfo(x.dtype.as_numpy_dtype).eps) + 2.0
        small = tf.less(x, np.exp(threshold))
        large = tf.greater(x, -threshold)
        too_small_value = tf.log(x)
        safe = tf.where_v2(tf.logical_or(small, large), tf.ones_like(x), x)
        y = safe + tf.log(-tf.expm1(-safe))
        return tf.where_v2(small, too_small_value, tf.where_v2(large, x, y))


def gen_new_seed(seed, salt):
    """A new seed derived from ``seed`` and the string ``salt`` (None stays None)."""
    if seed is None:
        return None
    digest = hashlib.md5((str(seed) + salt).encode("utf-8")).hexdigest()
    return int(digest[:8], 16) & 0x7FFFFFFF


def pad_mixture_dimensions(x, mixture, categorical, event_ndims):
    """``x`` (``[..., k]``, one entry per component) reshaped to broadcast against the
    components' draws of a mixture: ones for the batch dimensions ``categorical`` lacks, then
    ``k``, then ``event_ndims`` ones (TF 1.15's ops, under ``pad_mix_dims``)."""
    with tf.name_scope("pad_mix_dims", values=[x]):
        def ndims(d):
            if d.batch_shape.ndims is not None:
                return d.batch_shape.ndims
            return tf.shape(d.batch_shape_tensor())[0]
        dist_ndims, cat_ndims = ndims(mixture), ndims(categorical)
        pad = tf.where_v2(categorical.is_scalar_batch(), dist_ndims, dist_ndims - cat_ndims)
        s = tf.shape(x)
        return tf.reshape(x, shape=tf.concat(
            [s[:-1], tf.ones([pad], dtype=tf.int32), s[-1:],
             tf.ones([event_ndims], dtype=tf.int32)], axis=0))


def pad(x, axis, front=False, back=False, value=0, count=1, name=None):
    """``x`` padded along ``axis`` with ``count`` entries of ``value`` at its front and/or back
    (TF 1.15's ``distribution_util.pad``: a Pad of one-hot paddings)."""
    with tf.name_scope(name, "pad", [x, value, count]):
        x = tf.convert_to_tensor(x, name="x")
        value = tf.convert_to_tensor(value, dtype=x.dtype, name="value")
        count = tf.convert_to_tensor(count, name="count")
        if not count.dtype.is_integer:
            raise TypeError(f"`count.dtype` (`{count.dtype.name}`) must be `int`-like.")
        if not front and not back:
            raise ValueError("At least one of `front`, `back` must be `True`.")
        ndims = x.get_shape().ndims if x.get_shape().ndims is not None else tf.rank(
            x, name="ndims")
        axis = tf.convert_to_tensor(axis, name="axis")
        axis_ = ops.constant_value(axis)
        final_shape = None
        if axis_ is not None:
            axis = int(axis_)
            if axis < 0:
                axis = ndims + axis
            count_ = ops.constant_value(count)
            if axis_ >= 0 or x.get_shape().ndims is not None:
                head = x.get_shape()[:axis]
                dim = x.get_shape()[axis].value
                middle = tf.TensorShape(
                    [None if count_ is None or dim is None
                     else dim + int(count_) * (front + back)])
                final_shape = head.concatenate(middle.concatenate(x.get_shape()[axis + 1:]))
        else:
            axis = tf.where_v2(axis < 0, ndims + axis, axis)
        x = tf.pad(x, paddings=tf.one_hot(indices=tf.stack([axis if front else -1,
                                                            axis if back else -1]),
                                          depth=ndims, axis=0, on_value=count,
                                          dtype=tf.int32),
                   constant_values=value)
        if final_shape is not None:
            x.set_shape(final_shape)
        return x


def prefer_static_value(x):
    """``x``'s value as a NumPy array when known while building the graph, else ``x``."""
    static = ops.constant_value(x) if isinstance(x, tf.Tensor) else None
    return np.asarray(static) if static is not None else x


def prefer_static_rank(x):
    """``x``'s rank, statically when known (TF 1.15 makes its Rank op either way)."""
    return prefer_static_value(tf.rank(x))


def prefer_static_shape(x):
    """``x``'s shape, statically when fully known (TF 1.15 makes its Shape op either way)."""
    return prefer_static_value(tf.shape(x))


def rotate_transpose(x, shift, name="rotate_transpose"):
    """``x`` with its dimensions rolled right by ``shift`` (as ``np.roll`` of the axes)."""
    with tf.name_scope(name, values=[x, shift]):
        x = tf.convert_to_tensor(x, name="x")
        shift_static = maybe_get_static_value(shift) if not isinstance(shift, int) else shift
        ndims = x.get_shape().ndims
        if ndims is not None and shift_static is not None:
            if ndims < 2:
                return x
            perm = np.roll(np.arange(ndims), int(shift_static))
            return tf.transpose(x, perm)
        shift = tf.convert_to_tensor(shift, dtype=tf.int32, name="shift")
        rank = tf.rank(x)
        perm = tf.floormod(tf.range(rank) - shift, rank)
        return tf.transpose(x, perm)


def pick_vector(cond, true_vector, false_vector, name="pick_vector"):
    """``true_vector`` if ``cond`` else ``false_vector`` (chosen while building the graph
    when ``cond`` is known)."""
    with tf.name_scope(name, values=[cond, true_vector, false_vector]):
        cond = tf.convert_to_tensor(cond, name="cond")
        if cond.dtype != tf.bool:
            raise TypeError(f"{cond} has dtype {cond.dtype}; expected bool")
        static = ops.constant_value(cond)
        if static is not None:
            return true_vector if static else false_vector
        true_vector = tf.convert_to_tensor(true_vector, name="true_vector")
        false_vector = tf.convert_to_tensor(false_vector, name="false_vector")
        if true_vector.dtype != false_vector.dtype:
            raise TypeError(f"{true_vector} (dtype {true_vector.dtype}) and {false_vector} "
                            f"(dtype {false_vector.dtype}) do not have the same dtype")
        # as TF 1.x: a slice of both vectors, no cond
        n = tf.shape(true_vector)[0]
        both = tf.concat([true_vector, false_vector], 0)
        return tf.slice(both, [tf.where_v2(cond, 0, n)], [tf.where(cond, n, -1)])


def _tri_size(m):
    n = np.sqrt(0.25 + 2.0 * m) - 0.5
    if n != np.floor(n):
        raise ValueError(f"Input right-most shape ({m}) does not correspond to a triangular "
                         f"matrix.")
    return int(n)


def fill_triangular(x, upper=False, name=None):
    """The ``n(n+1)/2`` last-axis entries of ``x`` laid into an ``n x n`` lower (or upper)
    triangular matrix, in TF 1.x's order (the last row holds the first entries, reversed)."""
    with tf.name_scope(name, "fill_triangular", values=[x]):
        # TF 1.15's ops
        x = tf.convert_to_tensor(x, name="x")
        m_static = x.get_shape().with_rank_at_least(1)[-1].value
        if m_static is not None:
            m = np.int32(m_static)
            n = np.sqrt(0.25 + 2.0 * m) - 0.5
            if n != np.floor(n):
                raise ValueError(f"Input right-most shape ({m}) does not correspond to a "
                                 f"triangular matrix.")
            n = np.int32(n)
            static_final_shape = x.get_shape()[:-1].concatenate([n, n])
        else:
            m = tf.shape(x)[-1]
            n = tf.cast(tf.sqrt(0.25 + tf.cast(2 * m, dtype=tf.float32)), dtype=tf.int32)
            static_final_shape = x.get_shape().with_rank_at_least(1)[:-1].concatenate(
                [None, None])
        ndims = prefer_static_rank(x)
        if upper:
            parts = [x, tf.reverse(x[..., n:], axis=[ndims - 1])]
        else:
            parts = [x[..., n:], tf.reverse(x, axis=[ndims - 1])]
        new_shape = (static_final_shape.as_list() if static_final_shape.is_fully_defined()
                     else tf.concat([tf.shape(x)[:-1], [n, n]], axis=0))
        y = tf.reshape(tf.concat(parts, axis=-1), new_shape)
        y = tf.matrix_band_part(y, num_lower=(0 if upper else -1),
                                num_upper=(-1 if upper else 0))
        y.set_shape(static_final_shape)
        return y


def fill_triangular_inverse(x, upper=False, name=None):
    """The inverse of ``fill_triangular``: a triangular matrix back to its vector (TF 1.15's
    ops)."""
    with tf.name_scope(name, "fill_triangular_inverse", values=[x]):
        x = tf.convert_to_tensor(x, name="x")
        n_static = x.get_shape().with_rank_at_least(2)[-1].value
        if n_static is not None:
            n = np.int32(n_static)
            m = np.int32((n * (n + 1)) // 2)
            static_final_shape = x.get_shape()[:-2].concatenate([m])
        else:
            n = tf.shape(x)[-1]
            m = (n * (n + 1)) // 2
            static_final_shape = x.get_shape().with_rank_at_least(2)[:-2].concatenate([None])
        ndims = prefer_static_rank(x)
        if upper:
            first = x[..., 0, :]
            rest = x[..., 1:, :]
        else:
            first = tf.reverse(x[..., -1, :], axis=[ndims - 2])
            rest = x[..., :-1, :]
        rotated = tf.reverse(tf.reverse(rest, axis=[ndims - 1]), axis=[ndims - 2])
        flat = tf.reshape(rest + rotated, tf.concat([tf.shape(x)[:-2], [n * (n - 1)]], axis=0))
        y = tf.concat([first, flat[..., :m - n]], axis=-1)
        y.set_shape(static_final_shape)
        return y


def reduce_weighted_logsumexp(logx, w=None, axis=None, keep_dims=False, return_sign=False,
                              name=None):
    """``log(|sum(w * exp(logx))|)`` over ``axis`` computed stably (and its sign with
    ``return_sign``)."""
    with tf.name_scope(name, "reduce_weighted_logsumexp", values=[logx, w]):
        logx = tf.convert_to_tensor(logx, name="logx")
        if w is None:
            lswe = tf.reduce_logsumexp(logx, axis=axis, keepdims=keep_dims)
            if return_sign:
                return lswe, tf.ones_like(lswe)
            return lswe
        w = tf.convert_to_tensor(w, dtype=logx.dtype, name="w")
        log_absw_x = logx + tf.log(tf.abs(w))
        top = tf.reduce_max(log_absw_x, axis=axis, keepdims=True)
        top = tf.where(tf.is_inf(top), tf.zeros_like(top), top)
        scaled = tf.sign(w) * tf.exp(log_absw_x - top)
        total = tf.reduce_sum(scaled, axis=axis, keepdims=keep_dims)
        if not keep_dims:
            top = tf.squeeze(top, axis) if axis is not None else tf.reshape(top, [])
        sgn = tf.sign(total)
        lswe = top + tf.log(sgn * total)
        if return_sign:
            return lswe, sgn
        return lswe


def parent_frame_arguments():
    """The arguments of the calling function as a dict: its named parameters (with their
    current values) and the contents of its ``**kwargs``; ``*args`` are left out."""
    frame = inspect.currentframe().f_back
    try:
        info = inspect.getargvalues(frame)
        out = {name: info.locals[name] for name in info.args}
        if info.keywords:
            out.update(info.locals[info.keywords])
        return out
    finally:
        del frame
