"""``tf.compat.v2``: the TF 2 spelling of the API as TF 1.15 exports it, run in graph mode:
tideflow's namespaces, with the functions whose TF 2 signature or behaviour differs (reductions'
``keepdims=False``, ``where`` that broadcasts, ``while_loop`` that keeps its loop structure,
``softmax_cross_entropy_with_logits`` v2, ...) in their TF 2 form."""

import sys
import types

import tideflow as _tf
from tideflow.framework import dtypes as _dtypes


# -- array functions ------------------------------------------------------------------------
def concat(values, axis, name="concat"):
    """Concatenates tensors along one dimension."""
    return _tf.concat(values, axis, name=name)


def expand_dims(input, axis, name=None):
    """Inserts a dimension of length 1 at ``axis``."""
    return _tf.expand_dims(input, axis, name=name)


def squeeze(input, axis=None, name=None):
    """Removes dimensions of size 1."""
    return _tf.squeeze(input, axis, name=name)


def ones_like(input, dtype=None, name=None):
    """A tensor of ones with ``input``'s shape."""
    return _tf.ones_like(input, dtype=dtype, name=name)


def zeros_like(input, dtype=None, name=None):
    """A tensor of zeros with ``input``'s shape."""
    return _tf.zeros_like(input, dtype=dtype, name=name)


def shape(input, out_type=_dtypes.int32, name=None):
    """The shape of ``input`` as a 1-D tensor."""
    return _tf.shape(input, name=name, out_type=out_type)


def size(input, out_type=_dtypes.int32, name=None):
    """The number of elements of ``input``."""
    return _tf.size(input, name=name, out_type=out_type)


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pads a tensor."""
    return _tf.pad(tensor, paddings, mode=mode, name=name, constant_values=constant_values)


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Gathers slices of ``params`` along ``axis``."""
    return _tf.gather(params, indices, validate_indices=validate_indices, name=name, axis=axis,
                      batch_dims=batch_dims)


def gather_nd(params, indices, batch_dims=0, name=None):
    """Gathers slices of ``params`` by multi-dimensional indices."""
    return _tf.gather_nd(params, indices, name=name, batch_dims=batch_dims)


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """Keeps the entries of ``tensor`` where ``mask`` is true."""
    return _tf.boolean_mask(tensor, mask, name=name, axis=axis)


def reverse_sequence(input, seq_lengths, seq_axis=None, batch_axis=None, name=None):
    """Reverses variable-length slices."""
    return _tf.reverse_sequence(input, seq_lengths, seq_axis=seq_axis, batch_axis=batch_axis,
                                name=name)


