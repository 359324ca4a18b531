"""River's drift generators as streams: the arrays are River's own samples, the seed
makes them reproducible, and the concept does change."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from streamlearn import components, registry
from streamlearn.datasets.synthetic.river_drift import (
    AgrawalDriftStream,
    LEDDriftStream,
    RandomRBFDriftStream,
)
from streamlearn.errors import UserError


def _river(dataset, n):
    rows = list(itertools.islice(dataset, n))
    return (np.array([list(x.values()) for x, _ in rows], dtype=float),
            np.array([int(y) for _, y in rows]))


def test_registered():
    components.load_all()
    for name, cls in [("agrawal_drift", AgrawalDriftStream), ("led_drift", LEDDriftStream),
                      ("random_rbf_drift", RandomRBFDriftStream)]:
        assert registry.STREAMS[name] is cls


@pytest.mark.parametrize("cls,params", [
    (AgrawalDriftStream, {"position": 300, "width": 50}),
    (LEDDriftStream, {}),
    (RandomRBFDriftStream, {"n_classes": 3}),
])
def test_shapes_seeds_and_info(cls, params):
    a = cls(n_samples=600, seed=5, **params)
    X, y = a._load()
    info = a.info()
    assert X.shape == (600, info.n_features) and X.dtype == np.float64
    assert y.min() >= 0 and y.max() < info.n_classes
    X2, y2 = cls(n_samples=600, seed=5, **params)._load()
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = cls(n_samples=600, seed=6, **params)._load()
    assert not np.array_equal(X, X3)


def test_arrays_are_rivers_samples():
    from river.datasets import synth

    X, y = LEDDriftStream(n_samples=300, seed=2, noise=0.2, n_drift_features=3)._load()
    Xr, yr = _river(synth.LEDDrift(seed=2, noise_percentage=0.2, irrelevant_features=True,
                                   n_drift_features=3), 300)
    np.testing.assert_array_equal(X, Xr)
    np.testing.assert_array_equal(y, yr)
    X, y = RandomRBFDriftStream(n_samples=300, seed=4)._load()
    Xr, yr = _river(synth.RandomRBFDrift(seed_model=4, seed_sample=4, n_classes=5,
                                         n_features=10, n_centroids=50, change_speed=0.001,
                                         n_drift_centroids=25), 300)
    np.testing.assert_array_equal(X, Xr)
    np.testing.assert_array_equal(y, yr)


def test_agrawal_concept_changes_at_the_position():
    """Before the change the labels follow Agrawal function 0 (age < 40 or age >= 60 → 0:
    class 0 iff age in [40, 60)), after it function 2's rule; with width 20 the change is
    nearly abrupt, so the rule of function 0 holds before and fails often after."""
    X, y = AgrawalDriftStream(n_samples=4000, before=0, after=2, position=2000, width=20,
                              perturbation=0.0, seed=1)._load()
    age = X[:, 2]
    rule0 = ((age >= 40) & (age < 60)).astype(int)  # River's function 0: 1 if 40 <= age < 60
    agree_before = np.mean(rule0[:1900] == y[:1900])
    agree_after = np.mean(rule0[2100:] == y[2100:])
    assert agree_before in (0.0, 1.0)  # the rule, up to River's label coding
    assert 0.05 < agree_after < 0.95


@pytest.mark.parametrize("cls,bad", [
    (AgrawalDriftStream, {"before": 10}),
    (AgrawalDriftStream, {"width": 0}),
    (AgrawalDriftStream, {"n_samples": 100_000, "width": 100}),  # River would overflow
    (LEDDriftStream, {"irrelevant_features": False, "n_drift_features": 2}),
    (LEDDriftStream, {"n_drift_features": 8}),
    (RandomRBFDriftStream, {"n_centroids": 5, "n_drift_centroids": 6}),
])
def test_rejects_bad_params(cls, bad):
    with pytest.raises(UserError):
        cls(**bad)
