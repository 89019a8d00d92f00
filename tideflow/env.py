"""The one place tideflow reads environment variables; everything else asks this module."""

import os


def malloc_tuning():
    """TIDEFLOW_MALLOC_TUNING=0 leaves the C allocator's settings alone (default: tune them)."""
    return os.environ.get("TIDEFLOW_MALLOC_TUNING", "1") not in ("0", "false", "no")
