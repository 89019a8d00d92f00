"""AutoGraph's source-to-source rewrite of one function's AST.

In order: ``continue``/``break``/``return`` become flag variables (the statements after one are
guarded by the flag), expressions call the run-time operators (``and``/``or``/``not``,
conditional expressions, calls, ``assert``, ``list.append``), a liveness pass marks what each
statement's successors read, and ``if``/``while``/``for`` become calls of
``ag__.if_stmt``/``while_stmt``/``for_stmt`` on nested functions sharing the variables
through ``nonlocal``.
"""

import ast

AG = "ag__"
_SKIP_CALLS = frozenset({"super", "locals", "globals", "vars", "eval", "exec", "dir"})


def function_def(**fields):
    """An ``ast.FunctionDef`` (with the fields newer Pythons add)."""
    if "type_params" in ast.FunctionDef._fields:
        fields.setdefault("type_params", [])
    return ast.FunctionDef(**fields)


def _name(id_, ctx=None):
    return ast.Name(id=id_, ctx=ctx or ast.Load())


def _ag(attr):
    return ast.Attribute(value=_name(AG), attr=attr, ctx=ast.Load())


def _call(func, *args, keywords=()):
    return ast.Call(func=func, args=list(args), keywords=list(keywords))


def _lambda(body):
    return ast.Lambda(args=_no_args(), body=body)


def _no_args():
    return ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                         kwarg=None, defaults=[])


def _assign(name, value):
    return ast.Assign(targets=[_name(name, ast.Store())], value=value)


def _const(v):
    return ast.Constant(value=v)


def _not(e):
    return ast.UnaryOp(op=ast.Not(), operand=e)


# -- scope queries --------------------------------------------------------------------------


def _scope_walk(node):
    """The nodes under ``node`` in its own scope (not inside nested defs, lambdas, classes or
    comprehensions); a nested def/class is yielded itself (its name is bound here)."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                          ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
            stack.extend(_outer_parts(n))
            continue
        stack.extend(ast.iter_child_nodes(n))


def _outer_parts(n):
    """The parts of a def, class, lambda or comprehension evaluated in the enclosing scope."""
    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        out = list(n.decorator_list)
        if isinstance(n, ast.ClassDef):
            return out + list(n.bases) + [k.value for k in n.keywords]
        return out + list(n.args.defaults) + [d for d in n.args.kw_defaults if d is not None]
    if isinstance(n, ast.Lambda):
        return list(n.args.defaults) + [d for d in n.args.kw_defaults if d is not None]
    return [n.generators[0].iter]


def _stmt_walk(root):
    """``root`` and the nodes under it in the scope it is in."""
    yield root
    if isinstance(root, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda,
                         ast.GeneratorExp, ast.ListComp, ast.SetComp, ast.DictComp)):
        for part in _outer_parts(root):
            yield from _stmt_walk(part)
        return
    yield from _scope_walk(root)


def _qn(node):
    """``a.b.c`` for an attribute chain over a name (a composite variable), else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or not parts:
        return None
    return ".".join([node.id, *reversed(parts)])


def _bound(nodes):
    """Names bound by ``nodes`` (statements or expressions) in their scope, and the attribute
    chains they assign (``self.x``)."""
    out = set()
    for root in nodes:
        for n in _stmt_walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, (ast.Store, ast.Del)):
                out.add(n.id)
            elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or (
                    isinstance(n, ast.ExceptHandler) and n.name):
                out.add(n.name)
            elif isinstance(n, (ast.Import, ast.ImportFrom)):
                for a in n.names:
                    out.add((a.asname or a.name).split(".")[0])
            elif isinstance(n, ast.NamedExpr):
                out.add(n.target.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store):
                q = _qn(n)
                if q is not None:
                    out.add(q)
    return out


def _uses(nodes):
    """Names read under ``nodes``, nested scopes included (closures read them later)."""
    out = set()
    for root in nodes:
        if root is None:
            continue
        for n in ast.walk(root):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Load):
                q = _qn(n)
                if q is not None:  # ``a.b.c`` reads a.b.c, a.b (and a, as a Name)
                    parts = q.split(".")
                    out.update(".".join(parts[:k]) for k in range(2, len(parts) + 1))
            elif isinstance(n, ast.AugAssign):
                q = n.target.id if isinstance(n.target, ast.Name) else _qn(n.target)
                if q is not None:
                    out.add(q)
    return out


