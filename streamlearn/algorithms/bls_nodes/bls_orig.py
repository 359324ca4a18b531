"""Orig.: the original BLS update on added nodes — Greville's partitioned generalized
inverse with the ridge-approximated ``C⁺`` (Ridge-BLS paper, Algorithms 2-3, eqs. 20-24)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.algorithms.bls_nodes.node_incremental import _GrevilleLearner
from streamlearn.registry import register_algorithm

__all__ = ["OriginalBLS"]


@register_algorithm("bls_orig")
class OriginalBLS(_GrevilleLearner):
    """Orig. [Ridge-BLS, Alg. 2-3]: Greville update of the approximate generalized inverse.

    INIT: ``P = (λ I + Aᵀ A)⁻¹ Aᵀ`` (8), ``W = P Y`` (2). UPDATE: ``D = P_k H`` (23),
    ``C = H - A_k D`` (22), ``Bᵀ = (Cᵀ C + λ I)⁻¹ Cᵀ`` (21a, with footnote 1's ridge
    approximation of ``C⁺``; ``Bᵀ = (I + DᵀD)⁻¹ Dᵀ P_k`` (21b) when ``C = 0``),
    ``P ← [P_k - D Bᵀ; Bᵀ]`` (20), ``W ← [W_k - D Bᵀ Y; Bᵀ Y]`` (24).

    Not the ridge solution for ``λ > 0`` (spec §2.7): it equals Exg-E, and departs from
    D-Rdg by ``O(λ)``.

    Parameters
    ----------
    lam
        Ridge parameter ``λ > 0`` (used in INIT and in ``C⁺``).

    References
    ----------
    H. Zhu, arXiv 1911.04872, Sec. II-C; C. L. P. Chen and Z. Liu, "Broad Learning System",
    IEEE TNNLS 29(1), 2018.
    """

    solution: ClassVar[str] = "generalized-inverse"
    paper_name: ClassVar[str] = "Orig."

    def _update(self, A: np.ndarray, H: np.ndarray) -> None:
        """Algorithm 3: eqs. (23), (22), (21a)/(21b), (20), (24)."""
        self._greville_step(A, H, ridge=False)
