"""Core Keras layers: Dense, Activation, Dropout, Flatten, Reshape, Permute, RepeatVector,
Lambda, ActivityRegularization, Masking (pass-through) and the advanced activations."""

import types

import numpy as np

import tideflow as tf
from tideflow.framework import dtypes
from tideflow.framework.tensor_shape import TensorShape
from tideflow.keras import activations, constraints, initializers, regularizers
from tideflow.keras import backend as K
from tideflow.keras.engine.base_layer import InputSpec, Layer


def _ser(module, obj):
    if obj is None:
        return None
    return module.serialize(obj)


def _ser_attrs(layer, *names):
    """``{name: serialized layer.<name>}`` for initializer, regularizer and constraint
    attributes (chosen by the name's ending), as TF 1.x's configs carry them."""
    modules = {"initializer": initializers, "regularizer": regularizers,
               "constraint": constraints}
    return {n: _ser(modules[n.rsplit("_", 1)[1]], getattr(layer, n, None)) for n in names}


def _add_weight(layer, name, shape, kind=None, initializer=None):
    """``layer.add_weight(name, shape)`` with the layer's ``<kind>_initializer`` (unless
    ``initializer`` is given), ``<kind>_regularizer`` and ``<kind>_constraint``; ``kind`` is
    ``name`` unless given."""
    kind = kind or name
    if initializer is None:
        initializer = getattr(layer, f"{kind}_initializer")
    return layer.add_weight(name, shape=shape, initializer=initializer,
                            regularizer=getattr(layer, f"{kind}_regularizer"),
                            constraint=getattr(layer, f"{kind}_constraint"))


def _weights_config(layer, activity_regularizer=False):
    """The serialized kernel and bias initializers, regularizers and constraints of
    ``layer`` (with its activity regularizer when asked), in Keras' order."""
    config = {"kernel_initializer": _ser(initializers, layer.kernel_initializer),
              "bias_initializer": _ser(initializers, layer.bias_initializer),
              "kernel_regularizer": _ser(regularizers, layer.kernel_regularizer),
              "bias_regularizer": _ser(regularizers, layer.bias_regularizer)}
    if activity_regularizer:
        config["activity_regularizer"] = _ser(regularizers, layer.activity_regularizer)
    config["kernel_constraint"] = _ser(constraints, layer.kernel_constraint)
    config["bias_constraint"] = _ser(constraints, layer.bias_constraint)
    return config


def _tuple(shape):
    if isinstance(shape, TensorShape):
        return tuple(shape.as_list())
    return tuple(shape)


def training_flag(training):
    return K.learning_phase() if training is None else training


