"""The doors a learner's predictions come out of, for comparing them sample by sample:
streamlearn's own prequential loop (what ``streamlearn run`` calls) and River's
progressive validation."""

from __future__ import annotations

from typing import Any

import numpy as np
from river import evaluate, metrics

from streamlearn import components
from streamlearn.protocols.prequential_loop import run_prequential


def blobs(n: int, d: int, c: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A small learnable stream of ``c`` Gaussian blobs; labels ``0..c-1``."""
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=2.0, size=(c, d))
    y = rng.integers(0, c, n)
    return np.ascontiguousarray(centers[y] + rng.normal(size=(n, d))), y


def streamlearn_predictions(name: str, params: dict[str, Any], X: np.ndarray,
                            y: np.ndarray, n_classes: int) -> np.ndarray:
    """Predictions of streamlearn's prequential loop (fused chunks where the learner has
    them, as ``streamlearn run``)."""
    learner = components.get_algorithm(name)(**params)
    learner.reset(X.shape[1], n_classes)
    return run_prequential(learner, X, y, chunk_size=1000, n_classes=n_classes).y_pred


def river_dataset(X: np.ndarray, y: np.ndarray) -> list[tuple[dict[int, float], Any]]:
    """The rows as River's ``(dict, label)`` pairs, keyed by column index."""
    return [(dict(enumerate(row)), label) for row, label in zip(X.tolist(), y.tolist(),
                                                                strict=True)]


def river_predictions(model: Any, dataset: list[tuple[dict, Any]]) -> tuple[list[Any], float]:
    """Each prediction of ``river.evaluate`` progressive validation (test-then-train),
    and its final accuracy."""
    metric = metrics.Accuracy()
    preds = [step["Prediction"] for step in evaluate.iter_progressive_val_score(
        dataset, model, metric, step=1, yield_predictions=True)]
    return preds, metric.get()


def n_differ(a: Any, b: Any) -> int:
    """How many positions of two prediction sequences differ (labels compared by value)."""
    a, b = list(a), list(b)
    assert len(a) == len(b)
    return sum(1 for u, v in zip(a, b, strict=True) if u != v)
