"""Plain-NumPy references of ``streamlearn/kernels/cholesky_update.py``.

Written for readability from the Online-BLS paper: the rank-one update of §3.4 by Givens
rotations (eq. 15, with the corrected ``G_i`` and Remark 1) and the forward/backward
substitutions of eqs. 13–14 (with the subscripts of ``l`` swapped back). The factor is the
upper triangle ``U = Lᵀ``. Functions return new arrays instead of updating in place.
"""

from __future__ import annotations

import numpy as np


def chol_update(U, x, beta=1.0):
    """Eq. 15: ``UᵀU ← β²UᵀU + x xᵀ`` by Givens rotations; also ``v = U_new⁻ᵀ x``
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
