"""``tf.autograph.experimental``: conversion options and the hints converted code reads."""

import enum

from tideflow.autograph.api import do_not_convert
from tideflow.autograph.operators import UNSPECIFIED


class Feature(enum.Enum):
    """Optional conversions (tideflow's converter applies its fixed set whatever is asked)."""

    ALL = "ALL"
    AUTO_CONTROL_DEPS = "AUTO_CONTROL_DEPS"
    ASSERT_STATEMENTS = "ASSERTS"
    BUILTIN_FUNCTIONS = "BUILTIN_FUNCTIONS"
    EQUALITY_OPERATORS = "EQUALITY_OPERATORS"
    LISTS = "LISTS"
    NAME_SCOPES = "NAME_SCOPES"

    @classmethod
    def all(cls):
        return tuple(cls.__members__.values())

    @classmethod
    def all_but(cls, exclude):
        exclude = set(exclude) if isinstance(exclude, (list, tuple, set)) else {exclude}
        return tuple(set(cls.all()) - exclude - {cls.ALL})


def set_loop_options(parallel_iterations=UNSPECIFIED, back_prop=UNSPECIFIED,
                     swap_memory=UNSPECIFIED, maximum_iterations=UNSPECIFIED,
                     shape_invariants=UNSPECIFIED):
    """Options of the ``tf.while_loop`` the enclosing loop becomes, as its first statement;
    the converter reads them (a call outside converted code does nothing)."""
    del parallel_iterations, back_prop, swap_memory, maximum_iterations, shape_invariants


def set_element_type(entity, dtype, shape=UNSPECIFIED):
    """Declares the element dtype (and shape) of a list, which converted code then keeps as a
    TensorArray that loops on tensors can append to (a no-op outside converted code)."""
    del entity, dtype, shape


__all__ = ["Feature", "do_not_convert", "set_element_type", "set_loop_options"]
