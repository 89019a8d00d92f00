"""Nested structures (``tf.contrib.framework.nest``, ``tensorflow.python.util.nest``):
flatten, pack and map over them.

What nest descends into, as TF 1.15: lists, tuples, namedtuples, other
``collections.abc.Sequence`` types except strings, mappings (flattened in sorted key order,
rebuilt in the template's own order), mapping views (``d.keys()``, ``d.items()``: iteration
order) and ``attrs`` classes (field order). Sets, strings, arrays and Tensors are leaves.
"""

import collections
import collections.abc

_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ = (
    "If shallow structure is a sequence, input must also be a sequence. Input has type: {}.")
_STRUCTURES_HAVE_MISMATCHING_TYPES = (
    "The two structures don't have the same sequence type. Input structure has type "
    "{input_type}, while shallow structure has type {shallow_type}.")
_STRUCTURES_HAVE_MISMATCHING_LENGTHS = (
    "The two structures don't have the same sequence length. Input structure has length "
    "{input_length}, while shallow structure has length {shallow_length}.")
_INPUT_TREE_SMALLER_THAN_SHALLOW_TREE = (
    "The input_tree has fewer items than the shallow_tree. Input structure has length "
    "{input_size}, while shallow structure has length {shallow_size}.")
_SHALLOW_TREE_HAS_INVALID_KEYS = (
    "The shallow_tree's keys are not a subset of the input_tree's keys. The shallow_tree "
    "has the following keys that are not in the input_tree: {}.")


class _Dot:
    """Stands for a leaf when a structure is printed in an error message."""

    def __repr__(self):
        return "."

    __str__ = __repr__


_DOT = _Dot()
_STRINGS = (str, bytes, bytearray)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_attrs(x):
    return hasattr(type(x), "__attrs_attrs__")


_SEQ_TYPES = {list: True, tuple: True, dict: True}  # type -> whether nest descends into it


def _is_seq_type(t):
    found = _SEQ_TYPES.get(t)
    if found is None:
        found = (issubclass(t, (list, tuple, collections.abc.Mapping))
                 or (not issubclass(t, _STRINGS)
                     and (issubclass(t, (collections.abc.Sequence,
                                         collections.abc.MappingView))
                          or hasattr(t, "__attrs_attrs__"))))
        if len(_SEQ_TYPES) < 4096:
            _SEQ_TYPES[t] = found
    return found


def is_sequence(o):
    """True for the containers nest descends into (see the module docstring)."""
    return _is_seq_type(type(o))


def is_nested(seq):
    """``tf.nest.is_nested`` (TF 1.15's parameter name): ``is_sequence``."""
    return _is_seq_type(type(seq))


def is_sequence_or_composite(x):
    """``is_sequence``, or a composite tensor (a SparseTensor counts as one)."""
    if is_sequence(x):
        return True
    from tideflow.framework.sparse_tensor import SparseTensor

    return isinstance(x, SparseTensor)


def _sorted_keys(d):
    try:
        return sorted(d)
    except TypeError:
        raise TypeError("nest only supports dicts with sortable keys.") from None


def _items(x):
    """(key, child) pairs of a sequence, in the order nest flattens them."""
    if isinstance(x, collections.abc.Mapping):
        return [(k, x[k]) for k in _sorted_keys(x)]
    if _is_namedtuple(x):
        return list(zip(type(x)._fields, x))
    if hasattr(type(x), "__attrs_attrs__"):
        return [(a.name, getattr(x, a.name)) for a in type(x).__attrs_attrs__]
    return list(enumerate(x))


def _children(x):
    if isinstance(x, (list, tuple)) and not _is_namedtuple(x):
        return list(x)
    return [c for _, c in _items(x)]


def _rebuild(template, children):
    """A container like ``template`` holding ``children`` (given in flattening order)."""
    if isinstance(template, collections.abc.Mapping):
        d = dict(zip(_sorted_keys(template), children))
        cls = type(template)
        if cls is dict:
            return {k: d[k] for k in template}
        if cls is collections.defaultdict:
            out = collections.defaultdict(template.default_factory)
            for k in template:
                out[k] = d[k]
            return out
        try:
            return cls((k, d[k]) for k in template)
        except TypeError:
            return {k: d[k] for k in template}
    if _is_namedtuple(template) or hasattr(type(template), "__attrs_attrs__"):
        return type(template)(*children)
    if isinstance(template, tuple):
        return tuple(children)
    if isinstance(template, (list, collections.abc.MappingView)):
        return list(children)
    try:
        return type(template)(children)
    except TypeError:
        return list(children)


def _flatten_into(x, out):
    t = type(x)
    if t is list or t is tuple:
        for c in x:
            _flatten_into(c, out)
    elif _is_seq_type(t):
        for c in _children(x):
            _flatten_into(c, out)
    else:
        out.append(x)


