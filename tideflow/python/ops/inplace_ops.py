"""``tensorflow.python.ops.inplace_ops``: row updates (``inplace_update``, ``alias_inplace_add``,
...) and fresh buffers (``empty``, ``empty_like``)."""

from tideflow.ops.inplace_ops import (  # noqa: F401
    alias_inplace_add,
    alias_inplace_sub,
    alias_inplace_update,
    empty,
    empty_like,
    inplace_add,
    inplace_sub,
    inplace_update,
)
