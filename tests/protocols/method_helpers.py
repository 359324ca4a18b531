"""Shared pieces of the evaluation-method tests: a small deterministic learner whose every
prediction depends on what it has learnt, and a stream to run it on."""

from __future__ import annotations

import numpy as np

from streamlearn.base import Classifier, PreparedData, RunContext


class NearestMean(Classifier):
    """Nearest class mean (counts and sums per class); an unseen class is never predicted,
    class 0 before anything is learnt. Deterministic and order-sensitive in its
    predictions, pure Python per sample."""

    def __init__(self) -> None:
        self._validate_params()

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.n_ = np.zeros(int(n_classes or 2))
        self.sums_ = np.zeros((int(n_classes or 2), n_features))

    def predict_one(self, x: np.ndarray) -> int:
        seen = self.n_ > 0
        if not seen.any():
            return 0
        means = self.sums_[seen] / self.n_[seen, None]
        return int(np.flatnonzero(seen)[np.argmin(((means - x) ** 2).sum(axis=1))])

    def learn_one(self, x: np.ndarray, y: int) -> None:
        self.n_[y] += 1
        self.sums_[y] += x


def drifting_data(n: int = 400, seed: int = 0, n_classes: int = 3) -> PreparedData:
    """A stream whose class means move (so order matters)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    drift = np.linspace(0.0, 3.0, n)[:, None]
    X = rng.normal(size=(n, 2)) + y[:, None] * np.array([1.5, -1.0]) + drift * (y[:, None] == 1)
    return PreparedData(X=np.ascontiguousarray(X), y=y.astype(np.int64),
                        info={"label": "drift"}, n_classes=n_classes)


def context(*, checkpoints: int = 10, chunk_size: int = 64, fused: bool = True,
            fold: int | None = None, seed: int | None = None) -> RunContext:
    """The run context of the method tests: OCA and BACC at 10 checkpoints."""
    return RunContext(metrics=("oca", "bacc"), checkpoints=checkpoints,
                      chunk_size=chunk_size, fused=fused, fold=fold, seed=seed)
