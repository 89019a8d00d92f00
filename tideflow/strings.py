"""``tf.strings``: the string ops under their TF 1.x ``tf.strings.*`` names."""

from tideflow.ops.logging_ops import string_format as format
from tideflow.ops.string_hash_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from tideflow.ops.string_ops import (
    as_string,
    reduce_join,
    regex_replace,
    substr,
)
from tideflow.ops.string_ops import string_join as join
from tideflow.ops.string_ops import string_length as length
from tideflow.ops.string_ops import string_to_number as to_number

__all__ = ["as_string", "format", "join", "length", "reduce_join", "regex_replace", "substr",
           "to_hash_bucket_fast", "to_number"]
