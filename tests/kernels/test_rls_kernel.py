"""Numba kernels of ``streamlearn.kernels.rls`` against their NumPy references
(``tests/reference/rls.py``). Also run without the JIT by tests/kernels/test_nojit.py."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.kernels.rls import RLSStatus, rls_predict_learn, rls_update
from tests.reference.rls import rls_predict_learn_ref, rls_update_ref

SEEDS = range(2) if numba.config.DISABLE_JIT else range(5)


def _data(seed: int, n: int = 60, d: int = 5, c: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d)
    y = rng.integers(0, c, size=n)
    return X, y


@settings(max_examples=40, deadline=None)
@given(
    d=st.integers(1, 7),
    c=st.integers(1, 4),
    mu=st.sampled_from([1.0, 0.99, 0.7]),
    seed=st.integers(0, 2**32 - 1),
)
def test_rls_update_matches_reference(d: int, c: int, mu: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(d, d))
    P = B @ B.T + 0.1 * np.eye(d)  # a symmetric positive definite state
    W = rng.normal(size=(d, c))
    a = rng.normal(size=d)
    y = np.eye(c)[rng.integers(0, c)]
    P_ref, W_ref = rls_update_ref(P, W, a, y, mu)
    status = rls_update(P, W, a, y, mu)
    assert status == RLSStatus.OK
    assert_allclose(W, W_ref, rtol=1e-10, atol=1e-10 * np.abs(W_ref).max())
    assert_allclose(P, P_ref, rtol=1e-10, atol=1e-10 * np.abs(P_ref).max())
    assert_array_equal(P, P.T)  # the kernel keeps P exactly symmetric


@pytest.mark.parametrize("mu", [1.0, 0.95])
@pytest.mark.parametrize("seed", SEEDS)
def test_rls_predict_learn_matches_reference(seed: int, mu: float) -> None:
    X, y = _data(seed, n=80, d=4, c=3)
    d = X.shape[1] + 1
    P0, W0 = np.eye(d) / 0.5, np.zeros((d, 3))
    preds_ref, P_ref, W_ref = rls_predict_learn_ref(P0, W0, X, y, mu)
    P, W = P0.copy(), W0.copy()
    out = np.empty(len(y), dtype=np.int64)
    assert rls_predict_learn(P, W, X, y, mu, out) == RLSStatus.OK
    assert_array_equal(out, preds_ref)
    assert_allclose(W, W_ref, rtol=1e-9, atol=1e-12)
    assert_allclose(P, P_ref, rtol=1e-9, atol=1e-12 * np.abs(P_ref).max())
