"""Numba kernels shared by the FORKS paper's kernel learners (FORKS, SkeGD and the budgeted
baselines): Gaussian kernel rows, the sketched feature map and the ONS / first-order steps.

Paper: Wen et al., *Fast Second-Order Online Kernel Learning Through Incremental Matrix
Sketching and Decomposition* (FORKS). The Gaussian kernel is
``kappa(x, x') = exp(-gamma ||x - x'||^2)`` with ``gamma = 1 / (2 sigma^2)`` (App. D.1).
The explicit feature map is ``phi(x) = Z^T m(x)`` with ``m(x)`` the kernel values against the
landmarks (Eq. 5); the second-order step is Eq. (10) with the Sherman–Morrison inverse
(Sec. 3.5); the first-order step is SkeGD's ``w <- w - eta (l'(f, y) z + lam w)``.
Fused loops: FORKS/SkeGD stage 1 (:func:`kernel_ogd_fill`), their regular stage-2 rounds
(:func:`sketch_stage2_loop`) and the PROS-N-KONS rounds between dictionary changes
(:func:`pnk_loop`). The fused loops and the per-sample Python path share one function
for every product, so they round alike by construction on any CPU, BLAS kernel and
thread count: :func:`ordered_dot` (an ordered sum, no BLAS) for the stage-2 scores, and
:func:`blas_dot` / :func:`blas_matvec` / :func:`kors_probability` (``np.dot`` in numba,
i.e. SciPy's OpenBLAS ``ddot`` / ``dgemv`` with the same shapes) for the kernel
expansion of stage 1 and PROS-N-KONS. NumPy's ``@`` is a different library (NumPy's own
OpenBLAS) and treats a one-row matrix times a vector as ``ddot``, so it is not used for
a product that the fused loops also compute.

Arrays and scalars only; labels are ``+1.0 / -1.0`` floats; losses are int codes
(:class:`LossCode`). Kernels return an int status (:class:`KernelStatus`).
"""

from __future__ import annotations

from enum import IntEnum

import numpy as np
from numba import njit

__all__ = [
    "KernelStatus",
    "LossCode",
    "blas_dot",
    "blas_matvec",
    "dloss",
    "feature_map",
    "first_order_step",
    "gauss_gram",
    "gauss_matrix",
    "gauss_row",
    "gemm_k_block_ids",
    "gram_from_rows",
    "kernel_ogd_fill",
    "kors_probability",
    "ons_score",
    "ons_step",
    "ordered_dot",
    "pnk_loop",
    "scatter_add_rows",
    "sketch_gram",
    "sketch_stage2_loop",
]


class LossCode(IntEnum):
    """Loss codes (FORKS Sec. 5.1: hinge; Sec. 5.3: squared hinge)."""

    HINGE = 0
    SQUARED_HINGE = 1


class KernelStatus(IntEnum):
    """Return codes of the loops."""

    OK = 0
    NONFINITE = 1


@njit(cache=True)
def gauss_row(S: np.ndarray, n: int, x: np.ndarray, gamma: float, out: np.ndarray) -> None:
    """``out[i] = exp(-gamma ||S[i] - x||^2)`` for ``i < n`` (the kernel row of ``x``)."""
    d = x.shape[0]
    for i in range(n):
        acc = 0.0
        for j in range(d):
            diff = S[i, j] - x[j]
            acc += diff * diff
        out[i] = np.exp(-gamma * acc)


@njit(cache=True)
def gauss_matrix(A: np.ndarray, B: np.ndarray, gamma: float) -> np.ndarray:
    """Kernel matrix ``K[i, j] = exp(-gamma ||A[i] - B[j]||^2)``."""
    K = np.empty((A.shape[0], B.shape[0]))
    for i in range(A.shape[0]):
        gauss_row(B, B.shape[0], A[i], gamma, K[i])
    return K


