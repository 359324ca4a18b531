"""RMSE, MAE, MSE and R²: cumulative values against scikit-learn on every prefix, windowed
and faded values against plain loops written here, R²'s constant-target rule, and the
precision of the windowed and faded sums on a long stream."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score

from streamlearn.base import MetricContext
from streamlearn.metrics.regression import MAE, MSE, R2, RMSE, faded_sums, windowed_sums
from streamlearn.protocols.scoring import checkpoint_positions

CTX = MetricContext()
LOSS_METRICS = (MSE, MAE, RMSE)


def _data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = 40.0 + 3.0 * np.cumsum(rng.normal(size=n)) / np.sqrt(n) + rng.normal(size=n)
    p = y + rng.normal(scale=0.7, size=n) + 0.2
    return y, p


def _loss(cls: type, y: np.ndarray, p: np.ndarray) -> np.ndarray:
    return np.abs(y - p) if cls is MAE else (y - p) ** 2


def _finish(cls: type, mean: float) -> float:
    return math.sqrt(mean) if cls is RMSE else mean


def _plain_r2(y: np.ndarray, p: np.ndarray, w: np.ndarray) -> float:
    """Weighted R² from its definition (sums in a Python loop)."""
    W = sum(w)
    mean = sum(wi * yi for wi, yi in zip(w, y, strict=True)) / W
    ss_tot = sum(wi * (yi - mean) ** 2 for wi, yi in zip(w, y, strict=True))
    ss_res = sum(wi * (yi - pi) ** 2 for wi, yi, pi in zip(w, y, p, strict=True))
    if ss_tot == 0:
        return 1.0 if ss_res == 0 else 0.0
    return 1.0 - ss_res / ss_tot


def test_cumulative_values_equal_scikit_learn_on_every_prefix():
    y, p = _data(900)
    at = checkpoint_positions(900, 37)
    curves = {cls: cls.curve(y, p, at, CTX) for cls in (*LOSS_METRICS, R2)}
    for k, t in enumerate(at):
        assert curves[MSE][k] == pytest.approx(mean_squared_error(y[:t], p[:t]), rel=1e-12)
        assert curves[RMSE][k] == pytest.approx(
            math.sqrt(mean_squared_error(y[:t], p[:t])), rel=1e-12)
        assert curves[MAE][k] == pytest.approx(mean_absolute_error(y[:t], p[:t]), rel=1e-12)
        assert curves[R2][k] == pytest.approx(r2_score(y[:t], p[:t]), rel=1e-10, abs=1e-12)
    assert R2.final(y, p, CTX) == pytest.approx(r2_score(y, p), rel=1e-12)


def test_r2_over_block_boundaries_equals_scikit_learn(monkeypatch):
    """The centred sums are merged block by block: small blocks, same values."""
    import streamlearn.metrics.regression as reg

    y, p = _data(500, seed=3)
    at = np.array([2, 7, 8, 100, 333, 500])
    monkeypatch.setattr(reg, "_BLOCK", 16)
    values = R2.curve(y, p, at, CTX)
    for k, t in enumerate(at):
        assert values[k] == pytest.approx(r2_score(y[:t], p[:t]), rel=1e-10)


def test_r2_with_a_constant_target_so_far():
    y = np.array([2.5, 2.5, 2.5, 2.5, 4.0, 1.0])
    exact = y.copy()
    off = y + np.array([0.0, 0.5, 0.0, 0.0, 0.0, 0.0])
    at = np.arange(1, 7)
    # every target so far equal: 1.0 for exact predictions, 0.0 otherwise (scikit-learn)
    np.testing.assert_array_equal(R2.curve(y, exact, at, CTX)[:4], [1.0] * 4)
    np.testing.assert_array_equal(R2.curve(y, off, at, CTX)[:4], [1.0, 0.0, 0.0, 0.0])
    for t in (2, 3, 4, 5, 6):
        assert R2.curve(y, off, np.array([t]), CTX)[0] == pytest.approx(
            r2_score(y[:t], off[:t]), abs=1e-12)
    # a window of equal targets after varying ones
    y2 = np.array([1.0, 9.0, 3.0, 3.0, 3.0])
    p2 = np.array([1.0, 9.0, 3.0, 3.5, 3.0])
    assert R2.windowed_curve(y2, p2, np.array([5]), 3, CTX)[0] == 0.0
    assert R2.windowed_curve(y2, y2, np.array([5]), 3, CTX)[0] == 1.0
    assert R2.fading_curve(y, off, np.array([4]), 0.9, CTX)[0] == 0.0
    assert R2.fading_curve(y, exact, np.array([4]), 0.9, CTX)[0] == 1.0


def _exact_r2(y: np.ndarray, p: np.ndarray) -> float:
    """R² of float targets and predictions in exact rational arithmetic."""
    ys = [Fraction(v) for v in y.tolist()]
    ps = [Fraction(v) for v in p.tolist()]
    mean = sum(ys) / len(ys)
    ss_tot = sum((v - mean) ** 2 for v in ys)
    ss_res = sum((a - b) ** 2 for a, b in zip(ys, ps, strict=True))
    return float(1 - ss_res / ss_tot)


@pytest.mark.parametrize("offset", [0.0, 1e8, 1e12, 1e15])
def test_r2_keeps_its_digits_on_targets_far_from_zero(offset):
    """Targets ``offset + 0..4`` and integer predictions (exact doubles up to 1e15): the
    cumulative R² within 1e-12 of the exact value at every checkpoint (and so of
    scikit-learn's, which is within 1e-9 of it), the windowed and faded ones equal to
    those of the same data without the offset. Merged around a running mean near the
    offset, the R² had been -13.44381 for an exact -13.44374 at 1e12 (and 1.4e-4 off an
    R² near 0)."""
    i = np.arange(3000)
    base_y = (i % 5).astype(float)
    for base_p in (((i * 7) % 18) - 6.0, np.full(3000, 2.0) + ((i * 3) % 2) * 0.5):
        y, p = offset + base_y, offset + base_p
        assert np.array_equal(y - offset, base_y) and np.array_equal(p - offset, base_p)
        at = checkpoint_positions(3000, 100)
        got = R2.curve(y, p, at, CTX)
        for k in (0, 1, 7, 50, 99):
            t = int(at[k])
            exact = _exact_r2(y[:t], p[:t])
            assert abs(got[k] - exact) <= 1e-12 * max(1.0, abs(exact)), (t, got[k], exact)
        assert abs(got[-1] - r2_score(y, p)) <= 1e-9 * max(1.0, abs(got[-1]))
        np.testing.assert_allclose(R2.windowed_curve(y, p, at, 700, CTX),
                                   R2.windowed_curve(base_y, base_p, at, 700, CTX),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(R2.fading_curve(y, p, at, 0.99, CTX),
                                   R2.fading_curve(base_y, base_p, at, 0.99, CTX),
                                   rtol=1e-12, atol=1e-12)


def test_r2_of_targets_near_zero_keeps_its_bits():
    """Only targets far from zero relative to their range are centred on the first one:
    an ordinary stream's R² is the same double as summed around zero."""
    from streamlearn.metrics.regression import target_origin

    y, _ = _data(900)
    assert target_origin(y) == 0.0
    assert target_origin(1e12 + (np.arange(10) % 5)) == 1e12
    assert target_origin(np.full(5, 3.0)) == 3.0  # a constant target: any origin is exact


@pytest.mark.parametrize("window", [1, 7, 100, 5000])
def test_windowed_values_equal_a_plain_loop_at_every_checkpoint(window):
    y, p = _data(1200, seed=1)
    at = checkpoint_positions(1200, 50)
    for cls in LOSS_METRICS:
        got = cls.windowed_curve(y, p, at, window, CTX)
        for k, t in enumerate(at):
            lo = max(0, t - window)
            losses = [abs(a - b) if cls is MAE else (a - b) ** 2
                      for a, b in zip(y[lo:t], p[lo:t], strict=True)]
            assert got[k] == pytest.approx(_finish(cls, math.fsum(losses) / len(losses)),
                                           rel=1e-12), (cls.__name__, t)
    got = R2.windowed_curve(y, p, at, window, CTX)
    for k, t in enumerate(at):
        lo = max(0, t - window)
        expected = _plain_r2(y[lo:t], p[lo:t], np.ones(t - lo))
        assert got[k] == pytest.approx(expected, rel=1e-9, abs=1e-12), t
        if t - lo >= 2:
            assert got[k] == pytest.approx(r2_score(y[lo:t], p[lo:t]), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("alpha", [0.5, 0.99, 0.9999])
def test_faded_values_equal_the_recursion_of_gama_et_al(alpha):
    """Gama et al. 2013, eq. (4): S_i = L_i + alpha S_{i-1}, B_i = 1 + alpha B_{i-1}."""
    y, p = _data(1500, seed=2)
    at = checkpoint_positions(1500, 40)
    for cls in LOSS_METRICS:
        got = cls.fading_curve(y, p, at, alpha, CTX)
        s = b = 0.0
        expected = []
        for t in range(1500):
            s = _loss(cls, y[t], p[t]) + alpha * s
            b = 1.0 + alpha * b
            expected.append(_finish(cls, s / b))
        np.testing.assert_allclose(got, np.asarray(expected)[at - 1], rtol=1e-11)
    got = R2.fading_curve(y, p, at, alpha, CTX)
    for k, t in enumerate(at):
        w = alpha ** np.arange(t - 1, -1, -1, dtype=float)
        assert got[k] == pytest.approx(_plain_r2(y[:t], p[:t], w), rel=1e-8, abs=1e-10)


def test_faded_r2_uses_faded_sums_of_y_y2_and_residual():
    """The same value from the three faded sums the brief names: 1 - S_res/(S_yy - S_y²/W)."""
    y, p = _data(300, seed=5)
    at = np.array([50, 300])
    (s_y, s_yy, s_res), w = faded_sums(at, 0.97, lambda a, b: (
        y[a:b], y[a:b] ** 2, (y[a:b] - p[a:b]) ** 2))
    expected = 1.0 - s_res / (s_yy - s_y ** 2 / w)
    np.testing.assert_allclose(R2.fading_curve(y, p, at, 0.97, CTX), expected, rtol=1e-7)


def test_windowed_and_faded_sums_keep_their_digits_on_a_long_stream():
    """A long stream with a large mean loss: each window summed on its own keeps ~15
    digits where a difference of running sums (np.cumsum) would share the leading ones.
    Bound: 1e-12 relative to math.fsum of the window."""
    n, window = 2_000_000, 1000
    rng = np.random.default_rng(7)
    y = 1e4 + rng.normal(size=n)
    p = rng.normal(size=n)
    at = np.array([n // 3, n // 2, n - 1, n])
    got = MSE.windowed_curve(y, p, at, window, CTX)
    for k, t in enumerate(at):
        exact = math.fsum(((y[t - window:t] - p[t - window:t]) ** 2).tolist()) / window
        assert abs(got[k] - exact) <= 1e-12 * exact
    sq = (y - p) ** 2
    csum = np.cumsum(sq)
    by_difference = (csum[at - 1] - csum[at - 1 - window]) / window
    exact_last = math.fsum(sq[n - window:].tolist()) / window
    # what the bound guards against: the difference of running sums is far less exact
    assert abs(by_difference[-1] - exact_last) > 100 * abs(got[-1] - exact_last)
    # faded: the block-wise carry against a sequential fsum of the weighted terms
    alpha = 0.999
    (s,), w = faded_sums(np.array([n]), alpha, lambda a, b: (sq[a:b],))
    tail = sq[n - 50_000:]  # older terms weigh < alpha**50000 ~ 2e-22 of the newest
    weights = alpha ** np.arange(tail.size - 1, -1, -1, dtype=float)
    exact = math.fsum((weights * tail).tolist())
    assert abs(s[0] - exact) <= 1e-12 * exact
    assert w[0] == pytest.approx((1 - alpha ** n) / (1 - alpha), rel=1e-12)


def test_windowed_sums_count_the_samples_of_each_window():
    sums, counts = windowed_sums(np.array([1, 3, 10]), 4, lambda a, b: (
        np.arange(a, b, dtype=float),))
    np.testing.assert_array_equal(counts, [1, 3, 4])
    np.testing.assert_array_equal(sums[0], [0.0, 0 + 1 + 2, 6 + 7 + 8 + 9])


def test_incremental_rmse_equals_its_curve():
    y, p = _data(50)
    m = RMSE()
    for a, b in zip(y, p, strict=True):
        m.update(a, b)
    assert m.get() == pytest.approx(RMSE.final(y, p, CTX), rel=1e-12)


def test_kinds_and_display():
    for cls in (*LOSS_METRICS, R2):
        assert set(cls.kinds) == {"cumulative", "windowed", "fading"}
        assert cls.task == "regression"
    assert R2.bigger_is_better and not RMSE.bigger_is_better
    assert R2.format(0.123456) == "0.1235"
