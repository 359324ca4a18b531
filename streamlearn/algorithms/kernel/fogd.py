"""Fourier Online Gradient Descent (FOGD), a baseline of the FORKS paper's Table 1: OGD on
random Fourier features, as the Lu & Hoi toolbox implements it (``FouGD.m``; spec
Sec. 8.6).

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

__all__ = ["FOGD"]


@register_algorithm("fogd")
class FOGD(KernelBinaryClassifier):
    """Fourier Online Gradient Descent (Lu et al. 2016; toolbox ``FouGD.m``; spec
    Sec. 8.6): ``D_f = dim_factor * B`` random Fourier frequencies
    ``Omega ~ N(0, sigma^-2)``, features ``[cos(Omega^T x); sin(Omega^T x)]`` (no
    ``1/sqrt(D_f)``, as in the toolbox), OGD ``w <- w - eta l'(f, y) z``.

    Parameters
    ----------
    eta
        Step size (0.2, FORKS App. D.1).
    dim_factor
        Frequencies per budget unit (4: "feature dimension 4B").

    References
    ----------
    [^1]: J. Lu, S. C. H. Hoi, J. Wang, P. Zhao, Z.-Y. Liu. Large scale online kernel
          learning. JMLR 17, 2016.
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **KernelBinaryClassifier._constraints,
        "eta": Interval(0.0, None, closed="neither"),
        "dim_factor": Interval(1, None, integer=True),
    }

    def __init__(self, *, eta: float = 0.2, dim_factor: int = 4, **kwargs: Any) -> None:
        self.eta = eta
        self.dim_factor = dim_factor
        super().__init__(**kwargs)

    def _init_state(self, d: int) -> None:
        D = int(self.dim_factor) * int(self.budget)
        self.Omega_ = self._rng.normal(0.0, 1.0 / float(self.sigma), size=(d, D))
        self.w_ = np.zeros(2 * D)

    def _score(self, x: np.ndarray) -> float:
        u = x @ self.Omega_
        self._z = np.concatenate([np.cos(u), np.sin(u)])
        return float(self._z @ self.w_)

    def _update(self, x: np.ndarray, y: float, f: float) -> None:
        dl = dloss(f, y, self.loss_code_)
        if dl != 0.0:
            self.w_ -= self.eta * dl * self._z
