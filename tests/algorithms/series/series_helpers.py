"""Shared piece of the series learners' tests: predictions over a whole series."""

from __future__ import annotations

import numpy as np


def predict_series(learner, series: np.ndarray) -> np.ndarray:
    """Reset ``learner``, then ``predict_learn_many`` over ``series`` in chunks of 5000
    (input ``x_t``, target ``x_{t+1}``); the predictions."""
    learner.reset(1, None)
    x, y = series[:-1], series[1:]
    return np.concatenate([learner.predict_learn_many(x[s:s + 5000, None], y[s:s + 5000])
                           for s in range(0, x.size, 5000)])


def dot_rounding_bound(w: np.ndarray, x_new: float, xt: np.ndarray, M: int,
                       c: float) -> float:
    """How far two computations of a series learner's prediction ``w^T [x_new, xt[0], ..,
    xt[M-2]] + c`` may lie apart when each sums in an order of its own: ``2 γ_{M+1}
    (Σ|w_j x_j| + |c|)`` with ``γ_n = n u / (1 - n u)``, ``u = 2^-53`` (Higham, *Accuracy
    and Stability of Numerical Algorithms*, 2nd ed., §3.1: the error of any summation
    order of ``n`` rounded products). The kernels' dot products carry ``reassoc``, so
    LLVM picks their order per CPU and per caller; this bound holds on every CPU."""
    window = np.concatenate([[x_new], xt[:M - 1]])
    n = M + 1
    u = 2.0 ** -53
    gamma = n * u / (1 - n * u)
    return 2 * gamma * (float(np.abs(w[:M]) @ np.abs(window)) + abs(c))
