"""SavedModel (TF 1.x): ``saved_model.pb`` holding tagged MetaGraphDefs with SignatureDefs, plus
``variables/variables.*`` (a checkpoint) and ``assets/``; the builder, loader and signature helpers.
"""

import contextlib
import os
import shutil

from tideflow.framework import dtypes, ops
from tideflow.framework.sparse_tensor import SparseTensor
from tideflow.protos import meta_graph_pb2, saved_model_pb2

# -- constants --------------------------------------------------------------------------------
SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
EXTRA_ASSETS_DIRECTORY = "assets.extra"
ASSETS_KEY = "saved_model_assets"
LEGACY_INIT_OP_KEY = "legacy_init_op"
MAIN_OP_KEY = "saved_model_main_op"
TRAIN_OP_KEY = "saved_model_train_op"
INIT_OP_SIGNATURE_KEY = "__saved_model_init_op"
TRAIN_OP_SIGNATURE_KEY = "__saved_model_train_op"

# tag_constants
SERVING = "serve"
TRAINING = "train"
EVAL = "eval"
GPU = "gpu"
TPU = "tpu"

# signature_constants
DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
CLASSIFY_INPUTS = "inputs"
CLASSIFY_METHOD_NAME = "tensorflow/serving/classify"
CLASSIFY_OUTPUT_CLASSES = "classes"
CLASSIFY_OUTPUT_SCORES = "scores"
PREDICT_INPUTS = "inputs"
PREDICT_METHOD_NAME = "tensorflow/serving/predict"
PREDICT_OUTPUTS = "outputs"
REGRESS_INPUTS = "inputs"
REGRESS_METHOD_NAME = "tensorflow/serving/regress"
REGRESS_OUTPUTS = "outputs"
SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"


def get_variables_dir(export_dir):
    return os.path.join(os.fsdecode(export_dir), VARIABLES_DIRECTORY)


def get_variables_path(export_dir):
    return os.path.join(get_variables_dir(export_dir), VARIABLES_FILENAME)


def get_or_create_variables_dir(export_dir):
    d = get_variables_dir(export_dir)
    os.makedirs(d, exist_ok=True)
    return d


def get_assets_dir(export_dir):
    return os.path.join(os.fsdecode(export_dir), ASSETS_DIRECTORY)


# -- TensorInfo / SignatureDef ----------------------------------------------------------------


def build_tensor_info(tensor):
    """The TensorInfo (name or COO sparse names, dtype, shape) of a Tensor or SparseTensor."""
    # TF 1.x records the tensor's own dtype: a ref variable's is DT_FLOAT_REF and the like
    info = meta_graph_pb2.TensorInfo(dtype=tensor.dtype.as_datatype_enum)
    shape = tensor.get_shape()
    info.tensor_shape.CopyFrom(shape.as_proto())
    if isinstance(tensor, SparseTensor):
        info.coo_sparse.values_tensor_name = tensor.values.name
        info.coo_sparse.indices_tensor_name = tensor.indices.name
        info.coo_sparse.dense_shape_tensor_name = tensor.dense_shape.name
    else:
        info.name = tensor.name
    return info


