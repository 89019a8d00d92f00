"""``tensorflow.python.keras.testing_utils``: the helpers TF 1.x's Keras tests build on
(``layer_test``, small models of the model type under test, test data, the run-mode scopes),
with their graph-mode meaning: tideflow never runs eagerly, so ``should_run_eagerly()`` and
``should_run_tf_function()`` are False inside their scopes."""

import contextlib
import threading

import numpy as np

import tideflow as tf
from tideflow import keras

_state = threading.local()


def _get(name):
    return getattr(_state, name, None)


@contextlib.contextmanager
def _scoped(name, value):
    previous = _get(name)
    setattr(_state, name, value)
    try:
        yield value
    finally:
        setattr(_state, name, previous)


def model_type_scope(value):
    """Within it, ``get_model_type()`` is ``value`` ('functional', 'subclass', 'sequential')."""
    return _scoped("model_type", value)


def run_eagerly_scope(value):
    """Within it, models are compiled to run eagerly when ``value`` (never, in a graph)."""
    return _scoped("run_eagerly", value)


def experimental_run_tf_function_scope(value):
    """Within it, models are compiled with ``experimental_run_tf_function=value``."""
    return _scoped("run_tf_function", value)


def _scope_value(name, scope):
    value = _get(name)
    if value is None:
        raise ValueError(f"Cannot call `{scope[0]}()` outside of a `{scope[1]}()` or "
                         "`run_all_keras_modes` decorator.")
    return value


def should_run_eagerly():
    """Whether the test's models run eagerly: False in graph mode (after checking the scope)."""
    _scope_value("run_eagerly", ("should_run_eagerly", "run_eagerly_scope"))
    return False


def should_run_tf_function():
    """Whether the test's models run through tf.function: False in graph mode."""
    _scope_value("run_tf_function",
                 ("should_run_tf_function", "experimental_run_tf_function_scope"))
    return False


def get_model_type():
    """The model type the running test builds (set by ``run_with_all_model_types``)."""
    value = _get("model_type")
    if value is None:
        raise ValueError("Cannot call `get_model_type()` outside of a `model_type_scope()` or "
                         "`run_with_all_model_types` decorator.")
    return value


def get_test_data(train_samples, test_samples, input_shape, num_classes, random_seed=None):
    """``((x_train, y_train), (x_test, y_test))``: float32 samples scattered around one random
    template per class, and their integer labels."""
    if random_seed is not None:
        np.random.seed(random_seed)
    input_shape = tuple(input_shape)
    total = train_samples + test_samples
    templates = 2 * num_classes * np.random.random((num_classes,) + input_shape)
    y = np.random.randint(0, num_classes, size=(total,))
    noise = np.random.normal(loc=0, scale=1.0, size=(total,) + input_shape)
    x = (templates[y] + noise).astype(np.float32)
    return (x[:train_samples], y[:train_samples]), (x[train_samples:], y[train_samples:])


def _dim(d):
    return getattr(d, "value", d)


def _check_shape(layer_cls, kwargs, expected, actual, when=""):
    expected = [_dim(d) for d in tf.TensorShape(expected).as_list()] \
        if not isinstance(expected, (tuple, list)) else [_dim(d) for d in expected]
    actual = [_dim(d) for d in (actual.as_list() if hasattr(actual, "as_list") else actual)]
    if len(expected) != len(actual) or any(
            e is not None and e != a for e, a in zip(expected, actual)):
        raise AssertionError(
            f"When testing layer {layer_cls.__name__}{when}, found output_shape={actual} but "
            f"expected to find {expected}.\nFull kwargs: {kwargs}")


