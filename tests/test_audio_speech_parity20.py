"""Audio and speech programs of TF 1.x (tf.signal features, CTC models, WaveNet pieces,
WAV decoding) checked against TF 1.15's shapes, values and errors."""
import struct

import numpy as np
import pytest

import tideflow as tf


def test_edit_distance_of_run_time_shapes_has_unknown_rank():
    # TF 1.15's EditDistance shape function needs both dense shapes' values; a decoder's or
    # a placeholder's shape leaves the output <unknown> (not a known rank of unknown dims).
    with tf.Graph().as_default():
        hyp = tf.SparseTensor(tf.placeholder(tf.int64, [None, 2]),
                              tf.placeholder(tf.int32, [None]), tf.placeholder(tf.int64, [2]))
        truth = tf.SparseTensor([[0, 0]], [1], [3, 4])
        assert tf.edit_distance(hyp, truth).get_shape().ndims is None
        assert tf.edit_distance(truth, hyp).get_shape().ndims is None
        assert tf.edit_distance(truth, truth).get_shape().as_list() == [3]
        logits = tf.placeholder(tf.float32, [5, 2, 4])
        (dec,), _ = tf.nn.ctc_greedy_decoder(logits, [5, 5])
        assert tf.edit_distance(tf.cast(dec, tf.int32), truth).get_shape().ndims is None


def test_generation_queue_push_and_pop_in_one_run():
    # Fast WaveNet generation: a full FIFOQueue of past activations is popped and pushed in
    # the same Session.run. TF 1.15 runs the Dequeue and the Enqueue together and both finish
    # (tideflow's serial plan blocked in the Enqueue forever). Outputs from TF 1.15.
    with tf.Graph().as_default():
        q = tf.FIFOQueue(2, dtypes=tf.float32, shapes=(1, 4))
        init = q.enqueue_many(tf.zeros((2, 1, 4)))
        cur = tf.placeholder(tf.float32, [1, 4])
        out = q.dequeue() + cur
        push = q.enqueue([cur])
        with tf.Session() as s:
            s.run(init)
            opts = tf.RunOptions(timeout_in_ms=5000)
            got = [s.run([out, push], {cur: np.full((1, 4), t + 1, np.float32)},
                         options=opts)[0][0, 0] for t in range(4)]
            assert got == [1.0, 2.0, 4.0, 6.0]
            assert s.run(q.size()) == 2
            # an enqueue something waits on still blocks in place: a deadline ends it
            with tf.control_dependencies([q.enqueue([cur])]):
                after = tf.identity(cur)
            opts = tf.RunOptions(timeout_in_ms=300)
            try:
                s.run(after, {cur: np.zeros((1, 4), np.float32)}, options=opts)
                raise AssertionError("expected DeadlineExceededError")
            except tf.errors.DeadlineExceededError:
                pass


