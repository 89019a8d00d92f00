"""``tf.estimator.export``: serving input receivers and the export outputs that become a
SavedModel's signatures."""

import collections

from tideflow import logging
from tideflow.framework import dtypes, ops, sparse_tensor
from tideflow.ops import constant_op, parsing_ops
from tideflow.ops import saved_model_impl as sm

_SINGLE_FEATURE_DEFAULT_NAME = "feature"
_SINGLE_RECEIVER_DEFAULT_NAME = "input"
_SINGLE_LABEL_DEFAULT_NAME = "label"


_SINGLE_DEFAULT_NAMES = {"feature": _SINGLE_FEATURE_DEFAULT_NAME,
                         "label": _SINGLE_LABEL_DEFAULT_NAME,
                         "receiver_tensor": _SINGLE_RECEIVER_DEFAULT_NAME,
                         "receiver_tensors_alternative": _SINGLE_RECEIVER_DEFAULT_NAME}


def _check_tensor(tensor, name, error_label="feature"):
    """A Tensor, SparseTensor or RaggedTensor; as TF, a value with a ``.tensor`` attribute
    (LabeledTensor) passes when it converts to a Tensor."""
    from tideflow.ops.ragged_tensor import RaggedTensor

    if isinstance(tensor, (ops.Tensor, sparse_tensor.SparseTensor, RaggedTensor)):
        return
    label = f"{error_label} {name}" if name else error_label
    # TF 1.15's words (a RaggedTensor is accepted as well)
    error = ValueError(f"{label} must be a Tensor or SparseTensor.")
    if hasattr(tensor, "tensor"):
        try:
            ops.convert_to_tensor(tensor)
        except (TypeError, ValueError):
            raise error from None
        return
    raise error


def _wrap_and_check_tensors(tensors, field_name, allow_int_keys=False):
    """``tensors`` as a dict (a single value named by its field), each key and value checked
    with TF's messages (``features must be defined``, ``feature keys must be strings or
    ints``, ``receiver_tensor x must be a Tensor or SparseTensor.``)."""
    if tensors is None:
        raise ValueError(f"{field_name}s must be defined.")
    if not isinstance(tensors, dict):
        tensors = {_SINGLE_DEFAULT_NAMES[field_name]: tensors}
    for name, tensor in tensors.items():
        if not isinstance(name, str):
            if not allow_int_keys:
                raise ValueError(f"{field_name} keys must be strings: {name}.")
            if not isinstance(name, int):
                raise ValueError(f"{field_name} keys must be strings or ints: {name}.")  # noqa: TRY004 - as TF
        _check_tensor(tensor, name, field_name)
    return tensors


