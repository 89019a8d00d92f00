"""``tf.train``: optimizers, learning-rate schedules, moving averages, the global step and
graph writing (explicit re-exports only)."""

from tideflow.framework.graph_io import write_graph
from tideflow.train.adadelta import AdadeltaOptimizer
from tideflow.train.adagrad import AdagradOptimizer
from tideflow.train.adam import AdamOptimizer
from tideflow.train.ftrl import FtrlOptimizer
from tideflow.train.gradient_descent import GradientDescentOptimizer
from tideflow.train.learning_rate_decay import (
    cosine_decay,
    cosine_decay_restarts,
    exponential_decay,
    inverse_time_decay,
    linear_cosine_decay,
    natural_exp_decay,
    piecewise_constant,
    polynomial_decay,
)
from tideflow.train.momentum import MomentumOptimizer
from tideflow.train.moving_averages import ExponentialMovingAverage, assign_moving_average
from tideflow.train.optimizer import Optimizer
from tideflow.train.proximal_adagrad import ProximalAdagradOptimizer
from tideflow.train.proximal_gradient_descent import ProximalGradientDescentOptimizer
from tideflow.train.rmsprop import RMSPropOptimizer
from tideflow.train.training_util import (
    assert_global_step,
    create_global_step,
    get_global_step,
    get_or_create_global_step,
    global_step,
)

__all__ = [
    "AdadeltaOptimizer",
    "AdagradOptimizer",
    "AdamOptimizer",
    "ExponentialMovingAverage",
    "FtrlOptimizer",
    "GradientDescentOptimizer",
    "MomentumOptimizer",
    "Optimizer",
    "ProximalAdagradOptimizer",
    "ProximalGradientDescentOptimizer",
    "RMSPropOptimizer",
    "assert_global_step",
    "assign_moving_average",
    "cosine_decay",
    "cosine_decay_restarts",
    "create_global_step",
    "exponential_decay",
    "get_global_step",
    "get_or_create_global_step",
    "global_step",
    "inverse_time_decay",
    "linear_cosine_decay",
    "natural_exp_decay",
    "piecewise_constant",
    "polynomial_decay",
    "write_graph",
]
