"""``tf.debugging``: the assertions and numeric checks under their ``tf.debugging.*`` names."""

import types as _types

from tideflow.ops.check_extra_ops import assert_all_finite, assert_rank_in, assert_shapes
from tideflow.ops.check_ops import (
    assert_equal,
    assert_greater,
    assert_greater_equal,
    assert_integer,
    assert_less,
    assert_less_equal,
    assert_near,
    assert_negative,
    assert_non_negative,
    assert_non_positive,
    assert_none_equal,
    assert_positive,
    assert_proper_iterable,
    assert_rank,
    assert_rank_at_least,
    assert_same_float_dtype,
    assert_scalar,
    assert_type,
    is_non_decreasing,
    is_numeric_tensor,
    is_strictly_increasing,
)
from tideflow.ops.logging_ops import Assert
from tideflow.ops.math_ops import is_finite, is_inf, is_nan
from tideflow.ops.misc_ops import ensure_shape
from tideflow.ops.numerics import check_numerics

_log_placement = [False]
_traceback_filtering = [True]


def set_log_device_placement(enabled):
    """Records whether placement is logged; a tf.Session logs it when its ConfigProto says
    ``log_device_placement=True``."""
    _log_placement[0] = bool(enabled)


def get_log_device_placement():
    return _log_placement[0]


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    raise ValueError("tf.debugging.enable_check_numerics instruments eager/tf.function code; "
                     "in graph mode use tf.add_check_numerics_ops()")


def disable_check_numerics():
    return None


def enable_traceback_filtering():
    _traceback_filtering[0] = True


def disable_traceback_filtering():
    _traceback_filtering[0] = False


def is_traceback_filtering_enabled():
    return _traceback_filtering[0]


def _no_dump(*args, **kwargs):
    raise ValueError("tfdbg v2 dumps are not supported by tideflow")


experimental = _types.SimpleNamespace(enable_dump_debug_info=_no_dump,
                                      disable_dump_debug_info=lambda: None)

__all__ = [
    "Assert", "assert_all_finite", "assert_equal", "assert_greater", "assert_greater_equal",
    "assert_integer", "assert_less", "assert_less_equal", "assert_near", "assert_negative",
    "assert_non_negative", "assert_non_positive", "assert_none_equal", "assert_positive",
    "assert_proper_iterable", "assert_rank", "assert_rank_at_least", "assert_rank_in",
    "assert_same_float_dtype", "assert_scalar", "assert_shapes", "assert_type", "check_numerics",
    "disable_check_numerics", "disable_traceback_filtering", "enable_check_numerics",
    "enable_traceback_filtering", "ensure_shape", "experimental", "get_log_device_placement",
    "is_finite",
    "is_inf", "is_nan", "is_non_decreasing", "is_numeric_tensor", "is_strictly_increasing",
    "is_traceback_filtering_enabled", "set_log_device_placement",
]