def flatten(structure, expand_composites=False):
    """The leaves of ``structure``, depth first (dict values by sorted key)."""
    out = []
    _flatten_into(structure, out)
    return out


def pack_sequence_as(structure, flat_sequence, expand_composites=False):
    """``flat_sequence`` arranged in the shape of ``structure``."""
    if isinstance(flat_sequence, _STRINGS) or not isinstance(
            flat_sequence, collections.abc.Iterable):
        raise TypeError("flat_sequence must be a sequence")
    flat_sequence = list(flat_sequence)
    if not is_sequence(structure):
        if len(flat_sequence) != 1:
            raise ValueError(
                f"Structure is a scalar but len(flat_sequence) == {len(flat_sequence)} > 1")
        return flat_sequence[0]
    it = iter(flat_sequence)

    def build(s):
        if _is_seq_type(type(s)):
            return _rebuild(s, [build(c) for c in _children(s)])
        return next(it)

    try:
        packed = build(structure)
        done = next(it, _DOT) is _DOT
    except StopIteration:
        done = False
    if not done:
        n = len(flatten(structure))
        raise ValueError(
            f"Could not pack sequence. Structure had {n} elements, but flat_sequence had "
            f"{len(flat_sequence)} elements.  Structure: {structure}, flat_sequence: "
            f"{flat_sequence}.")
    return packed


def _same_namedtuples(a, b):
    return type(a).__name__ == type(b).__name__ and type(a)._fields == type(b)._fields


def _describe(x):
    return f"type={type(x).__name__} str={x}"


def _structure_error(a, b, check_types):
    """Why ``a`` and ``b`` differ in structure: (error class, detail), or None."""
    sa, sb = is_sequence(a), is_sequence(b)
    if sa != sb:
        seq, other = (a, b) if sa else (b, a)
        return ValueError, (f'Substructure "{_describe(seq)}" is a sequence, while '
                            f'substructure "{_describe(other)}" is not')
    if not sa:
        return None
    if check_types and type(a) is not type(b):
        if _is_namedtuple(a) and _is_namedtuple(b):
            ok = _same_namedtuples(a, b)
        else:
            ok = ((isinstance(a, collections.abc.Mapping)
                   and isinstance(b, collections.abc.Mapping))
                  or (isinstance(a, list) and isinstance(b, list)
                      and not _is_namedtuple(a) and not _is_namedtuple(b)))
        if not ok:
            return TypeError, (
                f"The two namedtuples don't have the same sequence type. First structure "
                f"{_describe(a)} has type {type(a).__name__}, while second structure "
                f"{_describe(b)} has type {type(b).__name__}")
    if (isinstance(a, collections.abc.Mapping) and isinstance(b, collections.abc.Mapping)
            and set(a) != set(b)):
        return ValueError, (
            "The two dictionaries don't have the same set of keys. First structure "
            f"has keys {_describe(sorted(a, key=str))}, while second structure has "
            f"keys {_describe(sorted(b, key=str))}")
    ca, cb = _children(a), _children(b)
    for x, y in zip(ca, cb):
        err = _structure_error(x, y, check_types)
        if err is not None:
            return err
    if len(ca) != len(cb):
        return ValueError, (
            "The two structures don't have the same number of elements. First "
            f"structure: {_describe(a)}. Second structure: {_describe(b)}")
    return None


_FLAT_SAFE = (list, tuple)


def _is_flat(seq):
    for x in seq:
        if _is_seq_type(type(x)):
            return False
    return True


def assert_same_structure(nest1, nest2, check_types=True, expand_composites=False):
    """Raises ValueError (TypeError for differing sequence types) unless both nest alike.

    With ``check_types``, sequences must be of one type; namedtuples of one name and fields,
    and any two mappings, count as alike."""
    if type(nest1) is type(nest2) and type(nest1) in _FLAT_SAFE and _is_flat(nest1) \
            and _is_flat(nest2) and len(nest1) == len(nest2):
        return  # two flat lists/tuples of leaves: alike
    err = _structure_error(nest1, nest2, check_types)
    if err is None:
        return
    cls, detail = err
    raise cls(
        "The two structures don't have the same nested structure.\n\n"
        f"First structure: {_describe(nest1)}\n\nSecond structure: {_describe(nest2)}\n\n"
        f"More specifically: {detail}\n"
        f"Entire first structure:\n{map_structure(lambda _: _DOT, nest1)}\n"
        f"Entire second structure:\n{map_structure(lambda _: _DOT, nest2)}")


