"""RI-BLS (streamlearn/algorithms/bls/ribls.py; Online-BLS paper, Appendix A.2): the
recursion against ``scipy.linalg.solve(AᵀA + λI, AᵀY)`` (ridge normal equations) after
every step, through given broad features and through the feature map; at ``λ = 1e-8`` on
an ill-conditioned stream the residual is printed (run with ``-s``) and loosely bounded."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from streamlearn.algorithms.bls.ribls import RIBLS
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
    ridge_residual,
    run_prequential,
)


def test_registered_with_the_papers_defaults() -> None:
    assert get_algorithm("ribls") is RIBLS
    assert RIBLS().lam == 1e-8


def test_param_validation() -> None:
    with pytest.raises(UserError):
        RIBLS(lam=0.0)
    with pytest.raises(UserError):
        RIBLS(inverse="cholesky")
    with pytest.raises(UserError):
        RIBLS(precision="float16")


@pytest.mark.parametrize("inverse", ["numpy", "getri"])
@pytest.mark.parametrize("seed", SEEDS)
def test_ribls_matches_ridge_solve_every_step(seed: int, inverse: str) -> None:
    m, c, n, lam = 30, 3, 60, 1e-2
    A, y = gaussian_rows(seed, n, m, c)
    Y = np.eye(c)[y]
    learner = fresh(RIBLS, m, c, lam=lam, inverse=inverse)
    for k in range(1, n + 1):
        learner._learn_a(A[k - 1].copy(), int(y[k - 1]))
        Ak, Yk = A[:k], Y[:k]
        W = scipy.linalg.solve(Ak.T @ Ak + lam * np.eye(m), Ak.T @ Yk, assume_a="pos")
        assert rel(learner.W_, W) <= 1e-8, k
    np.testing.assert_allclose(learner.U_, A.T @ A, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(learner.V_, A.T @ Y, rtol=1e-12, atol=1e-12)


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", SEEDS)
def test_float32_matches_ridge_solve_to_single_precision(seed: int) -> None:
    """``precision="float32"``: the same recursion in single precision, so on a
    well-conditioned problem (κ ≲ 1e3) the weights agree with the float64 direct solve to
    κ·u₃₂ ≈ 1e-4 (bound 1e-3) and differ from it by more than double precision would."""
    m, c, n, lam = 30, 3, 60, 1e-1
    A, y = gaussian_rows(seed, n, m, c)
    Y = np.eye(c)[y]
    learner = fresh(RIBLS, m, c, lam=lam, precision="float32")
    worst = 0.0
    for k in range(1, n + 1):
        learner._learn_a(A[k - 1].copy(), int(y[k - 1]))
        Ak, Yk = A[:k], Y[:k]
        K = Ak.T @ Ak + lam * np.eye(m)
        assert np.linalg.cond(K) < 1e4, k
        W = scipy.linalg.solve(K, Ak.T @ Yk, assume_a="pos")
        err = rel(learner.W_, W)
        assert err <= 1e-3, k
        worst = max(worst, err)
    assert learner.U_.dtype == np.float32 and learner.W_.dtype == np.float64
    assert worst > 1e-9  # it did run in single precision


@pytest.mark.floatpath
@pytest.mark.parametrize("seed", range(3))
def test_float32_loses_more_than_float64_when_ill_conditioned(seed: int) -> None:
    """At λ = 1e-8 on an ill-conditioned stream single precision loses more than double:
    λ is below float32's resolution of ``U``'s diagonal, so ``U + λI`` is singular to
    working precision; LU then either meets an exactly zero pivot (a ``UserError`` that
    names the singular matrix; which case occurs depends on the CPU's rounding) or
    returns weights with a larger normal-equation residual than float64's."""
    def residual(learner: RIBLS) -> float:
        rho, _ = ill_conditioned_residuals(learner, seed,
                                           lambda W, A, y, Y: ridge_residual(W, A, Y, 1e-8))
        return rho

    rho64 = residual(RIBLS(**SMALL, lam=1e-8, seed=seed))
    try:
        rho32 = residual(RIBLS(**SMALL, lam=1e-8, seed=seed, precision="float32"))
    except UserError as exc:
        assert "singular" in str(exc)
        return
    assert rho32 > rho64


@pytest.mark.parametrize("seed", SEEDS)
def test_ribls_through_feature_map(seed: int) -> None:
    rng = np.random.default_rng(seed)
    X = rng.uniform(0.0, 1.0, size=(50, 3))
    y = rng.integers(0, 3, size=50)
    learner = RIBLS(**SMALL, lam=1e-1, seed=seed)
    preds = run_prequential(learner, X, y, 3)
    assert preds[0] == 0  # W⁽⁰⁾ = 0 predicts class 0 (Alg. 1 line 1)
    A = learner.features_.transform(X)
    Y = np.eye(3)[y]
    W = scipy.linalg.solve(A.T @ A + 0.1 * np.eye(A.shape[1]), A.T @ Y)
    assert rel(learner.W_, W) <= 1e-8


@pytest.mark.parametrize("seed", range(3))
def test_normal_equation_residual_ill_conditioned(seed: int) -> None:
    rho, _ = ill_conditioned_residuals(RIBLS(**SMALL, lam=1e-8, seed=seed), seed,
                                       lambda W, A, y, Y: ridge_residual(W, A, Y, 1e-8))
    assert rho <= 1.0  # loose: explicit inverse at κ ≳ 1e16 (see printed values)


def test_same_seed_same_predictions() -> None:
    check_same_seed_same_predictions(RIBLS)


def test_shrink_warmup_runs() -> None:
    check_shrink_warmup_runs(RIBLS)
