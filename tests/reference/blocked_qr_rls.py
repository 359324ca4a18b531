"""Plain-NumPy references of ``streamlearn/kernels/blocked_qr_rls.py``: the forward
substitution by SciPy, the in-block predictions by a direct solve of the ridge normal
equations of the prefix (Online-BLS, eqs. 5–6, line 5), the sign normalisation by masks.
Functions return new arrays instead of updating in place."""

from __future__ import annotations

import numpy as np
import scipy.linalg as sl


def solve_ut_cols(U: np.ndarray, A: np.ndarray) -> np.ndarray:
    """``U⁻ᵀ Aᵀ`` (``(m, n)``): column ``s`` is ``q_s = U⁻ᵀ a_s``."""
    return sl.solve_triangular(U, A.T, trans="T", lower=False)


def block_scores(U: np.ndarray, Z: np.ndarray, A: np.ndarray, y: np.ndarray,
                 w: np.ndarray | None = None) -> np.ndarray:
    """Scores ``ŷ_j = a_jᵀ K_j⁻¹ S_j`` of the block's rows ``A`` (``(p, m)``) in order, with
    ``K_j = UᵀU + Σ_{i<j} w_i² a_i a_iᵀ`` and ``S_j = UᵀZ + Σ_{i<j} w_i² a_i e_{y_i}ᵀ``
    (direct solves of the normal equations; ``w`` all ones by default)."""
    c = Z.shape[1]
    w = np.ones(A.shape[0]) if w is None else w
    K, S = U.T @ U, U.T @ Z
    out = np.empty((A.shape[0], c))
    for j, a in enumerate(A):
        out[j] = a @ np.linalg.solve(K, S)
        K = K + w[j] ** 2 * np.outer(a, a)
        S = S + w[j] ** 2 * np.outer(a, np.eye(c)[y[j]])
    return out


def positive_diagonal(U: np.ndarray, Z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``U``, ``Z`` with the rows where ``U``'s diagonal is negative negated."""
    sign = np.where(np.diagonal(U) < 0, -1.0, 1.0)
    return sign[:, None] * U, sign[:, None] * Z
