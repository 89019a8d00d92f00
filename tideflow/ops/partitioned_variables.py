"""Partitioned variables: one logical variable stored as several ``Variable`` parts
(``name/part_0``, ``name/part_1``, ...) split along one axis, e.g. to spread a large embedding
over parameter servers.

``tf.get_variable(..., partitioner=p)`` builds a ``PartitionedVariable`` here; the partitioners
(``fixed_size_partitioner``, ``min_max_variable_partitioner``,
``variable_axis_size_partitioner``) decide how many parts.
"""

import collections.abc
import math

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape, as_shape
from tideflow.ops import variables

__all__ = [
    "PartitionedVariable", "create_partitioned_variables", "fixed_size_partitioner",
    "min_max_variable_partitioner", "variable_axis_size_partitioner",
]


# ------------------------------------------------------------------------------------------
# PartitionedVariable
# ------------------------------------------------------------------------------------------


class PartitionedVariable:
    """A variable stored as parts split along one axis; iterating gives the parts in order.

    Converting it to a tensor concatenates the parts (``as_tensor()``); ``get_shape()`` is the
    full shape. Optimizers, savers and ``embedding_lookup`` work on the parts.
    """

    def __init__(self, name, shape, dtype, variable_list, partitions):
        if not isinstance(variable_list, (list, tuple)):
            raise TypeError(f"variable_list is not a list or tuple: {variable_list}")
        if not isinstance(partitions, (list, tuple)):
            raise TypeError(f"partitions is not a list or tuple: {partitions}")
        if not all(p >= 1 for p in partitions):
            raise ValueError(f"partition values must be positive: {partitions}")
        if not variable_list:
            raise ValueError("variable_list may not be empty")
        shape = as_shape(shape)
        for v in variable_list:
            if v._get_save_slice_info() is None:
                raise ValueError(
                    "All variables must have a save_slice_info available: "
                    f"{[v.name for v in variable_list]}"
                )
            if shape.ndims != len(partitions):
                raise ValueError(f"len(shape) != len(partitions): {shape} vs. {partitions}")
            if v._get_save_slice_info().full_shape != shape.as_list():
                raise ValueError(
                    f"All variables' full shapes must match shape: {shape}; but full shapes "
                    f"were: {v._get_save_slice_info().full_shape}"
                )
        self._variable_list = sorted(variable_list,
                                     key=lambda v: v._get_save_slice_info().var_offset)
        self._name = name
        self._shape = shape
        self._dtype = dtypes.as_dtype(dtype)
        self._partitions = list(partitions)
        self._as_tensor = None

    def __iter__(self):
        return iter(self._variable_list)

    def __len__(self):
        axes = self._partition_axes()
        if len(axes) > 1:
            raise ValueError(f"Cannot get a length of {len(axes)} > 1-D partition")
        return len(self._variable_list)

    # repr: TF 1.15's PartitionedVariable has none of its own (<...PartitionedVariable object
    # at 0x...>)

    def _partition_axes(self):
        if all(p == 1 for p in self._partitions):
            return [0]
        return [i for i, p in enumerate(self._partitions) if p > 1]

    def _concat(self):
        from tideflow.ops import array_ops, concat_ops

        if len(self._variable_list) == 1:
            with ops.name_scope(None):
                return array_ops.identity(self._variable_list[0], name=self._name)
        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot concatenate along more than one dimension: {axes}.  Multi-axis "
                "partition concat is not supported"
            )
        with ops.name_scope(self._name + "/ConcatPartitions/"):
            concatenated = concat_ops.concat(self._variable_list, axes[0])
        with ops.name_scope(None):
            return array_ops.identity(concatenated, name=self._name)

    def as_tensor(self):
        """The full value: the parts concatenated (built outside any control dependencies)."""
        with ops.control_dependencies(None):
            return self._concat()

    @staticmethod
    def _TensorConversionFunction(v, dtype=None, name=None, as_ref=False):
        del name
        if dtype is not None and not dtypes.as_dtype(dtype).is_compatible_with(v.dtype):
            raise ValueError(
                f"Incompatible type conversion requested to type '{dtypes.as_dtype(dtype).name}'"
                f" for variable of type '{v.dtype.name}'"
            )
        if as_ref:
            raise NotImplementedError(
                "PartitionedVariable doesn't support being used as a reference.")
        return v.as_tensor()

    @property
    def name(self):
        return self._name

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self.get_shape()

    def get_shape(self):
        """The shape of the full variable."""
        return self._shape

    @property
    def graph(self):
        return self._variable_list[0].graph

    def _get_variable_list(self):
        return self._variable_list

    def _get_partitions(self):
        return self._partitions

    def _apply_assign_fn(self, assign_fn, value):
        from tideflow.ops import array_ops

        axes = self._partition_axes()
        if len(axes) > 1:
            raise NotImplementedError(
                f"Cannot do assign action along more than one dimension: {axes}.  Multi-axis "
                "partition assign action is not supported "
            )
        if isinstance(value, list):
            if len(value) != len(self._variable_list):
                raise ValueError(
                    f"Expected {len(self._variable_list)} values, one per part, got {len(value)}")
            values = value
        elif isinstance(value, PartitionedVariable):
            values = list(value)
        else:
            sizes = [v.get_shape()[axes[0]].value for v in self._variable_list]
            values = array_ops.split(value, sizes, axis=axes[0])
        return [assign_fn(v, values[i]) for i, v in enumerate(self._variable_list)]

    def assign(self, value, use_locking=False, name=None, read_value=True):
        """Assigns the matching slice of ``value`` to each part; a list of the assign ops."""
        return self._apply_assign_fn(
            lambda v, x: v.assign(x, use_locking=use_locking, name=name,
                                  read_value=read_value), value)

    def assign_add(self, value, use_locking=False, name=None, read_value=True):
        return self._apply_assign_fn(
            lambda v, x: v.assign_add(x, use_locking=use_locking, name=name,
                                      read_value=read_value), value)

    def assign_sub(self, value, use_locking=False, name=None, read_value=True):
        return self._apply_assign_fn(
            lambda v, x: v.assign_sub(x, use_locking=use_locking, name=name,
                                      read_value=read_value), value)


