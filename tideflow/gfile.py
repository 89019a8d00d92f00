"""``tf.gfile``: TF 1.x's file API on the local filesystem (explicit re-exports only).

It also carries the lower-case names of ``tf.io.gfile`` (TF 1.13+), which is this module; they
take TF 1.15's ``tf.io.gfile`` parameter names (``path``, ``src``/``dst``, ``topdown``).
"""

from tideflow.framework.file_io import FileIO as FastGFile
from tideflow.framework.file_io import FileIO as GFile
from tideflow.framework.file_io import FileIO as Open
from tideflow.framework.file_io import copy as Copy
from tideflow.framework.file_io import copy_v2 as copy
from tideflow.framework.file_io import create_dir as MkDir
from tideflow.framework.file_io import create_dir_v2 as mkdir
from tideflow.framework.file_io import delete_file as Remove
from tideflow.framework.file_io import delete_file_v2 as remove
from tideflow.framework.file_io import delete_recursively as DeleteRecursively
from tideflow.framework.file_io import delete_recursively_v2 as rmtree
from tideflow.framework.file_io import file_exists as Exists
from tideflow.framework.file_io import file_exists_v2 as exists
from tideflow.framework.file_io import get_matching_files as Glob
from tideflow.framework.file_io import get_matching_files_v2 as glob
from tideflow.framework.file_io import is_directory as IsDirectory
from tideflow.framework.file_io import is_directory_v2 as isdir
from tideflow.framework.file_io import list_directory as ListDirectory
from tideflow.framework.file_io import list_directory_v2 as listdir
from tideflow.framework.file_io import recursive_create_dir as MakeDirs
from tideflow.framework.file_io import recursive_create_dir_v2 as makedirs
from tideflow.framework.file_io import rename as Rename
from tideflow.framework.file_io import rename_v2 as rename
from tideflow.framework.file_io import stat as Stat
from tideflow.framework.file_io import stat_v2 as stat
from tideflow.framework.file_io import walk as Walk
from tideflow.framework.file_io import walk_v2 as walk


def join(path, *paths):
    """Joins path components (``tf.io.gfile.join``)."""
    import os

    return os.path.join(path, *paths)


def get_registered_schemes():
    """The filesystem schemes this build reads: local paths only."""
    return ["", "file"]


__all__ = [
    "Copy",
    "DeleteRecursively",
    "Exists",
    "FastGFile",
    "GFile",
    "Glob",
    "IsDirectory",
    "ListDirectory",
    "MakeDirs",
    "MkDir",
    "Open",
    "Remove",
    "Rename",
    "Stat",
    "Walk",
    "copy",
    "exists",
    "get_registered_schemes",
    "glob",
    "isdir",
    "join",
    "listdir",
    "makedirs",
    "mkdir",
    "remove",
    "rename",
    "rmtree",
    "stat",
    "walk",
]
