"""Op-table rows for resource variables' ops. Each ResourceApply*/ResourceSparseApply* op runs
the settings of its ref-variable op's row (table_training.py, which checks that op against a
NumPy re-implementation) on resource variables, beside the ref op on ref variables: the same
values after several steps, bitwise, in float32 and float64. The handle, read, assign, gather,
scatter and count ops are checked against NumPy."""

import numpy as np
import pytest

import tideflow as tf
from tests.ops import table_training as tt
from tests.ops.optable import Case
from tideflow.framework import op_registry
from tideflow.ops import state_ops, training_ops


def _check_resource_apply(op_type, scalars, attrs, slot_low=0.1):
    rtype = "Resource" + op_type
    wrapper = getattr(training_ops, training_ops._snake(op_type))
    raw = getattr(tf.raw_ops, rtype)
    od = op_registry.get(op_type)
    names = [a.name for a in od.inputs if a.is_ref]
    grad_name = next(a.name for a in od.inputs if a.name in ("grad", "delta"))
    sparse = op_type.startswith("Sparse")
    for dtype in (tf.float32, tf.float64):
        rng = np.random.RandomState(1)
        np_dt = dtype.as_numpy_dtype
        values = {n: tt._initial(n, rng, slot_low).astype(np_dt) for n in names}
        with tf.Graph().as_default():
            refs = {n: state_ops.variable_op_v2(tt._SHAPE, dtype, name=n) for n in names}
            res = {n: tf.get_variable("r_" + n, initializer=values[n], use_resource=True)
                   for n in names}
            inits = [tf.assign(refs[n], values[n]) for n in names]
            inits += [v.initializer for v in res.values()]
            grad = tf.placeholder(dtype, [None, tt._SHAPE[1]] if sparse else tt._SHAPE)
            indices = tf.placeholder(tf.int64, [None])
            common = {k: tf.constant(v, tt._scalar_dtype(k, dtype)) for k, v in scalars.items()}
            common[grad_name] = grad
            if sparse:
                common["indices"] = indices
            ref_update = wrapper(**{n: refs[n] for n in names}, **common, **attrs)
            update = raw(**{n: res[n].handle for n in names}, **common, **attrs)
            assert update.type == rtype and not update.outputs
            with tf.Session() as s:
                with pytest.raises(tf.errors.FailedPreconditionError):
                    s.run(update, {grad: np.zeros(tt._SHAPE, np_dt), indices: [0]})
                s.run(inits)
                steps = ([0, 2, 4], [3, 1, 3, 3], [], [4]) if sparse else (None,) * 3
                for idx in steps:
                    rows = len(idx) if sparse else tt._SHAPE[0]
                    feed = {grad: rng.uniform(-1, 1, (rows, tt._SHAPE[1])).astype(np_dt)}
                    if sparse:
                        feed[indices] = np.array(idx, np.int64)
                    s.run(ref_update, feed)
                    s.run(update, feed)
                    for n in names:
                        want, got = s.run([refs[n], res[n].read_value()])
                        np.testing.assert_array_equal(got, want, err_msg=f"{rtype} {n}")


def _resource_rows():
    rows = []
    for name, (op_type, scalars, attrs, kw) in tt.SETTINGS.items():
        if op_registry.lookup("Resource" + op_type) is None:
            continue
        rows.append(Case("Resource" + op_type, grad=False, name="Resource" + name,
                         check=lambda o=op_type, s=scalars, a=attrs, k=kw:
                         _check_resource_apply(o, s, a, **k)))
    return rows


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def _check_variable_ops():
    x = np.arange(12.0).reshape(4, 3)
    with tf.Graph().as_default():
        h = tf.raw_ops.VarHandleOp(container="", shared_name="v", dtype=tf.float64,
                                   shape=[4, 3])
        assert h.dtype == tf.resource and h.op.type == "VarHandleOp"
        init = tf.raw_ops.VarIsInitializedOp(resource=h)
        read = tf.raw_ops.ReadVariableOp(resource=h, dtype=tf.float64)
        with tf.Session() as s:
            assert not s.run(init)
            with pytest.raises(tf.errors.FailedPreconditionError):
                s.run(read)
            s.run(tf.raw_ops.AssignVariableOp(resource=h, value=x))
            assert s.run(init)
            np.testing.assert_array_equal(s.run(read), x)
            assert s.run(tf.raw_ops.VariableShape(input=h)).tolist() == [4, 3]
            s.run(tf.raw_ops.AssignAddVariableOp(resource=h, value=np.ones((4, 3))))
            s.run(tf.raw_ops.AssignSubVariableOp(resource=h, value=np.full((4, 3), 3.0)))
            np.testing.assert_array_equal(s.run(read), x - 2)
            ix = np.array([3, 0, 3])
            np.testing.assert_array_equal(
                s.run(tf.raw_ops.ResourceGather(resource=h, indices=ix, dtype=tf.float64)),
                (x - 2)[ix])
            nd = np.array([[1, 2], [3, 0]])
            np.testing.assert_array_equal(
                s.run(tf.raw_ops.ResourceGatherNd(resource=h, indices=nd, dtype=tf.float64)),
                (x - 2)[nd[:, 0], nd[:, 1]])
            s.run(tf.raw_ops.DestroyResourceOp(resource=h))
            with pytest.raises(tf.errors.FailedPreconditionError):
                s.run(read)


