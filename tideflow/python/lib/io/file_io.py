"""``tensorflow.python.lib.io.file_io``: the file functions behind ``tf.gfile``."""

from tideflow.framework.file_io import (  # noqa: F401
    FileIO,
    FileStatistics,
    atomic_write_string_to_file,
    copy,
    create_dir,
    delete_file,
    delete_recursively,
    file_exists,
    filecmp,
    get_matching_files,
    is_directory,
    list_directory,
    read_file_to_string,
    recursive_create_dir,
    rename,
    stat,
    walk,
    write_string_to_file,
)
