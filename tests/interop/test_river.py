"""The River wrappers: the same predictions as streamlearn's own loop, classes found on
the fly (grown exactly or refused with the way out), the dict's column order, parameters
that round-trip, and the errors a user meets."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from river import checks, evaluate, metrics, preprocessing

from streamlearn.interop.river import (
    FORKS,
    OnlineBLS,
    OnlineBLSAda,
    StreamlearnClassifier,
    river_classifier,
)
from tests.interop.doors import (
    blobs,
    n_differ,
    river_dataset,
    river_predictions,
    streamlearn_predictions,
)
from tests.interop.learners import checked, small_params

BLS = {"n1": 4, "n2": 3, "n3": 40, "lam": 1e-2, "seed": 5}


def _binary(name: str) -> bool:
    from streamlearn import components

    return "binary_only" in components.get_algorithm(name).all_tags()


# --------------------------------------------------------------------------------------
# Same numbers as streamlearn's loop
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", checked())
def test_same_predictions_as_streamlearns_loop(name: str) -> None:
    c = 2 if _binary(name) else 3
    X, y = blobs(400, 4, c, seed=1)
    params = small_params(name)
    ours = streamlearn_predictions(name, params, X, y, c)
    classes = None if _binary(name) else tuple(range(c))
    model = StreamlearnClassifier(name, classes=classes, **params)
    preds, acc = river_predictions(model, river_dataset(X, y))
    assert None not in preds
    assert n_differ(preds, ours) == 0
    assert acc == pytest.approx(float(np.mean(ours == y)), abs=1e-12)


@pytest.mark.parametrize("name", ["online_bls_fast", "online_bls_ada_fast", "rls"])
def test_discovered_classes_agree_once_every_class_has_appeared(name: str) -> None:
    """Without ``classes`` the labels are found in first-seen order (here 2, 0, 1, not
    streamlearn's sorted order); after every class has appeared the grown network is
    streamlearn's, column for column, so the predictions agree from then on."""
    X, y = blobs(300, 4, 3, seed=2)
    first = {label: int(np.argmax(y == label)) for label in range(3)}
    assert sorted(first, key=first.get) != [0, 1, 2]  # not the sorted order
    params = BLS if name != "rls" else {}
    ours = streamlearn_predictions(name, params, X, y, 3)
    model = StreamlearnClassifier(name, **params)
    preds, _ = river_predictions(model, river_dataset(X, y))
    assert preds[0] is None  # nothing learned, no class known (River's convention)
    everyone = max(first.values())
    assert n_differ(preds[everyone + 1:], ours[everyone + 1:]) == 0
    assert model.classes_ == sorted(first, key=first.get)
    assert model.learner_.n_classes_ == 3


def test_new_class_grows_the_network_and_its_probabilities() -> None:
    model = OnlineBLS(**BLS)
    X, _ = blobs(3, 4, 1, seed=0)
    rows = river_dataset(X, np.zeros(3))
    model.learn_one(rows[0][0], "cat")
    assert model.predict_one(rows[1][0]) == "cat"
    assert model.predict_proba_one(rows[1][0]) == {"cat": 1.0}
    model.learn_one(rows[1][0], "dog")
    model.learn_one(rows[2][0], "emu")
    assert model.classes_ == ["cat", "dog", "emu"] and model.learner_.n_classes_ == 3
    proba = model.predict_proba_one(rows[2][0])
    assert set(proba) == {"cat", "dog", "emu"} and sum(proba.values()) == pytest.approx(1)
    assert max(proba, key=proba.get) == model.predict_one(rows[2][0])


# --------------------------------------------------------------------------------------
# Refusals, each with the way out
# --------------------------------------------------------------------------------------


def test_binary_learner_takes_bools_or_01_and_refuses_a_third_label() -> None:
    model = FORKS(**small_params("forks"))
    x = {"a": 0.1, "b": 0.2}
    assert model.predict_one(x) is True  # sgn(0) = +1, as streamlearn predicts
    assert set(model.predict_proba_one(x)) == {False, True}
    model.learn_one(x, 0)
    model.learn_one(x, True)
    with pytest.raises(ValueError, match=r"two classes.*OneVsRestClassifier"):
        model.learn_one(x, 2)


@pytest.mark.parametrize("name", ["ibls", "ribls", "bls_cil"])
def test_learner_without_growth_refuses_a_new_class_and_runs_with_classes(name: str) -> None:
    X, y = blobs(200, 4, 2, seed=3)
    data = river_dataset(X, y)
    model = StreamlearnClassifier(name, **small_params(name))
    model.learn_one(*data[0])
    other = next(label for _, label in data if label != data[0][1])
    with pytest.raises(ValueError, match=r"cannot take the new class .*classes=\(\.\.\.\)"):
        model.learn_one(data[1][0], other)
    declared = StreamlearnClassifier(name, classes=(0, 1), **small_params(name))
    preds, _ = river_predictions(declared, data)
    ours = streamlearn_predictions(name, small_params(name), X, y, 2)
    assert n_differ(preds, ours) == 0


def test_declared_classes_refuse_another_label() -> None:
    model = OnlineBLS(classes=("a", "b"), **BLS)
    with pytest.raises(ValueError, match="not one of the declared classes"):
        model.learn_one({"x": 1.0}, "c")
    with pytest.raises(ValueError, match="repeats"):
        OnlineBLS(classes=("a", "a"))
    with pytest.raises(ValueError, match="False and True"):
        FORKS(rho=10, classes=("no", "yes"))


def test_users_learner_by_dotted_path() -> None:
    grows = StreamlearnClassifier("tests.interop.user_learners:SoftmaxSGD", lr=0.3)
    checks.check_estimator(grows)
    fixed = StreamlearnClassifier("tests.interop.user_learners:FixedClasses")
    fixed.learn_one({"x": 1.0}, "a")
    with pytest.raises(ValueError, match="FixedClasses cannot take the new class 'b'"):
        fixed.learn_one({"x": 2.0}, "b")
    with pytest.raises(NotImplementedError):  # no scores: River's convention
        fixed.predict_proba_one({"x": 1.0})


def test_errors_name_the_problem() -> None:
    with pytest.raises(TypeError, match="n5"):
        OnlineBLS(n5=3)
    with pytest.raises(ValueError, match="'lam' parameter"):
        OnlineBLS(lam=-1.0)
    with pytest.raises(ValueError, match=r"has no parameter 'n5'.*Valid parameters: n1, n2"):
        StreamlearnClassifier("online_bls_fast", n5=3)
    with pytest.raises(ValueError, match="Unknown algorithm 'online_blss'"):
        StreamlearnClassifier("online_blss")
    with pytest.raises(ValueError, match="regression learner"):
        StreamlearnClassifier("fast_ons")
    with pytest.raises(ValueError, match="needs a protocol"):
        StreamlearnClassifier("bls_chol1")
    model = OnlineBLS(**BLS)
    model.learn_one({"a": 1.0}, 0)
    with pytest.raises(ValueError, match=r"feature 'a' is 'high'.*OneHotEncoder"):
        model.predict_one({"a": "high"})


# --------------------------------------------------------------------------------------
# Features: order, missing, new
# --------------------------------------------------------------------------------------


def test_columns_are_sorted_names_or_the_declared_order() -> None:
    X, y = blobs(60, 3, 3, seed=4)
    ours = streamlearn_predictions("online_bls_fast", BLS, X, y, 3)
    names = ("b", "c", "a")  # column i of X is feature names[i]
    rows = [({names[i]: v for i, v in reversed(list(enumerate(row)))}, label)
            for row, label in zip(X.tolist(), y.tolist(), strict=True)]
    declared = OnlineBLS(features=names, classes=(0, 1, 2), **BLS)
    assert n_differ(river_predictions(declared, rows)[0], ours) == 0
    # sorted names: column order a, b, c is X[:, [2, 0, 1]]
    ours_sorted = streamlearn_predictions("online_bls_fast", BLS,
                                          np.ascontiguousarray(X[:, [2, 0, 1]]), y, 3)
    by_name = OnlineBLS(classes=(0, 1, 2), **BLS)
    assert n_differ(river_predictions(by_name, rows)[0], ours_sorted) == 0
    assert by_name.features_ == ("a", "b", "c")


def test_missing_features_are_zero_and_new_ones_ignored() -> None:
    X, y = blobs(80, 3, 2, seed=5)
    X[40:, 1] = 0.0  # the learner's view: feature 1 missing from sample 40 on
    ours = streamlearn_predictions("online_bls_fast", BLS, X, y, 2)
    rows = []
    for i, (row, label) in enumerate(zip(X.tolist(), y.tolist(), strict=True)):
        x = dict(enumerate(row))
        if i >= 40:
            del x[1]
            x[7] = 123.0  # a feature the first sample did not have
        rows.append((x, label))
    model = OnlineBLS(classes=(0, 1), **BLS)
    assert n_differ(river_predictions(model, rows)[0], ours) == 0
    assert model.features_ == (0, 1, 2)


# --------------------------------------------------------------------------------------
# Parameters, clone, pickle, probabilities, pipelines
# --------------------------------------------------------------------------------------


def test_parameters_round_trip() -> None:
    model = OnlineBLSAda(mu=0.95, n3=30, seed=3, classes=(0, 1))
    params = model._get_params()
    assert params["mu"] == 0.95 and params["n3"] == 30 and params["n1"] == 10
    assert params["classes"] == (0, 1) and params["seed"] == 3
    assert repr(model.clone()) == repr(model) and "mu=0.95" in repr(model)
    assert model.clone({"n3": 31}).n3 == 31
    assert OnlineBLSAda(**params)._get_params() == params
    generic = StreamlearnClassifier("online_bls_ada_fast", mu=0.95, n3=30, seed=3)
    assert generic.clone()._get_params() == generic._get_params()
    assert river_classifier("skegd")(sigma=2.0, rho=30).sigma == 2.0


def test_pickled_mid_stream_goes_on_identically() -> None:
    X, y = blobs(120, 4, 3, seed=6)
    data = river_dataset(X, y)
    model = OnlineBLS(**BLS)
    for x, label in data[:60]:
        model.predict_one(x)
        model.learn_one(x, label)
    copy = pickle.loads(pickle.dumps(model))
    for x, label in data[60:]:
        assert copy.predict_one(x) == model.predict_one(x)
        assert copy.predict_proba_one(x) == model.predict_proba_one(x)
        copy.learn_one(x, label)
        model.learn_one(x, label)


@pytest.mark.parametrize("name", ["online_bls_fast", "rls", "forks", "nogd"])
def test_probabilities_argmax_is_the_prediction(name: str) -> None:
    c = 2 if _binary(name) else 3
    X, y = blobs(150, 4, c, seed=7)
    model = StreamlearnClassifier(name, **small_params(name))
    for x, label in river_dataset(X, y):
        proba = model.predict_proba_one(x)
        if proba:
            assert sum(proba.values()) == pytest.approx(1.0)
            assert all(0.0 <= p <= 1.0 for p in proba.values())
            top = max(proba.values())
            assert proba[model.predict_one(x)] == top
        model.learn_one(x, label)


def test_in_a_pipeline_with_river_preprocessing() -> None:
    X, y = blobs(300, 4, 2, seed=8)
    model = preprocessing.StandardScaler() | OnlineBLS(**BLS)
    acc = evaluate.progressive_val_score(river_dataset(X * 50 + 3, y), model,
                                         metrics.Accuracy())
    assert acc.get() > 0.8


# --------------------------------------------------------------------------------------
# Missing values: refused before the learner sees them
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["perceptron", "online_bls_fast"])
@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -np.inf, None])
def test_missing_or_non_finite_feature_is_refused_and_the_learner_untouched(
        name: str, bad: object) -> None:
    X, y = blobs(120, 3, 2, seed=9)
    data = river_dataset(X, y)
    params = BLS if name == "online_bls_fast" else small_params(name)
    model = StreamlearnClassifier(name, classes=(0, 1), **params)
    with pytest.raises(ValueError, match=r"feature 0 is .*missing or non-finite"):
        model.learn_one({0: bad, 1: 0.3, 2: 0.1}, 1)  # the first sample
    assert model.features_ is None and model.learner_ is None
    for x, label in data[:60]:
        model.learn_one(x, label)
    clean = pickle.loads(pickle.dumps(model))
    poisoned = {0: 0.2, 1: bad, 2: 0.1}
    with pytest.raises(ValueError, match=r"feature 1 is .*missing or non-finite"):
        model.learn_one(poisoned, 1)
    with pytest.raises(ValueError, match=r"feature 1 is .*missing or non-finite"):
        model.predict_one(poisoned)
    if name == "online_bls_fast":
        with pytest.raises(ValueError, match=r"feature 1 is .*missing or non-finite"):
            model.predict_proba_one(poisoned)
    for x, label in data[60:]:
        assert model.predict_one(x) == clean.predict_one(x)
        model.learn_one(x, label)
        clean.learn_one(x, label)


