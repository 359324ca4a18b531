"""The CapyMOA wrappers: CapyMOA's evaluation loops give streamlearn's predictions, sample
by sample (on Electricity too), beside MOA's own learners; refusals name the way out.
Skipped where CapyMOA or Java is missing (make test-moa runs them in .venv-moa); there,
the import error is tested instead."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from streamlearn.algorithms.external.moa_baselines import moa_unavailable_reason
from tests.conftest import shared_data_dir
from tests.interop.doors import blobs, n_differ, streamlearn_predictions
from tests.interop.learners import small_params

REASON = moa_unavailable_reason()
needs_moa = pytest.mark.skipif(REASON is not None, reason=f"MOA unavailable: {REASON}")


@pytest.mark.skipif(REASON is None, reason="CapyMOA and Java are here: the import works")
def test_import_without_capymoa_says_what_is_missing() -> None:
    with pytest.raises(ImportError, match=r"needs CapyMOA and Java: .*streamlearn\[moa\]"):
        import streamlearn.interop.capymoa  # noqa: F401


def _numpy_stream(X: np.ndarray, y: np.ndarray) -> Any:
    from capymoa.stream import NumpyStream

    return NumpyStream(X, y, target_type="categorical")


def _capymoa_predictions(learner: Any, stream: Any) -> tuple[list[int], float]:
    from capymoa.evaluation import prequential_evaluation

    results = prequential_evaluation(stream, learner, store_predictions=True)
    return list(results.predictions()), results.cumulative.accuracy() / 100.0


def _params_without_seed(name: str) -> tuple[dict[str, Any], int]:
    params = small_params(name)
    return {k: v for k, v in params.items() if k != "seed"}, params.get("seed", 1)


@needs_moa
@pytest.mark.parametrize("name", ["online_bls_fast", "online_bls_ada_fast", "rls", "forks",
                                  "skegd", "pros_n_kons", "nogd", "bogd"])
def test_same_predictions_as_streamlearns_loop(name: str) -> None:
    from streamlearn import components
    from streamlearn.interop.capymoa import StreamlearnClassifier

    c = 2 if "binary_only" in components.get_algorithm(name).all_tags() else 3
    X, y = blobs(400, 4, c, seed=1)
    params, seed = _params_without_seed(name)
    ours = streamlearn_predictions(name, {**params, "seed": seed} if "seed" in
                                   small_params(name) else params, X, y, c)
    stream = _numpy_stream(X, y)
    learner = StreamlearnClassifier(stream.get_schema(), name, random_seed=seed, **params)
    preds, acc = _capymoa_predictions(learner, stream)
    assert n_differ(preds, ours) == 0
    assert acc == pytest.approx(float(np.mean(ours == y)), abs=1e-9)


@needs_moa
def test_beside_moas_learners_in_one_pass() -> None:
    from capymoa.classifier import HoeffdingTree
    from capymoa.evaluation import prequential_evaluation_multiple_learners

    from streamlearn.interop.capymoa import OnlineBLS, OnlineBLSAda

    X, y = blobs(500, 4, 3, seed=2)
    stream = _numpy_stream(X, y)
    schema = stream.get_schema()
    bls = {"n1": 4, "n2": 3, "n3": 40, "lam": 1e-2}
    learners = {"bls": OnlineBLS(schema, random_seed=4, **bls),
                "ada": OnlineBLSAda(schema, random_seed=4, mu=0.95, **bls),
                "ht": HoeffdingTree(schema)}
    results = prequential_evaluation_multiple_learners(stream, learners,
                                                       store_predictions=True)
    for key, name, extra in [("bls", "online_bls_fast", {}),
                             ("ada", "online_bls_ada_fast", {"mu": 0.95})]:
        ours = streamlearn_predictions(name, {**bls, **extra, "seed": 4}, X, y, 3)
        assert n_differ(results[key].predictions(), ours) == 0
        assert results[key].cumulative.accuracy() > 80
    assert results["ht"].cumulative.accuracy() > 50


@needs_moa
def test_parameters_probabilities_and_refusals() -> None:
    from streamlearn.interop.capymoa import FORKS, OnlineBLS, StreamlearnClassifier

    X, y = blobs(60, 3, 3, seed=3)
    schema = _numpy_stream(X, y).get_schema()
    model = OnlineBLS(schema, 7, n3=30)
    assert model.learner.seed == 7 and model.learner.n3 == 30
    again = OnlineBLS.from_params(schema, model.get_params(), 7)
    assert again.get_params() == model.get_params() and again.learner.seed == 7
    generic = StreamlearnClassifier(schema, "rls", lam=2.0)
    assert generic.get_params() == {"name_or_class": "rls", "lam": 2.0}
    with pytest.raises(ValueError, match="random_seed"):
        StreamlearnClassifier(schema, "online_bls_fast", seed=3)
    with pytest.raises(ValueError, match="two classes; the schema has 3"):
        FORKS(schema, rho=10)
    with pytest.raises(ValueError, match="schema of a classification stream"):
        OnlineBLS(None)
    from capymoa.core import Instance, LabeledInstance

    for i in range(20):
        model.train(LabeledInstance.from_array(schema, X[i], int(y[i])))
    inst = Instance.from_array(schema, X[20])
    proba = model.predict_proba(inst)
    assert proba.shape == (3,) and proba.sum() == pytest.approx(1.0)
    assert int(np.argmax(proba)) == model.predict(inst)
    # a missing value (NaN) is 0.0, an unlabelled instance is not learned
    holes = X[21].copy()
    holes[1] = np.nan
    zeros = X[21].copy()
    zeros[1] = 0.0
    assert model.predict(Instance.from_array(schema, holes)) == \
        model.predict(Instance.from_array(schema, zeros))
    before = model.learner.Z_.copy()
    model.train(LabeledInstance.from_array(schema, X[22], -1))
    np.testing.assert_array_equal(model.learner.Z_, before)


@needs_moa
@pytest.mark.datasets
def test_electricity_capymoa_door_gives_streamlearn_runs_predictions(
        tmp_path: Path) -> None:
    """Same numbers through every door (issue 27), CapyMOA's: ``prequential_evaluation``
    of the wrapped learners on Electricity's first 10,000 samples against ``streamlearn
    run`` of the same learners, parameters and seeds."""
    data = shared_data_dir()
    if data is None or not (data / "elec2").is_dir():
        pytest.skip("Electricity is not available (set STREAMLEARN_TEST_DATA or ../shared)")
    from streamlearn.interop.capymoa import StreamlearnClassifier
    from tests.interop.electricity import LEARNERS, N, electricity_arrays, streamlearn_run

    run = streamlearn_run(tmp_path / "out", data)
    X, y = electricity_arrays(data)
    for name, params in LEARNERS.items():
        np.testing.assert_array_equal(run[name]["y_true"], y)
        rest = {k: v for k, v in params.items() if k != "seed"}
        stream = _numpy_stream(X, y)
        learner = StreamlearnClassifier(stream.get_schema(), name,
                                        random_seed=params["seed"], **rest)
        preds, acc = _capymoa_predictions(learner, stream)
        differ = n_differ(preds, run[name]["y_pred"])
        print(f"\n{name}: streamlearn run OCA {run[name]['oca']:.6f}, CapyMOA "
              f"{acc:.6f}, {differ} of {N} predictions differ")
        assert differ == 0
        assert acc == pytest.approx(run[name]["oca"], abs=1e-12)
        assert 0.6 < acc < 1.0
