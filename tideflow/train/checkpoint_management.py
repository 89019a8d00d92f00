"""The ``checkpoint`` state file of a checkpoint directory (a text CheckpointState proto) and the
helpers that find, time and delete checkpoints (``tf.train.latest_checkpoint`` and friends).
"""

import contextlib
import glob
import os
import re

from google.protobuf import text_format

from tideflow.framework import errors
from tideflow.protos import checkpoint_state_pb2, saver_pb2
from tideflow.train import checkpoint_format

CheckpointState = checkpoint_state_pb2.CheckpointState


def _state_filename(save_dir, latest_filename):
    return os.path.join(save_dir, latest_filename or "checkpoint")


def generate_checkpoint_state_proto(save_dir, model_checkpoint_path,
                                    all_model_checkpoint_paths=None,
                                    all_model_checkpoint_timestamps=None,
                                    last_preserved_timestamp=None):
    """A CheckpointState; paths are made relative to ``save_dir`` when it is relative."""
    # as TF, a list passed in gets the model path appended in place when it does not end with it
    paths = all_model_checkpoint_paths if isinstance(all_model_checkpoint_paths, list) else list(
        all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        from tideflow import logging
        logging.info("%s is not in all_model_checkpoint_paths. Manually adding it.",
                     model_checkpoint_path)
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{paths} and timestamps {all_model_checkpoint_timestamps})"
        )
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    state = CheckpointState(model_checkpoint_path=model_checkpoint_path,
                            all_model_checkpoint_paths=paths,
                            all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
                            last_preserved_timestamp=last_preserved_timestamp)
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            latest_filename=None, all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Writes the ``checkpoint`` state file of ``save_dir`` (atomically)."""
    update_checkpoint_state_internal(
        save_dir=save_dir, model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths,
        latest_filename=latest_filename,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)


def update_checkpoint_state_internal(save_dir, model_checkpoint_path,
                                     all_model_checkpoint_paths=None, latest_filename=None,
                                     save_relative_paths=False,
                                     all_model_checkpoint_timestamps=None,
                                     last_preserved_timestamp=None):
    """update_checkpoint_state, optionally writing paths relative to ``save_dir``."""
    state_file = _state_filename(save_dir, latest_filename)
    paths = list(all_model_checkpoint_paths or [])
    if save_relative_paths:
        def rel(p):
            return os.path.relpath(p, save_dir) if os.path.isabs(p) else p

        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp)
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint "
            "state.  Please use a different save path."
        )
    try:
        checkpoint_format.atomic_write(state_file, text_format.MessageToString(state))
    except FileNotFoundError as e:  # a missing directory: TF's file system error, which names
        # the temporary file it could not open
        raise errors.NotFoundError(None, None,
                                   f"{e.filename}; No such file or directory") from None


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of ``checkpoint_dir`` (paths made absolute), or None."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = _state_filename(checkpoint_dir, latest_filename)
    from tideflow import logging

    try:
        with open(path, encoding="utf-8") as f:
            content = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        logging.warning("%s: %s", type(e).__name__, e)
        logging.warning("%s: Checkpoint ignored", path)
        return None
    state = CheckpointState()
    try:
        text_format.Merge(content, state)
    except text_format.ParseError as e:
        # the message names the proto as TF's package does ("tensorflow.CheckpointState")
        logging.warning("%s: %s", type(e).__name__,
                        str(e).replace('"tideflow.CheckpointState"',
                                       '"tensorflow.CheckpointState"'))
        logging.warning("%s: Checkpoint ignored", path)
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, p in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(p):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, p)
    return state


def _prefix_files(prefix, version=saver_pb2.SaverDef.V2):
    if version == saver_pb2.SaverDef.V2:
        return glob.glob(glob.escape(prefix) + checkpoint_format.INDEX_SUFFIX)
    return glob.glob(prefix)


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint named by the state file, or None."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        if checkpoint_exists(state.model_checkpoint_path):
            return state.model_checkpoint_path
        from tideflow import logging

        logging.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None


def checkpoint_exists(checkpoint_prefix):
    """True when a complete checkpoint (its index) exists at ``checkpoint_prefix``."""
    checkpoint_prefix = os.fspath(checkpoint_prefix)
    if isinstance(checkpoint_prefix, bytes):
        checkpoint_prefix = checkpoint_prefix.decode()
    if _prefix_files(checkpoint_prefix):
        return True
    # a glob pattern naming checkpoints; then, as TF's V1 fallback, any file the prefix
    # matches itself (a V1 checkpoint, or a ``.meta`` file passed as the prefix)
    return bool(glob.glob(checkpoint_prefix + checkpoint_format.INDEX_SUFFIX)
                or glob.glob(checkpoint_prefix))


checkpoint_exists_internal = checkpoint_exists


def get_checkpoint_mtimes(checkpoint_prefixes):
    """The modification times of the checkpoints that exist (their index files)."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for f in _prefix_files(prefix) or glob.glob(prefix + checkpoint_format.INDEX_SUFFIX):
            with contextlib.suppress(OSError):
                mtimes.append(os.stat(f).st_mtime)
                break
    return mtimes


def remove_checkpoint(checkpoint_prefix, checkpoint_format_version=saver_pb2.SaverDef.V2,
                      meta_graph_suffix="meta"):
    """Deletes a checkpoint's files (index first) and its meta graph."""
    checkpoint_format.remove(checkpoint_prefix)
    if checkpoint_format_version != saver_pb2.SaverDef.V2:
        with contextlib.suppress(FileNotFoundError, IsADirectoryError):
            os.remove(checkpoint_prefix)
    with contextlib.suppress(FileNotFoundError):
        os.remove(meta_graph_filename(checkpoint_prefix, meta_graph_suffix))


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """``<prefix>.meta`` for a checkpoint (a sharded V1 name loses its -?????-of-N part)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return f"{basename}.{meta_graph_suffix}"


def _not_found(path):
    return errors.NotFoundError(
        None, None, f"Unsuccessful TensorSliceReader constructor: Failed to find any matching "
        f"files for {path}")


def __getattr__(name):
    # TF keeps CheckpointManager in this module; tideflow's sits with tf.train.Checkpoint
    # (which imports this module)
    if name == "CheckpointManager":
        from tideflow.train import trackable_checkpoint

        return trackable_checkpoint.CheckpointManager
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
