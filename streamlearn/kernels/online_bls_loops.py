"""Numba kernels of the fused Online-BLS prequential loops: ``predict_learn_many`` chunks.

Each ``*_run`` kernel processes the rows of a chunk of broad features strictly
test-then-train (Online-BLS paper §3.1, Alg. 1 lines 5–7): predict with ``W^(k-1)``,
then update, in place on the learner's state; the per-sample path of a learner is the
same kernel on one row. Kernels return a
:class:`~streamlearn.kernels.cholesky_update.CholeskyStatus` and stop at the first
failing sample. The plain-NumPy references are in ``tests/reference/online_bls_loops.py``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from streamlearn.kernels.broad_features import argmax_first, scores
from streamlearn.kernels.cholesky_update import (
    NONFINITE,
    NOT_PD,
    OK,
    all_finite,
    chol_update,
    chol_update_unit,
    decay_add_outer_upper,
    solve_u,
    solve_u_rows,
    solve_ut_rows,
)

__all__ = [
    "SWEEP_BLOCK",
    "SWEEP_ROWS",
    "SWEEP_TILE",
    "ada_gain_run",
    "gain_run",
    "obls_run",
    "predict_residual",
    "sqrt_forget_run",
    "sqrt_run",
    "sqrt_scratch",
]


# --------------------------------------------------------------------------------------
# Algorithm 1, its gain-vector form and Alg. 2 between refactorisations
# --------------------------------------------------------------------------------------


@njit(cache=True)
def predict_residual(a: np.ndarray, W: np.ndarray, label: int, yh: np.ndarray) -> int:
    """Predicted class of ``ŷ = Wᵀa`` (Alg. 1 line 5); writes the residual ``yh = y - ŷ``
    of eq. 9 (one-hot ``y = e_label``)."""
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
        pred[k] = predict_residual(a, W, y[k], r)
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
    solution: ``2m²`` substitution flops instead of ``2m²c`` (beyond the paper).
    """
    m, c = W.shape
    for k in range(A.shape[0]):
        a = A[k]
        pred[k] = predict_residual(a, W, y[k], r)
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
        pred[k] = predict_residual(a, W, y[k], r)
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
# Square-root information form (QR-RLS): one pass over U per block of up to SWEEP_BLOCK
# samples, with an optional forgetting factor β² = μ folded into the rotations
#
# The rotation of sample s acts on ([aᵀ yᵀ]; β[U Z]): with (c, s) from the scaled diagonal
# βu_ii, the new row is c·βu + s·t = (cβ)u + s·t and the new top entry c·t - (sβ)u. The
# kernels take cb = cβ and sb = sβ: no multiplication more than without forgetting, and for
# β = 1 the products cβ, sβ are c, s exactly, so the stationary learner's arithmetic is
# unchanged bit for bit.
#
# Blocked sweep: U is taken in blocks of SWEEP_ROWS rows. In the block's triangle, row by
# row, the diagonal rotations of the block's samples come first, in sample order, then
# the row's rotations on the block's own columns; the columns right of the block follow
# in tiles of SWEEP_TILE columns, each tile taking the block's rows in order, two rows by
# four samples at a time in registers (_rotate_tile4). Rotation (row i, sample s) of an
# element needs it as left by (i, s-1) and by (i-1, s); every order that respects both
# gives each element the operations of sequential one-sample sweeps, in their order and
# with the same operands, so the results are bit-identical to one-sample calls. The
# parameters of (row i, sample s) are at prm[stride·(i - i0) + 20(s//4) + s%4 + 4k],
# k = 0..4 for c, s, q, cb, sb (i0 the block's first row, stride = 20·⌈p/4⌉).
# --------------------------------------------------------------------------------------

