"""Plain-NumPy references for :mod:`streamlearn.kernels.online_newton_step` (readable,
slow): the loops of the Fast-ONS paper written with whole vectors, as the spec gives them.

* :func:`ons_ref` — regular ONS (eqs. 2-5, 8) with an explicit inverse ``P``; with
  ``offset`` the ``(M+1)``-dimensional ONS on ``[x_t; 1]``.
* :func:`ons_direct_ref` — the same predictor with ``A_t`` summed and solved directly
  (no recursion at all), for checking the recursions against a direct solve.
* :func:`fast_ons_ref` — Algorithm 1 with the three columns of ``B`` as arrays.
* :func:`ogd_ref` — OGD on the absolute loss.
"""

from __future__ import annotations

import math

import numpy as np


def _windows(x: np.ndarray, M: int) -> np.ndarray:
    """Row ``t``: ``[x_t, .., x_{t-M+1}]`` with zeros before the series (small n only)."""
    n = x.size
    W = np.zeros((n, M))
    for t in range(n):
        for j in range(M):
            if t - j >= 0:
                W[t, j] = x[t - j]
    return W


def ons_ref(x: np.ndarray, y: np.ndarray, M: int, alpha: float, inv_mu: float,
            eps: float, offset: bool = False) -> dict[str, np.ndarray]:
    """Regular ONS over inputs ``x`` (x_t) and targets ``y`` (x_{t+1})."""
    feats = _windows(x, M)
    if offset:
        feats = np.hstack([feats, np.ones((x.size, 1))])
    D = feats.shape[1]
    P = np.eye(D) / alpha
    w = np.zeros(D)
    preds, etas = np.empty(x.size), np.empty(x.size)
    for t in range(x.size):
        a = feats[t]
        preds[t] = w @ a
        e = y[t] - preds[t]
        k = P @ a
        eta = 1.0 + a @ k
        P = P - np.outer(k, k) / eta
        if abs(e) > eps:
            w = w + np.sign(e) * inv_mu * k / eta
        etas[t] = eta
    return {"pred": preds, "eta": etas, "w": w, "P": P}


def ons_direct_ref(x: np.ndarray, y: np.ndarray, M: int, alpha: float, inv_mu: float,
                   eps: float, offset: bool = False) -> np.ndarray:
    """ONS predictions with ``A_t^{-1} a_t`` from a direct solve of the summed ``A_t``."""
    feats = _windows(x, M)
    if offset:
        feats = np.hstack([feats, np.ones((x.size, 1))])
    D = feats.shape[1]
    A = alpha * np.eye(D)
    w = np.zeros(D)
    preds = np.empty(x.size)
    for t in range(x.size):
        a = feats[t]
        preds[t] = w @ a
        e = y[t] - preds[t]
        A = A + np.outer(a, a)
        if abs(e) > eps:
            w = w + np.sign(e) * inv_mu * np.linalg.solve(A, a)
    return preds


def fast_ons_ref(x: np.ndarray, y: np.ndarray, M: int, alpha: float, inv_mu: float,
                 eps: float) -> dict[str, np.ndarray]:
    """Algorithm 1 as the spec's explicit loop (columns ``c0, c1, c2`` of ``B``)."""
    Lam = np.zeros((M + 1, 2))
    Lam[0, 0] = Lam[M, 1] = 1.0 / math.sqrt(alpha)
    s = 1.0
    rho = np.zeros(M)
    w = np.zeros(M)
    xt = np.zeros(M + 1)
    preds, etas, omh, resid = (np.empty(x.size) for _ in range(4))
    for t in range(x.size):
        xt = np.concatenate([[x[t]], xt[:-1]])
        xv = xt[:M]
        preds[t] = w @ xv
        e = y[t] - preds[t]
        a, b = xt @ Lam[:, 0], xt @ Lam[:, 1]
        c0 = np.concatenate([[s, 0.0], rho])
        c1 = np.concatenate([[a], Lam[:, 0]])
        c2 = np.concatenate([[b], Lam[:, 1]])
        r = math.hypot(s, a)
        cg, sg = s / r, a / r
        c0, c1 = cg * c0 + sg * c1, -sg * c0 + cg * c1
        h = b / r
        omh[t] = 1.0 - h * h
        g = 1.0 / math.sqrt(omh[t])
        c0, c2 = g * (c0 - h * c2), g * (c2 - h * c0)
        s = c0[0]
        rho = c0[1:M + 1].copy()
        resid[t] = c0[M + 1]
        Lam = np.column_stack([c1[1:], c2[1:]])
        if abs(e) > eps:
            w = w + np.sign(e) * inv_mu * rho / s
        etas[t] = s * s
    return {"pred": preds, "eta": etas, "w": w, "omh": omh, "resid": resid, "rho": rho,
            "Lam": Lam}


def ogd_ref(x: np.ndarray, y: np.ndarray, M: int, lr: float, eps: float,
            offset: bool = False) -> dict[str, np.ndarray]:
    """OGD: ``w += lr sgn(e) a_t`` when ``|e_t| > eps``."""
    feats = _windows(x, M)
    if offset:
        feats = np.hstack([feats, np.ones((x.size, 1))])
    w = np.zeros(feats.shape[1])
    preds = np.empty(x.size)
    for t in range(x.size):
        preds[t] = w @ feats[t]
        e = y[t] - preds[t]
        if abs(e) > eps:
            w = w + lr * np.sign(e) * feats[t]
    return {"pred": preds, "w": w}


def ar2_series(n: int, seed: int) -> np.ndarray:
    """The spec's AR(2) test signal ``x_t = 1.6 x_{t-1} - 0.8 x_{t-2} + 0.1 n_t``, scaled
    to [-1, 1] by min-max."""
    rng = np.random.default_rng(seed)
    x = np.zeros(n)
    noise = rng.normal(size=n)
    for t in range(2, n):
        x[t] = 1.6 * x[t - 1] - 0.8 * x[t - 2] + 0.1 * noise[t]
    return 2.0 * (x - x.min()) / (x.max() - x.min()) - 1.0
