"""``tf.train.warm_start`` and ``tf.train.VocabInfo``: initialize a new model's variables from
an earlier checkpoint, by name (or through a rename map), and with vocabulary remapping for
embedding-like variables whose rows (or columns) follow a vocabulary file.

Plain variables get the checkpoint's restore as their initializer (``init_from_checkpoint``).
For a remapped variable the checkpoint tensor is read and remapped when ``warm_start`` is called,
and the variable's initializer assigns the result: rows of words found in the old vocabulary
copy the old rows, the others (new words and out-of-vocabulary buckets) come from
``backup_initializer`` (zeros by default).
"""

import collections

import numpy as np

from tideflow import logging as tf_logging
from tideflow.framework import ops
from tideflow.train import checkpoint_utils


class VocabInfo(collections.namedtuple("VocabInfo", [
        "new_vocab", "new_vocab_size", "num_oov_buckets", "old_vocab", "old_vocab_size",
        "backup_initializer", "axis"])):
    """How to remap one variable's vocabulary axis when warm-starting it.

    ``new_vocab``/``old_vocab``: vocabulary files, one word per line (the row order of the new
    and old variable); ``new_vocab_size``: how many new words the variable has rows for;
    ``num_oov_buckets``: extra rows after them; ``old_vocab_size``: how many old words to use
    (-1: all); ``axis``: 0 (rows follow the vocabulary) or 1 (columns do).
    """

    def __new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab, old_vocab_size=-1,
                backup_initializer=None, axis=0):
        if axis not in (0, 1):
            raise ValueError(f"The only supported values for the axis argument are 0 and 1. "
                             f"Provided axis: {axis}")
        return super().__new__(cls, new_vocab, new_vocab_size, num_oov_buckets, old_vocab,
                               old_vocab_size, backup_initializer, axis)


def _read_vocab(path, size, what):
    from tideflow import gfile

    with gfile.GFile(path, "r") as f:
        words = [line.rstrip("\n") for line in f]
    if size is not None and size >= 0:
        if size > len(words):
            raise ValueError(f"warm_start: {what} {path} has {len(words)} entries, fewer than "
                             f"the {size} asked for")
        words = words[:size]
    return words


def _variables_to_warm_start(vars_to_warm_start):
    # a regex, or None (which matches as every name does), looks at the trainable variables
    if vars_to_warm_start is None or isinstance(vars_to_warm_start, str):
        tf_logging.info("Warm-starting variables only in TRAINABLE_VARIABLES.")
        return ops.get_collection(ops.GraphKeys.TRAINABLE_VARIABLES, scope=vars_to_warm_start)
    if isinstance(vars_to_warm_start, list):
        if all(isinstance(v, str) for v in vars_to_warm_start):
            found = []
            for pattern in vars_to_warm_start:
                found += ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope=pattern)
            return found
        if all(checkpoint_utils._is_variable(v) for v in vars_to_warm_start):
            return list(vars_to_warm_start)
        raise ValueError("If `vars_to_warm_start` is a list, it must be all `Variable` or all "
                         f"`str`.  Given types are {[type(v) for v in vars_to_warm_start]}")
    raise ValueError("`vars_to_warm_start must be a `list` or `str`.  Given type is "
                     f"{type(vars_to_warm_start)}")


def _base_name(var):
    name = var.op.name
    info = var._get_save_slice_info() if hasattr(var, "_get_save_slice_info") else None
    if info is not None:
        return info.full_name
    return name


def _remapped_value(var, full_shape, offsets, ckpt, prev_name, info):
    old = np.asarray(checkpoint_utils.load_variable(ckpt, prev_name))
    axis = info.axis
    new_words = _read_vocab(info.new_vocab, info.new_vocab_size, "new_vocab")
    old_words = _read_vocab(info.old_vocab, info.old_vocab_size, "old_vocab")
    index = {w: i for i, w in enumerate(old_words)}
    rows = full_shape[axis]
    if rows != len(new_words) + info.num_oov_buckets:
        raise ValueError(f"warm_start: variable {var.op.name} has {rows} entries along axis "
                         f"{axis}, but new_vocab_size + num_oov_buckets is "
                         f"{len(new_words)} + {info.num_oov_buckets}")
    if axis == 1:
        old = old.T
    other = full_shape[1 - axis]
    if old.ndim != 2 or old.shape[1] != other:
        raise ValueError(f"warm_start: checkpoint tensor {prev_name} of shape {list(old.shape)} "
                         f"does not fit variable {var.op.name} of shape {list(full_shape)}")
    if info.backup_initializer is not None:
        shape = [rows, other] if axis == 0 else [other, rows]
        with ops.Graph().as_default():
            from tideflow.runtime.session import Session

            init = info.backup_initializer(shape, dtype=var.dtype.base_dtype)
            with Session() as sess:
                backup = np.asarray(sess.run(init))
        if axis == 1:
            backup = backup.T
    else:
        backup = np.zeros([rows, other], dtype=var.dtype.base_dtype.as_numpy_dtype)
    out = np.array(backup, dtype=var.dtype.base_dtype.as_numpy_dtype)
    for i, w in enumerate(new_words):
        j = index.get(w)
        if j is not None and j < old.shape[0]:
            out[i] = old[j]
    if axis == 1:
        out = out.T
    part_shape = var.get_shape().as_list()
    sl = tuple(slice(o, o + n) for o, n in zip(offsets, part_shape))
    return out[sl]


