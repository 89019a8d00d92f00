"""RE2 patterns for the regex ops, which run on Python's ``re``: a pattern is parsed as RE2
parses it (its errors in RE2's words) and rewritten for ``re``, Unicode classes (``\\p{L}``)
as code-point ranges matched against the decoded (UTF-8) strings, as RE2 matches by code
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
_POSIX_CLASS = re.compile(r"\[:(\^?)(\w+):\]")
_REPEAT = re.compile(r"\{(\d+)(,(\d*))?\}")
_NAME = re.compile(r"\(\?P<(\w+)>")
# RE2's \s is [\t\n\f\r ] (no \v, which Python's ASCII \s holds)
_SPACE = "\\t\\n\\f\\r "
_PASS = set("afnrtvdDwWbBA")  # escapes Python reads as RE2 does (with re.ASCII)


class RE2Error(ValueError):
    """A pattern RE2 rejects; the message is RE2's ``<error>: <argument>``."""


def _error(what, arg=""):
    return RE2Error(f"{what}: {arg}" if arg else what)


def _unicode_class(pattern, i, in_class):
    """(end, text) of the ``\\p``/``\\P`` class at ``i``."""
    m = _CLASS.match(pattern, i)
    if m is None:
        raise _error("invalid character class range", pattern[i:i + 2])
    negated = (m.group(1) == "P") != bool(m.group(2))
    try:
        body = _ranges(m.group(3) or m.group(4))
    except ValueError:
        raise _error("invalid character class range", m.group(0)) from None
    if in_class:
        if negated:
            raise ValueError("a negated Unicode class inside [...]")
        return m.end(), body
    return m.end(), f"[{'^' if negated else ''}{body}]"


def _code_point(cp):
    return f"\\U{cp:08x}"


def _char_escape(pattern, i):
    """(end, text, code point or None) of a one-character escape at ``i`` (RE2's rules);
    the code point is None for an escape that is a class (``\\d``) or an assertion."""
    if i + 1 >= len(pattern):
        raise _error("trailing \\")
    c = pattern[i + 1]
    if c in "01234567":  # octal; a lone \1..\7 is a back-reference, which RE2 lacks
        m = re.compile("[0-7]{1,3}").match(pattern, i + 1)
        if c != "0" and m.end() == i + 2:
            raise _error("invalid escape sequence", pattern[i:i + 2])
        cp = int(m.group(0), 8)
        return m.end(), _code_point(cp), cp
    if c == "x":
        if pattern[i + 2:i + 3] == "{":
            close = pattern.find("}", i + 3)
            digits = pattern[i + 3:close] if close > 0 else pattern[i + 3:]
            if close < 0 or not digits or any(d not in "0123456789abcdefABCDEF" for d in digits) \
                    or int(digits, 16) > 0x10FFFF:
                raise _error("invalid escape sequence",
                             pattern[i:close] if close > 0 else pattern[i:])
            cp = int(digits, 16)
            return close + 1, _code_point(cp), cp
        digits = pattern[i + 2:i + 4]
        if len(digits) < 2 or any(d not in "0123456789abcdefABCDEF" for d in digits):
            raise _error("invalid escape sequence", pattern[i:i + 2 + len(digits)])
        cp = int(digits, 16)
        return i + 4, _code_point(cp), cp
    if c in "afnrtv":
        cp = {"a": 7, "f": 12, "n": 10, "r": 13, "t": 9, "v": 11}[c]
        return i + 2, pattern[i:i + 2], cp
    if c in _PASS:
        return i + 2, pattern[i:i + 2], None
    if c.isascii() and c.isalnum():
        raise _error("invalid escape sequence", pattern[i:i + 2])
    return i + 2, re.escape(c), ord(c)


