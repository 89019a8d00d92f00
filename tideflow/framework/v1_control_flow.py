"""Imports TF 1.x dataflow control flow as tideflow's functional ``If`` and ``While``.

A GraphDef that TF 1.x (or TF 2.x with control flow v2 off) wrote for ``tf.cond`` holds
``Switch``/``Merge`` nodes, and for ``tf.while_loop`` a frame of ``Enter``/``Merge``/``Switch``/
``LoopCond``/``NextIteration``/``Exit`` nodes. tideflow runs only functional control flow, so the
importer rewrites them first, GraphDef to GraphDef, as TF's own functionalization pass does:

- a cond: the nodes between its ``Switch`` outputs and its ``Merge`` inputs become the two
  branch functions of one ``If`` (the Switches' data inputs are its inputs, the predicate its
  condition); each ``Merge`` becomes an ``Identity`` of the ``If`` output under its own name (so
  ``cond/Merge:0`` still names the result), and ``Merge:1`` (the taken branch's index) an extra
  output;
- a loop (one frame): the nodes between the ``Merge`` outputs and ``LoopCond`` become the cond
  function and the nodes between the ``Switch`` true outputs and ``NextIteration`` the body of
  one ``While``; the loop-invariant ``Enter`` values ride along as extra loop variables; each
  ``Exit`` becomes an ``Identity`` of the ``While`` output under its own name.

Conds are rewritten first (innermost first), so a cond inside a loop body becomes an ``If``
inside the body function. What this cannot rewrite (a loop nested in another loop or inside a
cond, a branch or loop body read from outside its construct, ref-typed Switch/Merge) raises
``UnimplementedError`` naming the node.
"""

from tideflow.framework import dtypes, errors
from tideflow.protos import function_pb2, graph_pb2, node_def_pb2

_VARIANT = dtypes.variant.as_datatype_enum

_SWITCH = frozenset({"Switch", "RefSwitch"})
_MERGE = frozenset({"Merge", "RefMerge"})
_ENTER = frozenset({"Enter", "RefEnter"})
_EXIT = frozenset({"Exit", "RefExit"})
_NEXT = frozenset({"NextIteration", "RefNextIteration"})
V1_CONTROL_FLOW_OPS = _SWITCH | _MERGE | _ENTER | _EXIT | _NEXT | {"LoopCond"}
_SOURCES_NOT_COPIED = frozenset({
    "Placeholder", "PlaceholderV2", "PlaceholderWithDefault", "VariableV2", "Variable",
    "VarHandleOp", "HashTableV2", "MutableHashTableV2", "FIFOQueueV2", "RandomShuffleQueueV2"})


def _unimplemented(node, what):
    return errors.UnimplementedError(
        None, None, f"Cannot import TF 1.x control flow at node '{node}': {what}")


def _parse(inp):
    """(node, output index, is_control) of a NodeDef input string."""
    if inp.startswith("^"):
        return inp[1:], -1, True
    name, _, idx = inp.partition(":")
    return name, int(idx) if idx else 0, False


