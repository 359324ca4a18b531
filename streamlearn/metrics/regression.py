"""Prequential regression metrics (time-series protocol): time averages of a per-sample
loss, as the fast-ONS paper's Fig. 2 plots the MSE, with their running sums computed in
one compiled pass (:mod:`streamlearn.kernels.running_sums`)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.kernels.running_sums import Loss, loss_sums_at
from streamlearn.registry import register_metric

_BLOCK = 1 << 20


def streamed_key(loss: Loss) -> str:
    """The metric-context entry holding a loss's running sums at the checkpoints when the
    protocol computed them while streaming (``loss_sums_chunk``)."""
    return f"loss_sums_{int(loss)}"


def cumulative_loss_at(loss: Any, y_true: np.ndarray, y_pred: np.ndarray,
                       at: np.ndarray, context: MetricContext | None = None) -> np.ndarray:
    """``sum_{t < T} loss(y_true_t, y_pred_t)`` for every ``T`` in ``at`` (increasing,
    1-based). ``loss`` is a :class:`~streamlearn.kernels.running_sums.Loss` code (one
    compiled pass, no temporaries) or any elementwise function of ``(y_true, y_pred)``
    arrays, then computed block by block so that a long series needs O(block) extra
    memory rather than several n-sized temporaries. Either way each running sum is
    sequential and bit-identical to one ``np.cumsum`` over the whole series."""
    at = np.asarray(at, dtype=np.int64)
    if isinstance(loss, Loss) and context is not None and streamed_key(loss) in context.extra:
        # summed while the protocol streamed the predictions (same kernel, same order)
        sums = context.extra[streamed_key(loss)]
        if sums.shape != at.shape:
            raise ValueError("the streamed running sums were taken at other checkpoints")
        return sums
    if isinstance(loss, Loss):
        return loss_sums_at(np.ascontiguousarray(y_true, dtype=np.float64),
                            np.ascontiguousarray(y_pred, dtype=np.float64), at, int(loss))
    out = np.empty(at.shape)
    carry = 0.0
    k = 0
    n = int(at[-1]) if at.size else 0
    for start in range(0, n, _BLOCK):
        stop = min(start + _BLOCK, n)
        block = loss(np.asarray(y_true[start:stop], dtype=np.float64),
                     np.asarray(y_pred[start:stop], dtype=np.float64))
        cum = np.cumsum(np.concatenate(([carry], block)))[1:]
        while k < at.size and at[k] <= stop:
            out[k] = cum[at[k] - start - 1]
            k += 1
        carry = float(cum[-1])
    return out


class RegressionMetric(Metric):
    """Time average of a per-sample loss over the samples so far (the MSE curve of the
    fast-ONS paper, Fig. 2). Shown with four significant digits, so an MSE of 9.1e-4 reads
    0.00091, not 0.0."""

    task: ClassVar[str] = "regression"
    bigger_is_better: ClassVar[bool] = False
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "general"

    #: the compiled form of ``_loss`` (one pass for the curves), if there is one
    loss_code: ClassVar[Loss | None] = None

    def __init__(self) -> None:
        self._sum = 0.0
        self._n = 0

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def update(self, y_true: Any, y_pred: Any) -> None:
        self._sum += float(self._loss(np.asarray(y_true), np.asarray(y_pred)))
        self._n += 1

    def get(self) -> float:
        return self._sum / self._n if self._n else 0.0

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        at = np.asarray(at, dtype=np.int64)
        loss = cls._loss if cls.loss_code is None else cls.loss_code
        return cumulative_loss_at(loss, y_true, y_pred, at, context) / at


@register_metric("mse")
class MSE(RegressionMetric):
    """Mean squared prediction error over the samples so far."""

    label = "MSE"
    loss_code = Loss.SQUARED

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return (y_true - y_pred) ** 2


@register_metric("mae")
class MAE(RegressionMetric):
    """Mean absolute prediction error over the samples so far."""

    label = "MAE"
    loss_code = Loss.ABSOLUTE

    @staticmethod
    def _loss(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
        return np.abs(y_true - y_pred)


DEFAULT_METRICS = {
    "classification": ["oca", "bacc", "avrbacc", "f1", "mcc"],
    "regression": ["mse", "mae"],
}
