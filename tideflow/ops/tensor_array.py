"""``tf.TensorArray``: a list of tensors written and read by index, for loops.

It is a value (a ``variant`` TensorList, list_ops.py): ``write``/``scatter``/``unstack``
return a new TensorArray whose ``flow`` carries the new list, as TF's control flow v2 does, so
it travels through ``tf.while_loop`` as a loop variable and has gradients.

At run time it keeps TF 1.x's TensorArray rules (list_ops.TensorArrayState; not in a tf.data
function, see ``_v1_rules``): an index is written once, a read clears it when
``clear_after_read`` (the default), writes beyond the size of a non-``dynamic_size`` array
fail, every write must match the inferred element shape, and stack/gather/concat need
consistent shapes. Its ops carry a ``_tensor_array_op`` attr naming
themselves, so the plan's common-subexpression pass never merges two reads (each one counts).
"""

import numpy as np

from tideflow.framework import dtypes, ops
from tideflow.framework.tensor_shape import TensorShape, as_shape, unknown_shape
from tideflow.ops import list_ops


def _v1_rules(graph):
    """Whether an array made in ``graph`` keeps TF 1.x's run-time TensorArray rules: TF 1.15
    builds a plain TensorList-backed array (control flow v2: an index may be written again, a
    read never clears it) in a function graph of its own, such as a tf.data function's, and
    the v1 array everywhere else, including in while-loop and cond bodies."""
    return not graph.building_function or getattr(graph, "control_flow_body", True)


