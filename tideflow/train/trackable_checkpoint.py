"""Object-based checkpoints in graph mode: ``tf.train.Checkpoint``, ``CheckpointManager`` and
``CheckpointOptions``.

A ``Checkpoint`` saves the variables reachable from its keyword arguments under TF's
object-path keys: a variable at attribute path ``model/dense/kernel`` is saved as
``model/dense/kernel/.ATTRIBUTES/VARIABLE_VALUE``; an optimizer's slot for a variable as
``<variable path>/.OPTIMIZER_SLOT/<optimizer path>/<slot>/.ATTRIBUTES/VARIABLE_VALUE``; the
save counter as ``save_counter/.ATTRIBUTES/VARIABLE_VALUE``. A variable reachable along
several paths is saved once, under the first path of a breadth-first walk. Checkpoints written
this way restore by the same keys into a rebuilt object structure. The keys are TF's, and so is
the serialized object graph saved under ``_CHECKPOINTABLE_OBJECT_GRAPH``; the files are
tideflow's checkpoint format, like ``Saver``'s.

What is tracked: variables, optimizers (their slot and non-slot variables), Checkpoints,
layers and other objects with attributes (their public attributes that lead to tracked
objects), and lists, tuples and dicts of those (children named by index or key).
"""

import collections
import os
import time

import numpy as np

from tideflow import logging as tf_logging
from tideflow.framework import dtypes, errors, ops
from tideflow.train import checkpoint_management, checkpoint_utils, saveable

_ATTR = ".ATTRIBUTES/VARIABLE_VALUE"
_SLOT = ".OPTIMIZER_SLOT"
_OBJECT_GRAPH_KEY = "_CHECKPOINTABLE_OBJECT_GRAPH"


def _escape(name):
    return str(name).replace(".", "..").replace("/", "./")


def _is_variable(x):
    from tideflow.ops import variables

    return isinstance(x, variables.Variable)


def _is_optimizer(x):
    from tideflow.train.optimizer import Optimizer

    return isinstance(x, Optimizer)


def _children(obj):
    """The named children of ``obj`` that may lead to variables, in a fixed order."""
    if isinstance(obj, Checkpoint):
        return list(obj._children.items())
    if isinstance(obj, dict):
        return [(str(k), v) for k, v in obj.items()]
    if isinstance(obj, (list, tuple)):
        return [(str(i), v) for i, v in enumerate(obj)]
    if _is_optimizer(obj):
        graph = ops.get_default_graph()
        return sorted((name, v) for (name, g), v in obj._non_slot_dict.items() if g is graph)
    if _is_variable(obj) or not hasattr(obj, "__dict__"):
        return []
    out = [(k, v) for k, v in vars(obj).items() if not k.startswith("_") and _trackable(v)]
    layers = getattr(type(obj), "layers", None)
    module = type(obj).__module__
    subclassed = "keras.engine" not in module and "keras.layers" not in module
    if isinstance(layers, property) and not (subclassed and not getattr(
            obj, "_is_graph_network", False)):
        # a Keras model's layers (a subclassed one's only when built as a graph network),
        # named as TF names them (a layer with weights is "layer_with_weights-N" first, then
        # "layer-i")
        with_weights = 0
        for i, layer in enumerate(getattr(obj, "layers", None) or []):
            if getattr(layer, "weights", None):
                out.append((f"layer_with_weights-{with_weights}", layer))
                with_weights += 1
            out.append((f"layer-{i}", layer))
    return out


_MAX_DEPTH = 32


def _trackable(v, depth=0):
    if _is_variable(v) or _is_optimizer(v) or isinstance(v, Checkpoint):
        return True
    if depth > 3:
        return False
    if isinstance(v, dict):
        return any(_trackable(x, depth + 1) for x in v.values())
    if isinstance(v, (list, tuple)):
        return any(_trackable(x, depth + 1) for x in v)
    if isinstance(v, (str, bytes, int, float, bool, np.ndarray, np.generic, type)) or v is None:
        return False
    if isinstance(v, (ops.Tensor, ops.Operation, ops.Graph)):
        return False
    if hasattr(v, "__dict__") and type(v).__module__.startswith(("tideflow.ops",
                                                                 "tideflow.keras",
                                                                 "tideflow.layers")):
        return True
    return hasattr(v, "__dict__") and any(
        _trackable(x, depth + 1) for k, x in vars(v).items() if not k.startswith("_"))


