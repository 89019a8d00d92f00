"""``tf.contrib.learn.estimators``: the estimator modules by their TF 1.x paths
(``estimators.estimator``, ``estimators.model_fn``, ``estimators.run_config``,
``estimators.prediction_key``, ``estimators.metric_key``-free) and ``estimators.tensor_signature``,
whose ``TensorSignature`` old contrib.learn programs build by hand."""

import collections
import sys
import types

from tideflow.framework import dtypes
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.framework.tensor_shape import TensorShape


class TensorSignature(collections.namedtuple("TensorSignature", ["dtype", "shape", "is_sparse"])):
    """The dtype and shape of a ``Tensor`` (dtype only for a ``SparseTensor``)."""

    def __new__(cls, tensor):
        if isinstance(tensor, SparseTensor):
            return super().__new__(cls, dtype=tensor.values.dtype, shape=None, is_sparse=True)
        return super().__new__(cls, dtype=tensor.dtype, shape=tensor.get_shape(),
                               is_sparse=False)

    def is_compatible_with(self, other):
        if self.dtype != other.dtype or self.is_sparse != other.is_sparse:
            return False
        return self.is_sparse or TensorShape(self.shape).is_compatible_with(other.shape)

    def get_placeholder(self):
        from tideflow.ops.constant_op import placeholder
        from tideflow.ops.sparse_rows_ops import sparse_placeholder

        if self.is_sparse:
            return sparse_placeholder(dtype=self.dtype)
        shape = TensorShape(self.shape)
        dims = None if shape.ndims is None else [None] + shape.as_list()[1:]
        return placeholder(dtype=self.dtype, shape=dims)

    def get_feature_spec(self):
        from tideflow.ops import parsing_ops

        dtype = dtypes.as_dtype(self.dtype)
        if self.is_sparse:
            return parsing_ops.VarLenFeature(dtype=dtype)
        return parsing_ops.FixedLenFeature(shape=TensorShape(self.shape).as_list()[1:],
                                           dtype=dtype)


def create_signatures(tensors):
    """A ``TensorSignature`` for a tensor, or a dict of them for a dict of tensors."""
    if isinstance(tensors, dict):
        return {key: TensorSignature(t) for key, t in tensors.items()}
    return None if tensors is None else TensorSignature(tensors)


def tensors_compatible(tensors, signatures):
    """Whether ``tensors`` (a tensor or a dict) match ``signatures`` (of the same kind)."""
    if tensors is None:
        return signatures is None
    if not isinstance(tensors, dict):
        return (not isinstance(signatures, dict)
                and signatures.is_compatible_with(TensorSignature(tensors)))
    if not isinstance(signatures, dict):
        return False
    return all(key in signatures and signatures[key].is_compatible_with(TensorSignature(t))
               for key, t in tensors.items())


def create_placeholders_from_signatures(signatures):
    """Placeholders (batch dimension left open) for ``signatures``."""
    if signatures is None:
        return None
    if not isinstance(signatures, dict):
        return signatures.get_placeholder()
    return {key: sig.get_placeholder() for key, sig in signatures.items()}


def create_example_parser_from_signatures(signatures, examples_batch,
                                          single_feature_name="feature"):
    """Parses ``examples_batch`` (serialized ``Example`` s) with the signatures' feature specs."""
    from tideflow.ops import parsing_ops

    spec = ({key: sig.get_feature_spec() for key, sig in signatures.items()}
            if isinstance(signatures, dict) else
            {single_feature_name: signatures.get_feature_spec()})
    parsed = parsing_ops.parse_example(examples_batch, spec)
    return parsed if isinstance(signatures, dict) else parsed[single_feature_name]


def build(learn):
    """The ``estimators`` namespace over the classes of ``tideflow.contrib_learn``."""
    pkg = learn.__name__ + ".estimators"
    estimators = types.ModuleType(pkg, __doc__)
    tensor_signature = sys.modules[__name__]
    contents = {
        "tensor_signature": tensor_signature,
        "estimator": {"Estimator": learn.Estimator, "SKCompat": learn.SKCompat},
        "model_fn": {"ModelFnOps": learn.ModelFnOps, "ModeKeys": learn.ModeKeys},
        "run_config": {"RunConfig": learn.RunConfig},
        "prediction_key": {"PredictionKey": learn.PredictionKey},
        "constants": {"ProblemType": learn.ProblemType},
    }
    for name, members in contents.items():
        if isinstance(members, dict):
            module = types.ModuleType(f"{pkg}.{name}", f"``tf.contrib.learn.estimators.{name}``.")
            for key, value in members.items():
                setattr(module, key, value)
        else:
            module = members
        setattr(estimators, name, module)
        sys.modules.setdefault(f"{pkg}.{name}", module)
    for key in ("Estimator", "SKCompat", "ModelFnOps", "RunConfig"):
        setattr(estimators, key, getattr(learn, key))
    sys.modules.setdefault(pkg, estimators)
    return estimators


__all__ = ["TensorSignature", "create_example_parser_from_signatures",
           "create_placeholders_from_signatures", "create_signatures", "tensors_compatible"]
