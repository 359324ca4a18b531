"""Windowed and faded classification metrics against plain NumPy computations at every
checkpoint: a window is the metric of the last w samples (computed here on the slice, with
scikit-learn where it has the metric), a fading factor the metric of counters faded by
``scipy.signal.lfilter`` (F_t = alpha F_{t-1} + e_t), written here from the formulas."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.signal import lfilter
from sklearn.metrics import balanced_accuracy_score, cohen_kappa_score, f1_score, matthews_corrcoef

from streamlearn.base import MetricContext, RunContext
from streamlearn.components import get_metric
from streamlearn.metrics.classification import OCA, label_counts
from streamlearn.protocols.scoring import kind_blocks
from tests.reference.reference_rules import kappa_against, majority_class_loop, no_change_loop

COUNT_METRICS = ("oca", "oce", "mistake_rate", "bacc", "f1", "mcc", "kappa", "kappa_m",
                 "kappa_t")


def _stream(seed: int, n: int, c: int):
    rng = np.random.default_rng(seed)
    y = rng.choice(c, size=n, p=rng.dirichlet(np.full(c, 1.0)))
    stay = rng.random(n) < 0.5
    for t in range(1, n):
        if stay[t]:
            y[t] = y[t - 1]
    p = np.where(rng.random(n) < 0.65, y, rng.integers(0, c, n))
    return y, p


def _direct(name: str, y: np.ndarray, p: np.ndarray, ref: dict[str, np.ndarray], c: int):
    """The metric of the samples (y, p) as a plain computation (the window's slice)."""
    with warnings.catch_warnings():  # sklearn warns on single-class windows
        warnings.simplefilter("ignore")
        if name == "oca":
            return np.mean(y == p)
        if name in ("oce", "mistake_rate"):
            return np.mean(y != p)
        if name == "bacc":
            return balanced_accuracy_score(y, p)
        if name == "f1":
            return f1_score(y, p, average="macro", labels=range(c), zero_division=0)
        if name == "mcc":
            return matthews_corrcoef(y, p)
        if name == "kappa":
            return 0.0 if np.unique(np.r_[y, p]).size == 1 else cohen_kappa_score(y, p)
    return kappa_against(y, p, ref[name])


@pytest.mark.parametrize("name", COUNT_METRICS)
@pytest.mark.parametrize("seed,c,window", [(0, 2, 50), (1, 3, 1), (2, 5, 173), (3, 4, 600)])
def test_windowed_equals_the_metric_of_the_last_w_samples(name, seed, c, window) -> None:
    y, p = _stream(seed, 500, c)
    at = np.array([1, 2, 30, 49, 50, 51, 172, 173, 174, 333, 499, 500])
    got = get_metric(name).windowed_curve(y, p, at, window, MetricContext(n_classes=c))
    refs = {"kappa_m": np.asarray(majority_class_loop(y, c)),
            "kappa_t": np.asarray(no_change_loop(y))}
    for k, t in enumerate(at):
        lo = max(0, t - window)
        sliced = {key: r[lo:t] for key, r in refs.items()}  # the online rules, sliced
        assert got[k] == pytest.approx(_direct(name, y[lo:t], p[lo:t], sliced, c),
                                       abs=1e-12), (name, t)


def _faded(e: np.ndarray, alpha: float) -> np.ndarray:
    """F_t = alpha F_{t-1} + e_t along axis 0."""
    return lfilter([1.0], [1.0, -alpha], e.astype(np.float64), axis=0)


def _faded_direct(name: str, y, p, c: int, alpha: float) -> np.ndarray:
    """The metric at every step from faded counters, from the textbook formulas."""
    onehot = np.eye(c)
    T, P = _faded(onehot[y], alpha), _faded(onehot[p], alpha)
    D = _faded(onehot[y] * (y == p)[:, None], alpha)
    n = T.sum(axis=1)
    p0 = D.sum(axis=1) / n
    if name == "oca":
        return p0
    if name in ("oce", "mistake_rate"):
        return 1.0 - p0
    if name == "bacc":
        seen = T > 0
        recall = np.divide(D, T, out=np.zeros_like(D), where=seen)
        return recall.sum(axis=1) / seen.sum(axis=1)
    if name == "f1":
        return np.mean(np.divide(2 * D, P + T, out=np.zeros_like(D), where=(P + T) > 0),
                       axis=1)
    if name == "mcc":
        cov_tp = p0 * n * n - (T * P).sum(axis=1)
        den = np.sqrt((n * n - (P * P).sum(axis=1)) * (n * n - (T * T).sum(axis=1)))
        return np.divide(cov_tp, den, out=np.zeros_like(n), where=den > 0)
    if name == "kappa":
        pe = (T * P).sum(axis=1) / (n * n)
        return np.divide(p0 - pe, 1 - pe, out=np.zeros_like(n), where=pe < 1 - 1e-15)
    ref = np.asarray(majority_class_loop(y, c) if name == "kappa_m" else no_change_loop(y))
    pr = _faded((ref == y).astype(float), alpha) / n
    return np.divide(p0 - pr, 1 - pr, out=np.zeros_like(n), where=pr < 1 - 1e-15)


@pytest.mark.parametrize("name", COUNT_METRICS)
@pytest.mark.parametrize("seed,c,alpha", [(0, 2, 0.99), (1, 3, 0.9), (2, 6, 0.999),
                                          (3, 3, 1.0)])
def test_fading_equals_lfilter_counters(name, seed, c, alpha) -> None:
    y, p = _stream(seed, 700, c)
    at = np.array([1, 2, 3, 10, 100, 101, 350, 699, 700])
    got = get_metric(name).fading_curve(y, p, at, alpha, MetricContext(n_classes=c))
    expected = _faded_direct(name, y, p, c, alpha)[at - 1]
    assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


def test_faded_oca_is_gamas_fading_prequential_accuracy() -> None:
    y, p = _stream(7, 1000, 3)
    S = B = 0.0
    alpha = 0.995
    gama = []
    for t in range(y.size):  # Gama et al. 2013: S = L + alpha S, B = 1 + alpha B
        S = float(y[t] == p[t]) + alpha * S
        B = 1.0 + alpha * B
        gama.append(S / B)
    at = np.arange(1, y.size + 1)
    assert_allclose(OCA.fading_curve(y, p, at, alpha, MetricContext(n_classes=3)), gama,
                    rtol=1e-12)
    # alpha = 1 is the cumulative metric
    assert_allclose(OCA.fading_curve(y, p, at, 1.0, MetricContext(n_classes=3)),
                    OCA.curve(y, p, at, MetricContext(n_classes=3)), rtol=1e-13)


def test_long_faded_sums_stay_accurate() -> None:
    """n = 1e6, alpha = 0.9999: the faded OCA at the end against exactly rounded sums
    (math.fsum of alpha**(n-1-j))."""
    n, alpha = 1_000_000, 0.9999
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.8, y, 1 - y)
    w = alpha ** np.arange(n - 1, -1, -1, dtype=np.float64)
    exact = math.fsum(w[y == p]) / math.fsum(w)
    at = np.unique(np.linspace(1, n, 100).astype(np.int64))
    got = OCA.fading_curve(y, p, at, alpha, MetricContext(n_classes=2))
    assert got[-1] == pytest.approx(exact, rel=1e-14)  # measured: 7e-16