@njit(cache=True)
def gauss_gram(P: np.ndarray, gamma: float) -> np.ndarray:
    """``gauss_matrix(P, P, gamma)`` bit for bit at half the exponentials: entry ``(i, j)``
    is the same ordered sum over the features (``(a - b)^2 = (b - a)^2`` exactly), computed
    once for ``j <= i`` and mirrored; the sums of a row run side by side over the
    transposed points."""
    n, d = P.shape
    PT = np.empty((d, n))
    for i in range(n):
        for j in range(d):
            PT[j, i] = P[i, j]
    K = np.empty((n, n))
    acc = np.empty(n)
    for i in range(n):
        for j in range(i + 1):
            acc[j] = 0.0
        for c in range(d):
            xc = P[i, c]
            for j in range(i + 1):
                diff = PT[c, j] - xc
                acc[j] += diff * diff
        for j in range(i + 1):
            e = np.exp(-gamma * acc[j])
            K[i, j] = e
            K[j, i] = e
    return K


@njit(cache=True)
def gram_from_rows(K: np.ndarray, P: np.ndarray, gamma: float) -> np.ndarray:
    """Complete ``K`` (``n x n``, the entries below the diagonal given, e.g. by
    :func:`kernel_ogd_fill`) in place to ``gauss_gram(P, gamma)`` bit for bit: the diagonal
    is computed as there (``exp(-gamma sum_c (P[i, c] - P[i, c])^2)``, 1 for finite
    points), the upper triangle mirrored. Returns ``K``."""
    n, d = P.shape
    for i in range(n):
        acc = 0.0
        for c in range(d):
            diff = P[i, c] - P[i, c]
            acc += diff * diff
        K[i, i] = np.exp(-gamma * acc)
        for j in range(i):
            K[j, i] = K[i, j]
    return K


# OpenBLAS (Haswell kernels, one thread) splits the inner dimension of a dgemm into blocks:
# GEMM_Q = 256, the last two blocks halved to a multiple of GEMM_UNROLL_M = 4 (driver/level3.c);
# each block's products are summed in order from 0 and the block sum added to C.
_GEMM_Q = 256
_GEMM_UNROLL_M = 4


