"""The fast-ONS chunk kernel as it was before issue 25 item 4 (commit ab814e6), kept
verbatim (renamed) as the reference of the bit-for-bit equivalence test
(tests/kernels/test_fast_ons_trimmed.py) and of the before/after A/B of
``benchmarks/bench_fast_ons.py --before`` in one process. Not used by streamlearn.

It updates the lag products inside the dot-product pass, shifts the delay line, copies the
first post-array column to a work row, and checks and stores the scalars on every step.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from streamlearn.kernels.online_newton_step import SeriesStatus

_ETA_FLOOR = 1.0 - 1e-8
_RESID_REL = 1e-8
_REDUCE = {"reassoc"}


@njit(cache=True)
def _shift_in(xt: np.ndarray, x_new: float) -> None:
    for j in range(xt.shape[0] - 1, 0, -1):
        xt[j] = xt[j - 1]
    xt[0] = x_new


@njit(cache=True, fastmath=_REDUCE)
def _lag_dot3(xt: np.ndarray, x_new: float, lag: np.ndarray, w: np.ndarray, a: np.ndarray,
              b: np.ndarray, M: int) -> tuple[float, float, float]:
    """Fast ONS's one pass over the delay line ``xt`` (``M + 1`` entries): the lag products
    ``lag[d] += x_new xt[d]`` (no reduction, so exact) and the dot products ``w^T x_t``
    (first ``M`` entries), ``xt^T a`` and ``xt^T b`` (all ``M + 1``)."""
    sw = 0.0
    sa = 0.0
    sb = 0.0
    for j in range(M):
        v = xt[j]
        lag[j] += x_new * v
        sw += w[j] * v
        sa += v * a[j]
        sb += v * b[j]
    v = xt[M]
    lag[M] += x_new * v
    return sw, sa + v * a[M], sb + v * b[M]


@njit(cache=True)
def fast_ons_finish_before(w: np.ndarray, rho: np.ndarray, xt: np.ndarray, u: np.ndarray,
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


@njit(cache=True)
def fast_ons_chunk_before(xin: np.ndarray, yin: np.ndarray, w: np.ndarray, xt: np.ndarray,
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
    :func:`fast_ons_rebuild` recovers the exact state after a breakdown."""
    n = xin.shape[0]
    col = np.zeros(M + 1)  # work row: [0; rho_{t-1}]
    for i in range(n):
        x_new = xin[i]
        _shift_in(xt, x_new)
        yhat, a, b = _lag_dot3(xt, x_new, lag, w, L0, L1, M)
        if offset:
            yhat += sc[3]
        out[i] = yhat
        e = yin[i] - yhat
        s = sc[0]
        r = math.hypot(s, a)
        cg = s / r
        sg = a / r
        f0 = cg * s + sg * a
        h = b / r
        omh = 1.0 - h * h
        if omh <= tau:
            return SeriesStatus.BREAKDOWN, i
        if omh < sc[1]:
            sc[1] = omh
        g = 1.0 / math.sqrt(omh)
        s_new = g * (f0 - h * b)
        # pre-array first column [0; rho_{t-1}] copied to a work row, so that the row
        # updates below do not depend on each other (the loop vectorises); the last row
        # (j = M) gives the residual, exactly 0 in exact arithmetic
        for j in range(M):
            col[j + 1] = rho[j]
        for j in range(M):
            p0 = col[j]
            p1 = L0[j]
            p2 = L1[j]
            q0 = cg * p0 + sg * p1
            L0[j] = -sg * p0 + cg * p1
            rho[j] = g * (q0 - h * p2)
            L1[j] = g * (p2 - h * q0)
        p0 = col[M]
        p1 = L0[M]
        p2 = L1[M]
        q0 = cg * p0 + sg * p1
        L0[M] = -sg * p0 + cg * p1
        resid = g * (q0 - h * p2)
        L1[M] = g * (p2 - h * q0)
        # the residual is judged against sqrt(eta_t) (>= 1) and the entries it is computed
        # from: against ||rho_t||, a window of exact zeros (silence in speech: rho_t = 0)
        # flagged its rounding-level residual
        if s_new * s_new < _ETA_FLOOR or abs(resid) > _RESID_REL * (
                s_new + abs(p0) + abs(p1) + abs(p2)):
            return SeriesStatus.BREAKDOWN, i
        sc[0] = s_new
        fast_ons_finish_before(w, rho, xt, u, ssum, sc, M, offset, alpha, inv_mu, eps, e)
    return SeriesStatus.OK, n
