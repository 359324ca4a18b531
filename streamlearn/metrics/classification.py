"""Prequential classification metrics (Online-BLS paper, Appendix C): final values and
curves.

Every classification metric here is a function of three cumulative per-class counters
after step ``t``: ``T_i`` (samples of true class ``i``), ``P_i`` (samples predicted as
``i``) and ``D_i`` (samples of class ``i`` predicted correctly). The runner stores the
predictions of a run, so a curve is computed afterwards at any set of checkpoints in
``O(n + K c)`` for ``K`` checkpoints; AVRBACC needs BACC at every step and is ``O(n)``.

Each metric is available two ways:

* as a class with ``update(y_true, y_pred)`` / ``get()`` for incremental use, and
* as ``Metric.curve(y_true, y_pred, at, context)`` giving the value after each step
  ``t`` in ``at`` (1-based counts of samples seen), which the protocols use. The
  interface (units, display precision, context) is :class:`streamlearn.base.Metric`.

References: C. Lei et al., *Online-BLS*, Appendix C, eqs. (C.1)–(C.6).
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.registry import register_metric

# --------------------------------------------------------------------------------------
# Cumulative counters
# --------------------------------------------------------------------------------------


def cumulative_counts(
    y_true: np.ndarray, y_pred: np.ndarray, n_classes: int, at: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per-class counters ``T, P, D`` (each ``(len(at), n_classes)``) after ``at[k]`` samples.

    ``at`` must be increasing, with values in ``1..len(y_true)``.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    y_pred = np.asarray(y_pred, dtype=np.int64)
    at = np.asarray(at, dtype=np.int64)
    if at.size and (np.any(np.diff(at) <= 0) or at[0] < 1 or at[-1] > y_true.size):
        raise ValueError("checkpoints must be increasing and within 1..n")
    K = at.size
    T = np.zeros((K, n_classes), dtype=np.int64)
    P = np.zeros((K, n_classes), dtype=np.int64)
    D = np.zeros((K, n_classes), dtype=np.int64)
    correct = y_true == y_pred
    t_run = np.zeros(n_classes, dtype=np.int64)
    p_run = np.zeros(n_classes, dtype=np.int64)
    d_run = np.zeros(n_classes, dtype=np.int64)
    start = 0
    for k, stop in enumerate(at):
        seg_t = y_true[start:stop]
        t_run += np.bincount(seg_t, minlength=n_classes)
        p_run += np.bincount(y_pred[start:stop], minlength=n_classes)
        d_run += np.bincount(seg_t[correct[start:stop]], minlength=n_classes)
        T[k], P[k], D[k] = t_run, p_run, d_run
        start = stop
    return T, P, D


def bacc_every_step(y_true: np.ndarray, y_pred: np.ndarray) -> np.ndarray:
    """BACC_t for every t = 1..n (eq. C.3, averaged over the classes seen so far), O(n).

    When a sample of class ``i`` arrives only the term ``D_i/T_i`` changes, so
    ``S_t = sum_i D_i/T_i`` is a cumulative sum of per-occurrence changes.
    """
    y_true = np.asarray(y_true, dtype=np.int64)
    correct = (y_true == np.asarray(y_pred, dtype=np.int64)).astype(np.float64)
    n = y_true.size
    delta = np.zeros(n, dtype=np.float64)
    seen = np.zeros(n, dtype=np.int64)
    order = np.argsort(y_true, kind="stable")
    sorted_labels = y_true[order]
    bounds = np.flatnonzero(np.diff(sorted_labels)) + 1
    for idx in np.split(order, bounds):
        if idx.size == 0:
            continue
        recall = np.cumsum(correct[idx]) / np.arange(1, idx.size + 1)
        delta[idx] = np.diff(recall, prepend=0.0)
        seen[idx[0]] = 1
    return np.cumsum(delta) / np.cumsum(seen)


# --------------------------------------------------------------------------------------
# Metric classes
# --------------------------------------------------------------------------------------


class CountMetric(Metric):
    """A classification metric that is a function of the per-class counters ``T, P, D``.

    Subclasses implement ``_from_counts``. Values are fractions in [0, 1] (MCC in
    [-1, 1]); tables and plots show them in percent with two decimals. Instances also work
    incrementally: ``update(y_true, y_pred)`` then ``get()``.
    """

    task: ClassVar[str] = "classification"
    unit: ClassVar[str] = "%"
    scale: ClassVar[float] = 100.0
    precision: ClassVar[int] = 2
    notation: ClassVar[str] = "fixed"

    def __init__(self, n_classes: int) -> None:
        self.n_classes = n_classes
        self._t = np.zeros(n_classes, dtype=np.int64)
        self._p = np.zeros(n_classes, dtype=np.int64)
        self._d = np.zeros(n_classes, dtype=np.int64)
        self._n = 0

    def update(self, y_true: int, y_pred: int) -> None:
        self._t[y_true] += 1
        self._p[y_pred] += 1
        if y_true == y_pred:
            self._d[y_true] += 1
        self._n += 1

    def get(self) -> float:
        return float(self._from_counts(self._t[None], self._p[None], self._d[None])[0])

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        """Metric value after each of the first ``at[k]`` samples."""
        T, P, D = cumulative_counts(y_true, y_pred, _n_classes(y_true, y_pred, context), at)
        return cls._from_counts(T, P, D)


def _n_classes(y_true: np.ndarray, y_pred: np.ndarray, context: MetricContext) -> int:
    """The stream's class count, or (no context) one more than the largest label seen."""
    if context.n_classes is not None:
        return int(context.n_classes)
    return int(max(np.max(y_true, initial=0), np.max(y_pred, initial=0))) + 1