def get_tensor_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The Tensor (or SparseTensor) a TensorInfo names in ``graph``."""
    from tideflow.framework.meta_graph import prepend_name_scope

    graph = graph or ops.get_default_graph()

    def get(name):
        return graph.get_tensor_by_name(prepend_name_scope(name, import_scope))

    enc = tensor_info.WhichOneof("encoding")
    if enc == "name":
        return get(tensor_info.name)
    if enc == "coo_sparse":
        c = tensor_info.coo_sparse
        return SparseTensor(get(c.indices_tensor_name), get(c.values_tensor_name),
                            get(c.dense_shape_tensor_name))
    raise ValueError(f"Invalid TensorInfo.encoding: {enc}")


def build_signature_def(inputs=None, outputs=None, method_name=None):
    """A SignatureDef from {key: TensorInfo} maps and a method name."""
    sig = meta_graph_pb2.SignatureDef()
    for k, v in (inputs or {}).items():
        sig.inputs[k].CopyFrom(v)
    for k, v in (outputs or {}).items():
        sig.outputs[k].CopyFrom(v)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    """A predict SignatureDef from {key: Tensor} maps."""
    if inputs is None or not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()},
                               PREDICT_METHOD_NAME)


def regression_signature_def(examples, predictions):
    """A regress SignatureDef: string ``examples`` in, float ``predictions`` out."""
    if examples is None:
        raise ValueError("Regression examples cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError("Regression examples must be a string Tensor.")  # noqa: TRY004 - as TF
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    if examples.dtype.base_dtype != dtypes.string:
        raise ValueError("Regression examples must be a string Tensor.")
    info = build_tensor_info(predictions)
    if info.dtype != dtypes.float32.as_datatype_enum:
        raise ValueError("Regression output must be a float Tensor.")
    return build_signature_def({REGRESS_INPUTS: build_tensor_info(examples)},
                               {REGRESS_OUTPUTS: info}, REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores):
    """A classify SignatureDef: string ``examples`` in, ``classes`` and/or ``scores`` out."""
    if examples is None:
        raise ValueError("Classification examples cannot be None.")
    if not isinstance(examples, ops.Tensor):
        raise ValueError(  # noqa: TRY004 - as TF
            "Classification examples must be a string Tensor.")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    if examples.dtype.base_dtype != dtypes.string:
        raise ValueError("Classification examples must be a string Tensor.")
    outputs = {}
    if classes is not None:
        outputs[CLASSIFY_OUTPUT_CLASSES] = build_tensor_info(classes)
        if outputs[CLASSIFY_OUTPUT_CLASSES].dtype != dtypes.string.as_datatype_enum:
            raise ValueError("Classification classes must be a string Tensor.")
    if scores is not None:
        outputs[CLASSIFY_OUTPUT_SCORES] = build_tensor_info(scores)
        if outputs[CLASSIFY_OUTPUT_SCORES].dtype != dtypes.float32.as_datatype_enum:
            raise ValueError("Classification scores must be a float Tensor.")
    return build_signature_def({CLASSIFY_INPUTS: build_tensor_info(examples)}, outputs,
                               CLASSIFY_METHOD_NAME)


def _supervised_signature_def(method_name, inputs, loss=None, predictions=None, metrics=None):
    if inputs is None or not inputs:
        raise ValueError(f"{method_name} inputs cannot be None or empty.")
    outputs = {}
    for group in (loss, predictions, metrics):
        outputs.update({k: build_tensor_info(t) for k, t in (group or {}).items()})
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()}, outputs,
                               method_name)


def supervised_train_signature_def(inputs, loss=None, predictions=None, metrics=None):
    """A training SignatureDef: ``inputs`` in; the loss, prediction and metric maps out."""
    return _supervised_signature_def(SUPERVISED_TRAIN_METHOD_NAME, inputs, loss, predictions,
                                     metrics)


def supervised_eval_signature_def(inputs, loss=None, predictions=None, metrics=None):
    """An evaluation SignatureDef: ``inputs`` in; the loss, prediction and metric maps out."""
    return _supervised_signature_def(SUPERVISED_EVAL_METHOD_NAME, inputs, loss, predictions,
                                     metrics)


def build_tensor_info_from_op(op):
    """A TensorInfo naming an Operation (no dtype, unknown shape), for op signatures."""
    info = meta_graph_pb2.TensorInfo(name=op.name)  # dtype DT_INVALID (0)
    info.tensor_shape.unknown_rank = True
    return info


def get_element_from_tensor_info(tensor_info, graph=None, import_scope=None):
    """The graph element (Operation or Tensor) a TensorInfo's name names."""
    from tideflow.framework.meta_graph import prepend_name_scope

    graph = graph or ops.get_default_graph()
    return graph.as_graph_element(prepend_name_scope(tensor_info.name, import_scope))


def op_signature_def(op, key):
    """A SignatureDef whose one output ``key`` names the op (or tensor) ``op``."""
    return build_signature_def(outputs={key: build_tensor_info_from_op(op)})


def load_op_from_signature_def(signature_def, key, import_scope=None):
    """The op an ``op_signature_def`` output names, looked up in the default graph."""
    from tideflow.framework import errors

    try:
        return get_element_from_tensor_info(signature_def.outputs[key],
                                            import_scope=import_scope)
    except KeyError:
        raise errors.NotFoundError(
            None, None, f'The key "{key}" could not be found in the graph. Please make sure '
            "the SavedModel was created by the internal _SavedModelBuilder. If you are using "
            "the public API, please make sure the SignatureDef in the SavedModel does not "
            f'contain the key "{key}".') from None


