"""Plain-NumPy references of ``streamlearn/kernels/online_bls_loops.py``.

The test-then-train loops over a chunk of broad features (Online-BLS paper, Alg. 1 lines
5–7, Alg. 2 between refactorisations, the gain-vector and square-root forms, the latter
with and without forgetting), composed
from the references of :mod:`tests.reference.cholesky_update`. Functions return new
arrays instead of updating in place.
"""

from __future__ import annotations

import numpy as np

from tests.reference.broad_features import argmax_first, scores
from tests.reference.cholesky_update import (
    chol_update,
    chol_update_unit,
    solve_u,
    solve_u_rows,
    solve_ut,
    solve_ut_rows,
)


def obls_run(U, W, A, y):
    """Algorithm 1 over the rows of ``A``; returns ``(U, W, predictions)``."""
    U, W = np.array(U, dtype=np.float64), np.array(W, dtype=np.float64)
    c = W.shape[1]
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        U, _ = chol_update(U, a)
        B = np.outer(a, r)
        C = solve_ut_rows(U, B.T)  # forward, eq. 13
        dW = solve_u_rows(U, C)  # backward, eq. 14
        W = W + dW.T
    return U, W, np.array(pred, dtype=np.int64)


def gain_run(U, W, A, y, beta=1.0, alpha=0.0, pos=0):
    """Gain-vector step over the rows of ``A``; returns ``(U, W, predictions, pos)``."""
    U, W = np.array(U, dtype=np.float64), np.array(W, dtype=np.float64)
    m, c = W.shape
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        if alpha > 0:
            U = chol_update_unit(U, pos, alpha / beta)
            pos = (pos + 1) % m
        U, v = chol_update(U, a, beta)
        g = solve_u(U, v)
        W = W + np.outer(g, r)
    return U, W, np.array(pred, dtype=np.int64), pos


def ada_gain_run(U, P, W, A, y, mu):
    """Alg. 2 between refactorisations: ``P ← μP + aaᵀ`` (upper triangle), factor of
    ``μUᵀU + aaᵀ``, gain step. Returns ``(U, P, W, predictions)``."""
    U, P, W = (np.array(M, dtype=np.float64) for M in (U, P, W))
    c = W.shape[1]
    pred = []
    for a, label in zip(A, y, strict=True):
        yh = scores(a, W)
        pred.append(argmax_first(yh))
        r = np.eye(c)[label] - yh
        P = np.triu(mu * P + np.outer(a, a)) + np.tril(P, -1)
        U, v = chol_update(U, a, np.sqrt(mu))
        W = W + np.outer(solve_u(U, v), r)
    return U, P, W, np.array(pred, dtype=np.int64)


def sqrt_run(U, Z, A, y, mu=1.0):
    """Square-root information form: rotate ``[aᵀ yᵀ; √μU √μZ]`` by the EOUS Givens
    rotations (the first ``m`` columns decide them); predict with ``Zᵀ U⁻ᵀ a`` before the
    update. ``μ = 1``: Alg. 1's ridge weights; ``μ < 1``: exponential forgetting (Alg. 2
    line 6 in the factor). Returns ``(U, Z, predictions)``."""
    U, Z = np.array(U, dtype=np.float64), np.array(Z, dtype=np.float64)
    m, c = Z.shape
    pred = []
    for a, label in zip(A, y, strict=True):
        q = solve_ut(U, a)
        pred.append(argmax_first(Z.T @ q))
        M = np.sqrt(mu) * np.hstack([U, Z])  # (m, m + c)
        top = np.concatenate([a, np.eye(c)[label]])
        for i in range(m):
            r = np.hypot(M[i, i], top[i])
            cth, sth = M[i, i] / r, top[i] / r
            row = M[i].copy()
            M[i] = cth * row + sth * top
            top = cth * top - sth * row
        U, Z = np.triu(M[:, :m]), M[:, m:]
    return U, Z, np.array(pred, dtype=np.int64)
