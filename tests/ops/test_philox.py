"""TF's random numbers: Philox4x32-10 against the Random123 known-answer vectors, the seeded
random ops' streams and distributions, and (optionally) the very numbers real TF prints."""

import json
import os
import subprocess
import textwrap

import numpy as np
import pytest

import tideflow as tf
from tideflow.ops import philox

# counter words, key words -> output words (Random123's kat_vectors for philox4x32-10)
KAT = [
    ((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
    ((0xFFFFFFFF,) * 4, (0xFFFFFFFF, 0xFFFFFFFF), (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
    ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
     (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1)),
]


@pytest.mark.parametrize(("ctr", "key", "expected"), KAT)
def test_philox4x32_10_known_answers(ctr, key, expected):
    got = philox.philox4x32(np.array([ctr], np.uint32), key)[0]
    assert tuple(int(v) for v in got) == expected


def test_counters_carry_across_words_and_chunks():
    base = (5 << 64) | 0xFFFFFFFFFFFFFFFE
    words = philox._counters(base, np.arange(4, dtype=np.uint64))
    assert words[:, 2].tolist() == [5, 5, 6, 6]
    assert words[:, 0].tolist() == [0xFFFFFFFE, 0xFFFFFFFF, 0, 1]
    # more rows than one pass: each row still its own counter
    n = philox._CHUNK + 7
    ctr = np.zeros((n, 4), np.uint32)
    ctr[:, 0] = np.arange(n)
    blocks = philox.philox4x32(ctr, (1, 2))
    np.testing.assert_array_equal(blocks[-3:], np.concatenate(
        [philox.philox4x32(ctr[i:i + 1], (1, 2)) for i in range(n - 3, n)]))


def test_stream_reserves_256_counters_per_output():
    s = philox.PhiloxStream(7, 3)
    assert s.counter == 3 << 64 and s.key == (7, 0)
    assert s.reserve(10) == 3 << 64
    assert s.counter == (3 << 64) + 2560


def test_uniform_transforms_and_ranges():
    s = philox.PhiloxStream(1, 2)
    for dt in (np.float16, np.float32, np.float64):
        u = philox.uniform(s, (4000,), dt)
        assert u.dtype == dt and u.min() >= 0 and u.max() < 1
        assert abs(float(u.mean()) - 0.5) < 0.03
    ints = philox.uniform_int(s, (5000,), -3, 4, np.int32)
    assert set(np.unique(ints)) == set(range(-3, 4))
    big = philox.uniform_int(s, (100,), 0, 10 ** 15, np.int64)
    assert big.dtype == np.int64 and big.max() < 10 ** 15 and big.max() > 10 ** 12


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_normal_and_truncated_moments(dt):
    s = philox.PhiloxStream(3, 4)
    n = philox.normal(s, (40001,), dt)
    assert n.dtype == dt and n.shape == (40001,)
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03
    t = philox.truncated_normal(s, (40003,), dt)
    assert t.dtype == dt and np.abs(t).max() < 2
    # the standard normal truncated to (-2, 2) has standard deviation 0.8796
    assert abs(t.std() - 0.8796) < 0.02


def test_seeded_ops_repeat_per_session_and_continue_across_runs():
    def draws():
        with tf.Graph().as_default():
            tf.set_random_seed(5)
            ops = [tf.random_uniform([3], seed=1), tf.random_normal([3], seed=2),
                   tf.truncated_normal([3], seed=3), tf.random_uniform([3], 0, 9, tf.int32, seed=4)]
            with tf.Session() as sess:
                return [sess.run(ops) for _ in range(2)]

    first, second = draws(), draws()
    for a, b in zip(first, second, strict=True):
        for x, y in zip(a, b, strict=True):
            np.testing.assert_array_equal(x, y)
    assert not np.array_equal(first[0][0], first[1][0])
    # the first run is the stream's first 3 outputs, the second starts 3 * 256 counters on
    stream = philox.PhiloxStream(5, 1)
    np.testing.assert_array_equal(first[0][0], philox.uniform(stream, (3,), np.float32))
    np.testing.assert_array_equal(first[1][0], philox.uniform(stream, (3,), np.float32))


_TF_SCRIPT = textwrap.dedent("""
    import json, sys
    import tensorflow.compat.v1 as tf
    tf.disable_v2_behavior()
    tf.set_random_seed(1)
    ops = [tf.random_uniform([6], seed=2), tf.random_normal([5], seed=3),
           tf.truncated_normal([7], seed=4), tf.random_uniform([3], dtype=tf.float64, seed=5),
           tf.random_normal([3], dtype=tf.float64, seed=6),
           tf.random_uniform([5], 0, 100, dtype=tf.int32, seed=7),
           tf.random_uniform([3], 0, 10**12, dtype=tf.int64, seed=8)]
    with tf.Session() as s:
        json.dump([v.tolist() for v in s.run(ops)] + [s.run(ops[0]).tolist()], sys.stdout)
""")


@pytest.mark.skipif(not os.environ.get("TIDEFLOW_TF_PYTHON"),
                    reason="set TIDEFLOW_TF_PYTHON to a Python with tensorflow to compare")
def test_same_numbers_as_real_tensorflow():
    out = subprocess.run([os.environ["TIDEFLOW_TF_PYTHON"], "-c", _TF_SCRIPT],
                         capture_output=True, text=True, check=True, timeout=300)
    expected = json.loads(out.stdout)
    with tf.Graph().as_default():
        tf.set_random_seed(1)
        ops = [tf.random_uniform([6], seed=2), tf.random_normal([5], seed=3),
               tf.truncated_normal([7], seed=4), tf.random_uniform([3], dtype=tf.float64, seed=5),
               tf.random_normal([3], dtype=tf.float64, seed=6),
               tf.random_uniform([5], 0, 100, dtype=tf.int32, seed=7),
               tf.random_uniform([3], 0, 10 ** 12, dtype=tf.int64, seed=8)]
        with tf.Session() as sess:
            got = [v.tolist() for v in sess.run(ops)] + [sess.run(ops[0]).tolist()]
    for g, e in zip(got, expected, strict=True):
        # floats may differ in their last bit (sin, cos and log rounding)
        np.testing.assert_allclose(g, e, rtol=2e-6, atol=1e-7)
    assert got[5] == expected[5] and got[6] == expected[6]



@pytest.mark.parametrize("dt", [np.float16, np.float32, np.float64])
def test_passes_do_not_change_the_numbers(monkeypatch, dt):
    # filled pass by pass (bounded temporaries): the same numbers whatever the pass size
    def draw():
        out = []
        for fn in (philox.uniform, philox.normal, philox.truncated_normal):
            out.append(fn(philox.PhiloxStream(9, 4), (7, 13), dt))
        out.append(philox.uniform_int(philox.PhiloxStream(9, 4), (91,), -5, 1000, np.int32))
        out.append(philox.uniform_int(philox.PhiloxStream(9, 4), (91,), 0, 10 ** 12, np.int64))
        return out

    whole = draw()
    monkeypatch.setattr(philox, "_GROUPS_PER_PASS", 3)
    for a, b in zip(whole, draw(), strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype
