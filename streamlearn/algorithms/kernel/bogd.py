"""Bounded Online Gradient Descent (BOGD), a baseline of the FORKS paper's Table 1, in the
Lu & Hoi toolbox's variant (``BOGD.m``; spec Sec. 8.5).

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS), Sec. 5.1, Table 1.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.kernel.kernel_budget import KernelBinaryClassifier
from streamlearn.kernels.forks_budget import dloss
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["BOGD"]


@register_algorithm("bogd")
class BOGD(KernelBinaryClassifier):
    """Bounded Online Gradient Descent (Zhao et al. 2012), toolbox ``BOGD.m`` variant
    (spec Sec. 8.5): on ``y f <= 1`` shrink by ``1 - eta lam`` and append ``eta y``; when
    full, remove a uniform SV, rescale the rest by ``B (1 - eta lam) / (B - 1)``, append,
    and cap ``max |a_i| <= eta gamma_b``.

    Parameters
    ----------
    eta
        Step size (0.2, FORKS App. D.1).
    lam
        Regulariser; ``None`` means ``1 / horizon^2`` (toolbox) or 0 without a horizon.
    horizon
        Stream length ``N``.
    gamma_b
        Coefficient bound (10).

    References
    ----------
    [^1]: P. Zhao, J. Wang, P. Wu, R. Jin, S. C. H. Hoi. Fast bounded online gradient
          descent algorithms for scalable kernel-based online learning. ICML 2012.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "lam": Interval(0.0, None, allow_none=True),
        "horizon": Interval(1, None, integer=True, allow_none=True),
        "gamma_b": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, eta: float = 0.2, lam: float | None = None,
                 horizon: int | None = None, gamma_b: float = 10.0, **kwargs: Any) -> None:
        self.eta = eta
        self.lam = lam
        self.horizon = horizon
        self.gamma_b = gamma_b
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        self._sv_alloc(int(self.budget), d)
        if self.lam is not None:
            self.lam_ = float(self.lam)
        else:
            self.lam_ = 1.0 / float(self.horizon) ** 2 if self.horizon else 0.0

    def _score(self, x: np.ndarray) -> float:
        return self._sv_score(x)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        shrink = 1.0 - self.eta * self.lam_
        n = self.n_sv_
        if y * f > 1.0:
            self.coef_[:n] *= shrink
            return
        step = self.eta * y if self.loss == "hinge" else -self.eta * dloss(f, y, self.loss_code_)
        B = int(self.budget)
        if n < B:
            self.coef_[:n] *= shrink
            self._sv_append(x, step)
            return
        self._sv_remove(int(self._rng.integers(n)))
        if B > 1:
            self.coef_[: B - 1] *= B * shrink / (B - 1)
        self._sv_append(x, step)
        a = self.coef_[: self.n_sv_]
        top = float(np.max(np.abs(a)))
        if top > 0.0:
            a *= min(self.eta * self.gamma_b / top, 1.0)
