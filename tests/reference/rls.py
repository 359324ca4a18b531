"""Plain-NumPy reference for :mod:`streamlearn.kernels.rls` (readable, slow).

Exponentially weighted RLS with one-hot targets; see the kernel module for the equations.
"""

from __future__ import annotations

import numpy as np


def rls_update_ref(
    P: np.ndarray, W: np.ndarray, a: np.ndarray, y_onehot: np.ndarray, mu: float
) -> tuple[np.ndarray, np.ndarray]:
    """One RLS step; returns new ``(P, W)`` (inputs are not modified)."""
    Pa = P @ a
    g = Pa / (mu + a @ Pa)
    W = W + np.outer(g, y_onehot - a @ W)
    P = (P - np.outer(g, a @ P)) / mu
    return P, W


def rls_predict_learn_ref(
    P: np.ndarray, W: np.ndarray, X: np.ndarray, y: np.ndarray, mu: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Test-then-train loop over ``(X, y)``; returns ``(predictions, P, W)``."""
    c = W.shape[1]
    preds = np.empty(X.shape[0], dtype=np.int64)
    for t in range(X.shape[0]):
        a = np.append(X[t], 1.0)
        preds[t] = int(np.argmax(W.T @ a))  # argmax: ties go to the smallest index
        P, W = rls_update_ref(P, W, a, np.eye(c)[y[t]], mu)
    return preds, P, W


def ridge_direct(A: np.ndarray, Y: np.ndarray, lam: float, mu: float = 1.0) -> np.ndarray:
    """Direct solve of the (exponentially weighted) ridge problem on all rows of ``A``.

    Row j of k is weighted by ``mu^(k-1-j)`` and the ridge term by ``mu^k``; for ``mu = 1``
    this is ``(A^T A + lam I)^{-1} A^T Y``.
    """
    import scipy.linalg

    k, d = A.shape
    w = mu ** np.arange(k - 1, -1, -1, dtype=np.float64)
    G = A.T @ (w[:, None] * A) + (mu**k) * lam * np.eye(d)
    return scipy.linalg.solve(G, A.T @ (w[:, None] * Y), assume_a="pos")
