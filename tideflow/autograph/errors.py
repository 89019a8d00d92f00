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
    source = _unconverted(frame.line or "")
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
        if source is not None and _normalized(line) == source:
            return filename, first + i, line
    return filename, first, body[0] if body else None


def _normalized(line):
    """``line`` as one statement's canonical text, or None where it is not a whole one."""
    try:
        return ast.unparse(ast.parse(line.strip()))
    except (SyntaxError, ValueError):
        return None


class _Unconvert(ast.NodeTransformer):
    """Undoes the converter's rewrites of expressions: ``ag__.converted_call(f, (a,), {k: v})``
    back to ``f(a, k=v)``, ``ag__.not_(x)`` to ``not x``, ``ag__.and_``/``or_`` of lambdas to
    ``and``/``or``, ``ag__.if_exp`` to a conditional expression."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                and f.value.id == "ag__"):
            return node
        a = node.args
        body = [x.body if isinstance(x, ast.Lambda) else x for x in a]
        if f.attr == "converted_call" and len(a) >= 2 and isinstance(a[1], ast.Tuple):
            keywords = []
            if len(a) > 2 and isinstance(a[2], ast.Dict):
                keywords = [ast.keyword(arg=None if k is None else k.value, value=v)
                            for k, v in zip(a[2].keys, a[2].values)]
            return ast.Call(func=a[0], args=list(a[1].elts), keywords=keywords)
        if f.attr == "not_" and len(a) == 1:
            return ast.UnaryOp(op=ast.Not(), operand=a[0])
        if f.attr in ("and_", "or_") and len(a) == 2:
            op = ast.And() if f.attr == "and_" else ast.Or()
            return ast.BoolOp(op=op, values=body)
        if f.attr == "if_exp" and len(a) == 3:
            return ast.IfExp(test=a[0], body=body[1], orelse=body[2])
        return node


def _unconverted(line):
    """The source text a line of converted code came from (canonical), or None."""
    try:
        tree = ast.parse(line.strip())
    except SyntaxError:
        return None
    try:
        return ast.unparse(ast.fix_missing_locations(_Unconvert().visit(tree)))
    except (ValueError, TypeError, AttributeError):
        return None


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


def converted_code_error(e, func, skip=1, library=False):
    """The exception TF raises for ``e``, raised calling the user's ``func`` (the frames of
    ``e``'s traceback after the first ``skip`` lead there); None when TF keeps ``e`` as it is.
    An error already rewritten by an inner converted call gains this call's frame on top.
    ``library``: ``func`` is this package's own (a tf.layers layer's or an RNN cell's ``call``,
    which TF 1.15 converts too): its frames are kept, unmarked."""
    meta = getattr(e, "ag_error_metadata", None)
    if meta is None and not (type(e) in _STRING_ERRORS or type(e) is KeyError
                             or type(e).__init__ is Exception.__init__):
        return None
    frames = traceback.extract_tb(e.__traceback__)[skip:]
    while not library and frames and frames[0].filename.startswith(_PKG_DIR):
        frames = frames[1:]  # (a conversion's wrapper)
    # AutoGraph's own calls between converted functions are not shown
    converted = not _is_lambda(func) or _lambda_converts(func)
    frames = [f for f in frames if not f.filename.startswith(_AUTOGRAPH_DIR)]
    # the branch and loop bodies AutoGraph makes of one function are that function's lines
    # (TF's source map shows the function once, at the line that raised, under its own name)
    merged = []
    for f in frames:
        if (merged and f.filename.startswith("<autograph ")
                and merged[-1][0].filename == f.filename):
            merged[-1] = (f, merged[-1][1])
        else:
            merged.append((f, f.name))
    frames = [_original(f) + (name,) for f, name in merged]
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
