"""Conditional accumulators: gradients averaged across workers, stale ones dropped.

``tf.ConditionalAccumulator`` and ``tf.SparseConditionalAccumulator`` (the basis of
SyncReplicasOptimizer) keep, in their device's resource manager, a running sum of the gradients
applied with ``local_step >= global_step``. ``take_grad(n)`` blocks until ``n`` such gradients
arrived, returns their mean (or sum), resets the sum and advances the global step. As in TF the
handles are ``Ref(string)`` tensors.
"""

import collections

import numpy as np

from tideflow.framework import dtypes as _dtypes
from tideflow.framework import errors, op_registry, ops
from tideflow.framework.indexed_slices import IndexedSlices
from tideflow.framework.tensor_shape import TensorShape, scalar, unknown_shape
from tideflow.ops.cast_ops import cast
from tideflow.ops.queue_ops import COMPLETE, NO_PROGRESS, Attempt, BlockingResource, resource_name

# ------------------------------------------------------------------------------------------
# resources
# ------------------------------------------------------------------------------------------


def _dims_str(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


class AccumulatorResource(BlockingResource):
    """State shared by the dense and sparse accumulators: counter, global step, take attempts."""

    kind = "ConditionalAccumulator"

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__()
        self.name = name
        self.dtype = dtype
        self.shape = None if shape.dims is None else tuple(shape.as_list())
        self.reduction_type = reduction_type
        self.counter = 0
        self.global_step = 0
        self._takes = collections.deque()

    def _pending(self):
        return ((self._takes, "TakeGrad"),)

    def num_accumulated(self):
        with self._cond:
            return self.counter

    def set_global_step(self, step_value):
        with self._cond:
            # TF logs a warning when the step goes back, and sets it anyway
            self.global_step = int(step_value)

    def apply_grad(self, local_step, grad):
        with self._cond:
            if int(local_step) < self.global_step:
                return  # a stale gradient is dropped
            self._validate(grad)
            self._accumulate(grad)
            self.counter += 1
            self._flush()

    def take_grad(self, num_required, step):
        if num_required < 1:
            raise errors.InvalidArgumentError(
                None, None, f"Argument num_required must be positive, but was {num_required}")

        def run(a):
            if self.counter < a.count:
                return NO_PROGRESS
            a.result = self._output()
            self.counter = 0
            self.global_step += 1
            self._reset()
            return COMPLETE

        return self._submit(self._takes, Attempt(int(num_required), run), step, "TakeGrad")

    def _divide(self, value, count):
        """``value / count`` in the accumulator's dtype (integers truncate, as in C++)."""
        if self.reduction_type != "MEAN":
            return value
        np_dtype = self.dtype.as_numpy_dtype
        if np.issubdtype(np.dtype(np_dtype), np.integer):
            return np.trunc(value / count).astype(np_dtype)
        return (value / np.asarray(count, dtype=np_dtype)).astype(np_dtype, copy=False)


class DenseAccumulatorResource(AccumulatorResource):
    """Sums dense gradients of the accumulator's shape."""

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__(name, dtype, shape, reduction_type)
        self._sum = None

    def _validate(self, grad):
        want = self._sum.shape if self.counter > 0 else self.shape
        if want is None:
            return
        ok = len(want) == grad.ndim and all(w is None or w == g for w, g in zip(want, grad.shape))
        if not ok:
            raise errors.InvalidArgumentError(
                None, None, f"Shape mismatch: expected {_dims_str(want)}, got "
                f"{_dims_str(grad.shape)}")

    def _accumulate(self, grad):
        if self.counter == 0 or self._sum is None:
            self._sum = np.array(grad, dtype=self.dtype.as_numpy_dtype, copy=True)
        else:
            self._sum += grad

    def _output(self):
        return self._divide(self._sum, self.counter)

    def _reset(self):
        self._sum = None


class SparseAccumulatorResource(AccumulatorResource):
    """Sums IndexedSlices gradients row by row; the mean of a row divides by how many
    gradients had that row (as TF's element-wise averaging)."""

    kind = "SparseConditionalAccumulator"

    def __init__(self, name, dtype, shape, reduction_type):
        super().__init__(name, dtype, shape, reduction_type)
        self._rows = {}  # index -> [sum of rows, count]
        self._row_shape = None

    def _validate(self, grad):
        indices, values, shape, has_shape = grad
        if indices.ndim != 1:
            raise errors.InvalidArgumentError(
                None, None, f"Input indices should be vector but received shape: "
                f"{_dims_str(indices.shape)}")
        if values.ndim == 0:
            raise errors.InvalidArgumentError(None, None, "Values cannot be 0-dimensional.")
        if values.shape[0] != indices.shape[0]:
            raise errors.InvalidArgumentError(
                None, None, f"Expected {indices.shape[0]} non-empty input values, got "
                f"{values.shape[0]}")
        want = self.shape
        if has_shape and want is not None:
            if len(want) > shape.size:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected shape rank at least {len(want)}, got "
                    f"{shape.size}")
            for i, w in enumerate(want):
                if w is not None and w != int(shape[i]):
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch: expected shape dim {i} to be {w}, got "
                        f"{int(shape[i])}")
        if want and want[0] is not None:
            for i, idx in enumerate(indices):
                if idx >= want[0]:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch: index of slice {i} exceeded limits of "
                        f"shape; index is {idx} exceeded {want[0]}")
        if self.counter > 0 and self._row_shape is not None:
            if len(self._row_shape) + 1 != values.ndim:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected values rank "
                    f"{len(self._row_shape) + 1}, got {values.ndim}")
            for i, (w, g) in enumerate(zip(self._row_shape, values.shape[1:]), start=1):
                if w != g:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch: expected values dim {i} to be {w}, got {g}")
        elif want is not None:
            if len(want) > values.ndim:
                raise errors.InvalidArgumentError(
                    None, None, f"Shape mismatch: expected values rank at least {len(want)}, got "
                    f"{values.ndim}")
            for i in range(1, len(want)):
                if want[i] is not None and want[i] != values.shape[i]:
                    raise errors.InvalidArgumentError(
                        None, None, f"Shape mismatch: expected values dim {i} to be {want[i]}, "
                        f"got {values.shape[i]}")

    def _accumulate(self, grad):
        indices, values, _, _ = grad
        np_dtype = self.dtype.as_numpy_dtype
        if self.counter == 0:
            self._rows = {}
            self._row_shape = values.shape[1:]
        seen = set()
        for idx, row in zip(indices.tolist(), values):
            entry = self._rows.get(idx)
            if entry is None:
                self._rows[idx] = [np.array(row, dtype=np_dtype, copy=True), 1]
            else:
                entry[0] += row
                if idx not in seen:
                    entry[1] += 1
            seen.add(idx)

    def _output(self):
        order = sorted(self._rows)
        np_dtype = self.dtype.as_numpy_dtype
        row_shape = self._row_shape if self._row_shape is not None else ()
        if order:
            values = np.stack([self._divide(self._rows[i][0], self._rows[i][1]) for i in order])
        else:
            values = np.zeros((0, *row_shape), dtype=np_dtype)
        first = self.shape[0] if self.shape and self.shape[0] is not None else -1
        shape = np.array([first, *values.shape[1:]], dtype=np.int64)
        return [np.array(order, dtype=np.int64), values.astype(np_dtype, copy=False), shape]

    def _reset(self):
        self._rows = {}


