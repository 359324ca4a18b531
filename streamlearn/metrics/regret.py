"""Regret against the best fixed linear predictor in hindsight, for series prediction.

After ``T`` steps, on the same zero-padded lag windows ``x_t = [x_t, .., x_{t-M+1}]`` the
learner read (Fast-ONS paper, Sec. 2: ``w_hat_n = argmin_w sum_t |x_{t+1} - w^T x_t|``):

* ``regret_abs``: ``sum_{t<T} |e_t| - min_w sum_{t<T} |x_{t+1} - w^T x_t|``. The comparator
  is a least-absolute-deviation fit, solved exactly as the dual linear program
  ``max_d y^T d  s.t.  X^T d = 0, -1 <= d <= 1`` (HiGHS through ``scipy.optimize.linprog``;
  equal to the primal optimum by LP duality and much smaller: M equality rows instead of T).
* ``regret_sq``: the same with the squared loss; the comparator is least squares.

Both are reported per step (``R_T / T``) as curves at the checkpoints. The comparator is
refitted on every prefix, so the cost grows with the number of checkpoints: a config that
asks for regret should keep ``evaluation.checkpoints`` modest. The comparator depends on
the series alone, not on the learner, so its optimum is cached per (series, window,
intercept, prefix) and solved once for all the learners of an experiment run in one
process. Prefixes longer than the protocol's ``regret_max_samples`` are not solved (NaN,
shown as "—" in the curve); the protocol then adds that cap as a checkpoint and reports
the regret on that documented prefix as the run's final value. A learner with an
intercept is compared with the best fixed predictor with an intercept: the learner says
(``Regressor.fits_intercept``; a delay-line learner has one only with ``offset``, River's
linear regression with its intercept or scaler), a learner that does not say is taken to
have one, and the record says so (``regret_comparator_intercept: true``; absent: the
comparator without one).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import ClassVar

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from streamlearn.base import Metric, MetricContext
from streamlearn.kernels.running_sums import Loss
from streamlearn.metrics.regression import cumulative_loss_at
from streamlearn.registry import register_metric

__all__ = ["best_fixed_abs_loss", "best_fixed_sq_loss", "lag_windows"]


def lag_windows(inputs: np.ndarray, M: int) -> np.ndarray:
    """Row ``t`` = ``[x_t, x_{t-1}, .., x_{t-M+1}]`` (zeros before the series) as a
    read-only strided view of one padded copy of ``inputs``: O(n) memory, not O(n M)."""
    padded = np.concatenate([np.zeros(M - 1), np.asarray(inputs, dtype=np.float64)])
    return sliding_window_view(padded, M)[:, ::-1]


def _design(inputs: np.ndarray, M: int, T: int, intercept: bool) -> np.ndarray:
    X = np.ascontiguousarray(lag_windows(inputs[:T], M))
    if intercept:
        X = np.hstack([X, np.ones((T, 1))])
    return X


def best_fixed_abs_loss(X: np.ndarray, y: np.ndarray) -> float:
    """``min_w sum_t |y_t - w^T X_t|`` exactly, by the dual LP (see the module docstring)."""
    from scipy.optimize import linprog

    D = X.shape[1]
    res = linprog(-np.asarray(y, dtype=np.float64), A_eq=X.T, b_eq=np.zeros(D),
                  bounds=(-1.0, 1.0), method="highs")
    if res.status != 0:
        raise RuntimeError(f"the LAD comparator's linear program failed: {res.message}")
    return float(-res.fun)


def best_fixed_sq_loss(X: np.ndarray, y: np.ndarray) -> float:
    """``min_w sum_t (y_t - w^T X_t)^2`` by least squares (SVD; rank-deficient prefixes are
    fine), the residual computed directly."""
    w, *_ = np.linalg.lstsq(X, y, rcond=None)
    r = y - X @ w
    return float(r @ r)


_BEST_CACHE: OrderedDict[tuple[str, str, int, bool, int], float] = OrderedDict()
_BEST_CACHE_SIZE = 4096


def _series_key(series: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(series, dtype=np.float64).tobytes()).hexdigest()


class _RegretMetric(Metric):
    """Per-step regret ``R_T / T`` against the best fixed linear predictor in hindsight."""

    task: ClassVar[str] = "regression"
    bigger_is_better: ClassVar[bool] = False
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "general"
    requires: ClassVar[tuple[str, ...]] = ("series", "lags", "intercept",
                                           "regret_max_samples")

    loss_code: ClassVar[Loss]

    @staticmethod
    def _best(X: np.ndarray, y: np.ndarray) -> float:
        raise NotImplementedError

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        series = context.get("series")
        M = int(context.get("lags")[0])
        intercept = bool(context.get("intercept")[0])
        cap = int(context.get("regret_max_samples")[0])
        inputs = series[:-1]
        at = np.asarray(at, dtype=np.int64)
        cum_at = cumulative_loss_at(cls.loss_code, y_true, y_pred, at, context)
        out = np.full(at.shape, np.nan)
        solvable = at[at <= cap]
        if solvable.size:
            key = _series_key(series[: int(solvable.max()) + 1])
            X_all: np.ndarray | None = None
            for k, T in enumerate(at):
                if T > cap:
                    continue
                ck = (cls.__name__, key, M, intercept, int(T))
                best = _BEST_CACHE.get(ck)
                if best is None:
                    if X_all is None:
                        X_all = _design(inputs, M, int(solvable.max()), intercept)
                    best = cls._best(X_all[:T], np.asarray(y_true[:T], np.float64))
                    _BEST_CACHE[ck] = best
                    if len(_BEST_CACHE) > _BEST_CACHE_SIZE:
                        _BEST_CACHE.popitem(last=False)
                out[k] = (cum_at[k] - best) / T
        return out


@register_metric("regret_abs")
class AbsoluteRegret(_RegretMetric):
    """Per-step regret of the absolute loss against the best fixed linear predictor in
    hindsight on the same lag windows (exact LAD by linear programming)."""

    label = "Regret/T (abs)"
    loss_code = Loss.ABSOLUTE

    @staticmethod
    def _best(X: np.ndarray, y: np.ndarray) -> float:
        return best_fixed_abs_loss(X, y)


@register_metric("regret_sq")
class SquaredRegret(_RegretMetric):
    """Per-step regret of the squared loss against the best fixed linear predictor in
    hindsight on the same lag windows (least squares)."""

    label = "Regret/T (sq)"
    loss_code = Loss.SQUARED

    @staticmethod
    def _best(X: np.ndarray, y: np.ndarray) -> float:
        return best_fixed_sq_loss(X, y)


@register_metric("cum_abs_loss")
class CumulativeAbsoluteLoss(Metric):
    """Cumulative absolute loss ``sum_{t<T} |e_t|`` (the loss ONS minimises, paper eq. 7)."""

    task: ClassVar[str] = "regression"
    label = "Cum. abs. loss"
    loss_code = Loss.ABSOLUTE
    bigger_is_better: ClassVar[bool] = False
    precision: ClassVar[int] = 5
    notation: ClassVar[str] = "general"

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        return cumulative_loss_at(Loss.ABSOLUTE, y_true, y_pred, at, context)
