"""``tf.contrib.tfprof``: TF 1.x's first profiler names, over ``tf.profiler``.

``model_analyzer.print_model_analysis(graph, run_meta, op_log, tfprof_cmd, tfprof_options)``
is ``tf.profiler.profile`` with the option dicts of the time (``TRAINABLE_VARS_PARAMS_STAT_
OPTIONS``, ``FLOAT_OPS_OPTIONS``, ...); ``tfprof_logger.write_op_log`` writes the op log.
"""

import types

from tideflow import profiler as _profiler

__all__ = ["model_analyzer", "tfprof_logger"]

_Builder = _profiler.ProfileOptionBuilder


def _options(base, **changes):
    # the dicts of the time had no min_occurrence or step (their defaults, 0 and -1, apply)
    out = {k: v for k, v in base.items() if k not in ("min_occurrence", "step")}
    out.update(changes, dump_to_file="")
    return out


def print_model_analysis(graph, run_meta=None, op_log=None, tfprof_cmd="scope",
                         tfprof_options=None):
    """Prints (and returns, as a ``GraphNodeProto``) the analysis of ``graph`` that
    ``tfprof_options`` selects (default: the trainable variables' parameter counts)."""
    if tfprof_options is None:
        tfprof_options = model_analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS
    options = {k: v for k, v in tfprof_options.items() if k != "dump_to_file"}
    if tfprof_options.get("dump_to_file"):
        options["output"] = f"file:outfile={tfprof_options['dump_to_file']}"
    return _profiler.profile(graph, run_meta, op_log, tfprof_cmd, options)


model_analyzer = types.ModuleType(__name__ + ".model_analyzer",
                                  "``tf.contrib.tfprof.model_analyzer``.")
model_analyzer.TRAINABLE_VARS_PARAMS_STAT_OPTIONS = _options(
    _Builder.trainable_variables_parameter())
model_analyzer.FLOAT_OPS_OPTIONS = _options(_Builder.float_operation())
model_analyzer.PRINT_PARAMS_ON_DEVICE = _options(
    _Builder.trainable_variables_parameter(), account_type_regexes=[".*"],
    select=["device", "params"])
model_analyzer.PRINT_ALL_TIMING_MEMORY = _options(_Builder.time_and_memory())
model_analyzer.print_model_analysis = print_model_analysis
model_analyzer.profile = _profiler.profile
model_analyzer.advise = _profiler.advise
model_analyzer.ALL_ADVICE = dict(_profiler._ALL_ADVICE)
model_analyzer.Profiler = _profiler.Profiler
model_analyzer.ProfileOptionBuilder = _Builder

tfprof_logger = types.ModuleType(__name__ + ".tfprof_logger",
                                 "``tf.contrib.tfprof.tfprof_logger``.")
tfprof_logger.write_op_log = _profiler.write_op_log
tfprof_logger.TRAINABLE_VARIABLES = "_trainable_variables"
