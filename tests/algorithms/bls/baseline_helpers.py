"""Shared pieces of the tests of the inverse-based BLS baselines I-BLS, RI-BLS and BLS-CIL
(Online-BLS paper, Appendix A): learners driven on given broad features, Gaussian and
ill-conditioned streams, the ridge residual, and the two checks every baseline runs
(seeding and the shrinkage warm-up)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.testing import assert_array_equal

SEEDS = range(5)
SMALL = {"n1": 4, "n2": 5, "n3": 25, "n4": 1}  # m = 45


def rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


def fresh(cls: type, m: int, c: int, **params: object):
    """A learner reset for ``m`` broad features, driven through ``_learn_a`` directly."""
    learner = cls(n1=1, n2=1, n3=m - 1, n4=1, seed=0, **params)
    learner.reset(2, c)
    assert learner.W_.shape == (m, c)
    return learner


def gaussian_rows(seed: int, n: int, m: int, c: int, rank: int | None = None):
    rng = np.random.default_rng(seed)
    if rank is None:
        A = rng.normal(size=(n, m))
    else:
        A = rng.normal(size=(n, rank)) @ rng.normal(size=(rank, m)) / np.sqrt(rank)
    y = rng.integers(0, c, size=n)
    return A, y


def ill_conditioned_stream(seed: int, n: int = 120, d: int = 4, c: int = 3):
    """Raw-scale inputs (x ∈ [0, 100]^d): large linear feature nodes, saturated tanh nodes
    and a rank-deficient feature block, so ``κ(AᵀA + 1e-8 I)`` is ~1e16 or worse."""
    rng = np.random.default_rng(100 + seed)
    X = rng.uniform(0.0, 100.0, size=(n, d))
    y = (X[:, 0] + X[:, 1] > 100.0).astype(np.int64) + (X[:, 2] > 70.0)
    return X, np.minimum(y, c - 1)


def run_prequential(learner, X: np.ndarray, y: np.ndarray, n_classes: int) -> np.ndarray:
    learner.reset(X.shape[1], n_classes)
    preds = np.empty(len(y), dtype=np.int64)
    for i in range(len(y)):
        preds[i] = learner.predict_one(X[i])
        learner.learn_one(X[i], int(y[i]))
    return preds


def ridge_residual(W: np.ndarray, A: np.ndarray, Y: np.ndarray, lam: float) -> float:
    """‖(AᵀA + λI)W − AᵀY‖_F / ‖AᵀY‖_F."""
    AtY = A.T @ Y
    return float(np.linalg.norm(A.T @ (A @ W) + lam * W - AtY) / np.linalg.norm(AtY))


def ill_conditioned_residuals(
    learner, seed: int,
    residual: Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray], float],
) -> tuple[float, float]:
    """Run ``learner`` on the ill-conditioned stream (3 classes); the final and the largest
    ``residual(W, A_k, y_k, Y_k)`` over the prefixes, printed (run with ``-s``) with
    ``κ(AᵀA + 1e-8 I)``. The weights must stay finite."""
    X, y = ill_conditioned_stream(seed)
    c = 3
    Y = np.eye(c)[y]
    learner.reset(X.shape[1], c)
    A = learner.features_.transform(X)
    worst = 0.0
    for k in range(1, len(y) + 1):
        learner.learn_one(X[k - 1], int(y[k - 1]))
        rho = residual(learner.W_, A[:k], y[:k], Y[:k])
        worst = max(worst, rho)
    K = A.T @ A + 1e-8 * np.eye(A.shape[1])
    print(f"\nseed {seed} {type(learner).__name__:8s} κ(AᵀA+λI)={np.linalg.cond(K):.1e} "
          f"final ρ={rho:.2e} max ρ={worst:.2e}")
    assert np.isfinite(learner.W_).all()
    return rho, worst


def check_same_seed_same_predictions(cls: type) -> None:
    """One seed, one run: a second learner, a clone and a reset repeat it; another seed
    draws other random features."""
    rng = np.random.default_rng(7)
    X = rng.uniform(0.0, 1.0, size=(60, 4))
    y = rng.integers(0, 3, size=60)
    first = cls(**SMALL, seed=11)
    p1 = run_prequential(first, X, y, 3)
    p2 = run_prequential(cls(**SMALL, seed=11), X, y, 3)
    p3 = run_prequential(first.clone(), X, y, 3)
    assert_array_equal(p1, p2)
    assert_array_equal(p1, p3)
    W1 = first.W_.copy()
    run_prequential(first, X, y, 3)  # reset() starts over
    assert_array_equal(first.W_, W1)
    other = cls(**SMALL, seed=12)
    other.reset(4, 3)
    assert not np.array_equal(other.features_.We, first.features_.We)


def check_shrink_warmup_runs(cls: type) -> None:
    """The shrinkage warm-up predicts class 0 on its prefix, then learns every sample."""
    rng = np.random.default_rng(8)
    X = rng.uniform(0.0, 1.0, size=(30, 4))
    y = rng.integers(0, 3, size=30)
    learner = cls(**SMALL, seed=1, enh_shrink=0.8, shrink_warmup=5)
    preds = run_prequential(learner, X, y, 3)
    assert (preds[:5] == 0).all()
    assert learner.n_seen_ == 30
    assert np.isfinite(learner.W_).all()
