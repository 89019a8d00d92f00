"""``tf.version``: the version constants of the TF 1.x API tideflow implements.

``VERSION`` is "1.15.0" and not tideflow's own package version: TF 1.x programs gate features
on ``tf.__version__`` / ``tf.VERSION`` (``startswith("1.")``, ``LooseVersion(...) >= "1.4"``),
and the API tideflow reproduces is that of TF 1.15, the last 1.x release.
"""

VERSION = "1.15.0"
GIT_VERSION = "tideflow-1.15.0"
COMPILER_VERSION = "python-numpy"
# GraphDef versions this implementation produces and accepts (as framework/importer.py)
GRAPH_DEF_VERSION = 134
GRAPH_DEF_VERSION_MIN_CONSUMER = 0
GRAPH_DEF_VERSION_MIN_PRODUCER = 0

__all__ = ["COMPILER_VERSION", "GIT_VERSION", "GRAPH_DEF_VERSION",
           "GRAPH_DEF_VERSION_MIN_CONSUMER", "GRAPH_DEF_VERSION_MIN_PRODUCER", "VERSION"]
