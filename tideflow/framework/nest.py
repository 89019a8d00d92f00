"""Nested structures (``tf.contrib.framework.nest``): flatten, pack and map over them.

Sequences are lists, tuples and namedtuples; mappings are dicts (flattened in sorted key
order, as TF does). Everything else (Tensors, arrays, None, numbers) is a leaf.
"""

import collections.abc


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def is_sequence(x):
    """True for the containers nest descends into (list, tuple, namedtuple, dict)."""
    return isinstance(x, (list, tuple, collections.abc.Mapping))


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        return list(d)


def _children(x):
    if isinstance(x, collections.abc.Mapping):
        return [x[k] for k in _sorted_keys(x)]
    return list(x)


def flatten(structure):
    """The leaves of ``structure``, depth first (dict values by sorted key)."""
    out = []
    stack = [structure]
    while stack:
        x = stack.pop()
        if is_sequence(x):
            stack.extend(reversed(_children(x)))
        else:
            out.append(x)
    return out


def _rebuild(template, children):
    if isinstance(template, collections.abc.Mapping):
        keys = _sorted_keys(template)
        d = dict(zip(keys, children))
        cls = type(template)
        if cls is dict:
            return {k: d[k] for k in template}
        try:
            return cls((k, d[k]) for k in template)
        except TypeError:
            return {k: d[k] for k in template}
    if _is_namedtuple(template):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    return list(children)


def pack_sequence_as(structure, flat_sequence):
    """``flat_sequence`` arranged in the shape of ``structure``."""
    flat_sequence = list(flat_sequence)
    n = len(flatten(structure))
    if n != len(flat_sequence):
        raise ValueError(
            f"Could not pack sequence. Structure had {n} elements, but flat_sequence had "
            f"{len(flat_sequence)} elements. Structure: {structure!r}, flat_sequence: "
            f"{flat_sequence!r}."
        )
    it = iter(flat_sequence)

    def build(s):
        if is_sequence(s):
            return _rebuild(s, [build(c) for c in _children(s)])
        return next(it)

    return build(structure)


def assert_same_structure(nest1, nest2, check_types=True):
    """Raises ValueError (TypeError for differing sequence types) unless both nest alike."""

    def check(a, b):
        sa, sb = is_sequence(a), is_sequence(b)
        if sa != sb:
            raise ValueError(
                "The two structures don't have the same nested structure.\n\nFirst structure: "
                f"{nest1!r}\n\nSecond structure: {nest2!r}"
            )
        if not sa:
            return
        if check_types and type(a) is not type(b) and not (
            isinstance(a, list) and isinstance(b, list)
        ):
            raise TypeError(
                "The two structures don't have the same sequence type. First structure has type "
                f"{type(a)}, while second structure has type {type(b)}."
            )
        if isinstance(a, collections.abc.Mapping) and set(a) != set(b):
            raise ValueError(
                f"The two dictionaries don't have the same set of keys: {sorted(map(str, a))} "
                f"and {sorted(map(str, b))}"
            )
        ca, cb = _children(a), _children(b)
        if len(ca) != len(cb):
            raise ValueError(
                "The two structures don't have the same number of elements.\n\nFirst structure: "
                f"{nest1!r}\n\nSecond structure: {nest2!r}"
            )
        for x, y in zip(ca, cb):
            check(x, y)

    check(nest1, nest2)


def map_structure(func, *structures, **kwargs):
    """``func`` applied to corresponding leaves, in the shape of the first structure."""
    check_types = kwargs.pop("check_types", True)
    if kwargs:
        raise ValueError(f"Only valid keyword argument is check_types, got {list(kwargs)}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    for s in structures[1:]:
        assert_same_structure(structures[0], s, check_types=check_types)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)])


def assert_shallow_structure(shallow_tree, input_tree, check_types=True):
    """Raises unless ``input_tree`` nests at least as deep as ``shallow_tree`` and agrees with
    it down to its leaves (same sequence types, lengths and dict keys); below a leaf of
    ``shallow_tree``, ``input_tree`` may hold anything."""
    if not is_sequence(shallow_tree):
        return
    if not is_sequence(input_tree):
        raise TypeError("If shallow structure is a sequence, input must also be a sequence. "
                        f"Input has type: {type(input_tree)}.")
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        raise TypeError("The two structures don't have the same sequence type. Input structure "
                        f"has type {type(input_tree)}, while shallow structure has type "
                        f"{type(shallow_tree)}.")
    if len(input_tree) != len(shallow_tree):
        raise ValueError("The two structures don't have the same sequence length. Input "
                         f"structure has length {len(input_tree)}, while shallow structure "
                         f"has length {len(shallow_tree)}.")
    if isinstance(shallow_tree, collections.abc.Mapping):
        for key in input_tree:
            if key not in shallow_tree:
                raise ValueError("The two structures don't have the same keys. Input structure "
                                 f"has keys {list(input_tree)}, while shallow structure has "
                                 f"keys {list(shallow_tree)}.")
    for s, i in zip(_children(shallow_tree), _children(input_tree)):
        assert_shallow_structure(s, i, check_types=check_types)


def flatten_up_to(shallow_tree, input_tree):
    """``input_tree`` flattened down to the leaves of ``shallow_tree`` (what sits below each of
    them stays whole)."""
    assert_shallow_structure(shallow_tree, input_tree)
    if not is_sequence(shallow_tree):
        return [input_tree]
    out = []
    for s, i in zip(_children(shallow_tree), _children(input_tree)):
        out.extend(flatten_up_to(s, i))
    return out


def map_structure_up_to(shallow_tree, func, *inputs):
    """``func`` applied to the parts of ``inputs`` at each leaf of ``shallow_tree``, in its
    shape (``map_structure`` that stops at ``shallow_tree``'s depth)."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    for tree in inputs:
        assert_shallow_structure(shallow_tree, tree)
    flats = [flatten_up_to(shallow_tree, tree) for tree in inputs]
    return pack_sequence_as(shallow_tree, [func(*xs) for xs in zip(*flats)])


# TF 1.15's name for is_sequence in tf.nest
is_nested = is_sequence
