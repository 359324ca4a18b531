"""FOGD (streamlearn/algorithms/kernel/fogd.py): its random Fourier features approximate the
Gaussian kernel, and its step is OGD on them, replayed by hand."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose

from streamlearn.algorithms.kernel.fogd import FOGD
from streamlearn.kernels.forks_budget import gauss_matrix
from tests.algorithms.kernel.kernel_helpers import GAMMA, SIGMA, binary_stream


def test_fogd_features_and_step() -> None:
    X, y = binary_stream(1, n=50)
    m = FOGD(sigma=SIGMA, budget=5, seed=0)
    m.reset(X.shape[1], 2)
    assert m.Omega_.shape == (3, 20) and m.w_.shape == (40,)
    # the random features approximate the kernel up to the missing 1/D_f scale
    Z = np.array([np.concatenate([np.cos(x @ m.Omega_), np.sin(x @ m.Omega_)]) for x in X])
    big = FOGD(sigma=SIGMA, budget=500, seed=1)
    big.reset(3, 2)
    Zb = np.array([np.concatenate([np.cos(x @ big.Omega_), np.sin(x @ big.Omega_)])
                   for x in X])
    assert np.abs(Zb @ Zb.T / 2000 - gauss_matrix(X, X, GAMMA)).max() < 0.1
    w = np.zeros(40)
    for i in range(len(y)):
        f = float(Z[i] @ w)
        assert m.predict_one(X[i]) == (1 if f >= 0 else 0)
        m.learn_one(X[i], y[i])
        yy = 1.0 if y[i] == 1 else -1.0
        if yy * f < 1:
            w += 0.2 * yy * Z[i]
    assert_allclose(m.w_, w, rtol=1e-12)
