"""``tf.contrib.graph_editor``: selecting ops and tensors (regexes, forward/backward walks) and
subgraph views; the edits (reroute, detach, connect, copies, ``graph_replace``) are in
``contrib_graph_transform``, and this module's namespace exports both."""

import collections.abc
import re

from tideflow.framework import ops

# ------------------------------------------------------------------------------------------
# util
# ------------------------------------------------------------------------------------------


def _is_iterable(x):
    return isinstance(x, collections.abc.Iterable) and not isinstance(
        x, (str, bytes, ops.Tensor, ops.Operation))


def _unique(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def make_list_of_op(ops_, check_graph=True, allow_graph=True, ignore_ts=False):
    """``ops_`` (a Graph, an Operation, a SubGraphView or an iterable of them) as a list of
    operations, as TF 1.15: with ``check_graph`` everything must be an Operation (or a Tensor
    too with ``ignore_ts``) of one graph; tensors are then dropped."""
    if isinstance(ops_, ops.Graph):
        if not allow_graph:
            raise TypeError("allow_graph is False: cannot convert a tf.Graph.")
        return ops_.get_operations()
    if isinstance(ops_, SubGraphView):
        return list(ops_.ops)
    ops_ = list(ops_) if _is_iterable(ops_) else [ops_]
    if ops_ and check_graph:
        get_unique_graph(ops_, check_types=None if ignore_ts else ops.Operation)
    return [op for op in ops_ if isinstance(op, ops.Operation)]


def make_list_of_t(ts, check_graph=True, allow_graph=True, ignore_ops=False):
    """``ts`` (a Graph, a Tensor, a SubGraphView or an iterable of them) as a list of tensors,
    as :func:`make_list_of_op` makes operations."""
    if isinstance(ts, ops.Graph):
        if not allow_graph:
            raise TypeError("allow_graph is False: cannot convert a tf.Graph.")
        return get_tensors(ts)
    if isinstance(ts, SubGraphView):
        return list(ts.inputs) + [t for t in ts.outputs if t not in ts.inputs]
    ts = list(ts) if _is_iterable(ts) else [ts]
    if ts and check_graph:
        get_unique_graph(ts, check_types=None if ignore_ops else ops.Tensor)
    return [t for t in ts if isinstance(t, ops.Tensor)]


def get_unique_graph(tops, check_types=None, none_if_empty=False):
    """The one graph all of ``tops`` (ops or tensors, or ``check_types``) belong to."""
    if isinstance(tops, ops.Graph):
        return tops
    if not _is_iterable(tops):
        raise TypeError(f"{type(tops)} is not iterable")
    if check_types is None:
        check_types = (ops.Operation, ops.Tensor)
    elif not _is_iterable(check_types):
        check_types = (check_types,)
    check_types = tuple(check_types)
    graph = None
    for op in tops:
        if not isinstance(op, check_types):
            raise TypeError(f"Expected a type in ({', '.join(str(t) for t in check_types)}), "
                            f"got: {type(op)}")
        if graph is None:
            graph = op.graph
        elif graph is not op.graph:
            raise ValueError(f"Operation {op} does not belong to given graph")
    if graph is None and not none_if_empty:
        raise ValueError("Can't find the unique graph of an empty list")
    return graph


def get_tensors(graph):
    """Every output tensor of every op of ``graph``."""
    if not isinstance(graph, ops.Graph):
        raise TypeError(f"Expected a graph, got: {type(graph)}")
    return [t for op in graph.get_operations() for t in op.outputs]


def get_generating_ops(ts):
    """The ops producing ``ts``."""
    return [t.op for t in make_list_of_t(ts, allow_graph=False)]


def get_consuming_ops(ts):
    """The ops consuming any of ``ts`` (each once)."""
    return _unique(op for t in make_list_of_t(ts, allow_graph=False) for op in t.consumers())


class ControlOutputs:
    """The control outputs of every op of a graph: ``get(op)`` lists the ops that have ``op``
    as a control input."""

    def __init__(self, graph):
        if not isinstance(graph, ops.Graph):
            raise TypeError(f"Expected a tf.Graph, got: {type(graph).__name__}")
        self._graph = graph
        self.update()

    def update(self):
        self._control_outputs = {}
        for op in self._graph.get_operations():
            for control_input in op.control_inputs:
                self._control_outputs.setdefault(control_input, []).append(op)
        return self

    def get_all(self):
        return self._control_outputs

    def get(self, op):
        return list(self._control_outputs.get(op, ()))

    @property
    def graph(self):
        return self._graph


def scope_finalize(scope):
    return scope if not scope or scope.endswith("/") else scope + "/"


def scope_dirname(scope):
    """The part of ``scope`` up to and with its last ``/`` ("" for none)."""
    slash = scope.rfind("/")
    return "" if slash == -1 else scope[:slash + 1]


def scope_basename(scope):
    """The part of ``scope`` after its last ``/``."""
    return scope[scope.rfind("/") + 1:]


def concatenate_unique(la, lb):
    """Appends to the list ``la`` the elements of ``lb`` it lacks (in ``lb``'s order);
    returns ``la``."""
    seen = set(la)
    for x in lb:
        if x not in seen:
            la.append(x)
            seen.add(x)
    return la


class ListView:
    """A read-only view of a list (what TF's ops return for their inputs)."""

    def __init__(self, list_):
        if not isinstance(list_, list):
            raise TypeError(f"Expected a list, got: {type(list_)}.")
        self._list = list_

    def __iter__(self):
        return iter(self._list)

    def __len__(self):
        return len(self._list)

    def __bool__(self):
        return bool(self._list)

    def __getitem__(self, i):
        return self._list[i]

    def __add__(self, other):
        return list(self) + (other if isinstance(other, list) else list(other))


def is_iterable(obj):
    """Whether ``obj`` can be iterated (a Tensor counts as not iterable, as in TF)."""
    if isinstance(obj, ops.Tensor):
        return False
    try:
        iter(obj)
    except TypeError:  # anything that refuses iter() is a leaf
        return False
    return True


def flatten_tree(tree, leaves=None):
    """The leaves of a nested structure of iterables (dicts by value), in order, appended to
    ``leaves`` (a new list by default)."""
    leaves = [] if leaves is None else leaves
    if isinstance(tree, dict):
        for child in tree.values():
            flatten_tree(child, leaves)
    elif is_iterable(tree):
        for child in tree:
            flatten_tree(child, leaves)
    else:
        leaves.append(tree)
    return leaves


def transform_tree(tree, fn, iterable_type=tuple):
    """``tree`` with ``fn`` applied to each leaf, keeping its containers' types (dicts,
    tuples and namedtuples, sequences); other iterables become ``iterable_type``."""
    if not is_iterable(tree):
        return fn(tree)
    if isinstance(tree, dict):
        res = tree.__new__(type(tree))
        res.__init__((k, transform_tree(child, fn)) for k, child in tree.items())
        return res
    if isinstance(tree, tuple):
        if hasattr(tree, "_asdict"):
            return type(tree)(**transform_tree(tree._asdict(), fn))
        return tree.__new__(type(tree), (transform_tree(child, fn) for child in tree))
    if isinstance(tree, collections.abc.Sequence):
        res = tree.__new__(type(tree))
        res.__init__(transform_tree(child, fn) for child in tree)
        return res
    return iterable_type(transform_tree(child, fn) for child in tree)


def check_graphs(*args):
    """Raises ValueError unless every argument's ``graph`` (None ignored) is the same."""
    graph = None
    for i, sgv in enumerate(args):
        if graph is None and sgv.graph is not None:
            graph = sgv.graph
        elif sgv.graph is not None and sgv.graph is not graph:
            raise ValueError(f"Argument[{i}]: Wrong graph!")


_INTERNAL_NAME = re.compile(r"^__\w+__$")


def get_predefined_collection_names():
    """The values of ``tf.GraphKeys``' public attributes (the collection names TF knows)."""
    return [getattr(ops.GraphKeys, key) for key in dir(ops.GraphKeys)
            if not _INTERNAL_NAME.match(key)]


def find_corresponding_elem(target, dst_graph, dst_scope="", src_scope=""):
    """The op or tensor of ``dst_graph`` named as ``target`` with ``src_scope`` replaced by
    ``dst_scope`` (KeyError when there is none)."""
    name = target.name
    if src_scope:
        src_scope = scope_finalize(src_scope)
        if not name.startswith(src_scope):
            raise ValueError(f"{name} does not start with {src_scope}")
        name = name[len(src_scope):]
    if dst_scope:
        name = scope_finalize(dst_scope) + name
    if isinstance(target, ops.Tensor):
        return dst_graph.get_tensor_by_name(name)
    if isinstance(target, ops.Operation):
        return dst_graph.get_operation_by_name(name)
    raise TypeError(f"Expected tf.Tensor or tf.Operation, got: {type(target)}")


def find_corresponding(targets, dst_graph, dst_scope="", src_scope=""):
    """:func:`find_corresponding_elem` over a nested structure of ops and tensors."""
    return transform_tree(
        targets, lambda top: find_corresponding_elem(top, dst_graph, dst_scope, src_scope))


def placeholder_name(t=None, scope=None, prefix="geph"):
    """The name of the placeholder that stands for ``t``: ``<scope>geph__<op>_<index>``
    (``scope`` defaults to the directory of ``t``'s op)."""
    if scope is not None:
        scope = scope_finalize(scope)
    if t is None:
        return f"{scope or ''}{prefix}"
    if not isinstance(t, ops.Tensor):
        raise TypeError(f"Expected a tf.Tensor, got: {type(t).__name__}")
    dirname, _, basename = t.op.name.rpartition("/")
    if scope is None:
        scope = scope_finalize(dirname)
    if basename.startswith(f"{prefix}__"):
        return scope + basename
    return f"{scope}{prefix}__{basename}_{t.value_index}"


def make_placeholder_from_tensor(t, scope=None, prefix="geph"):
    """A placeholder with ``t``'s dtype and static shape, named by :func:`placeholder_name`."""
    from tideflow.ops import constant_op

    return constant_op.placeholder(dtype=t.dtype, shape=t.get_shape(),
                                 name=placeholder_name(t, scope=scope, prefix=prefix))


def make_placeholder_from_dtype_and_shape(dtype, shape=None, scope=None, prefix="geph"):
    """A placeholder of ``dtype`` and ``shape`` named ``<scope><prefix>``."""
    from tideflow.ops import constant_op

    return constant_op.placeholder(dtype=dtype, shape=shape,
                                 name=placeholder_name(scope=scope, prefix=prefix))


# ------------------------------------------------------------------------------------------
# select
# ------------------------------------------------------------------------------------------


def can_be_regex(obj):
    """Whether ``obj`` is a string or a compiled regex."""
    return isinstance(obj, (str, re.Pattern))


def make_regex(obj):
    """``obj`` compiled as a regex (a compiled one is returned as is)."""
    if isinstance(obj, re.Pattern):
        return obj
    if isinstance(obj, str):
        return re.compile(obj)
    raise TypeError(f"Expected a string or a regex, got: {type(obj).__name__}")


def filter_ops(ops_, positive_filter):
    """The ops among ``ops_`` that ``positive_filter`` accepts (``True``: all of them)."""
    ops_ = make_list_of_op(ops_)
    if positive_filter is not True:
        ops_ = [op for op in ops_ if positive_filter(op)]
    return ops_


def filter_ts(ops_, positive_filter):
    """The tensors ``ops_`` read, then those they produce (each once, as TF 1.15), that
    ``positive_filter`` accepts (``True``: all)."""
    ops_ = make_list_of_op(ops_)
    ts = _unique([t for op in ops_ for t in op.inputs] + [t for op in ops_ for t in op.outputs])
    if positive_filter is not True:
        ts = [t for t in ts if positive_filter(t)]
    return ts


def filter_ops_from_regex(ops_, regex):
    """The ops among ``ops_`` whose name the regex matches (``re.search``)."""
    regex = make_regex(regex)
    return [op for op in make_list_of_op(ops_) if regex.search(op.name)]


def get_name_scope_ops(ops_, scope):
    """The ops among ``ops_`` named ``scope`` or inside it."""
    scope = scope[:-1] if scope and scope.endswith("/") else scope
    return filter_ops_from_regex(ops_, f"^{re.escape(scope)}(/.*)?$")


def get_ops_ios(ops_, control_inputs=False, control_outputs=None, control_ios=None):
    """``ops_`` with the producers of their inputs and the consumers of their outputs (and
    control neighbours when asked)."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    ops_ = make_list_of_op(ops_)
    out = list(ops_)
    for op in ops_:
        out += [t.op for t in op.inputs]
        out += [c for t in op.outputs for c in t.consumers()]
        if control_inputs:
            out += list(op.control_inputs)
        if control_outputs is not None:
            out += control_outputs.get(op)
    return _unique(out)


def check_cios(control_inputs=False, control_outputs=None, control_ios=None):
    """``(control_inputs, control_outputs)`` from the selectors' three control arguments:
    ``control_ios`` (a :class:`ControlOutputs`) means both; the ControlOutputs is updated."""
    if control_ios is not None:
        if not isinstance(control_ios, ControlOutputs):
            raise TypeError(f"Expected a util.ControlOutputs, got: {type(control_ios)}")
        if control_outputs is not None:
            raise ValueError("control_outputs should be None when using control_ios.")
        control_inputs, control_outputs = True, control_ios
    elif control_outputs is not None and not isinstance(control_outputs, ControlOutputs):
        raise TypeError(f"Expected a util.ControlOutputs, got: {type(control_outputs)}")
    if control_outputs is not None:
        control_outputs.update()
    return control_inputs, control_outputs


def get_within_boundary_ops(ops_, seed_ops, boundary_ops=(), inclusive=True,
                            control_inputs=False, control_outputs=None, control_ios=None):
    """The ops of ``ops_`` reached from ``seed_ops`` through inputs and outputs (and control
    edges when asked) without crossing ``boundary_ops`` (kept with ``inclusive``)."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    ops_ = make_list_of_op(ops_)
    seed_ops = make_list_of_op(seed_ops, allow_graph=False)
    boundary = set(make_list_of_op(boundary_ops))
    res = set(seed_ops)
    if boundary & res:
        raise ValueError("Boundary is intersecting with the seeds.")
    wave = set(seed_ops)
    while wave:
        new_wave = set()
        for op in get_ops_ios(wave, control_inputs, control_outputs):
            if op in res:
                continue
            if op in boundary:
                if inclusive:
                    res.add(op)
            else:
                new_wave.add(op)
        res.update(new_wave)
        wave = new_wave
    return [op for op in ops_ if op in res]


def filter_ts_from_regex(ops_, regex):
    """The tensors of ``ops_`` (as :func:`filter_ts`) whose name the regex matches."""
    regex = make_regex(regex)
    return filter_ts(ops_, lambda t: regex.search(t.name))


def _select_kwargs(kwargs, own, other, graph_error):
    """TF 1.15's keyword checks: ``graph`` (a Graph or None), ``positive_filter``, this
    selector's ``restrict_*_regex``; the other selector's flag is accepted and ignored."""
    graph, keep, restrict = None, None, False
    for k, v in kwargs.items():
        if k == "graph":
            graph = v
            if graph is not None and not isinstance(graph, ops.Graph):
                raise TypeError(f"{graph_error}{type(graph)}")
        elif k == "positive_filter":
            keep = v
        elif k == own:
            restrict = v
        elif k != other:
            raise ValueError(f"Wrong keywords argument: {k}.")
    return graph, keep, restrict


def _select(args, kwargs, kind):
    """Ops (``kind`` "ops") or tensors ("ts") from ``args``, as TF 1.15's select_ops/select_ts:
    a regex needs ``graph=``; one marked for the other kind (``(?#ts)`` / ``(?#ops)``) is
    skipped, and with ``restrict_<kind>_regex`` so is every unmarked one."""
    other = "ts" if kind == "ops" else "ops"
    graph, keep, restrict = _select_kwargs(
        kwargs, f"restrict_{kind}_regex", f"restrict_{other}_regex",
        "Expected a tf.Graph, got: " if kind == "ops" else "Expected a tf.Graph, got ")
    result = []
    for arg in args:
        if can_be_regex(arg):
            if graph is None:
                raise ValueError("Use the keyword argument 'graph' to use regex.")
            regex = make_regex(arg)
            if regex.pattern.startswith(f"(?#{other})"):
                continue
            if restrict and not regex.pattern.startswith(f"(?#{kind})"):
                continue
            found = (filter_ops_from_regex if kind == "ops" else filter_ts_from_regex)(
                graph, regex)
        elif kind == "ops":
            found = make_list_of_op(arg, ignore_ts=True)
        else:
            found = make_list_of_t(arg, ignore_ops=True)
        for x in found:
            if x not in result and (keep is None or keep(x)):
                result.append(x)
    return result


def select_ops(*args, **kwargs):
    """Operations from ``args``: operations, graphs, subgraph views, iterables of them, and
    regexes matched against the names of ``graph=``'s ops (a regex starting with ``(?#ts)`` is
    for tensors and skipped). ``positive_filter=`` keeps only ops it accepts;
    ``restrict_ops_regex=True`` uses only the regexes marked ``(?#ops)``."""
    return _select(args, kwargs, "ops")


def select_ts(*args, **kwargs):
    """Tensors from ``args``, as :func:`select_ops` selects ops (a regex starting with
    ``(?#ops)`` is skipped; ``restrict_ts_regex=True`` uses only those marked ``(?#ts)``)."""
    return _select(args, kwargs, "ts")


def select_ops_and_ts(*args, **kwargs):
    """``(ops, ts)``: plain regexes select ops, ``(?#ts)`` ones tensors."""
    return (select_ops(*args, restrict_ops_regex=False, **kwargs),
            select_ts(*args, restrict_ts_regex=True, **kwargs))


def _seed_ops(seed_ops, from_tensors):
    if not _is_iterable(seed_ops):
        seed_ops = [seed_ops]
    seed_ops = list(seed_ops)
    if not seed_ops:
        return []
    if isinstance(seed_ops[0], ops.Tensor):
        return from_tensors(make_list_of_t(seed_ops, allow_graph=False))
    return make_list_of_op(seed_ops, allow_graph=False)


def _walk(seeds, next_ops, inclusive, within_ops, within_ops_fn):
    if within_ops is not None:
        within_ops = frozenset(make_list_of_op(within_ops, allow_graph=False))
        seeds = [op for op in seeds if op in within_ops]

    def within(op):
        return ((within_ops is None or op in within_ops)
                and (within_ops_fn is None or within_ops_fn(op)))

    result = _unique(seeds)
    seen = set(result)
    wave = list(result)
    while wave:
        new_wave = []
        for op in wave:
            for new_op in next_ops(op):
                if new_op not in seen and within(new_op):
                    seen.add(new_op)
                    new_wave.append(new_op)
        result.extend(new_wave)
        wave = new_wave
    if not inclusive:
        seed_set = frozenset(seeds)
        result = [op for op in result if op not in seed_set]
    return result


def get_forward_walk_ops(seed_ops, inclusive=True, within_ops=None, within_ops_fn=None,
                         stop_at_ts=(), control_outputs=None):
    """The ops reachable forward from ``seed_ops`` (ops, or tensors whose consumers seed the
    walk), through data edges except out of ``stop_at_ts`` and, with ``control_outputs`` (a
    :class:`ControlOutputs`), control edges; ``inclusive`` keeps the seeds."""
    seeds = _seed_ops(seed_ops, get_consuming_ops)
    stop = frozenset(make_list_of_t(stop_at_ts)) if stop_at_ts else frozenset()

    def next_ops(op):
        out = [c for t in op.outputs if t not in stop for c in t.consumers()]
        if control_outputs is not None:
            out += control_outputs.get(op)
        return out

    return _walk(seeds, next_ops, inclusive, within_ops, within_ops_fn)


def get_backward_walk_ops(seed_ops, inclusive=True, within_ops=None, within_ops_fn=None,
                          stop_at_ts=(), control_inputs=False):
    """The ops reachable backward from ``seed_ops`` (ops, or tensors whose producers seed
    the walk), through the inputs except ``stop_at_ts`` and, with ``control_inputs``, control
    inputs; ``inclusive`` keeps the seeds."""
    seeds = _seed_ops(seed_ops, get_generating_ops)
    stop = frozenset(make_list_of_t(stop_at_ts)) if stop_at_ts else frozenset()

    def next_ops(op):
        out = [t.op for t in op.inputs if t not in stop]
        if control_inputs:
            out += list(op.control_inputs)
        return out

    return _walk(seeds, next_ops, inclusive, within_ops, within_ops_fn)


def get_walks_intersection_ops(forward_seed_ops, backward_seed_ops, forward_inclusive=True,
                               backward_inclusive=True, within_ops=None, within_ops_fn=None,
                               control_inputs=False, control_outputs=None, control_ios=None):
    """The ops both on a forward walk from ``forward_seed_ops`` and on a backward walk from
    ``backward_seed_ops`` (in forward-walk order)."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    forward = get_forward_walk_ops(forward_seed_ops, inclusive=forward_inclusive,
                                   within_ops=within_ops, within_ops_fn=within_ops_fn,
                                   control_outputs=control_outputs)
    backward = frozenset(get_backward_walk_ops(backward_seed_ops, inclusive=backward_inclusive,
                                               within_ops=within_ops,
                                               within_ops_fn=within_ops_fn,
                                               control_inputs=control_inputs))
    return [op for op in forward if op in backward]


def get_walks_union_ops(forward_seed_ops, backward_seed_ops, forward_inclusive=True,
                        backward_inclusive=True, within_ops=None, within_ops_fn=None,
                        control_inputs=False, control_outputs=None, control_ios=None):
    """The ops on a forward walk from ``forward_seed_ops`` or on a backward walk from
    ``backward_seed_ops``."""
    control_inputs, control_outputs = check_cios(control_inputs, control_outputs, control_ios)
    forward = get_forward_walk_ops(forward_seed_ops, inclusive=forward_inclusive,
                                   within_ops=within_ops, within_ops_fn=within_ops_fn,
                                   control_outputs=control_outputs)
    backward = get_backward_walk_ops(backward_seed_ops, inclusive=backward_inclusive,
                                     within_ops=within_ops, within_ops_fn=within_ops_fn,
                                     control_inputs=control_inputs)
    return _unique(forward + backward)


def compute_boundary_ts(ops_):
    """``(outside_input_ts, outside_output_ts, inside_ts)`` of a set of ops: the inputs they
    take from other ops, their outputs except those only they consume, and the tensors they
    pass among themselves."""
    ops_ = make_list_of_op(ops_)
    op_set = frozenset(ops_)
    input_ts = _unique(t for op in ops_ for t in op.inputs)
    output_ts = _unique(t for op in ops_ for t in op.outputs)
    produced = frozenset(output_ts)
    inside = [t for t in input_ts if t in produced]
    only_inside = frozenset(t for t in inside if not (frozenset(t.consumers()) - op_set))
    inside_set = frozenset(inside)
    return ([t for t in input_ts if t not in inside_set],
            [t for t in output_ts if t not in only_inside], inside)


# ------------------------------------------------------------------------------------------
# subgraph views
# ------------------------------------------------------------------------------------------


class SubGraphView:
    """A set of ops seen as one block: its ``inputs`` (tensors it takes from outside, then the
    passthrough tensors), ``outputs`` (tensors it produces that something outside may use, then
    the passthroughs) and ``ops``; ``remap_inputs``/``remap_outputs`` reorder or subset them."""

    def __init__(self, inside_ops=(), passthrough_ts=()):
        inside_ops = make_list_of_op(inside_ops) if inside_ops else []
        passthrough_ts = make_list_of_t(passthrough_ts) if passthrough_ts else []
        everything = inside_ops + passthrough_ts
        self._graph = get_unique_graph(everything) if everything else None
        self._ops = inside_ops
        inputs, outputs, insides = compute_boundary_ts(inside_ops) if inside_ops else (
            [], [], [])
        known = frozenset(inputs + outputs + list(insides))
        self._passthrough_ts = [t for t in passthrough_ts if t not in known]
        self._input_ts = inputs + self._passthrough_ts
        self._output_ts = outputs + self._passthrough_ts

    def _copy(self):
        other = SubGraphView.__new__(SubGraphView)
        other._graph, other._ops = self._graph, list(self._ops)
        other._passthrough_ts = list(self._passthrough_ts)
        other._input_ts, other._output_ts = list(self._input_ts), list(self._output_ts)
        return other

    @property
    def graph(self):
        return self._graph

    @property
    def ops(self):
        return tuple(self._ops)

    @property
    def inputs(self):
        return tuple(self._input_ts)

    @property
    def outputs(self):
        return tuple(self._output_ts)

    @property
    def passthroughs(self):
        return tuple(self._passthrough_ts)

    @property
    def connected_inputs(self):
        return tuple(t for t in self._input_ts if t not in self._passthrough_ts)

    @property
    def connected_outputs(self):
        return tuple(t for t in self._output_ts if t not in self._passthrough_ts)

    def remap_inputs(self, new_input_indices):
        """A copy whose inputs are ``[inputs[i] for i in new_input_indices]``."""
        other = self._copy()
        other._input_ts = [self._input_ts[i] for i in new_input_indices]
        return other

    def remap_outputs(self, new_output_indices):
        """A copy whose outputs are ``[outputs[i] for i in new_output_indices]``."""
        other = self._copy()
        other._output_ts = [self._output_ts[i] for i in new_output_indices]
        return other

    def remap_outputs_to_consumers(self):
        """A copy with each output repeated once per consumer outside the view."""
        other = self._copy()
        inside = frozenset(self._ops)
        other._output_ts = [t for t in self._output_ts for c in t.consumers()
                            if c not in inside]
        return other

    def remap(self, new_input_indices=None, new_output_indices=None):
        other = self
        if new_input_indices is not None:
            other = other.remap_inputs(new_input_indices)
        if new_output_indices is not None:
            other = other.remap_outputs(new_output_indices)
        return other._copy() if other is self else other

    def consumers(self):
        """The ops outside the view that consume its outputs."""
        inside = frozenset(self._ops)
        return _unique(c for t in self._output_ts for c in t.consumers() if c not in inside)

    def op(self, op_id):
        return self._ops[op_id]

    def input_index(self, t):
        return self._input_ts.index(t)

    def output_index(self, t):
        return self._output_ts.index(t)

    def is_passthrough(self, t):
        return t in self._passthrough_ts

    def __bool__(self):
        return self._graph is not None

    def __contains__(self, op):
        return op in self._ops

    def __len__(self):
        return len(self._ops)

    def __iter__(self):
        return iter(self._ops)

    def __str__(self):  # TF 1.15's layout: one name a line, passthroughs starred
        if not self:
            return "SubGraphView: empty"

        def block(title, names):
            if not names:
                return f"** {title}: empty\n"
            return f"** {title}[{len(names)}]:\n" + "".join(f"  {n}\n" for n in names)

        def t_name(t):
            return f"{t.name} *" if t in self._passthrough_ts else t.name

        return (f"SubGraphView (graphid={id(self._graph)}):\n"
                + block("ops", [op.name for op in self._ops])
                + block("inputs", [t_name(t) for t in self._input_ts])
                + block("outputs", [t_name(t) for t in self._output_ts]))

def make_view(*args, **kwargs):
    """A :class:`SubGraphView` of what ``args`` select (as :func:`select_ops_and_ts`; a
    single view is returned as is)."""
    if len(args) == 1 and isinstance(args[0], SubGraphView):
        return args[0]
    selected_ops, ts = select_ops_and_ts(*args, **kwargs)
    return SubGraphView(selected_ops, ts)


sgv = make_view


ph = make_placeholder_from_dtype_and_shape


def make_view_from_scope(scope, graph):
    """The view of the ops whose names start with ``scope``."""
    scope = scope_finalize(scope)
    return SubGraphView([op for op in graph.get_operations() if op.name.startswith(scope)])


def sgv_scope(scope, graph):
    return make_view_from_scope(scope, graph)


# the names of TF's submodules ge.util, ge.select and ge.subgraph
UTIL_NAMES = ["ControlOutputs", "ListView", "check_graphs", "concatenate_unique",
              "find_corresponding", "find_corresponding_elem", "flatten_tree",
              "get_consuming_ops", "get_generating_ops", "get_predefined_collection_names",
              "get_tensors", "get_unique_graph", "is_iterable", "make_list_of_op",
              "make_list_of_t", "make_placeholder_from_dtype_and_shape",
              "make_placeholder_from_tensor", "placeholder_name", "scope_basename",
              "scope_dirname", "scope_finalize", "transform_tree"]
SELECT_NAMES = ["can_be_regex", "make_regex", "filter_ts", "filter_ts_from_regex", "filter_ops",
                "filter_ops_from_regex", "get_name_scope_ops", "check_cios", "get_ops_ios",
                "compute_boundary_ts", "get_within_boundary_ops", "get_forward_walk_ops",
                "get_backward_walk_ops", "get_walks_intersection_ops", "get_walks_union_ops",
                "select_ops", "select_ts", "select_ops_and_ts"]
SUBGRAPH_NAMES = ["SubGraphView", "make_view", "make_view_from_scope"]
__all__ = [
    "ControlOutputs", "SubGraphView", "can_be_regex", "check_cios", "compute_boundary_ts",
    "filter_ops",
    "filter_ops_from_regex", "filter_ts", "filter_ts_from_regex", "get_backward_walk_ops",
    "get_consuming_ops", "get_forward_walk_ops", "get_generating_ops", "get_name_scope_ops",
    "get_ops_ios", "get_tensors", "get_unique_graph", "get_walks_intersection_ops",
    "get_walks_union_ops", "get_within_boundary_ops", "make_list_of_op", "make_list_of_t",
    "make_placeholder_from_dtype_and_shape", "make_placeholder_from_tensor", "make_regex",
    "make_view", "make_view_from_scope", "ph", "placeholder_name", "select_ops",
    "select_ops_and_ts", "select_ts", "sgv", "sgv_scope",
]
