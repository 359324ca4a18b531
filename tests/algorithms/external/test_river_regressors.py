"""The River regressor adapters (linear_regression, hoeffding_tree_regressor,
arf_regressor): the predictions are River's own model's, parameters are validated, seeds
reproduce, and `streamlearn check` passes."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest

from streamlearn.algorithms.external.river_regressors import (
    ARFRegressor,
    HoeffdingTreeRegressor,
    LinearRegression,
    RiverRegressor,
)
from streamlearn.components import get_algorithm
from streamlearn.datasets.river_regression import FriedmanStream
from streamlearn.errors import UserError
from tests.cli_helpers import run_cli

CASES: dict[str, tuple[type[RiverRegressor], dict[str, Any]]] = {
    "linear_regression": (LinearRegression, {}),
    "hoeffding_tree_regressor": (HoeffdingTreeRegressor, {"grace_period": 50}),
    "arf_regressor": (ARFRegressor, {"n_models": 3, "seed": 1}),
}


def _river_model(name: str) -> Any:
    """The River model each adapter should be, built here from River directly."""
    from river import forest, linear_model, optim, preprocessing, tree

    if name == "linear_regression":
        model = linear_model.LinearRegression(optimizer=optim.SGD(0.01))
    elif name == "hoeffding_tree_regressor":
        model = tree.HoeffdingTreeRegressor(grace_period=50)
    else:
        model = forest.ARFRegressor(n_models=3, seed=1)
    return preprocessing.StandardScaler() | model


def _prequential(model: Any, X: np.ndarray, y: np.ndarray, river: bool = False) -> list:
    preds = []
    for xi, yi in zip(X, y, strict=True):
        if river:
            x = {i: float(v) for i, v in enumerate(xi)}
            preds.append(model.predict_one(x))
            model.learn_one(x, float(yi))
        else:
            preds.append(model.predict_one(xi))
            model.learn_one(xi, yi)
    return preds


@pytest.mark.parametrize("name", list(CASES))
def test_predictions_are_rivers_and_learn_friedman(name):
    X, y = FriedmanStream(n_samples=1500, seed=3).to_arrays()
    cls, params = CASES[name]
    assert get_algorithm(name) is cls
    model = cls(**params)
    model.reset(10, None)
    ours = _prequential(model, X, y)
    theirs = _prequential(_river_model(name), X, y, river=True)
    assert all(type(p) is float for p in ours)
    np.testing.assert_array_equal(ours, np.asarray(theirs, dtype=float))
    # better than predicting the mean over the second half (Friedman's variance ~ 24)
    tail = slice(750, None)
    assert np.mean((np.array(ours)[tail] - y[tail]) ** 2) < np.var(y[tail])
    assert model.model_bytes() > 0


@pytest.mark.parametrize("name", list(CASES))
def test_seeded_clone_and_pickle_predict_alike(name):
    X, y = FriedmanStream(n_samples=600, seed=4).to_arrays()
    cls, params = CASES[name]
    first = cls(**params)
    first.reset(10, None)
    second = first.clone()
    second.reset(10, None)
    assert _prequential(first, X[:400], y[:400]) == _prequential(second, X[:400], y[:400])
    copy = pickle.loads(pickle.dumps(first))
    assert _prequential(copy, X[400:], y[400:]) == _prequential(first, X[400:], y[400:])


def test_without_the_scaler_the_model_is_rivers_plain_model():
    from river import linear_model, optim

    X, y = FriedmanStream(n_samples=300, seed=1).to_arrays()
    model = LinearRegression(lr=0.05, l2=0.001, standardize=False)
    model.reset(10, None)
    theirs = linear_model.LinearRegression(optimizer=optim.SGD(0.05), l2=0.001)
    np.testing.assert_array_equal(_prequential(model, X, y),
                                  np.asarray(_prequential(theirs, X, y, river=True)))
    from river import tree

    model = HoeffdingTreeRegressor(grace_period=50, standardize=False)
    model.reset(10, None)
    theirs = tree.HoeffdingTreeRegressor(grace_period=50)
    np.testing.assert_array_equal(_prequential(model, X, y),
                                  np.asarray(_prequential(theirs, X, y, river=True)))


def test_the_scaler_keeps_trees_finite_on_trump_approval():
    """TrumpApproval's ordinal date (~7e5) makes the trees' linear leaf models diverge
    without River's scaler (measured RMSE 1.5e10); with it the error is that of a poll."""
    from streamlearn.datasets.river_regression import TrumpApprovalStream

    X, y = TrumpApprovalStream().to_arrays()
    model = HoeffdingTreeRegressor()
    model.reset(X.shape[1], None)
    preds = np.asarray(_prequential(model, X, y))
    assert np.sqrt(np.mean((preds[100:] - y[100:]) ** 2)) < 5.0


@pytest.mark.parametrize("cls,params,needle", [
    (LinearRegression, {"lr": 0.0}, "lr"),
    (LinearRegression, {"standardize": "yes"}, "standardize"),
    (HoeffdingTreeRegressor, {"leaf_prediction": "nba"}, "leaf_prediction"),
    (HoeffdingTreeRegressor, {"grace_period": 0}, "grace_period"),
    (ARFRegressor, {"aggregation_method": "max"}, "aggregation_method"),
    (ARFRegressor, {"max_features": 1.5}, "max_features"),
    (ARFRegressor, {"standardize": 1}, "standardize"),
])
def test_bad_parameters_are_refused(cls, params, needle):
    with pytest.raises(UserError, match=needle):
        cls(**params)


@pytest.mark.parametrize("name", list(CASES))
def test_streamlearn_check_passes(name, capsys):
    rc, text = run_cli(["check", name], capsys)
    assert rc == 0, text
