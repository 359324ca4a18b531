"""MOA's regressors through CapyMOA (moa_fimtdd, moa_arf_regressor).

Tests that run MOA are skipped, with the reason, when CapyMOA or Java is absent (`make
test-moa` installs the extra in its own environment and runs them); what a user sees
without the extra is tested everywhere.
"""

from __future__ import annotations

import json
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from streamlearn import components
from streamlearn.algorithms.external.moa_baselines import moa_unavailable_reason
from streamlearn.algorithms.external.moa_regressors import (
    MOAFIMTDD,
    MOAARFRegressor,
    MOARegressor,
)
from streamlearn.datasets.river_regression import FriedmanStream
from streamlearn.errors import UserError
from tests.cli_helpers import cli_exit_code as _cli
from tests.cli_helpers import run_cli

REASON = moa_unavailable_reason()
needs_moa = pytest.mark.skipif(REASON is not None, reason=f"MOA not available: {REASON}")

#: name -> (CapyMOA class, our parameters, the same parameters as CapyMOA takes them)
CASES: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "moa_fimtdd": ("FIMTDD", {}, {}),
    "moa_arf_regressor": ("AdaptiveRandomForestRegressor", {"ensemble_size": 3, "seed": 7},
                          {"ensemble_size": 3, "random_seed": 7}),
}