def is_valid_signature(signature_def):
    """True when a SignatureDef is one TensorFlow Serving can serve: a predict signature with
    inputs and outputs; a classify one with a string ``inputs`` and a string ``classes`` and/or
    float ``scores`` (nothing else); a regress one with string ``inputs`` and float ``outputs``."""
    if signature_def is None:
        return False
    ins, outs, method = signature_def.inputs, signature_def.outputs, signature_def.method_name
    string, flt = dtypes.string.as_datatype_enum, dtypes.float32.as_datatype_enum
    if method == PREDICT_METHOD_NAME:
        return bool(ins) and bool(outs)
    if method == REGRESS_METHOD_NAME:
        return (set(ins) == {REGRESS_INPUTS} and ins[REGRESS_INPUTS].dtype == string
                and set(outs) == {REGRESS_OUTPUTS} and outs[REGRESS_OUTPUTS].dtype == flt)
    if method == CLASSIFY_METHOD_NAME:
        if set(ins) != {CLASSIFY_INPUTS} or ins[CLASSIFY_INPUTS].dtype != string:
            return False
        if not outs or set(outs) - {CLASSIFY_OUTPUT_CLASSES, CLASSIFY_OUTPUT_SCORES}:
            return False
        want = {CLASSIFY_OUTPUT_CLASSES: string, CLASSIFY_OUTPUT_SCORES: flt}
        return all(outs[k].dtype == want[k] for k in outs)
    return False


def _validate_signature_def_map(signature_def_map):
    for key, sig in signature_def_map.items():
        if not isinstance(sig, meta_graph_pb2.SignatureDef):
            raise TypeError(f"signature_def_map['{key}'] must be a SignatureDef, got {sig!r}")
        for info in list(sig.inputs.values()) + list(sig.outputs.values()):
            if info.WhichOneof("encoding") is None or not info.dtype:
                raise AssertionError(
                    "All TensorInfo protos used in the SignatureDefs must have the name and "
                    f"dtype fields set: {info}"
                )
    for key, what in ((INIT_OP_SIGNATURE_KEY, "initialization"),
                      (TRAIN_OP_SIGNATURE_KEY, "the train op")):
        if key in signature_def_map:
            raise KeyError(f'SignatureDef map key "{key}" is reserved for {what}. Please use a '
                           "different key.")


# -- builder ----------------------------------------------------------------------------------


