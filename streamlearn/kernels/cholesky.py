"""Numba kernels of the Online-BLS family: broad features, Cholesky updates, substitutions.

Reference: C. Lei, G.-Z. Chen, C. L. P. Chen, T. Zhang, *Online-BLS: An Accurate and
Efficient Online Broad Learning System for Data Stream Classification* (spec
``../shared/papers/online_bls.md``). Equation numbers below are the paper's.

Storage convention (spec §4.3): the Cholesky factor of ``K = L Lᵀ`` is kept as the
**upper** triangle ``U = Lᵀ`` of a C-contiguous ``(m, m)`` array, so row ``i`` of ``U``
(= column ``i`` of ``L``) is contiguous. Only the upper triangle is read or written.

Every kernel takes C-contiguous float64/int64 arrays and scalars, updates preallocated
arrays in place and returns an int status: ``0`` ok, ``1`` a non-finite value appeared,
``2`` a non-positive pivot (the factor is not positive definite). Callers raise.
The plain-NumPy references are in ``tests/reference/cholesky.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

OK = 0
NONFINITE = 1
NOT_PD = 2

TILE = 256  # column tile of the blocked multi-right-hand-side substitutions


@njit(cache=True)
def _finite(x: np.ndarray) -> bool:
    for v in x.ravel():
        if not math.isfinite(v):
            return False
    return True


# --------------------------------------------------------------------------------------
# Broad feature mapping (spec §2, eqs. 1, 28 and 3) and prediction
# --------------------------------------------------------------------------------------


@njit(cache=True)
def _add_scaled(y: np.ndarray, alpha: float, x: np.ndarray) -> None:
    # y <- y + alpha * x
    for j in range(y.shape[0]):
        y[j] += alpha * x[j]


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
    for i in range(d):
        _add_scaled(z, x[i], Wf[i])
    h[:] = be
    for k in range(z.shape[0]):
        _add_scaled(h, z[k], We[k])


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
    enhancement groups of eq. 28 side by side); ``φ`` is the identity and ``σ = tanh``
    (spec §2.3). ``row_zscore`` standardises each row by its own mean and SD first
    (spec §2.4 switch; a zero SD leaves the row centred). Rows are processed
    independently with a fixed summation order, so row ``i`` does not depend on the
    other rows of ``X``.
    """
    n, d = X.shape
    p = Wf.shape[1]
    q = We.shape[1]
    x = np.empty(d)
    z = np.empty(p)
    h = np.empty(q)
    status = OK
    for r in range(n):
        _preactivations(X[r], Wf, bf, We, be, row_zscore, x, z, h)
        row = out[r]
        for j in range(p):
            row[j] = z[j]
        for j in range(q):
            row[p + j] = math.tanh(scale * h[j])
        if not _finite(row):
            status = NONFINITE
    return status


@njit(cache=True)
def enhancement_absmax(
    X: np.ndarray, Wf: np.ndarray, bf: np.ndarray, We: np.ndarray, be: np.ndarray, row_zscore: int
) -> float:
    """``max |z We + be|`` over the rows of ``X``: the unscaled enhancement pre-activations.

    This is the quantity the reference BLS code's shrinkage divides by (spec §2.4).
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
    """Index of the largest entry, ties to the smallest index (spec §0)."""
    best = 0
    for j in range(1, v.shape[0]):
        if v[j] > v[best]:
            best = j
    return best


# --------------------------------------------------------------------------------------
# EOUS: rank-one Cholesky update by Givens rotations (spec §4, eq. 15, Remark 1)
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
    """In place ``UᵀU ← β² UᵀU + x xᵀ`` by ``m`` Givens rotations (eq. 15, spec §4.3).

    Row ``i`` of ``U`` is scaled by ``β`` as it is rotated (``β = 1``: EOUS of Alg. 1;
    ``β = √μ``: exponential forgetting in the same pass). Rotation ``i`` zeroes entry ``i``
    of the working top row (``work``, a copy of ``x``; ``x`` is not modified) against the
    current diagonal ``u_ii``: ``r = hypot(u_ii, w_i)``, ``c = u_ii/r``, ``s = w_i/r``, with
    the [T] corrections of spec §4.2 (row ``i+1`` of the stacked matrix; running values of
    ``u_ii`` and ``w_i``) and the Remark 1 guard (flip ``c, s`` if the new diagonal
    ``c·u_ii + s·w_i`` is negative; it cannot fire while the diagonal is positive).

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
# Forward / backward substitution with U = Lᵀ (eqs. 11–14 with the [T] index fix)
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
    return OK if _finite(b) else NONFINITE


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
    return OK if _finite(b) else NONFINITE


