"""``tf.train.Saver``: saves and restores variables by running SaveV2/RestoreV2 ops of the graph,
keeps the last ``max_to_keep`` checkpoints, and exports/imports meta graphs.
"""

import glob
import os
import threading
import time

import numpy as np

from tideflow.framework import errors, meta_graph, ops
from tideflow.protos import saver_pb2
from tideflow.train import checkpoint_format, checkpoint_management, saveable
from tideflow.train.saveable import BaseSaverBuilder, BulkSaverBuilder


def _wrap_restore_error(err, reason, prefix):
    # TF 1.15's words first; then, on a line of its own, which checkpoint and (for a failed
    # Assign) which variable with both shapes: TF's text names only the restore's node
    msg = (f"Restoring from checkpoint failed. This is most likely due to {reason} from the "
           "checkpoint. Please ensure that you have not altered the graph expected based on the "
           f"checkpoint. Original error:\n\n{err.message}\n\n{_restore_detail(err, prefix)}")
    return type(err)(err.node_def, err.op, msg)


def _saver_by_object_graph(var_list, names_to_keys, prefix):
    """A Saver restoring ``var_list`` from an object-based checkpoint, each variable from the
    key its object graph gives the variable's name (``names_to_keys``)."""
    saveables = saveable.validate_and_slice_inputs(var_list)
    current = {spec.name for s in saveables for spec in s.specs}
    previous = set(names_to_keys)
    missing = current - previous
    if missing:
        raise errors.NotFoundError(
            None, None,
            f"\n\nExisting variables not in the checkpoint: {', '.join(sorted(missing))}\n\n"
            f"Variables names when this checkpoint was written which don't exist now: "
            f"{', '.join(sorted(previous - current))}\n\n({len(previous & current)} variable "
            f"name(s) did match)\n\nCould not find some variables in the checkpoint (see "
            f"names above). Saver was attempting to load an object-based checkpoint (saved "
            f"using tf.train.Checkpoint or tf.keras.Model.save_weights) using variable names: "
            f"build a Saver(var_list=...) of the variables that existed then, as a dictionary "
            f"where names changed (Saver(var_list={{'mydense_1/kernel': ...}})).\n\n"
            f"Checkpoint at {prefix}")
    for s in saveables:
        for spec in s.specs:
            spec.name = names_to_keys[spec.name]
        s.name = s.specs[0].name
    return Saver(saveables)


def _restore_detail(err, prefix):
    """Names the checkpoint, and for a failed Assign the variable with both shapes."""
    op = err.op
    if op is None or op.type != "Assign":
        return f"(checkpoint {prefix})"
    var, restored = op.inputs[0], op.inputs[1]
    key = None
    if restored.op.type == "RestoreV2":
        names = ops.constant_value(restored.op.inputs[1])
        if names is not None:
            key = np.asarray(names, dtype=object).reshape(-1)[restored.value_index]
            key = key.decode() if isinstance(key, bytes) else str(key)
    ckpt_shape = None
    if key is not None:
        from tideflow.ops import checkpoint_ops

        try:
            ckpt_shape = checkpoint_ops.open_reader(prefix).shape(key)
        except errors.OpError:
            pass
    graph_shape = var.get_shape()
    graph_str = "?" if graph_shape.ndims is None else _shape_str(graph_shape.as_list())
    ckpt_str = "?" if ckpt_shape is None else _shape_str(ckpt_shape)
    return (f"(variable '{var.op.name}', checkpoint key '{key}': shape {graph_str} in the "
            f"graph, {ckpt_str} in checkpoint {prefix})")


def _shape_str(shape):
    return "[" + ",".join("?" if d is None else str(d) for d in shape) + "]"


