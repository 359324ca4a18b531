"""Numba kernels for a Cholesky factor kept up to date sample by sample.

Rank-one updates by Givens rotations (EOUS, Online-BLS paper §3.4, eq. 15, Remark 1),
forward and backward substitution with the factor (eqs. 11–14), and the accumulation
``P ← μP + a aᵀ`` that Alg. 2 refactorises (line 6).

Storage: the factor of ``K = L Lᵀ`` is kept as the **upper** triangle ``U = Lᵀ`` of a
C-contiguous ``(m, m)`` array, so row ``i`` of ``U`` (= column ``i`` of ``L``) is
contiguous. Only the upper triangle is read or written.

Kernels take C-contiguous float64 arrays and scalars, update preallocated arrays in place
and return a :class:`CholeskyStatus`; callers raise. The plain-NumPy references are in
``tests/reference/cholesky_update.py``.
"""

from __future__ import annotations

import math
from enum import IntEnum

import numpy as np
from numba import njit

__all__ = [
    "TILE",
    "CholeskyStatus",
    "all_finite",
    "chol_update",
    "chol_update_unit",
    "decay_add_outer",
    "decay_add_outer_upper",
    "solve_u",
    "solve_u_rows",
    "solve_ut",
    "solve_ut_rows",
]


class CholeskyStatus(IntEnum):
    """Return codes of the Cholesky kernels (and of the loops built on them)."""

    OK = 0
    NONFINITE = 1  # a non-finite value appeared
    NOT_PD = 2  # a non-positive pivot: the factor is not positive definite


# short names of the members, as the kernels return them
OK = CholeskyStatus.OK
NONFINITE = CholeskyStatus.NONFINITE
NOT_PD = CholeskyStatus.NOT_PD

TILE = 256  # column tile of the blocked multi-right-hand-side substitutions


@njit(cache=True)
def all_finite(x: np.ndarray) -> bool:
    """Whether every entry of ``x`` is finite."""
    for v in x.ravel():
        if not math.isfinite(v):
            return False
    return True


# --------------------------------------------------------------------------------------
# EOUS: rank-one Cholesky update by Givens rotations (§3.4, eq. 15, Remark 1)
#
# Implementation notes: inner loops run over local slices (``Ui = U[i, i+1:]``) indexed
# from 0; numba then proves the indices non-negative and LLVM vectorises the loop
# (indexing ``U[i, j]`` directly keeps a wrap-around branch and stays scalar, ~3x slower).
# The only fastmath flags are ``contract`` (fused multiply-add) in the rotation loops and
# ``reassoc`` in the dot products (vectorised reductions). Both fix the arithmetic at
# compile time, and every learner runs one kernel for its per-sample and its chunked
# path, so the two paths agree bit for bit (tested).
# --------------------------------------------------------------------------------------


@njit(cache=True, fastmath={"contract"})
def _rotate(Ui: np.ndarray, w: np.ndarray, c: float, s: float, beta: float) -> None:
    # (row, top) <- (c·β·row + s·top, c·top - s·β·row)
    n = Ui.shape[0]
    if beta == 1.0:
        for j in range(n):
            u = Ui[j]
            t = w[j]
            Ui[j] = c * u + s * t
            w[j] = c * t - s * u
    else:
        for j in range(n):
            u = beta * Ui[j]
            t = w[j]
            Ui[j] = c * u + s * t
            w[j] = c * t - s * u