# ------------------------------------------------------------------------------------------
# op declarations
# ------------------------------------------------------------------------------------------


def _accumulator_factory(cls):
    def factory(ctx):
        op = ctx.op
        attrs = op._attrs
        container = attrs.get("container") or ""
        name = resource_name(ctx)

        def creator():
            return cls(name, attrs["dtype"], attrs["shape"], attrs["reduction_type"])

        def run():
            acc = ctx.resource_mgr.lookup_or_create(container, name, creator)
            if not isinstance(acc, cls) or acc.dtype != attrs["dtype"]:
                raise errors.InvalidArgumentError(
                    None, op, f"Shared accumulator '{name}' does not match Node '{op.name}'")
            return acc

        return run

    return factory


_ACC_ATTRS = ["dtype: numbertype", "shape: shape", "container: string = ''",
              "shared_name: string = ''", "reduction_type: {'MEAN', 'SUM'} = 'MEAN'"]

# TF 1.15's tf.ConditionalAccumulator makes the Resource* form (a resource handle, its static
# shape [2] as the string handle's); SparseConditionalAccumulator keeps the ref one
for _type, _cls, _handle in (
        ("ConditionalAccumulator", DenseAccumulatorResource, "Ref(string)"),
        ("ResourceConditionalAccumulator", DenseAccumulatorResource, "resource"),
        ("SparseConditionalAccumulator", SparseAccumulatorResource, "Ref(string)")):
    op_registry.declare(
        _type,
        outputs=[f"handle: {_handle}"],
        attrs=_ACC_ATTRS,
        shape=lambda op: [TensorShape([2])],
        kernel_factory=_accumulator_factory(_cls),
        differentiable=False,
        stateful=True,
    )


