"""BLS-CIL (streamlearn/algorithms/bls/bls_cil.py; Online-BLS paper, Appendix A.3): the
recursion against the closed form of the objective it minimises, ``K W = S`` with
``K = lam·I + Σ a aᵀ + Σ_{i≥2} λ_i δ_i δ_iᵀ``, ``S = Σ a yᵀ``, after every step; on an
ill-conditioned stream its residual stays small (``K ⪰ I``)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from streamlearn.algorithms.bls.bls_cil import BLSCIL
from streamlearn.components import get_algorithm
from streamlearn.errors import UserError
from tests.algorithms.bls.baseline_helpers import (
    SEEDS,
    SMALL,
    check_same_seed_same_predictions,
    check_shrink_warmup_runs,
    fresh,
    gaussian_rows,
    ill_conditioned_residuals,
    rel,
)


def test_registered_with_the_papers_defaults() -> None:
    assert get_algorithm("bls_cil") is BLSCIL
    assert BLSCIL().lam == 1.0  # identity ridge (Appendix A.3), not the 1e-8 of the others
    assert (BLSCIL().lam1, BLSCIL().lam2) == (0.1, 0.1)


def test_param_validation() -> None:
    with pytest.raises(UserError):
        BLSCIL(lam1=-0.1)


def _bls_cil_closed_form(
    A: np.ndarray, y: np.ndarray, c: int, lam: float, lam1: float, lam2: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``K``, ``S`` and ``W = K⁻¹S`` for the objective
    ``‖AW − Y‖² + lam‖W‖² + Σ_{i≥2} λ_i ‖(a_i − a_{i−1})ᵀW‖²`` (Appendix A.3)."""
    m = A.shape[1]
    K = lam * np.eye(m) + A.T @ A
    for i in range(1, len(y)):
        delta = A[i] - A[i - 1]
        K += (lam2 if y[i] == y[i - 1] else -lam1) * np.outer(delta, delta)
    S = A.T @ np.eye(c)[y]
    return K, S, scipy.linalg.solve(K, S, assume_a="sym")


def _bls_cil_objective(
    W: np.ndarray, A: np.ndarray, y: np.ndarray, c: int, lam: float, lam1: float, lam2: float
) -> float:
    Y = np.eye(c)[y]
    value = float(np.sum((A @ W - Y) ** 2) + lam * np.sum(W**2))
    for i in range(1, len(y)):
        lam_i = lam2 if y[i] == y[i - 1] else -lam1
        value += lam_i * float(np.sum(((A[i] - A[i - 1]) @ W) ** 2))
    return value


@pytest.mark.parametrize("seed", SEEDS)
def test_bls_cil_matches_closed_form_every_step(seed: int) -> None:
    m, c, n = 25, 3, 50
    lam, lam1, lam2 = 1.0, 0.2, 0.05  # distinct so a swapped sign pairing would fail
    A, y = gaussian_rows(seed, n, m, c)
    learner = fresh(BLSCIL, m, c, lam=lam, lam1=lam1, lam2=lam2)
    for k in range(1, n + 1):
        learner._learn_a(A[k - 1].copy(), int(y[k - 1]))
        K, _, W = _bls_cil_closed_form(A[:k], y[:k], c, lam, lam1, lam2)
        assert rel(learner.W_, W) <= 1e-8, k
        assert rel(learner.K_, K) <= 1e-13, k
    same = int(np.sum(y[1:] == y[:-1]))
    assert (learner.n_same_, learner.n_diff_) == (same, n - 1 - same)
    assert same > 0 and n - 1 - same > 0


@pytest.mark.parametrize("seed", range(3))
def test_bls_cil_closed_form_minimises_objective(seed: int) -> None:
    """The closed form used above is the minimiser of the stated objective (K ≻ 0)."""
    m, c, n = 12, 3, 40
    A, y = gaussian_rows(seed, n, m, c)
    K, _, W = _bls_cil_closed_form(A, y, c, 1.0, 0.1, 0.1)
    assert np.linalg.eigvalsh(K).min() >= 1.0 - 1e-9  # K ⪰ I for lam1 ≤ 1/4
    best = _bls_cil_objective(W, A, y, c, 1.0, 0.1, 0.1)
    rng = np.random.default_rng(seed)
    for _ in range(20):
        E = rng.normal(size=W.shape)
        assert _bls_cil_objective(W + 1e-3 * E, A, y, c, 1.0, 0.1, 0.1) > best


