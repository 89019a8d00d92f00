"""``tf.signal``'s Python-level functions: framing, overlap-add, windows, STFT and its inverse,
mel filterbanks, MFCCs and the DCT, built from existing ops (gather, segment sums, FFT)."""

import math

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    cast_ops,
    fft_ops,
    fill_ops,
    gather_ops,
    linalg_ops,
    math_ops,
    pad_ops,
    range_ops,
    reduction_ops,
)
from tideflow.ops.concat_ops import concat


def _int_value(x, what, fn):
    v = ops.constant_value(ops.convert_to_tensor(x, dtypes.int32)) if not isinstance(
        x, (int, np.integer)) else x
    if v is None:
        return None
    v = np.asarray(v)
    if v.ndim:
        raise ValueError(f"{fn}: {what} must be a scalar, got shape {list(v.shape)}")
    return int(v)


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Splits ``axis`` of ``signal`` into frames of ``frame_length`` every ``frame_step``
    samples: ``[..., n, ...] -> [..., num_frames, frame_length, ...]``.

    TF 1.15's composition op for op (subframes of gcd(frame_length, frame_step) samples,
    gathered): its names ('frame/Reshape_4') and its op count, which sets the op seed of every
    random op made after it (stft frames its signal)."""
    from tideflow.ops import slicing_ops
    from tideflow.ops.concat_ops import split

    with ops.name_scope(name, "frame", [signal, frame_length, frame_step, pad_value]):
        signal = ops.convert_to_tensor(signal, name="signal")
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        axis = ops.convert_to_tensor(axis, name="axis")
        signal.get_shape().with_rank_at_least(1)
        frame_length.get_shape().assert_has_rank(0)
        frame_step.get_shape().assert_has_rank(0)
        axis.get_shape().assert_has_rank(0)
        result_shape = _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis)

        signal_rank = array_ops.rank(signal)
        axis = range_ops.range(signal_rank)[axis]
        signal_shape = array_ops.shape(signal)
        outer_dimensions, length_samples, inner_dimensions = split(
            signal_shape, [axis, 1, signal_rank - 1 - axis])
        length_samples = array_ops.reshape(length_samples, [])
        num_outer_dimensions = array_ops.size(outer_dimensions)
        num_inner_dimensions = array_ops.size(inner_dimensions)
        if pad_end:
            pad_value = ops.convert_to_tensor(pad_value, signal.dtype)
            pad_value.get_shape().assert_has_rank(0)
            num_frames = -(-length_samples // frame_step)
            pad_samples = math_ops.maximum(
                0, frame_length + frame_step * (num_frames - 1) - length_samples)
            paddings = concat(
                [array_ops.zeros([num_outer_dimensions, 2], dtype=pad_samples.dtype),
                 [[0, pad_samples]],
                 array_ops.zeros([num_inner_dimensions, 2], dtype=pad_samples.dtype)], 0)
            signal = pad_ops.pad(signal, paddings, constant_values=pad_value)
            signal_shape = array_ops.shape(signal)
            length_samples = signal_shape[axis]
        else:
            num_frames = math_ops.maximum(0, 1 + (length_samples - frame_length) // frame_step)

        subframe_length = _gcd(frame_length, frame_step)
        subframes_per_frame = frame_length // subframe_length
        subframes_per_hop = frame_step // subframe_length
        num_subframes = length_samples // subframe_length
        slice_shape = concat([outer_dimensions, [num_subframes * subframe_length],
                              inner_dimensions], 0)
        subframe_shape = concat([outer_dimensions, [num_subframes, subframe_length],
                                 inner_dimensions], 0)
        subframes = array_ops.reshape(slicing_ops.strided_slice(
            signal, fill_ops.zeros_like(signal_shape), slice_shape), subframe_shape)
        frame_selector = array_ops.reshape(
            range_ops.range(num_frames) * subframes_per_hop, [num_frames, 1])
        subframe_selector = array_ops.reshape(
            range_ops.range(subframes_per_frame), [1, subframes_per_frame])
        selector = frame_selector + subframe_selector
        frames = array_ops.reshape(
            gather_ops.gather(subframes, selector, axis=axis),
            concat([outer_dimensions, [num_frames, frame_length], inner_dimensions], 0))
        if result_shape:
            frames.set_shape(result_shape)
        return frames


def _infer_frame_shape(signal, frame_length, frame_step, pad_end, axis):
    """TF 1.15's static shape of ``frame``'s result (None where the rank is unknown)."""
    frame_length = ops.constant_value(frame_length)
    frame_step = ops.constant_value(frame_step)
    axis = ops.constant_value(axis)
    if signal.get_shape().ndims is None:
        return None
    if axis is None:
        return [None] * (signal.get_shape().ndims + 1)
    frame_length = None if frame_length is None else int(frame_length)
    frame_step = None if frame_step is None else int(frame_step)
    signal_shape = signal.get_shape().as_list()
    axis = int(axis)
    num_frames = None
    frame_axis = signal_shape[axis]
    outer_dimensions = signal_shape[:axis]
    inner_dimensions = signal_shape[axis:][1:]
    if signal_shape and frame_axis is not None:
        if frame_step is not None and pad_end:
            num_frames = max(0, -(-frame_axis // frame_step))
        elif frame_step is not None and frame_length is not None:
            num_frames = max(0, (frame_axis - frame_length + frame_step) // frame_step)
    return outer_dimensions + [num_frames, frame_length] + inner_dimensions


def _gcd(a, b):
    """TF 1.15's signal util_ops.gcd: a constant when both are known, else Euclid's loop."""
    with ops.name_scope(None, "gcd", [a, b]):
        a = ops.convert_to_tensor(a)
        b = ops.convert_to_tensor(b)
        a.get_shape().assert_has_rank(0)
        b.get_shape().assert_has_rank(0)
        if not a.dtype.is_integer:
            raise ValueError(f"a must be an integer type. Got: {a.dtype}")
        if not b.dtype.is_integer:
            raise ValueError(f"b must be an integer type. Got: {b.dtype}")
        const_a, const_b = ops.constant_value(a), ops.constant_value(b)
        if const_a is not None and const_b is not None:
            return ops.convert_to_tensor(math.gcd(int(const_a), int(const_b)))
        from tideflow.ops.while_loop import while_loop

        a, b = while_loop(lambda _, b: math_ops.greater(b, fill_ops.zeros_like(b)),
                          lambda a, b: [b, math_ops.mod(a, b)], [a, b], back_prop=False)
        return a


def overlap_and_add(signal, frame_step, name=None):
    """Adds frames ``[..., frames, frame_length]`` overlapping every ``frame_step`` samples
    into ``[..., (frames - 1) * frame_step + frame_length]``."""
    with ops.name_scope(name, "overlap_and_add", [signal, frame_step]):
        signal = ops.convert_to_tensor(signal, name="signal")
        signal.get_shape().with_rank_at_least(2)  # TF's words
        step = ops.convert_to_tensor(frame_step, name="frame_step")
        step.get_shape().assert_has_rank(0)
        if not step.dtype.is_integer:
            raise ValueError(f"frame_step must be an integer. Got {step.dtype}")
        st = signal.get_shape()
        hop = ops.constant_value(step)
        if st.ndims is not None and st.dims[-1].value is not None and hop is not None and \
                int(hop) == st.dims[-1].value:
            # frames that do not overlap: the signal is the frames end to end (TF's fast path)
            dims = st.as_list()
            total = None if dims[-2] is None else dims[-2] * dims[-1]
            outer = dims[:-2] if None not in dims[:-2] else array_ops.shape(signal)[:-2]
            new_shape = (outer + [-1] if isinstance(outer, list)
                         else concat([outer, [-1]], 0))
            out = array_ops.reshape(signal, new_shape, name="fast_path")
            out.set_shape(dims[:-2] + [total])
            return out
        # TF 1.15's composition, op for op (so values, static shapes and names are its own):
        # each frame is cut in hop-sized pieces, the pieces that land on the same output hop
        # are lined up by a reshape of the padded frames, and summed
        dims = array_ops.shape(signal)
        outer = dims[:-2]
        outer_rank = array_ops.size(outer)

        def with_outer(inner):
            return concat([outer, inner], 0)

        flen, nframes = dims[-1], dims[-2]
        out_len = flen + step * (nframes - 1)
        pieces = -(-flen // step)  # pieces per frame, rounded up
        inner_pads = [[0, pieces], [0, pieces * step - flen]]
        pads = concat([fill_ops.zeros([outer_rank, 2], dtypes.int32), inner_pads], 0)
        x = pad_ops.pad(signal, pads)
        x = array_ops.reshape(x, with_outer([nframes + pieces, pieces, step]))
        x = array_ops.transpose(x, concat([range_ops.range(outer_rank),
                                           outer_rank + [1, 0, 2]], 0))
        x = array_ops.reshape(x, with_outer([(nframes + pieces) * pieces, step]))
        x = x[..., :(nframes + pieces - 1) * pieces, :]
        x = array_ops.reshape(x, with_outer([pieces, nframes + pieces - 1, step]))
        x = reduction_ops.reduce_sum(x, -3)
        x = array_ops.reshape(x, with_outer([(nframes + pieces - 1) * step]))
        return x[..., :out_len]


def _window(window_length, periodic, dtype, a, b, name, scope):
    with ops.name_scope(name, scope, [window_length, periodic]):
        if not dtypes.as_dtype(dtype).is_floating:
            raise ValueError(f"dtype must be a floating point type. Found {dtype}")  # TF's
        dtype = dtypes.as_dtype(dtype)
        n = ops.convert_to_tensor(window_length, dtypes.int32, name="window_length")
        n.get_shape().assert_has_rank(0)
        known = ops.constant_value(n)
        if known is not None and int(known) == 1:
            return fill_ops.ones([1], dtype=dtype)
        periodic = cast_ops.cast(ops.convert_to_tensor(periodic, dtypes.bool, name="periodic"),
                                 dtypes.int32)
        periodic.get_shape().assert_has_rank(0)
        even = 1 - math_ops.mod(n, 2)
        # TF's periodic window: the symmetric window of length n + 1 truncated, for even n
        denom = cast_ops.cast(n + periodic * even - 1, dtype)
        ns = cast_ops.cast(range_ops.range(n), dtype)
        arg = ops.convert_to_tensor(2 * np.pi, dtype) * ns / denom
        if known is not None:
            return cast_ops.cast(a - b * math_ops.cos(arg), dtype)
        from tideflow.ops.cond import cond

        return cond(math_ops.equal(n, 1), lambda: fill_ops.ones([1], dtype=dtype),
                    lambda: cast_ops.cast(a - b * math_ops.cos(arg), dtype))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hann window ``0.5 - 0.5 cos(2 pi n / N)`` (N = length, or length - 1 if not
    periodic)."""
    return _window(window_length, periodic, dtype, 0.5, 0.5, name, "hann_window")


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """The Hamming window ``0.54 - 0.46 cos(2 pi n / N)``."""
    return _window(window_length, periodic, dtype, 0.54, 0.46, name, "hamming_window")


