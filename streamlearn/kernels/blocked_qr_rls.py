"""Blocked QR-RLS kernels: ridge weights with one factor update per block of samples.

The learner (:class:`~streamlearn.algorithms.bls.online_bls_blocked.OnlineBLSBlocked`) keeps
the state of ``online_bls_fast`` — an upper factor ``U`` of ``K₀ = λI + Σ a aᵀ`` and
``Z = U⁻ᵀS₀``, ``S₀ = Σ a yᵀ``, over the samples *before* the current block — and folds the
block's rows into ``U`` and ``Z`` once the block is full, by one blocked Householder QR of
``[U Z; B Y]`` (LAPACK ``dtpqrt``/``dtpmqrt``, called by the learner). Inside the block each
sample is still predicted with the ridge weights of *all* earlier samples: with
``q = U⁻ᵀa`` (:func:`solve_ut_cols`) the Woodbury identity in the block's own ``j``-dimensional
space gives (:func:`block_steps`)

    ŷ_j = a_jᵀ (K₀ + B_Pᵀ B_P)⁻¹ (S₀ + B_Pᵀ Y_P)  =  h_j + l_jᵀ E_P,

with ``P`` the block's samples before ``j``, ``h_j = Zᵀq_j``, ``G = QᵀQ`` (``Q`` the block's
``q`` as columns), ``L Lᵀ = I + G_PP`` (grown by one row per sample), ``l_j = L⁻¹ G_Pj`` (the
new row of ``L``, whose diagonal is ``d_j = √(1 + G_jj − ‖l_j‖²)``) and the rows
``E_j = (y_j − ŷ_j)ᵀ / d_j`` (``E_P = L⁻¹(Y_P − H_P)``, each row fixed once written). In exact
arithmetic this is the prediction of :func:`~streamlearn.kernels.online_bls_loops.sqrt_run`
(Online-BLS, Alg. 1 line 5 with the weights of eqs. 5–6 of the prefix).

Every element's arithmetic is independent of how many samples one call takes (``p``): the
per-sample path (``p = 1``) and a chunk give bit-identical predictions by construction.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from streamlearn.kernels.broad_features import argmax_first
from streamlearn.kernels.cholesky_update import CholeskyStatus, all_finite

__all__ = ["SOLVE_TILE", "block_steps", "positive_diagonal", "solve_ut_cols"]

OK = CholeskyStatus.OK
NOT_PD = CholeskyStatus.NOT_PD
NONFINITE = CholeskyStatus.NONFINITE

#: rows of ``Qᵀ`` per tile of :func:`solve_ut_cols`: 32 rows of a 128-sample block (32 KiB)
#: stay in a core's L1 while the finished rows above sweep over them — 1.4–1.6× faster
#: than 128 rows at m = 1100 and 3100, 1.08× at m = 350 (Intel Xeon, AVX-512; the scratch
#: measurement is in the README, section "Timing"). The order of every element's
#: operations does not depend on it (tested).
SOLVE_TILE = 32


@njit(cache=True, fastmath={"contract"})
def _rank4_update(C: np.ndarray, S: np.ndarray, D: np.ndarray, i: int, j0: int, j1: int,
                  c0: int, c1: int, sign: float) -> None:
    # D[j, c0:c1] += (sign·C[i + r, j]) · S[i + r, c0:c1] for r = 0, 1, 2, 3 in this order,
    # rows j0 <= j < j1 (sign = ±1: the products are exact negations); four rows j at a
    # time share the loads of the four source rows (a 4 × 4 register block, vectorised
    # over the columns c0:c1)
    p = c1 - c0
    if p == 1:  # one column (the per-sample path): the same operations, without views
        x0, x1, x2, x3 = S[i, c0], S[i + 1, c0], S[i + 2, c0], S[i + 3, c0]
        for j in range(j0, j1):
            v = D[j, c0]
            v += (sign * C[i, j]) * x0
            v += (sign * C[i + 1, j]) * x1
            v += (sign * C[i + 2, j]) * x2
            v += (sign * C[i + 3, j]) * x3
            D[j, c0] = v
        return
    q0 = S[i, c0:c1]
    q1 = S[i + 1, c0:c1]
    q2 = S[i + 2, c0:c1]
    q3 = S[i + 3, c0:c1]
    j = j0
    while j + 4 <= j1:
        a0, a1 = sign * C[i, j], sign * C[i + 1, j]
        a2, a3 = sign * C[i + 2, j], sign * C[i + 3, j]
        b0, b1 = sign * C[i, j + 1], sign * C[i + 1, j + 1]
        b2, b3 = sign * C[i + 2, j + 1], sign * C[i + 3, j + 1]
        e0, e1 = sign * C[i, j + 2], sign * C[i + 1, j + 2]
        e2, e3 = sign * C[i + 2, j + 2], sign * C[i + 3, j + 2]
        d0, d1 = sign * C[i, j + 3], sign * C[i + 1, j + 3]
        d2, d3 = sign * C[i + 2, j + 3], sign * C[i + 3, j + 3]
        r0 = D[j, c0:c1]
        r1 = D[j + 1, c0:c1]
        r2 = D[j + 2, c0:c1]
        r3 = D[j + 3, c0:c1]
        for t in range(p):
            x0 = q0[t]
            x1 = q1[t]
            x2 = q2[t]
            x3 = q3[t]
            v = r0[t]
            v += a0 * x0
            v += a1 * x1
            v += a2 * x2
            v += a3 * x3
            r0[t] = v
            v = r1[t]
            v += b0 * x0
            v += b1 * x1
            v += b2 * x2
            v += b3 * x3
            r1[t] = v
            v = r2[t]
            v += e0 * x0
            v += e1 * x1
            v += e2 * x2
            v += e3 * x3
            r2[t] = v
            v = r3[t]
            v += d0 * x0
            v += d1 * x1
            v += d2 * x2
            v += d3 * x3
            r3[t] = v
        j += 4
    while j < j1:
        _rank1_update(C, S, D, i, j, j + 1, c0, c1, sign)
        _rank1_update(C, S, D, i + 1, j, j + 1, c0, c1, sign)
        _rank1_update(C, S, D, i + 2, j, j + 1, c0, c1, sign)
        _rank1_update(C, S, D, i + 3, j, j + 1, c0, c1, sign)
        j += 1


@njit(cache=True, fastmath={"contract"})
def _rank1_update(C: np.ndarray, S: np.ndarray, D: np.ndarray, i: int, j0: int, j1: int,
                  c0: int, c1: int, sign: float) -> None:
    # D[j, c0:c1] += (sign·C[i, j]) · S[i, c0:c1], rows j0 <= j < j1
    p = c1 - c0
    if p == 1:
        x0 = S[i, c0]
        for j in range(j0, j1):
            v = D[j, c0]
            v += (sign * C[i, j]) * x0
            D[j, c0] = v
        return
    q0 = S[i, c0:c1]
    for j in range(j0, j1):
        a0 = sign * C[i, j]
        r0 = D[j, c0:c1]
        for t in range(p):
            v = r0[t]
            v += a0 * q0[t]
            r0[t] = v


@njit(cache=True, fastmath={"contract"})
def solve_ut_cols(U: np.ndarray, A: np.ndarray, k0: int, p: int, QT: np.ndarray,
                  c0: int) -> int:
    """``QT[:, c0 + s] = U⁻ᵀ A[k0 + s]`` for ``s < p`` (forward substitution with ``Uᵀ``).

    ``U`` upper ``(m, m)`` (the diagonal must be positive), ``A`` ``(n, m)``, ``QT``
    ``(m, b)``. Element ``(j, s)`` is ``(a_j − Σ_{i<j} U[i, j] q_i) / U[j, j]`` with the
    subtractions in ascending ``i``, whatever ``p``: one column alone and the same column
    among ``p`` give the same bits. Tiles of :data:`SOLVE_TILE` rows of ``QT`` take the
    finished rows above them four at a time (a rank-4 update in a 4 × 4 register block,
    vectorised over the ``p`` columns), then their own triangle, four rows at a time.
    Returns a :class:`CholeskyStatus`.
    """
    m = U.shape[0]
    c1 = c0 + p
    for j in range(m):
        row = QT[j, c0:c1]
        for t in range(p):
            row[t] = A[k0 + t, j]
    for j0 in range(0, m, SOLVE_TILE):  # SOLVE_TILE is a multiple of 4
        j1 = min(j0 + SOLVE_TILE, m)
        for i in range(0, j0, 4):
            _rank4_update(U, QT, QT, i, j0, j1, c0, c1, -1.0)
        for i0 in range(j0, j1, 4):
            i1 = min(i0 + 4, j1)
            for i in range(i0, i1):  # the 4 × 4 triangle, row by row
                uii = U[i, i]
                if not uii > 0.0:
                    return NOT_PD
                qi = QT[i, c0:c1]
                for t in range(p):
                    qi[t] = qi[t] / uii
                _rank1_update(U, QT, QT, i, i + 1, i1, c0, c1, -1.0)
            if i1 - i0 == 4:
                _rank4_update(U, QT, QT, i0, i1, j1, c0, c1, -1.0)
    for j in range(m):
        row = QT[j, c0:c1]
        for t in range(p):
            if not math.isfinite(row[t]):
                return NONFINITE
    return OK


@njit(cache=True, fastmath={"contract"})
def block_steps(QT: np.ndarray, c0: int, p: int, Z: np.ndarray, LT: np.ndarray,
                E: np.ndarray, y: np.ndarray, pred: np.ndarray, g: np.ndarray,
                G: np.ndarray, H: np.ndarray, yh: np.ndarray, Y: np.ndarray, w: np.ndarray,
                learn: bool) -> int:
    """Predict (and, with ``learn``, record) the block's samples ``c0 … c0+p−1`` in order.

    ``QT[:, j]`` holds ``q_j = U⁻ᵀa_j`` (:func:`solve_ut_cols`), ``Z`` ``(m, c)`` is
    ``U⁻ᵀS₀``, ``LT`` ``(b, b)`` holds ``Lᵀ`` of ``I + G`` over the block's earlier samples,
    ``E`` ``(b, c)`` their rows ``(y_i − ŷ_i)ᵀ/d_i``, ``Y`` ``(b, c)`` the one-hot labels.
    Sample ``j``: ``g_i = q_iᵀq_j`` (``i ≤ j``), ``h = Zᵀq_j``, ``l = L⁻¹g_P`` (forward
    substitution), ``ŷ = h + lᵀE_P``, ``pred[j − c0]`` its first argmax; with ``learn``
    then ``LT[:j, j] = l``, ``LT[j, j] = d = √max(1, 1 + g_j − ‖l‖²)`` (``d ≥ 1`` in exact
    arithmetic; the clamp only removes rounding below it), ``E_j = (e_y − ŷ)/d``, ``Y_j =
    e_y``. ``yh`` ``(c,)`` keeps the last sample's scores; ``g`` ``(b,)``, ``G`` ``(b, b)``
    and ``H`` ``(c, b)`` (``G``'s columns and ``h`` of the call's samples, computed first for
    all of them, each element summed in ascending ``k`` whatever ``p``) are scratch.
    Without ``learn`` only ``p = 1`` is meaningful (nothing is recorded).

    Weighted rows (``w`` ``(b,)``; all ones: the plain ridge problem): sample ``i`` enters
    the block as ``w_i a_i`` with target ``w_i e_{y_i}`` (the forgetting of Alg. 2 between
    refreshes, ``online_bls_ada_blocked``), while each prediction is still ``a_jᵀW``. ``QT``
    keeps the unweighted ``q``; so ``g_i = w_i q_iᵀq_j`` for ``i < j``, and the record is
    ``LT[:j, j] = w_j l``, ``d² = 1 + w_j²(q_jᵀq_j − ‖l‖²)``, ``E_j = w_j(e_y − ŷ)/d``.
    Multiplying by ``w = 1`` is exact: the unweighted results are those of the formulas
    above, bit for bit.
    """
    m, c = Z.shape
    c1 = c0 + p
    for cc in range(c):
        h = H[cc, c0:c1]
        for t in range(p):
            h[t] = 0.0
        for k in range(m):
            x = Z[k, cc]
            qk = QT[k, c0:c1]
            for t in range(p):
                h[t] += x * qk[t]
    for i in range(c1):  # G[i, j] = q_iᵀq_j for the call's j, summed in ascending k
        gi = G[i, c0:c1]
        for t in range(p):
            gi[t] = 0.0
    k = 0
    while k + 4 <= m:
        _rank4_update(QT, QT, G, k, 0, c1, c0, c1, 1.0)
        k += 4
    while k < m:
        _rank1_update(QT, QT, G, k, 0, c1, c0, c1, 1.0)
        k += 1
    for t in range(p):
        j = c0 + t
        for i in range(j):
            g[i] = w[i] * G[i, j]
        g[j] = G[j, j]
        for cc in range(c):
            yh[cc] = H[cc, j]
        # l = L⁻¹ g[:j] in place (LT row t is column t of L)
        for r in range(j):
            lr = g[r] / LT[r, r]
            g[r] = lr
            for i in range(r + 1, j):
                g[i] -= LT[r, i] * lr
        ss = 0.0
        for r in range(j):
            ss += g[r] * g[r]
        for r in range(j):
            lr = g[r]
            for cc in range(c):
                yh[cc] += lr * E[r, cc]
        if not all_finite(yh):
            return NONFINITE
        pred[t] = argmax_first(yh)
        if learn:
            wj = w[j]
            d2 = 1.0 + (wj * wj) * (g[j] - ss)
            d = math.sqrt(d2) if d2 > 1.0 else 1.0
            if not math.isfinite(d):
                return NONFINITE
            for r in range(j):
                LT[r, j] = wj * g[r]
            LT[j, j] = d
            label = y[t]
            for cc in range(c):
                e = 1.0 if cc == label else 0.0
                Y[j, cc] = e
                E[j, cc] = (wj * (e - yh[cc])) / d
    return OK


@njit(cache=True)
def positive_diagonal(U: np.ndarray, Z: np.ndarray) -> None:
    """Negate the rows of the upper ``U`` (Fortran order) and of ``Z`` whose diagonal entry
    of ``U`` is negative (Householder QR leaves ``R_ii = −sign·‖·‖``): ``UᵀU`` and ``UᵀZ``
    are unchanged, and ``U`` is again the Cholesky factor. Column by column (contiguous)."""
    m, c = Z.shape
    neg = np.empty(m, dtype=np.bool_)
    for i in range(m):
        neg[i] = U[i, i] < 0.0
    for j in range(m):
        for i in range(j + 1):
            if neg[i]:
                U[i, j] = -U[i, j]
    for cc in range(c):
        for i in range(m):
            if neg[i]:
                Z[i, cc] = -Z[i, cc]
