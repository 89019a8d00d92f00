"""``tf.resource_loader``: locating and reading data files shipped beside Python modules."""

import inspect as _inspect
import os as _os
import sys as _sys


def get_root_dir_with_all_resources():
    """The directory under which the calling program's data files are found (its script's)."""
    main = _sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return _os.path.dirname(_os.path.abspath(path)) if path else _os.getcwd()


def get_data_files_path():
    """The directory of the Python file that calls this function."""
    frame = _inspect.stack()[1]
    return _os.path.dirname(_os.path.abspath(frame.filename))


def get_path_to_datafile(path):
    """``path`` relative to the directory of the Python file that calls this function."""
    frame = _inspect.stack()[1]
    return _os.path.join(_os.path.dirname(_os.path.abspath(frame.filename)), path)


def load_resource(path):
    """The bytes of ``path``, relative to the tideflow package's parent directory (as TF's
    resources are relative to the tensorflow package's); IOError if it does not exist."""
    root = _os.path.dirname(_os.path.dirname(_os.path.abspath(__file__)))
    with open(_os.path.join(root, path.replace("/", _os.sep)), "rb") as f:
        return f.read()


def readahead_file_path(path, readahead="128M"):
    """``path`` unchanged (local files need no readahead)."""
    del readahead
    return path
