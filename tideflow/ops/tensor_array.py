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


# -- TF 1.15's op count ------------------------------------------------------------------------
# A TensorArray a program makes itself counts its ops as TF 1.15's v1 TensorArray (a handle and
# a flow): its ops then take TF's op ids, so later random ops get TF's op seeds (the arrays
# tideflow's own loops make, dynamic_rnn's or map_fn's, are counted by those loops). Per method,
# TF makes an op on the handle (+ the Enter of the handle in each loop frame it is first used
# in, a Switch in a cond branch) where tideflow makes its list op (+ an element shape Const for
# the array, a read, a gather or a concat; a Const more for concat's leading dims); an unstack
# is 9 ops in TF (the rows' count, a range, the scatter) and a stack 5 (size, range, gather).
# An op tideflow makes more is owed (kept on the outermost graph) and paid where TF makes more.


def _outermost(graph):
    return getattr(graph, "_root", None) or graph


def _settle(graph, first, tf_ops):
    """After ops made from id ``first`` where TF 1.15 makes ``tf_ops``: skips the ids of the ops
    TF makes more, less what earlier TensorArray ops owe, or owes the ops made more."""
    root = _outermost(graph)
    owed = getattr(root, "_tensor_array_ids_owed", 0) + (graph._next_id - first) - tf_ops
    root._tensor_array_ids_owed = max(owed, 0)
    if owed < 0:
        graph._skip_op_ids(-owed)


def pay_owed_ids(graph, most):
    """The op ids TensorArray ops owe (up to ``most``), now no longer owed: a loop whose frame
    ids are skipped takes them back (while_loop)."""
    root = _outermost(graph)
    owed = min(getattr(root, "_tensor_array_ids_owed", 0), most)
    if owed:
        root._tensor_array_ids_owed -= owed
    return owed


def _shape_array(shape):
    """A static element shape as list ops take it (-1 for an unknown dimension or rank)."""
    if shape.ndims is None:
        return np.int32(-1)
    return np.array([-1 if d is None else d for d in shape.as_list()], np.int32)


def _shape_key(shape):
    return None if shape.ndims is None else tuple(shape.as_list())