class Saver:
    """Saves and restores variables (``tf.train.Saver``)."""

    def __init__(self, var_list=None, reshape=False, sharded=False, max_to_keep=5,
                 keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
                 saver_def=None, builder=None, defer_build=False, allow_empty=False,
                 write_version=saver_pb2.SaverDef.V2, pad_step_number=False,
                 save_relative_paths=False, filename=None):
        if defer_build and var_list:
            raise ValueError(
                "If `var_list` is provided then build cannot be deferred. Either set "
                "defer_build=False or var_list=None."
            )
        self._var_list = var_list
        self._reshape = reshape
        self._sharded = sharded
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._name = name
        self._restore_sequentially = restore_sequentially
        self.saver_def = saver_def
        self._builder = builder
        self._is_built = False
        self._allow_empty = allow_empty
        self._is_empty = None
        self._write_version = write_version
        self._pad_step_number = pad_step_number
        self._filename = filename
        self._last_checkpoints = []
        self._checkpoints_to_be_deleted = []
        self._next_checkpoint_time = time.time() + keep_checkpoint_every_n_hours * 3600
        if not defer_build:
            self.build()
        if self.saver_def:
            self._check_saver_def()
            self._write_version = self.saver_def.version
        self._save_relative_paths = save_relative_paths

    # -- building -----------------------------------------------------------------------------
    def build(self):
        """Adds the save and restore ops (done by the constructor unless ``defer_build``)."""
        if self._is_built:
            return
        self._is_built = True
        if not self.saver_def:
            if self._builder is None:
                self._builder = BulkSaverBuilder(self._write_version)
            if self._var_list is None:
                self._var_list = saveable.all_saveable_objects()
            if not self._var_list:
                if self._allow_empty:
                    self._is_empty = True
                    return
                raise ValueError("No variables to save")
            self._is_empty = False
            self.saver_def = self._builder._build_internal(
                self._var_list, reshape=self._reshape, sharded=self._sharded,
                max_to_keep=self._max_to_keep,
                keep_checkpoint_every_n_hours=self._keep_checkpoint_every_n_hours,
                name=self._name, restore_sequentially=self._restore_sequentially,
                filename=self._filename,
            )
        elif self._name:
            # an imported saver: ``name`` is the import scope of its ops
            sd = saver_pb2.SaverDef()
            sd.CopyFrom(self.saver_def)
            sd.filename_tensor_name = meta_graph.prepend_name_scope(
                sd.filename_tensor_name, self._name)
            sd.save_tensor_name = meta_graph.prepend_name_scope(sd.save_tensor_name, self._name)
            sd.restore_op_name = meta_graph.prepend_name_scope(sd.restore_op_name, self._name)
            self.saver_def = sd
        self._check_saver_def()
        self._next_checkpoint_time = (
            time.time() + self.saver_def.keep_checkpoint_every_n_hours * 3600)

    def _check_saver_def(self):
        if not isinstance(self.saver_def, saver_pb2.SaverDef):
            raise ValueError(  # noqa: TRY004 - TF's error class
                f"saver_def must be a saver_pb2.SaverDef: {self.saver_def}")
        if not self.saver_def.save_tensor_name:
            raise ValueError(f"saver_def must specify the save_tensor_name: {self.saver_def}")
        if not self.saver_def.restore_op_name:
            raise ValueError(f"saver_def must specify the restore_op_name: {self.saver_def}")

    def as_saver_def(self):
        """The SaverDef of this saver."""
        return self.saver_def

    def to_proto(self, export_scope=None):
        """The SaverDef with ``export_scope`` stripped (None if a name is outside it)."""
        if export_scope is None:
            return self.saver_def
        sd = self.saver_def
        if not (sd.filename_tensor_name.startswith(export_scope)
                and sd.save_tensor_name.startswith(export_scope)
                and sd.restore_op_name.startswith(export_scope)):
            return None
        out = saver_pb2.SaverDef()
        out.CopyFrom(sd)
        strip = meta_graph.strip_name_scope
        out.filename_tensor_name = strip(out.filename_tensor_name, export_scope)
        out.save_tensor_name = strip(out.save_tensor_name, export_scope)
        out.restore_op_name = strip(out.restore_op_name, export_scope)
        return out

    @staticmethod
    def from_proto(saver_def, import_scope=None):
        """A Saver for the ops a SaverDef names (under ``import_scope``)."""
        return Saver(saver_def=saver_def, name=import_scope)

    # -- bookkeeping of recent checkpoints ---------------------------------------------------
    @property
    def last_checkpoints(self):
        """The checkpoints not yet deleted, oldest first."""
        return [p[0] for p in self._last_checkpoints]

    def set_last_checkpoints(self, last_checkpoints):
        """DEPRECATED: sets the list of old checkpoints (never deleted: timestamp +inf)."""
        assert isinstance(last_checkpoints, list)
        self._last_checkpoints = [(s, np.inf) for s in last_checkpoints]

    def set_last_checkpoints_with_time(self, last_checkpoints_with_time):
        """Sets the list of old checkpoints as (path, timestamp) pairs."""
        assert isinstance(last_checkpoints_with_time, list)
        self._last_checkpoints = last_checkpoints_with_time

    def recover_last_checkpoints(self, checkpoint_paths):
        """After a crash: the checkpoints of ``checkpoint_paths`` that exist, with their mtimes."""
        found = []
        for path in checkpoint_paths:
            mtime = checkpoint_management.get_checkpoint_mtimes([path])
            if mtime:
                found.append((path, mtime[0]))
        self.set_last_checkpoints_with_time(found)

    def _RecordLastCheckpoint(self, latest_save_path):
        if not self.saver_def.max_to_keep:
            return
        self._last_checkpoints = [p for p in self._last_checkpoints if p[0] != latest_save_path]
        self._last_checkpoints.append((latest_save_path, time.time()))
        if len(self._last_checkpoints) > self.saver_def.max_to_keep:
            self._checkpoints_to_be_deleted.append(self._last_checkpoints.pop(0))

    def _MaybeDeleteOldCheckpoints(self, meta_graph_suffix="meta"):
        if not self._checkpoints_to_be_deleted:
            return
        path, stamp = self._checkpoints_to_be_deleted.pop(0)
        # keep one checkpoint every keep_checkpoint_every_n_hours
        if stamp > self._next_checkpoint_time:
            self._next_checkpoint_time += self.saver_def.keep_checkpoint_every_n_hours * 3600
            return
        try:
            checkpoint_management.remove_checkpoint(path, self.saver_def.version,
                                                    meta_graph_suffix)
        except OSError as e:
            from tideflow import logging

            logging.warning("Ignoring: %s", str(e))

    # -- save / restore ----------------------------------------------------------------------
    def save(self, sess, save_path, global_step=None, latest_filename=None,
             meta_graph_suffix="meta", write_meta_graph=True, write_state=True,
             strip_default_attrs=False, save_debug_info=False):
        """Saves the variables; returns the checkpoint prefix (None for an empty saver).
        ``save_debug_info`` is accepted; the file of op creation stack traces TF writes for it
        is not written.

        Saves through one Saver are serialized (a supervisor's checkpoint thread and the
        training loop's final save), so the state file names the later of two concurrent
        saves, never the earlier one written last."""
        lock = self.__dict__.setdefault("_save_lock", threading.Lock())
        with lock:
            return self._save(sess, save_path, global_step, latest_filename, meta_graph_suffix,
                              write_meta_graph, write_state, strip_default_attrs)

    def _save(self, sess, save_path, global_step, latest_filename, meta_graph_suffix,
              write_meta_graph, write_state, strip_default_attrs):
        if not self._is_built:
            raise RuntimeError("`build()` should be called before save if defer_build==True")
        if latest_filename is None:
            latest_filename = "checkpoint"
        if os.path.split(latest_filename)[0]:
            raise ValueError("'latest_filename' must not contain path components")
        save_path = os.fspath(save_path)
        if isinstance(save_path, bytes):
            save_path = save_path.decode()
        if global_step is not None:
            if not isinstance(global_step, (int, np.integer)):
                from tideflow.train import training_util

                global_step = training_util.global_step(sess, global_step)
            checkpoint_file = f"{save_path}-{int(global_step)}"
            if self._pad_step_number:
                checkpoint_file = f"{save_path}-{int(global_step):08d}"
        else:
            checkpoint_file = save_path
            if os.path.basename(save_path) == latest_filename and not self._sharded:
                raise ValueError(
                    f"'latest_filename' collides with 'save_path': '{latest_filename}' and "
                    f"'{save_path}'"
                )
        if not (hasattr(sess, "run") and hasattr(sess, "graph")):
            raise TypeError(f"'sess' must be a Session; {sess}")
        parent = os.path.dirname(save_path)
        model_checkpoint_path = None
        if not self._is_empty:
            try:
                model_checkpoint_path = sess.run(
                    self.saver_def.save_tensor_name,
                    {self.saver_def.filename_tensor_name: checkpoint_file},
                )
            except (errors.FailedPreconditionError, errors.NotFoundError) as exc:
                if not os.path.isdir(parent or "."):
                    raise ValueError(
                        f"Parent directory of {save_path} doesn't exist, can't save."
                    ) from exc
                raise
            if isinstance(model_checkpoint_path, bytes):
                model_checkpoint_path = model_checkpoint_path.decode()
            model_checkpoint_path = str(model_checkpoint_path)
            if write_state:
                self._RecordLastCheckpoint(model_checkpoint_path)
                # the state file holds paths only, as TF 1.x's Saver writes it (scripts parse
                # its lines); the timestamps stay in memory for keep_checkpoint_every_n_hours
                checkpoint_management.update_checkpoint_state_internal(
                    save_dir=parent,
                    model_checkpoint_path=model_checkpoint_path,
                    all_model_checkpoint_paths=self.last_checkpoints,
                    latest_filename=latest_filename,
                    save_relative_paths=self._save_relative_paths,
                )
                self._MaybeDeleteOldCheckpoints(meta_graph_suffix=meta_graph_suffix)
        if write_meta_graph:
            filename = checkpoint_management.meta_graph_filename(
                checkpoint_file, meta_graph_suffix=meta_graph_suffix)
            with sess.graph.as_default():
                self.export_meta_graph(filename, strip_default_attrs=strip_default_attrs)
        return None if self._is_empty else model_checkpoint_path

    def restore(self, sess, save_path):
        """Restores the variables from checkpoint ``save_path``."""
        if self._is_empty:
            return
        if save_path is None:
            raise ValueError("Can't load save_path when it is None.")
        prefix = os.fspath(save_path)
        if isinstance(prefix, bytes):
            prefix = prefix.decode()
        is_v2 = bool(checkpoint_management._prefix_files(prefix)
                     or glob.glob(prefix + checkpoint_format.INDEX_SUFFIX))
        if not is_v2 and os.path.exists(prefix) and not prefix.endswith(".index"):
            # TF reads an existing non-checkpoint path (a directory, the .meta or .data
            # file, the 'checkpoint' state file) as a V1 table and fails with DataLossError.
            why = (f"Failed precondition: {prefix}; Is a directory"
                   if os.path.isdir(prefix) else "Data loss: not an sstable (bad magic number)")
            raise errors.DataLossError(
                None, None, f"Unable to open table file {prefix}: {why}: perhaps your file "
                "is in a different file format and you need to use a different restore "
                "operator?")
        if not checkpoint_management.checkpoint_exists(prefix):
            parent = os.path.dirname(prefix)
            if parent and not os.path.isdir(parent):
                # TF 1.15's glob for the prefix's files fails first when its folder is missing
                raise errors.NotFoundError(None, None, f"{parent}; No such file or directory")
            raise ValueError(f"The passed save_path is not a valid checkpoint: {prefix}")
        from tideflow import logging

        logging.info("Restoring parameters from %s", prefix)
        try:
            sess.run(self.saver_def.restore_op_name,
                     {self.saver_def.filename_tensor_name: prefix})
        except errors.NotFoundError as err:
            from tideflow.train import trackable_checkpoint

            names_to_keys = trackable_checkpoint.object_graph_key_mapping(prefix)
            if names_to_keys is None:
                raise _wrap_restore_error(
                    err, "a Variable name or other graph key that is missing", prefix) from None
            # as TF 1.15: an object-based checkpoint (tf.train.Checkpoint, Keras
            # save_weights) restores by the variable names its object graph records
            logging.warning("Restoring an object-based checkpoint using a name-based saver. "
                            "This may be somewhat fragile, and will re-build the Saver. "
                            "Instead, consider loading object-based checkpoints using "
                            "tf.train.Checkpoint().")
            if getattr(self, "_object_restore_saver", None) is None:
                self._object_restore_saver = _saver_by_object_graph(
                    self._var_list, names_to_keys, prefix)
            self._object_restore_saver.restore(sess, prefix)
        except errors.InvalidArgumentError as err:
            raise _wrap_restore_error(
                err, "a mismatch between the current graph and the graph", prefix) from None

    @staticmethod
    def _add_collection_def(meta_graph_def, key, export_scope=None):
        """Adds collection ``key`` of the default graph to ``meta_graph_def`` (TF's helper)."""
        meta_graph.add_collection_def(meta_graph_def, key, export_scope=export_scope)

    def export_meta_graph(self, filename=None, collection_list=None, as_text=False,
                          export_scope=None, clear_devices=False,
                          clear_extraneous_savers=False, strip_default_attrs=False,
                          save_debug_info=False):
        """Writes the MetaGraphDef of the default graph with this saver's SaverDef
        (``save_debug_info``: accepted, no stack-trace file is written)."""
        return export_meta_graph(
            filename=filename,
            graph_def=ops.get_default_graph().as_graph_def(add_shapes=True),
            saver_def=self.saver_def, collection_list=collection_list, as_text=as_text,
            export_scope=export_scope, clear_devices=clear_devices,
            clear_extraneous_savers=clear_extraneous_savers,
            strip_default_attrs=strip_default_attrs,
        )


