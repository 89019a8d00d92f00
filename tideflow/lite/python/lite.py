"""``tf.lite.TFLiteConverter`` (and ``TocoConverter``), ``OpsSet``, ``Optimize``, ``TargetSpec``,
``RepresentativeDataset`` and ``toco_convert`` as TF 1.15 has them.

Conversion covers float32 inference graphs (see :mod:`tideflow.lite.python.convert`).
``optimizations`` / ``post_training_quantize`` quantize the weights (int8, as TF 1.15's
weight-only quantization); a representative dataset is not used for calibration and a quantized
``inference_type`` raises ConverterError.
"""

import enum
import os

from tideflow.lite.python import lite_constants as constants
from tideflow.lite.python.convert import ConverterError, convert_graph


class OpsSet(enum.Enum):
    """The sets of operators a converted model may use."""

    TFLITE_BUILTINS = "TFLITE_BUILTINS"
    SELECT_TF_OPS = "SELECT_TF_OPS"
    TFLITE_BUILTINS_INT8 = "TFLITE_BUILTINS_INT8"

    def __str__(self):
        return self.value

    @staticmethod
    def get_options():
        return [str(option) for option in list(OpsSet)]


class Optimize(enum.Enum):
    """The optimizations a converter may apply."""

    DEFAULT = "DEFAULT"
    OPTIMIZE_FOR_SIZE = "OPTIMIZE_FOR_SIZE"
    OPTIMIZE_FOR_LATENCY = "OPTIMIZE_FOR_LATENCY"

    def __str__(self):
        return self.value


class RepresentativeDataset:
    """A generator of input samples for calibrating post-training quantization."""

    def __init__(self, input_gen):
        self.input_gen = input_gen


class TargetSpec:
    """The target device: ``supported_ops`` (a set of OpsSet) and ``supported_types``."""

    def __init__(self, supported_ops=None, supported_types=None):
        if supported_ops is None:
            supported_ops = {OpsSet.TFLITE_BUILTINS}
        self.supported_ops = supported_ops
        if supported_types is None:
            supported_types = []
        self.supported_types = supported_types


def _frozen(sess, ins, outs, input_arrays, output_arrays, input_shapes):
    """(graph_def with the session's variables frozen, inputs, outputs): the named arrays
    where given instead of the model's own, with ``input_shapes`` set on the inputs."""
    from tideflow.framework import graph_util_impl

    graph = sess.graph
    if input_arrays is not None:
        ins = [_get_tensor(graph, n) for n in input_arrays]
    if output_arrays is not None:
        outs = [_get_tensor(graph, n) for n in output_arrays]
    if input_shapes:
        for t in ins:
            if _tensor_name(t) in input_shapes:
                t.set_shape(input_shapes[_tensor_name(t)])
    graph_def = graph_util_impl.convert_variables_to_constants(
        sess, graph.as_graph_def(), [t.op.name for t in outs])
    return graph_def, ins, outs


def _tensor_name(t):
    name = t.name
    return name.removesuffix(":0")


class TFLiteConverterBase:
    """The attributes every converter has."""

    def __init__(self):
        self.allow_custom_ops = False
        self.target_spec = TargetSpec()
        self.optimizations = []
        self.representative_dataset = None
        self.experimental_enable_mlir_converter = False
        self._debug_info = None