class Dense(Layer):
    """``activation(dot(inputs, kernel) + bias)``; weights ``kernel`` [input_dim, units] and
    ``bias`` [units]."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        self.units = int(units)  # (as TF 1.15: 0 units make an empty output; fewer fail at
        # the call, as a TensorShape's dimension)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.supports_masking = True
        self.input_spec = InputSpec(min_ndim=2)

    def build(self, input_shape):
        input_shape = TensorShape(input_shape)
        if input_shape.ndims is None or input_shape.as_list()[-1] is None:
            raise ValueError("The last dimension of the inputs to `Dense` should be defined. "
                             "Found `None`.")  # TF 1.15's words
        dtype = dtypes.as_dtype(self._dtype or getattr(self, "_build_input_dtype", None)
                                or K.floatx())
        if not (dtype.is_floating or dtype.is_complex):
            raise TypeError(f"Unable to build `Dense` layer with non-floating point dtype "
                            f"{dtype}")
        last = input_shape.as_list()[-1]
        self.input_spec = InputSpec(min_ndim=2, axes={-1: last})
        self.kernel = _add_weight(self, "kernel", [last, self.units])
        self.bias = _add_weight(self, "bias", [self.units]) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        if inputs.dtype.base_dtype != self._compute_dtype:
            # TF 1.x: Dense casts its inputs to the layer's (compute) dtype, integer features
            # included
            inputs = tf.cast(inputs, self._compute_dtype)
        rank = inputs.get_shape().ndims
        if rank is not None and rank > 2:
            outputs = tf.tensordot(inputs, self.kernel, [[rank - 1], [0]])
            outputs.set_shape(inputs.get_shape().as_list()[:-1] + [self.units])
        elif isinstance(inputs, tf.SparseTensor):  # (TF 1.15: an Input(sparse=True)'s)
            outputs = tf.sparse.sparse_dense_matmul(inputs, self.kernel)
        else:
            outputs = tf.matmul(inputs, self.kernel)
        if self.use_bias:
            outputs = tf.nn.bias_add(outputs, self.bias)
        if self.activation is not None:
            return self.activation(outputs)
        return outputs

    def compute_output_shape(self, input_shape):
        return TensorShape(input_shape)[:-1].concatenate(self.units)

    def get_config(self):
        config = super().get_config()
        config.update(
            units=self.units, activation=activations.serialize(self.activation),
            use_bias=self.use_bias, **_weights_config(self, activity_regularizer=True))
        return config


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


class Dropout(Layer):
    """Zeroes a fraction ``rate`` of the inputs (scaling the rest by 1/(1-rate)) in training
    (``training=True`` or the learning phase); the identity otherwise."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.noise_shape = noise_shape
        self.seed = seed
        self.supports_masking = True

    def _get_noise_shape(self, inputs):
        if self.noise_shape is None:
            return None
        dynamic = tf.shape(inputs)
        return [dynamic[i] if d is None else d for i, d in enumerate(self.noise_shape)]

    def call(self, inputs, training=None):
        training = training_flag(training)
        if self.rate == 0:
            return tf.identity(inputs)

        def dropped():
            return tf.nn.dropout(inputs, rate=self.rate,
                                 noise_shape=self._get_noise_shape(inputs), seed=self.seed)

        return K.in_train_phase(dropped, lambda: tf.identity(inputs), training=training)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(rate=self.rate, noise_shape=self.noise_shape, seed=self.seed)
        return config


class _SpatialDropout(Dropout):
    """Drops whole feature maps: the noise is 1 along every axis but the batch and channels."""

    _rank = 3
    data_format = "channels_last"

    def _get_noise_shape(self, inputs):
        # as TF 1.15's: taken from the input's dynamic shape inside the learning-phase cond
        shape = tf.shape(inputs)
        ones = (1,) * (self._rank - 2)
        if self.data_format == "channels_first":
            return (shape[0], shape[1]) + ones
        return (shape[0],) + ones + (shape[self._rank - 1],)


class SpatialDropout1D(_SpatialDropout):
    pass


class _FormattedSpatialDropout(_SpatialDropout):
    """A spatial dropout of images or volumes, channels first or last (``data_format``)."""

    def __init__(self, rate, data_format=None, **kwargs):
        kwargs.pop("noise_shape", None)
        super().__init__(rate, **kwargs)
        self.data_format = data_format or K.image_data_format()

    def get_config(self):
        config = super().get_config()
        config.pop("noise_shape", None)
        config["data_format"] = self.data_format
        return config


class SpatialDropout2D(_FormattedSpatialDropout):
    _rank = 4


class GaussianNoise(Layer):
    def __init__(self, stddev, **kwargs):
        super().__init__(**kwargs)
        self.stddev = stddev

    def get_config(self):
        config = super().get_config()
        config["stddev"] = self.stddev
        return config

    def call(self, inputs, training=None):
        # as TF 1.15's: Keras's random_normal (its seed from NumPy's generator)
        return K.in_train_phase(
            lambda: inputs + K.random_normal(tf.shape(inputs), stddev=self.stddev,
                                             dtype=inputs.dtype.base_dtype),
            inputs, training=training_flag(training))

    def compute_output_shape(self, input_shape):
        return input_shape


class GaussianDropout(Layer):
    """Multiplies the inputs by noise of mean 1 and variance rate / (1 - rate) in
    training."""

    def __init__(self, rate, **kwargs):
        super().__init__(**kwargs)
        self.rate = rate
        self.supports_masking = True

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        stddev = float(np.sqrt(self.rate / (1.0 - self.rate)))
        return K.in_train_phase(
            lambda: inputs * K.random_normal(tf.shape(inputs), mean=1.0, stddev=stddev,
                                             dtype=inputs.dtype.base_dtype),
            inputs, training=training_flag(training))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["rate"] = self.rate
        return config


