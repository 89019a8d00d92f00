"""Function bodies: ``FuncGraph`` (a graph traced from a Python function) and ``trace``.

A FuncGraph holds the body of an ``If``/``While`` branch or a dataset function. It is stored
in its outermost graph's function library (``graph._functions``), serialized as a FunctionDef.
Tensors of enclosing graphs used inside are captured: a Placeholder stands for them inside and
the outer tensor becomes an extra input of the op that calls the function (a variable's ref
tensor is captured as a ref, so updates inside the body reach the variable's buffer).

Naming, collections, seeds and op ids follow the outermost graph, so ops traced in a body get
the TF 1.x names they would have had in the outer graph (``cond/add``, ``while/mul``...).
"""

from tideflow.framework import dtypes, nest, ops
from tideflow.framework.tensor_shape import as_shape, unknown_shape


class FuncGraph(ops.Graph):
    """The graph of one function body.

    inputs: the Placeholders of the function's arguments, in order.
    outputs: the flat list of Tensors it returns; ``structured_outputs`` as fn returned them.
    captures: ``(outer_tensor, inner_placeholder)`` for each enclosing tensor used inside.
    extra_args: Placeholders appended after the captures (loop accumulators added by
      gradients). The calling convention is ``inputs + capture placeholders + extra_args``.
    control_captures: ops of enclosing graphs the body has control dependencies on; the op
      that calls the function takes them as control inputs.
    """

    # a cond branch or while body (``trace(control_flow=True)``), as opposed to a function
    # graph of its own (a tf.data function, a gradient body)
    control_flow_body = False
    # a while loop's cond or body: TF 1.x lets no op outside the loop take its tensors
    while_loop_body = False
    # op seeds come from this graph's own op count (a tf.data function's; see _last_id)
    _counts_own_ops = False
    _own_reserved = 0  # ids reserved here for ops not made yet (tf.data datasets)
    # what qualifies its op names in a session's per-node state: set on a graph with names
    # of its own (a tf.data function's), inherited by the bodies inside it
    _state_prefix = ""

    def __init__(self, name, outer_graph=None):
        # set before Graph.__init__, whose assignments go through the properties below
        self._root = None
        self._local_next_id = 1
        self._local_structure_version = 0
        self._local_finalized = False
        super().__init__()
        if outer_graph is None:
            outer_graph = ops.get_default_graph()
        self.name = name
        self.outer_graph = outer_graph
        root = outer_graph._root if isinstance(outer_graph, FuncGraph) else outer_graph
        self._root = root
        self._names_in_use = outer_graph._names_in_use
        self._state_prefix = getattr(outer_graph, "_state_prefix", "")
        self._name_stack = outer_graph._name_stack
        # control-flow bodies file into their enclosing graph's collections, as TF 1.x's cond
        # and while ops, whose bodies sit in the graph itself
        self._collections = outer_graph._collections
        self._functions = root._functions
        self._gradient_override_map = outer_graph._gradient_override_map
        self._device_function_stack = list(outer_graph._device_function_stack)
        self._colocation_stack = list(outer_graph._colocation_stack)
        self._attr_scope_map = dict(outer_graph._attr_scope_map)
        self._container = outer_graph._container
        self._graph_def_versions = root._graph_def_versions
        self.inputs = []
        self.outputs = []
        self.structured_outputs = None
        self.captures = []
        self.extra_args = []
        self.control_captures = []
        self._capture_map = {}
        self._capture_sources = {}  # placeholder -> the enclosing tensor it stands for
        # the name a capture placeholder takes (None: its source op's); a while loop's are
        # named as TF 1.x's Enter ops, which take their names from the loop's namespace
        self.capture_name = None
        # resolver(tensor) -> tensor: how a gradient body reaches tensors of the forward body
        # it differentiates (set by control-flow gradients); returns its argument when it
        # does not know the tensor
        self._resolver = None

    def use_private_collections(self):
        """Collections as in a TF function graph (a tf.data function's): it starts with a copy
        of the enclosing graph's collections and files into that copy (a summary made in a
        Dataset.map function is not the outer graph's), sharing only the variable collections
        and the variable scope stores."""
        from tideflow.ops import variable_scope

        keys = (ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.LOCAL_VARIABLES,
                ops.GraphKeys.TRAINABLE_VARIABLES, variable_scope._VARSTORE_KEY,
                variable_scope._VARSCOPESTORE_KEY, variable_scope._VARSCOPE_KEY)
        outer = self.outer_graph
        private = {k: list(v) for k, v in outer._collections.items()}
        for key in keys:
            private[key] = outer.get_collection_ref(key)
        self._collections = private

    # -- shared with the outermost graph -----------------------------------------------------
    @property
    def _next_id(self):
        root = self._root
        return self._local_next_id if root is None else root._next_id

    @_next_id.setter
    def _next_id(self, value):
        if self._root is None:
            self._local_next_id = value
        else:
            self._root._next_id = value

    @property
    def _structure_version(self):
        root = self._root
        return self._local_structure_version if root is None else root._structure_version

    @_structure_version.setter
    def _structure_version(self, value):
        if self._root is None:
            self._local_structure_version = value
        else:
            self._root._structure_version = value

    @property
    def _finalized(self):
        root = self._root
        return self._local_finalized if root is None else root._finalized

    @_finalized.setter
    def _finalized(self, value):
        if self._root is None:
            self._local_finalized = value

    @property
    def _last_id(self):
        # TF 1.15's tf.data functions are graphs of their own: a random op there without an
        # op seed takes the number of ops of the function so far (the args' placeholders
        # first); cond branches and loop bodies count in their enclosing graph, as TF 1.x's
        # control flow does
        if self._counts_own_ops:
            return len(self._ops) + self._own_reserved
        return self._next_id - 1

    def _reserve_op_id(self):
        if self._counts_own_ops:
            self._own_reserved += 1
        return super()._reserve_op_id()

    @property
    def seed(self):
        return self.outer_graph.seed

    @seed.setter
    def seed(self, seed):
        self.outer_graph.seed = seed

    @property
    def building_function(self):
        return True

    @property
    def args(self):
        """All argument placeholders in calling order: inputs, captures, extra args."""
        return [*self.inputs, *(ph for _, ph in self.captures), *self.extra_args]

    def encloses(self, graph):
        """Whether ``graph`` is one of this graph's enclosing graphs."""
        g = self.outer_graph
        while g is not None:
            if g is graph:
                return True
            g = getattr(g, "outer_graph", None)
        return False

    def as_graph_element(self, obj, allow_tensor=True, allow_operation=True):
        """In a cond branch or while body, names and elements of the enclosing graphs resolve
        too: TF 1.x builds those bodies in the graph itself (an outer tensor used as an input
        is captured as any other)."""
        try:
            return super().as_graph_element(obj, allow_tensor, allow_operation)
        except (KeyError, ValueError):
            outer = self.outer_graph
            if not self.control_flow_body or outer is None or not (
                    isinstance(obj, (str, bytes)) or self.encloses(getattr(obj, "graph", None))):
                raise
            try:
                return outer.as_graph_element(obj, allow_tensor, allow_operation)
            except (KeyError, ValueError):
                pass
            raise

    # -- arguments and captures ----------------------------------------------------------------
    def make_placeholder(self, dtype, shape=None, name="arg"):
        """A new argument Placeholder of ``dtype`` (a ref dtype makes a ref argument)."""
        dtype = dtypes.as_dtype(dtype)
        shape = unknown_shape() if shape is None else as_shape(shape)
        with ops.Graph.control_dependencies(self, None):
            op = ops.apply_op("Placeholder", [], {"dtype": dtype.base_dtype, "shape": shape},
                              name=name, graph=self)
        t = op._outputs[0]
        if dtype._is_ref_dtype:
            t._dtype = dtype
        return t

    def add_extra_arg(self, dtype, shape=None, name="acc"):
        """Appends an argument after the captures (used by control-flow gradients)."""
        ph = self.make_placeholder(dtype, shape, name)
        self.extra_args.append(ph)
        self._structure_version += 1
        return ph

    def capture(self, tensor, name=None):
        """The tensor standing for ``tensor`` (of an enclosing graph) inside this body."""
        if tensor._op._graph is self:
            return tensor
        ph = self._capture_map.get(tensor)
        if ph is not None:
            return ph
        src = tensor
        if self._resolver is not None:
            src = self._resolver(tensor)
            if src._op._graph is self:
                self._capture_map[tensor] = src
                return src
        ph = self._capture_map.get(src)
        if ph is None and src._op._graph is not self.outer_graph and not self.encloses(
                src._op._graph):
            src = reach(src, self.outer_graph)  # made in another cond's branch
            ph = self._capture_map.get(src)
        if ph is None:
            outer = self.outer_graph
            if src._op._graph is not outer:
                if not isinstance(outer, FuncGraph):
                    raise ValueError(
                        f"Tensor {tensor.name} must be from the same graph as the function "
                        f"'{self.name}' or a graph enclosing it."
                    )
                src = outer.capture(src)
                ph = self._capture_map.get(src)
            if ph is None:
                base = name or self.capture_name or src._op._name.rsplit("/", 1)[-1]
                ph = self.make_placeholder(src._dtype, src._shape, name=base)
                self.captures.append((src, ph))
                self._capture_sources[ph] = src
                self._capture_map[src] = ph
        self._capture_map[tensor] = ph
        return ph

    def captured_source(self, tensor):
        """The enclosing graph's tensor that capture placeholder ``tensor`` stands for (its
        value is the same in every call, so static values pass through), else None."""
        return self._capture_sources.get(tensor)

    def control_dependencies(self, control_inputs):
        """As Graph's; dependencies on ops of enclosing graphs go to ``control_captures``."""
        if control_inputs is None:
            return super().control_dependencies(None)
        inner = []
        for c in control_inputs:
            el = c
            if hasattr(el, "_as_graph_element") and not isinstance(el, (ops.Tensor,
                                                                        ops.Operation)):
                el = el._as_graph_element()
            if isinstance(el, ops.Tensor):
                op = el._op
            elif isinstance(el, ops.IndexedSlicesBase):
                op = el.op
            else:
                op = el
            if isinstance(op, ops.Operation) and op._graph is not self:
                if self.encloses(op._graph) and op not in self.control_captures:
                    self.control_captures.append(op)
                # ops of unrelated graphs (a forward body seen while building its gradient)
                # are already ordered by the data flowing from them
                continue
            inner.append(c)
        return super().control_dependencies(inner)

    def __repr__(self):
        return f"<FuncGraph {self.name!r}>"