def _internal_caller():
    """Whether the TensorArray is made by tideflow's own code (not a program's)."""
    import sys

    return sys._getframe(2).f_globals.get("__name__", "").startswith("tideflow.")


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
        # one element shape for every array made from this one (writes, loop variables,
        # branch results), refined by any of them, as TF 1.x's shared list
        self._shape_box = [unknown_shape() if element_shape is None else as_shape(
            element_shape)]
        self._static_size = None  # a constant size (no dynamic_size): stack()'s first dimension
        # where it counts its ops as TF's: (the graph it was made in, its handle, the element
        # shape tensor its reads use per graph)
        self._counted = None
        if flow is not None:
            self._list = flow
            return
        graph = ops.get_default_graph()
        counted = size is not None and _v1_rules(graph) and (
            isinstance(self, ProgramTensorArray) or not _internal_caller())
        first = graph._next_id
        if size is not None and not self._dynamic_size:
            v = ops.constant_value(size) if isinstance(size, ops.Tensor) else size
            if v is not None:
                self._static_size = int(v)
        if size is None and not self._dynamic_size:
            raise ValueError("Size must be provided if handle is not provided")
        # TF 1.x's names: the array op is the scope ("TensorArray", "TensorArray_1", ...),
        # its size Const "<scope>/size"; tensor_array_name only names the array in messages
        with ops.name_scope(name, "TensorArray", [size]) as scope:
            if size is not None and not isinstance(size, ops.Tensor):
                size = ops.convert_to_tensor(size, dtype=dtypes.int32, name="size")
            if size is None:
                self._list = list_ops.empty_tensor_list(self._element_shape, self._dtype,
                                                        name=scope)
            else:
                shape = self._element_shape
                if counted:  # one element shape Const per graph and shape (TF has none)
                    shapes = _outermost(graph).__dict__.setdefault(
                        "_tensor_array_shape_consts", {})
                    key = (graph, _shape_key(shape))
                    shape = shapes.get(key, shape)
                    if not isinstance(shape, ops.Tensor):
                        with graph.aside_ids():  # (an id of its own: TF makes no such Const)
                            shape = ops.convert_to_tensor(_shape_array(shape),
                                                          name="element_shape")
                        shapes[key] = shape
                self._list = list_ops.reserve(shape, size, self._dtype, name=scope)
            op = self._list.op
            if _v1_rules(op.graph):
                op._set_attr("_tensor_array", [int(self._dynamic_size),
                                               int(self._clear_after_read),
                                               int(bool(infer_shape))])
                op._set_attr("_tensor_array_name", tensor_array_name or op.name)
        if counted:  # TF: the size's Const and the array
            self._counted = (graph, op, {graph: op.inputs[0]})
            _settle(graph, first, graph._next_id - first)

    def _with_list(self, lst, element_shape=None):
        ta = TensorArray.__new__(TensorArray)
        ta._dtype = self._dtype
        ta._dynamic_size = self._dynamic_size
        ta._clear_after_read = self._clear_after_read
        ta._infer_shape = self._infer_shape
        ta._static_size = self._static_size
        ta._shape_box = self._shape_box
        if element_shape is not None:
            self._shape_box[0] = element_shape
        ta._list = lst
        ta._counted = self._counted
        return ta

    def _begin(self):
        """(graph, first id) for ``_end`` where this array counts its ops as TF's."""
        if self._counted is None:
            return None
        graph = ops.get_default_graph()
        return graph, graph._next_id, len(getattr(graph, "captures", ()))

    def _end(self, began, more=0, tf_ops=None):
        """Settles the ops made since ``_begin`` against TF's: ``tf_ops``, or as many as were
        made and ``more``; + the Enters (Switches) of the handle in the loop frames (cond
        branches) it is first used in."""
        if began is None:
            return
        graph, first, captures = began
        if tf_ops is None:
            tf_ops = graph._next_id - first + more
        else:  # an outside tensor it uses: an Enter in TF, a captured placeholder here
            tf_ops += len(getattr(graph, "captures", ())) - captures
        home, handle, _ = self._counted
        g = graph
        root = _outermost(graph)
        entered = root.__dict__.setdefault("_tensor_array_handles_entered", set())
        while g is not home and getattr(g, "control_flow_body", False):
            key = (getattr(g, "_tf_frame", None) or g, handle)
            if key not in entered:
                entered.add(key)
                tf_ops += 1
            g = g.outer_graph
        _settle(graph, first, tf_ops)

    def _merge_shape(self, shape):
        # TF checks a value against the element shape, then (inferring) narrows it
        if not shape.is_compatible_with(self._element_shape):
            raise ValueError(
                f"Inconsistent shapes: saw {shape} but expected {self._element_shape} ")
        if not self._infer_shape:
            return self._element_shape
        return self._element_shape.merge_with(shape)

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
        return self._shape_box[0]

    @property
    def _element_shape(self):
        return self._shape_box[0]

    @property
    def dynamic_size(self):
        return self._dynamic_size

    # -- reading -------------------------------------------------------------------------------
    def read(self, index, name=None):
        """The item at ``index``."""
        began = self._begin()
        shape = self._shape_input(began, self._element_shape)
        out = self._own(list_ops.get_item(self._list, index, self._dtype, shape,
                                          name=name or "TensorArrayReadV3"))
        out.set_shape(self._element_shape)
        self._end(began)
        return out

    def _shape_input(self, began, shape):
        """The element shape input of a read, gather or concat of a counted array: TF 1.x's
        ops have none (they use it only for an empty array, then the list's known shape
        serves), so one Const per graph serves them all (the array's own in its graph), made
        with an id set aside."""
        if began is None:
            return shape
        graph = began[0]
        made = self._counted[2].get(graph)
        value = np.int32(shape) if isinstance(shape, int) else _shape_array(shape)
        if made is not None and not np.array_equal(ops.constant_value(made), value):
            made = None  # the element shape has been learned since (TF's attr is current)
        if made is None:
            with graph.aside_ids():
                made = self._counted[2][graph] = ops.convert_to_tensor(value,
                                                                       name="element_shape")
        return made

    @staticmethod
    def _aside_const(began, value, name):
        """A Const TF 1.x's op has no input for, with an id set aside in a counted array."""
        if began is None:
            return value
        with began[0].aside_ids():
            return ops.convert_to_tensor(value, name=name)

    def stack(self, name=None):
        """The items stacked along a new first dimension."""
        began = self._begin()
        with ops.name_scope(name, "TensorArrayStack", [self._list]):
            out = self._own(list_ops.stack(self._list, self._dtype, self._element_shape,
                                           name=name or "TensorArrayGatherV3"))
        self._end(began, tf_ops=5)  # TF: its size, a range and a gather
        # TF 1.x's: the rows' count is unknown ((?, ...) whatever the array's size)
        out.set_shape(TensorShape([None]).concatenate(self._element_shape))
        return out

    def gather(self, indices, name=None):
        began = self._begin()
        shape = self._shape_input(began, self._element_shape)
        out = self._own(list_ops.gather(self._list, indices, self._dtype, shape,
                                        name=name or "TensorArrayGatherV3"))
        if began is not None:
            # TF 1.x's static shape: the indices' shape and the element shape the array was
            # made with (its handle's), refined by the one it has learned since
            made = list_ops._shape_of_input(self._counted[1].inputs[0])
            out._shape = out.op.inputs[1].get_shape().concatenate(made).merge_with(
                TensorShape([None]).concatenate(self._element_shape))
        out.set_shape(TensorShape([None]).concatenate(self._element_shape))  # (TF 1.x's)
        self._end(began)
        return out

    def concat(self, name=None):
        shape = self._element_shape
        began = self._begin()
        shape = self._shape_input(began, shape if shape.ndims else -1)
        leading = self._aside_const(began, np.int64(0), "leading_dims")
        out = self._own(list_ops.concat(self._list, self._dtype, shape,
                                         name=name or "TensorArrayConcatV3",
                                         leading_dims=leading)[0])
        if self._element_shape.ndims is not None:  # (TF: "if element_shape", a scalar too)
            out.set_shape(TensorShape([None]).concatenate(self._element_shape[1:]))
        self._end(began)
        return out

    def size(self, name=None):
        began = self._begin()
        out = list_ops.length(self._list, name=name or "TensorArraySizeV3")
        self._end(began)
        return out

    # -- writing -------------------------------------------------------------------------------
    def _written(self, value):
        """A written value as TF 1.x converts it: to the array's dtype where it converts, else
        as it is, with TF's logged error (the write then fails when it runs, see
        list_ops.check_array_dtype)."""
        value = ops.convert_to_tensor(value, preferred_dtype=self._dtype, name="value")
        if value.dtype.base_dtype != self._dtype:
            import traceback

            from tideflow import logging as tf_logging

            tf_logging.error(
                f"Error: Input value {value} has dtype {value.dtype}, but expected dtype "
                f"{self._dtype}.  This leads to undefined behavior and will be an error in "
                "future versions of TensorFlow.  Traceback:\n"
                + "".join(traceback.format_stack()))
        return value

    def _mark_dtype(self, lst, value):
        if value.dtype.base_dtype != self._dtype:
            lst.op._set_attr("_tensor_array_dtype", self._dtype)

    def write(self, index, value, name=None):
        """A TensorArray with ``value`` at ``index``."""
        began = self._begin()
        with ops.name_scope(name, "TensorArrayWrite", [self._list, index, value]):
            value = self._written(value)
            shape = self._merge_shape(value.get_shape())
            lst = self._own(list_ops.set_item(self._list, index, value,
                                              resize_if_index_out_of_bounds=self._dynamic_size,
                                              name=name or "TensorArrayWriteV3"))
            self._mark_dtype(lst, value)
        self._end(began)
        return self._with_list(lst, shape)

    def unstack(self, value, name=None):
        """This array with the rows of ``value`` written at 0, 1, ... (TF 1.x's scatter)."""
        began = None
        with ops.name_scope(name, "TensorArrayUnstack", [self._list, value]):
            value = self._written(value)
            began = self._begin()
            shape = self._merge_shape(value.get_shape()[1:] if value.get_shape().ndims else
                                      unknown_shape())
            n = value.get_shape()[0].value if value.get_shape().ndims else None
            if n is not None:
                indices = np.arange(n, dtype=np.int32)
            else:
                from tideflow.ops import array_ops, range_ops

                indices = range_ops.range(array_ops.shape(value)[0])
            # TF 1.x unstacks through its scatter, in a scope of its own
            with ops.name_scope(name, "TensorArrayScatter"):
                lst = self._own(list_ops.scatter_into(self._list, value, indices,
                                                      name=name or "TensorArrayScatterV3"))
                self._mark_dtype(lst, value)
        self._end(began, tf_ops=9)  # TF: the rows' count, a range and the scatter
        return self._with_list(lst, shape)

    def scatter(self, indices, value, name=None):
        """A TensorArray with the rows of ``value`` at ``indices``."""
        began = self._begin()
        with ops.name_scope(name, "TensorArrayScatter", [self._list, indices, value]):
            value = self._written(value)
            shape = self._merge_shape(value.get_shape()[1:] if value.get_shape().ndims else
                                      unknown_shape())
            lst = self._own(list_ops.scatter_into(self._list, value, indices,
                                                  name=name or "TensorArrayScatterV3"))
            self._mark_dtype(lst, value)
        self._end(began)
        return self._with_list(lst, shape)

    def split(self, value, lengths, name=None):
        began = self._begin()
        with ops.name_scope(name, "TensorArraySplit", [self._list, value, lengths]):
            value = ops.convert_to_tensor(value, dtype=self._dtype, name="value")
            from tideflow.ops import cast_ops

            # as TF: equal constant lengths give the pieces' shape, which joins the array's
            element_shape = unknown_shape()
            known = (ops.constant_value(lengths) if isinstance(lengths, ops.Tensor)
                     else np.asarray(lengths))
            if value.get_shape().ndims and known is not None and np.size(known) and (
                    np.max(known) == np.min(known)):
                element_shape = TensorShape([int(np.ravel(known)[0])]).concatenate(
                    value.get_shape()[1:])
            merged = self._merge_shape(element_shape)
            lengths = cast_ops.cast(lengths, dtypes.int64)
            shape = TensorShape([None]).concatenate(value.get_shape()[1:]) if (
                value.get_shape().ndims) else unknown_shape()
            lst = self._own(list_ops.split(value, lengths, self._aside_const(
                began, _shape_array(shape), "element_shape"), name=name or "TensorArraySplitV3"))
            op = lst.op
            src = self._list.op._attrs.get("_tensor_array_name")
            op._set_attr("_tensor_array", [
                int(self._dynamic_size), int(self._clear_after_read), int(bool(self._infer_shape)),
                -1 if self._static_size is None else self._static_size])
            op._set_attr("_tensor_array_name", src if isinstance(src, str) else op.name)
        self._end(began)
        return self._with_list(lst, merged)

    def identity(self):
        """This array behind a fresh op, so control dependencies in force now order its
        later reads and writes (TF's ``identity`` of the flow)."""
        from tideflow.ops import array_ops

        return self._with_list(array_ops.identity(self._list))

    def grad(self, source, flow=None, name=None):
        """A TensorArray for the gradients of this one's elements (TF's ``TensorArrayGrad``):
        as many elements, the same dtype and element shape, none written yet. ``source``
        names the gradient in TF (one array per source); here each call makes a new one."""
        del source, flow
        with ops.name_scope(name, "TensorArrayGrad", [self._list]):
            size = (self._static_size if self._static_size is not None
                    else list_ops.length(self._list))
            return TensorArray(self._dtype, size=size, element_shape=self._element_shape,
                               infer_shape=self._infer_shape)

    def close(self, name=None):
        from tideflow.ops import control_flow_ops

        began = self._begin()
        out = control_flow_ops.no_op(name=name or "TensorArrayCloseV3")
        self._end(began)
        return out


class ProgramTensorArray(TensorArray):
    """A TensorArray tideflow's own code makes and hands to the program (raw_rnn's emit
    arrays): it counts its ops as TF 1.15's, as an array the program made itself does."""


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