class _Rewriter:
    def __init__(self, graph_def, producer_ops):
        self.gd = graph_def
        self.producer_ops = producer_ops
        self.nodes = {nd.name: nd for nd in graph_def.node}
        self.order = {nd.name: i for i, nd in enumerate(graph_def.node)}
        self.functions = {f.signature.name for f in graph_def.library.function}
        self.new_functions = []
        self._types = {}
        self._inside = None
        self._exit_chains = {}

    # ---- bookkeeping -----------------------------------------------------------------------

    def consumers(self):
        out = {}
        for nd in self.nodes.values():
            for inp in nd.input:
                out.setdefault(_parse(inp)[0], []).append(nd.name)
        return out

    def unique_node_name(self, base):
        name, k = base, 1
        while name in self.nodes:
            name, k = f"{base}_{k}", k + 1
        return name

    def unique_function_name(self, base):
        base = base.replace("/", "_").replace(".", "_")
        name, k = base, 1
        while name in self.functions:
            name, k = f"{base}_{k}", k + 1
        self.functions.add(name)
        return name

    def out_type(self, tensor):
        """The DataType enum of ``node:index``."""
        name, idx, _ = _parse(tensor)
        nd = self.nodes[name]
        if nd.op in V1_CONTROL_FLOW_OPS:
            if nd.op == "LoopCond":
                return dtypes.bool.as_datatype_enum
            if nd.op in _MERGE and idx == 1:
                return dtypes.int32.as_datatype_enum
            return nd.attr["T"].type
        key = (name, id(nd))
        if key not in self._types:
            from tideflow.framework import importer

            node = importer._parse_node(0, nd, self.producer_ops)
            self._types[key] = [t.base_dtype.as_datatype_enum for t in node.out_types]
        return self._types[key][idx]

    def is_cond_switch(self, nd):
        if nd.op not in _SWITCH:
            return False
        pred = self.nodes.get(_parse(nd.input[1])[0])
        return pred is None or pred.op != "LoopCond"

    def replace(self, removed, added):
        keep = [nd for nd in self.gd.node if nd.name not in removed]
        del self.gd.node[:]
        self.gd.node.extend(keep)
        self.gd.node.extend(added)
        self.nodes = {nd.name: nd for nd in self.gd.node}
        self.order = {nd.name: i for i, nd in enumerate(self.gd.node)}

    def function(self, base, arg_types, body_nodes, rets, ret_types, arg_of):
        """A FunctionDef of ``body_nodes`` whose inputs named in ``arg_of`` become arguments."""
        fd = function_pb2.FunctionDef()
        fd.signature.name = self.unique_function_name(base)
        for k, t in enumerate(arg_types):
            ref = t > 100  # a ref input (RefSwitch/RefEnter of a variable) stays a ref
            fd.signature.input_arg.add(name=f"_arg{k}", type=t - 100 if ref else t, is_ref=ref)
        for j, t in enumerate(ret_types):
            fd.signature.output_arg.add(name=f"output{j}", type=t)
            name, idx, _ = _parse(rets[j])
            # an argument by its name; a node output as node:index (a bare name is the op)
            fd.ret[f"output{j}"] = name if name.startswith("_arg") else f"{name}:{idx}"
        for name in sorted(body_nodes, key=self.order.get):
            src = self.nodes[name]
            nd = fd.node_def.add()
            nd.CopyFrom(src)
            if "_class" in nd.attr:  # colocation with nodes left outside means nothing here
                del nd.attr["_class"]
            del nd.input[:]
            for inp in src.input:
                mapped = arg_of(inp)
                if mapped is None:
                    nd.input.append(inp)
                elif mapped:  # "" drops a control edge on a removed node
                    nd.input.append(mapped)
        self.new_functions.append(fd)
        return fd.signature.name

    # ---- conds -----------------------------------------------------------------------------

    def inside_nodes(self):
        """The nodes downstream of a Switch or Enter before a Merge or Exit joins them: what
        can sit inside a branch or loop body (a control edge from any other node is one from
        outside, kept as the If's or While's control input)."""
        consumers = self.consumers()
        marked, stack = set(), [nd.name for nd in self.gd.node if nd.op in _SWITCH | _ENTER]
        while stack:
            n = stack.pop()
            for c in consumers.get(n, ()):
                if c not in marked and self.nodes[c].op not in _MERGE | _EXIT:
                    marked.add(c)
                    stack.append(c)
        return marked

    def region(self, tensor, stop, inside=None):
        """Nodes reached backwards from ``tensor`` before ``stop(node_def, index, is_control)``
        says a boundary; returns (nodes, boundary inputs). A control edge from a node not in
        ``inside`` is a boundary too."""
        seen, bounds, stack = set(), [], [tensor]
        while stack:
            inp = stack.pop()
            name, idx, ctrl = _parse(inp)
            nd = self.nodes.get(name)
            if nd is None:
                raise _unimplemented(name, "input node missing from the GraphDef")
            if stop(nd, idx, ctrl) or (ctrl and inside is not None and name not in inside):
                bounds.append(inp)
                continue
            if name in seen:
                continue
            if nd.op in V1_CONTROL_FLOW_OPS:
                raise _unimplemented(name, f"{nd.op} nested in another control-flow construct")
            if nd.op in _SOURCES_NOT_COPIED or (not nd.input and nd.op != "Const"):
                raise _unimplemented(name, f"a {nd.op} read inside a branch or loop body "
                                           "without passing a Switch or Enter")
            seen.add(name)
            stack.extend(nd.input)
        return seen, bounds

    def innermost_cond_merges(self):
        """The cond Merges whose branches hold no other control flow, in GraphDef order."""
        self._inside = self.inside_nodes()
        loop_merges = set()
        for nd in self.nodes.values():
            if nd.op in _MERGE and any(self.nodes[_parse(i)[0]].op in _NEXT for i in nd.input
                                       if not i.startswith("^")):
                loop_merges.add(nd.name)
        candidates = [nd for nd in self.gd.node if nd.op in _MERGE and nd.name not in loop_merges]
        for m in candidates:
            nested = False
            for inp in m.input:
                if inp.startswith("^"):
                    continue
                try:
                    self.region(inp, lambda nd, i, c: self.is_cond_switch(nd), self._inside)
                except errors.UnimplementedError:
                    nested = True
                    break
            if not nested:
                yield m

    def frames(self):
        out = []
        for nd in self.gd.node:
            if nd.op in _ENTER:
                f = nd.attr["frame_name"].s.decode()
                if f not in out:
                    out.append(f)
        return out

    def attempt(self, convert, arg):
        """Runs one conversion; on UnimplementedError leaves the GraphDef as it was."""
        n_functions, names = len(self.new_functions), set(self.functions)
        try:
            convert(arg)
        except errors.UnimplementedError as e:
            del self.new_functions[n_functions:]
            self.functions = names
            self.replace(set(), [])  # forget any half-made bookkeeping
            return e
        self.drop_dead_switches({nd.name for nd in self.gd.node if self.is_cond_switch(nd)})
        return None

    def cond_sides(self, merge):
        """For each data input of ``merge``: (its tensor, side 0/1, region nodes, switches)."""
        sides = []
        for inp in merge.input:
            if inp.startswith("^"):
                continue
            nodes, bounds = self.region(inp, lambda nd, i, c: self.is_cond_switch(nd),
                                        self._inside)
            # a control edge from a Switch (tf.tuple over its outputs) only orders the branch
            # after the Switch's input: the If's input already does
            switches = {_parse(b)[0] for b in bounds if self.is_cond_switch(self.nodes[_parse(b)[0]])}
            external = {_parse(b)[0] for b in bounds if _parse(b)[0] not in switches}
            ports = {_parse(b)[1] for b in bounds if not _parse(b)[2]}
            if len(ports) != 1:
                raise _unimplemented(merge.name, "a Merge input not reached from exactly one "
                                                 "side of its Switches")
            sides.append((inp, ports.pop(), nodes, switches, external))
        if len(sides) != 2 or sides[0][1] == sides[1][1]:
            raise _unimplemented(merge.name, "a Merge that is not the join of a two-way cond")
        return sides

    def convert_cond(self, first):
        # the merges of one cond: those sharing its predicate's Switches or branch nodes
        group, infos = [first.name], {first.name: self.cond_sides(first)}

        def keys(info):
            out = set()
            for _, _, nodes, switches, _ in info:
                out |= {("n", n) for n in nodes} | {("s", s) for s in switches}
            return out

        group_keys = keys(infos[first.name])
        consumers = self.consumers()
        # a cond's gradient shares its predicate's pivots and reads its branch values, but
        # runs after it: a Merge downstream of the group (or upstream) is another cond
        related = self.downstream(first.name, consumers)
        grew = True
        while grew:
            grew = False
            for nd in self.gd.node:
                if nd.op not in _MERGE or nd.name in infos or nd.name in related:
                    continue
                try:
                    info = self.cond_sides(nd)
                except errors.UnimplementedError:
                    continue
                k = keys(info)
                if k & group_keys:
                    below = self.downstream(nd.name, consumers)
                    if below & set(group):
                        continue
                    related |= below
                    infos[nd.name] = info
                    group.append(nd.name)
                    group_keys |= k
                    grew = True
        group.sort(key=self.order.get)
        branch = {0: set(), 1: set()}
        switches, external = set(), set()
        for m in group:
            for _, side, nodes, sws, ext in infos[m]:
                branch[side] |= nodes
                switches |= sws
                external |= ext
        if branch[0] & branch[1]:
            raise _unimplemented(first.name, "a node used by both branches")
        switches = sorted(switches, key=self.order.get)
        preds = {self.root(self.nodes[s].input[1]) for s in switches}
        if len(preds) != 1:
            raise _unimplemented(first.name, "Switches on different predicates")
        # the branches may be read only by themselves and their merges
        inside = branch[0] | branch[1] | set(group)
        all_merges = {m.name for m in self.gd.node if m.op in _MERGE}
        dead_ends, shared = set(), set()
        for n in branch[0] | branch[1]:
            for c in consumers.get(n, ()):
                if c not in inside and c not in dead_ends:
                    # what leaves a branch without a Merge never has a value (a tf.tuple's
                    # unused Identity): dropped with the branch; what another cond on the
                    # same predicate reads (its gradient) stays for that cond to copy
                    closure = self.downstream(c, consumers)
                    if closure & inside:
                        raise _unimplemented(n, f"a branch node read by '{c}' outside its cond")
                    if closure & all_merges:
                        shared.add(n)
                    else:
                        dead_ends |= closure
        stack = list(shared)
        while stack:  # with what those kept nodes read in the branch
            for inp in self.nodes[stack.pop()].input:
                name = _parse(inp)[0]
                if name in branch[0] | branch[1] and name not in shared:
                    shared.add(name)
                    stack.append(name)
        data_switches = [s for s in switches if self.nodes[s].input[0] != self.nodes[s].input[1]]
        pred = self.nodes[(data_switches or switches)[0]].input[1]
        arg_index = {s: k for k, s in enumerate(switches)}
        in_tensors = [self.nodes[s].input[0] for s in switches]
        in_types = [self.out_type(t) + (100 if self.nodes[s].op == "RefSwitch" else 0)
                    for t, s in zip(in_tensors, switches)]
        out_types = [self.nodes[m].attr["T"].type for m in group]
        index_used = {m for m in group
                      for c in consumers.get(m, ()) for i in self.nodes[c].input
                      if _parse(i)[0] == m and _parse(i)[1] == 1 and not _parse(i)[2]}
        base = first.name.rsplit("/", 1)[0] if "/" in first.name else first.name
        funcs = {}
        for side in (1, 0):
            rets, extra = [], []
            for m in group:
                inp = next(i for i, s, *_ in infos[m] if s == side)
                name, idx, _ = _parse(inp)
                rets.append(f"_arg{arg_index[name]}" if name in arg_index else f"{name}:{idx}")
            body = set(branch[side])
            for m in group:
                if m in index_used:
                    pos = [s for _, s, *_ in infos[m]].index(side)
                    c = self.unique_node_name(f"{m}/index_{side}")
                    extra.append(_const_int32(c, pos))
                    rets.append(f"{c}:0")
            for nd in extra:
                self.nodes[nd.name] = nd
                self.order[nd.name] = len(self.order)
                body.add(nd.name)

            def arg_of(inp, side=side):
                name, idx, ctrl = _parse(inp)
                if ctrl and name in external:
                    return ""  # a control edge from outside: the If's own control input
                if name not in arg_index:
                    return None
                if ctrl:
                    return ""
                if idx != side:
                    raise _unimplemented(name, "a branch reading the other side of a Switch")
                return f"_arg{arg_index[name]}"

            ret_types = out_types + [dtypes.int32.as_datatype_enum] * (len(rets) - len(group))
            funcs[side] = self.function(f"{base}_{'true' if side else 'false'}", in_types, body,
                                        rets, ret_types, arg_of)
            for nd in extra:
                del self.nodes[nd.name]
        if_name = self.unique_node_name(f"{base}/If")
        node = node_def_pb2.NodeDef(name=if_name, op="If", device=self.nodes[group[0]].device)
        node.input.append(pred)
        node.input.extend(in_tensors)
        controls = [f"^{n}" for n in sorted(external, key=self.order.get)]
        for s in switches:
            controls += [i for i in self.nodes[s].input if i.startswith("^") and i not in controls]
        node.input.extend(controls)
        node.attr["Tcond"].type = dtypes.bool.as_datatype_enum
        node.attr["Tin"].list.type.extend(t % 100 for t in in_types)
        node.attr["Tout"].list.type.extend(
            out_types + [dtypes.int32.as_datatype_enum] * len(index_used))
        node.attr["then_branch"].func.name = funcs[1]
        node.attr["else_branch"].func.name = funcs[0]
        added = [node]
        index_out = {m: len(group) + k for k, m in enumerate(g for g in group if g in index_used)}
        for j, m in enumerate(group):
            ident = node_def_pb2.NodeDef(name=m, op="Identity", device=self.nodes[m].device)
            ident.input.append(f"{if_name}:{j}")
            ident.attr["T"].type = out_types[j]
            added.append(ident)
        for c in {c for m in index_used for c in consumers.get(m, ())}:
            nd = self.nodes[c]
            new = [f"{if_name}:{index_out[_parse(i)[0]]}"
                   if _parse(i)[0] in index_out and _parse(i)[1] == 1 and not _parse(i)[2] else i
                   for i in nd.input]
            del nd.input[:]
            nd.input.extend(new)
        removed = (branch[0] | branch[1] | set(group) | dead_ends) - shared
        # the cond's Switches go once nothing else reads them (the predicate's pivot Switch and
        # its switch_t/switch_f Identities are left with no reader)
        self.replace(removed, added)
        self.drop_dead_switches(set(switches))

    def root(self, tensor):
        """``tensor`` with Identity ops stripped (a cond's pred_id is Identity(pred))."""
        name, idx, _ = _parse(tensor)
        nd = self.nodes[name]
        while nd.op == "Identity" and nd.input:
            name, idx, _ = _parse(nd.input[0])
            nd = self.nodes[name]
        return f"{name}:{idx}"

    def downstream(self, name, consumers=None):
        """``name`` and every node reading it, transitively."""
        consumers = consumers or self.consumers()
        closure, stack = set(), [name]
        while stack:
            n = stack.pop()
            if n in closure:
                continue
            closure.add(n)
            stack.extend(consumers.get(n, ()))
        return closure

    def drop_dead_switches(self, candidates):
        """Removes the given Switches when what reads them reaches no Merge (dead ends)."""
        consumers = self.consumers()
        removed = set()
        for s in candidates:
            closure = self.downstream(s, consumers)
            if s in self.nodes and not any(self.nodes[n].op in _MERGE for n in closure):
                removed |= closure
        if removed:
            self.replace(removed, [])

    # ---- loops -----------------------------------------------------------------------------

    def convert_loop(self, frame):
        enters = [nd for nd in self.gd.node
                  if nd.op in _ENTER and nd.attr["frame_name"].s.decode() == frame]
        consumers = self.consumers()
        loop_vars, invariants = [], []  # (enter, merge, switch, next, exit)
        for e in enters:
            merges = [c for c in consumers.get(e.name, ()) if self.nodes[c].op in _MERGE]
            if merges and not e.attr["is_constant"].b:
                m = self.nodes[merges[0]]
                nxt = [self.nodes[_parse(i)[0]] for i in m.input
                       if not i.startswith("^") and self.nodes[_parse(i)[0]].op in _NEXT]
                sw = [self.nodes[c] for c in consumers.get(m.name, ()) if self.nodes[c].op in _SWITCH]
                if len(merges) != 1 or len(nxt) != 1 or len(sw) != 1:
                    raise _unimplemented(e.name, "a loop variable without one Merge, "
                                                 "NextIteration and Switch")
                # the Exit reads the Switch's false side, maybe through Identities (a tf.tuple
                # in TF's gradient loops): those run once, on the final value
                chain, cur, exit_ = [], sw[0].name, None
                while exit_ is None:
                    side = [self.nodes[c] for c in consumers.get(cur, ())
                            if any(_parse(i)[0] == cur and not _parse(i)[2]
                                   and (_parse(i)[1] == 0 or cur != sw[0].name)
                                   for i in self.nodes[c].input)]
                    exits_ = [c for c in side if c.op in _EXIT]
                    idents = [c for c in side if c.op == "Identity"]
                    if exits_:
                        exit_ = exits_[0]
                    elif len(idents) == 1:
                        chain.append(idents[0])
                        cur = idents[0].name
                    else:
                        break
                if exit_ is None:
                    chain = []
                self._exit_chains[e.name] = chain
                loop_vars.append((e, m, sw[0], nxt[0], exit_))
            else:
                invariants.append(e)
        if not loop_vars:
            raise _unimplemented(enters[0].name if enters else frame, "a loop without variables")
        loop_cond = self.nodes[_parse(loop_vars[0][2].input[1])[0]]
        if loop_cond.op != "LoopCond":
            raise _unimplemented(loop_vars[0][2].name, "a loop Switch not on a LoopCond")
        n = len(loop_vars)
        merge_arg = {lv[1].name: k for k, lv in enumerate(loop_vars)}
        switch_arg = {lv[2].name: k for k, lv in enumerate(loop_vars)}
        inv_arg = {e.name: n + k for k, e in enumerate(invariants)}

        def cond_stop(nd, idx, ctrl):
            return nd.name in merge_arg or nd.name in inv_arg

        def body_stop(nd, idx, ctrl):
            return nd.name in switch_arg or nd.name in inv_arg

        cond_nodes, _ = self.region(loop_cond.input[0], cond_stop)
        body_nodes = set()
        for lv in loop_vars:
            # the body: what the next values need, and what NextIteration waits on (a
            # gradient loop's b_sync after its stack pops)
            nodes, bounds = self.region(lv[3].input[0], body_stop)
            for ctrl in lv[3].input[1:]:
                more, more_bounds = self.region(ctrl, body_stop)
                nodes |= more
                bounds += [b for b in more_bounds if _parse(b)[2]]
            for b in bounds:
                name, idx, ctrl = _parse(b)
                if name in switch_arg and not ctrl and idx != 1:
                    raise _unimplemented(name, "a loop body reading a Switch's exit side")
            body_nodes |= nodes
        types = [lv[0].attr["T"].type for lv in loop_vars] + [e.attr["T"].type for e in invariants]
        inside = cond_nodes | body_nodes
        frame_nodes = {nd.name for lv in loop_vars for nd in lv[:4]} | {loop_cond.name} | {
            e.name for e in invariants} | {c.name for lv in loop_vars
                                           for c in self._exit_chains[lv[0].name]}
        exits = {lv[4].name for lv in loop_vars if lv[4] is not None}
        dead_ends = set()
        for name in inside:
            for c in consumers.get(name, ()):
                if c not in inside and c not in frame_nodes and c not in dead_ends:
                    # what no NextIteration or LoopCond needs never runs (an inner loop's
                    # unused counter): dropped with the loop; anything else is unsupported
                    closure = self.downstream(c, consumers)
                    if closure & (inside | frame_nodes | exits) or any(
                            self.nodes[n].op in V1_CONTROL_FLOW_OPS for n in closure):
                        raise _unimplemented(name, f"a loop node read by '{c}' outside its loop")
                    dead_ends |= closure

        def arg_of(stops):
            def mapped(inp):
                name, _, ctrl = _parse(inp)
                if name not in stops:
                    return None
                return "" if ctrl else f"_arg{stops[name]}"
            return mapped

        base = frame.removesuffix("/while_context")
        cond_fn = self.function(f"{base}_cond", types, cond_nodes, [loop_cond.input[0]],
                                [dtypes.bool.as_datatype_enum],
                                arg_of({**merge_arg, **inv_arg}))
        rets = [lv[3].input[0] for lv in loop_vars] + [f"_arg{inv_arg[e.name]}" for e in invariants]
        body_fn = self.function(f"{base}_body", types, body_nodes, rets, types,
                                arg_of({**switch_arg, **inv_arg}))
        while_name = self.unique_node_name(f"{base}/While")
        node = node_def_pb2.NodeDef(name=while_name, op="While", device=loop_vars[0][0].device)
        node.input.extend([lv[0].input[0] for lv in loop_vars] + [e.input[0] for e in invariants])
        controls = []
        for e in enters:
            controls += [i for i in e.input[1:] if i.startswith("^") and i not in controls]
        node.input.extend(controls)
        node.attr["T"].list.type.extend(types)
        node.attr["cond"].func.name = cond_fn
        node.attr["body"].func.name = body_fn
        node.attr["parallel_iterations"].i = loop_vars[0][0].attr["parallel_iterations"].i or 10
        added = [node]
        for k, lv in enumerate(loop_vars):
            if lv[4] is not None:
                source = f"{while_name}:{k}"
                for c in [*self._exit_chains[lv[0].name], lv[4]]:
                    ident = node_def_pb2.NodeDef(name=c.name, op="Identity", device=c.device)
                    ident.input.append(source)
                    ident.attr["T"].type = types[k]
                    added.append(ident)
                    source = f"{c.name}:0"
        removed = inside | frame_nodes | exits | dead_ends
        self.replace(removed, added)


