"""``tensorflow.python.ops.ragged.ragged_string_ops``: the string ops whose results are ragged
(splitting into tokens, bytes or characters, unicode decoding, n-grams)."""

from tideflow.framework import dtypes, ops
from tideflow.ops.string_more_ops import (  # noqa: F401
    ngrams,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_split,
    unicode_split_with_offsets,
)
from tideflow.ops.string_more_ops import split as strings_split_v1
from tideflow.ops.string_ops import reduce_join  # noqa: F401
from tideflow.strings import bytes_split as string_bytes_split  # noqa: F401


def string_split_v2(input, sep=None, maxsplit=-1, name=None):
    """TF 2's ``tf.strings.split``: a ``RaggedTensor`` with one more ragged dimension than
    ``input`` (a scalar gives a vector of tokens)."""
    if not hasattr(input, "flat_values"):
        input = ops.convert_to_tensor(input, dtype=dtypes.string, name="input")
        if input.get_shape().ndims == 0:
            from tideflow.ops import array_ops

            with ops.name_scope(name, "StringSplit", [input]):
                rows = strings_split_v1(array_ops.reshape(input, [1]), sep, maxsplit,
                                        "RaggedTensor")
                return rows.values
    return strings_split_v1(input, sep, maxsplit, "RaggedTensor", name=name)