def _object_graph_keys(root_children, walk=None):
    """{checkpoint key: variable} for everything reachable from ``root_children``. With
    ``walk`` (a list), appends the walk's nodes for :func:`object_graph_proto`: (object, path,
    children as (local name, object)), breadth first from the root, then the slot triples
    (optimizer, slot name, primary variable, slot variable)."""
    keys = collections.OrderedDict()
    paths = {}  # id(object) -> path, first one found breadth-first
    var_paths = {}
    optimizers = []
    nodes = [] if walk is None else walk
    nodes.append((None, "", list(root_children)))
    queue = collections.deque((_escape(n), c) for n, c in root_children)
    while queue:
        path, obj = queue.popleft()
        if id(obj) in paths or path.count("/") > _MAX_DEPTH:
            continue
        paths[id(obj)] = path
        if _is_variable(obj):
            keys[f"{path}/{_ATTR}"] = obj
            var_paths[id(obj)] = path
            nodes.append((obj, path, []))
            continue
        if _is_optimizer(obj):
            optimizers.append((path, obj))
        children = _children(obj)
        nodes.append((obj, path, children))
        for name, child in children:
            queue.append((f"{path}/{_escape(name)}", child))
    slots = []
    for opt_path, opt in optimizers:
        graph = ops.get_default_graph()
        for slot_name in opt.get_slot_names():
            for slot in opt._slots[slot_name].values():
                if slot.graph is not graph:
                    continue
                primary = _slot_primary(opt, slot_name, slot)
                if primary is None or id(primary) not in var_paths:
                    continue
                slots.append((opt, slot_name, primary, slot))
                keys[f"{var_paths[id(primary)]}/{_SLOT}/{opt_path}/{_escape(slot_name)}/"
                     f"{_ATTR}"] = slot
    order = {id(obj): i for i, (obj, _, _) in enumerate(nodes)}
    # as TF: slots by optimizer, slot name, then their variables' order in the walk
    slots.sort(key=lambda t: (order[id(t[0])], t[1], order[id(t[2])]))
    if walk is not None:
        walk.append(slots)
    return keys


def object_graph_proto(keys, walk=None):
    """TF's ``TrackableObjectGraph`` of a checkpoint of ``keys`` ({key: variable}), the proto
    an object-based checkpoint stores under ``_CHECKPOINTABLE_OBJECT_GRAPH``: node 0 is the
    root, then the tracked objects breadth first, then the optimizers' slot variables; each
    variable names its graph name and checkpoint key. From a ``walk`` of
    :func:`_object_graph_keys` when given, else from the keys' paths alone."""
    from tideflow.protos import trackable_object_graph_pb2

    if walk is None:
        walk = _walk_from_keys(keys)
    *nodes, slots = walk
    key_of = {id(v): k for k, v in keys.items()}
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    # objects TF does not track (initializers, input specs...) are walked but not listed
    kept = {id(obj) for obj, _, _ in nodes[1:] if id(obj) in key_of or _is_trackable_base(obj)}
    grew = True
    while grew:
        grew = False
        for obj, _, children in nodes[1:]:
            if id(obj) not in kept and any(id(c) in kept for _, c in children):
                kept.add(id(obj))
                grew = True
    nodes = nodes[:1] + [n for n in nodes[1:] if id(n[0]) in kept]
    ids = {}
    for i, (obj, _, _) in enumerate(nodes):
        ids.setdefault(id(obj), i)
    ids.update({id(s[3]): len(nodes) + j for j, s in enumerate(slots)})
    slot_refs = collections.defaultdict(list)
    for opt, slot_name, primary, slot in slots:
        slot_refs[id(opt)].append((ids[id(primary)], slot_name, ids[id(slot)]))
    for obj, _, children in nodes + [(s[3], None, []) for s in slots]:
        node = graph.nodes.add()
        for name, child in children:
            if id(child) in ids:
                node.children.add(node_id=ids[id(child)], local_name=str(name))
        if obj is not None and id(obj) in key_of:
            node.attributes.add(name="VARIABLE_VALUE", full_name=_graph_name(obj),
                                checkpoint_key=key_of[id(obj)])
        for original, slot_name, slot_id in slot_refs.get(id(obj), ()) if obj is not None \
                else ():
            node.slot_variables.add(original_variable_node_id=original, slot_name=slot_name,
                                    slot_variable_node_id=slot_id)
    return graph


