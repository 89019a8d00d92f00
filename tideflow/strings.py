"""``tf.strings``: the string ops under their TF 1.x ``tf.strings.*`` names.

``split`` is TF 1.x's ``tf.strings.split`` (``StringSplitV2``, ``result_type='SparseTensor'`` or
``'RaggedTensor'``, strings of any rank or ragged); ``unicode_decode``, ``unicode_split`` and
``bytes_split`` of non-scalars, and ``ngrams`` of ragged input, return ``RaggedTensor`` s as TF.
"""

from tideflow.ops.logging_ops import string_format as format
from tideflow.ops.string_hash_ops import string_to_hash_bucket_fast as to_hash_bucket_fast
from tideflow.ops.string_more_ops import (
    bytes_split,
    lower,
    ngrams,
    regex_full_match,
    split,
    strip,
    unicode_decode,
    unicode_decode_with_offsets,
    unicode_encode,
    unicode_script,
    unicode_split,
    unicode_split_with_offsets,
    unicode_transcode,
    unsorted_segment_join,
    upper,
)
from tideflow.ops.string_more_ops import string_to_hash_bucket as to_hash_bucket
from tideflow.ops.string_more_ops import string_to_hash_bucket_strong as to_hash_bucket_strong
from tideflow.ops.string_ops import (
    as_string,
    reduce_join,
    regex_replace,
    substr,
)
from tideflow.ops.string_ops import string_join as join
from tideflow.ops.string_ops import string_length as length
from tideflow.ops.string_ops import string_to_number as to_number

__all__ = ["as_string", "bytes_split", "format", "join", "length", "lower", "ngrams",
           "reduce_join", "regex_full_match", "regex_replace", "split", "strip", "substr",
           "to_hash_bucket", "to_hash_bucket_fast", "to_hash_bucket_strong", "to_number",
           "unicode_decode", "unicode_decode_with_offsets", "unicode_encode", "unicode_script",
           "unicode_split",
           "unicode_split_with_offsets", "unicode_transcode", "unsorted_segment_join", "upper"]