@njit(cache=True, fastmath={"contract"})
def _axpy8(y: np.ndarray, U: np.ndarray, i: int, j0: int, x: np.ndarray) -> None:
    # y[j] -= Σ_b x[b] U[i+b, j0+j], b = 0..7 (eight rows of U at once: y is read and
    # written once per block of eight rows instead of eight times)
    n = y.shape[0]
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
    for j in range(n):
        y[j] -= ((x0 * u0[j] + x1 * u1[j]) + (x2 * u2[j] + x3 * u3[j])) + (
            (x4 * u4[j] + x5 * u5[j]) + (x6 * u6[j] + x7 * u7[j])
        )


@njit(cache=True, fastmath={"reassoc", "contract"})
def _dot8(U: np.ndarray, i: int, j0: int, x: np.ndarray, out: np.ndarray) -> None:
    # out[b] += Σ_j U[i+b, j0+j] x[j], b = 0..7 (x read once for eight dot products)
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
    for j in range(n):
        xj = x[j]
        s0 += u0[j] * xj
        s1 += u1[j] * xj
        s2 += u2[j] * xj
        s3 += u3[j] * xj
        s4 += u4[j] * xj
        s5 += u5[j] * xj
        s6 += u6[j] * xj
        s7 += u7[j] * xj
    out[0] += s0
    out[1] += s1
    out[2] += s2
    out[3] += s3
    out[4] += s4
    out[5] += s5
    out[6] += s6
    out[7] += s7


@njit(cache=True, fastmath={"contract"})
def _axpy8x2(
    y0: np.ndarray, y1: np.ndarray, U: np.ndarray, i: int, j0: int, x: np.ndarray, z: np.ndarray
) -> None:
    # _axpy8 for two right-hand sides at once (each U element loaded once for both)
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
    # _dot8 for two right-hand sides at once
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
                if c % 2:
                    _axpy8(XT[c - 1, j0:j1], U, i, j0, xb[c - 1])
        i += nb
    return OK if _finite(XT) else NONFINITE


@njit(cache=True)
def solve_u_rows(U: np.ndarray, XT: np.ndarray) -> int:
    """In place ``Xᵀ ← (U⁻¹ X)ᵀ`` for ``c`` right-hand sides stored as the rows of ``XT``:
    eq. 14 (backward substitution), blocked by eight rows of ``U`` from the bottom: eight
    row dot products with the solved part share one read of the right-hand side, then the
    ``8×8`` diagonal block is solved entry by entry."""
    m = U.shape[0]
    c = XT.shape[0]
    acc = np.empty((c, 8))
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
                if c % 2:
                    _dot8(U, i0, j0, XT[c - 1, j0:j1], acc[c - 1])
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
    return OK if _finite(XT) else NONFINITE


# --------------------------------------------------------------------------------------
# Chunked strict test-then-train loops (spec §1): predict with W^(k-1), then update
# --------------------------------------------------------------------------------------


