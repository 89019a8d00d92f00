"""The errors TF 1.15's AutoGraph raises for an exception in converted code (a function
passed to ``Dataset.map``): the same class, its message headed "in converted code:" and the
frames from the user's function to the raise, as TF writes them."""

import ast
import linecache
import os
import re
import traceback

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
_AUTOGRAPH_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep

# the classes TF re-creates with the new message (others keep their own, here)
_STRING_ERRORS = (AssertionError, AttributeError, NameError, NotImplementedError, RuntimeError,
                  StopIteration, TypeError, ValueError)


class _MultilineKeyError(KeyError):
    """TF's KeyError for converted code: str() is the whole message, not its repr."""

    def __init__(self, message, key):
        super().__init__(key)
        self._message = message

    def __str__(self):
        return self._message


_MultilineKeyError.__name__ = KeyError.__name__


def _is_library(filename):
    return (filename.startswith((_PKG_DIR, os.path.dirname(os.__file__)))
            or "site-packages" in filename)


def _original(frame):
    """(filename, line number, source line) of ``frame`` in the user's file: a frame of
    converted code (``<autograph FILE:FIRSTLINE NAME>``) is shown at the original line with
    its text (found by that text; else the function's first line), as TF's source map."""
    m = re.fullmatch(r"<autograph (.*):(\d+) (.*)>", frame.filename)
    if m is None:
        return frame.filename, frame.lineno, frame.line
    filename, first = m.group(1), int(m.group(2))
    # (a converted call reads as the call it was: "ag__.converted_call(f, (y,))" is "f(y)")
    text = re.sub(r"ag__\.converted_call\(([\w.]+), \((.*?),?\)\)", r"\1(\2)",
                  frame.line or "")
    text = re.sub(r"\s+", "", text).replace("'", '"')
    lines = linecache.getlines(filename)
    body = lines[first - 1:]
    # the function's lines: from its def (past decorators) to the first line indented no
    # deeper than the def
    start = next((i for i, line in enumerate(body)
                  if line.lstrip().startswith(("def ", "async def ", "lambda"))
                  or "lambda" in line), 0)
    indent = len(body[start]) - len(body[start].lstrip()) if body else 0
    for i in range(start, len(body)):
        line = body[i]
        if i > start and line.strip() and len(line) - len(line.lstrip()) <= indent:
            break
        if text and re.sub(r"\s+", "", line).replace("'", '"') == text:
            return filename, first + i, line
    return filename, first, body[0] if body else None


def _is_lambda(func):
    return getattr(getattr(func, "__code__", None), "co_name", None) == "<lambda>"


def _lambda_converts(func):
    """Whether TF 1.15 converts the lambda ``func``: when its line parses as a statement of its
    own and holds one lambda of its arguments (else it runs unconverted, no frame marked)."""
    code = func.__code__
    line = linecache.getline(code.co_filename, code.co_firstlineno).strip()
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return False
    names = list(code.co_varnames[:code.co_argcount])
    return sum(1 for n in ast.walk(tree) if isinstance(n, ast.Lambda)
               and [a.arg for a in n.args.args] == names) == 1


def converted_code_error(e, func, skip=1):
    """The exception TF raises for ``e``, raised calling the user's ``func`` (the frames of
    ``e``'s traceback after the first ``skip`` lead there); None when TF keeps ``e`` as it is.
    An error already rewritten by an inner converted call gains this call's frame on top."""
    meta = getattr(e, "ag_error_metadata", None)
    if meta is None and not (type(e) in _STRING_ERRORS or type(e) is KeyError
                             or type(e).__init__ is Exception.__init__):
        return None
    frames = traceback.extract_tb(e.__traceback__)[skip:]
    while frames and frames[0].filename.startswith(_PKG_DIR):  # (a conversion's wrapper)
        frames = frames[1:]
    # AutoGraph's own calls between converted functions are not shown
    converted = not _is_lambda(func) or _lambda_converts(func)
    frames = [_original(f) + (f.name,) for f in frames
              if not f.filename.startswith(_AUTOGRAPH_DIR)]
    frames = [(fn, no, line, name, converted and not _is_library(fn))
              for fn, no, line, name in frames]
    if not frames:
        return None
    if meta is not None:
        if not isinstance(meta, tuple):
            return None
        frames, cause, key = [frames[0], *meta[0]], meta[1], meta[2]
    else:
        cause, key = f"{type(e).__name__}: {e}", (e.args[0] if e.args else None)
    out = (_MultilineKeyError(_message(frames, cause), key)
           if type(e) is KeyError or isinstance(e, _MultilineKeyError)
           else type(e)(_message(frames, cause)))
    out.ag_error_metadata = (frames, cause, key)
    return out


def _message(frames, cause):
    paths = [f[0] for f in frames]
    common = os.path.dirname(os.path.commonprefix(paths)) if len(paths) > 1 else ""
    if common == os.sep:
        common = ""
    start = len(common) + 1 if common else 0
    lines = ["in converted code:"]
    if common:
        lines.append(f"    relative to {common}:")
    lines.append("")
    for filename, lineno, line, name, mark in frames:
        name = "None" if mark and name == "<lambda>" else name
        lines.append(f"    {filename[start:]}:{lineno} {name}{'  *' if mark else ''}")
        lines.append(f"        {(line or '<source unavailable>').strip()}")
    lines.append("")
    lines.extend("    " + line for line in cause.split("\n"))
    lines.append("")
    return "\n".join(lines)
