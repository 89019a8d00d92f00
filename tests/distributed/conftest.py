"""Fixtures shared by the distributed tests."""

import pytest

from tests.distributed.cluster_procs import cluster_spec
from tideflow.distributed.server import Server


@pytest.fixture
def servers():
    """A ps and a worker server in this process, talking gRPC on loopback ports."""
    spec = cluster_spec(ps=1, worker=1)
    made = [Server(spec, job_name=job, task_index=0) for job in ("ps", "worker")]
    yield {"ps": made[0], "worker": made[1]}
    for s in made:
        s.stop()