def layer_test(layer_cls, kwargs=None, input_shape=None, input_dtype=None, input_data=None,
               expected_output=None, expected_output_dtype=None, expected_output_shape=None,
               validate_training=True, adapt_data=None):
    """Exercise a one-input, one-output layer: weights get/set, a functional model's output
    dtype and shape against ``compute_output_shape`` / ``compute_output_signature``, the
    config round trip of the model, one training step, and the layer rebuilt from its config
    as the first layer of a Sequential model. Returns the layer's output on ``input_data``."""
    if input_data is None:
        if input_shape is None:
            raise ValueError("input_shape is None")
        input_dtype = input_dtype or "float32"
        data_shape = [np.random.randint(1, 4) if d is None else d for d in input_shape]
        input_data = 10 * np.random.random(data_shape)
        if input_dtype[:5] == "float":
            input_data -= 0.5
        input_data = input_data.astype(input_dtype)
    elif input_shape is None:
        input_shape = input_data.shape
    if input_dtype is None:
        input_dtype = input_data.dtype
    if expected_output_dtype is None:
        expected_output_dtype = input_dtype
    kwargs = kwargs or {}

    layer = layer_cls(**kwargs)
    if adapt_data is not None:
        layer.adapt(adapt_data)
    layer.set_weights(layer.get_weights())

    x = keras.layers.Input(shape=input_shape[1:], dtype=input_dtype)
    y = layer(x)
    if keras.backend.dtype(y) != tf.as_dtype(expected_output_dtype).name:
        raise AssertionError(
            f"When testing layer {layer_cls.__name__}, for input {x}, found output "
            f"dtype={keras.backend.dtype(y)} but expected to find {expected_output_dtype}.\n"
            f"Full kwargs: {kwargs}")
    if expected_output_shape is not None:
        _check_shape(layer_cls, kwargs, tf.TensorShape(expected_output_shape), y.shape)

    model = keras.models.Model(x, y)
    computed_shape = tuple(layer.compute_output_shape(tf.TensorShape(input_shape)).as_list())
    signature = layer.compute_output_signature(tf.TensorSpec(shape=input_shape,
                                                             dtype=input_dtype))
    actual = model.predict(input_data)
    _check_shape(layer_cls, kwargs, computed_shape, actual.shape)
    _check_shape(layer_cls, kwargs, signature.shape, actual.shape)
    if signature.dtype != actual.dtype:
        raise AssertionError(
            f"When testing layer {layer_cls.__name__}, for input {x}, found output_dtype="
            f"{actual.dtype} but expected to find {signature.dtype}.\nFull kwargs: {kwargs}")
    if expected_output is not None:
        np.testing.assert_allclose(actual, expected_output, rtol=1e-3, atol=1e-6)

    recovered = keras.models.Model.from_config(model.get_config())
    if model.weights:
        recovered.set_weights(model.get_weights())
        np.testing.assert_allclose(recovered.predict(input_data), actual, rtol=1e-3, atol=1e-6)

    if validate_training:
        model = keras.models.Model(x, layer(x))
        model.compile("rmsprop", "mse", weighted_metrics=["acc"])
        model.train_on_batch(input_data, actual)

    config = layer.get_config()
    config["batch_input_shape"] = input_shape
    layer = layer.__class__.from_config(config)
    if adapt_data is not None:
        layer.adapt(adapt_data)
    model = keras.models.Sequential()
    model.add(layer)
    actual = model.predict(input_data)
    _check_shape(layer_cls, kwargs, computed_shape, actual.shape, " **after deserialization**")
    if expected_output is not None:
        np.testing.assert_allclose(actual, expected_output, rtol=1e-3, atol=1e-6)
    recovered = keras.models.Sequential.from_config(model.get_config())
    if model.weights:
        recovered.set_weights(model.get_weights())
        np.testing.assert_allclose(recovered.predict(input_data), actual, rtol=1e-3, atol=1e-6)
    return actual


# -- small models of each type ---------------------------------------------------------------


def _last_activation(num_classes):
    return "sigmoid" if num_classes == 1 else "softmax"


def get_small_sequential_mlp(num_hidden, num_classes, input_dim=None):
    model = keras.models.Sequential()
    extra = {"input_dim": input_dim} if input_dim else {}
    model.add(keras.layers.Dense(num_hidden, activation="relu", **extra))
    model.add(keras.layers.Dense(num_classes, activation=_last_activation(num_classes)))
    return model


