"""Tests for the River baseline adapters (hoeffding_tree, arf, leveraging_bagging, ...)."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from streamlearn.algorithms.external.river_baselines import (
    ARF,
    HoeffdingTree,
    LeveragingBagging,
    PassiveAggressive,
    Perceptron,
    RiverClassifier,
)
from streamlearn.components import get_algorithm
from streamlearn.datasets.synthetic.drift import SEAStream
from streamlearn.errors import UserError

# fast settings: small ensembles, fixed seeds
CASES: dict[str, tuple[type[RiverClassifier], dict[str, Any]]] = {
    "hoeffding_tree": (HoeffdingTree, {}),
    "arf": (ARF, {"n_models": 3, "seed": 1}),
    "leveraging_bagging": (LeveragingBagging, {"n_models": 3, "seed": 1}),
    "passive_aggressive": (PassiveAggressive, {}),
    "perceptron": (Perceptron, {}),
}
NAMES = list(CASES)


def _make(name: str, **overrides: Any) -> RiverClassifier:
    cls, params = CASES[name]
    return cls(**{**params, **overrides})


def _sea(n: int, seed: int = 11) -> tuple[np.ndarray, np.ndarray]:
    return SEAStream(n_samples=n, drift_points=(), variants=(0,), seed=seed).to_arrays()


def _blobs(n: int, c: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.normal(scale=4.0, size=(c, 4))
    y = rng.integers(0, c, size=n)
    X = centers[y] + rng.normal(size=(n, 4))
    return np.ascontiguousarray(X), y.astype(np.int64)


def _prequential(model: RiverClassifier, X: np.ndarray, y: np.ndarray) -> list[int]:
    preds = []
    for xi, yi in zip(X, y, strict=True):
        preds.append(model.predict_one(xi))
        model.learn_one(xi, yi)
    return preds


def test_registered_names() -> None:
    for name, (cls, _) in CASES.items():
        assert get_algorithm(name) is cls


@pytest.mark.parametrize("name", NAMES)
def test_learns_sea_above_majority(name: str) -> None:
    X, y = _sea(3000)
    model = _make(name)
    model.reset(3, 2)
    acc = float(np.mean(np.array(_prequential(model, X, y)) == y))
    majority = max(y.mean(), 1 - y.mean())
    # measured (seed 11): HT 0.87, ARF 0.86, LB 0.86, PA 0.72, perceptron 0.71; majority 0.66
    assert acc > majority + 0.03, (acc, majority)


@pytest.mark.parametrize("name", NAMES)
def test_predictions_are_ints_in_range_and_start_at_zero(name: str) -> None:
    for c, (X, y) in ((2, _sea(400)), (4, _blobs(400, 4))):
        model = _make(name)
        model.reset(X.shape[1], c)
        assert model.predict_one(X[0]) == 0  # River returns None before learning -> class 0
        preds = _prequential(model, X, y)
        assert all(type(p) is int and 0 <= p < c for p in preds)


@pytest.mark.parametrize("name", NAMES)
def test_same_seed_same_predictions(name: str) -> None:
    X, y = _sea(1500, seed=2)
    first = _make(name)
    first.reset(3, 2)
    second = first.clone()
    second.reset(3, 2)
    assert _prequential(first, X, y) == _prequential(second, X, y)


@pytest.mark.parametrize("name", NAMES)
def test_input_not_mutated(name: str) -> None:
    X, y = _blobs(300, 3)
    X0, y0 = X.copy(), y.copy()
    model = _make(name)
    model.reset(4, 3)
    _prequential(model, X, y)
    assert_array_equal(X, X0)
    assert_array_equal(y, y0)


@pytest.mark.parametrize("name", NAMES)
def test_pickle_roundtrip(name: str) -> None:
    X, y = _sea(1200, seed=4)
    model = _make(name)
    model.reset(3, 2)
    _prequential(model, X[:800], y[:800])
    copy = pickle.loads(pickle.dumps(model))
    # the copy and the original keep learning in lockstep and predict the same
    assert _prequential(copy, X[800:], y[800:]) == _prequential(model, X[800:], y[800:])
    assert model.model_bytes() > 0


@pytest.mark.parametrize("cls", [PassiveAggressive, Perceptron])
def test_binary_linear_models_label_mapping(cls: type[RiverClassifier]) -> None:
    from river import linear_model, multiclass

    X, y = _sea(2000, seed=5)
    binary = cls()
    binary.reset(3, 2)
    assert not isinstance(binary.model_, multiclass.OneVsRestClassifier)
    _prequential(binary, X, y)
    # labels were passed as bools: River's model saw both classes and predicts 1 sometimes
    preds = [binary.predict_one(x) for x in X[:500]]
    assert 0 < np.mean(preds) < 1
    # a positive weight on x0 + x1: class 1 means a large x0 + x1, so 0 -> False, 1 -> True
    weights = binary.model_.weights
    assert weights[0] > 0 and weights[1] > 0

    Xm, ym = _blobs(3000, 4, seed=1)
    multi = cls()
    multi.reset(4, 4)
    assert isinstance(multi.model_, multiclass.OneVsRestClassifier)
    acc = float(np.mean(np.array(_prequential(multi, Xm, ym)) == ym))
    assert acc > 0.5  # chance is 0.25; well-separated blobs
    assert sorted(multi.model_.classifiers) == [0, 1, 2, 3]
    assert all(
        isinstance(m, (linear_model.PAClassifier, linear_model.Perceptron))
        for m in multi.model_.classifiers.values()
    )


def test_multiclass_trees_see_int_labels() -> None:
    X, y = _blobs(1500, 3, seed=2)
    model = HoeffdingTree(grace_period=50)
    model.reset(4, 3)
    acc = float(np.mean(np.array(_prequential(model, X, y)) == y))
    assert acc > 0.6


def test_parameters_reach_river() -> None:
    model = ARF(n_models=2, max_features=2, lambda_value=3, seed=7)
    model.reset(5, 2)
    assert (model.model_.n_models, model.model_.lambda_value, model.model_.seed) == (2, 3, 7)
    lb = LeveragingBagging(n_models=2, w=2.0, seed=3, grace_period=30)
    lb.reset(3, 2)
    assert (lb.model_.n_models, lb.model_.w, lb.model_.seed) == (2, 2.0, 3)
    assert lb.model_.model.grace_period == 30
    ht = HoeffdingTree(grace_period=10, delta=1e-3, tau=0.1, leaf_prediction="mc")
    ht.reset(3, 2)
    assert (ht.model_.grace_period, ht.model_.delta, ht.model_.tau) == (10, 1e-3, 0.1)
    assert ht.model_.leaf_prediction == "mc"
    pa = PassiveAggressive(C=0.5, mode=2)
    pa.reset(3, 2)
    assert (pa.model_.C, pa.model_.mode) == (0.5, 2)


@pytest.mark.parametrize(
    ("cls", "bad"),
    [
        (HoeffdingTree, {"leaf_prediction": "foo"}),
        (HoeffdingTree, {"grace_period": 0}),
        (ARF, {"max_features": "all"}),
        (ARF, {"max_features": 0}),
        (ARF, {"seed": 1.5}),
        (LeveragingBagging, {"bagging_method": "boost"}),
        (PassiveAggressive, {"mode": 3}),
        (PassiveAggressive, {"C": 0.0}),
        (Perceptron, {"l2": -1.0}),
    ],
)
def test_rejects_bad_params(cls: type, bad: dict) -> None:
    with pytest.raises(UserError):
        cls(**bad)


@pytest.mark.parametrize("max_features", ["sqrt", "log2", None, 2, 0.5])
def test_arf_accepts_river_max_features(max_features: Any) -> None:
    ARF(max_features=max_features)


def test_reset_needs_classes() -> None:
    model = HoeffdingTree()
    with pytest.raises(UserError):
        model.reset(3, None)
