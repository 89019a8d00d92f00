"""``tf.distributions`` (TF 1.x): probability distributions in graph mode, with sampling,
densities, statistics and registered KL divergences."""

from tideflow.distributions.distribution import (
    FULLY_REPARAMETERIZED,
    NOT_REPARAMETERIZED,
    Distribution,
    RegisterKL,
    ReparameterizationType,
    kl_divergence,
)
from tideflow.distributions.dists import (
    Bernoulli,
    Beta,
    Categorical,
    Dirichlet,
    DirichletMultinomial,
    Exponential,
    Gamma,
    Laplace,
    Multinomial,
    Normal,
    StudentT,
    Uniform,
)

__all__ = ["FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "Bernoulli", "Beta", "Categorical",
           "Dirichlet", "DirichletMultinomial", "Distribution", "Exponential", "Gamma",
           "Laplace", "Multinomial", "Normal", "RegisterKL", "ReparameterizationType",
           "StudentT", "Uniform", "kl_divergence"]
