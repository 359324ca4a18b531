"""Tests for the recursive ridge classifier ``rls`` (its kernels against the NumPy
reference: tests/kernels/test_rls_kernel.py)."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from streamlearn.algorithms.linear.rls import RLS
from streamlearn.components import get_algorithm
from streamlearn.datasets.synthetic.drift import SEAStream
from streamlearn.errors import UserError
from tests.reference.rls import ridge_direct

EPS = np.finfo(np.float64).eps


def _data(seed: int, n: int = 60, d: int = 5, c: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * rng.uniform(0.5, 3.0, size=d) + rng.normal(size=d)
    y = rng.integers(0, c, size=n)
    return X, y


def _augment(X: np.ndarray) -> np.ndarray:
    return np.column_stack([X, np.ones(X.shape[0])])


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.linalg.norm(a - b) / np.linalg.norm(b))


# --------------------------------------------------------------------------------------
# the recursion vs a direct solve on every prefix
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("lam", [1.0, 0.1])
@pytest.mark.parametrize("seed", range(5))
def test_weights_equal_direct_ridge_on_every_prefix(seed: int, lam: float) -> None:
    X, y = _data(seed)
    c = 3
    A, Y = _augment(X), np.eye(c)[y]
    model = RLS(lam=lam)
    model.reset(X.shape[1], c)
    for k in range(len(y)):
        model.learn_one(X[k], y[k])
        W = ridge_direct(A[: k + 1], Y[: k + 1], lam)
        assert _rel(model.W_, W) < 1e-8, k
        G = A[: k + 1].T @ A[: k + 1] + lam * np.eye(A.shape[1])
        assert _rel(model.P_, np.linalg.inv(G)) < 1e-8, k


@pytest.mark.parametrize("seed", range(3))
def test_forgetting_equals_weighted_ridge_on_every_prefix(seed: int) -> None:
    mu, lam, c = 0.9, 1.0, 3
    X, y = _data(seed)
    A, Y = _augment(X), np.eye(c)[y]
    model = RLS(lam=lam, forgetting=mu)
    model.reset(X.shape[1], c)
    for k in range(len(y)):
        model.learn_one(X[k], y[k])
        W = ridge_direct(A[: k + 1], Y[: k + 1], lam, mu)
        assert _rel(model.W_, W) < 1e-8, k
    # forgetting really changes the solution (the test above is not the mu = 1 case)
    assert _rel(ridge_direct(A, Y, lam, 1.0), ridge_direct(A, Y, lam, mu)) > 1e-3


@pytest.mark.parametrize("lam", [1e-3, 1e-6])
@pytest.mark.parametrize("seed", range(5))
def test_ill_conditioned_nearly_collinear(seed: int, lam: float) -> None:
    """Nearly collinear features, an offset column and a small ridge term.

    Both the recursion and the direct solve have forward errors of order u * kappa(G_k)
    (G_k = A_k^T A_k + lam I): a relative perturbation of size u in G moves W by up to
    kappa * u. So W is compared with a kappa-scaled tolerance 10 * u * kappa(G_k) (measured
    worst ratio over these seeds: about 0.55 u kappa). kappa reaches ~1e9 here, so the
    bound is still ~1e-6, far tighter than any algebraic mistake would pass.
    """
    rng = np.random.default_rng(seed)
    n, c = 80, 3
    z = rng.normal(size=(n, 2))
    X = np.column_stack(
        [
            z[:, 0],
            z[:, 0] + 1e-6 * rng.normal(size=n),  # nearly collinear with column 0
            z[:, 1],
            5.0 + 1e-4 * rng.normal(size=n),  # nearly collinear with the bias
        ]
    )
    y = rng.integers(0, c, size=n)
    A, Y = _augment(X), np.eye(c)[y]
    model = RLS(lam=lam)
    model.reset(X.shape[1], c)
    kappa = 0.0
    W = np.zeros((A.shape[1], c))  # direct solution on the empty prefix
    n_checked = 0
    for k in range(n):
        pred = model.predict_one(X[k])
        s = np.sort(A[k] @ W)  # predictions agree with the direct solution unless near-tie
        if s[-1] - s[-2] > 1e-6 * max(1.0, abs(s[-1])):
            assert pred == int(np.argmax(A[k] @ W))
            n_checked += 1
        model.learn_one(X[k], y[k])
        G = A[: k + 1].T @ A[: k + 1] + lam * np.eye(A.shape[1])
        kappa = float(np.linalg.cond(G))
        W = ridge_direct(A[: k + 1], Y[: k + 1], lam)
        assert _rel(model.W_, W) <= 10 * EPS * kappa, (k, kappa)
    assert kappa > 1e6  # the case is really ill-conditioned
    assert n_checked > n // 2


# --------------------------------------------------------------------------------------
# predict_learn_many is the per-sample loop
# --------------------------------------------------------------------------------------


def _loop(model: RLS, X: np.ndarray, y: np.ndarray) -> np.ndarray:
    out = []
    for xi, yi in zip(X, y, strict=True):
        p = model.predict_one(xi)
        assert type(p) is int
        out.append(p)
        model.learn_one(xi, yi)
    return np.array(out, dtype=np.int64)


@pytest.mark.floatpath
@pytest.mark.parametrize("params", list(RLS._test_params()))
@pytest.mark.parametrize("seed", range(3))
def test_predict_learn_many_equals_loop(seed: int, params: dict) -> None:
    X, y = _data(seed, n=300, d=6, c=4)
    a, b = RLS(**params), RLS(**params)
    a.reset(6, 4)
    b.reset(6, 4)
    loop_preds = _loop(a, X, y)
    # chunks of uneven sizes (incl. an empty chunk), mixed with per-sample calls
    rng = np.random.default_rng(seed)
    cuts = np.sort(rng.choice(np.arange(1, 290), size=6, replace=False))
    pieces = []
    start = 0
    for stop in [*cuts, cuts[-1], len(y)]:
        pieces.append(b.predict_learn_many(X[start:stop], y[start:stop]))
        start = stop
    many_preds = np.concatenate(pieces)
    assert many_preds.dtype == np.int64
    assert_array_equal(many_preds, loop_preds)
    # both paths run the same numba code in the same order: the state is bit-identical
    assert_array_equal(a.W_, b.W_)
    assert_array_equal(a.P_, b.P_)


@pytest.mark.floatpath
def test_predict_learn_many_equals_loop_on_sea() -> None:
    X, y = SEAStream(n_samples=4000, drift_points=(2000,), variants=(0, 2), seed=3).to_arrays()
    a, b = RLS(forgetting=0.99), RLS(forgetting=0.99)
    a.reset(3, 2)
    b.reset(3, 2)
    assert_array_equal(b.predict_learn_many(X, y), _loop(a, X, y))
    assert_allclose(a.W_, b.W_, rtol=0, atol=0)


# --------------------------------------------------------------------------------------
# behaviour
# --------------------------------------------------------------------------------------


def test_registered_and_validated() -> None:
    assert get_algorithm("rls") is RLS
    for bad in ({"lam": 0.0}, {"lam": -1.0}, {"forgetting": 0.0}, {"forgetting": 1.5}):
        with pytest.raises(UserError):
            RLS(**bad)


def test_ties_go_to_smallest_class() -> None:
    model = RLS()
    model.reset(3, 4)
    assert model.predict_one(np.array([1.0, -2.0, 3.0])) == 0  # W = 0: all scores tie
    model.W_[:, 1] = 1.0
    model.W_[:, 3] = 1.0
    assert model.predict_one(np.array([1.0, 2.0, 3.0])) == 1


def test_learns_sea_above_majority() -> None:
    X, y = SEAStream(n_samples=3000, drift_points=(), variants=(0,), seed=7).to_arrays()
    model = RLS()
    model.reset(3, 2)
    acc = float(np.mean(model.predict_learn_many(X, y) == y))
    majority = max(y.mean(), 1 - y.mean())
    assert acc > majority + 0.05


def test_non_finite_input_raises_and_keeps_state() -> None:
    X, y = _data(0, n=20, d=3, c=2)
    model = RLS()
    model.reset(3, 2)
    model.predict_learn_many(X[:10], y[:10])
    P, W = model.P_.copy(), model.W_.copy()
    bad = np.array([1.0, np.nan, 0.0])
    with pytest.raises(UserError, match="non-finite"):
        model.learn_one(bad, 1)
    with pytest.raises(UserError, match="non-finite"):
        model.predict_one(np.array([np.inf, 0.0, 0.0]))
    Xb = X[10:].copy()
    Xb[3, 0] = np.inf
    with pytest.raises(UserError, match="non-finite"):
        model.predict_learn_many(Xb, y[10:])
    # the chunk stopped at the bad sample: state = after the 3 good ones
    ref = RLS()
    ref.reset(3, 2)
    ref.predict_learn_many(X[:13], y[:13])
    assert_array_equal(model.W_, ref.W_)
    assert_array_equal(model.P_, ref.P_)
    assert not np.array_equal(model.W_, W) or not np.array_equal(model.P_, P)


def test_bad_labels_and_shapes() -> None:
    model = RLS()
    model.reset(2, 3)
    with pytest.raises(UserError):
        model.learn_one(np.zeros(2), 3)
    with pytest.raises(UserError):
        model.predict_learn_many(np.zeros((4, 2)), np.array([0, 1, 2, -1]))
    with pytest.raises(UserError):
        model.predict_learn_many(np.zeros((4, 3)), np.zeros(4, dtype=np.int64))


def test_input_not_mutated_and_pickle_roundtrip() -> None:
    import pickle

    X, y = _data(1, n=50, d=4, c=3)
    model = RLS(lam=0.5)
    model.reset(4, 3)
    X0 = X.copy()
    model.predict_learn_many(X[:30], y[:30])
    for xi, yi in zip(X[30:40], y[30:40], strict=True):
        model.predict_one(xi)
        model.learn_one(xi, yi)
    assert_array_equal(X, X0)
    clone = pickle.loads(pickle.dumps(model))
    preds = model.predict_learn_many(X[40:], y[40:])
    assert_array_equal(clone.predict_learn_many(X[40:], y[40:]), preds)
    assert_array_equal(clone.W_, model.W_)