def _asset_path(tensor):
    if tensor.op.type != "Const":
        raise TypeError(f"Asset path tensor must be a Tensor of type Const: {tensor}")
    v = ops.constant_value(tensor)
    v = v.reshape(-1)[0] if hasattr(v, "reshape") else v
    return v.decode() if isinstance(v, bytes) else str(v)


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist or be empty)."""

    def __init__(self, export_dir):
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=SAVED_MODEL_SCHEMA_VERSION)
        # TF programs often pass ``tf.compat.as_bytes(path)``: bytes and str paths both work.
        self._export_dir = os.fsdecode(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    "Export directory already exists, and isn't empty. Please choose a "
                    "different export directory, or delete all the contents of the specified "
                    f"directory: {self._export_dir}"
                )
        else:
            os.makedirs(self._export_dir)
        self._has_saved_variables = False

    def _copy_assets(self, assets):
        """Copies each asset file under assets/ by its basename; a basename already taken by a
        different file (other path, other contents) gets a ``_1``, ``_2``... suffix, as TF's
        builder names them. Returns the (filename, tensor) pairs; logs as TF's builder."""
        import filecmp

        from tideflow import logging

        if assets is None:
            logging.info("No assets to save.")
            logging.info("No assets to write.")
            return []
        logging.info("Assets added to graph.")
        if not assets:
            logging.info("No assets to write.")
            return []
        dest = get_assets_dir(self._export_dir)
        taken = {}  # filename in assets/ -> source path
        out = []
        for tensor in assets:
            src = _asset_path(tensor)
            name = base = os.path.basename(src)
            if name in taken and taken[name] != src and not filecmp.cmp(src, taken[name],
                                                                        shallow=False):
                i = 1
                while name in taken:
                    name = f"{base}_{i}"
                    i += 1
            taken[name] = src
            os.makedirs(dest, exist_ok=True)
            target = os.path.join(dest, name)
            if not os.path.exists(target):
                shutil.copyfile(src, target)
            out.append((name, tensor))
        logging.info("Assets written to: %s", dest)
        return out

    def _save_assets(self, assets_collection):
        from google.protobuf import any_pb2

        for name, tensor in self._copy_assets(assets_collection):
            proto = meta_graph_pb2.AssetFileDef(filename=name)
            proto.tensor_info.name = tensor.name
            # TF's type name, so that TensorFlow's loaders unpack (and parse, in .pbtxt) it
            packed = any_pb2.Any(type_url=_ASSET_TYPE_URL, value=proto.SerializeToString())
            ops.add_to_collection(ASSETS_KEY, packed)

    def _add_collections(self, assets_collection, main_op):
        self._save_assets(assets_collection)
        if main_op is not None:
            if not isinstance(main_op, ops.Operation):
                raise TypeError(f"main_op needs to be an Operation: {main_op!r}")
            for key in (MAIN_OP_KEY, LEGACY_INIT_OP_KEY):
                if ops.get_collection(key):
                    raise ValueError("Graph already contains one or more main ops under the "
                                     f"collection {key}.")
            ops.add_to_collection(MAIN_OP_KEY, main_op)

    def _add_train_op(self, train_op):
        """TF 1.x's builder hook (Estimator exports call it): ``train_op`` joins the default
        graph's ``saved_model_train_op`` collection."""
        if train_op is not None:
            if not isinstance(train_op, (ops.Tensor, ops.Operation)):
                raise TypeError(f"train_op needs to be a Tensor or Op: {train_op!r}")
            ops.add_to_collection(TRAIN_OP_KEY, train_op)

    def _maybe_create_saver(self, saver=None):
        if saver is not None:
            return saver
        from tideflow.protos import saver_pb2
        from tideflow.train import saveable
        from tideflow.train.saver import Saver

        return Saver(saveable.all_saveable_objects() or None, sharded=True,
                     write_version=saver_pb2.SaverDef.V2, allow_empty=True)

    def _tag_and_add_meta_graph(self, meta_graph_def, tags, signature_def_map):
        for key, sig in (signature_def_map or {}).items():
            meta_graph_def.signature_def[key].CopyFrom(sig)
        meta_graph_def.meta_info_def.tags.extend(tags)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    def _add_meta_graph(self, sess, tags, signature_def_map, clear_devices,
                        strip_default_attrs, saver, before=None, after=None):
        """The MetaGraphDef of ``sess``'s graph (saving its variables) or, with no session, of
        the default graph: ``before()`` runs before the saver is made, ``after(mgd)`` on the
        exported proto."""
        if sess is not None and self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. Please "
                "invoke `add_meta_graph()` instead."
            )
        if sess is None and not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. Please "
                "invoke `add_meta_graph_and_variables()` first."
            )
        signature_def_map = signature_def_map or {}
        _validate_signature_def_map(signature_def_map)
        with sess.graph.as_default() if sess is not None else contextlib.nullcontext():
            if before is not None:
                before()
            if sess is not None:
                get_or_create_variables_dir(self._export_dir)
            saver = self._maybe_create_saver(saver)
            if sess is not None:
                saver.save(sess, get_variables_path(self._export_dir), write_meta_graph=False,
                           write_state=False)
            mgd = saver.export_meta_graph(clear_devices=clear_devices,
                                          strip_default_attrs=strip_default_attrs)
            if after is not None:
                after(mgd)
        self._tag_and_add_meta_graph(mgd, tags, signature_def_map)
        if sess is not None:
            self._has_saved_variables = True

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_collection=None, legacy_init_op=None,
                                     clear_devices=False, main_op=None,
                                     strip_default_attrs=False, saver=None):
        """Saves the session's variables and adds the graph's MetaGraphDef under ``tags``."""
        self._add_meta_graph(
            sess, tags, signature_def_map, clear_devices, strip_default_attrs, saver,
            before=lambda: self._add_collections(assets_collection, main_op or legacy_init_op))

    def add_meta_graph(self, tags, signature_def_map=None, assets_collection=None,
                       legacy_init_op=None, clear_devices=False, main_op=None,
                       strip_default_attrs=False, saver=None):
        """Adds another MetaGraphDef (of the default graph) sharing the saved variables."""
        self._add_meta_graph(
            None, tags, signature_def_map, clear_devices, strip_default_attrs, saver,
            before=lambda: self._add_collections(assets_collection, main_op or legacy_init_op))

    def save(self, as_text=False):
        """Writes ``saved_model.pb`` (or ``.pbtxt``); returns its path as bytes, as TF does."""
        from tideflow.train import checkpoint_format

        if as_text:
            from google.protobuf import text_format

            path = os.path.join(self._export_dir, SAVED_MODEL_FILENAME_PBTXT)
            data = text_format.MessageToString(self._saved_model)
        else:
            path = os.path.join(self._export_dir, SAVED_MODEL_FILENAME_PB)
            data = self._saved_model.SerializeToString(deterministic=True)
        checkpoint_format.atomic_write(path, data)
        from tideflow import logging

        logging.info("SavedModel written to: %s", path)
        return os.fsencode(path)