_SCATTERS = {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "Div": np.divide,
             "Min": np.minimum, "Max": np.maximum, "Update": None}


def _check_scatters():
    x = np.arange(1.0, 13.0).reshape(4, 3)
    ix = np.array([2, 0, 2])
    up = np.arange(2.0, 11.0).reshape(3, 3)
    for kind, ufunc in _SCATTERS.items():
        with tf.Graph().as_default():
            v = tf.get_variable("v", initializer=x, use_resource=True)
            op = getattr(tf.raw_ops, "ResourceScatter" + kind)(resource=v.handle, indices=ix,
                                                                updates=up)
            assert op.type == "ResourceScatter" + kind
            with tf.Session() as s:
                s.run(v.initializer)
                s.run(op)
                want = x.copy()
                for k, i in enumerate(ix):  # (repeated rows updated twice, in order)
                    want[i] = up[k] if ufunc is None else ufunc(want[i], up[k])
                np.testing.assert_array_equal(s.run(v.read_value()), want, err_msg=kind)
    nd_ix = np.array([[1, 2], [3, 0], [1, 2]])
    nd_up = np.array([5.0, 7.0, 11.0])
    for kind, ufunc in (("Add", np.add), ("Sub", np.subtract), ("Update", None)):
        with tf.Graph().as_default():
            v = tf.get_variable("v", initializer=x, use_resource=True)
            op = getattr(tf.raw_ops, "ResourceScatterNd" + kind)(ref=v.handle, indices=nd_ix,
                                                                  updates=nd_up)
            with tf.Session() as s:
                s.run(v.initializer)
                s.run(op)
                want = x.copy()
                for (i, j), u in zip(nd_ix, nd_up):
                    want[i, j] = u if ufunc is None else ufunc(want[i, j], u)
                np.testing.assert_array_equal(s.run(v.read_value()), want, err_msg=kind)


def _check_strided_slice_assign_and_count():
    x = np.arange(12.0).reshape(4, 3)
    with tf.Graph().as_default():
        v = tf.get_variable("v", initializer=x, use_resource=True)
        op = tf.raw_ops.ResourceStridedSliceAssign(
            ref=v.handle, begin=[0, 1], end=[4, 3], strides=[2, 1],
            value=np.full((2, 2), -1.0))
        c = tf.get_variable("c", initializer=np.int64(2), use_resource=True)
        count = tf.raw_ops.ResourceCountUpTo(resource=c.handle, limit=3, T=tf.int64)
        with tf.Session() as s:
            s.run([v.initializer, c.initializer])
            s.run(op)
            want = x.copy()
            want[0:4:2, 1:3] = -1.0
            np.testing.assert_array_equal(s.run(v.read_value()), want)
            assert s.run(count) == 2 and s.run(c.read_value()) == 3
            with pytest.raises(tf.errors.OutOfRangeError):
                s.run(count)


CASES = _resource_rows() + [
    Case(("VarHandleOp", "VarIsInitializedOp", "ReadVariableOp", "AssignVariableOp",
          "AssignAddVariableOp", "AssignSubVariableOp", "VariableShape", "ResourceGather",
          "ResourceGatherNd", "DestroyResourceOp"),
         check=_check_variable_ops, grad=False, name="resource_variable_ops"),
    Case(tuple("ResourceScatter" + k for k in _SCATTERS)
         + ("ResourceScatterNdAdd", "ResourceScatterNdSub", "ResourceScatterNdUpdate"),
         check=_check_scatters, grad=False, name="resource_scatters"),
    Case(("ResourceStridedSliceAssign", "ResourceCountUpTo"),
         check=_check_strided_slice_assign_and_count, grad=False,
         name="resource_strided_slice_assign_and_count"),
]
