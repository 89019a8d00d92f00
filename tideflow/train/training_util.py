"""The global step: the int64 scalar variable "global_step" that counts training steps,
found through the GLOBAL_STEP collection (or by its name)."""

from tideflow import logging
from tideflow.framework import dtypes, ops
from tideflow.ops import init_ops, state_ops, variable_scope
from tideflow.ops import variables as variables_lib


def global_step(sess, global_step_tensor):
    """The value of ``global_step_tensor`` in ``sess``, as a Python int."""
    value = sess.run(global_step_tensor)
    # a one-element step of shape [1] converts too, as int() did before NumPy 2 removed it
    return int(value.item()) if getattr(value, "ndim", 0) and value.size == 1 else int(value)


def get_global_step(graph=None):
    """The global step of ``graph`` (default graph if None), or None when it has none."""
    graph = graph or ops.get_default_graph()
    tensors = graph.get_collection(ops.GraphKeys.GLOBAL_STEP)
    if len(tensors) == 1:
        tensor = tensors[0]
    elif not tensors:
        try:
            tensor = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(tensor)
    return tensor


def create_global_step(graph=None):
    """Creates the global step of ``graph``; ValueError if it already has one."""
    graph = graph or ops.get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    from tideflow.ops.tf1_misc_ops import VariableAggregation

    with graph.as_default() as g, g.name_scope(None):
        # TF 1.15 makes it with aggregation=ONLY_FIRST_REPLICA: under a strategy, each
        # replica's ``global_step += 1`` (a Keras model_to_estimator train op) counts once
        step = variable_scope.get_variable(
            ops.GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[ops.GraphKeys.GLOBAL_VARIABLES, ops.GraphKeys.GLOBAL_STEP],
            aggregation=VariableAggregation.ONLY_FIRST_REPLICA,
        )
    return step


def get_or_create_global_step(graph=None):
    """The global step of ``graph``, created first when missing."""
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def assert_global_step(global_step_tensor):
    """Raises TypeError unless ``global_step_tensor`` is an integer scalar Variable or Tensor."""
    if not isinstance(global_step_tensor, (variables_lib.Variable, ops.Tensor)):
        raise TypeError(
            f'Existing "global_step" must be a Variable or Tensor: {global_step_tensor}.')
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError(
            f'Existing "global_step" does not have integer type: {global_step_tensor.dtype}')
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError(f'Existing "global_step" is not scalar: {shape}')


# collection holding the one tensor that reads the global step for hooks (TF's key)
GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_global_step_read(graph=None):
    graph = graph or ops.get_default_graph()
    found = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(found) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. "
                           "There should be only one.")
    return found[0] if found else None


def _get_or_create_global_step_read(graph=None):
    """A tensor reading the global step, made once per graph (None without a global step)."""
    graph = graph or ops.get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default() as g, g.name_scope(None), g.name_scope(step.op.name + "/"):
        # a fresh value (not a view of the variable's buffer) taken when the step runs; as
        # TF 1.15, of the step's initialized_value() (its initial value until initialized)
        value = step.initialized_value() if hasattr(step, "initialized_value") else step
        read = value + 0
    graph.add_to_collection(GLOBAL_STEP_READ_KEY, read)
    return read


def _increment_global_step(increment, graph=None):
    """``global_step += increment`` after the hooks' read of the step (TF's helper that
    Estimator-style train ops and hook tests use)."""
    graph = graph or ops.get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by "
                         "tf.train.get_or_create_global_step before calling increment.")
    read = _get_or_create_global_step_read(graph)
    with graph.as_default() as g, g.name_scope(None), g.name_scope(step.op.name + "/"), \
            ops.control_dependencies([read]):
        return state_ops.assign_add(step, increment)
