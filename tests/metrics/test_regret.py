"""Regret against the best fixed linear predictor in hindsight, tested against brute
force: the LAD optimum lies at a vertex where D residuals vanish, so enumerating every
D-subset of rows and interpolating them finds it on a small series."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from streamlearn.base import MetricContext
from streamlearn.metrics.regret import (
    AbsoluteRegret,
    SquaredRegret,
    best_fixed_abs_loss,
    best_fixed_sq_loss,
    lag_windows,
)
from tests.reference.online_newton_step import _windows


def _brute_lad(X: np.ndarray, y: np.ndarray) -> float:
    best = np.inf
    for rows in itertools.combinations(range(X.shape[0]), X.shape[1]):
        A = X[list(rows)]
        if abs(np.linalg.det(A)) < 1e-12:
            continue
        w = np.linalg.solve(A, y[list(rows)])
        best = min(best, float(np.abs(y - X @ w).sum()))
    return best


def _series(seed: int, n: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return np.sin(np.arange(n) / 3.0) + 0.3 * rng.normal(size=n)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("M,intercept", [(1, False), (2, False), (2, True)])
def test_lad_comparator_equals_brute_force(seed, M, intercept):
    s = _series(seed, 19)
    X = _windows(s[:-1], M)
    if intercept:
        X = np.hstack([X, np.ones((X.shape[0], 1))])
    assert best_fixed_abs_loss(X, s[1:]) == pytest.approx(_brute_lad(X, s[1:]), rel=1e-9,
                                                           abs=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_ls_comparator_equals_normal_equations(seed):
    s = _series(seed, 200)
    X = _windows(s[:-1], 5)
    w = np.linalg.solve(X.T @ X, X.T @ s[1:])
    assert best_fixed_sq_loss(X, s[1:]) == pytest.approx(float(((s[1:] - X @ w) ** 2).sum()),
                                                          rel=1e-10)


def test_lag_windows_are_a_view_with_zero_padding():
    x = np.arange(1.0, 8.0)
    W = lag_windows(x, 3)
    np.testing.assert_array_equal(W, _windows(x, 3))
    assert not W.flags.writeable and W.base is not None  # a strided view, not a matrix


def _context(series, M, cap=10**6, intercept=False):
    return MetricContext(X=None, extra={"series": series, "lags": np.array([M]),
                                        "intercept": np.array([int(intercept)]),
                                        "regret_max_samples": np.array([cap])})


def test_regret_curve_against_brute_force_on_every_prefix():
    s = _series(5, 16)
    y = s[1:]
    pred = 0.5 * s[:-1]  # some online predictor's output
    at = np.arange(3, 16)
    got = AbsoluteRegret.curve(y, pred, at, _context(s, 2))
    X = _windows(s[:-1], 2)
    for k, T in enumerate(at):
        want = (np.abs(y[:T] - pred[:T]).sum() - _brute_lad(X[:T], y[:T])) / T
        assert got[k] == pytest.approx(want, rel=1e-9, abs=1e-12)
    sq = SquaredRegret.curve(y, pred, at, _context(s, 2))
    T = at[-1]
    w, *_ = np.linalg.lstsq(X[:T], y[:T], rcond=None)
    want = (((y[:T] - pred[:T]) ** 2).sum() - ((y[:T] - X[:T] @ w) ** 2).sum()) / T
    assert sq[-1] == pytest.approx(want, rel=1e-9)


def test_regret_is_not_solved_beyond_the_cap():
    s = _series(6, 60)
    at = np.array([10, 20, 40, 59])
    got = AbsoluteRegret.curve(s[1:], np.zeros(59), at, _context(s, 3, cap=20))
    assert np.all(np.isfinite(got[:2])) and np.all(np.isnan(got[2:]))


def test_regret_of_the_best_fixed_predictor_is_zero_and_others_positive():
    s = _series(7, 80)
    X = _windows(s[:-1], 2)
    w = np.linalg.lstsq(X, s[1:], rcond=None)[0]
    ctx = _context(s, 2)
    at = np.array([79])
    assert SquaredRegret.curve(s[1:], X @ w, at, ctx)[0] == pytest.approx(0.0, abs=1e-12)
    assert AbsoluteRegret.curve(s[1:], X @ w, at, ctx)[0] >= -1e-12
    assert AbsoluteRegret.curve(s[1:], np.zeros(79), at, ctx)[0] > 0


@pytest.mark.parametrize("n", [1, 5, 1000, (1 << 20) + 3])
def test_blockwise_cumulative_loss_is_bit_identical_to_cumsum(n, monkeypatch):
    """The metrics' block-by-block running sums equal one np.cumsum exactly (also with
    tiny blocks, so that many block boundaries are crossed)."""
    from streamlearn.metrics import regression as metrics
    rng = np.random.default_rng(n)
    y, p = rng.normal(size=n), rng.normal(size=n)
    at = np.unique(np.concatenate([[1, n], rng.integers(1, n + 1, size=7)]))
    want = np.cumsum((y - p) ** 2)[at - 1]
    np.testing.assert_array_equal(
        metrics.cumulative_loss_at(lambda t, q: (t - q) ** 2, y, p, at), want)
    monkeypatch.setattr(metrics, "_BLOCK", 7)
    np.testing.assert_array_equal(
        metrics.cumulative_loss_at(lambda t, q: (t - q) ** 2, y, p, at), want)
