"""``tf.keras.experimental.LinearModel`` and ``WideDeepModel`` (TF 1.15's premade models).

``LinearModel`` is ``activation(sum_i inputs_i @ kernel_i + bias)``: one bias-free Dense per
input (a list of inputs, or one), then the bias. ``WideDeepModel`` averages a linear model's
and a DNN's outputs, ``activation(0.5 * (linear(x_linear) + dnn(x_dnn)))``; compiled with a
list of two optimizers, the first trains the linear model's weights and the second the DNN's
(one optimizer trains both)."""

import tideflow as tf
from tideflow.keras import activations, initializers, optimizers, regularizers
from tideflow.keras.engine.training import Model
from tideflow.keras.layers.core import Dense


class LinearModel(Model):
    """Linear regression/classification: ``units`` outputs, the kernels of its Dense layers
    (``glorot_uniform`` as TF 1.15's premade model) and a ``zeros`` bias."""

    def __init__(self, units=1, activation=None, use_bias=True,
                 kernel_initializer="glorot_uniform", bias_initializer="zeros",
                 kernel_regularizer=None, bias_regularizer=None, **kwargs):
        self.units = units
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        super().__init__(**kwargs)

    def build(self, input_shape):
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        self.dense_layers = [
            Dense(units=self.units, use_bias=False, kernel_initializer=self.kernel_initializer,
                  kernel_regularizer=self.kernel_regularizer) for _ in shapes]
        if self.use_bias:
            self.bias = self.add_weight("bias", shape=(self.units,),
                                        initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer, trainable=True)
        else:
            self.bias = None
        self.built = True

    def call(self, inputs):
        if not isinstance(inputs, (tuple, list)):
            inputs = [inputs]
        if getattr(self, "dense_layers", None) is None:  # (a subclassed model's first call)
            self.build([x.get_shape() for x in inputs] if len(inputs) > 1 else
                       inputs[0].get_shape())
        if len(inputs) != len(self.dense_layers):
            raise ValueError(f"Expected {len(self.dense_layers)} inputs, but got "
                             f"{len(inputs)} inputs")
        result = None
        for x, layer in zip(inputs, self.dense_layers):
            out = layer(x)
            result = out if result is None else result + out
        if self.use_bias:
            result = tf.nn.bias_add(result, self.bias)
        if self.activation is not None:
            return self.activation(result)
        return result

    def get_config(self):
        return {"units": self.units, "activation": activations.serialize(self.activation),
                "use_bias": self.use_bias,
                "kernel_initializer": initializers.serialize(self.kernel_initializer),
                "bias_initializer": initializers.serialize(self.bias_initializer),
                "kernel_regularizer": None if self.kernel_regularizer is None else
                regularizers.serialize(self.kernel_regularizer),
                "bias_regularizer": None if self.bias_regularizer is None else
                regularizers.serialize(self.bias_regularizer),
                "name": self.name, "trainable": self.trainable, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class _PairOptimizer:
    """Two Keras optimizers over a split of the weights: the linear model's go to the first,
    the rest to the second."""

    def __init__(self, model, first, second):
        self._model, self.optimizers = model, (first, second)
        self.weights = []

    def get_updates(self, loss, params):
        linear = {id(w) for w in self._model.linear_model.trainable_weights}
        first = [p for p in params if id(p) in linear]
        second = [p for p in params if id(p) not in linear]
        updates = []
        if first:
            updates += self.optimizers[0].get_updates(loss, first)
        if second:
            updates += self.optimizers[1].get_updates(loss, second)
        self.weights = list(self.optimizers[0].weights) + list(self.optimizers[1].weights)
        return updates

    def get_weights(self):
        return self.optimizers[0].get_weights() + self.optimizers[1].get_weights()

    def get_config(self):
        return [optimizers.serialize(o) for o in self.optimizers]

    def __getitem__(self, i):
        return self.optimizers[i]

    def __len__(self):
        return 2


class WideDeepModel(Model):
    """``activation(0.5 * (linear_model(x_linear) + dnn_model(x_dnn)))``; its input is a pair
    ``[x_linear, x_dnn]``, or one input both models take."""

    def __init__(self, linear_model, dnn_model, activation=None, **kwargs):
        super().__init__(**kwargs)
        self.linear_model = linear_model
        self.dnn_model = dnn_model
        self.activation = activations.get(activation)

    def call(self, inputs):
        if not isinstance(inputs, (tuple, list)) or len(inputs) != 2:
            linear_inputs = dnn_inputs = inputs
        else:
            linear_inputs, dnn_inputs = inputs
        out = 0.5 * (self.linear_model(linear_inputs) + self.dnn_model(dnn_inputs))
        if self.activation is not None:
            return self.activation(out)
        return out

    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                sample_weight_mode=None, weighted_metrics=None, target_tensors=None,
                distribute=None, **kwargs):
        # (TF 1.15's Model.compile parameters, in its order)
        kwargs = dict(metrics=metrics, loss_weights=loss_weights,
                      sample_weight_mode=sample_weight_mode, weighted_metrics=weighted_metrics,
                      target_tensors=target_tensors, distribute=distribute, **kwargs)
        if isinstance(optimizer, (list, tuple)):
            if len(optimizer) != 2:
                raise ValueError("WideDeepModel takes one optimizer, or two: the linear "
                                 f"model's and the DNN's; got {len(optimizer)}.")
            pair = _PairOptimizer(self, optimizers.get(optimizer[0]),
                                  optimizers.get(optimizer[1]))
            super().compile(optimizer="sgd", loss=loss, **kwargs)
            self.optimizer = pair
            return
        super().compile(optimizer=optimizer, loss=loss, **kwargs)

    def get_config(self):
        return {"linear_model": {"class_name": type(self.linear_model).__name__,
                                 "config": self.linear_model.get_config()},
                "dnn_model": {"class_name": type(self.dnn_model).__name__,
                              "config": self.dnn_model.get_config()},
                "activation": activations.serialize(self.activation),
                "name": self.name}