# Sizes measured with benchmarks/bench_bls.py --floor and a kernel-level sweep (issue 25
# item 2, one shared 2-core EPYC VM): the sweep is bound in the core (the serial
# hypot/divide chain of the diagonal, the FP and store ports of the rotations), not by
# streaming U; blocks of 32 were 3-10 % faster than 16 or 8, and tiles and row blocks
# were neutral at m = 1100 and 3100. The speed-up over four samples row by row comes
# from the two-row, four-sample register pass.
#: samples per pass over U in the learners' scratch (see :func:`sqrt_scratch`)
SWEEP_BLOCK = 32
#: rows of U per row block (the parameters of a block's rows are held in ``prm``)
SWEEP_ROWS = 8
#: columns per tile: a tile's columns of the block's ``work``, ``f`` rows (``2·b·8``
#: bytes per column) are reused across the block's rows from cache
SWEEP_TILE = 512


def sqrt_scratch(m: int, c: int, block: int = SWEEP_BLOCK) -> list[np.ndarray]:
    """Scratch ``work, f, q, cs, ss, yh, t`` of :func:`sqrt_run` / :func:`sqrt_forget_run`
    for blocks of ``block`` samples (``block = 1``: the one-sample sweep)."""
    prm = 20 * ((block + 3) // 4) * SWEEP_ROWS
    return [np.empty((block, m)) for _ in range(5)] + [np.empty(c), np.empty(c + prm)]


@njit(cache=True, fastmath={"contract"})
def _rotate_tile1(
    U: np.ndarray,
    w: np.ndarray,
    f: np.ndarray,
    prm: np.ndarray,
    stride: int,
    i0: int,
    i1: int,
    j0: int,
    j1: int,
    s: int,
) -> None:
    # sample s on rows i0..i1-1 of U, columns j0..j1-1: per element f <- f - q·u (forward
    # substitution with the row before its rotation), then rotate (β·u, w)
    o = 20 * (s // 4) + s % 4
    ws = w[s, j0:j1]
    fs = f[s, j0:j1]
    for i in range(i0, i1):
        k = stride * (i - i0) + o
        c, sn, qi, cb, sb = prm[k], prm[k + 4], prm[k + 8], prm[k + 12], prm[k + 16]
        Ui = U[i, j0:j1]
        for j in range(Ui.shape[0]):
            u = Ui[j]
            fs[j] -= qi * u
            t = ws[j]
            Ui[j] = cb * u + sn * t
            ws[j] = c * t - sb * u


@njit(cache=True, fastmath={"contract"})
def _rotate_tile4(
    U: np.ndarray,
    w: np.ndarray,
    f: np.ndarray,
    prm: np.ndarray,
    stride: int,
    i0: int,
    i1: int,
    j0: int,
    j1: int,
    g: int,
) -> None:
    # _rotate_tile1 for samples g..g+3 at once: sample s uses the element as left by
    # sample s-1 (in a register), i.e. exactly the operations of four one-sample sweeps;
    # rows in pairs (row i+1 takes each w, f as left by row i: two interleaved chains)
    w0, w1, w2, w3 = w[g, j0:j1], w[g + 1, j0:j1], w[g + 2, j0:j1], w[g + 3, j0:j1]
    f0, f1, f2, f3 = f[g, j0:j1], f[g + 1, j0:j1], f[g + 2, j0:j1], f[g + 3, j0:j1]
    i = i0
    while i < i1:
        k = stride * (i - i0) + 5 * g
        c0, c1, c2, c3 = prm[k], prm[k + 1], prm[k + 2], prm[k + 3]
        s0, s1, s2, s3 = prm[k + 4], prm[k + 5], prm[k + 6], prm[k + 7]
        q0, q1, q2, q3 = prm[k + 8], prm[k + 9], prm[k + 10], prm[k + 11]
        cb0, cb1, cb2, cb3 = prm[k + 12], prm[k + 13], prm[k + 14], prm[k + 15]
        sb0, sb1, sb2, sb3 = prm[k + 16], prm[k + 17], prm[k + 18], prm[k + 19]
        Ui = U[i, j0:j1]
        if i + 1 < i1:
            k += stride
            d0, d1, d2, d3 = prm[k], prm[k + 1], prm[k + 2], prm[k + 3]
            e0, e1, e2, e3 = prm[k + 4], prm[k + 5], prm[k + 6], prm[k + 7]
            r0, r1, r2, r3 = prm[k + 8], prm[k + 9], prm[k + 10], prm[k + 11]
            db0, db1, db2, db3 = prm[k + 12], prm[k + 13], prm[k + 14], prm[k + 15]
            eb0, eb1, eb2, eb3 = prm[k + 16], prm[k + 17], prm[k + 18], prm[k + 19]
            Vi = U[i + 1, j0:j1]
            for j in range(Ui.shape[0]):
                u = Ui[j]
                x = Vi[j]
                fj = f0[j] - q0 * u
                t = w0[j]
                v = cb0 * u + s0 * t
                t = c0 * t - sb0 * u
                f0[j] = fj - r0 * x
                y = db0 * x + e0 * t
                w0[j] = d0 * t - eb0 * x
                fj = f1[j] - q1 * v
                t = w1[j]
                u = cb1 * v + s1 * t
                t = c1 * t - sb1 * v
                f1[j] = fj - r1 * y
                x = db1 * y + e1 * t
                w1[j] = d1 * t - eb1 * y
                fj = f2[j] - q2 * u
                t = w2[j]
                v = cb2 * u + s2 * t
                t = c2 * t - sb2 * u
                f2[j] = fj - r2 * x
                y = db2 * x + e2 * t
                w2[j] = d2 * t - eb2 * x
                fj = f3[j] - q3 * v
                t = w3[j]
                u = cb3 * v + s3 * t
                t = c3 * t - sb3 * v
                f3[j] = fj - r3 * y
                x = db3 * y + e3 * t
                w3[j] = d3 * t - eb3 * y
                Ui[j] = u
                Vi[j] = x
            i += 2
            continue
        for j in range(Ui.shape[0]):
            u = Ui[j]
            f0[j] -= q0 * u
            t = w0[j]
            v = cb0 * u + s0 * t
            w0[j] = c0 * t - sb0 * u
            f1[j] -= q1 * v
            t = w1[j]
            u = cb1 * v + s1 * t
            w1[j] = c1 * t - sb1 * v
            f2[j] -= q2 * u
            t = w2[j]
            v = cb2 * u + s2 * t
            w2[j] = c2 * t - sb2 * u
            f3[j] -= q3 * v
            t = w3[j]
            u = cb3 * v + s3 * t
            w3[j] = c3 * t - sb3 * v
            Ui[j] = u
        i += 1


@njit(cache=True)
def _rotate_tile(
    U: np.ndarray,
    w: np.ndarray,
    f: np.ndarray,
    prm: np.ndarray,
    stride: int,
    p: int,
    i0: int,
    i1: int,
    j0: int,
    j1: int,
) -> None:
    # the rotations of samples 0..p-1 on the tile rows i0..i1-1 × columns j0..j1-1, four
    # samples at a time, the rest one by one
    g = 0
    while g + 4 <= p:
        _rotate_tile4(U, w, f, prm, stride, i0, i1, j0, j1, g)
        g += 4
    for s in range(g, p):
        _rotate_tile1(U, w, f, prm, stride, i0, i1, j0, j1, s)


@njit(cache=True, fastmath={"contract"})
def _rotate_short(
    U: np.ndarray,
    w: np.ndarray,
    f: np.ndarray,
    prm: np.ndarray,
    k0: int,
    p: int,
    i: int,
    j1: int,
) -> None:
    # row i's rotations of samples 0..p-1 (parameters from prm[k0:]) on columns i+1..j1-1,
    # the few columns right of the diagonal inside a row block
    for s in range(p):
        k = k0 + 20 * (s // 4) + s % 4
        c, sn, qi, cb, sb = prm[k], prm[k + 4], prm[k + 8], prm[k + 12], prm[k + 16]
        for j in range(i + 1, j1):
            u = U[i, j]
            f[s, j] -= qi * u
            t = w[s, j]
            U[i, j] = cb * u + sn * t
            w[s, j] = c * t - sb * u


@njit(cache=True)
def _sqrt_sweep(
    U: np.ndarray,
    A: np.ndarray,
    k0: int,
    p: int,
    beta: float,
    work: np.ndarray,
    f: np.ndarray,
    q: np.ndarray,
    cs: np.ndarray,
    ss: np.ndarray,
    prm: np.ndarray,
    rows: int,
    tile: int,
) -> int:
    # one sweep over U for samples k0..k0+p-1: q[s] = U_(s)⁻ᵀ a with U_(s) the factor after
    # samples < s (their forgetting included), and the EOUS rotations (cs, ss)[s] of
    # ([a_sᵀ]; β U_(s)). U is taken in blocks of `rows` rows. First the block's triangle,
    # row by row: the diagonal rotations of the p samples in order (u_ii as left by sample
    # s-1), then the row's rotations on the block's columns. Then the columns right of the
    # block in tiles of `tile`, each tile taking the block's rows in order while its
    # columns of `work`, `f` stay in cache (_rotate_tile). Every element sees the operations
    # of p sequential one-sample sweeps, in their order, with the same operands:
    # bit-identical results. The parameters of (row i, sample s) are at
    # prm[stride·(i - i0) + 20(s//4) + s%4 + 0, 4, 8, 12, 16].
    m = U.shape[0]
    for s in range(p):
        for j in range(m):
            work[s, j] = A[k0 + s, j]
            f[s, j] = A[k0 + s, j]
    stride = 20 * ((p + 3) // 4)  # prm entries per row of the block
    for i0 in range(0, m, rows):
        i1 = min(i0 + rows, m)
        for i in range(i0, i1):
            for s in range(p):
                uii = U[i, i]
                if not uii > 0.0:
                    return NOT_PD
                qi = f[s, i] / uii  # forward substitution with the row before its rotation
                q[s, i] = qi
                ub = beta * uii
                xi = work[s, i]
                r = math.hypot(ub, xi)
                if not math.isfinite(r):
                    return NONFINITE
                ci = ub / r
                si = xi / r
                U[i, i] = ci * ub + si * xi  # = r > 0 (Remark 1 cannot fire, uii > 0)
                cs[s, i] = ci
                ss[s, i] = si
                k = stride * (i - i0) + 20 * (s // 4) + s % 4
                prm[k] = ci
                prm[k + 4] = si
                prm[k + 8] = qi
                prm[k + 12] = ci * beta
                prm[k + 16] = si * beta
            _rotate_short(U, work, f, prm, stride * (i - i0), p, i, i1)
        for j0 in range(i1, m, tile):
            _rotate_tile(U, work, f, prm, stride, p, i0, i1, j0, min(j0 + tile, m))
    return OK


@njit(cache=True)
def sqrt_forget_run(
    U: np.ndarray,
    Z: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    pred: np.ndarray,
    beta: float,
    work: np.ndarray,
    f: np.ndarray,
    q: np.ndarray,
    cs: np.ndarray,
    ss: np.ndarray,
    yh: np.ndarray,
    t: np.ndarray,
) -> int:
    """Exponentially weighted ridge steps in square-root information form, in place.

    State: ``U`` and ``Z`` with ``K = UᵀU`` and ``S = UᵀZ``; the weights are
    ``W = U⁻¹Z = K⁻¹S`` and are never formed. Per sample, with ``β² = μ``:

    * ``q = U⁻ᵀa`` (forward substitution with each row of ``U`` before it is rotated) and
      the prediction ``ŷ = Zᵀq = Wᵀa`` with the state of the samples before (Alg. 1/2
      line 5);
    * the Givens rotations of ``[aᵀ yᵀ; βU βZ]`` that zero the top row's first ``m``
      entries (EOUS, eq. 15, with the forgetting of Alg. 2 line 6 in the same pass):
      ``U_newᵀU_new = μK + aaᵀ`` and ``U_newᵀZ_new = μS + ayᵀ``.

    So ``K W_new = μ K_old W_old + a yᵀ``, which is Alg. 2's residual update
    ``W_new = W_old + K⁻¹a (y - W_oldᵀa)ᵀ`` (eqs. 9–10 with ``K = μK_old + aaᵀ``) in exact
    arithmetic, and ``β = 1`` is Alg. 1's ridge solution of the prefix (QR-RLS).

    A block of up to ``b`` consecutive samples shares one sweep over ``U`` (``b`` = the rows
    of the scratch, :data:`SWEEP_BLOCK` from :func:`sqrt_scratch`): at row ``i`` sample
    ``s`` uses the row as rotated by sample ``s-1``, exactly what sequential sweeps
    compute, so the results are bit-identical to one-sample calls while ``U`` (4.8 MB at
    ``m = 1100``) is read and written once per block; within the sweep, blocks of
    :data:`SWEEP_ROWS` rows and tiles of :data:`SWEEP_TILE` columns, two rows by four
    samples per register pass (see the section comment). The predictions stay strictly
    test-then-train: ``ŷ_s`` uses ``Z`` rotated with the labels of samples ``< s`` only.
    Scratch (:func:`sqrt_scratch`): ``work, f, q, cs, ss`` ``(b, m)``, ``yh`` ``(c,)``,
    ``t`` ``(c + 20⌈b/4⌉·SWEEP_ROWS,)``; a shorter ``t`` gives fewer rows per block, down to
    one, and caps ``b`` at ``4⌊(len(t) - c)/20⌋`` (``(4, m)`` and ``c + 20``: four samples
    per sweep, row by row).
    """
    m, c = Z.shape
    n = A.shape[0]
    prm = t[c:]
    b = min(work.shape[0], f.shape[0], q.shape[0], cs.shape[0], ss.shape[0])
    b = max(1, min(b, 4 * (prm.shape[0] // 20)))
    rows = max(1, min(SWEEP_ROWS, prm.shape[0] // (20 * ((b + 3) // 4))))
    k0 = 0
    while k0 < n:
        p = min(b, n - k0)
        status = _sqrt_sweep(U, A, k0, p, beta, work, f, q, cs, ss, prm, rows, SWEEP_TILE)
        if status != OK:
            return status
        for s in range(p):
            scores(q[s], Z, yh)
            if not all_finite(yh):
                return NONFINITE
            pred[k0 + s] = argmax_first(yh)
            label = y[k0 + s]
            for j in range(c):
                t[j] = 1.0 if j == label else 0.0
            for i in range(m):
                ci = cs[s, i]
                si = ss[s, i]
                cb = ci * beta
                sb = si * beta
                Zi = Z[i]
                for j in range(c):
                    z = Zi[j]
                    tj = t[j]
                    Zi[j] = cb * z + si * tj
                    t[j] = ci * tj - sb * z
        k0 += p
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
    from the normal equations ``K W = S`` of eqs. 5–6 instead of the increments of eq. 9).
    Per sample: ``q = U_old⁻ᵀ a`` (forward substitution with each row of ``U`` before it is
    rotated) and the EOUS rotations of ``[aᵀ; U]`` (eq. 15) in one sweep; then
    ``ŷ = Wᵀa = Zᵀq`` (prediction with the state before the
    update) and the same rotations applied to ``[yᵀ; Z]`` (``O(mc)``), which gives
    ``U_newᵀ Z_new = S + a yᵀ``. This is :func:`sqrt_forget_run` with ``β = 1`` (no
    forgetting): a block of samples shares a sweep, bit-identical to one-sample calls.
    Scratch: :func:`sqrt_scratch` (as for :func:`sqrt_forget_run`).
    """
    return sqrt_forget_run(U, Z, A, y, pred, 1.0, work, f, q, cs, ss, yh, t)