def get_small_functional_mlp(num_hidden, num_classes, input_dim):
    inputs = keras.Input(shape=(input_dim,))
    hidden = keras.layers.Dense(num_hidden, activation="relu")(inputs)
    outputs = keras.layers.Dense(num_classes, activation=_last_activation(num_classes))(hidden)
    return keras.Model(inputs, outputs)


class _SmallSubclassMLP(keras.Model):
    def __init__(self, num_hidden, num_classes):
        super().__init__()
        self.layer_a = keras.layers.Dense(num_hidden, activation="relu")
        self.layer_b = keras.layers.Dense(num_classes, activation=_last_activation(num_classes))

    def call(self, inputs, **kwargs):
        return self.layer_b(self.layer_a(inputs))


class _SmallSubclassMLPCustomBuild(keras.Model):
    def __init__(self, num_hidden, num_classes):
        super().__init__()
        self.layer_a = None
        self.layer_b = None
        self.num_hidden = num_hidden
        self.num_classes = num_classes

    def build(self, input_shape):
        self.layer_a = keras.layers.Dense(self.num_hidden, activation="relu")
        self.layer_b = keras.layers.Dense(self.num_classes,
                                          activation=_last_activation(self.num_classes))

    def call(self, inputs, **kwargs):
        return self.layer_b(self.layer_a(inputs))


def get_small_subclass_mlp(num_hidden, num_classes):
    return _SmallSubclassMLP(num_hidden, num_classes)


def get_small_subclass_mlp_with_custom_build(num_hidden, num_classes):
    return _SmallSubclassMLPCustomBuild(num_hidden, num_classes)


def get_small_mlp(num_hidden, num_classes, input_dim):
    """A small MLP of the model type under test."""
    kind = get_model_type()
    if kind == "subclass":
        return get_small_subclass_mlp(num_hidden, num_classes)
    if kind == "subclass_custom_build":
        return get_small_subclass_mlp_with_custom_build(num_hidden, num_classes)
    if kind == "sequential":
        return get_small_sequential_mlp(num_hidden, num_classes, input_dim)
    if kind == "functional":
        return get_small_functional_mlp(num_hidden, num_classes, input_dim)
    raise ValueError(f"Unknown model type {kind}")


class _SubclassModel(keras.Model):
    def __init__(self, layers):
        super().__init__()
        # one attribute per layer (tracked as sublayers in order)
        for i, layer in enumerate(layers):
            setattr(self, f"layer{i}", layer)
        self.num_layers = len(layers)

    def call(self, inputs, **kwargs):
        x = inputs
        for i in range(self.num_layers):
            x = getattr(self, f"layer{i}")(x)
        return x


class _SubclassModelCustomBuild(keras.Model):
    def __init__(self, layer_generating_func):
        super().__init__()
        self.all_layers = None
        self._layer_generating_func = layer_generating_func

    def build(self, input_shape):
        self.all_layers = list(self._layer_generating_func())

    def call(self, inputs, **kwargs):
        x = inputs
        for layer in self.all_layers:
            x = layer(x)
        return x


def get_model_from_layers(layers, input_shape=None, input_dtype=None):
    """A model of the type under test chaining ``layers``."""
    kind = get_model_type()
    if kind == "subclass":
        return _SubclassModel(layers)
    if kind == "subclass_custom_build":
        return _SubclassModelCustomBuild(lambda: layers)
    if kind == "sequential":
        model = keras.models.Sequential()
        if input_shape:
            model.add(keras.layers.InputLayer(input_shape=input_shape, dtype=input_dtype))
        for layer in layers:
            model.add(layer)
        return model
    if kind == "functional":
        if not input_shape:
            raise ValueError("Cannot create a functional model from layers with no input shape.")
        inputs = keras.Input(shape=input_shape, dtype=input_dtype)
        outputs = inputs
        for layer in layers:
            outputs = layer(outputs)
        return keras.Model(inputs, outputs)
    raise ValueError(f"Unknown model type {kind}")