def constant(value, dtype=None, shape=None, name="Const"):
    """A constant tensor."""
    return _tf.constant(value, dtype=dtype, shape=shape, name=name)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Converts ``value`` to a tensor (``dtype_hint`` is used only if ``value`` has no dtype)."""
    return _tf.convert_to_tensor(value, dtype=dtype, name=name, dtype_hint=dtype_hint)


def where(condition, x=None, y=None, name=None):
    """Elements of ``x`` or ``y`` chosen by ``condition``, all three broadcast together."""
    return _tf.where_v2(condition, x, y, name=name)


# -- math -----------------------------------------------------------------------------------
def _reduction(v1_fn):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        return v1_fn(input_tensor, axis=axis, keepdims=keepdims, name=name)

    reduce.__name__ = reduce.__qualname__ = v1_fn.__name__
    reduce.__doc__ = v1_fn.__doc__
    return reduce


_REDUCTIONS = {n: _reduction(getattr(_tf, n)) for n in (
    "reduce_sum", "reduce_prod", "reduce_mean", "reduce_max", "reduce_min", "reduce_all",
    "reduce_any", "reduce_logsumexp")}


def argmax(input, axis=None, output_type=_dtypes.int64, name=None):
    """Index of the largest entry along ``axis``."""
    return _tf.argmax(input, axis=axis, name=name, output_type=output_type)


def argmin(input, axis=None, output_type=_dtypes.int64, name=None):
    """Index of the smallest entry along ``axis``."""
    return _tf.argmin(input, axis=axis, name=name, output_type=output_type)


def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    """Vector or matrix norm."""
    return _tf.norm(tensor, ord=ord, axis=axis, keepdims=keepdims, name=name)


def count_nonzero(input, axis=None, keepdims=None, dtype=_dtypes.int64, name=None):
    """Number of non-zero entries along ``axis``."""
    return _tf.math.count_nonzero(input, axis=axis, keepdims=keepdims, dtype=dtype, name=name)


def in_top_k(targets, predictions, k, name=None):
    """Whether each target is among the top ``k`` predictions."""
    return _tf.math.in_top_k(predictions, targets, k, name=name)


def softmax(logits, axis=None, name=None):
    """Softmax along ``axis`` (the last by default)."""
    return _tf.nn.softmax(logits, axis=axis, name=name)


def log_softmax(logits, axis=None, name=None):
    """Log-softmax along ``axis`` (the last by default)."""
    return _tf.nn.log_softmax(logits, axis=axis, name=name)


# -- nn -------------------------------------------------------------------------------------
def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """Softmax cross entropy; the gradient flows into ``labels`` as well."""
    return _tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=axis,
                                                       name=name)


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Softmax cross entropy against class indices."""
    return _tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits,
                                                           name=name)


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zeroes entries with probability ``rate`` and scales the rest by ``1 / (1 - rate)``."""
    return _tf.nn.dropout(x, noise_shape=noise_shape, seed=seed, name=name, rate=rate)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """Mean and variance over ``axes``."""
    return _tf.nn.moments(x, axes, shift=shift, name=name, keepdims=keepdims)


def weighted_moments(x, axes, frequency_weights, keepdims=False, name=None):
    """Weighted mean and variance over ``axes``."""
    return _tf.nn.weighted_moments(x, axes, frequency_weights, name=name, keepdims=keepdims)


def sufficient_statistics(x, axes, shift=None, keepdims=False, name=None):
    """Count, sum, sum of squares (and shift) over ``axes``."""
    return _tf.nn.sufficient_statistics(x, axes, shift=shift, keep_dims=keepdims, name=name)


# -- control flow ---------------------------------------------------------------------------
def cond(pred, true_fn=None, false_fn=None, name=None):
    """``true_fn()`` if ``pred`` else ``false_fn()``."""
    return _tf.cond(pred, true_fn, false_fn, name=name)


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, maximum_iterations=None, name=None):
    """Repeats ``body`` while ``cond`` holds; the result has ``loop_vars``' structure."""
    return _tf.while_loop(cond, body, loop_vars, shape_invariants=shape_invariants,
                          parallel_iterations=parallel_iterations, back_prop=back_prop,
                          swap_memory=swap_memory, name=name,
                          maximum_iterations=maximum_iterations, return_same_structure=True)


# -- random ---------------------------------------------------------------------------------
def poisson(shape, lam, dtype=_dtypes.float32, seed=None, name=None):
    """Poisson samples of shape ``shape + lam.shape``."""
    return _tf.random.poisson(lam, shape, dtype=dtype, seed=seed, name=name)


def set_seed(seed):
    """Sets the graph-level random seed."""
    _tf.set_random_seed(seed)


# -- debugging ------------------------------------------------------------------------------
def _binary_assert(v1_name):
    def check(x, y, message=None, summarize=None, name=None):
        return getattr(_tf.debugging, v1_name)(x, y, summarize=summarize, message=message,
                                               name=name)

    check.__name__ = check.__qualname__ = v1_name
    return check


def _unary_assert(v1_name):
    def check(x, message=None, summarize=None, name=None):
        return getattr(_tf.debugging, v1_name)(x, summarize=summarize, message=message,
                                               name=name)

    check.__name__ = check.__qualname__ = v1_name
    return check