@njit(cache=True)
def chol_update(U: np.ndarray, x: np.ndarray, beta: float, work: np.ndarray, v: np.ndarray) -> int:
    """In place ``UᵀU ← β² UᵀU + x xᵀ`` by ``m`` Givens rotations (eq. 15).

    Row ``i`` of ``U`` is scaled by ``β`` as it is rotated (``β = 1``: EOUS of Alg. 1;
    ``β = √μ``: exponential forgetting in the same pass). Rotation ``i`` zeroes entry ``i``
    of the working top row (``work``, a copy of ``x``; ``x`` is not modified) against the
    current diagonal ``u_ii``: ``r = hypot(u_ii, w_i)``, ``c = u_ii/r``, ``s = w_i/r``.
    Two misprints of the paper's ``G_i`` are corrected: it acts on row ``i+1`` of the
    stacked matrix (not ``e_i``), and it uses the running values of ``u_ii`` and ``w_i``
    (not ``l_ii^(k)`` and the original ``a_ki``). Remark 1's guard flips ``c, s`` if the new
    diagonal ``c·u_ii + s·w_i`` is negative; it cannot fire while the diagonal is positive.

    Also writes ``v = U_new⁻ᵀ x`` at no extra pass over ``U``: with ``G`` the product of the
    rotations, ``[0; U_new] = G [xᵀ; βU]`` gives ``U_newᵀ (G e₀)[1:] = x``, and
    ``(G e₀)[i+1] = s_i Π_{j<i} c_j``. So ``‖v‖² = xᵀ K_new⁻¹ x``.
    """
    m = U.shape[0]
    for j in range(m):
        work[j] = x[j]
    t0 = 1.0
    for i in range(m):
        uii = beta * U[i, i]
        xi = work[i]
        r = math.hypot(uii, xi)
        if not math.isfinite(r):
            return NONFINITE
        if r == 0.0:
            return NOT_PD
        c = uii / r
        s = xi / r
        diag = c * uii + s * xi
        if diag < 0.0:  # Remark 1
            c = -c
            s = -s
            diag = -diag
        U[i, i] = diag
        v[i] = s * t0
        t0 = c * t0
        _rotate(U[i, i + 1 :], work[i + 1 :], c, s, beta)
    return OK


@njit(cache=True)
def chol_update_unit(U: np.ndarray, k: int, alpha: float, work: np.ndarray) -> int:
    """In place ``UᵀU ← UᵀU + α² e_k e_kᵀ`` (a diagonal reload).

    The rotations of rows ``i < k`` are the identity (the top row is zero there), so the
    sweep starts at row ``k``: ``3(m-k)²`` flops.
    """
    m = U.shape[0]
    for j in range(m):
        work[j] = 0.0
    work[k] = alpha
    for i in range(k, m):
        uii = U[i, i]
        xi = work[i]
        r = math.hypot(uii, xi)
        if not math.isfinite(r):
            return NONFINITE
        if r == 0.0:
            return NOT_PD
        c = uii / r
        s = xi / r
        diag = c * uii + s * xi
        if diag < 0.0:
            c = -c
            s = -s
            diag = -diag
        U[i, i] = diag
        _rotate(U[i, i + 1 :], work[i + 1 :], c, s, 1.0)
    return OK


# --------------------------------------------------------------------------------------
# Forward / backward substitution with U = Lᵀ (eqs. 11–14; the subscripts of l printed
# in eqs. 13–14 are swapped: as printed they read the zero triangle of L)
# --------------------------------------------------------------------------------------


@njit(cache=True)
def _axpy(y: np.ndarray, alpha: float, x: np.ndarray) -> None:
    # y <- y - alpha * x
    for j in range(y.shape[0]):
        y[j] -= alpha * x[j]


@njit(cache=True, fastmath={"reassoc"})
def _dot(x: np.ndarray, y: np.ndarray) -> float:
    # ``reassoc`` lets LLVM vectorise the reduction (a fixed, compile-time summation
    # order: the same compiled loop serves the per-sample and the chunked paths)
    s = 0.0
    for j in range(x.shape[0]):
        s += x[j] * y[j]
    return s


@njit(cache=True)
def solve_ut(U: np.ndarray, b: np.ndarray) -> int:
    """In place ``b ← U⁻ᵀ b``: forward substitution ``L c = b`` (eq. 13, corrected indices),
    column-oriented so that it reads rows of ``U`` (= columns of ``L``) contiguously."""
    m = U.shape[0]
    for i in range(m):
        d = U[i, i]
        if not d > 0.0:
            return NOT_PD
        bi = b[i] / d
        b[i] = bi
        _axpy(b[i + 1 :], bi, U[i, i + 1 :])
    return OK if all_finite(b) else NONFINITE


@njit(cache=True)
def solve_u(U: np.ndarray, b: np.ndarray) -> int:
    """In place ``b ← U⁻¹ b``: backward substitution ``Lᵀ w = c`` (eq. 14, corrected
    indices), as row dot products (reads rows of ``U`` contiguously)."""
    m = U.shape[0]
    for i in range(m - 1, -1, -1):
        d = U[i, i]
        if not d > 0.0:
            return NOT_PD
        b[i] = (b[i] - _dot(U[i, i + 1 :], b[i + 1 :])) / d
    return OK if all_finite(b) else NONFINITE


# _PAIRS: the multi-right-hand-side substitutions take the rows of XT in pairs, row r
# always in position r % 2 of the pair kernel; an odd last row is paired with a scratch
# partner rather than sent through a one-row kernel. A separately compiled one-row kernel
# may be vectorised differently (a different summation order under "reassoc", different
# FMA contraction): on an AVX-512 machine it rounded row c - 1 differently from the pair
# kernel, so the solution's column j depended on how many classes there were (a learner
# grown by add_class() drifted from one given every class by 1 ulp). With one kernel per
# position, row r's arithmetic does not depend on c, by construction, on every CPU.