class ServingInputReceiver(collections.namedtuple(
        "ServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """The features a served model sees, and the tensors a request feeds."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        features = _wrap_and_check_tensors(features, "feature", allow_int_keys=True)
        receiver_tensors = _wrap_and_check_tensors(receiver_tensors, "receiver_tensor")
        if receiver_tensors_alternatives is not None:
            if not isinstance(receiver_tensors_alternatives, dict):
                raise ValueError("receiver_tensors_alternatives must be a dict: "
                                 f"{receiver_tensors_alternatives}.")
            # as TF, the caller's dict is updated in place
            for k, v in receiver_tensors_alternatives.items():
                receiver_tensors_alternatives[k] = _wrap_and_check_tensors(
                    v, "receiver_tensors_alternative")
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=receiver_tensors_alternatives)


class TensorServingInputReceiver(collections.namedtuple(
        "TensorServingInputReceiver",
        ["features", "receiver_tensors", "receiver_tensors_alternatives"])):
    """A receiver whose features are a single Tensor (passed to model_fn unwrapped)."""

    def __new__(cls, features, receiver_tensors, receiver_tensors_alternatives=None):
        if features is None:
            raise ValueError("features must be defined.")
        _check_tensor(features, None)
        receiver = ServingInputReceiver(features, receiver_tensors,
                                        receiver_tensors_alternatives)
        return super().__new__(cls, features=features,
                               receiver_tensors=receiver.receiver_tensors,
                               receiver_tensors_alternatives=(
                                   receiver.receiver_tensors_alternatives))


class UnsupervisedInputReceiver(ServingInputReceiver):
    """The features and receiver tensors of an unsupervised model's input (no alternatives)."""

    def __new__(cls, features, receiver_tensors):
        return super().__new__(cls, features=features, receiver_tensors=receiver_tensors,
                               receiver_tensors_alternatives=None)


class SupervisedInputReceiver(collections.namedtuple(
        "SupervisedInputReceiver", ["features", "labels", "receiver_tensors"])):
    """Features, labels (each a Tensor or a dict of them, kept as given) and the tensors a
    request feeds: the input of a model exported for training or evaluation."""

    def __new__(cls, features, labels, receiver_tensors):
        _wrap_and_check_tensors(features, "feature", allow_int_keys=True)
        _wrap_and_check_tensors(labels, "label", allow_int_keys=True)
        receiver_tensors = _wrap_and_check_tensors(receiver_tensors, "receiver_tensor")
        return super().__new__(cls, features=features, labels=labels,
                               receiver_tensors=receiver_tensors)


def _placeholder_like(t, default_batch_size):
    shape = None
    if t.shape.ndims is not None:
        shape = [default_batch_size] + t.shape.as_list()[1:] if t.shape.ndims else []
    return constant_op.placeholder(dtype=t.dtype, shape=shape, name=t.op.name)


def build_raw_supervised_input_receiver_fn(features, labels, default_batch_size=None):
    """An input_receiver_fn feeding placeholders shaped like ``features`` and ``labels``
    (a single feature is fed as ``input``, a single label as ``label``)."""
    if isinstance(features, dict) and isinstance(labels, dict):
        overlap = set(features) & set(labels)
        if overlap:
            raise ValueError("Features and labels must have distinct keys. Found overlapping "
                             f"keys: {overlap}")

    def supervised_input_receiver_fn():
        feats = features if isinstance(features, dict) else {
            _SINGLE_RECEIVER_DEFAULT_NAME: features}
        labs = labels if isinstance(labels, dict) else {_SINGLE_LABEL_DEFAULT_NAME: labels}
        feat_ph = {k: _placeholder_like(t, default_batch_size) for k, t in feats.items()}
        label_ph = {k: _placeholder_like(t, default_batch_size) for k, t in labs.items()}
        receiver = dict(feat_ph)
        receiver.update(label_ph)
        out_features = feat_ph if isinstance(features, dict) else (
            feat_ph[_SINGLE_RECEIVER_DEFAULT_NAME])
        out_labels = label_ph if isinstance(labels, dict) else label_ph[_SINGLE_LABEL_DEFAULT_NAME]
        return SupervisedInputReceiver(out_features, out_labels, receiver)

    return supervised_input_receiver_fn


def build_supervised_input_receiver_fn_from_input_fn(input_fn, **input_fn_args):
    """An input_receiver_fn with placeholders like the features and labels ``input_fn``
    returns (called once, in a graph of its own, to learn their dtypes and shapes)."""
    from tideflow.estimator.estimator import parse_input_fn_result

    with ops.Graph().as_default():
        features, labels, _ = parse_input_fn_result(input_fn(**input_fn_args))
    return build_raw_supervised_input_receiver_fn(features, labels)


def build_parsing_serving_input_receiver_fn(feature_spec, default_batch_size=None):
    """A serving_input_receiver_fn that parses serialized ``tf.Example`` protos."""

    def serving_input_receiver_fn():
        serialized = constant_op.placeholder(dtype=dtypes.string, shape=[default_batch_size],
                                           name="input_example_tensor")
        features = parsing_ops.parse_example(serialized, feature_spec)
        return ServingInputReceiver(features, {"examples": serialized})

    return serving_input_receiver_fn


def build_raw_serving_input_receiver_fn(features, default_batch_size=None):
    """A serving_input_receiver_fn that feeds placeholders shaped like ``features`` (a dict:
    TF 1.15's fn fails on a single Tensor, an AttributeError)."""

    def serving_input_receiver_fn():
        receiver = {}
        for name, t in features.items():
            shape = [default_batch_size]
            if t.shape.ndims is not None:
                shape += t.shape.as_list()[1:]
            else:
                shape = None
            receiver[name] = constant_op.placeholder(dtype=t.dtype, shape=shape,
                                                   name=t.op.name)
        return ServingInputReceiver(receiver, receiver)

    return serving_input_receiver_fn


# ----------------------------------------------------------------------------------------
# export outputs
# ----------------------------------------------------------------------------------------


class ExportOutput:
    """One output signature of an exported model."""

    def as_signature_def(self, receiver_tensors):
        raise NotImplementedError


def _single_string_input(receiver_tensors, kind):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{kind} input must be a single string Tensor; "
                         f"got {receiver_tensors}")
    (examples,) = receiver_tensors.values()
    if not isinstance(examples, ops.Tensor) or examples.dtype != dtypes.string:
        raise ValueError(f"{kind} input must be a single string Tensor; "
                         f"got {receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Scores (float32 [batch, n]) and/or classes (string [batch, n]) for Classify."""

    def __init__(self, scores=None, classes=None):
        if scores is not None and not (isinstance(scores, ops.Tensor)
                                       and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, ops.Tensor)
                                        and classes.dtype == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self._scores = scores
        self._classes = classes

    scores = property(lambda self: self._scores)
    classes = property(lambda self: self._classes)

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Classification")
        return sm.classification_signature_def(examples, self._classes, self._scores)


class RegressionOutput(ExportOutput):
    """A float32 value per example, for Regress."""

    def __init__(self, value):
        if not (isinstance(value, ops.Tensor) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self._value = value

    value = property(lambda self: self._value)

    def as_signature_def(self, receiver_tensors):
        examples = _single_string_input(receiver_tensors, "Regression")
        return sm.regression_signature_def(examples, self._value)


class PredictOutput(ExportOutput):
    """Any named tensors, for Predict."""

    def __init__(self, outputs):
        if not isinstance(outputs, dict):
            outputs = {"output": outputs}
        for key, value in outputs.items():
            if not isinstance(key, str):
                raise ValueError(f"Prediction output key must be a string; got {key}.")  # noqa: TRY004 - as TF
            if not isinstance(value, ops.Tensor):
                raise ValueError(f"Prediction output value must be a Tensor; got {value}.")  # noqa: TRY004 - as TF
        self._outputs = dict(outputs)

    outputs = property(lambda self: self._outputs)

    def as_signature_def(self, receiver_tensors):
        return sm.predict_signature_def(receiver_tensors, self._outputs)


def check_export_outputs(export_outputs):
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for v in export_outputs.values():
        if not isinstance(v, ExportOutput):
            raise TypeError(f"Values in export_outputs must be ExportOutput objects. "
                            f"Given: {export_outputs}")


def get_export_outputs(export_outputs, predictions):
    """The export outputs of a PREDICT spec, with a default serving signature."""
    if export_outputs is None:
        return {sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions)}
    check_export_outputs(export_outputs)
    export_outputs = dict(export_outputs)
    if sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in export_outputs:
        if len(export_outputs) == 1:
            (only,) = export_outputs.values()
            export_outputs[sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY] = only
        else:
            raise ValueError(
                "Multiple export_outputs were provided, but none of them is specified as the "
                "default.  Do this by naming one of them with "
                "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs


_FRIENDLY_METHOD_NAMES = {
    sm.CLASSIFY_METHOD_NAME: "Classify",
    sm.REGRESS_METHOD_NAME: "Regress",
    sm.PREDICT_METHOD_NAME: "Predict",
    "tensorflow/supervised/training": "Train",
    "tensorflow/supervised/eval": "Eval",
}


def _log_signature_report(signatures, excluded):
    """TF's export report: the included signatures by method (INFO), the excluded ones with
    the reason (INFO), and a warning when no default signature is left."""
    by_method = {name: [] for name in _FRIENDLY_METHOD_NAMES}
    for key, sig in signatures.items():
        by_method.setdefault(sig.method_name, []).append(key)
    for method, keys in by_method.items():
        logging.info("Signatures INCLUDED in export for %s: %s",
                     _FRIENDLY_METHOD_NAMES.get(method, method), keys or "None")
    if excluded:
        logging.info("Signatures EXCLUDED from export because they cannot be be served via "
                     "TensorFlow Serving APIs:")
        for key, message in excluded.items():
            logging.info("'%s' : %s", key, message)
    if not signatures:
        logging.warning("Export includes no signatures!")
    elif sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signatures:
        logging.warning("Export includes no default signature!")


def build_all_signature_defs(receiver_tensors, export_outputs,
                             receiver_tensors_alternatives=None):
    """{signature key: SignatureDef} for every (receiver, export output) pair; invalid pairs
    (a Classify signature over non-string inputs) are left out with a warning, as in TF."""
    signatures, excluded = {}, {}
    receivers = {None: receiver_tensors}
    receivers.update(receiver_tensors_alternatives or {})
    for receiver_name, tensors in receivers.items():
        for output_key, output in export_outputs.items():
            key = output_key if receiver_name is None else f"{receiver_name}:{output_key}"
            try:
                signatures[key] = output.as_signature_def(tensors)
            except ValueError as e:
                excluded[key] = str(e)
    # With none left TF 1.15 only warns ("Export includes no signatures!") and the SavedModel
    # is written without signatures (a RegressionOutput over float placeholders, as in the
    # GCP course's simplernn model).
    _log_signature_report(signatures, excluded)
    return signatures


__all__ = ["ClassificationOutput", "ExportOutput", "PredictOutput", "RegressionOutput",
           "ServingInputReceiver", "SupervisedInputReceiver", "TensorServingInputReceiver",
           "UnsupervisedInputReceiver", "build_parsing_serving_input_receiver_fn",
           "build_raw_serving_input_receiver_fn", "build_raw_supervised_input_receiver_fn",
           "build_supervised_input_receiver_fn_from_input_fn"]
