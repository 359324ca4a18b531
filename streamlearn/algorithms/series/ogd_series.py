"""Online gradient descent on the absolute loss for series prediction: the first-order
baseline of the Fast-ONS paper (Civek and Kozat, Sec. 2: ONS with ``A_t = I``)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.algorithms.series._delay_line import DelayLineRegressor
from streamlearn.kernels.online_newton_step import ogd_series_chunk
from streamlearn.params import Interval
from streamlearn.registry import register_algorithm

__all__ = ["OGDSeries"]


@register_algorithm("ogd")
class OGDSeries(DelayLineRegressor):
    """OGD predictor of ``x_{t+1}`` from the last ``M`` values (Fast-ONS paper, Sec. 2).

    ``w_{t+1} = w_t + lr sgn(e_t) x_t`` when ``|e_t| > eps`` (constant step: the paper
    gives no schedule). O(M) per sample.

    Parameters
    ----------
    M
        Lag window length (feature dimension).
    lr
        Step size (the paper's OGD "learning rate", 0.1 in Fig. 2b).
    eps
        Dead zone: no step when ``|e_t| <= eps``.
    offset
        Append a constant feature 1 (learn an intercept).
    """

    _constraints: ClassVar[dict[str, Any]] = {
        **DelayLineRegressor._constraints,
        "lr": Interval(0.0, None, closed="neither"),
    }

    def __init__(self, *, lr: float = 0.001, **kwargs: Any) -> None:
        self.lr = lr
        super().__init__(**kwargs)

    def _allocate(self) -> None:
        self.w_ = np.zeros(self.M + int(self.offset))

    def _run_chunk(self, xin: np.ndarray, yin: np.ndarray, out: np.ndarray) -> None:
        ogd_series_chunk(xin, yin, self.w_, self.xt_, self.M, int(self.offset), self.lr,
                         self.eps, out)
        self.steps_ += xin.shape[0]

    @classmethod
    def estimate_bytes(cls, params: dict[str, Any], n_features: int,
                       n_classes: int | None) -> int | None:
        return 16 * (int(params.get("M", 16)) + 2)
