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
    "ada_gain_run",
    "gain_run",
    "obls_run",
    "predict_residual",
    "sqrt_forget_run",
    "sqrt_run",
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
# Square-root information form (QR-RLS): one pass over U per sample (up to four samples per
# pass), with an optional forgetting factor β² = μ folded into the rotations
#
# The rotation of sample s acts on ([aᵀ yᵀ]; β[U Z]): with (c, s) from the scaled diagonal
# βu_ii, the new row is c·βu + s·t = (cβ)u + s·t and the new top entry c·t - (sβ)u. The
# kernels take cb = cβ and sb = sβ: no multiplication more than without forgetting, and for
# β = 1 the products cβ, sβ are c, s exactly, so the stationary learner's arithmetic is
# unchanged bit for bit. Parameter layout of ``prm`` (20 entries): c[0:4], s[4:8], q[8:12],
# cb[12:16], sb[16:20], one slot per sample of the pass.
# --------------------------------------------------------------------------------------


@njit(cache=True, fastmath={"contract"})
def _rotate_solve(Ui: np.ndarray, w: np.ndarray, f: np.ndarray, prm: np.ndarray) -> None:
    # f <- f - q·row (forward substitution with the old row); then rotate (β·row, w)
    c, s, qi, cb, sb = prm[0], prm[4], prm[8], prm[12], prm[16]
    for j in range(Ui.shape[0]):
        u = Ui[j]
        f[j] -= qi * u
        t = w[j]
        Ui[j] = cb * u + s * t
        w[j] = c * t - sb * u


@njit(cache=True, fastmath={"contract"})
def _rotate_solve2(Ui: np.ndarray, w: np.ndarray, f: np.ndarray, i0: int, prm: np.ndarray) -> None:
    # _rotate_solve for two consecutive samples on one row (see _rotate_solve4)
    w0 = w[0, i0:]
    w1 = w[1, i0:]
    f0 = f[0, i0:]
    f1 = f[1, i0:]
    c0, c1 = prm[0], prm[1]
    s0, s1 = prm[4], prm[5]
    q0, q1 = prm[8], prm[9]
    cb0, cb1 = prm[12], prm[13]
    sb0, sb1 = prm[16], prm[17]
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
        Ui[j] = u


@njit(cache=True, fastmath={"contract"})
def _rotate_solve3(Ui: np.ndarray, w: np.ndarray, f: np.ndarray, i0: int, prm: np.ndarray) -> None:
    # _rotate_solve for three consecutive samples on one row (see _rotate_solve4)
    w0 = w[0, i0:]
    w1 = w[1, i0:]
    w2 = w[2, i0:]
    f0 = f[0, i0:]
    f1 = f[1, i0:]
    f2 = f[2, i0:]
    c0, c1, c2 = prm[0], prm[1], prm[2]
    s0, s1, s2 = prm[4], prm[5], prm[6]
    q0, q1, q2 = prm[8], prm[9], prm[10]
    cb0, cb1, cb2 = prm[12], prm[13], prm[14]
    sb0, sb1, sb2 = prm[16], prm[17], prm[18]
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
        Ui[j] = v


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
    cb0, cb1, cb2, cb3 = prm[12], prm[13], prm[14], prm[15]
    sb0, sb1, sb2, sb3 = prm[16], prm[17], prm[18], prm[19]
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
) -> int:
    # one sweep over the rows of U for samples k0..k0+p-1 (1 <= p <= 4): q[s] = U_(s)⁻ᵀ a
    # with U_(s) the factor after samples < s (their forgetting included), and the EOUS
    # rotations (cs, ss)[s] of ([a_sᵀ]; β U_(s))
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
            prm[s] = ci
            prm[4 + s] = si
            prm[8 + s] = qi
            prm[12 + s] = ci * beta
            prm[16 + s] = si * beta
        if p == 4:
            _rotate_solve4(U[i, i + 1 :], work, f, i + 1, prm)
        elif p == 3:
            _rotate_solve3(U[i, i + 1 :], work, f, i + 1, prm)
        elif p == 2:
            _rotate_solve2(U[i, i + 1 :], work, f, i + 1, prm)
        else:
            _rotate_solve(U[i, i + 1 :], work[0, i + 1 :], f[0, i + 1 :], prm)
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

    Up to four consecutive samples share one sweep over ``U``: at row ``i`` sample ``s``
    uses the row as rotated by sample ``s-1``, exactly what sequential sweeps compute, so
    the results are bit-identical to one-sample calls while ``U`` (4.8 MB at
    ``m = 1100``) is read and written once per four samples. The predictions stay
    strictly test-then-train: ``ŷ_s`` uses ``Z`` rotated with the labels of samples ``< s``
    only. Scratch: ``work, f, q, cs, ss`` ``(4, m)``, ``yh`` ``(c,)``, ``t`` ``(c + 20,)``.
    """
    m, c = Z.shape
    n = A.shape[0]
    prm = t[c:]
    k0 = 0
    while k0 < n:
        p = min(4, n - k0)
        status = _sqrt_sweep(U, A, k0, p, beta, work, f, q, cs, ss, prm)
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
    forgetting): up to four samples share a sweep, bit-identical to one-sample calls.
    Scratch: ``work, f, q, cs, ss`` ``(4, m)``, ``yh`` ``(c,)``, ``t`` ``(c + 20,)``.
    """
    return sqrt_forget_run(U, Z, A, y, pred, 1.0, work, f, q, cs, ss, yh, t)
