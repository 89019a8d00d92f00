"""``tf.autograph``: converting Python control flow on tensors (``if``, ``while``, ``for``,
``break``/``continue``/``return``, ``and``/``or``/``not``, ``print``, ``assert``) into graph
control flow (``tf.cond``, ``tf.while_loop``); ``tf.function`` applies it by default."""

from tideflow.autograph import experimental
from tideflow.autograph.api import (
    do_not_convert,
    set_verbosity,
    to_code,
    to_graph,
    trace,
)

__all__ = ["do_not_convert", "experimental", "set_verbosity", "to_code", "to_graph", "trace"]
