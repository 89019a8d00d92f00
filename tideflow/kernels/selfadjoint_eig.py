"""The self-adjoint eigensolver TF's CPU kernel runs (Eigen's SelfAdjointEigenSolver: Householder
tridiagonalization, implicit symmetric QR steps, a selection sort), step by step in NumPy, so
that eigenvectors come out with TF's signs and order; LAPACK's differ by a sign per column."""

import numpy as np


def _givens(p, q):
    """Eigen's JacobiRotation::makeGivens for reals: (c, s) with [c -s; s c]^T [p; q] = [r; 0]."""
    if q == 0:
        return (-1.0 if p < 0 else 1.0), 0.0
    if p == 0:
        return 0.0, (1.0 if q < 0 else -1.0)
    if abs(p) > abs(q):
        t = q / p
        u = -np.sqrt(1 + t * t) if p < 0 else np.sqrt(1 + t * t)
        c = 1 / u
        return c, -t * c
    t = p / q
    u = -np.sqrt(1 + t * t) if q < 0 else np.sqrt(1 + t * t)
    s = -1 / u
    return -t * s, s


def _tridiagonalize(a, tiny):
    """Diagonal, subdiagonal (both real) and Q of a = Q T Q^H, from a's lower triangle
    (Eigen's closed form for real 3 x 3, Householder reflections otherwise)."""
    n = a.shape[0]
    a = np.tril(a) + np.tril(a, -1).conj().T
    if n == 3 and not np.iscomplexobj(a):
        d, e = np.array([a[0, 0], a[1, 1], a[2, 2]]), np.array([a[1, 0], a[2, 1]])
        if a[2, 0] ** 2 <= tiny:
            return d, e, np.eye(3)
        beta = np.sqrt(a[1, 0] ** 2 + a[2, 0] ** 2)
        m01, m02 = a[1, 0] / beta, a[2, 0] / beta
        q = 2 * m01 * a[2, 1] + m02 * (a[2, 2] - a[1, 1])
        d[1], d[2] = a[1, 1] + m02 * q, a[2, 2] - m02 * q
        e[0], e[1] = beta, a[2, 1] - m01 * q
        return d, e, np.array([[1.0, 0.0, 0.0], [0.0, m01, m02], [0.0, m02, -m01]])
    coeffs, vectors = [], []
    for i in range(n - 1):
        x = a[i + 1:, i]
        c0, tail = x[0], float(np.vdot(x[1:], x[1:]).real)
        if tail <= tiny and np.imag(c0) ** 2 <= tiny:
            h, beta, essential = 0.0, np.real(c0), np.zeros(len(x) - 1, a.dtype)
        else:
            beta = np.sqrt(abs(c0) ** 2 + tail)
            beta = -beta if np.real(c0) >= 0 else beta
            essential, h = x[1:] / (c0 - beta), np.conj((beta - c0) / beta)
        v = np.concatenate([np.ones(1, a.dtype), essential])
        p = a[i + 1:, i + 1:] @ (np.conj(h) * v)
        p += (np.conj(h) * -0.5 * np.vdot(p, v)) * v
        a[i + 1:, i + 1:] -= np.outer(v, p.conj()) + np.outer(p, v.conj())
        a[i + 1, i], a[i + 2:, i] = beta, 0.0
        coeffs.append(np.conj(h))
        vectors.append(v)
    q = np.eye(n, dtype=a.dtype)
    for i in range(n - 2, -1, -1):  # Q = H_0 H_1 ... H_{n-2}, H_i = I - conj(h_i) v_i v_i^H
        block = q[i + 1:, i + 1:]
        q[i + 1:, i + 1:] = block - coeffs[i] * np.outer(vectors[i], vectors[i].conj() @ block)
    return np.diag(a).real.copy(), np.diag(a, -1).real.copy(), q


def _qr_step(d, e, start, end, q):
    """One implicit symmetric QR step with Wilkinson's shift on rows start..end, the
    rotations accumulated into q's columns."""
    td, ee, mu = (d[end - 1] - d[end]) * 0.5, e[end - 1], d[end]
    if td == 0:
        mu -= abs(ee)
    elif ee != 0:
        h = np.hypot(td, ee)
        if ee * ee == 0:  # e^2 underflows
            mu -= ee / ((td + (h if td > 0 else -h)) / ee)
        else:
            mu -= ee * ee / (td + (h if td > 0 else -h))
    x, z, k = d[start] - mu, e[start], start
    while k < end and z != 0:
        c, s = _givens(x, z)
        sdk = s * d[k] + c * e[k]
        dkp1 = s * e[k] + c * d[k + 1]
        d[k] = c * (c * d[k] - s * e[k]) - s * (c * e[k] - s * d[k + 1])
        d[k + 1] = s * sdk + c * dkp1
        e[k] = c * sdk - s * dkp1
        if k > start:
            e[k - 1] = c * e[k - 1] - s * z
        x = e[k]
        if k < end - 1:
            z = -s * e[k + 1]
            e[k + 1] = c * e[k + 1]
        qk = q[:, k].copy()
        q[:, k] = c * qk - s * q[:, k + 1]
        q[:, k + 1] = s * qk + c * q[:, k + 1]
        k += 1


def eigh(matrix, dtype):
    """Eigenvalues (ascending) and eigenvectors of one self-adjoint matrix (its lower
    triangle), in double precision, deflating at ``dtype``'s precision as TF's kernel for it
    does."""
    n = matrix.shape[0]
    wide = np.complex128 if np.iscomplexobj(matrix) else np.float64
    if n == 1:
        return np.real(matrix[0]).astype(np.float64), np.ones((1, 1), wide)
    low = np.tril(np.asarray(matrix, wide))
    scale = np.abs(low).max() or 1.0
    info = np.finfo(np.dtype(dtype))
    tiny, precision = float(info.tiny), 2 * float(info.eps)
    d, e, q = _tridiagonalize(low / scale, tiny)
    start, end, iterations = 0, n - 1, 0
    while end > 0:
        for i in range(start, end):  # from the last block's start, as Eigen's loop
            if abs(e[i]) <= tiny or abs(e[i]) <= (abs(d[i]) + abs(d[i + 1])) * precision:
                e[i] = 0.0
        while end > 0 and e[end - 1] == 0:
            end -= 1
        if end <= 0:
            break
        iterations += 1
        if iterations > 30 * n:
            break
        start = end - 1
        while start > 0 and e[start - 1] != 0:
            start -= 1
        _qr_step(d, e, start, end, q)
    for i in range(n - 1):
        k = int(np.argmin(d[i:]))
        if k > 0:
            d[i], d[i + k] = d[i + k], d[i]
            q[:, [i, i + k]] = q[:, [i + k, i]]
    return d * scale, q