class AlphaDropout(Layer):
    """Dropout keeping the mean and variance of SELU activations (training only)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        self.rate, self.noise_shape, self.seed = rate, noise_shape, seed
        self.supports_masking = True

    def call(self, inputs, training=None):
        if not 0 < self.rate < 1:
            return inputs
        alpha_p = -1.6732632423543772 * 1.0507009873554805
        rate = self.rate
        # as TF 1.15's: the noise shape before the cond, Keras's random_uniform in it
        shape = self.noise_shape or tf.shape(inputs)

        def dropped():
            keep = tf.cast(tf.greater_equal(K.random_uniform(shape, seed=self.seed), rate),
                           K.floatx())
            a = ((1 - rate) * (1 + rate * alpha_p ** 2)) ** -0.5
            b = -a * alpha_p * rate
            return a * (inputs * keep + alpha_p * (1 - keep)) + b

        return K.in_train_phase(dropped, inputs, training=training_flag(training))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["rate"] = self.rate  # (TF 1.15 saves neither noise_shape nor seed)
        return config


class Flatten(Layer):
    """[batch, d1, d2...] -> [batch, d1 * d2 * ...]."""

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = data_format or "channels_last"
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        rank = inputs.get_shape().ndims
        if self.data_format == "channels_first" and rank is not None and rank > 2:
            inputs = tf.transpose(inputs, [0] + list(range(2, rank)) + [1])
        if rank == 1:
            return tf.expand_dims(inputs, 1)
        out_shape = self.compute_output_shape(inputs.get_shape())
        # as TF 1.15's: the static batch size, else the dynamic one, and -1 (its ops and names:
        # 'flatten/Shape', 'flatten/strided_slice', 'flatten/Reshape/shape')
        batch = inputs.get_shape()[0].value
        outputs = tf.reshape(inputs, (batch or tf.shape(inputs)[0], -1))
        outputs.set_shape(out_shape)
        return outputs

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        rest = dims[1:]
        flat = None if any(d is None for d in rest) else int(np.prod(rest))
        return TensorShape([dims[0], flat])

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class Reshape(Layer):
    """Reshapes each sample to ``target_shape`` (one entry may be -1)."""

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(target_shape)

    def _fix_unknown(self, input_shape):
        output = list(self.target_shape)
        known, unknown = 1, None
        for i, d in enumerate(output):
            if d < 0:
                if unknown is not None:
                    raise ValueError(f"Layer {self.name}: can only specify one unknown "
                                     "dimension in target_shape.")
                unknown = i
            else:
                known *= d
        original = None if any(d is None for d in input_shape) else int(np.prod(input_shape))
        if original is None:
            return output
        msg = (f"Layer {self.name}: total size of new array must be unchanged; input shape "
               f"{tuple(input_shape)} cannot be reshaped to {self.target_shape}")
        if unknown is not None:
            if known == 0 or original % known != 0:
                raise ValueError(msg)
            output[unknown] = original // known
        elif original != known:
            raise ValueError(msg)
        return output

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        if any(d is None for d in dims[1:]):
            return TensorShape([dims[0]] + [None if d < 0 else d for d in self.target_shape])
        return TensorShape([dims[0]] + self._fix_unknown(dims[1:]))

    def call(self, inputs):
        # as TF 1.15's: (batch size, *target_shape) packed ('reshape/Reshape/shape'), the
        # static shape the Reshape's (a -1 beside the batch size is unknown, as in TF)
        return tf.reshape(inputs, (tf.shape(inputs)[0],) + tuple(self.target_shape))

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


class Permute(Layer):
    """Permutes the non-batch axes by ``dims`` (1-based, as in Keras)."""

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Invalid permutation `dims` for Permute Layer: {dims}. The set "
                             "of indices in `dims` must be consecutive and start from 1.")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return tf.transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0]] + [dims[d] for d in self.dims])

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config


class RepeatVector(Layer):
    """[batch, features] -> [batch, n, features]."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        return K.repeat(inputs, self.n)

    def compute_output_shape(self, input_shape):
        dims = TensorShape(input_shape).as_list()
        return TensorShape([dims[0], self.n, dims[1]])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config


