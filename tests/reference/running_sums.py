"""Plain-NumPy reference of streamlearn.kernels.running_sums."""

from __future__ import annotations

import numpy as np


def loss_sums_at(y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                 loss: int) -> np.ndarray:
    e = np.asarray(y_true, np.float64) - np.asarray(y_pred, np.float64)
    per_sample = e * e if loss == 0 else np.abs(e)
    return np.cumsum(per_sample)[np.asarray(at, np.int64) - 1]
