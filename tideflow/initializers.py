"""``tf.initializers``: the initializer classes and functions (explicit re-exports only)."""

from tideflow.ops.init_ops import Constant as constant
from tideflow.ops.init_ops import GlorotNormal as glorot_normal
from tideflow.ops.init_ops import GlorotUniform as glorot_uniform
from tideflow.ops.init_ops import Identity as identity
from tideflow.ops.init_ops import Ones as ones
from tideflow.ops.init_ops import Orthogonal as orthogonal
from tideflow.ops.init_ops import RandomNormal as random_normal
from tideflow.ops.init_ops import RandomUniform as random_uniform
from tideflow.ops.init_ops import TruncatedNormal as truncated_normal
from tideflow.ops.init_ops import UniformUnitScaling as uniform_unit_scaling
from tideflow.ops.init_ops import VarianceScaling as variance_scaling
from tideflow.ops.init_ops import Zeros as zeros
from tideflow.ops.init_ops import he_normal, he_uniform, lecun_normal, lecun_uniform
from tideflow.ops.variables import global_variables_initializer as global_variables
from tideflow.ops.variables import local_variables_initializer as local_variables
from tideflow.ops.variables import tables_initializer
from tideflow.ops.variables import variables_initializer as variables

__all__ = [
    "constant", "global_variables", "glorot_normal", "glorot_uniform", "he_normal", "he_uniform",
    "identity", "lecun_normal", "lecun_uniform", "local_variables", "ones", "orthogonal",
    "random_normal", "random_uniform", "tables_initializer", "truncated_normal",
    "uniform_unit_scaling", "variables",
    "variance_scaling", "zeros",
]