class Lambda(Layer):
    """Wraps ``function(inputs, **arguments)`` as a layer."""

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        for key in ("function_type", "module", "output_shape_type", "output_shape_module",
                    "mask_type", "mask_module"):
            kwargs.pop(key, None)  # the serialization notes of a TF config
        super().__init__(**kwargs)
        self.function = function
        self.arguments = arguments or {}
        self._output_shape = output_shape
        self.mask = mask
        if mask is not None:
            self.supports_masking = True
        # variables the function makes: made once (by requested name), tracked as weights
        self._variable_dict = {}

    def _variable_creator(self, next_creator, **kwargs):
        name = kwargs.get("name")
        if name in self._variable_dict:
            return self._variable_dict[name]
        var = next_creator(**kwargs)
        self._variable_dict[name] = var
        if var.trainable:
            self._trainable_weights.append(var)
        else:
            self._non_trainable_weights.append(var)
        K.track_variable(var)
        return var

    def call(self, inputs, mask=None, training=None):
        import inspect

        kwargs = dict(self.arguments)
        try:
            params = inspect.signature(self.function).parameters
        except (TypeError, ValueError):
            params = {}
        if "mask" in params:
            kwargs["mask"] = mask
        if "training" in params:
            kwargs["training"] = training
        with tf.variable_creator_scope(self._variable_creator):
            return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return self._inferred_output_shape(input_shape)
        if callable(self._output_shape):
            return _map_shapes(TensorShape, self._output_shape(input_shape))
        flat = _flat_shapes(input_shape)
        batch = TensorShape(flat[0]).as_list()[0] if flat and TensorShape(
            flat[0]).ndims else None
        return _map_shapes(lambda s: TensorShape([batch] + TensorShape(s).as_list()),
                           self._output_shape)

    def _inferred_output_shape(self, input_shape):
        """As TF: the function run on placeholders of ``input_shape`` (in a scratch graph)."""
        dtype = self._dtype or K.floatx()
        graph = tf.Graph()
        with graph.as_default():
            inputs = _map_shapes(lambda s: tf.placeholder(dtype, TensorShape(s)), input_shape)
            try:
                outputs = self.call(inputs)
            except Exception as e:
                raise NotImplementedError(
                    f"We could not automatically infer the static shape of the Lambda layer "
                    f"{self.name}'s output. Please specify the `output_shape` argument for "
                    f"this Lambda layer.") from e
        return _map_structure_leaves(lambda o: o.get_shape(), outputs)

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """As TF: a saved config names its function (looked up in the custom objects, then in
        the module it came from) or holds a lambda's marshalled code."""
        config = dict(config)
        module = config.get("module")
        for key, kind in (("function", "function_type"), ("output_shape", "output_shape_type"),
                          ("mask", "mask_type")):
            config[key] = _load_callable(config.get(key), config.get(kind),
                                         config.get(kind.replace("type", "module"), module)
                                         if key != "function" else module, custom_objects)
        return cls(**config)

    def get_config(self):
        config = super().get_config()

        # As TF 1.15: every Python function (a def as much as a lambda: Keras tests for
        # LambdaType) is saved as its marshalled bytecode, another callable by its name; one
        # without a name (a partial, an object) stays as it is, where TF's config fails
        def serialized(obj):
            if isinstance(obj, types.FunctionType):
                return dump_lambda(obj), "lambda", obj.__module__
            if callable(obj) and hasattr(obj, "__name__"):
                return obj.__name__, "function", getattr(obj, "__module__", None)
            if callable(obj):
                return obj, "function", getattr(obj, "__module__", None)
            return obj, "raw", None

        # (TF 1.15's keys and order: the mask's only when there is one)
        config.update(zip(("function", "function_type", "module"), serialized(self.function)))
        config.update(zip(("output_shape", "output_shape_type", "output_shape_module"),
                          serialized(self._output_shape)))
        if self.mask is not None:
            config.update(zip(("mask", "mask_type", "mask_module"), serialized(self.mask)))
        config["arguments"] = self.arguments
        return config