def assert_rank(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank ``rank``."""
    return _tf.debugging.assert_rank(x, rank, message=message, name=name)


def assert_rank_at_least(x, rank, message=None, name=None):
    """Asserts that ``x`` has rank at least ``rank``."""
    return _tf.debugging.assert_rank_at_least(x, rank, message=message, name=name)


def assert_rank_in(x, ranks, message=None, name=None):
    """Asserts that ``x``'s rank is one of ``ranks``."""
    return _tf.debugging.assert_rank_in(x, ranks, message=message, name=name)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Asserts that ``x`` and ``y`` are close elementwise."""
    return _tf.debugging.assert_near(x, y, rtol=rtol, atol=atol, summarize=summarize,
                                     message=message, name=name)


def assert_scalar(tensor, message=None, name=None):
    """Asserts that ``tensor`` is a scalar."""
    return _tf.debugging.assert_scalar(tensor, name=name, message=message)


def assert_all_finite(x, message, name=None):
    """Asserts that ``x`` holds no NaN or Inf."""
    return _tf.debugging.assert_all_finite(x=x, message=message, name=name)


_ASSERTS = {n: _binary_assert(n) for n in (
    "assert_equal", "assert_none_equal", "assert_greater", "assert_greater_equal", "assert_less",
    "assert_less_equal")}
_ASSERTS.update({n: _unary_assert(n) for n in (
    "assert_negative", "assert_non_negative", "assert_non_positive", "assert_positive")})
_ASSERTS.update(assert_rank=assert_rank, assert_rank_at_least=assert_rank_at_least,
                assert_rank_in=assert_rank_in, assert_near=assert_near,
                assert_scalar=assert_scalar, assert_all_finite=assert_all_finite)

# -- the namespaces -------------------------------------------------------------------------
# dotted name under tf.compat.v2 -> its TF 2 form; a namespace holding any of them is a view
_TOP = (concat, expand_dims, squeeze, ones_like, zeros_like, shape, size, pad, gather, gather_nd,
        boolean_mask, reverse_sequence, constant, convert_to_tensor, where, argmax, argmin, norm,
        cond, while_loop)
_OVERRIDES = {fn.__name__: fn for fn in _TOP}
_OVERRIDES.update(_REDUCTIONS)
_OVERRIDES.update({n: _ASSERTS[n] for n in ("assert_equal", "assert_greater", "assert_less",
                                            "assert_rank")})
for _fn in (argmax, argmin, count_nonzero, in_top_k, softmax, log_softmax,
            *_REDUCTIONS.values()):
    _OVERRIDES["math." + _fn.__name__] = _fn
for _fn in (softmax, log_softmax, in_top_k, softmax_cross_entropy_with_logits,
            sparse_softmax_cross_entropy_with_logits, dropout, moments, weighted_moments,
            sufficient_statistics):
    _OVERRIDES["nn." + _fn.__name__] = _fn
for _name, _fn in _ASSERTS.items():
    _OVERRIDES["debugging." + _name] = _fn
_OVERRIDES.update({"linalg.norm": norm, "random.poisson": poisson, "random.set_seed": set_seed})


def _image_resize():
    from tideflow.ops.image_scale_ops import resize_images_v2

    return resize_images_v2


def _image_resize_with_pad():
    from tideflow.ops.image_scale_ops import resize_image_with_pad_v2

    return resize_image_with_pad_v2


def _image_sdbb():
    from tideflow.ops.image_ops import sample_distorted_bounding_box_v2

    return sample_distorted_bounding_box_v2


# (image ops load on first use)
_LAZY = {"image.resize": _image_resize, "image.resize_with_pad": _image_resize_with_pad,
         "image.sample_distorted_bounding_box": _image_sdbb}
_VIEWS = {k.rpartition(".")[0] for k in [*_OVERRIDES, *_LAZY] if "." in k}


class _Namespace(types.ModuleType):
    """One TF 2 namespace: the TF 2 forms above, else the tideflow namespace's own names."""

    def __init__(self, name, base, path):
        super().__init__(name, base.__doc__)
        self._base = base
        self._path = path

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        key = self._path + attr
        if key in _OVERRIDES:
            value = _OVERRIDES[key]
        elif key in _LAZY:
            value = _LAZY[key]()
        elif key in _VIEWS:
            value = _Namespace(f"{self.__name__}.{attr}", getattr(self._base, attr), key + ".")
        elif key == "compat":
            value = _tf.compat
        elif key in ("optimizers", "initializers", "losses", "metrics"):  # TF 2's: Keras's
            value = getattr(_tf.keras, key)
        else:
            value = getattr(self._base, attr)
        self.__dict__[attr] = value  # looked up once
        return value

    def __dir__(self):
        names = {k[len(self._path):] for k in [*_OVERRIDES, *_LAZY] if k.startswith(self._path)}
        return sorted({n for n in names if "." not in n} | set(dir(self._base)))


v2 = _Namespace("tideflow.compat.v2", _tf, "")
sys.modules.setdefault("tideflow.compat.v2", v2)
