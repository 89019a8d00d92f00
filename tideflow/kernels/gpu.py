"""GPU kernels of the few core ops whose declared kernel is host-only (the rest of the GPU
backend is the declarations' generic ``xp`` kernels run through CuPy)."""

from tideflow.framework import op_registry


def _const_factory(ctx):
    value = ctx.device.to_device(ctx.op._attrs["value"])

    def run():
        return value

    return run


def _noop_factory(ctx):
    def run():
        return None

    return run


def _identity(x):
    return x


def _matmul_factory(ctx):
    xp = ctx.device.xp
    ta, tb = ctx.op._attrs["transpose_a"], ctx.op._attrs["transpose_b"]

    def run(a, b):
        return xp.matmul(a.T if ta else a, b.T if tb else b)

    return run


def _bias_add_factory(ctx):
    xp = ctx.device.xp
    nchw = ctx.op._attrs.get("data_format") in ("NCHW", b"NCHW")

    def run(value, bias):
        if nchw:
            bias = bias.reshape((-1,) + (1,) * (value.ndim - 2))
        return xp.add(value, bias)

    return run


def _unary_factory(fn):
    def factory(ctx):
        return fn(ctx.device.xp)

    return factory


def _relu(xp):
    def run(x):
        return xp.maximum(x, x.dtype.type(0))

    return run


def _sigmoid(xp):
    def run(x):
        return 1 / (1 + xp.exp(-x))

    return run


def _divide(xp):
    return xp.true_divide


_DONE = False


def register():
    """Registers the GPU kernels (once)."""
    global _DONE
    if _DONE:
        return
    _DONE = True
    import tideflow.ops.array_ops
    import tideflow.ops.constant_op
    import tideflow.ops.control_flow_ops

    op_registry.register_kernel("Const", "GPU", kernel_factory=_const_factory)
    op_registry.register_kernel("Identity", "GPU", kernel=_identity)
    op_registry.register_kernel("NoOp", "GPU", kernel_factory=_noop_factory)
    import tideflow.ops.linalg_ops
    import tideflow.ops.nn_ops  # noqa: F401

    op_registry.register_kernel("MatMul", "GPU", kernel_factory=_matmul_factory)
    op_registry.register_kernel("BiasAdd", "GPU", kernel_factory=_bias_add_factory)
    op_registry.register_kernel("Relu", "GPU", kernel_factory=_unary_factory(_relu))
    op_registry.register_kernel("Sigmoid", "GPU", kernel_factory=_unary_factory(_sigmoid))
    for name in ("RealDiv", "Div"):
        op_registry.register_kernel(name, "GPU", kernel_factory=lambda ctx: _divide(
            ctx.device.xp))
    # Pow's host kernel takes a whole exponent through double on NumPy; CuPy's power serves
    op_registry.register_kernel("Pow", "GPU", kernel_factory=lambda ctx: ctx.device.xp.power)
