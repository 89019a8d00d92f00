"""``tf.contrib.predictor``: a callable that runs a SavedModel signature in its own session.

``from_saved_model(export_dir)`` loads the MetaGraph tagged ``serve`` into a fresh graph and
session; calling the predictor with a dict keyed like the signature's inputs returns a dict
keyed like its outputs, as TF 1.x's ``SavedModelPredictor`` does; ``from_estimator`` does the
same over an Estimator's latest checkpoint (TF's ``CoreEstimatorPredictor``).
"""

from tideflow.framework import ops
from tideflow.ops import saved_model_impl as _impl
from tideflow.protos import meta_graph_pb2

__all__ = ["from_estimator", "from_saved_model"]


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
        # as TF 1.15: a key may be left out (that input is not fed), an unknown one fails
        unexpected = set(input_dict) - set(self._feed_tensors)
        if unexpected:
            raise ValueError(f"Got unexpected keys in input_dict: {unexpected}\n"
                             f"expected: {set(self._feed_tensors)}")
        feed = {t: input_dict[k] for k, t in self._feed_tensors.items()
                if input_dict.get(k) is not None}
        return self._session.run(fetches=self._fetch_tensors, feed_dict=feed)

    def __repr__(self):
        return (f"{type(self).__name__} with feed tensors {self._feed_tensors} and "
                f"fetch_tensors {self._fetch_tensors}")


def _check_signature_arguments(signature_def_key, signature_def, input_names, output_names):
    if (input_names is None) != (output_names is None):
        raise ValueError(
            "input_names and output_names must both be specified or both be unspecified.")
    if ((signature_def_key is not None) + (signature_def is not None)
            + (input_names is not None) > 1):
        raise ValueError("You must specify at most one of signature_def_key OR signature_def "
                         "OR(input_names AND output_names).")


def _signature_def(meta_graph_def, key):
    """TF 1.15's lookup: the key, then "default_input_alternative:<key>", else an empty
    SignatureDef (a proto map's lookup never fails), so the predictor feeds and fetches
    nothing."""
    from tideflow import logging

    key = key or _impl.DEFAULT_SERVING_SIGNATURE_DEF_KEY
    sigs = meta_graph_def.signature_def
    alternative = f"default_input_alternative:{key}"
    if key not in sigs and alternative in sigs:
        logging.warning('Could not find signature def "%s". Using "%s" instead', key,
                        alternative)
        return sigs[alternative]
    return sigs[key] if key in sigs else meta_graph_pb2.SignatureDef()


class SavedModelPredictor(_Predictor):
    """A predictor over one signature of a SavedModel."""

    def __init__(self, export_dir, signature_def_key=None, signature_def=None,
                 input_names=None, output_names=None, tags=None, graph=None, config=None):
        from tideflow.runtime.session import Session

        _check_signature_arguments(signature_def_key, signature_def, input_names, output_names)
        graph = graph or ops.Graph()
        if tags is None:
            tags = [_impl.SERVING]
        elif isinstance(tags, str):  # TF's form: comma-separated
            tags = tags.split(",")
        with graph.as_default():
            session = Session(config=config, graph=graph)
            meta_graph_def = _impl.load(session, tags, export_dir)
        if input_names is None:
            if signature_def is None:
                signature_def = _signature_def(meta_graph_def, signature_def_key)
            input_names = {k: v.name for k, v in signature_def.inputs.items()}
            output_names = {k: v.name for k, v in signature_def.outputs.items()}
        super().__init__(
            graph, session,
            {k: graph.get_tensor_by_name(name) for k, name in input_names.items()},
            {k: graph.get_tensor_by_name(name) for k, name in output_names.items()})

class CoreEstimatorPredictor(_Predictor):
    """A predictor over an Estimator's latest checkpoint: the graph the serving input
    receiver and the model_fn in PREDICT mode build, in a MonitoredSession."""

    def __init__(self, estimator, serving_input_receiver_fn, output_key=None, graph=None,
                 config=None):
        from tideflow.estimator.model_fn import ModeKeys
        from tideflow.train.monitored_session import ChiefSessionCreator, MonitoredSession

        graph = graph or ops.Graph()
        with graph.as_default():
            receiver = serving_input_receiver_fn()
            key = output_key or _impl.DEFAULT_SERVING_SIGNATURE_DEF_KEY
            spec = estimator.model_fn(receiver.features, None, ModeKeys.PREDICT,
                                      estimator.config)
            export_output = spec.export_outputs.get(key)
            if export_output is None:
                raise KeyError(f"output_key must be one of {spec.export_outputs.keys()}; "
                               f"got {key}")
            signature_def = export_output.as_signature_def(receiver.receiver_tensors)
            session = MonitoredSession(session_creator=ChiefSessionCreator(
                config=config, checkpoint_dir=estimator.model_dir))
        super().__init__(
            graph, session,
            {k: graph.get_tensor_by_name(v.name) for k, v in signature_def.inputs.items()},
            {k: graph.get_tensor_by_name(v.name) for k, v in signature_def.outputs.items()})


def from_estimator(estimator, serving_input_receiver_fn, output_key=None, graph=None,
                   config=None):
    """A predictor for ``estimator``'s export output ``output_key`` (default
    ``serving_default``) on the inputs ``serving_input_receiver_fn`` makes, restored from
    the estimator's latest checkpoint."""
    from tideflow import contrib_learn

    if isinstance(estimator, contrib_learn.Estimator):
        raise TypeError("Expected estimator to be of type tf.python.estimator.Estimator, but "
                        "got type tf.contrib.learn.Estimator. You likely want to call "
                        "from_contrib_estimator.")
    return CoreEstimatorPredictor(estimator, serving_input_receiver_fn, output_key=output_key,
                                  graph=graph, config=config)


def from_saved_model(export_dir, signature_def_key=None, signature_def=None, input_names=None,
                     output_names=None, tags=None, graph=None, config=None):
    """A predictor for the signature ``signature_def_key`` (default ``serving_default``) of
    the SavedModel in ``export_dir``, or for explicit ``input_names``/``output_names`` maps
    of keys to tensor names."""
    return SavedModelPredictor(export_dir, signature_def_key=signature_def_key,
                               signature_def=signature_def, input_names=input_names,
                               output_names=output_names, tags=tags, graph=graph,
                               config=config)