@njit(cache=True)
def gemm_k_block_ids(k: int) -> np.ndarray:
    """Block index of each position of a dgemm's inner dimension ``k`` (see above)."""
    bid = np.empty(k, dtype=np.int64)
    ls = 0
    b = 0
    while ls < k:
        ml = k - ls
        if ml >= 2 * _GEMM_Q:
            ml = _GEMM_Q
        elif ml > _GEMM_Q:
            ml = ((ml // 2 + _GEMM_UNROLL_M - 1) // _GEMM_UNROLL_M) * _GEMM_UNROLL_M
        for i in range(ls, ls + ml):
            bid[i] = b
        ls += ml
        b += 1
    return bid


@njit(cache=True)
def _sketch_rows(M: np.ndarray, h: np.ndarray, g: np.ndarray, sp: int,
                 bid: np.ndarray) -> np.ndarray:
    """``S^T M`` for the CountSketch ``S`` (row ``i``: ``g[i]`` in column ``h[i]``) with the
    additions of a blocked dgemm: per output row, the rows ``g_i M[i]`` of each block in
    order from 0, the block sums added in block order (the zero products of the dense
    ``S`` add exact zeros; ``+-1`` products are exact)."""
    n, c = M.shape
    R = np.zeros((sp, c))
    part = np.empty(c)
    start = np.zeros(sp + 1, dtype=np.int64)
    for i in range(n):
        start[h[i] + 1] += 1
    for a in range(sp):
        start[a + 1] += start[a]
    pos = start[:sp].copy()
    idx = np.empty(n, dtype=np.int64)
    for i in range(n):
        idx[pos[h[i]]] = i
        pos[h[i]] += 1
    for a in range(sp):
        cur = -1
        for t in range(start[a], start[a + 1]):
            i = idx[t]
            if bid[i] != cur:
                if cur >= 0:
                    for j in range(c):
                        R[a, j] += part[j]
                cur = bid[i]
                for j in range(c):
                    part[j] = 0.0
            gi = g[i]
            for j in range(c):
                part[j] += gi * M[i, j]
        if cur >= 0:
            for j in range(c):
                R[a, j] += part[j]
    return R


@njit(cache=True)
def sketch_gram(K: np.ndarray, h: np.ndarray, g: np.ndarray, sp: int) -> np.ndarray:
    """``S^T K S`` for the CountSketch ``S`` (``n x sp``, one ``g[i] = +-1`` per row, in column
    ``h[i]``), in ``O(n^2)``, with the additions of NumPy's ``S.T @ K @ S`` on
    single-threaded OpenBLAS with the Haswell kernels for an even ``sp``: the same bits as
    that product there, and those bits on every other CPU and BLAS (FORKS Eq. 3)."""
    n = K.shape[0]
    bid = gemm_k_block_ids(n)
    T = _sketch_rows(K, h, g, sp, bid)  # S^T K, sp x n
    TT = np.empty((n, sp))
    for a in range(sp):
        for j in range(n):
            TT[j, a] = T[a, j]
    R = _sketch_rows(TT, h, g, sp, bid)  # (S^T K S)^T
    out = np.empty((sp, sp))
    for a in range(sp):
        for b in range(sp):
            out[a, b] = R[b, a]
    return out


@njit(cache=True)
def ordered_dot(a: np.ndarray, b: np.ndarray) -> float:
    """``sum_i a[i] b[i]`` added in index order from 0, no BLAS: the same bits on every CPU
    and BLAS kernel (SkeGD's stage-2 score, fused and per sample)."""
    acc = 0.0
    for i in range(a.shape[0]):
        acc += a[i] * b[i]
    return acc


@njit(cache=True)
def blas_dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a . b`` by BLAS ``ddot`` (numba's ``np.dot``: SciPy's OpenBLAS), the one call the
    fused loops and the per-sample path both make for the kernel expansion."""
    return np.dot(a, b)


@njit(cache=True)
def blas_matvec(A: np.ndarray, x: np.ndarray) -> np.ndarray:
    """``A x`` by BLAS ``dgemv`` (numba's ``np.dot``; ``ddot``-free even for one row, unlike
    NumPy's ``@``), shared by the fused and the per-sample PROS-N-KONS embedding."""
    return np.dot(A, x)


@njit(cache=True)
def kors_probability(krow: np.ndarray, p: np.ndarray, Kinv: np.ndarray, n: int, eps: float,
                     ridge: float, beta: float) -> float:
    """The KORS acceptance probability ``min(beta tau, 1)`` of a point with kernel row
    ``krow[:n]`` against a dictionary of ``n`` points (weights ``p``, ``Kinv`` the inverse of
    the regularised weighted Gram matrix): ``tau = (1 + eps) / ridge max(0, 1 - kb^T Kinv kb)``
    with ``kb = k / sqrt(p)`` (spec Sec. 8.9)."""
    if n > 0:
        kb = krow[:n] / np.sqrt(p[:n])
        q = np.dot(Kinv, kb)
        r = 1.0 - np.dot(kb, q)
        tau = (1.0 + eps) / ridge * (r if r > 0.0 else 0.0)
    else:
        tau = (1.0 + eps) / ridge
    bt = beta * tau
    return 1.0 if 1.0 < bt else bt


@njit(cache=True)
def dloss(f: float, y: float, loss: int) -> float:
    """Derivative of the loss in the score ``f`` (FORKS Sec. 1.2 of the spec; the subgradient
    at the hinge kink ``y f = 1`` is 0)."""
    m = 1.0 - y * f
    if m <= 0.0:
        return 0.0
    if loss == 0:
        return -y
    return -2.0 * y * m


@njit(cache=True)
def feature_map(x: np.ndarray, L: np.ndarray, gamma: float, Z: np.ndarray, m: np.ndarray,
                z: np.ndarray) -> None:
    """``z = Z^T m(x)``, ``m(x) = [kappa(x, L_j)]_j`` (FORKS Eq. 5)."""
    sm = Z.shape[0]
    gauss_row(L, sm, x, gamma, m)
    _tmatvec(Z, m, z)


@njit(cache=True)
def _tmatvec(Z: np.ndarray, m: np.ndarray, z: np.ndarray) -> None:
    """``z = Z^T m``, each ``z[c] = sum_j Z[j, c] m[j]`` a strictly ordered sum in ``j``
    (the same additions as a dot product per column), with ``j`` outer and ``c`` inner: the
    ``k`` independent sums advance side by side over the contiguous rows of ``Z``
    (vectorised across ``c``, no reassociation)."""
    sm, k = Z.shape
    for c in range(k):
        z[c] = 0.0
    j = 0
    while j + 4 <= sm:  # four terms of each sum per pass over z, added in order
        m0, m1, m2, m3 = m[j], m[j + 1], m[j + 2], m[j + 3]
        for c in range(k):
            z[c] = (((z[c] + Z[j, c] * m0) + Z[j + 1, c] * m1) + Z[j + 2, c] * m2) \
                + Z[j + 3, c] * m3
        j += 4
    while j < sm:
        mj = m[j]
        for c in range(k):
            z[c] += Z[j, c] * mj
        j += 1


@njit(cache=True)
def ons_score(z: np.ndarray, v: np.ndarray, Ainv: np.ndarray, C: float, project: bool,
              w: np.ndarray, u: np.ndarray) -> float:
    """Projection part of FORKS Eq. (10) at the start of the round: ``w`` = the
    ``A``-norm projection of ``v`` onto ``{|z^T w| <= C}``; returns the score ``f``.

    After a projection the score is set to ``sign(p) C`` exactly (the tie rule of the spec's
    Sec. 4.1), so a correctly clipped round has ``y f = 1`` and does not update."""
    k = z.shape[0]
    p = 0.0
    for i in range(k):
        p += z[i] * v[i]
    if project and abs(p) > C:
        zu = 0.0
        for i in range(k):
            acc = 0.0
            for j in range(k):
                acc += Ainv[i, j] * z[j]
            u[i] = acc
            zu += z[i] * acc
        s = 1.0 if p > 0 else -1.0
        step = s * (abs(p) - C) / zu if zu > 0 else 0.0
        for i in range(k):
            w[i] = v[i] - step * u[i]
        return s * C
    for i in range(k):
        w[i] = v[i]
    return p


@njit(cache=True)
def ons_step(z: np.ndarray, w: np.ndarray, f: float, y: float, loss: int, cw: float,
             Ainv: np.ndarray, v: np.ndarray, u: np.ndarray) -> None:
    """Gradient part of FORKS Eq. (10): ``g = l'(f, y) z``; ``A^{-1}`` updated by
    Sherman–Morrison with weight ``cw = sigma_i + eta_i`` (so ``A_t`` contains ``g_t``);
    ``v = w - A^{-1} g``. Skips the inverse update when ``g = 0``."""
    k = z.shape[0]
    dl = dloss(f, y, loss)
    if dl == 0.0:
        for i in range(k):
            v[i] = w[i]
        return
    # u = Ainv g, g = dl z
    gu = 0.0
    for i in range(k):
        acc = 0.0
        for j in range(k):
            acc += Ainv[i, j] * z[j]
        u[i] = dl * acc
        gu += dl * z[i] * u[i]
    den = 1.0 + cw * gu
    c = cw / den
    for i in range(k):
        ci = c * u[i]
        for j in range(k):
            Ainv[i, j] -= ci * u[j]
    # v = w - Ainv_new g, and Ainv_new g = u - c u (u^T g) = u / den
    for i in range(k):
        v[i] = w[i] - u[i] / den


@njit(cache=True)
def first_order_step(z: np.ndarray, f: float, y: float, loss: int, eta: float, lam: float,
                     w: np.ndarray) -> None:
    """SkeGD's step ``w <- w - eta (l'(f, y) z + lam w)`` (spec Sec. 8.8)."""
    dl = dloss(f, y, loss)
    for i in range(w.shape[0]):
        w[i] -= eta * (dl * z[i] + lam * w[i])


@njit(cache=True)
def _gauss_row_t(LT: np.ndarray, n: int, x: np.ndarray, gamma: float, acc: np.ndarray,
                 out: np.ndarray) -> None:
    """:func:`gauss_row` over the first ``n`` points of ``LT`` (``d x cap``, the transposed
    points): the same ordered sum over the features per point, the ``n`` sums side by side
    (vectorised across the points); ``acc`` is scratch."""
    d = LT.shape[0]
    for i in range(n):
        acc[i] = 0.0
    for j in range(d):
        xj = x[j]
        for i in range(n):
            diff = LT[j, i] - xj
            acc[i] += diff * diff
    for i in range(n):
        out[i] = np.exp(-gamma * acc[i])


@njit(cache=True)
def sketch_stage2_loop(X: np.ndarray, Y: np.ndarray, start: int, stop: int, L: np.ndarray,
                       gamma: float, Z: np.ndarray, v: np.ndarray, Ainv: np.ndarray,
                       C: float, project: bool, second_order: bool, cw: float, eta: float,
                       lam: float, loss: int, preds: np.ndarray, scores: np.ndarray) -> int:
    """Regular stage-2 rounds ``start..stop-1`` of FORKS (second order) or SkeGD (first
    order; ``v`` holds ``w``), test-then-train; ``preds[i]`` = 1 for ``+1`` else 0
    (``sgn(0) = +1``), ``scores[i]`` the round's score ``f``. Returns a
    :class:`KernelStatus`.

    Bit-identical to :func:`feature_map` + :func:`ons_score` + :func:`ons_step` (or
    :func:`first_order_step`) per round: the landmarks and ``A^{-1}`` are held transposed
    for the loop so that every ordered sum runs side by side with the others (same
    operands, same order), and ``A^{-1} z`` of a projected round is reused by its step
    (``A^{-1}`` has not changed in between)."""
    sm, k = Z.shape
    d = L.shape[1]
    LT = np.empty((d, sm))
    for i in range(sm):
        for j in range(d):
            LT[j, i] = L[i, j]
    acc = np.empty(sm)
    m = np.empty(sm)
    z = np.empty(k)
    w = np.empty(k)
    u = np.empty(k)
    az = np.empty(k)
    cu = np.empty(k)
    AT = np.empty((k, k))
    if second_order:
        for i in range(k):
            for j in range(k):
                AT[j, i] = Ainv[i, j]
    status = 0
    for t in range(start, stop):
        _gauss_row_t(LT, sm, X[t], gamma, acc, m)
        _tmatvec(Z, m, z)
        have_az = False
        if second_order:
            # ons_score
            p = 0.0
            for i in range(k):
                p += z[i] * v[i]
            if project and abs(p) > C:
                _tmatvec(AT, z, az)  # A z from A^T
                have_az = True
                zu = 0.0
                for i in range(k):
                    zu += z[i] * az[i]
                s = 1.0 if p > 0 else -1.0
                step = s * (abs(p) - C) / zu if zu > 0 else 0.0
                for i in range(k):
                    w[i] = v[i] - step * az[i]
                f = s * C
            else:
                for i in range(k):
                    w[i] = v[i]
                f = p
        else:
            f = ordered_dot(z, v)
        if not np.isfinite(f):
            status = 1
            break
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        if second_order:
            # ons_step
            dl = dloss(f, Y[t], loss)
            if dl == 0.0:
                for i in range(k):
                    v[i] = w[i]
                continue
            if not have_az:
                _tmatvec(AT, z, az)  # A z from A^T
            gu = 0.0
            for i in range(k):
                u[i] = dl * az[i]
                gu += dl * z[i] * u[i]
            den = 1.0 + cw * gu
            c = cw / den
            for i in range(k):
                cu[i] = c * u[i]
            for j in range(k):
                uj = u[j]
                for i in range(k):
                    AT[j, i] -= cu[i] * uj
            for i in range(k):
                v[i] = w[i] - u[i] / den
        else:
            first_order_step(z, f, Y[t], loss, eta, lam, v)
    if second_order:
        for i in range(k):
            for j in range(k):
                Ainv[i, j] = AT[j, i]
    return status


@njit(cache=True)
def kernel_ogd_fill(X: np.ndarray, Y: np.ndarray, start: int, stop: int, S: np.ndarray,
                    coef: np.ndarray, n: int, gamma: float, eta: float, loss: int,
                    krow: np.ndarray, preds: np.ndarray, scores: np.ndarray,
                    K: np.ndarray) -> tuple[int, int, int]:
    """Stage 1 of FORKS/SkeGD (Alg. 1 l.3-7): kernel OGD ``f = sum_i a_i kappa(x_i, x)``;
    a round with ``l'(f, y) != 0`` appends ``x`` with ``a = -eta l'(f, y)``. Rounds
    ``start..stop-1`` test-then-train, stopping after the round that fills the buffer
    (``n == S.shape[0]``). Returns ``(status, end, n)``: the :class:`KernelStatus`, the
    first round not run (with ``NONFINITE``: the round whose score is not finite) and the
    new number of stored points. The kernel row is :func:`gauss_row`'s, computed over a
    transposed copy of the buffer (the per-point sums side by side, same bits).

    ``K``: a ``cap x cap`` store of the appended points' kernel rows, or ``0 x 0`` for
    none: appending ``x`` as point ``n`` copies its row against points ``0..n-1`` into
    ``K[n, :n]``. These are the entries below the diagonal of ``gauss_gram(S)`` bit for bit
    (the same ordered sum of ``(S[j, c] - x[c])^2`` over ``c``), so that
    :func:`gram_from_rows` completes the buffer's Gram matrix of the sketch set-up
    (Alg. 1 l.8-9) without recomputing its ``n (n - 1) / 2`` exponentials."""
    cap = S.shape[0]
    d = X.shape[1]
    ST = np.empty((d, cap))
    for i in range(n):
        for j in range(d):
            ST[j, i] = S[i, j]
    acc = np.empty(cap)
    for t in range(start, stop):
        if n == 0:
            f = 0.0
        else:
            _gauss_row_t(ST, n, X[t], gamma, acc, krow)
            f = blas_dot(krow[:n], coef[:n])
        if not np.isfinite(f):
            return 1, t, n
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        dl = dloss(f, Y[t], loss)
        if dl != 0.0:
            for j in range(d):
                S[n, j] = X[t, j]
                ST[j, n] = X[t, j]
            if K.shape[0] > 0:
                for j in range(n):
                    K[n, j] = krow[j]
            coef[n] = -eta * dl
            n += 1
            if n == cap:
                return 0, t + 1, n
    return 0, stop, n


@njit(cache=True)
def scatter_add_rows(R: np.ndarray, h: np.ndarray, g: np.ndarray, K: np.ndarray,
                     J: np.ndarray) -> None:
    """``np.add.at(R, h, g[:, None] * K[:, J])`` (rows in order, the same additions)."""
    for i in range(h.shape[0]):
        a = h[i]
        gi = g[i]
        for c in range(J.shape[0]):
            R[a, c] += gi * K[i, J[c]]


@njit(cache=True)
def pnk_loop(X: np.ndarray, Y: np.ndarray, start: int, stop: int, S: np.ndarray, n: int,
             gamma: float, P: np.ndarray, v: np.ndarray, Ainv: np.ndarray, w: np.ndarray,
             u: np.ndarray, C: float, project: bool, cw: float, loss: int, p: np.ndarray,
             Kinv: np.ndarray, ridge: float, eps: float, beta: float, kors: bool,
             rng: np.random.Generator, krow: np.ndarray, preds: np.ndarray,
             scores: np.ndarray) -> tuple[int, int, float]:
    """PROS-N-KONS rounds ``start..stop-1`` with a fixed dictionary of ``n`` points
    (spec Sec. 8.9): embedding ``z = P k(x)``, the ONS score and step of FORKS Eq. (10),
    then (if ``kors``) the KORS test: ``tau = (1 + eps) / ridge * max(0, 1 - kb^T Kinv kb)``
    with ``kb = k / sqrt(p)``, accept ``x`` with probability ``min(beta tau, 1)`` (one
    ``rng.random()`` per round with a positive probability). Stops after an accepted
    round (the caller updates ``Kinv``, appends ``x`` and restarts the ONS state); the
    kernel row of that round is left in ``krow[:n]``. Returns ``(status, end, p_acc)``:
    the :class:`KernelStatus`, the first round not run and the acceptance probability
    of the accepted round (0 if none)."""
    z = np.zeros(0)
    for t in range(start, stop):
        if n == 0:
            f = 0.0
        else:
            gauss_row(S, n, X[t], gamma, krow)
            z = blas_matvec(P, krow[:n])
            f = ons_score(z, v, Ainv, C, project, w, u)
        if not np.isfinite(f):
            return 1, t, 0.0
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        if n > 0:
            ons_step(z, w, f, Y[t], loss, cw, Ainv, v, u)
        if not kors:
            continue
        pt = kors_probability(krow, p, Kinv, n, eps, ridge, beta)
        if pt <= 0.0 or rng.random() >= pt:
            continue
        return 0, t + 1, pt
    return 0, stop, 0.0