def _jumps_in(stmts, kinds, into_loops):
    """Whether a jump of ``kinds`` occurs in ``stmts`` (not in nested loops unless
    ``into_loops``, never in nested scopes)."""
    def visit(node):
        for c in ast.iter_child_nodes(node):
            if isinstance(c, kinds):
                return True
            if isinstance(c, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef,
                              ast.Lambda)):
                continue
            if not into_loops and isinstance(c, (ast.For, ast.While)):
                if visit_list(c.orelse):
                    return True
                continue
            if visit(c):
                return True
        return False

    def visit_list(ss):
        for s in ss:
            if isinstance(s, kinds):
                return True
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            if not into_loops and isinstance(s, (ast.For, ast.While)):
                if visit_list(s.orelse):
                    return True
                continue
            if visit(s):
                return True
        return False

    return visit_list(stmts)


def _always_jumps(stmts, kinds):
    """Whether running ``stmts`` always ends in a jump of ``kinds``."""
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, kinds):
        return True
    if isinstance(last, ast.If):
        return _always_jumps(last.body, kinds) and _always_jumps(last.orelse, kinds)
    return False


# -- jump lowering ----------------------------------------------------------------------------


class _Names:
    """Fresh names for one function: never one its source uses."""

    def __init__(self, fdef):
        self.taken = {n.id for n in ast.walk(fdef) if isinstance(n, ast.Name)}
        self.taken |= {n.arg for n in ast.walk(fdef) if isinstance(n, ast.arg)}
        self.counts = {}

    def new(self, base):
        k = self.counts.get(base, 0)
        while True:
            name = base if k == 0 else f"{base}_{k}"
            k += 1
            if name not in self.taken:
                self.counts[base] = k
                self.taken.add(name)
                return name