def _acc(handle, cls=AccumulatorResource):
    if not isinstance(handle, cls):
        raise errors.InvalidArgumentError(
            None, None, f"Expected a {cls.kind} handle, got {type(handle).__name__}")
    return handle


def _num_accumulated_kernel(handle):
    return np.int32(_acc(handle).num_accumulated())


def _set_global_step_kernel(handle, new_global_step):
    _acc(handle).set_global_step(new_global_step)


def _apply_gradient_kernel(handle, local_step, gradient):
    _acc(handle, DenseAccumulatorResource).apply_grad(local_step, np.asarray(gradient))


def _take_gradient_kernel(handle, num_required, *, step):
    return _acc(handle, DenseAccumulatorResource).take_grad(int(num_required), step)


def _sparse_apply_kernel(handle, local_step, indices, values, shape, *, has_known_shape):
    grad = (np.asarray(indices, dtype=np.int64), np.asarray(values),
            np.asarray(shape, dtype=np.int64), has_known_shape)
    _acc(handle, SparseAccumulatorResource).apply_grad(local_step, grad)


def _sparse_take_kernel(handle, num_required, *, step):
    return _acc(handle, SparseAccumulatorResource).take_grad(int(num_required), step)


for _prefix, _handle in (("", "Ref(string)"), ("Resource", "resource")):
    op_registry.declare(
        f"{_prefix}AccumulatorNumAccumulated",
        inputs=[f"handle: {_handle}"],
        outputs=["num_accumulated: int32"],
        shape=lambda op: [scalar()],
        kernel=_num_accumulated_kernel,
        differentiable=False,
        stateful=True,
    )
    op_registry.declare(
        f"{_prefix}AccumulatorSetGlobalStep",
        inputs=[f"handle: {_handle}", "new_global_step: int64"],
        kernel=_set_global_step_kernel,
        differentiable=False,
        stateful=True,
    )
    op_registry.declare(
        f"{_prefix}AccumulatorApplyGradient",
        inputs=[f"handle: {_handle}", "local_step: int64", "gradient: dtype"],
        attrs=["dtype: numbertype"],
        kernel=_apply_gradient_kernel,
        differentiable=False,
        stateful=True,
    )
    op_registry.declare(
        f"{_prefix}AccumulatorTakeGradient",
        inputs=[f"handle: {_handle}", "num_required: int32"],
        outputs=["average: dtype"],
        attrs=["dtype: numbertype"],
        kernel=_take_gradient_kernel,
        differentiable=False,
        stateful=True,
    )

op_registry.declare(
    "SparseAccumulatorApplyGradient",
    inputs=["handle: Ref(string)", "local_step: int64", "gradient_indices: int64",
            "gradient_values: dtype", "gradient_shape: int64"],
    attrs=["dtype: numbertype", "has_known_shape: bool"],
    kernel=_sparse_apply_kernel,
    differentiable=False,
    stateful=True,
)


def _sparse_take_shape(op):
    return [TensorShape([None]), unknown_shape(), TensorShape([None])]


op_registry.declare(
    "SparseAccumulatorTakeGradient",
    inputs=["handle: Ref(string)", "num_required: int32"],
    outputs=["indices: int64", "values: dtype", "shape: int64"],
    attrs=["dtype: numbertype"],
    shape=_sparse_take_shape,
    kernel=_sparse_take_kernel,
    differentiable=False,
    stateful=True,
)

# ------------------------------------------------------------------------------------------
# Python classes
# ------------------------------------------------------------------------------------------

_SparseTaken = collections.namedtuple("SparseAccumulatorTakeGradient",
                                      ["indices", "values", "shape"])


