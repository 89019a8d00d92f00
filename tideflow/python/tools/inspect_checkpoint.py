"""``tensorflow.python.tools.inspect_checkpoint``: print what a checkpoint holds."""

import re

import numpy as np

from tideflow.train.checkpoint_utils import NewCheckpointReader


def _count_total_params(reader, count_exclude_pattern=""):
    shapes = reader.get_variable_to_shape_map()
    if count_exclude_pattern:
        pattern = re.compile(count_exclude_pattern)
        excluded = {k: v for k, v in shapes.items() if pattern.search(k)}
        shapes = {k: v for k, v in shapes.items() if k not in excluded}
        n_params = sum(int(np.prod(v)) for v in excluded.values())
        print(f"# Excluding {len(excluded)} tensors ({n_params} params) that match "
              f"{count_exclude_pattern} when counting.")
    return int(sum(int(np.prod(v)) for v in shapes.values()))


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors,
                                     all_tensor_names=False, count_exclude_pattern=""):
    """Prints the checkpoint ``file_name`` (a prefix), as TF 1.15: every tensor's name (and
    value with ``all_tensors``), the one ``tensor_name`` and its value, or the reader's summary
    when neither is asked; then the total number of parameters. Errors are printed, not
    raised."""
    try:
        reader = NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            for key in sorted(reader.get_variable_to_shape_map()):
                print("tensor_name: ", key)
                if all_tensors:
                    print(reader.get_tensor(key))
        elif not tensor_name:
            text = reader.debug_string()
            # strict, as TF: a partitioned variable's binary slice keys fail the decode, and
            # TF 1.15 prints that UnicodeDecodeError instead of the listing
            print(text.decode("utf-8") if isinstance(text, bytes) else text)
        else:
            # (a missing name: the reader's NotFoundError, printed below as TF prints it)
            print("tensor_name: ", tensor_name)
            print(reader.get_tensor(tensor_name))
        total = _count_total_params(reader, count_exclude_pattern=count_exclude_pattern)
        print(f"# Total number of params: {total}")
    except Exception as e:  # noqa: BLE001 - TF prints whatever went wrong
        print(str(e))
        if "Data loss" in str(e) and any(s in file_name for s in (".index", ".meta", ".data")):
            print("\nIt's likely that this is a V2 checkpoint and you need to provide the "
                  "filename\n*prefix*.  Try removing the '.' and extension.  Try:\n"
                  "inspect checkpoint --file_name = {}".format(
                      ".".join(file_name.split(".")[:-1])))


def parse_numpy_printoption(kv_str):
    """Sets one NumPy print option from ``"name=value"`` (the tool's --printoptions)."""
    k_v = kv_str.split("=", 1)
    if len(k_v) != 2 or not k_v[0]:
        raise ValueError(f"Setting should be name=value, got {kv_str!r}")
    k, v = k_v
    printoptions = np.get_printoptions()
    if k not in printoptions:
        raise ValueError(f'"{k}" is not a valid printoption.')
    v_type = type(printoptions[k])
    if v_type is type(None):
        raise ValueError(f'Setting "{k}" from the command line is not supported.')
    try:
        value = (v == "True") if v_type is bool else v_type(v)
    except ValueError as e:
        raise ValueError(str(e)) from None
    np.set_printoptions(**{k: value})