def reach(tensor, graph, dead_elsewhere=False):
    """``tensor``, or, where it was made in a cond branch outside ``graph`` and the graphs
    enclosing it, the output of that cond's If carrying its value.

    TF 1.x's branches sit in the graph itself, so a later op may use a tensor a branch made
    (it has a value when that branch ran). Here the If gets an output for it (see
    ``cond._exporting``); the other branch gives no value there. With ``dead_elsewhere`` that
    output is the tensor's own and dead when the other branch ran (TF's dead tensor: the ops
    reading it do not run, and fetching them fails); else a value the branch returned may
    stand for it (a later cond taking it as an input reads it only where it is live).
    """
    attr = "export_dead_elsewhere" if dead_elsewhere else "export_tensor"
    while True:
        g = tensor._op._graph
        if g is graph or (isinstance(graph, FuncGraph) and graph.encloses(g)):
            return tensor
        export = getattr(g, attr, None)
        if export is None:
            return tensor
        tensor = export(tensor)


def unique_function_name(graph, base):
    """A function name not yet in ``graph``'s library."""
    lib = graph._functions
    root = graph._root if isinstance(graph, FuncGraph) else graph
    n = root._next_id
    name = f"{base}_{n}"
    while name in lib:
        n += 1
        name = f"{base}_{n}"
    return name