@pytest.mark.parametrize("label", [float("nan"), np.float64("nan"), None])
def test_missing_label_is_refused_not_a_new_class(label: object) -> None:
    model = OnlineBLS(**BLS)
    model.learn_one({"a": 1.0}, 0)
    for _ in range(2):
        with pytest.raises(ValueError, match="a missing target cannot be a class"):
            model.learn_one({"a": 2.0}, label)
    assert model.classes_ == [0] and model.learner_.n_classes_ == 1
    with pytest.raises(ValueError, match="a missing target cannot be a class"):
        FORKS(**small_params("forks")).learn_one({"a": 2.0}, label)


@pytest.mark.parametrize("name", ["perceptron", "hoeffding_tree"])
def test_learner_that_cannot_start_from_one_class_asks_for_classes(name: str) -> None:
    model = StreamlearnClassifier(name, **small_params(name))
    for _ in range(2):  # refused the same way again: the wrapper is unchanged
        with pytest.raises(ValueError, match=r"single class.*classes=\(\.\.\.\)"):
            model.learn_one({"a": 1.0}, 0)
        assert model.classes_ == [] and model.learner_ is None
        assert model.predict_one({"a": 1.0}) is None
    declared = StreamlearnClassifier(name, classes=(0, 1), **small_params(name))
    declared.learn_one({"a": 1.0}, 0)
    assert declared.predict_one({"a": 1.0}) in (0, 1)


@pytest.mark.parametrize("x", [{"a": "1x"}, {"a": [1.0, 2.0]}, {"a": {}}, {"a": [1.0]},
                               {"a": [1.0], "b": [2.0]}, {"a": 1.0, "b": "1x"}])
def test_non_numeric_value_is_named_with_one_feature_or_many(x: dict) -> None:
    model = OnlineBLS(classes=(0, 1), **BLS)
    bad = next(k for k, v in x.items() if not isinstance(v, float))
    with pytest.raises(ValueError, match=rf"takes numeric features; feature '{bad}' is"):
        model.predict_one(x)
    with pytest.raises(ValueError, match=rf"takes numeric features; feature '{bad}' is"):
        model.learn_one(x, 0)
    assert model.features_ is None and model.learner_ is None


def test_features_repeating_a_name_are_refused() -> None:
    with pytest.raises(ValueError, match="repeats a name"):
        OnlineBLS(features=("a", "b", "a"))