ops.register_tensor_conversion_function(PartitionedVariable,
                                        PartitionedVariable._TensorConversionFunction)


# ------------------------------------------------------------------------------------------
# partitioners: (shape, dtype) -> the number of parts along each axis
# ------------------------------------------------------------------------------------------


def _element_size(dtype, bytes_per_string_element):
    dtype = dtypes.as_dtype(dtype).base_dtype
    return bytes_per_string_element if dtype == dtypes.string else dtype.size


def variable_axis_size_partitioner(max_shard_bytes, axis=0, bytes_per_string_element=16,
                                   max_shards=None):
    """A partitioner keeping each shard under ``max_shard_bytes`` by splitting ``axis`` (at
    least one slice of ``axis`` per shard, at most ``max_shards`` shards)."""
    if max_shard_bytes < 1 or bytes_per_string_element < 1:
        raise ValueError("Both max_shard_bytes and bytes_per_string_element must be positive.")
    if max_shards and max_shards < 1:
        raise ValueError("max_shards must be positive.")

    def _partitioner(shape, dtype):
        if not isinstance(shape, TensorShape):
            raise ValueError(f"shape is not a TensorShape: {shape}")  # noqa: TRY004 - TF's class
        if not shape.is_fully_defined():
            raise ValueError(f"shape is not fully defined: {shape}")
        if not isinstance(dtype, dtypes.DType):
            raise ValueError(f"dtype is not a DType: {dtype}")  # noqa: TRY004 - TF's class
        element_size = _element_size(dtype, bytes_per_string_element)
        partitions = [1] * shape.ndims
        axis_len = shape.dims[axis].value
        bytes_per_slice = 1.0 * (shape.num_elements() / axis_len) * element_size
        slices_per_shard = max(1, math.floor(max_shard_bytes / bytes_per_slice))
        axis_shards = math.ceil(1.0 * axis_len / slices_per_shard)
        if max_shards:
            axis_shards = min(max_shards, axis_shards)
        partitions[axis] = axis_shards
        return partitions

    return _partitioner


def min_max_variable_partitioner(max_partitions=1, axis=0, min_slice_size=256 << 10,
                                 bytes_per_string_element=16):
    """A partitioner giving each shard at least ``min_slice_size`` bytes, with at most
    ``max_partitions`` shards along ``axis`` (and never more than that axis's length)."""

    def _partitioner(shape, dtype):
        shape = as_shape(shape)
        if axis >= shape.ndims:
            raise ValueError(
                f"Cannot partition variable along axis {axis} when shape is only {shape}")
        total_bytes = shape.num_elements() * _element_size(dtype, bytes_per_string_element)
        partitions = total_bytes / min_slice_size
        out = [1] * shape.ndims
        out[axis] = max(1, min(shape.dims[axis].value, max_partitions,
                               math.ceil(partitions)))
        return out

    return _partitioner


def fixed_size_partitioner(num_shards, axis=0):
    """A partitioner splitting ``axis`` into ``num_shards`` parts (fewer if the axis is
    shorter)."""

    def _partitioner(shape, **unused_args):
        shape = as_shape(shape)
        out = [1] * shape.ndims
        out[axis] = min(num_shards, shape.dims[axis].value)
        return out

    return _partitioner


