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
