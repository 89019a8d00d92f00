"""Graph- and op-level random seeds with TF's rule, so programs repeat their numbers."""

from tideflow.framework import ops

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def get_seed(op_seed):
    """The (graph seed, op seed) pair an op should use, as TF 1.x derives it."""
    graph_seed = ops.get_default_graph().seed
    if graph_seed is not None:
        if op_seed is None:
            # TF 1.x: the id of the last op created, i.e. how many ops the graph holds
            op_seed = ops.get_default_graph()._last_id
        # as TF: both reduced modulo 2**31 - 1 (so 2**31 - 1 wraps to 0)
        seeds = (int(graph_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def set_random_seed(seed):
    """Sets the default graph's random seed."""
    ops.get_default_graph().seed = seed
