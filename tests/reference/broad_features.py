"""Plain-NumPy references of ``streamlearn/kernels/broad_features.py``.

Written for readability from the Online-BLS paper: broad features ``a = [z, h]`` with
``z = x Wf + bf`` (eq. 1, ``φ`` the identity) and ``h = tanh(t (z We + be))`` (eq. 28),
concatenated as in eq. 3; prediction ``ŷᵀ = aᵀW`` (Alg. 1 line 5). Functions return new
arrays instead of updating in place.
"""

from __future__ import annotations

import numpy as np

from tests.reference import vector_math


def broad_features(X, Wf, bf, We, be, scale=1.0, row_zscore=False, vector_tanh=False):
    """``a = [z, tanh(scale (z We + be))]``, ``z = x Wf + bf`` (eqs. 1, 28, 3); ``tanh``
    NumPy's, or with ``vector_tanh`` the reference of the kernels' vectorised one."""
    X = np.asarray(X, dtype=np.float64)
    if row_zscore:
        X = X - X.mean(axis=1, keepdims=True)
        sd = np.sqrt((X**2).mean(axis=1, keepdims=True))
        X = X / np.where(sd > 0, sd, 1.0)
    Z = X @ Wf + bf
    H = (vector_math.tanh if vector_tanh else np.tanh)(scale * (Z @ We + be))
    return np.hstack([Z, H])


def enhancement_absmax(X, Wf, bf, We, be, row_zscore=False):
    A = broad_features(X, Wf, bf, We, be, 1.0, row_zscore)
    Z = A[:, : Wf.shape[1]]
    return float(np.abs(Z @ We + be).max())


def scores(a, W):
    return W.T @ a


def argmax_first(v):
    return int(np.argmax(v))
