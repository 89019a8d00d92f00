"""What a Saver saves: SaveSpec/SaveableObject, variables as saveables, and the builder that adds
the SaveV2/RestoreV2/MergeV2Checkpoints ops of a Saver to the graph (TF's BaseSaverBuilder).
"""

import uuid

from tideflow.framework import device as pydev
from tideflow.framework import dtypes, ops
from tideflow.ops import (
    array_ops,
    checkpoint_ops,
    constant_op,
    control_flow_ops,
    state_ops,
    string_ops,
    variables,
)
from tideflow.protos import saver_pb2


class SaveSpec:
    """One tensor to save: its value (or a callable), slice spec, checkpoint name and dtype."""

    def __init__(self, tensor, slice_spec, name, dtype=None, device=None):
        self._tensor = tensor
        self.slice_spec = slice_spec
        self.name = name
        self.dtype = dtypes.as_dtype(dtype) if dtype is not None else tensor.dtype.base_dtype
        self.device = device if device is not None else getattr(tensor, "device", "")

    @property
    def tensor(self):
        return self._tensor() if callable(self._tensor) else self._tensor


class SaveableObject:
    """Something saved as one or more SaveSpecs and restored by ``restore``."""

    def __init__(self, op, specs, name):
        self.op = op
        self.specs = specs
        self.name = name

    @property
    def device(self):
        return self.specs[0].device

    def restore(self, restored_tensors, restored_shapes):
        raise NotImplementedError


