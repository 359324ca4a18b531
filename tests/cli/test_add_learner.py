"""``streamlearn run CONFIG --add-learner SPEC`` (issue 24): a learner joins a config's
algorithms without editing it, and only its runs are computed."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import yaml

from tests.cli_helpers import run_cli

CONFIG = {
    "name": "suite",
    "repeats": 2,
    "streams": [{"name": "sea", "label": "SEA", "params": {"n_samples": 300}},
                {"name": "sea", "label": "SEA2", "params": {"n_samples": 200, "noise": 0.2}}],
    "algorithms": [{"name": "rls", "label": "RLS"},
                   {"name": "perceptron", "label": "Perc"}],
    "evaluation": {"checkpoints": 4},
}

LEARNER = textwrap.dedent('''
    import numpy as np

    class Constant:
        """Always predicts class ``k``."""

        def __init__(self, k: int = 0):
            self.k = k

        def reset(self, n_features, n_classes):
            pass

        def predict_one(self, x):
            return self.k

        def learn_one(self, x, y):
            pass
''')


def _setup(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    cfg = tmp_path / "suite.yaml"
    cfg.write_text(yaml.safe_dump(CONFIG))
    (tmp_path / "mine.py").write_text(LEARNER)
    monkeypatch.chdir(tmp_path)
    return cfg, tmp_path / "out"


def _records(out: Path) -> dict[str, tuple[int, float]]:
    return {p.name: (p.stat().st_mtime_ns, json.loads(p.read_text())["metrics"]["oca"])
            for p in sorted((out / "runs").glob("*.json"))}


def test_add_learner_computes_only_its_runs(tmp_path, monkeypatch, capsys):
    cfg, out = _setup(tmp_path, monkeypatch)
    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet"], capsys)
    assert rc == 0, text
    assert "8 run(s) computed, 0 already complete" in text
    before = _records(out)
    assert len(before) == 8

    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet",
                        "--add-learner", "mine:Constant", "--param", "k=1",
                        "--label", "Mine"], capsys)
    assert rc == 0, text
    # 2 streams x 2 seeds of the added learner, the 8 others reused untouched
    assert "4 run(s) computed, 8 already complete" in text
    after = _records(out)
    assert len(after) == 12
    assert {k: v for k, v in after.items() if k in before} == before
    added = [json.loads(p.read_text()) for p in (out / "runs").glob("*Mine*.json")]
    assert len(added) == 4
    assert all(r["spec"]["algorithm"]["params"] == {"k": 1} for r in added)
    summary = (out / "summary.csv").read_text()
    assert "Mine" in summary and "RLS" in summary
    # the config file itself is unchanged
    assert yaml.safe_load(cfg.read_text()) == CONFIG

    # a second added learner replaces the first in the plan: the first one's records stay
    # and are named, not dropped without a word (hunt 5, 7 Dec)
    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet",
                        "--add-learner", "mine:Constant", "--label", "Zero"], capsys)
    assert rc == 0, text
    flat = " ".join(text.split())
    assert ("4 record(s) in the directory are not runs of this config and are left out of "
            "the tables: SEA2__Mine__seed0, SEA2__Mine__seed1, SEA__Mine__seed0, "
            "SEA__Mine__seed1") in flat
    assert "Mine" not in (out / "summary.csv").read_text()
    rc, text = run_cli(["report", str(out)], capsys)
    assert rc == 0 and "SEA__Mine__seed0" in " ".join(text.split())


def test_add_learner_on_a_committed_folder_reuses_its_archived_records(
        tmp_path, monkeypatch, capsys):
    """A fresh clone has a results folder's runs.tar.xz, not its runs/: the suite's
    records come from the archive (into runs/, byte for byte), only the added learner's
    runs are computed, and the tables hold every learner."""
    import shutil

    cfg, out = _setup(tmp_path, monkeypatch)
    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet"], capsys)
    assert rc == 0, text
    rc, text = run_cli(["records", "pack", str(out)], capsys)
    assert rc == 0, text
    committed = {p.name: p.read_bytes() for p in (out / "runs").glob("*.json")}
    shutil.rmtree(out / "runs")  # what git clone gives: the archive only

    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet",
                        "--add-learner", "mine:Constant", "--label", "Mine"], capsys)
    assert rc == 0, text
    assert "4 run(s) computed, 8 already complete" in text
    now = {p.name: p.read_bytes() for p in (out / "runs").glob("*.json")}
    assert len(now) == 12 and {k: now[k] for k in committed} == committed
    summary = (out / "summary.csv").read_text()
    assert all(label in summary for label in ("RLS", "Perc", "Mine"))

    # --force recomputes everything, archive or not
    rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet", "--force"], capsys)
    assert rc == 0, text
    assert "8 run(s) computed, 0 already complete" in text


def test_add_learner_registered_name_and_validate(tmp_path, monkeypatch, capsys):
    cfg, _ = _setup(tmp_path, monkeypatch)
    rc, text = run_cli(["validate", str(cfg), "--add-learner", "majority_class"], capsys)
    assert rc == 0, text
    assert "3 algorithm(s)" in text and "12 runs" in text


def test_add_learner_refusals(tmp_path, monkeypatch, capsys):
    cfg, out = _setup(tmp_path, monkeypatch)
    cases = [
        (["--add-learner", "nosuch_learner"], "nosuch_learner"),
        (["--add-learner", "mine:Constant", "--param", "kk=1"], "kk"),
        (["--add-learner", "mine:Constant", "--param", "k"], "KEY=VALUE"),
        (["--add-learner", "mine:Constant", "--add-learner", "rls", "--param", "k=1"],
         "one learner"),
        (["--param", "k=1"], "--add-learner"),
        (["--add-learner", "mine:Constant", "--label", "RLS"], "duplicate labels"),
    ]
    for extra, needle in cases:
        rc, text = run_cli(["run", str(cfg), "--out", str(out), "--quiet", *extra], capsys)
        assert rc == 2, (extra, text)
        assert needle in text, (extra, text)
        assert "Traceback" not in text
        assert not out.exists(), extra