def _run_branches(inputs, shared_in, branch_a, branch_b, shared_out, as_tuple):
    if shared_in:
        for layer in shared_in:
            inputs = layer(inputs)
        a = b = inputs
    else:
        a, b = inputs
    for layer in branch_a:
        a = layer(a)
    for layer in branch_b:
        b = layer(b)
    outs = (a, b) if as_tuple else [a, b]
    for layer in shared_out or ():
        outs = layer(outs)
    return outs


class _MultiIOSubclassModel(keras.Model):
    def __init__(self, branch_a, branch_b, shared_input_branch=None, shared_output_branch=None):
        super().__init__()
        self._shared_input_branch = shared_input_branch
        self._branch_a = branch_a
        self._branch_b = branch_b
        self._shared_output_branch = shared_output_branch

    def call(self, inputs, **kwargs):
        return _run_branches(inputs, self._shared_input_branch, self._branch_a, self._branch_b,
                             self._shared_output_branch, as_tuple=False)


class _MultiIOSubclassModelCustomBuild(keras.Model):
    def __init__(self, branch_a_func, branch_b_func, shared_input_branch_func=None,
                 shared_output_branch_func=None):
        super().__init__()
        self._funcs = (shared_input_branch_func, branch_a_func, branch_b_func,
                       shared_output_branch_func)
        self._branches = None

    def build(self, input_shape):
        self._branches = tuple(f() if f is not None else None for f in self._funcs)

    def call(self, inputs, **kwargs):
        shared_in, branch_a, branch_b, shared_out = self._branches
        return _run_branches(inputs, shared_in, branch_a, branch_b, shared_out, as_tuple=True)


def get_multi_io_model(branch_a, branch_b, shared_input_branch=None, shared_output_branch=None):
    """A two-branch model of the type under test: two inputs (the first layer of each branch
    is its Input) or one (``shared_input_branch``, led by the Input), two outputs or one
    (``shared_output_branch`` merges the branches)."""
    if shared_input_branch:
        inputs = shared_input_branch[0]
        shared_input_branch = shared_input_branch[1:]
    else:
        inputs = branch_a[0], branch_b[0]
        branch_a, branch_b = branch_a[1:], branch_b[1:]
    kind = get_model_type()
    if kind == "subclass":
        return _MultiIOSubclassModel(branch_a, branch_b, shared_input_branch,
                                     shared_output_branch)
    if kind == "subclass_custom_build":
        return _MultiIOSubclassModelCustomBuild(
            lambda: branch_a, lambda: branch_b, lambda: shared_input_branch,
            lambda: shared_output_branch)
    if kind == "sequential":
        raise ValueError("Cannot use `get_multi_io_model` to construct sequential models")
    if kind == "functional":
        outputs = _run_branches(inputs, shared_input_branch, branch_a, branch_b,
                                shared_output_branch, as_tuple=True)
        return keras.Model(inputs, outputs)
    raise ValueError(f"Unknown model type {kind}")


_V2_OPTIMIZERS = ("adadelta", "adagrad", "adam", "adamax", "nadam", "rmsprop", "sgd")


def get_v2_optimizer(name, **kwargs):
    """The Keras optimizer called ``name`` ('adam', 'sgd', ...) built with ``kwargs``."""
    if name not in _V2_OPTIMIZERS:
        raise ValueError(f"Could not find requested v2 optimizer: {name}\n"
                         f"Valid choices: {list(_V2_OPTIMIZERS)}")
    cls = {"adadelta": "Adadelta", "adagrad": "Adagrad", "adam": "Adam", "adamax": "Adamax",
           "nadam": "Nadam", "rmsprop": "RMSprop", "sgd": "SGD"}[name]
    return getattr(keras.optimizers, cls)(**kwargs)


def get_expected_metric_variable_names(var_names, name_suffix=""):
    """Metric variable names as a graph makes them: ``name + name_suffix + ':0'`` (graph mode
    uniquifies repeated names with the suffix)."""
    return [n + name_suffix + ":0" for n in var_names]


def enable_v2_dtype_behavior(fn):
    """TF 1.x's switch for V2 dtype behaviour; tideflow's layers have one behaviour."""
    return fn


disable_v2_dtype_behavior = enable_v2_dtype_behavior
