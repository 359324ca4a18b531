"""Numba kernels for sequential linear prediction of a scalar series with a tapped delay
line (Civek and Kozat, "Efficient Implementation of Newton-Raphson Methods for Sequential
Data Prediction"): the regular O(M^2) Online Newton Step (eqs. 2-5, 8), the fast O(M)
Online Newton Step (Algorithm 1, eqs. 11-33) and online gradient descent (ONS with
``A_t = I``).

At step ``t`` the learner holds ``x_0..x_t`` and the delay line
``xt = [x_t, x_{t-1}, ..., x_{t-M}]`` (zero before the series starts; ``M + 1`` entries,
the feature vector ``x_t`` is its first ``M``). It predicts ``x_{t+1}`` as
``w_t^T x_t (+ c_t)``, suffers the absolute loss ``|e_t|`` and, when ``|e_t| > eps``
(the dead zone), takes the step ``w_{t+1} = w_t + sgn(e_t) (1/mu) A_t^{-1} x_t``.
``A_t = alpha I + sum_{i<=t} x_i x_i^T`` is updated at *every* step, dead zone or not.

State arrays are updated in place; each chunk kernel writes its predictions into
``out`` and returns ``(status, i)``: ``(OK, n)`` or ``(BREAKDOWN, i)`` when the fast
recursion's hyperbolic rotation fails at sample ``i`` of the chunk (its prediction is
written, its delay line and lag products are updated; the rotation state and the weights
are not). The caller then rebuilds the state exactly with :func:`fast_ons_rebuild`
(paper's pitfall list; O(M^3), rare), finishes the step with :func:`fast_ons_finish` and
continues at ``i + 1``.

Scalars of the fast recursion live in a small array ``sc``: ``sc[0]`` = sqrt(eta_t),
``sc[1]`` = min over steps of ``1 - h_t^2``, ``sc[2]`` = steps taken, ``sc[3]`` = the
offset weight ``c_t``, ``sc[4]`` = the offset Schur complement ``varsigma_t``.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

__all__ = [
    "SeriesStatus",
    "fast_ons_chunk",
    "fast_ons_finish",
    "fast_ons_predict",
    "fast_ons_rebuild",
    "ogd_series_chunk",
    "ons_series_chunk",
    "series_predict",
]


class SeriesStatus(IntEnum):
    """Return codes of the series kernels."""

    OK = 0
    BREAKDOWN = 1  # fast ONS: hyperbolic rotation failed (1 - h^2 <= tau) or a check failed


# Consistency checks of the fast recursion (paper's pitfall list): eta_t >= 1 and the
# last entry of the post-array's first column (exactly 0 in exact arithmetic), relative to
# sqrt(eta_t) and the entries of the row it is computed from.
_ETA_FLOOR = 1.0 - 1e-8
_RESID_REL = 1e-8


# The O(M) reductions (dot products) may be reassociated so that LLVM
# vectorises them: a strictly ordered sum is one dependent add per element, and made
# every kernel here latency-bound (3-8x slower at M >= 128). Only these helpers carry
# the flag; the rotations and updates keep IEEE order. Predictions then differ from a
# strictly ordered sum by rounding only (the NumPy references agree to <= 1e-10), and the
# per-sample path calls the same helper, so it stays identical to the chunk kernels.
_REDUCE = {"reassoc"}


@njit(cache=True, fastmath=_REDUCE)
def _dot_window(w: np.ndarray, xt: np.ndarray, M: int) -> float:
    acc = 0.0
    for j in range(M):
        acc += w[j] * xt[j]
    return acc


@njit(cache=True, fastmath=_REDUCE)
def _dot3(xt: np.ndarray, w: np.ndarray, a: np.ndarray, b: np.ndarray,
          M: int) -> tuple[float, float, float]:
    """Fast ONS's one pass over the delay line ``xt`` (``M + 1`` entries): the dot
    products ``w^T x_t`` (first ``M`` entries), ``xt^T a`` and ``xt^T b`` (all ``M + 1``)."""
    sw = 0.0
    sa = 0.0
    sb = 0.0
    for j in range(M):
        v = xt[j]
        sw += w[j] * v
        sa += v * a[j]
        sb += v * b[j]
    v = xt[M]
    return sw, sa + v * a[M], sb + v * b[M]


@njit(cache=True)
def _add_lag_products(win: np.ndarray, lag: np.ndarray, K: int, k: int, D: int) -> None:
    """The lag products of a block's first ``k`` steps, added in time order:
    ``lag[d] += x_i x_{i-d}`` (d = 0..M) for step ``q = 1..k``, whose delay line is
    ``win[K - q:K - q + D]``. Each ``lag[d]`` receives the same products in the same order
    as when they were added step by step (no reduction, no contraction), so the result is
    the same bit for bit; done once per block, outside the step's pass, it costs a
    fraction of what it cost inside it (issue 25 item 4)."""
    for q in range(1, k + 1):
        o = K - q
        x_new = win[o]
        line = win[o:o + D]
        for d in range(D):
            lag[d] += x_new * line[d]


@njit(cache=True)
def fast_ons_predict(w: np.ndarray, xt: np.ndarray, x_new: float, L0: np.ndarray,
                     L1: np.ndarray, M: int, c: float) -> float:
    """Fast ONS's prediction after ``x_new`` enters the delay line, without changing any
    state: the same reduction as :func:`fast_ons_chunk`, so the per-sample path gives
    identical predictions."""
    window = np.empty(M + 1)
    window[0] = x_new
    for j in range(1, M + 1):
        window[j] = xt[j - 1]
    return _dot3(window, w, L0, L1, M)[0] + c


@njit(cache=True)
def series_predict(w: np.ndarray, xt: np.ndarray, x_new: float, M: int, c: float) -> float:
    """``w^T [x_new, xt[0], .., xt[M-2]] + c``: the prediction after ``x_new`` enters the
    delay line, without changing it (eq. 1). The same reduction as the chunk kernels."""
    window = np.empty(M)
    window[0] = x_new
    for j in range(1, M):
        window[j] = xt[j - 1]
    return _dot_window(w, window, M) + c


@njit(cache=True)
def _shift_in(xt: np.ndarray, x_new: float) -> None:
    for j in range(xt.shape[0] - 1, 0, -1):
        xt[j] = xt[j - 1]
    xt[0] = x_new


@njit(cache=True)
def ogd_series_chunk(xin: np.ndarray, yin: np.ndarray, w: np.ndarray, xt: np.ndarray,
                     M: int, offset: int, lr: float, eps: float,
                     out: np.ndarray) -> tuple[int, int]:
    """Online gradient descent on the absolute loss (ONS with ``A_t = I``, paper Sec. 2):
    ``w += lr sgn(e_t) x_t`` when ``|e_t| > eps``. ``w`` has ``M`` entries, plus the
    offset weight last when ``offset`` is 1 (feature ``[x_t; 1]``)."""
    for i in range(xin.shape[0]):
        _shift_in(xt, xin[i])
        yhat = _dot_window(w, xt, M)
        if offset:
            yhat += w[M]
        out[i] = yhat
        e = yin[i] - yhat
        if abs(e) > eps:
            step = lr if e > 0 else -lr
            for j in range(M):
                w[j] += step * xt[j]
            if offset:
                w[M] += step
    return SeriesStatus.OK, xin.shape[0]


@njit(cache=True)
def ons_series_chunk(xin: np.ndarray, yin: np.ndarray, w: np.ndarray, P: np.ndarray,
                     xt: np.ndarray, k: np.ndarray, M: int, offset: int, inv_mu: float,
                     eps: float, out: np.ndarray) -> tuple[int, int]:
    """Regular O(M^2) ONS (paper eqs. 2-5 and 8): ``P = A_{t-1}^{-1}`` by the matrix
    inversion lemma (4), ``k = P x_t``, ``eta_t = 1 + x_t^T k`` (10),
    ``P <- P - k k^T / eta_t``, and ``w += sgn(e_t) (1/mu) k / eta_t`` outside the dead
    zone (5). ``P`` is ``D x D`` with ``D = M + offset`` (the feature ``[x_t; 1]`` with an
    offset); ``k`` is a work vector of length ``D``. Both triangles of ``P`` are updated."""
    D = M + offset
    for i in range(xin.shape[0]):
        _shift_in(xt, xin[i])
        yhat = _dot_window(w, xt, M)
        if offset:
            yhat += w[M]
        out[i] = yhat
        e = yin[i] - yhat
        # k = P a, a = [x_t; 1]
        for r in range(D):
            acc = _dot_window(P[r], xt, M)
            if offset:
                acc += P[r, M]
            k[r] = acc
        eta = 1.0 + _dot_window(xt, k, M)
        if offset:
            eta += k[M]
        inv_eta = 1.0 / eta
        for r in range(D):
            kr = k[r] * inv_eta
            for j in range(D):
                P[r, j] -= kr * k[j]
        if abs(e) > eps:
            step = (inv_mu if e > 0 else -inv_mu) * inv_eta
            for r in range(D):
                w[r] += step * k[r]
    return SeriesStatus.OK, xin.shape[0]


@njit(cache=True)
def fast_ons_finish(w: np.ndarray, rho: np.ndarray, xt: np.ndarray, u: np.ndarray,
                    ssum: np.ndarray, sc: np.ndarray, M: int, offset: int, alpha: float,
                    inv_mu: float, eps: float, e: float) -> None:
    """The end of a fast-ONS step once ``sqrt(eta_t)`` (``sc[0]``) and ``rho_t`` are
    known: ``A_t^{-1} x_t = rho_t / sqrt(eta_t)`` (Algorithm 1, line 15, eq. 33) and the
    dead-zone weight step. With ``offset`` the exact O(M) extension (not in the paper):
    ``u_t = A_t^{-1} s_t`` with ``s_t = sum x_i``, ``varsigma_t = alpha + t + 1 - s_t^T u_t``
    and ``Abar_t^{-1} [x_t; 1] = [k_t - u_t g_t; g_t]``, ``g_t = (1 - u_t^T x_t) / varsigma_t``."""
    inv_s = 1.0 / sc[0]
    sc[2] += 1.0
    g = 0.0
    if offset:
        ux = 0.0
        for j in range(M):
            ux += u[j] * xt[j]
        f = 1.0 - ux
        for j in range(M):
            u[j] += rho[j] * inv_s * f
            ssum[j] += xt[j]
        su = 0.0
        ux = 0.0
        for j in range(M):
            su += ssum[j] * u[j]
            ux += u[j] * xt[j]
        sc[4] = alpha + sc[2] - su
        g = (1.0 - ux) / sc[4]
    if abs(e) > eps:
        step = inv_mu if e > 0 else -inv_mu
        if offset:
            for j in range(M):
                w[j] += step * (rho[j] * inv_s - u[j] * g)
            sc[3] += step * g
        else:
            coef = step * inv_s
            for j in range(M):
                w[j] += coef * rho[j]


# Steps per block of the fast-ONS chunk kernel (at least M + 1): the delay line lives in
# a window buffer of K + M + 1 values, newest first, so a step writes one value instead of
# shifting M + 1.
_BLOCK = 512


@njit(cache=True)
def fast_ons_chunk(xin: np.ndarray, yin: np.ndarray, w: np.ndarray, xt: np.ndarray,
                   L0: np.ndarray, L1: np.ndarray, rho: np.ndarray, lag: np.ndarray,
                   u: np.ndarray, ssum: np.ndarray, sc: np.ndarray, M: int, offset: int,
                   alpha: float, inv_mu: float, eps: float, tau: float,
                   out: np.ndarray) -> tuple[int, int]:
    """Fast O(M) ONS, Algorithm 1 of the paper. The pre-array
    ``B = [[sqrt(eta_{t-1}), xt^T Lambda_{t-1}], [[0; rho_{t-1}], Lambda_{t-1}]]`` (line 9)
    is rotated by a Givens rotation on columns 1-2 and a hyperbolic rotation on columns
    1-3 (lines 10-13, eqs. 22-32) into ``[[sqrt(eta_t), 0, 0], [[rho_t; 0], Lambda_t]]``;
    ``Lambda`` is stored as its two columns ``L0``, ``L1`` (length ``M + 1``). ``lag``
    accumulates the lag products ``sum_i x_i x_{i-d}`` (d = 0..M) from which
    :func:`fast_ons_rebuild` recovers the exact state after a breakdown.

    Per step only what the recursion needs (issue 25 item 4; the same arithmetic in the
    same order as before, so bit-for-bit the same predictions and state): the delay line
    is a view into a block buffer (no shift); the lag products, needed only by the
    recovery, are added once per block (:func:`_add_lag_products`), not inside the step's
    pass; the last post-array row (the residual and
    ``eta_t`` checks) is computed before the other rows, so that a failed check leaves the
    rotation state untouched and the dead-zone weight step (line 15, eq. 33) runs inside
    the row loop; ``[0; rho]`` alternates between two rows instead of being copied; the
    scalars stay in registers."""
    n = xin.shape[0]
    D = M + 1
    K = max(_BLOCK, D)
    win = np.empty(K + D)
    win[K:] = xt
    old = np.zeros(D)  # [0; rho_{t-1}]
    new = np.zeros(D)  # [0; rho_t]
    old[1:] = rho
    s = sc[0]
    omh_min = sc[1]
    steps = sc[2]
    k = 0  # steps of the current block; the delay line starts at win[K - k]
    status = SeriesStatus.OK
    stop = n
    for i in range(n):
        if k == K:  # block full: its lag products, then its last delay line to the end
            _add_lag_products(win, lag, K, k, D)
            for j in range(D - 1, -1, -1):
                win[K + j] = win[j]
            k = 0
        k += 1
        o = K - k
        x_new = xin[i]
        win[o] = x_new
        yhat, a, b = _dot3(win[o:o + D], w, L0, L1, M)
        if offset:
            yhat += sc[3]
        out[i] = yhat
        e = yin[i] - yhat
        r = math.hypot(s, a)
        cg = s / r
        sg = a / r
        f0 = cg * s + sg * a
        h = b / r
        omh = 1.0 - h * h
        if omh <= tau:
            status, stop = SeriesStatus.BREAKDOWN, i
            break
        if omh < omh_min:
            omh_min = omh
        g = 1.0 / math.sqrt(omh)
        s_new = g * (f0 - h * b)
        # the last row (j = M) first: its first entry is the residual, exactly 0 in exact
        # arithmetic, judged against sqrt(eta_t) (>= 1) and the entries it is computed
        # from: against ||rho_t||, a window of exact zeros (silence in speech: rho_t = 0)
        # flagged its rounding-level residual
        p0 = old[M]
        p1 = L0[M]
        p2 = L1[M]
        q0 = cg * p0 + sg * p1
        resid = g * (q0 - h * p2)
        if s_new * s_new < _ETA_FLOOR or abs(resid) > _RESID_REL * (
                s_new + abs(p0) + abs(p1) + abs(p2)):
            status, stop = SeriesStatus.BREAKDOWN, i
            break
        L0[M] = -sg * p0 + cg * p1
        L1[M] = g * (p2 - h * q0)
        s = s_new
        # rows 0..M-1 read [0; rho_{t-1}] from ``old`` and write rho_t to ``new``: no
        # row depends on another, so the loop vectorises
        if not offset and abs(e) > eps:
            coef = (inv_mu if e > 0 else -inv_mu) * (1.0 / s_new)
            for j in range(M):
                p0 = old[j]
                p1 = L0[j]
                p2 = L1[j]
                q0 = cg * p0 + sg * p1
                L0[j] = -sg * p0 + cg * p1
                rj = g * (q0 - h * p2)
                new[j + 1] = rj
                L1[j] = g * (p2 - h * q0)
                w[j] += coef * rj
        else:
            for j in range(M):
                p0 = old[j]
                p1 = L0[j]
                p2 = L1[j]
                q0 = cg * p0 + sg * p1
                L0[j] = -sg * p0 + cg * p1
                new[j + 1] = g * (q0 - h * p2)
                L1[j] = g * (p2 - h * q0)
        old, new = new, old
        if offset:
            sc[0] = s
            sc[2] = steps
            fast_ons_finish(w, old[1:], win[o:o + D], u, ssum, sc, M, offset, alpha, inv_mu,
                            eps, e)
            steps = sc[2]
        else:
            steps += 1.0
    # the lag products and the delay line (both including a failed step's sample) and the
    # rotation state of the last completed step
    _add_lag_products(win, lag, K, k, D)
    xt[:] = win[K - k:K - k + D]
    rho[:] = old[1:]
    sc[0] = s
    sc[1] = omh_min
    sc[2] = steps
    return status, stop


def fast_ons_rebuild(xt: np.ndarray, lag: np.ndarray, alpha: float,
                     M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    """Exact fast-ONS state at step ``t`` from the lag products (paper's eqs. 14-17 and
    30-31 solved directly; the recovery of the spec's pitfall 1), in O(M^3).

    ``A_t[0, k] = alpha [k = 0] + sum_{i<=t} x_i x_{i-k}`` and
    ``A_t[j+1, k+1] = A_t[j, k] - x_{t-j} x_{t-k}``; ``A_{t-1} = A_t - x_t x_t^T``.
    Returns ``(L0, L1, rho_t, sqrt(eta_t))`` with ``Lambda_t Pi Lambda_t^T = Delta_t``
    from the two non-zero eigenpairs of ``Delta_t`` (eq. 15 one step later)."""
    A = np.zeros((M, M))
    A[0, :] = lag[:M]
    A[0, 0] += alpha
    for j in range(M - 1):
        A[j + 1, 1:] = A[j, :-1] - xt[j] * xt[:M - 1]
    A = np.triu(A) + np.triu(A, 1).T
    x = xt[:M]
    A_prev = A - np.outer(x, x)
    P = np.linalg.inv(A)
    P_prev = np.linalg.inv(A_prev)
    P = 0.5 * (P + P.T)
    P_prev = 0.5 * (P_prev + P_prev.T)
    k_prev = P_prev @ x
    eta = 1.0 + float(x @ k_prev)
    s = math.sqrt(eta)
    delta = np.zeros((M + 1, M + 1))
    delta[:M, :M] += P
    delta[1:, 1:] -= P_prev
    vals, vecs = np.linalg.eigh(delta)
    L0 = np.ascontiguousarray(vecs[:, -1] * math.sqrt(max(vals[-1], 0.0)))
    L1 = np.ascontiguousarray(vecs[:, 0] * math.sqrt(max(-vals[0], 0.0)))
    return L0, L1, np.ascontiguousarray(k_prev / s), s