def _is_trackable_base(obj):
    """Whether TF 1.15 tracks ``obj`` in an object graph when it holds no variables (a layer
    without weights is a node; an initializer is not)."""
    from tideflow.keras.engine.base_layer import Layer

    return isinstance(obj, (Layer, Checkpoint)) or _is_optimizer(obj)


def _graph_name(var):
    name = getattr(var, "name", "")
    return name.removesuffix(":0")


def _split_path(path):
    """The local names of an escaped object path (``a./b/c`` -> ``['a/b', 'c']``)."""
    names, cur, i = [], [], 0
    while i < len(path):
        c = path[i]
        if c == "." and i + 1 < len(path) and path[i + 1] in "./":
            cur.append(path[i + 1])
            i += 2
            continue
        if c == "/":
            names.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    names.append("".join(cur))
    return names


def _walk_from_keys(keys):
    """A walk (as :func:`_object_graph_keys` makes) rebuilt from checkpoint keys alone, for
    savers that name keys themselves (Keras ``save_weights``): one node per path prefix."""
    tree = {(): collections.OrderedDict()}
    leaf = {}
    slot_specs = []
    for key, var in keys.items():
        head = key[:-len(_ATTR) - 1]
        if f"/{_SLOT}/" in head:
            var_path, rest = head.split(f"/{_SLOT}/", 1)
            *opt_path, slot_name = _split_path(rest)
            slot_specs.append((tuple(opt_path), slot_name, tuple(_split_path(var_path)), var))
            _add_path(tree, tuple(opt_path))
            continue
        parts = tuple(_split_path(head))
        _add_path(tree, parts)
        leaf[parts] = var
    objs = {parts: leaf.get(parts, ("node", parts)) for parts in tree}
    nodes, queue = [], collections.deque([()])
    while queue:  # breadth first over the tree of paths (each reached once)
        parts = queue.popleft()
        children = [(n, objs[parts + (n,)]) for n in tree[parts]]
        nodes.append((None if not parts else objs[parts], "/".join(parts), children))
        queue.extend(parts + (n,) for n in tree[parts])
    slots = [(objs[o], s, objs[v], var) for o, s, v, var in slot_specs if v in objs]
    return nodes + [slots]


def _add_path(tree, parts):
    for i in range(1, len(parts) + 1):
        tree[parts[:i - 1]].setdefault(parts[i - 1], None)
        tree.setdefault(parts[:i], collections.OrderedDict())


def _slot_primary(opt, slot_name, slot):
    from tideflow.ops import variables

    for v in ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES) + ops.get_collection(
            ops.GraphKeys.LOCAL_VARIABLES):
        if isinstance(v, variables.Variable) and opt.get_slot(v, slot_name) is slot:
            return v
    return None


def object_graph_key_mapping(prefix):
    """{variable name: checkpoint key} from the object graph of the checkpoint at ``prefix``;
    None when it has none (a name-based checkpoint)."""
    from tideflow.protos import trackable_object_graph_pb2

    reader = checkpoint_utils.load_checkpoint(prefix)
    if not reader.has_tensor(_OBJECT_GRAPH_KEY):
        return None
    graph = trackable_object_graph_pb2.TrackableObjectGraph()
    graph.ParseFromString(reader.get_tensor(_OBJECT_GRAPH_KEY))
    return {a.full_name: a.checkpoint_key for node in graph.nodes for a in node.attributes}


