"""``tf.keras.experimental`` (TF 1.14/1.15) and ``tf.contrib.saved_model``'s Keras functions
(TF 1.12/1.13): a Keras model as a SavedModel that TF Serving or ``tf.saved_model.loader``
can load (a ``serving_default`` predict signature keyed by the model's input and output
names), with the model's JSON config in ``assets/saved_model.json`` to rebuild it.

Only the serving MetaGraph is written (TF also wrote train/eval graphs for compiled models);
its variables are saved under their graph names."""

import json
import os
import time

from tideflow.compat import as_bytes, as_text
from tideflow.keras.data_utils import terminate_keras_multiprocessing_pools  # noqa: F401
from tideflow.keras.layers.dense_features import SequenceFeatures  # noqa: F401
from tideflow.keras.layers.recurrent import PeepholeLSTMCell  # noqa: F401
from tideflow.keras.optimizer_schedules import (  # noqa: F401 (tf.keras.experimental)
    CosineDecay,
    CosineDecayRestarts,
    LinearCosineDecay,
    NoisyLinearCosineDecay,
)
from tideflow.keras.premade import LinearModel, WideDeepModel  # noqa: F401

_CONFIG_ASSET = "saved_model.json"
_WEIGHTS_ASSET = "keras_weight_names.json"  # the checkpoint keys of model.weights, in order


def export_saved_model(model, saved_model_path, custom_objects=None, as_text=False,
                       input_signature=None, serving_only=False):
    """Writes ``model`` as a SavedModel in ``saved_model_path`` (which must not exist or be
    empty): the variables of the model's session and a ``serving_default`` signature from
    ``model.inputs`` to ``model.outputs``."""
    del custom_objects, input_signature, serving_only
    write_saved_model(model, saved_model_path, as_text)


def write_saved_model(model, saved_model_path, as_text=False, object_keys=False):
    """``export_saved_model``'s work. The variables are saved under their graph names, or with
    ``object_keys`` only the model's, under TF's object-based keys with their object graph."""
    from tideflow.keras import backend as K
    from tideflow.ops import saved_model_impl as sm
    from tideflow.ops import variables as tf_variables

    if not getattr(model, "inputs", None) or not getattr(model, "outputs", None):
        raise ValueError("Model must be built (called on inputs, or defined with an input "
                         "shape) before it can be exported to a SavedModel.")
    sess = K.get_session()
    signature = sm.predict_signature_def(
        inputs=dict(zip(model.input_names, model.inputs)),
        outputs=dict(zip(model.output_names, model.outputs)))
    saver = None
    names = [w.op.name for w in model.weights]
    if object_keys and model.weights:
        keys = model._checkpoint_keys()
        saver = model._saver_for(keys, object_graph=True)
        key_of = {id(v): k for k, v in keys}
        names = [key_of[id(w)] for w in model.weights]
    builder = sm._SavedModelBuilder(as_text_path(saved_model_path))
    # (TF 1.15 builds its graphs apart, and saves the variables with the model's
    # save_weights: the model's graph takes that save's op ids, the builder's ops others)
    with sess.graph.as_default(), sess.graph.aside_ids():
        builder.add_meta_graph_and_variables(
            sess, [sm.SERVING], signature_def_map={
                sm.DEFAULT_SERVING_SIGNATURE_DEF_KEY: signature}, strip_default_attrs=True,
            init_op=tf_variables.local_variables_initializer(),  # ('__saved_model_init_op')
            saver=saver)
    if hasattr(model, "_count_tf_checkpoint_ops"):
        model._count_tf_checkpoint_ops(model._checkpoint_keys(), saving=True)
    builder.save(as_text=as_text)
    assets = os.path.join(as_text_path(saved_model_path), "assets")
    os.makedirs(assets, exist_ok=True)
    with open(os.path.join(assets, _CONFIG_ASSET), "w") as f:
        f.write(model.to_json())
    with open(os.path.join(assets, _WEIGHTS_ASSET), "w") as f:
        json.dump(names, f)


def load_from_saved_model(saved_model_path, custom_objects=None):
    """The Keras model of a SavedModel written by ``export_saved_model``: rebuilt from its
    JSON config in the current graph, with the saved weights loaded."""
    from tideflow.keras import backend as K
    from tideflow.keras import models
    from tideflow.train import checkpoint_utils

    path = as_text_path(saved_model_path)
    with open(os.path.join(path, "assets", _CONFIG_ASSET)) as f:
        model = models.model_from_json(f.read(), custom_objects=custom_objects)
    with open(os.path.join(path, "assets", _WEIGHTS_ASSET)) as f:
        names = json.load(f)
    if len(names) != len(model.weights):
        raise ValueError(f"The SavedModel at {path} holds {len(names)} Keras weights but the "
                         f"model rebuilt from its config has {len(model.weights)}")
    reader = checkpoint_utils.load_checkpoint(os.path.join(path, "variables", "variables"))
    K.batch_set_value([(w, reader.get_tensor(n)) for w, n in zip(model.weights, names)])
    return model


def as_text_path(path):
    return as_text(os.fspath(path))


def save_keras_model(model, saved_model_path, custom_objects=None, as_text=None):
    """``tf.contrib.saved_model.save_keras_model``: exports into a new timestamped folder
    inside ``saved_model_path``; returns that folder's path (bytes, as TF)."""
    base = as_text_path(saved_model_path)
    export_dir = os.path.join(base, str(int(time.time())))
    while os.path.exists(export_dir):
        time.sleep(1)
        export_dir = os.path.join(base, str(int(time.time())))
    export_saved_model(model, export_dir, custom_objects=custom_objects,
                       as_text=bool(as_text))
    return as_bytes(export_dir)


def load_keras_model(saved_model_path, custom_objects=None):
    """``tf.contrib.saved_model.load_keras_model``."""
    return load_from_saved_model(saved_model_path, custom_objects)


__all__ = ["export_saved_model", "load_from_saved_model"]