@functools.cache
def _posix_negated(name):
    """The body of ``[:^name:]``: every code point outside the ASCII class."""
    inside = re.compile(f"[{_POSIX[name]}]")
    out, start = [], None
    for cp in range(129):
        outside = cp == 128 or inside.match(chr(cp)) is None
        if outside and start is None:
            start = cp
        elif not outside and start is not None:
            out.append(f"\\x{start:02x}-\\x{cp - 1:02x}")
            start = None
    out.append(f"\\x{start:02x}-\\U0010ffff")
    return "".join(out)


def _char_class(pattern, i):
    """(end, text) of the ``[...]`` class at ``i``, in Python's syntax."""
    start = i
    out = ["["]
    i += 1
    if pattern[i:i + 1] == "^":
        out.append("^")
        i += 1
    first = True
    while True:
        if i >= len(pattern):
            raise _error("missing ]", pattern[start:])
        c = pattern[i]
        if c == "]" and not first:
            out.append("]")
            return i + 1, "".join(out)
        first = False
        if c == "[" and pattern.startswith("[:", i):
            m = _POSIX_CLASS.match(pattern, i)
            if m is not None:
                if m.group(2) not in _POSIX:
                    raise _error("invalid character class range", m.group(0))
                out.append(_posix_negated(m.group(2)) if m.group(1) else _POSIX[m.group(2)])
                i = m.end()
                continue
        if c == "\\" and pattern[i + 1:i + 2] in ("p", "P"):
            i, body = _unicode_class(pattern, i, True)
            out.append(body)
            continue
        if c == "\\" and pattern[i + 1:i + 2] in ("d", "D", "w", "W", "s", "S"):
            e = pattern[i + 1]
            out.append(_SPACE if e == "s" else pattern[i:i + 2])
            i += 2
            if pattern[i:i + 1] == "-" and pattern[i + 1:i + 2] != "]":
                out.append("\\-")  # RE2: a "-" after a class escape is itself
                i += 1
            continue
        lo_at = i
        if c == "\\":
            i, text, lo = _char_escape(pattern, i)
        else:
            i, text, lo = i + 1, re.escape(c) if c in "[]\\^-&~|" else c, ord(c)
        if pattern[i:i + 1] == "-" and pattern[i + 1:i + 2] not in ("]", ""):
            j = i + 1
            if pattern[j] == "\\":
                j, hi_text, hi = _char_escape(pattern, j)
            else:
                hi_text, hi = re.escape(pattern[j]), ord(pattern[j])
                j += 1
            if lo is None or hi is None or hi < lo:
                raise _error("invalid character class range", pattern[lo_at:j])
            out.append(f"{text}-{hi_text}")
            i = j
            continue
        out.append(text)


# the surrogate escapes that stand for bytes of invalid UTF-8 in the decoded text
_INVALID = "[\\udc80-\\udcff]"


def _guard(text, guard):
    """A class's ``text`` kept off invalid UTF-8 when ``guard`` (RE2 matches code points: no
    class, ``.`` or negated class takes a byte that starts no valid character)."""
    return f"(?:(?!{_INVALID}){text})" if guard else text


