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
(:func:`pnk_loop`). Inner products of the fused loops that the per-sample Python path
computes with NumPy's BLAS (``@``) use ``np.dot`` here, which numba routes to the same
BLAS routine (ddot/dgemv), so the fused and per-sample paths round alike.

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
    "dloss",
    "feature_map",
    "first_order_step",
    "gauss_matrix",
    "gauss_row",
    "kernel_ogd_fill",
    "ons_score",
    "ons_step",
    "pnk_loop",
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
    sm, k = Z.shape
    gauss_row(L, sm, x, gamma, m)
    for c in range(k):
        acc = 0.0
        for j in range(sm):
            acc += Z[j, c] * m[j]
        z[c] = acc


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
def sketch_stage2_loop(X: np.ndarray, Y: np.ndarray, start: int, stop: int, L: np.ndarray,
                       gamma: float, Z: np.ndarray, v: np.ndarray, Ainv: np.ndarray,
                       C: float, project: bool, second_order: bool, cw: float, eta: float,
                       lam: float, loss: int, preds: np.ndarray, scores: np.ndarray) -> int:
    """Regular stage-2 rounds ``start..stop-1`` of FORKS (second order) or SkeGD (first
    order; ``v`` holds ``w``), test-then-train; ``preds[i]`` = 1 for ``+1`` else 0
    (``sgn(0) = +1``), ``scores[i]`` the round's score ``f``. Returns a
    :class:`KernelStatus`."""
    sm, k = Z.shape
    m = np.empty(sm)
    z = np.empty(k)
    w = np.empty(k)
    u = np.empty(k)
    for t in range(start, stop):
        feature_map(X[t], L, gamma, Z, m, z)
        if second_order:
            f = ons_score(z, v, Ainv, C, project, w, u)
        else:
            f = 0.0
            for i in range(k):
                f += z[i] * v[i]
        if not np.isfinite(f):
            return 1
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        if second_order:
            ons_step(z, w, f, Y[t], loss, cw, Ainv, v, u)
        else:
            first_order_step(z, f, Y[t], loss, eta, lam, v)
    return 0


@njit(cache=True)
def kernel_ogd_fill(X: np.ndarray, Y: np.ndarray, start: int, stop: int, S: np.ndarray,
                    coef: np.ndarray, n: int, gamma: float, eta: float, loss: int,
                    krow: np.ndarray, preds: np.ndarray,
                    scores: np.ndarray) -> tuple[int, int, int]:
    """Stage 1 of FORKS/SkeGD (Alg. 1 l.3-7): kernel OGD ``f = sum_i a_i kappa(x_i, x)``;
    a round with ``l'(f, y) != 0`` appends ``x`` with ``a = -eta l'(f, y)``. Rounds
    ``start..stop-1`` test-then-train, stopping after the round that fills the buffer
    (``n == S.shape[0]``). Returns ``(status, end, n)``: the :class:`KernelStatus`, the
    first round not run (with ``NONFINITE``: the round whose score is not finite) and the
    new number of stored points."""
    cap = S.shape[0]
    d = X.shape[1]
    for t in range(start, stop):
        if n == 0:
            f = 0.0
        else:
            gauss_row(S, n, X[t], gamma, krow)
            f = np.dot(krow[:n], coef[:n])
        if not np.isfinite(f):
            return 1, t, n
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        dl = dloss(f, Y[t], loss)
        if dl != 0.0:
            for j in range(d):
                S[n, j] = X[t, j]
            coef[n] = -eta * dl
            n += 1
            if n == cap:
                return 0, t + 1, n
    return 0, stop, n


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
            z = np.dot(P, krow[:n])
            f = ons_score(z, v, Ainv, C, project, w, u)
        if not np.isfinite(f):
            return 1, t, 0.0
        preds[t] = 1 if f >= 0.0 else 0
        scores[t] = f
        if n > 0:
            ons_step(z, w, f, Y[t], loss, cw, Ainv, v, u)
        if not kors:
            continue
        if n > 0:
            kb = krow[:n] / np.sqrt(p[:n])
            q = np.dot(Kinv, kb)
            r = 1.0 - np.dot(kb, q)
            tau = (1.0 + eps) / ridge * (r if r > 0.0 else 0.0)
        else:
            tau = (1.0 + eps) / ridge
        bt = beta * tau
        pt = 1.0 if 1.0 < bt else bt
        if pt <= 0.0 or rng.random() >= pt:
            continue
        return 0, t + 1, pt
    return 0, stop, 0.0