@njit(cache=True)
def _residual(a: np.ndarray, W: np.ndarray, label: int, yh: np.ndarray) -> int:
    # yh <- y - Wᵀa (one-hot y = e_label, spec §1); returns the predicted class of Wᵀa
    scores(a, W, yh)
    pred = argmax_first(yh)
    for j in range(yh.shape[0]):
        yh[j] = (1.0 if j == label else 0.0) - yh[j]
    return pred


@njit(cache=True)
def obls_run(
    U: np.ndarray,
    W: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    pred: np.ndarray,
    work: np.ndarray,
    v: np.ndarray,
    r: np.ndarray,
    XT: np.ndarray,
) -> int:
    """Algorithm 1 (Online-BLS: EWEA + EOUS) over the rows of ``A``, in place on ``U, W``.

    Per sample: ``ŷ = Wᵀa`` and its class into ``pred`` (line 5); ``U ← EOUS(U, a)``
    (line 6, eq. 15); ``B = a rᵀ``, ``r = y - ŷ`` (eq. 9); ``Lᵀ⁻¹``/``L⁻¹`` substitutions with
    the ``c`` columns of ``B`` (line 7, eqs. 13–14); ``W += ΔW`` (eq. 10).
    Scratch: ``work, v`` ``(m,)``, ``r`` ``(c,)``, ``XT`` ``(c, m)``. Returns a status; on
    failure the state is left as it was after the last good sample's factor update.
    """
    m, c = W.shape
    for k in range(A.shape[0]):
        a = A[k]
        pred[k] = _residual(a, W, y[k], r)
        status = chol_update(U, a, 1.0, work, v)
        if status != OK:
            return status
        for j in range(c):
            rj = r[j]
            for i in range(m):
                XT[j, i] = a[i] * rj
        status = solve_ut_rows(U, XT)
        if status != OK:
            return status
        status = solve_u_rows(U, XT)
        if status != OK:
            return status
        for i in range(m):
            for j in range(c):
                W[i, j] += XT[j, i]
    return OK


@njit(cache=True)
def gain_run(
    U: np.ndarray,
    W: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    pred: np.ndarray,
    beta: float,
    alpha: float,
    state: np.ndarray,
    work: np.ndarray,
    v: np.ndarray,
    r: np.ndarray,
) -> int:
    """Gain-vector form of the EWEA step over the rows of ``A``, in place on ``U, W``.

    Per sample: ``ŷ = Wᵀa`` (predicted class into ``pred``), ``r = y - ŷ``; optionally a
    diagonal reload ``UᵀU += (α/β)² e_j e_jᵀ`` with ``j = state[0]`` cycling over
    ``0..m-1`` (``α = 0``: none); ``UᵀU ← β² UᵀU + a aᵀ`` (EOUS with forgetting ``β²``;
    ``β = 1``: Alg. 1), which also gives ``v = U⁻ᵀ a``; ``g = U⁻¹ v = K⁻¹ a`` (eq. 14);
    ``W += g rᵀ``. Since ``B = a rᵀ`` has rank one, ``ΔW = K⁻¹ B = g rᵀ`` is eq. 9's
    solution: ``2m²`` substitution flops instead of ``2m²c`` (spec §3.4).
    """
    m, c = W.shape
    for k in range(A.shape[0]):
        a = A[k]
        pred[k] = _residual(a, W, y[k], r)
        if alpha > 0.0:
            j0 = state[0]
            status = chol_update_unit(U, j0, alpha / beta, work)
            if status != OK:
                return status
            state[0] = (j0 + 1) % m
        status = chol_update(U, a, beta, work, v)
        if status != OK:
            return status
        status = solve_u(U, v)
        if status != OK:
            return status
        for i in range(m):
            gi = v[i]
            for j in range(c):
                W[i, j] += gi * r[j]
    return OK


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