def _config(tmp_path: Path, algorithms: list, n: int = 1500) -> Path:
    cfg = {"name": "moa_reg", "protocol": "prequential-regression", "repeats": 1,
           "streams": [{"name": "friedman", "label": "Friedman",
                        "params": {"n_samples": n}}],
           "algorithms": algorithms, "metrics": ["rmse", "mae", "r2"],
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    p = tmp_path / "cfg.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def test_moa_regressors_are_registered():
    assert components.get_algorithm("moa_fimtdd") is MOAFIMTDD
    assert components.get_algorithm("moa_arf_regressor") is MOAARFRegressor
    # SOKNL's prediction reads the target of the instance it predicts (module docstring)
    with pytest.raises(UserError, match="Unknown algorithm 'moa_soknl'"):
        components.get_algorithm("moa_soknl")
    for name in CASES:
        assert components.get_algorithm(name).task == "regression"


@pytest.mark.parametrize("cls,params,needle", [
    (MOAFIMTDD, {"grace_period": 0}, "grace_period"),
    (MOAFIMTDD, {"split_confidence": 1.5}, "split_confidence"),
    (MOAFIMTDD, {"regression_tree": "yes"}, "regression_tree"),
    (MOAFIMTDD, {"seed": -1}, "seed"),
    (MOAARFRegressor, {"max_features": 1.5}, "max_features"),
    (MOAARFRegressor, {"ensemble_size": 0}, "ensemble_size"),
    (MOAARFRegressor, {"lambda_param": 0.0}, "lambda_param"),
])
def test_bad_parameters_are_refused(cls, params, needle):
    with pytest.raises(UserError, match=needle):
        cls(**params)


@pytest.fixture
def without_moa(monkeypatch):
    reason = "CapyMOA is not installed; install the extra (test double)"
    monkeypatch.setattr(MOARegressor, "unavailable_reason", classmethod(lambda cls: reason))
    return reason


def test_without_the_extra_a_moa_regressor_is_a_config_error(tmp_path, capsys, without_moa):
    cfg = _config(tmp_path, [{"name": "moa_fimtdd"}])
    assert _cli(["run", str(cfg), "--quiet"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "algorithm 'moa_fimtdd' cannot run here: CapyMOA is not installed" in err
    assert "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_without_the_extra_an_optional_moa_regressor_is_left_out(tmp_path, capsys,
                                                                  without_moa):
    cfg = _config(tmp_path, [{"name": "moa_fimtdd", "label": "MOA FIMT-DD", "optional": True},
                             {"name": "linear_regression", "label": "River LR"}], n=300)
    assert _cli(["run", str(cfg), "--quiet"]) == 0
    assert "Left out 'MOA FIMT-DD' (optional)" in " ".join(capsys.readouterr().err.split())
    runs = [json.loads(p.read_text()) for p in (tmp_path / "out" / "runs").glob("*.json")]
    assert [r["algorithm"] for r in runs] == ["River LR"]


# ---------------------------------------------------------------- with MOA


def _capymoa_predictions(capymoa_class: str, kwargs: dict[str, Any], X: np.ndarray,
                         y: np.ndarray) -> np.ndarray:
    """Test-then-train with CapyMOA's own regressor driven directly, as CapyMOA's
    prequential_evaluation does (predicting on the instance that carries the target)."""
    import capymoa.regressor
    from capymoa.core import RegressionInstance
    from capymoa.stream import Schema

    schema = Schema.from_custom([*(f"f{i}" for i in range(X.shape[1])), "target"],
                                target="target", name="direct")
    model = getattr(capymoa.regressor, capymoa_class)(schema=schema, **kwargs)
    out = []
    for xi, yi in zip(X, y, strict=True):
        inst = RegressionInstance.from_array(schema, xi, float(yi))
        out.append(model.predict(inst))
        model.train(inst)
    return np.asarray(out, dtype=float)


@needs_moa
@pytest.mark.parametrize("name", list(CASES))
def test_predictions_are_capymoas_and_learn_friedman(name):
    X, y = FriedmanStream(n_samples=3000, seed=3).to_arrays()
    capymoa_class, params, kwargs = CASES[name]
    model = components.get_algorithm(name)(**params)
    model.reset(X.shape[1], None)
    ours = []
    for xi, yi in zip(X, y, strict=True):
        ours.append(model.predict_one(xi))
        model.learn_one(xi, yi)
    assert all(type(p) is float for p in ours)
    theirs = _capymoa_predictions(capymoa_class, kwargs, X, y)
    np.testing.assert_array_equal(np.asarray(ours), theirs)
    # better than predicting the mean over the last 1,000 samples (MOA's model trees need
    # a few thousand on Friedman #1: measured MSE/var 2.1, 0.60, 0.41 per 1,000 for FIMT-DD)
    tail = slice(2000, None)
    assert np.mean((theirs[tail] - y[tail]) ** 2) < np.var(y[tail])


@needs_moa
def test_seed_changes_the_forest_and_pickle_keeps_it():
    X, y = FriedmanStream(n_samples=600, seed=4).to_arrays()

    def prequential(m: MOARegressor, X: np.ndarray, y: np.ndarray) -> np.ndarray:
        out = []
        for xi, yi in zip(X, y, strict=True):
            out.append(m.predict_one(xi))
            m.learn_one(xi, yi)
        return np.asarray(out)

    def preds(seed: int) -> np.ndarray:
        m = MOAARFRegressor(ensemble_size=3, seed=seed)
        m.reset(X.shape[1], None)
        return prequential(m, X, y)

    np.testing.assert_array_equal(preds(1), preds(1))
    assert not np.array_equal(preds(1), preds(2))
    m = MOAARFRegressor(ensemble_size=3, seed=2**32 - 5)  # a runner-derived 32-bit seed
    m.reset(X.shape[1], None)
    prequential(m, X[:300], y[:300])
    copy = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(prequential(copy, X[300:], y[300:]),
                                  prequential(m, X[300:], y[300:]))


@needs_moa
def test_streamlearn_run_friedman_with_moa_fimtdd(tmp_path):
    cfg = _config(tmp_path, [{"name": "moa_fimtdd", "label": "MOA FIMT-DD"},
                             {"name": "hoeffding_tree_regressor", "label": "River HTR"}],
                  n=5000)
    assert _cli(["run", str(cfg), "--quiet"]) == 0
    recs = {r["algorithm"]: r for r in (json.loads(p.read_text())
                                        for p in (tmp_path / "out" / "runs").glob("*.json"))}
    assert set(recs) == {"MOA FIMT-DD", "River HTR"}
    moa = recs["MOA FIMT-DD"]
    assert moa["status"] == "ok"
    assert all(math.isfinite(moa["metrics"][m]) for m in ("rmse", "mae", "r2"))
    assert 0.0 < moa["metrics"]["mae"] <= moa["metrics"]["rmse"]
    assert moa["metrics"]["r2"] > 0.0  # over 5,000 samples better than the mean
    # MOA's model tree is not River's
    assert moa["metrics"]["rmse"] != recs["River HTR"]["metrics"]["rmse"]


@needs_moa
@pytest.mark.parametrize("name", list(CASES))
def test_streamlearn_check_passes(name, capsys):
    rc, text = run_cli(["check", name], capsys)
    assert rc == 0, text