def create_partitioned_variables(shape, slicing, initializer, dtype=dtypes.float32,
                                 trainable=True, collections=None, name=None, reuse=None):
    """Legacy: the list of parts of a variable of ``shape`` split as ``slicing`` says (one
    entry per dimension, at most one greater than 1)."""
    from tideflow.ops import variable_scope

    if len(shape) != len(slicing):
        raise ValueError(
            "The 'shape' and 'slicing' of a partitioned Variable must have the length: shape: "
            f"{shape}, slicing: {slicing}"
        )
    if len(shape) < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1: shape: {shape}")

    def partitioner(**unused_kwargs):
        return slicing

    with variable_scope.variable_scope(name, "PartitionedVariable", reuse=reuse) as scope:
        store = variable_scope._get_default_variable_store()
        pv = store.get_variable(
            scope.name, shape=shape, dtype=dtype, initializer=initializer,
            reuse=scope.reuse, trainable=trainable, collections=collections,
            partitioner=partitioner)
        return list(pv)


# ------------------------------------------------------------------------------------------
# building a partitioned variable (called by the variable store of ``variable_scope``)
# ------------------------------------------------------------------------------------------


class _PartitionInfo:
    """What an initializer is told about the part it initializes: the full shape and the
    part's offset in it."""

    def __init__(self, full_shape, var_offset):
        if not isinstance(full_shape, collections.abc.Sequence) or isinstance(full_shape, str):
            raise TypeError(f"`full_shape` must be a sequence (like tuple or list) instead of "
                            f"{type(full_shape).__name__}")
        if not isinstance(var_offset, collections.abc.Sequence) or isinstance(var_offset, str):
            raise TypeError(f"`var_offset` must be a sequence (like tuple or list) instead of "
                            f"{type(var_offset).__name__}")
        if len(var_offset) != len(full_shape):
            raise ValueError(
                f"Expected equal length, but `var_offset` is of length {len(var_offset)} while "
                f"full_shape is of length {len(full_shape)}."
            )
        for offset, size in zip(var_offset, full_shape):
            if offset < 0 or offset >= size:
                raise ValueError(
                    f"Expected 0 <= offset < shape but found offset={offset}, shape={size} for "
                    f"var_offset={var_offset}, full_shape={full_shape}"
                )
        self._full_shape = list(full_shape)
        self._var_offset = list(var_offset)

    @property
    def full_shape(self):
        return self._full_shape

    @property
    def var_offset(self):
        return self._var_offset

    def single_offset(self, shape):
        """The offset of the part along its one sliced dimension (0 when unsliced)."""
        dim = self.single_slice_dim(shape)
        return 0 if dim is None else self._var_offset[dim]

    def single_slice_dim(self, shape):
        """The one dimension along which ``shape`` is a slice of the full shape, or None."""
        if shape is None:
            return None
        shape = list(shape)
        if len(shape) != len(self._full_shape):
            raise ValueError(
                f"Expected equal length, but received shape={shape} of length {len(shape)} "
                f"while self.full_shape={self._full_shape} is of length "
                f"{len(self._full_shape)}."
            )
        dim = None
        for i, (offset, size, full) in enumerate(zip(self._var_offset, shape,
                                                     self._full_shape)):
            if offset + size > full:
                raise ValueError(
                    f"With self.var_offset={self._var_offset}, a partition of shape={shape} "
                    f"would exceed self.full_shape={self._full_shape} in dimension {i}."
                )
            if size != full:
                if dim is not None:
                    raise ValueError(
                        f"Cannot use single_slice_dim() with shape={shape} and "
                        f"self.full_shape={self._full_shape} since slice dim could be either "
                        f"dimension {dim} or {i}."
                    )
                dim = i
        return dim


def _call_partitioner(partitioner, shape, dtype):
    if not shape.is_fully_defined():
        raise ValueError(
            f"Shape of a new partitioned variable must be fully defined, but instead was "
            f"{shape}."
        )
    if shape.ndims < 1:
        raise ValueError(f"A partitioned Variable must have rank at least 1, shape: {shape}")
    slicing = partitioner(shape=shape, dtype=dtype)
    if not isinstance(slicing, collections.abc.Sequence) or isinstance(slicing, str):
        raise ValueError(  # noqa: TRY004 - TF's error class
            f"Partitioner must return a sequence, but saw: {slicing}")
    slicing = [int(p) for p in slicing]
    if len(slicing) != shape.ndims:
        raise ValueError(
            "Partitioner returned a partition list that does not match the Variable's rank: "
            f"{slicing} vs. {shape}"
        )
    if any(p < 1 for p in slicing):
        raise ValueError(f"Partitioner returned zero partitions for some axes: {slicing}")
    if sum(p > 1 for p in slicing) > 1:
        raise ValueError(
            f"Can only slice a variable along one dimension: shape: {shape}, partitioning: "
            f"{slicing}"
        )
    return slicing


