"""``tf.contrib.estimator.SavedModelEstimator``: an Estimator whose model is a SavedModel
exported by an Estimator (``experimental_export_all_saved_models`` / ``export_saved_model``):
each mode imports that mode's MetaGraphDef with the input function's tensors mapped onto its
signature's inputs, and its variables start from the SavedModel's."""

from tideflow import logging
from tideflow.estimator import estimator as estimator_lib
from tideflow.estimator.export import _wrap_and_check_tensors
from tideflow.estimator.model_fn import EstimatorSpec, ModeKeys
from tideflow.framework import dtypes, ops, tensor_shape
from tideflow.ops import saved_model_impl as sm
from tideflow.train import checkpoint_utils, monitored_session, training_util

_SEPARATOR = "/"
_TRAIN_METHOD = "tensorflow/supervised/training"
_EVAL_METHOD = "tensorflow/supervised/eval"


class SavedModelEstimator(estimator_lib.Estimator):
    """Trains, evaluates and predicts with the graphs of the SavedModel in
    ``saved_model_dir`` (the modes it was exported for), writing checkpoints to
    ``model_dir``."""

    def __init__(self, saved_model_dir, model_dir=None):
        checkpoint = sm.get_variables_path(_as_str(saved_model_dir))
        names = [name for name, _ in checkpoint_utils.list_variables(checkpoint)]
        warm_start = estimator_lib.WarmStartSettings(ckpt_to_initialize_from=checkpoint,
                                                     vars_to_warm_start=names)
        super().__init__(model_fn=self._model_fn_from_saved_model, model_dir=model_dir,
                         warm_start_from=warm_start)
        self.saved_model_dir = saved_model_dir
        self.saved_model_loader = sm.SavedModelLoader(saved_model_dir)
        self._available_modes = self._extract_available_modes()

    def _extract_available_modes(self):
        available = []
        logging.info("Checking available modes for SavedModelEstimator.")
        for mode in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            try:
                self._get_meta_graph_def_for_mode(mode)
            except RuntimeError:
                logging.warning("%s mode not found in SavedModel." % mode)  # noqa: UP031 - TF's
                continue
            if self._get_signature_def_for_mode(mode) is not None:
                available.append(mode)
        logging.info("Available modes for Estimator: %s" % available)  # noqa: UP031 - TF's
        return available

    def _validate_mode(self, mode):
        if mode not in self._available_modes:
            raise RuntimeError(f"{mode} mode is not available in the SavedModel. Use "
                               "saved_model_cli to check that the Metagraph for this mode has "
                               "been exported.")

    def _get_meta_graph_def_for_mode(self, mode):
        return self.saved_model_loader.get_meta_graph_def_from_tags(
            estimator_lib._EXPORT_TAGS[mode])

    def _get_signature_def_for_mode(self, mode):
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        key = sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY if mode == ModeKeys.PREDICT else mode
        if key not in meta_graph_def.signature_def:
            logging.warning(f'Metagraph for mode {mode} was found, but SignatureDef with key '
                            f'"{key}" is missing.')
            return None
        return meta_graph_def.signature_def[key]

    def _create_and_assert_global_step(self, graph):
        # the global step comes with the SavedModel's graph
        return None

    def _model_fn_from_saved_model(self, features, labels, mode):
        self._validate_mode(mode)
        g = ops.get_default_graph()
        if training_util.get_global_step(g) is not None:
            raise RuntimeError("Graph must not contain a global step tensor before the "
                               "SavedModel is loaded. Please make sure that the input "
                               "function does not create a global step.")
        signature_def = self._get_signature_def_for_mode(mode)
        input_map = _generate_input_map(signature_def, features, labels)
        output_names = [value.name for value in signature_def.outputs.values()]
        _, output_tensors = self.saved_model_loader.load_graph(
            g, estimator_lib._EXPORT_TAGS[mode], input_map=input_map,
            return_elements=output_names)
        meta_graph_def = self._get_meta_graph_def_for_mode(mode)
        scaffold = monitored_session.Scaffold(local_init_op=sm._init_op(meta_graph_def, None))
        training_util.assert_global_step(training_util.get_global_step(g))
        by_name = dict(zip(output_names, output_tensors, strict=True))
        outputs = {key: by_name[value.name] for key, value in signature_def.outputs.items()}
        loss, predictions, metrics = _validate_and_extract_outputs(
            mode, outputs, signature_def.method_name)
        train_op = ops.get_collection(sm.TRAIN_OP_KEY)
        if len(train_op) > 1:
            raise RuntimeError("Multiple ops found in the train_op collection.")
        train_op = train_op[0] if train_op else None
        _clear_saved_model_collections()
        return EstimatorSpec(scaffold=scaffold, mode=mode, loss=loss, train_op=train_op,
                             predictions=predictions, eval_metric_ops=metrics)


