"""Shared pieces of the kernel learners' tests: the toy binary streams, the per-sample
test-then-train loop and the budget invariant of the budgeted baselines."""

from __future__ import annotations

import numpy as np

SIGMA = 0.8
GAMMA = 1.0 / (2 * SIGMA**2)


def binary_stream(seed: int, n: int = 300, d: int = 3) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian inputs, labels from a noisy nonlinear boundary (not kernel-separable)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (np.sin(2 * X[:, 0]) + X[:, 1] + 0.4 * rng.normal(size=n) > 0).astype(np.int64)
    return X, y


def quadratic_stream(seed: int, n: int = 600, d: int = 4) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian inputs, labels from a noisy quadratic boundary (the FORKS/SkeGD tests)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=n) > 0.5).astype(np.int64)
    return X, y


#: a small FORKS/SkeGD setting whose stage 2 and update rounds a 600-row stream reaches
SKETCH_SMALL = {"sigma": 1.5, "budget": 20, "rho": 50}


def run_per_sample(model, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Reset ``model`` and run the per-sample loop; its predictions."""
    model.reset(X.shape[1], 2)
    return np.array([(model.predict_one(X[i]), model.learn_one(X[i], y[i]))[0]
                     for i in range(len(y))])


def assert_budget_never_exceeded(cls: type) -> None:
    """A budget of 10 is never exceeded in any round, and is reached."""
    X, y = binary_stream(5, n=400)
    m = cls(sigma=SIGMA, budget=10, seed=0)
    m.reset(X.shape[1], 2)
    for i in range(len(y)):
        m.predict_one(X[i])
        m.learn_one(X[i], y[i])
        assert m.n_sv_ <= 10
    assert m.n_sv_ == 10
