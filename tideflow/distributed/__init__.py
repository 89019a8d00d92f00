"""The distributed layer: cluster descriptions, servers, master and worker logic, the wire codec
and the local cluster launcher."""
