"""MSE, MAE, RMSE and R² of targets and errors near 1e300 (their squares, or their sums,
past the largest double): the metric where it is a double, from sums of the inputs scaled
by a power of two; and on ordinary values the same bits as the plain formulas."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from streamlearn.base import MetricContext
from streamlearn.kernels.running_sums import Loss
from streamlearn.metrics.regression import (
    MAE,
    MSE,
    R2,
    RMSE,
    _merge_moments,
    _weights,
    faded_sums,
    r2_value,
    windowed_sums,
)
from streamlearn.protocols.scoring import checkpoint_positions

CTX = MetricContext()
BIG = 1e300


def _huge(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Targets about 1e300 and last-value predictions: squared errors about 1e600."""
    rng = np.random.default_rng(seed)
    y = rng.uniform(-1.0, 1.0, n) * BIG
    return y, np.r_[0.0, y[:-1]]


def _curve(cls: type, y: np.ndarray, p: np.ndarray, at: np.ndarray, how: str,
           arg: float = 0.0) -> np.ndarray:
    """The metric's cumulative, windowed (``arg`` = window) or faded (``arg`` = alpha)
    curve at the checkpoints ``at``."""
    if how == "cumulative":
        return cls.curve(y, p, at, CTX)
    if how == "windowed":
        return cls.windowed_curve(y, p, at, int(arg), CTX)
    return cls.fading_curve(y, p, at, arg, CTX)


def _unit(cls: type, y: np.ndarray, p: np.ndarray, at: np.ndarray, how: str,
          arg: float = 0.0) -> np.ndarray:
    """The metric of ``y/1e300, p/1e300`` (ordinary numbers) scaled back to 1e300."""
    values = _curve(cls, y / BIG, p / BIG, at, how, arg)
    if cls is R2:
        return values
    return values * (BIG * BIG if cls is MSE else BIG)


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("how,arg", [("cumulative", 0.0), ("windowed", 50),
                                     ("fading", 0.99), ("fading", 1.0)])
def test_rmse_mae_and_r2_of_errors_near_1e300_are_their_values(how, arg):
    """Was: RMSE inf (cumulative, windowed and faded), R² NaN (the summary's "—") and
    overflow warnings, exit 0, for a stream whose RMSE is 8e299."""
    y, p = _huge(300)
    at = checkpoint_positions(300, 7)
    for cls in (RMSE, MAE, R2):
        got = _curve(cls, y, p, at, how, arg)
        assert np.isfinite(got).all(), (cls.__name__, got)
        np.testing.assert_allclose(got, _unit(cls, y, p, at, how, arg), rtol=1e-13,
                                   err_msg=cls.__name__)
    # the MSE itself is about 1e600: past the largest double, and said so
    assert np.isinf(MSE.curve(y, p, at, CTX)).all()


def test_an_mse_whose_sum_overflows_is_its_value():
    """Squared errors of 1.4e308 each: their sum overflows, their mean does not."""
    e = 1.2e154
    y, p = np.full(10, e), np.zeros(10)
    at = np.array([1, 2, 10])
    np.testing.assert_allclose(MSE.curve(y, p, at, CTX), e * e, rtol=1e-15)
    np.testing.assert_allclose(MSE.windowed_curve(y, p, at, 4, CTX), e * e, rtol=1e-15)
    np.testing.assert_allclose(MSE.fading_curve(y, p, at, 0.9, CTX), e * e, rtol=1e-14)
    # errors that overflow themselves (1.5e308 - -1.5e308)
    y, p = np.array([1.5e308, -1.5e308]), np.array([-1.5e308, 1.5e308])
    assert RMSE.curve(y, p, np.array([2]), CTX)[0] == pytest.approx(3e308, rel=1e-15)
    assert MAE.curve(y, p, np.array([2]), CTX)[0] == pytest.approx(3e308, rel=1e-15)


def test_r2_of_huge_residuals_around_ordinary_targets_stays_minus_inf():
    """SS_res about 1e600, SS_tot about 1: R² about -1e600, past the largest double."""
    y = np.array([0.0, 1.0, 2.0, 3.0])
    p = np.full(4, 1e300)
    assert R2.curve(y, p, np.array([4]), CTX)[0] == -np.inf


