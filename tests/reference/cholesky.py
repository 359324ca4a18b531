"""Plain-NumPy references of the kernels in ``streamlearn/kernels/cholesky.py``.

Written for readability, straight from the spec (``../shared/papers/online_bls.md``):
§2 broad features, §4.3 rank-one update by Givens rotations, §3.3 substitutions (eqs. 13–14
with corrected indices), Alg. 1 and the gain-vector step. Every function returns new arrays
instead of updating in place.
"""

from __future__ import annotations

import numpy as np


def broad_features(X, Wf, bf, We, be, scale=1.0, row_zscore=False):
    """``a = [z, tanh(scale (z We + be))]``, ``z = x Wf + bf`` (eqs. 1, 28, 3)."""
    X = np.asarray(X, dtype=np.float64)
    if row_zscore:
        X = X - X.mean(axis=1, keepdims=True)
        sd = np.sqrt((X**2).mean(axis=1, keepdims=True))
        X = X / np.where(sd > 0, sd, 1.0)
    Z = X @ Wf + bf
    H = np.tanh(scale * (Z @ We + be))
    return np.hstack([Z, H])


def enhancement_absmax(X, Wf, bf, We, be, row_zscore=False):
    A = broad_features(X, Wf, bf, We, be, 1.0, row_zscore)
    Z = A[:, : Wf.shape[1]]
    return float(np.abs(Z @ We + be).max())


def scores(a, W):
    return W.T @ a


def argmax_first(v):
    return int(np.argmax(v))


def chol_update(U, x, beta=1.0):
    """Spec §4.3: ``UᵀU ← β²UᵀU + x xᵀ`` by Givens rotations; also ``v = U_new⁻ᵀ x``
    computed by an explicit forward substitution (not the rotation trick)."""
    U = beta * np.array(U, dtype=np.float64)
    w = np.array(x, dtype=np.float64)
    m = U.shape[0]
    for i in range(m):
        uii, xi = U[i, i], w[i]
        r = np.hypot(uii, xi)
        c, s = uii / r, xi / r
        diag = c * uii + s * xi
        if diag < 0:  # Remark 1
            c, s, diag = -c, -s, -diag
        U[i, i] = diag
        row = U[i, i + 1 :].copy()
        U[i, i + 1 :] = c * row + s * w[i + 1 :]
        w[i + 1 :] = c * w[i + 1 :] - s * row
    return U, solve_ut(U, x)


def chol_update_unit(U, k, alpha):
    e = np.zeros(U.shape[0])
    e[k] = alpha
    return chol_update(U, e)[0]


def solve_ut(U, b):
    """Forward substitution ``L c = b`` with ``L = Uᵀ`` (eq. 13, corrected indices):
    ``c_i = (b_i - Σ_{d<i} l_id c_d) / l_ii``."""
    L = np.asarray(U).T
    b = np.array(b, dtype=np.float64)
    out = np.zeros_like(b)
    for i in range(len(b)):
        out[i] = (b[i] - L[i, :i] @ out[:i]) / L[i, i]
    return out


def solve_u(U, c):
    """Backward substitution ``Lᵀ w = c`` (eq. 14, corrected indices):
    ``w_i = (c_i - Σ_{d>i} l_di w_d) / l_ii``."""
    L = np.asarray(U).T
    c = np.array(c, dtype=np.float64)
    out = np.zeros_like(c)
    for i in range(len(c) - 1, -1, -1):
        out[i] = (c[i] - L[i + 1 :, i] @ out[i + 1 :]) / L[i, i]
    return out


def solve_ut_rows(U, XT):
    return np.array([solve_ut(U, row) for row in XT]).reshape(np.shape(XT))


def solve_u_rows(U, XT):
    return np.array([solve_u(U, row) for row in XT]).reshape(np.shape(XT))


def decay_add_outer(P, a, mu):
    return mu * P + np.outer(a, a)


def ada_gain_run(U, P, W, A, y, mu):
    """Alg. 2 between refactorisations: ``P ← μP + aaᵀ`` (upper triangle), factor of
    ``μUᵀU + aaᵀ``, gain step. Returns ``(U, P, W, predictions)``."""
    U, P, W = (np.array(M, dtype=np.float64) for M in (U, P, W))
    c = W.shape[1]
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        P = np.triu(mu * P + np.outer(a, a)) + np.tril(P, -1)
        U, v = chol_update(U, a, np.sqrt(mu))
        W = W + np.outer(solve_u(U, v), r)
    return U, P, W, np.array(pred, dtype=np.int64)


def obls_run(U, W, A, y):
    """Algorithm 1 over the rows of ``A``; returns ``(U, W, predictions)``."""
    U, W = np.array(U, dtype=np.float64), np.array(W, dtype=np.float64)
    c = W.shape[1]
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        U, _ = chol_update(U, a)
        B = np.outer(a, r)
        C = solve_ut_rows(U, B.T)  # forward, eq. 13
        dW = solve_u_rows(U, C)  # backward, eq. 14
        W = W + dW.T
    return U, W, np.array(pred, dtype=np.int64)


def gain_run(U, W, A, y, beta=1.0, alpha=0.0, pos=0):
    """Gain-vector step over the rows of ``A``; returns ``(U, W, predictions, pos)``."""
    U, W = np.array(U, dtype=np.float64), np.array(W, dtype=np.float64)
    m, c = W.shape
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        if alpha > 0:
            U = chol_update_unit(U, pos, alpha / beta)
            pos = (pos + 1) % m
        U, v = chol_update(U, a, beta)
        g = solve_u(U, v)
        W = W + np.outer(g, r)
    return U, W, np.array(pred, dtype=np.int64), pos


def sqrt_run(U, Z, A, y):
    """Square-root information form: rotate ``[aᵀ yᵀ; U Z]`` by the EOUS Givens rotations
    (the first ``m`` columns decide them); predict with ``Zᵀ U⁻ᵀ a`` before the update.
    Returns ``(U, Z, predictions)``."""
    U, Z = np.array(U, dtype=np.float64), np.array(Z, dtype=np.float64)
    m, c = Z.shape
    pred = []
    for a, label in zip(A, y, strict=True):
        q = solve_ut(U, a)
        pred.append(argmax_first(Z.T @ q))
        M = np.hstack([U, Z])  # (m, m + c)
        top = np.concatenate([a, np.eye(c)[label]])
        for i in range(m):
            r = np.hypot(M[i, i], top[i])
            cth, sth = M[i, i] / r, top[i] / r
            row = M[i].copy()
            M[i] = cth * row + sth * top
            top = cth * top - sth * row
        U, Z = np.triu(M[:, :m]), M[:, m:]
    return U, Z, np.array(pred, dtype=np.int64)
