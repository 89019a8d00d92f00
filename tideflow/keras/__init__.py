"""``tf.keras``: the Keras API of TF 1.x, in graph mode over tideflow sessions."""

from tideflow.keras import (
    activations,
    applications,
    backend,
    callbacks,
    constraints,
    datasets,
    estimator,
    experimental,
    initializers,
    layers,
    losses,
    metrics,
    models,
    optimizers,
    preprocessing,
    regularizers,
    utils,
    wrappers,
)
from tideflow.keras.engine.input_layer import Input
from tideflow.keras.engine.sequential import Sequential
from tideflow.keras.engine.training import Model

__version__ = "2.2.4-tf"

__all__ = [
    "Input", "Model", "Sequential", "activations", "applications", "backend", "callbacks", "constraints",
    "datasets", "estimator", "experimental", "initializers", "layers", "losses", "metrics", "models", "optimizers",
    "preprocessing", "regularizers", "utils", "wrappers",
]
