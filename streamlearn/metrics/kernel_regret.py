"""Regret of a binary kernel learner against the best function of the Gaussian RKHS in
hindsight (FORKS paper, spec Sec. 1.4).

After ``T`` rounds with scores ``s_t`` (the learner's real-valued score before its update;
the prediction is its sign) and labels ``y_t`` in ``{-1, +1}``,
``Reg_T = sum_{t<T} l(y_t s_t) - min_{f in H} sum_{t<T} l(y_t f(x_t))`` with ``l`` the
(unregularised) hinge ``max(0, 1 - m)`` or squared hinge ``max(0, 1 - m)^2``.

The comparator is exact: the Gram matrix of a Gaussian kernel on *distinct* points is
positive definite, so a function of the RKHS can take any values on them, and only groups
of identical inputs tie values together. A group with ``p`` positive and ``q`` negative
labels sharing the value ``v`` costs ``p l(v) + q l(-v)``, minimised at

* hinge: ``2 min(p, q)`` (linear in ``v`` on ``[-1, 1]``, larger outside);
* squared hinge: ``4 p q / (p + q)`` at ``v = (p - q) / (p + q)``.

The comparator's loss on a prefix is the sum over the groups of the prefix, so the whole
curve follows from one pass: each round adds the change of its group's term. Groups are
rows of the *prepared* input the learner saw (``MetricContext.X``) that are exactly equal
(``np.unique`` over rows; ``-0.0 == 0.0``, which give the same kernel row). The minimum is
an infimum reached in the RKHS (interpolation), not by a bounded-norm function.

Both metrics are reported per round (``R_T / T``) and need the scores, which the
classification protocol records only for learners tagged ``"scores"``; a config asking for
them with another learner is refused at validation.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.registry import register_metric

__all__ = ["best_rkhs_loss_curve", "group_ids"]


def group_ids(X: np.ndarray) -> np.ndarray:
    """Index of each row's group of identical rows (``np.unique`` over rows)."""
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim == 1:
        X = X[:, None]
    _, inverse = np.unique(X, axis=0, return_inverse=True)
    return np.asarray(inverse, dtype=np.int64).reshape(-1)


def _group_term(p: np.ndarray, q: np.ndarray, loss: str) -> np.ndarray:
    p = p.astype(np.float64)
    q = q.astype(np.float64)
    if loss == "hinge":
        return 2.0 * np.minimum(p, q)
    n = p + q
    return np.divide(4.0 * p * q, n, out=np.zeros_like(n), where=n > 0)


def best_rkhs_loss_curve(X: np.ndarray, y_pm1: np.ndarray, loss: str) -> np.ndarray:
    """``c[T-1] = min_f sum_{t<T} l(y_t f(x_t))`` over the Gaussian RKHS, for every ``T``.

    ``loss`` is ``"hinge"`` or ``"squared_hinge"``; ``y_pm1`` holds ``+1``/``-1``.
    """
    y_pm1 = np.asarray(y_pm1, dtype=np.float64)
    n = y_pm1.shape[0]
    if n == 0:
        return np.zeros(0)
    g = group_ids(X[:n])
    order = np.argsort(g, kind="stable")  # groups contiguous, stream order inside
    gs = g[order]
    pos = (y_pm1[order] > 0).astype(np.int64)
    neg = 1 - pos
    starts = np.flatnonzero(np.r_[True, gs[1:] != gs[:-1]])
    first = np.repeat(starts, np.diff(np.r_[starts, n]))
    cp, cn = np.cumsum(pos), np.cumsum(neg)
    base_p = np.where(first > 0, cp[first - 1], 0)
    base_n = np.where(first > 0, cn[first - 1], 0)
    p_after, q_after = cp - base_p, cn - base_n  # counts in the group including this round
    delta_sorted = (_group_term(p_after, q_after, loss)
                    - _group_term(p_after - pos, q_after - neg, loss))
    delta = np.empty(n)
    delta[order] = delta_sorted
    return np.cumsum(delta)


def _learner_loss(margin: np.ndarray, loss: str) -> np.ndarray:
    h = np.maximum(0.0, 1.0 - margin)
    return h if loss == "hinge" else h * h


class _KernelRegret(Metric):
    """Per-round regret ``R_T / T`` against the best Gaussian-RKHS function in hindsight."""

    task: ClassVar[str] = "classification"
    bigger_is_better: ClassVar[bool] = False
    precision: ClassVar[int] = 4
    notation: ClassVar[str] = "general"
    requires: ClassVar[tuple[str, ...]] = ("X", "scores")
    loss: ClassVar[str] = "hinge"

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        scores = np.asarray(context.get("scores"), dtype=np.float64)
        X = context.get("X")
        y = np.where(np.asarray(y_true) == 1, 1.0, -1.0)
        cum = np.cumsum(_learner_loss(y * scores, cls.loss))
        best = best_rkhs_loss_curve(X, y, cls.loss)
        at = np.asarray(at, dtype=np.int64)
        return (cum[at - 1] - best[at - 1]) / at


@register_metric("regret_hinge")
class HingeRegret(_KernelRegret):
    """Per-round hinge-loss regret against the best function of the Gaussian RKHS in
    hindsight (exact; FORKS spec Sec. 1.4)."""

    label = "Regret/T (hinge)"
    loss = "hinge"


@register_metric("regret_sq_hinge")
class SquaredHingeRegret(_KernelRegret):
    """Per-round squared-hinge regret against the best function of the Gaussian RKHS in
    hindsight (exact; FORKS spec Sec. 1.4 with the loss of Sec. 5.3)."""

    label = "Regret/T (sq. hinge)"
    loss = "squared_hinge"