def give_back_ids(graph, first_id, n_ops_before, extra=0):
    """Sets the op-id counter back to ``first_id + extra`` after a tf.data function was traced
    (from ``first_id``), as TF's function graphs count their ops apart from the graph's: the ops
    made after it then number as in TF (tf.set_random_seed's op seeds). The function runs as a
    plan of its own, so its ids may meet the graph's; nothing changes when the trace added ops
    to the graph itself (a variable or table made under init_scope), whose ids must stay
    unique."""
    root = graph._root if isinstance(graph, FuncGraph) and graph._root is not None else graph
    if len(graph._ops) == n_ops_before and root is graph:
        graph._next_id = min(graph._next_id, first_id + extra)


def add_function(graph, fg, tf_function=False):
    """Stores ``fg`` in the library of ``graph``'s outermost graph. ``tf_function``: a function
    TF 1.15 makes too (a tf.data one; not a control-flow body, which TF builds as frames), so
    the GraphDef needs consumers of version 12, as TF's ``Graph::AddFunctionLibrary`` sets."""
    graph._functions[fg.name] = fg
    if tf_function:
        root = graph._root if isinstance(graph, FuncGraph) and graph._root is not None else graph
        for g in {id(root): root, id(graph): graph}.values():
            producer, min_consumer, *rest = g._graph_def_versions
            g._graph_def_versions = (producer, max(min_consumer, 12), *rest)


