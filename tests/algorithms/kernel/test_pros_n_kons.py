"""PROS-N-KONS (streamlearn/algorithms/kernel/pros_n_kons.py): the incrementally grown KORS
inverse against the direct inverse, the Nyström embedding, the fused chunk against the
per-sample loop, and the dictionary cap."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from streamlearn.algorithms.kernel.pros_n_kons import PROSNKONS
from streamlearn.kernels.forks_budget import gauss_matrix
from tests.algorithms.kernel.kernel_helpers import SIGMA, binary_stream
from tests.fused_helpers import assert_fused_equals_loop


@pytest.mark.parametrize(("seed", "sigma", "max_dict", "n_min"),
                         [(0, SIGMA, 80, 1), (1, SIGMA, 80, 1), (2, SIGMA, 80, 1),
                          (0, 1.5, None, 65), (3, 1.5, None, 65)])
def test_pros_n_kons_kors_inverse_and_embedding(seed: int, sigma: float,
                                                max_dict: int | None, n_min: int) -> None:
    """The incrementally grown (W^1/2 K_I W^1/2 + ridge I)^{-1} equals the direct inverse,
    also past a growth of the storage (64 -> 128 points, uncapped), and the embedding P
    satisfies P K_I P^T = I on the kept rank."""
    X, y = binary_stream(seed, n=300 if max_dict else 600)
    m = PROSNKONS(sigma=sigma, seed=seed, max_dict=max_dict)
    m.reset(X.shape[1], 2)
    m.predict_learn_many(X, y)
    n = m.n_sv_
    assert n_min < n <= (max_dict or 600)
    W = np.diag(1.0 / np.sqrt(m.p_[:n]))
    K = gauss_matrix(m.sv_[:n], m.sv_[:n], m.gamma_)
    direct = np.linalg.inv(W @ K @ W + m.ridge * np.eye(n))
    assert_allclose(m.Kbar_inv_[:n, :n], direct, rtol=1e-7, atol=1e-9)
    m._restart()
    assert_allclose(m.P_ @ K @ m.P_.T, np.eye(m.P_.shape[0]), atol=1e-6)


@pytest.mark.floatpath
@pytest.mark.parametrize(("seed", "loss", "max_dict", "chunk"), [
    (0, "hinge", None, 600), (1, "squared_hinge", None, 61), (2, "hinge", 40, 250),
    (3, "squared_hinge", None, 600)])
def test_pros_n_kons_fused_equals_per_sample_loop(seed: int, loss: str,
                                                  max_dict: int | None, chunk: int) -> None:
    """predict_learn_many (numba rounds between dictionary changes) gives the per-sample
    loop's predictions, scores, dictionary and random draws bit for bit, also across a
    growth of the dictionary storage (64 -> 128 points)."""
    X, y = binary_stream(seed, n=600)
    a, b = assert_fused_equals_loop(
        lambda: PROSNKONS(sigma=1.5, seed=seed, loss=loss, max_dict=max_dict), X, y, chunk)
    assert a.n_sv_ > (30 if max_dict else 64)
    assert (b.n_sv_, b.n_restarts_, b.t_) == (a.n_sv_, a.n_restarts_, a.t_)
    np.testing.assert_array_equal(a.sv_[:a.n_sv_], b.sv_[:b.n_sv_])
    np.testing.assert_array_equal(a.Kbar_inv_, b.Kbar_inv_)
    assert a._rng.random() == b._rng.random()


@pytest.mark.floatpath
def test_pros_n_kons_fused_equals_per_sample_loop_with_a_one_row_embedding() -> None:
    """A kernel so wide that the Gram matrix has numerical rank 1 leaves a one-row
    embedding ``P``: NumPy's ``P @ k`` is then a ``ddot``, the fused loop's a ``dgemv``,
    and the scores differed; both paths now call the same function."""
    X, y = binary_stream(5, n=400)
    a, _ = assert_fused_equals_loop(lambda: PROSNKONS(sigma=1e7, seed=0, max_dict=40),
                                    X, y, 37)
    assert a.P_.shape[0] == 1 and a.n_sv_ > 3


def test_pros_n_kons_cap_and_first_point() -> None:
    X, y = binary_stream(0, n=200)
    m = PROSNKONS(sigma=SIGMA, seed=0, max_dict=5)
    m.reset(3, 2)
    m.predict_one(X[0])
    m.learn_one(X[0], y[0])
    assert m.n_sv_ == 1 and m.p_[0] == 1.0  # p_1 = min(beta (1 + eps) / ridge, 1) = 1
    for i in range(1, 200):
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
    assert m.n_sv_ == 5
