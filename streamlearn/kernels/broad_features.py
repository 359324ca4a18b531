"""Numba kernels of the broad feature map and the linear read-out of every BLS learner.

Broad features ``a = [z, tanh(t·(z We + be))]`` with ``z = x Wf + bf`` (Online-BLS paper,
eqs. 1, 28 and 3; ``φ`` the identity, ``σ = tanh``) and prediction scores ``ŷ = Wᵀa``
(Alg. 1 line 5). Kernels take C-contiguous float64 arrays and scalars and write into
preallocated arrays. The plain-NumPy references are in ``tests/reference/broad_features.py``.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

__all__ = ["FeatureStatus", "argmax_first", "broad_features", "enhancement_absmax", "scores"]


class FeatureStatus(IntEnum):
    """Return codes of :func:`broad_features`."""

    OK = 0
    NONFINITE = 1  # a broad feature is not finite (inputs not finite or too large)


@njit(cache=True)
def _finite(x: np.ndarray) -> bool:
    for v in x.ravel():
        if not math.isfinite(v):
            return False
    return True


@njit(cache=True)
def _add_scaled(y: np.ndarray, alpha: float, x: np.ndarray) -> None:
    # y <- y + alpha * x
    for j in range(y.shape[0]):
        y[j] += alpha * x[j]


@njit(cache=True)
def _add_scaled_rows(y: np.ndarray, a: np.ndarray, W: np.ndarray, i0: int, i1: int) -> None:
    # y <- y + a[i] * W[i] for i = i0, ..., i1 - 1 in this order, each product rounded and
    # added on its own (no fused multiply-add): the bits of i1 - i0 calls of _add_scaled.
    # Eight rows per pass over y: y is loaded and stored once per eight rows, not per row
    # (the broad features 1.4-2x faster than one row per pass, measured on 784 -> 100 ->
    # 1000 nodes; the README, section "Timing").
    i = i0
    while i + 8 <= i1:
        a0, a1, a2, a3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        a4, a5, a6, a7 = a[i + 4], a[i + 5], a[i + 6], a[i + 7]
        w0, w1, w2, w3 = W[i], W[i + 1], W[i + 2], W[i + 3]
        w4, w5, w6, w7 = W[i + 4], W[i + 5], W[i + 6], W[i + 7]
        for j in range(y.shape[0]):
            v = y[j]
            v += a0 * w0[j]
            v += a1 * w1[j]
            v += a2 * w2[j]
            v += a3 * w3[j]
            v += a4 * w4[j]
            v += a5 * w5[j]
            v += a6 * w6[j]
            v += a7 * w7[j]
            y[j] = v
        i += 8
    while i < i1:
        _add_scaled(y, a[i], W[i])
        i += 1


@njit(cache=True)
def _preactivations(
    xrow: np.ndarray,
    Wf: np.ndarray,
    bf: np.ndarray,
    We: np.ndarray,
    be: np.ndarray,
    row_zscore: int,
    x: np.ndarray,
    z: np.ndarray,
    h: np.ndarray,
) -> None:
    # z = x Wf + bf (eq. 1, φ = identity); h = z We + be (eq. 28 before σ and scaling)
    d = x.shape[0]
    for i in range(d):
        x[i] = xrow[i]
    if row_zscore:
        mean = 0.0
        for i in range(d):
            mean += x[i]
        mean /= d
        var = 0.0
        for i in range(d):
            x[i] -= mean
            var += x[i] * x[i]
        sd = math.sqrt(var / d)
        if sd > 0.0:
            for i in range(d):
                x[i] /= sd
    z[:] = bf
    _add_scaled_rows(z, x, Wf, 0, d)
    h[:] = be
    _add_scaled_rows(h, z, We, 0, z.shape[0])


@njit(cache=True)
def broad_features(
    X: np.ndarray,
    Wf: np.ndarray,
    bf: np.ndarray,
    We: np.ndarray,
    be: np.ndarray,
    scale: float,
    row_zscore: int,
    out: np.ndarray,
) -> int:
    """Broad features ``a = [z, tanh(scale·(z We + be))]`` of every row of ``X``.

    ``Wf`` is ``(d, n1·n2)`` and ``bf`` ``(n1·n2,)`` (the ``n2`` feature groups of eq. 1
    side by side), ``We`` is ``(n1·n2, n3·n4)`` and ``be`` ``(n3·n4,)`` (the ``n4``
    enhancement groups of eq. 28 side by side; eq. 28 takes ``z``, not ``x`` as eq. 2
    prints); ``φ`` is the identity and ``σ = tanh`` (the paper leaves both open, §3.2).
    ``row_zscore`` standardises each row by its own mean and SD first (as the reference
    BLS code does; a zero SD leaves the row centred). Rows are processed independently
    with a fixed summation order, so row ``i`` does not depend on the other rows of ``X``.
    """
    n, d = X.shape
    p = Wf.shape[1]
    q = We.shape[1]
    x = np.empty(d)
    z = np.empty(p)
    h = np.empty(q)
    status = FeatureStatus.OK
    for r in range(n):
        _preactivations(X[r], Wf, bf, We, be, row_zscore, x, z, h)
        row = out[r]
        for j in range(p):
            row[j] = z[j]
        for j in range(q):
            row[p + j] = math.tanh(scale * h[j])
        if not _finite(row):
            status = FeatureStatus.NONFINITE
    return status


@njit(cache=True)
def enhancement_absmax(
    X: np.ndarray, Wf: np.ndarray, bf: np.ndarray, We: np.ndarray, be: np.ndarray, row_zscore: int
) -> float:
    """``max |z We + be|`` over the rows of ``X``: the unscaled enhancement pre-activations.

    This is the quantity the reference BLS code's enhancement shrinkage divides by.
    Returns ``inf`` if any pre-activation is not finite.
    """
    n, d = X.shape
    x = np.empty(d)
    z = np.empty(Wf.shape[1])
    h = np.empty(We.shape[1])
    best = 0.0
    for r in range(n):
        _preactivations(X[r], Wf, bf, We, be, row_zscore, x, z, h)
        for j in range(h.shape[0]):
            v = abs(h[j])
            if not v <= best:
                best = v if math.isfinite(v) else math.inf
    return best


@njit(cache=True)
def scores(a: np.ndarray, W: np.ndarray, out: np.ndarray) -> None:
    """``out = Wᵀ a`` (the prediction ``ŷᵀ = aᵀ W``, Alg. 1 line 5), fixed summation order."""
    m, c = W.shape
    for j in range(c):
        out[j] = 0.0
    for i in range(m):
        ai = a[i]
        for j in range(c):
            out[j] += ai * W[i, j]


@njit(cache=True)
def argmax_first(v: np.ndarray) -> int:
    """Index of the largest entry, ties to the smallest index (as ``numpy.argmax``)."""
    best = 0
    for j in range(1, v.shape[0]):
        if v[j] > v[best]:
            best = j
    return best