# ------------------------------------------------------------------------------------------
# TF 1.x loop gradients: stacks between a forward and a gradient frame
# ------------------------------------------------------------------------------------------


def _frame_loop_cond(nodes, consumers, frame):
    """The LoopCond of ``frame`` (read by the Switch of one of its loop variables)."""
    for nd in nodes.values():
        if nd.op in _ENTER and nd.attr["frame_name"].s.decode() == frame:
            for m in consumers.get(nd.name, ()):
                if nodes[m].op in _MERGE:
                    for s in consumers.get(m, ()):
                        if nodes[s].op in _SWITCH:
                            lc = nodes[_parse(nodes[s].input[1])[0]]
                            if lc.op == "LoopCond":
                                return lc.name
    return None


def _add_loop_var(gd, nodes, enter, loop_cond, body_value, base, with_exit):
    """Makes ``enter`` (now a variant loop variable) a loop variable of its frame whose next
    value is ``body_value`` (a function of the returned Identity); returns (identity, exit)."""
    enter.attr["is_constant"].b = False
    enter.attr["T"].type = _VARIANT
    new = []

    def node(op, name, inputs, **attrs):
        nd = node_def_pb2.NodeDef(name=name, op=op, device=enter.device)
        nd.input.extend(inputs)
        nd.attr["T"].type = _VARIANT
        for k, v in attrs.items():
            nd.attr[k].i = v
        new.append(nd)
        return nd

    merge = node("Merge", f"{base}/Merge", [enter.name, f"{base}/NextIteration"], N=2)
    switch = node("Switch", f"{base}/Switch", [merge.name, loop_cond])
    ident = node("Identity", f"{base}/Identity", [f"{switch.name}:1"])
    node("NextIteration", f"{base}/NextIteration", [body_value])
    exit_ = node("Exit", f"{base}/Exit", [switch.name]) if with_exit else None
    gd.node.extend(new)
    for nd in new:
        nodes[nd.name] = gd.node[len(gd.node) - len(new) + new.index(nd)]
    return ident.name, exit_.name if exit_ is not None else None