def _as_str(path):
    return path.decode() if isinstance(path, bytes) else path


def _clear_saved_model_collections():
    for key in (sm.ASSETS_KEY, sm.LEGACY_INIT_OP_KEY, sm.MAIN_OP_KEY, sm.TRAIN_OP_KEY):
        del ops.get_collection_ref(key)[:]


def _generate_input_map(signature_def, features, labels):
    """The signature's input tensor names (and their ``^`` control names) mapped to the input
    function's tensors of the same keys."""
    features = _wrap_and_check_tensors(features, "feature")
    if labels is not None:
        labels = _wrap_and_check_tensors(labels, "label")
    input_map = {}
    for key, tensor_info in signature_def.inputs.items():
        input_name = tensor_info.name.partition(":")[0]
        if key in features:
            value = features[key]
        elif labels is not None and key in labels:
            value = labels[key]
        else:
            raise ValueError(f'Key "{key}" not found in features or labels passed in to the '
                             f"model function. All required keys: "
                             f"{signature_def.inputs.keys()}")
        _check_same_dtype_and_shape(value, tensor_info, key)
        input_map[input_name] = input_map["^" + input_name] = value
    return input_map


def _check_same_dtype_and_shape(tensor, tensor_info, name):
    expected_dtype = dtypes.as_dtype(tensor_info.dtype)
    expected_shape = tensor_shape.TensorShape(tensor_info.tensor_shape)
    dtype_error = tensor.dtype != expected_dtype
    shape_error = not tensor.shape.is_compatible_with(expected_shape)
    if dtype_error or shape_error:
        msg = f"Tensor shape and/or dtype validation failed for input {name}:"
        if dtype_error:
            msg += f"\n\tExpected dtype: {expected_dtype}, Got: {tensor.dtype}"
        if shape_error:
            msg += f"\n\tExpected shape: {expected_shape}, Got: {tensor.shape}"
        raise ValueError(msg)


def _extract_eval_metrics(output_dict):
    """``{"metrics/<name>": (value, update)}`` from the signature's ``metrics/<name>/value``
    and ``.../update_op`` outputs (the names keep their prefix, as TF's)."""
    metric_ops = {}
    for key, tensor in output_dict.items():
        parts = key.split(_SEPARATOR)
        name = _SEPARATOR.join(parts[:-1])
        if parts[0] == "metrics" and parts[-1] == "value":
            update = f"{name}{_SEPARATOR}update_op"
            if update in output_dict:
                metric_ops[name] = (tensor, output_dict[update])
    return metric_ops


def _validate_and_extract_outputs(mode, output_dict, method_name):
    if mode == ModeKeys.PREDICT:
        return None, output_dict, None
    expected = _EVAL_METHOD if mode == ModeKeys.EVAL else _TRAIN_METHOD
    if method_name != expected:
        raise RuntimeError(f"Invalid SignatureDef method name for mode {mode}.\n\tExpected: "
                           f"{expected}\n\tGot: {method_name}\nPlease ensure that the "
                           "SavedModel was exported with "
                           "`tf.estimator.experimental_export_all_saved_models()`.")
    loss = output_dict["loss"]
    metrics = _extract_eval_metrics(output_dict)
    predictions = {k: v for k, v in output_dict.items()
                   if k.split(_SEPARATOR)[0] == "predictions"}
    return loss, predictions, metrics


__all__ = ["SavedModelEstimator"]