def test_streamed_sums_carry_the_scaled_sums_once_they_overflow():
    """The protocol's chunk-by-chunk sums (no predictions held): once the plain sum
    overflows, the scaled one is carried, and RMSE reads it."""
    from streamlearn.metrics.regression import StreamedLossSums

    y, p = _huge(1000, seed=3)
    y[:400] *= 1e-300  # ordinary errors first, then huge ones
    p[:401] *= 1e-300
    at = checkpoint_positions(1000, 9)
    sums = StreamedLossSums([Loss.SQUARED, Loss.ABSOLUTE], at)
    for start in range(0, 1000, 64):
        sums.add(start, y[start:start + 64], p[start:start + 64])
    ctx = MetricContext(extra=sums.context_extra())
    whole = RMSE.curve(y, p, at, CTX)
    streamed = RMSE.curve(y, p[:0], at, ctx)
    assert np.isfinite(streamed).all()
    np.testing.assert_allclose(streamed, whole, rtol=1e-15)
    np.testing.assert_array_equal(streamed[at <= 400], whole[at <= 400])
    np.testing.assert_array_equal(MAE.curve(y, p[:0], at, ctx), MAE.curve(y, p, at, CTX))


# ------------------------------------------------------------------ ordinary values
# The formulas before the overflow fallback, written out: on ordinary values the metrics
# must give these bits exactly (committed results are not to move).

def _old_mean(cls: type, y: np.ndarray, p: np.ndarray, at: np.ndarray, how: str,
              arg: float) -> np.ndarray:
    loss = (lambda a, b: np.abs(a - b)) if cls is MAE else (lambda a, b: (a - b) ** 2)
    if how == "cumulative":
        mean = np.cumsum(loss(y, p))[at - 1] / at
    elif how == "windowed":
        s, counts = windowed_sums(at, int(arg), lambda a, b: (loss(y[a:b], p[a:b]),))
        mean = s[0] / counts
    else:
        s, weights = faded_sums(at, arg, lambda a, b: (loss(y[a:b], p[a:b]),))
        mean = s[0] / weights
    return np.sqrt(mean) if cls is RMSE else mean


def _old_r2(y: np.ndarray, p: np.ndarray, at: np.ndarray, how: str,
            arg: float) -> np.ndarray:
    ss_res, ss_tot = np.empty(at.shape), np.empty(at.shape)
    if how == "windowed":
        for k, stop in enumerate(at.tolist()):
            a, b = y[max(0, stop - int(arg)):stop], p[max(0, stop - int(arg)):stop]
            ss_res[k] = np.sum((a - b) ** 2)
            ss_tot[k] = 0.0 if a.min() == a.max() else np.sum((a - a.mean()) ** 2)
        return r2_value(ss_res, ss_tot)
    alpha = 1.0 if how == "cumulative" else arg
    res = weight = mean = m2 = 0.0
    start = 0
    for k, stop in enumerate(at.tolist()):  # blocks end at the checkpoints (n < _BLOCK)
        a, b = y[start:stop], p[start:stop]
        w = _weights(alpha, stop - start)
        decay = alpha ** (stop - start)
        res = decay * res + float(np.sum(w * (a - b) ** 2))  # BLAS-free, as the metric
        weight, mean, m2 = _merge_moments(decay * weight, mean, decay * m2, w, a)
        ss_res[k], ss_tot[k] = res, m2
        start = stop
    return r2_value(ss_res, ss_tot)


_ordinary = st.floats(min_value=-1e100, max_value=1e100, allow_nan=False,
                      allow_infinity=False, allow_subnormal=True)


@settings(max_examples=300, deadline=None)
@given(data=hnp.arrays(np.float64, st.tuples(st.integers(1, 60), st.just(2)),
                       elements=_ordinary),
       checkpoints=st.integers(1, 12), window=st.integers(1, 20),
       alpha=st.sampled_from([0.5, 0.9, 0.999, 1.0]))
def test_ordinary_values_keep_the_bits_of_the_plain_formulas(data, checkpoints, window,
                                                               alpha):
    y, p = np.ascontiguousarray(data[:, 0]), np.ascontiguousarray(data[:, 1])
    at = checkpoint_positions(y.size, checkpoints)
    for how, arg in (("cumulative", 0.0), ("windowed", window), ("fading", alpha)):
        for cls in (MSE, MAE, RMSE, R2):
            got = _curve(cls, y, p, at, how, arg)
            with np.errstate(all="ignore"):  # R² -inf of a subnormal SS_tot warned
                old = (_old_r2(y, p, at, how, arg) if cls is R2
                       else _old_mean(cls, y, p, at, how, arg))
            np.testing.assert_array_equal(got, old, err_msg=f"{cls.__name__} {how}")