def _fft_len_for(frame_length):
    return 1 << math.ceil(math.log2(frame_length)) if frame_length > 1 else 1


def _enclosing_power_of_two(value):
    """TF 1.15's smallest power of two >= ``value`` (a tensor of its dtype)."""
    static = ops.constant_value(value)
    if static is not None:
        return ops.convert_to_tensor(
            int(2 ** np.ceil(np.log(static) / np.log(2.0))), value.dtype)
    return cast_ops.cast(math_ops.pow(2.0, math_ops.ceil(
        math_ops.log(cast_ops.cast(value, dtypes.float32)) / math_ops.log(2.0))), value.dtype)


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """Short-time Fourier transform of real ``signals [..., samples]``:
    ``[..., frames, fft_length // 2 + 1]`` complex (TF 1.15's composition op for op)."""
    with ops.name_scope(name, "stft", [signals, frame_length, frame_step]):
        signals = ops.convert_to_tensor(signals, name="signals")
        signals.get_shape().with_rank_at_least(1)  # TF 1.15's check and words
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_length.get_shape().assert_has_rank(0)
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        frame_step.get_shape().assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = ops.convert_to_tensor(fft_length, name="fft_length")
        framed_signals = frame(signals, frame_length, frame_step, pad_end=pad_end)
        if window_fn is not None:
            window = window_fn(frame_length, dtype=framed_signals.dtype)
            framed_signals *= window
        return fft_ops.rfft(framed_signals, [fft_length])


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """A window function for :func:`inverse_stft` that undoes ``forward_window_fn``'s
    overlap-added squared gain (TF 1.15's ops: ``frame_step`` converted in a scope of its own
    when the function is made, the window in a second scope when it is called)."""
    with ops.name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        frame_step.get_shape().assert_has_rank(0)

    def inverse_stft_window_fn_inner(frame_length, dtype):
        with ops.name_scope(name, "inverse_stft_window_fn", [forward_window_fn]):
            frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
            frame_length.get_shape().assert_has_rank(0)
            forward_window = forward_window_fn(frame_length, dtype=dtype)
            denom = math_ops.square(forward_window)
            overlaps = -(-frame_length // frame_step)  # ceiling division
            denom = pad_ops.pad(denom, [(0, overlaps * frame_step - frame_length)])
            denom = array_ops.reshape(denom, [overlaps, frame_step])
            denom = reduction_ops.reduce_sum(denom, 0, keepdims=True)
            denom = pad_ops.tile(denom, [overlaps, 1])
            denom = array_ops.reshape(denom, [overlaps * frame_step])
            return forward_window / denom[:frame_length]

    return inverse_stft_window_fn_inner


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Inverse of :func:`stft`: ``[..., frames, fft_length // 2 + 1]`` complex to real
    ``[..., samples]`` (use :func:`inverse_stft_window_fn` for perfect reconstruction);
    TF 1.15's composition op for op."""
    with ops.name_scope(name, "inverse_stft", [stfts]):
        stfts = ops.convert_to_tensor(stfts, name="stfts")
        stfts.get_shape().with_rank_at_least(2)
        frame_length = ops.convert_to_tensor(frame_length, name="frame_length")
        frame_length.get_shape().assert_has_rank(0)
        frame_step = ops.convert_to_tensor(frame_step, name="frame_step")
        frame_step.get_shape().assert_has_rank(0)
        if fft_length is None:
            fft_length = _enclosing_power_of_two(frame_length)
        else:
            fft_length = ops.convert_to_tensor(fft_length, name="fft_length")
            fft_length.get_shape().assert_has_rank(0)
        real_frames = fft_ops.irfft(stfts, [fft_length])
        # frame_length may be larger or smaller than fft_length: pad or truncate to it
        static = ops.constant_value(frame_length)
        static = None if static is None else int(static)
        dims = real_frames.get_shape().as_list() if real_frames.get_shape().ndims is not None \
            else None
        if static is None or dims is None or dims[-1] is None:
            real_frames = real_frames[..., :frame_length]
            real_frames_rank = array_ops.rank(real_frames)
            real_frames_shape = array_ops.shape(real_frames)
            paddings = concat(
                [array_ops.zeros([real_frames_rank - 1, 2], dtype=frame_length.dtype),
                 [[0, math_ops.maximum(0, frame_length - real_frames_shape[-1])]]], 0)
            real_frames = pad_ops.pad(real_frames, paddings)
        elif dims[-1] > static:
            real_frames = real_frames[..., :static]
        elif dims[-1] < static:
            pad_amount = static - dims[-1]
            real_frames = pad_ops.pad(real_frames,
                                      [[0, 0]] * (len(dims) - 1) + [[0, pad_amount]])
        if static is not None and real_frames.get_shape().ndims is not None:
            real_frames.set_shape([None] * (real_frames.get_shape().ndims - 1) + [static])
        if window_fn is not None:
            window = window_fn(frame_length, dtype=stfts.dtype.real_dtype)
            real_frames *= window
        return overlap_and_add(real_frames, frame_step)


# -- mel scale and MFCCs ----------------------------------------------------------------------

_MEL_BREAK_HZ = 700.0
_MEL_HIGH_Q = 1127.0


def _hz_to_mel(f):
    return _MEL_HIGH_Q * np.log1p(f / _MEL_BREAK_HZ)


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None):
    """The ``[num_spectrogram_bins, num_mel_bins]`` matrix of triangular mel filters (HTK mel
    scale) mapping a linear-frequency magnitude spectrogram to mel bins."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type, got {dtype}")
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if isinstance(sample_rate, ops.Tensor):  # a constant tensor is taken at its value
        value = ops.constant_value(sample_rate)
        if value is None:
            raise ValueError("`sample_rate` was a non-constant Tensor. Must be a Python float "
                             "or a constant Tensor.")
        sample_rate = float(value)
    bins = num_spectrogram_bins
    if isinstance(bins, ops.Tensor):
        value = ops.constant_value(bins)
        bins = bins if value is None else int(value)
    if not isinstance(bins, ops.Tensor) and bins <= 0:
        raise ValueError(f"num_spectrogram_bins must be positive. Got: {bins}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got: {upper_edge_hertz} for sample_rate: "
                         f"{sample_rate}")
    with ops.name_scope(name, "linear_to_mel_weight_matrix") as scope:
        # bfloat16 is computed in float32 and rounded at the end
        t = np.float32 if dtype == dtypes.bfloat16 else dtype.as_numpy_dtype
        nyquist = t(sample_rate) / t(2)
        edges = np.linspace(_hz_to_mel(t(lower_edge_hertz)), _hz_to_mel(t(upper_edge_hertz)),
                            num_mel_bins + 2, dtype=t)
        lower, center, upper = edges[:-2][None], edges[1:-1][None], edges[2:][None]
        if isinstance(bins, ops.Tensor):  # the spectrogram size known only at run time
            return _mel_weights_graph(bins, nyquist, lower, center, upper, t, dtype, scope)
        if dtype in (dtypes.float32, dtypes.float64):
            return _tf_mel_weights(num_mel_bins, bins, sample_rate, lower_edge_hertz,
                                   upper_edge_hertz, dtype, scope)
        freqs = np.linspace(t(0), nyquist, bins, dtype=t)[1:]
        spec_mel = _hz_to_mel(freqs).astype(t)[:, None]
        lower_slopes = (spec_mel - lower) / (center - lower)
        upper_slopes = (upper - spec_mel) / (upper - center)
        w = np.maximum(t(0), np.minimum(lower_slopes, upper_slopes)).astype(t)
        w = np.pad(w, [(1, 0), (0, 0)]).astype(dtype.as_numpy_dtype)
        return ops.convert_to_tensor(w, dtype, name=scope)  # named as the scope, as TF's pad


def _tf_mel_weights(num_mel_bins, bins, sample_rate, lower_edge_hertz, upper_edge_hertz, dtype,
                    name):
    """TF 1.15's mel weight matrix op for op (linspace, hertz_to_mel, frame, split): its op
    count sets the op seed of every random op made after it."""
    def hertz_to_mel(f):
        with ops.name_scope(None, "hertz_to_mel", [f]):
            f = ops.convert_to_tensor(f)
            return _MEL_HIGH_Q * math_ops.log(1.0 + (f / _MEL_BREAK_HZ))

    from tideflow.ops.concat_ops import split

    sample_rate = ops.convert_to_tensor(sample_rate, dtype, name="sample_rate")
    lower_edge_hertz = ops.convert_to_tensor(lower_edge_hertz, dtype, name="lower_edge_hertz")
    upper_edge_hertz = ops.convert_to_tensor(upper_edge_hertz, dtype, name="upper_edge_hertz")
    zero = ops.convert_to_tensor(0.0, dtype)
    nyquist_hertz = sample_rate / 2.0
    linear_frequencies = range_ops.linspace(zero, nyquist_hertz, bins)[1:]
    spectrogram_bins_mel = array_ops.expand_dims(hertz_to_mel(linear_frequencies), 1)
    band_edges_mel = frame(range_ops.linspace(hertz_to_mel(lower_edge_hertz),
                                              hertz_to_mel(upper_edge_hertz),
                                              num_mel_bins + 2), frame_length=3, frame_step=1)
    lower_edge_mel, center_mel, upper_edge_mel = tuple(
        array_ops.reshape(t, [1, num_mel_bins]) for t in split(band_edges_mel, 3, axis=1))
    lower_slopes = (spectrogram_bins_mel - lower_edge_mel) / (center_mel - lower_edge_mel)
    upper_slopes = (upper_edge_mel - spectrogram_bins_mel) / (upper_edge_mel - center_mel)
    mel_weights_matrix = math_ops.maximum(zero, math_ops.minimum(lower_slopes, upper_slopes))
    return pad_ops.pad(mel_weights_matrix, [[1, 0], [0, 0]], name=name)


def _mel_weights_graph(bins, nyquist, lower, center, upper, t, dtype, name):
    """The mel weight matrix built from ops, for a run-time ``num_spectrogram_bins``."""
    float_t = dtypes.as_dtype(t)
    freqs = range_ops.linspace(ops.convert_to_tensor(t(0)), ops.convert_to_tensor(nyquist),
                               bins)[1:]
    spec_mel = array_ops.expand_dims(
        t(_MEL_HIGH_Q) * math_ops.log(1.0 + freqs / t(_MEL_BREAK_HZ)), 1)
    lower_slopes = (spec_mel - lower) / (center - lower)
    upper_slopes = (upper - spec_mel) / (upper - center)
    w = math_ops.maximum(array_ops.zeros([], float_t), math_ops.minimum(lower_slopes,
                                                                        upper_slopes))
    w = pad_ops.pad(w, [[1, 0], [0, 0]])
    if dtype != float_t:
        from tideflow.ops import cast_ops

        w = cast_ops.cast(w, dtype)
    return array_ops.identity(w, name=name)


def _dct_matrix(n, dct_type, norm, t):
    k = np.arange(n)[None, :].astype(np.float64)
    j = np.arange(n)[:, None].astype(np.float64)
    if dct_type == 1:
        m = 2 * np.cos(np.pi * j * k / (n - 1))
        m[0, :] = 1
        m[-1, :] = (-1.0) ** np.arange(n)
    elif dct_type == 2:
        m = 2 * np.cos(np.pi * k * (2 * j + 1) / (2 * n))
        if norm == "ortho":
            m[:, 0] *= math.sqrt(1.0 / (4 * n))
            m[:, 1:] *= math.sqrt(1.0 / (2 * n))
    elif dct_type == 3:
        m = 2 * np.cos(np.pi * j * (2 * k + 1) / (2 * n))
        m[0, :] = 1
        if norm == "ortho":
            m[0, :] *= math.sqrt(1.0 / n)
            m[1:, :] *= math.sqrt(2.0 / n) / 2
    else:
        m = 2 * np.cos(np.pi * (2 * j + 1) * (2 * k + 1) / (4 * n))
        if norm == "ortho":
            m *= math.sqrt(1.0 / (2 * n))
    return m.astype(t)


def _validate_dct(input, dct_type, n, axis, norm, fn):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and n < 1:
        raise ValueError(f"n should be a positive integer or None, got {n}")
    if dct_type not in (1, 2, 3, 4):
        # TF 1.15's words (type IV, which it lacks, is TF 2.x's and kept)
        raise ValueError("Only Types I, II and III (I)DCT are supported.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if dct_type == 1 and norm == "ortho":
        raise ValueError("Normalization is not supported for the Type-I DCT.")


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The discrete cosine transform (types I-IV, optionally orthonormal) of the innermost
    dimension, as ``scipy.fftpack.dct``."""
    _validate_dct(input, type, n, axis, norm, "dct")
    with ops.name_scope(name, "dct", [input]):
        x = ops.convert_to_tensor(input, name="input")
        if x.dtype.base_dtype not in (dtypes.float32, dtypes.float64):
            x = ops.convert_to_tensor(x, dtypes.float32)  # TF 1.15's conversion error
        shape = x.get_shape()
        if shape.ndims is None or shape[-1].value is None:
            return _dct_dynamic(x, type, n, norm)
        length = shape[-1].value
        if n is not None and n != length:
            rank = shape.ndims
            if n < length:
                x = x[..., :n]
            else:
                x = pad_ops.pad(x, [(0, 0)] * (rank - 1) + [(0, n - length)])
            length = n
        if type == 1 and length < 2:
            raise ValueError("dct: the Type-I DCT requires at least 2 points")
        if type in (1, 2, 3) and x.dtype.base_dtype == dtypes.float32:
            return _tf_dct(x, type, length, norm)
        m = ops.convert_to_tensor(_dct_matrix(length, type, norm, x.dtype.as_numpy_dtype))
        return linalg_ops.tensordot(x, m, [[shape.ndims - 1], [0]])


def _tf_dct(input, dct_type, axis_dim, norm):
    """TF 1.15's DCT of a float32 input of known size, op for op through the RFFT: its op
    count sets the op seed of every random op made after it (MFCC front ends)."""
    axis_dim_float = cast_ops.cast(axis_dim, dtypes.float32)
    if dct_type == 1:
        dct1_input = concat([input, input[..., -2:0:-1]], axis=-1)
        return math_ops.real(fft_ops.rfft(dct1_input))
    if dct_type == 2:
        scale = 2.0 * math_ops.exp(math_ops.complex(
            0.0, -range_ops.range(axis_dim_float) * math.pi * 0.5 / axis_dim_float))
        dct2 = math_ops.real(
            fft_ops.rfft(input, fft_length=[2 * axis_dim])[..., :axis_dim] * scale)
        if norm == "ortho":
            n1 = 0.5 * math_ops.rsqrt(axis_dim_float)
            n2 = n1 * math_ops.sqrt(2.0)
            weights = pad_ops.pad(array_ops.expand_dims(n1, 0), [[0, axis_dim - 1]],
                                  constant_values=n2)
            dct2 *= weights
        return dct2
    if norm == "ortho":
        n1 = math_ops.sqrt(axis_dim_float)
        n2 = n1 * math_ops.sqrt(0.5)
        weights = pad_ops.pad(array_ops.expand_dims(n1, 0), [[0, axis_dim - 1]],
                              constant_values=n2)
        input *= weights
    else:
        input *= axis_dim_float
    scale = 2.0 * math_ops.exp(math_ops.complex(
        0.0, range_ops.range(axis_dim_float) * math.pi * 0.5 / axis_dim_float))
    return math_ops.real(fft_ops.irfft(scale * math_ops.complex(input, 0.0),
                                       fft_length=[2 * axis_dim]))[..., :axis_dim]


def _dct_dynamic(x, dct_type, n, norm):
    """``dct`` of an input whose innermost size is known only at run time: the same matrix
    as ``_dct_matrix``, built from ops."""
    t = x.dtype.base_dtype
    if n is not None:
        x = x[..., :n]
        short = math_ops.maximum(0, n - array_ops.shape(x)[-1])
        paddings = concat([array_ops.zeros(array_ops.stack([array_ops.rank(x) - 1, 2]),
                                           dtypes.int32),
                           array_ops.reshape(array_ops.stack([0, short]), [1, 2])], 0)
        x = pad_ops.pad(x, paddings)
    size = array_ops.shape(x)[-1]
    nf = cast_ops.cast(size, t)
    k = array_ops.expand_dims(cast_ops.cast(range_ops.range(size), t), 0)
    j = array_ops.expand_dims(cast_ops.cast(range_ops.range(size), t), 1)
    first = cast_ops.cast(math_ops.equal(k, 0), t)  # 1 in the column k = 0
    if dct_type == 1:
        # rows 0 and n - 1 are 1 and (-1)^k
        m = 2.0 * math_ops.cos(math.pi * j * k / (nf - 1.0))
        row = cast_ops.cast(math_ops.equal(j, 0), t)
        last = cast_ops.cast(math_ops.equal(j, nf - 1.0), t)
        sign = 1.0 - 2.0 * math_ops.floormod(k, 2.0)
        m = m * (1.0 - row - last) + row + last * sign
    elif dct_type == 2:
        m = 2.0 * math_ops.cos(math.pi * k * (2.0 * j + 1.0) / (2.0 * nf))
        if norm == "ortho":
            m = m * (first * math_ops.rsqrt(4.0 * nf) + (1.0 - first) * math_ops.rsqrt(2.0 * nf))
    elif dct_type == 3:
        row = cast_ops.cast(math_ops.equal(j, 0), t)
        m = 2.0 * math_ops.cos(math.pi * j * (2.0 * k + 1.0) / (2.0 * nf)) * (1.0 - row) + row
        if norm == "ortho":
            m = m * (row * math_ops.rsqrt(nf) + (1.0 - row) * math_ops.sqrt(2.0 / nf) / 2.0)
    else:
        m = 2.0 * math_ops.cos(math.pi * (2.0 * j + 1.0) * (2.0 * k + 1.0) / (4.0 * nf))
        if norm == "ortho":
            m = m * math_ops.rsqrt(2.0 * nf)
    flat = array_ops.reshape(x, array_ops.stack([-1, size]))
    out = linalg_ops.matmul(flat, m)
    return array_ops.reshape(out, array_ops.shape(x))


_INVERSE = {1: 1, 2: 3, 3: 2, 4: 4}


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse DCT: :func:`dct` of the inverse type (II <-> III; I and IV are their own),
    exact inverse when ``norm="ortho"``, else scaled by ``2N`` (``2(N-1)`` for type I)."""
    _validate_dct(input, type, n, axis, norm, "idct")
    # (TF 1.15 opens no scope of its own: the ops are named under 'dct')
    return dct(input, type=_INVERSE[type], n=n, axis=axis, norm=norm, name=name)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs: the orthonormal-scaled DCT-II of log-mel spectrograms ``[..., num_mel_bins]``."""
    with ops.name_scope(name, "mfccs_from_log_mel_spectrograms", [log_mel_spectrograms]):
        x = ops.convert_to_tensor(log_mel_spectrograms, name="log_mel_spectrograms")
        shape = x.get_shape()
        if shape.ndims is None or shape[-1].value is None:
            num = cast_ops.cast(array_ops.shape(x)[-1], x.dtype.base_dtype)
            return dct(x, type=2) * math_ops.rsqrt(2.0 * num)
        num = shape[-1].value
        if num < 1:
            raise ValueError(f"num_mel_bins must be positive. Got: {x}")  # TF 1.15's words
        if x.dtype.base_dtype == dtypes.float32:  # TF 1.15's ops: rsqrt(cast(bins) * 2)
            return dct(x, type=2) * math_ops.rsqrt(cast_ops.cast(num, dtypes.float32) * 2.0)
        return dct(x, type=2) * (1.0 / math.sqrt(2.0 * num))


# -- more windows and the MDCT ----------------------------------------------------------------


def _const_length(window_length, what):
    n = _int_value(window_length, "window_length", what)
    if n is None:
        raise ValueError(f"{what}: window_length must be a constant")
    if n < 0:
        raise ValueError(f"{what}: window_length must be non-negative, got {n}")
    return n


def _float_dtype(dtype, what):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"{what}: dtype must be a floating point type, got {dtype}")
    return dtype


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """The Vorbis power-complementary window ``sin(pi/2 sin^2(pi (n + 1/2) / N))``."""
    with ops.name_scope(name, "vorbis_window", [window_length]):
        dtype = _float_dtype(dtype, "vorbis_window")
        n = _const_length(window_length, "vorbis_window")
        k = np.arange(n, dtype=np.float64)
        w = np.sin(np.pi / 2 * np.sin(np.pi * (k + 0.5) / max(n, 1)) ** 2)
        return ops.convert_to_tensor(w.astype(dtype.as_numpy_dtype))


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The (symmetric) Kaiser window ``I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta)``."""
    with ops.name_scope(name, "kaiser_window", [window_length, beta]):
        dtype = _float_dtype(dtype, "kaiser_window")
        n = _const_length(window_length, "kaiser_window")
        w = np.kaiser(n, float(beta)) if n > 1 else np.ones(n)
        return ops.convert_to_tensor(w.astype(dtype.as_numpy_dtype))


def kaiser_bessel_derived_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """The Kaiser-Bessel-derived window: the square root of the normalized running sum of a
    Kaiser window of length ``N/2 + 1``, mirrored."""
    with ops.name_scope(name, "kaiser_bessel_derived_window", [window_length, beta]):
        dtype = _float_dtype(dtype, "kaiser_bessel_derived_window")
        n = _const_length(window_length, "kaiser_bessel_derived_window")
        half = n // 2
        k = np.kaiser(half + 1, float(beta)) if half > 0 else np.ones(1)
        c = np.cumsum(k)
        left = np.sqrt(c[:half] / c[-1])
        w = np.concatenate([left, left[::-1]])
        return ops.convert_to_tensor(w.astype(dtype.as_numpy_dtype))


def _mdct_basis(frame_length, t):
    half = frame_length // 2
    n = np.arange(frame_length)[:, None]
    k = np.arange(half)[None, :]
    return np.cos(np.pi / half * (n + 0.5 + half / 2) * (k + 0.5)).astype(t)


def _mdct_frame_length(frame_length, what):
    fl = _int_value(frame_length, "frame_length", what)
    if fl is None:
        raise ValueError(f"{what}: frame_length must be a constant")
    if fl % 4:
        raise ValueError("The frame length must be a multiple of 4.")
    return fl


def mdct(signals, frame_length, window_fn=vorbis_window, pad_end=False, norm=None, name=None):
    """The modified DCT of real ``signals [..., samples]``: half-overlapping windowed frames
    to ``[..., frames, frame_length / 2]`` coefficients (``norm="ortho"`` scales by
    ``sqrt(2 / (frame_length / 2))`` instead of 2)."""
    if norm not in (None, "ortho"):
        raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
    with ops.name_scope(name, "mdct", [signals]):
        signals = ops.convert_to_tensor(signals, name="signals")
        fl = _mdct_frame_length(frame_length, "mdct")
        frames = frame(signals, fl, fl // 2, pad_end=pad_end)
        if window_fn is not None:
            frames = frames * window_fn(fl, dtype=signals.dtype)
        half = fl // 2
        scale = 2.0 if norm is None else math.sqrt(2.0 / half)
        basis = _mdct_basis(fl, signals.dtype.as_numpy_dtype) * np.array(
            scale, signals.dtype.as_numpy_dtype)
        rank = frames.get_shape().ndims
        return linalg_ops.tensordot(frames, ops.convert_to_tensor(basis), [[rank - 1], [0]])


def inverse_mdct(mdcts, window_fn=vorbis_window, norm=None, name=None):
    """The inverse of :func:`mdct`: ``[..., frames, N / 2]`` to ``[..., (frames + 1) N / 2]``
    samples (time-domain aliasing cancels with a power-complementary window)."""
    if norm not in (None, "ortho"):
        raise ValueError(f"norm must be None or 'ortho', got {norm!r}")
    with ops.name_scope(name, "inverse_mdct", [mdcts]):
        mdcts = ops.convert_to_tensor(mdcts, name="mdcts")
        s = mdcts.get_shape()
        if s.ndims is None or s[-1].value is None:
            raise ValueError("inverse_mdct: the number of coefficients per frame must be known")
        half = s[-1].value
        fl = 2 * half
        scale = 1.0 / half if norm is None else math.sqrt(2.0 / half)
        basis = _mdct_basis(fl, mdcts.dtype.as_numpy_dtype).T * np.array(
            scale, mdcts.dtype.as_numpy_dtype)
        frames = linalg_ops.tensordot(mdcts, ops.convert_to_tensor(basis), [[s.ndims - 1], [0]])
        if window_fn is not None:
            frames = frames * window_fn(fl, dtype=mdcts.dtype)
        return overlap_and_add(frames, half)
