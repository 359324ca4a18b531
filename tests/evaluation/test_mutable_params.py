"""A learner that changes a list or dict parameter in place cannot change the config, the
next run's learner or the parameters its record shows (found by a CLI probe: a learner
appending to its `sizes: [1]` made the config's list grow with each build — validation,
warm-up, each seed — so the runs computed a learner the config does not describe, the
records showed `sizes: [1, 1, 2, 3, 4]`, `--jobs 1` and `--jobs 2` differed, and a rerun
never found them complete; exit 0)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli_helpers import run_cli, user_module
from tests.evaluation.test_misbehaving_learners import _fresh_workers

LEARNERS = '''
import numpy as np


class Appends:
    """Appends to the list it is given; predicts len(sizes) % 2."""

    def __init__(self, sizes: list = None, table: dict = None):
        self.sizes = sizes
        self.sizes.append(len(self.sizes))
        table["builds"] = table.get("builds", 0) + 1

    def reset(self, n_features, n_classes):
        self.k = len(self.sizes)

    def predict_one(self, x):
        return int(self.k % 2)

    def learn_one(self, x, y):
        pass


class Copies(Appends):
    """The same learner, on its own copies of the parameters."""

    def __init__(self, sizes: list = None, table: dict = None):
        super().__init__(list(sizes), dict(table))
'''


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    params = {"sizes": [1], "table": {"builds": 0}}
    cfg = {"name": "mutating", "repeats": 3,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "mutating_learners:Appends", "label": "Appends",
                           "params": params},
                          {"name": "mutating_learners:Copies", "label": "Copies",
                           "params": params}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "mutating_learners", LEARNERS) as directory:
        yield directory


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_learner_changing_its_parameters_changes_nothing_else(work, capsys, jobs):
    _fresh_workers()  # an idle worker of an earlier test has another working directory
    rc, text = run_cli(["run", "cfg.yaml", "--quiet", "--jobs", jobs], capsys)
    assert rc == 0, text
    recs = {p.stem: json.loads(p.read_text()) for p in (work / "out" / "runs").glob("*.json")}
    assert len(recs) == 6
    for rec in recs.values():
        assert rec["spec"]["algorithm"]["params"] == {"sizes": [1], "table": {"builds": 0}}
    for seed in range(3):  # each run's learner is the config's: as if it had copied
        assert (recs[f"SEA__Appends__seed{seed}"]["metrics"]["oca"]
                == recs[f"SEA__Copies__seed{seed}"]["metrics"]["oca"])
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert "0 run(s) computed, 6 already complete" in " ".join(text.split())