# ------------------------------------------------------------------------------------------
# meta graphs
# ------------------------------------------------------------------------------------------


def _register_protos():
    """Collections that serialize as protos: savers here, variables and queue runners."""
    from tideflow.ops import variables
    from tideflow.protos import variable_pb2

    keys = ops.GraphKeys
    for key in (keys.GLOBAL_VARIABLES, keys.TRAINABLE_VARIABLES, keys.MOVING_AVERAGE_VARIABLES,
                keys.LOCAL_VARIABLES, keys.MODEL_VARIABLES, keys.GLOBAL_STEP,
                keys.METRIC_VARIABLES):
        if not meta_graph.has_proto_function(key):
            meta_graph.register_proto_function(
                key, proto_type=variable_pb2.VariableDef,
                to_proto=lambda v, export_scope=None: v.to_proto(export_scope=export_scope),
                from_proto=lambda p, import_scope=None: variables.Variable.from_proto(
                    p, import_scope=import_scope))
    if not meta_graph.has_proto_function(ops.GraphKeys.SAVERS):
        meta_graph.register_proto_function(
            ops.GraphKeys.SAVERS, proto_type=saver_pb2.SaverDef,
            to_proto=lambda s, export_scope=None: s.to_proto(export_scope),
            from_proto=Saver.from_proto)
    meta_graph.register_queue_runners()


