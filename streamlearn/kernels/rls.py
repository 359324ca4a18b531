"""Numba kernels for recursive least squares (ridge) with one-hot targets.

State: ``P`` (d, d), the inverse of the (exponentially weighted) regularised Gram matrix,
and ``W`` (d, c), the ridge weights; ``a`` (d,) is the input with the constant 1 appended.
With forgetting factor ``mu`` in (0, 1] one step is the exponentially weighted RLS
recursion (S. Haykin, *Adaptive Filter Theory*, chapter "Recursive least-squares adaptive
filters"), i.e. the Sherman–Morrison formula applied to ``P^{-1} <- mu P^{-1} + a a^T``::

    v = P a                       # P is symmetric, so a^T P = v^T
    g = v / (mu + a^T v)          # gain vector
    W <- W + g (y^T - a^T W)      # y: one-hot target
    P <- (P - g v^T) / mu

For ``mu = 1`` and ``P_0 = I / lam``, ``W_0 = 0`` this gives after k samples exactly the
ridge solution ``W_k = (A^T A + lam I)^{-1} A^T Y`` of the prefix; for ``mu < 1`` it solves
``(sum_j mu^(k-j) a_j a_j^T + mu^k lam I) W = sum_j mu^(k-j) a_j y_j^T``.

``P`` is updated as ``P - v v^T / (mu + a^T v)`` (elementwise ``v_i v_j / s``), which keeps
it exactly symmetric in floating point. Kernels return a status code (``RLSStatus``) and
leave the state untouched on failure.
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

__all__ = ["RLSStatus", "rls_predict", "rls_predict_learn", "rls_update"]


class RLSStatus(IntEnum):
    """Return codes of the RLS kernels."""

    OK = 0
    NONFINITE = 1  # non-finite input, scores or gain denominator


@njit(cache=True)
def _scores(W: np.ndarray, a: np.ndarray, out: np.ndarray) -> None:
    d, c = W.shape
    for j in range(c):
        out[j] = 0.0
    for i in range(d):
        ai = a[i]
        for j in range(c):
            out[j] += ai * W[i, j]


@njit(cache=True)
def _argmax(s: np.ndarray) -> int:
    best = 0
    for j in range(1, s.shape[0]):
        if s[j] > s[best]:
            best = j
    return best


@njit(cache=True)
def _step(
    P: np.ndarray, W: np.ndarray, a: np.ndarray, r: np.ndarray, v: np.ndarray, mu: float
) -> int:
    """One RLS step with residual ``r = y - W^T a`` already computed; ``v`` is scratch."""
    d, c = W.shape
    s = mu
    for i in range(d):
        acc = 0.0
        for k in range(d):
            acc += P[i, k] * a[k]
        v[i] = acc
        s += a[i] * acc
    if not np.isfinite(s) or s <= 0.0:
        return 1
    for j in range(c):
        if not np.isfinite(r[j]):
            return 1
    inv_s = 1.0 / s
    for i in range(d):
        gi = v[i] * inv_s
        for j in range(c):
            W[i, j] += gi * r[j]
    inv_mu = 1.0 / mu
    for i in range(d):
        vi = v[i]
        for k in range(i, d):
            val = (P[i, k] - vi * v[k] * inv_s) * inv_mu
            P[i, k] = val
            P[k, i] = val
    return 0


@njit(cache=True)
def rls_predict(W: np.ndarray, a: np.ndarray, scores: np.ndarray) -> int:
    """Predicted class ``argmax(W^T a)`` (ties: smallest index); ``scores`` gets ``W^T a``.

    Returns -1 if a score is not finite.
    """
    _scores(W, a, scores)
    for j in range(scores.shape[0]):
        if not np.isfinite(scores[j]):
            return -1
    return _argmax(scores)


@njit(cache=True)
def rls_update(P: np.ndarray, W: np.ndarray, a: np.ndarray, y_onehot: np.ndarray, mu: float) -> int:
    """One exponentially weighted RLS step on ``(a, y_onehot)``; updates ``P`` and ``W``."""
    d, c = W.shape
    r = np.empty(c)
    _scores(W, a, r)
    for j in range(c):
        r[j] = y_onehot[j] - r[j]
    v = np.empty(d)
    return _step(P, W, a, r, v, mu)


@njit(cache=True)
def rls_predict_learn(
    P: np.ndarray, W: np.ndarray, X: np.ndarray, y: np.ndarray, mu: float, out_pred: np.ndarray
) -> int:
    """Strict test-then-train over a chunk: predict ``X[t]`` then learn ``(X[t], y[t])``.

    ``X`` (n, d - 1) holds raw inputs (the bias 1 is appended here); ``y`` (n,) int labels;
    ``out_pred`` (n,) receives the predictions. Stops at the first failing sample with the
    state as it was before that sample (``out_pred`` is filled only up to it).
    """
    n = X.shape[0]
    d, c = W.shape
    a = np.empty(d)
    a[d - 1] = 1.0
    s = np.empty(c)
    v = np.empty(d)
    for t in range(n):
        for i in range(d - 1):
            a[i] = X[t, i]
        pred = rls_predict(W, a, s)
        if pred < 0:
            return 1
        out_pred[t] = pred
        label = y[t]
        for j in range(c):
            # same expression as rls_update, so both paths give bit-identical state
            s[j] = (1.0 if j == label else 0.0) - s[j]
        status = _step(P, W, a, s, v, mu)
        if status != 0:
            return status
    return 0