class ConditionalAccumulatorBase:
    """What the dense and sparse accumulators share: num_accumulated, set_global_step."""

    def __init__(self, dtype, shape, accumulator_ref):
        self._dtype = dtype
        self._shape = TensorShape(shape) if shape is not None else unknown_shape()
        self._accumulator_ref = accumulator_ref
        self._name = self._accumulator_ref.op.name.split("/")[-1]

    @property
    def accumulator_ref(self):
        return self._accumulator_ref

    @property
    def name(self):
        return self._accumulator_ref.op.name

    @property
    def dtype(self):
        return self._dtype

    @property
    def _prefix(self):
        # the ops of a resource handle (TF 1.15's dense accumulator) are the Resource* ones
        return "Resource" if self._accumulator_ref.dtype == _dtypes.resource else ""

    def num_accumulated(self, name=None):
        """An int32 tensor: how many gradients have been accumulated since the last take."""
        if name is None:
            name = f"{self._name}_NumAccumulated"
        return ops.apply_op(f"{self._prefix}AccumulatorNumAccumulated", [self._accumulator_ref],
                            name=name).outputs[0]

    def set_global_step(self, new_global_step, name=None):
        """Sets the accumulator's global step (gradients older than it are dropped)."""
        step = cast(ops.convert_to_tensor(new_global_step), _dtypes.int64)
        return ops.apply_op(f"{self._prefix}AccumulatorSetGlobalStep",
                            [self._accumulator_ref, step], name=name)


def _accumulator_op(op_type, dtype, shape, shared_name, name, reduction_type):
    return ops.apply_op(op_type, [], {
        "dtype": _dtypes.as_dtype(dtype), "shape": unknown_shape() if shape is None else shape,
        "shared_name": shared_name or "", "container": ops.get_default_graph()._container,
        "reduction_type": reduction_type}, name=name).outputs[0]


class ConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates dense gradients; ``take_grad`` averages ``num_required`` fresh ones."""

    def __init__(self, dtype, shape=None, shared_name=None, name="conditional_accumulator",
                 reduction_type="MEAN"):
        dtype = _dtypes.as_dtype(dtype)
        ref = _accumulator_op("ResourceConditionalAccumulator", dtype, shape, shared_name,
                              name, reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_grad(self, grad, local_step=0, name=None):
        """Adds ``grad`` unless ``local_step`` is older than the accumulator's global step."""
        grad = ops.convert_to_tensor(grad, self._dtype)
        grad.get_shape().assert_is_compatible_with(self._shape)
        local_step = cast(ops.convert_to_tensor(local_step), _dtypes.int64)
        return ops.apply_op(f"{self._prefix}AccumulatorApplyGradient",
                            [self._accumulator_ref, local_step, grad], name=name)

    def take_grad(self, num_required, name=None):
        """Blocks until ``num_required`` gradients arrived; returns their average."""
        out = ops.apply_op(f"{self._prefix}AccumulatorTakeGradient",
                           [self._accumulator_ref, num_required], {"dtype": self._dtype},
                           name=name).outputs[0]
        out.set_shape(self._shape)
        return out


class SparseConditionalAccumulator(ConditionalAccumulatorBase):
    """Accumulates IndexedSlices gradients; rows are averaged over the gradients that had them."""

    def __init__(self, dtype, shape=None, shared_name=None,
                 name="sparse_conditional_accumulator", reduction_type="MEAN"):
        dtype = _dtypes.as_dtype(dtype)
        ref = _accumulator_op("SparseConditionalAccumulator", dtype, shape, shared_name, name,
                              reduction_type)
        super().__init__(dtype, shape, ref)

    def apply_indexed_slices_grad(self, grad, local_step=0, name=None):
        """Applies an IndexedSlices gradient."""
        return self.apply_grad(grad.indices, grad.values, grad.dense_shape, local_step, name)

    def apply_grad(self, grad_indices, grad_values, grad_shape=None, local_step=0, name=None):
        """Applies the sparse gradient (indices, values, optional dense shape)."""
        local_step = cast(ops.convert_to_tensor(local_step), _dtypes.int64)
        indices = cast(ops.convert_to_tensor(grad_indices), _dtypes.int64)
        values = ops.convert_to_tensor(grad_values, self._dtype)
        shape = cast(ops.convert_to_tensor(
            np.zeros([0], np.int64) if grad_shape is None else grad_shape), _dtypes.int64)
        return ops.apply_op("SparseAccumulatorApplyGradient",
                            [self._accumulator_ref, local_step, indices, values, shape],
                            {"has_known_shape": grad_shape is not None}, name=name)

    def take_grad(self, num_required, name=None):
        """Blocks for ``num_required`` gradients; returns (indices, values, shape)."""
        op = ops.apply_op("SparseAccumulatorTakeGradient", [self._accumulator_ref, num_required],
                          {"dtype": self._dtype}, name=name)
        return _SparseTaken(*op.outputs)

    def take_indexed_slices_grad(self, num_required, name=None):
        """Like ``take_grad``, as an IndexedSlices."""
        taken = self.take_grad(num_required, name=name)
        return IndexedSlices(indices=taken.indices, values=taken.values,
                             dense_shape=taken.shape)