class TensorArray:
    """``tf.TensorArray(dtype, size=None, dynamic_size=None, clear_after_read=None, ...)``."""

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        del colocate_with_first_write_call, handle
        self._dtype = dtypes.as_dtype(dtype).base_dtype
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        self._element_shape = unknown_shape() if element_shape is None else as_shape(
            element_shape)
        self._static_size = None  # a constant size (no dynamic_size): stack()'s first dimension
        if flow is not None:
            self._list = flow
            return
        if size is not None and not self._dynamic_size:
            v = ops.constant_value(size) if isinstance(size, ops.Tensor) else size
            if v is not None:
                self._static_size = int(v)
        if size is None and not self._dynamic_size:
            raise ValueError("Size must be provided if handle is not provided")
        with ops.name_scope(name, "TensorArrayV2", [size]) as scope:
            scope = tensor_array_name or scope
            if size is None:
                self._list = list_ops.empty_tensor_list(self._element_shape, self._dtype,
                                                        name=scope)
            else:
                self._list = list_ops.reserve(self._element_shape, size, self._dtype,
                                              name=scope)
            op = self._list.op
            if _v1_rules(op.graph):
                op._set_attr("_tensor_array", [int(self._dynamic_size),
                                               int(self._clear_after_read),
                                               int(bool(infer_shape))])
                op._set_attr("_tensor_array_name", op.name)

    def _with_list(self, lst, element_shape=None):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._clear_after_read = self._clear_after_read
        ta._infer_shape = self._infer_shape
        ta._static_size = self._static_size
        ta._element_shape = self._element_shape if element_shape is None else element_shape
        ta._list = lst
        return ta

    def _merge_shape(self, shape):
        if not self._infer_shape:
            # TF checks a value against the declared element shape even without inference
            if not shape.is_compatible_with(self._element_shape):
                raise ValueError(
                    f"Inconsistent shapes: saw {shape} but expected {self._element_shape}")
            return self._element_shape
        try:
            return self._element_shape.merge_with(shape)
        except ValueError:
            raise ValueError(
                f"Inconsistent shapes: saw {shape} but expected {self._element_shape} "
                "(and infer_shape=True)"
            ) from None

    @staticmethod
    def _own(t):
        """Marks the op making ``t`` as this array's (no CSE merges it with a twin)."""
        op = t.op
        op._set_attr("_tensor_array_op", op.name)
        return t

    # -- properties ----------------------------------------------------------------------------
    @property
    def flow(self):
        return self._list

    @property
    def handle(self):
        return self._list

    @property
    def dtype(self):
        return self._dtype

    @property
    def element_shape(self):
        return self._element_shape

    @property
    def dynamic_size(self):
        return self._dynamic_size

    # -- reading -------------------------------------------------------------------------------
    def read(self, index, name=None):
        """The item at ``index``."""
        out = self._own(list_ops.get_item(self._list, index, self._dtype, self._element_shape,
                                          name=name))
        out.set_shape(self._element_shape)
        return out

    def stack(self, name=None):
        """The items stacked along a new first dimension."""
        with ops.name_scope(name, "TensorArrayStack", [self._list]):
            out = self._own(list_ops.stack(self._list, self._dtype, self._element_shape))
        if self._static_size is not None:
            out.set_shape(TensorShape([self._static_size]).concatenate(self._element_shape))
        return out

    def gather(self, indices, name=None):
        return self._own(list_ops.gather(self._list, indices, self._dtype, self._element_shape,
                                         name=name))

    def concat(self, name=None):
        shape = self._element_shape
        return self._own(list_ops.concat(self._list, self._dtype,
                                         shape if shape.ndims else -1, name=name)[0])

    def size(self, name=None):
        return list_ops.length(self._list, name=name)

    # -- writing -------------------------------------------------------------------------------
    def write(self, index, value, name=None):
        """A TensorArray with ``value`` at ``index``."""
        with ops.name_scope(name, "TensorArrayWrite", [self._list, index, value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            shape = self._merge_shape(value.get_shape())
            lst = self._own(list_ops.set_item(self._list, index, value,
                                              resize_if_index_out_of_bounds=self._dynamic_size))
        return self._with_list(lst, shape)

    def unstack(self, value, name=None):
        """This array with the rows of ``value`` written at 0, 1, ... (TF 1.x's scatter)."""
        with ops.name_scope(name, "TensorArrayUnstack", [self._list, value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            shape = self._merge_shape(value.get_shape()[1:] if value.get_shape().ndims else
                                      unknown_shape())
            n = value.get_shape()[0].value if value.get_shape().ndims else None
            if n is not None:
                indices = np.arange(n, dtype=np.int32)
            else:
                from tideflow.ops import array_ops, range_ops

                indices = range_ops.range(array_ops.shape(value)[0])
            lst = self._own(list_ops.scatter_into(self._list, value, indices))
        return self._with_list(lst, shape)

    def scatter(self, indices, value, name=None):
        """A TensorArray with the rows of ``value`` at ``indices``."""
        with ops.name_scope(name, "TensorArrayScatter", [self._list, indices, value]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            shape = self._merge_shape(value.get_shape()[1:] if value.get_shape().ndims else
                                      unknown_shape())
            lst = self._own(list_ops.scatter_into(self._list, value, indices))
        return self._with_list(lst, shape)

    def split(self, value, lengths, name=None):
        with ops.name_scope(name, "TensorArraySplit", [self._list, value, lengths]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            from tideflow.ops import cast_ops

            lengths = ops.convert_to_tensor(lengths)
            # as TF: equal constant lengths give the pieces' shape, which joins the array's
            element_shape = unknown_shape()
            known = ops.constant_value(lengths)
            if value.get_shape().ndims and known is not None and np.size(known) and (
                    np.max(known) == np.min(known)):
                element_shape = TensorShape([int(np.ravel(known)[0])]).concatenate(
                    value.get_shape()[1:])
            merged = self._merge_shape(element_shape)
            lengths = cast_ops.cast(lengths, dtypes.int64)
            shape = TensorShape([None]).concatenate(value.get_shape()[1:]) if (
                value.get_shape().ndims) else unknown_shape()
            lst = list_ops.split(value, lengths, shape)
            op = lst.op
            src = self._list.op._attrs.get("_tensor_array_name")
            op._set_attr("_tensor_array", [
                int(self._dynamic_size), int(self._clear_after_read), int(bool(self._infer_shape)),
                -1 if self._static_size is None else self._static_size])
            op._set_attr("_tensor_array_name", src if isinstance(src, str) else op.name)
        return self._with_list(lst, merged)

    def identity(self):
        """This array behind a fresh op, so control dependencies in force now order its
        later reads and writes (TF's ``identity`` of the flow)."""
        from tideflow.ops import array_ops

        return self._with_list(array_ops.identity(self._list))

    def close(self, name=None):
        from tideflow.ops import control_flow_ops

        return control_flow_ops.no_op(name=name)

    def __repr__(self):
        return f"<tf.TensorArray dtype={self._dtype.name} list={self._list.name}>"


class TensorArraySpec:
    """The type of a TensorArray: element shape, dtype, whether its size is dynamic and
    whether it infers its element shape (what a tf.data element of it records)."""

    def __init__(self, element_shape=None, dtype=dtypes.float32, dynamic_size=False,
                 infer_shape=True):
        self._element_shape = as_shape(element_shape) if element_shape is not None else (
            unknown_shape())
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._infer_shape = bool(infer_shape)

    element_shape = property(lambda self: self._element_shape)
    shape = element_shape
    dtype = property(lambda self: self._dtype)
    dynamic_size = property(lambda self: self._dynamic_size)
    infer_shape = property(lambda self: self._infer_shape)
    value_type = property(lambda self: TensorArray)

    @classmethod
    def from_value(cls, value):
        return cls(value.element_shape, value.dtype, value.dynamic_size, value._infer_shape)

    def is_compatible_with(self, other):
        if isinstance(other, TensorArray):
            other = TensorArraySpec.from_value(other)
        return (type(other) is type(self) and self._dtype == other._dtype
                and self._dynamic_size == other._dynamic_size
                and self._infer_shape == other._infer_shape
                and self._element_shape.is_compatible_with(other._element_shape))

    def _key(self):
        shape = self._element_shape
        return (None if shape.ndims is None else tuple(shape.as_list()), self._dtype,
                self._dynamic_size, self._infer_shape)

    def __eq__(self, other):
        return type(other) is type(self) and self._key() == other._key()

    def __hash__(self):
        return hash(self._key())

    def __repr__(self):
        return (f"TensorArraySpec({self._element_shape!r}, {self._dtype!r}, "
                f"{self._dynamic_size}, {self._infer_shape})")