@njit(cache=True, fastmath={"contract"})
def _axpy8x2(
    y0: np.ndarray, y1: np.ndarray, U: np.ndarray, i: int, j0: int, x: np.ndarray, z: np.ndarray
) -> None:
    # y0[j] -= Σ_b x[b] U[i+b, j0+j] and y1[j] -= Σ_b z[b] U[i+b, j0+j], b = 0..7: eight
    # rows of U at once (y read and written once per block of eight rows instead of eight
    # times), two right-hand sides per pass (each U element loaded once for both)
    n = y0.shape[0]
    u0 = U[i, j0:]
    u1 = U[i + 1, j0:]
    u2 = U[i + 2, j0:]
    u3 = U[i + 3, j0:]
    u4 = U[i + 4, j0:]
    u5 = U[i + 5, j0:]
    u6 = U[i + 6, j0:]
    u7 = U[i + 7, j0:]
    x0, x1, x2, x3 = x[0], x[1], x[2], x[3]
    x4, x5, x6, x7 = x[4], x[5], x[6], x[7]
    z0, z1, z2, z3 = z[0], z[1], z[2], z[3]
    z4, z5, z6, z7 = z[4], z[5], z[6], z[7]
    for j in range(n):
        a0, a1, a2, a3 = u0[j], u1[j], u2[j], u3[j]
        a4, a5, a6, a7 = u4[j], u5[j], u6[j], u7[j]
        y0[j] -= ((x0 * a0 + x1 * a1) + (x2 * a2 + x3 * a3)) + (
            (x4 * a4 + x5 * a5) + (x6 * a6 + x7 * a7)
        )
        y1[j] -= ((z0 * a0 + z1 * a1) + (z2 * a2 + z3 * a3)) + (
            (z4 * a4 + z5 * a5) + (z6 * a6 + z7 * a7)
        )


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot8x2(
    U: np.ndarray, i: int, j0: int, x: np.ndarray, y: np.ndarray, out: np.ndarray, outy: np.ndarray
) -> None:
    # out[b] += Σ_j U[i+b, j0+j] x[j] and outy[b] += Σ_j U[i+b, j0+j] y[j], b = 0..7 (x, y
    # read once for eight dot products each; U loaded once for both)
    n = x.shape[0]
    u0 = U[i, j0:]
    u1 = U[i + 1, j0:]
    u2 = U[i + 2, j0:]
    u3 = U[i + 3, j0:]
    u4 = U[i + 4, j0:]
    u5 = U[i + 5, j0:]
    u6 = U[i + 6, j0:]
    u7 = U[i + 7, j0:]
    s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
    t0 = t1 = t2 = t3 = t4 = t5 = t6 = t7 = 0.0
    for j in range(n):
        xj = x[j]
        yj = y[j]
        a0, a1, a2, a3 = u0[j], u1[j], u2[j], u3[j]
        a4, a5, a6, a7 = u4[j], u5[j], u6[j], u7[j]
        s0 += a0 * xj
        s1 += a1 * xj
        s2 += a2 * xj
        s3 += a3 * xj
        s4 += a4 * xj
        s5 += a5 * xj
        s6 += a6 * xj
        s7 += a7 * xj
        t0 += a0 * yj
        t1 += a1 * yj
        t2 += a2 * yj
        t3 += a3 * yj
        t4 += a4 * yj
        t5 += a5 * yj
        t6 += a6 * yj
        t7 += a7 * yj
    out[0] += s0
    out[1] += s1
    out[2] += s2
    out[3] += s3
    out[4] += s4
    out[5] += s5
    out[6] += s6
    out[7] += s7
    outy[0] += t0
    outy[1] += t1
    outy[2] += t2
    outy[3] += t3
    outy[4] += t4
    outy[5] += t5
    outy[6] += t6
    outy[7] += t7


