"""Regular Online Newton Step for series prediction, O(M^2) per sample: the "R-ONS"
reference of the Fast-ONS paper (Civek and Kozat, eqs. 2-5 and 8)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.series._delay_line import DelayLineRegressor
from streamlearn.kernels.online_newton_step import ons_series_chunk
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["RegularONS"]


@register_algorithm("ons")
class RegularONS(DelayLineRegressor):
    """Regular ONS predictor of ``x_{t+1}`` from the last ``M`` values (paper eqs. 2-5).

    Keeps ``P = A_{t-1}^{-1}`` (``M x M``) by the matrix inversion lemma (4) and steps
    ``w_{t+1} = w_t + sgn(e_t) (1/mu) A_t^{-1} x_t`` outside the dead zone (5), (8).
    ``A_t`` is updated at every step, dead zone or not. O(M^2) per sample.

    Parameters
    ----------
    M
        Lag window length.
    alpha
        ``A_{-1} = alpha I`` (eq. 3).
    lr
        The learning rate ``1/mu`` (multiplier of the Newton direction).
    eps
        Dead zone of the absolute loss.
    offset
        The ``(M+1)``-dimensional ONS on ``[x_t; 1]`` (paper's eq. 1 with ``c_t``).
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **DelayLineRegressor._constraints,
        "alpha": Interval(0.0, None, closed="neither"),
        "lr": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, alpha: float = 1.0, lr: float = 0.003, **kwargs: Any) -> None:
        self.alpha = alpha
        self.lr = lr
        super().__init__(**kwargs)

    def _allocate(self) -> None:
        D = self.M + int(self.offset)
        self.w_ = np.zeros(D)
        self.P_ = np.eye(D) / self.alpha
        self._k = np.zeros(D)

    def _run_chunk(self, xin: np.ndarray, yin: np.ndarray, out: np.ndarray) -> None:
        ons_series_chunk(xin, yin, self.w_, self.P_, self.xt_, self._k, self.M,
                         int(self.offset), self.lr, self.eps, out)
        self.steps_ += xin.shape[0]

    @classmethod
    def estimate_bytes(cls, params: dict[str, Any], n_features: int,
                       n_classes: int | None) -> int | None:
        D = int(params.get("M", 16)) + int(bool(params.get("offset", False)))
        return 8 * D * D
