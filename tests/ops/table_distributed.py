"""Op-table rows for the cross-process transfer ops (_Send/_Recv), run through a master and
workers connected by the in-process transport."""

import numpy as np

from tests.ops.optable import Case


def _check_send_recv():
    from tests.distributed.test_master_worker import _Client, _Cluster, _graph
    from tideflow.framework import op_registry

    assert op_registry.lookup("_Send") is not None and op_registry.lookup("_Recv") is not None
    cluster = _Cluster()
    client = _Client(cluster.master(), _graph())
    client.run(targets=["init"])
    # x is fed on worker 0, v lives on the ps, y1 on worker 1: three tasks exchange tensors
    (y,) = client.run(["y1:0"], {"x:0": np.ones((1, 2), np.float32)})
    assert y == 30.0


CASES = [Case(("_Send", "_Recv"), check=_check_send_recv, grad=False)]
