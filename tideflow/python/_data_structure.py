"""``tensorflow.python.data.util.structure``: the type specs of element structures (the spec
of a value, compatibility of two structures, the flat tensor types and shapes a structure
travels as), as tf.data's tests and internals use them."""

from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tideflow.framework.tensor_shape import TensorShape, unknown_shape
from tideflow.ops import dataset_nest as nest
from tideflow.ops.dataset_more import are_compatible  # noqa: F401


def type_spec_from_value(element):
    """The nest of type specs of ``element`` (tensors, sparse or ragged tensors, Optionals,
    datasets; anything else is converted to a tensor first)."""
    from tideflow.ops.dataset_more import DatasetSpec, Optional, OptionalSpec
    from tideflow.ops.dataset_ops import Dataset
    from tideflow.ops.function_ops import SparseTensorSpec, TensorSpec
    from tideflow.ops.ragged_tensor import RaggedTensor, RaggedTensorValue
    from tideflow.ops.ragged_value import RaggedTensorSpec

    def one(x):
        if isinstance(x, SparseTensorValue):
            x = SparseTensor.from_value(x)
        if isinstance(x, SparseTensor):
            return SparseTensorSpec(x.get_shape(), x.dtype)
        if isinstance(x, (RaggedTensor, RaggedTensorValue)):
            return RaggedTensorSpec.from_value(x) if isinstance(x, RaggedTensorValue) else (
                x._type_spec)
        if isinstance(x, Optional):
            return OptionalSpec(x.element_spec)
        if isinstance(x, Dataset):
            return DatasetSpec.from_value(x)
        t = ops.convert_to_tensor(x)
        return TensorSpec(t.get_shape(), t.dtype)

    return nest.map_structure(one, element)


def _flat_spec(spec):
    from tideflow.ops.function_ops import TensorSpec

    if isinstance(spec, TensorSpec):
        return spec.dtype, spec.shape
    if type(spec).__name__ in ("OptionalSpec", "DatasetSpec"):
        return dtypes.variant, TensorShape([])
    # sparse and ragged values travel as variant tensors of unknown shape
    return dtypes.variant, unknown_shape()


def get_flat_tensor_types(element_spec):
    """The dtypes of the flat tensors a structure travels as."""
    return [_flat_spec(s)[0] for s in nest.flatten(element_spec)]


def get_flat_tensor_shapes(element_spec):
    """The static shapes of the flat tensors a structure travels as."""
    return [_flat_spec(s)[1] for s in nest.flatten(element_spec)]