class _SavedModelBuilder(SavedModelBuilder):
    """TF's internal builder: assets go to the MetaGraphDef's ``asset_file_def`` list (from
    ``assets_list``), and ``init_op`` / ``train_op`` to op signatures under the reserved keys
    ``__saved_model_init_op`` / ``__saved_model_train_op``."""

    def _add_ops(self, meta_graph_def, assets_list, init_op, train_op):
        for name, tensor in self._copy_assets(assets_list):
            proto = meta_graph_def.asset_file_def.add(filename=name)
            proto.tensor_info.name = tensor.name
        for key, op in ((INIT_OP_SIGNATURE_KEY, init_op), (TRAIN_OP_SIGNATURE_KEY, train_op)):
            if op is not None:
                if not isinstance(op, (ops.Operation, ops.Tensor)):
                    raise TypeError(f"{key} needs to be an Operation or Tensor: {op!r}")
                meta_graph_def.signature_def[key].CopyFrom(op_signature_def(op, key))

    def add_meta_graph_and_variables(self, sess, tags, signature_def_map=None,
                                     assets_list=None, clear_devices=False, init_op=None,
                                     train_op=None, strip_default_attrs=False, saver=None):
        """Saves the session's variables and adds the graph's MetaGraphDef under ``tags``."""
        self._add_meta_graph(
            sess, tags, signature_def_map, clear_devices, strip_default_attrs, saver,
            after=lambda mgd: self._add_ops(mgd, assets_list, init_op, train_op))

    def add_meta_graph(self, tags, signature_def_map=None, assets_list=None,
                       clear_devices=False, init_op=None, train_op=None,
                       strip_default_attrs=False, saver=None):
        """Adds another MetaGraphDef (of the default graph) sharing the saved variables."""
        self._add_meta_graph(
            None, tags, signature_def_map, clear_devices, strip_default_attrs, saver,
            after=lambda mgd: self._add_ops(mgd, assets_list, init_op, train_op))


# -- loader -----------------------------------------------------------------------------------


def maybe_saved_model_directory(export_dir):
    """True when ``export_dir`` holds a saved_model.pb or saved_model.pbtxt."""
    d = os.fsdecode(export_dir)  # TF hands export paths around as bytes
    return (os.path.isfile(os.path.join(d, SAVED_MODEL_FILENAME_PB))
            or os.path.isfile(os.path.join(d, SAVED_MODEL_FILENAME_PBTXT)))


contains_saved_model = maybe_saved_model_directory


def parse_saved_model(export_dir):
    """The SavedModel proto of ``export_dir``."""
    d = os.fsdecode(export_dir)  # TF hands export paths around as bytes
    pb = os.path.join(d, SAVED_MODEL_FILENAME_PB)
    txt = os.path.join(d, SAVED_MODEL_FILENAME_PBTXT)
    sm = saved_model_pb2.SavedModel()
    if os.path.isfile(pb):
        with open(pb, "rb") as f:
            try:
                sm.ParseFromString(f.read())
            except Exception as e:  # noqa: BLE001 - protobuf's DecodeError
                raise OSError(f"Cannot parse file {pb}: {e}.") from None
        return sm
    if os.path.isfile(txt):
        from google.protobuf import text_format

        with open(txt, encoding="utf-8") as f:
            try:
                text_format.Merge(f.read(), sm)
            except text_format.ParseError as e:
                raise OSError(f"Cannot parse file {txt}: {e}.") from None
        return sm
    raise OSError(f"SavedModel file does not exist at: {d}/{{{SAVED_MODEL_FILENAME_PBTXT}|"
                  f"{SAVED_MODEL_FILENAME_PB}}}")


