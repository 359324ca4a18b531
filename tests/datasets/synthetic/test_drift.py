"""Tests for the River-based synthetic streams ``sea`` and ``hyperplane``."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.components import get_stream
from streamlearn.datasets.synthetic.drift import SEA_THRESHOLDS, HyperplaneStream, SEAStream
from streamlearn.errors import UserError

SMALL_SEA = {"n_samples": 8000, "drift_points": (2000, 4000, 6000)}


def _river_sea(variant: int, noise: float, seed: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    from river.datasets import synth

    rows = list(itertools.islice(synth.SEA(variant=variant, noise=noise, seed=seed), n))
    return np.array([list(x.values()) for x, _ in rows]), np.array([int(y) for _, y in rows])


# --------------------------------------------------------------------------------------
# common stream behaviour
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cls", "params", "d"),
    [
        (SEAStream, SMALL_SEA, 3),
        (HyperplaneStream, {"n_samples": 3000}, 20),
        (HyperplaneStream, {"n_samples": 500, "n_features": 5, "n_drift_features": 5}, 5),
    ],
)
def test_shapes_idempotence_and_seeds(cls: type, params: dict, d: int) -> None:
    stream = cls(**params)
    X, y = stream.to_arrays()
    n = params["n_samples"]
    assert X.shape == (n, d) and X.dtype == np.float64 and X.flags.c_contiguous
    assert y.shape == (n,) and y.dtype == np.int64
    assert set(np.unique(y)) == {0, 1}
    assert np.isfinite(X).all()
    X2, y2 = stream.to_arrays()
    assert_array_equal(X, X2)
    assert_array_equal(y, y2)
    X3, _ = cls(**params, seed=12345).to_arrays()
    assert not np.array_equal(X, X3)
    # prefix property: a shorter stream is the start of the longer one
    Xs, ys = cls(**{**params, "n_samples": n // 2}).to_arrays()
    assert_array_equal(Xs, X[: n // 2])
    assert_array_equal(ys, y[: n // 2])
    assert cls.natural_order is True


@pytest.mark.parametrize(
    ("cls", "params"), [(SEAStream, SMALL_SEA), (HyperplaneStream, {"n_samples": 300})]
)
def test_info_does_not_materialise(
    cls: type, params: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    stream = cls(**params)
    X, _ = stream.to_arrays()

    def boom() -> None:
        raise AssertionError("info() materialised the stream")

    monkeypatch.setattr(stream, "_load", boom)
    info = stream.info()
    assert (info.n_samples, info.n_features, info.n_classes) == (X.shape[0], X.shape[1], 2)
    assert info.task == "classification"
    assert stream.n_classes() == 2


def test_registered() -> None:
    assert get_stream("sea") is SEAStream
    assert get_stream("hyperplane") is HyperplaneStream


# --------------------------------------------------------------------------------------
# SEA
# --------------------------------------------------------------------------------------


def test_sea_defaults_are_the_paper_preset() -> None:
    """online_bls.md §8.3: four 25,000-sample blocks SEA(variant=v, noise=0.1, seed=100+v)."""
    stream = SEAStream()
    assert stream.segments() == [
        (0, 25_000, 0),
        (25_000, 50_000, 1),
        (50_000, 75_000, 2),
        (75_000, 100_000, 3),
    ]
    X, y = stream.to_arrays()
    assert X.shape == (100_000, 3)
    for start, _, v in stream.segments():
        Xr, yr = _river_sea(v, 0.1, 100 + v, 500)
        assert_array_equal(X[start : start + 500], Xr)
        assert_array_equal(y[start : start + 500], yr)


def test_sea_segments_follow_their_threshold_without_noise() -> None:
    stream = SEAStream(**SMALL_SEA, variants=(3, 0, 2, 1), noise=0.0, seed=5)
    X, y = stream.to_arrays()
    assert [v for *_, v in stream.segments()] == [3, 0, 2, 1]
    for start, stop, v in stream.segments():
        s = X[start:stop, 0] + X[start:stop, 1]
        assert_array_equal(y[start:stop], (s > SEA_THRESHOLDS[v]).astype(np.int64))
        # with another threshold the rule would be wrong on a good share of the segment
        other = [t for t in SEA_THRESHOLDS.values() if t != SEA_THRESHOLDS[v]]
        for t in other:
            assert np.mean(y[start:stop] != (s > t)) > 0.01
        # class balance: P(x0 + x1 > t) = 1 - t^2 / 200 for uniform [0, 10]^2 and t <= 10
        # (binomial sd at n = 2000 is at most 0.011; allow about 4 sd)
        p = 1 - SEA_THRESHOLDS[v] ** 2 / 200
        assert abs(y[start:stop].mean() - p) < 0.045
    assert (X >= 0).all() and (X <= 10).all()


def test_sea_noise_is_the_flip_probability() -> None:
    stream = SEAStream(n_samples=40_000, drift_points=(20_000,), variants=(0, 1), seed=9)
    X, y = stream.to_arrays()
    flipped = []
    for start, stop, v in stream.segments():
        rule = (X[start:stop, 0] + X[start:stop, 1] > SEA_THRESHOLDS[v]).astype(np.int64)
        flipped.append(y[start:stop] != rule)
    rate = float(np.concatenate(flipped).mean())
    # binomial standard deviation at n = 40,000: 0.0015; allow 4 sd
    assert abs(rate - 0.1) < 0.006, rate


def test_sea_drift_points_beyond_the_end_and_repeated_variants() -> None:
    short = SEAStream(n_samples=1000, seed=3)  # default drift points never happen
    assert short.segments() == [(0, 1000, 0)]
    X, _ = short.to_arrays()
    assert X.shape == (1000, 3)
    rep = SEAStream(n_samples=400, drift_points=(200,), variants=(1, 1), seed=3)
    Xr, _ = rep.to_arrays()
    assert not np.array_equal(Xr[:200], Xr[200:])  # seed + segment index, not seed + variant


@pytest.mark.parametrize(
    "bad",
    [
        {"variants": (0, 1)},
        {"variants": (0, 1, 2, 4)},
        {"drift_points": (50, 20, 70)},
        {"drift_points": (0, 20, 70)},
        {"drift_points": (10.5, 20, 70)},
        {"noise": 1.5},
        {"n_samples": 0},
        {"seed": 1.5},
    ],
)
def test_sea_rejects_bad_params(bad: dict) -> None:
    with pytest.raises(UserError):
        SEAStream(**bad)


# --------------------------------------------------------------------------------------
# Hyperplane
# --------------------------------------------------------------------------------------


def test_hyperplane_defaults_are_the_paper_preset() -> None:
    """online_bls.md §8.3: Hyperplane(seed=1, n_features=20, n_drift_features=2,
    mag_change=0.005, noise_percentage=0.01, sigma=0.1), first 100,000 samples."""
    assert HyperplaneStream.default_params() == {
        "n_samples": 100_000,
        "n_features": 20,
        "n_drift_features": 2,
        "mag_change": 0.005,
        "noise_percentage": 0.01,
        "sigma": 0.1,
        "seed": 1,
    }


def test_hyperplane_paper_noise_flips_no_labels() -> None:
    """River quirk: flip iff 0.01 + U <= noise_percentage, so 0.01 flips nothing.

    River draws the noise uniform for every sample whatever the setting, so streams with
    the same seed differ only in the flipped labels; comparing labels measures the flips.
    """
    n = 100_000
    X_paper, y_paper = HyperplaneStream(n_samples=n).to_arrays()
    X_clean, y_clean = HyperplaneStream(n_samples=n, noise_percentage=0.0).to_arrays()
    assert_array_equal(X_paper, X_clean)
    assert float(np.mean(y_paper != y_clean)) == 0.0  # measured: exactly 0 of 100,000


def test_hyperplane_noise_is_shifted_by_one_percent() -> None:
    n = 20_000
    X0, y0 = HyperplaneStream(n_samples=n, noise_percentage=0.0, seed=4).to_arrays()
    X1, y1 = HyperplaneStream(n_samples=n, noise_percentage=0.11, seed=4).to_arrays()
    assert_array_equal(X0, X1)
    rate = float(np.mean(y0 != y1))
    # effective flip probability 0.11 - 0.01 = 0.10; binomial sd at n = 20,000 is 0.0021
    assert abs(rate - 0.10) < 0.0085, rate


def test_hyperplane_sigma_has_the_same_quirk() -> None:
    params = {"n_samples": 5000, "n_features": 4, "mag_change": 0.01, "noise_percentage": 0.0}
    _, y_a = HyperplaneStream(**params, sigma=0.0).to_arrays()
    _, y_b = HyperplaneStream(**params, sigma=0.01).to_arrays()
    _, y_c = HyperplaneStream(**params, sigma=0.5).to_arrays()
    assert_array_equal(y_a, y_b)  # sigma = 0.01 never reverses a drift direction
    assert not np.array_equal(y_a, y_c)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_hyperplane_label_rule_without_drift_or_noise(seed: int) -> None:
    """With mag_change = 0 the weights are River's first draws: y = [w.x >= sum(w) / 2]."""
    d = 6
    X, y = HyperplaneStream(
        n_samples=3000, n_features=d, mag_change=0.0, noise_percentage=0.0, seed=seed
    ).to_arrays()
    rng = random.Random(seed)
    w = np.array([rng.random() for _ in range(d)])
    assert_array_equal(y, (X @ w >= 0.5 * w.sum()).astype(np.int64))
    assert (X >= 0).all() and (X <= 1).all()
    assert 0.3 < y.mean() < 0.7


def test_hyperplane_drift_changes_the_concept() -> None:
    """With the paper's drift the initial hyperplane explains late labels worse."""
    n = 100_000
    X, y = HyperplaneStream(n_samples=n, noise_percentage=0.0).to_arrays()
    rng = random.Random(1)
    w = np.array([rng.random() for _ in range(20)])
    agree = (X @ w >= 0.5 * w.sum()).astype(np.int64) == y
    # measured: 0.921 on the first 1,000 samples, 0.665 on the last 10,000
    assert agree[:1000].mean() > 0.85
    assert agree[-10_000:].mean() < 0.75


@pytest.mark.parametrize(
    "bad",
    [
        {"n_features": 3, "n_drift_features": 4},
        {"n_features": 1},
        {"noise_percentage": -0.1},
        {"sigma": 2.0},
        {"mag_change": 1.5},
    ],
)
def test_hyperplane_rejects_bad_params(bad: dict) -> None:
    with pytest.raises(UserError):
        HyperplaneStream(**bad)
