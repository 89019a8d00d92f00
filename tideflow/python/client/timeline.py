"""``tensorflow.python.client.timeline``: Chrome traces of a step's ``RunMetadata``."""

from tideflow.timeline import (  # noqa: F401
    AllocationMaximum,
    StepStatsAnalysis,
    Timeline,
    top_ops,
)
