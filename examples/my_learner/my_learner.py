"""A learner of your own, in 30 lines: nothing to register, no fork of streamlearn.

A config names it ``my_learner:SoftmaxSGD`` (this file, importable from the directory you
run ``streamlearn`` in); its parameters come from ``__init__``'s signature.
"""
from __future__ import annotations

import numpy as np


class SoftmaxSGD:
    """Multinomial logistic regression, one SGD step per sample (test-then-train)."""

    def __init__(self, lr: float = 0.5, l2: float = 1e-4):
        self.lr = lr
        self.l2 = l2

    def reset(self, n_features: int, n_classes: int) -> None:
        self.W = np.zeros((n_classes, n_features + 1))  # last column: the bias

    def predict_one(self, x: np.ndarray) -> int:
        return int(np.argmax(self.W @ np.append(x, 1.0)))

    def learn_one(self, x: np.ndarray, y: int) -> None:
        xb = np.append(x, 1.0)
        z = self.W @ xb
        p = np.exp(z - z.max())
        p /= p.sum()
        p[y] -= 1.0  # gradient of the log-loss w.r.t. the scores
        self.W -= self.lr * (np.outer(p, xb) + self.l2 * self.W)
