"""Random Budget Perceptron (RBP), a baseline of the FORKS paper's Table 1, as the Lu & Hoi
"Large Scale Online Kernel Learning" toolbox implements it (``RBP.m``; spec Sec. 8.2).

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

import numpy as np

from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier
from streamlearn.registry import register_algorithm

__all__ = ["RBP"]


@register_algorithm("rbp")
class RBP(KernelBinaryClassifier):
    """Random Budget Perceptron (Cavallanti et al. 2007; toolbox ``RBP.m``).

    On a mistake: append ``(x, y)``; when the budget ``B`` is full, first remove one SV
    chosen uniformly at random (spec Sec. 8.2).

    References
    ----------
    [^1]: G. Cavallanti, N. Cesa-Bianchi, C. Gentile. Tracking the best hyperplane with a
          simple budget Perceptron. Machine Learning 69, 2007.
    """

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        if (1.0 if f >= 0.0 else -1.0) == y:
            return
        if self.n_sv_ == self.budget:
            self._sv_remove(int(self._rng.integers(self.n_sv_)))
        self._sv_append(x, y)
