"""Exg-E: the existing efficient generalized-inverse solution through an inverse Cholesky
factor (Ridge-BLS paper, Algorithms 4-5, eqs. 25-33)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.algorithms.bls_nodes.node_incremental import _InverseCholeskyLearner
from streamlearn.algorithms.linalg import ichol, tri_mul, tri_t_mul
from streamlearn.registry import register_algorithm

__all__ = ["ExgEBLS"]


@register_algorithm("bls_exg_e")
class ExgEBLS(_InverseCholeskyLearner):
    """Exg-E [Ridge-BLS, Alg. 4-5]: Greville's update carried by the inverse Cholesky factor.

    INIT: ``F = ichol(Aᵀ A + λ I)`` (26), ``W = F Fᵀ Aᵀ Y`` (28). UPDATE:
    ``D = F_k F_kᵀ A_kᵀ H`` (30), ``C = H - A_k D`` (22), ``G = ichol(Cᵀ C + λ I)`` (32a),
    ``T = -D G`` (32b), ``F ← [[F_k, T], [0, G]]`` (31),
    ``W ← [W_k + T b; G b]`` with ``b = Tᵀ Aᵀ Y + Gᵀ Hᵀ Y`` (33).
    Equals Orig. in exact arithmetic (spec §2.3); not the ridge solution for ``λ > 0``.

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0``.

    References
    ----------
    H. Zhu, arXiv 1911.04872, Sec. II-D (ref. [20] of the paper).
    """

    solution: ClassVar[str] = "generalized-inverse"
    paper_name: ClassVar[str] = "Exg-E"

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Algorithm 5: eqs. (30), (22), (32a), (32b), (31), (33)."""
        assert self._Y is not None
        k, q = self.k_, H.shape[1]
        AtY = self._AtY[:k]
        D = tri_mul(self.F, tri_t_mul(self.F, A.T @ H))   # (30)
        C = H - A @ D                                       # (22)
        M = C.T @ C
        M[np.diag_indices(q)] += self.lam
        G = ichol(M)                                        # (32a)
        T = -(D @ G)                                        # (32b)
        HtY = H.T @ self._Y
        b = T.T @ AtY + G.T @ HtY                           # (33)
        self._append(T, G, b)
        self._AtY[k:k + q] = HtY
