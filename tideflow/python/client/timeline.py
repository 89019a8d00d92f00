"""``tensorflow.python.client.timeline``: Chrome traces of a step's ``RunMetadata``."""

from tideflow.timeline import Timeline, top_ops  # noqa: F401
