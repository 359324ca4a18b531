"""MOA's learners through CapyMOA (the optional `moa` extra).

Tests that run MOA are skipped, with the reason, when CapyMOA or Java is absent
(`make test-moa` installs the extra in its own environment and runs them). The tests of
what a user sees without the extra always run.
"""

from __future__ import annotations

import importlib.util
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn import components
from streamlearn.algorithms.external import moa_baselines
from streamlearn.algorithms.external.moa_baselines import MOAClassifier, moa_unavailable_reason
from streamlearn.checks import run_checks
from tests.cli_helpers import cli_exit_code as _cli

REASON = moa_unavailable_reason()
needs_moa = pytest.mark.skipif(REASON is not None, reason=f"MOA not available: {REASON}")

MOA_NAMES = ["moa_hoeffding_tree", "moa_hoeffding_adaptive_tree", "moa_arf",
             "moa_leveraging_bagging", "moa_naive_bayes"]


def _config(tmp_path: Path, algorithms: list, n: int = 2000) -> Path:
    cfg = {"name": "moa", "repeats": 1,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": n}],
           "algorithms": algorithms, "metrics": ["oca"],
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    p = tmp_path / "cfg.yaml"
    p.write_text(yaml.safe_dump(cfg))
    return p


def test_moa_names_are_registered():
    for name in MOA_NAMES:
        assert issubclass(components.get_algorithm(name), MOAClassifier)


@pytest.fixture
def without_moa(monkeypatch):
    reason = "CapyMOA is not installed; install the extra (test double)"
    monkeypatch.setattr(MOAClassifier, "unavailable_reason", classmethod(lambda cls: reason))
    return reason


def test_without_the_extra_a_moa_entry_is_a_config_error(tmp_path, capsys, without_moa):
    cfg = _config(tmp_path, [{"name": "moa_arf", "params": {"ensemble_size": 5}}])
    assert _cli(["run", str(cfg), "--quiet"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "algorithm 'moa_arf' cannot run here: CapyMOA is not installed" in err
    assert "optional: true" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_without_the_extra_optional_moa_entries_are_left_out(tmp_path, capsys, without_moa):
    cfg = _config(tmp_path, [{"name": "moa_arf", "label": "MOA ARF", "optional": True},
                             {"name": "perceptron", "label": "Perceptron"}], n=300)
    assert _cli(["run", str(cfg), "--quiet"]) == 0
    captured = capsys.readouterr()
    assert "Left out 'MOA ARF' (optional): CapyMOA is not installed" in " ".join(
        captured.err.split())
    runs = sorted(p.name for p in (tmp_path / "out" / "runs").glob("*.json"))
    assert runs == ["SEA__Perceptron__seed0.json"]


def test_optional_must_be_a_boolean(tmp_path, capsys):
    cfg = _config(tmp_path, [{"name": "perceptron", "optional": "yes"}])
    assert _cli(["validate", str(cfg)]) == 2
    assert "algorithms[0].optional" in capsys.readouterr().err


def test_the_reason_names_what_is_missing(monkeypatch):
    moa_unavailable_reason.cache_clear()
    try:
        monkeypatch.setattr(moa_baselines, "_java_found", lambda: False)
        reason = moa_unavailable_reason()
        assert reason is not None
        assert "streamlearn[moa]" in reason
        if importlib.util.find_spec("capymoa") is None:  # .venv: the extra is what's missing
            assert "CapyMOA is not installed" in reason
        else:  # .venv-moa: CapyMOA is there, so the missing Java must be named
            assert "no Java runtime" in reason and "JAVA_HOME" in reason
    finally:
        moa_unavailable_reason.cache_clear()


# ---------------------------------------------------------------- with MOA


@needs_moa
@pytest.mark.parametrize("name", ["moa_hoeffding_tree", "moa_arf"])
def test_moa_learners_pass_the_conformance_checks(name):
    results = run_checks(components.get_algorithm(name))
    failed = [(r.check, r.message) for r in results if not r.ok]
    assert not failed
    assert {r.check for r in results} >= {"pickle_roundtrip", "many_equals_loop", "learns"}


@needs_moa
def test_moa_runs_beside_river_on_the_same_stream(tmp_path):
    cfg = _config(tmp_path, [
        {"name": "moa_hoeffding_tree", "label": "MOA HT"},
        {"name": "moa_arf", "label": "MOA ARF", "params": {"ensemble_size": 5}},
        {"name": "hoeffding_tree", "label": "River HT"},
    ])
    assert _cli(["run", str(cfg), "--quiet"]) == 0
    recs = {json.loads(p.read_text())["algorithm"]: json.loads(p.read_text())
            for p in (tmp_path / "out" / "runs").glob("*.json")}
    assert {r["status"] for r in recs.values()} == {"ok"}
    # SEA's classes are ~65/35; every tree learns it well past the majority class
    for label in ("MOA HT", "MOA ARF", "River HT"):
        assert recs[label]["metrics"]["oca"] > 0.75, label
    # MOA's tree is not River's: their predictions differ on the same stream
    assert recs["MOA HT"]["metrics"]["oca"] != recs["River HT"]["metrics"]["oca"]


@needs_moa
def test_moa_seed_changes_the_forest_and_pickle_keeps_it():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (600, 3))
    y = (X[:, 0] + X[:, 1] > 8).astype(np.int64)
    cls = components.get_algorithm("moa_arf")

    def preds(seed: int) -> np.ndarray:
        m = cls(ensemble_size=3, seed=seed)
        m.reset(3, 2)
        return m.predict_learn_many(X, y)

    np.testing.assert_array_equal(preds(1), preds(1))
    assert not np.array_equal(preds(1), preds(2))
    m = cls(ensemble_size=3, seed=2**32 - 5)  # a runner-derived 32-bit seed is accepted
    m.reset(3, 2)
    m.predict_learn_many(X[:300], y[:300])
    copy = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(copy.predict_learn_many(X[300:], y[300:]),
                                  m.predict_learn_many(X[300:], y[300:]))