def _safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


@register_metric("oca")
class OCA(CountMetric):
    """Online cumulative accuracy, eq. (C.1): fraction of correct predictions so far."""

    label = "OCA"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        return _safe_div(D.sum(axis=1), T.sum(axis=1))


@register_metric("oce")
class OCE(CountMetric):
    """Online cumulative error, eq. (C.2): 1 − OCA (the curves of Figs. 2–4)."""

    label = "OCE"
    bigger_is_better = False

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        return 1.0 - OCA._from_counts(T, P, D)


@register_metric("mistake_rate")
class MistakeRate(OCE):
    """Mistake rate (FORKS paper): fraction of wrong predictions so far (equals OCE)."""

    label = "Mistake rate"


@register_metric("bacc")
class BACC(CountMetric):
    """Balanced accuracy, eq. (C.3): mean cumulative recall over the classes seen so far."""

    label = "BACC"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        seen = (T > 0).sum(axis=1)
        return _safe_div(_safe_div(D, T).sum(axis=1), seen)


@register_metric("avrbacc")
class AVRBACC(CountMetric):
    """Average balanced accuracy, eq. (C.4): mean of BACC_k over steps k = 1..t."""

    label = "AVRBACC"

    def __init__(self, n_classes: int) -> None:
        super().__init__(n_classes)
        self._sum = 0.0

    def update(self, y_true: int, y_pred: int) -> None:
        super().update(y_true, y_pred)
        self._sum += BACC._from_counts(self._t[None], self._p[None], self._d[None])[0]

    def get(self) -> float:
        return self._sum / self._n if self._n else 0.0

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        b = bacc_every_step(y_true, y_pred)
        avr = np.cumsum(b) / np.arange(1, b.size + 1)
        return avr[np.asarray(at, dtype=np.int64) - 1]


@register_metric("f1")
class MacroF1(CountMetric):
    """Macro F1, eq. (C.5): mean over all c classes of per-class F1 (0 when undefined)."""

    label = "F1"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        # F1_i = 2 TP / (2 TP + FP + FN) = 2 D_i / (P_i + T_i)
        return _safe_div(2.0 * D, (P + T).astype(np.float64)).mean(axis=1)


@register_metric("mcc")
class MCC(CountMetric):
    """Matthews correlation coefficient, eq. (C.6), multi-class (Gorodkin) form."""

    label = "MCC"

    @classmethod
    def _from_counts(cls, T: np.ndarray, P: np.ndarray, D: np.ndarray) -> np.ndarray:
        Tf, Pf = T.astype(np.float64), P.astype(np.float64)
        s = Tf.sum(axis=1)
        corr = D.sum(axis=1).astype(np.float64)
        num = corr * s - (Pf * Tf).sum(axis=1)
        den = np.sqrt((s**2 - (Pf**2).sum(axis=1)) * (s**2 - (Tf**2).sum(axis=1)))
        return _safe_div(num, den)