class ReferenceVariableSaveable(SaveableObject):
    """A ref variable: saved from its buffer, restored with an Assign."""

    def __init__(self, var, slice_spec, name):
        super().__init__(var, [SaveSpec(var, slice_spec, name)], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = array_ops.reshape(restored, restored_shapes[0])
        return state_ops.assign(
            self.op, restored,
            validate_shape=restored_shapes is None and self.op.get_shape().is_fully_defined(),
        )


class ResourceVariableSaveable(SaveableObject):
    """A resource variable, as TF 1.15's: a whole one saved from the read its creation made
    (``<v>/Read/ReadVariableOp``), a slice of a partitioned one from a read copied to its
    task's CPU (so a sharded Saver writes it in that device's shard); restored with an
    ``AssignVariableOp`` of a copy on the variable's device, which takes the checkpoint's
    value whatever its shape (only a statically known mismatch is an error)."""

    def __init__(self, var, slice_spec, name):
        self._var_device = var.device
        self._var_shape = var.shape
        device = None
        if isinstance(var, ops.Tensor):  # a read: its handle is its input
            self.handle_op = var.op.inputs[0]
            tensor = var
        else:
            self.handle_op = var.handle

            def tensor(v=var):
                with ops.device(v.device):
                    x = v.read_value()
                with ops.device(set_cpu0(v.device)):
                    return array_ops.identity(x)

            device = set_cpu0(var.device) if slice_spec else None
        super().__init__(var, [SaveSpec(tensor, slice_spec, name, dtype=var.dtype,
                                        device=device or var.device)], name)

    def restore(self, restored_tensors, restored_shapes):
        restored = restored_tensors[0]
        if restored_shapes is not None:
            restored = array_ops.reshape(restored, restored_shapes[0])
        # TF's ops and names: a copy onto the variable's device, then "AssignVariableOp"
        with ops.device(self._var_device):
            restored = array_ops.identity(restored)
            self._var_shape.assert_is_compatible_with(restored.get_shape())
            return ops.apply_op("AssignVariableOp", [self.handle_op, restored],
                                {"dtype": restored.dtype.base_dtype}, name="AssignVariableOp")


def _saveable_of(var, slice_spec, name):
    if getattr(var, "_resource", False):
        return ResourceVariableSaveable(var if slice_spec else var._graph_element, slice_spec,
                                        name)
    return ReferenceVariableSaveable(var._ref() if not slice_spec else var, slice_spec, name)


def _is_variable(x):
    return isinstance(x, variables.Variable)


def _is_partitioned(x):
    return hasattr(x, "_get_variable_list") and not _is_variable(x)


def _var_key(var):
    info = var._get_save_slice_info() if _is_variable(var) else None
    return info.full_name if info is not None else var.op.name


def op_list_to_dict(op_list):
    """A list of variables (or saveables, ref tensors, PartitionedVariables) as a dict
    checkpoint name -> object; the parts of a partitioned variable become one list under the
    full variable's name."""
    if not isinstance(op_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {op_list}")
    op_list = sorted(op_list, key=lambda x: x.name)
    names_to_saveables = {}
    for var in op_list:
        if isinstance(var, SaveableObject):
            names_to_saveables[var.name] = var
            continue
        if not _is_variable(var) and hasattr(var, "_gather_saveables_for_checkpoint"):
            # a trackable object (a mutable lookup table): its saveables, as TF's
            for factory in var._gather_saveables_for_checkpoint().values():
                saveable = factory() if callable(factory) else factory
                names_to_saveables[saveable.name] = saveable
            continue
        if _is_partitioned(var):
            if var.name in names_to_saveables:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            names_to_saveables[var.name] = var
            continue
        if _is_variable(var) and var._get_save_slice_info() is not None:
            name = var._get_save_slice_info().full_name
            have = names_to_saveables.get(name)
            if have is None:
                names_to_saveables[name] = [var]
            elif isinstance(have, list):
                have.append(var)
            else:
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            continue
        if not (_is_variable(var) or isinstance(var, ops.Tensor)
                and var.op.type in _VARIABLE_OP_TYPES):
            raise TypeError(f"Variable to save is not a Variable: {var}")
        name = _var_key(var)
        if name in names_to_saveables:
            raise ValueError(f"At least two variables have the same name: {name}")
        names_to_saveables[name] = var
    return names_to_saveables


# a tensor in a Saver's var_list must come from one of these (TF's rule)
_VARIABLE_OP_TYPES = frozenset(
    ["Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp", "ReadVariableOp"])


def saveable_objects_for_op(op, name):
    """The SaveableObjects saving ``op`` (a variable, ref tensor, saveable, or the parts of a
    partitioned variable: one slice each) as ``name``."""
    if isinstance(op, SaveableObject):
        return [op]
    if not _is_variable(op) and hasattr(op, "_gather_saveables_for_checkpoint"):
        return [factory(name) for factory in op._gather_saveables_for_checkpoint().values()]
    if hasattr(op, "_saveable_objects"):  # a tf.distribute MirroredVariable: all its copies
        return op._saveable_objects(name)
    if _is_partitioned(op) or isinstance(op, (list, tuple)):
        parts = list(op._get_variable_list()) if _is_partitioned(op) else list(op)
        saveables = []
        full_name = None
        for v in parts:
            if not _is_variable(v):
                raise ValueError(f"Slices must all be Variables: {v}")
            info = v._get_save_slice_info()
            if info is None:
                raise ValueError(f"Slices must all be slices: {v}")
            if full_name is None:
                full_name = info.full_name
            elif full_name != info.full_name:
                raise ValueError(
                    f"Slices must all be from the same tensor: {full_name} != {info.full_name}")
            # as TF, a ref slice is saved through the Variable itself, so SaveV2 reads its
            # value ("<part>/read"), where a whole variable is saved from its ref tensor
            saveables.append(_saveable_of(v, info.spec, name))
        return saveables
    if _is_variable(op):
        return [_saveable_of(op, "", name)]
    if isinstance(op, ops.Tensor) and op.op.type == "ReadVariableOp":
        return [ResourceVariableSaveable(op, "", name)]  # (a read of its handle, as TF's)
    if not isinstance(op, ops.Tensor):
        op = ops.convert_to_tensor(op)  # as TF (a Python value becomes a Const first)
    if not op.dtype._is_ref_dtype:
        raise TypeError("names_to_saveables must be a dict mapping string names to "
                        f"Tensors/Variables. Not a variable: {op}")
    return [ReferenceVariableSaveable(op, "", name)]


def validate_and_slice_inputs(names_to_saveables):
    """The saveables of a ``{name: variable}`` dict (or a list), checking names are unique."""
    if not isinstance(names_to_saveables, dict):
        names_to_saveables = op_list_to_dict(names_to_saveables)
    saveables = []
    seen = set()
    for name, op in sorted(names_to_saveables.items(), key=lambda x: x[0]):
        for s in saveable_objects_for_op(op, name):
            key = s.op if not isinstance(s.op, ops.Tensor) else s.op.op
            if key in seen:
                raise ValueError(f"The same saveable will be restored with two names: {name}")
            seen.add(key)
            saveables.append(s)
    return saveables


def set_cpu0(device_string):
    """The CPU:0 device of the job/task of ``device_string``."""
    spec = pydev.DeviceSpec.from_string(device_string)
    return spec.replace(device_type="CPU", device_index=0).to_string()


class BaseSaverBuilder:
    """Adds save and restore ops for a list of saveables to the graph (returns a SaverDef)."""

    SaveSpec = SaveSpec
    SaveableObject = SaveableObject
    VariableSaveable = ReferenceVariableSaveable

    def __init__(self, write_version=saver_pb2.SaverDef.V2):
        self._write_version = write_version

    # -- the ops for one shard ---------------------------------------------------------------
    def save_op(self, filename_tensor, saveables):
        names, tensors, slices = [], [], []
        for s in saveables:
            for spec in s.specs:
                names.append(spec.name)
                tensors.append(spec.tensor)
                slices.append(spec.slice_spec)
        if self._write_version == saver_pb2.SaverDef.V1:
            return checkpoint_ops.save_slices(filename_tensor, names, slices, tensors)
        return checkpoint_ops.save_v2(filename_tensor, names, slices, tensors)

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        specs = [spec for s in saveables for spec in s.specs]
        with ops.device("/device:CPU:0"):
            return checkpoint_ops.restore_v2(filename_tensor, [s.name for s in specs],
                                             [s.slice_spec for s in specs],
                                             [s.dtype for s in specs])

    def sharded_filename(self, filename_tensor, shard, num_shards):
        return checkpoint_ops.sharded_filename(filename_tensor, shard, num_shards)

    def _AddSaveOps(self, filename_tensor, saveables):
        save = self.save_op(filename_tensor, saveables)
        return control_flow_ops.with_dependencies([save], filename_tensor)

    def _AddShardedSaveOps(self, checkpoint_prefix, per_device):
        # the suffix converted by StringJoin itself, as TF's ("save/StringJoin/inputs_1")
        tmp_prefix = string_ops.string_join([checkpoint_prefix,
                                             f"_temp_{uuid.uuid4().hex}/part"])
        num_shards = len(per_device)
        num_shards_tensor = constant_op.constant(num_shards, name="num_shards")
        saves, prefixes = [], []
        last_device = None
        for shard, (device, saveables) in enumerate(per_device):
            last_device = device
            with ops.device(set_cpu0(device)):
                name = self.sharded_filename(tmp_prefix, shard, num_shards_tensor)
                prefixes.append(name)
                saves.append(self._AddSaveOps(name, saveables))
        with ops.control_dependencies([x.op for x in saves]), ops.device(set_cpu0(last_device)):
            merge = checkpoint_ops.merge_v2_checkpoints(prefixes, checkpoint_prefix,
                                                        delete_old_dirs=True)
            with ops.control_dependencies([merge]):
                return array_ops.identity(checkpoint_prefix)

    def _AddRestoreOps(self, filename_tensor, saveables, restore_sequentially, reshape,
                       preferred_shard=-1, name="restore_all"):
        if restore_sequentially:
            all_tensors = []
            prev = None
            for s in saveables:
                with ops.control_dependencies([prev] if prev is not None else []):
                    ts = self.bulk_restore(filename_tensor, [s], preferred_shard, True)
                all_tensors.append(ts)
                prev = ts[0].op
            all_tensors = [t for ts in all_tensors for t in ts]
        else:
            all_tensors = self.bulk_restore(filename_tensor, saveables, preferred_shard, False)
        assign_ops = []
        idx = 0
        for s in saveables:
            shapes = None
            if reshape:
                shapes = [spec.tensor.get_shape() if spec.tensor.get_shape().is_fully_defined()
                          else array_ops.shape(spec.tensor) for spec in s.specs]
            tensors = all_tensors[idx:idx + len(s.specs)]
            idx += len(s.specs)
            dev = getattr(s, "_var_device", s.device)
            with ops.device(set_cpu0(dev) if dev else None):
                assign_ops.append(s.restore(tensors, shapes))
        return control_flow_ops.group(*assign_ops, name=name)

    def _AddShardedRestoreOps(self, filename_tensor, per_device, restore_sequentially,
                              reshape):
        restores = []
        for shard, (device, saveables) in enumerate(per_device):
            with ops.device(device):
                restores.append(self._AddRestoreOps(filename_tensor, saveables,
                                                    restore_sequentially, reshape,
                                                    preferred_shard=shard, name="restore_shard"))
        return control_flow_ops.group(*restores, name="restore_all")

    @staticmethod
    def _GroupByDevices(saveables):
        per_device = {}
        for s in saveables:
            devs = {pydev.canonical_name(spec.device) for spec in s.specs}
            if len(devs) != 1:
                raise ValueError(
                    f"All tensors of a saveable object must be on the same device: {s.name}"
                )
            per_device.setdefault(devs.pop(), []).append(s)
        return sorted(per_device.items(), key=lambda t: t[0])

    def build(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
              keep_checkpoint_every_n_hours=10000.0, name=None, restore_sequentially=False,
              filename="model"):
        """Adds the ops; returns the SaverDef naming them."""
        return self._build_internal(names_to_saveables, reshape, sharded, max_to_keep,
                                    keep_checkpoint_every_n_hours, name, restore_sequentially,
                                    filename)

    def _build_internal(self, names_to_saveables, reshape=False, sharded=False, max_to_keep=5,
                        keep_checkpoint_every_n_hours=10000.0, name=None,
                        restore_sequentially=False, filename="model", build_save=True,
                        build_restore=True):
        if not build_save or not build_restore:
            raise ValueError("save and restore operations need to be built together")
        saveables = validate_and_slice_inputs(names_to_saveables)
        if max_to_keep is None:
            max_to_keep = 0
        g = ops.get_default_graph()
        with g.control_dependencies(None), ops.name_scope(name, "save", []) as scope:
            name = scope
            with ops.name_scope("filename") as fscope:
                default = constant_op.constant(filename or "model", name="input")
            filename_tensor = constant_op.placeholder_with_default(default, shape=(), name=fscope)
            # the name "Const" is what tools (and TF) look for
            filename_tensor = constant_op.placeholder_with_default(
                filename_tensor, shape=(), name="Const")
            if sharded:
                per_device = self._GroupByDevices(saveables)
                save_tensor = self._AddShardedSaveOps(filename_tensor, per_device)
                restore_op = self._AddShardedRestoreOps(filename_tensor, per_device,
                                                        restore_sequentially, reshape)
            else:
                save_tensor = self._AddSaveOps(filename_tensor, saveables)
                restore_op = self._AddRestoreOps(filename_tensor, saveables,
                                                 restore_sequentially, reshape)
        return saver_pb2.SaverDef(
            filename_tensor_name=filename_tensor.name,
            save_tensor_name=save_tensor.name,
            restore_op_name=restore_op.name,
            max_to_keep=max_to_keep,
            sharded=sharded,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            version=self._write_version,
        )


class BulkSaverBuilder(BaseSaverBuilder):
    """The default builder: one RestoreV2 for all the tensors of a shard."""

    def bulk_restore(self, filename_tensor, saveables, preferred_shard, restore_sequentially):
        return BaseSaverBuilder.bulk_restore(self, filename_tensor, saveables, preferred_shard,
                                             False)


def all_saveable_objects(scope=None):
    """The global variables plus the SAVEABLE_OBJECTS collection."""
    return (ops.get_collection(ops.GraphKeys.GLOBAL_VARIABLES, scope)
            + ops.get_collection(ops.GraphKeys.SAVEABLE_OBJECTS, scope))