def _check_map_args(func, structures, kwargs):
    """TF's checks of a map_structure call: a callable, at least one structure, only
    ``check_types``/``expand_composites``, and all structures alike."""
    if not callable(func):
        raise TypeError(f"func must be callable, got: {func}")
    if not structures:
        raise ValueError("Must provide at least one structure")
    extra = [k for k in kwargs if k not in ("check_types", "expand_composites")]
    if extra:
        raise ValueError(f"Only valid keyword argument is check_types, got {extra}")
    check_types = kwargs.get("check_types", True)
    for s in structures[1:]:
        assert_same_structure(structures[0], s, check_types=check_types)


def map_structure(func, *structure, **kwargs):
    """``func`` applied to corresponding leaves, in the shape of the first structure."""
    structures = structure  # (TF 1.15's parameter name is ``structure``)
    _check_map_args(func, structures, kwargs)
    if not is_sequence(structures[0]):
        return func(*structures)
    flats = [flatten(s) for s in structures]
    return pack_sequence_as(structures[0], [func(*xs) for xs in zip(*flats)])


def _paths(structure, prefix=()):
    if not is_sequence(structure):
        yield prefix
        return
    for key, child in _items(structure):
        yield from _paths(child, prefix + (key,))


def yield_flat_paths(nest):
    """The tuple path (keys, indices, field names) of each leaf, in flattening order."""
    yield from _paths(nest)


def flatten_with_tuple_paths(structure, expand_composites=False):
    """``(tuple_path, leaf)`` pairs, in flattening order."""
    return list(zip(yield_flat_paths(structure), flatten(structure)))


def flatten_with_joined_string_paths(structure, separator="/", expand_composites=False):
    """``(path, leaf)`` pairs with each path's parts joined by ``separator``."""
    return [(separator.join(str(p) for p in path), leaf)
            for path, leaf in flatten_with_tuple_paths(structure)]


def map_structure_with_tuple_paths(func, *structures, **kwargs):
    """``func(tuple_path, *leaves)`` over corresponding leaves, in the first one's shape."""
    _check_map_args(func, structures, kwargs)
    flats = [flatten(s) for s in structures]
    paths = list(yield_flat_paths(structures[0]))
    return pack_sequence_as(structures[0],
                            [func(p, *xs) for p, xs in zip(paths, zip(*flats))])


def map_structure_with_paths(func, *structures, **kwargs):
    """``func(path_string, *leaves)``: paths joined by '/'."""
    def with_string_path(path, *leaves):
        return func("/".join(str(p) for p in path), *leaves)

    return map_structure_with_tuple_paths(with_string_path, *structures, **kwargs)


def assert_shallow_structure(shallow_tree, input_tree, check_types=True,
                             expand_composites=False, check_subtrees_length=True):
    """Raises unless ``input_tree`` nests at least as deep as ``shallow_tree`` and agrees with
    it down to its leaves (same sequence types, lengths and dict keys); below a leaf of
    ``shallow_tree``, ``input_tree`` may hold anything."""
    if not is_sequence(shallow_tree):
        return
    if not is_sequence(input_tree):
        raise TypeError(_IF_SHALLOW_IS_SEQ_INPUT_MUST_BE_SEQ.format(type(input_tree)))
    if check_types and not isinstance(input_tree, type(shallow_tree)):
        if _is_namedtuple(shallow_tree) and _is_namedtuple(input_tree):
            ok = _same_namedtuples(shallow_tree, input_tree)
        else:
            ok = (isinstance(shallow_tree, collections.abc.Mapping)
                  and isinstance(input_tree, collections.abc.Mapping))
        if not ok:
            raise TypeError(_STRUCTURES_HAVE_MISMATCHING_TYPES.format(
                input_type=type(input_tree), shallow_type=type(shallow_tree)))
    if check_subtrees_length and len(input_tree) != len(shallow_tree):
        raise ValueError(_STRUCTURES_HAVE_MISMATCHING_LENGTHS.format(
            input_length=len(input_tree), shallow_length=len(shallow_tree)))
    if len(input_tree) < len(shallow_tree):
        raise ValueError(_INPUT_TREE_SMALLER_THAN_SHALLOW_TREE.format(
            input_size=len(input_tree), shallow_size=len(shallow_tree)))
    if isinstance(shallow_tree, collections.abc.Mapping):
        absent = set(shallow_tree) - set(input_tree)
        if absent:
            raise ValueError(_SHALLOW_TREE_HAS_INVALID_KEYS.format(sorted(absent, key=str)))
    for s, i in _paired_branches(shallow_tree, input_tree):
        assert_shallow_structure(s, i, check_types=check_types,
                                 check_subtrees_length=check_subtrees_length)


def _paired_branches(shallow_tree, input_tree):
    """(shallow branch, input branch) pairs: by key for mappings, by position otherwise."""
    if isinstance(shallow_tree, collections.abc.Mapping):
        return [(v, input_tree[k]) for k, v in _items(shallow_tree)]
    return list(zip(_children(shallow_tree), _children(input_tree)))


