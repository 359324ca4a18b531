"""The kappa family against independent computations: Cohen's kappa against
scikit-learn's ``cohen_kappa_score``, kappa_m and kappa_t against plain loops written from
their definitions, and the reference learners at exactly 0."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose
from sklearn.metrics import cohen_kappa_score

from streamlearn.base import MetricContext
from streamlearn.components import get_metric
from streamlearn.metrics.classification import Kappa, KappaM, KappaT
from tests.reference.reference_rules import (
    kappa_against,
    majority_class_loop,
    no_change_loop,
)


def _stream(seed: int, n: int, c: int, p_correct: float = 0.6):
    """Bursty labels (runs of one class, as in real streams) and noisy predictions."""
    rng = np.random.default_rng(seed)
    y = rng.choice(c, size=n, p=rng.dirichlet(np.full(c, 1.0)))
    stay = rng.random(n) < 0.6
    for t in range(1, n):
        if stay[t]:
            y[t] = y[t - 1]
    noise = rng.integers(0, c, n)
    p = np.where(rng.random(n) < p_correct, y, noise)
    return y, p


def _sk_kappa(y: np.ndarray, p: np.ndarray) -> float:
    if np.unique(np.r_[y, p]).size == 1:  # pe = 1: ours is 0 by choice (see the module)
        return 0.0
    return float(cohen_kappa_score(y, p))


@pytest.mark.parametrize("c", range(2, 11))
@pytest.mark.parametrize("seed", range(3))
def test_kappa_equals_sklearn_on_prefixes(seed: int, c: int) -> None:
    y, p = _stream(seed, 400, c)
    at = np.array([1, 2, 3, 7, 50, 123, 400])
    got = Kappa.curve(y, p, at, MetricContext(n_classes=c))
    expected = [_sk_kappa(y[:t], p[:t]) for t in at]
    assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_kappa_with_a_class_never_predicted_and_a_single_class_prefix() -> None:
    rng = np.random.default_rng(5)
    y = np.r_[np.zeros(30, dtype=np.int64), rng.integers(0, 4, 300)]
    p = np.where(rng.random(y.size) < 0.7, y, 0)
    p[p == 3] = 1  # class 3 is never predicted
    p[:30] = 0  # the single-class prefix is predicted perfectly: pe = 1 there
    at = np.arange(1, y.size + 1)
    got = Kappa.curve(y, p, at, MetricContext(n_classes=4))
    assert np.all(got[:30] == 0.0)
    expected = [_sk_kappa(y[:t], p[:t]) for t in at]
    assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    # a wrong prediction in a single-class prefix: pe < 1, kappa = 0 by the formula
    assert Kappa.curve(np.array([0, 0]), np.array([0, 1]), np.array([2]),
                       MetricContext(n_classes=2))[0] == pytest.approx(
        cohen_kappa_score([0, 0], [0, 1]), abs=1e-12)


@pytest.mark.parametrize("c", [2, 3, 7])
@pytest.mark.parametrize("seed", range(4))
def test_kappa_m_and_kappa_t_equal_the_loops(seed: int, c: int) -> None:
    y, p = _stream(seed, 300, c)
    at = np.arange(1, y.size + 1)
    ctx = MetricContext(n_classes=c)
    maj, nochg = majority_class_loop(y, c), no_change_loop(y)
    km = KappaM.curve(y, p, at, ctx)
    kt = KappaT.curve(y, p, at, ctx)
    for t in at:
        assert km[t - 1] == pytest.approx(kappa_against(y[:t], p[:t], maj[:t]), abs=1e-12)
        assert kt[t - 1] == pytest.approx(kappa_against(y[:t], p[:t], nochg[:t]), abs=1e-12)


@pytest.mark.parametrize("metric", ["kappa", "kappa_m", "kappa_t"])
def test_incremental_update_equals_the_curve(metric: str) -> None:
    y, p = _stream(11, 200, 3)
    cls = get_metric(metric)
    m = cls(3)
    values = []
    for a, b in zip(y, p, strict=True):
        m.update(int(a), int(b))
        values.append(m.get())
    curve = cls.curve(y, p, np.arange(1, y.size + 1), MetricContext(n_classes=3))
    assert_allclose(values, curve, rtol=1e-12, atol=1e-12)
    assert cls(3).get() == 0.0  # before any sample, as MOA


def test_reference_learners_score_exactly_zero_on_every_kind() -> None:
    y, _ = _stream(2, 2000, 4)
    at = np.unique(np.linspace(1, y.size, 40).astype(np.int64))
    ctx = MetricContext(n_classes=4)
    maj = np.asarray(majority_class_loop(y, 4))
    nochg = np.asarray(no_change_loop(y))
    for metric, pred in ((KappaM, maj), (KappaT, nochg)):
        assert np.all(metric.curve(y, pred, at, ctx) == 0.0)
        assert np.all(metric.windowed_curve(y, pred, at, 37, ctx) == 0.0)
        assert np.all(metric.fading_curve(y, pred, at, 0.99, ctx) == 0.0)
    # and the other one is not 0: the test would notice a metric that is always 0
    assert KappaM.curve(y, nochg, at, ctx)[-1] > 0.1
    assert KappaT.curve(y, maj, at, ctx)[-1] < -0.1


def test_a_perfect_reference_gives_zero() -> None:
    y = np.zeros(10, dtype=np.int64)  # the majority and no-change rules are always right
    ctx = MetricContext(n_classes=2)
    at = np.array([5, 10])
    for cls in (KappaM, KappaT):
        assert_allclose(cls.curve(y, y, at, ctx), 0.0)
        assert_allclose(cls.curve(y, np.ones(10, dtype=np.int64), at, ctx), 0.0)


def test_kappas_are_shown_in_percent_like_moa() -> None:
    for name in ("kappa", "kappa_m", "kappa_t"):
        info = get_metric(name).display_info()
        assert info["scale"] == 100.0 and info["unit"] == "%" and info["precision"] == 2
        assert info["bigger_is_better"]
