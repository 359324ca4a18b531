"""Evaluation protocols: how one (stream, algorithm, seed) run is carried out and scored.

A protocol turns prepared data and a reset learner into the payload of a run record
(final metrics, curves at checkpoints, timings). New protocols (prequential regression
on a time series, a network grown on a fixed split) are new subclasses registered in
``PROTOCOLS``; the runner, records and reports do not change.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from streamlearn.base import Learner
from streamlearn.evaluation.prequential import run_prequential
from streamlearn.registry import get_metric


@dataclass
class RunInput:
    """Everything a protocol needs for one run."""

    X: np.ndarray
    y: np.ndarray
    n_classes: int | None
    learner: Learner  # already reset
    metrics: tuple[str, ...]
    chunk_size: int
    checkpoints: int
    fused: bool = True
    on_progress: Callable[[int], None] | None = None


def checkpoint_positions(n: int, k: int) -> np.ndarray:
    """``k`` increasing sample counts in ``1..n`` (evenly spaced, always ending at ``n``)."""
    if n <= k:
        return np.arange(1, n + 1, dtype=np.int64)
    return np.unique(np.linspace(n / k, n, k).round().astype(np.int64))


def _summary(seconds: np.ndarray) -> dict[str, float]:
    return {
        "mean": float(np.mean(seconds)),
        "sd": float(np.std(seconds, ddof=1)) if seconds.size > 1 else 0.0,
        "median": float(np.median(seconds)),
        "p95": float(np.percentile(seconds, 95)),
    }


class Protocol:
    """Base class of evaluation protocols."""

    name: ClassVar[str] = ""
    task: ClassVar[str] = "classification"

    def run(self, inp: RunInput) -> dict[str, Any]:
        raise NotImplementedError


class PrequentialClassification(Protocol):
    """Test-then-train over the whole stream; metrics of Appendix C (Online-BLS paper)."""

    name = "prequential-classification"
    task = "classification"

    def run(self, inp: RunInput) -> dict[str, Any]:
        n = inp.X.shape[0]
        out = run_prequential(
            inp.learner, inp.X, inp.y, chunk_size=inp.chunk_size, use_many=inp.fused,
            on_chunk=inp.on_progress,
        )
        at = checkpoint_positions(n, inp.checkpoints)
        metrics: dict[str, float] = {}
        curves: dict[str, list[float]] = {"t": at.tolist()}
        for name in inp.metrics:
            metric = get_metric(name)
            values = metric.curve(inp.y, out.y_pred, inp.n_classes, at)
            curves[name] = values.tolist()
            metrics[name] = float(values[-1])
        if out.per_sample_seconds is not None:
            per_sample = out.per_sample_seconds
        else:
            per_sample = out.chunk_seconds / np.maximum(out.chunk_sizes, 1)
        timing = {
            "n_samples": n,
            "fused": out.fused,
            "total_seconds": out.total_seconds,
            "predict_seconds": out.predict_seconds,
            "learn_seconds": out.learn_seconds,
            "per_sample_seconds": out.total_seconds / max(n, 1),
            "per_sample_predict_seconds": out.predict_seconds / max(n, 1),
            "per_sample_learn_seconds": out.learn_seconds / max(n, 1),
            "samples_per_second": n / out.total_seconds if out.total_seconds > 0 else None,
            # Distribution over samples (per-sample loop) or over chunks (fused path).
            "per_sample_distribution": _summary(per_sample),
            "distribution_over": "chunks" if out.fused else "samples",
        }
        return {"metrics": metrics, "curves": curves, "timing": timing,
                "y_pred": out.y_pred}


PROTOCOLS: dict[str, type[Protocol]] = {
    PrequentialClassification.name: PrequentialClassification,
}
