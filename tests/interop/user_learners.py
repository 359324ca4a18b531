"""Learners of a user's own (not streamlearn classes), named ``module:Class`` by the
interop tests: one that takes new classes (``add_class``), one that does not."""

from __future__ import annotations

import numpy as np


class SoftmaxSGD:
    """Multinomial logistic regression, one SGD step per sample; grows by a zero row."""

    def __init__(self, lr: float = 0.5) -> None:
        self.lr = lr

    def reset(self, n_features: int, n_classes: int) -> None:
        self.W = np.zeros((n_classes, n_features + 1))

    def add_class(self) -> None:
        self.W = np.vstack([self.W, np.zeros((1, self.W.shape[1]))])

    def predict_one(self, x: np.ndarray) -> int:
        return int(np.argmax(self.W @ np.append(x, 1.0)))

    def learn_one(self, x: np.ndarray, y: int) -> None:
        xb = np.append(x, 1.0)
        z = self.W @ xb
        p = np.exp(z - z.max())
        p /= p.sum()
        p[y] -= 1.0
        self.W -= self.lr * np.outer(p, xb)


class FixedClasses(SoftmaxSGD):
    """The same learner without ``add_class``: its classes must be given up front."""

    add_class = None  # type: ignore[assignment]
