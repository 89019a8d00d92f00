"""Placement checks: every op's requested device must name a device the session has."""

from tideflow.framework import errors
from tideflow.framework.device import DeviceSpec


def check_requested_devices(ops, devices, allow_soft_placement):
    """Raises InvalidArgumentError for an op whose device request no device satisfies."""
    specs = [DeviceSpec.from_string(d.name) for d in devices]
    cache = {}
    for op in ops:
        req = op._device
        if not req:
            continue
        ok = cache.get(req)
        if ok is None:
            want = DeviceSpec.from_string(req)
            if want.job == "localhost" or want.job is None:
                want = want.replace(job=None)
            ok = any(want.is_compatible_with(s.replace(job=None) if want.job is None else s)
                     for s in specs)
            cache[req] = ok
        if not ok and not allow_soft_placement:
            names = ", ".join(d.name for d in devices)
            raise errors.InvalidArgumentError(
                None, op,
                f"Cannot assign a device for operation '{op.name}': Could not satisfy explicit "
                f"device specification '{req}' because no devices matching that specification "
                f"are registered in this process; available devices: {names}. Set "
                "allow_soft_placement to place it anyway.",
            )