def function_name(value):
    """The function name held by a ``func`` attr (a str or a NameAttrList)."""
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, str):
        return value
    return value.name


def lookup_function(graph, name):
    fg = graph._functions.get(function_name(name))
    if fg is None:
        raise ValueError(f"Function '{function_name(name)}' is not in the graph's library.")
    return fg


def trace(fn, arg_specs, name, outer_graph=None, arg_names=None, allow_operations=False,
          private_collections=False, control_flow=False):
    """Traces ``fn(*args)`` into a new FuncGraph; ``arg_specs`` is [(dtype, shape), ...].

    The result has ``.inputs`` (one Placeholder per spec), ``.outputs`` (the flat Tensors fn
    returned, captured from enclosing graphs when needed) and ``.structured_outputs``.
    With ``allow_operations``, Operations returned by fn are kept in ``structured_outputs``
    but are not outputs (a cond returning an op). With ``private_collections``, the body's
    collections are its own (see ``FuncGraph.use_private_collections``). ``control_flow`` marks
    a cond branch or loop body, which ``tf.control_dependencies(None)`` leaves (as TF 1.x's
    clears the control-flow context). The caller stores it with ``add_function``.
    """
    fg = FuncGraph(name, outer_graph)
    fg.control_flow_body = control_flow
    if private_collections:
        fg.use_private_collections()
        fg._counts_own_ops = True
        # and names of its own, outside any name scope, as a TF function graph's: a map
        # function's argument prints as 'args_0:0' and its first Add as 'add:0'
        fg._names_in_use = {}
        fg._name_stack = ""
        fg._state_prefix = f"{name}/"
    with fg.as_default():
        args = []
        for i, (dtype, shape) in enumerate(arg_specs):
            n = arg_names[i] if arg_names else f"arg{i}" if i else "arg"
            args.append(fg.make_placeholder(dtype, shape, name=n))
        fg.inputs = list(args)
        out = fn(*args)
        fg.structured_outputs = out
        fg.outputs = []
        for x in nest.flatten(out):
            if isinstance(x, ops.Operation):
                if not allow_operations:
                    raise TypeError(f"Function '{name}' returned an Operation ({x.name}); "
                                    "a Tensor is required.")
                continue
            if x is None:
                raise ValueError(f"Function '{name}' returned None where a Tensor is required.")
            fg.outputs.append(fg.capture(ops.convert_to_tensor(x)))
    return fg


def compile_function(fg, ctx):
    """A callable ``f(*values, step=None) -> list`` running ``fg`` (see runtime/functions)."""
    from tideflow.runtime import functions

    return functions.compile_function(fg, ctx)
