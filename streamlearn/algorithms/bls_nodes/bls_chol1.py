"""Chol-1: the proposed efficient ridge solution by the block inverse Cholesky
factorisation (Ridge-BLS paper, Algorithms 6-7, eqs. 34-50)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.algorithms.bls_nodes.node_incremental import _InverseCholeskyLearner
from streamlearn.algorithms.linalg import NotPositiveDefinite, ichol, tri_mul, tri_t_mul
from streamlearn.registry import register_algorithm

__all__ = ["Chol1BLS"]


@register_algorithm("bls_chol1")
class Chol1BLS(_InverseCholeskyLearner):
    """Chol-1 [Ridge-BLS, Alg. 6-7]: ridge solution by the block inverse Cholesky factor.

    With ``P = A_kᵀ H`` and ``E = F_kᵀ P``: ``G = ichol(Hᵀ H + λ I - Eᵀ E)`` (42a),
    ``T = -F_k E G`` (42b), ``F ← [[F_k, T], [0, G]]`` (41),
    ``W ← [W_k + T b; G b]`` with ``b = Tᵀ Aᵀ Y + Gᵀ Hᵀ Y`` (50).
    The Schur complement of (42a) is a difference of two nearly equal matrices: for tiny
    ``λ`` it loses positive definiteness and the update is NA (``failed_at_``), as in the
    paper's Table II.

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0``.

    References
    ----------
    H. Zhu, arXiv 1911.04872, Sec. III-B/C.
    """

    paper_name: ClassVar[str] = "Chol-1"

    def _diagnose(self, A: np.ndarray, H: np.ndarray, M: np.ndarray, E: np.ndarray) -> None:
        """Why (42a) failed, recorded in the run's learner counters: the extreme
        eigenvalues of the Schur complement as Chol-1 formed it, ``HᵀH + λI − EᵀE``, and
        of the same matrix in Chol-2's form (57), ``CᵀC + λDᵀD + λI`` with
        ``D = F Fᵀ Aᵀ H``, ``C = H − A D`` — equal in exact arithmetic, positive definite
        by construction in the second form. A negative ``schur_min_eig_`` beside a
        positive ``schur_chol2_min_eig_`` is the cancellation of (42a) beyond λ (one
        more product with ``A``: the cost of an update, once, at the failure)."""
        ev = np.linalg.eigvalsh(M)
        self.schur_min_eig_ = float(ev[0])
        self.schur_max_eig_ = float(ev[-1])
        D = tri_mul(self.F, E)                              # F Fᵀ Aᵀ H = F E
        C = H - A @ D
        M2 = C.T @ C
        M2 += self.lam * (D.T @ D)
        M2[np.diag_indices(M2.shape[0])] += self.lam
        ev2 = np.linalg.eigvalsh(M2)
        self.schur_chol2_min_eig_ = float(ev2[0])
        self.schur_chol2_max_eig_ = float(ev2[-1])

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Algorithm 7: eqs. (42a), (42b), (41), (50)."""
        assert self._Y is not None
        k, q = self.k_, H.shape[1]
        AtY = self._AtY[:k]
        E = tri_t_mul(self.F, A.T @ H)                      # E = F_kᵀ P, P = A_kᵀ H
        M = H.T @ H
        M -= E.T @ E
        M[np.diag_indices(q)] += self.lam
        try:
            G = ichol(M)                                    # (42a) — NA if not PD
        except NotPositiveDefinite:
            self._diagnose(A, H, M, E)
            raise
        T = -(tri_mul(self.F, E) @ G)                       # (42b)
        HtY = H.T @ self._Y
        b = T.T @ AtY + G.T @ HtY                           # (50)
        self._append(T, G, b)
        self._AtY[k:k + q] = HtY
