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

# the *WithSoftplus* classes (TF 1.x's deprecated variants of unconstrained parameters) are
# importable from the module paths (tensorflow.python.ops.distributions.normal...); they are
# not in ``__all__``, as not in ``tf.distributions``' API
from tideflow.distributions.dists import (  # noqa: F401
    Bernoulli,
    Beta,
    BetaWithSoftplusConcentration,
    Categorical,
    Dirichlet,
    DirichletMultinomial,
    Exponential,
    ExponentialWithSoftplusRate,
    Gamma,
    GammaWithSoftplusConcentrationRate,
    Laplace,
    LaplaceWithSoftplusScale,
    Multinomial,
    Normal,
    NormalWithSoftplusScale,
    StudentT,
    StudentTWithAbsDfSoftplusScale,
    Uniform,
)

__all__ = ["FULLY_REPARAMETERIZED", "NOT_REPARAMETERIZED", "Bernoulli", "Beta", "Categorical",
           "Dirichlet", "DirichletMultinomial", "Distribution", "Exponential", "Gamma",
           "Laplace", "Multinomial", "Normal", "RegisterKL", "ReparameterizationType",
           "StudentT", "Uniform", "kl_divergence"]