def _wav(fmt_size=16, fmt=1, ch=1, rate=8000, byte_rate=None, bits=16, block=None,
         chunks=None):
    if chunks is None:
        chunks = [(b"data", struct.pack("<4h", 1, -2, 300, -32768))]
    block = ch * 2 if block is None else block
    byte_rate = rate * block if byte_rate is None else byte_rate
    body = b"WAVEfmt " + struct.pack("<IHHIIHH", fmt_size, fmt, ch, rate, byte_rate, block,
                                     bits) + b"\0" * (fmt_size - 16)
    for cid, data in chunks:
        body += cid + struct.pack("<I", len(data)) + data
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_decode_wav_reads_and_rejects_files_as_tf():
    # Each message is TF 1.15's DecodeWav's for the same bytes (wav_io's strict header order,
    # one "Data too short when trying to read string" for every short read, no pad bytes).
    cases = [
        (_wav(fmt_size=20), "Bad file size for WAV: Expected 16 or 18, but got20"),
        (_wav(fmt=3), "Bad audio format for WAV: Expected 1 (PCM), but got3"),
        (_wav(ch=0), "Bad number of channels for WAV: Expected at least 1, but got 0"),
        (_wav(bits=8), "Can only read 16-bit WAV files, but received 8"),
        (_wav(block=4), "Bad bytes per sample in WAV header: Expected 2 but got 4"),
        (_wav(byte_rate=1234), ("Bad bytes per second in WAV header: Expected 16000 but got "
                                "1234 (sample_rate=8000, bytes_per_sample=2)")),
        (_wav(chunks=[(b"LIST", b"ab")]), "No data chunk found in WAV"),
        (_wav(chunks=[(b"data", b"\1\0"), (b"data", b"\2\0")]),
         "More than one data chunk found in WAV"),
        (_wav(chunks=[(b"data", b"\1\0\2")]), "Data too short when trying to read string"),
        (_wav()[:-3], "Data too short when trying to read string"),
        (b"RIFF", "Data too short when trying to read string"),
        (b"RIFF\x10\0\0\0WAVX", "Header mismatch: Expected WAVE but found WAVX"),
        (b"RIFF\x10\0\0\0WAVEdata", "Header mismatch: Expected fmt  but found data"),
        (b"exec(open", "Header mismatch: Expected RIFF but found exec"),
    ]
    with tf.Graph().as_default():
        c = tf.placeholder(tf.string)
        audio = tf.audio.decode_wav(c).audio
        with tf.Session() as s:
            for data, msg in cases:
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    s.run(audio, {c: data})
                assert e.value.message.split("\n")[0] == msg
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^contents must be scalar, got shape \[1\]"):
                s.run(audio, {c: [b"x"]})
            # an 18-byte fmt chunk and a chunk before the data are read (TF 1.15's samples)
            got = s.run(audio, {c: _wav(fmt_size=18)})
            np.testing.assert_array_equal(got[:, 0] * 32768, [1, -2, 300, -32768])
            got = s.run(audio, {c: _wav(chunks=[(b"LIST", b"abcd"),
                                                (b"data", struct.pack("<2h", 5, 6))])})
            np.testing.assert_array_equal(got[:, 0] * 32768, [5, 6])
        with pytest.raises(ValueError, match=r"^Shape must be rank 0 but is rank 1"):
            tf.audio.decode_wav([b"x", b"y"])


def test_encode_wav_errors_are_tfs():
    # TF 1.15: an empty audio tensor has no buffer ("audio is null"); the int32 rate is read
    # as an unsigned size; ranks are checked by the shape function, else by the kernel.
    with tf.Graph().as_default():
        with tf.Session() as s:
            for audio, rate, msg in [
                    (tf.zeros([0, 1]), 8000, "audio is null"),
                    (tf.zeros([3, 0]), 8000, "audio is null"),
                    (tf.zeros([3, 1]), 0, "sample_rate must be in (0, 2^32), got: 0"),
                    (tf.zeros([3, 1]), -5,
                     "sample_rate must be in (0, 2^32), got: 18446744073709551611")]:
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    s.run(tf.audio.encode_wav(audio, rate))
                assert e.value.message.split("\n")[0] == msg
            a, r = tf.placeholder(tf.float32), tf.placeholder(tf.int32)
            wav = tf.audio.encode_wav(a, r)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^audio must be 2-dimensional\[3\]"):
                s.run(wav, {a: np.zeros(3), r: 5})
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=r"^Input sample_rate should be a scalar tensor, got \[1\] "
                                     r"instead\."):
                s.run(wav, {a: np.zeros((3, 1)), r: [5]})
        with pytest.raises(ValueError, match=r"^Shape must be rank 2 but is rank 1 for "):
            tf.audio.encode_wav(tf.zeros([3]), 5)
        with pytest.raises(ValueError, match=r"^Shape must be rank 0 but is rank 1 for "):
            tf.audio.encode_wav(tf.zeros([3, 1]), [5])