class TFLiteConverter(TFLiteConverterBase):
    """Converts a TensorFlow graph into a TFLite flatbuffer (``convert()``)."""

    def __init__(self, graph_def, input_tensors, output_tensors, input_arrays_with_shape=None,
                 output_arrays=None, experimental_debug_info_func=None):
        super().__init__()
        self._graph_def = graph_def
        self._input_tensors = input_tensors
        self._output_tensors = output_tensors
        self.inference_type = constants.FLOAT
        self.inference_input_type = None
        self.inference_output_type = None
        self.output_format = constants.TFLITE
        self.quantized_input_stats = {}
        self.default_ranges_stats = None
        self.drop_control_dependency = True
        self.reorder_across_fake_quant = False
        self.change_concat_input_ranges = False
        self._post_training_quantize = False
        self.dump_graphviz_dir = None
        self.dump_graphviz_video = False
        self._debug_info_func = experimental_debug_info_func
        if not self._has_valid_tensors():
            if not input_arrays_with_shape or not output_arrays:
                raise ValueError("If input_tensors and output_tensors are None, both "
                                 "input_arrays_with_shape and output_arrays must be defined.")
            self._input_arrays_with_shape = input_arrays_with_shape
            self._output_arrays = output_arrays

    def _has_valid_tensors(self):
        return self._input_tensors is not None and self._output_tensors is not None

    # -- constructors ----------------------------------------------------------------------

    @classmethod
    def from_session(cls, sess, input_tensors, output_tensors):
        """Creates a converter from a session's graph, its variables frozen to constants."""
        from tideflow.framework import graph_util_impl

        names = [t.op.name for t in output_tensors]
        graph_def = graph_util_impl.convert_variables_to_constants(
            sess, sess.graph.as_graph_def(), names)
        return cls(graph_def, input_tensors, output_tensors)

    @classmethod
    def from_frozen_graph(cls, graph_def_file, input_arrays, output_arrays, input_shapes=None):
        """Creates a converter from a file holding a frozen GraphDef (binary or text)."""
        from google.protobuf import message, text_format

        from tideflow import gfile
        from tideflow.protos import graph_pb2

        if not gfile.Exists(graph_def_file):
            raise OSError(f"File '{graph_def_file}' does not exist.")
        with gfile.GFile(graph_def_file, "rb") as f:
            content = f.read()
        graph_def = graph_pb2.GraphDef()
        try:
            graph_def.ParseFromString(content)
            parsed = bool(graph_def.node)
        except message.DecodeError:
            parsed = False
        if not parsed:
            try:
                text = content.decode("utf-8") if isinstance(content, bytes) else content
                graph_def = graph_pb2.GraphDef()
                text_format.Merge(text, graph_def)
            except (text_format.ParseError, UnicodeDecodeError):
                raise OSError(f"Unable to parse input file '{graph_def_file}'.") from None
        from tideflow.framework import importer
        from tideflow.framework import ops as ops_mod

        graph = ops_mod.Graph()
        with graph.as_default():
            importer.import_graph_def(graph_def, name="")
        input_tensors = [_get_tensor(graph, n) for n in input_arrays]
        output_tensors = [_get_tensor(graph, n) for n in output_arrays]
        if input_shapes:
            for t in input_tensors:
                name = _tensor_name(t)
                if name in input_shapes:
                    t.set_shape(input_shapes[name])
        return cls(graph.as_graph_def(), input_tensors, output_tensors)

    @classmethod
    def from_saved_model(cls, saved_model_dir, input_arrays=None, input_shapes=None,
                         output_arrays=None, tag_set=None, signature_key=None):
        """Creates a converter from a SavedModel's MetaGraph and signature."""
        from tideflow import saved_model
        from tideflow.framework import ops as ops_mod
        from tideflow.runtime.session import Session

        if tag_set is None:
            tag_set = {saved_model.tag_constants.SERVING}
        if signature_key is None:
            signature_key = saved_model.signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY
        if not (os.path.exists(os.path.join(saved_model_dir, "saved_model.pb"))
                or os.path.exists(os.path.join(saved_model_dir, "saved_model.pbtxt"))):
            raise OSError(f"SavedModel file does not exist at: "
                          f"{saved_model_dir}/{{saved_model.pbtxt|saved_model.pb}}")
        graph = ops_mod.Graph()
        with Session(graph=graph) as sess:
            meta = saved_model.loader.load(sess, list(tag_set), saved_model_dir)
            if signature_key not in meta.signature_def:
                raise ValueError(f"No '{signature_key}' in the SavedModel's SignatureDefs. "
                                 "Possible values are "
                                 f"'{','.join(sorted(meta.signature_def))}'.")
            sig = meta.signature_def[signature_key]
            ins = [graph.get_tensor_by_name(sig.inputs[k].name) for k in sorted(sig.inputs)]
            outs = [graph.get_tensor_by_name(sig.outputs[k].name) for k in sorted(sig.outputs)]
            return cls(*_frozen(sess, ins, outs, input_arrays, output_arrays, input_shapes))

    @classmethod
    def from_keras_model_file(cls, model_file, input_arrays=None, input_shapes=None,
                              output_arrays=None, custom_objects=None):
        """Creates a converter from a Keras model saved to an HDF5 file."""
        from tideflow.keras import backend
        from tideflow.keras.saving import load_model

        if not os.path.exists(model_file):
            raise OSError(f"SavedModel file does not exist at: "
                          f"{model_file}/{{saved_model.pbtxt|saved_model.pb}}")
        # as TF: a fresh Keras session and default graph, in inference mode
        backend.clear_session()
        backend.set_learning_phase(False)
        model = load_model(model_file, custom_objects=custom_objects)
        sess = backend.get_session()
        return cls(*_frozen(sess, list(model.inputs), list(model.outputs), input_arrays,
                            output_arrays, input_shapes))

    # -- conversion ------------------------------------------------------------------------

    @property
    def post_training_quantize(self):
        return any(o in (Optimize.DEFAULT, Optimize.OPTIMIZE_FOR_SIZE,
                         Optimize.OPTIMIZE_FOR_LATENCY) for o in self.optimizations) or \
            self._post_training_quantize

    @post_training_quantize.setter
    def post_training_quantize(self, value):
        self._post_training_quantize = bool(value)

    @property
    def target_ops(self):
        return self.target_spec.supported_ops

    @target_ops.setter
    def target_ops(self, value):
        self.target_spec.supported_ops = value

    def get_input_arrays(self):
        """The names of the input tensors."""
        if self._has_valid_tensors():
            return [_tensor_name(t) for t in self._input_tensors]
        return [name for name, _ in self._input_arrays_with_shape]

    def _input_specs(self):
        specs = []
        if not self._has_valid_tensors():
            for name, shape in self._input_arrays_with_shape:
                specs.append((name, list(shape)))
            return specs
        for t in self._input_tensors:
            shape = t.shape
            name = _tensor_name(t)
            if shape.dims is None:
                raise ValueError(f"Provide an input shape for input array '{name}'.")
            dims = shape.as_list()
            if None in dims[1:]:
                shown = "[" + ", ".join("None" if d is None else str(d) for d in dims) + "]"
                raise ValueError(f"None is only supported in the 1st dimension. Tensor "
                                 f"'{name}' has invalid shape '{shown}'.")
            if dims and dims[0] is None:
                dims[0] = 1
                try:
                    t.set_shape(dims)
                except ValueError:
                    pass
            specs.append((t.name, dims))
        return specs

    def convert(self):
        """The model as TFLite flatbuffer bytes."""
        specs = self._input_specs()
        if self.inference_type not in (constants.FLOAT, None):
            raise ConverterError(
                "See console for info.\nQuantized inference types are not supported by this "
                f"converter (inference_type={getattr(self.inference_type, 'name', '?')}).\n")
        if self.output_format not in (constants.TFLITE, None):
            raise ValueError("This converter writes only the TFLITE output format.")
        if self._has_valid_tensors():
            outputs = [t.name for t in self._output_tensors]
        else:
            outputs = list(self._output_arrays)
        allow_custom = self.allow_custom_ops or OpsSet.SELECT_TF_OPS in set(
            self.target_spec.supported_ops or ())
        return convert_graph(self._graph_def, specs, outputs, allow_custom_ops=allow_custom,
                             quantize_weights=self.post_training_quantize)