def dump_lambda(fn):
    """A function as ``(code, defaults, closure)`` (its marshalled bytecode in base64, in lines
    as Keras' ``func_dump``), the form Keras saves a Lambda layer's function in."""
    import base64
    import marshal

    code = base64.encodebytes(marshal.dumps(fn.__code__)).decode("ascii")
    closure = tuple(c.cell_contents for c in fn.__closure__) if fn.__closure__ else None
    return code, fn.__defaults__, closure


def _jsonable_dump(dumped):
    """``dump_lambda``'s form where JSON can hold its defaults and closure (plain values,
    NumPy ones: not a module, a tensor, a layer), else the function's name (as Keras keeps an
    activation lambda, where TF's ``to_json`` fails)."""
    import base64
    import json
    import marshal

    def plain(value):
        if isinstance(value, (np.generic, np.ndarray)):
            return value.tolist()
        raise TypeError(type(value).__name__)

    try:
        json.dumps(dumped, default=plain)
    except (TypeError, ValueError):
        return marshal.loads(base64.b64decode(dumped[0].encode("ascii"))).co_name
    return dumped


def json_ready(obj):
    """``obj`` (a model's config) with each Lambda's dumped functions JSON-able."""
    if isinstance(obj, dict):
        obj = {k: json_ready(v) for k, v in obj.items()}
        for key, kind in (("function", "function_type"), ("output_shape", "output_shape_type"),
                          ("mask", "mask_type")):
            if obj.get(kind) == "lambda" and isinstance(obj.get(key), tuple):
                obj[key] = _jsonable_dump(obj[key])
        return obj
    if type(obj) in (list, tuple):
        return type(obj)(json_ready(v) for v in obj)
    return obj


def lambda_for_json(fn):
    """``dump_lambda(fn)`` where JSON can hold its defaults and closure, else its name."""
    return _jsonable_dump(dump_lambda(fn))


def _load_callable(value, kind, module, custom_objects=None):
    """The callable a saved Lambda config holds: ``value`` as ``kind`` says ("function": a
    name; "lambda": ``dump_lambda``'s form); anything else is returned as it is."""
    import sys

    if callable(value) or kind not in ("function", "lambda"):
        return value
    from tideflow.keras.utils import get_custom_objects

    scope = dict(sys.modules[module].__dict__) if module in sys.modules else {}
    scope.update(get_custom_objects())
    scope.update(custom_objects or {})
    if kind == "function":
        if value not in scope:
            raise ValueError(f"Unknown function in Lambda layer: {value}")
        return scope[value]
    if isinstance(value, str):
        raise TypeError("This Lambda layer's function was saved by name only (`<lambda>`); "
                         "it cannot be loaded.")
    import base64
    import marshal
    import types

    code, defaults, closure = value
    code = marshal.loads(base64.b64decode(code.encode("ascii")))
    cells = tuple(types.CellType(c) for c in closure) if closure else None
    return types.FunctionType(code, scope, code.co_name,
                              tuple(defaults) if defaults is not None else None, cells)


def _is_shape(s):
    return isinstance(s, TensorShape) or (
        isinstance(s, (tuple, list)) and all(d is None or isinstance(d, int) for d in s))


def _map_shapes(fn, shapes):
    """``fn`` on each shape of a nest of shapes (a shape: a TensorShape or a tuple/list of
    ints and Nones)."""
    if shapes is None or _is_shape(shapes):
        return fn(shapes)
    if isinstance(shapes, dict):
        return {k: _map_shapes(fn, v) for k, v in shapes.items()}
    return type(shapes)(_map_shapes(fn, s) for s in shapes)


def _flat_shapes(shapes):
    out = []
    _map_shapes(out.append, shapes)
    return out


def _map_structure_leaves(fn, struct):
    if isinstance(struct, dict):
        return {k: _map_structure_leaves(fn, v) for k, v in struct.items()}
    if isinstance(struct, (list, tuple)):
        return type(struct)(_map_structure_leaves(fn, v) for v in struct)
    return fn(struct)


