"""``tf.contrib.predictor``: a callable that runs a SavedModel signature in its own session.

``from_saved_model(export_dir)`` loads the MetaGraph tagged ``serve`` into a fresh graph and
session; calling the predictor with a dict keyed like the signature's inputs returns a dict
keyed like its outputs, as TF 1.x's ``SavedModelPredictor`` does.
"""

from tideflow.framework import ops
from tideflow.ops import saved_model_impl as _impl

__all__ = ["from_saved_model"]


class _Predictor:
    """A session plus the feed and fetch tensors of one signature."""

    def __init__(self, graph, session, feed_tensors, fetch_tensors):
        self._graph = graph
        self._session = session
        self._feed_tensors = feed_tensors
        self._fetch_tensors = fetch_tensors

    graph = property(lambda self: self._graph)
    session = property(lambda self: self._session)
    feed_tensors = property(lambda self: self._feed_tensors)
    fetch_tensors = property(lambda self: self._fetch_tensors)

    def __call__(self, input_dict):
        if set(input_dict) != set(self._feed_tensors):
            raise ValueError(f"Expected keys: {sorted(self._feed_tensors)}; "
                             f"got: {sorted(input_dict)}")
        feed = {self._feed_tensors[key]: value for key, value in input_dict.items()}
        return self._session.run(self._fetch_tensors, feed_dict=feed)

    def __repr__(self):
        return (f"{type(self).__name__}(feed_tensors={sorted(self._feed_tensors)}, "
                f"fetch_tensors={sorted(self._fetch_tensors)})")


class SavedModelPredictor(_Predictor):
    """A predictor over one signature of a SavedModel."""

    def __init__(self, export_dir, signature_def_key=None, signature_def=None,
                 input_names=None, output_names=None, tags=None, graph=None, config=None):
        from tideflow.runtime.session import Session

        graph = graph or ops.Graph()
        if tags is None:
            tags = [_impl.SERVING]
        elif isinstance(tags, str):
            tags = [tags]
        with graph.as_default():
            session = Session(config=config, graph=graph)
            meta_graph_def = _impl.load(session, tags, export_dir)
        if input_names is None or output_names is None:
            if signature_def is None:
                key = signature_def_key or _impl.DEFAULT_SERVING_SIGNATURE_DEF_KEY
                if key not in meta_graph_def.signature_def:
                    raise ValueError(
                        f"Could not find signature def '{key}' in the SavedModel at "
                        f"{export_dir}; it has {sorted(meta_graph_def.signature_def)}")
                signature_def = meta_graph_def.signature_def[key]
            if input_names is None:
                input_names = {k: v.name for k, v in signature_def.inputs.items()}
            if output_names is None:
                output_names = {k: v.name for k, v in signature_def.outputs.items()}
        super().__init__(
            graph, session,
            {k: graph.get_tensor_by_name(name) for k, name in input_names.items()},
            {k: graph.get_tensor_by_name(name) for k, name in output_names.items()})


def from_saved_model(export_dir, signature_def_key=None, signature_def=None, input_names=None,
                     output_names=None, tags=None, graph=None, config=None):
    """A predictor for the signature ``signature_def_key`` (default ``serving_default``) of
    the SavedModel in ``export_dir``, or for explicit ``input_names``/``output_names`` maps
    of keys to tensor names."""
    return SavedModelPredictor(export_dir, signature_def_key=signature_def_key,
                               signature_def=signature_def, input_names=input_names,
                               output_names=output_names, tags=tags, graph=graph,
                               config=config)