def export_meta_graph(filename=None, meta_info_def=None, graph_def=None, saver_def=None,
                      collection_list=None, as_text=False, graph=None, export_scope=None,
                      clear_devices=False, clear_extraneous_savers=False,
                      strip_default_attrs=False, save_debug_info=False, **kwargs):
    """Returns (and writes to ``filename`` if given) the MetaGraphDef of a graph.
    (``save_debug_info`` is TF 1.15's parameter; tideflow writes no GraphDebugInfo file.)"""
    del save_debug_info
    _register_protos()
    meta_graph_def, _ = meta_graph.export_scoped_meta_graph(
        filename=filename, meta_info_def=meta_info_def, graph_def=graph_def,
        saver_def=saver_def, collection_list=collection_list, as_text=as_text, graph=graph,
        export_scope=export_scope, clear_devices=clear_devices,
        clear_extraneous_savers=clear_extraneous_savers,
        strip_default_attrs=strip_default_attrs, **kwargs)
    return meta_graph_def


def import_meta_graph(meta_graph_or_file, clear_devices=False, import_scope=None, **kwargs):
    """Imports a MetaGraphDef (proto or file) into the default graph; returns its Saver or None.

    Collections are restored too, so e.g. ``tf.get_collection('train_op')[0]`` runs a training
    step of the imported model without its Python code.
    """
    return _import_meta_graph_with_return_elements(
        meta_graph_or_file, clear_devices, import_scope, **kwargs)[0]