def test_windowed_counts_are_exact_integers() -> None:
    rng = np.random.default_rng(3)
    labels = rng.integers(0, 5, 10_000)
    at = np.array([1, 9, 10, 11, 5000, 9999, 10_000])
    got = label_counts(labels, 5, at, window=10)
    assert got.dtype == np.int64
    for k, t in enumerate(at):
        assert_array_equal(got[k], np.bincount(labels[max(0, t - 10):t], minlength=5))


def test_label_counts_refuses_bad_arguments() -> None:
    labels = np.zeros(5, dtype=np.int64)
    with pytest.raises(ValueError):
        label_counts(labels, 1, np.array([2, 2]))
    with pytest.raises(ValueError):
        label_counts(labels, 1, np.array([3]), window=0)
    with pytest.raises(ValueError):
        label_counts(labels, 1, np.array([3]), alpha=0.0)
    with pytest.raises(ValueError):
        label_counts(labels, 1, np.array([3]), window=2, alpha=0.5)


def test_every_count_metric_has_both_forms_and_avrbacc_neither() -> None:
    for name in COUNT_METRICS:
        assert {"cumulative", "windowed", "fading"} <= set(get_metric(name).kinds)
    assert get_metric("avrbacc").kinds == ("cumulative",)
    y, p = _stream(1, 300, 3)
    ctx = RunContext(metrics=("oca", "avrbacc", "kappa_t"), window=40, fading=0.98)
    at = np.array([100, 200, 300])
    blocks = kind_blocks(ctx, y, p, at, MetricContext(n_classes=3))
    for kind in ("windowed", "fading"):
        assert blocks[kind]["not_supported"] == ["avrbacc"]
        assert set(blocks[kind]["curves"]) == {"oca", "kappa_t"}
    assert blocks["windowed"]["metrics"]["oca"] == pytest.approx(np.mean(y[260:] == p[260:]))