class _ObjectGraphSaveable(saveable.SaveableObject):
    """The serialized object graph, saved from a string constant on the CPU (so variables
    without a device make a checkpoint of two shards, as TF's) and never restored."""

    def __init__(self, serialized):
        from tideflow.ops import constant_op

        with ops.device("/device:CPU:0"):
            tensor = constant_op.constant(serialized, dtype=dtypes.string)
        super().__init__(tensor, [saveable.SaveSpec(tensor, "", _OBJECT_GRAPH_KEY)],
                         _OBJECT_GRAPH_KEY)

    def restore(self, restored_tensors, restored_shapes):
        from tideflow.ops import control_flow_ops

        return control_flow_ops.no_op()


def saver_with_object_graph(keys, walk=None):
    """A sharded Saver of ``keys`` ({checkpoint key: variable}) that also writes their
    object graph under ``_CHECKPOINTABLE_OBJECT_GRAPH``, as TF's object-based savers do."""
    from tideflow.train.saver import Saver

    serialized = object_graph_proto(keys, walk or None).SerializeToString()
    var_list = dict(keys)
    var_list[_OBJECT_GRAPH_KEY] = _ObjectGraphSaveable(serialized)
    return Saver(var_list=var_list, sharded=True, max_to_keep=None)


class CheckpointOptions:
    """``tf.train.CheckpointOptions``: accepted and recorded; tideflow writes checkpoints from
    the process that runs the save (``experimental_io_device`` has no effect) and
    synchronously."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.experimental_enable_async_checkpoint = experimental_enable_async_checkpoint
        self.experimental_write_callbacks = experimental_write_callbacks
        self.enable_async = enable_async
        self.experimental_skip_slot_variables = experimental_skip_slot_variables
        self.experimental_sharding_callback = experimental_sharding_callback


def _session(session, what):
    sess = session or ops.get_default_session()
    if sess is None:
        raise ValueError(f"{what}: graph-mode checkpoints need a session (pass session= or "
                         f"run inside `with tf.Session():`)")
    return sess


class CheckpointLoadStatus:
    """The result of ``Checkpoint.restore`` (and of a Keras model's ``load_weights`` of TF
    format weights) in graph mode: run the restore ops, check what matched."""

    def __init__(self, checkpoint, save_path, keys, ckpt_keys):
        self._checkpoint = checkpoint
        self._save_path = save_path
        self._given_keys = keys
        self._ckpt_keys = ckpt_keys
        self._graph = ops.get_default_graph()
        self._savers = {}

    @property
    def _keys(self):
        # a Checkpoint's objects as they are now: as TF's deferred restoration, variables
        # made after restore() (a model built later) are restored by the status's ops
        if not isinstance(self._checkpoint, Checkpoint):
            return self._given_keys
        with self._graph.as_default():
            return self._checkpoint._keys()

    def _matched(self, keys=None):
        """The objects' keys (``keys``, or the objects' as they are now) the checkpoint has."""
        keys = self._keys if keys is None else keys
        return collections.OrderedDict((k, v) for k, v in keys.items() if k in self._ckpt_keys)

    def _restore_saver(self, matched):
        if not matched:
            return None
        sig = tuple((k, id(v)) for k, v in matched.items())
        saver = self._savers.get(sig)
        if saver is None:
            from tideflow.train.saver import Saver

            with self._graph.as_default():
                saver = self._savers[sig] = Saver(var_list=dict(matched), max_to_keep=None)
        return saver

    def run_restore_ops(self, session=None):
        """Runs the restore ops (assigning the matched variables)."""
        saver = self._restore_saver(self._matched())
        if saver is not None:
            saver.restore(_session(session, "run_restore_ops"), self._save_path)

    def initialize_or_restore(self, session=None):
        """Restores the matched variables and runs the initializers of the others."""
        sess = _session(session, "initialize_or_restore")
        keys = self._keys
        matched = self._matched(keys)
        saver = self._restore_saver(matched)
        if saver is not None:
            saver.restore(sess, self._save_path)
        others = [v for k, v in keys.items() if k not in matched]
        if others:
            from tideflow.ops.variables import variables_initializer

            with self._graph.as_default():
                sess.run(variables_initializer(others))

    def assert_consumed(self):
        """Raises AssertionError unless every checkpoint value and every object matched."""
        unused = sorted(set(self._ckpt_keys) - set(self._matched()) - {_OBJECT_GRAPH_KEY})
        if unused:
            raise AssertionError(f"Unresolved object in checkpoint: {unused}")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Raises AssertionError if some object of the Checkpoint has no value in it."""
        missing = sorted(k for k in self._keys if k not in self._ckpt_keys
                         and not k.startswith("save_counter/"))
        if missing:
            raise AssertionError(f"Some objects had no checkpointed value: {missing}")
        return self

    def assert_nontrivial_match(self):
        if not any(not k.startswith("save_counter/") for k in self._matched()):
            raise AssertionError("Nothing except the root object matched a checkpointed value.")
        return self

    def expect_partial(self):
        """Silences warnings about unmatched values (none are printed here)."""
        return self


