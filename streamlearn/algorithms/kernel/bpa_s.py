"""Budgeted Passive-Aggressive, simple variant (BPA-S), a baseline of the FORKS paper's
Table 1, as the Lu & Hoi toolbox implements it (``BPAs.m``; spec Sec. 8.3); the choice of
the SV to replace is vectorised over the support vectors.

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["BPAS"]


@register_algorithm("bpa_s")
class BPAS(KernelBinaryClassifier):
    """Budgeted Passive-Aggressive, simple variant BPA-S (Wang & Vucetic 2010; toolbox
    ``BPAs.m``; spec Sec. 8.3).

    With ``l = max(0, 1 - y f) > 0`` and ``tau = min(C, l)``: append ``tau y`` while below
    budget; otherwise replace in place the SV ``r`` minimising
    ``Q_r = dist_r / 2 + C max(0, 1 - y f_r)``, with ``beta_r = a_r k_r + tau y``.

    Parameters
    ----------
    C
        Aggressiveness (1).

    References
    ----------
    [^1]: Z. Wang, S. Vucetic. Online passive-aggressive algorithms on a budget.
          AISTATS 2010.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints, "C": Interval(0.0, None, closed="neither")}

    def __init__(self, *, C: float = 1.0, **kwargs: Any) -> None:
        self.C = C
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        loss = max(0.0, 1.0 - y * f)
        if loss <= 0.0:
            return
        tau = min(float(self.C), loss)
        n = self.n_sv_
        if n < self.budget:
            self._sv_append(x, tau * y)
            return
        k = self._sv_row(x)
        a = self.coef_[:n]
        beta = a * k + tau * y
        dist = a * a + beta * beta - 2.0 * a * beta * k
        fr = f - a * k + beta
        Q = 0.5 * dist + self.C * np.maximum(0.0, 1.0 - y * fr)
        r = int(np.argmin(Q))
        self.sv_[r] = x
        self.coef_[r] = beta[r]