def _rewrite_stacks(gd):
    """TF 1.x's loop gradient keeps forward values in a stack: pushed in the forward loop,
    popped in the gradient loop. Each becomes a TensorList loop variable of both loops
    (PushBack in the forward body, its Exit entering the gradient loop, PopBack there)."""
    nodes = {nd.name: nd for nd in gd.node}
    stacks = [nd for nd in gd.node if nd.op == "StackV2"]
    if not stacks:
        return
    consumers = {}
    for nd in gd.node:
        for i in nd.input:
            consumers.setdefault(_parse(i)[0], []).append(nd.name)
    for nd in gd.node:
        if nd.op == "ControlTrigger":  # the gradient loop's b_sync: only orders
            nd.op = "NoOp"
            nd.attr.clear()
    for stack in stacks:
        elem = stack.attr["elem_type"].type
        enters = [nodes[c] for c in consumers.get(stack.name, ()) if nodes[c].op in _ENTER]
        push = pop = None
        for e in enters:
            for c in consumers.get(e.name, ()):
                if nodes[c].op == "StackPushV2":
                    push, push_enter = nodes[c], e
                elif nodes[c].op == "StackPopV2":
                    pop, pop_enter = nodes[c], e
        if push is None or pop is None or len(enters) != 2:
            raise _unimplemented(stack.name, "a stack not pushed in one loop and popped in one")
        f_cond = _frame_loop_cond(nodes, consumers, push_enter.attr["frame_name"].s.decode())
        b_cond = _frame_loop_cond(nodes, consumers, pop_enter.attr["frame_name"].s.decode())
        if f_cond is None or b_cond is None:
            raise _unimplemented(stack.name, "a stack outside a while loop")
        # the stack itself: an empty list
        shape = f"{stack.name}/element_shape"
        c = gd.node.add(name=shape, op="Const", device=stack.device)
        c.attr["dtype"].type = 3
        c.attr["value"].tensor.dtype = 3
        c.attr["value"].tensor.int_val.append(-1)
        nodes[shape] = c
        stack.op = "EmptyTensorList"
        max_size = stack.input[0]
        del stack.input[:]
        stack.input.extend([shape, max_size])
        stack.attr.clear()
        stack.attr["element_dtype"].type = elem
        stack.attr["shape_type"].type = 3
        # forward: push back onto the loop variable
        ident, exit_ = _add_loop_var(gd, nodes, push_enter, f_cond, push.name,
                                     f"{stack.name}/forward", True)
        value = push.input[1]
        controls = [i for i in push.input[2:] if i.startswith("^")]
        push.op = "TensorListPushBack"
        del push.input[:]
        push.input.extend([ident, value] + controls)
        push.attr.clear()
        push.attr["element_dtype"].type = elem
        # gradient loop: pop back from the list the forward loop left
        del pop_enter.input[:]
        pop_enter.input.append(exit_)
        ident_b, _ = _add_loop_var(gd, nodes, pop_enter, b_cond, f"{pop.name}:0",
                                   f"{stack.name}/backward", False)
        pshape = f"{pop.name}/element_shape"
        c2 = gd.node.add(name=pshape, op="Const", device=pop.device)
        c2.CopyFrom(c)
        c2.name = pshape
        c2.input.append("^" + ident_b)  # in the gradient loop's frame
        nodes[pshape] = c2
        controls = [i for i in pop.input[1:] if i.startswith("^")]
        pop.op = "TensorListPopBack"
        del pop.input[:]
        pop.input.extend([ident_b, pshape] + controls)
        pop.attr.clear()
        pop.attr["element_dtype"].type = elem
        # readers of the popped value: output 1 now (output 0 is the shorter list)
        for nd in gd.node:
            if nd.name == f"{stack.name}/backward/NextIteration":
                continue
            fixed = [f"{pop.name}:1" if not i.startswith("^") and _parse(i)[0] == pop.name
                     else i for i in nd.input]
            if fixed != list(nd.input):
                del nd.input[:]
                nd.input.extend(fixed)


