"""Numba kernels of the broad feature map and the linear read-out of every BLS learner.

Broad features ``a = [z, tanh(t·(z We + be))]`` with ``z = x Wf + bf`` (Online-BLS paper,
eqs. 1, 28 and 3; ``φ`` the identity, ``σ = tanh``) and prediction scores ``ŷ = Wᵀa``
(Alg. 1 line 5). Kernels take C-contiguous float64 arrays and scalars and write into
preallocated arrays. The plain-NumPy references are in ``tests/reference/broad_features.py``.
``σ`` is the C library's ``tanh`` (:data:`Squash.LIBM_TANH`, every learner's default) or
:func:`streamlearn.kernels.vector_math.tanh` (:data:`Squash.VECTOR_TANH`, vectorised,
within 2 ulp; online_bls_blocked's).
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

from streamlearn.kernels import vector_math

__all__ = ["FEATURE_TILE", "FeatureStatus", "Squash", "argmax_first", "broad_features",
           "enhancement_absmax", "scores"]


#: columns of ``Wf`` and ``We`` per tile of :func:`broad_features` (four rows' partial
#: sums of a tile, 8 KiB, stay in L1 while ``W``'s rows pass; measured in the README,
#: section "Timing"). Each node's sum does not depend on it (tested).
FEATURE_TILE = 256


class Squash(IntEnum):
    """The function applied to a block of nodes: none (the feature nodes, eq. 1) or the
    enhancement nodes' ``tanh`` (eq. 28), the C library's or the vectorised one."""

    NONE = 0
    LIBM_TANH = 1
    VECTOR_TANH = 2


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
def _add_scaled_rows(y: np.ndarray, a: np.ndarray, W: np.ndarray, i0: int, i1: int,
                     j0: int, j1: int) -> None:
    # y <- y + a[i] * W[i, j0:j1] for i = i0, ..., i1 - 1 in this order, each product
    # rounded and added on its own (no fused multiply-add): the bits of i1 - i0 calls of
    # _add_scaled. Eight rows per pass over y: y is loaded and stored once per eight rows,
    # not per row (the broad features 1.4-2x faster than one row per pass, measured on
    # 784 -> 100 -> 1000 nodes; the README, section "Timing").
    i = i0
    while i + 8 <= i1:
        a0, a1, a2, a3 = a[i], a[i + 1], a[i + 2], a[i + 3]
        a4, a5, a6, a7 = a[i + 4], a[i + 5], a[i + 6], a[i + 7]
        w0, w1, w2, w3 = W[i, j0:j1], W[i + 1, j0:j1], W[i + 2, j0:j1], W[i + 3, j0:j1]
        w4, w5, w6, w7 = W[i + 4, j0:j1], W[i + 5, j0:j1], W[i + 6, j0:j1], W[i + 7, j0:j1]
        for j in range(j1 - j0):
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
        _add_scaled(y, a[i], W[i, j0:j1])
        i += 1


@njit(cache=True)
def _affine_four(S: np.ndarray, r0: int, p: int, W: np.ndarray, b: np.ndarray,
                 j0: int, j1: int, H: np.ndarray) -> None:
    # H[t, :j1 - j0] = b[j0:j1] + sum_i z_t[i] W[i, j0:j1] for the rows z_t = S[r0 + t, :p],
    # t = 0 ... 3, i ascending, each product rounded and added on its own: the bits of
    # _add_scaled_rows on one row. Four rows of W per pass over the four rows of H (a
    # 4 x 4 block of products per column): one load of W serves four rows
    n = j1 - j0
    h0, h1, h2, h3 = H[0, :n], H[1, :n], H[2, :n], H[3, :n]
    h0[:] = b[j0:j1]
    h1[:] = b[j0:j1]
    h2[:] = b[j0:j1]
    h3[:] = b[j0:j1]
    z0, z1, z2, z3 = S[r0, :p], S[r0 + 1, :p], S[r0 + 2, :p], S[r0 + 3, :p]
    i = 0
    while i + 4 <= p:
        w0, w1, w2, w3 = W[i, j0:j1], W[i + 1, j0:j1], W[i + 2, j0:j1], W[i + 3, j0:j1]
        a0, a1, a2, a3 = z0[i], z0[i + 1], z0[i + 2], z0[i + 3]
        b0, b1, b2, b3 = z1[i], z1[i + 1], z1[i + 2], z1[i + 3]
        c0, c1, c2, c3 = z2[i], z2[i + 1], z2[i + 2], z2[i + 3]
        d0, d1, d2, d3 = z3[i], z3[i + 1], z3[i + 2], z3[i + 3]
        for j in range(n):
            x0, x1, x2, x3 = w0[j], w1[j], w2[j], w3[j]
            v = h0[j]
            v += a0 * x0
            v += a1 * x1
            v += a2 * x2
            v += a3 * x3
            h0[j] = v
            v = h1[j]
            v += b0 * x0
            v += b1 * x1
            v += b2 * x2
            v += b3 * x3
            h1[j] = v
            v = h2[j]
            v += c0 * x0
            v += c1 * x1
            v += c2 * x2
            v += c3 * x3
            h2[j] = v
            v = h3[j]
            v += d0 * x0
            v += d1 * x1
            v += d2 * x2
            v += d3 * x3
            h3[j] = v
        i += 4
    while i < p:
        _add_scaled(h0, z0[i], W[i, j0:j1])
        _add_scaled(h1, z1[i], W[i, j0:j1])
        _add_scaled(h2, z2[i], W[i, j0:j1])
        _add_scaled(h3, z3[i], W[i, j0:j1])
        i += 1


@njit(cache=True)
def _affine_rows(S: np.ndarray, k: int, W: np.ndarray, b: np.ndarray, scale: float,
                 squash: int, out: np.ndarray, col: int) -> None:
    # out[r, col + j] = f(b[j] + sum_{i<k} S[r, i] W[i, j]) for every row r of S, f =
    # tanh(scale ·) (squash a Squash code), the identity with Squash.NONE; the sums in
    # ascending i as _preactivations makes them: four rows at a time (_affine_four), a tile of W's
    # columns at a time; the rows left over (n mod 4, the one row of a per-sample call)
    # one at a time over all columns, as _preactivations (the same bits)
    n, q = S.shape[0], W.shape[1]
    n4 = n - n % 4
    if n4:
        H = np.empty((4, FEATURE_TILE))
        for j0 in range(0, q, FEATURE_TILE):
            j1 = min(j0 + FEATURE_TILE, q)
            for r in range(0, n4, 4):
                _affine_four(S, r, k, W, b, j0, j1, H)
                for t in range(4):
                    _store(H[t, : j1 - j0], scale, squash, out[r + t, col + j0: col + j1])
    for r in range(n4, n):  # the rows left over: all columns in one pass each
        dst = out[r, col: col + q]
        dst[:] = b
        _add_scaled_rows(dst, S[r], W, 0, k, 0, q)
        _store(dst, scale, squash, dst)


@njit(cache=True, error_model="numpy")  # numpy's: vector_math.tanh's loop vectorises
def _store(src: np.ndarray, scale: float, squash: int, dst: np.ndarray) -> None:
    # dst = tanh(scale src) (the C library's or vector_math's, by the Squash code), or src
    # with Squash.NONE (dst may be src)
    if squash == 2:
        for j in range(src.shape[0]):
            dst[j] = vector_math.tanh(scale * src[j])
    elif squash == 1:
        for j in range(src.shape[0]):
            dst[j] = math.tanh(scale * src[j])
    else:
        for j in range(src.shape[0]):
            dst[j] = src[j]


@njit(cache=True)
def _inputs(xrow: np.ndarray, row_zscore: int, x: np.ndarray) -> None:
    # x = the row, standardised by its own mean and SD with row_zscore
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
    _inputs(xrow, row_zscore, x)
    z[:] = bf
    _add_scaled_rows(z, x, Wf, 0, x.shape[0], 0, z.shape[0])
    h[:] = be
    _add_scaled_rows(h, z, We, 0, z.shape[0], 0, h.shape[0])


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
    squash: int = 1,
) -> int:
    """Broad features ``a = [z, tanh(scale·(z We + be))]`` of every row of ``X``; ``tanh``
    the C library's (``squash`` = :data:`Squash.LIBM_TANH`, the default) or
    :func:`~streamlearn.kernels.vector_math.tanh` (:data:`Squash.VECTOR_TANH`).

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
    if row_zscore:  # the standardised rows (without it, the rows themselves)
        Xs = np.empty((n, d))
        for r in range(n):
            _inputs(X[r], row_zscore, Xs[r])
    else:
        Xs = X
    _affine_rows(Xs, d, Wf, bf, 1.0, 0, out, 0)  # z (eq. 1)
    _affine_rows(out, p, We, be, scale, squash, out, p)  # tanh(scale h) (eq. 28)
    status = FeatureStatus.OK
    for r in range(n):
        if not _finite(out[r]):
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
