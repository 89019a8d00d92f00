"""``tf.saved_model`` (TF 1.x): the SavedModel builder, loader, signature helpers and constants,
with the ``builder``, ``loader``, ``utils``, ``signature_def_utils``, ``tag_constants``,
``signature_constants``, ``constants`` and ``main_op`` sub-namespaces (explicit re-exports only).
"""

import types

from tideflow.ops import saved_model_impl as _impl
from tideflow.ops.saved_model_impl import (
    ASSETS_DIRECTORY,
    ASSETS_KEY,
    CLASSIFY_INPUTS,
    CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES,
    CLASSIFY_OUTPUT_SCORES,
    DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    LEGACY_INIT_OP_KEY,
    MAIN_OP_KEY,
    PREDICT_INPUTS,
    PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS,
    REGRESS_INPUTS,
    REGRESS_METHOD_NAME,
    REGRESS_OUTPUTS,
    SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION,
    SUPERVISED_EVAL_METHOD_NAME,
    SUPERVISED_TRAIN_METHOD_NAME,
    VARIABLES_DIRECTORY,
    VARIABLES_FILENAME,
    SavedModelBuilder,
    build_signature_def,
    build_tensor_info,
    classification_signature_def,
    contains_saved_model,
    get_tensor_from_tensor_info,
    is_valid_signature,
    load,
    main_op_with_restore,
    maybe_saved_model_directory,
    predict_signature_def,
    regression_signature_def,
    simple_save,
)


