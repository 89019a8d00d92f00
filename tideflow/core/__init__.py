"""``tensorflow.core``: TF 1.x programs import the protocol buffers from their home packages
(``from tensorflow.core.framework import graph_pb2``, ``...core.protobuf import saver_pb2``,
``...core.util import event_pb2``, ``...core.example import example_pb2``,
``...core.profiler import tfprof_log_pb2``). Each name here is
the very module under ``tideflow.protos``, so messages are the same classes either way."""

import importlib
import sys
import types

# TF's package for each proto module tideflow has
_HOMES = {
    "framework": ("allocation_description_pb2", "attr_value_pb2", "cost_graph_pb2",
                  "device_attributes_pb2", "function_pb2", "graph_pb2", "node_def_pb2",
                  "op_def_pb2", "resource_handle_pb2", "step_stats_pb2", "summary_pb2",
                  "tensor_description_pb2", "tensor_pb2", "tensor_shape_pb2", "types_pb2",
                  "variable_pb2", "versions_pb2"),
    "protobuf": ("cluster_pb2", "config_pb2", "debug_pb2", "error_codes_pb2", "master_pb2",
                 "master_service_pb2", "meta_graph_pb2", "named_tensor_pb2",
                 "queue_runner_pb2", "rewriter_config_pb2", "saved_model_pb2", "saver_pb2",
                 "tensorflow_server_pb2", "worker_pb2", "worker_service_pb2"),
    "util": ("event_pb2",),
    "example": ("example_pb2", "feature_pb2"),
    "profiler": ("tfprof_log_pb2",),
}


def _package(name, modules):
    full = f"{__name__}.{name}"
    pkg = types.ModuleType(full, f"``tensorflow.core.{name}``: " + ", ".join(modules) + ".")
    pkg.__path__ = []
    for m in modules:
        mod = importlib.import_module(f"tideflow.protos.{m}")
        setattr(pkg, m, mod)
        sys.modules[f"{full}.{m}"] = mod
    sys.modules[full] = pkg
    return pkg


framework = _package("framework", _HOMES["framework"])
protobuf = _package("protobuf", _HOMES["protobuf"])
util = _package("util", _HOMES["util"])
example = _package("example", _HOMES["example"])
profiler = _package("profiler", _HOMES["profiler"])
# TF 1.x keeps the error codes under lib/core (``from tensorflow.core.lib.core import
# error_codes_pb2``); the same module as ``protobuf.error_codes_pb2``
lib = types.ModuleType(f"{__name__}.lib", "``tensorflow.core.lib``: core.error_codes_pb2.")
lib.__path__ = []
sys.modules[lib.__name__] = lib
lib.core = _package("lib.core", ("error_codes_pb2",))


def _tf_dependency_aliases():
    """Generated modules name each proto they import after its file path: TF 1.15's
    ``attr_value_pb2`` holds ``tensorflow_dot_core_dot_framework_dot_tensor__shape__pb2``, ours
    ``tideflow_dot_protos_dot_tensor__shape__pb2``. Programs that reach a dependency through
    the TF name (MMdnn's parser does) find the same module under it."""
    homes = {m: home for home, mods in _HOMES.items() for m in mods}
    homes["error_codes_pb2"] = "lib.core"
    ours = "tideflow_dot_protos_dot_"
    for m in homes:
        mod = sys.modules[f"tideflow.protos.{m}"]
        for attr, dep in list(vars(mod).items()):
            name = attr[len(ours):].replace("__", "_") if attr.startswith(ours) else None
            if name in homes:
                path = ("tensorflow.core." + homes[name]).replace("_", "__").replace(".", "_dot_")
                setattr(mod, f"{path}_dot_{attr[len(ours):]}", dep)


_tf_dependency_aliases()
