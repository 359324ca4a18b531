"""Projectron, a baseline of the FORKS paper's Table 1, in the Lu & Hoi toolbox's budget
variant (``projectron.m``; spec Sec. 8.4): the inverse Gram matrix of the SVs grows by
block updates until the budget is full.

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

import numpy as np

from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier
from streamlearn.registry import register_algorithm

__all__ = ["Projectron"]


@register_algorithm("projectron")
class Projectron(KernelBinaryClassifier):
    """Projectron, the toolbox's budget variant (Orabona et al. 2008; ``projectron.m``;
    spec Sec. 8.4): on a mistake add ``(x, y)`` and grow ``K^{-1}`` while below budget;
    when full (or ``delta^2 < 1e-10``, e.g. a duplicate) project,
    ``a <- a + y K^{-1} k``.

    References
    ----------
    [^1]: F. Orabona, J. Keshet, B. Caputo. The Projectron: a bounded kernel-based
          Perceptron. ICML 2008.
    """

    def _init_state(self, d: int) -> None:
        B = int(self.budget)
        self._sv_alloc(B, d)
        self.Kinv_ = np.zeros((B, B))

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        if (1.0 if f >= 0.0 else -1.0) == y:
            return
        n = self.n_sv_
        if n == 0:
            self._sv_append(x, y)
            self.Kinv_[0, 0] = 1.0
            return
        k = self._sv_row(x).copy()
        Ki = self.Kinv_[:n, :n]
        dstar = Ki @ k
        delta2 = 1.0 - float(k @ dstar)
        if n == self.budget or delta2 < 1e-10:
            self.coef_[:n] += y * dstar
            return
        Ki += np.outer(dstar, dstar) / delta2
        self.Kinv_[:n, n] = -dstar / delta2
        self.Kinv_[n, :n] = -dstar / delta2
        self.Kinv_[n, n] = 1.0 / delta2
        self._sv_append(x, y)
