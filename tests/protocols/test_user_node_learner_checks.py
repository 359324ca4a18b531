"""A user's node learner (``incremental-nodes`` protocol) must be reproducible, as a
prequential user learner must (:func:`streamlearn.protocols.user_learner_checks.
check_user_node_learner`). Before this check, a D-Rdg subclass whose ridge grew with every
instance built in the process gave 70.00 ± 2.25 with ``--jobs 1`` and 70.27 ± 2.58 with
``--jobs 2``, same config, exit 0."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from streamlearn.base import PreparedData
from streamlearn.protocols.incremental_nodes import CHECK_NETWORK, IncrementalNodesProtocol
from streamlearn.protocols.user_learner_checks import CHECK_ROWS
from tests.cli_helpers import run_cli, user_module
from tests.evaluation.test_misbehaving_learners import _fresh_workers

MODULE = '''
import numpy as np

from streamlearn.algorithms.bls_nodes.d_rdg import DirectRidge


class Ridge(DirectRidge):
    """D-Rdg as a user's class: nothing outside the instance."""


class Leaky(DirectRidge):
    """D-Rdg whose ridge grows with every network it initialises in the process."""

    built = 0

    def _initialize(self, A, Y):
        type(self).built += 1
        self.lam = self.lam * 1e3 ** type(self).built
        super()._initialize(A, Y)


class LateLeaky(DirectRidge):
    """D-Rdg that counts its updates on the class and, past 4 of them (what the
    two checking passes make before the run), uses a far larger ridge."""

    updates = 0

    def _initialize(self, A, Y):
        if type(self).updates > 4:
            self.lam = 1e3
        super()._initialize(A, Y)

    def _update(self, A, H):
        type(self).updates += 1
        super()._update(A, H)
'''

NETWORK = {"windows": 2, "window_nodes": 5, "enhancement": 60, "updates": 3,
           "update_windows": 1, "update_enhancement": 10, "update_additional": 20,
           "split": "holdout", "n_test": 500}


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    with user_module(tmp_path, monkeypatch, "nodemod", MODULE) as directory:
        yield directory


def _config(tmp_path: Path, algorithms: list, seeds: list[int]) -> Path:
    cfg = {"name": "nodes", "protocol": {"name": "incremental-nodes", "params": NETWORK},
           "seeds": seeds,
           "streams": [{"name": "hyperplane", "label": "HP", "params": {"n_samples": 3000},
                        "normalize": "none"}],
           "algorithms": algorithms,
           "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    path = tmp_path / "cfg.yaml"
    path.write_text(yaml.safe_dump(cfg))
    return path


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))}


@pytest.mark.parametrize("learner,message", [
    ("Leaky", "before the run, fresh copies"),  # seen before the run, naming the state
    ("LateLeaky", "after the run (against before it)"),  # seen only after the run
])
def test_a_node_learner_leaking_state_fails_and_the_others_are_kept(user_dir, capsys,
                                                                     learner, message):
    cfg = _config(user_dir, [{"name": "nodemod:Ridge", "label": "Good"},
                             {"name": f"nodemod:{learner}", "label": "Leaks"}], [0])
    rc, text = run_cli(["run", str(cfg), "--quiet"], capsys)
    assert rc == 1, text
    recs = _records(user_dir / "out")
    assert recs["HP__Good__seed0"]["status"] == "ok"
    bad = recs["HP__Leaks__seed0"]
    assert bad["status"] == "failed" and "metrics" not in bad
    assert bad["error"].startswith(f"PredictionError: {learner} is not reproducible: ")
    assert message in bad["error"]
    if learner == "Leaky":
        assert "Between the two it changed Leaky.built" in bad["error"]


def test_a_clean_node_learner_gives_the_library_learner_numbers_with_any_jobs(user_dir,
                                                                               capsys):
    """The user's D-Rdg subclass equals the library's d_rdg run for run, with --jobs 1 and
    --jobs 2: the check changes no number."""
    cfg = _config(user_dir, [{"name": "nodemod:Ridge", "label": "Mine"},
                             {"name": "d_rdg", "label": "Library"}], [0, 1])

    def accuracies(*args: str) -> dict[str, list]:
        rc, text = run_cli(["run", str(cfg), "--quiet", "--force", *args], capsys)
        assert rc == 0, text
        return {k: r["updates"]["accuracy"]
                for k, r in _records(user_dir / "out").items()}

    _fresh_workers()  # an idle worker of an earlier test has another working directory
    one = accuracies("--jobs", "1")
    for seed in (0, 1):
        assert one[f"HP__Mine__seed{seed}"] == one[f"HP__Library__seed{seed}"]
    assert accuracies("--jobs", "2") == one


def test_the_check_grows_a_small_network_of_the_same_node_types():
    proto = IncrementalNodesProtocol(**{**NETWORK, "shrink": 0.5, "updates": 9})
    small = proto.check_network()
    assert small.shrink == 0.5 and small.split == "holdout"
    for key, cap in CHECK_NETWORK.items():
        assert getattr(small, key) == min(getattr(proto, key), cap)
    no_windows = IncrementalNodesProtocol(**{**NETWORK, "update_windows": 0,
                                             "update_enhancement": 0})
    assert no_windows.check_network().update_windows == 0  # NORB's updates stay NORB's


def test_library_node_learners_are_left_to_the_conformance_suite():
    from streamlearn.algorithms.bls_nodes.d_rdg import DirectRidge

    rng = np.random.default_rng(0)
    data = PreparedData(X=rng.normal(size=(CHECK_ROWS, 4)), y=rng.integers(0, 2, CHECK_ROWS),
                        info={"node_seed": 0}, n_classes=2,
                        extra={"X_test": rng.normal(size=(50, 4)),
                               "y_test": rng.integers(0, 2, 50)})
    assert IncrementalNodesProtocol(**NETWORK).warm_up(DirectRidge(lam=0.01), data) is None