_ASSET_TYPE_URL = "type.googleapis.com/tensorflow.AssetFileDef"


def _asset_feeds(export_dir, meta_graph_def, import_scope):
    """{asset tensor name: path under assets/} from the ASSETS_KEY collection and the
    MetaGraphDef's asset_file_def list."""
    from tideflow.framework.meta_graph import prepend_name_scope

    protos = list(meta_graph_def.asset_file_def)
    col = meta_graph_def.collection_def.get(ASSETS_KEY)
    for packed in (col.any_list.value if col is not None else ()):
        if not packed.type_url.endswith(".AssetFileDef"):  # tensorflow. (or tideflow.)
            raise ValueError(f"{ASSETS_KEY} holds a {packed.type_url}, not an AssetFileDef")
        protos.append(meta_graph_pb2.AssetFileDef.FromString(packed.value))
    feeds = {}
    for proto in protos:
        name = prepend_name_scope(proto.tensor_info.name, import_scope)
        feeds[name] = os.path.join(get_assets_dir(export_dir), proto.filename)
    return feeds


def _init_op(meta_graph_def, import_scope):
    from tideflow.framework.meta_graph import prepend_name_scope

    for key in (MAIN_OP_KEY, LEGACY_INIT_OP_KEY):
        col = meta_graph_def.collection_def.get(key)
        if col is not None and col.node_list.value:
            if len(col.node_list.value) != 1:
                raise RuntimeError(f"Expected exactly one SavedModel init op, found "
                                   f"{len(col.node_list.value)}")
            in_graph = ops.get_collection(key)  # the imported (scoped) op, as TF takes it
            if in_graph:
                return in_graph[0]
            g = ops.get_default_graph()
            return g.as_graph_element(prepend_name_scope(col.node_list.value[0], import_scope))
    if INIT_OP_SIGNATURE_KEY in meta_graph_def.signature_def:
        return load_op_from_signature_def(meta_graph_def.signature_def[INIT_OP_SIGNATURE_KEY],
                                          INIT_OP_SIGNATURE_KEY, import_scope)
    return None


def get_init_op(meta_graph_def, import_scope=None):
    """The init op a loaded MetaGraphDef names (main op, legacy init op, or the
    ``__saved_model_init_op`` signature), or None."""
    return _init_op(meta_graph_def, import_scope)


def get_train_op(meta_graph_def, import_scope=None):
    """The train op a loaded MetaGraphDef names (the ``saved_model_train_op`` collection, or the
    ``__saved_model_train_op`` signature), or None."""
    from tideflow.framework.meta_graph import prepend_name_scope

    col = meta_graph_def.collection_def.get(TRAIN_OP_KEY)
    if col is not None and col.node_list.value:
        if len(col.node_list.value) != 1:
            raise RuntimeError(f"Expected exactly one SavedModel train op, found "
                               f"{len(col.node_list.value)}")
        in_graph = ops.get_collection(TRAIN_OP_KEY)  # the imported (scoped) op
        if in_graph:
            return in_graph[0]
        return ops.get_default_graph().as_graph_element(
            prepend_name_scope(col.node_list.value[0], import_scope))
    if TRAIN_OP_SIGNATURE_KEY in meta_graph_def.signature_def:
        return load_op_from_signature_def(meta_graph_def.signature_def[TRAIN_OP_SIGNATURE_KEY],
                                          TRAIN_OP_SIGNATURE_KEY, import_scope)
    return None