def _const_int32(name, value):
    nd = node_def_pb2.NodeDef(name=name, op="Const")
    nd.attr["dtype"].type = dtypes.int32.as_datatype_enum
    nd.attr["value"].tensor.dtype = dtypes.int32.as_datatype_enum
    nd.attr["value"].tensor.int_val.append(value)
    return nd


_RUNNABLE = frozenset({"Switch", "Merge"})


def functionalize(graph_def, producer_ops=None):
    """``graph_def`` with its v1 Switch/Merge conds and Enter/Exit loops rewritten to ``If`` and
    ``While`` (a copy; ``graph_def`` itself when it has none)."""
    if not any(nd.op in V1_CONTROL_FLOW_OPS for nd in graph_def.node):
        return graph_def
    gd = graph_pb2.GraphDef()
    gd.CopyFrom(graph_def)
    _rewrite_stacks(gd)
    rw = _Rewriter(gd, producer_ops or {})
    # innermost constructs first: conds whose branches hold no control flow, then loops whose
    # bodies hold none, until nothing is left or nothing more can be rewritten
    first_error = None
    progressed = True
    while progressed:
        progressed = False
        attempts = [(rw.convert_cond, m) for m in rw.innermost_cond_merges()]
        attempts += [(rw.convert_loop, f) for f in rw.frames()]
        for convert, arg in attempts:
            error = rw.attempt(convert, arg)
            if error is None:
                progressed = True
                break
            first_error = first_error or error
    # Switches and Merges outside the cond pattern (slim's random selector merges N switches)
    # run as they are, with dead tensors (ops/switch_merge_ops.py); loop ops cannot
    left = [nd for nd in gd.node if nd.op in V1_CONTROL_FLOW_OPS and nd.op not in _RUNNABLE]
    if left:
        if first_error is not None:
            raise first_error
        raise _unimplemented(left[0].name, f"a {left[0].op} outside any cond or loop it "
                                           "could be rewritten with")
    # colocation with nodes that moved into a function body means nothing any more
    names = {nd.name for nd in gd.node}
    for nd in gd.node:
        if "_class" in nd.attr:
            keep = [c for c in nd.attr["_class"].list.s
                    if not c.startswith(b"loc:@") or c[5:].decode() in names]
            if len(keep) != len(nd.attr["_class"].list.s):
                del nd.attr["_class"].list.s[:]
                nd.attr["_class"].list.s.extend(keep)
                if not keep:
                    del nd.attr["_class"]
    gd.library.function.extend(rw.new_functions)
    return gd


__all__ = ["V1_CONTROL_FLOW_OPS", "functionalize"]