@njit(cache=True)
def solve_ut_rows(U: np.ndarray, XT: np.ndarray) -> int:
    """In place ``Xᵀ ← (U⁻ᵀ X)ᵀ`` for ``c`` right-hand sides stored as the rows of ``XT``
    (``(c, m)``): eq. 13 (forward substitution), blocked by eight rows of ``U``: the
    ``8×8`` diagonal block is solved entry by entry, then the rest of each right-hand side
    is updated by the eight solved entries in one pass (same arithmetic as eq. 13, a
    different but fixed summation order)."""
    m = U.shape[0]
    c = XT.shape[0]
    xb = np.empty((c, 8))
    spare = np.zeros(m)  # the partner of an odd last right-hand side (_PAIRS)
    for i in range(m):
        if not U[i, i] > 0.0:
            return NOT_PD
    i = 0
    while i < m:
        nb = min(8, m - i)
        for r in range(c):
            row = XT[r]
            for b in range(nb):
                ii = i + b
                xi = row[ii] / U[ii, ii]
                row[ii] = xi
                for b2 in range(b + 1, nb):
                    row[i + b2] -= xi * U[ii, i + b2]
        if nb == 8:
            # tiles of TILE columns: the 8×TILE block of U stays in L1 for all c rows
            # (two right-hand sides per pass share the loads of U)
            for r in range(c):
                for b in range(8):
                    xb[r, b] = XT[r, i + b]
            for j0 in range(i + 8, m, TILE):
                j1 = min(j0 + TILE, m)
                for r in range(0, c - 1, 2):
                    _axpy8x2(XT[r, j0:j1], XT[r + 1, j0:j1], U, i, j0, xb[r], xb[r + 1])
                if c % 2:  # see _PAIRS
                    _axpy8x2(XT[c - 1, j0:j1], spare[j0:j1], U, i, j0, xb[c - 1], xb[c - 1])
        i += nb
    return OK if all_finite(XT) else NONFINITE


@njit(cache=True)
def solve_u_rows(U: np.ndarray, XT: np.ndarray) -> int:
    """In place ``Xᵀ ← (U⁻¹ X)ᵀ`` for ``c`` right-hand sides stored as the rows of ``XT``:
    eq. 14 (backward substitution), blocked by eight rows of ``U`` from the bottom: eight
    row dot products with the solved part share one read of the right-hand side, then the
    ``8×8`` diagonal block is solved entry by entry."""
    m = U.shape[0]
    c = XT.shape[0]
    acc = np.empty((c, 8))
    spare = np.zeros(8)  # the partner of an odd last right-hand side (_PAIRS)
    for i in range(m):
        if not U[i, i] > 0.0:
            return NOT_PD
    rem = m % 8
    i1 = m  # rows i1.. are solved
    while i1 > 0:
        nb = 8 if i1 > rem else rem
        i0 = i1 - nb
        for r in range(c):
            for b in range(8):
                acc[r, b] = 0.0
        if nb == 8:
            for j0 in range(i1, m, TILE):
                j1 = min(j0 + TILE, m)
                for r in range(0, c - 1, 2):
                    _dot8x2(U, i0, j0, XT[r, j0:j1], XT[r + 1, j0:j1], acc[r], acc[r + 1])
                if c % 2:  # see _PAIRS
                    x = XT[c - 1, j0:j1]
                    _dot8x2(U, i0, j0, x, x, acc[c - 1], spare)
        else:
            for r in range(c):
                for b in range(nb):
                    acc[r, b] = _dot(U[i0 + b, i1:], XT[r, i1:])
        for r in range(c):
            row = XT[r]
            for b in range(nb - 1, -1, -1):
                ii = i0 + b
                s = row[ii] - acc[r, b]
                for b2 in range(b + 1, nb):
                    s -= U[ii, i0 + b2] * row[i0 + b2]
                row[ii] = s / U[ii, ii]
        i1 = i0
    return OK if all_finite(XT) else NONFINITE


@njit(cache=True)
def decay_add_outer(P: np.ndarray, a: np.ndarray, mu: float) -> None:
    """In place ``P ← μ P + a aᵀ`` on the full square matrix (Alg. 2 line 6)."""
    m = P.shape[0]
    for i in range(m):
        ai = a[i]
        Pi = P[i]
        if mu == 1.0:
            for j in range(m):
                Pi[j] += ai * a[j]
        else:
            for j in range(m):
                Pi[j] = mu * Pi[j] + ai * a[j]


@njit(cache=True)
def decay_add_outer_upper(P: np.ndarray, a: np.ndarray, mu: float) -> None:
    """In place ``P ← μ P + a aᵀ`` on the upper triangle only (Alg. 2 line 6; the lower
    triangle is neither read nor written)."""
    m = P.shape[0]
    for i in range(m):
        ai = a[i]
        Pi = P[i]
        for j in range(i, m):
            Pi[j] = mu * Pi[j] + ai * a[j]
