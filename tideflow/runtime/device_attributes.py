"""What ``Session.list_devices()`` returns for each device."""


class DeviceAttributes:
    """A device's name, type and memory limit, as TF's ``_DeviceAttributes``."""

    def __init__(self, name, device_type, memory_limit_bytes, incarnation=0):
        from tideflow.framework.device import canonical_name

        self.name = canonical_name(name)  # as TF: /cpu:1 -> /device:CPU:1
        self.device_type = device_type
        self.memory_limit_bytes = memory_limit_bytes
        self.incarnation = incarnation

    def __repr__(self):
        return (f"_DeviceAttributes({self.name}, {self.device_type}, {self.memory_limit_bytes}, "
                f"{self.incarnation})")


def device_attributes(device):
    return DeviceAttributes(device.name, device.device_type, device.memory_limit,
                            id(device) & 0xFFFFFFFF)
