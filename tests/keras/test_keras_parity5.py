"""tf.keras parity with TF 1.15's graph-mode Keras, checked program by program against
tf_keras 2.x run under ``tf.compat.v1`` with v2 behaviour off (the closest live reference).
Expected texts quoted here were observed there (or are TF 1.15's, where tf_keras's changed)."""

import hashlib
import os
import tarfile
import zipfile

import pytest

import tideflow as tf

keras = tf.keras
K = keras.backend
L = keras.layers


# -- Dense refuses integer inputs ---------------------------------------------------------------

@pytest.mark.parametrize("make", ["layers", "keras"])
def test_dense_on_int32_input_is_tf_type_error(make):
    x = tf.placeholder(tf.int32, [None, 3])
    with pytest.raises(TypeError, match=r"Unable to build `Dense` layer with non-floating "
                                        r"point dtype <dtype: 'int32'>"):
        if make == "layers":
            tf.layers.dense(x, 2)
        else:
            L.Dense(2)(x)


def test_dense_with_float_dtype_given_takes_int_input_cast_by_user():
    # a float64 layer on float64 input builds a float64 kernel
    x = tf.placeholder(tf.float64, [None, 3])
    y = L.Dense(2)(x)
    assert y.dtype == tf.float64


# -- tf.keras.utils.get_file: file:// origins, the cache, archives, hashes ---------------------

@pytest.fixture
def archive(tmp_path):
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.txt").write_text("hello")
    tar_path = tmp_path / "data.tar.gz"
    with tarfile.open(tar_path, "w:gz") as t:
        t.add(src / "a.txt", arcname="data/a.txt")
    zip_path = tmp_path / "z.zip"
    with zipfile.ZipFile(zip_path, "w") as z:
        z.write(src / "a.txt", arcname="zz/a.txt")
    cache = tmp_path / "cache"
    cache.mkdir()
    return tar_path, zip_path, str(cache)


def test_get_file_fetches_file_url_into_cache_and_checks_md5(archive, capsys):
    tar_path, _, cache = archive
    md5 = hashlib.md5(tar_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("data.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             md5_hash=md5)
    assert p == os.path.join(cache, "datasets", "data.tar.gz")
    with open(p, "rb") as f:
        assert f.read() == tar_path.read_bytes()
    assert "Downloading data from file://" in capsys.readouterr().out
    # cached now: an unreachable origin is not asked again
    p2 = keras.utils.get_file("data.tar.gz", "http://127.0.0.1:9/x", cache_dir=cache,
                              md5_hash=md5)
    assert p2 == p
    assert "Downloading" not in capsys.readouterr().out


def test_get_file_untar_and_extract(archive):
    tar_path, zip_path, cache = archive
    p = keras.utils.get_file("data", "file://" + str(tar_path), untar=True, cache_dir=cache)
    assert p == os.path.join(cache, "datasets", "data")  # the folder, next to data.tar.gz
    assert sorted(os.listdir(os.path.join(cache, "datasets"))) == ["data", "data.tar.gz"]
    with open(os.path.join(p, "a.txt")) as f:
        assert f.read() == "hello"
    sha = hashlib.sha256(zip_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("z.zip", "file://" + str(zip_path), extract=True,
                             cache_subdir="sub", cache_dir=cache, file_hash=sha)
    assert p == os.path.join(cache, "sub", "z.zip")
    assert sorted(os.listdir(os.path.join(cache, "sub"))) == ["z.zip", "zz"]
    assert keras.utils.validate_file(p, sha)
    assert not keras.utils.validate_file(p, "0" * 32)


def test_get_file_failures_name_the_url_and_leave_nothing(archive, tmp_path):
    tar_path, _, cache = archive
    with pytest.raises(Exception, match=r"URL fetch failure on http://127\.0\.0\.1:9/nope\.bin"):
        keras.utils.get_file("nope.bin", "http://127.0.0.1:9/nope.bin", cache_dir=cache)
    missing = "file://" + str(tmp_path / "missing.bin")
    with pytest.raises(Exception, match="URL fetch failure on " + missing):
        keras.utils.get_file("nope2.bin", missing, cache_dir=cache)
    assert not os.path.exists(os.path.join(cache, "datasets", "nope.bin"))
    assert not os.path.exists(os.path.join(cache, "datasets", "nope2.bin"))
    with pytest.raises(ValueError, match="Incomplete or corrupted file detected"):
        keras.utils.get_file("bad.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             file_hash="0" * 64)


def test_get_file_redownloads_a_cached_file_whose_hash_differs(archive, capsys):
    tar_path, _, cache = archive
    os.makedirs(os.path.join(cache, "datasets"))
    stale = os.path.join(cache, "datasets", "data.tar.gz")
    with open(stale, "wb") as f:
        f.write(b"stale")
    sha = hashlib.sha256(tar_path.read_bytes()).hexdigest()
    p = keras.utils.get_file("data.tar.gz", "file://" + str(tar_path), cache_dir=cache,
                             file_hash=sha)
    assert "so we will re-download the data" in capsys.readouterr().out
    with open(p, "rb") as f:
        assert f.read() == tar_path.read_bytes()