class SavedModelLoader:
    """TF 1.x's step-by-step SavedModel loader: ``load_graph`` (import, returning the Saver and
    any ``return_elements``), ``restore_variables``, ``run_init_ops``; ``load`` does all three."""

    def __init__(self, export_dir):
        self._export_dir = os.fsdecode(export_dir)  # Estimators hand export paths as bytes
        self._variables_path = get_variables_path(self._export_dir)
        self._saved_model = parse_saved_model(self._export_dir)

    @property
    def export_dir(self):
        return self._export_dir

    @property
    def variables_path(self):
        return self._variables_path

    @property
    def saved_model(self):
        return self._saved_model

    def get_meta_graph_def_from_tags(self, tags):
        """The MetaGraphDef whose tag set equals ``tags`` (a RuntimeError when none does)."""
        available_tags = []  # the tag sets looked at, listed in the error as TF 1.15 does
        for mgd in self._saved_model.meta_graphs:
            available_tags.append(set(mgd.meta_info_def.tags))
            if set(mgd.meta_info_def.tags) == set(tags):
                return mgd
        raise RuntimeError(
            "MetaGraphDef associated with tags " + str(tags).strip("[]") + " could not be "
            "found in SavedModel. To inspect available tag-sets in the SavedModel, please use "
            "the SavedModel CLI: `saved_model_cli`\navailable_tags: " + str(available_tags)
        )

    def load_graph(self, graph, tags, import_scope=None, **saver_kwargs):
        """Imports the tagged MetaGraphDef into ``graph``; returns (Saver or None, elements)."""
        from tideflow.train.saver import _import_meta_graph_with_return_elements

        mgd = self.get_meta_graph_def_from_tags(tags)
        with graph.as_default():
            return _import_meta_graph_with_return_elements(mgd, import_scope=import_scope,
                                                           **saver_kwargs)

    def restore_variables(self, sess, saver, import_scope=None):
        """Restores the SavedModel's variables with ``saver`` (required when the graph has
        variables)."""
        from tideflow import logging
        from tideflow.train import saveable
        from tideflow.train.saver import Saver

        with sess.graph.as_default():
            if saver is None and not saveable.all_saveable_objects(scope=import_scope):
                logging.info("The specified SavedModel has no variables; no checkpoints were "
                             "restored.")
            elif isinstance(saver, Saver):
                saver.restore(sess, self._variables_path)
            else:
                raise ValueError(
                    "No tf.train.Saver object was passed to the function "
                    "SavedModelLoader.restore_variables. Since there are variables in the "
                    "graph, a saver is required.")

    def run_init_ops(self, sess, tags, import_scope=None):
        """Runs the tagged MetaGraphDef's init op, feeding the asset paths."""
        mgd = self.get_meta_graph_def_from_tags(tags)
        with sess.graph.as_default():
            init = _init_op(mgd, import_scope)
            if init is not None:
                sess.run([init], feed_dict=_asset_feeds(self._export_dir, mgd, import_scope))

    def load(self, sess, tags, import_scope=None, **saver_kwargs):
        """Imports, restores and initializes; returns the MetaGraphDef."""
        with sess.graph.as_default():
            saver, _ = self.load_graph(sess.graph, tags, import_scope, **saver_kwargs)
            self.restore_variables(sess, saver, import_scope)
            self.run_init_ops(sess, tags, import_scope)
        return self.get_meta_graph_def_from_tags(tags)


def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the MetaGraphDef tagged ``tags`` into ``sess``'s graph and restores its variables;
    returns the MetaGraphDef."""
    return SavedModelLoader(export_dir).load(sess, tags, import_scope, **saver_kwargs)


def main_op():
    """The main op TF 1.x SavedModels run on load: one group initializing the global and the
    local variables and the tables."""
    from tideflow.ops import control_flow_ops, variables

    inits = [variables.global_variables_initializer(), variables.local_variables_initializer()]
    inits += ops.get_collection(ops.GraphKeys.TABLE_INITIALIZERS)
    return control_flow_ops.group(*inits)


def main_op_with_restore(restore_op_name):
    """main_op() followed by the restore op ``restore_op_name`` (a name or the op), so that
    restored values win over the initial ones."""
    from tideflow.ops import control_flow_ops

    restore = restore_op_name
    if isinstance(restore, (str, bytes)):
        restore = ops.get_default_graph().as_graph_element(os.fsdecode(restore))
    with ops.control_dependencies([main_op()]):
        return control_flow_ops.group(restore)


def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """Saves a serving SavedModel with one predict signature (``serving_default``)."""
    sig = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(inputs, outputs)}
    b = SavedModelBuilder(export_dir)
    with session.graph.as_default():
        assets = ops.get_collection(ops.GraphKeys.ASSET_FILEPATHS)
    b.add_meta_graph_and_variables(session, tags=[SERVING], signature_def_map=sig,
                                   assets_collection=assets, main_op=legacy_init_op,
                                   clear_devices=True)
    b.save()