def test_bls_cil_first_step_is_papers_initialisation() -> None:
    m, c = 15, 3
    a = np.random.default_rng(3).normal(size=m)
    learner = fresh(BLSCIL, m, c)
    learner._learn_a(a.copy(), 2)
    K1 = np.eye(m) + np.outer(a, a)  # K⁽¹⁾ = I + a₁a₁ᵀ
    expected = np.zeros((m, c))
    expected[:, 2] = np.linalg.solve(K1, a)
    np.testing.assert_allclose(learner.W_, expected, rtol=1e-12, atol=1e-15)
    assert learner.n_same_ == learner.n_diff_ == 0


def _own_residual(W: np.ndarray, A: np.ndarray, y: np.ndarray, Y: np.ndarray) -> float:
    """``‖K W − S‖ / ‖S‖`` against BLS-CIL's own ``K`` and ``S``."""
    K, S, _ = _bls_cil_closed_form(A, y, 3, 1.0, 0.1, 0.1)
    return float(np.linalg.norm(K @ W - S) / np.linalg.norm(S))


@pytest.mark.parametrize("seed", range(3))
def test_normal_equation_residual_ill_conditioned(seed: int) -> None:
    _, worst = ill_conditioned_residuals(BLSCIL(**SMALL, seed=seed), seed, _own_residual)
    assert worst <= 1e-8  # K ⪰ I: well conditioned by construction


def test_same_seed_same_predictions() -> None:
    check_same_seed_same_predictions(BLSCIL)


def test_shrink_warmup_runs() -> None:
    check_shrink_warmup_runs(BLSCIL)


@pytest.mark.parametrize("seed", SEEDS)
def test_cholesky_solver_matches_closed_form_every_step(seed: int) -> None:
    """``solver="cholesky"`` solves ``K W = S`` afresh: the closed form after every step,
    and the same ``K`` and pair counts as the paper's recursion."""
    m, c, n = 25, 3, 50
    lam, lam1, lam2 = 1.0, 0.2, 0.05
    A, y = gaussian_rows(seed, n, m, c)
    solved = fresh(BLSCIL, m, c, lam=lam, lam1=lam1, lam2=lam2, solver="cholesky")
    recursive = fresh(BLSCIL, m, c, lam=lam, lam1=lam1, lam2=lam2)
    for k in range(1, n + 1):
        solved._learn_a(A[k - 1].copy(), int(y[k - 1]))
        recursive._learn_a(A[k - 1].copy(), int(y[k - 1]))
        K, _, W = _bls_cil_closed_form(A[:k], y[:k], c, lam, lam1, lam2)
        assert rel(solved.W_, W) <= 1e-10, k
        assert rel(solved.K_, K) <= 1e-13, k
        assert rel(solved.W_, recursive.W_) <= 1e-8, k
    assert (solved.n_same_, solved.n_diff_) == (recursive.n_same_, recursive.n_diff_)


@pytest.mark.parametrize("seed", range(3))
def test_cholesky_solver_residual_ill_conditioned(seed: int) -> None:
    learner = BLSCIL(**SMALL, seed=seed, solver="cholesky")
    _, worst = ill_conditioned_residuals(learner, seed, _own_residual)
    assert worst <= 1e-12  # backward-stable solve of K ⪰ I, nothing carried (measured ~2e-14)


def test_cholesky_solver_indefinite_K_is_a_user_error() -> None:
    """lam1 > 1/4 can make ``K`` indefinite: a clear error, not a silent wrong W."""
    m, c = 6, 2
    learner = fresh(BLSCIL, m, c, lam=1.0, lam1=50.0, solver="cholesky")
    rng = np.random.default_rng(0)
    with pytest.raises(UserError, match="not numerically positive definite"):
        for k in range(20):
            learner._learn_a(rng.normal(size=m) * 3.0, k % 2)
