"""The devices of a session: built from ``ConfigProto.device_count`` (CPUs; GPUs via CuPy)."""

from tideflow.kernels import gpu
from tideflow.kernels.device import listed_devices, local_devices

gpu.register()


def _count(device_count, key):
    if device_count is None:
        return None
    try:
        if key in device_count:
            return max(0, int(device_count[key]))
    except (TypeError, ValueError):
        pass
    return None


class DeviceMgr:
    """The ordered devices a local session may place ops on, looked up by name."""

    def __init__(self, config=None, job="localhost", replica=0, task=0):
        dc = getattr(config, "device_count", None) if config is not None else None
        cpu = _count(dc, "CPU")
        if config is None:
            # as TF 1.15: a session made without a ConfigProto takes the process's, whose CPU
            # count is that of the logical (virtual) CPUs tf.config split the CPU into
            from tideflow import config as process_config

            cpu = process_config._logical_cpu_count()
        gpu = _count(dc, "GPU")
        self.devices = local_devices(job, replica, task, cpu_count=1 if cpu is None else cpu,
                                     gpu_count=gpu)
        self._by_name = {d.name: d for d in self.devices}

    def lookup(self, name):
        return self._by_name.get(name)

    def __iter__(self):
        return iter(self.devices)

    def __len__(self):
        return len(self.devices)


def device_mapping_text(devices):
    """The "Device mapping" lines TF logs when ``log_device_placement`` is on."""
    lines = []
    for d in listed_devices(list(devices)):
        if d.description:
            lines.append(f"{d.name} -> {d.description}")
    # as TF 1.x's direct session prints it
    return "Device mapping:\n" + "\n".join(lines) if lines else "Device mapping: no known devices."
