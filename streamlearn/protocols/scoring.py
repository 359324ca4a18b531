"""Scoring a run from its predictions: where the checkpoints fall, the cumulative value and
curve of each metric, and, when the evaluation asks for them, the windowed and faded ones.

A protocol calls :func:`score_curves` (cumulative: the record's ``metrics`` and
``curves``) and :func:`kind_blocks` (the record's ``windowed`` and ``fading`` blocks).
The record format of those blocks::

    "windowed": {"window": 500, "metrics": {"oca": 0.91, ...},
                 "curves": {"oca": [...], ...}, "not_supported": ["avrbacc"]}
    "fading":   {"alpha": 0.999, "metrics": {...}, "curves": {...}, "not_supported": [...]}

Their curves are taken at the positions of the cumulative curves (``curves["t"]``); a
metric that has no windowed (faded) form (:attr:`streamlearn.base.Metric.kinds`) is listed
under ``not_supported`` instead.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from streamlearn.base import MetricContext, RunContext
from streamlearn.components import get_metric

#: the kinds of a metric besides the cumulative one: record key → (RunContext attribute,
#: the block's parameter name)
KINDS: dict[str, tuple[str, str]] = {"windowed": ("window", "window"),
                                     "fading": ("fading", "alpha")}


def checkpoint_positions(n: int, k: int) -> np.ndarray:
    """``k`` increasing sample counts in ``1..n`` (evenly spaced, always ending at ``n``)."""
    if n <= k:
        return np.arange(1, n + 1, dtype=np.int64)
    return np.unique(np.linspace(n / k, n, k).round().astype(np.int64))


def score_curves(
    metrics: tuple[str, ...],
    y_true: np.ndarray,
    y_pred: np.ndarray,
    at: np.ndarray,
    context: MetricContext,
) -> tuple[dict[str, float], dict[str, list[float]]]:
    """Final values and curves (at ``at``) of the named metrics."""
    finals: dict[str, float] = {}
    curves: dict[str, list[float]] = {"t": at.tolist()}
    for name in metrics:
        values = get_metric(name).curve(y_true, y_pred, at, context)
        curves[name] = np.asarray(values, dtype=np.float64).tolist()
        finals[name] = float(values[-1])
    return finals, curves


def kind_blocks(
    ctx: RunContext,
    y_true: np.ndarray,
    y_pred: np.ndarray,
    at: np.ndarray,
    context: MetricContext,
) -> dict[str, Any]:
    """The ``windowed`` and ``fading`` blocks of a record (only those ``ctx`` asks for),
    each metric's value at the end and curve at ``at``."""
    out: dict[str, Any] = {}
    for kind, (attr, param) in KINDS.items():
        value = getattr(ctx, attr)
        if value is None:
            continue
        block: dict[str, Any] = {param: value, "metrics": {}, "curves": {},
                                 "not_supported": []}
        for name in ctx.metrics:
            metric = get_metric(name)
            if kind not in metric.kinds:
                block["not_supported"].append(name)
                continue
            if kind == "windowed":
                values = metric.windowed_curve(y_true, y_pred, at, int(value), context)
            else:
                values = metric.fading_curve(y_true, y_pred, at, float(value), context)
            values = np.asarray(values, dtype=np.float64)
            block["curves"][name] = values.tolist()
            block["metrics"][name] = float(values[-1])
        out[kind] = block
    return out