def _lower(stmts, kinds, replace, flag, into_loops):
    """``stmts`` with each jump of ``kinds`` replaced by ``replace(jump)`` (statements that set
    ``flag``), and what follows a statement that may jump run only while ``flag`` is False (in
    the other branch, where an ``if``'s branch always jumps)."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, kinds):
            out.extend(replace(s))
            return out  # the rest is unreachable
        if not _jumps_in([s], kinds, into_loops):
            out.append(s)
            continue
        rest = stmts[i + 1:]
        if isinstance(s, ast.If) and rest:
            if _always_jumps(s.body, kinds):
                s.orelse, rest = s.orelse + rest, []
            elif _always_jumps(s.orelse, kinds):
                s.body, rest = s.body + rest, []
        _lower_inside(s, kinds, replace, flag, into_loops)
        out.append(s)
        if rest:
            out.append(ast.If(test=_not(_name(flag)),
                              body=_lower(rest, kinds, replace, flag, into_loops), orelse=[]))
        return out
    return out


def _lower_inside(s, kinds, replace, flag, into_loops):
    if isinstance(s, ast.If):
        s.body = _lower(s.body, kinds, replace, flag, into_loops) or [ast.Pass()]
        s.orelse = _lower(s.orelse, kinds, replace, flag, into_loops)
    elif isinstance(s, (ast.For, ast.While)):
        if into_loops:
            s.body = _lower(s.body, kinds, replace, flag, into_loops) or [ast.Pass()]
            _add_extra_test(s, _not(_name(flag)))
        s.orelse = _lower(s.orelse, kinds, replace, flag, into_loops)
    elif isinstance(s, (ast.With, ast.AsyncWith)):
        s.body = _lower(s.body, kinds, replace, flag, into_loops) or [ast.Pass()]
    elif isinstance(s, ast.Try):
        s.body = _lower(s.body, kinds, replace, flag, into_loops) or [ast.Pass()]
        for h in s.handlers:
            h.body = _lower(h.body, kinds, replace, flag, into_loops) or [ast.Pass()]
        s.orelse = _lower(s.orelse, kinds, replace, flag, into_loops)
        s.finalbody = _lower(s.finalbody, kinds, replace, flag, into_loops)


def _add_extra_test(loop, test):
    if isinstance(loop, ast.While):
        loop.test = ast.BoolOp(op=ast.And(), values=[test, loop.test])
    else:
        prev = getattr(loop, "_ag_extra_test", None)
        loop._ag_extra_test = test if prev is None else ast.BoolOp(op=ast.And(),
                                                                   values=[test, prev])


def _lower_loops(stmts, names):
    """``continue`` and ``break`` of every loop under ``stmts`` (innermost first)."""
    out = []
    for s in stmts:
        if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.append(s)
            continue
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(s, field, None), list):
                setattr(s, field, _lower_loops(getattr(s, field), names))
        if isinstance(s, ast.Try):
            for h in s.handlers:
                h.body = _lower_loops(h.body, names)
        if not isinstance(s, (ast.For, ast.While)):
            out.append(s)
            continue
        if _jumps_in(s.body, ast.Continue, False):
            flag = names.new("continue_")
            body = _lower(s.body, ast.Continue, lambda _s, f=flag: [_assign(f, _const(True))],
                          flag, False)
            s.body = [_assign(flag, _const(False)), *body]
        orelse, s.orelse = s.orelse, []
        if _jumps_in(s.body, ast.Break, False):
            flag = names.new("break_")
            s.body = _lower(s.body, ast.Break, lambda _s, f=flag: [_assign(f, _const(True))],
                            flag, False) or [ast.Pass()]
            _add_extra_test(s, _not(_name(flag)))
            out.extend([_assign(flag, _const(False)), s])
            if orelse:
                out.append(ast.If(test=_not(_name(flag)), body=orelse, orelse=[]))
        else:
            out.append(s)
            out.extend(orelse)
    return out


def _lower_returns(fdef, names):
    """``return`` inside compound statements: ``do_return``/``retval_`` flags, one final
    ``return``."""
    body = fdef.body
    nested = any(_jumps_in([s], ast.Return, True) for s in body
                 if not isinstance(s, ast.Return))
    if not nested:
        return
    do_return, retval_ = names.new("do_return"), names.new("retval_")

    def replace(r):
        value = r.value if r.value is not None else _const(None)
        return [_assign(do_return, _const(True)), _assign(retval_, value)]

    lowered = _lower(body, ast.Return, replace, do_return, True)
    fdef.body = [_assign(do_return, _const(False)),
                 _assign(retval_, _call(_ag("UndefinedReturnValue"))),
                 *lowered,
                 ast.Return(value=_call(_ag("retval"), _name(retval_)))]


# -- expressions ------------------------------------------------------------------------------


class _Expressions(ast.NodeTransformer):
    """Boolean operators, conditional expressions, calls, ``assert``, ``list.append`` and
    ``set_element_type``, loop options; nested defs, lambdas and classes are left alone.
    ``super()`` names its class and instance (it runs inside nested functions)."""

    def __init__(self, self_arg=None, bound=None):
        self.self_arg = self_arg
        self.bound = bound  # names local to the function (None: all)

    def visit_FunctionDef(self, node):
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        return node

    def visit_Lambda(self, node):
        return node

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        fn = "and_" if isinstance(node.op, ast.And) else "or_"
        values = node.values
        expr = values[-1]
        for v in reversed(values[:-1]):
            expr = _call(_ag(fn), _lambda(v), _lambda(expr))
        return expr

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.Not):
            return _call(_ag("not_"), node.operand)
        return node

    def visit_IfExp(self, node):
        self.generic_visit(node)
        return _call(_ag("if_exp"), node.test, _lambda(node.body), _lambda(node.orelse))

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id in _SKIP_CALLS:
            if f.id == "super" and not node.args and self.self_arg is not None:
                node.args = [_name("__class__"), _name(self.self_arg)]
            return node
        if isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == AG:
            return node
        args = ast.Tuple(elts=node.args, ctx=ast.Load())
        kwargs = ast.Dict(keys=[None if k.arg is None else _const(k.arg) for k in node.keywords],
                          values=[k.value for k in node.keywords]) if node.keywords else None
        return _call(_ag("converted_call"), f, args, *([kwargs] if kwargs is not None else []))

    def visit_Assert(self, node):
        self.generic_visit(node)
        msg = _lambda(node.msg) if node.msg is not None else _const(None)
        return ast.Expr(value=_call(_ag("assert_stmt"), node.test, msg))

    def visit_Expr(self, node):
        call = node.value
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            attr, target = call.func.attr, call.func.value
            # (a closure's or a global's list is appended to in place: rebinding its name
            # here would make it a local of the function, unbound at the call)
            if (attr == "append" and isinstance(target, ast.Name) and len(call.args) == 1
                    and not call.keywords and (self.bound is None or target.id in self.bound)):
                elem = self.visit(call.args[0])
                return _assign(target.id, _call(_ag("list_append"), _name(target.id), elem))
        if isinstance(call, ast.Call):
            directive = _directive(call)
            if directive == "set_element_type" and call.args and isinstance(call.args[0],
                                                                             ast.Name):
                call = self.generic_visit(call)
                return _assign(call.args[0].id, _call(_ag("set_element_type"), *call.args,
                                                      keywords=call.keywords))
        self.generic_visit(node)
        return node

    def _loop(self, node):
        opts = []
        body = []
        for s in node.body:
            if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call) and \
                    _directive(s.value) == "set_loop_options":
                opts.extend(s.value.keywords)
            else:
                body.append(s)
        node.body = body or [ast.Pass()]
        self.generic_visit(node)
        node._ag_opts = [ast.keyword(arg=k.arg, value=self.visit(k.value)) for k in opts]
        extra = getattr(node, "_ag_extra_test", None)
        if extra is not None:
            node._ag_extra_test = self.visit(extra)
        return node

    visit_While = _loop
    visit_For = _loop


def _directive(call):
    f = call.func
    name = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else None
    return name if name in ("set_element_type", "set_loop_options") else None


# -- liveness and definedness -----------------------------------------------------------------


def _live_in(stmts, live_out):
    live = set(live_out)
    for s in reversed(stmts):
        live = _stmt_live_in(s, live)
    return live


def _stmt_live_in(s, out):
    s._ag_live_out = frozenset(out)
    if isinstance(s, ast.If):
        return _uses([s.test]) | _live_in(s.body, out) | _live_in(s.orelse, out)
    if isinstance(s, (ast.While, ast.For)):
        is_for = isinstance(s, ast.For)
        head_uses = _uses([getattr(s, "_ag_extra_test", None)] if is_for else [s.test])
        targets = _bound([s.target]) if is_for else set()
        head = set(out) | head_uses
        for _ in range(20):
            new = set(out) | head_uses | (_live_in(s.body, head) - targets)
            if new == head:
                break
            head = new
        s._ag_live_head = frozenset(head)
        _live_in(s.orelse, out)
        return head | (_uses([s.iter]) if is_for else set())
    if isinstance(s, (ast.With, ast.AsyncWith)):
        return _uses([i.context_expr for i in s.items]) | _live_in(s.body, out)
    if isinstance(s, ast.Try):
        after = set(out) | _live_in(s.finalbody, out)
        handlers = set()
        for h in s.handlers:
            handlers |= _live_in(h.body, after)
        body_out = after | handlers | _live_in(s.orelse, after)
        return _live_in(s.body, body_out) | handlers | body_out
    if isinstance(s, ast.Return):
        return _uses([s.value])
    if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return (set(out) - {s.name}) | _uses([s])
    if isinstance(s, ast.AugAssign):
        return set(out) | _uses([s])
    kills = _bound([s]) if isinstance(s, (ast.Assign, ast.AnnAssign, ast.Import,
                                          ast.ImportFrom)) else set()
    return (set(out) - kills) | _uses([s])


def _defined(stmts, defined):
    """Marks each compound statement with the names surely bound before it; returns those
    surely bound after ``stmts``."""
    defined = set(defined)
    for s in stmts:
        s._ag_defined = frozenset(defined)
        if isinstance(s, ast.If):
            a = _defined(s.body, defined)
            b = _defined(s.orelse, defined)
            defined |= a & b
        elif isinstance(s, (ast.While, ast.For)):
            inner = defined | (_bound([s.target]) if isinstance(s, ast.For) else set())
            _defined(s.body, inner)
            _defined(s.orelse, defined)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            defined = _defined(s.body, defined | _bound([i.optional_vars for i in s.items
                                                           if i.optional_vars is not None]))
        elif isinstance(s, ast.Try):
            _defined(s.body, defined)
            for h in s.handlers:
                _defined(h.body, defined)
            _defined(s.orelse, defined)
            defined = _defined(s.finalbody, defined)
        else:
            defined |= _bound([s])
    return defined


# -- control flow -----------------------------------------------------------------------------


class _ControlFlow:
    """``if``/``while``/``for`` as run-time operator calls on nested functions."""

    def __init__(self, names, excluded):
        self.names = names
        self.excluded = excluded  # the function's global names
        self.guarded = set()

    def block(self, stmts):
        out = []
        for s in stmts:
            out.extend(self.stmt(s))
        return out

    def stmt(self, s):
        if isinstance(s, ast.If):
            return self.if_(s)
        if isinstance(s, ast.While):
            return self.while_(s)
        if isinstance(s, ast.For):
            return self.for_(s)
        if isinstance(s, (ast.With, ast.AsyncWith)):
            s.body = self.block(s.body)
        elif isinstance(s, ast.Try):
            s.body = self.block(s.body)
            for h in s.handlers:
                h.body = self.block(h.body)
            s.orelse = self.block(s.orelse)
            s.finalbody = self.block(s.finalbody)
        return [s]

    def _state(self, modified, live):
        modified = sorted(n for n in modified if n not in self.excluded and n != AG and
                          not ("." in n and n.split(".")[0] in modified))
        # an attribute may be read anywhere later (another method): always an output
        first = [n for n in modified if n in live or "." in n]
        return first + [n for n in modified if n not in first], len(first)

    def _guards(self, node, names):
        out = []
        for n in names:
            if n in node._ag_defined or "." in n:  # attributes: read as possibly unset
                continue
            self.guarded.add(n)
            read = _lambda(_name(n))
            read._ag_raw = True
            out.append(_assign(n, _call(_ag("maybe_undefined"), read, _const(n))))
        return out

    def _def(self, base, body, names, args=()):
        fn = self.names.new(base)
        names = [n for n in names if "." not in n]
        stmts = [ast.Nonlocal(names=names)] if names else []
        if self.excluded:
            stmts.insert(0, ast.Global(names=sorted(self.excluded)))
        stmts.extend(body or [ast.Pass()])
        if not names and not body:
            stmts = [ast.Pass()]
        node = function_def(
            name=fn, args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in args],
                                        vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None,
                                        defaults=[]),
            body=stmts, decorator_list=[], returns=None)
        node._ag_generated = True
        return fn, node

    def _state_fns(self, names, stmt):
        deleted = {n.id for n in _stmt_walk(stmt) if isinstance(n, ast.Name) and
                   isinstance(n.ctx, ast.Del)}
        elts = []
        for n in names:
            if "." in n:  # an attribute: Undefined where the object lacks it
                *path, attr = n.split(".")
                elts.append(_call(_ag("get_attr"), _chain(path), _const(attr), _const(n)))
            elif n in deleted:  # ``del`` may leave it unbound
                read = _lambda(_name(n))
                read._ag_raw = True
                elts.append(_call(_ag("maybe_undefined"), read, _const(n)))
            else:
                elts.append(_name(n))
        tup = ast.Tuple(elts=elts, ctx=ast.Load())
        get_fn, get_def = self._def("get_state", [ast.Return(value=tup)], ())
        get_def._ag_raw = True
        plain = [n for n in names if "." not in n]
        body = []
        if names:
            slots = [_name(n, ast.Store()) if "." not in n else _name("_", ast.Store())
                     for n in names]
            body.append(ast.Assign(targets=[ast.Tuple(elts=slots, ctx=ast.Store())],
                                   value=_name("vars_")) if plain else ast.Pass())
            for k, n in enumerate(names):
                if "." in n:
                    *path, attr = n.split(".")
                    value = ast.Subscript(value=_name("vars_"), slice=_const(k), ctx=ast.Load())
                    body.append(ast.Expr(value=_call(_ag("set_attr"), _chain(path),
                                                     _const(attr), value)))
        set_fn, set_def = self._def("set_state", body, names, ("vars_",))
        set_def._ag_raw = True
        return get_fn, set_fn, [get_def, set_def]

    def if_(self, s):
        modified = _bound(s.body + s.orelse)
        names, n_live = self._state(modified, s._ag_live_out)
        body = self.block(s.body)
        orelse = self.block(s.orelse)
        t_fn, t_def = self._def("if_body", body, names)
        f_fn, f_def = self._def("else_body", orelse, names)
        get_fn, set_fn, state_defs = self._state_fns(names, s)
        call = _call(_ag("if_stmt"), s.test, _name(t_fn), _name(f_fn), _name(get_fn),
                     _name(set_fn), ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load()),
                     _const(n_live))
        return [*self._guards(s, names), *state_defs, t_def, f_def, ast.Expr(value=call)]

    def _opts(self, s):
        kws = getattr(s, "_ag_opts", [])
        return ast.Dict(keys=[_const(k.arg) for k in kws], values=[k.value for k in kws])

    def while_(self, s):
        modified = _bound(s.body)
        names, n_live = self._state(modified, s._ag_live_head | s._ag_live_out)
        body = self.block(s.body)
        b_fn, b_def = self._def("loop_body", body, names)
        t_fn, t_def = self._def("loop_test", [ast.Return(value=s.test)], ())
        get_fn, set_fn, state_defs = self._state_fns(names, s)
        call = _call(_ag("while_stmt"), _name(t_fn), _name(b_fn), _name(get_fn), _name(set_fn),
                     ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load()),
                     _const(n_live), self._opts(s))
        return [*self._guards(s, names), *state_defs, b_def, t_def, ast.Expr(value=call),
                *self.block(s.orelse)]

    def for_(self, s):
        modified = _bound(s.body) | _bound([s.target])
        names, n_live = self._state(modified, s._ag_live_head | s._ag_live_out)
        itr = self.names.new("itr")
        body = [ast.Assign(targets=[s.target], value=_name(itr)), *self.block(s.body)]
        b_fn, b_def = self._def("loop_body", body, names, (itr,))
        pre = []
        extra = getattr(s, "_ag_extra_test", None)
        if extra is not None:
            e_fn, e_def = self._def("extra_test", [ast.Return(value=extra)], ())
            pre.append(e_def)
            extra_arg = _name(e_fn)
        else:
            extra_arg = _const(None)
        get_fn, set_fn, state_defs = self._state_fns(names, s)
        call = _call(_ag("for_stmt"), s.iter, extra_arg, _name(b_fn), _name(get_fn),
                     _name(set_fn), ast.Tuple(elts=[_const(n) for n in names], ctx=ast.Load()),
                     _const(n_live), self._opts(s))
        return [*self._guards(s, names), *state_defs, b_def, *pre, ast.Expr(value=call),
                *self.block(s.orelse)]


def _chain(parts):
    node = _name(parts[0])
    for p in parts[1:]:
        node = ast.Attribute(value=node, attr=p, ctx=ast.Load())
    return node


class _WrapReads(ast.NodeTransformer):
    """Reads of variables that may be undefined go through ``ag__.ld``."""

    def __init__(self, names):
        self.names = names

    def visit_FunctionDef(self, node):
        if getattr(node, "_ag_generated", False) and not getattr(node, "_ag_raw", False):
            self.generic_visit(node)
        return node

    def visit_Lambda(self, node):
        if not getattr(node, "_ag_raw", False):
            self.generic_visit(node)
        return node

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            return _call(_ag("ld"), node)
        return node

    def visit_AugAssign(self, node):
        self.generic_visit(node)
        t = node.target
        if isinstance(t, ast.Name) and t.id in self.names:  # ``x += 1`` reads x first
            return [_assign(t.id, _call(_ag("ld"), _name(t.id))), node]
        return node


# -- one function -----------------------------------------------------------------------------


def _nested_defs(fdef):
    for n in _scope_walk(fdef):
        if isinstance(n, ast.FunctionDef) and not getattr(n, "_ag_generated", False):
            yield n


def convert_function_def(fdef):
    """Rewrites ``fdef`` (an ``ast.FunctionDef``) in place: its nested functions first."""
    if any(isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)) for n in _scope_walk(fdef)):
        raise NotImplementedError(f"generators are not converted ({fdef.name})")
    for inner in list(_nested_defs(fdef)):
        try:
            convert_function_def(inner)
        except NotImplementedError:
            pass
    bound = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    bound |= {a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    for n in _scope_walk(fdef):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            bound.add(n.id)
        elif isinstance(n, (ast.Global, ast.Nonlocal)):
            bound.update(n.names)
    names = _Names(fdef)
    fdef.body = _lower_loops(fdef.body, names)
    _lower_returns(fdef, names)
    positional = fdef.args.posonlyargs + fdef.args.args
    expr = _Expressions(positional[0].arg if positional else None, bound)
    fdef.body = [expr.visit(s) for s in fdef.body]
    params = {a.arg for a in fdef.args.posonlyargs + fdef.args.args + fdef.args.kwonlyargs}
    params |= {a.arg for a in (fdef.args.vararg, fdef.args.kwarg) if a is not None}
    excluded, shared = set(), set()  # global names stay out of the state
    for n in _scope_walk(fdef):
        if isinstance(n, ast.Global):
            excluded.update(n.names)
        elif isinstance(n, ast.Nonlocal):
            shared.update(n.names)
    _live_in(fdef.body, set())
    _defined(fdef.body, params | shared)
    cf = _ControlFlow(names, excluded)
    fdef.body = cf.block(fdef.body)
    if cf.guarded:
        wrap = _WrapReads(cf.guarded)
        body = []
        for s in fdef.body:
            out = wrap.visit(s)
            body.extend(out if isinstance(out, list) else [out])
        fdef.body = body
    return fdef
