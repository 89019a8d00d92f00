"""Implicit reparameterization gradients of Gamma draws: RandomGammaGrad (TF's op) and the
gradient of RandomGamma, through which Gamma, Beta, Dirichlet and Student-t samples are
differentiable with respect to their parameters.

A draw x with CDF P(alpha, x) = u held fixed moves with alpha as dx/dalpha =
-(dP/dalpha) / (dP/dx), dP/dx being the Gamma(alpha, 1) density at x."""

import numpy as np

from tideflow.framework import op_registry, ops
from tideflow.ops import special_functions as sf
from tideflow.ops.elementwise import _binary_shape


def _random_gamma_grad_kernel(alpha, sample):
    from tideflow.ops.special_math_ops import _igamma_grad_a

    if alpha.dtype == np.float32 and sample.dtype == np.float32:
        # TF 1.15's kernel: Eigen's float gamma_sample_der_alpha (igamma's series or continued
        # fraction differentiated in float32)
        from tideflow.ops import cephes_float32, eigen_float32

        return eigen_float32._flush_denormals(
            cephes_float32.gamma_sample_der_alpha(alpha, sample))
    a = np.asarray(alpha, np.float64)
    x = np.asarray(sample, np.float64)
    with np.errstate(all="ignore"):
        log_pdf = (a - 1.0) * np.log(x) - x - sf.lgamma(a)
        out = -_igamma_grad_a(a, x) / np.exp(log_pdf)
    # a draw at 0 (a tiny alpha's underflow) does not move
    out = np.where(x > 0, out, 0.0)
    return out.astype(np.result_type(alpha, sample), copy=False)


op_registry.declare(
    "RandomGammaGrad", inputs=["alpha: T", "sample: T"], outputs=["output: T"],
    attrs=["T: {float, double}"], shape=_binary_shape, kernel=_random_gamma_grad_kernel,
)  # (no gradient defined, as TF 1.15: a second derivative of random_gamma is a LookupError)


def random_gamma_grad(alpha, sample, name=None):
    """d sample / d alpha of Gamma(alpha, 1) draws ``sample`` (TF's gen_random_ops name)."""
    return ops.apply_op("RandomGammaGrad", [alpha, sample], name=name)._outputs[0]


def add_leading_unit_dimensions(x, num_dimensions):
    """``x`` reshaped with ``num_dimensions`` (a Python int or an int32 tensor) leading
    dimensions of size 1 (TF's random_grad.add_leading_unit_dimensions)."""
    from tideflow.ops import array_ops

    x = ops.convert_to_tensor(x)
    if isinstance(num_dimensions, int) and x.shape.is_fully_defined():
        return array_ops.reshape(x, [1] * num_dimensions + x.shape.as_list())
    lead = array_ops.ones(array_ops.expand_dims(num_dimensions, 0), dtype="int32")
    return array_ops.reshape(x, array_ops.concat([lead, array_ops.shape(x)], 0))


def _random_gamma_grad(op, grad):
    """TF's gradient of RandomGamma: none for the shape; for alpha the implicit derivative of
    each draw, summed over the leading sample dimensions."""
    from tideflow.ops import array_ops, range_ops, reduction_ops

    shape, alpha = op._inputs
    sample = op._outputs[0]
    n_sample_dims = array_ops.shape(shape)[0]
    # alpha with n_sample_dims leading unit dimensions, to broadcast against the draws
    partial = random_gamma_grad(add_leading_unit_dimensions(alpha, n_sample_dims), sample)
    return [None, reduction_ops.reduce_sum(grad * partial, range_ops.range(n_sample_dims))]
