"""``tensorflow.python.data.util.nest``: nest over ``tf.data`` element structures.

Unlike ``tf.nest``, tuples, namedtuples and dicts nest but a list is one leaf (tf.data turns
a list into one tensor), so ``[1, 2]`` and ``np.array([1, 2])`` have the same structure.
"""

import collections.abc

from tideflow.ops import dataset_structure as ds


def is_sequence(seq):
    """True for what tf.data descends into: tuples, namedtuples and dicts (not lists)."""
    return ds.is_seq(seq)


def flatten(nest):
    """The leaves of ``nest`` (dict values by sorted key); a non-sequence is one leaf."""
    return ds.flatten(nest)


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` (a list or tuple of leaves) arranged as ``structure``."""
    if not isinstance(flat_sequence, (list, tuple)):
        raise TypeError("flat_sequence must be a sequence")
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError(f"Structure is a scalar but len(flat_sequence) == "
                             f"{len(flat_sequence)} > 1")
        return flat_sequence[0]
    return ds.pack(structure, flat_sequence)


def _check_types(a, b):
    both_dicts = isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping)
    if is_sequence(a) and type(a) is not type(b) and not both_dicts:
        raise TypeError(f"The two namedtuples don't have the same sequence type. First "
                            f"structure has type {type(a)}, while second structure has type "
                            f"{type(b)}")
    if isinstance(a, collections.abc.Mapping):
        for k in a:
            _check_types(a[k], b[k])
    elif is_sequence(a):
        for x, y in zip(a, b):
            _check_types(x, y)


def assert_same_structure(nest1, nest2, check_types=True):
    """Raises ValueError/TypeError unless the two nests have the same structure (and, with
    ``check_types``, the same sequence types at each level)."""
    ds.assert_same_structure(nest1, nest2)
    if check_types:
        _check_types(nest1, nest2)


def map_structure(func, *structure, **check_types_dict):
    """``func`` applied to the corresponding leaves of the structures, in their shape."""
    if not structure:
        raise ValueError("Must provide at least one structure")
    check_types = check_types_dict.pop("check_types", True)
    if check_types_dict:
        raise ValueError("Only valid keyword argument is check_types")
    for other in structure[1:]:
        assert_same_structure(structure[0], other, check_types=check_types)
    flats = [flatten(s) for s in structure]
    return pack_sequence_as(structure[0], [func(*xs) for xs in zip(*flats)])


def assert_shallow_structure(shallow_tree, input_tree, check_types=True):
    """Raises unless ``input_tree`` nests like ``shallow_tree`` down to its leaves."""
    ds.flatten_up_to(shallow_tree, input_tree)
    if check_types and is_sequence(shallow_tree) and not isinstance(
            input_tree, type(shallow_tree)) and not isinstance(
            input_tree, collections.abc.Mapping):
        raise TypeError(f"The two structures don't have the same sequence type. Input "
                        f"structure has type {type(input_tree)}, while shallow structure has "
                        f"type {type(shallow_tree)}.")


def flatten_up_to(shallow_tree, input_tree):
    """``input_tree`` flattened down to the leaves of ``shallow_tree``."""
    assert_shallow_structure(shallow_tree, input_tree)
    return ds.flatten_up_to(shallow_tree, input_tree)


def map_structure_up_to(shallow_tree, func, *inputs):
    """``func`` applied to the parts of ``inputs`` at each leaf of ``shallow_tree``."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    flats = [flatten_up_to(shallow_tree, tree) for tree in inputs]
    return pack_sequence_as(shallow_tree, [func(*xs) for xs in zip(*flats)])