def translate(pattern, guard=False):
    """``pattern`` (text, RE2 syntax) for Python's ``re`` (with ``re.ASCII``), parsed as RE2
    parses it: ``\\p``/``\\P`` classes as code-point ranges, POSIX classes (``[[:alpha:]]``)
    as their ASCII ranges, ``\\z``, ``\\C``, ``\\Q...\\E``, ``\\x{...}`` and RE2's ``\\s``,
    ``$`` (the end of the text unless ``(?m)``), a ``{`` that starts no repetition as a
    literal; what RE2 rejects (back-references, look-arounds, repeated repetitions, sizes
    past 1000, bad ranges, unbalanced brackets) is an ``RE2Error`` in RE2's words.
    ``guard``: no class matches a byte of invalid UTF-8 (a surrogate escape), as in RE2."""
    out = []
    i = 0
    n = len(pattern)
    depth = 0
    operand = False  # whether a repetition operator has something to repeat
    rep_start = None  # where the repetition operator(s) just before began
    lazy = False
    multiline = False
    ungreedy = False  # (?U): the repetitions that follow swap greedy and lazy (not scoped)
    while i < n:
        c = pattern[i]
        if c in "*+?" or (c == "{" and _REPEAT.match(pattern, i)):
            m = _REPEAT.match(pattern, i) if c == "{" else None
            end = m.end() if m else i + 1
            if rep_start is not None:
                if c == "?" and not lazy:
                    lazy = True
                    if ungreedy:
                        out.pop()  # the "?" that made it lazy
                    else:
                        out.append("?")
                    i += 1
                    continue
                raise _error("bad repetition operator", pattern[rep_start:end])
            if not operand:
                raise _error("no argument for repetition operator", pattern[i:end])
            if m:
                lo, hi = int(m.group(1)), m.group(3)
                hi = lo if m.group(2) is None else (int(hi) if hi else None)
                if lo > 1000 or (hi is not None and (hi > 1000 or hi < lo)):
                    raise _error("invalid repetition size", m.group(0))
            out.append(pattern[i:end])
            if ungreedy:
                out.append("?")
            rep_start, lazy = i, False
            i = end
            continue
        rep_start = None
        if c == "\\":
            e = pattern[i + 1:i + 2]
            if e in ("p", "P"):
                i, text = _unicode_class(pattern, i, False)
                text = _guard(text, guard)
            elif e == "Q":
                close = pattern.find("\\E", i + 2)
                literal = pattern[i + 2:] if close < 0 else pattern[i + 2:close]
                text = "".join(re.escape(ch) for ch in literal)
                i = n if close < 0 else close + 2
                if not literal:
                    continue
            elif e == "z":
                text, i = "\\Z", i + 2
            elif e == "C":
                text, i = "(?s:.)", i + 2
            elif e in ("s", "S"):
                text, i = _guard(f"[{'^' if e == 'S' else ''}{_SPACE}]", guard), i + 2
            else:
                i, text, _ = _char_escape(pattern, i)
                text = _guard(text, guard and e in ("D", "W"))
            out.append(text)
            operand = True
            continue
        if c == "[":
            i, text = _char_class(pattern, i)
            out.append(_guard(text, guard))
            operand = True
            continue
        if c == "(":
            if pattern.startswith("(?", i):
                if pattern.startswith("(?P<", i):
                    m = _NAME.match(pattern, i)
                    if m is None:
                        close = pattern.find(">", i)
                        raise _error("invalid named capture group",
                                     pattern[i:] if close < 0 else pattern[i:close + 1])
                    out.append(m.group(0))
                    i = m.end()
                else:
                    j = i + 2
                    while j < n and pattern[j] in "imsU-":
                        j += 1
                    if j >= n:
                        raise _error("missing )", pattern)
                    if pattern[j] not in ":)":
                        raise _error("invalid perl operator", pattern[i:j + 1])
                    flags = pattern[i + 2:j]
                    multiline = multiline or "m" in flags.split("-")[0]
                    ungreedy = ungreedy or "U" in flags.split("-")[0]
                    flags = flags.replace("U", "")
                    i = j + 1
                    if flags.strip("-") or pattern[j] == ":":
                        out.append(f"(?{flags.rstrip('-') if pattern[j] == ')' else flags}"
                                   f"{pattern[j]}")
                    if pattern[j] == ")":
                        continue  # flags for what follows
            else:
                out.append("(")
                i += 1
            depth += 1
            operand = False
            continue
        if c == ")":
            if depth == 0:
                raise _error("missing )", pattern)
            depth -= 1
        elif c == "|":
            operand = False
            out.append(c)
            i += 1
            continue
        elif c == "{":
            out.append("\\{")  # RE2: a brace that starts no repetition is a literal
            i += 1
            operand = True
            continue
        elif c == "$" and not multiline:
            out.append("\\Z")  # RE2's $ is the end of the text (Python's also before a \n)
            i += 1
            operand = True
            continue
        out.append(_guard(c, guard and c == "."))
        operand = True
        i += 1
    if depth:
        raise _error("missing )", pattern)
    return "".join(out)
