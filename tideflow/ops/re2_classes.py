"""RE2's Unicode general-category classes (``\\p{L}``, ``\\pN``, ``\\p{Ll}``, ``\\P{P}``) for the
regex ops, which run on Python's ``re``: a pattern using them is rewritten into explicit
code-point ranges and matched against the decoded (UTF-8) strings, as RE2 matches by code
point."""

import functools
import re
import sys
import unicodedata

_CLASS = re.compile(r"\\([pP])(?:\{(\^?)(\w+)\}|(\w))")


@functools.cache
def _all_ranges():
    """Per two-letter general category, its code-point ranges (one scan of Unicode)."""
    table = {}
    start, current = 0, unicodedata.category("\0")
    for cp in range(1, sys.maxunicode + 2):
        cat = unicodedata.category(chr(cp)) if cp <= sys.maxunicode else None
        if cat != current:
            table.setdefault(current, []).append((start, cp - 1))
            start, current = cp, cat
    return table


@functools.cache
def _ranges(category):
    """The code-point ranges of a general category (``"L"`` is every ``"L?"``), as a class
    body of ``re`` escapes."""
    parts = sorted(r for cat, rs in _all_ranges().items() if cat.startswith(category)
                   for r in rs)
    if not parts:
        raise ValueError(f"unknown Unicode class {category}")
    return "".join(f"\\U{a:08x}" if a == b else f"\\U{a:08x}-\\U{b:08x}" for a, b in parts)


def uses_unicode_classes(pattern):
    """Whether the (text) pattern names a ``\\p`` / ``\\P`` class."""
    return _CLASS.search(pattern) is not None


# RE2's POSIX classes (inside [...]): ASCII, as RE2 defines them
_POSIX = {"alnum": "0-9A-Za-z", "alpha": "A-Za-z", "ascii": "\\x00-\\x7f", "blank": "\\t ",
          "cntrl": "\\x00-\\x1f\\x7f", "digit": "0-9", "graph": "!-~", "lower": "a-z",
          "print": " -~", "punct": "!-/:-@\\[-`{-~", "space": "\\t\\n\\v\\f\\r ",
          "upper": "A-Z", "word": "0-9A-Za-z_", "xdigit": "0-9A-Fa-f"}
_POSIX_CLASS = re.compile(r"\[:(\w+):\]")


def translate(pattern):
    """``pattern`` (text, RE2 syntax) for Python's ``re``: each ``\\p``/``\\P`` class written
    as code-point ranges, each POSIX class (``[[:alpha:]]``) as its ASCII ranges; what RE2
    rejects (a back-reference ``\\1``, a negated Unicode class inside ``[...]``) is a
    ValueError in RE2's words."""
    out = []
    pos = 0
    in_class = False
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "[" and in_class:
            m = _POSIX_CLASS.match(pattern, i)
            if m and m.group(1) in _POSIX:
                out.append(pattern[pos:i])
                out.append(_POSIX[m.group(1)])
                i = pos = m.end()
                continue
        if c == "\\":
            if pattern[i + 1:i + 2] in tuple("123456789"):
                raise ValueError(f"invalid escape sequence: {pattern[i:i + 2]}")
            m = _CLASS.match(pattern, i)
            if m:
                out.append(pattern[pos:i])
                negated = (m.group(1) == "P") != bool(m.group(2))
                body = _ranges(m.group(3) or m.group(4))
                if in_class:
                    if negated:
                        raise ValueError("a negated Unicode class inside [...]")
                    out.append(body)
                else:
                    out.append(f"[{'^' if negated else ''}{body}]")
                i = pos = m.end()
                continue
            i += 2
            continue
        if c == "[" and not in_class:
            in_class = True
            if pattern[i + 1:i + 2] == "^":
                i += 1
            if pattern[i + 1:i + 2] == "]":  # a leading ] is a literal
                i += 1
        elif c == "]" and in_class:
            in_class = False
        i += 1
    out.append(pattern[pos:])
    return "".join(out)
