"""Learners whose fused ``predict_learn_many`` is off by one sample, for the tests of the
fused-path checks (``streamlearn check`` and the run-time check): ``Peeks*`` predicts
sample i with the model after learning it, ``SkipsLast*`` does not learn a chunk's last
row. ``Right*`` is the same learner with a correct fused path. Plain NumPy, no Numba: a
class-mean classifier (each class's running mean of x, the nearest mean predicted) and
LMS regression (a step of 0.05 on the squared error)."""

from __future__ import annotations

from typing import Any

import numpy as np


class _ClassMeans:
    def __init__(self) -> None:
        self.means: np.ndarray | None = None

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.means = np.zeros((int(n_classes or 2), n_features))
        self.counts = np.zeros(int(n_classes or 2))

    def predict_one(self, x: np.ndarray) -> int:
        assert self.means is not None
        seen = self.counts > 0
        if not seen.any():
            return 0
        d = np.where(seen, ((self.means - x) ** 2).sum(axis=1), np.inf)
        return int(np.argmin(d))

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        assert self.means is not None
        k = int(y)
        self.counts[k] += 1
        self.means[k] += (x - self.means[k]) / self.counts[k]


class _LMS:
    task = "regression"

    def __init__(self) -> None:
        self.w: np.ndarray | None = None

    def reset(self, n_features: int, n_classes: int | None) -> None:
        self.w = np.zeros(n_features + 1)

    def predict_one(self, x: np.ndarray) -> float:
        assert self.w is not None
        return float(self.w[0] + self.w[1:] @ x)

    def learn_one(self, x: np.ndarray, y: Any) -> None:
        assert self.w is not None
        e = float(y) - self.predict_one(x)
        self.w[0] += 0.05 * e
        self.w[1:] += 0.05 * e * x


def _right(self: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for i in range(X.shape[0]):
        out.append(self.predict_one(X[i]))
        self.learn_one(X[i], y[i])
    return np.asarray(out)


def _peeks(self: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for i in range(X.shape[0]):
        self.learn_one(X[i], y[i])
        out.append(self.predict_one(X[i]))  # after learning it: off by one
    return np.asarray(out)


def _skips_last(self: Any, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for i in range(X.shape[0]):
        out.append(self.predict_one(X[i]))
        if i < X.shape[0] - 1:  # the chunk's last row is never learnt
            self.learn_one(X[i], y[i])
    return np.asarray(out)


class RightClassifier(_ClassMeans):
    """Class means; a correct fused path."""

    predict_learn_many = _right


class PeeksClassifier(_ClassMeans):
    """Class means; the fused path predicts after learning."""

    predict_learn_many = _peeks


class SkipsLastClassifier(_ClassMeans):
    """Class means; the fused path skips a chunk's last update."""

    predict_learn_many = _skips_last


class RightRegressor(_LMS):
    """LMS; a correct fused path."""

    predict_learn_many = _right


class PeeksRegressor(_LMS):
    """LMS; the fused path predicts after learning."""

    predict_learn_many = _peeks


class SkipsLastRegressor(_LMS):
    """LMS; the fused path skips a chunk's last update."""

    predict_learn_many = _skips_last
