"""Numba kernel for the running sums of a per-sample loss at checkpoints (the time-averaged
MSE/MAE curves, cumulative absolute loss and regret of the prequential-regression
protocol; Fast-ONS paper, Fig. 2).

One pass over ``y_true`` and ``y_pred``, no temporaries: on a 1e7-sample series the
NumPy form (loss array, then ``cumsum``) made several n-sized arrays and several passes,
about 10 % of the fast-ONS learner's own time. The sum is sequential, in the same order as
``np.cumsum``, so the values are bit-identical to it.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

__all__ = ["Loss", "loss_sums_at", "loss_sums_chunk"]


class Loss(IntEnum):
    """Per-sample losses of :func:`loss_sums_at`."""

    SQUARED = 0  # (y - p)^2
    ABSOLUTE = 1  # |y - p|


@njit(cache=True)
def loss_sums_at(y_true: np.ndarray, y_pred: np.ndarray, at: np.ndarray,
                 loss: int) -> np.ndarray:
    """``sum_{t < T} loss(y_true_t - y_pred_t)`` for every ``T`` of ``at`` (increasing,
    1-based counts, ``at[-1] <= len(y_true)``)."""
    out = np.empty(at.shape[0])
    acc = 0.0
    k = 0
    for t in range(at[-1] if at.shape[0] else 0):
        e = y_true[t] - y_pred[t]
        if loss == 0:
            acc += e * e
        else:
            acc += abs(e)
        while k < at.shape[0] and at[k] == t + 1:
            out[k] = acc
            k += 1
    return out


@njit(cache=True)
def loss_sums_chunk(y_true: np.ndarray, y_pred: np.ndarray, start: int, at: np.ndarray,
                    k: int, carry: float, loss: int, out: np.ndarray) -> tuple[int, float]:
    """:func:`loss_sums_at` one chunk at a time: ``y_true``/``y_pred`` hold samples
    ``start .. start + len - 1``; ``carry`` is the sum before the chunk and ``k`` the first
    checkpoint not yet written to ``out``. Returns the new ``(k, carry)``. Fed the chunks
    in order, it writes the same (bit-identical) values as one call over the whole arrays,
    without the whole predictions ever being held."""
    acc = carry
    for t in range(y_true.shape[0]):
        e = y_true[t] - y_pred[t]
        if loss == 0:
            acc += e * e
        else:
            acc += abs(e)
        while k < at.shape[0] and at[k] == start + t + 1:
            out[k] = acc
            k += 1
    return k, acc
