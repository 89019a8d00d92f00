"""``tf.contrib.learn.utils`` (TF 1.0-1.4): the serving input functions contrib.learn's
``export_savedmodel`` takes (``input_fn_utils``)."""

import collections
import types

from tideflow.framework import dtypes


class InputFnOps(collections.namedtuple("InputFnOps",
                                        ["features", "labels", "default_inputs"])):
    """What a contrib.learn serving input function returns: the model's features, its labels
    (None when serving) and the inputs the default signature reads."""


def build_parsing_serving_input_fn(feature_spec, default_batch_size=None):
    """A serving input function parsing serialized ``tf.Example`` protos (fed to the string
    placeholder ``input_example_tensor``) with ``feature_spec``."""
    def input_fn():
        from tideflow.ops import constant_op, parsing_ops

        examples = constant_op.placeholder(dtypes.string, shape=[default_batch_size],
                                           name="input_example_tensor")
        features = parsing_ops.parse_example(examples, feature_spec)
        return InputFnOps(features, None, {"examples": examples})
    return input_fn


def build_default_serving_input_fn(features, default_batch_size=None):
    """A serving input function feeding a placeholder for each of ``features`` (tensors,
    their first dimension ``default_batch_size``), named as the feature's op."""
    def input_fn():
        from tideflow.ops import constant_op

        placeholders = {}
        for name, t in features.items():
            shape = t.get_shape().as_list()
            if shape:
                shape[0] = default_batch_size
            placeholders[name] = constant_op.placeholder(t.dtype, shape=shape, name=t.op.name)
        return InputFnOps(placeholders, None, placeholders)
    return input_fn


input_fn_utils = types.ModuleType(
    "tideflow.contrib.learn.utils.input_fn_utils",
    "``tf.contrib.learn.utils.input_fn_utils``.")
input_fn_utils.InputFnOps = InputFnOps
input_fn_utils.build_parsing_serving_input_fn = build_parsing_serving_input_fn
input_fn_utils.build_default_serving_input_fn = build_default_serving_input_fn

__all__ = ["InputFnOps", "build_default_serving_input_fn", "build_parsing_serving_input_fn",
           "input_fn_utils"]
