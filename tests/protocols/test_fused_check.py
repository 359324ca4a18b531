"""A user's fused ``predict_learn_many`` that is not the per-sample loop fails its run
(``streamlearn.protocols.fused_check``): before, such a learner's run exited 0 with the
fused path's numbers, which are not the protocol's."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn import components
from streamlearn.base import PreparedData
from streamlearn.protocols.fused_check import (
    CHECK_CHUNK,
    check_fused_matches_loop,
    is_library_learner,
)
from streamlearn.protocols.prequential_classification import PrequentialClassification
from streamlearn.protocols.prequential_loop import PredictionError
from streamlearn.protocols.prequential_regression import PrequentialRegression
from tests.cli_helpers import run_cli, user_module

MODULE = '''
import numpy as np


class Majority:
    """The most frequent class so far; ``fault`` breaks its fused path on purpose."""

    def __init__(self, fault: str = "none"):
        self.fault = fault

    def reset(self, n_features, n_classes):
        self.counts = np.zeros(n_classes)

    def predict_one(self, x):
        return int(np.argmax(self.counts))

    def learn_one(self, x, y):
        self.counts[y] += 1

    def predict_learn_many(self, X, y):
        if self.fault == "per_chunk":  # forgets what it learnt in earlier chunks
            self.counts[:] = 0
        out = np.empty(len(y), dtype=np.int64)
        for i, yi in enumerate(y):
            if self.fault == "learn_first":  # learns the sample before predicting it
                self.counts[yi] += 1
                out[i] = int(np.argmax(self.counts))
            else:
                out[i] = int(np.argmax(self.counts))
                self.counts[yi] += 1
        return out


class Noisy(Majority):
    """Not reproducible (unseeded global randomness) in both paths."""

    def predict_one(self, x):
        return int(np.random.randint(2))

    def predict_learn_many(self, X, y):
        for yi in y:
            self.counts[yi] += 1
        return np.random.randint(2, size=len(y))
'''


class MeanRegressor:
    """The running mean of the targets; its fused path sums in another order, off by
    ``offset`` relative."""

    task = "regression"

    def __init__(self, offset: float = 0.0):
        self.offset = offset

    def reset(self, n_features, n_classes):
        self.total, self.n = 0.0, 0

    def predict_one(self, x):
        return self.total / self.n if self.n else 0.0

    def learn_one(self, x, y):
        self.total += float(y)
        self.n += 1

    def predict_learn_many(self, X, y):
        out = np.empty(len(y))
        for i, yi in enumerate(y):
            out[i] = self.predict_one(X[i]) * (1.0 + self.offset)
            self.learn_one(X[i], yi)
        return out


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with user_module(tmp_path, monkeypatch, "fusedmod", MODULE) as directory:
        yield directory


def _learner(name: str, **params):
    cls = components.get_algorithm(f"fusedmod:{name}")
    return cls(**params)


def _config(tmp_path: Path, algorithms: list, evaluation: dict | None = None) -> Path:
    cfg = {"name": "fused", "streams": [{"name": "sea", "label": "SEA", "max_samples": 400}],
           "algorithms": algorithms, "metrics": ["oca"],
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    if evaluation:
        cfg["evaluation"] = evaluation
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _records(out: Path) -> dict[str, dict]:
    return {p.stem.split("__")[1]: json.loads(p.read_text())
            for p in sorted((out / "runs").glob("*.json"))}


def _blobs(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    return rng.normal(size=(n, 2)) + y[:, None], y


@pytest.mark.parametrize("fault", ["learn_first", "per_chunk"])
def test_a_fused_path_that_is_not_the_loop_is_refused(user_dir, fault):
    X, y = _blobs()
    with pytest.raises(PredictionError, match=r"Majority.predict_learn_many predicts "
                       r"differently from Majority's predict_one/learn_one loop on \d+ of "
                       r"the run's first 200 samples .*first at sample (\d+)"):
        check_fused_matches_loop(_learner("Majority", fault=fault), X, y, n_classes=3)


def test_the_message_names_the_first_sample_and_both_predictions(user_dir):
    X, y = _blobs()
    with pytest.raises(PredictionError) as err:
        check_fused_matches_loop(_learner("Majority", fault="per_chunk"), X, y, n_classes=3)
    # the per-chunk fault first shows at the second chunk's first sample, or later
    i = int(str(err.value).split("first at sample ")[1].split(":")[0])
    assert i >= CHECK_CHUNK
    assert "evaluation: {fused: false}" in str(err.value)


def test_a_correct_fused_path_and_an_unreproducible_learner_pass(user_dir):
    X, y = _blobs()
    check_fused_matches_loop(_learner("Majority"), X, y, n_classes=3)
    check_fused_matches_loop(_learner("Noisy", fault="none"), X, y, n_classes=3)


def test_regression_predictions_agree_to_a_relative_bound():
    X = np.zeros((100, 1))
    y = np.random.default_rng(1).normal(size=100) * 1e3
    data = PreparedData(X=X, y=y, info={}, n_classes=None)
    proto = PrequentialRegression()
    wrap = components.get_algorithm(f"{__name__}:MeanRegressor")
    proto.warm_up(wrap(offset=1e-12), data)  # another summation order: no printed digit
    with pytest.raises(PredictionError, match="predicts differently"):
        proto.warm_up(wrap(offset=1e-6), data)
    proto.warm_up(wrap(offset=1e-6), data, fused=False)  # the loop will run: not checked


def test_only_protocols_that_run_the_fused_path_check_it(user_dir):
    X, y = _blobs(300)
    data = PreparedData(X=X, y=y, info={}, n_classes=3)
    bad = _learner("Majority", fault="learn_first")
    with pytest.raises(PredictionError):
        PrequentialClassification().warm_up(bad, data)
    with pytest.raises(PredictionError):
        PrequentialClassification(holdout={"every": 100, "size": 20}).warm_up(bad, data)
    PrequentialClassification(delay=5).warm_up(bad, data)
    PrequentialClassification(validation={"method": "cross", "folds": 2}).warm_up(bad, data)


def test_library_learners_are_left_to_the_conformance_suite(user_dir):
    assert is_library_learner(components.get_algorithm("online_bls_fast")())
    assert not is_library_learner(_learner("Majority"))


def test_from_the_cli_the_bad_fused_run_fails_and_the_others_are_kept(user_dir, capsys):
    cfg = _config(user_dir, [
        {"name": "fusedmod:Majority", "label": "Good"},
        {"name": "fusedmod:Majority", "label": "Bad", "params": {"fault": "learn_first"}},
    ])
    rc, text = run_cli(["run", str(cfg), "--quiet"], capsys)
    assert rc == 1, text
    recs = _records(user_dir / "out")
    assert recs["Good"]["status"] == "ok"
    assert recs["Bad"]["status"] == "failed"
    assert "predicts differently from Majority's predict_one/learn_one loop" in \
        recs["Bad"]["error"]
    # the loop alone is the protocol: with fused off the same learner runs, and its
    # numbers are those of the good learner's fused run
    cfg = _config(user_dir, [
        {"name": "fusedmod:Majority", "label": "Good"},
        {"name": "fusedmod:Majority", "label": "Bad", "params": {"fault": "learn_first"}},
    ], evaluation={"fused": False})
    rc, text = run_cli(["run", str(cfg), "--quiet", "--force"], capsys)
    assert rc == 0, text
    recs = _records(user_dir / "out")
    assert recs["Bad"]["metrics"]["oca"] == recs["Good"]["metrics"]["oca"]
