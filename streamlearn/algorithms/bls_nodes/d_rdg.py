"""D-Rdg: the direct ridge solution, the reference of the Ridge-BLS paper (eqs. 6-7).

``W = (Aᵀ A + λ I)⁻¹ Aᵀ Y`` re-solved after every update. The Gram matrix ``Aᵀ A`` is
kept and extended by its new blocks ``Aᵀ H`` and ``Hᵀ H`` (the old block does not change
when columns are appended), then the whole ``(k+q) × (k+q)`` system is solved afresh
with a symmetric-indefinite (Bunch-Kaufman) factorisation: at ``λ = 2⁻³⁰`` the matrix is
numerically singular and Cholesky is unreliable (spec pitfall 5).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import scipy.linalg

from streamlearn.algorithms.bls_nodes.node_incremental import NodeIncrementalLearner
from streamlearn.registry import register_algorithm

__all__ = ["DirectRidge"]


@register_algorithm("d_rdg")
class DirectRidge(NodeIncrementalLearner):
    """D-Rdg [Ridge-BLS, eqs. 6-7]: direct ridge solve of the whole network after every update.

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0``.

    References
    ----------
    H. Zhu, "Two Ridge Solutions for the Incremental Broad Learning System on Added
    Nodes", arXiv 1911.04872, Sec. II, eqs. (5)-(7).
    """

    paper_name: ClassVar[str] = "D-Rdg"

    def reset(self, n_features: int, n_classes: int | None) -> None:
        super().reset(n_features, n_classes)
        self._R = np.zeros((0, 0))
        self._AtY = np.zeros((0, self.n_classes_))

    def _solve(self) -> None:
        k = self.k_
        # a Fortran-ordered copy, which LAPACK factorises in place: a C-ordered one made
        # SciPy copy it twice more (2 k² doubles, 9.4 GiB at the paper's k = 25,170)
        M = self._R[:k, :k].copy(order="F")
        M[np.diag_indices(k)] += self.lam
        self.W_ = self._lapack(scipy.linalg.solve, M, self._AtY[:k], assume_a="sym",
                              check_finite=False, overwrite_a=True)  # M is our copy

    def _initialize(self, A: np.ndarray, Y: np.ndarray) -> None:
        """``W = (Aᵀ A + λ I)⁻¹ Aᵀ Y`` (6)-(7)."""
        k = A.shape[1]
        self._R = np.zeros((self.k_max_, self.k_max_), order="F")
        self._AtY = np.zeros((self.k_max_, self.n_classes_))
        self._R[:k, :k] = A.T @ A
        self._AtY[:k] = A.T @ Y
        self._solve()

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """``A ← [A H]``; ``W = (Aᵀ A + λ I)⁻¹ Aᵀ Y`` (6)-(7) on the grown network."""
        assert self._Y is not None
        k, q = self.k_, H.shape[1]
        AtH = A.T @ H
        self._R[:k, k:k + q] = AtH
        self._R[k:k + q, :k] = AtH.T
        self._R[k:k + q, k:k + q] = H.T @ H
        self._AtY[k:k + q] = H.T @ self._Y
        self.k_ += q
        try:
            self._solve()
        finally:
            self.k_ -= q  # the base class advances k_ after a successful update

    @classmethod
    def state_bytes(cls, n_train: int, k_max: int, n_classes: int, *,
                    k0: int | None = None, q: int | None = None) -> int:
        # the Gram matrix and the copy the solver factorises in place; an update's Aᵀ H
        extra = 0 if q is None else k_max * q
        return 8 * (2 * k_max * k_max + 2 * k_max * n_classes + extra)
