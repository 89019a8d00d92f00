"""tf.gfile on real temporary files: reading, writing, listing, moving, errors as TF's."""

import os

import pytest

from tideflow import gfile
from tideflow.framework import errors


def test_write_read_text_and_binary(tmp_path):
    p = str(tmp_path / "a.txt")
    with gfile.GFile(p, "w") as f:
        f.write("héllo\n")
        f.write(b"second line\nthird")
    with gfile.GFile(p) as f:
        assert f.read() == "héllo\nsecond line\nthird"
    with gfile.GFile(p, "rb") as f:
        assert f.read(2) == b"h\xc3"
        assert f.tell() == 2
        f.seek(0)
        assert f.readline() == "héllo\n".encode()
        assert f.readlines() == [b"second line\n", b"third"]
        assert f.readline() == b""
    with gfile.Open(p, "r") as f:
        assert list(f) == ["héllo\n", "second line\n", "third"]
        f.seek(-5, whence=2)
        assert f.read() == "third"
        f.seek(position=0)
        assert f.read(1) == "h"
    assert gfile.GFile(p).size() == len("héllo\nsecond line\nthird".encode())


def test_append_and_fastgfile(tmp_path):
    p = str(tmp_path / "log")
    with gfile.FastGFile(p, "wb") as f:
        f.write(b"1")
        f.flush()
        assert os.path.getsize(p) == 1
    with gfile.GFile(p, "a") as f:
        f.write("2")
    with gfile.GFile(p, "r+") as f:
        assert f.read() == "12"
    assert gfile.GFile(p, "rb").read() == b"12"


def test_mode_errors(tmp_path):
    p = str(tmp_path / "x")
    with pytest.raises(errors.InvalidArgumentError):
        gfile.GFile(p, "q")
    with pytest.raises(errors.PermissionDeniedError):
        gfile.GFile(p, "w").read()
    with pytest.raises(errors.NotFoundError, match="No such file"):
        gfile.GFile(str(tmp_path / "missing")).read()
    with pytest.raises(errors.PermissionDeniedError):
        gfile.GFile(str(tmp_path / "missing")).write("x")


def test_exists_stat_dirs(tmp_path):
    d = str(tmp_path / "a" / "b" / "c")
    assert not gfile.Exists(d)
    gfile.MakeDirs(d)
    gfile.MakeDirs(d)  # already there: fine
    assert gfile.Exists(d) and gfile.IsDirectory(d)
    gfile.MkDir(d)  # already there: no error either (TF ignores ALREADY_EXISTS)
    with pytest.raises(errors.NotFoundError):
        gfile.MkDir(str(tmp_path / "no" / "parent"))
    gfile.MkDir(str(tmp_path / "single"))
    f = os.path.join(d, "file.bin")
    with gfile.GFile(f, "wb") as w:
        w.write(b"12345")
    st = gfile.Stat(f)
    assert st.length == 5 and not st.is_directory
    assert st.mtime_nsec == os.stat(f).st_mtime_ns
    assert gfile.Stat(d).is_directory
    assert not gfile.IsDirectory(f)
    with pytest.raises(errors.NotFoundError):
        gfile.Stat(str(tmp_path / "nothing"))


def test_list_glob_walk(tmp_path):
    root = str(tmp_path)
    for name in ("a.txt", "b.txt", "c.csv", os.path.join("sub", "d.txt")):
        gfile.MakeDirs(os.path.dirname(os.path.join(root, name)))
        with gfile.GFile(os.path.join(root, name), "w") as f:
            f.write(name)
    assert sorted(gfile.ListDirectory(root)) == ["a.txt", "b.txt", "c.csv", "sub"]
    with pytest.raises(errors.NotFoundError):
        gfile.ListDirectory(os.path.join(root, "nope"))
    assert gfile.Glob(os.path.join(root, "*.txt")) == [os.path.join(root, "a.txt"),
                                                       os.path.join(root, "b.txt")]
    assert gfile.Glob([os.path.join(root, "*.csv"), os.path.join(root, "s*", "?.txt")]) == [
        os.path.join(root, "c.csv"), os.path.join(root, "sub", "d.txt")]
    assert gfile.Glob(os.path.join(root, "*.none")) == []
    walked = list(gfile.Walk(root))
    assert walked[0] == (root, ["sub"], ["a.txt", "b.txt", "c.csv"])
    assert walked[1] == (os.path.join(root, "sub"), [], ["d.txt"])
    assert [w[0] for w in gfile.Walk(root, in_order=False)] == [os.path.join(root, "sub"), root]
    assert list(gfile.Walk(os.path.join(root, "missing"))) == []


def test_copy_rename_remove(tmp_path):
    a, b, c = (str(tmp_path / n) for n in ("a", "b", "c"))
    with gfile.GFile(a, "w") as f:
        f.write("A")
    with gfile.GFile(b, "w") as f:
        f.write("B")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Copy(a, b)
    gfile.Copy(a, b, overwrite=True)
    assert gfile.GFile(b).read() == "A"
    gfile.Copy(a, c)
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Rename(a, c)
    with gfile.GFile(c, "w") as f:
        f.write("C")
    gfile.Rename(c, a, overwrite=True)
    assert gfile.GFile(a).read() == "C" and not gfile.Exists(c)
    with pytest.raises(errors.NotFoundError):
        gfile.Rename(c, a)
    with pytest.raises(errors.NotFoundError):
        gfile.Copy(c, str(tmp_path / "z"))
    gfile.Remove(a)
    assert not gfile.Exists(a)
    with pytest.raises(errors.NotFoundError):
        gfile.Remove(a)


def test_delete_recursively(tmp_path):
    d = str(tmp_path / "tree")
    gfile.MakeDirs(os.path.join(d, "x", "y"))
    with gfile.GFile(os.path.join(d, "x", "f"), "w") as f:
        f.write("1")
    gfile.DeleteRecursively(d)
    assert not gfile.Exists(d)
    with pytest.raises(errors.NotFoundError):
        gfile.DeleteRecursively(d)


def test_io_gfile_lowercase_names(tmp_path):
    import tideflow.io as tfio

    p = str(tmp_path / "f")
    assert tfio.gfile is gfile
    with tfio.gfile.GFile(p, "w") as f:
        f.write("x")
    assert tfio.gfile.exists(p) and tfio.gfile.listdir(str(tmp_path)) == ["f"]
    tfio.gfile.makedirs(str(tmp_path / "d" / "e"))
    assert tfio.gfile.isdir(str(tmp_path / "d"))
    tfio.gfile.rmtree(str(tmp_path / "d"))
    tfio.gfile.remove(p)
    assert tfio.gfile.glob(str(tmp_path / "*")) == []
