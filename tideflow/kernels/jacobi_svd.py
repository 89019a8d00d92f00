"""The SVD TF's CPU kernel runs for square matrices under 16 columns (Eigen's BDCSVD hands those
to its two-sided JacobiSVD: 2 x 2 Jacobi sweeps, signs moved into U, a selection sort), step by
step in NumPy, so singular vectors come out with TF's signs; LAPACK's differ per column."""

import numpy as np


def _rotate_rows(w, p, q, c, s):
    x, y = w[p].copy(), w[q].copy()
    w[p], w[q] = c * x + s * y, c * y - s * x


def _rotate_cols(w, p, q, c, s):
    x, y = w[:, p].copy(), w[:, q].copy()
    w[:, p], w[:, q] = c * x - s * y, s * x + c * y


def _jacobi(x, y, z, tiny):
    """Eigen's makeJacobi: the rotation diagonalizing the symmetric [[x, y], [y, z]]."""
    if 2 * abs(y) < tiny:
        return 1.0, 0.0
    tau = (x - z) / (2 * abs(y))
    w = np.sqrt(tau * tau + 1)
    t = 1 / (tau + w) if tau > 0 else 1 / (tau - w)
    n = 1 / np.sqrt(t * t + 1)
    return n, -(1.0 if t > 0 else -1.0) * np.sign(y) * abs(t) * n


def _two_by_two(w, p, q, tiny):
    """The left and right rotations diagonalizing w's (p, q) block (Eigen's
    real_2x2_jacobi_svd): first symmetrize, then a symmetric Jacobi rotation."""
    m = np.array([[w[p, p], w[p, q]], [w[q, p], w[q, q]]])
    t, d = m[0, 0] + m[1, 1], m[1, 0] - m[0, 1]
    if abs(d) < tiny:
        c1, s1 = 1.0, 0.0
    else:
        u = t / d
        root = np.sqrt(1 + u * u)
        c1, s1 = u / root, 1 / root
    _rotate_rows(m, 0, 1, c1, s1)
    cr, sr = _jacobi(m[0, 0], m[0, 1], m[1, 1], tiny)
    return (c1 * cr + s1 * sr, s1 * cr - c1 * sr), (cr, sr)


def svd(matrix, dtype):
    """Singular values (descending), U and V of one real square matrix, in float64, with
    ``dtype``'s convergence threshold as TF's kernel for it."""
    a = np.asarray(matrix, np.float64)
    n = a.shape[0]
    info = np.finfo(dtype)
    precision, tiny = 2 * float(info.eps), float(info.tiny)
    scale = np.abs(a).max() if a.size else 0.0
    scale = scale or 1.0
    w, u, v = a / scale, np.eye(n), np.eye(n)
    biggest = np.abs(np.diag(w)).max() if n else 0.0
    finished = False
    while not finished:
        finished = True
        for p in range(1, n):
            for q in range(p):
                threshold = max(tiny, precision * biggest)
                if abs(w[p, q]) > threshold or abs(w[q, p]) > threshold:
                    finished = False
                    (cl, sl), (cr, sr) = _two_by_two(w, p, q, tiny)
                    _rotate_rows(w, p, q, cl, sl)
                    _rotate_cols(u, p, q, cl, -sl)
                    _rotate_cols(w, p, q, cr, sr)
                    _rotate_cols(v, p, q, cr, sr)
                    biggest = max(biggest, abs(w[p, p]), abs(w[q, q]))
    s = np.diag(w).copy()
    u[:, s < 0] *= -1
    s = np.abs(s) * scale
    for i in range(n):
        pos = int(np.argmax(s[i:]))
        if s[i + pos] == 0:
            break
        if pos:
            pos += i
            s[i], s[pos] = s[pos], s[i]
            u[:, [i, pos]] = u[:, [pos, i]]
            v[:, [i, pos]] = v[:, [pos, i]]
    return s, u, v