def _slice_dim_and_num_slices(slicing):
    for i, n in enumerate(slicing):
        if n != 1:
            return i, n
    return 0, 1


def _iter_slices(full_shape, num_slices, slice_dim):
    """(offset, shape) of each part; the first ``full % num_slices`` parts get one more row."""
    excess = full_shape[slice_dim] % num_slices
    offset = [0] * len(full_shape)
    min_len = full_shape[slice_dim] // num_slices
    for i in range(num_slices):
        shape = list(full_shape)
        shape[slice_dim] = min_len + (1 if i < excess else 0)
        yield list(offset), shape
        offset[slice_dim] += shape[slice_dim]


def get_partitioned_variable(store, name, partitioner, shape=None, dtype=dtypes.float32,
                             initializer=None, regularizer=None, reuse=None, trainable=True,
                             collections=None, caching_device=None, validate_shape=True,
                             constraint=None, use_resource=None):
    """Gets or creates the PartitionedVariable ``name`` in variable store ``store`` (its parts
    resource variables with ``use_resource``, as TF's)."""
    from tideflow.ops import slicing_ops

    initializing_from_value = initializer is not None and isinstance(initializer, ops.Tensor)
    if name in store._vars:
        raise ValueError(
            "A partitioner was provided, but an unpartitioned version of the variable was found: "
            f"{name}.  Perhaps a variable of the same name was already created without "
            "partitioning?"
        )
    shape = as_shape(shape)
    if initializing_from_value:
        shape = shape.merge_with(initializer.get_shape())
    dtype = dtypes.as_dtype(dtype)
    partitions = None
    if not reuse or partitioner:
        partitions = _call_partitioner(partitioner, shape, dtype)

    if name in store._partitioned_vars:
        if reuse is False:
            raise ValueError(
                f"Partitioned variable with name {name} already exists. Did you mean to set "
                "reuse=True or reuse=tf.AUTO_REUSE in VarScope?"
            )
        found = store._partitioned_vars[name]
        if not shape.is_compatible_with(found.get_shape()):
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified shape {shape} and "
                f"found shape {found.get_shape()}."
            )
        if not dtype.is_compatible_with(found.dtype):
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified dtype {dtype.name} "
                f"and found dtype {found.dtype.name}."
            )
        if partitions is not None and found._get_partitions() != partitions:
            raise ValueError(
                f"Trying to reuse partitioned variable {name}, but specified partitions "
                f"{partitions} and found partitions {found._get_partitions()}."
            )
        return found

    if reuse is True:
        raise ValueError(
            f"PartitionedVariable {name} does not exist, or was not created with "
            "tf.get_variable(). Did you mean to set reuse=False or reuse=tf.AUTO_REUSE in "
            "VarScope?"
        )
    slice_dim, num_slices = _slice_dim_and_num_slices(partitions)
    if f"{name}/part_0" in store._vars:
        if f"{name}/part_{num_slices - 1}" not in store._vars:
            raise ValueError(
                f"Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, "
                f"but {name}/part_{num_slices - 1} was not."
            )
        if f"{name}/part_{num_slices}" in store._vars:
            raise ValueError(
                f"Partitioner returned a different partitioning than what was already found.  "
                f"Partitioner returned {num_slices} shards, and shard {name}/part_0 was found, "
                f"but so was the extra shard {name}/part_{num_slices}."
            )

    parts = []
    full_shape = shape.as_list()
    for i, (var_offset, var_shape) in enumerate(_iter_slices(full_shape, num_slices,
                                                             slice_dim)):
        partition_info = _PartitionInfo(full_shape=full_shape, var_offset=var_offset)
        part_name = f"{name}/part_{i}"
        part_dtype = dtype
        with ops.name_scope(part_name + "/PartitionedInitializer"):
            if initializer is None or callable(initializer):
                init, init_shape = initializer, var_shape
            elif isinstance(initializer, ops.Tensor):
                init = slicing_ops.slice(initializer, var_offset, var_shape)
                part_dtype = init.dtype.base_dtype
                init_shape = None
            else:
                init = ops.convert_to_tensor(initializer, dtype=dtype)
                init = slicing_ops.slice(init, var_offset, var_shape)
                init_shape = None
        with ops.name_scope(None):
            var = store._get_single_variable(
                part_name, shape=init_shape, dtype=part_dtype, initializer=init,
                partition_info=partition_info, regularizer=regularizer, reuse=reuse,
                trainable=trainable, collections=collections, caching_device=caching_device,
                validate_shape=validate_shape, constraint=constraint, use_resource=use_resource)
        var._set_save_slice_info(
            variables.SaveSliceInfo(name, full_shape, var_offset, var_shape))
        parts.append(var)
    pv = PartitionedVariable(name=name, shape=shape, dtype=dtype, variable_list=parts,
                             partitions=partitions)
    store._partitioned_vars[name] = pv
    return pv
