"""Scoring the predictions of a subset of a stream's samples (a cross-validation copy's
test instances, the prequential part of a run with held-out tests) at the usual
checkpoints of samples seen.

The value at checkpoint ``c`` (a global sample count) is the metric over the scored
samples among the first ``c``; before the first scored sample it is NaN. The record's
``curves["t"]`` stays the global positions, so the curves of every method share an axis.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from streamlearn.base import MetricContext, RunContext
from streamlearn.protocols.scoring import kind_blocks, score_curves


def _spread(values: list[float], keep: np.ndarray) -> list[float]:
    out = np.full(keep.shape, np.nan)
    out[keep] = values
    return out.tolist()


def score_subset(
    ctx: RunContext,
    scored: np.ndarray,
    y_true: np.ndarray,
    y_pred: np.ndarray,
    at: np.ndarray,
    context: MetricContext,
) -> tuple[dict[str, float], dict[str, list[float]], dict[str, Any]]:
    """Finals, curves and the windowed/fading blocks of the samples where ``scored``
    (bool over the stream) holds; ``y_true``/``y_pred`` are theirs, in stream order,
    and ``context`` is over them too. ``at``: global checkpoints."""
    counts = np.cumsum(scored)[at - 1]  # scored samples among the first ``at``
    keep = counts > 0
    sub_at = counts[keep]
    # a count may repeat between two checkpoints: score at the distinct ones, spread back
    distinct, where = np.unique(sub_at, return_inverse=True)
    finals, sub_curves = score_curves(ctx.metrics, y_true, y_pred, distinct, context)
    curves: dict[str, list[float]] = {"t": at.tolist()}
    for name in ctx.metrics:
        curves[name] = _spread(np.asarray(sub_curves[name])[where].tolist(), keep)
    blocks = kind_blocks(ctx, y_true, y_pred, distinct, context)
    for block in blocks.values():
        for name, values in block["curves"].items():
            block["curves"][name] = _spread(np.asarray(values)[where].tolist(), keep)
    return finals, curves, blocks
