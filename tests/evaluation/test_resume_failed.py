"""A failed run is not a result: the next `streamlearn run` computes it again, and no run
of the CLI exits 0 while the output directory holds a failed run (found when a
PROS-N-KONS run that had died on a LAPACK error was reported as '0 failed', exit 0, its
sigma row one run short, after the cause was fixed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from tests.cli_helpers import run_cli, user_module

FLAKY = '''
import os
import numpy as np


class Flaky:
    """A majority-class learner that raises while the file FAIL exists in the cwd."""

    def __init__(self, seed=None):
        self.seed = seed

    def reset(self, n_features, n_classes):
        self.counts = np.zeros(n_classes)

    def predict_one(self, x):
        return int(np.argmax(self.counts))

    def learn_one(self, x, y):
        if os.path.exists("FAIL"):
            raise FloatingPointError("eigenvalues did not converge (simulated)")
        self.counts[y] += 1
'''


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cfg = {"name": "flaky", "repeats": 2,
           "streams": [{"name": "sea", "label": "SEA", "max_samples": 300}],
           "algorithms": [{"name": "flaky_learners:Flaky", "label": "Flaky"},
                          {"name": "perceptron", "label": "Perceptron"}],
           "metrics": ["oca"], "outputs": {"dir": str(tmp_path / "out"), "plots": []}}
    (tmp_path / "cfg.yaml").write_text(yaml.safe_dump(cfg))
    with user_module(tmp_path, monkeypatch, "flaky_learners", FLAKY) as directory:
        yield directory


def _status(out: Path) -> dict[str, str]:
    return {p.stem: json.loads(p.read_text())["status"] for p in (out / "runs").glob("*.json")}


def test_failed_runs_are_recomputed_and_never_exit_zero(work, capsys):
    (work / "FAIL").touch()
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 1, text
    assert sorted(_status(work / "out").values()) == ["failed", "failed", "ok", "ok"]

    # the cause persists: the failed runs are tried again, fail again, and the exit is 1
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 1, text
    assert "2 run(s) computed, 2 already complete, 2 failed" in " ".join(text.split())

    # the cause is gone: only the failed runs are computed, and all four are results
    (work / "FAIL").unlink()
    rc, text = run_cli(["run", "cfg.yaml", "--quiet"], capsys)
    assert rc == 0, text
    assert "2 run(s) computed, 2 already complete, 0 failed" in " ".join(text.split())
    assert set(_status(work / "out").values()) == {"ok"}