def test_ctc_loss_dense_labels_error_and_unique_labels_list():
    # TF 1.15's words for labels that are not a SparseTensor (TF 2.x's differ), and
    # ctc_unique_labels returns map_fn's list.
    with tf.Graph().as_default():
        logits = tf.zeros([4, 1, 3])
        with pytest.raises(TypeError) as e:
            tf.nn.ctc_loss(tf.constant([[1]]), logits, [4])
        assert str(e.value) == "Expected labels (first argument) to be a SparseTensor"
        out = tf.nn.ctc_unique_labels(tf.constant([[3, 4, 4, 3], [5, 0, 5, 0]]))
        assert isinstance(out, list)
        with tf.Session() as s:
            uniq, idx = s.run(out)
        np.testing.assert_array_equal(uniq, [[3, 4, 0, 0], [5, 0, 0, 0]])
        np.testing.assert_array_equal(idx, [[0, 1, 1, 0], [0, 1, 0, 1]])


def test_overlap_and_add_is_tfs_composition():
    # TF 1.15 builds overlap_and_add from pad/reshape/transpose/sum ops: the result is
    # "overlap_and_add/strided_slice_4:0" (inverse_stft's too), its width static only when
    # every dimension is; frame_step's errors are TF's.
    with tf.Graph().as_default():
        frames = np.random.RandomState(2).randn(2, 5, 7).astype(np.float32)
        y = tf.signal.overlap_and_add(tf.constant(frames), 3)
        assert y.name == "overlap_and_add/strided_slice_4:0"
        assert y.get_shape().as_list() == [2, 19]
        want = np.zeros((2, 19), np.float32)
        for i in range(5):
            want[:, 3 * i:3 * i + 7] += frames[:, i]
        with tf.Session() as s:
            np.testing.assert_allclose(s.run(y), want, rtol=1e-6, atol=1e-6)
        ph = tf.placeholder(tf.float32, [None, 5, 16])
        assert tf.signal.overlap_and_add(ph, 8).get_shape().as_list() == [None, None]
        inv = tf.signal.inverse_stft(tf.placeholder(tf.complex64, [None, 11, 9]), 16, 8)
        assert inv.name.endswith("/overlap_and_add/strided_slice_4:0")
        with pytest.raises(ValueError, match=r"^Shape \(1,\) must have rank 0$"):
            tf.signal.overlap_and_add(tf.zeros([3, 4]), [2])
        with pytest.raises(ValueError, match=r"^frame_step must be an integer. Got "
                                             r"<dtype: 'float32'>$"):
            tf.signal.overlap_and_add(tf.zeros([3, 4]), 2.0)


def test_window_and_mfcc_graphs_are_tfs():
    # TF 1.15: a constant-length window ends in its "sub_2" (length 1 is ones([1])), a
    # run-time length goes through a cond; MFCCs of zero mel bins and an unknown DCT type
    # raise TF's words.
    with tf.Graph().as_default():
        assert tf.signal.hann_window(6).name == "hann_window/sub_2:0"
        assert tf.signal.hamming_window(5, dtype=tf.float64).name == "hamming_window/sub_2:0"
        assert tf.signal.hann_window(1).name == "hann_window_1/ones:0"
        n = tf.placeholder(tf.int32, [])
        w = tf.signal.hann_window(n, periodic=False)
        with tf.Session() as s:
            assert s.run(w, {n: 1}).tolist() == [1.0]
            np.testing.assert_allclose(s.run(w, {n: 5}), [0.0, 0.5, 1.0, 0.5, 0.0], atol=1e-7)
        with pytest.raises(ValueError, match=r"^Shape \(1,\) must have rank 0$"):
            tf.signal.hann_window([3])
        z = tf.zeros([3, 0])
        with pytest.raises(ValueError) as e:
            tf.signal.mfccs_from_log_mel_spectrograms(z)
        assert str(e.value) == f"num_mel_bins must be positive. Got: {z}"
        with pytest.raises(ValueError, match=r"^Only Types I, II and III \(I\)DCT are "
                                             r"supported\.$"):
            tf.signal.dct(tf.zeros([4]), type=5)