class NameBasedSaverStatus(CheckpointLoadStatus):
    """``Checkpoint.restore`` of a checkpoint without an object graph (one ``tf.train.Saver``
    wrote): the objects' variables restore by their graph names, as TF 1.15's status does.
    As TF's, only the first ``run_restore_ops``/``initialize_or_restore`` restores; a later one
    finds nothing left to restore (``ValueError: No variables to save``)."""

    def __init__(self, checkpoint, save_path, keys):
        super().__init__(checkpoint, save_path, keys, {})
        self._pending = True

    def run_restore_ops(self, session=None):
        from tideflow.train.saver import Saver

        sess = _session(session, "run_restore_ops")
        var_list = {}
        if self._pending:
            self._pending = False
            var_list = {_graph_name(v): v for v in self._keys.values()}
        with ops.device("/cpu:0"):
            saver = Saver(var_list=var_list)
        saver.restore(sess, self._save_path)

    def initialize_or_restore(self, session=None):
        self.run_restore_ops(session)

    def assert_consumed(self):
        return self

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed


class _InitializationOnlyStatus(CheckpointLoadStatus):
    """``restore(None)``: nothing to restore; ``initialize_or_restore`` initializes."""

    def __init__(self, checkpoint, keys):
        super().__init__(checkpoint, None, keys, {})

    def assert_consumed(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    assert_existing_objects_matched = assert_consumed
    assert_nontrivial_match = assert_consumed


class Checkpoint:
    """``tf.train.Checkpoint(**kwargs)``: saves and restores the variables reachable from the
    keyword arguments (variables, optimizers, layers, other Checkpoints...), by object path."""

    def __init__(self, root=None, **kwargs):
        if root is not None:
            kwargs = dict(kwargs, root=root)
        for k, v in kwargs.items():
            if k in ("save_counter",):
                raise ValueError(f"`Checkpoint` reserves the attribute name {k!r}")
            # as TF 1.15: a keyword argument must be a trackable object itself (a list or
            # dict is tracked only when assigned as an attribute later)
            if not _trackable(v) or not any(
                    c.__module__.startswith("tideflow.") for c in type(v).__mro__):
                raise ValueError(f"`Checkpoint` was expecting a trackable object (an object "
                                 f"derived from `TrackableBase`), got {v!r}. If you believe "
                                 f"this object should be trackable (i.e. it is part of the "
                                 f"TensorFlow Python API and manages state), please open an "
                                 f"issue.")
        object.__setattr__(self, "_children", collections.OrderedDict(sorted(kwargs.items())))
        object.__setattr__(self, "_save_counter", None)
        object.__setattr__(self, "_save_assign", None)
        object.__setattr__(self, "_savers", {})

    def __getattr__(self, name):
        children = object.__getattribute__(self, "_children")
        if name in children:
            return children[name]
        raise AttributeError(f"'Checkpoint' object has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name.startswith("_"):
            object.__setattr__(self, name, value)
            return
        # as TF: an assigned attribute is tracked when it can hold variables (lists and dicts
        # are, even empty: they may be filled later); anything else is a plain attribute
        if _trackable(value) or type(value) in (list, tuple, dict):
            self._children.pop(name, None)
            self.__dict__.pop(name, None)
            self._children[name] = value
        else:
            self._children.pop(name, None)
            object.__setattr__(self, name, value)

    # -- the save counter -----------------------------------------------------------------------
    @property
    def save_counter(self):
        """An int64 variable counting the saves (created on first use)."""
        if self._save_counter is None:
            from tideflow.ops import variables

            with ops.init_scope():
                object.__setattr__(self, "_save_counter", variables.Variable(
                    np.int64(0), name="save_counter", trainable=False, dtype=dtypes.int64,
                    collections=[ops.GraphKeys.LOCAL_VARIABLES], use_resource=True))
        return self._save_counter

    def _counter_initialized(self):
        if getattr(self, "_counter_init_check", None) is None:
            from tideflow.ops.variables import is_variable_initialized

            object.__setattr__(self, "_counter_init_check",
                               is_variable_initialized(self.save_counter))
        return self._counter_init_check

    def _save_assign_or_build(self):
        if self._save_assign is None:
            from tideflow.ops import state_ops

            object.__setattr__(self, "_save_assign",
                               state_ops.assign_add(self.save_counter, np.int64(1)))
        return self._save_assign

    def _keys(self, walk=None):
        # as TF, the save counter is the root's last dependency (made after the others)
        children = list(self._children.items())
        if self._save_counter is not None:
            children.append(("save_counter", self._save_counter))
        return _object_graph_keys(children, walk)

    def _saver(self, keys, walk):
        sig = tuple((k, id(v)) for k, v in keys.items())
        saver = self._savers.get(sig)
        if saver is None:
            saver = self._savers[sig] = saver_with_object_graph(keys, walk)
        return saver

    # -- saving ------------------------------------------------------------------------------------
    def write(self, file_prefix, session=None, options=None):
        """Writes a checkpoint at ``file_prefix`` (no counter, no state file); returns it."""
        del options
        sess = _session(session, "Checkpoint.write")
        walk = []
        keys = self._keys(walk)
        if not keys:
            raise ValueError("Checkpoint.write: there are no variables to save")
        # TF's object-based save writes through its sharded bundle writer, which creates the
        # prefix's directory (a name-based Saver.save wants it to exist)
        parent = os.path.dirname(os.fspath(file_prefix))
        if parent:
            os.makedirs(parent, exist_ok=True)
        path = self._saver(keys, walk).save(sess, os.fspath(file_prefix), write_meta_graph=False,
                                      write_state=False)
        return path

    def save(self, file_prefix, session=None, options=None):
        """Saves to ``file_prefix-N`` (N: the incremented ``save_counter``), records it in the
        directory's ``checkpoint`` state file, and returns that path."""
        sess = _session(session, "Checkpoint.save")
        if not sess.run(self._counter_initialized()):
            sess.run(self.save_counter.initializer)
        number = int(sess.run(self._save_assign_or_build()))
        path = self.write(f"{os.fspath(file_prefix)}-{number}", session=sess, options=options)
        checkpoint_management.update_checkpoint_state_internal(
            save_dir=os.path.dirname(path), model_checkpoint_path=path,
            all_model_checkpoint_paths=[path], save_relative_paths=True)
        return path

    # -- restoring ----------------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Like :meth:`restore`, without touching the save counter's bookkeeping."""
        return self.restore(save_path, options)

    def restore(self, save_path, options=None):
        """A status whose ``run_restore_ops()``/``initialize_or_restore()`` restore the objects
        from ``save_path`` (None: ``initialize_or_restore`` only initializes)."""
        del options
        self.save_counter  # noqa: B018 - restored with the rest
        keys = self._keys()
        if save_path is None:
            return _InitializationOnlyStatus(self, keys)
        save_path = os.fspath(save_path)
        if not checkpoint_management.checkpoint_exists(save_path):
            raise errors.NotFoundError(None, None, f"Checkpoint.restore: no checkpoint at "
                                       f"{save_path!r}")
        reader = checkpoint_utils.load_checkpoint(save_path)
        if not reader.has_tensor(_OBJECT_GRAPH_KEY):
            return NameBasedSaverStatus(self, save_path, keys)
        ckpt_keys = reader.get_variable_to_shape_map()
        for k, v in keys.items():
            if k in ckpt_keys and not v.get_shape().is_compatible_with(ckpt_keys[k]):
                raise ValueError(f"Checkpoint.restore: {k} has shape {ckpt_keys[k]} in the "
                                 f"checkpoint but the variable {v.op.name} has shape "
                                 f"{v.get_shape()}")
        # as in TF's graph mode, nothing runs yet: the status runs the restore ops
        return CheckpointLoadStatus(self, save_path, keys, ckpt_keys)


class CheckpointManager:
    """Keeps the last ``max_to_keep`` checkpoints of a ``Checkpoint`` in ``directory``
    (``ckpt-1``, ``ckpt-2``...), plus one every ``keep_checkpoint_every_n_hours``."""

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager: checkpoint must be a tf.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_step = None
        state = checkpoint_management.get_checkpoint_state(self._directory)
        self._maybe_delete = collections.OrderedDict()
        self._latest_checkpoint = None
        now = time.time()
        if state is not None:
            self._latest_checkpoint = state.model_checkpoint_path
            stamps = list(state.all_model_checkpoint_timestamps) or [now] * len(
                state.all_model_checkpoint_paths)
            for p, t in zip(state.all_model_checkpoint_paths, stamps):
                self._maybe_delete[p] = t
            self._last_preserved = state.last_preserved_timestamp or now
        else:
            self._last_preserved = now

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoints(self):
        """The paths of the kept checkpoints, oldest first."""
        return list(self._maybe_delete)

    @property
    def latest_checkpoint(self):
        return self._latest_checkpoint

    @property
    def checkpoint_interval(self):
        return self._interval

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            if self._latest_checkpoint == path:
                continue
            if self._keep_hours is not None and stamp - self._keep_hours * 3600 >= \
                    self._last_preserved:
                self._last_preserved = stamp
                continue
            checkpoint_management.remove_checkpoint(path)
            tf_logging.info(f"Deleted old checkpoint {path}")

    def _record_state(self):
        paths = list(self._maybe_delete)
        checkpoint_management.update_checkpoint_state_internal(
            save_dir=self._directory, model_checkpoint_path=self._latest_checkpoint,
            all_model_checkpoint_paths=paths, save_relative_paths=True,
            all_model_checkpoint_timestamps=list(self._maybe_delete.values()),
            last_preserved_timestamp=self._last_preserved)

    def save(self, checkpoint_number=None, check_interval=True, options=None, session=None):
        """Saves a checkpoint numbered ``checkpoint_number`` (default: the incremented save
        counter), deletes the ones beyond ``max_to_keep``, and returns its path (None when
        ``checkpoint_interval`` steps have not passed yet)."""
        sess = _session(session, "CheckpointManager.save")
        if self._interval is not None and check_interval:
            step = int(sess.run(self._step_counter) if not isinstance(
                self._step_counter, (int, np.integer)) else self._step_counter)
            if self._last_step is not None and step < self._last_step + self._interval:
                return None
            self._last_step = step
        ckpt = self._checkpoint
        counter = ckpt.save_counter
        if checkpoint_number is None:
            if not sess.run(ckpt._counter_initialized()):
                sess.run(counter.initializer)
            number = int(sess.run(ckpt._save_assign_or_build()))
        else:
            number = int(checkpoint_number if isinstance(checkpoint_number, (int, np.integer))
                         else sess.run(checkpoint_number))
        path = ckpt.write(f"{self._prefix}-{number}", session=sess, options=options)
        self._maybe_delete.pop(path, None)
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        self._sweep()
        self._record_state()
        return path

    def restore_or_initialize(self, session=None):
        """Restores the latest checkpoint (returning its path), or runs ``init_fn`` (returning
        None) when there is none."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint).run_restore_ops(
                _session(session, "restore_or_initialize"))
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions"]
