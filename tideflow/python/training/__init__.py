"""``tensorflow.python.training``: TF 1.x's internal modules behind ``tf.train``
(``moving_averages``, ``training_util``, ``saver``, the hooks, the optimizers...), as the
very ``tideflow.train`` modules."""

import importlib
import sys

# TF's module name -> ours, where they differ.
_RENAMED = {"basic_session_run_hooks": "basic_hooks", "warm_starting_util": "warm_starting",
            "queue_runner_impl": "queue_runner"}
_SAME = ("adadelta", "adagrad", "adagrad_da", "adam", "basic_loops", "checkpoint_management",
         "checkpoint_utils", "coordinator", "device_setter", "ftrl", "gradient_descent", "input",
         "learning_rate_decay", "momentum", "monitored_session", "moving_averages", "optimizer",
         "proximal_adagrad", "proximal_gradient_descent", "queue_runner", "rmsprop", "saver",
         "session_manager", "session_run_hook", "slot_creator", "supervisor",
         "sync_replicas_optimizer", "training_util")

# the CheckpointState proto lives beside the training modules in TF
checkpoint_state_pb2 = importlib.import_module("tideflow.protos.checkpoint_state_pb2")
sys.modules.setdefault(f"{__name__}.checkpoint_state_pb2", checkpoint_state_pb2)

__all__ = ["checkpoint_state_pb2"]
for _name, _ours in [(n, n) for n in _SAME] + list(_RENAMED.items()):
    _module = importlib.import_module(f"tideflow.train.{_ours}")
    sys.modules.setdefault(f"{__name__}.{_name}", _module)
    globals()[_name] = _module
    __all__.append(_name)