@njit(cache=True)
def ada_gain_run(
    U: np.ndarray,
    P: np.ndarray,
    W: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    pred: np.ndarray,
    mu: float,
    work: np.ndarray,
    v: np.ndarray,
    r: np.ndarray,
) -> int:
    """Alg. 2's steps between two exact refactorisations, over the rows of ``A``, in place.

    Per sample: ``ŷ = Wᵀa`` (predicted class into ``pred``), ``r = y - ŷ``;
    ``P ← μP + a aᵀ`` (Alg. 2 line 6, upper triangle, kept for the next exact
    refactorisation); the factor follows by forgetting plus EOUS,
    ``UᵀU ← μ UᵀU + a aᵀ`` (one sweep with ``β = √μ``), which also gives ``v = U⁻ᵀa``;
    ``g = U⁻¹v``; ``W += g rᵀ`` (line 7 in gain form). If ``UᵀU = P + δI`` before the
    step, it is ``P + μδI`` after it.
    """
    m, c = W.shape
    beta = math.sqrt(mu)
    for k in range(A.shape[0]):
        a = A[k]
        pred[k] = _residual(a, W, y[k], r)
        decay_add_outer_upper(P, a, mu)
        status = chol_update(U, a, beta, work, v)
        if status != OK:
            return status
        status = solve_u(U, v)
        if status != OK:
            return status
        for i in range(m):
            gi = v[i]
            for j in range(c):
                W[i, j] += gi * r[j]
    return OK


# --------------------------------------------------------------------------------------
# Square-root information form (QR-RLS): one pass over U per sample
# --------------------------------------------------------------------------------------


@njit(cache=True, fastmath={"contract"})
def _rotate_solve(
    Ui: np.ndarray, w: np.ndarray, f: np.ndarray, c: float, s: float, qi: float
) -> None:
    # f <- f - qi·row (forward substitution with the old row); then rotate (row, w)
    for j in range(Ui.shape[0]):
        u = Ui[j]
        f[j] -= qi * u
        t = w[j]
        Ui[j] = c * u + s * t
        w[j] = c * t - s * u


@njit(cache=True, fastmath={"contract"})
def _rotate_solve4(Ui: np.ndarray, w: np.ndarray, f: np.ndarray, i0: int, prm: np.ndarray) -> None:
    # _rotate_solve for four consecutive samples on one row: sample s uses the row as
    # left by sample s-1, i.e. exactly the operations of four sequential sweeps
    # (bit-identical results), with one read and write of the row instead of four.
    w0 = w[0, i0:]
    w1 = w[1, i0:]
    w2 = w[2, i0:]
    w3 = w[3, i0:]
    f0 = f[0, i0:]
    f1 = f[1, i0:]
    f2 = f[2, i0:]
    f3 = f[3, i0:]
    c0, c1, c2, c3 = prm[0], prm[1], prm[2], prm[3]
    s0, s1, s2, s3 = prm[4], prm[5], prm[6], prm[7]
    q0, q1, q2, q3 = prm[8], prm[9], prm[10], prm[11]
    for j in range(Ui.shape[0]):
        u = Ui[j]
        f0[j] -= q0 * u
        t = w0[j]
        v = c0 * u + s0 * t
        w0[j] = c0 * t - s0 * u
        f1[j] -= q1 * v
        t = w1[j]
        u = c1 * v + s1 * t
        w1[j] = c1 * t - s1 * v
        f2[j] -= q2 * u
        t = w2[j]
        v = c2 * u + s2 * t
        w2[j] = c2 * t - s2 * u
        f3[j] -= q3 * v
        t = w3[j]
        u = c3 * v + s3 * t
        w3[j] = c3 * t - s3 * v
        Ui[j] = u


