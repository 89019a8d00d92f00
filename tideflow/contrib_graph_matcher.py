"""``tf.contrib.quantize.python.graph_matcher``: finds subgraphs by op-type patterns.

A pattern names an op type (``'*'`` for any, ``'A|B'`` for either) and, optionally, patterns
for the op's inputs, in order or in any order. ``GraphMatcher(pattern)`` tries it rooted at
each op and yields a ``MatchResult`` mapping every pattern of the match to its op and tensor
(the Object Detection API rewrites its TPU-friendly nearest-neighbour resize this way).
"""

import itertools

__all__ = ["GraphMatcher", "MatchResult", "OneofPattern", "OpTypePattern", "Pattern"]


class Pattern:
    """The base of the patterns: ``match(op, tensor)`` gives a MatchResult or None."""

    def match(self, op, tensor):
        raise NotImplementedError


class OpTypePattern(Pattern):
    """An op of type ``op_type`` (``'*'``: any; ``'A|B'``: either) whose inputs, when
    ``inputs`` is given, match those patterns (strings stand for ``OpTypePattern(s)``), in
    order or, with ``ordered_inputs=False``, in some order. ``name`` is a key for
    ``MatchResult.get_op``."""

    def __init__(self, op_type, name=None, inputs=None, ordered_inputs=True):
        self._op_type = op_type
        self._name = name
        if inputs is not None:
            inputs = [p if isinstance(p, Pattern) else OpTypePattern(p) for p in inputs]
        self._inputs = inputs
        self._ordered_inputs = ordered_inputs

    @property
    def op_type(self):
        return self._op_type

    @property
    def name(self):
        return self._name

    @property
    def inputs(self):
        return self._inputs

    @property
    def ordered_inputs(self):
        return self._ordered_inputs

    def _type_matches(self, op):
        return self._op_type == "*" or op.type in self._op_type.split("|")

    def match(self, op, tensor):
        if not self._type_matches(op):
            return None
        result = MatchResult()
        result.add(self, op, tensor)
        if self._inputs is None:
            return result
        if len(op.inputs) != len(self._inputs):
            return None
        orders = ([self._inputs] if self._ordered_inputs
                  else itertools.permutations(self._inputs))
        for order in orders:
            merged = _match_all(order, op.inputs, result)
            if merged is not None:
                return merged
        return None


class OneofPattern(Pattern):
    """The first of ``sub_patterns`` that matches."""

    def __init__(self, sub_patterns):
        self._sub_patterns = list(sub_patterns)

    def match(self, op, tensor):
        for sub in self._sub_patterns:
            found = sub.match(op, tensor)
            if found is not None:
                found.add(self, op, tensor)
                return found
        return None


def _match_all(patterns, tensors, base):
    """``base`` extended with each pattern matched against its tensor's op, or None when one
    fails or gives a pattern another op than ``base`` did."""
    result = base.copy()
    for pattern, t in zip(patterns, tensors):
        found = pattern.match(t.op, t)
        if found is None or not result.merge(found):
            return None
    return result


class MatchResult:
    """The ops and tensors a match gave its patterns (looked up by pattern or by name)."""

    def __init__(self):
        self._by_pattern = {}
        self._by_name = {}

    def add(self, pattern, op, tensor):
        self._by_pattern[pattern] = (op, tensor)
        name = getattr(pattern, "name", None)
        if name is not None:
            self._by_name[name] = (op, tensor)

    def copy(self):
        other = MatchResult()
        other._by_pattern = dict(self._by_pattern)
        other._by_name = dict(self._by_name)
        return other

    def merge(self, other):
        """Adds ``other``'s entries; False where a pattern would stand for two ops."""
        for pattern, (op, tensor) in other._by_pattern.items():
            seen = self._by_pattern.get(pattern)
            if seen is not None and seen[0] is not op:
                return False
        for pattern, (op, tensor) in other._by_pattern.items():
            self.add(pattern, op, tensor)
        return True

    def _entry(self, pattern_or_name):
        if isinstance(pattern_or_name, Pattern):
            return self._by_pattern.get(pattern_or_name)
        return self._by_name.get(pattern_or_name)

    def get_op(self, pattern_or_name):
        """The op the pattern (or the pattern of that name) matched, or None."""
        entry = self._entry(pattern_or_name)
        return None if entry is None else entry[0]

    def get_tensor(self, pattern_or_name):
        """The tensor the pattern matched (None for the root pattern's op), or None."""
        entry = self._entry(pattern_or_name)
        return None if entry is None else entry[1]


class GraphMatcher:
    """Tries ``pattern`` rooted at ops: ``match_op``, ``match_ops``, ``match_graph``."""

    def __init__(self, pattern):
        self._pattern = pattern

    def match_op(self, op):
        """The match of the pattern rooted at ``op``, or None."""
        return self._pattern.match(op, None)

    def match_ops(self, ops):
        """The matches rooted at each of ``ops``, in order."""
        for op in ops:
            found = self.match_op(op)
            if found is not None:
                yield found

    def match_graph(self, graph):
        """The matches rooted at each op of ``graph``, in creation order."""
        return self.match_ops(graph.get_operations())