def _up_to(shallow_tree, input_tree, prefix):
    if not is_sequence(shallow_tree):
        yield prefix, input_tree
        return
    if isinstance(shallow_tree, collections.abc.Mapping):
        keyed = [(k, v, input_tree[k]) for k, v in _items(shallow_tree)]
    else:
        keyed = [(k, v, i) for (k, v), i in zip(_items(shallow_tree), _children(input_tree))]
    for k, s, i in keyed:
        yield from _up_to(s, i, prefix + (k,))


def flatten_with_tuple_paths_up_to(shallow_tree, input_tree, check_types=True,
                                   expand_composites=False, check_subtrees_length=True):
    """``(tuple_path, part)`` for each leaf of ``shallow_tree``, the part of ``input_tree``
    found there."""
    assert_shallow_structure(shallow_tree, input_tree, check_types=check_types,
                             check_subtrees_length=check_subtrees_length)
    return list(_up_to(shallow_tree, input_tree, ()))


def flatten_up_to(shallow_tree, input_tree, check_types=True, expand_composites=False):
    """``input_tree`` flattened down to the leaves of ``shallow_tree`` (what sits below each of
    them stays whole)."""
    assert_shallow_structure(shallow_tree, input_tree, check_types=check_types)
    return [part for _, part in _up_to(shallow_tree, input_tree, ())]


def map_structure_with_tuple_paths_up_to(shallow_tree, func, *inputs, **kwargs):
    """``func(tuple_path, *parts)`` at each leaf of ``shallow_tree``, in its shape."""
    if not inputs:
        raise ValueError("Cannot map over no sequences")
    check_types = kwargs.get("check_types", True)
    check_subtrees_length = kwargs.get("check_subtrees_length", True)
    for tree in inputs:
        assert_shallow_structure(shallow_tree, tree, check_types=check_types,
                                 check_subtrees_length=check_subtrees_length)
    paths = [p for p, _ in _up_to(shallow_tree, inputs[0], ())]
    parts = [[v for _, v in _up_to(shallow_tree, tree, ())] for tree in inputs]
    results = [func(p, *xs) for p, xs in zip(paths, zip(*parts))]
    return pack_sequence_as(shallow_tree, results)


def map_structure_up_to(shallow_tree, func, *inputs, **kwargs):
    """``func`` applied to the parts of ``inputs`` at each leaf of ``shallow_tree``, in its
    shape (``map_structure`` that stops at ``shallow_tree``'s depth)."""
    return map_structure_with_tuple_paths_up_to(
        shallow_tree, lambda _, *parts: func(*parts), *inputs, **kwargs)


def get_traverse_shallow_structure(traverse_fn, structure, expand_composites=False):
    """A shallow structure of bools for ``structure``: where ``traverse_fn`` returns False,
    traversal stops (a False leaf); True descends; a depth-1 structure of bools says which
    children to descend into."""
    to_traverse = traverse_fn(structure)
    if not is_sequence(structure):
        if not isinstance(to_traverse, bool):
            raise TypeError(f"traverse_fn returned structure: {to_traverse} for non-structure: "
                            f"{structure}")
        return to_traverse
    level = []
    if isinstance(to_traverse, bool):
        if not to_traverse:
            return False
        level = [get_traverse_shallow_structure(traverse_fn, b) for b in _children(structure)]
    elif not is_sequence(to_traverse):
        raise TypeError(f"traverse_fn returned a non-bool scalar: {to_traverse} for input: "
                        f"{structure}")
    else:
        assert_shallow_structure(to_traverse, structure)
        for t, branch in zip(_children(to_traverse), _children(structure)):
            if not isinstance(t, bool):
                raise TypeError("traverse_fn didn't return a depth=1 structure of bools.  saw: "
                                f"{to_traverse} for structure: {structure}")
            level.append(get_traverse_shallow_structure(traverse_fn, branch) if t else False)
    return _rebuild(structure, level)


def flatten_dict_items(dictionary):
    """A flat dict from one whose keys (and matching values) may be nested structures."""
    if not isinstance(dictionary, collections.abc.Mapping):
        raise TypeError("input must be a dictionary")
    out = {}
    for key, value in dictionary.items():
        if not is_sequence(key):
            pairs = [(key, value)]
        else:
            flat_k, flat_v = flatten(key), flatten(value)
            if len(flat_k) != len(flat_v):
                raise ValueError(
                    f"Could not flatten dictionary. Key had {len(flat_k)} elements, but value "
                    f"had {len(flat_v)} elements. Key: {flat_k}, value: {flat_v}.")
            pairs = zip(flat_k, flat_v)
        for k, v in pairs:
            if k in out:
                raise ValueError(f"Could not flatten dictionary: key {k} is not unique.")
            out[k] = v
    return out