def save(obj, export_dir, signatures=None, options=None):
    """``tf.saved_model.save`` in TF 1.15's graph mode, for Keras models: a built model gets a
    ``serving_default`` predict signature keyed by its input and output names (as
    ``tf.keras.experimental.export_saved_model``), an unbuilt one a MetaGraph with no
    signature. An existing ``export_dir`` is written over, as TF does."""
    import os
    import shutil
    import tempfile

    from tideflow.keras import backend as K
    from tideflow.keras import experimental as keras_experimental
    from tideflow.keras.engine.training import Model
    from tideflow.train.saver import Saver
    from tideflow.train.trackable_checkpoint import _is_trackable_base

    del options
    if not _is_trackable_base(obj) and not hasattr(obj, "_checkpoint_dependencies"):
        raise ValueError(f"Expected a Trackable object for export, got {obj}.")
    if signatures is not None:
        raise NotImplementedError(
            "tf.saved_model.save: signatures need concrete tf.functions, which tideflow's "
            "graph mode does not make; export with the model's own inputs and outputs "
            "(signatures=None) or build SignatureDefs with tf.saved_model.builder")
    if not isinstance(obj, Model):
        raise NotImplementedError(
            f"tf.saved_model.save: tideflow writes SavedModels of Keras models, not of "
            f"{type(obj).__name__}; save it with tf.train.Checkpoint, or build a SavedModel "
            "with tf.saved_model.simple_save or tf.saved_model.builder")
    export_dir = keras_experimental.as_text_path(export_dir)
    parent = os.path.dirname(os.path.abspath(export_dir))
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".saved_model_", dir=parent)
    try:
        target = os.path.join(staging, "model")
        # only the model's own variables are saved (others in the graph may be uninitialized),
        # under TF's object-based keys
        if getattr(obj, "inputs", None) and getattr(obj, "outputs", None):
            keras_experimental.write_saved_model(obj, target, object_keys=True)
        else:
            with K.get_session().graph.as_default():
                saver = Saver(var_list=obj.weights, allow_empty=True)
            builder = _impl._SavedModelBuilder(target)
            sess = K.get_session()
            with sess.graph.as_default():
                builder.add_meta_graph_and_variables(sess, [SERVING], strip_default_attrs=True,
                                                     saver=saver)
            builder.save()
        os.makedirs(export_dir, exist_ok=True)
        for entry in os.listdir(target):
            dest = os.path.join(export_dir, entry)
            if os.path.isdir(dest):
                shutil.rmtree(dest)
            os.replace(os.path.join(target, entry), dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _namespace(name, doc, **members):
    m = types.ModuleType(f"tideflow.saved_model.{name}", doc)
    for k, v in members.items():
        setattr(m, k, v)
    m.__all__ = sorted(members)
    return m


Builder = SavedModelBuilder
builder = _namespace("builder", "SavedModelBuilder.", SavedModelBuilder=SavedModelBuilder,
                     _SavedModelBuilder=_impl._SavedModelBuilder)
loader = _namespace("loader", "Loading SavedModels.", load=load,
                    maybe_saved_model_directory=maybe_saved_model_directory,
                    SavedModelLoader=_impl.SavedModelLoader)
utils = _namespace("utils", "TensorInfo helpers.", build_tensor_info=build_tensor_info,
                   get_tensor_from_tensor_info=get_tensor_from_tensor_info,
                   build_tensor_info_from_op=_impl.build_tensor_info_from_op,
                   get_element_from_tensor_info=_impl.get_element_from_tensor_info)
signature_def_utils = _namespace(
    "signature_def_utils", "SignatureDef helpers.", build_signature_def=build_signature_def,
    predict_signature_def=predict_signature_def,
    regression_signature_def=regression_signature_def,
    classification_signature_def=classification_signature_def,
    is_valid_signature=is_valid_signature,
    supervised_train_signature_def=_impl.supervised_train_signature_def,
    supervised_eval_signature_def=_impl.supervised_eval_signature_def,
    op_signature_def=_impl.op_signature_def,
    load_op_from_signature_def=_impl.load_op_from_signature_def)
tag_constants = _namespace("tag_constants", "MetaGraphDef tags.", SERVING=_impl.SERVING,
                           TRAINING=_impl.TRAINING, EVAL=_impl.EVAL, GPU=_impl.GPU,
                           TPU=_impl.TPU)
signature_constants = _namespace(
    "signature_constants", "SignatureDef keys and method names.",
    DEFAULT_SERVING_SIGNATURE_DEF_KEY=DEFAULT_SERVING_SIGNATURE_DEF_KEY,
    CLASSIFY_INPUTS=CLASSIFY_INPUTS, CLASSIFY_METHOD_NAME=CLASSIFY_METHOD_NAME,
    CLASSIFY_OUTPUT_CLASSES=CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES=CLASSIFY_OUTPUT_SCORES,
    PREDICT_INPUTS=PREDICT_INPUTS, PREDICT_METHOD_NAME=PREDICT_METHOD_NAME,
    PREDICT_OUTPUTS=PREDICT_OUTPUTS, REGRESS_INPUTS=REGRESS_INPUTS,
    REGRESS_METHOD_NAME=REGRESS_METHOD_NAME, REGRESS_OUTPUTS=REGRESS_OUTPUTS,
    SUPERVISED_TRAIN_METHOD_NAME=SUPERVISED_TRAIN_METHOD_NAME,
    SUPERVISED_EVAL_METHOD_NAME=SUPERVISED_EVAL_METHOD_NAME)
constants = _namespace(
    "constants", "SavedModel file and collection names.", ASSETS_DIRECTORY=ASSETS_DIRECTORY,
    ASSETS_KEY=ASSETS_KEY, LEGACY_INIT_OP_KEY=LEGACY_INIT_OP_KEY, MAIN_OP_KEY=MAIN_OP_KEY,
    SAVED_MODEL_FILENAME_PB=SAVED_MODEL_FILENAME_PB,
    SAVED_MODEL_FILENAME_PBTXT=SAVED_MODEL_FILENAME_PBTXT,
    SAVED_MODEL_SCHEMA_VERSION=SAVED_MODEL_SCHEMA_VERSION,
    VARIABLES_DIRECTORY=VARIABLES_DIRECTORY, VARIABLES_FILENAME=VARIABLES_FILENAME,
    EXTRA_ASSETS_DIRECTORY=_impl.EXTRA_ASSETS_DIRECTORY, TRAIN_OP_KEY=_impl.TRAIN_OP_KEY,
    INIT_OP_SIGNATURE_KEY=_impl.INIT_OP_SIGNATURE_KEY,
    TRAIN_OP_SIGNATURE_KEY=_impl.TRAIN_OP_SIGNATURE_KEY, DEBUG_DIRECTORY="debug",
    DEBUG_INFO_FILENAME_PB="saved_model_debug_info.pb")
# the tag names and debug-file constants at the top of the namespace, as tf.saved_model has them
SERVING, TRAINING, GPU, TPU = _impl.SERVING, _impl.TRAINING, _impl.GPU, _impl.TPU
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"


def load_v2(export_dir, tags=None):
    """``tf.saved_model.load_v2`` (TF 1.15's graph mode): the SavedModel as an object with
    ``signatures`` and ``variables``, its variables made in the default graph (see
    ``ops/saved_model_load_v2.py``)."""
    from tideflow.ops.saved_model_load_v2 import load_v2 as _load_v2

    return _load_v2(export_dir, tags)


# TF 1.15's tf.saved_model.experimental holds save alone
experimental = _namespace("experimental", "``tf.saved_model.experimental``: save.", save=save)
main_op = _namespace("main_op", "SavedModel init ops.", main_op=_impl.main_op,
                     main_op_with_restore=main_op_with_restore)

__all__ = [
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
    "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
    "GPU",
    "PREDICT_INPUTS",
    "PREDICT_METHOD_NAME",
    "PREDICT_OUTPUTS",
    "SERVING",
    "TPU",
    "TRAINING",
    "Builder",
    "SavedModelBuilder",
    "build_signature_def",
    "build_tensor_info",
    "builder",
    "classification_signature_def",
    "constants",
    "contains_saved_model",
    "experimental",
    "get_tensor_from_tensor_info",
    "is_valid_signature",
    "load",
    "load_v2",
    "loader",
    "main_op",
    "maybe_saved_model_directory",
    "predict_signature_def",
    "regression_signature_def",
    "save",
    "signature_constants",
    "signature_def_utils",
    "simple_save",
    "tag_constants",
    "utils",
]
