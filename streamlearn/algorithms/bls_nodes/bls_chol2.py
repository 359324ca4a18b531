"""Chol-2: the numerically more stable implementation of Chol-1 (Ridge-BLS paper,
Algorithms 6 and 8, eqs. 51-62)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.algorithms.bls_nodes.node_incremental import _InverseCholeskyLearner
from streamlearn.algorithms.linalg import ichol, tri_mul, tri_t_mul
from streamlearn.registry import register_algorithm

__all__ = ["Chol2BLS"]


@register_algorithm("bls_chol2")
class Chol2BLS(_InverseCholeskyLearner):
    """Chol-2 [Ridge-BLS, Alg. 6, 8]: ridge solution, positive definite by construction.

    ``D = F_k F_kᵀ A_kᵀ H`` (51), ``C = H - A_k D`` (52),
    ``G = ichol(Cᵀ C + λ DᵀD + λ I)`` (57) — positive definite for any ``λ > 0`` (58) —,
    ``T = -D G`` (59), ``F ← [[F_k, T], [0, G]]`` (41), ``W ← [W_k + T b; G b]`` with
    ``b = Gᵀ Cᵀ Y`` (61). Differs from Exg-E only by the ``λ DᵀD`` term (spec §2.5).

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0``.

    References
    ----------
    H. Zhu, arXiv 1911.04872, Sec. III-D/E.
    """

    paper_name: ClassVar[str] = "Chol-2"

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Algorithm 8: eqs. (51), (52), (57), (59), (41), (61)."""
        assert self._Y is not None
        k, q = self.k_, H.shape[1]
        D = tri_mul(self.F, tri_t_mul(self.F, A.T @ H))   # (51)
        C = H - A @ D                                       # (52)
        M = C.T @ C
        M += self.lam * (D.T @ D)
        M[np.diag_indices(q)] += self.lam
        G = ichol(M)                                        # (57)
        T = -(D @ G)                                        # (59)
        b = G.T @ (C.T @ self._Y)                           # (61)
        self._append(T, G, b)
        self._AtY[k:k + q] = H.T @ self._Y                  # kept for completeness