def _set_constant_initializer(var, value):
    from tideflow.ops import state_ops
    from tideflow.ops.constant_op import constant

    g = var.graph
    with g.as_default(), ops.device(var.device), g.control_dependencies(None):
        c = constant(value, dtype=var.dtype.base_dtype, name="warm_start_value")
        init = state_ops.assign(var._ref(), c)
    # (a resource variable's assign is an op)
    var._initializer_op = init if isinstance(init, ops.Operation) else init.op
    var._initial_value = c


def warm_start(ckpt_to_initialize_from, vars_to_warm_start=".*", var_name_to_vocab_info=None,
               var_name_to_prev_var_name=None):
    """Makes the initializers of the chosen variables load from ``ckpt_to_initialize_from``.

    ``vars_to_warm_start``: a regex over trainable variable names (default: all), a list of
    regexes or names (over all global variables), a list of Variables, or None (only the
    trainable variables ``var_name_to_vocab_info`` names).
    ``var_name_to_prev_var_name`` renames (new name -> name in the checkpoint);
    ``var_name_to_vocab_info`` remaps vocabulary axes (:class:`VocabInfo`). Run the variables'
    initializers (``global_variables_initializer``) afterwards.
    """
    tf_logging.info(f"Warm-starting from: {ckpt_to_initialize_from}")
    vocab = dict(var_name_to_vocab_info or {})
    prev = dict(var_name_to_prev_var_name or {})
    found = _variables_to_warm_start(vars_to_warm_start)
    groups = {}
    for v in found:
        parts = groups.setdefault(_base_name(v), [])
        if v not in parts:  # a variable two patterns both select is warm-started once
            parts.append(v)
    used_vocab, used_prev = set(), set()
    ckpt_file = checkpoint_utils._checkpoint_filename(ckpt_to_initialize_from)
    vocabless = {}
    for name, parts in groups.items():
        prev_name = prev.get(name, name)
        if name in prev:
            used_prev.add(name)
        if name in vocab:
            used_vocab.add(name)
            info = vocab[name]
            for p in parts:
                slice_info = p._get_save_slice_info() if hasattr(p, "_get_save_slice_info") \
                    else None
                full = list(slice_info.full_shape) if slice_info is not None else \
                    p.get_shape().as_list()
                offsets = list(slice_info.var_offset) if slice_info is not None else [0] * len(
                    full)
                _set_constant_initializer(p, _remapped_value(p, full, offsets, ckpt_file,
                                                             prev_name, info))
            tf_logging.debug(f"Warm-started {name} from {prev_name} with vocabulary remapping")
            continue
        if not vars_to_warm_start:  # None (or ''): only the variables given a vocabulary
            continue
        vocabless[prev_name] = parts if len(parts) > 1 or (
            parts[0]._get_save_slice_info() is not None) else parts[0]
    # as TF, one call for them all: checked and loaded in the order of the checkpoint names
    checkpoint_utils.init_from_checkpoint(ckpt_to_initialize_from, vocabless)
    count = len(groups) if vars_to_warm_start else len(used_vocab)
    tf_logging.info("Warm-started %d variables.", count)
    unused = set(prev) - used_prev
    if unused:
        raise ValueError(f"You provided the following variables in var_name_to_prev_var_name "
                         f"that were not used: {unused}.  Perhaps you misspelled them?  Here is "
                         f"the list of viable variable names: {groups.keys()}")
    unused = set(vocab) - used_vocab
    if unused:
        raise ValueError(f"You provided the following variables in var_name_to_vocab_info that "
                         f"were not used: {unused}.  Perhaps you misspelled them?  Here is the "
                         f"list of viable variable names: {groups.keys()}")


__all__ = ["VocabInfo", "warm_start"]
