"""``tf.config``: the devices this process has, and process-wide runtime settings.

tideflow's sessions take their settings from the ``ConfigProto`` they are given; the values set
here are recorded and read back (``get_*``) the way TF's are in graph mode, where they also do
not change a ``tf.Session``'s ConfigProto. Physical devices are the local CPU and, with CuPy,
the visible CUDA GPUs.
"""

import collections as _collections
import contextlib as _contextlib
import types as _types

PhysicalDevice = _collections.namedtuple("PhysicalDevice", ["name", "device_type"])
LogicalDevice = _collections.namedtuple("LogicalDevice", ["name", "device_type"])


class LogicalDeviceConfiguration(_collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """A logical device to carve from a physical one (recorded only)."""

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


_state = {
    "soft_placement": True,
    "log_placement": False,
    "inter_op": 0,
    "intra_op": 0,
    "visible": None,  # None: all physical devices
    "memory_growth": {},
    "logical_config": {},
    "functions_eagerly": False,
    "optimizer_options": {},
    "jit": False,
    "device_policy": None,  # None: TF's default, 'silent'
    "synchronous": True,
    "executor_type": None,
    "output_all_intermediates": None,
}

_DEVICE_POLICIES = ("silent", "silent_for_int32", "warn", "explicit")


def get_device_policy():
    """The eager device placement policy recorded (``'silent'`` unless set): graph-mode
    sessions place by their ConfigProto, as TF 1.15's do."""
    return _state["device_policy"] or "silent"


def set_device_policy(device_policy):
    """Records ``'silent'``, ``'silent_for_int32'``, ``'warn'``, ``'explicit'`` or None (the
    default)."""
    if device_policy is not None and device_policy not in _DEVICE_POLICIES:
        raise ValueError(f"Not a valid device policy: {device_policy!r}")
    _state["device_policy"] = device_policy


def get_synchronous_execution():
    """Whether eager ops run synchronously (recorded; tideflow's runs always are)."""
    return _state["synchronous"]


def set_synchronous_execution(enable):
    _state["synchronous"] = True if enable is None else bool(enable)


@_contextlib.contextmanager
def function_executor_type(executor_type):
    """``tf.experimental.function_executor_type``: the executor functions called inside run
    on (recorded; tideflow builds function calls inline)."""
    old = _state["executor_type"]
    _state["executor_type"] = executor_type
    try:
        yield
    finally:
        _state["executor_type"] = old


def output_all_intermediates(state):
    """``tf.experimental.output_all_intermediates``: whether control flow v2 ops output all
    their intermediates (True, False or None, the default). Recorded: tideflow's cond and
    while gradients reach the intermediates they need either way."""
    _state["output_all_intermediates"] = state


def _physical():
    from tideflow.kernels.device import gpu_info

    # (the XLA_CPU device TF 1.15's CPU build registers beside the CPU is listed too)
    devs = [PhysicalDevice("/physical_device:CPU:0", "CPU"),
            PhysicalDevice("/physical_device:XLA_CPU:0", "XLA_CPU")]
    _, gpus = gpu_info()
    devs += [PhysicalDevice(f"/physical_device:GPU:{i}", "GPU") for i in range(len(gpus))]
    return devs


def _check_device(device):
    if not isinstance(device, PhysicalDevice) or device not in _physical():
        raise ValueError(f"Unrecognized device: {device!r}")


def list_physical_devices(device_type=None):
    """The physical devices, all or those of ``device_type`` ("CPU", "GPU")."""
    return [d for d in _physical() if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type=None):
    vis = _state["visible"] if _state["visible"] is not None else _physical()
    return [d for d in vis if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    """Records which physical devices are visible (sessions still use their ConfigProto)."""
    devices = [devices] if isinstance(devices, PhysicalDevice) else list(devices)
    for d in devices:
        _check_device(d)
    keep = [d for d in get_visible_devices() if device_type is not None
            and d.device_type != device_type]
    _state["visible"] = keep + devices


def list_logical_devices(device_type=None):
    """The devices a tf.Session in this process places ops on, by their device names (a
    physical device split into logical ones lists each)."""
    out = []
    counts = {}
    visible = get_visible_devices(device_type)
    # (as TF 1.15's: visibility hides GPUs, never the XLA_CPU device)
    for d in [d for d in list_physical_devices(device_type)
              if d in visible or d.device_type == "XLA_CPU"]:
        split = _state["logical_config"].get(d)
        for _ in range(len(split) if split else 1):
            i = counts.get(d.device_type, 0)
            counts[d.device_type] = i + 1
            # as TF 1.15, by the full name of the local task's device
            out.append(LogicalDevice(f"/job:localhost/replica:0/task:0/device:"
                                     f"{d.device_type}:{i}", d.device_type))
    return out


def experimental_list_devices():
    """The names of the logical devices (TF 1.15's ``tf.config.experimental_list_devices``)."""
    return [d.name for d in list_logical_devices()]


def _logical_cpu_count():
    """The number of logical CPUs the CPU was split into, or None when it was not."""
    split = _state["logical_config"].get(list_physical_devices("CPU")[0])
    return len(split) if split else None


def get_logical_device_configuration(device):
    _check_device(device)
    return _state["logical_config"].get(device)


def set_logical_device_configuration(device, logical_devices):
    _check_device(device)
    _state["logical_config"][device] = None if logical_devices is None else list(
        logical_devices)


def set_virtual_device_configuration(device, virtual_devices):
    """TF 1.15's ``tf.config.experimental.set_virtual_device_configuration`` (its parameter
    names)."""
    set_logical_device_configuration(device, virtual_devices)


def get_soft_device_placement():
    return _state["soft_placement"]


def set_soft_device_placement(enabled):
    _state["soft_placement"] = bool(enabled)


def functions_run_eagerly():
    return _state["functions_eagerly"]


def run_functions_eagerly(run_eagerly):
    if run_eagerly:
        raise ValueError("tideflow runs functions as graphs only (TF 1.x graph mode)")
    _state["functions_eagerly"] = False


experimental_functions_run_eagerly = functions_run_eagerly
experimental_run_functions_eagerly = run_functions_eagerly


def experimental_connect_to_host(remote_host=None, job_name="worker"):
    raise ValueError("tf.config.experimental_connect_to_host needs eager execution; with "
                     "tideflow, pass the server's target to tf.Session('grpc://...')")


def experimental_connect_to_cluster(cluster_spec_or_resolver, job_name="localhost",
                                    task_index=0, protocol=None, make_master_device_default=True,
                                    cluster_device_filters=None):
    raise ValueError("tf.config.experimental_connect_to_cluster needs eager execution; with "
                     "tideflow, start tf.train.Server and use tf.Session(server.target)")


def _get_memory_growth(device):
    _check_device(device)
    return _state["memory_growth"].get(device, False)


def _set_memory_growth(device, enable):
    _check_device(device)
    if device.device_type != "GPU":
        raise ValueError(f"Cannot set memory growth on device {device.name}: not a GPU")
    _state["memory_growth"][device] = bool(enable)


def _set_inter(num_threads):
    _state["inter_op"] = int(num_threads)


def _set_intra(num_threads):
    _state["intra_op"] = int(num_threads)


threading = _types.SimpleNamespace(
    get_inter_op_parallelism_threads=lambda: _state["inter_op"],
    get_intra_op_parallelism_threads=lambda: _state["intra_op"],
    set_inter_op_parallelism_threads=_set_inter,
    set_intra_op_parallelism_threads=_set_intra,
)

optimizer = _types.SimpleNamespace(
    get_experimental_options=lambda: dict(_state["optimizer_options"]),
    set_experimental_options=lambda options: _state["optimizer_options"].update(options),
    get_jit=lambda: _state["jit"],
    set_jit=lambda enabled: _state.__setitem__("jit", bool(enabled)),
)

experimental = _types.SimpleNamespace(
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    get_memory_growth=_get_memory_growth,
    set_memory_growth=_set_memory_growth,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    get_virtual_device_configuration=get_logical_device_configuration,
    set_virtual_device_configuration=set_virtual_device_configuration,
    get_device_details=lambda device: {},
    get_device_policy=get_device_policy,
    set_device_policy=set_device_policy,
    get_synchronous_execution=get_synchronous_execution,
    set_synchronous_execution=set_synchronous_execution,
)
