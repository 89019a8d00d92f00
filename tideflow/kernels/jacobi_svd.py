"""The SVD TF's CPU kernel runs for matrices under 16 columns (Eigen's BDCSVD hands those to its
two-sided JacobiSVD: a column-pivoting Householder QR first when not square, 2 x 2 Jacobi sweeps,
signs moved into U, a selection sort), step by step in NumPy, so singular vectors come out with
TF's signs; LAPACK's differ per column."""

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


def _householder(x, tiny):
    """Eigen's makeHouseholder for reals: (tau, beta, essential part of v)."""
    c0, tail = x[0], float(np.dot(x[1:], x[1:]))
    if tail <= tiny:
        return 0.0, c0, np.zeros(len(x) - 1)
    beta = -np.sqrt(c0 * c0 + tail) if c0 >= 0 else np.sqrt(c0 * c0 + tail)
    return (beta - c0) / beta, beta, x[1:] / (c0 - beta)


def _pivoted_qr(a, eps, tiny):
    """Eigen's ColPivHouseholderQR: R (upper part of the result), the reflections and the
    column order (largest remaining norm first, norms downdated until they lose precision)."""
    a = a.copy()
    rows, cols = a.shape
    direct = np.sqrt((a * a).sum(0))
    updated = direct.copy()
    order, taus, vectors = list(range(cols)), [], []
    for k in range(min(rows, cols)):
        big = k + int(np.argmax(updated[k:]))
        if big != k:
            a[:, [k, big]] = a[:, [big, k]]
            updated[[k, big]], direct[[k, big]] = updated[[big, k]], direct[[big, k]]
            order[k], order[big] = order[big], order[k]
        tau, beta, essential = _householder(a[k:, k], tiny)
        v = np.concatenate([[1.0], essential])
        a[k, k], a[k + 1:, k] = beta, essential
        a[k:, k + 1:] -= tau * np.outer(v, v @ a[k:, k + 1:])
        taus.append(tau)
        vectors.append(v)
        for j in range(k + 1, cols):
            if updated[j] != 0:
                t = abs(a[k, j]) / updated[j]
                t = max((1 + t) * (1 - t), 0.0)
                if t * (updated[j] / direct[j]) ** 2 <= np.sqrt(eps):
                    direct[j] = updated[j] = np.linalg.norm(a[k + 1:, j])
                else:
                    updated[j] *= np.sqrt(t)
    return a, taus, vectors, order


def _q_columns(taus, vectors, rows, ncols):
    """The first ``ncols`` columns of Q = H_0 H_1 ... from the QR's reflections."""
    q = np.eye(rows, ncols)
    for k in range(len(taus) - 1, -1, -1):
        v = vectors[k]
        q[k:] -= taus[k] * np.outer(v, v @ q[k:])
    return q


def _permutation(order):
    p = np.zeros((len(order), len(order)))
    p[order, range(len(order))] = 1.0
    return p


def svd(matrix, dtype, full_matrices=False):
    """Singular values (descending), U and V of one real matrix, in float64, with ``dtype``'s
    thresholds as TF's kernel for it (thin U and V unless ``full_matrices``)."""
    a = np.asarray(matrix, np.float64)
    rows, cols = a.shape
    info = np.finfo(dtype)
    eps, tiny = float(info.eps), float(info.tiny)
    scale = (np.abs(a).max() if a.size else 0.0) or 1.0
    a = a / scale
    if rows > cols:  # R of A P = Q R is square: U starts as Q, V as P
        qr, taus, vectors, order = _pivoted_qr(a, eps, tiny)
        w = np.triu(qr[:cols, :cols])
        u, v = _q_columns(taus, vectors, rows, rows if full_matrices else cols), \
            _permutation(order)
    elif rows < cols:  # the same for A's transpose
        qr, taus, vectors, order = _pivoted_qr(a.T, eps, tiny)
        w = np.triu(qr[:rows, :rows]).T
        u, v = _permutation(order), \
            _q_columns(taus, vectors, cols, cols if full_matrices else rows)
    else:
        w, u, v = a, np.eye(rows), np.eye(rows)
    n = w.shape[0]
    biggest = np.abs(np.diag(w)).max() if n else 0.0
    finished = False
    while not finished:
        finished = True
        for p in range(1, n):
            for q in range(p):
                threshold = max(tiny, 2 * eps * biggest)
                if abs(w[p, q]) > threshold or abs(w[q, p]) > threshold:
                    finished = False
                    (cl, sl), (cr, sr) = _two_by_two(w, p, q, tiny)
                    _rotate_rows(w, p, q, cl, sl)
                    _rotate_cols(u, p, q, cl, -sl)
                    _rotate_cols(w, p, q, cr, sr)
                    _rotate_cols(v, p, q, cr, sr)
                    biggest = max(biggest, abs(w[p, p]), abs(w[q, q]))
    s = np.diag(w).copy()
    u[:, np.nonzero(s < 0)[0]] *= -1
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
