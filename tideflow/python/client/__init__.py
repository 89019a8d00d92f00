"""``tensorflow.python.client``: ``device_lib`` and ``timeline``."""
