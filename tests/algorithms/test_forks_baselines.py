"""The FORKS paper's baselines (streamlearn/algorithms/kernel/forks_baselines.py) against literal
per-sample transcriptions of the toolbox loops (tests/reference/forks_budget.py), plus
the invariants of their budget maintenance (inverse updates against direct inverses,
the budget never exceeded, the NOGD model transfer)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.algorithms.kernel.forks_baselines import (
    BOGD,
    BPAS,
    FOGD,
    NOGD,
    PROSNKONS,
    RBP,
    Projectron,
)
from streamlearn.algorithms.kernel.kernel_budget import pm1_labels
from streamlearn.base import UserError
from streamlearn.kernels.forks_budget import gauss_matrix
from tests.fused_helpers import assert_fused_equals_loop
from tests.reference import forks_budget as ref


def _stream(seed: int, n: int = 300, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def _run(model, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    model.reset(X.shape[1], 2)
    return np.array([(model.predict_one(X[i]), model.learn_one(X[i], y[i]))[0]
                     for i in range(len(y))])


SIGMA = 0.8
GAMMA = 1.0 / (2 * SIGMA**2)


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_rbp_matches_literal_loop(seed: int) -> None:
    X, y = _stream(seed)
    got = _run(RBP(sigma=SIGMA, budget=15, seed=seed), X, y)
    assert_array_equal(got, ref.rbp(X, pm1_labels(y), GAMMA, 15, seed))


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_bpa_s_matches_literal_loop(seed: int) -> None:
    X, y = _stream(seed)
    got = _run(BPAS(sigma=SIGMA, budget=15, C=1.0), X, y)
    assert_array_equal(got, ref.bpa_s(X, pm1_labels(y), GAMMA, 15, 1.0))


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_bogd_matches_literal_loop(seed: int) -> None:
    X, y = _stream(seed)
    got = _run(BOGD(sigma=SIGMA, budget=15, lam=0.01, seed=seed), X, y)
    assert_array_equal(got, ref.bogd(X, pm1_labels(y), GAMMA, 15, 0.2, 0.01, 10.0, seed))


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_projectron_matches_loop_with_direct_inverse(seed: int) -> None:
    X, y = _stream(seed)
    m = Projectron(sigma=SIGMA, budget=12)
    got = _run(m, X, y)
    assert_array_equal(got, ref.projectron(X, pm1_labels(y), GAMMA, 12))
    n = m.n_sv_
    K = gauss_matrix(m.sv_[:n], m.sv_[:n], GAMMA)
    assert_allclose(m.Kinv_[:n, :n] @ K, np.eye(n), atol=1e-6)


def test_projectron_duplicate_points_project_instead_of_adding() -> None:
    X, y = _stream(0, n=40)
    X = np.repeat(X[:4], 10, axis=0)
    y = np.tile([0, 1], 20)
    m = Projectron(sigma=SIGMA, budget=30)
    _run(m, X, y)
    assert m.n_sv_ <= 4 and np.all(np.isfinite(m.coef_))


@pytest.mark.parametrize("cls", [RBP, BPAS, BOGD, Projectron, NOGD])
def test_budget_never_exceeded(cls: type) -> None:
    X, y = _stream(5, n=400)
    m = cls(sigma=SIGMA, budget=10, seed=0)
    m.reset(X.shape[1], 2)
    for i in range(len(y)):
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
        assert m.n_sv_ <= 10
    assert m.n_sv_ == 10


def test_fogd_features_and_step() -> None:
    X, y = _stream(1, n=50)
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


def test_nogd_transfer_keeps_the_kernel_model_on_its_span() -> None:
    """At the switch, w = (a^T M^+)^T: with k = B (no truncation) the linear model
    reproduces the kernel expansion's scores exactly (toolbox NysGD.m transfer)."""
    X, y = _stream(2, n=400)
    m = NOGD(sigma=SIGMA, budget=8, k_ratio=1.0)
    m.reset(X.shape[1], 2)
    for i in range(len(y)):
        before = m.linear_
        coef = m.coef_.copy()
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
        if m.linear_ and not before:
            break
    else:
        pytest.fail("NOGD never switched")
    probe = X[-20:]
    kernel_scores = gauss_matrix(probe, m.sv_, GAMMA) @ coef
    assert m.M_.shape[0] == 8
    # the model right after the transfer = w minus the first linear step
    z = m.M_ @ gauss_matrix(X[i][None, :], m.sv_, GAMMA)[0]
    yy = 1.0 if y[i] == 1 else -1.0
    transferred = m.w_ - 0.2 * yy * z
    assert_allclose(gauss_matrix(probe, m.sv_, GAMMA) @ m.M_.T @ transferred, kernel_scores,
                    atol=1e-6)


@pytest.mark.parametrize(("seed", "sigma", "max_dict", "n_min"),
                         [(0, SIGMA, 80, 1), (1, SIGMA, 80, 1), (2, SIGMA, 80, 1),
                          (0, 1.5, None, 65), (3, 1.5, None, 65)])
def test_pros_n_kons_kors_inverse_and_embedding(seed: int, sigma: float,
                                                max_dict: int | None, n_min: int) -> None:
    """The incrementally grown (W^1/2 K_I W^1/2 + ridge I)^{-1} equals the direct inverse,
    also past a growth of the storage (64 -> 128 points, uncapped), and the embedding P
    satisfies P K_I P^T = I on the kept rank."""
    X, y = _stream(seed, n=300 if max_dict else 600)
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
    X, y = _stream(seed, n=600)
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
    X, y = _stream(5, n=400)
    a, _ = assert_fused_equals_loop(lambda: PROSNKONS(sigma=1e7, seed=0, max_dict=40),
                                    X, y, 37)
    assert a.P_.shape[0] == 1 and a.n_sv_ > 3


def test_pros_n_kons_cap_and_first_point() -> None:
    X, y = _stream(0, n=200)
    m = PROSNKONS(sigma=SIGMA, seed=0, max_dict=5)
    m.reset(3, 2)
    m.predict_one(X[0])
    m.learn_one(X[0], y[0])
    assert m.n_sv_ == 1 and m.p_[0] == 1.0  # p_1 = min(beta (1 + eps) / ridge, 1) = 1
    for i in range(1, 200):
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
    assert m.n_sv_ == 5


def test_baseline_user_errors() -> None:
    with pytest.raises(UserError, match="C"):
        BPAS(C=0.0)
    with pytest.raises(UserError, match="two classes"):
        RBP(sigma=1.0).reset(3, 4)
    with pytest.raises(UserError, match="loss"):
        NOGD(loss="logistic")