class TocoConverter:
    """The deprecated name of TFLiteConverter: its ``from_*`` constructors give one."""

    @classmethod
    def from_session(cls, sess, input_tensors, output_tensors):
        return TFLiteConverter.from_session(sess, input_tensors, output_tensors)

    @classmethod
    def from_frozen_graph(cls, graph_def_file, input_arrays, output_arrays, input_shapes=None):
        return TFLiteConverter.from_frozen_graph(graph_def_file, input_arrays, output_arrays,
                                                 input_shapes)

    @classmethod
    def from_saved_model(cls, saved_model_dir, input_arrays=None, input_shapes=None,
                         output_arrays=None, tag_set=None, signature_key=None):
        return TFLiteConverter.from_saved_model(saved_model_dir, input_arrays, input_shapes,
                                                output_arrays, tag_set, signature_key)

    @classmethod
    def from_keras_model_file(cls, model_file, input_arrays=None, input_shapes=None,
                              output_arrays=None):
        return TFLiteConverter.from_keras_model_file(model_file, input_arrays, input_shapes,
                                                     output_arrays)


def _get_tensor(graph, name):
    try:
        return graph.get_tensor_by_name(name if ":" in name else name + ":0")
    except (KeyError, ValueError):
        raise ValueError(f"Invalid tensors '{name}' were found.") from None


def toco_convert(input_data, input_tensors, output_tensors, *args, **kwargs):
    """Converts the GraphDef ``input_data`` (deprecated: use TFLiteConverter)."""
    converter = TFLiteConverter(input_data, input_tensors, output_tensors)
    converter.allow_custom_ops = kwargs.get("allow_custom_ops", False)
    return converter.convert()
