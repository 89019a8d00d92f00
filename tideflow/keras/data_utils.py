"""``tf.keras.utils.get_file`` and its helpers (``validate_file``), as TF 1.15's
``keras.utils.data_utils``: a file kept in Keras's cache (``~/.keras/<cache_subdir>``, or
``/tmp/.keras`` when that is not writable), fetched with ``urllib`` when it is absent or its
hash does not match, then optionally unpacked (tar, tar.gz, tar.bz2, zip).

Machines without network access still work with ``file://`` origins and with files already
in the cache; a fetch that fails raises TF's ``Exception('URL fetch failure on <origin>: ...')``
and leaves no partial file behind. A fetched file whose hash differs from the one given
raises ``ValueError`` (as later Keras does; TF 1.15 did not check a fresh download).
"""

import hashlib
import os
import shutil
import tarfile
import zipfile
from urllib.error import HTTPError, URLError
from urllib.request import urlretrieve


def _extract_archive(file_path, path=".", archive_format="auto"):
    """Unpacks ``file_path`` into ``path`` if it is an archive of one of ``archive_format``
    (``'auto'`` = ``['tar', 'zip']``; a string or a list); True when it was one."""
    if archive_format is None:
        return False
    if archive_format == "auto":
        archive_format = ["tar", "zip"]
    if isinstance(archive_format, str):
        archive_format = [archive_format]
    for kind in archive_format:
        if kind == "tar":
            is_match, opener = tarfile.is_tarfile, tarfile.open
        elif kind == "zip":
            is_match, opener = zipfile.is_zipfile, zipfile.ZipFile
        else:
            continue
        if not is_match(file_path):
            continue
        with opener(file_path) as archive:
            try:
                if kind == "tar" and hasattr(tarfile, "data_filter"):
                    archive.extractall(path, filter="data")  # no paths out of ``path``
                else:
                    archive.extractall(path)
            except (tarfile.TarError, RuntimeError, KeyboardInterrupt):
                if os.path.exists(path):
                    if os.path.isfile(path):
                        os.remove(path)
                    else:
                        shutil.rmtree(path)
                raise
        return True
    return False


def _hash_file(fpath, algorithm="sha256", chunk_size=65535):
    """The hex digest of a file (``algorithm``: ``'sha256'``, ``'md5'`` or ``'auto'``, which
    is sha256)."""
    hasher = hashlib.md5() if algorithm == "md5" else hashlib.sha256()
    with open(fpath, "rb") as f:
        for chunk in iter(lambda: f.read(chunk_size), b""):
            hasher.update(chunk)
    return hasher.hexdigest()


def validate_file(fpath, file_hash, algorithm="auto", chunk_size=65535):
    """Whether ``fpath``'s hash is ``file_hash`` (``'auto'``: sha256 for a 64-digit hash,
    else md5)."""
    if algorithm == "sha256" or (algorithm == "auto" and len(file_hash) == 64):
        hasher = "sha256"
    else:
        hasher = "md5"
    return str(_hash_file(fpath, hasher, chunk_size)) == str(file_hash)


def get_file(fname, origin, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None):
    """The path of ``fname`` in the cache, fetched from ``origin`` first when it is not
    there (or its ``file_hash``/``md5_hash`` differs). ``untar=True`` returns the folder
    ``fname`` unpacked from ``fname + '.tar.gz'``; ``extract=True`` unpacks the file next to
    itself and returns the file's path."""
    if cache_dir is None:
        cache_dir = os.path.join(os.path.expanduser("~"), ".keras")
    if md5_hash is not None and file_hash is None:
        file_hash = md5_hash
        hash_algorithm = "md5"
    datadir_base = os.path.expanduser(cache_dir)
    if not os.access(datadir_base, os.W_OK):
        datadir_base = os.path.join("/tmp", ".keras")
    datadir = os.path.join(datadir_base, cache_subdir)
    os.makedirs(datadir, exist_ok=True)

    if untar:
        untar_fpath = os.path.join(datadir, fname)
        fpath = untar_fpath + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    download = True
    if os.path.exists(fpath):
        download = False
        if file_hash is not None and not validate_file(fpath, file_hash,
                                                       algorithm=hash_algorithm):
            print("A local file was found, but it seems to be incomplete or outdated "
                  f"because the {hash_algorithm} file hash does not match the original "
                  f"value of {file_hash} so we will re-download the data.")
            download = True

    if download:
        print("Downloading data from", origin)
        error_msg = "URL fetch failure on {}: {} -- {}"
        try:
            try:
                urlretrieve(origin, fpath)
            except HTTPError as e:
                raise Exception(error_msg.format(origin, e.code, e.msg)) from e  # noqa: TRY002
            except URLError as e:
                raise Exception(  # noqa: TRY002 (TF raises a plain Exception)
                    error_msg.format(origin, e.errno, e.reason)) from e
        except (Exception, KeyboardInterrupt):
            if os.path.exists(fpath):
                os.remove(fpath)
            raise
        # (later Keras's check; TF 1.15 returned a fetched file unchecked)
        if file_hash is not None and not validate_file(fpath, file_hash,
                                                       algorithm=hash_algorithm):
            raise ValueError(f"Incomplete or corrupted file detected. The {hash_algorithm} "
                             f"file hash does not match the provided value of {file_hash}.")

    if untar:
        if not os.path.exists(untar_fpath):
            _extract_archive(fpath, datadir, archive_format="tar")
        return untar_fpath
    if extract:
        _extract_archive(fpath, datadir, archive_format)
    return fpath
