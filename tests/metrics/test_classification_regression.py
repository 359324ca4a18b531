"""Metrics against independent computations (scikit-learn and direct formulas) on prefixes."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import balanced_accuracy_score, f1_score, matthews_corrcoef

from streamlearn.base import MetricContext
from streamlearn.metrics.classification import (
    AVRBACC,
    BACC,
    MCC,
    OCA,
    OCE,
    MacroF1,
    bacc_every_step,
    cumulative_counts,
)
from streamlearn.metrics.regression import MAE, MSE


def _random(seed: int, n: int = 300, c: int = 4, p_correct: float = 0.6):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, c, n)
    noise = rng.integers(0, c, n)
    y_pred = np.where(rng.random(n) < p_correct, y, noise)
    return y, y_pred, c


def _bacc_seen(y, p):
    # sklearn's balanced accuracy averages recall over classes present in y_true,
    # which is the spec's "classes seen so far" reading of eq. (C.3). On short prefixes
    # sklearn warns that y_pred has classes absent from y_true; that is expected here.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return balanced_accuracy_score(y, p)


@pytest.mark.parametrize("seed", range(5))
def test_curves_match_sklearn_on_every_prefix(seed):
    y, p, c = _random(seed)
    at = np.arange(1, y.size + 1)
    oca = OCA.curve(y, p, at, MetricContext(n_classes=c))
    bacc = BACC.curve(y, p, at, MetricContext(n_classes=c))
    f1 = MacroF1.curve(y, p, at, MetricContext(n_classes=c))
    mcc = MCC.curve(y, p, at, MetricContext(n_classes=c))
    for t in (1, 2, 5, 17, 100, y.size):
        yt, pt = y[:t], p[:t]
        assert oca[t - 1] == pytest.approx(np.mean(yt == pt))
        assert bacc[t - 1] == pytest.approx(_bacc_seen(yt, pt))
        assert f1[t - 1] == pytest.approx(
            f1_score(yt, pt, average="macro", labels=range(c), zero_division=0)
        )
        with warnings.catch_warnings():  # sklearn warns on single-label prefixes
            warnings.simplefilter("ignore", UserWarning)
            expected_mcc = matthews_corrcoef(yt, pt)
        assert mcc[t - 1] == pytest.approx(expected_mcc, abs=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_avrbacc_is_mean_of_bacc_prefixes(seed):
    y, p, c = _random(seed, n=200)
    direct = [_bacc_seen(y[:t], p[:t]) for t in range(1, y.size + 1)]
    np.testing.assert_allclose(bacc_every_step(y, p), direct, rtol=1e-12)
    at = np.array([1, 50, 200])
    expected = [np.mean(direct[:t]) for t in at]
    np.testing.assert_allclose(AVRBACC.curve(y, p, at, MetricContext(n_classes=c)), expected,
                               rtol=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 6).flatmap(
        lambda c: st.tuples(
            st.just(c),
            st.lists(st.tuples(st.integers(0, c - 1), st.integers(0, c - 1)), min_size=1,
                     max_size=60),
        )
    )
)
def test_incremental_objects_equal_curves(data):
    c, pairs = data
    y = np.array([a for a, _ in pairs])
    p = np.array([b for _, b in pairs])
    for cls in (OCA, OCE, BACC, AVRBACC, MacroF1, MCC):
        m = cls(c)
        for a, b in pairs:
            m.update(a, b)
        final = cls.final(y, p, MetricContext(n_classes=c))
        assert m.get() == pytest.approx(final, abs=1e-12), cls.__name__


def test_mcc_binary_formula_and_degenerate_cases():
    y = np.array([0, 0, 1, 1, 1, 0, 1, 0])
    p = np.array([0, 1, 1, 1, 0, 0, 1, 0])
    tp, tn = np.sum((y == 1) & (p == 1)), np.sum((y == 0) & (p == 0))
    fp, fn = np.sum((y == 0) & (p == 1)), np.sum((y == 1) & (p == 0))
    expected = (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    assert MCC.final(y, p, MetricContext(n_classes=2)) == pytest.approx(expected)
    # all predictions one class → denominator 0 → MCC 0 (sklearn convention)
    assert MCC.final(y, np.zeros_like(y), MetricContext(n_classes=2)) == 0.0


def test_bacc_ignores_classes_not_seen_yet():
    # Class 2 never appears: eq. (C.3) read over seen classes gives the mean of 2 recalls.
    y = np.array([0, 1, 0, 1])
    p = np.array([0, 0, 0, 1])
    assert BACC.final(y, p, MetricContext(n_classes=3)) == pytest.approx((1.0 + 0.5) / 2)


def test_f1_divides_by_all_classes():
    y = np.array([0, 0, 1])
    p = np.array([0, 0, 1])
    # perfect on classes 0 and 1, class 2 absent → F1_2 = 0, divisor c = 3
    assert MacroF1.final(y, p, MetricContext(n_classes=3)) == pytest.approx(2 / 3)


def test_cumulative_counts_rejects_bad_checkpoints():
    y = np.array([0, 1, 1])
    with pytest.raises(ValueError):
        cumulative_counts(y, y, 2, np.array([2, 2]))
    with pytest.raises(ValueError):
        cumulative_counts(y, y, 2, np.array([0, 3]))


def test_regression_metrics():
    rng = np.random.default_rng(0)
    y, p = rng.normal(size=50), rng.normal(size=50)
    at = np.array([1, 10, 50])
    np.testing.assert_allclose(MSE.curve(y, p, at, MetricContext()),
                               [np.mean((y[:t] - p[:t]) ** 2) for t in at])
    np.testing.assert_allclose(MAE.curve(y, p, at, MetricContext()),
                               [np.mean(np.abs(y[:t] - p[:t])) for t in at])
