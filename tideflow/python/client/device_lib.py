"""``tensorflow.python.client.device_lib``: the devices of this process, as TF lists them."""

import random

from tideflow.protos import device_attributes_pb2

_DESCRIPTIONS = {"CPU": "", "XLA_CPU": "device: XLA_CPU device"}


def list_local_devices(session_config=None):
    """``DeviceAttributes`` protos of the local devices a session with ``session_config``
    would place ops on, named as TF names them here (``/device:CPU:0``, ``/device:GPU:0``)."""
    from tideflow.framework import ops
    from tideflow.runtime.session import Session

    with ops.Graph().as_default() as g, Session(graph=g, config=session_config) as sess:
        devices = sess.list_devices()
    out = []
    for d in devices:
        short = "/device:" + d.name.rsplit("/device:", 1)[-1]
        attrs = device_attributes_pb2.DeviceAttributes(
            name=short, device_type=d.device_type, memory_limit=int(d.memory_limit_bytes or 0),
            incarnation=random.getrandbits(63) | 1,
            physical_device_desc=_DESCRIPTIONS.get(d.device_type, short))
        # printed as TF 1.15 prints it: a CPU's locality is there and empty ("locality {\n}")
        attrs.locality.SetInParent()
        if d.device_type == "GPU":
            attrs.locality.bus_id = 1
        out.append(attrs)
    return out
