"""Metrics of a network grown by added nodes (the ``incremental-nodes`` protocol): test
accuracy after each update, its running maximum, and the initial network's (Ridge-BLS
paper, Tables II-V and Fig. 1). They read the per-update accuracies the protocol puts in
the metric context (``update_accuracy``)."""

from __future__ import annotations

import numpy as np

from streamlearn.base import Metric, MetricContext
from streamlearn.registry import register_metric


class _UpdateMetric(Metric):
    label = "Test acc."
    unit = "%"
    scale = 100.0
    precision = 2
    notation = "fixed"
    requires = ("update_accuracy",)


@register_metric("update_accuracy")
class UpdateAccuracy(_UpdateMetric):
    """Test accuracy after each update (the final value: after the last update; NaN = NA
    after a failed factorisation) [Ridge-BLS, Tables II-V]."""

    label = "Test acc. (last update)"

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        return context.get("update_accuracy")[np.asarray(at) - 1]


@register_metric("max_update_accuracy")
class MaxUpdateAccuracy(_UpdateMetric):
    """Maximum test accuracy over the network sizes so far, ignoring NA updates
    [Ridge-BLS, Fig. 1]."""

    label = "Max test acc."

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        acc = context.get("update_accuracy")
        filled = np.where(np.isnan(acc), -np.inf, acc)
        run = np.maximum.accumulate(filled)[np.asarray(at) - 1]
        return np.where(np.isfinite(run), run, np.nan)


@register_metric("initial_accuracy")
class InitialAccuracy(_UpdateMetric):
    """Test accuracy of the initial network (update 0), used to calibrate λ [Ridge-BLS,
    column u0 of Tables II-V]."""

    label = "Initial test acc."

    @classmethod
    def curve(cls, y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
              context: MetricContext) -> np.ndarray:
        return np.full(len(at), context.get("update_accuracy")[0])
