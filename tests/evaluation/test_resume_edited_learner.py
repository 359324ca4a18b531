"""An edited learner is a new run: a resumed experiment never mixes two versions of a
user's learner (found by a CLI probe: after an interrupted run, editing the learner's
module and running again reused the records of the old code beside new ones, exit 0)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import yaml

from streamlearn.evaluation.code_identity import user_code_sha256
from tests.cli_helpers import forget_module, run_cli, user_module

LEARNER = '''
import numpy as np


class Majority:
    """The most frequent class so far (FLIP: the least frequent)."""

    FLIP = False

    def reset(self, n_features, n_classes):
        self.counts = np.zeros(n_classes)

    def predict_one(self, x):
        return int(np.argmin(self.counts) if self.FLIP else np.argmax(self.counts))

    def learn_one(self, x, y):
        self.counts[y] += 1
'''


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = {"name": "edited", "repeats": 2,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "edited_learners:Majority", "label": "Mine"},
                          {"name": "perceptron", "label": "Perceptron"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "edited_learners", LEARNER) as directory:
        yield directory


def _records(out: Path) -> dict[str, dict]:
    return {p.stem: json.loads(p.read_text()) for p in (out / "runs").glob("*.json")}


def test_an_edited_learner_is_recomputed_and_the_others_are_reused(work, capsys):
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    before = _records(work / "out")
    sha = hashlib.sha256((work / "edited_learners.py").read_bytes()).hexdigest()
    assert before["SEA__Mine__seed0"]["spec"]["code_sha256"] == sha
    assert "code_sha256" not in before["SEA__Perceptron__seed0"]["spec"]

    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert "0 run(s) computed, 4 already complete" in " ".join(text.split())

    # the user changes the learner: its two runs are computed again, with the new code
    (work / "edited_learners.py").write_text(LEARNER.replace("FLIP = False", "FLIP = True"))
    forget_module("edited_learners")
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    assert "2 run(s) computed, 2 already complete" in " ".join(text.split())
    after = _records(work / "out")
    for seed in (0, 1):
        mine = f"SEA__Mine__seed{seed}"
        assert after[mine]["metrics"]["oca"] != before[mine]["metrics"]["oca"]
        perceptron = f"SEA__Perceptron__seed{seed}"
        assert after[perceptron] == before[perceptron]


def test_registered_names_and_installed_code_are_not_hashed():
    assert user_code_sha256("perceptron") is None
    assert user_code_sha256("river.linear_model:LogisticRegression") is None