class ActivityRegularization(Layer):
    def __init__(self, l1=0.0, l2=0.0, **kwargs):
        super().__init__(activity_regularizer=regularizers.L1L2(l1=l1, l2=l2), **kwargs)
        self.l1, self.l2 = l1, l2

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(l1=self.l1, l2=self.l2)
        return config


class Masking(Layer):
    """Zeroes the timesteps whose features all equal ``mask_value`` and masks them for the
    layers downstream (RNNs skip them)."""

    _produces_mask = True

    def __init__(self, mask_value=0.0, **kwargs):
        super().__init__(**kwargs)
        self.mask_value = mask_value
        self.supports_masking = True

    def compute_mask(self, inputs, mask=None):
        return tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1)

    def get_config(self):
        config = super().get_config()
        config["mask_value"] = self.mask_value
        return config

    def call(self, inputs):
        keep = tf.reduce_any(tf.not_equal(inputs, self.mask_value), axis=-1, keepdims=True)
        outputs = inputs * tf.cast(keep, inputs.dtype.base_dtype)
        outputs._keras_mask = tf.squeeze(keep, axis=-1)  # (output and mask made together)
        return outputs

    def compute_output_shape(self, input_shape):
        return input_shape


# -- advanced activations ----------------------------------------------------------------------


class LeakyReLU(Layer):
    def __init__(self, alpha=0.3, **kwargs):
        super().__init__(**kwargs)
        self.alpha = K.cast_to_floatx(alpha)

    def call(self, inputs):
        return tf.nn.leaky_relu(inputs, alpha=self.alpha)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["alpha"] = float(self.alpha)
        return config


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0, threshold=0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError("max_value of Relu layer cannot be negative value: "
                             f"{max_value}")
        if negative_slope < 0.0:
            raise ValueError("negative_slope of Relu layer cannot be negative value: "
                             f"{negative_slope}")
        # (as TF 1.15: float32 arrays, which the config then holds)
        self.max_value = None if max_value is None else K.cast_to_floatx(max_value)
        self.negative_slope = K.cast_to_floatx(negative_slope)
        self.threshold = K.cast_to_floatx(threshold)

    def call(self, inputs):
        return K.relu(inputs, alpha=self.negative_slope, max_value=self.max_value,
                      threshold=self.threshold)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update(max_value=self.max_value, negative_slope=self.negative_slope,
                      threshold=self.threshold)
        return config


class ELU(Layer):
    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = K.cast_to_floatx(alpha)

    def call(self, inputs):
        return K.elu(inputs, self.alpha)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["alpha"] = float(self.alpha)
        return config


class ThresholdedReLU(Layer):
    def __init__(self, theta=1.0, **kwargs):
        super().__init__(**kwargs)
        self.theta = K.cast_to_floatx(theta)

    def get_config(self):
        config = super().get_config()
        config["theta"] = float(self.theta)
        return config

    def call(self, inputs):
        return inputs * tf.cast(tf.greater(inputs, self.theta), inputs.dtype.base_dtype)

    def compute_output_shape(self, input_shape):
        return input_shape


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return tf.nn.softmax(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class PReLU(Layer):
    """``max(0, x) + alpha * min(0, x)`` with a learned ``alpha`` per input element (shared
    over ``shared_axes``, 1-based)."""

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None, alpha_constraint=None,
                 shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = list(shared_axes)
        else:
            self.shared_axes = [shared_axes]

    def build(self, input_shape):
        param_shape = list(_tuple(input_shape)[1:])
        if self.shared_axes is not None:
            for i in self.shared_axes:
                param_shape[i - 1] = 1
        self.alpha = self.add_weight("alpha", shape=param_shape,
                                     initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint)
        self.built = True

    def get_config(self):
        config = super().get_config()
        config.update(alpha_initializer=_ser(initializers, self.alpha_initializer),
                      alpha_regularizer=_ser(regularizers, self.alpha_regularizer),
                      alpha_constraint=_ser(constraints, self.alpha_constraint),
                      shared_axes=self.shared_axes)
        return config

    def call(self, inputs):
        pos = tf.nn.relu(inputs)
        neg = -self.alpha * tf.nn.relu(-inputs)
        return pos + neg

    def compute_output_shape(self, input_shape):
        return input_shape