@njit(cache=True)
def _sqrt_sweep(
    U: np.ndarray,
    A: np.ndarray,
    k0: int,
    p: int,
    work: np.ndarray,
    f: np.ndarray,
    q: np.ndarray,
    cs: np.ndarray,
    ss: np.ndarray,
    prm: np.ndarray,
) -> int:
    # one sweep over the rows of U for samples k0..k0+p-1 (p = 1 or 4): q[s] = U_(s)⁻ᵀ a
    # with U_(s) the factor after samples < s, and the EOUS rotations (cs, ss)[s]
    m = U.shape[0]
    for s in range(p):
        for j in range(m):
            work[s, j] = A[k0 + s, j]
            f[s, j] = A[k0 + s, j]
    for i in range(m):
        for s in range(p):
            uii = U[i, i]
            if not uii > 0.0:
                return NOT_PD
            qi = f[s, i] / uii
            q[s, i] = qi
            xi = work[s, i]
            r = math.hypot(uii, xi)
            if not math.isfinite(r):
                return NONFINITE
            ci = uii / r
            si = xi / r
            U[i, i] = ci * uii + si * xi  # = r > 0 (Remark 1 cannot fire, uii > 0)
            cs[s, i] = ci
            ss[s, i] = si
            prm[s] = ci
            prm[4 + s] = si
            prm[8 + s] = qi
        if p == 4:
            _rotate_solve4(U[i, i + 1 :], work, f, i + 1, prm)
        else:
            _rotate_solve(U[i, i + 1 :], work[0, i + 1 :], f[0, i + 1 :], prm[0], prm[4], prm[8])
    return OK


@njit(cache=True)
def sqrt_run(
    U: np.ndarray,
    Z: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    pred: np.ndarray,
    work: np.ndarray,
    f: np.ndarray,
    q: np.ndarray,
    cs: np.ndarray,
    ss: np.ndarray,
    yh: np.ndarray,
    t: np.ndarray,
) -> int:
    """Ridge weights in square-root information form over the rows of ``A``, in place.

    State: ``U`` with ``UᵀU = K = λI + Σ a aᵀ`` and ``Z = U⁻ᵀ S``, ``S = Σ a yᵀ``, so that
    ``W = U⁻¹ Z = K⁻¹ S`` is the ridge solution of the prefix (the same ``W`` as Alg. 1,
    in its direct form, spec §3.5). Per sample: ``q = U_old⁻ᵀ a`` (forward substitution
    with each row of ``U`` before it is rotated) and the EOUS rotations of ``[aᵀ; U]``
    (spec §4.3) in one sweep; then ``ŷ = Wᵀa = Zᵀq`` (prediction with the state before the
    update) and the same rotations applied to ``[yᵀ; Z]`` (``O(mc)``), which gives
    ``U_newᵀ Z_new = S + a yᵀ``.

    Four consecutive samples share one sweep: at row ``i`` sample ``s`` uses the row as
    rotated by sample ``s-1``, which is exactly what four sequential sweeps compute, so
    results are bit-identical to one-sample calls while ``U`` is read and written once
    per four samples. The predictions stay strictly test-then-train: ``ŷ_s`` uses ``Z``
    rotated with the labels of samples ``< s`` only.
    Scratch: ``work, f, q, cs, ss`` ``(4, m)``, ``yh`` ``(c,)``, ``t`` ``(c + 12,)``.
    """
    m, c = Z.shape
    n = A.shape[0]
    prm = t[c:]
    k0 = 0
    while k0 < n:
        p = 4 if n - k0 >= 4 else 1
        status = _sqrt_sweep(U, A, k0, p, work, f, q, cs, ss, prm)
        if status != OK:
            return status
        for s in range(p):
            scores(q[s], Z, yh)
            if not _finite(yh):
                return NONFINITE
            pred[k0 + s] = argmax_first(yh)
            label = y[k0 + s]
            for j in range(c):
                t[j] = 1.0 if j == label else 0.0
            for i in range(m):
                ci = cs[s, i]
                si = ss[s, i]
                Zi = Z[i]
                for j in range(c):
                    z = Zi[j]
                    tj = t[j]
                    Zi[j] = ci * z + si * tj
                    t[j] = ci * tj - si * z
        k0 += p
    return OK