def _import_meta_graph_with_return_elements(meta_graph_or_file, clear_devices=False,
                                            import_scope=None, return_elements=None, **kwargs):
    """import_meta_graph that also returns the imported ``return_elements``: (Saver or None,
    elements)."""
    _register_protos()
    meta_graph_def = meta_graph.read_meta_graph_file(meta_graph_or_file) if isinstance(
        meta_graph_or_file, (str, bytes, os.PathLike)) else meta_graph_or_file
    imported_vars, elements = meta_graph.import_scoped_meta_graph_with_return_elements(
        meta_graph_def, clear_devices=clear_devices, import_scope=import_scope,
        return_elements=return_elements, **kwargs)
    if meta_graph_def.HasField("saver_def"):
        scope = import_scope
        if imported_vars:
            key, var = next(iter(imported_vars.items()))
            scope = var.name[:-len(key)] if var.name.endswith(key) else import_scope
        return Saver(saver_def=meta_graph_def.saver_def, name=scope), elements
    if saveable.all_saveable_objects(scope=import_scope):
        return Saver(), elements
    from tideflow import logging

    logging.info("Saver not created because there are no variables in the graph to restore")
    return None, elements


# TF 1.x's saver module keeps these checkpoint-state functions under its own name as well
checkpoint_exists = checkpoint_management.checkpoint_exists
generate_checkpoint_state_proto = checkpoint_management.generate_checkpoint_state_proto
get_checkpoint_mtimes = checkpoint_management.get_checkpoint_mtimes
get_checkpoint_state = checkpoint_management.get_checkpoint_state
latest_checkpoint = checkpoint_management.latest_checkpoint
remove_checkpoint = checkpoint_management.remove_checkpoint
update_checkpoint_state = checkpoint_management.update_checkpoint_state

__all__ = ["BaseSaverBuilder", "BulkSaverBuilder", "Saver", "export_meta_graph",
           "import_meta_graph"]


def __getattr__(name):
    # TF keeps _get_saver_or_default (the SAVERS collection's saver, made on first use) in its
    # saver module; tideflow's sits with the monitored session (which imports this module)
    if name == "_get_saver_or_default":
        from tideflow.train import monitored_session

        return monitored_session._get_saver_or_default
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
