"""Cases: first and second derivatives of single ops, one case per op."""

_BODY = """
x = tf.constant(np.linspace(-0.9, 1.1, 12).reshape(3, 4), tf.float64)
y = tf.constant(np.linspace(0.5, 2.0, 12).reshape(3, 4), tf.float64)
f = %s
wts = tf.cast(tf.reshape(tf.range(tf.size(f)), tf.shape(f)) %% 5 + 1, f.dtype)
loss = tf.reduce_sum(f * wts)
g = tf.gradients(loss, [x, y])
g = [t for t in g if t is not None]
g2 = tf.gradients(tf.reduce_sum(g[0] * g[0]), x) if g else []
with tf.Session() as s:
    rec("f", s.run(f)); rec("g", s.run(g))
    rec("g2", s.run([t for t in g2 if t is not None]))
    rec("shape", f.get_shape())
# tol: 1e-6 1e-8
"""

_EXPRS = {
    "add_bcast": "x + tf.reduce_sum(y, 0)", "sub_bcast": "x - y[:1]", "mul": "x * y", "div": "x / y",
    "pow": "tf.pow(y, x)", "sq": "tf.square(x)", "sqrt": "tf.sqrt(y)", "exp": "tf.exp(x)",
    "log": "tf.log(y)", "log1p": "tf.log1p(y)", "tanh": "tf.tanh(x)", "sigmoid": "tf.sigmoid(x)",
    "softplus": "tf.nn.softplus(x)", "elu": "tf.nn.elu(x)", "selu": "tf.nn.selu(x)",
    "atan": "tf.atan(x)", "asin": "tf.asin(x * 0.5)", "acos": "tf.acos(x * 0.5)", "sinh": "tf.sinh(x)",
    "erf": "tf.erf(x)", "erfc": "tf.erfc(x)", "lgamma": "tf.lgamma(y)", "digamma": "tf.digamma(y)",
    "rsqrt": "tf.rsqrt(y)", "recip": "tf.reciprocal(y)", "max_el": "tf.maximum(x, y - 1.)",
    "sqdiff": "tf.squared_difference(x, y)", "atan2": "tf.atan2(x, y)",
    "matmul_t": "tf.matmul(x, y, transpose_b=True)", "reduce_prod": "tf.reduce_prod(y, 1)",
    "reduce_max": "tf.reduce_max(x, 0)", "reduce_mean": "tf.reduce_mean(x * y, 1, keepdims=True)",
    "logsumexp": "tf.reduce_logsumexp(x, 1)", "softmax": "tf.nn.softmax(x)",
    "log_softmax": "tf.nn.log_softmax(x)", "l2norm": "tf.nn.l2_normalize(x, 1)",
    "cumprod": "tf.cumprod(y, 1, exclusive=True)", "cumsum_rev": "tf.cumsum(x * y, 0, reverse=True)",
    "matrix_inverse": "tf.matrix_inverse(tf.matmul(y, y, transpose_b=True) + tf.eye(3, dtype=tf.float64))",
    "determinant": "tf.matrix_determinant(tf.matmul(x, y, transpose_b=True))",
    "cholesky": "tf.cholesky(tf.matmul(y, y, transpose_b=True) + tf.eye(3, dtype=tf.float64))",
    "self_adjoint_eigvals": "tf.self_adjoint_eigvals(tf.matmul(x, x, transpose_b=True) + tf.matmul(y, y, transpose_b=True))",
    "sigmoid_ce": "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(y), logits=x)",
    "conv1d": "tf.nn.conv1d(tf.reshape(x, [1, 12, 1]), tf.reshape(y[0, :3], [3, 1, 1]), 1, 'SAME')",
    "segment_mean": "tf.segment_mean(x * y, [0, 0, 1])",
    "gather_nd_grad": "tf.gather_nd(x * y, [[0, 0], [2, 3], [0, 0]])",
    "batch_matmul": "tf.matmul(tf.reshape(x, [2, 2, 3]), tf.reshape(y, [2, 3, 2]))",
    "relu_second": "tf.nn.relu(x) * x",
}

GRADS = {"grad_" + k: _BODY % v for k, v in _EXPRS.items()}
