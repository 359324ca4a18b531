"""R-Inv: the proposed ridge-inverse update, Greville's method extended to the ridge
inverse (Ridge-BLS paper, Algorithms 9-10, eqs. 63-69)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.algorithms.bls_nodes.node_incremental import _GrevilleLearner
from streamlearn.registry import register_algorithm

__all__ = ["RidgeInverseBLS"]


@register_algorithm("bls_rinv")
class RidgeInverseBLS(_GrevilleLearner):
    """R-Inv [Ridge-BLS, Alg. 9-10]: recursive update of the ridge inverse ``A‡``.

    INIT: ``A‡ = (Aᵀ A + λ I)⁻¹ Aᵀ`` (7), ``W = A‡ Y`` (6). UPDATE: ``D = A‡_k H`` (67),
    ``C = H - A_k D`` (52), ``Bᵀ = (Cᵀ C + λ DᵀD + λ I)⁻¹ Cᵀ`` (68) — positive definite by
    construction (58); the equal ``(Hᵀ C + λ I)⁻¹ Cᵀ`` (69) is not used —,
    ``A‡ ← [A‡_k - D Bᵀ; Bᵀ]`` (64), ``W ← [W_k - D Bᵀ Y; Bᵀ Y]`` (66).
    Differs from Orig. only by the ``λ DᵀD`` term of (68).

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0``.

    References
    ----------
    H. Zhu, arXiv 1911.04872, Sec. III-F.
    """

    paper_name: ClassVar[str] = "R-Inv"

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Algorithm 10: eqs. (67), (52), (68), (64), (66)."""
        self._greville_step(A, H, ridge=True)
